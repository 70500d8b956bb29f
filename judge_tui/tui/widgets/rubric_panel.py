"""The rubric beside the item: each dimension with its score, what the points mean, and guidance.

Rubric files are text from outside the program too, so everything here is built as rich Text (no markup).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from judge_tui.model.records import Rating
from judge_tui.model.rubrics import Dimension, Rubric
from judge_tui.model.textsafe import clean
from judge_tui.tui.score_text import exact, overall_label, score_label

# Expanded cards as drawn, by what they show and their width: the focused card of a new item, or of a
# dimension the reviewer comes back to, is drawn again without laying out its table of anchors again.
_DRAWN: OrderedDict[tuple[object, ...], Text] = OrderedDict()
_DRAWN_LIMIT = 64


class DimensionCard(Static):
    """One dimension: a single line, or with its anchors and guidance when it has the focus.

    Compact (a short terminal), the anchors come straight under the name, so that every score point of the
    focused dimension shows even when what it measures and its guidance do not fit (they scroll).

    An expanded card is drawn once into lines of text for its width (a table of anchors costs about a
    millisecond to lay out, and Textual lays it out twice: to measure its height and to draw it).
    """

    def __init__(self, rubric: Rubric, dimension: Dimension, **kwargs: Any) -> None:
        super().__init__(markup=False, **kwargs)
        self.rubric = rubric
        self.dimension = dimension
        self._shown: tuple[object, ...] | None = None
        self._drawn_width = 0
        self._drawn_with: tuple[float | None, dict[str, Any]] | None = None  # show()'s arguments, expanded

    def on_resize(self) -> None:
        """An expanded card drawn for another width is drawn again for this one."""
        if self._drawn_with is not None and self.content_region.width != self._drawn_width:
            score, options = self._drawn_with
            self._shown = None
            self.show(score, **options)

    def show(
        self, score: float | None, *, focused: bool, expanded: bool, guidance_on: bool,
        task_type: str | None, keys: Mapping[float, str], compact: bool = False,
    ) -> None:
        """Draw the card; a card whose score, focus and form have not changed is left as it is (a score key
        changes one or two cards of the panel)."""
        shown = (score, focused, expanded, guidance_on, task_type, tuple(keys.items()), compact)
        if shown == self._shown:
            return
        self._shown = shown
        rubric, dim = self.rubric, self.dimension
        self.set_class(focused, "-focused")
        head = Text()
        head.append("▶ " if focused else "  ", "bold")
        head.append(f"{score_label(rubric.scale, score):>4}  ", "bold reverse" if score is not None else "dim")
        head.append(clean(dim.name), "bold" if focused else "")
        if dim.method == "code":
            head.append("  (computed)", "dim italic")
        if not expanded:
            self._drawn_with = None
            self.update(head)
            return
        self._drawn_with = (score, {"focused": focused, "expanded": expanded, "guidance_on": guidance_on,
                                    "task_type": task_type, "keys": dict(keys), "compact": compact})
        measures = Text(clean(dim.measures), "italic")
        anchors = Table.grid(padding=(0, 1))
        anchors.add_column(no_wrap=True)
        anchors.add_column()
        meanings = rubric.anchors(dim)
        for point in rubric.scale.points:  # every point, described or not, so that every key is explained
            label = rubric.scale.label(point)
            if label not in meanings and not keys:
                continue
            chosen = score is not None and abs(score - point) < 1e-9
            key = keys.get(point, "")
            # "1→0.5": the key and the score it gives (on a three-point scale the key is not the score).
            anchors.add_row(Text.assemble((f"{key}→" if key else "", "bold"),
                                          (label, "bold reverse" if chosen else "bold")),
                            Text(clean(meanings.get(label, "")), "" if chosen else "dim"))
        parts: list[RenderableType] = [head, anchors, measures] if compact else [head, measures, anchors]
        if guidance_on:
            guidance = rubric.guidance_for(dim, task_type)
            if guidance:
                parts.append(Text.assemble((f"For {clean(task_type or '')}: ", "bold"), clean(guidance)))
            for question in dim.questions:
                parts.append(Text.assemble(("· ", "dim"), (clean(question), "dim")))
        width = self.content_region.width
        self._drawn_width = width
        if not width:  # not laid out yet
            self.update(Group(*parts))
            return
        cached_as = (rubric.id, rubric.content_hash, dim.id, shown, width)
        drawn = _DRAWN.get(cached_as)
        if drawn is None:
            drawn = _DRAWN[cached_as] = as_lines(self.app.console, Group(*parts), width)
            while len(_DRAWN) > _DRAWN_LIMIT:
                _DRAWN.popitem(last=False)
        self.update(drawn)


def as_lines(console: Console, renderable: RenderableType, width: int) -> Text:
    """A renderable laid out for a width, as the lines of text it draws (styles kept, nothing to lay out)."""
    lines = console.render_lines(renderable, console.options.update_width(width), pad=False)
    text = Text("\n").join(Text.assemble(*((segment.text, segment.style or "")
                                            for segment in Segment.simplify(line) if not segment.control))
                           for line in lines)
    text.no_wrap = True
    text.overflow = "crop"
    return text


class RubricPanel(VerticalScroll, can_focus=False):
    def __init__(self, rubric: Rubric, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rubric = rubric

    def compose(self) -> ComposeResult:
        yield Static(Text(clean(self.rubric.name), "bold"), id="rubric-title", markup=False)
        for dim in self.rubric.dimensions:
            yield DimensionCard(self.rubric, dim, id=f"dim-{dim.id}", classes="dimension")
        yield Static(id="rubric-definitions", markup=False)
        yield Static(id="others", markup=False)

    def show(
        self, scores: Mapping[str, float], code_scores: Mapping[str, float], *, cursor: str | None,
        guidance_on: bool, task_type: str | None, keys: Mapping[float, str], compact: bool = False,
    ) -> None:
        """Compact: the focused dimension's anchors first, and computed dimensions on one line each."""
        for dim in self.rubric.dimensions:
            card = self.query_one(f"#dim-{dim.id}", DimensionCard)
            value = code_scores.get(dim.id) if dim.method == "code" else scores.get(dim.id)
            focused = dim.id == cursor
            expanded = focused or dim.method == "code" and guidance_on and not compact
            card.show(value, focused=focused, expanded=expanded, guidance_on=guidance_on, task_type=task_type,
                      keys=keys if focused else {}, compact=compact)
        definitions = self.query_one("#rubric-definitions", Static)
        definitions.display = guidance_on and bool(self.rubric.definitions)
        if definitions.display and not definitions.content:  # the same for every item: drawn once
            text = Text("Definitions", "bold")
            for d in self.rubric.definitions:
                text.append("\n")
                text.append(clean(d.term), "italic")
                text.append(f": {clean(d.meaning)}", "dim")
            definitions.update(text)

    def scroll_to_dimension(self, dimension_id: str) -> None:
        """Bring the focused dimension into view once its new height is known; its first line always shows."""
        self.call_after_refresh(self._scroll_to_card, dimension_id)

    def _scroll_to_card(self, dimension_id: str) -> None:
        card = self.query_one(f"#dim-{dimension_id}")
        if card.outer_size.height >= self.scrollable_content_region.height:
            self.scroll_to_widget(card, animate=False, top=True)
        else:
            self.scroll_to_widget(card, animate=False)

    def show_others(self, ratings: Sequence[Rating]) -> None:
        """Other raters' ratings: only ever given ratings of an item this reviewer has submitted."""
        others = self.query_one("#others", Static)
        others.display = bool(ratings)
        if not ratings:
            if others.content:
                others.update("")
            return
        text = Text("Other ratings (shown after your own)", "bold")
        for rating in ratings:
            text.append("\n")
            text.append(clean(rating.rater_id), "italic")
            scores = ", ".join(f"{clean(k)} {self.rubric.scale.label(v)}" for k, v in rating.scores.items())
            text.append(f": {scores}")
            if rating.overall is not None and self.rubric.overall != "label":
                text.append(f" · {exact(rating.overall)}")
            if rating.verdict:
                text.append(f" · {clean(rating.verdict)}")
            reason = rating.notes or str(rating.details.get("reasoning") or rating.details.get("critique") or "")
            if reason:
                text.append("\n  ")
                text.append(clean(reason), "dim")
        others.update(text)


class ScoreSummary(Static):
    """The overall score, verdict and flag under the rubric, outside its scrolling so it always shows."""

    def __init__(self, rubric: Rubric, **kwargs: Any) -> None:
        super().__init__(markup=False, **kwargs)
        self.rubric = rubric

    def show(
        self, *, overall: float | None, verdict: str | None, scored: int, needed: int, flagged: bool,
        flag_reason: str, submitted: bool, changed: bool, skipped: bool,
    ) -> None:
        rubric = self.rubric
        text = Text()
        name = clean(rubric.overall_name) if rubric.overall != "label" else "label"
        if overall is None:
            text.append(f"{name} —", "bold")
            text.append(f"  ({scored} of {needed} scored)", "dim")
        else:
            text.append(f"{name} {overall_label(rubric, overall)}", "bold")
            if verdict and rubric.overall != "label":
                text.append(f"  → {clean(verdict)}", "bold")
        if submitted:
            text.append("\n✓ submitted", "green")
            if changed:
                text.append(" · changed since: Enter saves again", "yellow")
        elif skipped:
            text.append("\n↷ skipped", "dim")
        if flagged:
            text.append("\n⚑ flagged", "bold red")
            if flag_reason:
                text.append(": ")
                text.append(clean(flag_reason))
        if text != self.content:  # redrawn only when it changes
            self.update(text)
