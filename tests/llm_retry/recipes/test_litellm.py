"""The litellm recipe of docs/retry.md, run against the real SDK and a loopback server.

litellm is not in the ``test`` extra (it more than doubles the test environment), so
this module skips when it is absent: ``pip install litellm==1.110.2`` to run it.
"""

import asyncio
import os

import pytest

# Read the bundled model cost map instead of fetching it from the network at import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
litellm = pytest.importorskip(
    "litellm", reason="litellm is optional for the tests: pip install litellm==1.110.2"
)

from llm_retry import GiveUpReason, retry_info  # noqa: E402 - after the skip

# pydantic warns about TypedDicts inside litellm on first use; that is litellm's to fix.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Item.* on TypedDict class .* using the `ReadOnly` qualifier:UserWarning"
)

COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1_700_000_000,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Hello there"},
            "finish_reason": "stop",
            "logprobs": None,
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}


def chunk(delta, finish_reason=None):
    """One ``chat.completion.chunk`` as the openai streaming endpoint sends it."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


STREAM = (
    chunk({"role": "assistant", "content": "Hel"}),
    chunk({"content": "lo"}),
    chunk({}, "stop"),
)


@pytest.fixture
def recipe_litellm(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    yield recipe("litellm")
    # litellm keeps the openai clients it built (one per api_base) for reuse: close them.
    cache = litellm.in_memory_llm_clients_cache
    for client in list(cache.cache_dict.values()):
        close = getattr(client, "close", None)
        if callable(close) and not asyncio.iscoroutinefunction(close):
            close()
    cache.flush_cache()


@pytest.fixture
def unavailable(server, corpus):
    """A 503 with openai's error body (corpus row server-openai-013)."""
    return server.json(503, corpus.json("server-openai-013"), ("Retry-After", "2"))


def test_complete_retries_once_then_succeeds(
    recipe_litellm, server, unavailable, llm_retry_testing
):
    """A 503 then a completion: two requests reach the server, both made by llm_retry."""
    server.script(unavailable, server.json(200, COMPLETION))
    assert recipe_litellm.complete("hi", api_base=f"{server.url}/v1") == "Hello there"
    assert server.attempts == 2
    assert llm_retry_testing.sleeps == [2.0]  # the Retry-After, read from the SDK error
    assert len(llm_retry_testing.events) == 1
    assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 2


def test_sdk_retries_are_off(recipe_litellm, server, unavailable, llm_retry_testing):
    """With every request failing, the server sees exactly max_attempts requests."""
    server.script(*[unavailable] * 20)
    with pytest.raises(litellm.ServiceUnavailableError) as caught:
        recipe_litellm.complete("hi", api_base=f"{server.url}/v1")
    assert server.attempts == recipe_litellm.policy.max_attempts == 4
    assert retry_info(caught.value).reason is GiveUpReason.MAX_ATTEMPTS
    assert recipe_litellm.describe(caught.value) == "SERVER (status 503, retryable: True)"


def test_unauthorized_is_not_retried(recipe_litellm, server, corpus, llm_retry_testing):
    """A 401 (corpus row auth-openai-002) reaches the server once and is classified AUTH."""
    server.script(server.json(401, corpus.json("auth-openai-002")), server.json(200, COMPLETION))
    with pytest.raises(litellm.AuthenticationError) as caught:
        recipe_litellm.complete("hi", api_base=f"{server.url}/v1")
    assert server.attempts == 1
    assert llm_retry_testing.events == []
    assert retry_info(caught.value).reason is GiveUpReason.NOT_RETRYABLE
    assert recipe_litellm.describe(caught.value) == "AUTH (status 401, retryable: False)"


def test_stream_retried_before_first_chunk(recipe_litellm, server, unavailable, llm_retry_testing):
    """A 503 on opening the stream is retried; the SSE stream then yields every chunk."""
    server.script(unavailable, server.sse(*server.data_frames(*STREAM), "data: [DONE]"))
    assert list(recipe_litellm.stream("hi", api_base=f"{server.url}/v1")) == ["Hel", "lo"]
    assert server.attempts == 2
    assert len(llm_retry_testing.events) == 1
