"""The anthropic recipe of docs/retry.md, run against the real SDK and a loopback server."""

import datetime as dt
import json

import pytest

pytestmark = pytest.mark.integration

anthropic = pytest.importorskip("anthropic")

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


#: A 529 with anthropic's error body (corpus row ratelimit-anthropic-004).
OVERLOADED = {"status": 529, "corpus": "ratelimit-anthropic-004", "headers": [("Retry-After", "2")]}


def spent():
    """A success's headers that spent the request window, refilled a minute from now."""
    refill = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=60)
    return [
        ("anthropic-ratelimit-requests-remaining", "0"),
        ("anthropic-ratelimit-requests-reset", refill.strftime("%Y-%m-%dT%H:%M:%SZ")),
    ]


CASES = {
    "paced": {
        "replies": [{"json": MESSAGE, "headers": spent}, {"json": MESSAGE}],
        "returns": "Hello there",
        "paced": (55.0, 66.0),  # to the second (no limit: the whole refill), plus jitter
    },
    "retried": {
        "replies": [OVERLOADED, {"json": MESSAGE}],
        "returns": "Hello there",
        "sleeps": [2.0],
        "path": "/v1/messages",
    },
    "exhausted": {
        "replies": [OVERLOADED] * 10,
        "raises": anthropic.APIStatusError,
        "describe": "RATE_LIMIT (status 529, retryable: True)",
    },
    # A 401 (corpus row auth-anthropic-001).
    "permanent": {
        "replies": [{"status": 401, "corpus": "auth-anthropic-001"}, {"json": MESSAGE}],
        "raises": anthropic.AuthenticationError,
        "describe": "AUTH (status 401, retryable: False)",
    },
    "stream": {"replies": [OVERLOADED, {"sse": STREAM}], "returns": ["Hel", "lo"]},
    # Cut after the first text delta.
    "stream-cut": {
        "replies": [{"sse": STREAM[:3], "declared_length": 10_000}, {"sse": STREAM}],
        "raises": Exception,
        "received": ["Hel"],
        "describe": "TRANSPORT (status None, retryable: True)",
    },
}


@pytest.fixture
def sdk_recipe(recipe, monkeypatch):
    """The documented recipe, with a dummy key in the environment."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return recipe("anthropic")


@pytest.fixture
def client(sdk_recipe, server):
    """The recipe's client pointed at the loopback server, closed after the test."""
    with sdk_recipe.make_client(server.url) as sdk_client:
        yield sdk_client
