"""The iterator form: ``for``/``async for`` over ``policy.attempts()``."""

import asyncio

import pytest

from llm_errors import AuthError, ServerError
from llm_retry import Attempts, GiveUpReason, retry_info


def test_sync_loop_retries_the_block(make_policy, script, clock):
    """A failing block is retried; leaving it normally ends the loop."""
    backend = script(ServerError, ServerError, "ok")
    policy = make_policy()
    numbers = []
    for attempt in policy.attempts():
        with attempt:
            numbers.append(attempt.number)
            result = backend()
    assert result == "ok"
    assert numbers == [1, 2, 3]
    assert clock.sleeps == [1.0, 2.0]
    assert policy.stats.successes == 1


def test_returning_inside_the_block_counts_as_success(make_policy, script):
    """``return`` from inside ``with attempt`` ends the call and records the success."""
    backend = script(ServerError, "ok")
    policy = make_policy()

    def ask():
        for attempt in policy.attempts():
            with attempt:
                return backend()
        return None

    assert ask() == "ok"
    assert policy.stats.successes == 1
    assert policy.stats.attempts == 2


def test_async_loop_retries_the_block(make_policy, script, clock):
    """The same object drives ``async for``, sleeping with the async sleep."""
    backend = script(ServerError, "ok")
    policy = make_policy()
    attempts = policy.attempts(name="ask-block")
    assert isinstance(attempts, Attempts)

    async def main():
        async for attempt in attempts:
            with attempt:
                return await backend.acall()
        return None

    assert asyncio.run(main()) == "ok"
    assert clock.sleeps == [1.0]


def test_loop_give_up_is_annotated(make_policy, script):
    """When the policy stops, the block's error is raised with its record."""
    backend = script(ServerError)

    def ask():
        for attempt in make_policy(max_attempts=2).attempts():
            with attempt:
                backend()

    with pytest.raises(ServerError) as info:
        ask()
    meta = retry_info(info.value)
    assert (meta.reason, meta.attempts) == (GiveUpReason.MAX_ATTEMPTS, 2)


def test_async_loop_give_up_is_annotated(make_policy, script):
    """Non-retryable errors leave the async loop at once, annotated."""
    backend = script(AuthError)

    async def main():
        async for attempt in make_policy().attempts():
            with attempt:
                await backend.acall()

    with pytest.raises(AuthError) as info:
        asyncio.run(main())
    assert retry_info(info.value).reason is GiveUpReason.NOT_RETRYABLE
    assert backend.calls == 1


def test_interrupts_in_the_block_are_not_swallowed(make_policy):
    """A KeyboardInterrupt inside the block leaves the loop untouched."""
    runs = []

    def interrupted():
        for attempt in make_policy().attempts():
            with attempt:
                runs.append(1)
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert runs == [1]


def test_events_name_the_block(make_policy, script):
    """``name`` stands for the block in events and logs."""
    events = []
    backend = script(ServerError, "ok")
    for attempt in make_policy(on_retry=events.append).attempts(name="summarise"):
        with attempt:
            backend()
    assert [event.target for event in events] == ["summarise"]


def test_iterators_are_their_own_iterators(make_policy):
    """The loop objects follow the iterator protocols and show the attempt number."""
    attempts = iter(make_policy().attempts())
    assert iter(attempts) is attempts
    attempt = next(attempts)
    assert repr(attempt) == "<Attempt 1>"
    with attempt:
        pass

    async def main():
        loop = aiter(make_policy().attempts())
        assert aiter(loop) is loop
        async for attempt in loop:
            with attempt:
                pass

    asyncio.run(main())
