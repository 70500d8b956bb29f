"""One field of an item as rows of a width, so that only what is on screen is rendered.

A 5,000-line submission costs the same per frame as a 50-line one: the text is split into lines once,
wrapped rows are worked out per width, and each row becomes a Strip only when it is on screen. Code and
XML are highlighted with Pygments (long ones step by step on the event loop, shown plain until coloured).
"""

from __future__ import annotations

import asyncio
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterator
from itertools import accumulate
from typing import Literal

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

FieldKind = Literal["text", "code", "output", "xml"]

# Highlighting this many lines takes ~20 ms; longer texts are coloured step by step after they are shown.
HIGHLIGHT_INLINE_LINES = 400
THEME = "monokai"
_STRIP_CACHE_LIMIT = 2_000
_VIEWS_KEPT = 4  # views besides the one shown whose rows are kept: the rubric shown and folded, code sideways
_GUTTER_STYLE = Style(dim=True)
_MARK_STYLE = Style(bold=True, reverse=True)  # an unwrapped line goes on beyond the edge


# Highlighted lines of recently shown or prepared texts, so that opening the next item need not wait for
# Pygments: the rating screen prepares the next unrated item's code in a thread while the reviewer reads.
_HIGHLIGHTED: OrderedDict[tuple[str, str], list[Text]] = OrderedDict()
_HIGHLIGHTED_LIMIT = 16


_HIGHLIGHTED_LOCK = threading.Lock()


def highlighted(text: str, language: str) -> list[Text]:
    """highlight_lines, remembered for the last few texts."""
    key = (language, text)
    with _HIGHLIGHTED_LOCK:
        lines = _HIGHLIGHTED.get(key)
    if lines is None:
        lines = highlight_lines(text, language)
        with _HIGHLIGHTED_LOCK:
            _HIGHLIGHTED[key] = lines
            while len(_HIGHLIGHTED) > _HIGHLIGHTED_LIMIT:
                _HIGHLIGHTED.popitem(last=False)
    return lines


def language_for(kind: FieldKind, language: str | None) -> str | None:
    return language or ("xml" if kind == "xml" else None)


def prepare(text: str, kind: FieldKind, language: str | None) -> None:
    """Highlight a field ahead of time (safe in a thread: it only fills the cache)."""
    language = language_for(kind, language)
    text = text.expandtabs(4)
    if language and text and text.count("\n") < HIGHLIGHT_INLINE_LINES:
        highlighted(text, language)


def highlight_steps(text: str, language: str, tokens_per_step: int = 1_000) -> Iterator[list[Text] | None]:
    """Syntax colours for each line of the text, computed a few thousand tokens at a time.

    Yields None after each step (so a caller on the event loop can let keys through) and finally the lines.
    Builds one Text per line straight from Pygments' tokens; markup is never interpreted.
    """
    from rich.syntax import Syntax

    wanted = text.count("\n") + 1
    lexer = Syntax(text, language, theme=THEME).lexer
    if lexer is None:
        yield [Text(line) for line in text.split("\n")]
        return
    theme = Syntax.get_theme(THEME)
    styles: dict[object, Style] = {}
    lines = [Text()]
    for count, (token_type, value) in enumerate(lexer.get_tokens(text), start=1):
        style = styles.get(token_type)
        if style is None:
            style = styles[token_type] = theme.get_style_for_token(token_type)
        first, *rest = value.split("\n")
        if first:
            lines[-1].append(first, style)
        for part in rest:
            lines.append(Text())
            if part:
                lines[-1].append(part, style)
        if count % tokens_per_step == 0:
            yield None
    yield (lines + [Text("")] * wanted)[:wanted]


def highlight_lines(text: str, language: str) -> list[Text]:
    """All of the text's lines with syntax colours, in one go."""
    for lines in highlight_steps(text, language, tokens_per_step=2**62):
        if lines is not None:
            return lines
    raise AssertionError("highlight_steps always ends with the lines")


class FieldRows:
    """One field's text as the rows it takes at a width: wrapped at words (prose, XML) or at the edge with a
    line-number gutter (code, program output), coloured by Pygments, each row made a Strip only when drawn.

    A plain object, not a widget: the item pane keeps one per field and draws their rows as its own lines, so
    that a new item changes only how far the pane scrolls, never the layout of the screen.
    """

    def __init__(self, kind: FieldKind = "text", language: str | None = None) -> None:
        self.kind = kind
        self.language = language_for(kind, language)
        self.text = ""
        self.lines: list[Text] = [Text("")]
        self.generation = 0
        self.colour_pending = False
        self._width = -1
        self.unwrapped = False  # code and output a line a row, cut at the edge and scrolled sideways
        self.x = 0  # unwrapped: the first column shown
        self._longest: int | None = None
        self._word_rows: list[Text] = []
        self._row_starts: list[int] = []  # edge wrap: first row of each source line
        self._strips: dict[int, Strip] = {}
        # The rows worked out for the views before this one (the pane's width with the rubric shown and folded,
        # code scrolled sideways and back), so that going back finds them drawn:
        # (width, unwrapped, x) -> word rows, row starts, strips.
        self._other_views: dict[tuple[int, bool, int], tuple[list[Text], list[int], dict[int, Strip]]] = {}

    # ------------------------------------------------------------------ content

    def set_text(self, text: str, *, colour_later: bool = False) -> bool:
        """Show new (already cleaned) text; safe for anything, as no markup is ever parsed.

        With colour_later the text stays plain until `colour()` (the app's first item: Pygments' first use
        costs ~40 ms, which need not come before the first paint). True when the text is too long to colour
        at once: the caller runs `colour_in_steps` on the event loop.
        """
        text = text.expandtabs(4)
        self.text = text
        self.generation += 1
        self.lines = [Text(line) for line in text.split("\n")]
        self._longest = None
        self.forget_rows()
        self.colour_pending = colour_later
        return False if colour_later else self.colour()

    def colour(self) -> bool:
        """Syntax colours for the text: at once when short; True when it is long and is to be coloured step
        by step (`colour_in_steps`)."""
        self.colour_pending = False
        if not (self.language and self.text):
            return False
        if len(self.lines) > HIGHLIGHT_INLINE_LINES:
            return True
        self.lines = highlighted(self.text, self.language)
        self.forget_rows()  # the same rows, in colour
        return False

    async def colour_in_steps(self, coloured: Callable[[], None]) -> None:
        """Colour a long text on the event loop, yielding between steps so that keys are never kept waiting;
        `coloured` is called once the colours are in.

        (A thread would hold the GIL against the event loop: opening a 5,000-line item then took 0.5 s.)
        """
        generation, text, language = self.generation, self.text, self.language
        if not language:
            return
        for lines in highlight_steps(text, language):
            if generation != self.generation:
                return  # another item is shown by now
            if lines is None:
                await asyncio.sleep(0)
            elif len(lines) == len(self.lines):
                self.lines = lines
                self.forget_rows()  # the same rows, in colour
                coloured()

    @property
    def scrolls_sideways(self) -> bool:
        """Whether this field's lines can be read unwrapped (code and output; prose and XML wrap at words)."""
        return not self._word_wrap

    def set_view(self, *, unwrapped: bool, x: int) -> bool:
        """Wrapped at the edge, or unwrapped from column x; True when the rows change."""
        unwrapped = unwrapped and self.scrolls_sideways
        x = x if unwrapped else 0
        if (unwrapped, x) == (self.unwrapped, self.x):
            return False
        self._keep_view()
        self.unwrapped, self.x = unwrapped, x
        return True

    def widest(self) -> int:
        """The cells the longest row takes unwrapped, line number included."""
        if self._longest is None:
            self._longest = max((cell_len(line.plain) for line in self.lines), default=0)
        return self._longest + self._gutter_width

    @property
    def drawn_rows(self) -> int:
        """How many rows are drawn and kept (each is drawn when it first comes on screen)."""
        return len(self._strips)

    def forget_rows(self) -> None:
        """Work the rows out again when next drawn (new text, or new styles)."""
        self._width = -1
        self._word_rows = []
        self._row_starts = []
        self._strips = {}
        self._other_views.clear()

    def _keep_view(self) -> None:
        """Keep the rows of the view shown until now, for when it comes back."""
        if self._width > 0:
            self._other_views[(self._width, self.unwrapped, self.x)] = (self._word_rows, self._row_starts,
                                                                        self._strips)
            while len(self._other_views) > _VIEWS_KEPT:
                del self._other_views[next(iter(self._other_views))]
        self._width = -1

    # ------------------------------------------------------------------ rows

    @property
    def _word_wrap(self) -> bool:
        """Prose and XML wrap at word boundaries; code and program output wrap at the edge, with a gutter."""
        return self.kind in ("text", "xml")

    @property
    def _gutter_width(self) -> int:
        return len(str(len(self.lines))) + 3 if self.kind == "code" else 0

    def row_count(self, width: int, console: Console) -> int:
        """The number of rows at this width (worked out once per width, kept for the last few views)."""
        width = max(1, width)
        if width != self._width:
            self._keep_view()
            self._width = width
            kept = self._other_views.pop((width, self.unwrapped, self.x), None)
            if kept is not None:
                self._word_rows, self._row_starts, self._strips = kept
            else:
                self._strips = {}
                self._word_rows, self._row_starts = self._rows_at(width, console)
        return len(self._word_rows) if self._word_wrap else self._row_starts[-1]

    def _rows_at(self, width: int, console: Console) -> tuple[list[Text], list[int]]:
        """Prose wrapped at words into rows; or, for code, the first row of each source line."""
        if self._word_wrap:
            return list(Text("\n").join(self.lines).wrap(console, width)), []
        if self.unwrapped:
            return [], list(range(len(self.lines) + 1))
        room = max(1, width - self._gutter_width)
        heights = [max(1, -(-cell_len(line.plain) // room)) for line in self.lines]
        return [], [0, *accumulate(heights)]

    def row(self, y: int, width: int, console: Console, style: Style) -> Strip:
        """Row y, exactly `width` cells, in the field's style; drawn once and kept until the text, the width
        or the styles change."""
        if y >= self.row_count(width, console):
            return Strip.blank(width, style)
        strip = self._strips.get(y)
        if strip is None:
            strip = self._draw_row(y, width, console).adjust_cell_length(width, style).apply_style(style)
            if len(self._strips) > _STRIP_CACHE_LIMIT:
                self._strips.clear()
            self._strips[y] = strip
        return strip

    def _draw_row(self, y: int, width: int, console: Console) -> Strip:
        if self._word_wrap:
            return Strip(list(self._word_rows[y].render(console, end="")))
        index = bisect_right(self._row_starts, y) - 1
        part = y - self._row_starts[index]
        gutter = self._gutter_width
        room = max(1, width - gutter)
        line = Strip(list(self.lines[index].render(console, end="")))
        piece = self._cut(line, room) if self.unwrapped else line.crop(part * room, (part + 1) * room)
        if not gutter:
            return piece
        number = f"{index + 1:>{gutter - 3}} │ " if part == 0 else " " * (gutter - 2) + "│ "
        return Strip.join([Strip([Segment(number, _GUTTER_STYLE)]), piece])

    def _cut(self, line: Strip, room: int) -> Strip:
        """An unwrapped line's cells from column x, marked ‹ where it goes on to the left and › to the right."""
        start, end = self.x, self.x + room
        piece = line.crop(start, end)
        if room < 3:
            return piece
        left = start > 0 and line.cell_length > start
        right = line.cell_length > end
        if not (left or right):
            return piece
        parts = []
        if left:
            parts.append(Strip([Segment("‹", _MARK_STYLE)]))
        parts.append(piece.crop(1 if left else 0, room - 1 if right else room))
        if right:
            parts.append(Strip([Segment("›", _MARK_STYLE)]))
        return Strip.join(parts)
