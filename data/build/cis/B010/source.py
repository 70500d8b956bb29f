import time


class FixedWindowRateLimiter:
    """Counts requests in fixed windows; a window starts at its first request."""

    def __init__(self, max_requests, window_seconds, now=time.time):
        self.max_requests = max_requests
        self.window_seconds = window_seconds
        self.now = now
        self.window_start = None
        self.count = 0

    def allow(self):
        t = self.now()
        if self.window_start is None or t - self.window_start > self.window_seconds:
            self.window_start = t
            self.count = 0
        if self.count < self.max_requests:
            self.count += 1
            return True
        return False
