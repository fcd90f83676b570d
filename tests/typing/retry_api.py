"""Type-checked, never run: the ``llm_retry`` API from a user's point of view.

``mypy --strict src tests/typing`` checks this file; ``warn_unused_ignores`` (part of
strict) makes every ``# type: ignore`` below an assertion that mypy does reject the line.
"""

import dataclasses
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from typing import assert_type

import tenacity

import llm_retry
from llm_errors import Classification, ErrorCode, RateLimitError, classify
from llm_retry.redis import RedisCoordination

budget = llm_retry.RetryBudget(capacity=5, refill=0.2)
policy = llm_retry.RetryPolicy(
    max_attempts=3,
    deadline=30.0,
    retry_on=frozenset({ErrorCode.RATE_LIMIT, ErrorCode.SERVER}),
    budget=budget,
)
assert_type(llm_retry.RetryPolicy.from_env(), llm_retry.RetryPolicy)
assert_type(llm_retry.RetryPolicy.from_mapping({"max_attempts": "3"}), llm_retry.RetryPolicy)
assert_type(dataclasses.replace(policy, max_attempts=2), llm_retry.RetryPolicy)
llm_retry.RetryPolicy(max_attempts="3")  # type: ignore[arg-type]
llm_retry.RetryPolicy(retry_on={ErrorCode.SERVER})
llm_retry.RetryPolicy(retry_on=["RATE_LIMIT", ErrorCode.SERVER])
llm_retry.RetryPolicy(retry_on=[429])  # type: ignore[list-item]
llm_retry.RetryPolicy(retry_on=429)  # type: ignore[arg-type]
llm_retry.RetryPolicy(retry_on="RATE_LIMIT,SERVER")
llm_retry.RetryPolicy(retry_on=ErrorCode.SERVER)
llm_retry.retry_if_code(["rate_limit"])
llm_retry.retry_if_code("RATE_LIMIT")
llm_retry.retry_if_code(ErrorCode.RATE_LIMIT)
llm_retry.retry_if_code(503)  # type: ignore[arg-type]


@llm_retry.retry_llm(policy)
def complete(prompt: str, *, temperature: float = 0.0) -> str:
    return f"{prompt}{temperature}"


assert_type(complete("hi"), str)
assert_type(complete("hi", temperature=0.5), str)
complete(1)  # type: ignore[arg-type]
complete("hi", top_p=1.0)  # type: ignore[call-arg]


@llm_retry.retry_llm()
async def acomplete(prompt: str) -> str:
    return prompt


@policy.wrap
def stream(prompt: str) -> Iterator[str]:
    yield prompt


@policy.wrap
def chat(prompt: str) -> Generator[str, int, bool]:
    reply = yield prompt
    return reply > 0


@policy.wrap
async def astream(prompt: str) -> AsyncIterator[str]:
    yield prompt


assert_type(stream("x"), Iterator[str])
assert_type(chat("x"), Generator[str, int, bool])
assert_type(astream("x"), AsyncIterator[str])


async def use_async() -> None:
    assert_type(await acomplete("hi"), str)
    async for chunk in astream("x"):
        assert_type(chunk, str)


def block() -> str:
    for attempt in policy.attempts():
        with attempt:
            assert_type(attempt.number, int)
            return complete("x")
    raise AssertionError


async def async_block() -> str:
    async for attempt in policy.attempts(name="ask"):
        with attempt:
            return await acomplete("x")
    raise AssertionError


class Client:
    """Decorated methods keep ``self`` binding and their signatures."""

    @llm_retry.retry_llm(policy)
    def ask(self, prompt: str) -> str:
        """Sync method."""
        return prompt

    @llm_retry.retry_llm(policy)
    async def aask(self, prompt: str) -> str:
        """Async method."""
        return prompt


assert_type(Client().ask("x"), str)
Client().ask(1)  # type: ignore[arg-type]


async def use_client() -> None:
    assert_type(await Client().aask("x"), str)


def on_retry(event: llm_retry.RetryEvent) -> None:
    assert_type(event.classification, Classification)
    assert_type(event.sleep, float)
    assert_type(event.elapsed, float)
    assert_type(event.attempt, int)
    llm_retry.log_retry(event)


hooked = llm_retry.RetryPolicy(on_retry=on_retry, classifier=classify)
llm_retry.RetryPolicy(on_retry=lambda event: event.sleep)
llm_retry.RetryPolicy(classifier=lambda _error: 1)  # type: ignore[arg-type,return-value]

retrying = tenacity.Retrying(
    retry=llm_retry.retry_if_code({ErrorCode.SERVER}) | tenacity.retry_if_exception_type(OSError),
    wait=llm_retry.wait_retry_after_or_backoff(max_wait=10) + tenacity.wait_fixed(1),
    stop=tenacity.stop_after_attempt(3) | llm_retry.stop_if_retry_after_exceeds(30),
    reraise=True,
)

with llm_retry.instant_retries() as recorder:
    assert_type(recorder.sleeps, list[float])
    assert_type(recorder.events, list[llm_retry.RetryEvent])

info = llm_retry.retry_info(RateLimitError("slow"))
if info is not None:
    assert_type(info.attempts, int)
    assert_type(info.reason, llm_retry.GiveUpReason)
    assert_type(info.items_delivered, int | None)

assert_type(policy.stats.give_ups, dict[ErrorCode, int])
assert_type(policy.stats.retries, int)
assert_type(budget.try_spend(), bool)

# Fleets: a scope (a name or a function of the call's arguments) and a backend.
local = llm_retry.InProcessCoordination(max_cooldown=120.0)
fleet = RedisCoordination("redis://127.0.0.1:6379/0", prefix="myapp", timeout=0.05)
shared_policy = llm_retry.RetryPolicy(budget=budget, coordination=fleet, scope="openai:gpt-4o")
llm_retry.RetryPolicy(coordination=local, scope=lambda _prompt, *, model: f"openai:{model}")
llm_retry.RetryPolicy(coordination="redis://127.0.0.1")  # type: ignore[arg-type]
llm_retry.RetryPolicy(scope=3)  # type: ignore[arg-type]
backend: llm_retry.Coordination = fleet
backend = local
assert_type(backend.cooldown("openai:gpt-4o"), float)
assert_type(backend.try_spend("openai:gpt-4o", budget), bool)
assert_type(fleet.fallbacks, int)
assert_type(llm_retry.GiveUpReason("cooldown"), llm_retry.GiveUpReason)


async def use_fleet() -> None:
    assert_type(await backend.acooldown("openai:gpt-4o"), float)
    assert_type(await backend.atry_spend("openai:gpt-4o", budget), bool)
    await fleet.aclose()


# Fallback by error code: one kind of hop, bare or stated; the signature is kept.
large = llm_retry.Hop(complete, scope="mistral:large", coordination=local, context_window=128_000)
either = llm_retry.fallback(complete, large, rules={ErrorCode.AUTH: llm_retry.FallbackRule.STOP})
assert_type(either("hi"), str)
assert_type(either("hi", temperature=0.5), str)
either(1)  # type: ignore[arg-type]
either("hi", top_p=1.0)  # type: ignore[call-arg]
llm_retry.fallback(complete, rules={"content_filter": "other_provider"}, max_wait=5.0)
llm_retry.fallback(complete, rules={ErrorCode.AUTH: "stop"})  # type: ignore[arg-type]
llm_retry.Hop(complete, context_window="128k")  # type: ignore[arg-type]
assert_type(llm_retry.fallback(stream, stream)("x"), Iterator[str])
assert_type(llm_retry.DEFAULT_FALLBACK_RULES[ErrorCode.SERVER], llm_retry.FallbackRule)
should_fall_back = llm_retry.fallback_predicate()
assert_type(should_fall_back, Callable[[BaseException], bool])
tenacity.Retrying(retry=tenacity.retry_if_exception(should_fall_back))


async def use_fallback() -> None:
    assert_type(await llm_retry.fallback(acomplete, acomplete)("x"), str)
    async for chunk in llm_retry.fallback(astream, llm_retry.Hop(astream, provider="b"))("x"):
        assert_type(chunk, str)
