"""Fall back to another model, key or provider when the error says another one helps.

Every library with a fallback today switches on any exception; here the failed hop's
error is classified and a table of rules (data, one row per :class:`~llm_errors.ErrorCode`)
says which other hops can help: any open one after an outage or a rate limit, one with a
larger context window after an overflow, one with another key after a spent quota, none
after a bad request. :func:`decide` is that decision as a pure function; the four loops
below (function, coroutine, generator, async generator) only call hops, read the
coordination backends and sleep. A stream falls back only until its first item reaches
the caller, for the reason ``_stream`` retries only until then: a second hop would
repeat what the caller has.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import inspect
import logging
import math
import time
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Collection,
    Coroutine,
    Generator,
    Mapping,
    Sequence,
)
from dataclasses import KW_ONLY, dataclass, field
from types import MappingProxyType
from typing import Any, Final, Generic, ParamSpec, TypeAlias, TypeVar, cast

from llm_errors import ErrorCode, classify
from llm_retry._checks import require_callable, require_int, require_number, shown
from llm_retry._coordination import Coordination, FailOpen, check_scope
from llm_retry._core import target_name
from llm_retry._strategies import Classifier

__all__ = [
    "DEFAULT_FALLBACK_RULES",
    "DEFAULT_FALLBACK_WAIT",
    "Decision",
    "FallbackRule",
    "Hop",
    "Next",
    "Stop",
    "Wait",
    "decide",
    "fallback",
    "fallback_predicate",
]

P = ParamSpec("P")
T = TypeVar("T")
R = TypeVar("R")
Y = TypeVar("Y")
S = TypeVar("S")

logger = logging.getLogger("llm_retry")


class FallbackRule(enum.StrEnum):
    """Which other hops a failed hop's error lets the call go on to.

    The hops that fit are the untried ones the rule allows, in their order; the first
    whose scope is open is called next (see :func:`~llm_retry.fallback`).

    .. versionadded:: 0.3.0
    """

    NEXT = "next"
    """Any untried hop: the failure was the provider's or the network's, not the request's."""
    LARGER_WINDOW = "larger_window"
    """An untried hop whose stated ``context_window`` is larger than the failed hop's."""
    OTHER_KEY = "other_key"
    """An untried hop that states another ``provider`` or another ``key``."""
    OTHER_PROVIDER = "other_provider"
    """An untried hop that states another ``provider``."""
    STOP = "stop"
    """No other hop: the error is raised."""


#: The rule for each code; :func:`~llm_retry.fallback` takes a mapping that overrides
#: some rows. A code this table does not send on (an unknown ``PROVIDER_ERROR``
#: included) stops the call: another hop is tried only where the error says it helps.
#:
#: .. versionadded:: 0.3.0
DEFAULT_FALLBACK_RULES: Final[Mapping[ErrorCode, FallbackRule]] = MappingProxyType(
    {
        ErrorCode.RATE_LIMIT: FallbackRule.NEXT,
        ErrorCode.SERVER: FallbackRule.NEXT,
        ErrorCode.TIMEOUT: FallbackRule.NEXT,
        ErrorCode.TRANSPORT: FallbackRule.NEXT,
        ErrorCode.CONTEXT_OVERFLOW: FallbackRule.LARGER_WINDOW,
        ErrorCode.QUOTA_EXCEEDED: FallbackRule.OTHER_KEY,
        ErrorCode.AUTH: FallbackRule.OTHER_KEY,
        ErrorCode.CONTENT_FILTER: FallbackRule.STOP,  # opt in: OTHER_PROVIDER
        ErrorCode.INVALID_REQUEST: FallbackRule.STOP,
        ErrorCode.PROVIDER_ERROR: FallbackRule.STOP,
        ErrorCode.ABORTED: FallbackRule.STOP,
    }
)

#: Longest a fallback waits in all, in seconds, for a hop's scope to reopen when every
#: hop that fits is cooling down, broken or parked.
#:
#: .. versionadded:: 0.3.0
DEFAULT_FALLBACK_WAIT: Final = 30.0

#: The order in which the errors of an exhausted fallback are listed in its
#: ``ExceptionGroup``, most actionable first (what ``classify()`` of the group reads):
#: what no hop and no later retry can fix, then what a person must fix, then what
#: passes with time, then the unknown.
_ACTIONABLE: Final = (
    ErrorCode.ABORTED,
    ErrorCode.INVALID_REQUEST,
    ErrorCode.CONTEXT_OVERFLOW,
    ErrorCode.CONTENT_FILTER,
    ErrorCode.AUTH,
    ErrorCode.QUOTA_EXCEEDED,
    ErrorCode.RATE_LIMIT,
    ErrorCode.SERVER,
    ErrorCode.TIMEOUT,
    ErrorCode.TRANSPORT,
    ErrorCode.PROVIDER_ERROR,
)

#: Why a rule found no hop, by rule.
_NONE_FITS: Final[Mapping[FallbackRule, str]] = MappingProxyType(
    {
        FallbackRule.NEXT: "no untried hop is left",
        FallbackRule.LARGER_WINDOW: "no untried hop states a larger context_window",
        FallbackRule.OTHER_KEY: "no untried hop states another provider or key",
        FallbackRule.OTHER_PROVIDER: "no untried hop states another provider",
    }
)


@dataclass(frozen=True, slots=True)
class Hop(Generic[P, T]):
    """One call of a fallback, with what the rules need to know about it.

    Args:
        call: The function (sync, async, generator or async generator), possibly
            wrapped by :func:`~llm_retry.retry_llm`: the hop is left after its retries.
        name: How notes and logs name the hop (default: the call's qualified name).
        scope: The coordination scope the call runs under (``"mistral:large"``).
        coordination: The backend that holds ``scope``'s cooldown, breaker and parked
            quota; a hop whose scope is closed there is skipped while another fits.
        context_window: The model's context window, in tokens, as you state it.
        provider: Who serves the call (``"mistral"``).
        key: A name for the API key the call uses (``"team-b"``), never the key itself;
            left out of ``repr``.

    .. versionadded:: 0.3.0
    """

    call: Callable[P, T]
    _: KW_ONLY
    name: str | None = None
    scope: str | None = None
    coordination: Coordination | None = None
    context_window: int | None = None
    provider: str | None = None
    key: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        require_callable("a fallback hop", self.call)
        for label in ("name", "provider", "key"):
            _require_text(f"Hop.{label}", getattr(self, label))
        if self.scope is not None:
            check_scope(self.scope)
        if self.coordination is not None:
            if not isinstance(self.coordination, Coordination):
                raise TypeError(
                    "Hop.coordination must be a Coordination (InProcessCoordination, "
                    f"RedisCoordination) or None, got {type(self.coordination).__name__}"
                )
            if self.scope is None:
                raise ValueError("Hop.coordination needs Hop.scope: the scope to read there")
        if self.context_window is not None:
            require_int("Hop.context_window", self.context_window, minimum=1)

    @property
    def label(self) -> str:
        """The hop's name in notes and logs."""
        return self.name or target_name(self.call)


def _require_text(name: str, value: object) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise TypeError(f"{name} must be a non-empty str or None, got {shown(value)}")


# --- the decision: pure --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Next:
    """Call the hop at ``index``."""

    index: int


@dataclass(frozen=True, slots=True)
class Wait:
    """Every hop that fits is closed: wait ``seconds`` for the first to reopen, then decide."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Stop:
    """Raise: no hop helps, ``why`` says so (codes and numbers only)."""

    why: str


Decision: TypeAlias = Next | Wait | Stop


def _stated_differ(one: str | None, other: str | None) -> bool:
    """Both stated and different: an identity nobody stated never counts as another."""
    return one is not None and other is not None and one != other


def _any(_failed: Hop[..., object], _hop: Hop[..., object]) -> bool:
    return True


def _larger_window(failed: Hop[..., object], hop: Hop[..., object]) -> bool:
    return (
        failed.context_window is not None
        and hop.context_window is not None
        and hop.context_window > failed.context_window
    )


def _other_key(failed: Hop[..., object], hop: Hop[..., object]) -> bool:
    return _stated_differ(failed.provider, hop.provider) or _stated_differ(failed.key, hop.key)


def _other_provider(failed: Hop[..., object], hop: Hop[..., object]) -> bool:
    return _stated_differ(failed.provider, hop.provider)


#: Whether a hop fits a rule, given the hop that failed (``stop`` lets none through).
_FITS: Final[Mapping[FallbackRule, Callable[[Hop[..., object], Hop[..., object]], bool]]] = (
    MappingProxyType(
        {
            FallbackRule.NEXT: _any,
            FallbackRule.LARGER_WINDOW: _larger_window,
            FallbackRule.OTHER_KEY: _other_key,
            FallbackRule.OTHER_PROVIDER: _other_provider,
        }
    )
)


def decide(
    hops: Sequence[Hop[..., object]],
    *,
    rules: Mapping[ErrorCode, FallbackRule],
    failed: int,
    code: ErrorCode,
    tried: Collection[int],
    closed: Mapping[int, float],
    waited: float,
    max_wait: float,
    time_left: float,
) -> Decision:
    """What a fallback does after the hop at ``failed`` failed with ``code``.

    The hops that fit are the untried ones ``rules[code]`` allows, in order; the first
    whose scope is open (``closed`` seconds ``<= 0``, or absent) is next. If every one is
    closed, wait for the earliest to reopen, unless the waits would pass ``max_wait`` in
    all or the deadline (``time_left`` seconds from now).
    """
    rule = rules[code]
    if rule is FallbackRule.STOP:
        return Stop(f"rule {rule} for {code}")
    fits = _FITS[rule]
    fit = [i for i in range(len(hops)) if i not in tried and fits(hops[failed], hops[i])]
    if not fit:
        return Stop(f"{_NONE_FITS[rule]} (rule {rule} for {code})")
    if time_left <= 0:
        return Stop("the fallback's deadline has passed")
    for index in fit:
        if closed.get(index, 0.0) <= 0:
            return Next(index)
    soonest = min(closed[index] for index in fit)
    if waited + soonest > max_wait:
        return Stop(f"every hop that fits is closed for {soonest:.2f}s, past max_wait={max_wait:g}")
    if soonest > time_left:
        return Stop(f"every hop that fits is closed for {soonest:.2f}s, past the deadline")
    return Wait(soonest)


def _rule_table(rules: object) -> Mapping[ErrorCode, FallbackRule]:
    """The defaults with ``rules``' rows over them; a bad row is a ``TypeError``/``ValueError``."""
    if rules is None:
        return DEFAULT_FALLBACK_RULES
    if not isinstance(rules, Mapping):
        raise TypeError(f"rules must be a mapping of ErrorCode to FallbackRule, got {shown(rules)}")
    table = dict(DEFAULT_FALLBACK_RULES)
    for key, value in rules.items():
        code, rule = _member(ErrorCode, key, "code"), _member(FallbackRule, value, "rule")
        if code is ErrorCode.ABORTED and rule is not FallbackRule.STOP:
            raise ValueError("rules: ABORTED must stay 'stop': the caller cancelled the call")
        table[code] = rule
    return MappingProxyType(table)


#: A table's key or value type.
E = TypeVar("E", ErrorCode, FallbackRule)


def _member(kind: type[E], value: object, what: str) -> E:
    """``value`` as a member of ``kind``: a member, or its value in any case."""
    if isinstance(value, kind):
        return value
    if isinstance(value, str):
        text = value.strip()
        for member in kind:
            if member.value.lower() == text.lower():
                return member
        valid = ", ".join(member.value for member in kind)
        raise ValueError(f"rules: unknown {what} {shown(value)}; expected one of {valid}")
    raise TypeError(f"rules: a {what} must be a {kind.__name__} or its name, got {shown(value)}")


# --- one call through the hops: what happened, and what to raise ------------------------


@dataclass(frozen=True, slots=True)
class _FallbackPlan:
    """A fallback's settings, checked once at decoration."""

    hops: tuple[Hop[..., Any], ...]
    rules: Mapping[ErrorCode, FallbackRule]
    max_wait: float
    deadline: float
    classifier: Classifier
    sleep: Callable[[float], object]
    async_sleep: Callable[[float], Awaitable[object]]
    clock: Callable[[], float]


class _Run:
    """One call through a plan: the failures so far, the time waited, the next step."""

    __slots__ = ("failures", "plan", "started", "waited")

    def __init__(self, plan: _FallbackPlan) -> None:
        self.plan = plan
        self.started = plan.clock()
        self.waited = 0.0
        self.failures: list[tuple[int, Exception, ErrorCode]] = []

    def failed(self, index: int, error: Exception) -> None:
        self.failures.append((index, error, self.plan.classifier(error).code))

    def untried(self) -> list[int]:
        tried = {index for index, _, _ in self.failures}
        return [i for i in range(len(self.plan.hops)) if i not in tried]

    def decide(self, closed: Mapping[int, float]) -> Decision:
        plan = self.plan
        index, _, code = self.failures[-1]
        return decide(
            plan.hops,
            rules=plan.rules,
            failed=index,
            code=code,
            tried={i for i, _, _ in self.failures},
            closed=closed,
            waited=self.waited,
            max_wait=plan.max_wait,
            time_left=plan.deadline - (plan.clock() - self.started),
        )

    def go(self, index: int) -> int:
        """Note on the failed hop's error where the call goes next, and log it."""
        failed, error, code = self.failures[-1]
        hops = self.plan.hops
        _note(
            error,
            f"llm_retry: fallback hop {failed + 1} of {len(hops)} ({hops[failed].label}) "
            f"failed with {code}; falling back to hop {index + 1} ({hops[index].label})",
        )
        logger.warning(
            "falling back from %s to %s: %s (%s)",
            hops[failed].label,
            hops[index].label,
            code.value,
            type(error).__name__,
            extra={"code": code.value, "hop": index + 1, "target": hops[index].label},
        )
        return index

    def stopped(self, decision: Stop) -> Exception:
        """What the call raises: the one error as it was, or a group of them all."""
        failed, error, code = self.failures[-1]
        hops = self.plan.hops
        _note(
            error,
            f"llm_retry: fallback hop {failed + 1} of {len(hops)} ({hops[failed].label}) "
            f"failed with {code}; stopped: {decision.why}",
        )
        if len(self.failures) == 1:
            return error
        tried = ", ".join(f"hop {i + 1} {hops[i].label}: {c}" for i, _, c in self.failures)
        ranked = sorted(self.failures, key=lambda failure: _ACTIONABLE.index(failure[2]))
        return ExceptionGroup(
            f"fallback: {len(self.failures)} of {len(hops)} hops failed ({tried}); {decision.why}",
            [failure[1] for failure in ranked],
        )


def _note(error: BaseException, text: str) -> None:
    """Add ``text`` to ``error``'s notes, unless its type refuses them."""
    with contextlib.suppress(AttributeError, TypeError):
        error.add_note(text)


def _closed(hop: Hop[..., object]) -> float:
    if hop.coordination is None or hop.scope is None:
        return 0.0
    return FailOpen(hop.coordination).closed(hop.scope)


async def _aclosed(hop: Hop[..., object]) -> float:
    if hop.coordination is None or hop.scope is None:
        return 0.0
    return await FailOpen(hop.coordination).aclosed(hop.scope)


def _next_hop(run: _Run) -> int:
    """The next hop's index after a failure, waiting if need be; raises when none helps."""
    hops = run.plan.hops
    while True:
        decision = run.decide({i: _closed(hops[i]) for i in run.untried()})
        if isinstance(decision, Stop):
            raise run.stopped(decision)
        if isinstance(decision, Next):
            return run.go(decision.index)
        run.plan.sleep(decision.seconds)
        run.waited += decision.seconds


async def _anext_hop(run: _Run) -> int:
    """:func:`_next_hop` for async callers."""
    hops = run.plan.hops
    while True:
        decision = run.decide({i: await _aclosed(hops[i]) for i in run.untried()})
        if isinstance(decision, Stop):
            raise run.stopped(decision)
        if isinstance(decision, Next):
            return run.go(decision.index)
        await run.plan.async_sleep(decision.seconds)
        run.waited += decision.seconds


def _call_hops(plan: _FallbackPlan, attempt: Callable[[Hop[..., Any]], R]) -> R:
    """``attempt`` on the first hop, then on each hop the rules send the call to."""
    run, index = _Run(plan), 0
    while True:
        try:
            return attempt(plan.hops[index])
        except Exception as error:  # noqa: BLE001 - classified, then raised or recorded
            run.failed(index, error)
        index = _next_hop(run)


async def _acall_hops(plan: _FallbackPlan, attempt: Callable[[Hop[..., Any]], Awaitable[R]]) -> R:
    """:func:`_call_hops` for async callers."""
    run, index = _Run(plan), 0
    while True:
        try:
            return await attempt(plan.hops[index])
        except Exception as error:  # noqa: BLE001 - classified, then raised or recorded
            run.failed(index, error)
        index = await _anext_hop(run)


# --- the four kinds of call ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ended(Generic[R]):
    """A stream that ended before its first item, with this return value."""

    value: R


def _open(
    stream: Generator[Y, S, R],
) -> tuple[Generator[Y, S, R], Y | _Ended[R]]:
    """Take a stream's first item: the part a fallback may redo elsewhere."""
    try:
        return stream, next(stream)
    except StopIteration as stop:
        return stream, _Ended(cast("R", stop.value))


async def _aopen(stream: AsyncGenerator[Y, S]) -> tuple[AsyncGenerator[Y, S], Y | _Ended[None]]:
    """:func:`_open` for async streams."""
    try:
        return stream, await anext(stream)
    except StopAsyncIteration:
        return stream, _Ended(None)


def _function(plan: _FallbackPlan) -> Callable[..., object]:
    def fell_back(*args: object, **kwargs: object) -> object:
        return _call_hops(plan, lambda hop: hop.call(*args, **kwargs))

    return fell_back


def _coroutine(plan: _FallbackPlan) -> Callable[..., Coroutine[Any, Any, object]]:
    async def fell_back(*args: object, **kwargs: object) -> object:
        return await _acall_hops(plan, lambda hop: hop.call(*args, **kwargs))

    return fell_back


def _generator(plan: _FallbackPlan) -> Callable[..., Generator[object, object, object]]:
    def fell_back(*args: object, **kwargs: object) -> Generator[object, object, object]:
        stream, item = _call_hops(plan, lambda hop: _open(hop.call(*args, **kwargs)))
        if isinstance(item, _Ended):
            return item.value
        # Output reached the caller: from here an error propagates as it is.
        try:
            while True:
                try:
                    sent = yield item
                except GeneratorExit:
                    stream.close()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - forwarded, as yield from does
                    item = stream.throw(thrown)
                else:
                    item = stream.send(sent)
        except StopIteration as stop:
            return stop.value

    return fell_back


def _async_generator(plan: _FallbackPlan) -> Callable[..., AsyncGenerator[object, object]]:
    async def fell_back(*args: object, **kwargs: object) -> AsyncGenerator[object, object]:
        stream, item = await _acall_hops(plan, lambda hop: _aopen(hop.call(*args, **kwargs)))
        if isinstance(item, _Ended):
            return
        # Output reached the caller: from here an error propagates as it is.
        try:
            while True:
                try:
                    sent = yield item
                except GeneratorExit:
                    await stream.aclose()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - forwarded, as yield from does
                    item = await stream.athrow(thrown)
                else:
                    item = await stream.asend(sent)
        except StopAsyncIteration:
            return

    return fell_back


#: Each kind of call: how it is recognised, how it is named in errors, its loop.
_KINDS: Final = (
    (inspect.isasyncgenfunction, "an async generator function", _async_generator),
    (inspect.isgeneratorfunction, "a generator function", _generator),
    (inspect.iscoroutinefunction, "a coroutine function", _coroutine),
)


def _kind(fn: Callable[..., object]) -> str:
    """What ``fn`` is (or, for a callable object, its ``__call__``), as ``_KINDS`` names it."""
    for predicate, kind, _ in _KINDS:
        if predicate(fn) or predicate(type(fn).__call__):
            return kind
    return "a function"


def fallback(
    *hops: Callable[P, T] | Hop[P, T],
    rules: Mapping[ErrorCode, FallbackRule] | Mapping[str, str] | None = None,
    max_wait: float = DEFAULT_FALLBACK_WAIT,
    deadline: float = math.inf,
    classifier: Classifier = classify,
    sleep: Callable[[float], object] = time.sleep,
    async_sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[P, T]:
    """One call that tries ``hops`` in order, going on only where the error says it helps.

    The first hop is called with the call's arguments. When it raises (after its own
    retries, if it is wrapped by :func:`~llm_retry.retry_llm`), the error is classified
    and ``rules[code]`` names the hops that can help (:data:`DEFAULT_FALLBACK_RULES`);
    the first untried one of them whose scope is open is called next with the same
    arguments. If all of them are closed (cooling down, breaker open, quota parked),
    the call waits for the earliest to reopen, ``max_wait`` seconds in all at most and
    never past ``deadline``. Each hop is tried at most once.

    * A stream (generator hops) falls back only until its first item: after that an
      error propagates as it is, since another hop would repeat what the caller has.
    * When the rules stop the call after one hop, its error is raised as it was (with a
      note); after two or more, an ``ExceptionGroup`` of their errors, most actionable
      first (what ``llm_errors.classify`` of the group reads), the message listing the
      hops in the order they were tried.
    * ``asyncio.CancelledError`` and other ``BaseException`` propagate at once.

    Args:
        hops: Functions of one kind (all sync, all async, all generators or all async
            generators), each bare or as a :class:`Hop` stating what the rules read.
        rules: Rows that replace :data:`DEFAULT_FALLBACK_RULES`' for their codes
            (codes and rules, or their names).
        max_wait: Longest the call waits in all for a closed hop, in seconds.
        deadline: Seconds the whole call may take; checked before each hop and wait.
        classifier: Routes an error to its code (default ``llm_errors.classify``).
        sleep: How a sync call waits.
        async_sleep: How an async call waits.
        clock: Monotonic seconds, for the deadline.

    Raises:
        TypeError: No hops, a hop that is not callable, or hops of different kinds.
        ValueError: A bad rule table or setting.

    .. versionadded:: 0.3.0
    """
    if not hops:
        raise TypeError("fallback() takes at least one hop")
    steps = tuple(hop if isinstance(hop, Hop) else Hop(hop) for hop in hops)
    kinds = [_kind(hop.call) for hop in steps]
    if len(set(kinds)) > 1:
        described = ", ".join(f"hop {i + 1} is {kind}" for i, kind in enumerate(kinds))
        raise TypeError(f"fallback() hops must all be of one kind: {described}")
    require_number("max_wait", max_wait)
    require_number("deadline", deadline, strict=True, finite=False)
    for name, value in (("classifier", classifier), ("sleep", sleep), ("clock", clock)):
        require_callable(name, value)
    require_callable("async_sleep", async_sleep)
    plan = _FallbackPlan(
        steps, _rule_table(rules), max_wait, deadline, classifier, sleep, async_sleep, clock
    )
    loop = next((make for _, kind, make in _KINDS if kind == kinds[0]), _function)
    fell_back = loop(plan)
    fell_back.__qualname__ = fell_back.__name__ = (
        f"fallback({', '.join(hop.name or _short_name(hop.call) for hop in steps)})"
    )
    fell_back.__module__ = getattr(steps[0].call, "__module__", None) or __name__
    return cast("Callable[P, T]", fell_back)


def _short_name(fn: object) -> str:
    return str(getattr(fn, "__qualname__", None) or type(fn).__qualname__)


def fallback_predicate(
    rules: Mapping[ErrorCode, FallbackRule] | Mapping[str, str] | None = None,
    *,
    classifier: Classifier = classify,
) -> Callable[[BaseException], bool]:
    """A "should fall back" test for other libraries' hooks: the code's rule is not ``stop``.

    For pydantic-ai ``FallbackModel(..., fallback_on=fallback_predicate())`` and
    tenacity ``retry=tenacity.retry_if_exception(fallback_predicate())``. Those hooks
    see the error only, so the rules that read the hops (a larger window, another key or
    provider, an open scope) count as "yes": the library picks its next model itself.

    .. versionadded:: 0.3.0
    """
    table = _rule_table(rules)
    require_callable("classifier", classifier)

    def should_fall_back(error: BaseException) -> bool:
        return table[classifier(error).code] is not FallbackRule.STOP

    return should_fall_back
