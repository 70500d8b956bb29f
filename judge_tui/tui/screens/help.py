"""Every key of the rating screen, built from the bindings themselves (so it follows the user's keymap)."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from judge_tui.model.rubrics import GRIDS, Scale
from judge_tui.tui.keys import RATING_BINDINGS, SCORE_GROUP, keys_of, point_codes, score_bindings
from judge_tui.tui.widgets.key_bar import KeyBar

WIDE_HELP = 110  # columns from which the binding ids have a column of their own
SCORE_KEYS = "Score the focused dimension (scales below)"  # the 0-1 grids and PASS/FAIL, as SCORES_HINT lists them
# "0–2 give 0 / 0.5 / 1 on a three-point scale", for each grid: "a, b and c"
_GIVE = [f"{grid.key_numbers[0]}–{grid.key_numbers[-1]} give {' / '.join(grid.labels)} on a {grid.called}"
         for grid in GRIDS]
_GRID_KEYS = f"{', '.join(_GIVE[:-1])} and {_GIVE[-1]}" if len(_GIVE) > 1 else _GIVE[0]
SCORES_HINT = (
    f"Scores: {_GRID_KEYS}; p and f give PASS and FAIL. Setting a score moves to "
    "the next dimension, so an item with k dimensions takes k + 1 keys. Every change is saved "
    "at once. Remap any key in settings.json, e.g. {\"keymap\": {\"submit\": \"enter,ctrl+s\"}}."
)


class HelpScreen(Screen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "app.pop_screen", "Close help", id="close-help")]

    def __init__(self, keymap: Mapping[str, str], scale: Scale | None = None) -> None:
        super().__init__()
        self.keymap = keymap
        self.scale = scale or Scale(kind="quarter")  # the rubric's: a scale of categories lists its own keys

    def key_table(self, width: int | None = None) -> Table:
        """Every key; below WIDE_HELP columns the binding id follows what the key does, rather than taking a
        column of its own (at 80 columns that left "does" 20 characters: six pages)."""
        wide = (width or self.app.size.width) >= WIDE_HELP
        table = Table(box=None, show_header=True, header_style="bold", expand=True, padding=(0, 2, 0, 0))
        table.add_column("keys", no_wrap=True)
        table.add_column("does" if wide else "does · binding id (for settings.json keymap)")
        if wide:
            table.add_column("binding id (for settings.json keymap)", style="dim", no_wrap=True)
        for keys, what, ids in self._rows():
            if wide:
                table.add_row(Text(keys, "bold"), Text(what), Text(ids))
            else:
                table.add_row(Text(keys, "bold"), Text.assemble(what, ("  " + ids, "dim")))
        return table

    def _rows(self) -> list[tuple[str, str, str]]:
        """(keys, what they do, binding ids): the score keys of one group on one row."""
        rows: list[tuple[str, str, str]] = []
        grouped: dict[object, int] = {}
        scored = self._score_keys()
        for binding in self._listed():
            keys = ", ".join(self.app.get_key_display(binding.with_key(k)) for k in keys_of(binding, self.keymap))
            if binding.group is not None and binding.group in grouped:
                row = grouped[binding.group]
                first_keys, what, first_id = rows[row]
                rows[row] = (f"{first_keys} {keys}", what, f"{first_id.split(' … ')[0]} … {binding.id}")
                continue
            if binding.group is not None:
                grouped[binding.group] = len(rows)
                what = scored
            else:
                what = binding.tooltip or binding.description
            rows.append((keys, what, binding.id or ""))
        return rows

    def _listed(self) -> list[Binding]:
        """The rating screen's bindings, the score keys of this scale in the place of the first."""
        first = next(n for n, b in enumerate(RATING_BINDINGS) if b.group is SCORE_GROUP)
        others = [b for b in RATING_BINDINGS if b.group is not SCORE_GROUP]
        return [*others[:first], *score_bindings(self.scale), *others[first:]]

    def _score_keys(self) -> str:
        """What the score keys' row says they do: the hint below names the points of a declared scale."""
        if not self.scale.declared:
            return SCORE_KEYS
        point = self.scale.point_name
        if self.scale.numbered:
            return f"The focused dimension's {point} (typed as shown below)"
        return f"{point.capitalize()} of the focused dimension (names below)"

    def _hint(self) -> str:
        if not self.scale.declared:
            return SCORES_HINT
        codes = point_codes(self.scale)
        two = " (two digits each)" if any(len(code) == 2 for code in codes) else ""
        points = self.scale.points_name.capitalize()
        if self.scale.numbered:
            first, last = min(codes), max(codes)
            what = f"{points} {self.scale.labels[0]} to {self.scale.labels[-1]}: type the number{two}, {first} to {last}"
        else:
            what = f"{points}{two}: " + " · ".join(f"{code} {name}" for code, name
                                                   in zip(codes, self.scale.labels, strict=True))
        return (f"{what}. Choosing one moves to the next dimension; every change is saved at once. "
                "Remap any key in settings.json, e.g. {\"keymap\": {\"score-9\": \"9,x\"}}.")

    def on_resize(self) -> None:
        self.query_one("#help-keys", Static).update(self.key_table(self.size.width))

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(Text("Keys of the rating screen", "bold"), markup=False)
            yield Static(self.key_table(), markup=False, id="help-keys")
            yield Static(
                Text(self._hint()),
                markup=False, classes="hint",
            )
        yield KeyBar()
