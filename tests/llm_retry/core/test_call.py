"""The policy's rules for one call, on a fake clock: what is retried, how long, when it stops."""

import asyncio
import email.utils
import math
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_errors import (
    AbortedError,
    AuthError,
    Classification,
    ErrorCode,
    Layer,
    LlmTimeoutError,
    ProviderError,
    RateLimitError,
    ServerError,
    TransportError,
)
from llm_retry import GiveUpReason, RetryPolicy, instant_retries, retry_info
from llm_retry._strategies import backoff_ceiling


def test_backoff_without_jitter_is_exponential_and_capped(make_policy, script, clock):
    """Waits are initial * multiplier**n, capped at max_wait; success ends the call."""
    backend = script(ServerError, ServerError, ServerError, ServerError, "ok")
    policy = make_policy(max_attempts=5, initial_wait=1.0, max_wait=5.0, multiplier=3.0)
    assert policy.wrap(backend)() == "ok"
    assert clock.sleeps == [1.0, 3.0, 5.0, 5.0]
    assert backend.calls == 5


def test_full_jitter_stays_under_each_ceiling(make_policy, script, clock):
    """With jitter, each wait is within ``[0, ceiling]`` of its attempt."""
    backend = script(TransportError, TransportError, TransportError, "ok")
    policy = make_policy(jitter=True, initial_wait=1.0, max_wait=3.0)
    policy.wrap(backend)()
    assert len(clock.sleeps) == 3
    for attempt, slept in enumerate(clock.sleeps, start=1):
        assert 0 <= slept <= backoff_ceiling(attempt, initial=1.0, multiplier=2.0, max_wait=3.0)


def test_retry_after_replaces_backoff(make_policy, script, clock):
    """The server's wait is used as given, not the backoff."""
    backend = script(RateLimitError("slow", retry_after=12.0), "ok")
    assert make_policy().wrap(backend)() == "ok"
    assert clock.sleeps == [12.0]


def test_retry_after_ignored_when_not_respected(make_policy, script, clock):
    """``respect_retry_after=False`` keeps the backoff (and no cap applies)."""
    backend = script(RateLimitError("slow", retry_after=120.0), "ok")
    make_policy(respect_retry_after=False).wrap(backend)()
    assert clock.sleeps == [1.0]


def test_retry_after_above_cap_stops_at_once(make_policy, script, clock):
    """A Retry-After above max_retry_after raises the original error without sleeping."""
    error = RateLimitError("slow", retry_after=61.0)
    backend = script(error, "ok")
    with pytest.raises(RateLimitError) as info:
        make_policy().wrap(backend)()
    assert info.value is error
    assert clock.sleeps == []
    assert backend.calls == 1
    assert retry_info(error).reason is GiveUpReason.RETRY_AFTER_TOO_LONG
    assert "61s" in retry_info(error).detail


def test_wait_crossing_the_deadline_is_never_started(make_policy, script, clock):
    """A wait that would end after the deadline stops the call before sleeping."""
    backend = script(RateLimitError("slow", retry_after=8.0), latency=1.0)
    with pytest.raises(RateLimitError) as info:
        make_policy(deadline=20.0, max_attempts=10).wrap(backend)()
    # t=1 fail, sleep 8 (t=9), t=10 fail, sleep 8 (t=18), t=19 fail: 19 + 8 > 20 -> stop.
    assert clock.sleeps == [8.0, 8.0]
    assert backend.calls == 3
    meta = retry_info(info.value)
    assert meta.reason is GiveUpReason.DEADLINE
    assert meta.attempts == 3
    assert meta.waited == 16.0
    assert meta.elapsed == 19.0


def test_wait_ending_exactly_at_the_deadline_is_allowed(make_policy, script, clock):
    """The deadline is inclusive: a wait that ends on it still happens."""
    backend = script(RateLimitError("slow", retry_after=10.0), "ok")
    assert make_policy(deadline=10.0).wrap(backend)() == "ok"
    assert clock.sleeps == [10.0]


def test_max_attempts_stops_with_the_last_error(make_policy, script, clock):
    """After max_attempts the last error is raised with the count and the time waited."""
    backend = script(TransportError, TransportError, LlmTimeoutError)
    with pytest.raises(LlmTimeoutError) as info:
        make_policy(max_attempts=3).wrap(backend)()
    meta = retry_info(info.value)
    assert (meta.reason, meta.attempts, meta.waited, meta.code) == (
        GiveUpReason.MAX_ATTEMPTS,
        3,
        3.0,
        ErrorCode.TIMEOUT,
    )
    assert info.value.__notes__ == [
        (
            "llm_retry: gave up on TIMEOUT after 3 attempt(s) in 3.00s (3.00s waiting): "
            "max_attempts=3 reached"
        )
    ]


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(AuthError("bad key"), id="auth"),
        pytest.param(ProviderError("unknown"), id="provider"),
        pytest.param(AbortedError("cancelled"), id="aborted"),
        pytest.param(ValueError("a bug"), id="bug"),
    ],
)
def test_non_retryable_errors_raise_at_once(make_policy, script, clock, error):
    """Permanent codes, ABORTED and caller bugs are raised on the first attempt."""
    backend = script(error, "ok")
    with pytest.raises(type(error)) as info:
        make_policy().wrap(backend)()
    assert info.value is error
    assert backend.calls == 1
    assert clock.sleeps == []
    assert retry_info(error).reason is GiveUpReason.NOT_RETRYABLE


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(KeyboardInterrupt(), id="keyboard-interrupt"),
        pytest.param(SystemExit(3), id="system-exit"),
        pytest.param(asyncio.CancelledError(), id="cancelled"),
    ],
)
def test_base_exceptions_are_never_retried_nor_swallowed(make_policy, script, error):
    """Interrupts, exits and cancellations go straight through, untouched."""
    backend = script(error, "ok")
    with pytest.raises(type(error)) as info:
        make_policy().wrap(backend)()
    assert info.value is error
    assert backend.calls == 1
    assert retry_info(error) is None
    assert not getattr(error, "__notes__", [])


def test_cancelling_an_async_call_is_not_retried(make_policy, clock):
    """Cancelling the task of a retried coroutine cancels it, with no further attempt."""
    started = []

    async def slow():
        started.append(1)
        await asyncio.sleep(10)

    async def main():
        task = asyncio.create_task(make_policy().wrap(slow)())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert started == [1]
    assert clock.sleeps == []


def test_custom_retry_on(make_policy, script):
    """``retry_on`` decides, not the classification's own ``retryable`` flag."""
    policy = make_policy(retry_on=frozenset({ErrorCode.AUTH}))
    assert policy.wrap(script(AuthError, "ok"))() == "ok"
    backend = script(ServerError, "ok")
    with pytest.raises(ServerError):
        policy.wrap(backend)()
    assert backend.calls == 1


def test_empty_retry_on_never_retries(make_policy, script):
    """An empty ``retry_on`` turns retries off."""
    backend = script(ServerError, "ok")
    with pytest.raises(ServerError):
        make_policy(retry_on=frozenset()).wrap(backend)()
    assert backend.calls == 1


def test_custom_classifier_routes_foreign_errors(make_policy, script, clock):
    """A custom classifier's code and Retry-After are what the policy acts on."""

    def classifier(error):
        if isinstance(error, LookupError):
            return Classification(
                code=ErrorCode.RATE_LIMIT, retryable=True, retry_after=3.0, layer=Layer.EXCEPTION
            )
        return Classification(code=ErrorCode.PROVIDER_ERROR, retryable=False)

    backend = script(KeyError("k"), "ok")
    assert make_policy(classifier=classifier).wrap(backend)() == "ok"
    assert clock.sleeps == [3.0]


def test_classifier_is_asked_once_per_error(make_policy, script):
    """retry, wait, stop and the hook share one classification per failure."""
    seen = []

    def classifier(error):
        seen.append(error)
        return Classification(code=ErrorCode.SERVER, retryable=True)

    make_policy(classifier=classifier, on_retry=lambda _: None).wrap(
        script(OSError, OSError, "ok")
    )()
    assert len(seen) == 2
    assert seen[0] is not seen[1]


def test_on_retry_receives_the_event(make_policy, script, clock):
    """The hook gets the attempt, the classification, the planned wait and the elapsed time."""
    events = []
    backend = script(RateLimitError("slow", retry_after=2.0, status=429), ServerError, "ok")
    backend.latency = 0.5
    make_policy(on_retry=events.append).wrap(backend)()
    assert [(e.attempt, e.classification.code, e.sleep, e.elapsed) for e in events] == [
        (1, ErrorCode.RATE_LIMIT, 2.0, 0.5),
        (2, ErrorCode.SERVER, 2.0, 3.0),
    ]
    assert events[0].classification.status == 429
    assert events[0].target.endswith("Script")
    assert isinstance(events[1].error, ServerError)


def test_the_note_carries_no_payload(make_policy, script):
    """The note names codes and numbers, never the error's message."""
    error = AuthError("prompt was: tell me the launch codes")
    with pytest.raises(AuthError):
        make_policy().wrap(script(error))()
    assert "launch codes" not in error.__notes__[0]


def test_each_call_starts_fresh(make_policy, script, clock):
    """Attempts and waits are per call: a second call gets the full allowance again."""
    backend = script(ServerError, ServerError, "ok")
    wrapped = make_policy(max_attempts=3).wrap(backend)
    assert wrapped() == "ok"
    backend.calls = 0
    assert wrapped() == "ok"
    assert clock.sleeps == [1.0, 2.0, 1.0, 2.0]


def test_hook_errors_propagate(make_policy, script):
    """A failing hook is a bug in the hook: it surfaces instead of being hidden."""

    def hook(event):
        raise RuntimeError("hook bug")

    with pytest.raises(RuntimeError, match="hook bug"):
        make_policy(on_retry=hook).wrap(script(ServerError, "ok"))()


@given(
    max_attempts=st.integers(min_value=1, max_value=8),
    deadline=st.floats(min_value=0.01, max_value=300),
    initial=st.floats(min_value=0, max_value=10),
    extra=st.floats(min_value=0, max_value=30),
    multiplier=st.floats(min_value=1, max_value=4),
    cap=st.floats(min_value=0, max_value=90),
    retry_afters=st.lists(
        st.one_of(st.none(), st.floats(min_value=0, max_value=200)), min_size=1, max_size=8
    ),
)
def test_planned_waits_respect_caps_and_deadline(
    *, max_attempts, deadline, initial, extra, multiplier, cap, retry_afters
):
    """Waits stay within max_wait, honour a capped Retry-After and never cross the deadline."""
    max_wait = initial + extra
    policy = RetryPolicy(
        max_attempts=max_attempts,
        deadline=deadline,
        initial_wait=initial,
        max_wait=max_wait,
        multiplier=multiplier,
        max_retry_after=cap,
        on_retry=None,
    )
    errors = [RateLimitError("slow", retry_after=ra) for ra in retry_afters]
    calls = []

    def backend():
        calls.append(1)
        if len(calls) > len(errors):
            return "ok"
        raise errors[len(calls) - 1]

    raised = None
    with instant_retries() as recorder:
        try:
            policy.wrap(backend)()
        except RateLimitError as error:
            raised = error
    assert len(calls) <= max_attempts
    if raised is not None:
        assert raised is errors[len(calls) - 1]
        assert retry_info(raised).attempts == len(calls)
    for event in recorder.events:
        retry_after = retry_afters[event.attempt - 1]
        if retry_after is None:
            assert 0 <= event.sleep <= max_wait
        else:
            assert event.sleep == retry_after <= cap
        assert event.elapsed + event.sleep <= deadline
    assert recorder.sleeps == [event.sleep for event in recorder.events]


def test_a_retry_event_carries_the_elapsed_time_its_deadline_check_used(script):
    """Time spent between the deadline check and the event (classifying, hooks) is not added.

    A clock that moves 0.6 s at every reading: the check at 0.6 s of a 1 s deadline lets
    the retry go ahead, and its event says 0.6, not the later reading of 1.2 s.
    """
    ticks = iter(0.6 * n for n in range(100))
    policy = RetryPolicy(
        max_attempts=2, deadline=1.0, initial_wait=0, on_retry=None, clock=lambda: next(ticks)
    )
    with instant_retries() as recorder:
        assert policy.wrap(script(RateLimitError, "ok"))() == "ok"
    (event,) = recorder.events
    assert event.elapsed == pytest.approx(0.6)
    assert event.elapsed + event.sleep <= policy.deadline


def test_infinite_deadline_never_stops_on_time(make_policy, script, clock):
    """With ``deadline=math.inf`` only the attempts bound the call."""
    backend = script(RateLimitError("slow", retry_after=50.0))
    with pytest.raises(RateLimitError) as info:
        make_policy(deadline=math.inf, max_attempts=5).wrap(backend)()
    assert clock.sleeps == [50.0] * 4
    assert retry_info(info.value).reason is GiveUpReason.MAX_ATTEMPTS


class FakeResponse:
    """The part of an httpx-style response the classifier reads."""

    def __init__(self, status_code, headers):
        self.status_code = status_code
        self.headers = headers


class SdkStatusError(Exception):
    """An SDK error in the openai/anthropic shape: ``status_code`` plus ``response.headers``."""

    def __init__(self, status_code, headers):
        super().__init__(f"Error code: {status_code}")
        self.status_code = status_code
        self.response = FakeResponse(status_code, headers)


def with_dates(headers):
    """Headers with int values turned into HTTP dates that many seconds from now.

    Also returns the latest date written (epoch seconds, whole: an HTTP date has no
    fraction), or ``None``.
    """
    written = {}
    latest = None
    for name, value in headers.items():
        if isinstance(value, int):
            moment = int(time.time() + value)
            latest = moment if latest is None else max(latest, moment)
            written[name] = email.utils.formatdate(moment, usegmt=True)
        else:
            written[name] = value
    return written, latest


@pytest.mark.parametrize(
    ("headers", "low", "high"),
    [
        pytest.param({"Retry-After": "7"}, 7.0, 7.0, id="seconds"),
        pytest.param({"retry-after": "1.5"}, 1.5, 1.5, id="float-seconds"),
        pytest.param({"retry-after-ms": "1500"}, 1.5, 1.5, id="ms"),
        pytest.param({"retry-after-ms": "250", "Retry-After": "9"}, 0.25, 0.25, id="ms-wins"),
        pytest.param({"Retry-After": "0"}, 0.0, 0.0, id="zero"),
        pytest.param({"Retry-After": -3600}, 0.0, 0.0, id="date-in-past"),
        pytest.param({"Retry-After": 30}, None, None, id="date-in-future"),
        pytest.param({"Retry-After": "-5"}, 1.0, 1.0, id="negative-means-backoff"),
        pytest.param({"Retry-After": "soon"}, 1.0, 1.0, id="garbage-means-backoff"),
        pytest.param({"retry-after-ms": "nan"}, 1.0, 1.0, id="nan-means-backoff"),
        pytest.param({}, 1.0, 1.0, id="absent-means-backoff"),
    ],
)
def test_retry_after_headers_from_sdk_errors(*, make_policy, script, clock, headers, low, high):
    """Server-directed waits read by the classifier from SDK errors drive the sleep.

    A date in the future is measured against the wall clock when the error is
    classified: the expected wait is the date less the clock read before and after.
    """
    headers, date = with_dates(headers)
    backend = script(SdkStatusError(429, headers), "ok")
    before = time.time()
    assert make_policy().wrap(backend)() == "ok"
    after = time.time()
    if date is not None and date > after:
        low, high = date - after, date - before
    assert len(clock.sleeps) == 1
    assert low <= clock.sleeps[0] <= high


@pytest.mark.parametrize(
    ("headers", "settings", "reason"),
    [
        pytest.param({"Retry-After": "120"}, {}, GiveUpReason.RETRY_AFTER_TOO_LONG, id="over-cap"),
        pytest.param(
            {"retry-after-ms": "61000"}, {}, GiveUpReason.RETRY_AFTER_TOO_LONG, id="ms-over-cap"
        ),
        pytest.param(
            {"Retry-After": 3600},
            {"max_retry_after": 7200.0},
            GiveUpReason.DEADLINE,
            id="date-past-deadline",
        ),
    ],
)
def test_retry_after_that_cannot_be_honoured_stops_at_once(
    *, make_policy, script, clock, headers, settings, reason
):
    """Too long for the cap or the deadline: the SDK's own error is raised without a wait."""
    error = SdkStatusError(503, with_dates(headers)[0])
    with pytest.raises(SdkStatusError) as info:
        make_policy(**settings).wrap(script(error, "ok"))()
    assert info.value is error
    assert clock.sleeps == []
    assert retry_info(error).reason is reason


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        pytest.param(ConnectionResetError("reset by peer"), True, id="connection-reset"),
        pytest.param(TimeoutError(), True, id="timeout"),
        pytest.param(SdkStatusError(503, {}), True, id="http-503"),
        pytest.param(SdkStatusError(401, {}), False, id="http-401"),
        pytest.param(ValueError("a bug"), False, id="value-error"),
    ],
)
def test_foreign_errors_are_routed_by_the_classifier(make_policy, script, error, retried):
    """Builtin and SDK exceptions are retried exactly when the classifier says transient."""
    backend = script(error, "ok")
    if retried:
        assert make_policy().wrap(backend)() == "ok"
    else:
        with pytest.raises(type(error)):
            make_policy().wrap(backend)()
    assert backend.calls == (2 if retried else 1)
