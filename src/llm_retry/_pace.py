"""Pacing from stated limits: hold an attempt while a scope's window is nearly spent (pure).

A response says how much of each window is left (:func:`~llm_retry.read_rate_limits`);
:class:`Pace` keeps the latest statement per scope and counts the requests admitted
since. An attempt that would leave a window below its headroom (a share of its limit)
waits until the window refills, instead of being sent into a 429. A window whose
refill time is unknown, or has passed, holds nothing. The next response replaces the
statement: the server's count is the truth, this count only bridges the gap.

A statement is as old as its response: the requests admitted before it and still on
their way may have reached the server after it counted. So the requests in flight
(admitted, no statement back yet) count against a new statement too: a response ends
one of them, and the others are taken off what it states.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from llm_retry._checks import require_callable, require_int, require_number
from llm_retry._limits import RateLimits, Unit

__all__ = ["DEFAULT_HEADROOM", "IN_FLIGHT_KEPT", "Pace"]

#: Seconds a scope's requests in flight are still counted after its statement's last
#: refill: the requests sent once it refilled answer with the next statement, and must
#: find themselves counted there.
IN_FLIGHT_KEPT: Final = 60.0
#: The share of a window's limit kept free by default: an attempt waits when fewer would
#: be left (none is kept of a window whose limit was not stated).
DEFAULT_HEADROOM: Final = 0.05


@dataclass(slots=True)
class _Scope:
    """A scope's latest statement, and its requests admitted with no statement back yet."""

    windows: list[_Stated]
    refill: float
    in_flight: int = 0


@dataclass(slots=True)
class _Stated:
    """One stated window: what was left, its limit, when it refills, and what was admitted."""

    unit: Unit
    remaining: int
    limit: int | None
    refill: float
    admitted: int = 0


class Pace:
    """The stated windows of each scope, and the attempts admitted against them.

    Args:
        headroom: Share of a window's limit kept free (``0`` spends it all).
        max_scopes: Most scopes remembered; beyond it, the one refilling soonest goes.
        clock: Monotonic seconds.

    .. versionadded:: 0.3.0
    """

    __slots__ = ("_clock", "_headroom", "_lock", "_max_scopes", "_scopes")

    def __init__(
        self,
        *,
        headroom: float = DEFAULT_HEADROOM,
        max_scopes: int = 1024,
        clock: Callable[[], float],
    ) -> None:
        self._headroom = require_number("headroom", headroom)
        if self._headroom >= 1:
            raise ValueError(f"headroom must be a share below 1, got {self._headroom!r}")
        self._max_scopes = require_int("max_scopes", max_scopes, minimum=1)
        require_callable("clock", clock)
        self._clock = clock
        self._scopes: dict[str, _Scope] = {}
        self._lock = threading.Lock()

    @property
    def headroom(self) -> float:
        """Share of a window's limit kept free."""
        return self._headroom

    def record(self, scope: str, limits: RateLimits) -> None:
        """Keep what a response under ``scope`` stated (a window with no refill time holds none)."""
        now = self._clock()
        windows = [
            _Stated(window.unit, window.remaining, window.limit, now + window.reset)
            for window in limits.windows
            if window.reset is not None and window.reset > 0
        ]
        with self._lock:
            known = self._scopes.pop(scope, None)
            if not windows:
                return
            counted = known is not None and known.refill + IN_FLIGHT_KEPT > now
            in_flight = max(0, known.in_flight - 1) if counted and known is not None else 0
            for window in windows:
                window.admitted = in_flight
            if len(self._scopes) >= self._max_scopes:
                del self._scopes[min(self._scopes, key=lambda name: self._scopes[name].refill)]
            self._scopes[scope] = _Scope(windows, max(w.refill for w in windows), in_flight)

    def wait(self, scope: str) -> float:
        """Seconds until an attempt under ``scope`` fits its windows; ``0.0``: admitted now.

        Admitting counts the attempt against the scope's request window.
        """
        with self._lock:
            known = self._scopes.get(scope)
            if known is None:
                return 0.0
            now = self._clock()
            if known.refill + IN_FLIGHT_KEPT <= now:
                del self._scopes[scope]
                return 0.0
            live = [window for window in known.windows if window.refill > now]
            known.windows = live
            short = [window.refill - now for window in live if not self._fits(window)]
            if short:
                return max(short)
            known.in_flight += 1
            for window in live:
                window.admitted += 1
            return 0.0

    def _fits(self, window: _Stated) -> bool:
        """Whether one more attempt leaves ``window`` at or above its headroom."""
        kept = math.ceil(window.limit * self._headroom) if window.limit else 0
        if window.unit is Unit.REQUESTS:
            return window.remaining - window.admitted - 1 >= kept
        # No estimate of an attempt's tokens: a token window holds only once it is spent.
        return window.remaining > kept

    def __repr__(self) -> str:
        return f"Pace(headroom={self._headroom:g})"
