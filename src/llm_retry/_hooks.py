"""The global on-retry hooks: which are active, and how an event reaches them.

The policy's own ``on_retry`` stays per policy; these hooks are process-wide, as in
stamina's ``stamina.instrumentation``, so a tracing or metrics backend is plugged in once
for every call. The default is resolved on the first dispatch, not at import: the
OpenTelemetry hook if ``opentelemetry-api`` is installed (found with
``importlib.util.find_spec``, nothing imported when it is absent), otherwise none.
Logging is not a default here, because the policy's ``on_retry`` already logs.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TypeAlias

from llm_errors import Classification, ErrorCode
from llm_retry._events import GiveUpReason, RetryEvent, RetryInfo, log_retry

__all__ = [
    "GiveUpEvent",
    "HookEvent",
    "LoggingOnRetryHook",
    "RestoreHooks",
    "RetryHook",
    "dispatch",
    "get_on_retry_hooks",
    "reset_on_retry_hooks",
    "set_on_retry_hooks",
]

logger = logging.getLogger("llm_retry")


@dataclass(frozen=True, slots=True)
class GiveUpEvent:
    """A call that stopped retrying and is about to raise its error, as passed to hooks.

    Attributes:
        target: The wrapped callable's qualified name (never its arguments).
        code: The classified code of the raised error.
        reason: Why retrying stopped.
        attempts: Attempts made, counting the failed one.
        elapsed: Seconds from the call's start to the give-up.
        classification: How the last failure was routed.
        error: The exception; kept out of ``repr`` so logging an event cannot leak it.
        scope: The coordination scope the call shared state under (``""`` without one).

    .. versionadded:: 0.2.0
    """

    target: str
    code: ErrorCode
    reason: GiveUpReason
    attempts: int
    elapsed: float
    classification: Classification
    error: BaseException = field(repr=False, compare=False)
    scope: str = ""

    @classmethod
    def from_info(
        cls,
        target: str,
        info: RetryInfo,
        classification: Classification,
        error: BaseException,
        scope: str = "",
    ) -> GiveUpEvent:
        """The event for the :class:`~llm_retry.RetryInfo` attached to ``error``."""
        return cls(
            target=target,
            code=info.code,
            reason=info.reason,
            attempts=info.attempts,
            elapsed=info.elapsed,
            classification=classification,
            error=error,
            scope=scope,
        )


#: What a hook receives: a retry about to happen, or the give-up.
HookEvent: TypeAlias = RetryEvent | GiveUpEvent
#: A global hook: any callable of a :data:`HookEvent` (its result is ignored).
RetryHook: TypeAlias = Callable[[HookEvent], object]


class LoggingOnRetryHook:
    """Stdlib logging: the policy's WARNING line per retry, and an INFO line per give-up.

    Not active by default (the policy's ``on_retry=log_retry`` already writes the
    WARNING); use it with ``RetryPolicy(on_retry=None)`` to log from one place.

    .. versionadded:: 0.2.0
    """

    __slots__ = ()

    def __call__(self, event: HookEvent) -> None:
        if isinstance(event, RetryEvent):
            log_retry(event)
            return
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
    from llm_retry._otel import OpenTelemetryOnRetryHook  # noqa: PLC0415 - lazy on purpose

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
