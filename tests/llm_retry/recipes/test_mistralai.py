"""The mistralai recipe of docs/retry.md, run against the real SDK and a loopback server."""

from pathlib import Path

import pytest

pytest.importorskip("mistralai")

from llm_retry import GiveUpReason, retry_info

# A recorded Mistral stream (tests/adapter/mistral/fixtures): "3", then "00".
TEXT_STREAM = Path(__file__).resolve().parents[2] / "adapter" / "mistral" / "fixtures" / "text.sse"

COMPLETION = {
    "id": "59060ef9339a4112b2c9e57e3ee6199d",
    "object": "chat.completion",
    "created": 1_764_258_570,
    "model": "mistral-small-latest",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "300", "tool_calls": None},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 19, "completion_tokens": 2, "total_tokens": 21},
}


@pytest.fixture
def recipe_mistralai(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.setenv("MISTRAL_API_KEY", "test-key")
    return recipe("mistralai")


@pytest.fixture
def client(recipe_mistralai, server):
    """The recipe's client pointed at the loopback server, closed after the test."""
    with recipe_mistralai.make_client(server.url) as sdk_client:
        yield sdk_client


@pytest.fixture
def rate_limited(server, corpus):
    """A 429 with Mistral's error body (corpus row ratelimit-mistral-004)."""
    return server.json(429, corpus.json("ratelimit-mistral-004"), ("Retry-After", "2"))


def stream_reply(server):
    """The recorded stream as a 200 ``text/event-stream`` answer."""
    body = TEXT_STREAM.read_bytes()
    return server.Reply(200, body, content_type="text/event-stream")


def test_complete_retries_once_then_succeeds(
    recipe_mistralai, client, server, rate_limited, llm_retry_testing
):
    """A 429 then a completion: two requests reach the server, both made by llm_retry."""
    server.script(rate_limited, server.json(200, COMPLETION))
    assert recipe_mistralai.complete(client, "hi") == "300"
    assert server.attempts == 2
    assert llm_retry_testing.sleeps == [2.0]  # the Retry-After, read from the SDK error
    assert len(llm_retry_testing.events) == 1
    assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 2


def test_sdk_retries_are_off(recipe_mistralai, client, server, rate_limited, llm_retry_testing):
    """With every request failing, the server sees exactly max_attempts requests."""
    server.script(*[rate_limited] * 10)
    with pytest.raises(Exception) as caught:
        recipe_mistralai.complete(client, "hi")
    assert server.attempts == recipe_mistralai.policy.max_attempts == 4
    assert retry_info(caught.value).reason is GiveUpReason.MAX_ATTEMPTS
    assert recipe_mistralai.describe(caught.value) == "RATE_LIMIT (status 429, retryable: True)"


def test_unauthorized_is_not_retried(recipe_mistralai, client, server, corpus, llm_retry_testing):
    """A 401 (corpus row auth-mistral-001) reaches the server once and is classified AUTH."""
    server.script(server.json(401, corpus.json("auth-mistral-001")), server.json(200, COMPLETION))
    with pytest.raises(Exception) as caught:
        recipe_mistralai.complete(client, "hi")
    assert server.attempts == 1
    assert llm_retry_testing.events == []
    assert retry_info(caught.value).reason is GiveUpReason.NOT_RETRYABLE
    assert recipe_mistralai.describe(caught.value) == "AUTH (status 401, retryable: False)"


def test_stream_retried_before_first_chunk(
    recipe_mistralai, client, server, rate_limited, llm_retry_testing
):
    """A 429 on opening the stream is retried; the recorded SSE stream then yields its text."""
    server.script(rate_limited, stream_reply(server))
    assert list(recipe_mistralai.stream(client, "hi")) == ["3", "00"]
    assert server.attempts == 2
    assert len(llm_retry_testing.events) == 1


def test_stream_not_retried_after_first_chunk(recipe_mistralai, client, server, llm_retry_testing):
    """A stream cut off after its first text is raised, not restarted, though retryable."""
    frames = TEXT_STREAM.read_bytes().split(b"\n\n")
    first = b"\n\n".join(frames[:2]) + b"\n\n"
    cut = server.Reply(200, first, content_type="text/event-stream", declared_length=10_000)
    server.script(cut, stream_reply(server))
    received = []
    with pytest.raises(Exception) as caught:
        received.extend(recipe_mistralai.stream(client, "hi"))
    assert received == ["3"]
    assert server.attempts == 1
    info = retry_info(caught.value)
    assert info.reason is GiveUpReason.STREAM_STARTED
    assert info.items_delivered == 1
    assert recipe_mistralai.describe(caught.value) == "TRANSPORT (status None, retryable: True)"
