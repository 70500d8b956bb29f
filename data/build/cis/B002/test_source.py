import time

import pytest

from solution import SlidingWindowLimiter


class FakeClock:
    def __init__(self, start=100.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


def make(limit=3, window=10.0):
    clock = FakeClock()
    return SlidingWindowLimiter(limit, window, clock=clock), clock


def test_accepts_up_to_the_limit_then_blocks():
    limiter, _ = make(limit=3)
    assert [limiter.allow() for _ in range(4)] == [True, True, True, False]


def test_accepts_again_once_the_window_has_passed():
    limiter, clock = make(limit=2, window=10)
    limiter.allow()
    limiter.allow()
    clock.advance(10.5)
    assert limiter.allow()


def test_request_exactly_at_the_boundary_is_allowed():
    limiter, clock = make(limit=1, window=10)
    assert limiter.allow()
    clock.advance(9.999)
    assert not limiter.allow()
    clock.advance(0.001)
    assert limiter.allow()


def test_window_slides_instead_of_resetting():
    limiter, clock = make(limit=3, window=1.0)
    for _ in range(3):
        assert limiter.allow()
        clock.advance(0.4)
    # now = 101.2: the request from 100.0 has expired, those from 100.4 and 100.8 have not
    assert limiter.allow()
    assert not limiter.allow()


def test_rejected_requests_do_not_use_up_capacity():
    limiter, clock = make(limit=1, window=5)
    assert limiter.allow()
    for _ in range(10):
        clock.advance(0.25)
        assert not limiter.allow()
    clock.advance(2.5)  # exactly 5 s after the single accepted request
    assert limiter.allow()


def test_remaining_counts_down_and_recovers():
    limiter, clock = make(limit=2, window=3)
    assert limiter.remaining() == 2
    limiter.allow()
    assert limiter.remaining() == 1
    clock.advance(3)
    assert limiter.remaining() == 2


@pytest.mark.parametrize("limit, window", [(0, 1), (-1, 1), (1, 0), (1, -2)])
def test_rejects_nonsense_configuration(limit, window):
    with pytest.raises(ValueError):
        SlidingWindowLimiter(limit, window)


def test_default_clock_is_real_time():
    limiter = SlidingWindowLimiter(1, 0.05)
    assert limiter.allow()
    assert not limiter.allow()
    time.sleep(0.06)
    assert limiter.allow()
