from solution import FixedWindowRateLimiter


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_blocks_after_limit():
    clock = Clock()
    rl = FixedWindowRateLimiter(2, 10, now=clock)
    assert rl.allow()
    assert rl.allow()
    assert not rl.allow()


def test_new_window_resets_the_count():
    clock = Clock()
    rl = FixedWindowRateLimiter(2, 10, now=clock)
    rl.allow()
    rl.allow()
    clock.t += 11
    assert rl.allow()


def test_request_exactly_at_window_end():
    clock = Clock()
    rl = FixedWindowRateLimiter(1, 10, now=clock)
    assert rl.allow()
    clock.t += 10
    assert rl.allow()  # the first window covered [1000, 1010)
