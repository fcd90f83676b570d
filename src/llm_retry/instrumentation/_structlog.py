"""The structlog hook: one structured entry per hook event.

``structlog`` is imported when the hook is built, never before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llm_retry._breaker import BreakerState
from llm_retry._events import (
    BreakerEvent,
    CooldownEvent,
    CoordinationEvent,
    GiveUpEvent,
    RetryEvent,
)

if TYPE_CHECKING:
    from llm_retry._events import HookEvent

__all__ = ["StructlogOnRetryHook"]


class StructlogOnRetryHook:
    """Every hook event as one structured structlog entry.

    Retries are ``llm_retry.retry_scheduled`` warnings, give-ups ``llm_retry.gave_up``,
    waits for a shared cooldown ``llm_retry.cooldown_wait``, and a coordination store
    going away or coming back ``llm_retry.coordination_unavailable`` (a warning) and
    ``llm_retry.coordination_available``. The fields are the codes, the rule, the scope
    and the timings, plus the error's type name; never the call's arguments or the
    error's message.

    Args:
        logger: The structlog logger to write to (``structlog.get_logger("llm_retry")``
            by default).

    .. versionadded:: 0.2.0
    .. versionchanged:: 0.3.0 Cooldown waits and coordination changes.
    """

    __slots__ = ("_logger",)

    def __init__(self, *, logger: Any = None) -> None:
        import structlog as _structlog  # noqa: PLC0415 - optional, imported when used

        self._logger = _structlog.get_logger("llm_retry") if logger is None else logger

    def __call__(self, event: HookEvent) -> None:
        match event:
            case RetryEvent(classification=c):
                self._logger.warning(
                    "llm_retry.retry_scheduled",
                    target=event.target,
                    error_type=c.code.value,
                    rule=c.rule,
                    status=c.status,
                    attempt=event.attempt,
                    wait_s=event.sleep,
                    elapsed=event.elapsed,
                    error_class=type(event.error).__name__,
                )
            case GiveUpEvent(classification=c):
                self._logger.info(
                    "llm_retry.gave_up",
                    target=event.target,
                    error_type=event.code.value,
                    rule=c.rule,
                    reason=event.reason.value,
                    attempts=event.attempts,
                    elapsed=event.elapsed,
                    error_class=type(event.error).__name__,
                )
            case CooldownEvent():
                self._logger.info(
                    "llm_retry.cooldown_wait",
                    target=event.target,
                    scope=event.scope,
                    attempt=event.attempt,
                    wait_s=event.sleep,
                    elapsed=event.elapsed,
                )
            case BreakerEvent(state=BreakerState.OPEN):
                self._logger.warning(
                    "llm_retry.breaker", scope=event.scope, state="open", open_s=event.open_for
                )
            case BreakerEvent():
                self._logger.info("llm_retry.breaker", scope=event.scope, state=event.state.value)
            case CoordinationEvent(available=True):
                self._logger.info(
                    "llm_retry.coordination_available",
                    backend=event.backend,
                    down_s=event.down_for,
                    fallbacks=event.fallbacks,
                )
            case CoordinationEvent():
                self._logger.warning(
                    "llm_retry.coordination_unavailable",
                    backend=event.backend,
                    error_class=type(event.error).__name__,
                    fallbacks=event.fallbacks,
                )
