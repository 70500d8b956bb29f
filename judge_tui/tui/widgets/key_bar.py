"""The keys that act on the current screen, on one line at the bottom.

Textual's Footer rebuilds its widgets whenever the bindings change and (in textual 8.2) never releases the
old ones: on a screen whose bindings change with every score that grew memory by ~0.3 MiB per key. This bar
draws the same information as one line of text.

The bindings are checked again after every key, and most keys change none of them: which keys show and which
can act now is compared first, and the line for each such state is built once. A screen that knows what its
check_action answers depend on says so while it has the bar told of a change (its `keys_state`): the line
drawn for that state, the focus and the width is shown again without asking Textual for every binding.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen

from judge_tui.tui.widgets.recurring_static import RecurringStatic

_STATES_KEPT = 16


class KeyBar(RecurringStatic):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        padding: 0 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._described: dict[Hashable, Content] = {}
        self._for_screen_state: dict[Hashable, Content] = {}  # by the screen's keys_state, focus and width

    def on_mount(self) -> None:
        # At once, inside the key's handler: the screen draws the bar in the key's own frame (_draw_together);
        # delivered later, the new bar reached the terminal one or two frames after the key's change.
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed, immediate=True)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if self.is_attached and screen is self.screen:
            keys_state = getattr(screen, "keys_state", None)
            told = None if keys_state is None else (self.content_region.width, screen.focused, keys_state)
            described = None if told is None else self._for_screen_state.get(told)
            if described is None:
                described = self._for_bindings(screen)
                if told is not None:
                    if len(self._for_screen_state) >= _STATES_KEPT:
                        self._for_screen_state.clear()
                    self._for_screen_state[told] = described
            self.show_look(described)

    def _for_bindings(self, screen: Screen[Any]) -> Content:
        """The line for the screen's bindings as they are now (which show, which can act)."""
        state = (self.content_region.width, *((entry.binding.key, entry.binding.action,
                                               entry.binding.description, entry.enabled)
                                              for entry in screen.active_bindings.values() if entry.binding.show))
        described = self._described.get(state)
        if described is None:
            if len(self._described) >= _STATES_KEPT:
                self._described.clear()
            described = self._described[state] = self.describe(screen)
        return described

    def on_resize(self) -> None:
        if self.is_attached:
            self.bindings_changed(self.screen)

    def describe(self, screen: Screen[Any]) -> Content:
        """Shown bindings in their order, first key only; a group (the score keys) as one entry; keys that
        cannot act now dimmed."""
        parts: list[Content] = []
        seen_groups: set[object] = set()
        seen_actions: set[str] = set()
        active = [a for a in screen.active_bindings.values() if a.binding.show]
        # The screen's own in the order it declares them (Textual lists a binding the keymap moved after the
        # others), in the places its bindings hold among the app's and the focused widget's.
        declared: dict[str, int] = {}
        for b in Binding.make_bindings(screen.BINDINGS):
            declared.setdefault(b.id or "", len(declared))  # an id's first binding: its shown one
        declared.pop("", None)
        places = [n for n, a in enumerate(active) if a.binding.id in declared]
        ordered = sorted((active[n] for n in places), key=lambda a: declared[a.binding.id or ""])
        for n, entry in zip(places, ordered, strict=True):
            active[n] = entry
        for entry in active:
            binding = entry.binding
            if binding.action in seen_actions:
                continue  # a second key for the same thing (u and ctrl+z): the help screen lists it
            seen_actions.add(binding.action)
            if binding.group is not None:
                if binding.group in seen_groups:
                    continue
                seen_groups.add(binding.group)
                members = [a for a in active if a.binding.group == binding.group]
                keys = "".join(self.app.get_key_display(a.binding) for a in members)
                label, enabled = binding.group.description, any(a.enabled for a in members)
            else:
                keys, label, enabled = self.app.get_key_display(binding), binding.description, entry.enabled
            style = "" if enabled else "dim"
            parts.append(Content.assemble((keys, f"bold $accent {style}"), " ", (label, style)))
        line = Content("  ").join(parts)
        width = self.content_region.width
        return Content(" ").join(parts) if width and line.cell_length > width else line  # 80 columns: every key
