"""One field of an item, drawn line by line so that only what is on screen is rendered.

A 5,000-line submission costs the same per frame as a 50-line one: the text is split into lines once,
wrapped rows are worked out per width, and each row becomes a Strip only when it is on screen. Code and
XML are highlighted with Pygments (long ones step by step on the event loop, shown plain until coloured).
"""

from __future__ import annotations

import asyncio
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterator
from itertools import accumulate
from typing import Any, Literal

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

FieldKind = Literal["text", "code", "output", "xml"]

# Highlighting this many lines takes ~20 ms; longer texts are coloured step by step after they are shown.
HIGHLIGHT_INLINE_LINES = 400
THEME = "monokai"
_STRIP_CACHE_LIMIT = 2_000
_GUTTER_STYLE = Style(dim=True)


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


class FieldView(Widget):
    DEFAULT_CSS = """
    FieldView { height: auto; }
    """

    def __init__(self, kind: FieldKind = "text", language: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kind = kind
        self.language = language_for(kind, language)
        self._text = ""
        self._lines: list[Text] = [Text("")]
        self._layout_width = -1
        self._word_rows: list[Text] = []
        self._row_starts: list[int] = []  # fold mode: first row of each source line
        self._strips: dict[int, Strip] = {}
        self._generation = 0
        self._colour_pending = False

    # ------------------------------------------------------------------ content

    @property
    def text(self) -> str:
        return self._text

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def set_text(self, text: str, *, colour_later: bool = False) -> None:
        """Show new (already cleaned) text; safe for anything, as no markup is ever parsed.

        With colour_later the text is shown plain until `colour()` is called (the app's first item: Pygments'
        first use costs ~40 ms, which need not come before the first paint).
        """
        text = text.expandtabs(4)
        self._text = text
        self._generation += 1
        self._lines = [Text(line) for line in text.split("\n")]
        self._colour_pending = colour_later
        if not colour_later:
            self.colour()
        self._forget_layout()
        self.refresh(layout=True)

    def colour(self) -> None:
        """Syntax colours for the text shown: at once when short, else step by step on the event loop."""
        self._colour_pending = False
        text = self._text
        if self.language and text:
            if len(self._lines) <= HIGHLIGHT_INLINE_LINES:
                self._lines = highlighted(text, self.language)
                self._forget_layout()
                self.refresh(layout=True)
            else:
                self.run_worker(self._highlight_in_steps(self._generation, text, self.language),
                                exclusive=True, group="highlight", exit_on_error=False)

    @property
    def colour_pending(self) -> bool:
        return self._colour_pending

    async def _highlight_in_steps(self, generation: int, text: str, language: str) -> None:
        """Colour a long text on the event loop, yielding between steps so that keys are never kept waiting.

        (A thread would hold the GIL against the event loop: opening a 5,000-line item then took 0.5 s.)
        """
        for lines in highlight_steps(text, language):
            if generation != self._generation:
                return  # another item is shown by now
            if lines is None:
                await asyncio.sleep(0)
            elif len(lines) == len(self._lines):
                self._lines = lines
                self._strips.clear()
                self._word_rows = []
                self._layout_width = -1
                self.refresh()

    def _forget_layout(self) -> None:
        self._layout_width = -1
        self._word_rows = []
        self._row_starts = []
        self._strips.clear()

    # ------------------------------------------------------------------ layout

    @property
    def _word_wrap(self) -> bool:
        """Prose and XML wrap at word boundaries; code and program output wrap at the edge, with a gutter."""
        return self.kind in ("text", "xml")

    @property
    def _gutter_width(self) -> int:
        return len(str(len(self._lines))) + 3 if self.kind == "code" else 0

    def _layout(self, width: int) -> int:
        """Work out the wrapped rows for this width; returns the number of rows."""
        width = max(1, width)
        if width != self._layout_width:
            self._layout_width = width
            self._strips.clear()
            if self._word_wrap:
                joined = Text("\n").join(self._lines)
                self._word_rows = list(joined.wrap(self.app.console, width))
            else:
                room = max(1, width - self._gutter_width)
                heights = [max(1, -(-cell_len(line.plain) // room)) for line in self._lines]
                self._row_starts = [0, *accumulate(heights)]
        return len(self._word_rows) if self._word_wrap else self._row_starts[-1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._layout(width)

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        rows = self._layout(width)
        style = self.rich_style
        if y >= rows:
            return Strip.blank(width, style)
        strip = self._strips.get(y)
        if strip is None:
            strip = self._render_row(y, width)
            if len(self._strips) > _STRIP_CACHE_LIMIT:
                self._strips.clear()
            self._strips[y] = strip
        return strip.adjust_cell_length(width, style).apply_style(style)

    def _render_row(self, y: int, width: int) -> Strip:
        console = self.app.console
        if self._word_wrap:
            return Strip(list(self._word_rows[y].render(console, end="")))
        index = bisect_right(self._row_starts, y) - 1
        part = y - self._row_starts[index]
        gutter = self._gutter_width
        room = max(1, width - gutter)
        line = Strip(list(self._lines[index].render(console, end="")))
        piece = line.crop(part * room, (part + 1) * room)
        if not gutter:
            return piece
        number = f"{index + 1:>{gutter - 3}} │ " if part == 0 else " " * (gutter - 2) + "│ "
        return Strip.join([Strip([Segment(number, _GUTTER_STYLE)]), piece])
