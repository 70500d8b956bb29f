"""Request rate limiting.

Three interchangeable strategies share one interface:

* SlidingLogLimiter   exact: remembers the time of every accepted request.
* FixedWindowLimiter  cheap: one counter per window, but allows bursts of up
                      to twice the limit around a window edge.
* TokenBucketLimiter  smooth: tokens refill continuously, short bursts allowed.

KeyedLimiter keeps one limiter per client key (user id, IP address, ...).

Every limiter takes a `clock` callable, time.monotonic by default, so tests
can move time by hand. Limiters are safe to share between threads: each
decision happens under a lock.
"""
from __future__ import annotations

import math
import re
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass
from typing import Callable, Deque, Dict, Hashable, Optional

Clock = Callable[[], float]

_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_RATE_TEXT = re.compile(r"^\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m|h)\s*$")


@dataclass(frozen=True)
class Rate:
    """At most `limit` requests per `window` seconds."""

    limit: int
    window: float

    def __post_init__(self) -> None:
        if isinstance(self.limit, bool) or not isinstance(self.limit, int):
            raise TypeError(f"limit must be an int, got {self.limit!r}")
        if self.limit < 1:
            raise ValueError(f"limit must be at least 1, got {self.limit}")
        if not isinstance(self.window, (int, float)) or isinstance(self.window, bool):
            raise TypeError(f"window must be a number of seconds, got {self.window!r}")
        if not self.window > 0 or math.isinf(self.window):
            raise ValueError(f"window must be a positive, finite number of seconds, got {self.window}")

    @classmethod
    def parse(cls, text: str) -> "Rate":
        """Read a rate written as '5/s', '100/10s', '1000/h' or '3/250ms'."""
        match = _RATE_TEXT.match(text)
        if match is None:
            raise ValueError(
                f"cannot read rate {text!r}: expected LIMIT/[AMOUNT]UNIT such as '5/s' or '100/10m'"
            )
        limit_text, amount_text, unit = match.groups()
        amount = float(amount_text) if amount_text else 1.0
        return cls(int(limit_text), amount * _UNIT_SECONDS[unit])

    @property
    def per_second(self) -> float:
        return self.limit / self.window

    def __str__(self) -> str:
        return f"{self.limit}/{self.window:g}s"


@dataclass(frozen=True)
class Decision:
    """The outcome of one request."""

    allowed: bool
    remaining: int
    retry_after: float  # seconds until a request could pass; 0.0 when allowed

    def __bool__(self) -> bool:
        return self.allowed


@dataclass
class Stats:
    accepted: int = 0
    rejected: int = 0

    @property
    def total(self) -> int:
        return self.accepted + self.rejected


class RateLimiter(ABC):
    """Common behaviour: locking, statistics and the public entry points."""

    def __init__(self, rate: Rate, clock: Clock = time.monotonic) -> None:
        if not isinstance(rate, Rate):
            raise TypeError("rate must be a Rate; use Rate.parse('5/s') for text")
        self.rate = rate
        self._clock = clock
        self._lock = threading.Lock()
        self.stats = Stats()

    def acquire(self) -> Decision:
        """Decide on one request and record it if it is allowed."""
        with self._lock:
            decision = self._decide(self._clock())
            if decision.allowed:
                self.stats.accepted += 1
            else:
                self.stats.rejected += 1
            return decision

    def allow(self) -> bool:
        """Shortcut for callers that only need yes or no."""
        return self.acquire().allowed

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rate}, accepted={self.stats.accepted}, rejected={self.stats.rejected})"

    def peek(self) -> int:
        """How many requests would pass right now, without using any."""
        with self._lock:
            return self._available(self._clock())

    @abstractmethod
    def _decide(self, now: float) -> Decision:
        """Make one decision at time `now`; called with the lock held."""

    @abstractmethod
    def _available(self, now: float) -> int:
        """Capacity left at time `now`; called with the lock held."""


class SlidingLogLimiter(RateLimiter):
    """Exact sliding window: keeps the timestamps of accepted requests."""

    def __init__(self, rate: Rate, clock: Clock = time.monotonic) -> None:
        super().__init__(rate, clock)
        self._accepted: Deque[float] = deque()

    def _expire(self, now: float) -> None:
        # A request made exactly one window ago has left the window.
        horizon = now - self.rate.window
        while self._accepted and self._accepted[0] <= horizon:
            self._accepted.popleft()

    def _available(self, now: float) -> int:
        self._expire(now)
        return self.rate.limit - len(self._accepted)

    def _decide(self, now: float) -> Decision:
        left = self._available(now)
        if left > 0:
            self._accepted.append(now)
            return Decision(True, left - 1, 0.0)
        wait = self._accepted[0] + self.rate.window - now
        return Decision(False, 0, max(wait, 0.0))


class FixedWindowLimiter(RateLimiter):
    """Counter per window; windows are aligned to the limiter's creation time."""

    def __init__(self, rate: Rate, clock: Clock = time.monotonic) -> None:
        super().__init__(rate, clock)
        self._origin = clock()
        self._window_index = 0
        self._count = 0

    def _roll(self, now: float) -> None:
        index = math.floor((now - self._origin) / self.rate.window)
        if index != self._window_index:
            self._window_index = index
            self._count = 0

    def _available(self, now: float) -> int:
        self._roll(now)
        return self.rate.limit - self._count

    def _decide(self, now: float) -> Decision:
        left = self._available(now)
        if left > 0:
            self._count += 1
            return Decision(True, left - 1, 0.0)
        next_start = self._origin + (self._window_index + 1) * self.rate.window
        return Decision(False, 0, max(next_start - now, 0.0))


class TokenBucketLimiter(RateLimiter):
    """Bucket of `limit` tokens refilled at limit/window tokens per second."""

    def __init__(self, rate: Rate, clock: Clock = time.monotonic) -> None:
        super().__init__(rate, clock)
        self._tokens = float(rate.limit)
        self._last = clock()

    def _refill(self, now: float) -> None:
        elapsed = max(now - self._last, 0.0)  # tolerate a clock that steps back
        self._tokens = min(float(self.rate.limit), self._tokens + elapsed * self.rate.per_second)
        self._last = now

    def _available(self, now: float) -> int:
        self._refill(now)
        return int(self._tokens)

    def _decide(self, now: float) -> Decision:
        self._refill(now)
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return Decision(True, int(self._tokens), 0.0)
        wait = (1.0 - self._tokens) / self.rate.per_second
        return Decision(False, 0, wait)


STRATEGIES: Dict[str, Callable[..., RateLimiter]] = {
    "sliding": SlidingLogLimiter,
    "fixed": FixedWindowLimiter,
    "bucket": TokenBucketLimiter,
}


def make_limiter(strategy: str, rate, clock: Clock = time.monotonic) -> RateLimiter:
    """Build a limiter by strategy name; `rate` may be a Rate or text like '5/s'."""
    try:
        factory = STRATEGIES[strategy]
    except KeyError:
        known = ", ".join(sorted(STRATEGIES))
        raise ValueError(f"unknown strategy {strategy!r}; choose one of: {known}") from None
    if isinstance(rate, str):
        rate = Rate.parse(rate)
    return factory(rate, clock)


class KeyedLimiter:
    """One limiter per key, created on first use.

    Idle limiters can be dropped with forget_idle() so that memory does not
    grow with every client ever seen.
    """

    def __init__(
        self,
        strategy: str,
        rate,
        clock: Clock = time.monotonic,
        max_keys: Optional[int] = None,
    ) -> None:
        if isinstance(rate, str):
            rate = Rate.parse(rate)
        make_limiter(strategy, rate, clock)  # fail early on a bad strategy
        if max_keys is not None and max_keys < 1:
            raise ValueError("max_keys must be at least 1 when given")
        self.strategy = strategy
        self.rate = rate
        self._clock = clock
        self._max_keys = max_keys
        self._limiters: Dict[Hashable, RateLimiter] = {}
        self._last_seen: Dict[Hashable, float] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._limiters)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._limiters

    def __repr__(self) -> str:
        return f"KeyedLimiter({self.strategy!r}, {self.rate}, keys={len(self._limiters)})"

    def _limiter_for(self, key: Hashable) -> RateLimiter:
        limiter = self._limiters.get(key)
        if limiter is None:
            if self._max_keys is not None and len(self._limiters) >= self._max_keys:
                self._drop_least_recent_key()
            limiter = make_limiter(self.strategy, self.rate, self._clock)
            self._limiters[key] = limiter
        return limiter

    def _drop_least_recent_key(self) -> None:
        stalest = min(self._last_seen, key=self._last_seen.__getitem__)
        del self._limiters[stalest]
        del self._last_seen[stalest]

    def acquire(self, key: Hashable) -> Decision:
        with self._lock:
            limiter = self._limiter_for(key)
            self._last_seen[key] = self._clock()
        return limiter.acquire()

    def allow(self, key: Hashable) -> bool:
        return self.acquire(key).allowed

    def forget_idle(self, idle_seconds: float) -> int:
        """Drop limiters not used for `idle_seconds`; return how many went."""
        with self._lock:
            now = self._clock()
            stale = [key for key, seen in self._last_seen.items() if now - seen >= idle_seconds]
            for key in stale:
                del self._limiters[key]
                del self._last_seen[key]
            return len(stale)

    def stats(self) -> Stats:
        """Accepted and rejected counts summed over the keys still tracked."""
        total = Stats()
        for limiter in self._limiters.values():
            total.accepted += limiter.stats.accepted
            total.rejected += limiter.stats.rejected
        return total
