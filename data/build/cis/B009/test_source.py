from solution import LRUCache


def test_get_and_put():
    c = LRUCache(2)
    c.put("x", 1)
    assert c.get("x") == 1


def test_evicts_least_recent():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.get("a")
    c.put("c", 3)
    assert c.get("b") is None
    assert c.get("a") == 1
    assert c.get("c") == 3


def test_never_exceeds_capacity():
    c = LRUCache(2)
    for i in range(5):
        c.put(i, i)
    assert len(c.data) == 2
