"""Global retry hooks: OpenTelemetry, Prometheus, structlog and logging, with the real SDKs."""

import asyncio
import dataclasses
import logging
import subprocess
import sys
import textwrap

import httpx
import pytest
import structlog
from prometheus_client import CollectorRegistry
from structlog.testing import capture_logs

from llm_errors import RateLimitError
from llm_retry import GiveUpReason, RetryEvent
from llm_retry.instrumentation import (
    GiveUpEvent,
    LoggingOnRetryHook,
    OpenTelemetryOnRetryHook,
    PrometheusOnRetryHook,
    StructlogOnRetryHook,
    get_on_retry_hooks,
    reset_on_retry_hooks,
    set_on_retry_hooks,
)

PROMPT = "PROMPT-SENTINEL-7f3a summarise my medical record"
SECRET = "sk-proj-SENTINELsecretKEY0123456789"


def disconnected():
    """The error httpx raises when the server closes before answering (its message, verbatim)."""
    return httpx.RemoteProtocolError("Server disconnected without sending a response.")


def rate_limited():
    """Mistral's 429 message (docs/wire.md, body shape A), echoing the prompt as some do."""
    return RateLimitError(f"Rate limit exceeded {PROMPT} {SECRET}", status=429)


@pytest.fixture(autouse=True)
def restore_hooks():
    """Every test starts from the default hooks and leaves them as it found them."""
    with reset_on_retry_hooks():
        yield


def run(policy, backend, *, use_async):
    """Call ``backend`` through ``policy``, sync or async, returning the result or the error."""
    try:
        if use_async:
            return asyncio.run(policy.wrap(backend.acall)(PROMPT, api_key=SECRET))
        return policy.wrap(backend)(PROMPT, api_key=SECRET)
    except Exception as error:
        return error


SYNC_AND_ASYNC = [pytest.param(False, id="sync"), pytest.param(True, id="async")]


@pytest.mark.parametrize("use_async", SYNC_AND_ASYNC)
def test_otel_retry_events_on_the_current_span(otel_sdk, make_policy, script, use_async):
    """Each retry adds a ``retry`` event to the caller's span, with code, attempt, wait, rule."""
    set_on_retry_hooks([OpenTelemetryOnRetryHook(meter_provider=otel_sdk.meter_provider)])
    backend = script(disconnected(), rate_limited(), "ok")
    with otel_sdk.tracer_provider.get_tracer("test").start_as_current_span("work"):
        assert run(make_policy(), backend, use_async=use_async) == "ok"
    (span,) = otel_sdk.exporter.get_finished_spans()
    events = [(e.name, dict(e.attributes)) for e in span.events]
    assert events == [
        (
            "retry",
            {
                "error.type": "TRANSPORT",
                "retry.attempt": 1,
                "retry.wait_s": 1.0,
                "llm_errors.rule": "exception:httpx.RemoteProtocolError",
            },
        ),
        (
            "retry",
            {
                "error.type": "RATE_LIMIT",
                "retry.attempt": 2,
                "retry.wait_s": 2.0,
                "llm_errors.rule": "typed",
            },
        ),
    ]


def test_otel_give_up_event_and_metrics(otel_sdk, make_policy, script):
    """A give-up adds ``retry.give_up`` with the reason; counters and waits are recorded."""
    set_on_retry_hooks([OpenTelemetryOnRetryHook(meter_provider=otel_sdk.meter_provider)])
    with otel_sdk.tracer_provider.get_tracer("test").start_as_current_span("work"):
        error = run(
            make_policy(max_attempts=3),
            script(disconnected(), disconnected(), disconnected()),
            use_async=False,
        )
    assert isinstance(error, httpx.RemoteProtocolError)
    (span,) = otel_sdk.exporter.get_finished_spans()
    assert [e.name for e in span.events] == ["retry", "retry", "retry.give_up"]
    give_up = dict(span.events[-1].attributes)
    assert give_up["retry.give_up.reason"] == "max_attempts"
    assert give_up["error.type"] == "TRANSPORT"
    assert give_up["retry.attempts"] == 3
    (retries,) = otel_sdk.points("llm_retry.retries")
    assert (retries.value, dict(retries.attributes)) == (2, {"error.type": "TRANSPORT"})
    (waits,) = otel_sdk.points("llm_retry.retry.wait")
    assert (waits.count, waits.sum) == (2, 3.0)
    (give_ups,) = otel_sdk.points("llm_retry.give_ups")
    assert give_ups.value == 1
    assert dict(give_ups.attributes) == {
        "error.type": "TRANSPORT",
        "retry.give_up.reason": "max_attempts",
    }


def test_otel_without_a_span_still_counts(otel_sdk, make_policy, script):
    """Outside any span the metrics are still recorded and nothing fails."""
    set_on_retry_hooks([OpenTelemetryOnRetryHook(meter_provider=otel_sdk.meter_provider)])
    assert run(make_policy(), script(disconnected(), "ok"), use_async=False) == "ok"
    assert otel_sdk.exporter.get_finished_spans() == ()
    (retries,) = otel_sdk.points("llm_retry.retries")
    assert retries.value == 1


def test_nothing_of_the_call_reaches_a_span_or_a_log(otel_sdk, make_policy, script):
    """No argument, prompt or key in any span attribute, event or structured log entry."""
    set_on_retry_hooks(
        [OpenTelemetryOnRetryHook(meter_provider=otel_sdk.meter_provider), StructlogOnRetryHook()]
    )
    tracer = otel_sdk.tracer_provider.get_tracer("test")
    with capture_logs() as logs, tracer.start_as_current_span("work"):
        run(make_policy(max_attempts=2), script(rate_limited(), rate_limited()), use_async=False)
    (span,) = otel_sdk.exporter.get_finished_spans()
    dumped = repr(dict(span.attributes)) + repr([(e.name, dict(e.attributes)) for e in span.events])
    dumped += repr(logs)
    assert len(span.events) == 2
    assert len(logs) == 2
    assert "PROMPT-SENTINEL" not in dumped
    assert SECRET not in dumped
    assert "Rate limit exceeded" not in dumped


def test_prometheus_counters_and_histogram(make_policy, script):
    """Retries, waits and give-ups per ``error_type`` and ``scope`` in the given registry."""
    registry = CollectorRegistry()
    set_on_retry_hooks([PrometheusOnRetryHook(registry=registry)])
    run(
        make_policy(max_attempts=3),
        script(disconnected(), rate_limited(), rate_limited()),
        use_async=False,
    )
    labels = {"scope": ""}
    value = registry.get_sample_value
    assert value("llm_retry_retries_total", {"error_type": "TRANSPORT", **labels}) == 1
    assert value("llm_retry_retries_total", {"error_type": "RATE_LIMIT", **labels}) == 1
    assert value("llm_retry_retry_wait_seconds_count", {"error_type": "RATE_LIMIT", **labels}) == 1
    assert value("llm_retry_retry_wait_seconds_sum", {"error_type": "RATE_LIMIT", **labels}) == 2.0
    give_ups = {"error_type": "RATE_LIMIT", "reason": "max_attempts", **labels}
    assert value("llm_retry_give_ups_total", give_ups) == 1


def test_prometheus_hooks_share_a_registry():
    """A second hook on the same registry reuses its metrics instead of failing."""
    registry = CollectorRegistry()
    first = PrometheusOnRetryHook(registry=registry)
    second = PrometheusOnRetryHook(registry=registry)
    assert first._metrics is second._metrics
    assert PrometheusOnRetryHook(registry=CollectorRegistry())._metrics is not first._metrics


def test_structlog_entries(make_policy, script):
    """One ``retry_scheduled`` warning per retry and one ``gave_up`` entry, with the fields."""
    set_on_retry_hooks([StructlogOnRetryHook()])
    with capture_logs() as logs:
        run(
            make_policy(max_attempts=2),
            script(disconnected(), disconnected(), disconnected()),
            use_async=False,
        )
    retry, gave_up = logs
    assert retry["event"] == "llm_retry.retry_scheduled"
    assert retry["log_level"] == "warning"
    assert (retry["error_type"], retry["attempt"], retry["wait_s"]) == ("TRANSPORT", 1, 1.0)
    assert retry["error_class"] == "RemoteProtocolError"
    assert gave_up["event"] == "llm_retry.gave_up"
    assert (gave_up["reason"], gave_up["attempts"]) == ("max_attempts", 2)


def test_structlog_takes_a_logger(make_policy, script):
    """A given structlog logger is used instead of ``get_logger``."""
    logger = structlog.get_logger("mine").bind(service="billing")
    set_on_retry_hooks([StructlogOnRetryHook(logger=logger)])
    with capture_logs() as logs:
        run(make_policy(), script(disconnected(), "ok"), use_async=False)
    assert [entry["service"] for entry in logs] == ["billing"]


def test_logging_hook_writes_todays_line(make_policy, script, caplog):
    """The logging hook writes the policy's WARNING per retry and an INFO at the give-up."""
    set_on_retry_hooks([LoggingOnRetryHook()])
    with caplog.at_level(logging.INFO, logger="llm_retry"):
        run(make_policy(max_attempts=2), script(rate_limited(), rate_limited()), use_async=False)
    records = [r for r in caplog.records if r.name == "llm_retry"]
    assert [r.levelno for r in records] == [logging.WARNING, logging.INFO]
    assert "attempt 1 failed with RATE_LIMIT (RateLimitError)" in records[0].getMessage()
    assert records[1].reason == "max_attempts"
    assert "PROMPT-SENTINEL" not in caplog.text


def test_user_hooks_get_frozen_records(make_policy, script):
    """A plain callable receives a ``RetryEvent`` per retry and a ``GiveUpEvent`` at the end."""
    seen = []
    set_on_retry_hooks([seen.append])
    run(make_policy(max_attempts=2), script(rate_limited(), rate_limited()), use_async=False)
    retry, give_up = seen
    assert isinstance(retry, RetryEvent)
    assert isinstance(give_up, GiveUpEvent)
    assert (give_up.reason, give_up.attempts, give_up.code) == (
        GiveUpReason.MAX_ATTEMPTS,
        2,
        "RATE_LIMIT",
    )
    assert isinstance(give_up.error, RateLimitError)
    assert "PROMPT-SENTINEL" not in repr(give_up)
    with pytest.raises(dataclasses.FrozenInstanceError):
        give_up.attempts = 3


def test_a_non_retryable_error_gives_up_at_once(make_policy, script):
    """A code the policy does not retry is a give-up with reason ``not_retryable``."""
    seen = []
    set_on_retry_hooks([seen.append])
    run(make_policy(), script(ValueError), use_async=False)
    (give_up,) = seen
    assert (give_up.reason, give_up.attempts) == (GiveUpReason.NOT_RETRYABLE, 1)


def test_a_raising_hook_is_logged_and_never_breaks_the_call(make_policy, script, caplog):
    """The call succeeds, later hooks still run, and the failure is logged once per event."""
    seen = []

    def broken(event):
        raise RuntimeError("hook bug")

    set_on_retry_hooks([broken, seen.append])
    with caplog.at_level(logging.ERROR, logger="llm_retry"):
        assert run(make_policy(), script(disconnected(), "ok"), use_async=False) == "ok"
    assert len(seen) == 1
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert "raised; the call goes on" in errors[0].getMessage()
    assert errors[0].exc_info[0] is RuntimeError


def test_set_get_and_restore():
    """``set`` replaces, ``()`` silences, ``None`` restores the default; ``with`` restores."""
    default = get_on_retry_hooks()
    assert [type(hook) for hook in default] == [OpenTelemetryOnRetryHook]
    with set_on_retry_hooks([print]):
        assert get_on_retry_hooks() == (print,)
        with set_on_retry_hooks(()):
            assert get_on_retry_hooks() == ()
        assert get_on_retry_hooks() == (print,)
    assert get_on_retry_hooks() == default
    set_on_retry_hooks([print])
    reset_on_retry_hooks()
    assert [type(hook) for hook in get_on_retry_hooks()] == [OpenTelemetryOnRetryHook]


def test_a_hook_must_be_callable():
    """Setting something that cannot be called is a ``TypeError`` naming its type."""
    with pytest.raises(TypeError, match="must be callable, got int"):
        set_on_retry_hooks([1])


@pytest.mark.integration
def test_without_the_extras_nothing_is_imported(without_extras):
    """With the extras unimportable, retries work, no hook is active and nothing is imported."""
    script = without_extras + textwrap.dedent(
        """
        import httpx
        import llm_retry.instrumentation as instrumentation
        from llm_retry import RetryPolicy, instant_retries

        calls = []

        def flaky():
            calls.append(1)
            if len(calls) < 3:
                raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
            return "ok"

        with instant_retries():
            assert RetryPolicy(on_retry=None).wrap(flaky)() == "ok"
        assert instrumentation.get_on_retry_hooks() == ()
        for hook in (instrumentation.PrometheusOnRetryHook, instrumentation.StructlogOnRetryHook,
                     instrumentation.OpenTelemetryOnRetryHook):
            try:
                hook()
            except ImportError:
                pass
            else:
                raise AssertionError(f"{hook.__name__} built without its library")
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
        assert not loaded, loaded
        print("OK", len(calls))
        """
    )
    result = subprocess.run(  # noqa: S603 - the script above
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "OK 3"


def test_default_is_no_hook_without_opentelemetry(opentelemetry_missing):
    """When ``opentelemetry.trace`` cannot be found the default is no hook at all."""
    reset_on_retry_hooks()
    assert get_on_retry_hooks() == ()


def test_prometheus_labels_the_coordination_scope(make_policy, script, clock):
    """A call that shares state under a scope labels its retries and give-up with it."""
    from llm_retry import InProcessCoordination

    registry = CollectorRegistry()
    set_on_retry_hooks([PrometheusOnRetryHook(registry=registry)])
    policy = make_policy(
        max_attempts=2,
        coordination=InProcessCoordination(clock=clock),
        scope="openai:gpt-4o",
    )
    run(policy, script(disconnected(), disconnected()), use_async=False)
    value = registry.get_sample_value
    labels = {"error_type": "TRANSPORT", "scope": "openai:gpt-4o"}
    assert value("llm_retry_retries_total", labels) == 1
    assert value("llm_retry_give_ups_total", {**labels, "reason": "max_attempts"}) == 1


def test_every_hook_names_the_call_by_its_scope(make_policy, script, caplog):
    """Retry and give-up records, structlog and log lines say the scope, not the function."""
    seen = []
    set_on_retry_hooks([seen.append, StructlogOnRetryHook(), LoggingOnRetryHook()])
    policy = make_policy(max_attempts=2, scope="openai:gpt-4o")
    with capture_logs() as logs, caplog.at_level(logging.INFO, logger="llm_retry"):
        run(policy, script(rate_limited(), rate_limited()), use_async=False)
    assert [event.target for event in seen] == ["openai:gpt-4o"] * 2
    assert [entry["target"] for entry in logs] == ["openai:gpt-4o"] * 2
    lines = [r.getMessage() for r in caplog.records if r.name == "llm_retry"]
    assert lines[0].startswith("retrying openai:gpt-4o in ")
    assert lines[1].startswith("gave up on openai:gpt-4o: RATE_LIMIT after 2 attempt(s)")
    assert "Script" not in caplog.text


# --- waits for a shared cooldown -----------------------------------------------------------


def test_a_cooldown_wait_reaches_every_hook(otel_sdk, make_policy, clock, caplog):
    """One ``CooldownEvent`` before the waiting attempt: a record, a span event, metrics, logs."""
    from llm_retry import InProcessCoordination
    from llm_retry.instrumentation import CooldownEvent

    registry = CollectorRegistry()
    seen = []
    set_on_retry_hooks(
        [
            seen.append,
            OpenTelemetryOnRetryHook(meter_provider=otel_sdk.meter_provider),
            PrometheusOnRetryHook(registry=registry),
            StructlogOnRetryHook(),
            LoggingOnRetryHook(),
        ]
    )
    shared = InProcessCoordination(clock=clock)
    shared.extend_cooldown("openai:gpt-4o", 5.0)
    policy = make_policy(coordination=shared, scope="openai:gpt-4o")
    tracer = otel_sdk.tracer_provider.get_tracer("test")
    with (
        capture_logs() as logs,
        caplog.at_level(logging.INFO, logger="llm_retry"),
        tracer.start_as_current_span("work"),
    ):
        assert policy.wrap(lambda: "ok")() == "ok"
    [pause] = clock.sleeps
    assert 5.0 <= pause <= 5.5
    assert seen == [
        CooldownEvent(
            target="openai:gpt-4o", scope="openai:gpt-4o", attempt=1, sleep=pause, elapsed=0.0
        )
    ]
    (span,) = otel_sdk.exporter.get_finished_spans()
    assert [(e.name, dict(e.attributes)) for e in span.events] == [
        (
            "retry.cooldown",
            {"retry.scope": "openai:gpt-4o", "retry.attempt": 1, "retry.wait_s": pause},
        )
    ]
    (waited,) = otel_sdk.points("llm_retry.cooldown.wait")
    assert (waited.count, waited.sum, dict(waited.attributes)) == (
        1,
        pause,
        {"retry.scope": "openai:gpt-4o"},
    )
    labels = {"scope": "openai:gpt-4o"}
    assert registry.get_sample_value("llm_retry_cooldown_wait_seconds_count", labels) == 1
    assert registry.get_sample_value("llm_retry_cooldown_wait_seconds_sum", labels) == pause
    (entry,) = logs
    assert entry["event"] == "llm_retry.cooldown_wait"
    assert (entry["log_level"], entry["scope"], entry["attempt"], entry["wait_s"]) == (
        "info",
        "openai:gpt-4o",
        1,
        pause,
    )
    (record,) = [r for r in caplog.records if r.name == "llm_retry"]
    assert record.levelno == logging.INFO
    assert record.getMessage() == (
        f"waiting {pause:.2f}s for the shared cooldown of openai:gpt-4o before attempt 1"
    )


def test_one_cooldown_event_per_waiting_attempt(make_policy, clock):
    """Looks after the first wait are not sent again; a retry that waits is sent with its number."""
    from llm_retry import InProcessCoordination
    from llm_retry.instrumentation import CooldownEvent

    seen = []
    set_on_retry_hooks([seen.append])
    shared = InProcessCoordination(clock=clock)
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        clock.sleep(seconds)
        if len(slept) == 1:
            shared.extend_cooldown("s", 3.0)  # another caller's 429 while this one slept

    def backend():
        if len(slept) == 2:  # after the two waits before attempt 1
            shared.extend_cooldown("s", 4.0)  # meanwhile, elsewhere: Retry-After 4
            raise RateLimitError("429", status=429, retry_after=0.0)
        return "ok"

    shared.extend_cooldown("s", 2.0)
    policy = make_policy(coordination=shared, scope="s", sleep=sleep, max_attempts=3)
    assert policy.wrap(backend)() == "ok"
    cooldowns = [event for event in seen if isinstance(event, CooldownEvent)]
    assert [(event.attempt, event.sleep) for event in cooldowns] == [(1, slept[0]), (2, slept[3])]
    assert len(slept) == 4  # two looks before attempt 1, the retry's own wait (0), one look


@pytest.mark.parametrize("use_async", SYNC_AND_ASYNC)
def test_an_async_cooldown_wait_is_sent_too(make_policy, script, use_async):
    """Sync and async calls send the same event."""
    from llm_retry import InProcessCoordination
    from llm_retry.instrumentation import CooldownEvent

    seen = []
    set_on_retry_hooks([seen.append])
    shared = InProcessCoordination(clock=make_policy().clock)
    shared.extend_cooldown("s", 3.0)
    assert (
        run(make_policy(coordination=shared, scope="s"), script("ok"), use_async=use_async) == "ok"
    )
    (event,) = seen
    assert isinstance(event, CooldownEvent)
    assert (event.target, event.scope, event.attempt) == ("s", "s", 1)
    assert 3.0 <= event.sleep <= 3.3


def test_a_breaker_reaches_every_hook(otel_sdk, clock, caplog):
    """Open, half-open, closed: span events, a counter, the gauge, structlog and log lines."""
    from llm_retry import BreakerState, CircuitBreaker, InProcessCoordination

    registry = CollectorRegistry()
    set_on_retry_hooks(
        [
            OpenTelemetryOnRetryHook(meter_provider=otel_sdk.meter_provider),
            PrometheusOnRetryHook(registry=registry),
            StructlogOnRetryHook(),
            LoggingOnRetryHook(),
        ]
    )
    shared = InProcessCoordination(clock=clock, breaker=CircuitBreaker(min_calls=2, open_for=3.0))
    gauge = []
    tracer = otel_sdk.tracer_provider.get_tracer("test")
    with (
        capture_logs() as logs,
        caplog.at_level(logging.INFO, logger="llm_retry"),
        tracer.start_as_current_span("work"),
    ):
        for _ in range(2):
            shared.record_outcome("s", failed=True)
        gauge.append(registry.get_sample_value("llm_retry_breaker_state", {"scope": "s"}))
        clock.advance(3.0)
        probe = shared.admit("s").probe
        gauge.append(registry.get_sample_value("llm_retry_breaker_state", {"scope": "s"}))
        shared.end_probe("s", probe, lifted=True)
        gauge.append(registry.get_sample_value("llm_retry_breaker_state", {"scope": "s"}))
    assert gauge == [2.0, 1.0, 0.0]
    (span,) = otel_sdk.exporter.get_finished_spans()
    assert [(e.name, dict(e.attributes)) for e in span.events] == [
        (
            "retry.breaker",
            {"retry.scope": "s", "retry.breaker.state": state, "retry.breaker.open_s": seconds},
        )
        for state, seconds in (("open", 3.0), ("half_open", 0.0), ("closed", 0.0))
    ]
    changes = otel_sdk.points("llm_retry.breaker.changes")
    assert sorted(dict(p.attributes)["retry.breaker.state"] for p in changes) == [
        "closed",
        "half_open",
        "open",
    ]
    assert [(e["event"], e["log_level"], e["state"]) for e in logs] == [
        ("llm_retry.breaker", "warning", "open"),
        ("llm_retry.breaker", "info", "half_open"),
        ("llm_retry.breaker", "info", "closed"),
    ]
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "llm_retry"] == [
        ("WARNING", "circuit breaker of s open for 3.0s: its calls fail at once until a probe"),
        ("INFO", "circuit breaker of s half-open"),
        ("INFO", "circuit breaker of s closed"),
    ]
    assert shared.breaker_state("s") == (BreakerState.CLOSED, 0.0)
