import time

from solution import RateLimiter


def test_allows_up_to_limit():
    rl = RateLimiter(3, 1.0)
    assert [rl.try_acquire() for _ in range(4)] == [True, True, True, False]


def test_allows_again_after_period():
    rl = RateLimiter(1, 0.05)
    assert rl.try_acquire()
    assert not rl.try_acquire()
    time.sleep(0.06)
    assert rl.try_acquire()
