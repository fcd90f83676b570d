"""The OpenTelemetry hook: a span event per retry and give-up, a retry counter, a wait histogram.

``opentelemetry`` is imported when the hook is built, never before (importing this
module costs nothing). Events go to the current span, whatever span the caller is in
(the Mistral adapter's call span, for its calls); with no SDK configured the API's
no-op span and meter make this free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from llm_retry._events import RetryEvent

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import Span

    from llm_retry._hooks import HookEvent

__all__ = ["OpenTelemetryOnRetryHook"]

#: The attribute naming the ``llm_errors`` rule that routed the failure: namespaced by
#: the library whose rule it is, as OpenTelemetry asks of attributes outside its registry.
RULE = "llm_errors.rule"
#: Bucket boundaries of the wait histogram, in seconds (waits run from 0 to minutes).
WAIT_BUCKETS = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)


class OpenTelemetryOnRetryHook:
    """Retries and give-ups into OpenTelemetry traces and metrics.

    Each retry adds a ``retry`` event to the current span (``error.type``,
    ``retry.attempt`` (1 for the first retry), ``retry.wait_s``, ``llm_errors.rule``),
    counts ``llm_retry.retries`` and records the wait in ``llm_retry.retry.wait``; a
    give-up adds ``retry.give_up`` (with ``retry.give_up.reason``) and counts
    ``llm_retry.give_ups``. Nothing from the call's arguments or the error's message.

    Args:
        meter_provider: Where the instruments come from; the global meter provider by
            default (the API's proxy, so a provider configured later is used too).

    .. versionadded:: 0.2.0
    """

    __slots__ = ("_current_span", "_give_ups", "_retries", "_waits")

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

    def __call__(self, event: HookEvent) -> None:
        span = self._current_span()
        code = event.classification.code.value
        if isinstance(event, RetryEvent):
            if span.is_recording():
                span.add_event(
                    "retry",
                    {
                        "error.type": code,
                        "retry.attempt": event.attempt,
                        "retry.wait_s": event.sleep,
                        RULE: event.classification.rule,
                    },
                )
            labels = {"error.type": code}
            self._retries.add(1, labels)
            self._waits.record(event.sleep, labels)
            return
        if span.is_recording():
            span.add_event(
                "retry.give_up",
                {
                    "error.type": event.code.value,
                    "retry.give_up.reason": event.reason.value,
                    "retry.attempts": event.attempts,
                    RULE: event.classification.rule,
                },
            )
        self._give_ups.add(
            1, {"error.type": event.code.value, "retry.give_up.reason": event.reason.value}
        )
