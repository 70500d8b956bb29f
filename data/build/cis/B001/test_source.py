from solution import LRUCache


def test_put_then_get():
    cache = LRUCache(3)
    cache.put("a", 1)
    assert cache.get("a") == 1


def test_missing_key():
    cache = LRUCache(3)
    assert cache.get("nope") is None


def test_size_grows():
    cache = LRUCache(3)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.size() == 2
