"""One decorator for sync and async functions: pass-through, retries, metadata, concurrency."""

import asyncio
import functools
import inspect
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from llm_errors import ServerError, TransportError
from llm_retry import RetryPolicy, retry_info, retry_llm


def test_sync_success_passes_arguments_and_result(make_policy):
    """A successful call is one attempt with the arguments and result untouched."""

    @retry_llm(make_policy())
    def add(a, b, *, scale=1):
        return (a + b) * scale

    assert add(1, 2, scale=3) == 9


def test_sync_retries_then_succeeds(make_policy, script, clock):
    """A transient failure is retried and the eventual result returned."""
    backend = script(TransportError, ServerError, "ok")
    assert make_policy().wrap(backend)("prompt") == "ok"
    assert backend.calls == 3
    assert clock.sleeps == [1.0, 2.0]


def test_async_retries_then_succeeds(make_policy, script, clock):
    """Coroutine functions are awaited per attempt and retried on the async sleep."""
    backend = script(ServerError, "ok")

    @retry_llm(make_policy())
    async def ask(prompt):
        return await backend.acall(prompt)

    assert inspect.iscoroutinefunction(ask)
    assert asyncio.run(ask("hi")) == "ok"
    assert backend.calls == 2
    assert clock.sleeps == [1.0]


def test_async_give_up_is_annotated(make_policy, script):
    """The async path attaches the same give-up record as the sync one."""
    backend = script(ServerError)

    @retry_llm(make_policy(max_attempts=2))
    async def ask():
        return await backend.acall()

    with pytest.raises(ServerError) as info:
        asyncio.run(ask())
    assert retry_info(info.value).attempts == 2


def test_metadata_is_preserved(make_policy):
    """Name, docstring, signature and ``__wrapped__`` survive decoration."""

    def original(prompt: str, *, temperature: float = 0.0) -> str:
        """Ask the model."""
        return prompt

    wrapped = make_policy().wrap(original)
    assert wrapped.__name__ == "original"
    assert wrapped.__doc__ == "Ask the model."
    assert wrapped.__wrapped__ is original
    assert inspect.signature(wrapped) == inspect.signature(original)


def test_methods_bind_self(make_policy, script):
    """Decorated methods receive ``self`` like undecorated ones."""
    backend = script(ServerError, "ok")

    class Client:
        def __init__(self):
            self.name = "client"

        @retry_llm(make_policy())
        def ask(self):
            return f"{self.name}:{backend()}"

    assert Client().ask() == "client:ok"


def test_callable_object_with_async_call_is_awaited(make_policy, script):
    """An object whose ``__call__`` is async is treated as a coroutine function."""
    backend = script(ServerError, "ok")

    class Ask:
        async def __call__(self):
            return await backend.acall()

    wrapped = make_policy().wrap(Ask())
    assert asyncio.run(wrapped()) == "ok"
    assert backend.calls == 2


def test_partial_of_async_function_is_awaited(make_policy, script):
    """``functools.partial`` over a coroutine function keeps the async path."""
    backend = script(ServerError, "ok")

    async def ask(prompt):
        return await backend.acall(prompt)

    wrapped = make_policy().wrap(functools.partial(ask, "hi"))
    assert asyncio.run(wrapped()) == "ok"


def test_concurrent_async_calls_do_not_share_state(llm_retry_testing):
    """Each concurrent call has its own attempts (a shared tenacity object would mix them)."""
    attempts = {}

    @retry_llm(RetryPolicy(max_attempts=3, on_retry=None))
    async def ask(key):
        attempts[key] = attempts.get(key, 0) + 1
        await asyncio.sleep(0)
        if attempts[key] < 3:
            raise ServerError("down")
        return key

    async def main():
        return await asyncio.gather(*(ask(key) for key in range(50)))

    assert asyncio.run(main()) == list(range(50))
    assert set(attempts.values()) == {3}
    assert len(llm_retry_testing.sleeps) == 100


def test_concurrent_threads_do_not_share_state():
    """Threads calling one wrapped function each get their own attempts."""
    attempts = {}
    lock = threading.Lock()
    policy = RetryPolicy(max_attempts=2, on_retry=None, sleep=lambda _: None, initial_wait=0.0)

    @policy.wrap
    def ask(key):
        with lock:
            attempts[key] = attempts.get(key, 0) + 1
            count = attempts[key]
        if count < 2:
            raise ServerError("down")
        return key

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(ask, range(200))) == list(range(200))
    assert set(attempts.values()) == {2}
    assert policy.stats.attempts == 400
