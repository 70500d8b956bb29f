import pytest

from solution import LRUCache


def test_round_trip_and_missing_key():
    cache = LRUCache(2)
    cache.put("k", [1, 2])
    assert cache.get("k") == [1, 2]
    assert cache.get("absent") is None


def test_evicts_in_least_recently_used_order():
    cache = LRUCache(3)
    for key in "abc":
        cache.put(key, key)
    cache.get("a")           # order of use is now b, c, a
    cache.put("d", "d")      # evicts b
    cache.put("e", "e")      # evicts c
    assert [k for k in "abcde" if k in cache] == ["a", "d", "e"]


def test_put_on_existing_key_updates_and_counts_as_use():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 3)
    cache.put("c", 4)
    assert cache.get("a") == 3
    assert "b" not in cache
    assert len(cache) == 2


def test_membership_check_does_not_refresh():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache
    cache.put("c", 3)
    assert "a" not in cache


def test_capacity_is_enforced_under_many_inserts():
    cache = LRUCache(5)
    for i in range(1000):
        cache.put(i, i * i)
    assert len(cache) == 5
    assert [cache.get(i) for i in range(995, 1000)] == [i * i for i in range(995, 1000)]


def test_capacity_one():
    cache = LRUCache(1)
    cache.put("x", 1)
    cache.put("y", 2)
    assert cache.get("x") is None
    assert cache.get("y") == 2


@pytest.mark.parametrize("capacity", [0, -1, 2.5, True, "3"])
def test_invalid_capacity(capacity):
    with pytest.raises(ValueError):
        LRUCache(capacity)
