"""The openai recipe of docs/retry.md, run against the real SDK and a loopback server."""

import pytest

pytestmark = pytest.mark.integration

openai = pytest.importorskip("openai")

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


#: A 503 with openai's error body (corpus row server-openai-013).
UNAVAILABLE = {"status": 503, "corpus": "server-openai-013", "headers": [("Retry-After", "2")]}
STREAMED = {"data": STREAM, "done": True}
#: A success that spent the request window: no limit stated, so the whole 7 s is waited.
SPENT = [("x-ratelimit-remaining-requests", "0"), ("x-ratelimit-reset-requests", "7s")]
CASES = {
    "paced": {
        "replies": [{"json": COMPLETION, "headers": SPENT}, {"json": COMPLETION}],
        "returns": "Hello there",
        "paced": (6.0, 7.7),  # the refill, Redis' clock, plus up to 10 % wake-up jitter
    },
    "retried": {
        "replies": [UNAVAILABLE, {"json": COMPLETION}],
        "returns": "Hello there",
        "sleeps": [2.0],
        "path": "/v1/chat/completions",
    },
    "exhausted": {
        "replies": [UNAVAILABLE] * 10,
        "raises": openai.InternalServerError,
        "describe": "SERVER (status 503, retryable: True)",
    },
    # A 401 (corpus row auth-openai-002).
    "permanent": {
        "replies": [{"status": 401, "corpus": "auth-openai-002"}, {"json": COMPLETION}],
        "raises": openai.AuthenticationError,
        "describe": "AUTH (status 401, retryable: False)",
    },
    "stream": {"replies": [UNAVAILABLE, STREAMED], "returns": ["Hel", "lo"]},
    "stream-cut": {
        "replies": [{"data": STREAM[:1], "declared_length": 10_000}, STREAMED],
        "raises": openai.APIError,
        "received": ["Hel"],
        "describe": "TRANSPORT (status None, retryable: True)",
    },
}


@pytest.fixture
def sdk_recipe(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return recipe("openai")


@pytest.fixture
def client(sdk_recipe, server):
    """The recipe's client pointed at the loopback server, closed after the test."""
    with sdk_recipe.make_client(f"{server.url}/v1") as sdk_client:
        yield sdk_client
