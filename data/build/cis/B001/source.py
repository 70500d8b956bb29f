from collections import OrderedDict


class LRUCache:
    """Fixed-size cache that drops the entry used longest ago."""

    def __init__(self, capacity):
        self.capacity = capacity
        self._entries = OrderedDict()

    def get(self, key):
        if key not in self._entries:
            return None
        self._entries.move_to_end(key)
        return self._entries[key]

    def put(self, key, value):
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def size(self):
        return len(self._entries)
