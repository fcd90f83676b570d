"""The google-genai recipe of docs/retry.md, run against the real SDK and a loopback server.

The recipe is async: over aiohttp the async client retries a dropped connection by
itself (sleeping 1 to 10 s) unless ``retry_options`` is set, so the dropped-connection
test is the one that proves ``HttpRetryOptions(attempts=1)`` turns that off.
"""

import asyncio

import pytest

pytest.importorskip("google.genai")
pytest.importorskip("aiohttp")  # the async transport the implicit retry lives in

from google.genai import errors

from llm_retry import GiveUpReason, retry_info

# google-genai subclasses aiohttp's ClientSession, which aiohttp warns about when the
# client opens its session; the warning is the SDK's to fix, not this recipe's.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Inheritance class AiohttpClientSession from ClientSession is discouraged"
    ":DeprecationWarning"
)

MODEL_PATH = "/v1/models/gemini-2.5-flash"


def response(text, finish_reason=None):
    """A ``GenerateContentResponse`` as the REST API sends it."""
    candidate = {"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}
    if finish_reason:
        candidate["finishReason"] = finish_reason
    return {
        "candidates": [candidate],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "resp-1",
    }


@pytest.fixture
def recipe_genai(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    return recipe("google-genai")


@pytest.fixture
def unavailable(server, corpus):
    """A 503 with Gemini's error body (corpus row server-gemini-001)."""
    return server.json(503, corpus.json("server-gemini-001"), ("Retry-After", "2"))


def run(recipe_genai, server, call):
    """Run ``call(client)`` on a fresh client in its own event loop, closing the client."""

    async def main():
        client = recipe_genai.make_client(server.url)
        try:
            return await asyncio.wait_for(call(client), timeout=30)
        finally:
            await client.aio.aclose()
            client.close()

    return asyncio.run(main())


def complete(recipe_genai):
    """The recipe's ``complete`` as a call of a client."""
    return lambda client: recipe_genai.complete(client, "hi")


def collect(recipe_genai):
    """The recipe's ``stream``, collected, as a call of a client."""

    async def call(client):
        return [text async for text in recipe_genai.stream(client, "hi")]

    return call


def test_complete_retries_once_then_succeeds(recipe_genai, server, unavailable, llm_retry_testing):
    """A 503 then a response: two requests reach the server, both made by llm_retry."""
    server.script(unavailable, server.json(200, response("Hello there", "STOP")))
    assert run(recipe_genai, server, complete(recipe_genai)) == "Hello there"
    assert server.attempts == 2
    assert llm_retry_testing.sleeps == [2.0]  # the Retry-After, read from the SDK error
    assert len(llm_retry_testing.events) == 1
    assert [r.path for r in server.requests] == [f"{MODEL_PATH}:generateContent"] * 2


def test_dropped_connection_retried_by_llm_retry_only(recipe_genai, server, llm_retry_testing):
    """A connection closed without an answer is retried once, by llm_retry, with no SDK sleep."""
    server.script(server.Reply(0, drop=True), server.json(200, response("Hello there", "STOP")))
    assert run(recipe_genai, server, complete(recipe_genai)) == "Hello there"
    assert server.attempts == 2
    assert [event.classification.code for event in llm_retry_testing.events] == ["TRANSPORT"]


def test_sdk_retries_are_off(recipe_genai, server, unavailable, llm_retry_testing):
    """With every request failing, the server sees exactly max_attempts requests."""
    server.script(*[unavailable] * 10)
    with pytest.raises(errors.ServerError) as caught:
        run(recipe_genai, server, complete(recipe_genai))
    assert server.attempts == recipe_genai.policy.max_attempts == 4
    assert retry_info(caught.value).reason is GiveUpReason.MAX_ATTEMPTS
    assert recipe_genai.describe(caught.value) == "SERVER (status 503, retryable: True)"


def test_bad_request_is_not_retried(recipe_genai, server, corpus, llm_retry_testing):
    """A 400 (corpus row ctx-gemini-004) reaches the server once and is not retried."""
    server.script(
        server.json(400, corpus.json("ctx-gemini-004")),
        server.json(200, response("Hello there", "STOP")),
    )
    with pytest.raises(errors.ClientError) as caught:
        run(recipe_genai, server, complete(recipe_genai))
    assert server.attempts == 1
    assert llm_retry_testing.events == []
    assert retry_info(caught.value).reason is GiveUpReason.NOT_RETRYABLE
    assert recipe_genai.describe(caught.value) == (
        "CONTEXT_OVERFLOW (status 400, retryable: False)"
    )


def test_stream_retried_before_first_chunk(recipe_genai, server, unavailable, llm_retry_testing):
    """A 503 on opening the stream is retried; the SSE stream then yields every chunk."""
    frames = server.data_frames(response("Hel"), response("lo", "STOP"))
    server.script(unavailable, server.sse(*frames))
    assert run(recipe_genai, server, collect(recipe_genai)) == ["Hel", "lo"]
    assert server.attempts == 2
    assert len(llm_retry_testing.events) == 1
    assert server.requests[1].path == f"{MODEL_PATH}:streamGenerateContent?alt=sse"


def test_stream_not_retried_after_first_chunk(recipe_genai, server, llm_retry_testing):
    """A stream cut off after its first chunk is raised, not restarted, though retryable."""
    first = server.sse(*server.data_frames(response("Hel")))
    cut = server.Reply(
        200, first.body, content_type=first.content_type, declared_length=10_000, hold=True
    )
    server.script(cut, server.sse(*server.data_frames(response("Hel"), response("lo", "STOP"))))
    received = []

    async def call(client):
        async for text in recipe_genai.stream(client, "hi"):
            received.append(text)
            server.release()  # the first chunk is in: now cut the connection

    with pytest.raises(Exception) as caught:
        run(recipe_genai, server, call)
    assert received == ["Hel"]
    assert server.attempts == 1
    info = retry_info(caught.value)
    assert info.reason is GiveUpReason.STREAM_STARTED
    assert info.items_delivered == 1
    # aiohttp's ClientPayloadError carries its parser's code 400, which the classifier
    # reports as the status; the code is still TRANSPORT.
    assert recipe_genai.describe(caught.value).startswith("TRANSPORT (")
