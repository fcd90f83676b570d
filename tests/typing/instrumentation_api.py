"""Type-checked, never run: ``llm_retry.instrumentation`` from a user's point of view."""

from typing import assert_type

from prometheus_client import CollectorRegistry

from llm_retry import GiveUpReason, RetryEvent
from llm_retry.instrumentation import (
    CooldownEvent,
    CoordinationEvent,
    GiveUpEvent,
    HookEvent,
    LoggingOnRetryHook,
    OpenTelemetryOnRetryHook,
    PrometheusOnRetryHook,
    RetryHook,
    StructlogOnRetryHook,
    get_on_retry_hooks,
    reset_on_retry_hooks,
    set_on_retry_hooks,
)


def on_event(event: HookEvent) -> None:
    match event:
        case RetryEvent():
            assert_type(event.sleep, float)
        case GiveUpEvent():
            assert_type(event.reason, GiveUpReason)
        case CooldownEvent():
            assert_type(event.scope, str)
            assert_type(event.sleep, float)
        case CoordinationEvent():
            assert_type(event.available, bool)
            assert_type(event.state, str)
            assert_type(event.error, BaseException | None)


def on_retry_only(event: RetryEvent) -> None: ...


def on_retry_or_give_up(event: RetryEvent | GiveUpEvent) -> None: ...


hooks: list[RetryHook] = [
    on_event,
    print,
    LoggingOnRetryHook(),
    StructlogOnRetryHook(),
    PrometheusOnRetryHook(registry=CollectorRegistry()),
    OpenTelemetryOnRetryHook(),
]
with set_on_retry_hooks(hooks):
    assert_type(get_on_retry_hooks(), tuple[RetryHook, ...])
with reset_on_retry_hooks():
    pass
set_on_retry_hooks(None)
set_on_retry_hooks([on_retry_only])  # type: ignore[list-item]
set_on_retry_hooks([on_retry_or_give_up])  # type: ignore[list-item]
