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
one of them, and the others are taken off what it states. They are counted from a
scope's first attempt, before any statement: a fleet that starts together sends its
first requests unpaced, and the first statements must find them.

Token windows count what the caller estimates an attempt will spend (``tokens``, e.g.
the prompt's length over four plus ``max_tokens``, as providers count at admission): an
attempt waits when its estimate would leave a token window below its headroom. Without
an estimate, a token window holds only once what is left, less the estimates admitted,
is within its headroom. An estimate larger than a whole window is admitted when that
window is full, so it is not held forever.
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
    #: The token estimates of the requests in flight.
    in_flight_tokens: int = 0


@dataclass(slots=True)
class _Stated:
    """One stated window: what was left, its limit, when it refills, and what was admitted.

    ``admitted`` counts requests in a request window and estimated tokens in a token one.
    """

    unit: Unit
    remaining: int
    limit: int | None
    refill: float
    #: When it was stated, and whether it refills steadily until ``refill``.
    stated: float = 0.0
    gradual: bool = False
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
            _Stated(
                window.unit,
                window.remaining,
                window.limit,
                now + window.reset,
                now,
                window.gradual,
            )
            for window in limits.windows
            if window.reset is not None and window.reset > 0
        ]
        with self._lock:
            known = self._scopes.pop(scope, None)
            if not windows:
                return
            in_flight, tokens = 0, 0
            if known is not None and known.refill + IN_FLIGHT_KEPT > now and known.in_flight:
                # The response ends one request in flight; the others keep their share of
                # the estimated tokens (which one ended is not known).
                in_flight = known.in_flight - 1
                tokens = known.in_flight_tokens * in_flight // known.in_flight
            for window in windows:
                window.admitted = in_flight if window.unit is Unit.REQUESTS else tokens
            if len(self._scopes) >= self._max_scopes:
                del self._scopes[min(self._scopes, key=lambda name: self._scopes[name].refill)]
            refill = max(w.refill for w in windows)
            self._scopes[scope] = _Scope(windows, refill, in_flight, tokens)

    def wait(self, scope: str, *, tokens: int = 0) -> float:
        """Seconds until an attempt under ``scope`` fits its windows; ``0.0``: admitted now.

        Admitting counts the attempt against the scope's request window and its
        ``tokens`` (the caller's estimate, ``0`` for none) against its token windows.
        """
        with self._lock:
            now = self._clock()
            known = self._scopes.get(scope)
            if known is None or known.refill + IN_FLIGHT_KEPT <= now:
                # No statement yet (or an old one): nothing holds, but the attempt is
                # counted in flight, so the first statements find the first requests
                # (a count never displaces another scope's statement).
                if known is None and len(self._scopes) >= self._max_scopes:
                    bare = [name for name, held in self._scopes.items() if not held.windows]
                    if not bare:
                        return 0.0
                    del self._scopes[min(bare, key=lambda name: self._scopes[name].refill)]
                self._scopes[scope] = _Scope([], now, 1, tokens)
                return 0.0
            if not known.windows:
                known.refill = now
            live = [window for window in known.windows if window.refill > now]
            known.windows = live
            short = max((self._short(window, tokens, now) for window in live), default=0.0)
            if short > 0:
                return short
            known.in_flight += 1
            known.in_flight_tokens += tokens
            for window in live:
                window.admitted += 1 if window.unit is Unit.REQUESTS else tokens
            return 0.0

    def _short(self, window: _Stated, tokens: int, now: float) -> float:
        """Seconds until one more attempt of ``tokens`` leaves ``window`` at its headroom.

        ``0.0``: it fits now. A gradual window has refilled in proportion to the time
        since its statement, and is waited on until enough has; any other waits for its
        refill. The Redis backend's admit script applies the same rule.
        """
        limit = window.limit or 0
        kept = math.ceil(limit * self._headroom)
        need = 1 if window.unit is Unit.REQUESTS else tokens
        remaining, rate = float(window.remaining), 0.0
        if window.gradual and limit > remaining and window.refill > window.stated:
            rate = (limit - remaining) / (window.refill - window.stated)
            remaining = min(limit, remaining + rate * (now - window.stated))
        # Without an estimate a token window holds once it is within its headroom.
        wanted = window.admitted + kept + (need or 1)
        if remaining >= wanted:
            return 0.0
        # An attempt larger than the whole window goes when it is full and untouched.
        if need and window.admitted == 0 and 0 < limit <= remaining:
            return 0.0
        if rate and wanted <= limit:
            return min(window.refill - now, (wanted - remaining) / rate)
        return window.refill - now

    def __repr__(self) -> str:
        return f"Pace(headroom={self._headroom:g})"
