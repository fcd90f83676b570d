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

from llm_retry import GiveUpReason, retry_info

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


@pytest.fixture
def recipe_boto3(recipe, monkeypatch, tmp_path):
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
def client(recipe_boto3, server):
    """The recipe's client pointed at the loopback server, closed after the test."""
    sdk_client = recipe_boto3.make_client(server.url)
    yield sdk_client
    sdk_client.close()


@pytest.fixture
def unavailable(server, corpus):
    """A 503 ServiceUnavailableException with Bedrock's message (corpus row server-bedrock-004)."""
    message = corpus.text("server-bedrock-004").split("(503 ", 1)[1].split(")", 1)[0]
    return server.json(
        503,
        {"message": message},
        ("x-amzn-ErrorType", "ServiceUnavailableException"),
        ("Retry-After", "2"),
    )


def test_complete_retries_once_then_succeeds(
    recipe_boto3, client, server, unavailable, llm_retry_testing
):
    """A 503 then a Converse response: two requests reach the server, both made by llm_retry."""
    server.script(unavailable, server.json(200, CONVERSE))
    assert recipe_boto3.complete(client, "hi") == "Hello there"
    assert server.attempts == 2
    assert llm_retry_testing.sleeps == [2.0]  # the Retry-After, read from the SDK error
    assert len(llm_retry_testing.events) == 1
    assert [r.path for r in server.requests] == [f"{MODEL_PATH}/converse"] * 2


def test_sdk_retries_are_off(recipe_boto3, client, server, unavailable, llm_retry_testing):
    """With every request failing, the server sees exactly max_attempts requests."""
    server.script(*[unavailable] * 10)
    with pytest.raises(ClientError) as caught:
        recipe_boto3.complete(client, "hi")
    assert server.attempts == recipe_boto3.policy.max_attempts == 4
    assert retry_info(caught.value).reason is GiveUpReason.MAX_ATTEMPTS
    assert recipe_boto3.describe(caught.value) == "SERVER (status 503, retryable: True)"


def test_max_attempts_one_still_retries(recipe_boto3, server, unavailable):
    """The pitfall the docs name: ``{"max_attempts": 1}`` makes two requests per call."""
    from botocore.config import Config

    server.script(unavailable, unavailable, server.json(200, CONVERSE))
    config = Config(retries={"max_attempts": 1, "mode": "standard"})
    sdk_client = recipe_boto3.boto3.client(
        "bedrock-runtime", endpoint_url=server.url, config=config
    )
    try:
        with pytest.raises(ClientError):
            sdk_client.converse(modelId=recipe_boto3.MODEL, messages=[])
    finally:
        sdk_client.close()
    assert server.attempts == 2


def test_bad_request_is_not_retried(recipe_boto3, client, server, corpus, llm_retry_testing):
    """A 400 ValidationException (corpus row inv-bedrock-004) reaches the server once."""
    invalid = server.json(
        400, corpus.json("inv-bedrock-004"), ("x-amzn-ErrorType", "ValidationException")
    )
    server.script(invalid, server.json(200, CONVERSE))
    with pytest.raises(ClientError) as caught:
        recipe_boto3.complete(client, "hi")
    assert server.attempts == 1
    assert llm_retry_testing.events == []
    assert retry_info(caught.value).reason is GiveUpReason.NOT_RETRYABLE
    assert recipe_boto3.describe(caught.value) == "INVALID_REQUEST (status 400, retryable: False)"


def test_stream_retried_before_first_chunk(
    recipe_boto3, client, server, unavailable, llm_retry_testing
):
    """A 503 on opening ConverseStream is retried; the event stream then yields every delta."""
    server.script(unavailable, server.Reply(200, b"".join(STREAM), content_type=EVENT_STREAM))
    assert list(recipe_boto3.stream(client, "hi")) == ["Hel", "lo"]
    assert server.attempts == 2
    assert len(llm_retry_testing.events) == 1
    assert server.requests[1].path == f"{MODEL_PATH}/converse-stream"


def test_stream_not_retried_after_first_chunk(recipe_boto3, client, server, llm_retry_testing):
    """A stream cut off after its first delta is raised, not restarted, though retryable."""
    cut = server.Reply(
        200, b"".join(STREAM[:2]), content_type=EVENT_STREAM, declared_length=10_000, hold=True
    )
    server.script(cut, server.Reply(200, b"".join(STREAM), content_type=EVENT_STREAM))
    received = []
    with pytest.raises(recipe_boto3.llm_errors.TransportError) as caught:  # noqa: PT012
        for text in recipe_boto3.stream(client, "hi"):
            received.append(text)
            server.release()  # the first delta is in: now cut the connection
    assert received == ["Hel"]
    assert server.attempts == 1
    info = retry_info(caught.value)
    assert info.reason is GiveUpReason.STREAM_STARTED
    assert info.items_delivered == 1
    assert recipe_boto3.describe(caught.value) == "TRANSPORT (status None, retryable: True)"


def test_stream_cut_before_first_chunk_is_retried(recipe_boto3, client, server, llm_retry_testing):
    """A stream that ends before any text (no messageStop) is retried like a failed open."""
    cut = server.Reply(200, STREAM[0], content_type=EVENT_STREAM, declared_length=10_000)
    server.script(cut, server.Reply(200, b"".join(STREAM), content_type=EVENT_STREAM))
    assert list(recipe_boto3.stream(client, "hi")) == ["Hel", "lo"]
    assert server.attempts == 2
    assert [event.classification.code for event in llm_retry_testing.events] == ["TRANSPORT"]
