"""A sending rate learned from rate limits alone: additive increase, multiplicative decrease.

For providers that state no rate-limit headers (:mod:`llm_retry._pace` serves those that
do), a scope learns its rate from its 429s: each one (at most one per ``hold``) sets the
rate to ``decrease`` times the lower of the rate allowed then and the rate measured
over the last second; from there the rate grows by ``increase`` of that rate each
second, until the next 429. Attempts are spaced at the rate (a generic cell rate:
each admission moves the scope's next free time on by ``1 / rate``), so a fleet sends
at the rate it learned instead of in bursts that empty the provider's bucket. A scope
with no 429 has no rate and is never held; a learned rate is forgotten ``forget``
seconds after its last 429.

:class:`LearnedRate` holds the parameters; :class:`Learner` is the in-process state
(the Redis backend keeps the same state in Redis, by the same rules).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from llm_retry._checks import require_int, require_number

__all__ = ["MEASURE_WINDOW", "MIN_SPAN", "LearnedRate", "Learner"]

#: Seconds over which the admitted rate is measured (the last full window and the
#: current one are both read).
MEASURE_WINDOW: Final = 1.0
#: Shortest span, in seconds, the current window is read over (a rate measured over less
#: is noise).
MIN_SPAN: Final = 0.1


@dataclass(frozen=True, slots=True)
class LearnedRate:
    """How a scope's sending rate is learned from its 429s (AIMD).

    Args:
        decrease: A 429 sets the rate to this share of the lower of the rate allowed
            and the rate measured (``0 < decrease < 1``).
        increase: Each second after a 429 the rate grows by this share of the rate it
            was set to.
        min_rate: The lowest rate learned, in requests per second.
        hold: Seconds after a decrease in which further 429s (requests that were
            already on their way) decrease nothing.
        forget: Seconds after the last 429 when the scope's rate is forgotten.

    .. versionadded:: 0.3.0
    """

    decrease: float = 0.5
    increase: float = 0.05
    min_rate: float = 0.5
    hold: float = 0.5
    forget: float = 600.0

    def __post_init__(self) -> None:
        require_number("decrease", self.decrease, strict=True)
        if self.decrease >= 1:
            raise ValueError(f"decrease must be a share below 1, got {self.decrease!r}")
        require_number("increase", self.increase)
        require_number("min_rate", self.min_rate, strict=True)
        require_number("hold", self.hold)
        require_number("forget", self.forget, strict=True)

    def rate(self, base: float, since: float) -> float:
        """The rate ``since`` seconds after a 429 set it to ``base``."""
        return base * (1.0 + self.increase * max(0.0, since))

    def decreased(self, allowed: float | None, measured: float | None) -> float:
        """The rate a 429 sets, from the rate allowed then and the rate measured."""
        known = [rate for rate in (allowed, measured) if rate is not None and rate > 0]
        if not known:
            return self.min_rate
        return max(self.min_rate, self.decrease * min(known))


@dataclass(slots=True)
class _LearnedScope:
    """One scope's learned rate, its next free time, and the admissions being measured."""

    base: float | None = None
    decreased_at: float = float("-inf")
    next_free: float = float("-inf")
    window_start: float = 0.0
    in_window: int = 0
    last_rate: float | None = None


class Learner:
    """The learned rate of each scope of this process (see the module docstring).

    Args:
        settings: The learning parameters.
        max_scopes: Most scopes remembered; beyond it, the least recently used goes.
        clock: Monotonic seconds.

    .. versionadded:: 0.3.0
    """

    __slots__ = ("_clock", "_lock", "_max_scopes", "_scopes", "settings")

    def __init__(
        self, settings: LearnedRate, *, max_scopes: int = 1024, clock: Callable[[], float]
    ) -> None:
        self.settings = settings
        self._max_scopes = require_int("max_scopes", max_scopes, minimum=1)
        self._clock = clock
        self._scopes: dict[str, _LearnedScope] = {}
        self._lock = threading.Lock()

    def _scope(self, scope: str, now: float) -> _LearnedScope:
        known = self._scopes.pop(scope, None)  # re-inserted: the dict is in use order
        if known is None or (
            known.base is not None and now - known.decreased_at > self.settings.forget
        ):
            known = _LearnedScope(window_start=now)
        if len(self._scopes) >= self._max_scopes:
            del self._scopes[next(iter(self._scopes))]
        self._scopes[scope] = known
        return known

    def _measured(self, known: _LearnedScope, now: float) -> float | None:
        """The admitted rate: the current window's once long enough, else the last one's."""
        span = now - known.window_start
        if span >= MIN_SPAN and known.in_window:
            return known.in_window / span
        return known.last_rate

    def wait(self, scope: str) -> float:
        """Seconds until an attempt under ``scope`` may go; ``0.0``: admitted now (counted)."""
        with self._lock:
            now = self._clock()
            known = self._scope(scope, now)
            if known.base is not None:
                if known.next_free > now:
                    return known.next_free - now
                known.next_free = now + 1.0 / self.settings.rate(
                    known.base, now - known.decreased_at
                )
            if now - known.window_start >= MEASURE_WINDOW:
                known.last_rate = known.in_window / (now - known.window_start)
                known.window_start, known.in_window = now, 0
            known.in_window += 1
            return 0.0

    def limited(self, scope: str) -> None:
        """A 429 under ``scope``: decrease its rate (once per ``hold``)."""
        with self._lock:
            now = self._clock()
            known = self._scope(scope, now)
            if now - known.decreased_at < self.settings.hold:
                return
            allowed = (
                None
                if known.base is None
                else self.settings.rate(known.base, now - known.decreased_at)
            )
            known.base = self.settings.decreased(allowed, self._measured(known, now))
            known.decreased_at = now
            known.next_free = now + 1.0 / known.base
            known.window_start, known.in_window, known.last_rate = now, 0, None

    def rate(self, scope: str) -> float | None:
        """The rate ``scope`` may send at now, in requests per second; ``None``: not held."""
        with self._lock:
            known = self._scopes.get(scope)
            if known is None or known.base is None:
                return None
            now = self._clock()
            if now - known.decreased_at > self.settings.forget:
                return None
            return self.settings.rate(known.base, now - known.decreased_at)

    def __repr__(self) -> str:
        return f"Learner({self.settings!r})"
