class _Node:
    __slots__ = ("key", "value", "prev", "next")

    def __init__(self, key=None, value=None):
        self.key = key
        self.value = value
        self.prev = None
        self.next = None


class LRUCache:
    """LRU cache with O(1) get and put.

    A dict finds the node for a key; a doubly linked list keeps the recency
    order, most recent just after `_head`, least recent just before `_tail`.
    The two sentinel nodes mean unlinking never has to special-case the ends.
    """

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be a positive integer")
        self.capacity = capacity
        self._nodes = {}
        self._head = _Node()
        self._tail = _Node()
        self._head.next = self._tail
        self._tail.prev = self._head

    def __len__(self):
        return len(self._nodes)

    def _unlink(self, node):
        node.prev.next = node.next
        node.next.prev = node.prev

    def _push_front(self, node):
        node.prev = self._head
        node.next = self._head.next
        self._head.next.prev = node
        self._head.next = node

    def get(self, key):
        node = self._nodes.get(key)
        if node is None:
            return None
        self._unlink(node)
        self._push_front(node)
        return node.value

    def put(self, key, value):
        node = self._nodes.get(key)
        if node is not None:
            node.value = value
            self._unlink(node)
            self._push_front(node)
            return
        if len(self._nodes) == self.capacity:
            oldest = self._tail.prev
            self._unlink(oldest)
            del self._nodes[oldest.key]
        node = _Node(key, value)
        self._nodes[key] = node
        self._push_front(node)

    def keys(self):
        """Keys from most to least recently used."""
        ordered = []
        node = self._head.next
        while node is not self._tail:
            ordered.append(node.key)
            node = node.next
        return ordered
