"""The openai recipe of docs/retry.md, run against the real SDK and a loopback server."""

import pytest

openai = pytest.importorskip("openai")

from llm_retry import GiveUpReason, retry_info  # noqa: E402 - after the skip

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
    """One ``chat.completion.chunk`` as the streaming endpoint sends it."""
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
def recipe_openai(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return recipe("openai")


@pytest.fixture
def client(recipe_openai, server):
    """The recipe's client pointed at the loopback server, closed after the test."""
    with recipe_openai.make_client(f"{server.url}/v1") as sdk_client:
        yield sdk_client


@pytest.fixture
def unavailable(server, corpus):
    """A 503 with openai's error body (corpus row server-openai-013)."""
    return server.json(503, corpus.json("server-openai-013"), ("Retry-After", "2"))


def test_complete_retries_once_then_succeeds(
    recipe_openai, client, server, unavailable, llm_retry_testing
):
    """A 503 then a completion: two requests reach the server, both made by llm_retry."""
    server.script(unavailable, server.json(200, COMPLETION))
    assert recipe_openai.complete(client, "hi") == "Hello there"
    assert server.attempts == 2
    assert llm_retry_testing.sleeps == [2.0]  # the Retry-After, read from the SDK error
    assert len(llm_retry_testing.events) == 1
    assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 2


def test_sdk_retries_are_off(recipe_openai, client, server, unavailable, llm_retry_testing):
    """With every request failing, the server sees exactly max_attempts requests."""
    server.script(*[unavailable] * 10)
    with pytest.raises(openai.InternalServerError) as caught:
        recipe_openai.complete(client, "hi")
    assert server.attempts == recipe_openai.policy.max_attempts == 4
    assert retry_info(caught.value).reason is GiveUpReason.MAX_ATTEMPTS
    assert recipe_openai.describe(caught.value) == "SERVER (status 503, retryable: True)"


def test_unauthorized_is_not_retried(recipe_openai, client, server, corpus, llm_retry_testing):
    """A 401 (corpus row auth-openai-002) reaches the server once and is classified AUTH."""
    server.script(server.json(401, corpus.json("auth-openai-002")), server.json(200, COMPLETION))
    with pytest.raises(openai.AuthenticationError) as caught:
        recipe_openai.complete(client, "hi")
    assert server.attempts == 1
    assert llm_retry_testing.events == []
    assert retry_info(caught.value).reason is GiveUpReason.NOT_RETRYABLE
    assert recipe_openai.describe(caught.value) == "AUTH (status 401, retryable: False)"


def test_stream_retried_before_first_chunk(
    recipe_openai, client, server, unavailable, llm_retry_testing
):
    """A 503 on opening the stream is retried; the SSE stream then yields every chunk."""
    server.script(unavailable, server.sse(*server.data_frames(*STREAM), "data: [DONE]"))
    assert list(recipe_openai.stream(client, "hi")) == ["Hel", "lo"]
    assert server.attempts == 2
    assert len(llm_retry_testing.events) == 1


def test_stream_not_retried_after_first_chunk(recipe_openai, client, server, llm_retry_testing):
    """A stream cut off after its first chunk is raised, not restarted, though retryable."""
    first = server.sse(*server.data_frames(STREAM[0]))
    cut = server.Reply(200, first.body, content_type=first.content_type, declared_length=10_000)
    server.script(cut, server.sse(*server.data_frames(*STREAM), "data: [DONE]"))
    received = []
    with pytest.raises(openai.APIError) as caught:
        received.extend(recipe_openai.stream(client, "hi"))
    assert received == ["Hel"]
    assert server.attempts == 1
    info = retry_info(caught.value)
    assert info.reason is GiveUpReason.STREAM_STARTED
    assert info.items_delivered == 1
    assert recipe_openai.describe(caught.value) == "TRANSPORT (status None, retryable: True)"
