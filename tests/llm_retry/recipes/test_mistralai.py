"""The mistralai recipe of docs/retry.md, run against the real SDK and a loopback server."""

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

pytest.importorskip("mistralai")

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


#: A 429 with Mistral's error body (corpus row ratelimit-mistral-004).
RATE_LIMITED = {"status": 429, "corpus": "ratelimit-mistral-004", "headers": [("Retry-After", "2")]}
RECORDED = TEXT_STREAM.read_bytes()
STREAMED = {"raw": RECORDED, "content_type": "text/event-stream"}
#: The recorded stream's first two frames: the role, then the text "3".
FIRST = b"\n\n".join(RECORDED.split(b"\n\n")[:2]) + b"\n\n"
#: A success that spent the minute's requests (Mistral states no reset: the minute is waited).
SPENT = [("x-ratelimit-limit-req-minute", "60"), ("x-ratelimit-remaining-req-minute", "0")]
CASES = {
    "paced": {
        "replies": [{"json": COMPLETION, "headers": SPENT}, {"json": COMPLETION}],
        "returns": "300",
        "paced": (55.0, 66.0),  # the minute, Redis' clock, plus up to 10 % wake-up jitter
    },
    "retried": {
        "replies": [RATE_LIMITED, {"json": COMPLETION}],
        "returns": "300",
        "sleeps": [2.0],
        "path": "/v1/chat/completions",
    },
    "exhausted": {
        "replies": [RATE_LIMITED] * 10,
        "raises": Exception,
        "describe": "RATE_LIMIT (status 429, retryable: True)",
    },
    # A 401 (corpus row auth-mistral-001).
    "permanent": {
        "replies": [{"status": 401, "corpus": "auth-mistral-001"}, {"json": COMPLETION}],
        "raises": Exception,
        "describe": "AUTH (status 401, retryable: False)",
    },
    "stream": {"replies": [RATE_LIMITED, STREAMED], "returns": ["3", "00"]},
    "stream-cut": {
        "replies": [{**STREAMED, "raw": FIRST, "declared_length": 10_000}, STREAMED],
        "raises": Exception,
        "received": ["3"],
        "describe": "TRANSPORT (status None, retryable: True)",
    },
}


@pytest.fixture
def sdk_recipe(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.setenv("MISTRAL_API_KEY", "test-key")
    return recipe("mistralai")


@pytest.fixture
def client(sdk_recipe, server):
    """The recipe's client pointed at the loopback server, closed after the test."""
    with sdk_recipe.make_client(server.url) as sdk_client:
        yield sdk_client
