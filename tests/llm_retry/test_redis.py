"""RedisCoordination against a real redis-server that the suite starts (see conftest)."""

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from redis.crc import key_slot

from llm_errors import RateLimitError
from llm_retry import GiveUpReason, RetryBudget, RetryPolicy, retry_info
from llm_retry.redis import RedisCoordination

pytestmark = pytest.mark.integration

WORKER = Path(__file__).with_name("fleet_worker.py")
SCOPE = "openai:gpt-4o"


@pytest.fixture
def coordination(redis_server, prefix):
    """A backend on the session's server, closed after the test."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0)
    yield backend
    backend.close()


def run_workers(*jobs):
    """Run each job in its own Python process at once; their JSON results, in order."""
    processes = [
        subprocess.Popen(  # noqa: S603 - this interpreter and our own worker script
            [sys.executable, str(WORKER), *map(str, job)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for job in jobs
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        results.append(json.loads(out))
    return results


def limited(retry_after):
    """A backend that always answers 429 with ``Retry-After``, counting its calls."""
    calls = []

    def call():
        calls.append(time.monotonic())
        raise RateLimitError("429 Too Many Requests", status=429, retry_after=retry_after)

    return call, calls


# --- keys -----------------------------------------------------------------------------


def test_keys_are_namespaced_and_hash_tagged(coordination, prefix):
    """A scope's keys carry the prefix and share one Redis Cluster slot (its hash tag)."""
    cooldown, budget = coordination.key(SCOPE, "cooldown"), coordination.key(SCOPE, "budget")
    assert cooldown == f"{prefix}:{{{SCOPE}}}:cooldown"
    assert budget == f"{prefix}:{{{SCOPE}}}:budget"
    assert key_slot(cooldown.encode()) == key_slot(budget.encode()) == key_slot(SCOPE.encode())


def test_every_key_has_a_ttl(redis_server, prefix):
    """Cooldown keys outlive their cooldown by about a second, budget keys live key_ttl."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, key_ttl=30.0, timeout=2.0)
    budget = RetryBudget(capacity=3)
    try:
        backend.extend_cooldown(SCOPE, 2.0)
        assert backend.try_spend(SCOPE, budget)
    finally:
        backend.close()
    client = redis_server.client()
    try:
        expected = sorted([backend.key(SCOPE, "budget"), backend.key(SCOPE, "cooldown")])
        assert sorted(client.scan_iter(match=f"{prefix}:*")) == [k.encode() for k in expected]
        assert 2000 < client.pttl(backend.key(SCOPE, "cooldown")) <= 3000
        assert 29_000 < client.pttl(backend.key(SCOPE, "budget")) <= 30_000
    finally:
        client.close()


def test_a_full_bucket_leaves_no_key(coordination, redis_server):
    """Refilled to capacity, the budget key is deleted: an idle fleet leaves nothing."""
    budget = RetryBudget(capacity=2, refill=0.5)
    assert coordination.try_spend(SCOPE, budget)
    client = redis_server.client()
    try:
        assert client.get(coordination.key(SCOPE, "budget")) == b"1"
        coordination.record_success(SCOPE, budget)
        assert client.get(coordination.key(SCOPE, "budget")) == b"1.5"
        coordination.record_success(SCOPE, budget)
        assert client.exists(coordination.key(SCOPE, "budget")) == 0
    finally:
        client.close()


def test_cooldown_deadline_is_in_the_servers_clock(coordination, redis_server):
    """The stored deadline is Redis ``TIME`` plus the cooldown, in microseconds."""
    client = redis_server.client()
    try:
        coordination.extend_cooldown(SCOPE, 5.0)
        seconds, micros = client.time()
        stored = int(client.get(coordination.key(SCOPE, "cooldown")))
        assert abs(stored - (seconds * 1_000_000 + micros) - 5_000_000) < 500_000
    finally:
        client.close()


# --- cooldown ---------------------------------------------------------------------------


def test_the_later_cooldown_wins(coordination):
    """Extending keeps the later of the stored and the new deadline."""
    coordination.extend_cooldown(SCOPE, 4.0)
    coordination.extend_cooldown(SCOPE, 1.0)
    assert 3.0 < coordination.cooldown(SCOPE) <= 4.0
    coordination.extend_cooldown(SCOPE, 8.0)
    assert 7.0 < coordination.cooldown(SCOPE) <= 8.0
    assert coordination.cooldown("other:model") == 0.0


def test_cooldown_is_capped(redis_server, prefix):
    """A server asking for an hour gets max_cooldown."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, max_cooldown=3.0, timeout=2.0)
    try:
        backend.extend_cooldown(SCOPE, 3600.0)
        assert 2.0 < backend.cooldown(SCOPE) <= 3.0
    finally:
        backend.close()


def test_cooldown_is_shared_across_processes(redis_server, prefix):
    """One process's 429 makes another wait before its first attempt, or fail fast."""
    [hit] = run_workers(("rate_limit", redis_server.url, prefix, SCOPE, 6.0))
    assert hit == {"limited": True, "fallbacks": 0}
    client = redis_server.client()
    try:
        ends = int(client.get(f"{prefix}:{{{SCOPE}}}:cooldown")) / 1_000_000
    finally:
        client.close()
    patient, hasty, elsewhere = run_workers(
        ("call", redis_server.url, prefix, SCOPE, 30),
        ("call", redis_server.url, prefix, SCOPE, 0.05),
        ("call", redis_server.url, prefix, "other:model", 30),
    )
    # The patient one waited (the rest of) the cooldown before its first attempt; the
    # hasty one's deadline ends first, so it was never attempted.
    assert patient["outcome"] == "ok"
    assert patient["first_attempt_after"] > 0.01  # it did wait (it started well before the end)
    assert patient["first_attempt_at"] >= ends - 0.005  # and not before the recorded end
    assert hasty == {
        "outcome": "rate_limited",
        "reason": GiveUpReason.COOLDOWN,
        "attempts": 0,
        "fallbacks": 0,
    }
    assert elsewhere["outcome"] == "ok"
    assert elsewhere["first_attempt_after"] < patient["first_attempt_after"]


def sleeper(slept):
    """A real ``time.sleep`` that records what it was asked."""

    def sleep(seconds):
        slept.append(seconds)
        time.sleep(seconds)

    return sleep


def test_a_call_waits_out_the_cooldown_before_its_first_attempt(coordination):
    """The wait is what Redis says is left, plus at most 10 % jitter; then it asks again."""
    slept = []
    policy = RetryPolicy(
        coordination=coordination, scope=SCOPE, on_retry=None, sleep=sleeper(slept)
    )
    coordination.extend_cooldown(SCOPE, 0.5)
    started = time.monotonic()
    assert policy.wrap(lambda: "ok")() == "ok"
    took = time.monotonic() - started
    assert 0.3 < slept[0] <= 0.55
    assert sum(slept) <= 0.55 + 0.05  # at most a short top-up after the server's clock
    assert took < 0.55 + 0.25


def test_a_call_whose_deadline_ends_first_fails_fast(coordination):
    """No attempt, a RateLimitError naming the cooldown and the deadline, reason cooldown."""
    backend, calls = limited(1.0)
    policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None, deadline=0.5)
    coordination.extend_cooldown(SCOPE, 3.0)
    with pytest.raises(RateLimitError) as raised:
        policy.wrap(backend)()
    assert calls == []
    info = retry_info(raised.value)
    assert (info.reason, info.attempts) == (GiveUpReason.COOLDOWN, 0)
    assert "shared cooldown" in str(raised.value)
    assert "deadline (0.5s)" in str(raised.value)
    assert 2.0 < raised.value.retry_after <= 3.0


def test_a_429_sets_the_cooldown_for_the_scope(coordination):
    """A rate limit with Retry-After, seen by one call, is recorded for the scope."""
    backend, _ = limited(2.0)
    policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None, max_attempts=1)
    with pytest.raises(RateLimitError):
        policy.wrap(backend)()
    assert 1.5 < coordination.cooldown(SCOPE) <= 2.0


def test_a_retry_waits_for_a_cooldown_another_caller_extended(coordination):
    """Before a retry too: a longer cooldown set meanwhile is waited out."""
    slept = []

    def backend():
        if not slept:
            # Meanwhile another process saw a longer Retry-After for the same scope.
            coordination.extend_cooldown(SCOPE, 3.0)
            raise RateLimitError("429", status=429, retry_after=0.0)
        return "ok"

    policy = RetryPolicy(
        coordination=coordination, scope=SCOPE, on_retry=None, sleep=sleeper(slept)
    )
    assert policy.wrap(backend)() == "ok"
    # The retry's own wait (Retry-After: 0), then the shared cooldown's, to its end.
    assert slept[0] == 0.0
    assert 2.5 < slept[1] <= 3.3
    assert sum(slept) <= 3.35


# --- budget -----------------------------------------------------------------------------


def test_budget_has_retry_budget_semantics(coordination):
    """Starts full, a token per retry, refill per success up to capacity, none below one."""
    budget = RetryBudget(capacity=2, refill=0.4)
    assert [coordination.try_spend(SCOPE, budget) for _ in range(3)] == [True, True, False]
    coordination.record_success(SCOPE, budget)
    coordination.record_success(SCOPE, budget)
    assert not coordination.try_spend(SCOPE, budget)  # 0.8 tokens
    coordination.record_success(SCOPE, budget)
    assert coordination.try_spend(SCOPE, budget)  # 1.2 tokens
    assert budget.tokens == 2.0  # the local object is the fallback only


def test_budget_atomic_under_many_processes(redis_server, prefix):
    """Eight processes racing for tokens take exactly the bucket's capacity."""
    results = run_workers(*[("spend", redis_server.url, prefix, SCOPE, 100, 40)] * 8)
    assert sum(result["granted"] for result in results) == 100
    assert all(result["fallbacks"] == 0 for result in results)


def test_policy_spends_the_shared_budget(coordination):
    """Two policies of a fleet, each with its own budget object, draw on one bucket."""
    backend, calls = limited(0.0)
    budgets = [RetryBudget(capacity=2, refill=0.1) for _ in range(2)]
    policies = [
        RetryPolicy(
            coordination=coordination,
            scope=SCOPE,
            budget=budget,
            on_retry=None,
            sleep=lambda _: None,
            max_attempts=10,
        )
        for budget in budgets
    ]
    with pytest.raises(RateLimitError) as first:
        policies[0].wrap(backend)()
    assert retry_info(first.value).attempts == 3  # two retries: the whole bucket
    with pytest.raises(RateLimitError) as second:
        policies[1].wrap(backend)()
    assert retry_info(second.value).reason is GiveUpReason.BUDGET_EXHAUSTED
    assert len(calls) == 4
    assert [budget.tokens for budget in budgets] == [2.0, 2.0]  # fallbacks, untouched


# --- async ------------------------------------------------------------------------------


def test_async_client_shares_the_same_state(coordination):
    """The asyncio client reads and writes the same keys as the sync one."""
    budget = RetryBudget(capacity=1, refill=1.0)

    async def main():
        try:
            await coordination.aextend_cooldown(SCOPE, 2.0)
            assert 1.5 < await coordination.acooldown(SCOPE) <= 2.0
            assert await coordination.atry_spend(SCOPE, budget)
            assert not coordination.try_spend(SCOPE, budget)
            await coordination.arecord_success(SCOPE, budget)
            assert coordination.try_spend(SCOPE, budget)
        finally:
            await coordination.aclose()

    asyncio.run(main())
    assert 1.0 < coordination.cooldown(SCOPE) <= 2.0


def test_async_call_waits_out_the_cooldown(coordination):
    """An async call waits the cooldown with ``async_sleep`` before its first attempt."""
    slept = []

    async def record(seconds):
        slept.append(seconds)
        await asyncio.sleep(seconds)

    async def work():
        return "ok"

    policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None, async_sleep=record)

    async def main():
        try:
            await coordination.aextend_cooldown(SCOPE, 1.0)
            return await policy.wrap(work)()
        finally:
            await coordination.aclose()

    assert asyncio.run(main()) == "ok"
    assert 0.5 < slept[0] <= 1.1
    assert sum(slept) <= 1.15


def test_async_429_sets_the_cooldown_and_fails_the_next_call_fast(coordination):
    """Async calls record a cooldown and honour it, through the asyncio client."""
    calls = []

    async def backend():
        calls.append(1)
        raise RateLimitError("429", status=429, retry_after=5.0)

    policy = RetryPolicy(
        coordination=coordination, scope=SCOPE, on_retry=None, max_attempts=1, deadline=1.0
    )

    async def main():
        try:
            with pytest.raises(RateLimitError):
                await policy.wrap(backend)()
            with pytest.raises(RateLimitError) as second:
                await policy.wrap(backend)()
            return retry_info(second.value)
        finally:
            await coordination.aclose()

    info = asyncio.run(main())
    assert info.reason is GiveUpReason.COOLDOWN
    assert calls == [1]


# --- fail open --------------------------------------------------------------------------


def test_fail_open_when_the_server_stops_mid_test(own_redis_server, prefix, caplog):
    """Calls go on with this process's state, one warning, and a counter of fallbacks."""
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, pause=0.0, timeout=2.0)
    budget = RetryBudget(capacity=1, refill=1.0)
    policy = RetryPolicy(
        coordination=backend, scope=SCOPE, budget=budget, on_retry=None, sleep=lambda _: None
    )
    flaky_calls = []

    def flaky():
        flaky_calls.append(1)
        if len(flaky_calls) % 2:
            raise RateLimitError("429", status=429, retry_after=0.0)
        return "ok"

    try:
        assert policy.wrap(flaky)() == "ok"
        assert backend.fallbacks == 0
        backend.extend_cooldown(SCOPE, 0.5)
        own_redis_server.stop()
        with caplog.at_level(logging.WARNING, logger="llm_retry"):
            # The cooldown this process recorded itself is still honoured locally.
            assert 0.0 < backend.cooldown(SCOPE) <= 0.5
            time.sleep(0.5)
            assert [policy.wrap(flaky)() for _ in range(3)] == ["ok"] * 3
    finally:
        backend.close()
    assert backend.fallbacks >= 10
    warnings = [r for r in caplog.records if "Redis coordination unavailable" in r.message]
    assert len(warnings) == 1
    assert own_redis_server.url not in warnings[0].message
    # Without Redis the budget object itself was spent and refilled.
    assert budget.tokens == 1.0


def test_fail_open_when_the_server_hangs(own_redis_server, prefix):
    """A server that stops answering costs one short timeout, then is left alone."""
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, timeout=0.2, pause=30.0)
    try:
        assert backend.cooldown(SCOPE) == 0.0  # connected
        os.kill(own_redis_server.process.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            assert backend.cooldown(SCOPE) == 0.0
            first = time.monotonic() - started
            assert backend.fallbacks == 1
            assert backend.try_spend(SCOPE, RetryBudget(capacity=1))
            assert backend.fallbacks == 2
        finally:
            os.kill(own_redis_server.process.pid, signal.SIGCONT)
    finally:
        backend.close()
    # Bounded by the timeout, not by the default of no timeout at all (generous for CI).
    assert first < 2.0


def test_async_fail_open_when_the_server_stops(own_redis_server, prefix):
    """The asyncio client falls back too, and the call succeeds."""
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, pause=0.0, timeout=2.0)
    policy = RetryPolicy(coordination=backend, scope=SCOPE, budget=RetryBudget(), on_retry=None)

    async def work():
        return "ok"

    async def main():
        try:
            assert await policy.wrap(work)() == "ok"
            own_redis_server.stop()
            return await policy.wrap(work)()
        finally:
            await backend.aclose()

    try:
        assert asyncio.run(main()) == "ok"
    finally:
        backend.close()
    assert backend.fallbacks == 2  # the cooldown read and the refill


# --- configuration ----------------------------------------------------------------------


def test_from_env_reads_the_redis_url_and_prefix(redis_server, prefix):
    """``LLM_RETRY_REDIS_URL`` and ``LLM_RETRY_REDIS_PREFIX`` make a Redis backend."""
    policy = RetryPolicy.from_env(
        environ={
            "LLM_RETRY_REDIS_URL": redis_server.url,
            "LLM_RETRY_REDIS_PREFIX": prefix,
            "LLM_RETRY_SCOPE": SCOPE,
            "LLM_RETRY_MAX_ATTEMPTS": "2",
        }
    )
    try:
        assert isinstance(policy.coordination, RedisCoordination)
        assert policy.coordination.prefix == prefix
        assert (policy.scope, policy.max_attempts) == (SCOPE, 2)
    finally:
        policy.coordination.close()


def test_repr_never_shows_the_url():
    """The URL may carry a password: it is not in the repr."""
    backend = RedisCoordination("redis://:hunter2secret@127.0.0.1:1/0")
    try:
        assert "hunter2secret" not in repr(backend)
        assert "hunter2secret" not in repr(RetryPolicy(coordination=backend))
    finally:
        backend.close()


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        pytest.param({"url": " "}, "url", id="url"),
        pytest.param({"prefix": "a{b}"}, "scope", id="prefix"),
        pytest.param({"timeout": 0}, "timeout", id="timeout"),
        pytest.param({"key_ttl": -1}, "key_ttl", id="ttl"),
    ],
)
def test_settings_are_checked(settings, match):
    """Bad settings raise at construction, naming what was wrong."""
    with pytest.raises((TypeError, ValueError), match=match):
        RedisCoordination(**({"url": "redis://127.0.0.1:1/0"} | settings))


def test_from_env_without_a_prefix_uses_the_default(redis_server):
    """Without ``LLM_RETRY_REDIS_PREFIX`` the keys start with ``llm_retry``."""
    policy = RetryPolicy.from_env(environ={"LLM_RETRY_REDIS_URL": redis_server.url})
    try:
        assert policy.coordination.prefix == "llm_retry"
    finally:
        policy.coordination.close()


def test_async_operations_skip_redis_while_it_is_left_alone(own_redis_server, prefix):
    """After a failure, async operations answer locally for ``pause`` without trying."""
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, pause=30.0)
    own_redis_server.stop()
    budget = RetryBudget(capacity=1, refill=1.0)

    async def main():
        try:
            assert await backend.acooldown(SCOPE) == 0.0  # fails: left alone from now
            await backend.aextend_cooldown(SCOPE, 2.0)
            assert await backend.atry_spend(SCOPE, budget)
            await backend.arecord_success(SCOPE, budget)
            return await backend.acooldown(SCOPE)
        finally:
            await backend.aclose()
            await backend.aclose()  # nothing left to close: no error

    try:
        left = asyncio.run(main())
    finally:
        backend.close()
    assert 1.5 < left <= 2.0  # this process's own cooldown
    assert backend.fallbacks == 5
    assert budget.tokens == 1.0


# --- the half-open state after a cooldown -------------------------------------------------


def half_open(backend, lease_backend=None):
    """Record a short cooldown and wait for its end: the scope is half-open."""
    (lease_backend or backend).extend_cooldown(SCOPE, 0.05)
    time.sleep(0.1)


def test_exactly_one_prober_among_many_processes(redis_server, prefix):
    """Eight processes ask at the same moment after a cooldown: one probes, seven wait."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, probe_lease=30.0)
    try:
        half_open(backend)
        results = run_workers(*[("admit", redis_server.url, prefix, SCOPE, time.time() + 3)] * 8)
    finally:
        backend.close()
    assert sum(result["probe"] for result in results) == 1
    waits = [result["wait"] for result in results if not result["probe"]]
    assert len(waits) == 7
    assert all(0.0 < wait <= 0.05 for wait in waits)  # look again soon, within the poll
    assert all(result["fallbacks"] == 0 for result in results)


def test_the_probe_lifts_the_cooldown(coordination, redis_server):
    """The prober's success deletes both keys: everyone is admitted at once."""
    half_open(coordination)
    probe = coordination.admit(SCOPE)
    assert (probe.wait, probe.probe is not None) == (0.0, True)
    other = RedisCoordination(redis_server.url, prefix=coordination.prefix, timeout=2.0)
    try:
        assert other.admit(SCOPE).wait > 0.0
        other.end_probe(SCOPE, "a-stale-token", lifted=True)  # not the holder: nothing ends
        assert other.admit(SCOPE).wait > 0.0
        coordination.end_probe(SCOPE, probe.probe, lifted=True)
        assert other.admit(SCOPE) == (0.0, None)
    finally:
        other.close()
    client = redis_server.client()
    try:
        keys = coordination.key(SCOPE, "cooldown"), coordination.key(SCOPE, "probe")
        assert client.exists(*keys) == 0
    finally:
        client.close()


def test_a_failed_probe_frees_the_lease_and_a_429_closes_the_scope(coordination):
    """Not lifted: the next caller probes; a new Retry-After makes it a cooldown again."""
    half_open(coordination)
    first = coordination.admit(SCOPE).probe
    coordination.end_probe(SCOPE, first, lifted=False)
    second = coordination.admit(SCOPE).probe
    assert second not in (None, first)
    coordination.extend_cooldown(SCOPE, 0.3)  # the second probe got a 429
    assert 0.2 < coordination.admit(SCOPE).wait <= 0.3
    time.sleep(0.35)
    assert coordination.admit(SCOPE).probe not in (None, second)


def test_the_lease_expires_with_the_half_open_time(redis_server, prefix):
    """A prober that never reports holds the others for ``probe_lease`` at most."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, probe_lease=0.3)
    client = redis_server.client()
    try:
        half_open(backend)
        assert backend.admit(SCOPE).probe is not None
        assert 0 < client.pttl(backend.key(SCOPE, "probe")) <= 300
        assert 0.0 < backend.admit(SCOPE).wait <= 0.05
        time.sleep(0.3)
        assert backend.admit(SCOPE) == (0.0, None)
        assert client.exists(backend.key(SCOPE, "cooldown"), backend.key(SCOPE, "probe")) == 0
    finally:
        client.close()
        backend.close()


def test_waiters_start_after_the_probe_got_through(redis_server, prefix):
    """Real calls in threads, one backend each: the others wait for the prober's success."""
    backends = [
        RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, probe_lease=5.0)
        for _ in range(4)
    ]
    release, entered, lock = threading.Event(), [], threading.Lock()

    def work(name):
        with lock:
            entered.append((name, time.monotonic()))
            first = len(entered) == 1
        if first:
            assert release.wait(5.0)  # a slow probe
        return name

    policies = [
        RetryPolicy(coordination=backend, scope=SCOPE, on_retry=None, deadline=10.0)
        for backend in backends
    ]
    try:
        half_open(backends[0])
        threads = [
            threading.Thread(target=policy.wrap(work), args=(n,))
            for n, policy in enumerate(policies)
        ]
        for thread in threads:
            thread.start()
        time.sleep(0.3)
        assert len(entered) == 1
        released = time.monotonic()
        release.set()
        for thread in threads:
            thread.join(timeout=5.0)
        lifted = backends[0].admit(SCOPE)  # the probe's success lifted the cooldown
    finally:
        for backend in backends:
            backend.close()
    assert len(entered) == 4
    assert all(at >= released for _, at in entered[1:])
    assert lifted == (0.0, None)


def test_a_call_whose_deadline_ends_during_the_probe_fails_fast(coordination, redis_server):
    """Another process probes; a call without room for one more look is not attempted."""
    other = RedisCoordination(redis_server.url, prefix=coordination.prefix, timeout=2.0)
    try:
        half_open(coordination)
        assert other.admit(SCOPE).probe is not None
        backend, calls = limited(1.0)
        policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None, deadline=0.001)
        with pytest.raises(RateLimitError) as raised:
            policy.wrap(backend)()
    finally:
        other.close()
    assert calls == []
    assert retry_info(raised.value).reason is GiveUpReason.COOLDOWN


def test_async_probe_through_the_asyncio_client(coordination):
    """The async twins take, hold and lift the same lease."""

    async def main():
        try:
            await coordination.aextend_cooldown(SCOPE, 0.05)
            await asyncio.sleep(0.1)
            probe = await coordination.aadmit(SCOPE)
            waiting = await coordination.aadmit(SCOPE)
            await coordination.aend_probe(SCOPE, probe.probe, lifted=True)
            return probe, waiting, await coordination.aadmit(SCOPE)
        finally:
            await coordination.aclose()

    probe, waiting, after = asyncio.run(main())
    assert probe.probe is not None
    assert waiting.probe is None
    assert waiting.wait > 0.0
    assert after == (0.0, None)


def test_fail_open_when_the_server_stops_during_a_probe(own_redis_server, prefix):
    """Another process holds the lease, then Redis stops: the call goes on without it."""
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, pause=0.0, timeout=2.0)
    other = RedisCoordination(own_redis_server.url, prefix=prefix, timeout=2.0)
    policy = RetryPolicy(coordination=backend, scope=SCOPE, on_retry=None, deadline=5.0)
    try:
        half_open(backend, other)
        assert other.admit(SCOPE).probe is not None
        assert backend.admit(SCOPE).wait > 0.0  # held by the other
        own_redis_server.stop()
        started = time.monotonic()
        assert policy.wrap(lambda: "ok")() == "ok"
        assert time.monotonic() - started < 1.0
    finally:
        other.close()
        backend.close()
    assert backend.fallbacks >= 1
