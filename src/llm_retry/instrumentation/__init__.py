"""Global retry hooks for logging, structlog, Prometheus and OpenTelemetry.

Modelled on stamina's ``stamina.instrumentation``: a hook is any callable; it receives a
frozen record (a :data:`HookEvent`): a :class:`~llm_retry.RetryEvent` before each
retry's wait, a :class:`GiveUpEvent` when a call stops retrying and raises, a
:class:`CooldownEvent` before a call waits for its scope's shared cooldown, a
:class:`CoordinationEvent` when a coordination store (Redis) goes away or comes back,
and a :class:`BreakerEvent` when a scope's circuit breaker opens, half-opens or closes.
The active hooks are global (one setting for every policy and call) and run after the
policy's own ``on_retry``. A hook that raises is logged on the ``llm_retry`` logger and
never breaks the call.

The default is the OpenTelemetry hook when ``opentelemetry-api`` is installed (found on
the first retry, nothing imported when it is absent), otherwise no hook. Logging is not
part of the default because ``RetryPolicy(on_retry=log_retry)`` logs every retry already.

Example::

    from llm_retry.instrumentation import PrometheusOnRetryHook, set_on_retry_hooks

    set_on_retry_hooks([PrometheusOnRetryHook(), print])

The optional backends are extras: ``llm-resilience[otel]``, ``[prometheus]``,
``[structlog]``; see ``docs/observability.md``.

.. versionadded:: 0.2.0
"""

from llm_retry._events import (
    BreakerEvent,
    CooldownEvent,
    CoordinationEvent,
    GiveUpEvent,
    HookEvent,
    RetryEvent,
)
from llm_retry.instrumentation._hooks import (
    LoggingOnRetryHook,
    RestoreHooks,
    RetryHook,
    get_on_retry_hooks,
    reset_on_retry_hooks,
    set_on_retry_hooks,
)
from llm_retry.instrumentation._otel import OpenTelemetryOnRetryHook
from llm_retry.instrumentation._prometheus import PrometheusOnRetryHook
from llm_retry.instrumentation._structlog import StructlogOnRetryHook

__all__ = [
    "BreakerEvent",
    "CooldownEvent",
    "CoordinationEvent",
    "GiveUpEvent",
    "HookEvent",
    "LoggingOnRetryHook",
    "OpenTelemetryOnRetryHook",
    "PrometheusOnRetryHook",
    "RestoreHooks",
    "RetryEvent",
    "RetryHook",
    "StructlogOnRetryHook",
    "get_on_retry_hooks",
    "reset_on_retry_hooks",
    "set_on_retry_hooks",
]
