"""The global on-retry hooks: which are active, and how an event reaches them.

The policy's own ``on_retry`` stays per policy; these hooks are process-wide, as in
stamina's ``stamina.instrumentation``, so a tracing or metrics backend is plugged in once
for every call. They receive one type, :data:`HookEvent`: a retry about to happen, a
give-up, a wait for a scope's shared cooldown, or a coordination store going away or
coming back. The default is resolved on the first dispatch, not at import: the
OpenTelemetry hook if ``opentelemetry-api`` is installed (found with
``importlib.util.find_spec``, nothing imported when it is absent), otherwise none.
Logging is not a default here, because the policy's ``on_retry`` already logs.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import TypeAlias

from llm_retry._breaker import BreakerState
from llm_retry._events import (
    BreakerEvent,
    CooldownEvent,
    CoordinationEvent,
    GiveUpEvent,
    HookEvent,
    RetryEvent,
    log_retry,
)

__all__ = [
    "LoggingOnRetryHook",
    "RestoreHooks",
    "RetryHook",
    "dispatch",
    "get_on_retry_hooks",
    "reset_on_retry_hooks",
    "set_on_retry_hooks",
]

logger = logging.getLogger("llm_retry")


#: A global hook: any callable of a :data:`HookEvent` (its result is ignored).
RetryHook: TypeAlias = Callable[[HookEvent], object]


class LoggingOnRetryHook:
    """Stdlib logging: the policy's WARNING per retry, an INFO line per give-up and cooldown wait.

    Not active by default (the policy's ``on_retry=log_retry`` already writes the
    WARNING); use it with ``RetryPolicy(on_retry=None)`` to log from one place. A
    :class:`CoordinationEvent` is not logged again here: the backend that sends it logs
    it itself.

    .. versionadded:: 0.2.0
    .. versionchanged:: 0.3.0 An INFO line per :class:`CooldownEvent`, a WARNING when a
       breaker opens and an INFO line when it lets its probe through or closes.
    """

    __slots__ = ()

    def __call__(self, event: HookEvent) -> None:
        match event:
            case RetryEvent():
                log_retry(event)
            case GiveUpEvent():
                _log_give_up(event)
            case CooldownEvent():
                _log_cooldown(event)
            case BreakerEvent():
                _log_breaker(event)
            case CoordinationEvent():
                pass


def _log_breaker(event: BreakerEvent) -> None:
    """A WARNING when a scope's breaker opens, an INFO line when it half-opens or closes."""
    extra = {"scope": event.scope, "breaker": str(event.state)}
    if event.state is BreakerState.OPEN:
        logger.warning(
            "circuit breaker of %s open for %.1fs: its calls fail at once until a probe",
            event.scope,
            event.open_for,
            extra=extra,
        )
    else:
        logger.info(
            "circuit breaker of %s %s", event.scope, event.state.replace("_", "-"), extra=extra
        )


def _log_cooldown(event: CooldownEvent) -> None:
    """The INFO line of a wait for a shared cooldown (the call's name once if it is the scope)."""
    of = "" if event.target == event.scope else f" of {event.target}"
    logger.info(
        "waiting %.2fs for the shared cooldown of %s before attempt %d%s",
        event.sleep,
        event.scope,
        event.attempt,
        of,
        extra={
            "scope": event.scope,
            "attempt": event.attempt,
            "sleep": event.sleep,
            "elapsed": event.elapsed,
            "target": event.target,
        },
    )


def _log_give_up(event: GiveUpEvent) -> None:
    """The INFO line of a give-up."""
    logger.info(
        "gave up on %s: %s after %d attempt(s) in %.2fs (%s)",
        event.target,
        event.code.value,
        event.attempts,
        event.elapsed,
        event.reason.value,
        extra={
            "code": event.code.value,
            "rule": event.classification.rule,
            "reason": event.reason.value,
            "attempts": event.attempts,
            "elapsed": event.elapsed,
            "target": event.target,
        },
    )


_active: tuple[RetryHook, ...] | None = None  # None: the default, resolved on first use


def _default_hooks() -> tuple[RetryHook, ...]:
    """The OpenTelemetry hook when ``opentelemetry-api`` is installed, else none."""
    try:
        found = importlib.util.find_spec("opentelemetry.trace") is not None
    except ImportError:  # the namespace package is missing (or an import hook refuses it)
        found = False
    if not found:
        return ()
    from llm_retry.instrumentation._otel import OpenTelemetryOnRetryHook  # noqa: PLC0415 - lazy on purpose

    return (OpenTelemetryOnRetryHook(),)


def get_on_retry_hooks() -> tuple[RetryHook, ...]:
    """The active global hooks (resolving the default on first use).

    .. versionadded:: 0.2.0
    """
    global _active  # noqa: PLW0603 - the one process-wide registry
    hooks = _active
    if hooks is None:
        hooks = _active = _default_hooks()
    return hooks


class RestoreHooks:
    """Returned by :func:`set_on_retry_hooks`: a ``with`` block restores the hooks before it."""

    __slots__ = ("_previous",)

    def __init__(self, previous: tuple[RetryHook, ...] | None) -> None:
        self._previous = previous

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        global _active  # noqa: PLW0603 - the one process-wide registry
        _active = self._previous


def set_on_retry_hooks(hooks: Iterable[RetryHook] | None) -> RestoreHooks:
    """Make ``hooks`` the global hooks; ``None`` goes back to the default, ``()`` to none.

    Usable as a context manager (``with set_on_retry_hooks([hook]): ...``), which puts
    the previous hooks back at the end: handy in tests.

    .. versionadded:: 0.2.0
    """
    global _active  # noqa: PLW0603 - the one process-wide registry
    previous = _active
    if hooks is None:
        _active = None
    else:
        chosen = tuple(hooks)
        for hook in chosen:
            if not callable(hook):
                raise TypeError(f"a retry hook must be callable, got {type(hook).__name__}")
        _active = chosen
    return RestoreHooks(previous)


def reset_on_retry_hooks() -> RestoreHooks:
    """Go back to the default hooks (resolved again on the next dispatch).

    .. versionadded:: 0.2.0
    """
    return set_on_retry_hooks(None)


def dispatch(event: HookEvent) -> None:
    """Hand ``event`` to every active hook; a hook that raises is logged and skipped."""
    for hook in get_on_retry_hooks():
        try:
            hook(event)
        except Exception:
            logger.exception("llm_retry: the retry hook %r raised; the call goes on", hook)
