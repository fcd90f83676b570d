"""Streams: retried until the first item reaches the caller, never after."""

import asyncio
import inspect

import pytest
import tenacity

from llm_errors import AuthError, ServerError, TransportError
from llm_retry import GiveUpReason, RetryBudget, retry_info, retry_llm


class Stream:
    """A fake streaming backend: each open fails or yields items, as scripted per open."""

    def __init__(self, *opens):
        self.opens = list(opens)
        self.opened = 0
        self.closed = 0
        self.received = []

    def script(self):
        """The plan for this open."""
        plan = self.opens[min(self.opened, len(self.opens) - 1)]
        self.opened += 1
        return plan

    def sync(self):
        """The sync stream."""
        try:
            for step in self.script():
                if isinstance(step, BaseException):
                    raise step
                self.received.append((yield step))
            return "done"
        finally:
            self.closed += 1

    async def asynchronous(self):
        """The async stream."""
        try:
            for step in self.script():
                await asyncio.sleep(0)
                if isinstance(step, BaseException):
                    raise step
                self.received.append((yield step))
        finally:
            self.closed += 1


async def collect(stream):
    return [item async for item in stream]


def test_sync_stream_retried_before_first_item(make_policy, clock):
    """A stream failing before its first item is reopened; the caller sees one clean run."""
    backend = Stream([TransportError("reset")], ["a", "b", "c"])
    wrapped = make_policy().wrap(backend.sync)
    assert inspect.isgeneratorfunction(wrapped)
    assert list(wrapped()) == ["a", "b", "c"]
    assert backend.opened == 2
    assert clock.sleeps == [1.0]


def test_sync_stream_return_value_is_kept(make_policy):
    """The generator's return value reaches a ``yield from`` caller."""
    backend = Stream(["a"])
    wrapped = make_policy().wrap(backend.sync)

    def consumer():
        return (yield from wrapped())

    gen = consumer()
    assert next(gen) == "a"
    with pytest.raises(StopIteration) as info:
        next(gen)
    assert info.value.value == "done"


def test_sync_empty_stream_succeeds(make_policy):
    """A stream with no items is a success, with its return value."""
    backend = Stream([])
    policy = make_policy()
    assert list(policy.wrap(backend.sync)()) == []
    assert policy.stats.successes == 1


def test_sync_stream_never_retried_after_first_item(make_policy, clock):
    """A failure after the first item propagates, with the count delivered."""
    error = ServerError("mid-stream")
    backend = Stream(["a", "b", error], ["x"])
    policy = make_policy()
    received = []
    with pytest.raises(ServerError) as info:
        received.extend(policy.wrap(backend.sync)())
    assert info.value is error
    assert backend.opened == 1
    assert clock.sleeps == []
    meta = retry_info(error)
    assert (meta.reason, meta.items_delivered, meta.attempts) == (GiveUpReason.STREAM_STARTED, 2, 1)
    assert "after 2 item(s)" in error.__notes__[0]
    assert policy.stats.give_up_reasons == {GiveUpReason.STREAM_STARTED: 1}


def test_sync_stream_give_up_before_first_item(make_policy):
    """A stream that never starts gives up like a function, with zero items delivered."""
    backend = Stream([AuthError("bad key")])
    with pytest.raises(AuthError) as info:
        list(make_policy().wrap(backend.sync)())
    meta = retry_info(info.value)
    assert (meta.reason, meta.items_delivered) == (GiveUpReason.NOT_RETRYABLE, 0)


def test_sync_stream_delegates_send_throw_and_close(make_policy):
    """``send`` values reach the inner stream, ``throw`` is forwarded and ``close`` closes it."""
    backend = Stream(["a", "b", "c", "d"])
    policy = make_policy()
    gen = policy.wrap(backend.sync)()
    assert next(gen) == "a"
    assert gen.send("reply") == "b"
    with pytest.raises(KeyError):
        gen.throw(KeyError("from caller"))
    assert backend.received == ["reply"]
    assert backend.closed == 1

    gen = policy.wrap(backend.sync)()
    next(gen)
    gen.close()
    assert backend.closed == 2
    assert policy.stats.successes == 1


def test_sync_close_closes_the_inner_stream_itself(make_policy):
    """Closing the wrapper closes the inner stream, even while something else holds it."""
    backend = Stream(["a", "b"])
    gen = make_policy().wrap(backend.sync)()
    next(gen)
    # Held here, the inner stream cannot be closed by reference counting when the
    # wrapper's frame goes: only the wrapper's own ``close()`` call can close it.
    inner = gen.gi_frame.f_locals["stream"]
    gen.close()
    assert backend.closed == 1
    assert inner.gi_frame is None


def test_plain_tenacity_does_not_retry_an_async_generator():
    """Tenacity sees the generator object returned at once as success: no retry at all."""
    backend = Stream([TransportError("reset")], ["a"])
    wrapped = tenacity.retry(
        stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_none(), reraise=True
    )(backend.asynchronous)
    with pytest.raises(TransportError):
        asyncio.run(collect(wrapped()))
    assert backend.opened == 1


def test_we_retry_an_async_generator_before_its_first_item(make_policy, clock):
    """Ours reopens the async stream until the first item arrives."""
    backend = Stream([TransportError("reset")], [ServerError("503")], ["a", "b"])
    wrapped = retry_llm(make_policy())(backend.asynchronous)
    assert inspect.isasyncgenfunction(wrapped)
    assert asyncio.run(collect(wrapped())) == ["a", "b"]
    assert backend.opened == 3
    assert clock.sleeps == [1.0, 2.0]


def test_async_stream_never_retried_after_first_item(make_policy, clock):
    """After the first item an async stream failure propagates with the count delivered."""
    error = TransportError("dropped")
    backend = Stream(["a", error], ["x"])
    received = []

    async def consume():
        async for item in make_policy().wrap(backend.asynchronous)():
            received.append(item)  # noqa: PERF401 - items must land before the error

    with pytest.raises(TransportError) as info:
        asyncio.run(consume())
    assert info.value is error
    assert received == ["a"]
    assert backend.opened == 1
    assert clock.sleeps == []
    assert retry_info(error).items_delivered == 1


def test_async_empty_stream_succeeds(make_policy):
    """An async stream with no items is a success."""
    backend = Stream([])
    assert asyncio.run(collect(make_policy().wrap(backend.asynchronous)())) == []


def test_async_stream_delegates_asend_athrow_and_aclose(make_policy):
    """``asend`` values reach the inner stream, ``athrow`` is forwarded, ``aclose`` closes."""
    backend = Stream(["a", "b", "c"])
    policy = make_policy()

    async def main():
        gen = policy.wrap(backend.asynchronous)()
        assert await anext(gen) == "a"
        assert await gen.asend("reply") == "b"
        with pytest.raises(KeyError):
            await gen.athrow(KeyError("from caller"))
        gen = policy.wrap(backend.asynchronous)()
        await anext(gen)
        await gen.aclose()

    asyncio.run(main())
    assert backend.received == ["reply"]
    assert backend.closed == 2


def test_async_aclose_closes_the_inner_stream_itself(make_policy):
    """``aclose`` on the wrapper closes the inner stream at once, not at loop shutdown."""
    backend = Stream(["a", "b"])
    closed_at_once = []

    async def main():
        gen = make_policy().wrap(backend.asynchronous)()
        await anext(gen)
        # Held, so only the wrapper's ``aclose()`` (not the event loop's finaliser of
        # dropped async generators) can run the inner ``finally`` before this returns.
        inner = gen.ag_frame.f_locals["stream"]
        await gen.aclose()
        closed_at_once.append(backend.closed)
        assert inner.ag_frame is None

    asyncio.run(main())
    assert closed_at_once == [1]


def test_async_stream_give_up_before_first_item(make_policy):
    """An async stream that keeps failing to open gives up after max_attempts."""
    backend = Stream([ServerError("503")])
    with pytest.raises(ServerError) as info:
        asyncio.run(collect(make_policy(max_attempts=2).wrap(backend.asynchronous)()))
    meta = retry_info(info.value)
    assert (meta.reason, meta.attempts, meta.items_delivered) == (GiveUpReason.MAX_ATTEMPTS, 2, 0)


def test_first_item_refills_the_budget(make_policy):
    """A stream gets through (and refills the budget) when its first item arrives."""
    budget = RetryBudget(capacity=2, refill=0.5)
    backend = Stream([ServerError("503")], ["a", TransportError("dropped")])
    with pytest.raises(TransportError):
        list(make_policy(budget=budget).wrap(backend.sync)())
    assert budget.tokens == 1.5
