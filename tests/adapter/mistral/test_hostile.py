"""Hostile servers over real sockets: every failure typed, bounded in memory, with a partial.

Each test points both clients at ``FakeMistral`` serving what a broken or malicious
server sends (lines without end, events without end, gzip bombs, JSON nested tens of
thousands deep, absurd SSE fields) and checks the caller gets an ``LlmError`` naming
what was wrong, with the partial message, and with ``never_raise`` a final ``error``
event, never a raw ``RecursionError``/``ValueError`` or an unbounded buffer.
"""

import asyncio
import contextlib
import gzip
import socket
import threading
import time
import tracemalloc
import zlib
from typing import Any

import pytest

from adapter import Context, StreamOptions
from adapter._mistral.async_client import AsyncMistralAdapter
from adapter._mistral.client import Limits, Settings, Timeouts
from adapter._mistral.errors import partial_of
from adapter._mistral.sync_client import MistralAdapter
from adapter.pi import TextContent, UserMessage
from adapter.testing import (
    FakeMistral,
    Pause,
    Reply,
    Stream,
    finish_chunk,
    role_chunk,
    text_chunk,
    tool_call,
    tool_call_chunk,
)
from llm_errors import ErrorCode, LlmError, LlmTimeoutError, ProviderError, ServerError
from llm_retry import RetryPolicy, instant_retries

pytestmark = pytest.mark.integration

KEY = "test-key-for-the-fake"
MODEL = "mistral-small-latest"
CONTEXT = Context(messages=[UserMessage(content="Hi", timestamp=1)])
FLAVOURS = [pytest.param("sync", id="sync"), pytest.param("async", id="async")]
NEVER_RAISE = [pytest.param(False, id="raises"), pytest.param(True, id="never-raise")]
MiB = 1024 * 1024


def run(flavour: str, url: str, *, never_raise: bool = False, **settings: Any) -> Any:
    """Stream once; return ``(events, error)``."""
    options = StreamOptions(never_raise=never_raise)
    settings.setdefault("api_key", KEY)
    if flavour == "sync":
        events: list[Any] = []
        with MistralAdapter(base_url=url, **settings) as adapter:
            try:
                for event in adapter.stream(MODEL, CONTEXT, options):
                    events.append(event)  # noqa: PERF402 - keeps what came before an error
            except LlmError as exc:
                return events, exc
        return events, None

    async def main() -> Any:
        events: list[Any] = []
        async with AsyncMistralAdapter(base_url=url, **settings) as adapter:
            try:
                async for event in adapter.stream(MODEL, CONTEXT, options):
                    events.append(event)  # noqa: PERF401 - keeps what came before an error
            except LlmError as exc:
                return events, exc
        return events, None

    return asyncio.run(main())


def failure(flavour: str, scenario: Any, never_raise: bool, **settings: Any) -> Any:
    """The error of one call, from the raised error or (``never_raise``) the error event."""
    with FakeMistral(scenario, default=None) as fake:
        events, error = run(flavour, fake.url, never_raise=never_raise, **settings)
        fake.wait_open_connections(0)
    if never_raise:
        assert error is None
        assert events[-1].type == "error"
        return events[-1].error  # the message: errorMessage says what was wrong
    assert isinstance(error, LlmError)
    assert partial_of(error) is not None
    return error


def text_of(outcome: Any) -> str:
    """The error's text, from an error or from the error event's message."""
    return outcome.errorMessage if hasattr(outcome, "errorMessage") else str(outcome)


# --- unbounded buffers --------------------------------------------------------------------

ENDLESS_LINE = Stream([role_chunk(), b"data: " + b"x" * 5000], done=False)
ENDLESS_EVENT = Stream([role_chunk(), *[b"data: aaaaaaaa" + b"\n"] * 2000], done=False)


@pytest.mark.parametrize("never_raise", NEVER_RAISE)
@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    ("scenario", "limits", "named"),
    [
        pytest.param(ENDLESS_LINE, Limits(max_line=1024), "Limits.max_line=1,024", id="line"),
        pytest.param(ENDLESS_EVENT, Limits(max_event=4096), "Limits.max_event=4,096", id="event"),
    ],
)
def test_a_line_or_event_over_its_limit_is_a_provider_error(
    flavour, never_raise, scenario, limits, named
):
    """A line without a newline, an event without a blank line: PROVIDER_ERROR naming the limit."""
    outcome = failure(flavour, scenario, never_raise, limits=limits)
    assert named in text_of(outcome)
    if not never_raise:
        assert isinstance(outcome, ProviderError)
        assert outcome.rule.startswith("adapter.limit.")


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_default_line_limit_holds(flavour):
    """With the defaults, a 6 MiB line fails at 4 MiB (the default ``max_line``)."""
    scenario = Stream([role_chunk(), b"data: " + b"y" * (6 * MiB)], done=False)
    error = failure(flavour, scenario, never_raise=False)
    assert "Limits.max_line=4,194,304" in str(error)


def _gzip_stream(payload: bytes) -> Stream:
    return Stream([gzip.compress(payload, 9)], done=False, headers={"Content-Encoding": "gzip"})


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_gzip_bomb_is_inflated_in_bounded_pieces(flavour):
    """64 MiB of zeros in 64 KiB of gzip: it fails at the line limit, without inflating it all."""
    bomb = _gzip_stream(b"data: " + bytes(64 * MiB))
    tracemalloc.start()
    try:
        error = failure(flavour, bomb, never_raise=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "Limits.max_line" in str(error)
    assert peak < 24 * MiB  # pieces of 1 MiB and a 4 MiB line, not 64 MiB at once


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_gzip_error_body_is_read_in_bounded_pieces(flavour):
    """A 503 whose gzip body inflates to 64 MiB: 64 KiB of it is decoded, then reading stops."""
    body = gzip.compress(b'{"message": "overloaded' + b" " * (64 * MiB) + b'"}', 9)
    reply = Reply(503, body, headers={"Content-Encoding": "gzip"}, content_type="application/json")
    tracemalloc.start()
    try:
        error = failure(flavour, reply, never_raise=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(error, ServerError)
    assert peak < 16 * MiB


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_gzip_stream_that_is_valid_streams(flavour):
    """A gzip-encoded event stream (which the adapter asks for) decodes and maps as usual."""
    frames = b"".join(
        b"data: " + chunk + b"\n\n"
        for chunk in (
            b'{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}',
            (
                b'{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"lo"},'
                b'"finish_reason":"stop"}]}'
            ),
            b"[DONE]",
        )
    )
    with FakeMistral(_gzip_stream(frames), default=None) as fake:
        events, error = run(flavour, fake.url)
        assert fake.requests[0].headers["accept-encoding"] == "gzip, deflate"
    assert error is None
    assert events[-1].message.content == [TextContent(text="Hello")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_an_encoding_not_asked_for_is_a_provider_error(flavour):
    """A body in an encoding the adapter did not advertise fails, naming the encoding."""
    scenario = Stream([role_chunk(), finish_chunk()], headers={"Content-Encoding": "br"})
    error = failure(flavour, scenario, never_raise=False)
    assert isinstance(error, ProviderError)
    assert "Content-Encoding 'br'" in str(error)


# --- every parse failure typed ------------------------------------------------------------

DEEP = 30_000


@pytest.mark.parametrize("never_raise", NEVER_RAISE)
@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize(
    ("scenario", "code"),
    [
        pytest.param(
            Stream([role_chunk(), text_chunk("a"), b"data: " + b"[" * DEEP + b"\n\n"]),
            ErrorCode.PROVIDER_ERROR,
            id="deep-chunk",
        ),
        pytest.param(
            Stream([role_chunk(), b'data: {"error": ' + b"[" * DEEP + b"}\n\n"]),
            ErrorCode.PROVIDER_ERROR,
            id="deep-error-object",
        ),
        pytest.param(
            Stream([role_chunk(), tool_call_chunk(tool_call("f", "[" * DEEP))]),
            ErrorCode.PROVIDER_ERROR,
            id="deep-tool-arguments",
        ),
        pytest.param(
            Reply(500, "[" * 60_000, content_type="application/json"),
            ErrorCode.SERVER,
            id="500-deep-json",
        ),
        pytest.param(
            Reply(200, '{"error": ' + "[" * 60_000, content_type="application/json"),
            ErrorCode.PROVIDER_ERROR,
            id="200-deep-json",
        ),
    ],
)
def test_deeply_nested_json_is_a_typed_error(flavour, never_raise, scenario, code):
    """JSON nested tens of thousands deep: a typed error with the partial, never RecursionError."""
    outcome = failure(flavour, scenario, never_raise)
    if not never_raise:
        assert outcome.code is code


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_deep_json_is_not_retried_as_a_crash(flavour):
    """With a retry policy a deep-JSON stream ends in one typed PROVIDER_ERROR (not retried)."""
    scenario = Stream([role_chunk(), b"data: " + b"[" * DEEP + b"\n\n"])
    with FakeMistral(scenario, default=None) as fake, instant_retries():
        _, error = run(flavour, fake.url, retry=RetryPolicy(max_attempts=3))
        assert len(fake.requests) == 1
    assert isinstance(error, ProviderError)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_huge_retry_field_is_ignored(flavour):
    """An SSE ``retry:`` of 5,000 digits is ignored (it is no real delay), not a ValueError."""
    scenario = Stream(
        [role_chunk(), b"retry: " + b"7" * 5000 + b"\n", text_chunk("ok"), finish_chunk()]
    )
    with FakeMistral(scenario, default=None) as fake:
        events, error = run(flavour, fake.url)
    assert error is None
    assert events[-1].message.content == [TextContent(text="ok")]


# --- time ---------------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_done_ends_the_call_when_the_server_neither_closes_nor_finishes(flavour):
    """After ``[DONE]`` the call returns at once, not after a read timeout of silence."""
    stalls = Stream(
        [role_chunk(), text_chunk("ok"), finish_chunk(), b"data: [DONE]\n\n", Pause(60)],
        done=False,
    )
    read = 30.0
    with FakeMistral(stalls, default=None) as fake:
        began = time.monotonic()
        events, error = run(flavour, fake.url, timeouts=Timeouts(read=read))
        elapsed = time.monotonic() - began
        fake.wait_open_connections(0)  # the stalled connection was given up, not kept
    assert error is None
    assert events[-1].type == "done"
    assert elapsed < read / 6


class TrickleServer:
    """A hostile server of the test's own: it sends its response headers 1 byte at a time.

    Each byte comes ``pause`` seconds after the last, so a read timeout longer than
    ``pause`` never fires; it stops after ``limit`` bytes or when the client hangs up.
    """

    def __init__(self, pause: float = 0.2, limit: int = 150) -> None:
        self.pause = pause
        self.limit = limit
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(10)
        with contextlib.suppress(OSError), self.listener.accept()[0] as conn:
            conn.recv(65536)  # the request (small enough for one read)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" + b"X-Pad: " * 30
            for byte in head[: self.limit]:
                conn.sendall(bytes([byte]))
                time.sleep(self.pause)

    def close(self) -> None:
        """Stop listening and wait for the serving thread (bounded by ``limit`` bytes)."""
        self.listener.close()
        self.thread.join(self.pause * self.limit + 5)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_total_timeout_holds_while_headers_trickle_in(flavour):
    """Headers at 5 bytes/s with ``read=3, total=1``: TIMEOUT at the total, not after 30 s."""
    server = TrickleServer()
    try:
        began = time.monotonic()
        events, error = run(flavour, server.url, timeouts=Timeouts(read=3, total=1))
        elapsed = time.monotonic() - began
    finally:
        server.close()
    assert isinstance(error, LlmTimeoutError)
    assert "total timeout of 1 s" in str(error)
    assert events == []
    assert elapsed < server.pause * server.limit / 4  # the server would go on for 30 s


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_raw_deflate_stream_decodes(flavour):
    """``deflate`` without its zlib wrapper (some servers send it raw) decodes too."""
    frames = (
        b'data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"ok"},'
        b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = packer.compress(frames) + packer.flush()
    scenario = Stream([body], done=False, headers={"Content-Encoding": "deflate"})
    with FakeMistral(scenario, default=None) as fake:
        events, error = run(flavour, fake.url)
    assert error is None
    assert events[-1].message.content == [TextContent(text="ok")]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_corrupt_gzip_stream_is_a_provider_error(flavour):
    """A body that claims gzip but is not: PROVIDER_ERROR, with the partial message."""
    scenario = Stream([b"this is not gzip data at all"], headers={"Content-Encoding": "gzip"})
    error = failure(flavour, scenario, never_raise=False)
    assert isinstance(error, ProviderError)
    assert "not valid gzip or deflate data" in str(error)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_an_error_body_in_an_encoding_not_asked_for_is_left_out(flavour):
    """A 503 whose body is in an unrequested encoding: the status still classifies it."""
    reply = Reply(503, b"\x0b\x02\x80garbage", headers={"Content-Encoding": "br"})
    error = failure(flavour, reply, never_raise=False)
    assert isinstance(error, ServerError)
    assert error.status == 503


def test_what_slips_past_the_parsers_becomes_a_typed_error():
    """The shells' safety net: a RecursionError or ValueError becomes a scrubbed PROVIDER_ERROR."""
    settings = Settings(
        api_key=KEY, base_url="http://127.0.0.1", timeouts=None, headers=None, retry=None
    )
    call = settings.prepare(MODEL, CONTEXT, None)
    call.begin()
    error = call.unexpected(ValueError(f"deep inside, with {KEY}"))
    assert isinstance(error, ProviderError)
    assert "could not process (ValueError)" in str(error)
    assert partial_of(error).stopReason == "error"
