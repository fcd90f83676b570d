"""Coordination: scopes, the in-process backend, and how a call uses any backend."""

import asyncio
import dataclasses
import logging
import math
import threading
import time
import tomllib
from pathlib import Path

import pytest

from llm_errors import (
    AuthError,
    ErrorCode,
    InvalidRequestError,
    QuotaExceededError,
    RateLimitError,
    ServerError,
    classify,
)
from llm_retry import (
    MAX_PARK,
    Admission,
    BreakerState,
    CircuitBreaker,
    Coordination,
    GiveUpReason,
    InProcessCoordination,
    RateLimits,
    RetryBudget,
    RetryPolicy,
    Unit,
    Window,
    instant_retries,
    retry_info,
)
from llm_retry._coordination import MAX_SCOPE_LENGTH, check_scope, named_scope
from llm_retry._core import MAX_ADMISSIONS
from llm_retry.instrumentation import BreakerEvent, set_on_retry_hooks

#: The shipped rules, whose examples are real provider messages with their sources.
BUILTIN_RULES = (
    Path(__file__).resolve().parents[2] / "src" / "llm_errors" / "_rules" / "builtin.toml"
)


class Named:
    """A call argument that names its own scope, as the Mistral adapter's calls do."""

    llm_retry_scope = "mistral:mistral-small-latest"


class Recording:
    """A backend of the test's own that records which operations a call used.

    Its admission is the set cooldown once (then none), with a probe token if given.
    """

    def __init__(self, cooldown=0.0, probe=None):
        self.left = cooldown
        self.probe = probe
        self.used = []

    def _admission(self):
        left, self.left = self.left, 0.0
        return Admission(left) if left else Admission(0.0, self.probe)

    def cooldown(self, scope):
        """Record, answer the set cooldown."""
        self.used.append(("cooldown", scope))
        return self.left

    def admit(self, scope):
        """Record, answer the set cooldown once."""
        self.used.append(("admit", scope))
        return self._admission()

    def end_probe(self, scope, token, *, lifted):
        """Record."""
        self.used.append(("end_probe", scope, token, lifted))

    async def aadmit(self, scope):
        """Record, answer the set cooldown once."""
        self.used.append(("aadmit", scope))
        return self._admission()

    async def aend_probe(self, scope, token, *, lifted):
        """Record."""
        self.used.append(("aend_probe", scope, token, lifted))

    def extend_cooldown(self, scope, seconds):
        """Record."""
        self.used.append(("extend_cooldown", scope, seconds))

    def try_spend(self, scope, budget):
        """Record, spend the object."""
        self.used.append(("try_spend", scope))
        return budget.try_spend()

    def record_success(self, scope, budget):
        """Record, refill the object."""
        self.used.append(("record_success", scope))
        budget.record_success()

    async def acooldown(self, scope):
        """Record, answer the set cooldown."""
        self.used.append(("acooldown", scope))
        return self.left

    async def aextend_cooldown(self, scope, seconds):
        """Record."""
        self.used.append(("aextend_cooldown", scope, seconds))

    async def atry_spend(self, scope, budget):
        """Record, spend the object."""
        self.used.append(("atry_spend", scope))
        return budget.try_spend()

    async def arecord_success(self, scope, budget):
        """Record, refill the object."""
        self.used.append(("arecord_success", scope))
        budget.record_success()


# --- scopes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scope", "args", "kwargs", "expected"),
    [
        pytest.param("openai:gpt-4o", (Named(),), {}, "openai:gpt-4o", id="explicit-wins"),
        pytest.param(
            lambda _prompt, *, model: f"openai:{model}",
            ("hi",),
            {"model": "gpt-4o-mini"},
            "openai:gpt-4o-mini",
            id="function-of-args",
        ),
        pytest.param(None, (Named(),), {}, "mistral:mistral-small-latest", id="argument"),
        pytest.param(None, ("hi",), {}, None, id="none"),
        pytest.param(None, (), {}, None, id="no-args"),
    ],
)
def test_named_scope(scope, args, kwargs, expected):
    """The policy's scope, else the first argument's ``llm_retry_scope``, else none."""
    assert named_scope(scope, args, kwargs) == expected


@pytest.mark.parametrize(
    ("scope", "error", "match"),
    [
        pytest.param(3, TypeError, "must be a str", id="type"),
        pytest.param("", ValueError, "MAX_SCOPE_LENGTH", id="empty"),
        pytest.param("x" * (MAX_SCOPE_LENGTH + 1), ValueError, "MAX_SCOPE_LENGTH", id="long"),
        pytest.param("a{b}", ValueError, "'{'", id="braces"),
        pytest.param("a\nb", ValueError, "printable", id="control"),
    ],
)
def test_check_scope_refuses_bad_names(scope, error, match):
    """Scopes become Redis keys with a hash tag: bounded, printable, brace-free."""
    with pytest.raises(error, match=match):
        check_scope(scope)


def test_a_scope_function_returning_a_bad_name_is_a_bug():
    """A scope function's result is checked like a literal scope."""
    policy = RetryPolicy(coordination=Recording(), scope=lambda: "bad{scope}", on_retry=None)
    with pytest.raises(ValueError, match=r"'\{'"):
        policy.wrap(lambda: "ok")()


@pytest.mark.parametrize(
    ("settings", "error", "field"),
    [
        pytest.param({"scope": 3}, TypeError, "scope", id="scope-type"),
        pytest.param({"scope": "a}"}, ValueError, "scope", id="scope-braces"),
        pytest.param({"coordination": object()}, TypeError, "coordination", id="coordination"),
    ],
)
def test_policy_checks_scope_and_coordination(settings, error, field):
    """A bad scope or backend is refused at construction, naming the field."""
    with pytest.raises(error, match=field):
        RetryPolicy(**settings)


def test_both_backends_are_coordinations():
    """The in-process backend and a test's own satisfy the interface."""
    assert isinstance(InProcessCoordination(), Coordination)
    assert isinstance(Recording(), Coordination)


# --- the in-process backend ---------------------------------------------------------------


def test_in_process_cooldown_keeps_the_later_end(clock):
    """Extending keeps the later deadline; a cooldown ends on the clock."""
    shared = InProcessCoordination(clock=clock)
    shared.extend_cooldown("a", 5.0)
    shared.extend_cooldown("a", 2.0)
    assert shared.cooldown("a") == 5.0
    clock.advance(4.0)
    assert shared.cooldown("a") == 1.0
    assert shared.cooldown("b") == 0.0
    clock.advance(1.0)
    assert shared.cooldown("a") == 0.0


def test_in_process_cooldown_is_capped(clock):
    """No cooldown lasts more than ``max_cooldown``."""
    shared = InProcessCoordination(clock=clock, max_cooldown=10.0)
    shared.extend_cooldown("a", 3600.0)
    assert shared.cooldown("a") == 10.0


def test_in_process_scopes_are_bounded(clock):
    """At ``max_scopes``, ended cooldowns go first, then the one ending soonest."""
    shared = InProcessCoordination(clock=clock, max_scopes=2)
    shared.extend_cooldown("ended", 1.0)
    shared.extend_cooldown("long", 9.0)
    clock.advance(2.0)
    shared.extend_cooldown("new", 5.0)
    assert len(shared._until) == 2
    shared.extend_cooldown("newer", 8.0)
    assert sorted(shared._until) == ["long", "newer"]


def test_in_process_budget_is_the_object_itself():
    """The in-process backend spends and refills the ``RetryBudget`` it is given."""
    shared, budget = InProcessCoordination(), RetryBudget(capacity=1, refill=0.5)
    assert shared.try_spend("a", budget)
    assert not shared.try_spend("b", budget)
    shared.record_success("a", budget)
    assert budget.tokens == 0.5


def test_in_process_async_twins_answer_the_same(clock):
    """The async operations read and write the same state."""
    shared, budget = InProcessCoordination(clock=clock), RetryBudget(capacity=1, refill=1.0)

    async def main():
        await shared.aextend_cooldown("a", 3.0)
        assert await shared.acooldown("a") == 3.0
        assert await shared.atry_spend("a", budget)
        await shared.arecord_success("a", budget)

    asyncio.run(main())
    assert shared.cooldown("a") == 3.0
    assert budget.tokens == 1.0


# --- a call through a backend -------------------------------------------------------------


def test_without_coordination_nothing_is_shared(make_policy, script):
    """The default policy asks no backend: a 429 does not delay the next call."""
    policy = make_policy(max_attempts=1)
    with pytest.raises(RateLimitError):
        policy.wrap(script(RateLimitError("429", retry_after=30.0)))()
    assert policy.wrap(script("ok"))() == "ok"
    assert policy.stats.total_sleep == 0.0


def test_one_call_429_delays_the_next_calls_first_attempt(make_policy, clock, script):
    """In one process, a cooldown from one call is waited out by the next call first."""
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="openai:gpt-4o", max_attempts=1)
    with pytest.raises(RateLimitError):
        policy.wrap(script(RateLimitError("429", retry_after=5.0)))()
    backend = script("ok")
    with instant_retries() as recorder:
        assert policy.wrap(backend)() == "ok"
    [pause] = recorder.sleeps
    assert 5.0 <= pause <= 5.5  # the cooldown, plus up to 10 % wake-up jitter
    assert backend.calls == 1


def test_an_overload_with_retry_after_sets_a_cooldown(make_policy, clock, script):
    """A 503 with Retry-After is an overload: the scope cools down too."""
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="s", max_attempts=1)
    with pytest.raises(ServerError):
        policy.wrap(script(ServerError("503", status=503, retry_after=4.0)))()
    assert shared.cooldown("s") == 4.0


@pytest.mark.parametrize(
    ("error", "respect"),
    [
        pytest.param(RateLimitError("429"), True, id="no-retry-after"),
        pytest.param(AuthError("401", retry_after=5.0), True, id="not-a-rate-limit"),
        pytest.param(RateLimitError("429", retry_after=5.0), False, id="not-respected"),
    ],
)
def test_no_cooldown_without_a_respected_server_wait(make_policy, clock, script, error, respect):
    """Only a rate limit or overload with a respected Retry-After cools the scope down."""
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(
        coordination=shared, scope="s", max_attempts=1, respect_retry_after=respect
    )
    with pytest.raises(type(error)):
        policy.wrap(script(error))()
    assert shared.cooldown("s") == 0.0


def test_cooldown_past_the_deadline_fails_fast(make_policy, clock, script):
    """No attempt and no wait: a RateLimitError that names the cooldown and the deadline."""
    shared = InProcessCoordination(clock=clock)
    shared.extend_cooldown("s", 20.0)
    policy = make_policy(coordination=shared, scope="s", deadline=10.0)
    backend = script("ok")
    with pytest.raises(RateLimitError) as raised:
        policy.wrap(backend)()
    assert backend.calls == 0
    assert clock.sleeps == []
    info = retry_info(raised.value)
    assert (info.reason, info.attempts, info.code) == (GiveUpReason.COOLDOWN, 0, "RATE_LIMIT")
    assert "'s' admits its next attempt in 20.00s" in str(raised.value)
    assert "after this call's deadline (10s)" in str(raised.value)
    assert raised.value.retry_after == 20.0
    assert policy.stats.give_up_reasons == {GiveUpReason.COOLDOWN: 1}


def test_wake_up_jitter_never_crosses_the_deadline(make_policy, clock, script):
    """A cooldown just inside the deadline is waited, its jitter cut at the deadline."""
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="s", deadline=10.0)
    for _ in range(20):
        clock.sleeps.clear()
        shared.extend_cooldown("s", 9.9)
        assert policy.wrap(script("ok"))() == "ok"
        [pause] = clock.sleeps
        assert 9.9 - 1e-9 <= pause <= 10.0
        clock.advance(10.0)  # past the half-open time, for the next round


def test_wake_up_jitter_spreads_the_fleet(make_policy, clock, script):
    """Calls waiting out one cooldown wake at different moments within 10 % of it."""
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="s")
    pauses = []
    for _ in range(50):
        shared.extend_cooldown("s", 10.0)
        clock.sleeps.clear()
        assert policy.wrap(script("ok"))() == "ok"
        pauses.extend(clock.sleeps)
        clock.advance(-clock.sleeps[0])
    assert all(10.0 - 1e-9 <= pause <= 11.0 for pause in pauses)
    assert len({round(pause, 6) for pause in pauses}) > 40


def test_a_cooldown_extended_during_the_wait_is_waited_too(make_policy, clock):
    """After each wait the call asks again, so a longer cooldown set meanwhile holds it."""
    shared = InProcessCoordination(clock=clock)
    shared.extend_cooldown("s", 2.0)
    waits = []

    def sleep(seconds):
        waits.append(seconds)
        clock.sleep(seconds)
        if len(waits) == 1:
            shared.extend_cooldown("s", 3.0)  # another caller's 429, while this one slept

    policy = make_policy(coordination=shared, scope="s", sleep=sleep)
    assert policy.wrap(lambda: "ok")() == "ok"
    assert len(waits) == 2
    # The first wait (jittered) ended as the new cooldown began; the second waited it out.
    assert 2.0 <= waits[0] <= 2.2
    assert 3.0 <= waits[1] <= 3.3 + 1e-9


# --- the half-open state after a cooldown ------------------------------------------------


def test_after_a_cooldown_one_caller_probes(clock):
    """The first caller after the end gets the lease; the others poll within the lease."""
    shared = InProcessCoordination(clock=clock, probe_lease=1.0, probe_poll=0.05)
    shared.extend_cooldown("s", 5.0)
    assert shared.admit("s") == Admission(5.0)
    clock.advance(5.0)
    first = shared.admit("s")
    assert first.wait == 0.0
    assert first.probe is not None
    for _ in range(20):
        waiting = shared.admit("s")
        assert waiting.probe is None
        assert 0.005 <= waiting.wait <= 0.05
    assert shared.cooldown("s") == 0.0  # the cooldown itself is over
    shared.end_probe("s", first.probe, lifted=True)
    assert shared.admit("s") == Admission(0.0)  # lifted: open to everyone


def test_a_probe_that_fails_otherwise_frees_the_lease(clock):
    """Not lifted: the next caller probes; a stale token ends nothing."""
    shared = InProcessCoordination(clock=clock)
    shared.extend_cooldown("s", 1.0)
    clock.advance(1.0)
    first = shared.admit("s")
    shared.end_probe("s", "not-the-token", lifted=True)
    assert shared.admit("s").probe is None  # still held by the first
    shared.end_probe("s", first.probe, lifted=False)
    second = shared.admit("s")
    assert second.probe not in (None, first.probe)


def test_a_rate_limited_probe_closes_the_scope_again(clock):
    """A new cooldown during the probe ends it; the end after that gets a fresh probe."""
    shared = InProcessCoordination(clock=clock)
    shared.extend_cooldown("s", 1.0)
    clock.advance(1.0)
    first = shared.admit("s")
    shared.extend_cooldown("s", 2.0)
    assert shared.admit("s") == Admission(2.0)
    shared.end_probe("s", first.probe, lifted=True)  # too late: the new cooldown stays
    assert shared.cooldown("s") == 2.0
    clock.advance(2.0)
    assert shared.admit("s").probe not in (None, first.probe)


def test_the_half_open_time_is_bounded_by_the_lease(clock):
    """A probe that never reports holds the others for ``probe_lease`` at most."""
    shared = InProcessCoordination(clock=clock, probe_lease=0.5)
    shared.extend_cooldown("s", 1.0)
    clock.advance(1.2)
    assert shared.admit("s").probe is not None
    waiting = shared.admit("s")
    assert 0.0 < waiting.wait <= 0.3 + 1e-9  # never past the lease's end
    clock.advance(0.3)
    assert shared.admit("s") == Admission(0.0)


def test_waiters_start_after_the_probe_got_through():
    """Real threads: one call probes, the others' first attempts come after its success.

    The half-open time and the deadline are far longer than the test; it waits for the
    probe to start rather than for a fixed time.
    """
    shared = InProcessCoordination(probe_lease=600.0, probe_poll=0.01)
    policy = RetryPolicy(coordination=shared, scope="s", on_retry=None, deadline=600.0)
    probing, release, entered = threading.Event(), threading.Event(), []
    lock = threading.Lock()

    def work(name):
        with lock:
            entered.append((name, time.monotonic()))
            first = len(entered) == 1
        if first:
            probing.set()
            assert release.wait(60.0)  # the probe is slow; nobody else may start meanwhile
        return name

    shared.extend_cooldown("s", 0.05)
    threads = [threading.Thread(target=policy.wrap(work), args=(n,), daemon=True) for n in range(6)]
    for thread in threads:
        thread.start()
    try:
        assert probing.wait(60.0)
        time.sleep(0.2)  # room for a wrong start; only a bug fills it
        assert len(entered) == 1  # the cooldown is over, yet only the probe went
        released = time.monotonic()
    finally:
        release.set()
    for thread in threads:
        thread.join(timeout=60.0)
    assert not any(thread.is_alive() for thread in threads)
    assert len(entered) == 6
    assert all(at >= released for _, at in entered[1:])


def test_a_half_open_wait_past_the_deadline_fails_fast(make_policy, clock):
    """While another call probes, a call with no room for one more look is not attempted."""
    shared = InProcessCoordination(clock=clock, probe_poll=0.05)
    shared.extend_cooldown("s", 1.0)
    clock.advance(1.0)
    assert shared.admit("s").probe is not None  # someone else probes
    policy = make_policy(coordination=shared, scope="s", deadline=0.001)
    with pytest.raises(RateLimitError) as raised:
        policy.wrap(lambda: "ok")()
    assert retry_info(raised.value).reason is GiveUpReason.COOLDOWN


def test_a_call_that_probes_lifts_or_frees(make_policy, script):
    """The probing call ends its probe: lifted when it got through, freed on a failure."""
    lifted = Recording(probe="t1")
    policy = make_policy(coordination=lifted, scope="s")
    assert policy.wrap(script("ok"))() == "ok"
    assert lifted.used == [("admit", "s"), ("end_probe", "s", "t1", True)]
    freed = Recording(probe="t2")
    policy = make_policy(coordination=freed, scope="s", max_attempts=1)
    with pytest.raises(ServerError):
        policy.wrap(script(ServerError("503")))()
    assert freed.used == [("admit", "s"), ("end_probe", "s", "t2", False)]


def test_an_async_call_that_probes_ends_it_asynchronously(make_policy, script):
    """Async calls end their probe through the async operation: lifted, or freed on a failure."""
    backend = Recording(probe="t")
    policy = make_policy(coordination=backend, scope="s")
    assert asyncio.run(policy.wrap(script("ok").acall)()) == "ok"
    assert backend.used == [("aadmit", "s"), ("aend_probe", "s", "t", True)]
    freed = Recording(probe="t2")
    policy = make_policy(coordination=freed, scope="s", max_attempts=1)
    with pytest.raises(ServerError):
        asyncio.run(policy.wrap(script(ServerError("503")).acall)())
    assert freed.used == [("aadmit", "s"), ("aend_probe", "s", "t2", False)]


def test_sync_call_uses_the_sync_operations(make_policy, script):
    """A sync call reads the cooldown per attempt, shares it, spends and refills: sync."""
    backend = Recording()
    policy = make_policy(coordination=backend, scope="s", budget=RetryBudget())
    assert policy.wrap(script(RateLimitError("429", retry_after=2.0), "ok"))() == "ok"
    assert backend.used == [
        ("admit", "s"),
        ("extend_cooldown", "s", 2.0),
        ("try_spend", "s"),
        ("admit", "s"),
        ("record_success", "s"),
    ]


def test_async_call_uses_only_the_async_operations(make_policy, script):
    """An async call never blocks its event loop on a backend's sync operations."""
    backend = Recording()
    policy = make_policy(coordination=backend, scope="s", budget=RetryBudget())
    wrapped = policy.wrap(script(RateLimitError("429", retry_after=2.0), "ok").acall)
    assert asyncio.run(wrapped()) == "ok"
    assert backend.used == [
        ("aadmit", "s"),
        ("aextend_cooldown", "s", 2.0),
        ("atry_spend", "s"),
        ("aadmit", "s"),
        ("arecord_success", "s"),
    ]


def test_async_stream_uses_the_async_operations(make_policy):
    """An async generator refills through the async operation when its first item comes."""
    backend = Recording()
    policy = make_policy(coordination=backend, scope="s", budget=RetryBudget())

    @policy.wrap
    async def stream():
        yield "a"

    async def main():
        return [item async for item in stream()]

    assert asyncio.run(main()) == ["a"]
    assert backend.used == [("aadmit", "s"), ("arecord_success", "s")]


def test_async_attempts_wait_out_the_cooldown(make_policy, clock):
    """``async for attempt in policy.attempts()`` waits the cooldown asynchronously."""
    backend = Recording(cooldown=3.0)
    policy = make_policy(coordination=backend, scope="s")

    async def main():
        async for attempt in policy.attempts():
            with attempt:
                return attempt.number
        return None

    assert asyncio.run(main()) == 1
    assert backend.used == [("aadmit", "s"), ("aadmit", "s")]
    [pause] = clock.sleeps
    assert 3.0 <= pause <= 3.3


def test_sync_attempts_wait_out_the_cooldown(make_policy, clock):
    """``for attempt in policy.attempts()`` waits the cooldown before its first attempt."""
    backend = Recording(cooldown=2.0)
    policy = make_policy(coordination=backend, scope="s")
    for attempt in policy.attempts():
        with attempt:
            pass
    assert backend.used == [("admit", "s"), ("admit", "s")]
    [pause] = clock.sleeps
    assert 2.0 <= pause <= 2.2


class Cooling(Recording):
    """A backend of the test's own whose scope never opens: every admission is a wait."""

    def _admission(self):
        return Admission(1.0)


@pytest.mark.parametrize(
    "use_async", [pytest.param(False, id="sync"), pytest.param(True, id="async")]
)
def test_admissions_before_an_attempt_are_bounded(make_policy, clock, script, use_async):
    """A scope that never opens is waited out ``MAX_ADMISSIONS`` times, then the call goes on."""
    backend = Cooling()
    policy = make_policy(coordination=backend, scope="s", deadline=math.inf)
    flaky = script("ok")
    if use_async:
        assert asyncio.run(policy.wrap(flaky.acall)()) == "ok"
    else:
        assert policy.wrap(flaky)() == "ok"
    assert flaky.calls == 1
    assert len(backend.used) == len(clock.sleeps) == MAX_ADMISSIONS


@pytest.mark.parametrize(
    "use_async", [pytest.param(False, id="sync"), pytest.param(True, id="async")]
)
def test_in_testing_mode_a_cooldown_is_skipped_once(make_policy, script, use_async):
    """Under ``instant_retries`` the cooldown's wait is recorded once and the attempt follows."""
    backend = Cooling()
    policy = make_policy(coordination=backend, scope="s")
    flaky = script("ok")
    with instant_retries() as recorder:
        if use_async:
            assert asyncio.run(policy.wrap(flaky.acall)()) == "ok"
        else:
            assert policy.wrap(flaky)() == "ok"
    [pause] = recorder.sleeps
    assert 1.0 <= pause <= 1.1
    assert len(backend.used) == flaky.calls == 1


def test_budget_scope_without_coordination_is_the_object(make_policy, script):
    """Without a backend the budget object is spent and refilled, as before."""
    budget = RetryBudget(capacity=1, refill=0.5)
    policy = make_policy(budget=budget)
    assert policy.wrap(script(ServerError("503"), "ok"))() == "ok"
    assert budget.tokens == 0.5


def test_from_env_without_the_redis_package(monkeypatch):
    """``LLM_RETRY_REDIS_URL`` without the extra installed says what to install."""
    import sys

    monkeypatch.setitem(sys.modules, "llm_retry.redis", None)
    with pytest.raises(ImportError, match=r"llm-resilience\[redis\]"):
        RetryPolicy.from_env(environ={"LLM_RETRY_REDIS_URL": "redis://127.0.0.1:1/0"})


def test_from_env_reads_a_scope():
    """``LLM_RETRY_SCOPE`` names the scope; no URL means no backend."""
    policy = RetryPolicy.from_env(environ={"LLM_RETRY_SCOPE": " openai:gpt-4o "})
    assert (policy.scope, policy.coordination) == ("openai:gpt-4o", None)


# --- the Mistral adapter names its scope ----------------------------------------------------


@pytest.mark.integration
def test_mistral_adapter_calls_share_the_models_scope(clock):
    """A 429 from Mistral cools down ``mistral:<model id>``, over real loopback HTTP."""
    from adapter import Context, MistralAdapter, get_model
    from adapter.pi import UserMessage
    from adapter.testing import FakeMistral, Reply, error_object

    # The body shape and message of Mistral's 429 as the adapter's own tests use it.
    limited = Reply(
        429,
        error_object("Rate limit exceeded", error_type="rate_limited", code="1300"),
        headers={"Retry-After": "7"},
    )
    shared = InProcessCoordination(clock=clock)
    policy = RetryPolicy(coordination=shared, max_attempts=1, on_retry=None, clock=clock)
    context = Context(messages=[UserMessage(content="hi", timestamp=0)])
    with (
        FakeMistral(limited, default=None) as fake,
        MistralAdapter(api_key="k", base_url=fake.url, retry=policy) as adapter,
        pytest.raises(RateLimitError),
    ):
        adapter.complete("mistral-small-latest", context)
    model = get_model("mistral-small-latest").id  # the catalog id the adapter sends
    assert shared.cooldown(f"mistral:{model}") == 7.0
    assert shared.cooldown("default") == 0.0


@pytest.mark.integration
@pytest.mark.parametrize(
    "use_async", [pytest.param(False, id="sync"), pytest.param(True, id="async")]
)
def test_mistral_adapter_paces_by_the_headers_it_receives(clock, use_async):
    """A 200 stating no request left this minute holds the model's next call, over loopback."""
    from adapter import AsyncMistralAdapter, Context, MistralAdapter, get_model
    from adapter.pi import UserMessage
    from adapter.testing import FakeMistral, rate_limit_headers, text_reply

    spent = dataclasses.replace(
        text_reply("hi"), headers=rate_limit_headers(remaining_requests=0, remaining_tokens=9)
    )
    shared = InProcessCoordination(clock=clock, headroom=0.0)
    policy = RetryPolicy(coordination=shared, on_retry=None, clock=clock)
    context = Context(messages=[UserMessage(content="hi", timestamp=0)])
    model = f"mistral:{get_model('mistral-small-latest').id}"

    async def twice_async(url):
        async with AsyncMistralAdapter(api_key="k", base_url=url, retry=policy) as adapter:
            await adapter.complete("mistral-small-latest", context)
            with instant_retries() as recorder:
                await adapter.complete("mistral-small-latest", context)
        return recorder.sleeps

    def twice(url):
        with MistralAdapter(api_key="k", base_url=url, retry=policy) as adapter:
            adapter.complete("mistral-small-latest", context)
            with instant_retries() as recorder:
                adapter.complete("mistral-small-latest", context)
        return recorder.sleeps

    with FakeMistral(spent, text_reply("again")) as fake:
        [pause] = asyncio.run(twice_async(fake.url)) if use_async else twice(fake.url)
    assert 60.0 <= pause <= 66.0  # a minute's window, plus up to 10 % wake-up jitter
    # The second reply stated no limits: nothing holds the model's scope any more.
    assert shared.admit(model).wait == 0.0


@pytest.mark.integration
def test_mistral_adapter_estimates_its_calls_tokens(clock):
    """Its calls estimate their tokens from the request, and a spent token window holds a big one.

    8,000 tokens left of 100,000 (5,000 kept): a prompt of 20,000 characters (about
    5,000 tokens) waits for the minute's window; a short one goes at once.
    """
    from adapter import Context, MistralAdapter
    from adapter.pi import UserMessage
    from adapter.testing import FakeMistral, rate_limit_headers, text_reply

    stated = rate_limit_headers(remaining_requests=50, remaining_tokens=8_000, limit_tokens=100_000)
    policy = RetryPolicy(coordination=InProcessCoordination(clock=clock), on_retry=None)

    def second_call_sleeps(prompt):
        context = Context(messages=[UserMessage(content=prompt, timestamp=0)])
        spent = dataclasses.replace(text_reply("hi"), headers=stated)
        with (
            FakeMistral(spent, text_reply("again")) as fake,
            MistralAdapter(api_key="k", base_url=fake.url, retry=policy) as adapter,
        ):
            adapter.complete("mistral-small-latest", Context(messages=[]))
            with instant_retries() as recorder:
                adapter.complete("mistral-small-latest", context)
        return recorder.sleeps

    [pause] = second_call_sleeps("x" * 20_000)
    assert 60.0 <= pause <= 66.0  # the minute's window, plus up to 10 % wake-up jitter
    assert second_call_sleeps("hi") == []


def test_in_process_repr_names_the_cap():
    """The repr shows the settings."""
    assert repr(InProcessCoordination(max_cooldown=30)) == (
        "InProcessCoordination(max_cooldown=30, probe_lease=1, headroom=0.05)"
    )


# --- pacing from stated rate limits -------------------------------------------------------

SPENT = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "7s"}


@pytest.mark.parametrize(
    "use_async", [pytest.param(False, id="sync"), pytest.param(True, id="async")]
)
def test_stated_limits_pace_the_next_attempt(make_policy, clock, script, use_async):
    """A response that left no request: the next attempt waits for the stated refill."""
    shared = InProcessCoordination(clock=clock, headroom=0.0)
    policy = make_policy(coordination=shared, scope="s")
    stated = policy.record_rate_limits(SPENT)
    assert stated.windows[0].reset == 7.0
    backend = script("ok")
    call = policy.wrap(backend.acall if use_async else backend)
    with instant_retries() as recorder:
        assert (asyncio.run(call()) if use_async else call()) == "ok"
    [pause] = recorder.sleeps
    assert 7.0 <= pause <= 7.7  # the refill, plus up to 10 % wake-up jitter
    assert backend.calls == 1


TOKENS_LEFT = {
    "x-ratelimit-limit-tokens": "100000",
    "x-ratelimit-remaining-tokens": "9000",
    "x-ratelimit-reset-tokens": "30s",
}


@pytest.mark.parametrize(
    "use_async", [pytest.param(False, id="sync"), pytest.param(True, id="async")]
)
def test_token_estimates_pace_attempts(make_policy, clock, script, use_async):
    """9,000 tokens left, 5 % kept: a call estimated at 3,000 goes; the next waits its share.

    OpenAI's bucket refills steadily: 91,000 tokens in 30 s, so the 2,000 the second call
    lacks come in 0.66 s.
    """
    shared = InProcessCoordination(clock=clock, headroom=0.05)
    policy = make_policy(coordination=shared, scope="s", estimate_tokens=lambda size: size)
    policy.record_rate_limits(TOKENS_LEFT)
    backend = script("ok", "ok", "ok")
    call = policy.wrap(backend.acall if use_async else backend)
    with instant_retries() as recorder:
        for size in (3_000, 3_000, 100):
            assert (asyncio.run(call(size)) if use_async else call(size)) == "ok"
    [pause] = recorder.sleeps  # the second: 3,000 would leave 3,000 of the 5,000 kept
    share = 2_000 / (91_000 / 30)
    assert share <= pause <= share * 1.1  # plus up to 10 % wake-up jitter
    assert backend.calls == 3


@pytest.mark.parametrize(
    ("estimate", "error", "message"),
    [
        (lambda: -1, ValueError, r"estimate_tokens\(\) must be >= 0"),
        (lambda: 10**13, ValueError, r"estimate_tokens\(\) must be <= 1000000000000"),
        (lambda: 2.5, TypeError, r"estimate_tokens\(\) must be an int, got float"),
    ],
)
def test_a_wrong_estimate_names_the_field(make_policy, script, estimate, error, message):
    """A programming error in the estimate is raised before any attempt, naming it."""
    shared = InProcessCoordination()
    backend = script("ok")
    with pytest.raises(error, match=message):
        make_policy(coordination=shared, estimate_tokens=estimate).wrap(backend)()
    assert backend.calls == 0
    with pytest.raises(TypeError, match="estimate_tokens"):
        make_policy(estimate_tokens=3)


def test_the_first_arguments_own_estimate_is_read_when_the_policy_has_none(make_policy):
    """``llm_retry_tokens`` as ``llm_retry_scope``: a whole number is read, anything else is 0."""

    class Call:
        def __init__(self, tokens):
            self.llm_retry_tokens = tokens

    policy = make_policy()
    assert policy.tokens_of(Call(1_200)) == 1_200
    assert [policy.tokens_of(Call(v)) for v in (-1, True, "9", 2.0, 10**13)] == [0] * 5
    assert policy.tokens_of() == 0
    assert make_policy(estimate_tokens=lambda _call: 7).tokens_of(Call(1_200)) == 7


def test_a_backend_without_token_pacing_serves_policies_without_estimates(
    make_policy, clock, script, caplog
):
    """Only an estimate is passed on: a backend of one's own needs no ``tokens`` keyword."""
    backend = Recording()
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        assert make_policy(coordination=backend, scope="s").wrap(script("ok"))() == "ok"
    assert caplog.records == []
    assert ("admit", "s") in backend.used


def test_scope_of_names_what_a_call_shares(make_policy):
    """The policy's name, its function of the arguments, the argument's own, else default."""

    class Call:
        llm_retry_scope = "mistral:small"

    assert make_policy(scope="s").scope_of(Call()) == "s"
    assert (
        make_policy(scope=lambda call, n: f"{call.llm_retry_scope}-{n}").scope_of(Call(), n=2)
        == "mistral:small-2"
    )
    assert make_policy().scope_of(Call()) == "mistral:small"
    assert make_policy().scope_of() == "default"


def test_async_records_go_through_the_async_operation(make_policy, clock):
    """``arecord_rate_limits`` awaits the backend's ``arecord_limits``: no loop blocks on it."""
    backend = Recording()
    recorded = []

    async def arecord_limits(scope, limits):
        recorded.append((scope, limits.windows[0].reset))

    backend.arecord_limits = arecord_limits
    policy = make_policy(coordination=backend, scope="s")
    asyncio.run(policy.arecord_rate_limits(SPENT))
    assert recorded == [("s", 7.0)]


def test_a_refill_past_the_deadline_fails_fast(make_policy, clock, script):
    """Not attempted, not waited: the error says when the scope admits again."""
    shared = InProcessCoordination(clock=clock, headroom=0.0)
    policy = make_policy(coordination=shared, scope="s", deadline=5.0)
    policy.record_rate_limits(SPENT)
    backend = script("ok")
    with pytest.raises(RateLimitError) as raised:
        policy.wrap(backend)()
    assert backend.calls == 0
    assert "'s' admits its next attempt in 7.00s" in str(raised.value)
    assert retry_info(raised.value).reason is GiveUpReason.COOLDOWN


def test_records_go_to_the_named_scope(make_policy, clock):
    """The scope given, else the policy's (its name, its function's); none without a backend."""
    shared = InProcessCoordination(clock=clock, headroom=0.0)
    make_policy(coordination=shared, scope="mine").record_rate_limits(SPENT)
    make_policy(coordination=shared).record_rate_limits(SPENT, scope="given")
    make_policy(coordination=shared, scope=lambda: "x").record_rate_limits(SPENT)
    assert [shared.admit(name).wait for name in ("mine", "given", "x", "default")] == [
        7.0,
        7.0,
        7.0,
        0.0,
    ]
    assert make_policy().record_rate_limits(SPENT).windows  # read, kept nowhere
    with pytest.raises(ValueError, match="scope"):
        make_policy(coordination=shared).record_rate_limits(SPENT, scope="a{b}")


def test_a_paced_prober_frees_the_lease(clock):
    """After a cooldown, a prober held by the pace gives the lease back for the refill."""
    shared = InProcessCoordination(clock=clock, headroom=0.0, probe_lease=30.0)
    shared.extend_cooldown("s", 1.0)
    clock.advance(1.0)
    shared.record_limits("s", RateLimits((Window(Unit.REQUESTS, 0, None, 4.0),)))
    assert shared.admit("s") == Admission(4.0)
    clock.advance(4.0)
    probe = shared.admit("s")
    assert probe.wait == 0.0
    assert probe.probe is not None  # the lease was free to take


def test_a_backend_without_pacing_takes_no_record(make_policy, clock, script, caplog):
    """A backend of one's own need not pace: records are dropped, silently."""
    backend = Recording()
    policy = make_policy(coordination=backend, scope="s")
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        policy.record_rate_limits(SPENT)
        assert policy.wrap(script("ok"))() == "ok"
    assert caplog.records == []


# --- the circuit breaker -------------------------------------------------------------------

BREAKER = CircuitBreaker(min_calls=4, failure_ratio=0.5, window=30.0, open_for=5.0)


def broken_scope(make_policy, clock, **settings):
    """A backend with a breaker, a policy under scope "s", and the hooks' events."""
    shared = InProcessCoordination(clock=clock, breaker=BREAKER, **settings)
    return shared, make_policy(coordination=shared, scope="s", max_attempts=1)


def test_an_outage_opens_the_breaker_and_calls_then_fail_at_once(make_policy, clock, script):
    """Four 503s: the fifth call is not attempted, fails SERVER with the time to the probe."""
    shared, policy = broken_scope(make_policy, clock)
    outage = script(ServerError("503", status=503))
    seen = []
    with set_on_retry_hooks([seen.append]):
        for _ in range(4):
            with pytest.raises(ServerError):
                policy.wrap(outage)()
        clock.advance(1.0)
        with pytest.raises(ServerError) as raised:
            policy.wrap(outage)()
    assert outage.calls == 4
    assert raised.value.retry_after == 4.0
    assert classify(raised.value).code is ErrorCode.SERVER
    info = retry_info(raised.value)
    assert (info.reason, info.attempts) == (GiveUpReason.BREAKER_OPEN, 0)
    assert "circuit breaker of scope 's' is open" in str(raised.value)
    assert shared.breaker_state("s") == (BreakerState.OPEN, 4.0)
    assert [e for e in seen if isinstance(e, BreakerEvent)] == [
        BreakerEvent(scope="s", state=BreakerState.OPEN, open_for=5.0)
    ]


def test_no_call_pays_more_than_one_failed_attempt_after_it_opens(make_policy, clock, script):
    """A call whose failure opened the breaker does not retry into it."""
    shared = InProcessCoordination(clock=clock, breaker=BREAKER)
    policy = make_policy(
        coordination=shared, scope="s", max_attempts=9, initial_wait=0.1, max_wait=0.1
    )
    outage = script(ServerError("503", status=503))
    first = policy_error(policy, outage)
    assert outage.calls == 4  # the fourth failure opened it: no fifth attempt
    assert retry_info(first).reason is GiveUpReason.BREAKER_OPEN
    assert retry_info(first).attempts == 4
    assert retry_info(policy_error(policy, outage)).reason is GiveUpReason.BREAKER_OPEN
    assert outage.calls == 4


def policy_error(policy, backend):
    with pytest.raises(ServerError) as raised:
        policy.wrap(backend)()
    return raised.value


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(InvalidRequestError("400", status=400), id="invalid-request"),
        pytest.param(AuthError("401", status=401), id="auth"),
    ],
)
def test_permanent_failures_never_open_it(make_policy, clock, script, error):
    """A bad request says nothing about the provider's health."""
    shared, policy = broken_scope(make_policy, clock)
    backend = script(error)
    for _ in range(10):
        with pytest.raises(type(error)):
            policy.wrap(backend)()
    assert backend.calls == 10
    assert shared.breaker_state("s") == (BreakerState.CLOSED, 0.0)


def test_a_probe_that_gets_through_closes_it(make_policy, clock, script):
    """After open_for one call probes; the others fail at once; its success closes it."""
    shared, policy = broken_scope(make_policy, clock)
    seen = []
    with set_on_retry_hooks([seen.append]):
        for _ in range(4):
            shared.record_outcome("s", failed=True)
        clock.advance(5.0)
        probe = shared.admit("s")
        assert probe.wait == 0.0
        assert probe.probe is not None
        assert shared.breaker_state("s") == (BreakerState.HALF_OPEN, 0.0)
        other = shared.admit("s")
        assert other.refused is GiveUpReason.BREAKER_OPEN
        assert other.wait > 0.0
        shared.record_outcome("s", failed=False)
        shared.end_probe("s", probe.probe, lifted=True)
        backend = script("ok")
        assert policy.wrap(backend)() == "ok"
    assert shared.breaker_state("s") == (BreakerState.CLOSED, 0.0)
    assert [e.state for e in seen if isinstance(e, BreakerEvent)] == [
        BreakerState.OPEN,
        BreakerState.HALF_OPEN,
        BreakerState.CLOSED,
    ]


def test_a_failed_probe_reopens_it_for_twice_as_long(make_policy, clock, script):
    """Through the policy: the probe's 503 opens the breaker for 10 s, then 20 s."""
    shared, policy = broken_scope(make_policy, clock)
    outage = script(ServerError("503", status=503))
    for _ in range(4):
        with pytest.raises(ServerError):
            policy.wrap(outage)()
    for open_for in (10.0, 20.0):
        clock.advance(shared.breaker_state("s")[1])
        with pytest.raises(ServerError):
            policy.wrap(outage)()  # the probe: attempted, failed
        assert shared.breaker_state("s") == (BreakerState.OPEN, open_for)
    assert outage.calls == 6


def test_a_breaker_of_one_scope_leaves_the_others_alone(make_policy, clock, script):
    shared, _ = broken_scope(make_policy, clock)
    for _ in range(4):
        shared.record_outcome("s", failed=True)
    assert shared.admit("other") == Admission(0.0)
    assert make_policy(coordination=shared, scope="other").wrap(script("ok"))() == "ok"


def test_without_a_breaker_outcomes_are_not_kept(clock):
    shared = InProcessCoordination(clock=clock)
    for _ in range(100):
        shared.record_outcome("s", failed=True)
    assert shared.breaker_state("s") == (BreakerState.CLOSED, 0.0)
    assert shared.admit("s") == Admission(0.0)


def test_a_hook_may_ask_the_backend_while_it_is_told(make_policy, clock):
    """Events are sent outside the backend's lock: a hook that reads the state does not hang."""
    shared = InProcessCoordination(clock=clock, breaker=BREAKER)
    states = []
    with set_on_retry_hooks([lambda _event: states.append(shared.breaker_state("s")[0])]):
        for _ in range(4):
            shared.record_outcome("s", failed=True)
    assert states == [BreakerState.OPEN]


# --- a spent quota, parked ------------------------------------------------------------------


def spent_quota():
    """A spent quota whose reset the server stated, two hours away."""
    return QuotaExceededError("daily quota exhausted", retry_after=7200.0)


@pytest.mark.parametrize(
    "use_async", [pytest.param(False, id="sync"), pytest.param(True, id="async")]
)
def test_a_stated_reset_parks_the_scope_for_every_call(make_policy, clock, script, use_async):
    """The next call is not attempted: QUOTA_EXCEEDED at once, with the time to the reset."""
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="s", max_attempts=3)
    backend = script(spent_quota())
    call = policy.wrap(backend.acall if use_async else backend)
    for _ in range(2):
        with pytest.raises(QuotaExceededError) as raised:
            asyncio.run(call()) if use_async else call()
    assert backend.calls == 1
    assert raised.value.retry_after == 7200.0
    assert classify(raised.value).code is ErrorCode.QUOTA_EXCEEDED
    info = retry_info(raised.value)
    assert (info.reason, info.attempts) == (GiveUpReason.QUOTA_PARKED, 0)
    assert "quota of scope 's' is spent; it resets in 7200s" in str(raised.value)
    assert clock.sleeps == []
    clock.advance(7200.0)
    assert shared.parked("s") == 0.0
    assert policy.wrap(script("ok"))() == "ok"


def test_a_stated_reset_instant_parks_the_scope_until_then(make_policy, clock, script, monkeypatch):
    """A quota that says *when* it resets (``resets_at``) parks until that instant.

    The error raised to the next call carries the instant too, for a caller that
    schedules the work again.
    """
    now = 1_788_213_600.0  # 2026-08-31T22:00:00Z; the quota resets two hours later
    monkeypatch.setattr("time.time", lambda: now)
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="s", max_attempts=3)
    backend = script(QuotaExceededError("plan limit reached", resets_at=now + 7200.0))
    call = policy.wrap(backend)
    with pytest.raises(QuotaExceededError) as first:
        call()
    assert first.value.retry_after is None
    assert shared.parked("s") == 7200.0
    with pytest.raises(QuotaExceededError) as parked:
        call()
    assert backend.calls == 1
    assert (parked.value.retry_after, parked.value.resets_at) == (7200.0, now + 7200.0)
    assert classify(parked.value).resets_at == now + 7200.0


def test_a_gemini_per_day_quota_parks_the_scope_until_midnight_pacific(
    make_policy, clock, script, monkeypatch
):
    """Its RetryInfo says 51 s, but the day's quota is back only at midnight in Los Angeles."""
    rules = tomllib.loads(BUILTIN_RULES.read_text(encoding="utf-8"))["rules"]
    [text] = [r["examples"][0]["text"] for r in rules if r["id"] == "gemini.free-tier-daily"]
    now = 1_796_655_600.0  # 2026-12-07T15:00:00Z, 07:00 in Los Angeles
    monkeypatch.setattr("time.time", lambda: now)
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="gemini", max_attempts=3)
    backend = script(RuntimeError(text))
    with pytest.raises(RuntimeError):
        policy.wrap(backend)()
    assert classify(RuntimeError(text)).retry_after == pytest.approx(51.606482386)
    assert shared.parked("gemini") == 17 * 3600.0  # until 2026-12-08T08:00:00Z
    assert backend.calls == 1


def test_a_reset_instant_already_past_parks_nothing(make_policy, clock, script, monkeypatch):
    """An instant in the past is a wait of 0: nothing is parked."""
    monkeypatch.setattr("time.time", lambda: 1_788_213_600.0)
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="s", max_attempts=1)
    with pytest.raises(QuotaExceededError):
        policy.wrap(script(QuotaExceededError("spent", resets_at=1_788_000_000.0)))()
    assert shared.parked("s") == 0.0


def test_a_spent_quota_without_a_stated_reset_parks_nothing(make_policy, clock, script):
    shared = InProcessCoordination(clock=clock)
    policy = make_policy(coordination=shared, scope="s", max_attempts=1)
    with pytest.raises(QuotaExceededError):
        policy.wrap(script(QuotaExceededError("insufficient_quota")))()
    assert shared.parked("s") == 0.0


def test_wait_for_reset_waits_for_a_near_reset_within_the_deadline(make_policy, clock, script):
    """Batch jobs: a reset within wait_for_reset (and the deadline) is waited for."""
    shared = InProcessCoordination(clock=clock)
    shared.park("s", 120.0)
    waiting = make_policy(coordination=shared, scope="s", wait_for_reset=600.0, deadline=900.0)
    with instant_retries() as recorder:
        assert waiting.wrap(script("ok"))() == "ok"
    [pause] = recorder.sleeps
    assert 120.0 <= pause <= 132.0
    shared.park("s", 120.0)
    short = make_policy(coordination=shared, scope="s", wait_for_reset=60.0)
    with pytest.raises(QuotaExceededError):
        short.wrap(script("ok"))()
    bounded = make_policy(coordination=shared, scope="s", wait_for_reset=600.0, deadline=30.0)
    with pytest.raises(RateLimitError) as raised:
        bounded.wrap(script("ok"))()
    assert retry_info(raised.value).reason is GiveUpReason.COOLDOWN
    assert "in 120.00s (its quota's reset), after this call's deadline" in str(raised.value)


def test_parking_keeps_the_later_reset_is_capped_and_bounded(clock):
    shared = InProcessCoordination(clock=clock, max_scopes=2)
    shared.park("s", 100.0)
    shared.park("s", 50.0)
    assert shared.parked("s") == 100.0
    shared.park("long", 10**9)
    assert shared.parked("long") == MAX_PARK
    shared.park("third", 5.0)  # two parked already: the one resetting soonest goes
    assert [shared.parked(name) for name in ("s", "long", "third")] == [0.0, MAX_PARK, 5.0]
    assert shared.admit("third") == Admission(5.0, refused=GiveUpReason.QUOTA_PARKED)


def test_from_mapping_refuses_a_scope_that_is_not_a_string():
    """A scope from configuration is a name; anything else names the key."""
    with pytest.raises(TypeError, match="scope must be a string"):
        RetryPolicy.from_mapping({"scope": 3})


# --- a backend that fails is never the call's failure ---------------------------------------


class Broken(Recording):
    """A backend of the test's own with a bug: every operation raises."""

    def _fail(self, operation):
        self.used.append(operation)
        raise RuntimeError(f"{operation}: a bug in the backend")

    def admit(self, *_args, **_kwargs):
        """Raise."""
        self._fail("admit")

    def extend_cooldown(self, *_args, **_kwargs):
        """Raise."""
        self._fail("extend_cooldown")

    def end_probe(self, *_args, **_kwargs):
        """Raise."""
        self._fail("end_probe")

    def try_spend(self, *_args, **_kwargs):
        """Raise."""
        self._fail("try_spend")

    def record_success(self, *_args, **_kwargs):
        """Raise."""
        self._fail("record_success")

    async def aadmit(self, *_args, **_kwargs):
        """Raise."""
        self._fail("aadmit")

    async def aextend_cooldown(self, *_args, **_kwargs):
        """Raise."""
        self._fail("aextend_cooldown")

    async def aend_probe(self, *_args, **_kwargs):
        """Raise."""
        self._fail("aend_probe")

    async def atry_spend(self, *_args, **_kwargs):
        """Raise."""
        self._fail("atry_spend")

    async def arecord_success(self, *_args, **_kwargs):
        """Raise."""
        self._fail("arecord_success")

    def record_limits(self, *_args, **_kwargs):
        """Raise."""
        self._fail("record_limits")


@pytest.mark.parametrize(
    "use_async", [pytest.param(False, id="sync"), pytest.param(True, id="async")]
)
def test_a_backend_that_raises_never_fails_the_call(make_policy, script, caplog, use_async):
    """Every operation raising: calls go on as without coordination, one WARNING per operation."""
    backend = Broken()
    budget = RetryBudget(capacity=2, refill=1.0)
    policy = make_policy(coordination=backend, scope="s", budget=budget)
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        for _ in range(2):
            flaky = script(RateLimitError("429", retry_after=2.0), "ok")
            if use_async:
                assert asyncio.run(policy.wrap(flaky.acall)()) == "ok"
            else:
                assert policy.wrap(flaky)() == "ok"
            assert flaky.calls == 2  # retried by the policy, as without a backend
    prefix = "a" if use_async else ""
    operations = [f"{prefix}{name}" for name in ("admit", "extend_cooldown", "try_spend")]
    operations += [f"{prefix}admit", f"{prefix}record_success"]
    assert backend.used == operations * 2
    assert budget.tokens == 2.0  # the budget object was spent and refilled instead
    warnings = sorted(r.getMessage() for r in caplog.records if r.name == "llm_retry")
    assert warnings == [
        f"llm_retry: Broken.{operation}() raised RuntimeError; the call goes on without "
        "coordination for it (reported once per process)"
        for operation in sorted(set(operations))
    ]
    assert "a bug in the backend" not in caplog.text


def test_a_record_that_raises_never_fails_the_caller(make_policy, caplog):
    """Recording a response's limits into a broken backend: one WARNING, nothing raised."""
    policy = make_policy(coordination=Broken(), scope="s")
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        assert policy.record_rate_limits(SPENT).windows
    [warning] = [r.getMessage() for r in caplog.records]
    assert warning == (
        "llm_retry: Broken.record_limits() raised RuntimeError; the call goes on without "
        "coordination for it (reported once per process)"
    )


class ProbeEndBroken(Recording):
    """A backend of the test's own that grants a probe and raises when it is ended."""

    def end_probe(self, *_args, **_kwargs):
        """Raise."""
        self.used.append("end_probe")
        raise RuntimeError("end_probe: a bug in the backend")

    async def aend_probe(self, *_args, **_kwargs):
        """Raise."""
        self.used.append("aend_probe")
        raise RuntimeError("aend_probe: a bug in the backend")


@pytest.mark.parametrize(
    "use_async", [pytest.param(False, id="sync"), pytest.param(True, id="async")]
)
def test_a_probe_end_that_raises_never_fails_the_call(make_policy, script, caplog, use_async):
    """Ending the probe raising: the probing call still returns its result, one WARNING."""
    backend = ProbeEndBroken(probe="t")
    policy = make_policy(coordination=backend, scope="s")
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        if use_async:
            assert asyncio.run(policy.wrap(script("ok").acall)()) == "ok"
        else:
            assert policy.wrap(script("ok"))() == "ok"
    operation = "aend_probe" if use_async else "end_probe"
    assert backend.used == [("aadmit" if use_async else "admit", "s"), operation]
    warnings = [r.getMessage() for r in caplog.records if r.name == "llm_retry"]
    assert warnings == [
        (
            f"llm_retry: ProbeEndBroken.{operation}() raised RuntimeError; the call goes on "
            "without coordination for it (reported once per process)"
        )
    ]


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(Admission(float("nan")), id="nan"),
        pytest.param(Admission(float("inf")), id="inf"),
        pytest.param(Admission(-1.0), id="negative"),
        pytest.param(Admission("soon"), id="text"),
        pytest.param(Admission(0.0, 7), id="token"),
        pytest.param((1.0, None), id="tuple"),
        pytest.param(None, id="none"),
    ],
)
def test_an_admission_a_call_cannot_act_on_is_not_waited(make_policy, clock, caplog, answer):
    """A backend answering no usable wait: the call attempts at once, one WARNING."""

    class Odd(Recording):
        def admit(self, scope):
            """Answer the odd admission."""
            self.used.append(("admit", scope))
            return answer

    policy = make_policy(coordination=Odd(), scope="s", deadline=math.inf)
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        assert policy.wrap(lambda: "ok")() == "ok"
        assert policy.wrap(lambda: "ok")() == "ok"
    assert clock.sleeps == []
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "llm_retry"]
    assert "Odd.admit() answered " in warning
    assert "not an Admission with a finite wait >= 0" in warning
