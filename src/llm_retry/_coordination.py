"""Coordination: where calls share a cooldown and a retry budget, per scope.

A *scope* names what shares state: calls to one provider and model (``"openai:gpt-4o"``)
share one rate limit, so they should share one cooldown and one budget. A
:class:`Coordination` stores that state; two backends ship:

* :class:`InProcessCoordination`: cooldowns shared by the calls of one process; the
  budget is the :class:`~llm_retry.RetryBudget` object itself, as without coordination;
* :class:`llm_retry.redis.RedisCoordination` (the ``llm-resilience[redis]`` extra): both
  shared by every process of a fleet.

The interface is six operations, each sync and async, so another store could be added
without touching the retry logic. A backend never makes a call fail: when its store is
unreachable it answers from this process (fails open).

When a cooldown ends, the scope is *half-open* for at most ``probe_lease`` seconds: the
first caller to ask is admitted as the *prober* (it holds a short lease) and the others
wait until its result is known (a success lifts the cooldown, a rate limit extends it, any
other failure frees the lease for the next caller) or the half-open time is over. So a
fleet that waited together comes back one call first, not in one burst (the half-open
state of a circuit breaker, bounded).
"""

from __future__ import annotations

import logging
import math
import random
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import Final, NamedTuple, Protocol, runtime_checkable

from llm_errors import ErrorCode
from llm_retry._aimd import LearnedRate, Learner
from llm_retry._breaker import BreakerState, CircuitBreaker, Outcomes
from llm_retry._budget import RetryBudget
from llm_retry._checks import require_callable, require_int, require_number, shown
from llm_retry._events import BreakerEvent, GiveUpReason
from llm_retry._limits import RateLimits
from llm_retry._pace import DEFAULT_HEADROOM, Pace
from llm_retry.instrumentation._hooks import dispatch

__all__ = [
    "COOLDOWN_CODES",
    "DEFAULT_MAX_COOLDOWN",
    "DEFAULT_PROBE_LEASE",
    "DEFAULT_PROBE_POLL",
    "DEFAULT_SCOPE",
    "MAX_PARK",
    "MAX_SCOPE_LENGTH",
    "WAKE_JITTER",
    "Admission",
    "Coordination",
    "FailOpen",
    "InProcessCoordination",
    "Scope",
    "check_scope",
    "named_scope",
    "new_probe_token",
    "poll_wait",
]

#: The scope of a coordinated call when neither the policy nor the call names one.
DEFAULT_SCOPE: Final = "default"
#: Longest scope name accepted (scopes become Redis keys).
MAX_SCOPE_LENGTH: Final = 200
#: Longest cooldown a backend records, in seconds, whatever a server asked for.
DEFAULT_MAX_COOLDOWN: Final = 300.0
#: Longest a scope stays parked for a spent quota, in seconds (31 days: a monthly quota).
MAX_PARK: Final = 31 * 86_400.0
#: Codes whose server-directed wait becomes the scope's cooldown: a rate limit, or an
#: overloaded server that said how long to stay away.
COOLDOWN_CODES: Final = frozenset({ErrorCode.RATE_LIMIT, ErrorCode.SERVER})
#: A wait for a cooldown's end gets up to this fraction of it more, uniformly: a fleet
#: that waited together wakes at spread moments (the earliest probes), not in step.
WAKE_JITTER: Final = 0.1
#: Longest half-open time after a cooldown, in seconds: the prober's lease. After it the
#: scope is open to every caller, whatever became of the probe.
DEFAULT_PROBE_LEASE: Final = 1.0
#: While another caller probes, a waiter looks again after at most this many seconds,
#: uniformly from a tenth of it: waiters learn of the probe's success at spread moments,
#: so the fleet does not come back in step (a fleet in step has many requests on the way
#: when the limit is reached again).
DEFAULT_PROBE_POLL: Final = 0.05

#: What :meth:`FailOpen.closed` reads of a backend (``a``-prefixed for async callers);
#: all but ``cooldown`` are optional.
_CLOSED_READS: Final = ("cooldown", "breaker_state", "parked")

#: A policy's scope: a name, or a function of the wrapped call's arguments.
Scope = str | Callable[..., str]

logger = logging.getLogger("llm_retry")


class Admission(NamedTuple):
    """Whether an attempt under a scope may start now (the answer of ``admit``).

    .. versionadded:: 0.2.0
    """

    #: Seconds to wait before asking again; ``0.0``: attempt now.
    wait: float
    #: The probe lease's token when this caller is the prober (it must end the probe
    #: with ``end_probe``), else ``None``.
    probe: str | None = None
    #: Why the call fails now instead of waiting (``wait`` is then the time until the
    #: scope admits again): ``BREAKER_OPEN`` (to its probe) or ``QUOTA_PARKED`` (to the
    #: quota's reset); ``None``: wait, or attempt.
    refused: GiveUpReason | None = None


@runtime_checkable
class Coordination(Protocol):
    """Shared cooldowns and retry budgets, keyed by scope.

    Implementations answer from their store, or from this process when the store
    fails: no method raises because coordination is unavailable.

    ``admit`` is asked before every attempt: during a cooldown it answers the time left;
    in the half-open time after it, it admits one prober (``Admission(0.0, token)``) and
    tells the others when to look again; otherwise ``Admission(0.0)``. The prober reports
    with ``end_probe``; ``extend_cooldown`` ends the half-open state too.

    .. versionadded:: 0.2.0
    """

    def cooldown(self, scope: str) -> float:
        """Seconds left of ``scope``'s cooldown, ``0.0`` when there is none."""
        ...

    def admit(self, scope: str) -> Admission:
        """Whether an attempt under ``scope`` may start now (see the class docstring).

        A backend that paces by token windows also takes ``tokens=``, the attempt's
        token estimate (keyword only); it is passed only when the policy has one.
        """
        ...

    def end_probe(self, scope: str, token: str, *, lifted: bool) -> None:
        """End the probe holding ``token``: ``lifted`` ends the cooldown, else frees the lease.

        A cooldown recorded after the probe started is kept either way.
        """
        ...

    def extend_cooldown(self, scope: str, seconds: float) -> None:
        """Make ``scope``'s cooldown last at least ``seconds`` from now (the later end wins)."""
        ...

    def try_spend(self, scope: str, budget: RetryBudget) -> bool:
        """Take one retry token from ``scope``'s bucket (sized and refilled as ``budget``)."""
        ...

    def record_success(self, scope: str, budget: RetryBudget) -> None:
        """Add ``budget.refill`` tokens to ``scope``'s bucket, up to ``budget.capacity``."""
        ...

    async def acooldown(self, scope: str) -> float:
        """:meth:`cooldown` for async callers."""
        ...

    async def aadmit(self, scope: str) -> Admission:
        """:meth:`admit` for async callers."""
        ...

    async def aend_probe(self, scope: str, token: str, *, lifted: bool) -> None:
        """:meth:`end_probe` for async callers."""
        ...

    async def aextend_cooldown(self, scope: str, seconds: float) -> None:
        """:meth:`extend_cooldown` for async callers."""
        ...

    async def atry_spend(self, scope: str, budget: RetryBudget) -> bool:
        """:meth:`try_spend` for async callers."""
        ...

    async def arecord_success(self, scope: str, budget: RetryBudget) -> None:
        """:meth:`record_success` for async callers."""
        ...


def check_scope(scope: object) -> str:
    """``scope`` as a valid scope name: a non-empty printable string without braces.

    Braces are refused because the Redis backend puts the scope inside a ``{hash tag}``.
    """
    if not isinstance(scope, str):
        raise TypeError(f"a retry scope must be a str, got {type(scope).__name__}")
    if not scope or len(scope) > MAX_SCOPE_LENGTH:
        raise ValueError(
            f"a retry scope must have 1 to MAX_SCOPE_LENGTH={MAX_SCOPE_LENGTH} characters, "
            f"got {len(scope)}"
        )
    if "{" in scope or "}" in scope or not scope.isprintable():
        raise ValueError("a retry scope must be printable and contain no '{' or '}'")
    return scope


def new_probe_token() -> str:
    """A probe lease's token: unique, so only its holder can end the probe."""
    return secrets.token_hex(8)


def poll_wait(poll: float, lease_left: float) -> float:
    """A waiter's sleep while another caller probes: a jittered ``poll``, within the lease."""
    return min(lease_left, random.uniform(poll / 10, poll))  # noqa: S311 - jitter, not cryptography


def named_scope(
    scope: Scope | None, args: tuple[object, ...], kwargs: Mapping[str, object]
) -> str | None:
    """The scope one call names: the policy's, else the first argument's, else ``None``.

    A callable scope is called with the call's arguments. Without one, a first argument
    with a string ``llm_retry_scope`` attribute names it (the Mistral adapter's calls
    say ``mistral:<model id>`` this way). With a coordination backend, a call that names
    none shares :data:`DEFAULT_SCOPE`.
    """
    if isinstance(scope, str):
        return scope
    if scope is not None:
        return check_scope(scope(*args, **kwargs))
    named = getattr(args[0], "llm_retry_scope", None) if args else None
    return check_scope(named) if isinstance(named, str) else None


class InProcessCoordination:
    """Cooldowns shared by the calls of this process; the budget stays the object itself.

    Args:
        max_cooldown: Longest cooldown recorded, in seconds.
        max_scopes: Most scopes with a cooldown held at once; beyond it, ended cooldowns
            are dropped first, then the one ending soonest.
        probe_lease: Longest half-open time after a cooldown, in seconds.
        probe_poll: About how often a waiter looks again while another call probes.
        headroom: Share of a stated rate-limit window kept free: an attempt that would
            leave less waits until the window refills (:meth:`record_limits`).
        breaker: A circuit breaker per scope (:class:`~llm_retry.CircuitBreaker`), fed
            by :meth:`record_outcome`; ``None``: no breaker.
        learn: Learn each scope's sending rate from its 429s (:class:`~llm_retry.LearnedRate`,
            fed by :meth:`record_limited`), for providers that state no rate-limit
            headers; ``None``: no learned rate.
        clock: Monotonic seconds.

    .. versionadded:: 0.2.0
    .. versionchanged:: 0.3.0 ``headroom``, :meth:`record_limits` and pacing in
       :meth:`admit`; ``breaker``, :meth:`record_outcome` and :meth:`breaker_state`;
       :meth:`aparked` and :meth:`abreaker_state`, read by :func:`~llm_retry.fallback`;
       ``learn`` and :meth:`record_limited`.
    """

    __slots__ = (
        "_breaker",
        "_clock",
        "_learner",
        "_lease",
        "_lock",
        "_max_cooldown",
        "_max_scopes",
        "_open",
        "_pace",
        "_parked",
        "_pending",
        "_poll",
        "_probes",
        "_tally",
        "_until",
    )

    def __init__(
        self,
        *,
        max_cooldown: float = DEFAULT_MAX_COOLDOWN,
        max_scopes: int = 1024,
        probe_lease: float = DEFAULT_PROBE_LEASE,
        probe_poll: float = DEFAULT_PROBE_POLL,
        headroom: float = DEFAULT_HEADROOM,
        breaker: CircuitBreaker | None = None,
        learn: LearnedRate | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_cooldown = require_number("max_cooldown", max_cooldown)
        self._max_scopes = require_int("max_scopes", max_scopes, minimum=1)
        self._lease = require_number("probe_lease", probe_lease)
        self._poll = require_number("probe_poll", probe_poll, strict=True)
        require_callable("clock", clock)
        self._clock = clock
        self._pace = Pace(headroom=headroom, max_scopes=max_scopes, clock=clock)
        if breaker is not None and not isinstance(breaker, CircuitBreaker):
            raise TypeError(
                f"breaker must be a CircuitBreaker or None, got {type(breaker).__name__}"
            )
        self._breaker = breaker
        self._tally = None if breaker is None else Outcomes(breaker, max_scopes=max_scopes)
        if learn is not None and not isinstance(learn, LearnedRate):
            raise TypeError(f"learn must be a LearnedRate or None, got {type(learn).__name__}")
        self._learner = (
            None if learn is None else Learner(learn, max_scopes=max_scopes, clock=clock)
        )
        # A scope whose cooldown is its breaker's open time: how long it was opened for.
        self._open: dict[str, float] = {}
        # Breaker events made under the lock, sent to the hooks once it is released.
        self._pending: list[BreakerEvent] = []
        # A scope whose quota is spent: when it resets.
        self._parked: dict[str, float] = {}
        # A scope's cooldown end; kept through the half-open time after it.
        self._until: dict[str, float] = {}
        # A half-open scope's prober: its token.
        self._probes: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def max_cooldown(self) -> float:
        """Longest cooldown recorded, in seconds."""
        return self._max_cooldown

    @property
    def probe_lease(self) -> float:
        """Longest half-open time after a cooldown, in seconds."""
        return self._lease

    @property
    def probe_poll(self) -> float:
        """About how often a waiter looks again while another call probes, in seconds."""
        return self._poll

    @property
    def pace(self) -> Pace:
        """The stated rate-limit windows per scope (another backend may share this one)."""
        return self._pace

    def _state(self, scope: str) -> float | None:
        """Seconds left of ``scope``'s cooldown (``<= 0``: half-open), ``None``: open.

        Forgets a scope whose half-open time is over (the lock is held).
        """
        until = self._until.get(scope)
        if until is None:
            return None
        left = until - self._clock()
        if left + self._lease <= 0:
            self._forget(scope)
            return None
        return left

    def _forget(self, scope: str) -> None:
        """Close ``scope``: no cooldown, probe or open breaker (the lock is held)."""
        self._until.pop(scope, None)
        self._probes.pop(scope, None)
        if self._open.pop(scope, None) is not None:
            self._pending.append(BreakerEvent(scope=scope, state=BreakerState.CLOSED))

    def _send(self) -> None:
        """Send the breaker events made under the lock, outside it (a hook may call back)."""
        if not self._pending:
            return
        with self._lock:
            events, self._pending = self._pending, []
        for event in events:
            dispatch(event)

    def cooldown(self, scope: str) -> float:
        """Seconds left of ``scope``'s cooldown in this process."""
        with self._lock:
            left = self._state(scope)
        self._send()
        return 0.0 if left is None or left <= 0 else left

    def admit(self, scope: str, *, tokens: int = 0) -> Admission:
        """Wait out the cooldown; after it, admit one prober and let the others poll.

        An attempt admitted so far still waits while the scope's stated rate-limit
        windows are nearly spent (:meth:`record_limits`), until they refill; ``tokens``
        (the attempt's estimate) counts against the token windows. A parked
        scope (:meth:`park`) refuses every attempt until its quota resets.
        """
        left = self.parked(scope)
        if left > 0:
            return Admission(left, refused=GiveUpReason.QUOTA_PARKED)
        admission = self._cooldown_admission(scope)
        self._send()
        if admission.wait > 0:
            return admission
        paced = self._pace.wait(scope, tokens=tokens)
        if paced <= 0 and self._learner is not None:
            paced = self._learner.wait(scope)
        if paced <= 0:
            return admission
        if admission.probe is not None:  # a paced prober gives its lease back
            self.end_probe(scope, admission.probe, lifted=False)
        return Admission(paced)

    def _cooldown_admission(self, scope: str) -> Admission:
        with self._lock:
            left = self._state(scope)
            if left is None:
                return Admission(0.0)
            opened = scope in self._open
            if left > 0:
                return Admission(left, refused=GiveUpReason.BREAKER_OPEN if opened else None)
            if scope not in self._probes:
                token = self._probes[scope] = new_probe_token()
                if opened:
                    self._pending.append(BreakerEvent(scope=scope, state=BreakerState.HALF_OPEN))
                return Admission(0.0, token)
            if opened:  # the probe is on its way: fail now, try after its lease
                return Admission(left + self._lease, refused=GiveUpReason.BREAKER_OPEN)
            return Admission(poll_wait(self._poll, left + self._lease))

    def record_outcome(self, scope: str, *, failed: bool) -> None:
        """Count an attempt's outcome for ``scope``'s breaker (no breaker: nothing).

        ``failed``: it failed as an outage fails (:data:`~llm_retry.BREAKER_CODES`);
        else it got through. Opens the breaker when the window says so; a failure while
        the breaker is half-open (its probe's) opens it again for twice as long.
        """
        settings, tally = self._breaker, self._tally
        if settings is None or tally is None:
            return
        with self._lock:
            now = self._clock()
            left = self._state(scope)
            opened = self._open.get(scope)
            if opened is not None:
                if failed and left is not None and left <= 0:
                    self._open_breaker(scope, now, settings.reopened(opened))
            elif tally.record(scope, now, failed=failed):
                tally.forget(scope)
                self._open_breaker(scope, now, settings.open_for)
        self._send()

    def _open_breaker(self, scope: str, now: float, seconds: float) -> None:
        """Open ``scope``'s breaker for ``seconds`` (the lock is held)."""
        if scope not in self._until and len(self._until) >= self._max_scopes:
            self._make_room(now)
        self._until[scope] = max(now + seconds, self._until.get(scope, -math.inf))
        self._open[scope] = seconds
        self._probes.pop(scope, None)
        self._pending.append(BreakerEvent(scope=scope, state=BreakerState.OPEN, open_for=seconds))

    def breaker_state(self, scope: str) -> tuple[BreakerState, float]:
        """``scope``'s breaker and the seconds to its probe (``0.0`` unless open).

        Closed, also without a breaker.
        """
        with self._lock:
            left = self._state(scope)
            opened = scope in self._open
        self._send()
        if left is None or not opened:
            return BreakerState.CLOSED, 0.0
        if left > 0:
            return BreakerState.OPEN, left
        return BreakerState.HALF_OPEN, 0.0

    def record_limits(self, scope: str, limits: RateLimits) -> None:
        """Keep what a response under ``scope`` stated of its rate-limit windows."""
        self._pace.record(scope, limits)

    @property
    def learner(self) -> Learner | None:
        """Each scope's rate learned from its 429s (``None`` without ``learn``)."""
        return self._learner

    def record_limited(self, scope: str) -> None:
        """A rate limit under ``scope``: decrease its learned rate (without ``learn``: nothing)."""
        if self._learner is not None:
            self._learner.limited(scope)

    def park(self, scope: str, seconds: float) -> None:
        """Refuse ``scope``'s attempts for ``seconds`` (:data:`MAX_PARK` at most): quota spent.

        The later reset wins. Past ``max_scopes`` parked scopes, the one resetting
        soonest is dropped.
        """
        with self._lock:
            now = self._clock()
            until = now + min(seconds, MAX_PARK)
            if until <= self._parked.get(scope, -math.inf):
                return
            for ended in [name for name, end in self._parked.items() if end <= now]:
                del self._parked[ended]
            if scope not in self._parked and len(self._parked) >= self._max_scopes:
                del self._parked[min(self._parked, key=self._parked.__getitem__)]
            self._parked[scope] = until

    def parked(self, scope: str) -> float:
        """Seconds until ``scope``'s parked quota resets (``0.0``: not parked)."""
        with self._lock:
            until = self._parked.get(scope)
            if until is None:
                return 0.0
            left = until - self._clock()
            if left <= 0:
                del self._parked[scope]
                return 0.0
            return left

    def end_probe(self, scope: str, token: str, *, lifted: bool) -> None:
        """End the probe holding ``token``; ``lifted`` ends an ended cooldown at once."""
        with self._lock:
            if self._probes.get(scope) != token:
                return
            del self._probes[scope]
            if lifted and self._until.get(scope, math.inf) <= self._clock():
                self._forget(scope)
        self._send()

    def extend_cooldown(self, scope: str, seconds: float) -> None:
        """Make ``scope``'s cooldown last at least ``seconds`` (capped) from now."""
        with self._lock:
            now = self._clock()
            until = now + min(seconds, self._max_cooldown)
            if until <= self._until.get(scope, -math.inf):
                return
            if scope not in self._until and len(self._until) >= self._max_scopes:
                self._make_room(now)
            self._until[scope] = until
            self._probes.pop(scope, None)
        self._send()

    def _make_room(self, now: float) -> None:
        """Drop scopes past their half-open time, or else the one ending soonest."""
        for ended in [name for name, until in self._until.items() if until + self._lease <= now]:
            self._forget(ended)
        if len(self._until) >= self._max_scopes:
            self._forget(min(self._until, key=self._until.__getitem__))

    def try_spend(self, scope: str, budget: RetryBudget) -> bool:  # noqa: ARG002 - one bucket
        """Take a token from ``budget`` itself (shared by whoever holds it)."""
        return budget.try_spend()

    def record_success(self, scope: str, budget: RetryBudget) -> None:  # noqa: ARG002
        """Refill ``budget`` itself."""
        budget.record_success()

    async def acooldown(self, scope: str) -> float:
        """:meth:`cooldown` (no I/O, so it never waits)."""
        return self.cooldown(scope)

    async def aadmit(self, scope: str, *, tokens: int = 0) -> Admission:
        """:meth:`admit` (no I/O)."""
        return self.admit(scope, tokens=tokens)

    async def aend_probe(self, scope: str, token: str, *, lifted: bool) -> None:
        """:meth:`end_probe` (no I/O)."""
        self.end_probe(scope, token, lifted=lifted)

    async def aextend_cooldown(self, scope: str, seconds: float) -> None:
        """:meth:`extend_cooldown` (no I/O)."""
        self.extend_cooldown(scope, seconds)

    async def atry_spend(self, scope: str, budget: RetryBudget) -> bool:
        """:meth:`try_spend` (no I/O)."""
        return self.try_spend(scope, budget)

    async def arecord_success(self, scope: str, budget: RetryBudget) -> None:
        """:meth:`record_success` (no I/O)."""
        self.record_success(scope, budget)

    async def arecord_limits(self, scope: str, limits: RateLimits) -> None:
        """:meth:`record_limits` (no I/O)."""
        self.record_limits(scope, limits)

    async def arecord_limited(self, scope: str) -> None:
        """:meth:`record_limited` (no I/O)."""
        self.record_limited(scope)

    async def arecord_outcome(self, scope: str, *, failed: bool) -> None:
        """:meth:`record_outcome` (no I/O)."""
        self.record_outcome(scope, failed=failed)

    async def apark(self, scope: str, seconds: float) -> None:
        """:meth:`park` (no I/O)."""
        self.park(scope, seconds)

    async def aparked(self, scope: str) -> float:
        """:meth:`parked` (no I/O)."""
        return self.parked(scope)

    async def abreaker_state(self, scope: str) -> tuple[BreakerState, float]:
        """:meth:`breaker_state` (no I/O)."""
        return self.breaker_state(scope)

    def __repr__(self) -> str:
        return (
            f"InProcessCoordination(max_cooldown={self._max_cooldown:g}, "
            f"probe_lease={self._lease:g}, headroom={self._pace.headroom:g})"
        )


# What FailOpen has reported: (backend type, operation, what went wrong), each logged once
# per process. Bounded by the backend types, their ten operations and the error types.
_reported: set[tuple[str, str, str]] = set()
_reported_lock = threading.Lock()


class FailOpen:
    """A backend's operations as a call uses them, never raising: coordination never fails a call.

    A backend answers from this process when its store fails (the Redis one does); an
    error it did not expect (a bug, a misconfiguration) or an admission a call cannot act
    on (not an :class:`Admission`, a wait that is not a finite number ``>= 0``) is caught
    here instead of becoming the call's error. The call then goes on as without
    coordination for that operation (it attempts now, shares no cooldown, spends and
    refills the ``RetryBudget`` object), and one WARNING names the backend's type, the
    operation and the error's type (never its message, which may hold a URL or a key),
    once per process for each. Cancellation and other ``BaseException`` pass through.
    """

    __slots__ = ("_backend",)

    def __init__(self, backend: Coordination) -> None:
        self._backend = backend

    def admit(self, scope: str, *, tokens: int = 0) -> Admission:
        """The backend's admission, or ``Admission(0.0)`` (attempt now).

        ``tokens`` is passed only when there is an estimate, so a backend without the
        keyword still serves policies without one.
        """
        try:
            answer = (
                self._backend.admit(scope, tokens=tokens)  # type: ignore[call-arg]
                if tokens
                else self._backend.admit(scope)
            )
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("admit", error)
            return Admission(0.0)
        return self._usable("admit", answer)

    async def aadmit(self, scope: str, *, tokens: int = 0) -> Admission:
        """:meth:`admit` for async callers."""
        try:
            answer = await (
                self._backend.aadmit(scope, tokens=tokens)  # type: ignore[call-arg]
                if tokens
                else self._backend.aadmit(scope)
            )
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("aadmit", error)
            return Admission(0.0)
        return self._usable("aadmit", answer)

    def end_probe(self, scope: str, token: str, *, lifted: bool) -> None:
        """End the probe in the backend, or leave it to the lease's end."""
        try:
            self._backend.end_probe(scope, token, lifted=lifted)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("end_probe", error)

    async def aend_probe(self, scope: str, token: str, *, lifted: bool) -> None:
        """:meth:`end_probe` for async callers."""
        try:
            await self._backend.aend_probe(scope, token, lifted=lifted)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("aend_probe", error)

    def extend_cooldown(self, scope: str, seconds: float) -> None:
        """Share the cooldown, or keep it to this call."""
        try:
            self._backend.extend_cooldown(scope, seconds)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("extend_cooldown", error)

    async def aextend_cooldown(self, scope: str, seconds: float) -> None:
        """:meth:`extend_cooldown` for async callers."""
        try:
            await self._backend.aextend_cooldown(scope, seconds)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("aextend_cooldown", error)

    def try_spend(self, scope: str, budget: RetryBudget) -> bool:
        """A token from the backend's bucket, or from ``budget`` itself."""
        try:
            return self._backend.try_spend(scope, budget)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("try_spend", error)
            return budget.try_spend()

    async def atry_spend(self, scope: str, budget: RetryBudget) -> bool:
        """:meth:`try_spend` for async callers."""
        try:
            return await self._backend.atry_spend(scope, budget)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("atry_spend", error)
            return budget.try_spend()

    def record_success(self, scope: str, budget: RetryBudget) -> None:
        """Refill the backend's bucket, or ``budget`` itself."""
        try:
            self._backend.record_success(scope, budget)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("record_success", error)
            budget.record_success()

    async def arecord_success(self, scope: str, budget: RetryBudget) -> None:
        """:meth:`record_success` for async callers."""
        try:
            await self._backend.arecord_success(scope, budget)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report("arecord_success", error)
            budget.record_success()

    def record_limits(self, scope: str, limits: RateLimits) -> None:
        """Give the backend a response's rate-limit windows, if it paces (it may not)."""
        self._optional("record_limits", scope, limits)

    def record_limited(self, scope: str) -> None:
        """Tell the backend of a rate limit, if it learns rates (it may not)."""
        self._optional("record_limited", scope)

    async def arecord_limited(self, scope: str) -> None:
        """:meth:`record_limited` for async callers."""
        await self._aoptional("arecord_limited", scope)

    async def arecord_limits(self, scope: str, limits: RateLimits) -> None:
        """:meth:`record_limits` for async callers."""
        await self._aoptional("arecord_limits", scope, limits)

    def park(self, scope: str, seconds: float) -> None:
        """Park the scope for a spent quota, if the backend parks (it may not)."""
        self._optional("park", scope, seconds)

    async def apark(self, scope: str, seconds: float) -> None:
        """:meth:`park` for async callers."""
        await self._aoptional("apark", scope, seconds)

    def record_outcome(self, scope: str, *, failed: bool) -> None:
        """Give the backend an attempt's outcome, if it has a breaker (it may not)."""
        self._optional("record_outcome", scope, failed=failed)

    async def arecord_outcome(self, scope: str, *, failed: bool) -> None:
        """:meth:`record_outcome` for async callers."""
        await self._aoptional("arecord_outcome", scope, failed=failed)

    def _optional(self, operation: str, *args: object, **kwargs: object) -> None:
        """Call an operation the ``Coordination`` protocol leaves optional, if it is there."""
        call = getattr(self._backend, operation, None)
        if call is None:
            return
        try:
            call(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report(operation, error)

    async def _aoptional(self, operation: str, *args: object, **kwargs: object) -> None:
        """:meth:`_optional` for async callers."""
        call = getattr(self._backend, operation, None)
        if call is None:
            return
        try:
            await call(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report(operation, error)

    def closed(self, scope: str) -> float:
        """Seconds until ``scope`` admits attempts again; ``0.0``: it admits them now.

        The longest of its cooldown, an open breaker's time to its probe and a parked
        quota's time to its reset: what a fallback asks to skip a hop whose scope would
        make it wait or fail. Reads only (no probe lease is taken). ``breaker_state``
        and ``parked`` are read when the backend has them; a read that fails, or that
        answers no finite number ``>= 0``, counts as open (reported).
        """
        return max(self._seconds(name, self._read(name, scope)) for name in _CLOSED_READS)

    async def aclosed(self, scope: str) -> float:
        """:meth:`closed` for async callers: the backend's ``a``-prefixed reads."""
        answers = [(f"a{name}", await self._aread(f"a{name}", scope)) for name in _CLOSED_READS]
        return max(self._seconds(name, answer) for name, answer in answers)

    def _read(self, operation: str, scope: str) -> object:
        """A read the backend may not have: its answer, or ``None`` (absent or failed)."""
        call = getattr(self._backend, operation, None)
        if call is None:
            return None
        try:
            return call(scope)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report(operation, error)
            return None

    async def _aread(self, operation: str, scope: str) -> object:
        """:meth:`_read` for async callers."""
        call = getattr(self._backend, operation, None)
        if call is None:
            return None
        try:
            return await call(scope)
        except Exception as error:  # noqa: BLE001 - fail open, reported
            self._report(operation, error)
            return None

    def _seconds(self, operation: str, answer: object) -> float:
        """A read's answer as seconds closed: an open breaker's time, else the number."""
        match answer:
            case None | (BreakerState.CLOSED | BreakerState.HALF_OPEN, _):
                return 0.0
            case (BreakerState.OPEN, left):
                answer = left
        if (
            isinstance(answer, int | float)
            and not isinstance(answer, bool)
            and 0 <= answer < math.inf
        ):
            return float(answer)
        self._report(operation, answer, expected="a finite number of seconds >= 0")
        return 0.0

    def _usable(self, operation: str, answer: object) -> Admission:
        """``answer`` if a call can act on it, else ``Admission(0.0)`` (reported)."""
        if isinstance(answer, Admission):
            # A backend typed loosely (or not at all) may answer anything: check it all.
            wait: object = answer.wait
            probe: object = answer.probe
            refused: object = answer.refused
            if (
                (probe is None or isinstance(probe, str))
                and (refused is None or isinstance(refused, GiveUpReason))
                and isinstance(wait, int | float)
                and not isinstance(wait, bool)
                and 0 <= wait < math.inf
            ):
                return answer
        self._report(operation, answer)
        return Admission(0.0)

    def _report(
        self,
        operation: str,
        wrong: object,
        *,
        expected: str = "an Admission with a finite wait >= 0",
    ) -> None:
        """Log what went wrong, once per process for each backend type, operation and kind.

        ``wrong`` is the error raised (named by its type only), or the answer that is not
        what was ``expected`` (shown short and redacted).
        """
        backend = type(self._backend).__qualname__
        if isinstance(wrong, Exception):
            kind = what = f"raised {type(wrong).__name__}"
        else:
            kind = "answered"
            what = f"answered {shown(wrong)}, not {expected}"
        with _reported_lock:
            if (backend, operation, kind) in _reported:
                return
            _reported.add((backend, operation, kind))
        logger.warning(
            "llm_retry: %s.%s() %s; the call goes on without coordination for it "
            "(reported once per process)",
            backend,
            operation,
            what,
            extra={"backend": backend, "operation": operation},
        )
