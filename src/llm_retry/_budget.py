"""A retry budget: a token bucket shared by every call, so an outage cannot cause a storm.

Per-call limits (attempts, deadline) bound one call; they do nothing when *every* call
fails, because then each of N callers still multiplies its load by ``max_attempts``.
A shared budget bounds the retries of all calls together, as gRPC retry throttling
(``maxTokens``/``tokenRatio``) and the AWS SDK retry quota do: each retry spends a token,
each call that gets through refills a fraction of one, and an empty bucket turns retries
off until successes refill it.
"""

from __future__ import annotations

import threading

from llm_retry._checks import require_number

__all__ = ["RetryBudget"]


class RetryBudget:
    """A thread-safe and asyncio-safe token bucket for retries.

    The lock is a plain :class:`threading.Lock` held for a few arithmetic operations and
    never across an ``await``, so the same budget can be shared by threads and by tasks
    of any event loop.

    Args:
        capacity: Tokens in a full bucket: how many retries a burst of failures may
            spend before retries stop. The bucket starts full.
        refill: Tokens a successful call adds back (``0.1``: ten successes earn one
            retry, so retries stay below about 10 % of the traffic in steady state).

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_capacity", "_lock", "_refill", "_tokens")

    def __init__(self, capacity: float = 10.0, *, refill: float = 0.1) -> None:
        self._capacity = require_number("RetryBudget.capacity", capacity, minimum=1.0)
        self._refill = require_number("RetryBudget.refill", refill)
        self._tokens = self._capacity
        self._lock = threading.Lock()

    @property
    def capacity(self) -> float:
        """Tokens in a full bucket."""
        return self._capacity

    @property
    def refill(self) -> float:
        """Tokens one successful call adds back."""
        return self._refill

    @property
    def tokens(self) -> float:
        """Tokens left now (a snapshot: other callers may change it right after)."""
        with self._lock:
            return self._tokens

    def try_spend(self) -> bool:
        """Take one token for a retry; ``False`` (and nothing taken) when under one is left."""
        with self._lock:
            if self._tokens < 1.0:
                return False
            self._tokens -= 1.0
            return True

    def record_success(self) -> None:
        """Add ``refill`` tokens back, up to ``capacity``."""
        with self._lock:
            self._tokens = min(self._capacity, self._tokens + self._refill)

    def __repr__(self) -> str:
        return (
            f"RetryBudget(capacity={self._capacity:g}, refill={self._refill:g}, "
            f"tokens={self.tokens:g})"
        )
