"""RetryBudget: the token bucket, its thread safety, and the retry-storm amplification."""

import asyncio
import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from llm_errors import ServerError
from llm_retry import GiveUpReason, RetryBudget, RetryPolicy, retry_info


def test_spend_until_empty_then_refill():
    """Each retry takes a token; successes add ``refill`` back, up to capacity."""
    budget = RetryBudget(capacity=2, refill=0.5)
    assert [budget.try_spend() for _ in range(3)] == [True, True, False]
    budget.record_success()
    assert budget.try_spend() is False
    budget.record_success()
    assert budget.try_spend() is True
    for _ in range(10):
        budget.record_success()
    assert budget.tokens == budget.capacity == 2


def test_repr_shows_the_level():
    """The repr says how full the bucket is."""
    budget = RetryBudget(capacity=3, refill=0.25)
    budget.try_spend()
    assert (budget.capacity, budget.refill, budget.tokens) == (3, 0.25, 2)
    assert repr(budget) == "RetryBudget(capacity=3, refill=0.25, tokens=2)"


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        pytest.param({"capacity": 0.5}, "capacity", id="capacity<1"),
        pytest.param({"capacity": "10"}, "capacity", id="capacity-str"),
        pytest.param({"refill": -0.1}, "refill", id="refill-negative"),
        pytest.param({"refill": float("nan")}, "refill", id="refill-nan"),
    ],
)
def test_bad_settings(settings, match):
    """Bad settings fail on construction, naming the field."""
    with pytest.raises((TypeError, ValueError), match=match):
        RetryBudget(**settings)


def test_threads_never_overspend():
    """Racing threads take exactly ``capacity`` tokens between them."""
    budget = RetryBudget(capacity=100, refill=0)
    barrier = threading.Barrier(8)

    def spend():
        barrier.wait()
        return sum(budget.try_spend() for _ in range(1000))

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sum(pool.map(lambda _: spend(), range(8))) == 100


def test_empty_budget_propagates_at_once_with_a_note(make_policy, script, clock):
    """With no token left the first error is raised without waiting, saying why."""
    budget = RetryBudget(capacity=1, refill=0)
    budget.try_spend()
    backend = script(ServerError, "ok")
    with pytest.raises(ServerError) as info:
        make_policy(budget=budget).wrap(backend)()
    assert backend.calls == 1
    assert clock.sleeps == []
    assert retry_info(info.value).reason is GiveUpReason.BUDGET_EXHAUSTED
    assert "retry budget is exhausted" in info.value.__notes__[0]


def test_token_only_spent_on_retries_that_happen(make_policy, script):
    """Stops for other reasons (attempts, deadline) leave the budget untouched."""
    budget = RetryBudget(capacity=5, refill=0)
    with pytest.raises(ServerError):
        make_policy(budget=budget, max_attempts=3).wrap(script(ServerError))()
    assert budget.tokens == 3


def test_success_refills(make_policy, script):
    """A call that gets through adds ``refill`` tokens."""
    budget = RetryBudget(capacity=4, refill=0.25)
    make_policy(budget=budget).wrap(script(ServerError, "ok"))()
    assert budget.tokens == 3.25


def storm(policy, callers, calls_each):
    """N concurrent async callers against a fully failing backend: (attempts, calls)."""
    attempts = 0

    @policy.wrap
    async def backend():
        nonlocal attempts
        attempts += 1
        await asyncio.sleep(0)
        raise ServerError("provider down")

    async def caller():
        for _ in range(calls_each):
            with contextlib.suppress(ServerError):
                await backend()

    async def main():
        await asyncio.gather(*(caller() for _ in range(callers)))

    asyncio.run(main())
    return attempts, callers * calls_each


def test_budget_bounds_amplification_under_concurrency(llm_retry_testing):
    """Without a budget every call makes max_attempts attempts; with one, ~1 once drained."""
    attempts, calls = storm(RetryPolicy(on_retry=None), callers=50, calls_each=4)
    assert attempts / calls == 4.0

    budget = RetryBudget(capacity=10, refill=0.1)
    policy = RetryPolicy(on_retry=None, budget=budget)
    attempts, calls = storm(policy, callers=50, calls_each=4)
    assert attempts == calls + 10  # exactly the bucket's tokens were spent
    assert attempts / calls <= 1.2
    drained_attempts, drained_calls = storm(policy, callers=50, calls_each=4)
    assert drained_attempts / drained_calls == 1.0
    assert policy.stats.retries == 10
    assert policy.stats.give_up_reasons[GiveUpReason.BUDGET_EXHAUSTED] >= 400 - 10


def test_budget_shared_by_threads(llm_retry_testing):
    """Threads sharing one budget spend exactly its tokens between them."""
    budget = RetryBudget(capacity=20, refill=0)
    policy = RetryPolicy(on_retry=None, budget=budget)
    lock = threading.Lock()
    attempts = 0

    @policy.wrap
    def backend():
        nonlocal attempts
        with lock:
            attempts += 1
        raise ServerError("provider down")

    def call(_):
        with contextlib.suppress(ServerError):
            backend()

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(call, range(400)))
    assert attempts == 420
    assert policy.stats.retries == 20
