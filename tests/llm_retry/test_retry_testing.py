"""Testing mode: waits are instant and recorded, and the deadline still sees them."""

import asyncio

import pytest

from llm_errors import RateLimitError, ServerError
from llm_retry import GiveUpReason, RetryPolicy, instant_retries, retry_info


def never_sleep(seconds):
    if seconds:
        raise AssertionError(f"slept {seconds}s for real")


async def never_sleep_async(seconds):
    if seconds:
        raise AssertionError(f"slept {seconds}s for real")


def policy(**settings):
    return RetryPolicy(on_retry=None, sleep=never_sleep, async_sleep=never_sleep_async, **settings)


def test_waits_are_skipped_and_recorded(script):
    """Sleeps are for zero seconds; the planned waits are recorded in order."""
    backend = script(ServerError, ServerError, "ok")
    with instant_retries() as recorder:
        assert policy(jitter=False).wrap(backend)() == "ok"
    assert recorder.sleeps == [1.0, 2.0]
    assert [event.attempt for event in recorder.events] == [1, 2]


def test_async_waits_are_skipped_and_recorded(script):
    """The async path skips the async sleep too."""
    backend = script(RateLimitError("slow", retry_after=30.0), "ok")

    async def ask():
        return await backend.acall()

    with instant_retries() as recorder:
        assert asyncio.run(policy().wrap(ask)()) == "ok"
    assert recorder.sleeps == [30.0]


def test_skipped_waits_still_count_towards_the_deadline(script):
    """A test sees the same give-up as production: 40 + 40 s fit in 90 s, a third does not."""
    backend = script(RateLimitError("slow", retry_after=40.0))
    with instant_retries() as recorder, pytest.raises(RateLimitError) as info:
        policy(max_attempts=10).wrap(backend)()
    assert recorder.sleeps == [40.0, 40.0]
    assert retry_info(info.value).reason is GiveUpReason.DEADLINE


def test_blocks_nest_and_restore(script):
    """The innermost block records; leaving it restores the outer one, then real sleeps."""
    with instant_retries() as outer:
        with instant_retries() as inner:
            policy(jitter=False).wrap(script(ServerError, "ok"))()
        policy(jitter=False).wrap(script(ServerError, ServerError, "ok"))()
    assert (inner.sleeps, outer.sleeps) == ([1.0], [1.0, 2.0])
    with pytest.raises(AssertionError, match=r"slept 1\.0s for real"):
        policy(jitter=False).wrap(script(ServerError, "ok"))()


def test_pytest_fixture_turns_waits_off(llm_retry_testing, script):
    """The ``llm_retry_testing`` fixture is the same switch for one test."""
    policy(jitter=False).wrap(script(ServerError, "ok"))()
    assert llm_retry_testing.sleeps == [1.0]


def test_async_waits_become_zero_second_sleeps(script):
    """The policy's own async sleep still runs, for zero seconds, so the loop gets a turn."""
    slept = []

    async def fake_sleep(seconds):
        slept.append(seconds)

    backend = script(ServerError, ServerError, "ok")

    async def ask():
        return await backend.acall()

    wrapped = RetryPolicy(on_retry=None, async_sleep=fake_sleep).wrap(ask)
    with instant_retries() as recorder:
        assert asyncio.run(wrapped()) == "ok"
    assert slept == [0.0, 0.0]
    assert len(recorder.sleeps) == 2
