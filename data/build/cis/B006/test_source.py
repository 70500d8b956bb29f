import pytest

from solution import LRUCache


def filled(capacity, *keys):
    cache = LRUCache(capacity)
    for key in keys:
        cache.put(key, key.upper())
    return cache


def test_get_returns_stored_value_and_none_for_missing_key():
    cache = filled(2, "a")
    assert cache.get("a") == "A"
    assert cache.get("zz") is None


def test_evicts_least_recently_used_when_full():
    cache = filled(2, "a", "b")
    cache.put("c", "C")
    assert cache.get("a") is None
    assert cache.keys() == ["c", "b"]


def test_get_refreshes_recency():
    cache = filled(2, "a", "b")
    cache.get("a")
    cache.put("c", "C")
    assert cache.get("b") is None
    assert cache.get("a") == "A"


def test_updating_a_key_refreshes_it_and_does_not_evict():
    cache = filled(2, "a", "b")
    cache.put("a", "new")
    assert len(cache) == 2
    cache.put("c", "C")
    assert cache.keys() == ["c", "a"]
    assert cache.get("a") == "new"


def test_size_never_exceeds_capacity():
    cache = LRUCache(3)
    for i in range(100):
        cache.put(i, i)
        assert len(cache) <= 3
    assert cache.keys() == [99, 98, 97]


def test_capacity_one_keeps_only_the_latest_key():
    cache = filled(1, "a")
    cache.put("b", "B")
    assert cache.keys() == ["b"]
    assert cache.get("a") is None


@pytest.mark.parametrize("capacity", [0, -3])
def test_rejects_capacity_below_one(capacity):
    with pytest.raises(ValueError):
        LRUCache(capacity)
