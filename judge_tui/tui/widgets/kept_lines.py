"""A widget's drawn lines kept by what they depend on, for the few looks it comes back to: drawn again, Textual
styles every line anew even when nothing it depends on has changed."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable

from textual.geometry import Region
from textual.strip import Strip


class KeptLines:
    """The lines drawn for the ``most`` keys last asked for, the oldest forgotten first."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.kept: OrderedDict[Hashable, list[Strip]] = OrderedDict()

    def lines(self, key: Hashable, crop: Region, draw: Callable[[Region], list[Strip]]) -> list[Strip]:
        strips = self.kept.get(key)
        if strips is None:
            strips = self.kept[key] = draw(crop)
            if len(self.kept) > self.most:
                self.kept.popitem(last=False)
        else:
            self.kept.move_to_end(key)
        return strips

    def __contains__(self, key: Hashable) -> bool:
        return key in self.kept

    def clear(self) -> None:
        self.kept.clear()
