"""Retry-storm amplification: attempts per call with and without a shared RetryBudget.

N concurrent asyncio callers each make several calls through one policy against a fake
backend (1 ms per attempt). Scenarios, each run without and with a budget:

* outage: every attempt fails (HTTP 503 as ``ServerError``). Without a budget every
  call makes ``max_attempts`` attempts, multiplying the load on a provider that is
  already down. With one, retries stop once the bucket is drained; the second wave
  shows the drained steady state.
* recovery: the backend is healthy again; successes refill the bucket.
* flaky: 5 % and 20 % of attempts fail at random, with a fresh policy. A budget lets
  retries reach about ``refill`` per success (10 % here): below that it costs nothing,
  above it trades some successes for a bounded load, which is the point.

Waits are real but short (``initial_wait=2 ms``) so the run stays quick while callers
really interleave. Amplification = backend attempts / calls.

Run: ``python bench/retry_storm.py [--callers N] [--calls C] [--seed S]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
from dataclasses import dataclass

from llm_errors import ServerError
from llm_retry import RetryBudget, RetryPolicy


@dataclass
class Backend:
    """A fake provider: fails each attempt with probability ``failure_rate``."""

    failure_rate: float
    rng: random.Random
    attempts: int = 0

    async def __call__(self) -> str:
        """One attempt: 1 ms of work, then success or a 503."""
        self.attempts += 1
        await asyncio.sleep(0.001)
        if self.rng.random() < self.failure_rate:
            raise ServerError("503 Service Unavailable", status=503)
        return "ok"


@dataclass(frozen=True)
class Wave:
    """What one wave of concurrent calls did."""

    calls: int
    attempts: int
    successes: int

    @property
    def amplification(self) -> float:
        """Backend attempts per call."""
        return self.attempts / self.calls


async def wave(policy: RetryPolicy, backend: Backend, callers: int, calls: int) -> Wave:
    """``callers`` concurrent callers, ``calls`` sequential calls each."""
    before = backend.attempts
    wrapped = policy.wrap(backend.__call__)
    successes = 0

    async def caller() -> None:
        nonlocal successes
        for _ in range(calls):
            with contextlib.suppress(ServerError):
                await wrapped()
                successes += 1

    await asyncio.gather(*(caller() for _ in range(callers)))
    return Wave(callers * calls, backend.attempts - before, successes)


def policy_for(budget: RetryBudget | None) -> RetryPolicy:
    return RetryPolicy(
        initial_wait=0.002, max_wait=0.02, deadline=10.0, on_retry=None, budget=budget
    )


def budget_for(label: str) -> RetryBudget | None:
    return RetryBudget(capacity=10, refill=0.1) if label == "budget" else None


async def run(callers: int, calls: int, seed: int) -> None:
    rng = random.Random(seed)
    rows: list[tuple[str, str, Wave, str]] = []
    for label in ("no budget", "budget"):
        budget = budget_for(label)
        policy = policy_for(budget)
        down = Backend(failure_rate=1.0, rng=rng)
        rows.append((label, "outage, wave 1", await wave(policy, down, callers, calls), ""))
        rows.append((label, "outage, wave 2", await wave(policy, down, callers, calls), ""))
        healthy = await wave(policy, Backend(failure_rate=0.0, rng=rng), callers, calls)
        level = f"tokens after: {budget.tokens:.1f}/{budget.capacity:g}" if budget else ""
        rows.append((label, "recovery", healthy, level))
        for rate in (0.05, 0.2):
            flaky = Backend(failure_rate=rate, rng=rng)
            result = await wave(policy_for(budget_for(label)), flaky, callers, calls)
            rows.append((label, f"flaky ({rate:.0%} failures)", result, ""))

    print(f"{callers} concurrent callers x {calls} calls per wave, max_attempts=4")
    print(f"{'policy':<11}{'scenario':<24}{'calls':>7}{'attempts':>10}{'att/call':>10}{'ok':>7}")
    for label, scenario, result, note in rows:
        print(
            f"{label:<11}{scenario:<24}{result.calls:>7}{result.attempts:>10}"
            f"{result.amplification:>10.2f}{result.successes:>7}  {note}".rstrip()
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callers", type=int, default=100)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(run(args.callers, args.calls, args.seed))


if __name__ == "__main__":
    main()
