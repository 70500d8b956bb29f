from solution import LRUCache


def test_eviction_order():
    c = LRUCache(2)
    c.put(1, "one")
    c.put(2, "two")
    c.get(1)
    c.put(3, "three")
    assert 2 not in c.map
    assert c.get(1) == "one"
    assert c.get(3) == "three"


def test_update_existing_key():
    c = LRUCache(2)
    c.put(1, "one")
    c.put(1, "uno")
    assert c.get(1) == "uno"
    assert len(c.map) == 1


def test_missing_key_returns_none():
    c = LRUCache(2)
    assert c.get(42) is None
