"""RedisCoordination against a real redis-server that the suite starts (see conftest).

No test here races a clock for its verdict: a cooldown's end is read from the key the
server wrote, in the server's clock (``TIME``), and compared with the server's clock read
before and after what the test does, or with what a worker recorded in that clock; a
half-open time lasts a minute, longer than any test takes to reach its end.
"""

import asyncio
import gc
import hashlib
import json
import logging
import os
import signal
import socketserver
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from structlog.testing import capture_logs

from llm_errors import QuotaExceededError, RateLimitError, ServerError
from llm_retry import (
    MAX_PARK,
    Admission,
    BreakerState,
    CircuitBreaker,
    GiveUpReason,
    LearnedRate,
    RateLimits,
    RetryBudget,
    RetryPolicy,
    Unit,
    Window,
    instant_retries,
    retry_info,
)
from llm_retry.instrumentation import (
    BreakerEvent,
    CooldownEvent,
    CoordinationEvent,
    LoggingOnRetryHook,
    OpenTelemetryOnRetryHook,
    PrometheusOnRetryHook,
    StructlogOnRetryHook,
    set_on_retry_hooks,
)
from llm_retry.redis import RedisCoordination

pytestmark = pytest.mark.integration

WORKER = Path(__file__).with_name("fleet_worker.py")
SCOPE = "openai:gpt-4o"
#: A half-open time no test reaches the end of (unless it waits for it on purpose).
LONG_LEASE = 60.0
#: Seconds a worker may take; a generous bound on a busy machine, never a verdict.
WORKER_TIMEOUT = 120


@pytest.fixture
def coordination(redis_server, prefix):
    """A backend on the session's server, closed after the test."""
    backend = RedisCoordination(
        redis_server.url, prefix=prefix, timeout=2.0, probe_lease=LONG_LEASE
    )
    yield backend
    backend.close()


@pytest.fixture
def server(redis_server):
    """A plain client of the session's server, to read what the backend wrote."""
    client = redis_server.client()
    yield client
    client.close()


def server_now(client):
    """The Redis server's clock, in seconds: the clock cooldowns are kept in."""
    seconds, micros = client.time()
    return seconds + micros / 1_000_000


def extend(backend, client, seconds):
    """Record a cooldown through ``backend``: (the server's clock just before, its stored end).

    The backend keeps the cooldown in this process too, from a moment between the two,
    and answers from that copy first: the time left it gives lies between ``before +
    seconds`` and the stored end, less the moment of asking.
    """
    before = server_now(client)
    backend.extend_cooldown(SCOPE, seconds)
    return before, stored_end(client, backend)


def stored_end(client, backend, scope=SCOPE):
    """The end of ``scope``'s cooldown as the server stored it, in its clock (seconds)."""
    return int(client.get(backend.key(scope, "cooldown"))) / 1_000_000


@contextmanager
def workers(*jobs):
    """Start each job in its own Python process and wait until every one is ready.

    Yields the processes; :func:`release` starts their jobs together. Any still running
    at the end are killed.
    """
    processes = []
    try:
        for job in jobs:
            process = subprocess.Popen(  # noqa: S603 - this interpreter and our own worker
                [sys.executable, str(WORKER), *map(str, job)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            processes.append(process)
        for process in processes:
            if process.stdout.readline() != "ready\n":
                _, err = process.communicate(timeout=WORKER_TIMEOUT)
                pytest.fail(f"a fleet worker did not start: {err}")
        yield processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()


def release(*processes):
    """Start the ready workers' jobs at once; their JSON results, in order."""
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    results = []
    for process in processes:
        out, err = process.communicate(timeout=WORKER_TIMEOUT)
        assert process.returncode == 0, err
        results.append(json.loads(out))
    return results


def run_workers(*jobs):
    """Run each job in its own process, released together once all are ready."""
    with workers(*jobs) as processes:
        return release(*processes)


def limited(retry_after):
    """A backend that always answers 429 with ``Retry-After``, counting its calls."""
    calls = []

    def call():
        calls.append(1)
        raise RateLimitError("429 Too Many Requests", status=429, retry_after=retry_after)

    return call, calls


def sleeper(slept, client):
    """A real ``time.sleep`` that records what it was asked and when, in the server's clock."""

    def sleep(seconds):
        slept.append((seconds, server_now(client)))
        time.sleep(seconds)

    return sleep


# --- keys -----------------------------------------------------------------------------


def test_keys_are_namespaced_and_hash_tagged(coordination, prefix):
    """A scope's keys carry the prefix and share one Redis Cluster slot (its hash tag)."""
    cooldown, budget = coordination.key(SCOPE, "cooldown"), coordination.key(SCOPE, "budget")
    assert cooldown == f"{prefix}:{{{SCOPE}}}:cooldown"
    assert budget == f"{prefix}:{{{SCOPE}}}:budget"
    assert key_slot(cooldown.encode()) == key_slot(budget.encode()) == key_slot(SCOPE.encode())


def test_every_key_has_a_ttl(redis_server, prefix, server):
    """A cooldown key outlives its cooldown by the half-open time, a budget key lives key_ttl.

    Expiry times are absolute (``PEXPIRETIME``, Redis 7), compared with the server's clock
    around the writes: nothing depends on how long the test takes.
    """
    backend = RedisCoordination(redis_server.url, prefix=prefix, key_ttl=30.0, timeout=2.0)
    budget = RetryBudget(capacity=3)
    try:
        backend.extend_cooldown(SCOPE, 2.0)
        before = server_now(server)
        assert backend.try_spend(SCOPE, budget)
        after = server_now(server)
    finally:
        backend.close()
    expected = sorted([backend.key(SCOPE, "budget"), backend.key(SCOPE, "cooldown")])
    assert sorted(server.scan_iter(match=f"{prefix}:*")) == [k.encode() for k in expected]
    # The cooldown's end plus the 1 s half-open time (whole milliseconds of the server's).
    ends_ms = stored_end(server, backend) * 1000
    expires = server.pexpiretime(backend.key(SCOPE, "cooldown"))
    assert abs(expires - (ends_ms + 1000)) <= 2
    budget_expires = server.pexpiretime(backend.key(SCOPE, "budget")) / 1000
    assert before + 30.0 - 0.001 <= budget_expires <= after + 30.0 + 0.001


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


def test_cooldown_deadline_is_in_the_servers_clock(coordination, server):
    """The stored deadline is Redis ``TIME`` plus the cooldown, in microseconds."""
    before = server_now(server)
    coordination.extend_cooldown(SCOPE, 5.0)
    after = server_now(server)
    assert before + 5.0 <= stored_end(server, coordination) <= after + 5.0


# --- cooldown ---------------------------------------------------------------------------


def test_the_later_cooldown_wins(coordination, server):
    """Extending keeps the later of the stored and the new deadline; reads are its rest."""
    coordination.extend_cooldown(SCOPE, 4.0)
    first = stored_end(server, coordination)
    coordination.extend_cooldown(SCOPE, 1.0)
    assert stored_end(server, coordination) == first
    before = server_now(server)
    coordination.extend_cooldown(SCOPE, 8.0)
    left = coordination.cooldown(SCOPE)
    after = server_now(server)
    ends = stored_end(server, coordination)
    assert before + 8.0 <= ends <= after + 8.0
    assert ends - after <= left <= ends - before
    assert coordination.cooldown("other:model") == 0.0


def test_cooldown_is_capped(redis_server, prefix, server):
    """A server asking for an hour gets max_cooldown."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, max_cooldown=3.0, timeout=2.0)
    try:
        before = server_now(server)
        backend.extend_cooldown(SCOPE, 3600.0)
        after = server_now(server)
    finally:
        backend.close()
    assert before + 3.0 <= stored_end(server, backend) <= after + 3.0


def test_a_cooldown_read_back_is_capped(redis_server, prefix, server):
    """A key written an hour ahead (by another writer) holds this process max_cooldown at most."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, max_cooldown=3.0, timeout=2.0)
    seconds, micros = server.time()
    hour_ahead = (seconds + 3600) * 1_000_000 + micros
    server.set(backend.key(SCOPE, "cooldown"), str(hour_ahead), px=3_700_000)

    async def read():
        try:
            return await backend.acooldown(SCOPE), await backend.aadmit(SCOPE)
        finally:
            await backend.aclose()

    try:
        waits = [backend.cooldown(SCOPE), backend.admit(SCOPE).wait, *asyncio.run(read())]
    finally:
        backend.close()
    waits[-1] = waits[-1].wait
    assert waits == [3.0] * 4


def test_cooldown_is_shared_across_processes(redis_server, prefix, server):
    """One process's 429 holds another's first attempt until the recorded end, or fails it.

    The verdicts come from the server's clock: the end the 429's process stored, and
    the times each worker read from the server before its call, at its attempt and
    after it. However late a worker is scheduled, a call under the scope is never
    attempted before the end, a refusal only happens while the cooldown (or the
    half-open time after it) lasts, and a call that asked with more than its deadline
    left is refused. The workers start first and are released together, so interpreter
    start-up is not inside the four seconds of cooldown.
    """
    url = redis_server.url
    jobs = [
        ("rate_limit", url, prefix, SCOPE, 4.0),
        ("call", url, prefix, SCOPE, 30),
        ("call", url, prefix, SCOPE, 0.05),
        ("call", url, prefix, "other:model", 30),
    ]
    with workers(*jobs) as (limiter, *callers):
        [hit] = release(limiter)
        assert hit == {"limited": True, "fallbacks": 0}
        ends = stored_end(server, RedisCoordination(url, prefix=prefix))
        half_open_ends = server.pexpiretime(f"{prefix}:{{{SCOPE}}}:cooldown") / 1000
        patient, hasty, elsewhere = release(*callers)
    # The patient one waited as long as needed: never attempted before the stored end.
    assert (patient["outcome"], patient["fallbacks"]) == ("ok", 0)
    assert patient["attempted_at"] >= ends
    # The hasty one (0.05 s deadline) is refused while the scope is held ...
    if ends - hasty["ended"] > 0.05:  # it asked when more than its deadline was left
        assert hasty["outcome"] == "rate_limited"
    if hasty["started"] >= half_open_ends:  # it asked after the scope opened again
        assert hasty["outcome"] == "ok"
    if hasty["outcome"] == "rate_limited":
        assert (hasty["reason"], hasty["attempts"]) == (GiveUpReason.COOLDOWN, 0)
        assert hasty["started"] < half_open_ends
        assert hasty["slept"] == []
    else:  # ... and when let through, it too came after the end.
        assert hasty["attempted_at"] >= ends
    assert hasty["fallbacks"] == 0
    # Another scope is never held.
    assert (elsewhere["outcome"], elsewhere["slept"], elsewhere["fallbacks"]) == ("ok", [], 0)


def test_a_call_waits_out_the_cooldown_before_its_first_attempt(coordination, server):
    """The wait is what Redis says is left, plus at most 10 % jitter; then it asks again.

    The first wait covers the cooldown left when the call asked (between the server's
    clock before the call and at the wait), and the attempt comes after the stored end.
    """
    slept, attempted = [], []
    policy = RetryPolicy(
        coordination=coordination, scope=SCOPE, on_retry=None, sleep=sleeper(slept, server)
    )
    extending, ends = extend(coordination, server, 0.5)
    before = server_now(server)

    def work():
        attempted.append(server_now(server))
        return "ok"

    assert policy.wrap(work)() == "ok"
    if slept:  # it asked while the cooldown lasted (a late start finds nothing to wait)
        (first, asked_by), *_ = slept
        assert extending + 0.5 - asked_by <= first <= 1.1 * (ends - before)
    assert attempted[0] >= ends


def test_a_call_whose_deadline_ends_first_fails_fast(coordination, server):
    """No attempt, a RateLimitError naming the cooldown and the deadline, reason cooldown.

    The cooldown (a minute) is far longer than the 0.5 s deadline plus anything the test
    does; ``retry_after`` is the time left when the call asked, by the server's clock.
    """
    backend, calls = limited(1.0)
    policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None, deadline=0.5)
    extending, ends = extend(coordination, server, 60.0)
    before = server_now(server)
    with pytest.raises(RateLimitError) as raised:
        policy.wrap(backend)()
    after = server_now(server)
    assert calls == []
    info = retry_info(raised.value)
    assert (info.reason, info.attempts) == (GiveUpReason.COOLDOWN, 0)
    assert "shared cooldown" in str(raised.value)
    assert "deadline (0.5s)" in str(raised.value)
    assert extending + 60.0 - after <= raised.value.retry_after <= ends - before


@pytest.mark.smoke
def test_a_429_sets_the_cooldown_for_the_scope(coordination, server):
    """A rate limit with Retry-After, seen by one call, is recorded for the scope."""
    backend, _ = limited(2.0)
    policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None, max_attempts=1)
    before = server_now(server)
    with pytest.raises(RateLimitError):
        policy.wrap(backend)()
    after = server_now(server)
    assert before + 2.0 <= stored_end(server, coordination) <= after + 2.0


def test_a_retry_waits_for_a_cooldown_another_caller_extended(coordination, server):
    """Before a retry too: a longer cooldown set meanwhile is waited out, to its stored end."""
    slept, attempted, extended = [], [], []

    def backend():
        attempted.append(server_now(server))
        if len(attempted) == 1:
            # Meanwhile another process saw a longer Retry-After for the same scope.
            extended.extend(extend(coordination, server, 1.0))
            raise RateLimitError("429", status=429, retry_after=0.0)
        return "ok"

    policy = RetryPolicy(
        coordination=coordination, scope=SCOPE, on_retry=None, sleep=sleeper(slept, server)
    )
    assert policy.wrap(backend)() == "ok"
    extending, ends = extended
    # The retry's own wait (Retry-After: 0), then the shared cooldown's, to its end.
    assert slept[0][0] == 0.0
    if len(slept) > 1:  # the retry asked while the cooldown lasted
        waited, asked_by = slept[1]
        assert extending + 1.0 - asked_by <= waited <= 1.1 * (ends - extending)
    assert attempted[1] >= ends


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
    """Four processes racing for more tokens than there are take exactly the capacity."""
    results = run_workers(*[("spend", redis_server.url, prefix, SCOPE, 100, 40)] * 4)
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


def test_async_client_shares_the_same_state(coordination, server):
    """The asyncio client reads and writes the same keys as the sync one."""
    budget = RetryBudget(capacity=1, refill=1.0)

    async def main():
        try:
            before = server_now(server)
            await coordination.aextend_cooldown(SCOPE, 60.0)
            left = await coordination.acooldown(SCOPE)
            after = server_now(server)
            assert await coordination.atry_spend(SCOPE, budget)
            assert not coordination.try_spend(SCOPE, budget)
            await coordination.arecord_success(SCOPE, budget)
            assert coordination.try_spend(SCOPE, budget)
        finally:
            await coordination.aclose()
        return before, left, after

    before, left, after = asyncio.run(main())
    ends = stored_end(server, coordination)
    assert before + 60.0 <= ends <= after + 60.0
    assert ends - after <= left <= ends - before
    before = server_now(server)
    left = coordination.cooldown(SCOPE)
    assert ends - server_now(server) <= left <= ends - before


def test_async_call_waits_out_the_cooldown(coordination, server):
    """An async call waits the cooldown with ``async_sleep`` before its first attempt."""
    slept, attempted = [], []

    async def record(seconds):
        slept.append((seconds, server_now(server)))
        await asyncio.sleep(seconds)

    async def work():
        attempted.append(server_now(server))
        return "ok"

    policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None, async_sleep=record)

    async def main():
        try:
            extending = server_now(server)
            await coordination.aextend_cooldown(SCOPE, 0.5)
            ends = stored_end(server, coordination)
            before = server_now(server)
            return await policy.wrap(work)(), extending, ends, before
        finally:
            await coordination.aclose()

    result, extending, ends, before = asyncio.run(main())
    assert result == "ok"
    if slept:  # it asked while the cooldown lasted
        (first, asked_by), *_ = slept
        assert extending + 0.5 - asked_by <= first <= 1.1 * (ends - before)
    assert attempted[0] >= ends


def test_async_429_sets_the_cooldown_and_fails_the_next_call_fast(coordination):
    """Async calls record a cooldown and honour it, through the asyncio client.

    The cooldown (a minute) is far longer than the deadline (1 s) plus the test.
    """
    calls = []

    async def backend():
        calls.append(1)
        raise RateLimitError("429", status=429, retry_after=60.0)

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
        recorded = time.monotonic()
        backend.extend_cooldown("other:model", 60.0)
        own_redis_server.stop()
        with caplog.at_level(logging.WARNING, logger="llm_retry"):
            # The cooldown this process recorded itself is still honoured locally.
            left = backend.cooldown("other:model")
            assert 60.0 - (time.monotonic() - recorded) <= left <= 60.0
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
    """A server that stops answering costs one short timeout, then is left alone.

    Without a timeout the first command would wait for ever: it runs in a thread that
    is given a minute, a bound no 0.2 s timeout comes near, whatever the machine's load.
    """
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, timeout=0.2, pause=30.0)
    answers = []

    def ask():
        answers.append(backend.cooldown(SCOPE))
        answers.append(backend.fallbacks)
        answers.append(backend.try_spend(SCOPE, RetryBudget(capacity=1)))
        answers.append(backend.fallbacks)

    try:
        assert backend.cooldown(SCOPE) == 0.0  # connected
        os.kill(own_redis_server.process.pid, signal.SIGSTOP)
        try:
            asking = threading.Thread(target=ask, daemon=True)
            asking.start()
            asking.join(timeout=60.0)
        finally:
            os.kill(own_redis_server.process.pid, signal.SIGCONT)
        assert not asking.is_alive()
    finally:
        backend.close()
    assert answers == [0.0, 1, True, 2]  # one timeout, then left alone: no second one


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


class _NotRedis(socketserver.ThreadingTCPServer):
    """A loopback server that speaks the Redis protocol but is not Redis.

    It reads each command (an array of bulk strings) and answers ``HELLO`` with
    ``hello``, ``SCRIPT LOAD`` with the script's SHA-1 (as Redis does), and every other
    command (the scripts' ``EVALSHA``) with ``reply``.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, hello: bytes, reply: bytes) -> None:
        self.hello, self.reply = hello, reply
        super().__init__(("127.0.0.1", 0), _NotRedisHandler)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.server_address[1]}/0"


class _NotRedisHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        server = self.server
        assert isinstance(server, _NotRedis)
        while header := self.rfile.readline(1024):
            words = []
            for _ in range(int(header[1:])):
                size = int(self.rfile.readline(1024)[1:])
                words.append(self.rfile.read(size + 2)[:-2])
            name = b" ".join(words[:2]).upper()
            if name.startswith(b"HELLO"):
                self.wfile.write(server.hello)
            elif name == b"SCRIPT LOAD":
                sha = hashlib.sha1(words[2]).hexdigest().encode()  # noqa: S324 - Redis's script id
                self.wfile.write(b"$40\r\n" + sha + b"\r\n")
            else:
                self.wfile.write(server.reply)


@pytest.fixture
def not_redis(request):
    """A :class:`_NotRedis` serving in a thread: ``request.param`` is (hello, reply)."""
    server = _NotRedis(*request.param)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=WORKER_TIMEOUT)


_UNKNOWN = b"-ERR unknown command 'HELLO'\r\n"


@pytest.mark.parametrize(
    "not_redis",
    [
        pytest.param((b"+OK\r\n", b"+OK\r\n"), id="HELLO answered OK"),
        pytest.param((_UNKNOWN, b"+OK\r\n"), id="status"),
        pytest.param((_UNKNOWN, b":-1\r\n"), id="integer"),
        pytest.param((_UNKNOWN, b"$3\r\nabc\r\n"), id="string"),
        pytest.param((_UNKNOWN, b"*3\r\n:1\r\n:1\r\n:1\r\n"), id="array"),
        pytest.param((_UNKNOWN, b"*2\r\n:9\r\n:1\r\n"), id="unknown state"),
        pytest.param((_UNKNOWN, b"*2\r\n:1\r\n:-5\r\n"), id="negative time"),
        pytest.param((_UNKNOWN, b"*1\r\n" * 5000 + b":1\r\n"), id="nested"),
    ],
    indirect=True,
)
def test_a_server_that_is_not_redis_fails_open(not_redis, prefix, caplog):
    """Whatever answers on the port, calls go on with this process's state and never raise."""
    backend = RedisCoordination(not_redis.url, prefix=prefix, pause=0.0, timeout=2.0)
    budget = RetryBudget(capacity=1, refill=1.0)

    def both():
        backend.extend_cooldown(SCOPE, 30.0)
        sync = [backend.cooldown(SCOPE), backend.admit(SCOPE).wait, backend.try_spend("b", budget)]
        backend.record_success("b", budget)
        backend.end_probe(SCOPE, "token", lifted=True)
        return sync, asyncio.run(async_too())

    async def async_too():
        try:
            await backend.aextend_cooldown("other", 30.0)
            waits = [await backend.acooldown("other"), (await backend.aadmit("c")).wait]
            spent = await backend.atry_spend("b", budget)
            await backend.arecord_success("b", budget)
            await backend.aend_probe("c", "token", lifted=True)
            return [*waits, spent]
        finally:
            await backend.aclose()

    try:
        with caplog.at_level(logging.WARNING, logger="llm_retry"):
            (cooldown, admitted, spent), (acooldown, aadmitted, aspent) = both()
    finally:
        backend.close()
    # This process's own cooldowns and budget answered: the budget spent, then refilled.
    assert 0.0 < cooldown <= 30.0
    assert 0.0 < admitted <= 30.0
    assert 0.0 < acooldown <= 30.0
    assert aadmitted == 0.0
    assert spent
    assert aspent
    assert budget.tokens == 1.0
    # Every operation that asked Redis (all but the sync admit, which this process's own
    # cooldown answered) was counted as one without it.
    assert backend.fallbacks == 11
    assert any("Redis coordination unavailable" in r.message for r in caplog.records)


def test_a_finished_event_loop_closes_its_client(own_redis_server, prefix):
    """Each ``asyncio.run`` that used the backend leaves no connection open behind it.

    The server's own list of clients is read until it holds only the reader (a bound
    of tries, not a time: closed connections leave it as soon as the server reads their
    end; with a leak they never do).
    """
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, timeout=2.0)

    async def one():
        await backend.acooldown(SCOPE)

    async def closed_while_running():
        await backend.acooldown(SCOPE)
        await backend.aclose()
        return only_the_reader()

    def only_the_reader():
        for _ in range(WORKER_TIMEOUT * 10):
            if len(client.client_list()) == 1:
                return True
            time.sleep(0.1)
        return False

    client = own_redis_server.client()
    try:
        # aclose() closes this loop's client while the loop still runs.
        assert asyncio.run(closed_while_running())
        for _ in range(10):
            asyncio.run(one())
        gc.collect()
        assert only_the_reader()
    finally:
        client.close()
        backend.close()


# --- pacing from stated rate limits ----------------------------------------------------------

SPENT_REQUESTS = RateLimits((Window(Unit.REQUESTS, 0, None, 30.0),))


def test_stated_limits_pace_admissions_sync_and_async(coordination):
    """A response that left no request holds this process's next attempts until the refill."""
    coordination.record_limits(SCOPE, SPENT_REQUESTS)

    async def admitted():
        try:
            await coordination.arecord_limits("other", SPENT_REQUESTS)
            return (await coordination.aadmit(SCOPE)).wait, (await coordination.aadmit("x")).wait
        finally:
            await coordination.aclose()

    waits = [coordination.admit(SCOPE).wait, *asyncio.run(admitted())]
    assert 0.0 < waits[0] <= 30.0
    assert 0.0 < waits[1] <= waits[0]
    assert waits[2] == 0.0
    assert coordination.fallbacks == 0


def test_the_pace_is_the_fleets(redis_server, prefix, server):
    """Two processes' backends count their requests against one statement, as Pace does."""
    first, second = (
        RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, headroom=0.0)
        for _ in range(2)
    )
    three_left = RateLimits((Window(Unit.REQUESTS, 3, None, 30.0),))
    try:
        first.record_limits(SCOPE, three_left)
        waits = [backend.admit(SCOPE).wait for backend in (first, second, first, second)]
        stored = server.hgetall(first.key(SCOPE, "pace"))
        ttl = server.pttl(first.key(SCOPE, "pace"))
        # A newer statement replaces the count; a spent token window holds everyone.
        second.record_limits(
            SCOPE,
            three_left._replace(
                windows=(Window(Unit.REQUESTS, 50, 60, 30.0), Window(Unit.TOKENS, 0, 1000, 12.0))
            ),
        )
        held = first.admit(SCOPE).wait
        second.record_limits(SCOPE, RateLimits())
        freed = first.admit(SCOPE).wait
    finally:
        first.close()
        second.close()
    assert waits[:3] == [0.0, 0.0, 0.0]
    assert 0.0 < waits[3] <= 30.0
    assert stored[b"requests:admitted"] == b"3"
    assert 89_000 < ttl <= 90_000  # the refill, then a minute of requests in flight
    assert 0.0 < held <= 12.0
    assert freed == 0.0
    assert first.fallbacks == second.fallbacks == 0


def test_the_fleets_requests_in_flight_count_against_a_newer_statement(redis_server, prefix):
    """As Pace: a response ends one request; the others in flight are taken off its count."""
    first, second = (
        RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, headroom=0.0)
        for _ in range(2)
    )
    three = RateLimits((Window(Unit.REQUESTS, 3, None, 30.0),))
    try:
        first.record_limits(SCOPE, three)
        admitted = [first.admit(SCOPE).wait, second.admit(SCOPE).wait, first.admit(SCOPE).wait]
        second.record_limits(SCOPE, three)
        after = [second.admit(SCOPE).wait, first.admit(SCOPE).wait]
    finally:
        first.close()
        second.close()
    assert admitted == [0.0, 0.0, 0.0]
    assert after[0] == 0.0
    assert 0.0 < after[1] <= 30.0


def test_the_fleets_token_estimates_share_the_token_window(redis_server, prefix, server):
    """As Pace: two processes' estimates count against one statement, and carry over."""
    first, second = (
        RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, headroom=0.05)
        for _ in range(2)
    )
    left = RateLimits((Window(Unit.TOKENS, 90_000, 100_000, 40.0),))
    try:
        first.record_limits(SCOPE, left)
        admitted = [first.admit(SCOPE, tokens=40_000).wait, second.admit(SCOPE, tokens=40_000).wait]
        held = first.admit(SCOPE, tokens=40_000).wait
        small = asyncio.run(second.aadmit(SCOPE, tokens=4_000)).wait
        # One of three answers: two in flight keep two thirds of the 84,000 estimated.
        second.record_limits(SCOPE, RateLimits((Window(Unit.TOKENS, 90_000, 100_000, 40.0),)))
        stored = server.hgetall(first.key(SCOPE, "pace"))
        carried = [first.admit(SCOPE, tokens=25_000).wait, first.admit(SCOPE, tokens=5_000).wait]
    finally:
        first.close()
        second.close()
    assert admitted == [0.0, 0.0]
    assert 0.0 < held <= 40.0
    assert small == 0.0
    assert stored[b"tokens:admitted"] == b"56000"
    assert carried[0] == 0.0
    assert 0.0 < carried[1] <= 40.0
    assert first.fallbacks == second.fallbacks == 0


def test_a_gradual_window_admits_the_fleet_as_it_refills(redis_server, prefix, server):
    """As Pace: a spent bucket of 60 a minute holds an attempt for its share, not the minute."""
    first, second = (
        RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, headroom=0.05)
        for _ in range(2)
    )
    bucket = Window(Unit.REQUESTS, 0, 60, 60.0, gradual=True)
    try:
        first.record_limits(SCOPE, RateLimits((bucket,)))
        stored = server.hgetall(first.key(SCOPE, "pace"))
        gradual = second.admit(SCOPE).wait
        first.record_limits("fixed", RateLimits((bucket._replace(gradual=False),)))
        fixed = asyncio.run(second.aadmit("fixed")).wait
    finally:
        first.close()
        second.close()
    assert stored[b"requests:gradual"] == b"1"
    assert 3.5 < gradual <= 4.0  # 3 kept, then this one: four seconds of refill
    assert 59.0 < fixed <= 60.0


def test_the_fleets_first_requests_count_before_any_statement(redis_server, prefix, server):
    """As Pace: sent unpaced before any statement, still counted when the first arrives."""
    first, second = (
        RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, headroom=0.0)
        for _ in range(2)
    )
    try:
        unpaced = [first.admit(SCOPE).wait, second.admit(SCOPE).wait, first.admit(SCOPE).wait]
        ttl = server.pttl(first.key(SCOPE, "pace"))
        first.record_limits(SCOPE, RateLimits((Window(Unit.REQUESTS, 3, None, 30.0),)))
        after = [second.admit(SCOPE).wait, first.admit(SCOPE).wait]
    finally:
        first.close()
        second.close()
    assert unpaced == [0.0, 0.0, 0.0]
    assert 59_000 < ttl <= 60_000  # the count lives a minute past the last admission
    assert after[0] == 0.0  # one answered: two still in flight, one more fits
    assert 0.0 < after[1] <= 30.0


def test_a_paced_prober_gives_the_lease_back(coordination, server):
    """Half-open in Redis, the prober the pace holds ends its lease so another may probe."""
    seconds, micros = server.time()
    ended = seconds * 1_000_000 + micros - 1
    server.set(coordination.key(SCOPE, "cooldown"), str(ended), px=60_000)
    coordination.record_limits(SCOPE, SPENT_REQUESTS)
    assert coordination.admit(SCOPE).wait > 0.0
    assert server.exists(coordination.key(SCOPE, "probe")) == 0
    assert server.exists(coordination.key(SCOPE, "cooldown")) == 1


# --- a rate learned from 429s -------------------------------------------------------------

#: A floor so low that a learned scope's next free time is 100 s away: no wait measured here
#: can reach it, however busy the machine.
SLOW = LearnedRate(min_rate=0.01, increase=0.0, hold=0.0, forget=30.0)


def test_a_rate_learned_by_one_process_spaces_the_fleet(redis_server, prefix, server):
    """One process's 429 sets the rate in Redis; another, which saw none, is held by it."""
    first, second = (
        RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, learn=SLOW)
        for _ in range(2)
    )
    plain = RedisCoordination(redis_server.url, prefix=prefix + "-plain", timeout=2.0)
    try:
        assert [second.admit(SCOPE).wait for _ in range(5)] == [0.0] * 5  # nothing learned
        first.record_limited(SCOPE)
        stored = server.hgetall(first.key(SCOPE, "rate"))
        ttl = server.pttl(first.key(SCOPE, "rate"))
        held = second.admit(SCOPE).wait
        plain.record_limited(SCOPE)  # a backend built without ``learn`` learns nothing
        unheld = [plain.admit(SCOPE).wait for _ in range(5)]
    finally:
        for backend in (first, second, plain):
            backend.close()
    assert 0.0 < held <= 100.0
    assert float(stored[b"base"]) >= 0.01
    assert 29_000 < ttl <= 30_000  # forgotten 30 s after the 429
    assert unheld == [0.0] * 5
    assert server.exists(plain.key(SCOPE, "rate")) == 0
    assert first.fallbacks == second.fallbacks == 0


def test_the_fleet_s_rate_is_half_the_rate_it_measured(redis_server, prefix, server):
    """Admissions are counted in Redis; a 429 halves the rate they measured, once per hold."""
    learn = LearnedRate(increase=0.0, hold=60.0, forget=30.0)
    backend = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, learn=learn)
    try:
        for _ in range(20):
            assert backend.admit(SCOPE).wait == 0.0
        counted = server.hgetall(backend.key(SCOPE, "rate"))
        start_s, start_us = server.time()
        time.sleep(0.15)  # the current window is read once it spans at least 0.1 s
        backend.record_limited(SCOPE)
        first = server.hgetall(backend.key(SCOPE, "rate"))
        backend.record_limited(SCOPE)  # within the hold: nothing more
        second = server.hgetall(backend.key(SCOPE, "rate"))
    finally:
        backend.close()
    # The 20 admissions, or on a machine so slow that a one-second window closed among
    # them, those since it closed; all of them read back from what was stored.
    admitted, started = int(counted[b"n"]), int(counted[b"start"])
    assert 1 <= admitted <= 20
    # The rate measured is those admissions over the span from the window's start to the
    # 429 (server times), so the base is half of it.
    span = (int(first[b"at"]) - started) / 1_000_000
    assert span >= 0.1
    assert float(first[b"base"]) == pytest.approx(0.5 * admitted / span, rel=1e-6)
    assert second == first
    assert started <= start_s * 1_000_000 + start_us


def test_a_held_prober_gives_the_lease_back_in_redis(redis_server, prefix, server):
    """Half-open in Redis, the prober the learned rate holds ends its lease for another."""
    backend = RedisCoordination(
        redis_server.url, prefix=prefix, timeout=2.0, probe_lease=LONG_LEASE, learn=SLOW
    )
    try:
        backend.record_limited(SCOPE)
        seconds, micros = server.time()
        ended = seconds * 1_000_000 + micros - 1
        server.set(backend.key(SCOPE, "cooldown"), str(ended), px=60_000)
        held = backend.admit(SCOPE)

        async def held_async():
            try:
                return await backend.aadmit(SCOPE)
            finally:
                await backend.aclose()

        held_again = asyncio.run(held_async())
    finally:
        backend.close()
    assert held.probe is None
    assert 0.0 < held.wait <= 100.0
    assert held_again.probe is None
    assert 0.0 < held_again.wait <= 100.0
    assert server.exists(backend.key(SCOPE, "probe")) == 0
    assert server.exists(backend.key(SCOPE, "cooldown")) == 1


def test_a_learned_rate_holds_in_this_process_while_redis_is_away(own_redis_server, prefix):
    """Redis stopped: the 429 and the spacing are this process's own, and no call fails."""
    backend = RedisCoordination(
        own_redis_server.url, prefix=prefix, timeout=0.5, pause=0.0, learn=SLOW
    )
    try:
        own_redis_server.stop()

        async def async_side():
            try:
                await backend.arecord_limited("other")
                return (await backend.aadmit("other")).wait
            finally:
                await backend.aclose()

        backend.record_limited(SCOPE)
        first = backend.admit(SCOPE).wait
        other = asyncio.run(async_side())
    finally:
        backend.close()
    assert 0.0 < first <= 100.0
    assert 0.0 < other <= 100.0
    assert backend.fallbacks >= 2


def test_a_parked_quota_refuses_every_process_until_its_reset(redis_server, prefix, server):
    """One process parks the scope; another, which never saw the error, fails at once."""
    first = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0)
    other = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0)
    policy = RetryPolicy(coordination=other, scope=SCOPE, on_retry=None)

    async def refused_async():
        try:
            return (await other.aadmit(SCOPE)).refused
        finally:
            await other.aclose()

    try:
        before = server_now(server)
        first.park(SCOPE, 7200.0)
        after = server_now(server)
        admission = other.admit(SCOPE)
        with pytest.raises(QuotaExceededError) as raised:
            policy.wrap(lambda: "ok")()
        refused = asyncio.run(refused_async())
        first.park(SCOPE, 60.0)  # an earlier reset never shortens the park
    finally:
        first.close()
        other.close()
    ends = int(server.get(first.key(SCOPE, "parked"))) / 1_000_000
    assert before + 7200.0 <= ends <= after + 7200.0
    expires = server.pexpiretime(first.key(SCOPE, "parked")) / 1000
    assert abs(expires - ends) <= 0.002
    assert admission.refused is refused is GiveUpReason.QUOTA_PARKED
    assert 7000.0 < admission.wait <= 7200.0
    assert retry_info(raised.value).reason is GiveUpReason.QUOTA_PARKED


def test_a_park_read_back_is_capped(redis_server, prefix, server):
    """A key written a year ahead holds this process MAX_PARK at most."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0)
    seconds, micros = server.time()
    server.set(backend.key(SCOPE, "parked"), str((seconds + 365 * 86400) * 1_000_000 + micros))
    try:
        assert backend.admit(SCOPE) == Admission(MAX_PARK, refused=GiveUpReason.QUOTA_PARKED)
    finally:
        backend.close()


def half_open_breaker(backend, client, open_for=5.0):
    """The scope's breaker half-open in Redis: its open time over (server clock), the lease long."""
    seconds, micros = client.time()
    ended = seconds * 1_000_000 + micros - 1
    client.set(backend.key(SCOPE, "cooldown"), str(ended), px=60_000)
    client.set(backend.key(SCOPE, "breaker"), str(round(open_for * 1_000_000)), px=60_000)


def test_an_open_breaker_is_the_fleets(redis_server, prefix, server):
    """One process's failures open the breaker in Redis: another, which saw none, fails at once."""
    opener = RedisCoordination(
        redis_server.url,
        prefix=prefix,
        timeout=2.0,
        breaker=CircuitBreaker(min_calls=2, open_for=60.0),
    )
    other = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0)
    policy = RetryPolicy(coordination=other, scope=SCOPE, max_attempts=1, on_retry=None)
    seen = []
    try:
        with set_on_retry_hooks([seen.append]):
            for _ in range(2):
                opener.record_outcome(SCOPE, failed=True)
        admission = other.admit(SCOPE)
        with pytest.raises(ServerError) as raised:
            policy.wrap(lambda: "ok")()
        state = opener.breaker_state(SCOPE)
    finally:
        opener.close()
        other.close()
    assert admission.refused is GiveUpReason.BREAKER_OPEN
    assert 59.0 < admission.wait <= 60.0
    assert retry_info(raised.value).reason is GiveUpReason.BREAKER_OPEN
    assert state[0] is BreakerState.OPEN
    assert 59.0 < state[1] <= 60.0
    assert server.get(opener.key(SCOPE, "breaker")) == b"60000000"
    assert [e for e in seen if isinstance(e, BreakerEvent)] == [
        BreakerEvent(scope=SCOPE, state=BreakerState.OPEN, open_for=60.0)
    ]


def test_async_outcomes_open_the_fleets_breaker(redis_server, prefix, server):
    """The async operations count, open and read the breaker as the sync ones do."""
    backend = RedisCoordination(
        redis_server.url,
        prefix=prefix,
        timeout=2.0,
        breaker=CircuitBreaker(min_calls=3, failure_ratio=0.6, open_for=60.0),
    )

    async def outcomes():
        try:
            await backend.arecord_outcome(SCOPE, failed=False)
            for _ in range(2):
                await backend.arecord_outcome(SCOPE, failed=True)  # 2 of 3 failed
            return (await backend.aadmit(SCOPE)).refused
        finally:
            await backend.aclose()

    try:
        refused = asyncio.run(outcomes())
        opened = backend.breaker_state(SCOPE)
        half_open_breaker(backend, server)
        half = backend.breaker_state(SCOPE)
    finally:
        backend.close()
    assert refused is GiveUpReason.BREAKER_OPEN
    assert opened[0] is BreakerState.OPEN
    assert half == (BreakerState.HALF_OPEN, 0.0)


def test_one_probe_per_open_period_across_the_fleet(redis_server, prefix, server):
    """Four processes ask at once when the breaker half-opens: one probes, three fail now."""
    backend = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0)
    try:
        half_open_breaker(backend, server)
        results = run_workers(*[("admit", redis_server.url, prefix, SCOPE)] * 4)
    finally:
        backend.close()
    assert sum(result["probe"] for result in results) == 1
    refused = [result["refused"] for result in results if not result["probe"]]
    assert refused == ["breaker_open"] * 3


def test_the_probes_failure_reopens_for_twice_as_long_and_its_success_closes(
    redis_server, prefix, server
):
    """A failed probe doubles the open time (capped); a probe that gets through closes it."""
    backend = RedisCoordination(
        redis_server.url,
        prefix=prefix,
        timeout=2.0,
        breaker=CircuitBreaker(open_for=5.0, max_open_for=8.0),
    )
    seen = []
    try:
        with set_on_retry_hooks([seen.append]):
            half_open_breaker(backend, server)
            probe = backend.admit(SCOPE).probe
            backend.record_outcome(SCOPE, failed=True)
            reopened = int(server.get(backend.key(SCOPE, "breaker")))
            half_open_breaker(backend, server, open_for=reopened / 1_000_000)
            probe = backend.admit(SCOPE).probe
            backend.record_outcome(SCOPE, failed=False)
            backend.end_probe(SCOPE, probe, lifted=True)
            after = backend.admit(SCOPE)
    finally:
        backend.close()
    assert reopened == 8_000_000  # twice 5 s, capped at 8 s
    assert after == Admission(0.0)
    assert server.exists(backend.key(SCOPE, "breaker")) == 0
    assert [(e.state, e.open_for) for e in seen if isinstance(e, BreakerEvent)] == [
        (BreakerState.HALF_OPEN, 0.0),
        (BreakerState.OPEN, 8.0),
        (BreakerState.HALF_OPEN, 0.0),
        (BreakerState.CLOSED, 0.0),
    ]


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


def test_from_env_learns_rates_when_asked(redis_server):
    """``LLM_RETRY_REDIS_LEARN_RATE`` turns the learned rate on; alone it is an error."""
    environ = {"LLM_RETRY_REDIS_URL": redis_server.url}
    learning = RetryPolicy.from_env(environ={**environ, "LLM_RETRY_REDIS_LEARN_RATE": "yes"})
    plain = RetryPolicy.from_env(environ=environ)
    try:
        assert learning.coordination.learn == LearnedRate()
        assert plain.coordination.learn is None
    finally:
        learning.coordination.close()
        plain.coordination.close()
    with pytest.raises(ValueError, match="LLM_RETRY_REDIS_LEARN_RATE is set but"):
        RetryPolicy.from_env(environ={"LLM_RETRY_REDIS_LEARN_RATE": "on"})
    with pytest.raises(ValueError, match="LLM_RETRY_REDIS_LEARN_RATE must be one of"):
        RetryPolicy.from_env(environ={**environ, "LLM_RETRY_REDIS_LEARN_RATE": "maybe"})


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
            recorded = time.monotonic()
            await backend.aextend_cooldown(SCOPE, 60.0)
            assert await backend.atry_spend(SCOPE, budget)
            await backend.arecord_success(SCOPE, budget)
            return await backend.acooldown(SCOPE), time.monotonic() - recorded
        finally:
            await backend.aclose()
            await backend.aclose()  # nothing left to close: no error

    try:
        left, took = asyncio.run(main())
    finally:
        backend.close()
    assert 60.0 - took <= left <= 60.0  # this process's own cooldown
    assert backend.fallbacks == 5
    assert budget.tokens == 1.0


# --- the half-open state after a cooldown -------------------------------------------------


def until_server_time(client, moment, *, limit=60.0):
    """Wait until the server's clock reaches ``moment`` (a condition, not a duration)."""
    give_up = time.monotonic() + limit
    while server_now(client) < moment:
        assert time.monotonic() < give_up, "the server's clock did not reach the moment"
        time.sleep(0.01)


def half_open(backend, client, lease_backend=None):
    """Record a short cooldown and wait, by the server's clock, for its end: half-open."""
    (lease_backend or backend).extend_cooldown(SCOPE, 0.05)
    until_server_time(client, stored_end(client, backend))


def test_exactly_one_prober_among_many_processes(redis_server, prefix, server):
    """Four processes ask at once after a cooldown: one probes, three wait."""
    backend = RedisCoordination(
        redis_server.url, prefix=prefix, timeout=2.0, probe_lease=LONG_LEASE
    )
    try:
        half_open(backend, server)
        results = run_workers(*[("admit", redis_server.url, prefix, SCOPE)] * 4)
    finally:
        backend.close()
    assert sum(result["probe"] for result in results) == 1
    waits = [result["wait"] for result in results if not result["probe"]]
    assert len(waits) == 3
    assert all(0.0 < wait <= 0.05 for wait in waits)  # look again soon, within the poll
    assert all(result["fallbacks"] == 0 for result in results)


def test_the_probe_lifts_the_cooldown(coordination, redis_server, server):
    """The prober's success deletes both keys: everyone is admitted at once."""
    half_open(coordination, server)
    probe = coordination.admit(SCOPE)
    assert (probe.wait, probe.probe is not None) == (0.0, True)
    other = RedisCoordination(redis_server.url, prefix=coordination.prefix, timeout=2.0)
    try:
        assert other.admit(SCOPE).wait > 0.0
        other.end_probe(SCOPE, "a-stale-token", lifted=True)  # not the holder: nothing ends
        assert other.admit(SCOPE).wait > 0.0
        coordination.end_probe(SCOPE, probe.probe, lifted=True)
        assert other.admit(SCOPE) == Admission(0.0)
    finally:
        other.close()
    keys = coordination.key(SCOPE, "cooldown"), coordination.key(SCOPE, "probe")
    assert server.exists(*keys) == 0


def test_a_failed_probe_frees_the_lease_and_a_429_closes_the_scope(coordination, server):
    """Not lifted: the next caller probes; a new Retry-After makes it a cooldown again."""
    half_open(coordination, server)
    first = coordination.admit(SCOPE).probe
    coordination.end_probe(SCOPE, first, lifted=False)
    second = coordination.admit(SCOPE).probe
    assert second not in (None, first)
    extending, ends = extend(coordination, server, 0.3)  # the second probe got a 429
    before = server_now(server)
    wait = coordination.admit(SCOPE).wait
    after = server_now(server)
    if after < extending + 0.3:  # asked while the new cooldown lasted: its rest
        assert extending + 0.3 - after <= wait <= ends - before
    until_server_time(server, ends)
    assert coordination.admit(SCOPE).probe not in (None, second)


def test_the_lease_expires_with_the_half_open_time(redis_server, prefix, server):
    """A prober that never reports holds the others for ``probe_lease`` at most.

    The half-open end is the cooldown key's expiry (``PEXPIRETIME``); what is expected
    before it is checked only for the steps the server's clock places before it, and
    the test then waits for that end by the server's clock.
    """
    backend = RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, probe_lease=0.5)
    cooldown, probe_key = backend.key(SCOPE, "cooldown"), backend.key(SCOPE, "probe")
    try:
        half_open(backend, server)
        ends = server.pexpiretime(cooldown) / 1000
        first = backend.admit(SCOPE)
        lease_ends = server.pexpiretime(probe_key) / 1000  # negative once it has expired
        second = backend.admit(SCOPE)
        asked = server_now(server)
        if asked < ends:  # both asked inside the half-open time: one lease, one waiter
            assert first.probe is not None
            assert abs(lease_ends - ends) <= 0.002  # the lease lasts the half-open time
            assert second.probe is None
            assert 0.0 < second.wait <= 0.05
        # Redis expires a key once its clock, in whole milliseconds, is past the expiry:
        # within the millisecond of ``ends`` both keys still exist.
        until_server_time(server, ends + 0.001)
        assert backend.admit(SCOPE) == Admission(0.0)
        assert server.exists(cooldown, probe_key) == 0
    finally:
        backend.close()


def test_waiters_start_after_the_probe_got_through(redis_server, prefix, server):
    """Real calls in threads, one backend each: the others wait for the prober's success."""
    backends = [
        RedisCoordination(redis_server.url, prefix=prefix, timeout=2.0, probe_lease=LONG_LEASE)
        for _ in range(4)
    ]
    probing, release, entered, lock = threading.Event(), threading.Event(), [], threading.Lock()

    def work(name):
        with lock:
            entered.append((name, time.monotonic()))
            first = len(entered) == 1
        if first:
            probing.set()
            assert release.wait(60.0)  # a slow probe
        return name

    policies = [
        RetryPolicy(coordination=backend, scope=SCOPE, on_retry=None, deadline=600.0)
        for backend in backends
    ]
    try:
        half_open(backends[0], server)
        threads = [
            threading.Thread(target=policy.wrap(work), args=(n,), daemon=True)
            for n, policy in enumerate(policies)
        ]
        for thread in threads:
            thread.start()
        assert probing.wait(60.0)
        time.sleep(0.2)  # room for a wrong start; only a bug fills it
        assert len(entered) == 1
        released = time.monotonic()
        release.set()
        for thread in threads:
            thread.join(timeout=60.0)
        assert not any(thread.is_alive() for thread in threads)
        lifted = backends[0].admit(SCOPE)  # the probe's success lifted the cooldown
    finally:
        release.set()
        for backend in backends:
            backend.close()
    assert len(entered) == 4
    assert all(at >= released for _, at in entered[1:])
    assert lifted == Admission(0.0)


def test_a_call_whose_deadline_ends_during_the_probe_fails_fast(coordination, redis_server, server):
    """Another process probes; a call without room for one more look is not attempted."""
    other = RedisCoordination(redis_server.url, prefix=coordination.prefix, timeout=2.0)
    try:
        half_open(coordination, server)
        assert other.admit(SCOPE).probe is not None
        backend, calls = limited(1.0)
        policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None, deadline=0.001)
        with pytest.raises(RateLimitError) as raised:
            policy.wrap(backend)()
    finally:
        other.close()
    assert calls == []
    assert retry_info(raised.value).reason is GiveUpReason.COOLDOWN


def test_async_probe_through_the_asyncio_client(coordination, server):
    """The async twins take, hold and lift the same lease."""

    async def main():
        try:
            await coordination.aextend_cooldown(SCOPE, 0.05)
            until_server_time(server, stored_end(server, coordination))
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
    assert after == Admission(0.0)


def test_fail_open_when_the_server_stops_during_a_probe(own_redis_server, prefix):
    """Another process holds the lease, then Redis stops: the call goes on without waiting."""
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, pause=0.0, timeout=2.0)
    other = RedisCoordination(
        own_redis_server.url, prefix=prefix, timeout=2.0, probe_lease=LONG_LEASE
    )
    slept = []
    policy = RetryPolicy(
        coordination=backend, scope=SCOPE, on_retry=None, deadline=5.0, sleep=slept.append
    )
    client = own_redis_server.client()
    try:
        half_open(backend, client, other)
        assert other.admit(SCOPE).probe is not None
        assert backend.admit(SCOPE).wait > 0.0  # held by the other
        own_redis_server.stop()
        assert policy.wrap(lambda: "ok")() == "ok"
    finally:
        client.close()
        other.close()
        backend.close()
    assert slept == []  # no wait for a probe it can no longer see
    assert backend.fallbacks >= 1


# --- what the hooks hear --------------------------------------------------------------------


def every_hook(otel_sdk, registry, seen):
    """A recorder and every built-in hook, the metrics in the test's own registry/provider."""
    return [
        seen.append,
        OpenTelemetryOnRetryHook(meter_provider=otel_sdk.meter_provider),
        PrometheusOnRetryHook(registry=registry),
        StructlogOnRetryHook(),
        LoggingOnRetryHook(),
    ]


def test_a_wait_for_the_fleet_cooldown_reaches_every_hook(coordination, server, otel_sdk, caplog):
    """A call held by a cooldown in Redis: one ``CooldownEvent``, seen by every hook.

    The wait is skipped (``instant_retries``); the planned one is what Redis said was
    left, by the server's clock around the call, plus at most 10 % jitter.
    """
    registry, seen = CollectorRegistry(), []
    extending, ends = extend(coordination, server, 60.0)  # as another process's 429 would
    policy = RetryPolicy(coordination=coordination, scope=SCOPE, on_retry=None)
    tracer = otel_sdk.tracer_provider.get_tracer("test")
    with (
        set_on_retry_hooks(every_hook(otel_sdk, registry, seen)),
        instant_retries() as recorder,
        capture_logs() as logs,
        caplog.at_level(logging.INFO, logger="llm_retry"),
        tracer.start_as_current_span("work"),
    ):
        before = server_now(server)
        assert policy.wrap(lambda: "ok")() == "ok"
        after = server_now(server)
    [pause] = recorder.sleeps
    assert extending + 60.0 - after <= pause <= 1.1 * (ends - before)
    (event,) = seen
    assert isinstance(event, CooldownEvent)
    assert (event.target, event.scope, event.attempt, event.sleep) == (SCOPE, SCOPE, 1, pause)
    (span,) = otel_sdk.exporter.get_finished_spans()
    assert [(e.name, dict(e.attributes)) for e in span.events] == [
        ("retry.cooldown", {"retry.scope": SCOPE, "retry.attempt": 1, "retry.wait_s": pause})
    ]
    (waited,) = otel_sdk.points("llm_retry.cooldown.wait")
    assert (waited.count, waited.sum) == (1, pause)
    labels = {"scope": SCOPE}
    assert registry.get_sample_value("llm_retry_cooldown_wait_seconds_count", labels) == 1
    assert [(entry["event"], entry["scope"], entry["wait_s"]) for entry in logs] == [
        ("llm_retry.cooldown_wait", SCOPE, pause)
    ]
    (line,) = [r.getMessage() for r in caplog.records if r.name == "llm_retry"]
    assert line == f"waiting {pause:.2f}s for the shared cooldown of {SCOPE} before attempt 1"


def test_redis_going_away_and_coming_back_reaches_every_hook(
    own_redis_server, prefix, otel_sdk, caplog
):
    """Redis stops, then starts again: one event each way, a WARNING each way, every hook."""
    registry, seen = CollectorRegistry(), []
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, pause=0.0, timeout=2.0)
    tracer = otel_sdk.tracer_provider.get_tracer("test")
    try:
        with (
            set_on_retry_hooks(every_hook(otel_sdk, registry, seen)),
            capture_logs() as logs,
            caplog.at_level(logging.INFO, logger="llm_retry"),
            tracer.start_as_current_span("work"),
        ):
            assert backend.cooldown(SCOPE) == 0.0  # Redis answers: nothing to tell
            own_redis_server.stop()
            for _ in range(3):
                assert backend.cooldown(SCOPE) == 0.0  # without Redis
            down = backend.fallbacks
            own_redis_server.start()
            for _ in range(5):  # a connection from before the restart may fail once more
                backend.cooldown(SCOPE)
                if len(seen) == 2:
                    break
            backend.cooldown(SCOPE)  # answered again: nothing new to tell
    finally:
        backend.close()
    went, came = seen
    assert isinstance(went, CoordinationEvent)
    assert (went.backend, went.available, went.fallbacks, went.down_for) == ("redis", False, 1, 0.0)
    assert isinstance(went.error, RedisConnectionError)
    assert isinstance(came, CoordinationEvent)
    assert (came.backend, came.available, came.error) == ("redis", True, None)
    assert came.fallbacks == backend.fallbacks >= down == 3
    assert came.down_for >= 0.0
    lines = [r.getMessage() for r in caplog.records if r.name == "llm_retry"]
    assert [line.split(" (")[0].split(" after ")[0] for line in lines] == [
        "Redis coordination unavailable",
        "Redis coordination available again",
    ]
    assert all(r.levelno == logging.WARNING for r in caplog.records if r.name == "llm_retry")
    assert own_redis_server.url not in caplog.text
    assert [entry["event"] for entry in logs] == [
        "llm_retry.coordination_unavailable",
        "llm_retry.coordination_available",
    ]
    assert logs[0]["error_class"] == "ConnectionError"
    value = registry.get_sample_value
    for state in ("unavailable", "available"):
        labels = {"backend": "redis", "state": state}
        assert value("llm_retry_coordination_changes_total", labels) == 1
    changes = {
        point.attributes["retry.coordination.state"]: point.value
        for point in otel_sdk.points("llm_retry.coordination.changes")
    }
    assert changes == {"unavailable": 1, "available": 1}
    (span,) = otel_sdk.exporter.get_finished_spans()
    assert [dict(e.attributes) for e in span.events if e.name == "retry.coordination"] == [
        {
            "retry.coordination.backend": "redis",
            "retry.coordination.state": "unavailable",
            "error.type": "ConnectionError",
        },
        {"retry.coordination.backend": "redis", "retry.coordination.state": "available"},
    ]


def test_async_operations_tell_of_redis_coming_back(own_redis_server, prefix):
    """The asyncio client's failures and first answer after them are told the same way."""
    seen = []
    backend = RedisCoordination(own_redis_server.url, prefix=prefix, pause=0.0, timeout=2.0)

    async def main():
        try:
            assert await backend.acooldown(SCOPE) == 0.0
            own_redis_server.stop()
            assert await backend.acooldown(SCOPE) == 0.0
            own_redis_server.start()
            for _ in range(5):
                await backend.acooldown(SCOPE)
                if len(seen) == 2:
                    break
        finally:
            await backend.aclose()

    try:
        with set_on_retry_hooks([seen.append]):
            asyncio.run(main())
    finally:
        backend.close()
    assert [(type(event), event.available) for event in seen] == [
        (CoordinationEvent, False),
        (CoordinationEvent, True),
    ]
