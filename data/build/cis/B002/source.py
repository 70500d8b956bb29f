"""Sliding-window rate limiter."""
import time
from collections import deque


class SlidingWindowLimiter:
    """Allow at most `limit` requests in any `window` seconds.

    `clock` defaults to time.monotonic, which never jumps when the system
    clock is adjusted; tests pass a fake clock instead of sleeping.
    """

    def __init__(self, limit, window, clock=time.monotonic):
        if limit < 1:
            raise ValueError("limit must be at least 1")
        if window <= 0:
            raise ValueError("window must be a positive number of seconds")
        self.limit = limit
        self.window = window
        self._clock = clock
        self._accepted = deque()  # times of accepted requests, oldest first

    def _drop_expired(self, now):
        # A request made exactly `window` seconds ago no longer counts.
        while self._accepted and now - self._accepted[0] >= self.window:
            self._accepted.popleft()

    def allow(self):
        """Record a request and say whether it may go ahead."""
        now = self._clock()
        self._drop_expired(now)
        if len(self._accepted) < self.limit:
            self._accepted.append(now)
            return True
        return False

    def remaining(self):
        """How many more requests would be accepted right now."""
        self._drop_expired(self._clock())
        return self.limit - len(self._accepted)
