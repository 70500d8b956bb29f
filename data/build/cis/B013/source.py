from collections import OrderedDict
from datetime import datetime

LOG_PATH = "lru_evictions.log"


class LRUCache:
    def __init__(self, capacity, log_path=LOG_PATH):
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self.log_path = log_path
        self._store = OrderedDict()

    def get(self, key):
        try:
            self._store.move_to_end(key)
        except KeyError:
            return None
        return self._store[key]

    def put(self, key, value):
        if key in self._store:
            self._store.move_to_end(key)
        self._store[key] = value
        if len(self._store) > self.capacity:
            evicted_key, _ = self._store.popitem(last=False)
            self._record_eviction(evicted_key)

    def _record_eviction(self, key):
        # audit trail so we can tune the capacity later
        with open(self.log_path, "a", encoding="utf-8") as log:
            log.write(f"{datetime.now().isoformat()} evicted {key!r}\n")
