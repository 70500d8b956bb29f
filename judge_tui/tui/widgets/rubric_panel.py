"""The rubric beside the item: each dimension with its score, what the points mean, and guidance.

Rubric files are text from outside the program too, so everything here is built as rich Text (no markup).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Self

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.table import Table
from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from judge_tui.model.records import Rating
from judge_tui.model.rubrics import Dimension, Rubric
from judge_tui.model.textsafe import clean
from judge_tui.tui.score_text import compact_score, exact, overall_label, score_label, short_names
from judge_tui.tui.widgets.recurring_static import RecurringStatic, as_content, look_of
from judge_tui.tui.widgets.scroll_size import set_scroll_size
from judge_tui.tui.widgets.styled_lines import StyledLines
from judge_tui.tui.widgets.text_strips import text_height, text_strips

_DRAWN_LIMIT = 64  # blocks kept drawn (per panel): the cards of the dimensions the reviewer moves between


_CardArgs = tuple[Dimension, float | None, dict[str, Any]]  # a card's dimension, score and form


class RubricPanel(ScrollView, can_focus=False):
    """The rubric's name, one card per dimension, the definitions and other raters' ratings, drawn line by
    line (Textual's line API, as ItemPane draws the item).

    A card is a single line, or with its anchors and guidance when it has the focus. Compact (a short
    terminal), the anchors come straight under the name, so that every score point of the focused dimension
    shows even when what it measures and its guidance do not fit (they scroll).

    Each block (the title, a card, the definitions, the others' ratings) is drawn once into lines for its
    look and width and kept; a score key draws the one or two cards it changes and puts the panel's lines
    together again, with no layout of the screen (a card growing or shrinking only changes how far the panel
    scrolls). Blocks look as separate widgets would: one column of padding each side, a blank line between
    two, the focused card on a lighter background.
    """

    DEFAULT_CSS = """
    RubricPanel {
        overflow-x: hidden;
        overflow-y: auto;
    }
    RubricPanel > .rubric-panel--title {
        color: $accent;
    }
    RubricPanel > .rubric-panel--focused {
        background: $boost;
    }
    """
    COMPONENT_CLASSES = {"rubric-panel--title", "rubric-panel--focused"}

    def __init__(self, rubric: Rubric, **kwargs: Any) -> None:
        self._styled = StyledLines()  # the lines as Textual's styles draw them (the app's colour filters)
        self._looks: dict[str, tuple[Any, RichStyle]] = {}  # each look's visual style, until the styles change
        super().__init__(**kwargs)
        self.rubric = rubric
        # What each block shows, in order: (what identifies it, its text or how to draw it, its look).
        self._blocks: dict[str, tuple[tuple[object, ...], Text | _CardArgs, str]] = {
            "title": (("title",), Text(clean(rubric.name), "bold"), "title"),
        }
        self._drawn: OrderedDict[tuple[object, ...], list[Strip]] = OrderedDict()
        self._lines: list[Strip] = []
        self._spans: dict[str, tuple[int, int]] = {}  # block -> its first line and the line after it
        self._built_for: tuple[object, ...] | None = None
        self._changed: Region | None = None  # where on screen the lines changed since last taken (take_changed)
        self._scroll_wanted: str | None = None
        self._drawing_at: tuple[int, int] | None = None  # while Textual asks for the lines: width and scroll
        self._cards_wanted: list[_CardArgs] = []  # cards to draw ahead once the panel has a width
        self._blank: tuple[tuple[int, RichStyle], Strip] | None = None  # a blank line, the same Strip each time

    def use_rubric(self, rubric: Rubric) -> None:
        """Another version of the rubric (a change kept on the judge screen): every block is drawn anew at the
        next show(), as the cards are known by dimension, not by their anchors' text."""
        self.rubric = rubric
        self._blocks = {"title": (("title", rubric.name), Text(clean(rubric.name), "bold"), "title")}
        self._drawn.clear()
        self._cards_wanted = []  # drawn from the last version: they would be kept under the same keys
        self._built_for = None

    # ------------------------------------------------------------------ what the panel shows

    def show(
        self, scores: Mapping[str, float], code_scores: Mapping[str, float], *, cursor: str | None,
        guidance_on: bool, task_type: str | None, keys: Mapping[float, str], compact: bool = False,
        drawn_by_screen: bool = False,
    ) -> None:
        """Compact: the focused dimension's anchors first, and computed dimensions on one line each.
        Drawn_by_screen: the caller has the screen draw what changed (take_changed) in its next frame, so the
        panel does not also have Textual repaint those lines from its own message loop, a frame later, unchanged."""
        for dim in self.rubric.dimensions:
            value = code_scores.get(dim.id) if dim.method == "code" else scores.get(dim.id)
            self._blocks[f"dim-{dim.id}"] = self._card(dim, value, focused=dim.id == cursor, guidance_on=guidance_on,
                                                       task_type=task_type, keys=keys, compact=compact)
        if guidance_on and self.rubric.definitions:
            if "definitions" not in self._blocks:  # the same for every item
                text = Text("Definitions", "bold")
                for d in self.rubric.definitions:
                    text.append("\n")
                    text.append(clean(d.term), "italic")
                    text.append(f": {clean(d.meaning)}", "dim")
                self._blocks["definitions"] = (("definitions",), text, "")
        else:
            self._blocks.pop("definitions", None)
        self._order_blocks()
        self._build(by_screen=drawn_by_screen)

    def show_others(self, ratings: Sequence[Rating]) -> None:
        """Other raters' ratings: only ever given ratings of an item this reviewer has submitted."""
        if not ratings:
            if self._blocks.pop("others", None) is not None:
                self._build()
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
        self._blocks["others"] = (("others", text.plain, tuple(text.spans)), text, "")
        self._order_blocks()
        self._build()

    def _card(
        self, dim: Dimension, value: float | None, *, focused: bool, guidance_on: bool, task_type: str | None,
        keys: Mapping[float, str], compact: bool,
    ) -> tuple[tuple[object, ...], _CardArgs, str]:
        """A dimension's card as a block: what identifies it, how to draw it, its look."""
        expanded = focused or dim.method == "code" and guidance_on and not compact
        shown_keys = dict(keys) if focused else {}
        shown: tuple[object, ...] = (dim.id, value, focused, expanded)
        if expanded:  # a collapsed card is its head line alone, the same on every item
            shown += (guidance_on, task_type, tuple(shown_keys.items()), compact)
        options = {"focused": focused, "expanded": expanded, "guidance_on": guidance_on, "task_type": task_type,
                   "keys": shown_keys, "compact": compact}
        return shown, (dim, value, options), "focused" if focused else ""

    def prepare_card(
        self, dimension_id: str, value: float | None, *, guidance_on: bool, task_type: str | None,
        keys: Mapping[float, str], compact: bool = False, values: Sequence[float | None] = (),
    ) -> None:
        """Draw a dimension's focused card ahead of time (the next key's or the next item's), so that the key
        finds it drawn: laying out its table of anchors is most of a key's own work. `values`: the same card
        with other scores too, drawn one at a time after this one (a key that scores the focused dimension and
        leaves it focused, the last one, shows one of them)."""
        options = {"guidance_on": guidance_on, "task_type": task_type, "keys": keys, "compact": compact}
        dim = self.rubric.dimension(dimension_id)
        self._cards_wanted = [(dim, value, options), *((dim, other, options) for other in values if other != value)]
        self._draw_wanted_card()

    def _draw_wanted_card(self) -> None:
        """Draw the next card asked for ahead of time, once the panel has a width to draw it at (not while it is
        hidden: the rubric folded); any others after the messages waiting, so that a key never waits for more
        than one."""
        width = self.scrollable_content_region.width
        if not self._cards_wanted or width <= 2:
            return
        dim, value, options = self._cards_wanted.pop(0)
        key, source, look = self._card(dim, value, focused=True, **options)
        drawn = self._drawn_block(key, source, look, self._look(look), width)
        styling = self._styled.styling(self)
        if styling is not None:  # styled too: the key's frame only sends it
            for line in drawn:
                self._styled.styled(line, styling)
        if self._cards_wanted:
            self.call_later(self._draw_wanted_card)

    def _order_blocks(self) -> None:
        order = ["title", *(f"dim-{d.id}" for d in self.rubric.dimensions), "definitions", "others"]
        self._blocks = {name: self._blocks[name] for name in order if name in self._blocks}

    def scroll_to_dimension(self, dimension_id: str, *, after_layout: bool = False) -> None:
        """Bring the focused dimension into view; its first line always shows. After_layout: when the panel is
        about to change size (the terminal's did), once it has."""
        self._scroll_wanted = dimension_id
        if self.scrollable_content_region.height and not after_layout:
            self._scroll_to_card()
        else:
            self.call_after_refresh(self._scroll_to_card)

    def _scroll_to_card(self) -> None:
        span = self._spans.get(f"dim-{self._scroll_wanted}")
        if span is None:
            return
        start, end = span
        # The card with the blank line above it, as Textual keeps a widget's margin in view.
        region = Region(0, start - 1, max(1, self.scrollable_content_region.width), end - start + 1)
        top = end - start >= self.scrollable_content_region.height
        self.scroll_to_region(region, animate=False, top=top, immediate=True)

    @property
    def lines(self) -> list[Strip]:
        """Every line the panel holds, as drawn, including what is scrolled out of view."""
        return self._lines

    def forget_drawn(self) -> None:
        """Draw every block afresh when next shown (as a panel that has kept nothing would)."""
        self._drawn.clear()
        self._built_for = None
        self._build(refresh=False)

    @property
    def text(self) -> str:
        """Everything the panel holds as plain text, including what is scrolled out of view."""
        return "\n".join(line.text.rstrip() for line in self._lines)

    # ------------------------------------------------------------------ drawing

    def on_resize(self) -> None:
        self._build()
        self._draw_wanted_card()

    def notify_style_update(self) -> None:
        """New styles (another theme): the blocks are drawn again in their new colours when next shown."""
        super().notify_style_update()
        self._built_for = None
        self._looks.clear()
        self._styled.forget()
        self.refresh()

    def _build(self, *, refresh: bool = True, by_screen: bool = False) -> None:
        """Put the panel's lines together from its blocks, drawing only the blocks not drawn before."""
        width = self.scrollable_content_region.width
        if width <= 2:  # not laid out yet: built when first drawn
            return
        looks = {look: self._look(look) for look in ("", "title", "focused")}
        built_for = (width, tuple(key for key, _text, _look in self._blocks.values()), looks[""], looks["focused"])
        if built_for == self._built_for:
            return
        self._built_for = built_for
        blank = self._blank_line(width)
        lines: list[Strip] = []
        spans: dict[str, tuple[int, int]] = {}
        for name, (key, source, look) in self._blocks.items():
            if lines:
                lines.append(blank)  # the space between two blocks
            drawn = self._drawn_block(key, source, look, looks[look], width)
            spans[name] = (len(lines), len(lines) + len(drawn))
            lines.extend(drawn)
        before, self._lines, self._spans = self._lines, lines, spans
        size = Size(width, len(lines))
        if size != self.virtual_size:
            # No layout of the screen: only the scrollbar's reach changes (it appearing or going is a layout).
            set_scroll_size(self, size)
        if refresh:
            self._refresh_changed(before, lines, by_screen=by_screen)

    def _refresh_changed(self, before: list[Strip], after: list[Strip], *, by_screen: bool = False) -> None:
        """Draw again, and send to the terminal, only the run of lines that changed (a key changes a card or
        two; the blocks above them are the same strips). A scroll draws whatever else comes into view. By the
        screen: only noted for take_changed (Textual styling the lines itself keeps them until told to repaint)."""
        # The blocks a key leaves as they were are the same strips; a line of a block drawn anew is taken as changed.
        changed = [y for y in range(max(len(before), len(after)))
                   if y >= len(before) or y >= len(after) or before[y] is not after[y]]
        if changed:
            start, count = changed[0], changed[-1] - changed[0] + 1
            if by_screen and self._styled.styling(self) is not None:
                self._styled.changed()
            else:
                self.refresh_lines(start, count)
            shown = self.scrollable_content_region
            run = Region(shown.x, shown.y + start - round(self.scroll_offset.y), shown.width, count).intersection(shown)
            if run.area:
                self._changed = run if self._changed is None else self._changed.union(run)

    def take_changed(self) -> Region | None:
        """Where on the screen the panel's lines changed since this was last asked (None: nowhere in view), so
        that the screen can draw those lines alone with the other widgets a key changes."""
        found, self._changed = self._changed, None
        return found

    def _drawn_block(
        self, key: tuple[object, ...], source: Text | _CardArgs, look: str, style: tuple[Any, RichStyle],
        width: int,
    ) -> list[Strip]:
        """A block's lines, drawn now or kept from before."""
        drawn_as = (key, look, width, style)
        drawn = self._drawn.get(drawn_as)
        if drawn is None:
            drawn = self._drawn[drawn_as] = self._draw(source, style, width)
            while len(self._drawn) > _DRAWN_LIMIT:
                self._drawn.popitem(last=False)
        else:
            self._drawn.move_to_end(drawn_as)
        return drawn

    def _look(self, look: str) -> tuple[Any, RichStyle]:
        """A block's visual style and the style of its padding (its background over the panel's), worked out
        once until the styles change."""
        worked_out = self._looks.get(look)
        if worked_out is None:
            style = self.get_visual_style(f"rubric-panel--{look}") if look else self.visual_style
            worked_out = self._looks[look] = (
                style, RichStyle(bgcolor=style.background.rich_color if style.background else None))
        return worked_out

    def _draw(self, source: Text | _CardArgs, look: tuple[Any, RichStyle], width: int) -> list[Strip]:
        style, padding = look
        inner = width - 2
        if isinstance(source, Text):
            text = source
        else:
            dim, value, options = source
            text = self.card_text(dim, value, inner, **options)
        strips = text_strips(self, text, inner, style)
        side = Segment(" ", padding)
        return [Strip([side, *strip.adjust_cell_length(inner, padding), side], width) for strip in strips]

    def card_text(
        self, dim: Dimension, score: float | None, width: int, *, focused: bool, expanded: bool,
        guidance_on: bool, task_type: str | None, keys: Mapping[float, str], compact: bool,
    ) -> Text:
        rubric = self.rubric
        head = Text()
        head.append("▶ " if focused else "  ", "bold")
        head.append(f"{score_label(rubric.scale, score):>4}  ", "bold reverse" if score is not None else "dim")
        head.append(clean(dim.name), "bold" if focused else "")
        if dim.method == "code":
            head.append("  (computed)", "dim italic")
        if not expanded:
            return head
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
        # The table of anchors is laid out once here, not by Textual at every frame.
        return as_lines(self.app.console, Group(*parts), width)

    def _where_drawn(self) -> tuple[int, int]:
        """The panel's width and its first line on screen, its lines put together at that width."""
        width = self.scrollable_content_region.width
        if self._built_for is None or self._built_for[0] != width:  # first drawn, new styles or a new width
            self._build(refresh=False)
        return width, round(self.scroll_offset.y)

    def render_lines(self, crop: Region) -> list[Strip]:
        # The width and scroll looked up once for all the lines Textual asks for, not once a line.
        where = self._where_drawn()
        styling = self._styled.styling(self)
        if styling is None:  # styles this panel does not draw itself: Textual styles each line
            self._drawing_at = where
            try:
                return super().render_lines(crop)
            finally:
                self._drawing_at = None
        lines = self._lines
        return self._styled.lines(crop, styling, (where, id(lines)), lines, lambda y: self._line_at(y, *where))

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if repaint:
            self._styled.refreshed()
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def render_line(self, y: int) -> Strip:
        return self._line_at(y, *(self._where_drawn() if self._drawing_at is None else self._drawing_at))

    def _line_at(self, y: int, width: int, top: int) -> Strip:
        index = y + top
        if index < len(self._lines) and self._lines[index].cell_length == width:
            return self._lines[index]
        return self._blank_line(width)

    def _blank_line(self, width: int) -> Strip:
        """A blank line, the same Strip each time: a line compared with the one last drawn is found unchanged."""
        style = self._look("")[1]
        if self._blank is None or self._blank[0] != (width, style):
            self._blank = ((width, style), Strip.blank(width, style))
        return self._blank[1]


def as_lines(console: Console, renderable: RenderableType, width: int) -> Text:
    """A renderable laid out for a width, as the lines of text it draws (styles kept, nothing to lay out)."""
    lines = console.render_lines(renderable, console.options.update_width(width), pad=False)
    text = Text("\n").join(Text.assemble(*((segment.text, segment.style or "")
                                            for segment in Segment.simplify(line) if not segment.control))
                           for line in lines)
    text.no_wrap = True
    text.overflow = "crop"
    return text


def score_line(rubric: Rubric, scores: Mapping[str, float], cursor: str | None) -> Text:
    """Every dimension's score in one line, "R .75 · A 1 · ▸T – · L .75", the focused dimension marked."""
    names = short_names(rubric)
    text = Text(no_wrap=True, overflow="ellipsis")
    for n, dim in enumerate(rubric.dimensions):
        if n:
            text.append(" · ", "dim")
        value = scores.get(dim.id)
        piece = f"{clean(names[dim.id])} {compact_score(rubric.scale, value)}"
        if dim.id == cursor:
            text.append("▸", "bold")
            text.append(piece, "bold reverse")
        else:
            text.append(piece, "" if value is not None else "dim")
    return text


class RubricStrip(RecurringStatic):
    """The rubric collapsed to one line (toggle-rubric), so the item has the whole width: every dimension's
    score, the focused dimension's scale points with the keys that give them, and the overall score; the
    parts after the scores go first when the line is too narrow."""

    # Shown by a layout of the screen that already gives it its one line: its virtual size (which never
    # scrolls) is kept without asking Textual for a second layout and repaint in the next frame (Columns).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    DEFAULT_CSS = """
    RubricStrip {
        height: 1;
        padding: 0 1;
        background: $panel;
    }
    """

    def __init__(self, rubric: Rubric, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rubric = rubric
        self._forms: list[Text] = [Text()]

    def show(self, scores: Mapping[str, float], *, cursor: str | None, keys: Mapping[float, str], overall: str,
             marks: str) -> None:
        """`scores` of every dimension (computed ones too), `keys`: scale point -> the key that gives it,
        `overall`: the overall score as shown, `marks`: ✓ submitted, ↷ skipped, ⚑ flagged."""
        rubric, bar = self.rubric, (" │ ", "dim")
        line = score_line(rubric, scores, cursor)
        points = Text()
        chosen = scores.get(cursor) if cursor else None
        for point in rubric.scale.points:
            if points:
                points.append(" ")
            key = keys.get(point, "")
            if key:
                points.append(f"{key}→", "bold")
            picked = chosen is not None and abs(chosen - point) < 1e-9
            points.append(compact_score(rubric.scale, point), "bold reverse" if picked else "")
        name = clean(rubric.dimension(cursor).name.split(" (")[0]) if cursor else ""
        tail = Text.assemble(bar, (overall, "bold"), (f" {marks}" if marks else "", "bold"))
        named = Text.assemble(bar, (f"{name}: ", "italic"), points) if name else Text.assemble(bar, points)
        self._forms = [Text.assemble(line, named, tail), Text.assemble(line, bar, points, tail),
                       Text.assemble(line, bar, points), line]
        for form in self._forms:
            form.no_wrap, form.overflow = True, "ellipsis"
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        width = self.content_region.width
        self.show_look(next((form for form in self._forms if not width or form.cell_len <= width), self._forms[-1]))


class ScoreSummary(RecurringStatic):
    """The overall score, verdict and flag under the rubric, outside its scrolling so it always shows; every
    dimension's score in the rule above them."""

    def __init__(self, rubric: Rubric, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rubric = rubric
        self._scores_look: Hashable = None

    def show(
        self, *, overall: float | None, verdict: str | None, scored: int, needed: int, flagged: bool,
        flag_reason: str, submitted: bool, changed: bool, skipped: bool, scores: Text | None = None,
    ) -> None:
        """`scores`: every dimension's score on one line (score_line), drawn in the rule above (no row taken
        from the rubric's anchors at 80×24)."""
        rubric = self.rubric
        text = Text()
        if scores is not None and look_of(scores) != self._scores_look:
            self._scores_look = look_of(scores)
            # As Content, its styles converted once (Textual converts Rich text given as a title anew each time).
            self.border_title = as_content(scores, self.app.console, self.app.ansi_theme)
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
        if not self.shows(text):  # redrawn only when it changes; laid out again only when its height does
            self.show_look(text, layout=not self._same_height(text))

    def _same_height(self, text: Text) -> bool:
        width, height = self.content_region.size
        if not width:
            return False
        lines = text.plain.split("\n")
        if all(cell_len(line) <= width for line in lines):  # nothing wraps: a line each (most keys)
            return len(lines) == height
        return text_height(self, text, width) == height
