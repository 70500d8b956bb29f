import threading

import pytest

from solution import (
    Decision,
    FixedWindowLimiter,
    KeyedLimiter,
    Rate,
    SlidingLogLimiter,
    TokenBucketLimiter,
    make_limiter,
)


class ManualClock:
    def __init__(self, start=0.0):
        self.now = start

    def __call__(self):
        return self.now

    def tick(self, seconds):
        self.now += seconds


@pytest.fixture
def clock():
    return ManualClock()


# --- Rate -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, limit, window",
    [("5/s", 5, 1.0), ("100/10s", 100, 10.0), ("1000/h", 1000, 3600.0), ("3/250ms", 3, 0.25), (" 2 / 1.5 m ", 2, 90.0)],
)
def test_rate_parse(text, limit, window):
    assert Rate.parse(text) == Rate(limit, window)


@pytest.mark.parametrize("text", ["", "5", "5/", "five/s", "5/d", "-1/s", "0/s"])
def test_rate_parse_rejects_bad_text(text):
    with pytest.raises(ValueError):
        Rate.parse(text)


@pytest.mark.parametrize("limit, window", [(0, 1), (3, 0), (3, -1), (3, float("inf"))])
def test_rate_rejects_bad_numbers(limit, window):
    with pytest.raises(ValueError):
        Rate(limit, window)


def test_rate_rejects_bool_limit():
    with pytest.raises(TypeError):
        Rate(True, 1)


# --- behaviour shared by all strategies -------------------------------------


@pytest.mark.parametrize("strategy", ["sliding", "fixed", "bucket"])
def test_every_strategy_enforces_the_limit(strategy, clock):
    limiter = make_limiter(strategy, "3/10s", clock)
    assert [limiter.allow() for _ in range(4)] == [True, True, True, False]
    assert limiter.stats.accepted == 3
    assert limiter.stats.rejected == 1


@pytest.mark.parametrize("strategy", ["sliding", "fixed", "bucket"])
def test_every_strategy_recovers_after_a_full_window(strategy, clock):
    limiter = make_limiter(strategy, "2/10s", clock)
    limiter.allow()
    limiter.allow()
    assert not limiter.allow()
    clock.tick(10)
    assert limiter.allow()


def test_unknown_strategy_names_the_choices():
    with pytest.raises(ValueError, match="bucket, fixed, sliding"):
        make_limiter("leaky", "1/s")


# --- sliding log --------------------------------------------------------------


def test_sliding_boundary_is_exclusive(clock):
    limiter = SlidingLogLimiter(Rate(1, 5), clock)
    assert limiter.allow()
    clock.tick(4.999)
    assert not limiter.allow()
    clock.tick(0.001)
    assert limiter.allow()


def test_sliding_reports_retry_after(clock):
    limiter = SlidingLogLimiter(Rate(2, 10), clock)
    limiter.acquire()
    clock.tick(4)
    limiter.acquire()
    decision = limiter.acquire()
    assert decision == Decision(False, 0, 6.0)
    assert not decision


def test_sliding_has_no_edge_burst(clock):
    limiter = SlidingLogLimiter(Rate(2, 10), clock)
    clock.tick(9)
    assert limiter.allow() and limiter.allow()
    clock.tick(1.5)  # a fixed window would have reset here
    assert not limiter.allow()


# --- fixed window ---------------------------------------------------------------


def test_fixed_window_resets_on_the_boundary(clock):
    limiter = FixedWindowLimiter(Rate(1, 10), clock)
    assert limiter.allow()
    clock.tick(9.5)
    decision = limiter.acquire()
    assert not decision.allowed
    assert decision.retry_after == pytest.approx(0.5)
    clock.tick(0.5)
    assert limiter.allow()


def test_fixed_window_allows_the_documented_edge_burst(clock):
    limiter = FixedWindowLimiter(Rate(2, 10), clock)
    clock.tick(9)
    assert limiter.allow() and limiter.allow()
    clock.tick(1)
    assert limiter.allow() and limiter.allow()


# --- token bucket ---------------------------------------------------------------


def test_bucket_refills_gradually(clock):
    limiter = TokenBucketLimiter(Rate(4, 2), clock)  # 2 tokens per second
    for _ in range(4):
        assert limiter.allow()
    assert not limiter.allow()
    clock.tick(0.5)
    assert limiter.peek() == 1
    assert limiter.allow()
    assert not limiter.allow()


def test_bucket_never_holds_more_than_the_limit(clock):
    limiter = TokenBucketLimiter(Rate(3, 1), clock)
    clock.tick(1000)
    assert limiter.peek() == 3


def test_bucket_survives_a_clock_stepping_back(clock):
    limiter = TokenBucketLimiter(Rate(1, 1), clock)
    assert limiter.allow()
    clock.tick(-5)
    assert not limiter.allow()


# --- keyed ----------------------------------------------------------------------


def test_keys_are_limited_independently(clock):
    keyed = KeyedLimiter("sliding", "1/m", clock)
    assert keyed.allow("alice")
    assert keyed.allow("bob")
    assert not keyed.allow("alice")
    assert len(keyed) == 2


def test_forget_idle_drops_only_idle_keys(clock):
    keyed = KeyedLimiter("sliding", "1/s", clock)
    keyed.allow("old")
    clock.tick(30)
    keyed.allow("new")
    assert keyed.forget_idle(20) == 1
    assert "old" not in keyed and "new" in keyed


def test_max_keys_evicts_the_stalest_key(clock):
    keyed = KeyedLimiter("fixed", "5/s", clock, max_keys=2)
    keyed.allow("a")
    clock.tick(1)
    keyed.allow("b")
    clock.tick(1)
    keyed.allow("c")
    assert "a" not in keyed
    assert len(keyed) == 2


def test_keyed_rejects_bad_strategy_immediately():
    with pytest.raises(ValueError):
        KeyedLimiter("nope", "1/s")


# --- threads --------------------------------------------------------------------


def test_concurrent_callers_never_exceed_the_limit(clock):
    limiter = SlidingLogLimiter(Rate(50, 60), clock)
    results = []

    def hammer():
        for _ in range(40):
            results.append(limiter.allow())

    threads = [threading.Thread(target=hammer) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(True) == 50
    assert limiter.stats.total == 200
