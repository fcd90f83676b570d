"""The anthropic recipe of docs/retry.md, run against the real SDK and a loopback server."""

import json

import pytest

anthropic = pytest.importorskip("anthropic")

from llm_retry import GiveUpReason, retry_info  # noqa: E402 - after the skip

MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [{"type": "text", "text": "Hello there"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 2},
}


def event(name, **data):
    """One named SSE frame of the Messages streaming API."""
    return f"event: {name}\ndata: {json.dumps({'type': name, **data})}"


STREAM = (
    event("message_start", message={**MESSAGE, "content": [], "stop_reason": None}),
    event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hel"}),
    event("content_block_delta", index=0, delta={"type": "text_delta", "text": "lo"}),
    event("content_block_stop", index=0),
    event(
        "message_delta",
        delta={"stop_reason": "end_turn", "stop_sequence": None},
        usage={"output_tokens": 2},
    ),
    event("message_stop"),
)


@pytest.fixture
def recipe_anthropic(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return recipe("anthropic")


@pytest.fixture
def client(recipe_anthropic, server):
    """The recipe's client pointed at the loopback server, closed after the test."""
    with recipe_anthropic.make_client(server.url) as sdk_client:
        yield sdk_client


@pytest.fixture
def overloaded(server, corpus):
    """A 529 with anthropic's error body (corpus row ratelimit-anthropic-004)."""
    return server.json(529, corpus.json("ratelimit-anthropic-004"), ("Retry-After", "2"))


def test_complete_retries_once_then_succeeds(
    recipe_anthropic, client, server, overloaded, llm_retry_testing
):
    """A 529 then a message: two requests reach the server, both made by llm_retry."""
    server.script(overloaded, server.json(200, MESSAGE))
    assert recipe_anthropic.complete(client, "hi") == "Hello there"
    assert server.attempts == 2
    assert llm_retry_testing.sleeps == [2.0]  # the Retry-After, read from the SDK error
    assert len(llm_retry_testing.events) == 1
    assert [r.path for r in server.requests] == ["/v1/messages"] * 2


def test_sdk_retries_are_off(recipe_anthropic, client, server, overloaded, llm_retry_testing):
    """With every request failing, the server sees exactly max_attempts requests."""
    server.script(*[overloaded] * 10)
    with pytest.raises(anthropic.APIStatusError) as caught:
        recipe_anthropic.complete(client, "hi")
    assert server.attempts == recipe_anthropic.policy.max_attempts == 4
    assert retry_info(caught.value).reason is GiveUpReason.MAX_ATTEMPTS
    assert recipe_anthropic.describe(caught.value) == "RATE_LIMIT (status 529, retryable: True)"


def test_unauthorized_is_not_retried(recipe_anthropic, client, server, corpus, llm_retry_testing):
    """A 401 (corpus row auth-anthropic-001) reaches the server once and is classified AUTH."""
    server.script(server.json(401, corpus.json("auth-anthropic-001")), server.json(200, MESSAGE))
    with pytest.raises(anthropic.AuthenticationError) as caught:
        recipe_anthropic.complete(client, "hi")
    assert server.attempts == 1
    assert llm_retry_testing.events == []
    assert retry_info(caught.value).reason is GiveUpReason.NOT_RETRYABLE
    assert recipe_anthropic.describe(caught.value) == "AUTH (status 401, retryable: False)"


def test_stream_retried_before_first_chunk(
    recipe_anthropic, client, server, overloaded, llm_retry_testing
):
    """A 529 on opening the stream is retried; the SSE stream then yields every text delta."""
    server.script(overloaded, server.sse(*STREAM))
    assert list(recipe_anthropic.stream(client, "hi")) == ["Hel", "lo"]
    assert server.attempts == 2
    assert len(llm_retry_testing.events) == 1


def test_stream_not_retried_after_first_chunk(recipe_anthropic, client, server, llm_retry_testing):
    """A stream cut off after its first text delta is raised, not restarted, though retryable."""
    first = server.sse(*STREAM[:3])
    cut = server.Reply(200, first.body, content_type=first.content_type, declared_length=10_000)
    server.script(cut, server.sse(*STREAM))
    received = []
    with pytest.raises(Exception) as caught:
        received.extend(recipe_anthropic.stream(client, "hi"))
    assert received == ["Hel"]
    assert server.attempts == 1
    info = retry_info(caught.value)
    assert info.reason is GiveUpReason.STREAM_STARTED
    assert info.items_delivered == 1
    assert recipe_anthropic.describe(caught.value) == "TRANSPORT (status None, retryable: True)"
