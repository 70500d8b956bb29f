"""The adjudication screen: settle the items where experts differ beyond the tolerance.

For each such item the screen shows the item, every expert's scores side by side (dimensions that differ
by more than the alignment tolerance, `agreement.tolerance` in settings.json, are marked) and their notes.
The lead sets the consensus score of each judged dimension with the rating screen's keys (0-4 for the
scale's points, 1 to k for categories, p / f for PASS / FAIL; dimensions the experts already agree on start with their common
score) and submits; a score key of another scale sets nothing and says why, and which keys do
(judge_tui.tui.refused_keys, as on the rating screen). A score key moves on to the next dimension still to
settle, never onto an agreed one: an agreed score changes only when the lead moves to it (↑/↓) and sets it. Enter with a dimension unset says
which, and goes to it. The result is a rating by the rater "consensus" (kind human) whose details say
{"adjudicated": true, "from": [the experts], "by": the lead}.

Blind rule (judge_tui.analysis.blind): a lead who is also an expert of this rubric only sees the disagreements on
items they have rated themselves.

The lead's screen: opened with `judge-tui adjudicate`, or with the `adjudicate` key (c) on the rating screen of
`judge-tui rate --lead`; a reviewer's c only says so. `a` opens the agreement summary with the team over
every item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import partial

import numpy as np
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from judge_tui.analysis.blind import visible_items
from judge_tui.analysis.team import ExpertDisagreement, TeamView, expert_disagreements, load_team
from judge_tui.formats.numbers import differ_text
from judge_tui.model.errors import UserError
from judge_tui.model.records import CONSENSUS_RATER, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings, Settings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store
from judge_tui.tui.kept_writes import write_when_free, writes_waiting
from judge_tui.tui.keys import (
    ADJUDICATION_BINDINGS,
    SCORE_ACTIONS,
    DigitEntry,
    scale_has_key,
)
from judge_tui.tui.plain_app import PlainNoticeApp
from judge_tui.tui.refused_keys import key_shown, keys_by_point, refused_score_key, typed_score
from judge_tui.tui.score_text import overall_label
from judge_tui.tui.screens.too_small import ADJUDICATION_MINIMUM, fit_to_terminal
from judge_tui.tui.widgets.item_pane import ItemPane
from judge_tui.tui.widgets.key_bar import KeyBar


def visible_disagreements(store: Store, view: TeamView, lead: str,
                          settings: AgreementSettings) -> list[ExpertDisagreement]:
    """The disagreements the lead may see: all of them, or only on items they rated if they are an expert."""
    found = expert_disagreements(view, settings)
    visible = visible_items(store, view.rubric.id, lead, lead=True)
    return found if visible is None else [d for d in found if d.item_id in visible]


def disagreements_to_settle(store: Store, rubric: Rubric, lead: str, *, split: str | None,
                            settings: AgreementSettings) -> tuple[TeamView, list[ExpertDisagreement]]:
    """The team and the disagreements this lead may settle (possibly none); UserError without two experts."""
    view = load_team(store, rubric, split=split)
    if len(view.experts) < 2:
        raise UserError(f"adjudication needs ratings of {rubric.id} by at least two experts; found "
                        f"{len(view.experts)}. Merge their databases first: `judge-tui merge OTHER.db`.")
    return view, visible_disagreements(store, view, lead, settings)


def nothing_to_settle(rubric: Rubric, settings: AgreementSettings) -> str:
    return f"No {rubric.id} items where experts {differ_text(rubric.scale, settings.tolerance)}: nothing to settle."


class AdjudicationScreen(Screen[None]):
    AUTO_FOCUS = ""
    BINDINGS = [*ADJUDICATION_BINDINGS]

    def __init__(self, store: Store, rubric: Rubric, lead: str, *, split: str | None = None,
                 agreement: AgreementSettings | None = None, view: TeamView | None = None,
                 items: list[ExpertDisagreement] | None = None, keymap: Mapping[str, str] | None = None) -> None:
        """`view` and `items` as disagreements_to_settle found them (read again when not given); `keymap` the
        user's, as the app applied it, so the keys are named as they are pressed."""
        super().__init__()
        self.keymap = dict(keymap or {})
        self.store, self.rubric, self.lead, self.split = store, rubric, lead, split
        self.agreement = agreement or AgreementSettings()
        self.judged = [d.id for d in rubric.judged_dimensions]
        self.view = view if view is not None else load_team(store, rubric, split=split)
        self.items = items if items is not None else visible_disagreements(store, self.view, lead, self.agreement)
        self.index = 0
        self.cursor = 0
        self._digits = DigitEntry()  # the first digit of a two-digit point, until its second
        self.choice: dict[str, float] = {}
        self.to_settle: list[str] = []  # the dimensions score keys move through: disagreeing or without a score

    def compose(self) -> ComposeResult:
        yield Static(id="adj-status", markup=False)
        with Horizontal(id="body"):
            yield ItemPane(self.rubric, id="item")
            with Vertical(id="adj-side"):
                yield Static(id="adj-scores", markup=False)
                with VerticalScroll(id="adj-notes-scroll"):
                    yield Static(id="adj-notes", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        if not self.items:
            self.query_one("#adj-status", Static).update(Text(
                f"{nothing_to_settle(self.rubric, self.agreement)} {self._key_of('agreement')}: the agreement "
                "summary · Escape: back"))
            return
        first_open = next((i for i, d in enumerate(self.items) if not d.adjudicated), 0)
        self._open(first_open)

    # ------------------------------------------------------------------ state

    @property
    def current(self) -> ExpertDisagreement | None:
        return self.items[self.index] if self.items else None

    def _open(self, index: int) -> None:
        self.index = index
        item_id = self.items[index].item_id
        column = self.view.item_ids.index(item_id)
        existing = self.store.rating(item_id, CONSENSUS_RATER)
        if existing is not None:
            self.choice = {d: existing.scores[d] for d in self.judged if d in existing.scores}
        flagged = set(self.items[index].dimensions)
        agreed = {}  # where the experts agree (within the tolerance): their common score
        for d in self.judged:
            values = self.view.expert_scores[d][:, column]
            values = values[~np.isnan(values)]
            if d not in flagged and values.size:
                agreed[d] = self.rubric.scale.stored_point(float(values[0]))
        if existing is None:
            self.choice = dict(agreed)
        self.to_settle = [d for d in self.judged if d not in agreed]
        missing = [i for i, d in enumerate(self.judged) if d not in self.choice]
        self.cursor = missing[0] if missing else self.judged.index(self.to_settle[0]) if self.to_settle else 0
        item = self.store.item(item_id)
        assert item is not None
        self.query_one(ItemPane).show(item)
        self._refresh_view()

    def _refresh_view(self) -> None:
        current = self.current
        if current is None:
            return
        self._show_status()
        self.query_one("#adj-scores", Static).update(self._score_table(current))
        self.query_one("#adj-notes", Static).update(self._notes(current))
        self.refresh_bindings()

    def _show_status(self) -> None:
        status = self.query_one("#adj-status", Static)
        status.update(self._status(self.app.size.width - status.styles.gutter.width))

    def _status(self, width: int) -> Text:
        """Where the lead is, in one line where it fits (120 columns). Narrower, the same parts in the order a
        lead needs them, each kept whole, on as many lines as they take: at 80 columns the rule that chose the
        items goes to a second line rather than off the edge."""
        title = Text.assemble(("Adjudication", "bold"), f"  {clean(self.rubric.id)}")
        position = f"item {self.index + 1} of {len(self.items)}"
        rule = f"where experts {differ_text(self.rubric.scale, self.agreement.tolerance)}"
        settled = f"{sum(d.adjudicated for d in self.items)} settled"
        lead = Text.assemble("lead ", (clean(self.lead), "bold"))
        line = Text(" · ").join([title, Text(f"{position} {rule}"), Text(settled), lead])
        if line.cell_len <= width:
            return line
        lines: list[Text] = []
        for part in (title, Text(position), Text(settled), lead, Text(f"items {rule}")):
            if lines and lines[-1].cell_len + len(" · ") + part.cell_len <= width:
                lines[-1] = Text(" · ").join([lines[-1], part])
            else:
                lines.append(part)
        return Text("\n").join(lines)

    def on_resize(self) -> None:
        if self.current is not None:
            self._show_status()

    def _score_table(self, current: ExpertDisagreement) -> Table:
        column = self.view.item_ids.index(current.item_id)
        table = Table(box=None, pad_edge=False, expand=True)
        # Ids and names wrap onto more lines when the panel is narrow (80 columns), never end in an ellipsis.
        # The dimension column gives up room first; an expert's id keeps its width while it fits.
        table.add_column("")
        words = [w for d in self.judged for w in self.rubric.dimension(d).name.split()]
        table.add_column(Text("dimension"), overflow="fold", ratio=1,
                         min_width=min(max(map(len, words), default=9), 12))
        for expert in current.experts:
            shown = clean(expert)
            table.add_column(Text(shown), justify="center", overflow="fold", min_width=min(len(shown), 16))
        table.add_column(Text("consensus", style="bold"), justify="center", min_width=len("consensus"))
        scale = self.rubric.scale
        for i, d in enumerate(self.judged):
            marker = "▶" if i == self.cursor else ""
            name = Text(clean(self.rubric.dimension(d).name))
            if d in current.dimensions:
                name.append(" ≠", style="bold red")
            row = self.view.experts
            cells = []
            for expert in current.experts:
                value = self.view.expert_scores[d][row.index(expert), column]
                cells.append(Text("—" if np.isnan(value) else scale.label(float(value))))
            chosen = self.choice.get(d)
            cells.append(Text(scale.label(chosen) if chosen is not None else "?",
                              style="bold reverse" if i == self.cursor else "bold"))
            table.add_row(Text(marker), name, *cells)
        keys = ", ".join(f"{key} = {scale.label(point)}" for point, key in self._score_keys().items())
        key = self._key_of
        table.caption = (f"{keys}; {key('prev-dimension')}/{key('next-dimension')} dimension; {key('submit')} saves; "
                         f"{key('prev-item')}/{key('next-item')} other items")
        return table

    def _notes(self, current: ExpertDisagreement) -> Text:
        text = Text()
        for expert in current.experts:
            note = self.view.notes.get((expert, current.item_id), "")
            text.append(clean(expert), style="bold")
            text.append(": ")
            text.append(clean(note) if note else "(no note)", style="" if note else "dim")
            text.append("\n")
        return text

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("leave", "agreement", "explain"):
            return True
        if self.current is None:
            return False
        if action in SCORE_ACTIONS:
            return scale_has_key(self.rubric.scale, action, parameters)
        if action == "submit":
            return True if all(d in self.choice for d in self.judged) else None
        return True

    def _score_keys(self) -> dict[float, str]:
        """Scale point -> the key that sets it, as the user's keymap has it."""
        return keys_by_point(self.rubric.scale, self.keymap, self.app.get_key_display)

    def _key_of(self, binding_id: str) -> str:
        """The first key of one of the rating screen's bindings (the ids are shared), as the keymap has it."""
        return key_shown(binding_id, self.keymap, self.app.get_key_display) or binding_id

    def action_explain(self, binding_id: str) -> None:
        """A score key of another scale (see EXPLAIN_BINDINGS): what it would set, why not, and which keys do."""
        if self.current is None:
            self.notify(nothing_to_settle(self.rubric, self.agreement), markup=False, severity="warning", timeout=4)
            return
        key = key_shown(binding_id, self.keymap, self.app.get_key_display)
        self.notify(refused_score_key(self.rubric.scale, binding_id, key, self._score_keys()), markup=False,
                    severity="warning", timeout=4)

    def action_score(self, number: int) -> None:
        # Typed as on the rating screen (keys.point_codes): categories from 1, whole numbers as themselves.
        scale = self.rubric.scale
        where = (self.index, self.cursor)
        point, notice, warning = typed_score(scale, self._digits, where, number, self._score_keys())
        if point is not None:
            self._set(point)
        else:
            self.notify(notice, markup=False, severity="warning" if warning else "information", timeout=4)

    def action_pass_fail(self, label: str) -> None:
        self._set(self.rubric.scale.parse(label))

    def _set(self, value: float) -> None:
        self.choice[self.judged[self.cursor]] = value
        self.cursor = self._next_to_settle()
        self._refresh_view()

    def _next_to_settle(self) -> int:
        """Where a score key moves the cursor: the next dimension still to settle below it, else the first one
        left unset, else where it is. Never onto a dimension the experts agree on."""
        later = [d for d in self.to_settle if self.judged.index(d) > self.cursor]
        unset = [d for d in self.judged if d not in self.choice]
        following = later[:1] or unset[:1]
        return self.judged.index(following[0]) if following else self.cursor

    def action_move(self, delta: int) -> None:
        self.cursor = (self.cursor + delta) % len(self.judged)
        self._refresh_view()

    def action_item(self, delta: int) -> None:
        target = self.index + delta
        if 0 <= target < len(self.items):
            self._open(target)

    def action_explain_submit(self) -> None:
        """Enter before every dimension has a consensus score: which are missing; the cursor goes to the first."""
        missing = [d for d in self.judged if d not in self.choice]
        if self.current is None or not missing:
            return
        self.cursor = self.judged.index(missing[0])
        self._refresh_view()
        names = ", ".join(self.rubric.dimension(d).name for d in missing)
        self.notify(f"Not saved: set the consensus of {names} first.", markup=False, severity="warning",
                    timeout=6)

    def action_submit(self) -> None:
        current = self.current
        assert current is not None
        rating = self.consensus(current, dict(self.choice))
        saved = (f"{current.item_id}: consensus saved ({self.rubric.overall_name} "
                 f"{overall_label(self.rubric, rating.overall)})")
        # Another program holding the database (a merge) keeps the consensus for a moment, not the lead.
        if write_when_free(self.app, self.store, partial(self.save_consensus, rating), saved):
            self.notify(saved, markup=False, timeout=3)
        self.items[self.index] = ExpertDisagreement(current.item_id, current.dimensions, current.experts, True)
        following = [i for i in range(len(self.items)) if not self.items[i].adjudicated]
        if following:
            after = [i for i in following if i > self.index]
            self._open(after[0] if after else following[0])
        else:
            self.notify("Every disagreement is settled.", markup=False, timeout=6)
            self._refresh_view()

    def consensus(self, current: ExpertDisagreement, scores: dict[str, float]) -> Rating:
        """The consensus rating of these scores (its rubric version is set when it is saved)."""
        item = self.store.item(current.item_id)
        assert item is not None
        full = {**self.rubric.code_scores(item.fields), **scores}
        return Rating(
            item_id=item.id, rater_id=CONSENSUS_RATER, rubric_version_id=0,
            scores=full, overall=self.rubric.overall_score(full), verdict=self.rubric.verdict(full),
            notes=f"adjudicated by {self.lead}", source="adjudication",
            details={"adjudicated": True, "from": list(current.experts), "by": self.lead},
        )

    def save_consensus(self, rating: Rating) -> None:
        with self.store.transaction():
            self.store.ensure_rater(CONSENSUS_RATER, "human", display_name="Adjudicated consensus")
            version = self.store.ensure_rubric_version(self.rubric)
            self.store.save_rating(replace(rating, rubric_version_id=version))

    def action_agreement(self) -> None:
        from judge_tui.tui.screens.summary import SummaryScreen

        self.app.push_screen(SummaryScreen(self.store, self.rubric, self.lead, agreement=self.agreement, lead=True,
                                           keymap=self.keymap))

    def action_leave(self) -> None:
        if isinstance(self.app, AdjudicationApp):
            if writes_waiting(self.app):
                self.notify(f"A consensus is not saved yet (the database is busy): {self._key_of('leave-adjudication')}"
                            " again once it is.", markup=False, severity="warning", timeout=6)
                return
            self.app.exit()
        else:
            self.app.pop_screen()


class AdjudicationApp(PlainNoticeApp[None]):
    """`judge-tui adjudicate`: the adjudication screen on its own."""

    CSS_PATH = "../app.tcss"
    TITLE = "judge-tui adjudicate"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, store: Store, rubric: Rubric, lead: str, *, split: str | None = None,
                 settings: Settings | None = None, view: TeamView | None = None,
                 items: list[ExpertDisagreement] | None = None) -> None:
        super().__init__()
        self.store, self.rubric, self.lead, self.split = store, rubric, lead, split
        self.settings = settings or Settings()
        self.view, self.items = view, items
        self._mounted = False

    def on_mount(self) -> None:
        self.set_keymap(self.settings.keymap)
        self.push_screen(AdjudicationScreen(self.store, self.rubric, self.lead, split=self.split,
                                            agreement=self.settings.agreement, view=self.view, items=self.items,
                                            keymap=self.settings.keymap))
        self._mounted = True
        fit_to_terminal(self, ADJUDICATION_MINIMUM)

    def on_resize(self, event: events.Resize) -> None:
        if self._mounted:  # the first size is looked at once the screen is open (on_mount)
            fit_to_terminal(self, ADJUDICATION_MINIMUM, event.size)  # the app's own size changes after this handler
