"""A circuit breaker per scope: stop sending to a provider and model that keeps failing (pure).

During an outage every call still makes its attempts, and every attempt waits for its
timeout: a fleet multiplies the outage's load and its users wait for nothing. A breaker
counts a scope's outcomes over a sliding window; when at least ``min_calls`` ended there
and at least ``failure_ratio`` of them failed as an outage fails (:data:`BREAKER_CODES`),
it *opens*: calls under the scope then fail at once, classified ``SERVER``, with the time
to the probe as their ``retry_after``. After ``open_for`` one call probes (the
coordination backend's half-open state, as after a cooldown): its success closes the
breaker, its failure opens it again for twice as long, up to ``max_open_for``.

A permanent failure (a bad request, an overflow, a filtered prompt) says nothing about the
provider's health and is not counted; neither is an outcome of a call admitted before
the breaker opened that ends while it is open.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Final

from llm_errors import ErrorCode
from llm_retry._checks import require_int, require_number

__all__ = ["BREAKER_CODES", "BreakerState", "CircuitBreaker", "Outcomes"]

#: The outcomes that count as failures: what an outage, an overload or a cut network gives.
BREAKER_CODES: Final = frozenset(
    {ErrorCode.SERVER, ErrorCode.TIMEOUT, ErrorCode.TRANSPORT, ErrorCode.RATE_LIMIT}
)
#: The sliding window is kept as this many buckets (counts per slice of the window).
_BUCKETS: Final = 10


class BreakerState(enum.StrEnum):
    """Where a scope's breaker stands.

    .. versionadded:: 0.3.0
    """

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


@dataclass(frozen=True, slots=True)
class CircuitBreaker:
    """When a scope's breaker opens and for how long; given to a coordination backend.

    Args:
        failure_ratio: Share of the window's counted outcomes that must be failures.
        min_calls: Fewest outcomes in the window before it may open (a quiet scope with
            two failures out of three is not an outage).
        window: Seconds of outcomes counted (a sliding window).
        open_for: Seconds the breaker stays open before its first probe.
        max_open_for: Longest open time: each failed probe doubles it up to this.

    .. versionadded:: 0.3.0
    """

    failure_ratio: float = 0.5
    min_calls: int = 20
    window: float = 30.0
    open_for: float = 5.0
    max_open_for: float = 120.0

    def __post_init__(self) -> None:
        ratio = require_number("failure_ratio", self.failure_ratio, strict=True)
        if ratio > 1:
            raise ValueError(f"failure_ratio must be a share in (0, 1], got {ratio!r}")
        require_int("min_calls", self.min_calls, minimum=1)
        require_number("window", self.window, strict=True)
        require_number("open_for", self.open_for, strict=True)
        require_number("max_open_for", self.max_open_for, minimum=self.open_for)

    def reopened(self, open_for: float) -> float:
        """The open time after a failed probe of a breaker that was open ``open_for``."""
        return min(open_for * 2, self.max_open_for)


class Outcomes:
    """The outcomes of each scope over the last ``window`` seconds, in buckets.

    Not thread-safe: its backend holds a lock around it.
    """

    __slots__ = ("_buckets", "_max_scopes", "_settings", "_width")

    def __init__(self, settings: CircuitBreaker, *, max_scopes: int) -> None:
        self._settings = settings
        self._width = settings.window / _BUCKETS
        self._max_scopes = max_scopes
        # Per scope: [bucket number, outcomes, failures], oldest first.
        self._buckets: dict[str, list[list[int]]] = {}

    def record(self, scope: str, now: float, *, failed: bool) -> bool:
        """Count one outcome; ``True`` when the window now says the breaker opens."""
        current = math.floor(now / self._width)
        buckets = self._buckets.get(scope)
        if buckets is None:
            if len(self._buckets) >= self._max_scopes:
                del self._buckets[next(iter(self._buckets))]  # the longest unheard of
            buckets = self._buckets[scope] = []
        while buckets and buckets[0][0] <= current - _BUCKETS:
            buckets.pop(0)
        if not buckets or buckets[-1][0] != current:
            buckets.append([current, 0, 0])
        buckets[-1][1] += 1
        buckets[-1][2] += failed
        outcomes = sum(bucket[1] for bucket in buckets)
        failures = sum(bucket[2] for bucket in buckets)
        settings = self._settings
        return outcomes >= settings.min_calls and failures >= settings.failure_ratio * outcomes

    def forget(self, scope: str) -> None:
        """Start the scope's window afresh (it opened, or closed after a probe)."""
        self._buckets.pop(scope, None)
