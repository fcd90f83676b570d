"""The call machinery: one call's retry state, and every way a policy runs a call.

:class:`RetryPolicy` is the policy's data (:class:`~llm_retry._settings.RetrySettings`:
its fields and their checks) with the two ways to run under it, ``wrap`` and
``attempts``. Everything below them is here, so the core reads downward only:

* :class:`Call`: one call's retry state and the tenacity strategies that read it. A
  call is created per call and never shared, so it can hold its start time, the waits
  it made and why it stopped, and build a fresh ``Retrying``/``AsyncRetrying`` (a shared
  tenacity object would mix the state of concurrent calls). Its ``retry``/``wait``/
  ``stop`` methods are tenacity strategies over the same pure decisions as the public
  ones in ``_strategies``. With a ``coordination`` backend it also shares state under
  its scope: before every attempt it asks the backend for admission and waits until the
  end the backend recorded, asking again after each wait (or fails fast when a wait
  would cross its deadline); after a cooldown, one call probes first and ends the probe
  with its result; a failure with a server-directed wait extends the cooldown, and the
  budget's tokens live in the backend. The async controller gets async twins of the
  strategies that talk to the backend, so an event loop never blocks on it. Every
  operation goes through :class:`~llm_retry._coordination.FailOpen`, so no backend
  error becomes the call's error. Events name the call by its scope when it names one
  (the policy's, or the first argument's ``llm_retry_scope``), else by the wrapped
  callable's qualified name.
* :class:`Attempts`: the iterator form (``for attempt in policy.attempts(): with
  attempt: ...`` and ``async for``); each loop over it is one call with fresh state.
* Streams (:func:`retry_generator`, :func:`retry_async_generator`): retried only until
  their first item reaches the caller. Restarting a stream after the caller has seen
  part of it would duplicate output (the same text twice, a tool call issued twice), so
  a generator is retried while it is opening or failing before its first item, and
  never after; a failure after it propagates as it was, classified, with
  ``items_delivered`` in its :class:`~llm_retry.RetryInfo` and its notes. Plain tenacity
  does not retry an async generator at all (calling one returns the generator at once,
  which counts as success); here the first item is fetched inside the retry loop. The
  rest of the stream is delegated by hand rather than with ``yield from``, which cannot
  count items: ``send``/``throw``/``close`` reach the inner generator as they would
  through ``yield from``.
* :func:`wrap`: one wrapper for every kind of callable. Sync functions and coroutine
  functions are retried as a whole; generator functions go to the stream wrappers. The
  kind is decided once, at decoration time, from the function (or, for a callable
  object, its ``__call__``), as tenacity and stamina do.
"""

from __future__ import annotations

import functools
import inspect
import random
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Coroutine,
    Generator,
    Iterator,
    Mapping,
)
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, Generic, ParamSpec, Self, TypeVar, cast

import tenacity as _t

from llm_errors import (
    Classification,
    ErrorCode,
    QuotaExceededError,
    RateLimitError,
    ServerError,
    daily_reset_from_text,
)
from llm_retry._breaker import BREAKER_CODES
from llm_retry._checks import require_callable
from llm_retry._coordination import (
    COOLDOWN_CODES,
    DEFAULT_SCOPE,
    WAKE_JITTER,
    Admission,
    FailOpen,
    InProcessCoordination,
    named_scope,
)
from llm_retry._events import (
    CooldownEvent,
    GiveUpEvent,
    GiveUpReason,
    RetryEvent,
    RetryInfo,
    annotate,
)
from llm_retry._settings import RetrySettings
from llm_retry._strategies import (
    failure,
    is_retryable,
    planned_wait,
    require_failure,
    server_wait,
)
from llm_retry._testing import active_recorder
from llm_retry.instrumentation._hooks import dispatch

__all__ = [
    "MAX_ADMISSIONS",
    "Attempt",
    "Attempts",
    "Call",
    "RetryPolicy",
    "retry_async_generator",
    "retry_generator",
    "retry_llm",
    "target_name",
    "wrap",
]

P = ParamSpec("P")
T = TypeVar("T")
Y = TypeVar("Y")
S = TypeVar("S")
R = TypeVar("R")

#: Without a coordination backend the budget is the object itself, as this one keeps it.
_UNCOORDINATED = FailOpen(InProcessCoordination())
#: Most admissions asked before one attempt (each after a wait the backend set; the
#: deadline bounds them too). Past it the attempt goes ahead: coordination never fails
#: a call.
MAX_ADMISSIONS: Final = 256


class Call:
    """The state of one call through a :class:`~llm_retry.RetryPolicy`."""

    __slots__ = (
        "_coordination",
        "_decided",
        "_last",
        "_policy",
        "_probe",
        "_recorder",
        "_retry_on",
        "_scope",
        "_skipped",
        "_start",
        "_stop",
        "_target",
        "_tokens",
        "attempts",
        "waited",
    )

    def __init__(
        self,
        policy: RetrySettings,
        target: str,
        args: tuple[object, ...] = (),
        kwargs: Mapping[str, object] | None = None,
    ) -> None:
        self._policy = policy
        # Normalised by the policy's __post_init__, whatever spelling it was given in.
        self._retry_on = cast("frozenset[ErrorCode]", policy.retry_on)
        coordination = policy.coordination
        named = named_scope(policy.scope, args, kwargs or {})
        # Cooldowns and budget tokens are only shared (under a scope) with a backend.
        self._scope: str | None = None
        self._coordination = _UNCOORDINATED
        # The attempt's token estimate, counted against the scope's token windows.
        self._tokens = 0
        if coordination is not None:
            self._scope = named or DEFAULT_SCOPE
            self._coordination = FailOpen(coordination)
            self._tokens = policy.tokens_of(*args, **(kwargs or {}))
        self._target = named or target
        self._recorder = active_recorder()
        self._start = policy.clock()
        self._skipped = 0.0
        self._last: tuple[BaseException, Classification, float | None] | None = None
        self._stop: tuple[GiveUpReason, str] | None = None
        # When the last retry was decided (the deadline check's figure, for its event).
        self._decided = 0.0
        # The probe lease's token while this call's attempt is the scope's probe.
        self._probe: str | None = None
        self.attempts = 0
        self.waited = 0.0
        policy.stats.record_call()

    def elapsed(self) -> float:
        """Seconds since the call started; waits skipped in testing mode count too."""
        return self._policy.clock() - self._start + self._skipped

    def _judge(self, error: BaseException) -> tuple[Classification, float | None]:
        """Classify ``error`` and read its usable server wait, once per error.

        The strategies (``retry``, ``wait``, ``stop``, ``before_sleep``) all ask about
        the same failure; the answer is kept for the latest error only.
        """
        if self._last is None or self._last[0] is not error:
            policy = self._policy
            classification = policy.classifier(error)
            server = server_wait(classification) if policy.respect_retry_after else None
            self._last = (error, classification, server)
        return self._last[1], self._last[2]

    def classify(self, error: BaseException) -> Classification:
        """The policy's classification of ``error``."""
        return self._judge(error)[0]

    def requested_wait(self, error: BaseException) -> float | None:
        """The server-directed wait of ``error`` if usable and respected, else ``None``."""
        return self._judge(error)[1]

    # -- tenacity strategies -------------------------------------------------------

    def before(self, _retry_state: _t.RetryCallState) -> None:
        """Wait until the scope admits an attempt, then count it."""
        scope = self._scope
        if scope is not None:
            for look in range(MAX_ADMISSIONS):
                admission = self._coordination.admit(scope, tokens=self._tokens)
                pause = self._admit(scope, admission, look)
                if not pause:
                    break
                self.sleep(pause)
                if self._recorder is not None:
                    break  # testing mode: the wait was skipped, so once is enough
        self._count_attempt()

    async def abefore(self, _retry_state: _t.RetryCallState) -> None:
        """:meth:`before` for the async controller."""
        scope = self._scope
        if scope is not None:
            for look in range(MAX_ADMISSIONS):
                admission = await self._coordination.aadmit(scope, tokens=self._tokens)
                pause = self._admit(scope, admission, look)
                if not pause:
                    break
                await self.async_sleep(pause)
                if self._recorder is not None:
                    break
        self._count_attempt()

    def _count_attempt(self) -> None:
        self.attempts += 1
        self._policy.stats.record_attempt()

    def _admit(self, scope: str, admission: Admission, look: int) -> float:
        """Seconds to wait before asking again, ``0.0`` to attempt now (maybe as the probe).

        The wait is the backend's (to the end of the cooldown it recorded) plus up to
        ``WAKE_JITTER`` of it, never past the deadline: callers that waited together wake
        at spread moments; the first to ask after the end probes, the others then find
        the probe's result (or wait for it) instead of all sending at once. The first
        wait before an attempt (``look`` 0) is told to the hooks as a
        :class:`~llm_retry.instrumentation.CooldownEvent`.

        Raises:
            RateLimitError: The wait would end after this call's deadline, so the
                attempt is not made (fail fast rather than wait and fail).
        """
        left = admission.wait
        if left <= 0:
            self._probe = admission.probe
            return 0.0
        elapsed = self.elapsed()
        if admission.refused is GiveUpReason.BREAKER_OPEN:
            detail = (
                f"the circuit breaker of scope {scope!r} is open; it lets a probe through "
                f"in {left:.2f}s"
            )
            self._stop = (GiveUpReason.BREAKER_OPEN, detail)
            raise ServerError(f"not attempted: {detail}", retry_after=left)
        if admission.refused is GiveUpReason.QUOTA_PARKED and left > self._policy.wait_for_reset:
            detail = (
                f"the quota of scope {scope!r} is spent; it resets in {left:.0f}s "
                f"(wait_for_reset={self._policy.wait_for_reset:g}s)"
            )
            self._stop = (GiveUpReason.QUOTA_PARKED, detail)
            raise QuotaExceededError(
                f"not attempted: {detail}", retry_after=left, resets_at=time.time() + left
            )
        if left > self._policy.deadline - elapsed:
            detail = (
                f"scope {scope!r} admits its next attempt in {left:.2f}s ({_why(admission)}), "
                f"after this call's deadline ({self._policy.deadline:g}s)"
            )
            self._stop = (GiveUpReason.COOLDOWN, detail)
            raise RateLimitError(f"not attempted: {detail}", retry_after=left)
        pause = min(left + _wake_jitter(left), self._policy.deadline - elapsed)
        if not look:
            dispatch(
                CooldownEvent(
                    target=self._target,
                    scope=scope,
                    attempt=self.attempts + 1,
                    sleep=pause,
                    elapsed=elapsed,
                )
            )
        return pause

    def retry(self, retry_state: _t.RetryCallState) -> bool:
        """Retry exactly the codes in ``retry_on``; share a server-directed cooldown."""
        error = failure(retry_state)
        if error is None:
            return False
        cooldown = self._cooldown_of(error)
        if cooldown is not None:
            self._coordination.extend_cooldown(cooldown[0], cooldown[1])
        if self._scope is not None and self._limited(error):
            self._coordination.record_limited(self._scope)
        if self._scope is not None and self._counts_against_breaker(error):
            self._coordination.record_outcome(self._scope, failed=True)
        spent = self._quota_reset_of(error)
        if spent is not None:
            self._coordination.park(spent[0], spent[1])
        if self._probe is not None and self._scope is not None:
            probe, self._probe = self._probe, None
            self._coordination.end_probe(self._scope, probe, lifted=False)
        return is_retryable(error, self._retry_on, self.classify)

    async def aretry(self, retry_state: _t.RetryCallState) -> bool:
        """:meth:`retry` for the async controller."""
        error = failure(retry_state)
        if error is None:
            return False
        cooldown = self._cooldown_of(error)
        if cooldown is not None:
            await self._coordination.aextend_cooldown(cooldown[0], cooldown[1])
        if self._scope is not None and self._limited(error):
            await self._coordination.arecord_limited(self._scope)
        if self._scope is not None and self._counts_against_breaker(error):
            await self._coordination.arecord_outcome(self._scope, failed=True)
        spent = self._quota_reset_of(error)
        if spent is not None:
            await self._coordination.apark(spent[0], spent[1])
        if self._probe is not None and self._scope is not None:
            probe, self._probe = self._probe, None
            await self._coordination.aend_probe(self._scope, probe, lifted=False)
        return is_retryable(error, self._retry_on, self.classify)

    def _quota_reset_of(self, error: BaseException) -> tuple[str, float] | None:
        """The scope and seconds to park it for: a spent quota whose reset the server stated."""
        if self._scope is None or not isinstance(error, Exception):
            return None
        classification, server = self._judge(error)
        if classification.code is not ErrorCode.QUOTA_EXCEEDED:
            return None
        now = time.time()
        daily = daily_reset_from_text(str(error), now=now)  # a per-day quota: to its reset
        if daily is not None:
            server = max(server or 0.0, daily - now)
        if not server:
            return None
        return self._scope, server

    def _limited(self, error: BaseException) -> bool:
        """Whether ``error`` is a rate limit (what a learned rate decreases on)."""
        return isinstance(error, Exception) and self.classify(error).code is ErrorCode.RATE_LIMIT

    def _counts_against_breaker(self, error: BaseException) -> bool:
        """Whether ``error`` is an outage's failure (a permanent one says nothing of health)."""
        return isinstance(error, Exception) and self.classify(error).code in BREAKER_CODES

    def _cooldown_of(self, error: BaseException) -> tuple[str, float] | None:
        """The scope and seconds of the cooldown ``error`` asks every caller to keep.

        A rate limit or an overload with a usable, respected, non-zero server-directed
        wait.
        """
        if self._scope is None or not isinstance(error, Exception):
            return None
        classification, server = self._judge(error)
        if not server or classification.code not in COOLDOWN_CODES:
            return None
        return self._scope, server

    def wait(self, retry_state: _t.RetryCallState) -> float:
        """The server-directed wait if usable, else the (jittered) backoff.

        Under a shared cooldown the next attempt's admission then waits out whatever is
        left of the cooldown as the backend recorded it.
        """
        server = self.requested_wait(require_failure(retry_state))
        return planned_wait(server, retry_state.attempt_number, self._policy)

    def stop(self, retry_state: _t.RetryCallState) -> bool:
        """Stop on attempts, a too-long Retry-After, the deadline, then the budget.

        Runs after :meth:`wait`, so the planned wait is known: a wait that would end
        after the deadline is never started. The budget is asked last, so a token is
        only spent on a retry that will really happen.
        """
        if self._limit_reached(retry_state):
            return True
        budget = self._policy.budget
        if budget is None:
            return False
        return self._refused(self._coordination.try_spend(self._budget_scope, budget))

    async def astop(self, retry_state: _t.RetryCallState) -> bool:
        """:meth:`stop` for the async controller."""
        if self._limit_reached(retry_state):
            return True
        budget = self._policy.budget
        if budget is None:
            return False
        return self._refused(await self._coordination.atry_spend(self._budget_scope, budget))

    @property
    def _budget_scope(self) -> str:
        """The scope whose bucket the budget's tokens come from."""
        return DEFAULT_SCOPE if self._scope is None else self._scope

    def _limit_reached(self, retry_state: _t.RetryCallState) -> bool:
        """The per-call checks of :meth:`stop` (everything but the budget)."""
        policy = self._policy
        sleep = retry_state.upcoming_sleep
        server = self.requested_wait(require_failure(retry_state))
        self._decided = elapsed = self.elapsed()
        if retry_state.attempt_number >= policy.max_attempts:
            self._stop = (GiveUpReason.MAX_ATTEMPTS, f"max_attempts={policy.max_attempts} reached")
        elif server is not None and server > policy.max_retry_after:
            self._stop = (
                GiveUpReason.RETRY_AFTER_TOO_LONG,
                (
                    f"the server asked to wait {server:g}s, "
                    f"above max_retry_after={policy.max_retry_after:g}s"
                ),
            )
        elif elapsed + sleep > policy.deadline:
            self._stop = (
                GiveUpReason.DEADLINE,
                (
                    f"the next wait of {sleep:.2f}s would end after the deadline "
                    f"({policy.deadline:g}s)"
                ),
            )
        else:
            return False
        return True

    def _refused(self, granted: bool) -> bool:
        """Stop (and say why) when the budget refused a token."""
        if granted:
            return False
        self._stop = (
            GiveUpReason.BUDGET_EXHAUSTED,
            (
                "the shared retry budget is exhausted (many calls are failing), "
                "so this one was not retried"
            ),
        )
        return True

    def before_sleep(self, retry_state: _t.RetryCallState) -> None:
        """Record the retry and tell the ``on_retry`` hook."""
        error = require_failure(retry_state)
        event = RetryEvent(
            target=self._target,
            attempt=retry_state.attempt_number,
            classification=self.classify(error),
            sleep=retry_state.upcoming_sleep,
            elapsed=self._decided,
            error=error,
            scope=self._scope or "",
        )
        self._policy.stats.record_retry(event.sleep)
        if self._recorder is not None:
            self._recorder.events.append(event)
        if self._policy.on_retry is not None:
            self._policy.on_retry(event)
        dispatch(event)

    def _instant(self, seconds: float) -> float:
        """In testing mode, record the wait and turn it into zero; else keep it."""
        self.waited += seconds
        if self._recorder is None:
            return seconds
        self._recorder.sleeps.append(seconds)
        self._skipped += seconds
        return 0.0

    def sleep(self, seconds: float) -> None:
        """Wait with the policy's ``sleep`` (for zero seconds in testing mode)."""
        self._policy.sleep(self._instant(seconds))

    async def async_sleep(self, seconds: float) -> None:
        """Wait with the policy's ``async_sleep`` (for zero seconds in testing mode).

        Sleeping zero rather than not at all still yields to the event loop, with
        whatever library the policy's ``async_sleep`` belongs to.
        """
        await self._policy.async_sleep(self._instant(seconds))

    # -- tenacity controllers ------------------------------------------------------

    def retrying(self) -> _t.Retrying:
        """A fresh tenacity controller for this call only."""
        return _t.Retrying(
            sleep=self.sleep, before=self.before, retry=self.retry, stop=self.stop, **self._common()
        )

    def async_retrying(self) -> _t.AsyncRetrying:
        """A fresh async tenacity controller for this call only."""
        return _t.AsyncRetrying(
            sleep=self.async_sleep,
            before=self.abefore,
            retry=self.aretry,
            # AsyncRetrying awaits a coroutine ``stop`` (tenacity >= 8.4.1 wraps every
            # strategy with ``wrap_to_async_func``); its annotation names sync ones only.
            stop=cast("_t.stop.StopBaseT", self.astop),
            **self._common(),
        )

    def _common(self) -> dict[str, Any]:
        """What both controllers share: the wait, the retry hook, re-raising."""
        return {"wait": self.wait, "before_sleep": self.before_sleep, "reraise": True}

    # -- outcomes ------------------------------------------------------------------

    def got_through(self) -> None:
        """The retryable phase succeeded: lift the cooldown it probed, refill the budget."""
        if self._scope is not None:
            self._coordination.record_outcome(self._scope, failed=False)
        if self._probe is not None and self._scope is not None:
            probe, self._probe = self._probe, None
            self._coordination.end_probe(self._scope, probe, lifted=True)
        budget = self._policy.budget
        if budget is not None:
            self._coordination.record_success(self._budget_scope, budget)

    async def agot_through(self) -> None:
        """:meth:`got_through` for async callers."""
        if self._scope is not None:
            await self._coordination.arecord_outcome(self._scope, failed=False)
        if self._probe is not None and self._scope is not None:
            probe, self._probe = self._probe, None
            await self._coordination.aend_probe(self._scope, probe, lifted=True)
        budget = self._policy.budget
        if budget is not None:
            await self._coordination.arecord_success(self._budget_scope, budget)

    def succeeded(self) -> None:
        """The call ended without an error."""
        self._policy.stats.record_success()

    def give_up(self, error: Exception, *, delivered: int | None = None) -> None:
        """Count the failure and attach a :class:`~llm_retry.RetryInfo` to ``error``."""
        code = self.classify(error).code
        if delivered:
            reason, detail = (
                GiveUpReason.STREAM_STARTED,
                (
                    f"the stream failed after {delivered} item(s) reached the caller; "
                    "a restart would duplicate them"
                ),
            )
        elif self._stop is not None:
            reason, detail = self._stop
        else:
            reason, detail = GiveUpReason.NOT_RETRYABLE, f"{code} is not retried by this policy"
        self._policy.stats.record_give_up(code, reason)
        info = RetryInfo(
            code=code,
            reason=reason,
            attempts=self.attempts,
            waited=self.waited,
            elapsed=self.elapsed(),
            detail=detail,
            items_delivered=delivered,
        )
        annotate(error, info)
        dispatch(
            GiveUpEvent.from_info(
                self._target, info, self.classify(error), error, scope=self._scope or ""
            )
        )


def _why(admission: Admission) -> str:
    """What a scope that admits nothing yet waits for, in words."""
    if admission.refused is GiveUpReason.QUOTA_PARKED:
        return "its quota's reset"
    return "a shared cooldown or its rate limit's refill"


def _wake_jitter(seconds: float) -> float:
    """Extra wait after a wait of ``seconds``: uniform in ``[0, WAKE_JITTER * seconds]``."""
    return random.uniform(0.0, WAKE_JITTER * seconds)  # noqa: S311 - jitter, not cryptography


class Attempt:
    """One attempt of a retried block; use it as ``with attempt:``.

    A failure inside the block is handed to the policy (retried, or raised when the
    policy stops); leaving the block normally ends the loop.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_call", "_manager")

    def __init__(self, manager: _t.AttemptManager, call: Call) -> None:
        self._manager = manager
        self._call = call

    @property
    def number(self) -> int:
        """This attempt's number, counting from 1."""
        return self._manager.retry_state.attempt_number

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        if exc is None:
            self._call.got_through()
            self._call.succeeded()
        return self._manager.__exit__(exc_type, exc, traceback)

    def __repr__(self) -> str:
        return f"<Attempt {self.number}>"


class Attempts:
    """The attempts of one retried block, for ``for`` or ``async for``.

    Returned by :meth:`RetryPolicy.attempts`.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_name", "_policy")

    def __init__(self, policy: RetrySettings, name: str) -> None:
        self._policy = policy
        self._name = name

    def __iter__(self) -> Iterator[Attempt]:
        return _SyncAttempts(Call(self._policy, self._name))

    def __aiter__(self) -> AsyncIterator[Attempt]:
        return _AsyncAttempts(Call(self._policy, self._name))


class _SyncAttempts:
    __slots__ = ("_call", "_managers")

    def __init__(self, call: Call) -> None:
        self._call = call
        self._managers = iter(call.retrying())

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> Attempt:
        try:
            manager = next(self._managers)
        except StopIteration:
            raise
        except Exception as error:
            self._call.give_up(error)
            raise
        return Attempt(manager, self._call)


class _AsyncAttempts:
    __slots__ = ("_call", "_managers")

    def __init__(self, call: Call) -> None:
        self._call = call
        self._managers = call.async_retrying().__aiter__()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Attempt:
        try:
            manager = await self._managers.__anext__()
        except StopAsyncIteration:
            raise
        except Exception as error:
            self._call.give_up(error)
            raise
        return Attempt(manager, self._call)


@dataclass(frozen=True, slots=True)
class _Exhausted(Generic[R]):
    """The stream ended before its first item (with this return value)."""

    value: R


def _open(
    fn: Callable[P, Generator[Y, S, R]], *args: P.args, **kwargs: P.kwargs
) -> tuple[Generator[Y, S, R], Y | _Exhausted[R]]:
    """Start the stream and take its first item: the part that may be retried."""
    stream = fn(*args, **kwargs)
    try:
        return stream, next(stream)
    except StopIteration as stop:
        return stream, _Exhausted(cast("R", stop.value))


async def _aopen(
    fn: Callable[P, AsyncGenerator[Y, S]], *args: P.args, **kwargs: P.kwargs
) -> tuple[AsyncGenerator[Y, S], Y | _Exhausted[None]]:
    """Start the async stream and take its first item: the part that may be retried."""
    stream = fn(*args, **kwargs)
    try:
        return stream, await anext(stream)
    except StopAsyncIteration:
        return stream, _Exhausted(None)


def retry_generator(
    policy: RetrySettings, fn: Callable[P, Generator[Y, S, R]], target: str
) -> Callable[P, Generator[Y, S, R]]:
    """Wrap a generator function: retried until the first item, delegated after."""

    @functools.wraps(fn)
    def retried(*args: P.args, **kwargs: P.kwargs) -> Generator[Y, S, R]:
        call = Call(policy, target, args, kwargs)
        try:
            opened: tuple[Generator[Y, S, R], Y | _Exhausted[R]]
            opened = call.retrying()(_open, fn, *args, **kwargs)
        except Exception as error:
            call.give_up(error, delivered=0)
            raise
        stream, head = opened
        call.got_through()
        if isinstance(head, _Exhausted):
            call.succeeded()
            return head.value
        item, delivered = head, 0
        try:
            while True:
                delivered += 1
                try:
                    sent = yield item
                except GeneratorExit:
                    stream.close()
                    call.succeeded()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - forwarded, as yield from does
                    item = stream.throw(thrown)
                else:
                    item = stream.send(sent)
        except StopIteration as stop:
            call.succeeded()
            value: R = stop.value
            return value
        except Exception as error:
            call.give_up(error, delivered=delivered)
            raise

    return retried


def retry_async_generator(
    policy: RetrySettings, fn: Callable[P, AsyncGenerator[Y, S]], target: str
) -> Callable[P, AsyncGenerator[Y, S]]:
    """Wrap an async generator function: retried until the first item, delegated after."""

    @functools.wraps(fn)
    async def retried(*args: P.args, **kwargs: P.kwargs) -> AsyncGenerator[Y, S]:
        call = Call(policy, target, args, kwargs)
        try:
            opened: Any = await call.async_retrying()(_aopen, fn, *args, **kwargs)
        except Exception as error:
            call.give_up(error, delivered=0)
            raise
        stream, head = cast("tuple[AsyncGenerator[Y, S], Y | _Exhausted[None]]", opened)
        await call.agot_through()
        if isinstance(head, _Exhausted):
            call.succeeded()
            return
        item, delivered = head, 0
        try:
            while True:
                delivered += 1
                try:
                    sent = yield item
                except GeneratorExit:
                    await stream.aclose()
                    call.succeeded()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - forwarded, as yield from does
                    item = await stream.athrow(thrown)
                else:
                    item = await stream.asend(sent)
        except StopAsyncIteration:
            call.succeeded()
        except Exception as error:
            call.give_up(error, delivered=delivered)
            raise

    return retried


def _is(predicate: Callable[[object], bool], fn: Callable[..., object]) -> bool:
    """``predicate`` holds for ``fn`` or, for a callable object, for its ``__call__``."""
    return predicate(fn) or predicate(type(fn).__call__)


def target_name(fn: object) -> str:
    """The name logs and events use for ``fn``: module and qualified name, never arguments."""
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else str(name)


def wrap(policy: RetrySettings, fn: Callable[P, T]) -> Callable[P, T]:
    """Retry ``fn`` under ``policy`` (see :meth:`RetryPolicy.wrap`)."""
    require_callable("the wrapped object", fn)
    target = target_name(fn)
    if _is(inspect.isasyncgenfunction, fn):
        return cast("Callable[P, T]", retry_async_generator(policy, cast("Any", fn), target))
    if _is(inspect.isgeneratorfunction, fn):
        return cast("Callable[P, T]", retry_generator(policy, cast("Any", fn), target))
    if _is(inspect.iscoroutinefunction, fn):
        return cast("Callable[P, T]", _retry_coroutine(policy, cast("Any", fn), target))
    return _retry_function(policy, fn, target)


def _retry_function(policy: RetrySettings, fn: Callable[P, T], target: str) -> Callable[P, T]:
    @functools.wraps(fn)
    def retried(*args: P.args, **kwargs: P.kwargs) -> T:
        call = Call(policy, target, args, kwargs)
        try:
            result = call.retrying()(fn, *args, **kwargs)
        except Exception as error:
            call.give_up(error)
            raise
        call.got_through()
        call.succeeded()
        return result

    return retried


def _retry_coroutine(
    policy: RetrySettings, fn: Callable[P, Coroutine[Any, Any, T]], target: str
) -> Callable[P, Coroutine[Any, Any, T]]:
    @functools.wraps(fn)
    async def retried(*args: P.args, **kwargs: P.kwargs) -> T:
        call = Call(policy, target, args, kwargs)
        try:
            result: T = await call.async_retrying()(fn, *args, **kwargs)
        except Exception as error:
            call.give_up(error)
            raise
        await call.agot_through()
        call.succeeded()
        return result

    return retried


class RetryPolicy(RetrySettings):
    """How to retry an LLM call: which failures, how often, how long, how fast.

    Defaults bound both the attempts and the total time, retry exactly the transient
    codes, and honour the server's ``Retry-After``. The rules:

    * Only failures whose classified code is in ``retry_on`` are retried; ``ABORTED``,
      ``asyncio.CancelledError``, ``KeyboardInterrupt`` and ``SystemExit`` never are,
      and nothing is ever swallowed: the last error is raised as it was, with a
      :class:`~llm_retry.RetryInfo` and a note attached.
    * A server-directed wait (``Retry-After``, ``retry-after-ms``) replaces the backoff;
      one above ``max_retry_after`` stops retrying at once.
    * A wait that would end after ``deadline`` is not started: the call fails now rather
      than sleep and then fail.
    * With a ``budget``, every retry spends a shared token; an empty budget stops
      retrying at once (see :class:`~llm_retry.RetryBudget`).
    * With a ``coordination`` backend, calls under one ``scope`` share a cooldown and
      the budget's tokens, across processes with Redis: a rate limit with a
      ``Retry-After`` seen by one call is waited out before every attempt of the others,
      first attempts included, and a call whose deadline ends first fails at once with
      a ``RateLimitError`` that says so.

    Attributes:
        max_attempts: Attempts in total, the first included (``1`` disables retries).
        deadline: Seconds the whole call may take, attempts and waits together;
            ``math.inf`` for none. Checked before each wait (an attempt in progress is
            not interrupted: give the SDK a timeout for that).
        initial_wait: Backoff ceiling after the first failure, in seconds.
        max_wait: Largest backoff ceiling, in seconds.
        multiplier: Growth of the ceiling per attempt (``1`` keeps it constant).
        jitter: Full jitter: wait uniformly in ``[0, ceiling]`` (AWS "full jitter").
            Without it the wait is the ceiling itself.
        retry_on: The codes to retry (default ``DEFAULT_RETRYABLE_CODES``): one
            ``ErrorCode``, a string of code names separated by commas and/or blanks in
            any case (``"RATE_LIMIT,SERVER"``), or any collection of codes and names
            (``["RATE_LIMIT", ErrorCode.SERVER]``); kept as a ``frozenset`` of
            ``ErrorCode``. An unknown name is a ``ValueError`` that names it and lists
            the codes.
        respect_retry_after: Use the server-directed wait when the error carries one.
        max_retry_after: Longest server-directed wait accepted, in seconds.
        wait_for_reset: Longest a call waits, in seconds, for the reset of a quota its
            scope's backend has parked (a spent quota with a stated reset, seen by any
            call of the scope) instead of failing at once with a ``QuotaExceededError``;
            for batch jobs. ``0`` (the default): fail at once. The deadline bounds it.
        classifier: Routes an exception to a code (default ``llm_errors.classify``).
        budget: A retry budget shared with other policies and calls, or ``None``. With
            ``coordination``, its capacity and refill size the scope's shared bucket.
        scope: What shares a cooldown and a budget under ``coordination``: a name such
            as ``"openai:gpt-4o"``, or a function of the wrapped call's arguments that
            returns one. ``None``: the first argument's ``llm_retry_scope`` attribute
            if it has one (the Mistral adapter's calls name ``mistral:<model id>``),
            else ``"default"``. A scope the call names (all but ``"default"``) is also
            its name in logs and events, with or without ``coordination``.
        coordination: Where cooldowns and budget tokens are shared:
            :class:`~llm_retry.InProcessCoordination` (this process) or
            :class:`llm_retry.redis.RedisCoordination` (a fleet). ``None``, the default,
            shares no cooldown and keeps the budget in the ``budget`` object.
        estimate_tokens: A function of the wrapped call's arguments that returns the
            tokens the call will count against its scope's token windows, as the
            provider counts them at admission (for OpenAI: the prompt's tokens plus
            ``max_tokens``; a quarter of the prompt's characters is a cheap estimate).
            Each attempt is paced by it under ``coordination``; ``None``: token windows
            hold only once they are nearly spent.
        on_retry: Called before each wait with a :class:`~llm_retry.RetryEvent`
            (default :func:`~llm_retry.log_retry`: one WARNING); ``None`` for silence.
        sleep: How a sync call waits.
        async_sleep: How an async call waits.
        clock: Monotonic seconds, for the deadline.
        stats: Counters of every call made through this policy (not an init field:
            ``dataclasses.replace`` gives the copy fresh counters).

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0
       ``retry_on`` takes any iterable of codes or code names.
    .. versionchanged:: 0.3.0
       ``retry_on`` takes one code, or one string of comma-separated code names;
       ``estimate_tokens``.
    """

    __slots__ = ()

    def wrap(self, fn: Callable[P, T]) -> Callable[P, T]:
        """Retry ``fn`` under this policy; works on every kind of callable.

        * sync and async functions: the whole call is retried;
        * sync and async generator functions: the stream is retried only while nothing
          has reached the caller (opening it, or failing before its first item). After
          the first item a failure propagates with the number of items delivered,
          because a restart would duplicate output the caller already has.

        The signature and return type are preserved for type checkers.

        .. versionadded:: 0.1.0
        """
        return wrap(self, fn)

    def attempts(self, *, name: str = "attempts()") -> Attempts:
        """Retry a block instead of a function, sync or async.

        ``name`` stands for the block in logs and events when the policy names no
        ``scope`` (a wrapped function's is its qualified name).

        Example::

            for attempt in policy.attempts():
                with attempt:
                    reply = client.chat(...)

            async for attempt in policy.attempts():
                with attempt:
                    reply = await client.chat(...)

        .. versionadded:: 0.1.0
        """
        return Attempts(self, name)


def retry_llm(policy: RetryPolicy | None = None) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Decorate a function, coroutine function or (async) generator function with retries.

    Example::

        @retry_llm(RetryPolicy(max_attempts=3))
        async def ask(prompt: str) -> str: ...

    ``retry_llm()`` uses a default :class:`RetryPolicy` of its own (own statistics).

    .. versionadded:: 0.1.0
    """
    if policy is None:
        policy = RetryPolicy()
    elif not isinstance(policy, RetryPolicy):
        raise TypeError(
            f"retry_llm() takes a RetryPolicy, got {type(policy).__name__}; "
            "write @retry_llm() or @retry_llm(policy)"
        )
    return policy.wrap
