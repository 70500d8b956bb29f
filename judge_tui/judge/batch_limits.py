"""How many requests go into one Message Batch: the API refuses a batch over 100,000 requests or 256 MB whole.

A request's size is measured as the SDK sends it (compact JSON, UTF-8); a batch is filled up to a budget below
the limit, so what the SDK adds that we do not see (and a rounding of "MB") never tips it over.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MAX_REQUESTS = 100_000
MAX_BYTES = 256_000_000  # "256 MB": the smaller reading, to be safe


def json_bytes(value: Any) -> int:
    """The size of value in a request body, encoded as the Anthropic SDK encodes it."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode())


_BODY_BYTES = json_bytes({"requests": []})  # the envelope around the entries; one comma between two entries


@dataclass(frozen=True)
class BatchLimits:
    max_requests: int = MAX_REQUESTS
    max_bytes: int = MAX_BYTES
    margin: float = 0.05  # of max_bytes, kept free
    headroom: int = 1_000_000  # bytes kept free besides the margin

    @property
    def budget(self) -> int:
        """The largest body a batch is filled to."""
        return int(self.max_bytes * (1 - self.margin)) - self.headroom

    def body_bytes(self, entry_sizes: Sequence[int]) -> int:
        """The size of a batch body holding entries of these sizes."""
        return _BODY_BYTES + sum(entry_sizes) + max(0, len(entry_sizes) - 1)

    def fitting(self, entry_sizes: Sequence[int]) -> int:
        """How many of the leading entries one batch takes (0 when the first alone is over the budget)."""
        used = _BODY_BYTES
        for count, size in enumerate(entry_sizes[: self.max_requests]):
            used += size + (1 if count else 0)
            if used > self.budget:
                return count
        return min(len(entry_sizes), self.max_requests)

    def too_large(self, size: int) -> str:
        """Why a request this size can never be sent in a batch."""
        return (f"this request is {size / 1e6:,.1f} MB, more than a Message Batch can hold"
                f" ({self.budget / 1e6:,.1f} MB with the safety margin): shorten the item")
