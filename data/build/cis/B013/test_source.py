import pytest

from solution import LRUCache


@pytest.fixture
def cache(tmp_path):
    return LRUCache(2, log_path=tmp_path / "evictions.log")


def test_get_missing_returns_none(cache):
    assert cache.get("missing") is None


def test_least_recently_used_is_evicted(cache):
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.get("b") is None
    assert cache.get("a") == 1
    assert cache.get("c") == 3


def test_update_keeps_size_and_refreshes(cache):
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert cache.get("a") == 10
    assert cache.get("b") is None


def test_evictions_are_logged(cache, tmp_path):
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    lines = (tmp_path / "evictions.log").read_text().splitlines()
    assert len(lines) == 1
    assert lines[0].endswith("evicted 'a'")


def test_zero_capacity_rejected():
    with pytest.raises(ValueError):
        LRUCache(0)
