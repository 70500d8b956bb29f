from collections import OrderedDict
from typing import Generic, Hashable, Optional, TypeVar

V = TypeVar("V")


class LRUCache(Generic[V]):
    """A bounded mapping that evicts the least recently used key.

    get() and put() both count as a use; `in` and len() do not, so that
    inspecting the cache never changes what it will evict next.
    """

    def __init__(self, capacity: int) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be a positive int, got {capacity!r}")
        self._capacity = capacity
        self._data: "OrderedDict[Hashable, V]" = OrderedDict()  # oldest use first

    @property
    def capacity(self) -> int:
        return self._capacity

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data

    def get(self, key: Hashable) -> Optional[V]:
        if key not in self._data:
            return None
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key: Hashable, value: V) -> None:
        if key in self._data:
            self._data.move_to_end(key)
        elif len(self._data) == self._capacity:
            self._data.popitem(last=False)
        self._data[key] = value
