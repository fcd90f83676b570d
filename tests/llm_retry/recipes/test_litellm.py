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

# pydantic warns about TypedDicts inside litellm on first use; that is litellm's to fix.
pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings(
        "ignore:Item.* on TypedDict class .* using the `ReadOnly` qualifier:UserWarning"
    ),
]

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


#: A 503 with openai's error body (corpus row server-openai-013).
UNAVAILABLE = {"status": 503, "corpus": "server-openai-013", "headers": [("Retry-After", "2")]}
CASES = {
    "retried": {
        "replies": [UNAVAILABLE, {"json": COMPLETION}],
        "returns": "Hello there",
        "sleeps": [2.0],
        "path": "/v1/chat/completions",
    },
    "exhausted": {
        "replies": [UNAVAILABLE] * 20,
        "raises": litellm.ServiceUnavailableError,
        "describe": "SERVER (status 503, retryable: True)",
    },
    # A 401 (corpus row auth-openai-002).
    "permanent": {
        "replies": [{"status": 401, "corpus": "auth-openai-002"}, {"json": COMPLETION}],
        "raises": litellm.AuthenticationError,
        "describe": "AUTH (status 401, retryable: False)",
    },
    "stream": {"replies": [UNAVAILABLE, {"data": STREAM, "done": True}], "returns": ["Hel", "lo"]},
}


@pytest.fixture
def sdk_recipe(recipe, monkeypatch):
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
def complete(sdk_recipe, server):
    """One call of the recipe's ``complete``, which takes the server's URL, not a client."""
    return lambda: sdk_recipe.complete("hi", api_base=f"{server.url}/v1")


@pytest.fixture
def stream(sdk_recipe, server):
    """The recipe's ``stream`` on the server's URL, each text delta passed to ``on_item``."""

    def consume(on_item):
        for text in sdk_recipe.stream("hi", api_base=f"{server.url}/v1"):
            on_item(text)

    return consume
