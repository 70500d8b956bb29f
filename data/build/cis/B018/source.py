import time


class RateLimiter:
    """Allows max_calls calls per period seconds (sliding log)."""

    def __init__(self, max_calls, period):
        self.max_calls = max_calls
        self.period = period
        self.calls = []

    def _prune(self, now):
        # keep only the calls that are still inside the period
        self.calls = [c for c in self.calls if c > now - self.period]

    def try_acquire(self):
        now = time.time()
        self._prune(now)
        if len(self.calls) >= self.max_calls:
            return False
        self.calls.append(now)
        return True

    def wait_time(self):
        """Seconds until the next call would be accepted (0 if it would be now)."""
        now = time.time()
        self._prune(now)
        if len(self.calls) < self.max_calls:
            return 0
        return self.calls[0] + self.period - now

    def reset(self):
        self.calls = []

    def __repr__(self):
        return f"RateLimiter({self.max_calls} per {self.period}s, {len(self.calls)} in use)"
