"""The Prometheus hook: counters and wait histograms for every hook event.

``prometheus_client`` is imported when the hook is built, never before.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, NamedTuple

from llm_retry._breaker import BreakerState
from llm_retry._events import (
    BreakerEvent,
    CooldownEvent,
    CoordinationEvent,
    GiveUpEvent,
    RetryEvent,
)

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

    from llm_retry._events import HookEvent

__all__ = ["PrometheusOnRetryHook"]

#: Bucket boundaries of the wait histogram, in seconds.
WAIT_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0)


#: The breaker gauge's value of each state.
_GAUGE = {BreakerState.CLOSED: 0, BreakerState.HALF_OPEN: 1, BreakerState.OPEN: 2}


class _Metrics(NamedTuple):
    """The metrics of one registry."""

    retries: Counter
    waits: Histogram
    give_ups: Counter
    cooldowns: Histogram
    changes: Counter
    breakers: Gauge


# One set of metrics per registry: registering the same names twice is an error there.
_METRICS: weakref.WeakKeyDictionary[CollectorRegistry, _Metrics] = weakref.WeakKeyDictionary()


class PrometheusOnRetryHook:
    """Retries, give-ups, cooldown waits and coordination changes as Prometheus metrics.

    ``llm_retry_retries_total`` and ``llm_retry_retry_wait_seconds`` (labels
    ``error_type``, ``scope``), ``llm_retry_give_ups_total`` (labels ``error_type``,
    ``reason``, ``scope``), ``llm_retry_cooldown_wait_seconds`` (label ``scope``) and
    ``llm_retry_coordination_changes_total`` (labels ``backend``, ``state``), and
    ``llm_retry_breaker_state`` (label ``scope``: 0 closed, 1 half-open, 2 open).
    ``scope`` names a shared retry coordination scope, and is empty for calls that have
    none.

    Args:
        registry: Where the metrics are registered (``prometheus_client.REGISTRY`` by
            default); hooks on the same registry share them.

    .. versionadded:: 0.2.0
    .. versionchanged:: 0.3.0 Cooldown waits, coordination changes and breaker states.
    """

    __slots__ = ("_metrics",)

    def __init__(self, *, registry: CollectorRegistry | None = None) -> None:
        import prometheus_client as _prom  # noqa: PLC0415 - optional, imported when used

        chosen = _prom.REGISTRY if registry is None else registry
        found = _METRICS.get(chosen)
        if found is None:
            found = _METRICS[chosen] = _Metrics(
                retries=_prom.Counter(
                    "llm_retry_retries",
                    "Retries started.",
                    ["error_type", "scope"],
                    registry=chosen,
                ),
                waits=_prom.Histogram(
                    "llm_retry_retry_wait_seconds",
                    "The wait before each retry.",
                    ["error_type", "scope"],
                    buckets=WAIT_BUCKETS,
                    registry=chosen,
                ),
                give_ups=_prom.Counter(
                    "llm_retry_give_ups",
                    "Calls that stopped retrying and raised.",
                    ["error_type", "reason", "scope"],
                    registry=chosen,
                ),
                cooldowns=_prom.Histogram(
                    "llm_retry_cooldown_wait_seconds",
                    "Waits for a scope's shared cooldown before an attempt.",
                    ["scope"],
                    buckets=WAIT_BUCKETS,
                    registry=chosen,
                ),
                changes=_prom.Counter(
                    "llm_retry_coordination_changes",
                    "A coordination store going away (state=unavailable) or coming back.",
                    ["backend", "state"],
                    registry=chosen,
                ),
                breakers=_prom.Gauge(
                    "llm_retry_breaker_state",
                    "A scope's circuit breaker: 0 closed, 1 half-open, 2 open.",
                    ["scope"],
                    registry=chosen,
                ),
            )
        self._metrics = found

    def __call__(self, event: HookEvent) -> None:
        metrics = self._metrics
        match event:
            case RetryEvent():
                code = event.classification.code.value
                metrics.retries.labels(code, event.scope).inc()
                metrics.waits.labels(code, event.scope).observe(event.sleep)
            case GiveUpEvent():
                metrics.give_ups.labels(event.code.value, event.reason.value, event.scope).inc()
            case CooldownEvent():
                metrics.cooldowns.labels(event.scope).observe(event.sleep)
            case CoordinationEvent():
                metrics.changes.labels(event.backend, event.state).inc()
            case BreakerEvent():
                metrics.breakers.labels(event.scope).set(_GAUGE[event.state])
