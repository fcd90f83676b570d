"""The structlog hook: one structured event per retry and per give-up.

``structlog`` is imported when the hook is built, never before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llm_retry._events import RetryEvent

if TYPE_CHECKING:
    from llm_retry._hooks import HookEvent

__all__ = ["StructlogOnRetryHook"]


class StructlogOnRetryHook:
    """Retries as ``llm_retry.retry_scheduled`` warnings, give-ups as ``llm_retry.gave_up``.

    The fields are the codes, the rule and the timings, plus the error's type name;
    never the call's arguments or the error's message.

    Args:
        logger: The structlog logger to write to (``structlog.get_logger("llm_retry")``
            by default).

    .. versionadded:: 0.2.0
    """

    __slots__ = ("_logger",)

    def __init__(self, *, logger: Any = None) -> None:
        import structlog as _structlog  # noqa: PLC0415 - optional, imported when used

        self._logger = _structlog.get_logger("llm_retry") if logger is None else logger

    def __call__(self, event: HookEvent) -> None:
        c = event.classification
        if isinstance(event, RetryEvent):
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
            return
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
