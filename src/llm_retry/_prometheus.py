"""The Prometheus hook: retry and give-up counters and a wait histogram, per error type and scope.

``prometheus_client`` is imported when the hook is built, never before.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from llm_retry._events import RetryEvent

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry, Counter, Histogram

    from llm_retry._hooks import HookEvent

__all__ = ["PrometheusOnRetryHook"]

#: Bucket boundaries of the wait histogram, in seconds.
WAIT_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)

# One set of metrics per registry: registering the same names twice is an error there.
_METRICS: weakref.WeakKeyDictionary[CollectorRegistry, tuple[Counter, Histogram, Counter]] = (
    weakref.WeakKeyDictionary()
)


def _scope(event: HookEvent) -> str:
    """The event's coordination scope (empty without a coordination backend)."""
    return event.scope


class PrometheusOnRetryHook:
    """Retries and give-ups as Prometheus metrics.

    ``llm_retry_retries_total`` and ``llm_retry_retry_wait_seconds`` (labels
    ``error_type``, ``scope``), ``llm_retry_give_ups_total`` (labels ``error_type``,
    ``reason``, ``scope``). ``scope`` names a shared retry coordination scope, and is
    empty for calls that have none.

    Args:
        registry: Where the metrics are registered (``prometheus_client.REGISTRY`` by
            default); hooks on the same registry share them.

    .. versionadded:: 0.2.0
    """

    __slots__ = ("_give_ups", "_retries", "_waits")

    def __init__(self, *, registry: CollectorRegistry | None = None) -> None:
        import prometheus_client as _prom  # noqa: PLC0415 - optional, imported when used

        chosen = _prom.REGISTRY if registry is None else registry
        found = _METRICS.get(chosen)
        if found is None:
            found = (
                _prom.Counter(
                    "llm_retry_retries",
                    "Retries started.",
                    ["error_type", "scope"],
                    registry=chosen,
                ),
                _prom.Histogram(
                    "llm_retry_retry_wait_seconds",
                    "The wait before each retry.",
                    ["error_type", "scope"],
                    buckets=WAIT_BUCKETS,
                    registry=chosen,
                ),
                _prom.Counter(
                    "llm_retry_give_ups",
                    "Calls that stopped retrying and raised.",
                    ["error_type", "reason", "scope"],
                    registry=chosen,
                ),
            )
            _METRICS[chosen] = found
        self._retries, self._waits, self._give_ups = found

    def __call__(self, event: HookEvent) -> None:
        scope = _scope(event)
        if isinstance(event, RetryEvent):
            code = event.classification.code.value
            self._retries.labels(code, scope).inc()
            self._waits.labels(code, scope).observe(event.sleep)
            return
        self._give_ups.labels(event.code.value, event.reason.value, scope).inc()
