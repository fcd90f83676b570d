"""The boto3 (Amazon Bedrock) recipe of docs/retry.md, run against the real SDK on loopback.

Bedrock streams in the AWS event-stream framing, not SSE: :func:`event_message` frames
each event as botocore's parser expects (a prelude with two CRC32s, typed headers).
"""

import binascii
import json
import struct

import pytest

pytest.importorskip("boto3")

from botocore.exceptions import ClientError

from llm_errors import TransportError

pytestmark = pytest.mark.integration

CONVERSE = {
    "output": {"message": {"role": "assistant", "content": [{"text": "Hello there"}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5},
    "metrics": {"latencyMs": 12},
}
MODEL_PATH = "/model/anthropic.claude-3-haiku-20240307-v1%3A0"


def event_message(event_type, payload):
    """One AWS event-stream message: prelude, prelude CRC, string headers, payload, CRC."""
    headers = b""
    for name, value in (
        (":event-type", event_type),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ):
        headers += struct.pack("!B", len(name)) + name.encode()
        headers += struct.pack("!BH", 7, len(value)) + value.encode()  # 7: string
    body = json.dumps(payload).encode()
    prelude = struct.pack("!II", 12 + len(headers) + len(body) + 4, len(headers))
    message = prelude + struct.pack("!I", binascii.crc32(prelude)) + headers + body
    return message + struct.pack("!I", binascii.crc32(message))


STREAM = (
    event_message("messageStart", {"role": "assistant"}),
    event_message("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hel"}}),
    event_message("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "lo"}}),
    event_message("contentBlockStop", {"contentBlockIndex": 0}),
    event_message("messageStop", {"stopReason": "end_turn"}),
    event_message("metadata", {"usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}}),
)
EVENT_STREAM = "application/vnd.amazon.eventstream"


def _bedrock_message(corpus):
    """The message of corpus row server-bedrock-004, as Bedrock's JSON body carries it."""
    return {"message": corpus.text("server-bedrock-004").split("(503 ", 1)[1].split(")", 1)[0]}


#: A 503 ServiceUnavailableException with Bedrock's message (corpus row server-bedrock-004).
UNAVAILABLE = {
    "status": 503,
    "json": _bedrock_message,
    "headers": [("x-amzn-ErrorType", "ServiceUnavailableException"), ("Retry-After", "2")],
}
ANSWER = {"json": CONVERSE}
STREAMED = {"raw": b"".join(STREAM), "content_type": EVENT_STREAM}
CASES = {
    "retried": {
        "replies": [UNAVAILABLE, ANSWER],
        "returns": "Hello there",
        "sleeps": [2.0],
        "path": f"{MODEL_PATH}/converse",
    },
    "exhausted": {
        "replies": [UNAVAILABLE] * 10,
        "raises": ClientError,
        "describe": "SERVER (status 503, retryable: True)",
    },
    # A 400 ValidationException (corpus row inv-bedrock-004).
    "permanent": {
        "replies": [
            {
                "status": 400,
                "corpus": "inv-bedrock-004",
                "headers": [("x-amzn-ErrorType", "ValidationException")],
            },
            ANSWER,
        ],
        "raises": ClientError,
        "describe": "INVALID_REQUEST (status 400, retryable: False)",
    },
    "stream": {
        "replies": [UNAVAILABLE, STREAMED],
        "returns": ["Hel", "lo"],
        "path": f"{MODEL_PATH}/converse-stream",
    },
    # Held open after the first delta until the test has it, then cut.
    "stream-cut": {
        "replies": [
            {**STREAMED, "raw": b"".join(STREAM[:2]), "declared_length": 10_000, "hold": True},
            STREAMED,
        ],
        "raises": TransportError,
        "received": ["Hel"],
        "describe": "TRANSPORT (status None, retryable: True)",
    },
}


@pytest.fixture
def sdk_recipe(recipe, monkeypatch, tmp_path):
    """The documented recipe, with dummy credentials and no AWS configuration files."""
    for name in ("AWS_PROFILE", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return recipe("boto3")


@pytest.fixture
def client(sdk_recipe, server):
    """The recipe's client pointed at the loopback server, closed after the test."""
    sdk_client = sdk_recipe.make_client(server.url)
    yield sdk_client
    sdk_client.close()


def test_max_attempts_one_still_retries(sdk_recipe, server, reply):
    """The pitfall the docs name: ``{"max_attempts": 1}`` makes two requests per call."""
    from botocore.config import Config

    unavailable = reply(UNAVAILABLE)
    server.script(unavailable, unavailable, reply(ANSWER))
    config = Config(retries={"max_attempts": 1, "mode": "standard"})
    sdk_client = sdk_recipe.boto3.client("bedrock-runtime", endpoint_url=server.url, config=config)
    try:
        with pytest.raises(ClientError):
            sdk_client.converse(modelId=sdk_recipe.MODEL, messages=[])
    finally:
        sdk_client.close()
    assert server.attempts == 2


def test_stream_cut_before_first_chunk_is_retried(sdk_recipe, client, server, llm_retry_testing):
    """A stream that ends before any text (no messageStop) is retried like a failed open."""
    cut = server.Reply(200, STREAM[0], content_type=EVENT_STREAM, declared_length=10_000)
    server.script(cut, server.Reply(200, b"".join(STREAM), content_type=EVENT_STREAM))
    assert list(sdk_recipe.stream(client, "hi")) == ["Hel", "lo"]
    assert server.attempts == 2
    assert [event.classification.code for event in llm_retry_testing.events] == ["TRANSPORT"]
