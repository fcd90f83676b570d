"""The OpenTelemetry hook: span events, counters and wait histograms for every hook event.

``opentelemetry`` is imported when the hook is built, never before (importing this
module costs nothing). Events go to the current span, whatever span the caller is in
(the Mistral adapter's call span, for its calls); with no SDK configured the API's
no-op span and meter make this free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from llm_retry._events import (
    BreakerEvent,
    CooldownEvent,
    CoordinationEvent,
    GiveUpEvent,
    RetryEvent,
)

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import Span

    from llm_retry._events import HookEvent

__all__ = ["OpenTelemetryOnRetryHook"]

#: The attribute naming the ``llm_errors`` rule that routed the failure: namespaced by
#: the library whose rule it is, as OpenTelemetry asks of attributes outside its registry.
RULE = "llm_errors.rule"
#: Bucket boundaries of the wait histogram, in seconds (waits run from 0 to minutes).
WAIT_BUCKETS = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)


class OpenTelemetryOnRetryHook:
    """Retries, give-ups, cooldown waits and coordination changes into OpenTelemetry.

    Each retry adds a ``retry`` event to the current span (``error.type``,
    ``retry.attempt`` (1 for the first retry), ``retry.wait_s``, ``llm_errors.rule``),
    counts ``llm_retry.retries`` and records the wait in ``llm_retry.retry.wait``; a
    give-up adds ``retry.give_up`` (with ``retry.give_up.reason``) and counts
    ``llm_retry.give_ups``; a wait for a scope's shared cooldown adds ``retry.cooldown``
    (``retry.scope``, ``retry.attempt``, ``retry.wait_s``) and records the wait in
    ``llm_retry.cooldown.wait``; a coordination store going away or coming back adds
    ``retry.coordination`` and counts ``llm_retry.coordination.changes``; a breaker's
    change adds ``retry.breaker`` (``retry.scope``, ``retry.breaker.state``,
    ``retry.breaker.open_s``) and counts ``llm_retry.breaker.changes``. Nothing from
    the call's arguments or the error's message.

    Args:
        meter_provider: Where the instruments come from; the global meter provider by
            default (the API's proxy, so a provider configured later is used too).

    .. versionadded:: 0.2.0
    .. versionchanged:: 0.3.0 Cooldown waits, coordination and breaker changes.
    """

    __slots__ = (
        "_breakers",
        "_changes",
        "_cooldowns",
        "_current_span",
        "_give_ups",
        "_retries",
        "_waits",
    )

    def __init__(self, *, meter_provider: MeterProvider | None = None) -> None:
        from opentelemetry import metrics, trace  # noqa: PLC0415 - optional, imported when used

        self._current_span: Callable[[], Span] = trace.get_current_span
        meter = metrics.get_meter("llm_retry", meter_provider=meter_provider)
        self._retries = meter.create_counter(
            "llm_retry.retries", unit="{retry}", description="Retries started, by error.type."
        )
        self._waits = meter.create_histogram(
            "llm_retry.retry.wait",
            unit="s",
            description="The wait before each retry.",
            explicit_bucket_boundaries_advisory=WAIT_BUCKETS,
        )
        self._give_ups = meter.create_counter(
            "llm_retry.give_ups",
            unit="{call}",
            description="Calls that stopped retrying and raised, by error.type and reason.",
        )
        self._cooldowns = meter.create_histogram(
            "llm_retry.cooldown.wait",
            unit="s",
            description="Waits for a scope's shared cooldown before an attempt, by retry.scope.",
            explicit_bucket_boundaries_advisory=WAIT_BUCKETS,
        )
        self._changes = meter.create_counter(
            "llm_retry.coordination.changes",
            unit="{change}",
            description="A coordination store going away or coming back, by backend and state.",
        )
        self._breakers = meter.create_counter(
            "llm_retry.breaker.changes",
            unit="{change}",
            description="A scope's circuit breaker opening, half-opening or closing.",
        )

    def __call__(self, event: HookEvent) -> None:
        span = self._current_span()
        recording = span.is_recording()
        match event:
            case RetryEvent(classification=c):
                if recording:
                    span.add_event(
                        "retry",
                        {
                            "error.type": c.code.value,
                            "retry.attempt": event.attempt,
                            "retry.wait_s": event.sleep,
                            RULE: c.rule,
                        },
                    )
                labels = {"error.type": c.code.value}
                self._retries.add(1, labels)
                self._waits.record(event.sleep, labels)
            case GiveUpEvent():
                reason = {
                    "error.type": event.code.value,
                    "retry.give_up.reason": event.reason.value,
                }
                if recording:
                    span.add_event(
                        "retry.give_up",
                        {
                            **reason,
                            "retry.attempts": event.attempts,
                            RULE: event.classification.rule,
                        },
                    )
                self._give_ups.add(1, reason)
            case CooldownEvent():
                if recording:
                    span.add_event(
                        "retry.cooldown",
                        {
                            "retry.scope": event.scope,
                            "retry.attempt": event.attempt,
                            "retry.wait_s": event.sleep,
                        },
                    )
                self._cooldowns.record(event.sleep, {"retry.scope": event.scope})
            case CoordinationEvent():
                change = {
                    "retry.coordination.backend": event.backend,
                    "retry.coordination.state": event.state,
                }
                if recording:
                    error = (
                        {} if event.error is None else {"error.type": type(event.error).__name__}
                    )
                    span.add_event("retry.coordination", {**change, **error})
                self._changes.add(1, change)
            case BreakerEvent():
                change = {"retry.scope": event.scope, "retry.breaker.state": event.state.value}
                if recording:
                    span.add_event(
                        "retry.breaker", {**change, "retry.breaker.open_s": event.open_for}
                    )
                self._breakers.add(1, change)
