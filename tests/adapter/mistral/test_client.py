"""The Mistral clients end to end, sync and async, over real HTTP against ``FakeMistral``."""

import asyncio
import base64
import contextlib
import dataclasses
import gc
import gzip
import json
import logging
import random
import socket
import threading
import time
import traceback
from collections.abc import Callable
from importlib import metadata
from typing import Any

import httpx
import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from adapter import Context, StreamOptions, Tool, UnknownModelError, get_model
from adapter._mistral.async_client import AsyncMistralAdapter
from adapter._mistral.client import Limits, MissingApiKeyError, Settings, StreamCall, Timeouts
from adapter._mistral.errors import UnmappableChunkError, partial_of
from adapter._mistral.request import to_wire
from adapter._mistral.sync_client import MistralAdapter
from adapter.pi import ImageContent, TextContent, UserMessage
from adapter.testing import (
    CloseBeforeHeaders,
    Drop,
    FakeMistral,
    Pause,
    Repeat,
    Reply,
    Stream,
    content_chunk,
    error_object,
    finish_chunk,
    reference_chunk,
    role_chunk,
    sse_comment,
    sse_event,
    text_chunk,
    text_reply,
    thinking_chunk,
    tool_call,
    tool_call_chunk,
    usage_info,
    usage_only_chunk,
)
from llm_errors import (
    AuthError,
    ErrorCode,
    InvalidRequestError,
    LlmError,
    LlmTimeoutError,
    ProviderError,
    RateLimitError,
    ServerError,
    TransportError,
)
from llm_retry import GiveUpReason, RetryPolicy, instant_retries, retry_info

pytestmark = pytest.mark.integration

KEY = "test-key-for-the-fake"
MODEL = "mistral-small-latest"
WEATHER = Tool(
    name="get_weather",
    description="The current weather in a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
CONTEXT = Context(
    system_prompt="You are terse.",
    messages=[UserMessage(content="What is the weather in Paris?", timestamp=1)],
    tools=[WEATHER],
)
FLAVOURS = [pytest.param("sync", id="sync"), pytest.param("async", id="async")]
#: Volatile fields left out of snapshots: wall-clock times and the fake's fresh ids.
TIMING = {"timestamp", "duration", "ttft", "completedAt"}


def retry_policy(attempts: int = 3) -> RetryPolicy:
    """A retry policy without jitter, so planned waits are exact."""
    return RetryPolicy(max_attempts=attempts, jitter=False, initial_wait=0.5)


@dataclasses.dataclass
class Outcome:
    """What one call produced: the events delivered and the error raised, if any."""

    events: list[Any]
    error: BaseException | None

    @property
    def types(self) -> list[str]:
        """The event types, in order."""
        return [event.type for event in self.events]

    @property
    def message(self) -> Any:
        """The final message: from the terminal event, else the error's partial."""
        if self.events and self.events[-1].type == "done":
            return self.events[-1].message
        if self.events and self.events[-1].type == "error":
            return self.events[-1].error
        assert self.error is not None
        return partial_of(self.error)


def run(
    flavour: str,
    url: str,
    *,
    context: Context = CONTEXT,
    options: StreamOptions | None = None,
    model: Any = MODEL,
    **settings: Any,
) -> Outcome:
    """Stream one reply with a fresh adapter of ``flavour``; collect events and error."""
    settings.setdefault("api_key", KEY)
    if flavour == "sync":
        events: list[Any] = []
        with MistralAdapter(base_url=url, **settings) as adapter:
            try:
                for event in adapter.stream(model, context, options):
                    events.append(event)  # noqa: PERF402 - keeps what came before an error
            except LlmError as exc:
                return Outcome(events, exc)
        return Outcome(events, None)

    async def main() -> Outcome:
        events: list[Any] = []
        async with AsyncMistralAdapter(base_url=url, **settings) as adapter:
            try:
                async for event in adapter.stream(model, context, options):
                    events.append(event)  # noqa: PERF401 - keeps what came before an error
            except LlmError as exc:
                return Outcome(events, exc)
        return Outcome(events, None)

    return asyncio.run(main())


def record(outcome: Outcome) -> dict[str, Any]:
    """A snapshot of an outcome: the events (without the live message) and the message."""
    error = outcome.error
    message = rounded_costs(outcome.message.model_dump(exclude=TIMING))
    return {
        "events": [
            event.model_dump(exclude={"partial", "message", "error"}) for event in outcome.events
        ],
        "message": message,
        "error": None
        if error is None
        else {"class": type(error).__name__, "code": error.code.value, "message": str(error)},
    }


def rounded_costs(message: dict[str, Any]) -> dict[str, Any]:
    """A message dump with its costs at 12 significant digits: rate x tokens has float noise."""
    cost = message["usage"]["cost"]
    for key, value in cost.items():
        cost[key] = value if isinstance(value, int) else float(f"{value:.12g}")
    return message


# --- end to end ---------------------------------------------------------------------------

SCENARIOS = {
    "text": text_reply("Hello", ", world", "."),
    "thinking_text_tool_call": Stream(
        [
            role_chunk(),
            thinking_chunk("The user wants the weather; "),
            thinking_chunk("call the tool."),
            text_chunk("Let me check.", typed=True),
            tool_call_chunk(tool_call("get_weather", {"city": "Paris"}), finish_reason=None),
            finish_chunk("tool_calls", usage=usage_info(42, 17, cached_tokens=10)),
        ]
    ),
    "parallel_tool_calls": Stream(
        [
            role_chunk(),
            tool_call_chunk(
                tool_call("get_weather", {"city": "Paris"}, index=0),
                tool_call("get_weather", {"city": "Lyon"}, index=1),
            ),
        ]
    ),
    "citations": Stream(
        [role_chunk(), text_chunk("Paris is sunny"), reference_chunk(0, 2), finish_chunk("stop")]
    ),
    "usage_only_final_chunk": Stream(
        [role_chunk(), text_chunk("Hi"), finish_chunk("stop"), usage_only_chunk(usage_info(3, 1))]
    ),
    "keep_alives_and_bursts": Stream(
        [
            role_chunk(),
            sse_comment(),
            text_chunk("a"),
            sse_comment(),
            text_chunk("b"),
            finish_chunk(),
        ],
        batch=3,
    ),
    "length": text_reply("cut", finish_reason="length"),
}


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in SCENARIOS])
def test_end_to_end_snapshot(name, snapshot):
    """Each scenario streams the same snapshotted events through both adapters."""
    outcomes = {}
    for flavour in ("sync", "async"):
        with FakeMistral(SCENARIOS[name], default=None) as fake:
            outcomes[flavour] = run(flavour, fake.url)
            fake.wait_open_connections(0)
    assert outcomes["sync"].error is None
    assert record(outcomes["sync"]) == record(outcomes["async"])
    assert record(outcomes["sync"]) == snapshot.use_extension(JSONSnapshotExtension)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_events_share_one_live_message(flavour):
    """Every event's ``partial`` is the final message object, and ``complete`` returns it."""
    with FakeMistral(SCENARIOS["thinking_text_tool_call"], default=None) as fake:
        outcome = run(flavour, fake.url)
    final = outcome.events[-1].message
    assert all(event.partial is final for event in outcome.events[:-1])
    assert final.stopReason == "toolUse"
    assert [block.type for block in final.content] == ["thinking", "text", "toolCall"]
    assert final.content[2].arguments == {"city": "Paris"}
    assert final.usage.cacheRead == 10
    assert final.usage.cost.total > 0
    assert final.ttft is not None
    assert final.completedAt is not None


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_complete_returns_the_final_message(flavour):
    """``complete`` consumes the stream and returns the ``done`` message."""
    with FakeMistral(text_reply("Hello", " there"), default=None) as fake:
        if flavour == "sync":
            with MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
                message = adapter.complete(MODEL, CONTEXT)
        else:

            async def main() -> Any:
                async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
                    return await adapter.complete(get_model(MODEL), CONTEXT)

            message = asyncio.run(main())
        fake.wait_open_connections(0)
    assert message.stopReason == "stop"
    assert message.content == [TextContent(text="Hello there")]


# --- the request --------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    "suffix", [pytest.param("", id="base"), pytest.param("/v1/", id="trailing-v1")]
)
def test_request_headers_and_body(flavour, suffix):
    """The fake records the path, the headers and the body that ``to_wire`` builds."""
    options = StreamOptions(session_id="session-42", temperature=0.3)
    with FakeMistral() as fake:
        run(flavour, fake.url + suffix, options=options, headers={"X-Team": "resilience"})
        (request,) = fake.requests
    assert request.method == "POST"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-affinity"] == "session-42"
    assert request.json()["prompt_cache_key"] == "session-42"
    assert request.json()["model"] == MODEL  # the alias as named, not its snapshot
    assert request.headers["x-team"] == "resilience"
    version = metadata.version("llm-resilience")  # the installed metadata, not a copy
    assert request.headers["user-agent"] == (
        f"llm-resilience/{version} (adapter; httpx {httpx.__version__})"
    )
    expected = to_wire(model=get_model(MODEL), context=CONTEXT, options=options).to_json()
    assert request.json() == json.loads(expected)
    assert request.json()["stream"] is True


@pytest.mark.integration
def test_api_key_from_the_environment(monkeypatch):
    """Without ``api_key`` the key comes from ``MISTRAL_API_KEY``; without both, a clear error.

    The newline a key read from a file ends with is stripped, not sent.
    """
    monkeypatch.setenv("MISTRAL_API_KEY", "from-the-env\r\n")
    with FakeMistral() as fake:
        with MistralAdapter(base_url=fake.url) as adapter:
            adapter.complete(MODEL, CONTEXT)
        assert fake.requests[0].headers["authorization"] == "Bearer from-the-env"
    monkeypatch.delenv("MISTRAL_API_KEY")
    with pytest.raises(MissingApiKeyError, match="MISTRAL_API_KEY"):
        MistralAdapter()
    with pytest.raises(MissingApiKeyError):
        AsyncMistralAdapter(api_key="  ")


@pytest.mark.parametrize(
    ("settings", "error", "match"),
    [
        pytest.param({"base_url": "ftp://example.com"}, ValueError, "base_url", id="scheme"),
        pytest.param({"base_url": "https://[::1"}, ValueError, "not a valid URL", id="url"),
        pytest.param({"base_url": "http://"}, ValueError, "with a host", id="no-host"),
        pytest.param({"base_url": "http://h:99999"}, ValueError, "1 to 65535", id="port"),
        pytest.param({"base_url": 8080}, TypeError, "base_url must be a str", id="url-type"),
        pytest.param({"timeouts": 3}, TypeError, "Timeouts", id="timeouts-type"),
        pytest.param({"retry": 3}, TypeError, "RetryPolicy", id="retry-type"),
        pytest.param({"limits": {"max_line": 10}}, TypeError, "Limits", id="limits-type"),
        pytest.param({"headers": {"X-A": 1}}, TypeError, "X-A", id="header-value"),
        pytest.param(
            {"headers": {"Authorization": "Bearer x"}}, ValueError, "api_key", id="auth-header"
        ),
        pytest.param({"api_key": "abc\ndef"}, ValueError, "whitespace", id="key-newline"),
        pytest.param({"api_key": "abc def"}, ValueError, "whitespace", id="key-space"),
        pytest.param({"api_key": b"abc-def"}, TypeError, "api_key must be a str", id="key-bytes"),
    ],
)
def test_bad_settings_fail_at_construction(settings, error, match):
    """Configuration mistakes are caller bugs, raised when the adapter is built."""
    settings = {"api_key": KEY, **settings}
    with pytest.raises(error, match=match) as info:
        MistralAdapter(**settings)
    assert "def" not in str(info.value)


@pytest.mark.parametrize(
    ("timeouts", "match"),
    [
        pytest.param({"read": 0}, "read", id="zero"),
        pytest.param({"total": float("inf")}, "total", id="infinite"),
        pytest.param({"connect": "5"}, "connect", id="string"),
    ],
)
def test_bad_timeouts(timeouts, match):
    """Timeouts are finite positive seconds or ``None``."""
    with pytest.raises((TypeError, ValueError), match=match):
        Timeouts(**timeouts)


@pytest.mark.parametrize(
    ("limits", "error", "match"),
    [
        pytest.param({"max_line": 0}, ValueError, "max_line must be at least 1", id="zero"),
        pytest.param({"error_body": -5}, ValueError, "error_body", id="negative"),
        pytest.param({"max_read": 1.5}, TypeError, "max_read must be an int", id="float"),
        pytest.param({"max_event": True}, TypeError, "max_event", id="bool"),
    ],
)
def test_bad_limits(limits, error, match):
    """Limits are whole numbers of bytes, at least 1 (a bool is not a number of bytes)."""
    with pytest.raises(error, match=match):
        Limits(**limits)


def test_timeouts_are_capped_by_the_total():
    """With a total, the connect and read timeouts never exceed it."""
    limits = Timeouts(connect=10, read=60, total=5).for_httpx()
    assert (limits.connect, limits.read, limits.write, limits.pool) == (5, 5, 30.0, 10.0)
    assert Timeouts(read=None, total=2).for_httpx().read == 2


def test_bad_call_arguments_raise_before_any_request():
    """An unknown model or a wrong context type raises at ``stream()``, sending nothing."""
    with FakeMistral() as fake, MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
        with pytest.raises(UnknownModelError):
            adapter.stream("no-such-model", CONTEXT)
        with pytest.raises(TypeError, match="Context"):
            adapter.stream(MODEL, {"messages": []})  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="ModelInfo"):
            adapter.stream(42, CONTEXT)  # type: ignore[arg-type]
        assert fake.requests == ()


# --- HTTP errors and retries ----------------------------------------------------------------


RATE_LIMITED = Reply(
    429,
    error_object("Rate limit exceeded", error_type="rate_limited", code="1300"),
    headers={"Retry-After": "2"},
)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_rate_limit_is_retried_after_retry_after(flavour):
    """A 429 with ``Retry-After: 2`` is retried once, after a planned wait of 2 s."""
    with FakeMistral(RATE_LIMITED, text_reply("ok"), default=None) as fake:
        with instant_retries() as recorder:
            outcome = run(flavour, fake.url, retry=retry_policy())
        fake.wait_open_connections(0)
        assert len(fake.requests) == 2
    assert outcome.error is None
    assert outcome.types[0] == "start"
    assert outcome.types.count("start") == 1
    assert recorder.sleeps == [2.0]
    (event,) = recorder.events
    assert event.classification.code is ErrorCode.RATE_LIMIT
    assert event.classification.status == 429


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    ("failure", "code"),
    [
        pytest.param(Reply(503, error_object("Service unavailable")), ErrorCode.SERVER, id="503"),
        pytest.param(Reply(500, "Internal Server Error"), ErrorCode.SERVER, id="500-text"),
        pytest.param(CloseBeforeHeaders(), ErrorCode.TRANSPORT, id="close-before-headers"),
        pytest.param(
            CloseBeforeHeaders(reset=True), ErrorCode.TRANSPORT, id="reset-before-headers"
        ),
    ],
)
def test_failures_before_the_first_event_are_retried(flavour, failure, code):
    """5xx and connections lost before the response are retried; the reply then streams."""
    with FakeMistral(failure, text_reply("ok"), default=None) as fake:
        with instant_retries() as recorder:
            outcome = run(flavour, fake.url, retry=retry_policy())
        assert len(fake.requests) == 2
        fake.wait_open_connections(0)
    assert outcome.error is None
    assert outcome.message.content == [TextContent(text="ok")]
    assert recorder.sleeps == [0.5]
    (retried,) = recorder.events
    assert retried.classification.code is code
    assert isinstance(retried.error, TransportError if code is ErrorCode.TRANSPORT else ServerError)


def _raise_for_status(response: httpx.Response) -> None:
    response.raise_for_status()


async def _araise_for_status(response: httpx.Response) -> None:
    response.raise_for_status()


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_status_error_raised_by_the_callers_client_is_typed_and_retried(flavour):
    """A caller's client hook raises for status: the 429 keeps its ``Retry-After``, retried."""

    def sync() -> Outcome:
        hooks = {"response": [_raise_for_status]}
        with httpx.Client(event_hooks=hooks) as client:
            return run(flavour, fake.url, client=client, retry=retry_policy())

    async def main() -> Outcome:
        events: list[Any] = []
        hooks = {"response": [_araise_for_status]}
        async with httpx.AsyncClient(event_hooks=hooks) as client:
            adapter = AsyncMistralAdapter(
                api_key=KEY, base_url=fake.url, client=client, retry=retry_policy()
            )
            async for event in adapter.stream(MODEL, CONTEXT):
                events.append(event)  # noqa: PERF401 - the events of the retried attempt
        return Outcome(events, None)

    with FakeMistral(RATE_LIMITED, text_reply("ok"), default=None) as fake:
        with instant_retries() as recorder:
            outcome = sync() if flavour == "sync" else asyncio.run(main())
        assert len(fake.requests) == 2
    assert outcome.error is None
    assert outcome.message.content == [TextContent(text="ok")]
    (retried,) = recorder.events
    assert isinstance(retried.error, RateLimitError)
    assert isinstance(retried.error.__cause__, httpx.HTTPStatusError)
    assert (retried.error.status, retried.error.retry_after) == (429, 2.0)
    assert retried.classification.code is ErrorCode.RATE_LIMIT
    assert recorder.sleeps == [2.0]  # not the policy's own 0.5 s


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_without_a_policy_nothing_is_retried(flavour):
    """A 429 without ``retry`` raises at once, classified, with its ``Retry-After``."""
    with FakeMistral(RATE_LIMITED, default=None) as fake:
        outcome = run(flavour, fake.url)
        assert len(fake.requests) == 1
        fake.wait_open_connections(0)
    error = outcome.error
    assert isinstance(error, RateLimitError)
    assert error.status == 429
    assert error.retry_after == 2.0
    assert error.request_id == fake.requests[0].correlation_id
    assert outcome.events == []


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    ("reply", "error_type"),
    [
        pytest.param(
            Reply(400, error_object("Invalid model: x", code="1500")), InvalidRequestError, id="400"
        ),
        pytest.param(Reply(401, {"detail": "Unauthorized"}), AuthError, id="401"),
        pytest.param(
            Reply(
                422, error_object({"detail": [{"loc": ["body", "x"], "msg": "Extra", "input": 1}]})
            ),
            InvalidRequestError,
            id="422",
        ),
    ],
)
def test_permanent_errors_are_not_retried(flavour, reply, error_type):
    """4xx errors raise their typed error after one request, with the partial attached."""
    with FakeMistral(reply, text_reply("never"), default=None) as fake:
        with instant_retries() as recorder:
            outcome = run(flavour, fake.url, retry=retry_policy())
        assert len(fake.requests) == 1
        assert fake.pending == 1
        fake.wait_open_connections(0)
    error = outcome.error
    assert isinstance(error, error_type)
    assert error.status == reply.status
    assert recorder.sleeps == []
    assert outcome.events == []
    partial = partial_of(error)
    assert partial is not None
    assert partial.stopReason == "error"
    assert partial.errorStatus == reply.status
    assert partial.errorMessage == str(error)
    assert partial.content == []


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_retries_give_up_with_the_last_error(flavour):
    """After ``max_attempts`` the last error is raised, annotated by the policy."""
    with FakeMistral(default=Reply(503, error_object("overloaded"))) as fake:
        with instant_retries() as recorder:
            outcome = run(flavour, fake.url, retry=retry_policy(attempts=3))
        assert len(fake.requests) == 3
        fake.wait_open_connections(0)
    assert isinstance(outcome.error, ServerError)
    info = retry_info(outcome.error)
    assert info is not None
    assert info.reason is GiveUpReason.MAX_ATTEMPTS
    assert recorder.sleeps == [0.5, 1.0]
    assert partial_of(outcome.error) is not None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_connection_refused_is_transport(flavour):
    """Nobody listening: ``TransportError`` (from ``httpx.ConnectError``), retried."""
    url = f"http://127.0.0.1:{_free_port()}"
    with instant_retries() as recorder:
        outcome = run(flavour, url, retry=retry_policy(attempts=2))
    error = outcome.error
    assert isinstance(error, TransportError)
    assert isinstance(error.__cause__, httpx.ConnectError)
    assert "before a response" in str(error)
    assert len(recorder.sleeps) == 1
    assert partial_of(error).stopReason == "error"


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    ("reply", "error_type", "rule"),
    [
        pytest.param(
            Reply(200, {"id": "x", "object": "chat.completion", "choices": []}),
            ProviderError,
            "adapter.not_event_stream",
            id="json-completion",
        ),
        pytest.param(
            Reply(200, error_object("Rate limit exceeded", error_type="rate_limited", code="1300")),
            RateLimitError,
            None,
            id="json-error-object",
        ),
        pytest.param(Reply(200, "hello"), ProviderError, "adapter.not_event_stream", id="text"),
    ],
)
def test_a_200_that_is_not_an_event_stream(flavour, reply, error_type, rule):
    """A 200 with another content type is a protocol error, or the error object it holds."""
    with FakeMistral(reply, default=None) as fake:
        outcome = run(flavour, fake.url)
        fake.wait_open_connections(0)
    assert isinstance(outcome.error, error_type)
    if rule is not None:
        assert outcome.error.rule == rule
        assert "text/event-stream" in str(outcome.error)
    assert outcome.events == []


# --- failures while streaming -------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("reset", [pytest.param(False, id="fin"), pytest.param(True, id="rst")])
def test_mid_stream_drop_is_transport_and_not_retried(flavour, reset):
    """A connection lost after events were delivered: ``TransportError`` with the partial."""
    dropped = Stream([role_chunk(), text_chunk("Hello"), text_chunk(" wor"), Drop(reset=reset)])
    with FakeMistral(dropped, text_reply("never"), default=None) as fake:
        with instant_retries() as recorder:
            outcome = run(flavour, fake.url, retry=retry_policy())
        assert len(fake.requests) == 1
        assert fake.pending == 1
        fake.wait_open_connections(0)
    error = outcome.error
    assert isinstance(error, TransportError)
    assert isinstance(error.__cause__, httpx.RemoteProtocolError | httpx.ReadError)
    assert error.__cause__.request.url.path.endswith("/chat/completions")  # as httpx sets it
    assert "after 3 chunks" in str(error)
    assert recorder.sleeps == []
    info = retry_info(error)
    assert info is not None
    assert info.reason is GiveUpReason.STREAM_STARTED
    partial = partial_of(error)
    assert partial.content == [TextContent(text="Hello wor")]
    assert partial.stopReason == "error"
    assert partial.errorMessage == str(error)
    assert outcome.types == ["start", "text_start", "text_delta", "text_delta"]
    assert outcome.events[-1].partial is partial


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_reset_after_a_large_body_loses_no_delivered_chunk(flavour):
    """A reset sent while megabytes are still in flight: every chunk before it arrives.

    The fake waits for the peer to acknowledge its writes before the RST; otherwise the
    kernel discards the unsent tail and the client sees fewer chunks than were written.
    """
    count = 10_000
    dropped = Stream([role_chunk(), Repeat(text_chunk("x" * 100), count), Drop(reset=True)])
    with FakeMistral(dropped, default=None) as fake:
        outcome = run(flavour, fake.url)
    assert isinstance(outcome.error, TransportError)
    assert f"after {count + 1} chunks" in str(outcome.error)
    assert partial_of(outcome.error).content == [TextContent(text="x" * 100 * count)]


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    "stream",
    [
        pytest.param(Stream([role_chunk(), text_chunk("Hel")], done=False), id="chunked"),
        pytest.param(
            Stream([role_chunk(), text_chunk("Hel")], done=False, chunked=False),
            id="close-delimited",
        ),
    ],
)
def test_body_without_done_or_finish_reason_is_transport(flavour, stream):
    """A body that ends cleanly but without ``[DONE]`` or ``finish_reason`` is truncated."""
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url)
        fake.wait_open_connections(0)
    assert isinstance(outcome.error, TransportError)
    assert "without finish_reason" in str(outcome.error)
    assert partial_of(outcome.error).content == [TextContent(text="Hel")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_body_cut_in_the_middle_of_an_event_is_transport(flavour):
    """A close-delimited body that stops inside an event is a truncation, not a success."""
    stream = Stream(
        [role_chunk(), text_chunk("Hi"), finish_chunk("stop"), b'data: {"id":"cmpl'],
        done=False,
        chunked=False,
    )
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url)
    assert isinstance(outcome.error, TransportError)
    assert "middle of an event" in str(outcome.error)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_finish_reason_without_done_succeeds(flavour):
    """A clean end after a ``finish_reason`` is a success even without ``[DONE]``."""
    stream = Stream([role_chunk(), text_chunk("Hi"), finish_chunk("stop")], done=False)
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url)
    assert outcome.error is None
    assert outcome.types[-1] == "done"


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_gzip_stream_read_one_byte_at_a_time_decodes(flavour):
    """A gzip body that arrives a byte per read (its header and trailer alone too) decodes whole."""
    frames = b"".join(
        Stream([role_chunk(), text_chunk("Hel"), text_chunk("lo"), finish_chunk()]).writes()
    )
    body = gzip.compress(frames)
    pieces = [body[i : i + 1] for i in range(len(body))]  # one chunked-framing chunk each
    stream = Stream(pieces, done=False, headers={"Content-Encoding": "gzip"})
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url)
    assert outcome.error is None
    assert outcome.types[-1] == "done"
    assert outcome.message.content == [TextContent(text="Hello")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_malformed_json_is_a_provider_error(flavour):
    """A ``data:`` line that is not JSON: ``PROVIDER_ERROR`` naming the chunk, not retried."""
    stream = Stream([role_chunk(), text_chunk("Hi"), sse_event("{this is not json")])
    with FakeMistral(stream, text_reply("never"), default=None) as fake:
        with instant_retries():
            outcome = run(flavour, fake.url, retry=retry_policy())
        assert fake.pending == 1
    error = outcome.error
    assert isinstance(error, ProviderError)
    assert error.code is ErrorCode.PROVIDER_ERROR
    assert str(error).startswith("chunk 3: not a valid Mistral chunk")
    assert "this is not json" not in str(error)
    assert partial_of(error).content == [TextContent(text="Hi")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_unmappable_chunk_names_its_type(flavour):
    """A content type pi cannot show raises ``UnmappableChunkError`` naming it."""
    stream = Stream([role_chunk(), content_chunk({"type": "image_url", "image_url": "https://x"})])
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url)
    assert isinstance(outcome.error, UnmappableChunkError)
    assert outcome.error.chunk_type == "image_url"


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_in_band_error_is_classified_by_its_content(flavour):
    """An error object inside a 200 stream is routed by its content (here a 429)."""
    inband = error_object(
        "Rate limit exceeded", error_type="rate_limited", code="1300", raw_status_code=429
    )
    stream = Stream([role_chunk(), text_chunk("Hi"), inband])
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url)
    error = outcome.error
    assert isinstance(error, RateLimitError)
    assert error.status == 429
    assert partial_of(error).errorStatus == 429
    assert partial_of(error).content == [TextContent(text="Hi")]


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param(
            {"error": {"message": "Overloaded", "type": "server_error", "raw_status_code": 503}},
            id="error-key",
        ),
        pytest.param(
            {"object": "error", "message": "Overloaded", "type": "server_error"}, id="object-error"
        ),
    ],
)
def test_chunk_shaped_error_object_is_classified(extra):
    """A payload that parses as a chunk but is also an error object is an error, not text."""
    shaped = {**text_chunk("never shown"), **extra}
    with FakeMistral(Stream([role_chunk(), text_chunk("Hi"), shaped]), default=None) as fake:
        outcome = run("sync", fake.url)
    assert isinstance(outcome.error, ServerError)
    assert "Overloaded" in str(outcome.error)
    assert partial_of(outcome.error).content == [TextContent(text="Hi")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_stall_trips_the_read_timeout(flavour):
    """No data for longer than the read timeout: ``LlmTimeoutError`` with the partial."""
    stream = Stream([role_chunk(), text_chunk("Hi"), Pause(10), finish_chunk()])
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url, timeouts=Timeouts(read=0.5))
        fake.wait_open_connections(0)
    error = outcome.error
    assert isinstance(error, LlmTimeoutError)
    assert isinstance(error.__cause__, httpx.ReadTimeout)
    assert "no data for 0.5 s" in str(error)
    assert partial_of(error).content == [TextContent(text="Hi")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_total_deadline_on_a_slow_trickle(flavour):
    """Chunks that keep coming but too slowly: the total deadline ends the call."""
    stream = Stream([role_chunk(), Repeat(text_chunk("x"), 200), finish_chunk()], delay=0.02)
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url, timeouts=Timeouts(total=0.5))
        fake.wait_open_connections(0)
    error = outcome.error
    assert isinstance(error, LlmTimeoutError)
    assert error.rule == "adapter.total_timeout"
    assert "total timeout of 0.5 s" in str(error)
    text = "".join(block.text for block in partial_of(error).content)
    assert len(text) < 200  # cut short: the whole reply would take 4 s


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_total_deadline_ends_a_stall(flavour):
    """A stall shorter than the read timeout but past the total deadline still ends."""
    stream = Stream([role_chunk(), text_chunk("Hi"), Pause(10), finish_chunk()])
    with FakeMistral(stream, default=None) as fake:
        outcome = run(flavour, fake.url, timeouts=Timeouts(read=30, total=1.0))
        fake.wait_open_connections(0)
    assert isinstance(outcome.error, LlmTimeoutError)
    assert partial_of(outcome.error).content == [TextContent(text="Hi")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_total_deadline_holds_against_a_slow_consumer(flavour):
    """A caller slower than ``total`` between events: TIMEOUT at the next read, body in or not."""
    stream = Stream([role_chunk(), text_chunk("a"), text_chunk("b"), finish_chunk()])
    timeouts = Timeouts(total=0.3)

    def sync() -> Outcome:
        events: list[Any] = []
        with MistralAdapter(api_key=KEY, base_url=fake.url, timeouts=timeouts) as adapter:
            try:
                for event in adapter.stream(MODEL, CONTEXT):
                    events.append(event)
                    if event.type == "start":
                        time.sleep(0.6)  # busy elsewhere until the deadline has passed
            except LlmError as exc:
                return Outcome(events, exc)
        return Outcome(events, None)

    async def main() -> Outcome:
        events: list[Any] = []
        async with AsyncMistralAdapter(
            api_key=KEY, base_url=fake.url, timeouts=timeouts
        ) as adapter:
            try:
                async for event in adapter.stream(MODEL, CONTEXT):
                    events.append(event)
                    if event.type == "start":
                        await asyncio.sleep(0.6)  # busy elsewhere until the deadline has passed
            except LlmError as exc:
                return Outcome(events, exc)
        return Outcome(events, None)

    with FakeMistral(stream, default=None) as fake:
        outcome = sync() if flavour == "sync" else asyncio.run(main())
        fake.wait_open_connections(0)
    assert outcome.types == ["start"]
    assert isinstance(outcome.error, LlmTimeoutError)
    assert outcome.error.rule == "adapter.total_timeout"
    assert partial_of(outcome.error).content == []


def _wait_until(condition: Callable[[], object], seconds: float = 10.0) -> None:
    """Poll ``condition`` until it holds; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not true after {seconds} s"
        time.sleep(0.01)


def test_sync_total_deadline_counts_the_wait_for_a_pooled_connection():
    """A call queued behind a busy pool past ``total``: TIMEOUT once it gets a socket, no event.

    The deadline passes while the call has no socket yet; the one it gets afterwards is
    shut down as soon as it is known, so the request never gets a response.
    """
    busy = Stream([role_chunk(), text_chunk("Hi"), Pause(30), finish_chunk()])
    outcomes: list[Outcome] = []
    watchdogs: list[Any] = []  # the late call's deadline timer, seen through its trace hook

    def late_call(client: httpx.Client) -> None:
        timeouts = Timeouts(total=0.2)
        outcomes.append(run("sync", fake.url, client=client, timeouts=timeouts))

    def note_watchdog(request: httpx.Request) -> None:
        watchdogs.append(request.extensions["trace"].__self__)

    with FakeMistral(busy, text_reply("never sent"), default=None) as fake:
        with httpx.Client(limits=httpx.Limits(max_connections=1)) as client:
            owner = MistralAdapter(api_key=KEY, base_url=fake.url, client=client)
            held = owner.stream(MODEL, CONTEXT)
            assert next(held).type == "start"  # the pool's only connection is taken
            client.event_hooks = {"request": [note_watchdog]}
            thread = threading.Thread(target=late_call, args=(client,))
            thread.start()
            _wait_until(lambda: watchdogs and watchdogs[0].fired)  # its deadline has passed
            held.close()  # frees the pool: the late call gets a connection
            thread.join(15)
        assert not thread.is_alive()
        fake.wait_open_connections(0)
        assert len(fake.requests) == 1  # the late request never got through
    (outcome,) = outcomes
    assert outcome.events == []
    assert isinstance(outcome.error, LlmTimeoutError)
    assert outcome.error.rule == "adapter.total_timeout"
    assert "before a response" in str(outcome.error)


# --- never_raise --------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_never_raise_ends_with_an_error_event(flavour):
    """With ``never_raise`` a mid-stream failure is the final ``error`` event, not raised."""
    dropped = Stream([role_chunk(), text_chunk("Hello"), Drop()])
    with FakeMistral(dropped, default=None) as fake:
        outcome = run(flavour, fake.url, options=StreamOptions(never_raise=True))
    assert outcome.error is None
    assert outcome.types == ["start", "text_start", "text_delta", "error"]
    final = outcome.events[-1]
    assert final.reason == "error"
    assert final.error is outcome.events[0].partial
    assert final.error.stopReason == "error"
    assert "Mistral stream failed after 2 chunks" in final.error.errorMessage
    assert final.error.content == [TextContent(text="Hello")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_never_raise_on_success_streams_as_usual(flavour):
    """With ``never_raise`` a reply that succeeds streams the same events, to ``done``."""
    with FakeMistral(text_reply("Hello", " there"), text_reply("Hello", " there")) as fake:
        plain = run(flavour, fake.url)
        guarded = run(flavour, fake.url, options=StreamOptions(never_raise=True))
        fake.wait_open_connections(0)
    assert guarded.error is None
    assert guarded.types == plain.types
    assert guarded.types[-1] == "done"
    assert guarded.message.content == [TextContent(text="Hello there")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_never_raise_after_retries(flavour):
    """With retries and ``never_raise``, the give-up is one ``error`` event, no ``start``."""
    with FakeMistral(default=RATE_LIMITED) as fake:
        with instant_retries() as recorder:
            outcome = run(
                flavour,
                fake.url,
                options=StreamOptions(never_raise=True),
                retry=retry_policy(attempts=2),
            )
        assert len(fake.requests) == 2
    assert recorder.sleeps == [2.0]
    assert outcome.types == ["error"]
    message = outcome.events[0].error
    assert message.errorStatus == 429
    assert message.errorMessage.startswith("Mistral HTTP 429 Too Many Requests")


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_never_raise_complete_returns_the_error_message(flavour):
    """``complete`` with ``never_raise`` returns the failed message instead of raising."""
    options = StreamOptions(never_raise=True)
    with FakeMistral(Reply(400, error_object("bad")), default=None) as fake:
        if flavour == "sync":
            with MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
                message = adapter.complete(MODEL, CONTEXT, options)
        else:

            async def main() -> Any:
                async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
                    return await adapter.complete(MODEL, CONTEXT, options)

            message = asyncio.run(main())
    assert message.stopReason == "error"
    assert message.errorStatus == 400


def test_never_raise_still_raises_caller_bugs():
    """``never_raise`` covers call failures, not bugs: a bad model id still raises."""
    with MistralAdapter(api_key=KEY) as adapter, pytest.raises(UnknownModelError):
        adapter.stream("nope", CONTEXT, StreamOptions(never_raise=True))


# --- connections --------------------------------------------------------------------------

LONG = Stream([role_chunk(), Repeat(text_chunk("tok "), 50_000), finish_chunk()], batch=64)


def test_success_returns_the_connection_to_the_pool():
    """After ``[DONE]`` the body is drained, so the next call reuses the connection."""
    with FakeMistral() as fake:
        with MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
            adapter.complete(MODEL, CONTEXT)
            adapter.complete(MODEL, CONTEXT)
            assert fake.accepted_connections == 1
            assert fake.open_connections == 1
        fake.wait_open_connections(0)


def test_async_success_returns_the_connection_to_the_pool():
    """The async adapter drains after ``[DONE]`` too."""

    async def main(fake: FakeMistral) -> None:
        async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
            await adapter.complete(MODEL, CONTEXT)
            await adapter.complete(MODEL, CONTEXT)
            assert fake.accepted_connections == 1
        await asyncio.to_thread(fake.wait_open_connections, 0)

    with FakeMistral() as fake:
        asyncio.run(main(fake))


#: A reply followed, after ``[DONE]``, by more than the 64 KiB the adapter reads past it.
LONG_TAIL = Stream(
    [
        role_chunk(),
        text_chunk("ok"),
        finish_chunk(),
        b"data: [DONE]\n\n",
        b":" + b" " * (256 * 1024) + b"\n\n",
    ],
    done=False,
)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_long_tail_after_done_costs_the_connection_not_the_call(flavour):
    """Over 64 KiB after ``[DONE]``: the call ends with ``done``; its connection is not reused."""

    async def main() -> list[str]:
        async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
            first = await adapter.complete(MODEL, CONTEXT)
            second = await adapter.complete(MODEL, CONTEXT)
        return [first.stopReason, second.stopReason]

    with FakeMistral(LONG_TAIL, text_reply("again"), default=None) as fake:
        if flavour == "sync":
            with MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
                reasons = [adapter.complete(MODEL, CONTEXT).stopReason for _ in range(2)]
        else:
            reasons = asyncio.run(main())
        fake.wait_open_connections(0)
        assert fake.accepted_connections == 2
    assert reasons == ["stop", "stop"]


@pytest.mark.parametrize("explicit", [pytest.param(True, id="close"), pytest.param(False, id="gc")])
def test_sync_early_break_releases_the_connection(explicit):
    """Leaving the loop early closes the response (the adapter stays open) and marks it aborted."""
    with FakeMistral(LONG) as fake, MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
        events = adapter.stream(MODEL, CONTEXT)
        for event in events:
            if event.type == "text_delta":
                partial = event.partial
                break
        if explicit:
            events.close()
        else:
            del events
            gc.collect()
        fake.wait_open_connections(0)
        assert partial.stopReason == "aborted"
        assert "the caller closed the stream" in partial.errorMessage


@pytest.mark.parametrize(
    "closing", [pytest.param(True, id="aclosing"), pytest.param(False, id="gc")]
)
def test_async_early_break_releases_the_connection(closing):
    """Leaving an ``async for`` early releases the connection (at once with ``aclosing``)."""

    async def main(fake: FakeMistral) -> Any:
        async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
            partial = None
            if closing:
                async with contextlib.aclosing(adapter.stream(MODEL, CONTEXT)) as events:
                    async for event in events:
                        if event.type == "text_delta":
                            partial = event.partial
                            break
            else:
                async for event in adapter.stream(MODEL, CONTEXT):
                    if event.type == "text_delta":
                        partial = event.partial
                        break
            await asyncio.to_thread(fake.wait_open_connections, 0)
            return partial

    with FakeMistral(LONG) as fake:
        partial = asyncio.run(main(fake))
    assert partial.stopReason == "aborted"


#: A stream that fails mid-body and then stalls: only the client's close ends the connection.
FAILS_THEN_STALLS = Stream([role_chunk(), text_chunk("a"), b"data: {not json\n\n", Pause(30)])


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_failed_stream_closes_its_response_while_the_error_is_held(flavour):
    """The response is closed when the error is raised, not when the last reference goes.

    The caller holds the error (and so its traceback and the stream's frame) with the
    adapter still open: only an explicit close in the shell frees the connection.
    """

    def sync() -> LlmError:
        with MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
            events = adapter.stream(MODEL, CONTEXT)
            with pytest.raises(ProviderError) as info:
                for _ in events:
                    pass
            fake.wait_open_connections(0)
            return info.value

    async def main() -> LlmError:
        async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
            events = adapter.stream(MODEL, CONTEXT)
            with pytest.raises(ProviderError) as info:
                async for _ in events:
                    pass
            await asyncio.to_thread(fake.wait_open_connections, 0)
            return info.value

    with FakeMistral(FAILS_THEN_STALLS, default=None) as fake:
        error = sync() if flavour == "sync" else asyncio.run(main())
    assert partial_of(error).content == [TextContent(text="a")]


def test_async_cancellation_propagates_and_releases():
    """A cancelled consumer gets ``CancelledError``; the message is aborted, the socket freed."""

    async def main(fake: FakeMistral) -> tuple[list[Any], BaseException, Any]:
        seen: list[Any] = []
        got_text = asyncio.Event()
        async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
            stream = adapter.stream(MODEL, CONTEXT)

            async def consume() -> None:
                async for event in stream:
                    seen.append(event)
                    if event.type == "text_delta":
                        got_text.set()

            task = asyncio.create_task(consume())
            await asyncio.wait_for(got_text.wait(), 10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError) as info:
                await task
            await asyncio.to_thread(fake.wait_open_connections, 0)
        return seen, info.value, stream.message

    stalled = Stream([role_chunk(), text_chunk("Hi"), Pause(10), finish_chunk()])
    with FakeMistral(stalled, default=None) as fake:
        seen, cancelled, partial = asyncio.run(main(fake))
    assert "partial" not in vars(cancelled)  # the caller's exception is left alone
    assert partial_of(cancelled) is None
    assert partial is seen[0].partial
    assert partial.stopReason == "aborted"
    assert partial.content == [TextContent(text="Hi")]
    assert "cancelled" in partial.errorMessage


def test_async_cancellation_with_never_raise_still_propagates():
    """``never_raise`` never swallows a cancellation (asyncio relies on it)."""

    async def main(fake: FakeMistral) -> list[str]:
        seen: list[str] = []
        started = asyncio.Event()
        async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:

            async def consume() -> None:
                options = StreamOptions(never_raise=True)
                async for event in adapter.stream(MODEL, CONTEXT, options):
                    seen.append(event.type)
                    started.set()

            task = asyncio.create_task(consume())
            await asyncio.wait_for(started.wait(), 10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await asyncio.to_thread(fake.wait_open_connections, 0)
        return seen

    stalled = Stream([role_chunk(), Pause(10), finish_chunk()])
    with FakeMistral(stalled, default=None) as fake:
        assert asyncio.run(main(fake)) == ["start"]


def test_timeout_scope_around_the_consumer_is_respected():
    """An ``asyncio.timeout`` around the consumer cancels the stream as a timeout."""

    async def main(fake: FakeMistral) -> None:
        async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.3):
                    await adapter.complete(MODEL, CONTEXT)
            await asyncio.to_thread(fake.wait_open_connections, 0)

    stalled = Stream([role_chunk(), Pause(10), finish_chunk()])
    with FakeMistral(stalled, default=None) as fake:
        asyncio.run(main(fake))


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_caller_supplied_client_is_not_closed(flavour):
    """A client passed in stays open after the adapter closes; the adapter's own is closed."""
    with FakeMistral() as fake:
        if flavour == "sync":
            with httpx.Client() as client:
                with MistralAdapter(api_key=KEY, base_url=fake.url, client=client) as adapter:
                    adapter.complete(MODEL, CONTEXT)
                assert not client.is_closed
                assert client.post(fake.chat_url, json={}).status_code == 200
            own = MistralAdapter(api_key=KEY, base_url=fake.url)
            own.close()
            assert own._client.is_closed
        else:

            async def main() -> None:
                async with httpx.AsyncClient() as client:
                    async with AsyncMistralAdapter(
                        api_key=KEY, base_url=fake.url, client=client
                    ) as a:
                        await a.complete(MODEL, CONTEXT)
                    assert not client.is_closed
                    assert (await client.post(fake.chat_url, json={})).status_code == 200
                own = AsyncMistralAdapter(api_key=KEY, base_url=fake.url)
                await own.aclose()
                assert own._client.is_closed

            asyncio.run(main())
        fake.wait_open_connections(0)


def test_client_of_the_wrong_kind_is_rejected():
    """A sync adapter needs an ``httpx.Client``, the async one an ``httpx.AsyncClient``."""
    with httpx.Client() as client, pytest.raises(TypeError, match="AsyncClient"):
        AsyncMistralAdapter(api_key=KEY, client=client)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"httpx\.Client"):
        MistralAdapter(api_key=KEY, client=httpx.AsyncClient())  # type: ignore[arg-type]


# --- error translation ----------------------------------------------------------------------


def _leaves(cls: type) -> list[type]:
    subclasses = cls.__subclasses__()
    return [cls] if not subclasses else [leaf for sub in subclasses for leaf in _leaves(sub)]


HTTPX_ERRORS = sorted(
    {*_leaves(httpx.TransportError), httpx.DecodingError}, key=lambda cls: cls.__name__
)


@pytest.mark.parametrize("exc_type", [pytest.param(cls, id=cls.__name__) for cls in HTTPX_ERRORS])
def test_every_httpx_failure_is_translated(exc_type):
    """Every ``httpx`` transport failure maps to a typed error through the classifier table."""
    call = Settings(
        api_key=KEY, base_url="http://127.0.0.1", timeouts=None, headers=None, retry=None
    ).prepare(MODEL, CONTEXT, None)
    call.begin()
    error = call.translate(exc_type("boom"))
    expected = {
        "ConnectTimeout": ErrorCode.TIMEOUT,
        "ReadTimeout": ErrorCode.TIMEOUT,
        "WriteTimeout": ErrorCode.TIMEOUT,
        "PoolTimeout": ErrorCode.TIMEOUT,
        "LocalProtocolError": ErrorCode.INVALID_REQUEST,
        "UnsupportedProtocol": ErrorCode.INVALID_REQUEST,
        "DecodingError": ErrorCode.PROVIDER_ERROR,
    }.get(exc_type.__name__, ErrorCode.TRANSPORT)
    assert error.code is expected
    assert exc_type.__name__ in str(error)
    assert partial_of(error) is call.state.message
    assert isinstance(call, StreamCall)


def test_translated_errors_never_echo_the_key():
    """An httpx message that quotes the key (h11 quotes bad header values) is scrubbed."""
    call = Settings(
        api_key="plainkey42", base_url="http://127.0.0.1", timeouts=None, headers=None, retry=None
    ).prepare(MODEL, CONTEXT, None)
    call.begin()
    error = call.translate(httpx.LocalProtocolError("Illegal header value b'Bearer plainkey42'"))
    assert isinstance(error, InvalidRequestError)
    assert "plainkey42" not in str(error)
    assert "Illegal header value" in str(error)


def test_a_long_httpx_message_is_cut_short():
    """An ``httpx`` message longer than 200 characters is kept to its first 200, marked ``…``."""
    call = Settings(
        api_key=KEY, base_url="http://127.0.0.1", timeouts=None, headers=None, retry=None
    ).prepare(MODEL, CONTEXT, None)
    call.begin()
    detail = "peer closed the connection; " * 20
    error = call.translate(httpx.ReadError(detail))
    assert str(error) == f"Mistral request failed before a response: ReadError: {detail[:200]}…"


# --- reprs and leaks ----------------------------------------------------------------------


#: A key with no prefix ``redact`` knows, as a gateway may take it in its path.
PLAIN_KEY_IN_URL = "Zx81Lq0Tv5Ws3Nd7Rk2Bm9Yc4Hf6Jp1G"


def test_repr_never_shows_the_key():
    """The adapters' reprs name the URL, timeouts and policy, never the key."""
    for adapter in (
        MistralAdapter(api_key="sk-secret-value-123456", retry=RetryPolicy()),
        AsyncMistralAdapter(api_key="sk-secret-value-123456"),
    ):
        text = repr(adapter)
        assert "sk-secret" not in text
        assert "api_key=<redacted>" in text
        assert "https://api.mistral.ai" in text


@pytest.mark.parametrize(
    ("base_url", "shown"),
    [
        pytest.param(
            "https://gw.example/v1?key=GATEWAYSECRET&region=eu",
            "https://gw.example/v1?key=***&region=***",
            id="query",
        ),
        pytest.param("https://gw.example/v1?GATEWAYSECRET", "https://gw.example/v1?***", id="bare"),
        pytest.param(
            "https://user:GATEWAYSECRET@gw.example/v1", "https://***@gw.example/v1", id="userinfo"
        ),
        pytest.param(
            f"https://gw.example/{PLAIN_KEY_IN_URL}/v1",
            "https://gw.example/<redacted>/v1",
            id="path",
        ),
    ],
)
def test_repr_never_shows_a_key_placed_in_the_url(base_url, shown):
    """A key in the base URL (a query value, userinfo, the adapter's key in the path) is hidden."""
    for adapter in (
        MistralAdapter(api_key=PLAIN_KEY_IN_URL, base_url=base_url),
        AsyncMistralAdapter(api_key=PLAIN_KEY_IN_URL, base_url=base_url),
    ):
        text = repr(adapter)
        assert "GATEWAYSECRET" not in text
        assert PLAIN_KEY_IN_URL not in text
        assert f"base_url={shown!r}" in text


SENTINEL_KEY = "SENTINELKEY0mistral0c0ffee0123456789"
#: The other key shape: 32 alphanumerics, no prefix (``redact`` cannot tell it from a word).
PLAIN_KEY = "q7Ws2Lk9Xv4Tn8Bc1Rz6Hm3Jd5Pf0GaY"
KEYS = [pytest.param(SENTINEL_KEY, id="sentinel-key"), pytest.param(PLAIN_KEY, id="plain-key")]
SENTINEL_IMAGE = base64.b64encode(b"SENTINEL-IMAGE-BYTES" * 40).decode()
SENTINEL_MARKS = (SENTINEL_IMAGE[:20], SENTINEL_IMAGE[400:420], "SENTINELKEY")
#: The image as a server may echo it: wrapped at 76 columns (MIME), then JSON-escaped.
WRAPPED_IMAGE = "\n".join(SENTINEL_IMAGE[i : i + 76] for i in range(0, len(SENTINEL_IMAGE), 76))


def _escaped(key: str) -> str:
    r"""The key as a JSON encoder may spell it: every other character as ``\\uXXXX``."""
    return "".join(f"\\u{ord(c):04x}" if i % 2 else c for i, c in enumerate(key))


IMAGE_CONTEXT = Context(
    messages=[
        UserMessage(
            content=[
                TextContent(text="Describe this."),
                ImageContent(data=SENTINEL_IMAGE, mimeType="image/png"),
            ],
            timestamp=1,
        )
    ]
)
ECHO_422 = {
    "object": "error",
    "message": {
        "detail": [
            {
                "type": "extra_forbidden",
                "loc": ["body", "messages", 0, "content", 1, "image_url"],
                "msg": "Extra inputs are not permitted",
                "input": f"data:image/png;base64,{SENTINEL_IMAGE}",
            }
        ]
    },
    "type": "invalid_request_error",
    "param": None,
    "code": None,
}
LEAK_SCENARIOS: dict[str, Callable[[str], list[Any]]] = {
    "success": lambda _key: [text_reply("Fine.")],
    "400": lambda _key: [Reply(400, error_object("Invalid model: x", code="1500"))],
    "401-echoing-the-key": lambda key: [Reply(401, {"message": f"Invalid API key {key}"})],
    "429-correlation-id-is-the-key": lambda key: [
        Reply(429, error_object("slow down"), headers={"mistral-correlation-id": key})
    ],
    "500-text-with-the-escaped-key": lambda key: [
        Reply(500, f'upstream: {{"auth": "Bearer {_escaped(key)}"}}', content_type="text/plain")
    ],
    "400-text-with-the-wrapped-image": lambda _key: [
        Reply(400, f'{{"image_url": "{WRAPPED_IMAGE}"}}', content_type="text/plain")
    ],
    "422-echoing-the-input": lambda _key: [Reply(422, ECHO_422)],
    "422-as-text": lambda _key: [Reply(422, json.dumps(ECHO_422), content_type="text/plain")],
    "inband-error": lambda _key: [Stream([role_chunk(), ECHO_422])],
    "inband-error-echoing-the-key": lambda key: [
        Stream([role_chunk(), error_object(f"key {key} revoked")])
    ],
    "unknown-chunk-type-is-the-key": lambda key: [
        Stream([role_chunk(), content_chunk({"type": key})])
    ],
    "retried-then-dropped": lambda _key: [
        Reply(503, error_object("down")),
        CloseBeforeHeaders(),
        Stream([role_chunk(), text_chunk("Hi"), Drop(reset=True)]),
    ],
    "refused": lambda _key: [],
}


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in LEAK_SCENARIOS])
def test_no_leak_of_the_key_or_the_image(flavour, name, key, caplog):
    """The API key and the image data never appear in errors, reprs, notes or log records."""
    caplog.set_level(logging.DEBUG)
    for logger in ("httpx", "httpcore", "llm_retry", "adapter"):
        caplog.set_level(logging.DEBUG, logger=logger)  # restored after the test
    with FakeMistral(*LEAK_SCENARIOS[name](key), default=None) as fake:
        url = f"http://127.0.0.1:{_free_port()}" if name == "refused" else fake.url
        with instant_retries():
            outcome = run(
                flavour,
                url,
                model="mistral-large-latest",
                context=IMAGE_CONTEXT,
                api_key=key,
                retry=retry_policy(),
            )
        if name != "refused":
            assert SENTINEL_IMAGE.encode() in fake.requests[0].body  # it was really sent
    records = caplog.records
    if name == "429-correlation-id-is-the-key":  # httpcore logs the server's headers as sent:
        records = [r for r in records if "receive_response_headers" not in r.getMessage()]
    surfaces = [*(r.getMessage() for r in records), *(repr(r.args) for r in records)]
    surfaces += [repr(event) for event in outcome.events]
    surfaces.append(repr(outcome.message))
    surfaces.append(outcome.message.errorMessage or "")
    for adapter in (
        MistralAdapter(api_key=SENTINEL_KEY),
        AsyncMistralAdapter(api_key=SENTINEL_KEY),
    ):
        surfaces.append(repr(adapter))
    if outcome.error is not None:
        error = outcome.error
        surfaces += [
            str(error),
            repr(error),
            str(getattr(error, "body", "")),
            "".join(traceback.format_exception(error)),
            repr(vars(error)),
        ]
    else:
        assert name == "success"
    assert any("HTTP Request" in record.getMessage() for record in caplog.records) or (
        name == "refused"
    )
    marks = (*SENTINEL_MARKS, key, key[:16], _escaped(key)[:24])
    for surface in surfaces:
        for mark in marks:
            assert mark not in surface, f"{mark[:12]}… leaked"


def test_secret_does_not_show_in_the_settings():
    """The stored key's repr is a placeholder (debuggers, ``vars()``)."""
    settings = Settings(
        api_key=SENTINEL_KEY, base_url="https://x", timeouts=None, headers=None, retry=None
    )
    assert SENTINEL_KEY not in repr(settings.authorization)
    assert settings.describe(MistralAdapter).startswith("MistralAdapter(")


# --- many streams at once -----------------------------------------------------------------


def test_cancelling_half_of_many_streams_leaves_no_connection_open():
    """50 concurrent streams, 25 cancelled at random points: every connection is closed.

    Half of the cancellations land inside the adapter's read, half while the consumer
    awaits something else between two events. The client keeps no idle connections,
    so a finished stream closes its socket too: any connection still open after the
    tasks end is one that leaked.
    """
    rng = random.Random(11)  # fixed seed: the same random points on every run
    slow = Stream([role_chunk(), Repeat(text_chunk("tok "), 40), finish_chunk()], delay=0.01)
    cancelled = set(rng.sample(range(50), 25))
    points = {index: (rng.randint(0, 30), rng.random() < 0.5) for index in cancelled}
    last: dict[int, Any] = {}

    async def consume(adapter: AsyncMistralAdapter, index: int) -> Any:
        deltas = 0
        async for event in adapter.stream(MODEL, CONTEXT):
            last[index] = event
            deltas += event.type == "text_delta"
            if index in points and deltas >= points[index][0]:
                asyncio.current_task().cancel()  # type: ignore[union-attr]
                if points[index][1]:
                    await asyncio.sleep(1)  # cancelled here, between two events
        return event

    async def main(fake: FakeMistral) -> list[Any]:
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=0)
        async with httpx.AsyncClient(limits=limits) as client:
            adapter = AsyncMistralAdapter(api_key=KEY, base_url=fake.url, client=client)
            tasks = [asyncio.create_task(consume(adapter, index)) for index in range(50)]
            results = await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.to_thread(fake.wait_open_connections, 0, timeout=10)
            return results

    with FakeMistral(default=slow) as fake:
        results = asyncio.run(main(fake))
        assert fake.accepted_connections == 50
    for index, result in enumerate(results):
        if index in cancelled:
            assert isinstance(result, asyncio.CancelledError)
            # The cancellation takes effect at the stream's next pause: on a busy machine
            # the rest of the body may be read by then and handed over at once, to done.
            final = last[index]
            assert final.type == "done" or final.partial.stopReason == "aborted"
        else:
            assert result.type == "done"
    assert sum(last[index].type != "done" for index in cancelled) > 0


def test_a_cancellation_pending_when_the_body_ends_does_not_leave_the_connection_open():
    """The caller cancels on ``done`` and pulls once more: the socket still closes.

    The whole body is buffered by then, so the read after ``[DONE]`` finds the end of
    the chunked framing without waiting and httpcore starts closing the response; the
    cancellation, pending since ``done``, is delivered at that close's first pause.
    httpcore marks a response closed before its close has finished, so an interrupted
    close leaves the connection open for good (encode/httpcore#1115); the adapter reads
    the body so that no close of httpcore's own runs there, and closes the response in
    a task the caller's cancellation does not reach.
    """

    async def consume(adapter: AsyncMistralAdapter) -> None:
        async for event in adapter.stream(MODEL, CONTEXT):
            if event.type == "start":
                await asyncio.sleep(0.3)  # the rest of the body arrives meanwhile
            if event.type == "done":
                asyncio.current_task().cancel()  # type: ignore[union-attr]

    async def main(fake: FakeMistral) -> None:
        limits = httpx.Limits(max_keepalive_connections=0)
        async with httpx.AsyncClient(limits=limits) as client:
            adapter = AsyncMistralAdapter(api_key=KEY, base_url=fake.url, client=client)
            with pytest.raises(asyncio.CancelledError):
                await consume(adapter)
            await asyncio.to_thread(fake.wait_open_connections, 0, timeout=5)

    with FakeMistral(text_reply("Paris.")) as fake:
        asyncio.run(main(fake))


def test_the_old_blocking_name_still_works_with_a_deprecation_warning():
    import adapter

    with pytest.warns(DeprecationWarning, match=r"MistralAdapterSync is deprecated since 0\.3\.0"):
        old = adapter.MistralAdapterSync
    assert old is MistralAdapter


def test_the_blocking_adapter_refuses_async_use_naming_the_asyncio_one():
    async def main() -> None:
        async with MistralAdapter(api_key=KEY):
            pass

    with pytest.raises(TypeError, match=r"use adapter\.AsyncMistralAdapter"):
        asyncio.run(main())
    with pytest.raises(TypeError, match=r"httpx.AsyncClient goes with adapter.AsyncMistralAdapter"):
        MistralAdapter(api_key=KEY, client=httpx.AsyncClient())
    with pytest.raises(TypeError, match=r"httpx.Client goes with adapter.MistralAdapter"):
        AsyncMistralAdapter(api_key=KEY, client=httpx.Client())


def test_a_cancellation_while_closing_after_an_error_leaves_the_message_on_the_stream():
    """Cancelled in the response hook: it lands in the error path's close, or sooner.

    Either way the stream's message has ended (``error`` or ``aborted``): never a
    message still marked as streaming.
    """

    async def cancel(response: httpx.Response) -> None:
        asyncio.current_task().cancel()  # type: ignore[union-attr]

    async def main(fake: FakeMistral) -> Any:
        limits = httpx.Limits(max_keepalive_connections=0)  # a closed response hangs up
        hooks = {"response": [cancel]}
        async with httpx.AsyncClient(limits=limits, event_hooks=hooks) as client:
            adapter = AsyncMistralAdapter(api_key=KEY, base_url=fake.url, client=client)
            stream = adapter.stream(MODEL, CONTEXT)
            with pytest.raises(asyncio.CancelledError):
                async for _ in stream:
                    pass
            await asyncio.to_thread(fake.wait_open_connections, 0)
            return stream.message

    for _ in range(10):  # where it lands varies; each landing must leave the message
        with FakeMistral(Reply(500, error_object("Internal server error"))) as fake:
            partial = asyncio.run(main(fake))
        assert partial is not None
        assert partial.stopReason in {"error", "aborted"}


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_stream_object_holds_the_message_the_events_build(flavour):
    """``stream.message``: ``None`` before the request, the live message after."""
    with FakeMistral(text_reply("Hel", "lo")) as fake:
        if flavour == "sync":
            with MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
                stream = adapter.stream(MODEL, CONTEXT)
                assert stream.message is None
                events = list(stream)
        else:

            async def main() -> tuple[Any, list[Any]]:
                async with AsyncMistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
                    stream = adapter.stream(MODEL, CONTEXT)
                    assert stream.message is None
                    return stream, [event async for event in stream]

            stream, events = asyncio.run(main())
    assert stream.message is events[-1].message
    assert stream.message.content == [TextContent(text="Hello")]


def test_an_interrupt_thrown_into_the_stream_aborts_its_message_only():
    """``KeyboardInterrupt`` propagates as it is; the message, aborted, is the stream's."""
    stalled = Stream([role_chunk(), text_chunk("Hi"), Pause(10), finish_chunk()])
    with FakeMistral(stalled) as fake, MistralAdapter(api_key=KEY, base_url=fake.url) as adapter:
        stream = adapter.stream(MODEL, CONTEXT)
        assert [next(stream).type, next(stream).type, next(stream).type] == [
            "start",
            "text_start",
            "text_delta",
        ]
        interrupt = KeyboardInterrupt()
        with pytest.raises(KeyboardInterrupt) as info:
            stream.throw(interrupt)
        assert info.value is interrupt
        assert vars(interrupt) == {}
        assert stream.message.stopReason == "aborted"
        assert stream.message.content == [TextContent(text="Hi")]
