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

# google-genai subclasses aiohttp's ClientSession, which aiohttp warns about when the
# client opens its session; the warning is the SDK's to fix, not this recipe's.
pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings(
        "ignore:Inheritance class AiohttpClientSession from ClientSession is discouraged"
        ":DeprecationWarning"
    ),
]

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


#: A 503 with Gemini's error body (corpus row server-gemini-001).
UNAVAILABLE = {"status": 503, "corpus": "server-gemini-001", "headers": [("Retry-After", "2")]}
ANSWER = {"json": response("Hello there", "STOP")}
FIRST = response("Hel")
CASES = {
    "retried": {
        "replies": [UNAVAILABLE, ANSWER],
        "returns": "Hello there",
        "sleeps": [2.0],
        "path": f"{MODEL_PATH}:generateContent",
    },
    "exhausted": {
        "replies": [UNAVAILABLE] * 10,
        "raises": errors.ServerError,
        "describe": "SERVER (status 503, retryable: True)",
    },
    # A 400 (corpus row ctx-gemini-004).
    "permanent": {
        "replies": [{"status": 400, "corpus": "ctx-gemini-004"}, ANSWER],
        "raises": errors.ClientError,
        "describe": "CONTEXT_OVERFLOW (status 400, retryable: False)",
    },
    "stream": {
        "replies": [UNAVAILABLE, {"data": [FIRST, response("lo", "STOP")]}],
        "returns": ["Hel", "lo"],
        "path": f"{MODEL_PATH}:streamGenerateContent?alt=sse",
    },
    # Held open after the first chunk until the test has it, then cut.
    "stream-cut": {
        "replies": [
            {"data": [FIRST], "declared_length": 10_000, "hold": True},
            {"data": [FIRST, response("lo", "STOP")]},
        ],
        "raises": Exception,
        "received": ["Hel"],
        # aiohttp's ClientPayloadError carries its parser's code 400, which the classifier
        # reports as the status; the code is still TRANSPORT.
        "describe_prefix": "TRANSPORT (",
    },
}


@pytest.fixture
def sdk_recipe(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    return recipe("google-genai")


def run(sdk_recipe, server, call):
    """Run ``call(client)`` on a fresh client in its own event loop, closing the client."""

    async def main():
        client = sdk_recipe.make_client(server.url)
        try:
            return await asyncio.wait_for(call(client), timeout=30)
        finally:
            await client.aio.aclose()
            client.close()

    return asyncio.run(main())


@pytest.fixture
def complete(sdk_recipe, server):
    """One call of the recipe's async ``complete``, on a fresh client and event loop."""
    return lambda: run(sdk_recipe, server, lambda client: sdk_recipe.complete(client, "hi"))


@pytest.fixture
def stream(sdk_recipe, server):
    """The recipe's async ``stream``, each text passed to ``on_item``."""

    def consume(on_item):
        async def call(client):
            async for text in sdk_recipe.stream(client, "hi"):
                on_item(text)

        run(sdk_recipe, server, call)

    return consume


def test_dropped_connection_retried_by_llm_retry_only(complete, server, llm_retry_testing):
    """A connection closed without an answer is retried once, by llm_retry, with no SDK sleep."""
    server.script(server.Reply(0, drop=True), server.json(200, response("Hello there", "STOP")))
    assert complete() == "Hello there"
    assert server.attempts == 2
    assert [event.classification.code for event in llm_retry_testing.events] == ["TRANSPORT"]
