"""RedisCoordination on a real three-master Redis Cluster that the suite starts (conftest).

Cooldowns here last a minute and half-open times too, far longer than the test takes
(a cluster client's first command once took over 2 s on CI): no verdict races a clock.
What is left of one is kept by the server in whole milliseconds, so it is checked to be
over half the minute, never against this process's clock.
"""

import asyncio
import time

import pytest
from redis.crc import key_slot

from llm_errors import RateLimitError
from llm_retry import (
    Admission,
    CircuitBreaker,
    GiveUpReason,
    LearnedRate,
    RateLimits,
    RetryBudget,
    RetryPolicy,
    Unit,
    Window,
    retry_info,
)
from llm_retry.redis import RedisCoordination

pytestmark = pytest.mark.integration

#: Scopes whose hash tags fall on different masters (checked by the first test).
SCOPES = ("openai:gpt-4o", "mistral:mistral-small-latest", "google:gemini-2.5-flash")
#: A cooldown, and a half-open time, that outlast any test here.
LONG = 60.0


@pytest.fixture
def coordination(redis_cluster, prefix):
    """A backend on the session's cluster through RedisCluster clients, closed after.

    The timeout is generous: these tests check what is shared, and a first command of a
    cluster client (slot discovery, a connection per master, the scripts on each) once
    took over 2 s on CI's machine running four suites at once.
    """
    backend = RedisCoordination(
        redis_cluster.url, prefix=prefix, timeout=10.0, cluster=True, probe_lease=LONG
    )
    yield backend
    backend.close()


def test_the_scopes_span_the_masters(redis_cluster):
    """The test scopes hash to three different masters, so every node is exercised."""
    nodes = {redis_cluster.node_of(key_slot(scope.encode())).port for scope in SCOPES}
    assert len(nodes) == 3


def test_cooldown_budget_and_probe_through_the_sync_cluster_client(coordination, redis_cluster):
    """Each scope's keys live on the master of its hash tag's slot; no fallback."""
    budget = RetryBudget(capacity=2, refill=0.5)
    for scope in SCOPES:
        coordination.extend_cooldown(scope, LONG)
        # Stored and read back by the server's clock, in whole milliseconds: what is left
        # is at most the minute and, whatever the scheduling, well over half of it.
        assert LONG / 2 < coordination.cooldown(scope) <= LONG
        assert 0.0 < coordination.admit(scope).wait <= LONG
        assert [coordination.try_spend(scope, budget) for _ in range(3)] == [True, True, False]
        coordination.record_success(scope, budget)
        node = redis_cluster.node_of(key_slot(scope.encode())).client()
        try:
            assert node.exists(coordination.key(scope, "cooldown")) == 1
            assert node.get(coordination.key(scope, "budget")) == b"0.5"
        finally:
            node.close()
    assert coordination.fallbacks == 0


def test_the_half_open_probe_on_the_cluster(coordination):
    """After a cooldown, one probe; its success lifts the cooldown on its master."""
    coordination.extend_cooldown(SCOPES[1], 0.05)
    give_up = time.monotonic() + LONG
    while coordination.cooldown(SCOPES[1]) > 0.0:  # its end, by the server's clock
        assert time.monotonic() < give_up
        time.sleep(0.01)
    probe = coordination.admit(SCOPES[1])
    assert probe.probe is not None
    assert coordination.admit(SCOPES[1]).wait > 0.0
    coordination.end_probe(SCOPES[1], probe.probe, lifted=True)
    assert coordination.admit(SCOPES[1]) == Admission(0.0)
    assert coordination.fallbacks == 0


def test_a_policy_shares_a_cooldown_through_the_cluster(coordination):
    """A 429 recorded through the cluster makes the next call fail fast."""
    calls = []

    def limited():
        calls.append(1)
        raise RateLimitError("429 Too Many Requests", status=429, retry_after=LONG)

    policy = RetryPolicy(
        coordination=coordination, scope=SCOPES[2], on_retry=None, max_attempts=1, deadline=1.0
    )
    with pytest.raises(RateLimitError):
        policy.wrap(limited)()
    with pytest.raises(RateLimitError) as second:
        policy.wrap(limited)()
    assert retry_info(second.value).reason is GiveUpReason.COOLDOWN
    assert calls == [1]
    assert coordination.fallbacks == 0


def test_the_asyncio_cluster_client_shares_the_same_state(coordination, redis_cluster):
    """redis.asyncio.cluster.RedisCluster reads and writes what the sync client does."""
    budget = RetryBudget(capacity=1, refill=1.0)

    async def main():
        try:
            for scope in SCOPES:
                await coordination.aextend_cooldown(scope, LONG)
                assert LONG / 2 < await coordination.acooldown(scope) <= LONG
                assert 0.0 < (await coordination.aadmit(scope)).wait <= LONG
                assert await coordination.atry_spend(scope, budget)
                assert not await coordination.atry_spend(scope, budget)
                await coordination.arecord_success(scope, budget)
        finally:
            await coordination.aclose()

    asyncio.run(main())
    for scope in SCOPES:
        assert LONG / 2 < coordination.cooldown(scope) <= LONG  # the sync client sees them
        node = redis_cluster.node_of(key_slot(scope.encode())).client()
        try:
            assert node.exists(coordination.key(scope, "cooldown")) == 1
            assert node.exists(coordination.key(scope, "budget")) == 0  # refilled: no key
        finally:
            node.close()
    assert coordination.fallbacks == 0


def test_park_pace_breaker_and_learned_rate_on_every_master(redis_cluster, prefix):
    """The newer scripts run on each scope's own master, sync and async, with no fallback.

    A parked quota, a stated window, the breaker and a learned rate.
    """
    breaker = CircuitBreaker(min_calls=2, failure_ratio=0.5, open_for=LONG, max_open_for=LONG)
    slow = LearnedRate(min_rate=0.01, increase=0.0, hold=0.0)
    backend = RedisCoordination(
        redis_cluster.url, prefix=prefix, timeout=10.0, cluster=True, breaker=breaker, learn=slow
    )
    spent = RateLimits((Window(Unit.REQUESTS, 0, None, LONG),))
    parked, paced, broken, learned = SCOPES[0], SCOPES[1], SCOPES[2], SCOPES[0] + ":learned"

    async def async_side():
        try:
            await backend.arecord_limited(learned)
            return (await backend.aadmit(learned)).wait, (await backend.aadmit(paced)).wait
        finally:
            await backend.aclose()

    try:
        backend.park(parked, LONG)
        backend.record_limits(paced, spent)
        for _ in range(2):
            backend.record_outcome(broken, failed=True)
        admissions = {scope: backend.admit(scope) for scope in (parked, paced, broken)}
        held_async, paced_async = asyncio.run(async_side())
        held = backend.admit(learned).wait
        fallbacks = backend.fallbacks
    finally:
        backend.close()
    assert admissions[parked].refused is GiveUpReason.QUOTA_PARKED
    assert 0.0 < admissions[paced].wait <= LONG
    assert admissions[paced].refused is None
    assert admissions[broken].refused is GiveUpReason.BREAKER_OPEN
    assert 0.0 < held_async <= 100.0
    assert 0.0 < held <= 100.0
    assert 0.0 < paced_async <= LONG
    assert fallbacks == 0
    for scope, kind in ((parked, "parked"), (paced, "pace"), (learned, "rate")):
        node = redis_cluster.node_of(key_slot(scope.encode())).client()
        try:
            assert node.exists(f"{prefix}:{{{scope}}}:{kind}") == 1
        finally:
            node.close()
