"""Rich Text drawn into lines (strips) as Textual draws a widget's text, through Textual's documented `Content`.

Widgets that draw line by line (the item pane's headers, the rubric panel's cards) use this for the blocks of text
they keep: wrapped, styled and cut exactly as a Static showing the same text would be. The options that
`Content.render_strips` takes are a `textual.visual.RenderOptions`: the one name of a module without a page in
Textual's API reference that judge-tui uses, as the type of that documented method's argument.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions
from textual.widget import Widget


def _parsed(style: Style | str) -> Style:
    """A span's style: Content made from Rich Text holds parsed styles already."""
    return style if isinstance(style, Style) else Style.parse(style)


def text_content(widget: Widget, text: Text) -> Content:
    """The text as Textual's Content, its Rich styles read by the app's console (as a widget's text is)."""
    return Content.from_rich_text(text, console=widget.app.console)


def text_strips(widget: Widget, text: Text, width: int, style: Style) -> list[Strip]:
    """The text's lines at this width on this (visual) style, with the widget's text rules (wrap, overflow,
    alignment) and its part of the screen's text selection highlighted, as Textual draws a widget's Content."""
    selection = widget.text_selection
    selection_style = None if selection is None else Style.from_styles(
        widget.screen.get_component_styles("screen--selection"))
    options = RenderOptions(_parsed, widget.styles, selection, selection_style)  # type: ignore[arg-type]  # as Textual passes them
    return text_content(widget, text).render_strips(width, None, style, options)


def text_height(widget: Widget, text: Text, width: int) -> int:
    """How many lines the text takes at this width under the widget's text rules, as Textual measures it."""
    return text_content(widget, text).get_height(widget.styles, width)  # type: ignore[arg-type]  # styles are rules
