"""The public fake Mistral server, exercised with plain httpx over real sockets."""

import asyncio
import doctest
import importlib
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

import adapter.testing
from adapter._mistral.wire import parse_completion_chunk
from adapter._sse import ServerSentEvent, SSEDecoder, iter_events
from adapter.testing import (
    DEFAULT_SCENARIO,
    CloseBeforeHeaders,
    Drop,
    FakeMistral,
    FakeMistralProcess,
    Pause,
    RecordedRequest,
    Repeat,
    Reply,
    Stream,
    big_stream,
    completion_chunk,
    content_chunk,
    error_object,
    example_error_body,
    finish_chunk,
    gateway_html,
    rate_limit_headers,
    reference_chunk,
    reference_part,
    role_chunk,
    sse_comment,
    sse_event,
    text_chunk,
    text_part,
    text_reply,
    thinking_chunk,
    thinking_part,
    tool_call,
    tool_call_chunk,
    usage_info,
    usage_only_chunk,
)
from adapter.testing import _process as _fake_process
from adapter.testing import _server as _fake_server

pytestmark = pytest.mark.integration

BODY = {"model": "mistral-small-latest", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture(autouse=True)
def no_leaked_threads():
    """Every test ends with the threads it started gone (the server joins its own)."""
    before = set(threading.enumerate())
    yield
    assert [thread.name for thread in threading.enumerate() if thread not in before] == []


@pytest.fixture
def fake():
    with FakeMistral() as server:
        yield server


def stream_events(client: httpx.Client, url: str) -> list[ServerSentEvent]:
    with client.stream("POST", url, json=BODY) as response:
        assert response.status_code == 200
        return list(iter_events(response.iter_bytes()))


def chunks_of(events: list[ServerSentEvent]) -> list[object]:
    return [json.loads(event.data_bytes) for event in events if not event.is_done]


# --- chunk builders -------------------------------------------------------------------


def test_builders_produce_the_documented_wire_shapes():
    """The builders produce WIRE.md §5 verbatim: the first, text, tool call and last chunks."""
    meta = {"id": "c1", "object": "chat.completion.chunk", "created": 7, "model": "m"}
    kw = {"chunk_id": "c1", "created": 7, "model": "m"}
    assert role_chunk(**kw) == {
        **meta,
        "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
        ],
    }
    assert text_chunk("3", **kw)["choices"] == [
        {"index": 0, "delta": {"content": "3"}, "finish_reason": None}
    ]
    assert finish_chunk("stop", usage=usage_info(19, 7), content="00", **kw) == {
        **meta,
        "choices": [{"index": 0, "delta": {"content": "00"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 19, "completion_tokens": 7, "total_tokens": 26},
    }
    assert tool_call_chunk(tool_call("get_weather", {"city": "Paris"}, call_id="D681PevKs"))[
        "choices"
    ] == [
        {
            "index": 0,
            "delta": {
                "content": "",
                "tool_calls": [
                    {
                        "id": "D681PevKs",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        "index": 0,
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ]
    assert usage_only_chunk(usage_info(1, 2, cached_tokens=1), **kw) == {
        **meta,
        "choices": [],
        "usage": {
            "prompt_tokens": 1,
            "completion_tokens": 2,
            "total_tokens": 3,
            "prompt_tokens_details": {"cached_tokens": 1},
        },
    }


def test_content_builders():
    """Thinking, typed text, references and raw parts nest as the reasoning models send them."""
    assert thinking_chunk("a", reference_part(1), signature="s", closed=True)["choices"][0][
        "delta"
    ] == {
        "content": [
            {
                "type": "thinking",
                "thinking": [
                    {"type": "text", "text": "a"},
                    {"type": "reference", "reference_ids": [1]},
                ],
                "signature": "s",
                "closed": True,
            }
        ]
    }
    assert thinking_part("x") == {"type": "thinking", "thinking": [{"type": "text", "text": "x"}]}
    assert text_chunk("t", typed=True)["choices"][0]["delta"] == {
        "content": [{"type": "text", "text": "t"}]
    }
    assert reference_chunk(0, "doc")["choices"][0]["delta"] == {
        "content": [{"type": "reference", "reference_ids": [0, "doc"]}]
    }
    image = {"type": "image_url", "image_url": "https://example.com/a.png"}
    assert content_chunk(thinking_part("hm"), text_part("Hi"), image)["choices"][0]["delta"] == {
        "content": [thinking_part("hm"), text_part("Hi"), image]
    }


def test_tool_call_defaults():
    """A default call id is nine alphanumerics derived from the index; strings pass as is."""
    call = tool_call("f", '{"a"', index=3)
    assert call["id"] == "call00003"
    assert call["id"].isalnum()
    assert len(call["id"]) == 9
    assert call["function"]["arguments"] == '{"a"'
    assert tool_call("f")["function"]["arguments"] == "{}"


@pytest.mark.parametrize(
    "chunk",
    [
        pytest.param(role_chunk(), id="role"),
        pytest.param(text_chunk("hi"), id="text"),
        pytest.param(text_chunk("hi", typed=True), id="typed-text"),
        pytest.param(thinking_chunk("hmm", signature="sig"), id="thinking"),
        pytest.param(reference_chunk(1, "a"), id="reference"),
        pytest.param(content_chunk(thinking_part("a"), text_part("b")), id="thinking-and-text"),
        pytest.param(
            tool_call_chunk(tool_call("f", {"x": 1}), tool_call("g", index=1)), id="tool-calls"
        ),
        pytest.param(finish_chunk("length", usage=usage_info(3, 4)), id="finish"),
        pytest.param(usage_only_chunk(usage_info(3, 4, cached_tokens=2)), id="usage-only"),
        pytest.param(completion_chunk(choices=[]), id="empty-choices"),
    ],
)
def test_builders_parse_as_wire_chunks(chunk):
    """Every builder's output is a valid ``CompletionChunk`` for the adapter's wire models."""
    parsed = parse_completion_chunk(json.dumps(chunk).encode())
    assert parsed.id == chunk["id"]
    assert len(parsed.choices) == len(chunk["choices"])


def test_completion_chunk_rejects_choices_with_a_delta():
    """``choices`` replaces the built choice, so passing both is a mistake."""
    with pytest.raises(ValueError, match="either choices or delta"):
        completion_chunk({"content": "x"}, choices=[])


def test_error_bodies_all_shapes():
    """Every WIRE.md §7.2 shape is available, as a fresh copy each time."""
    bodies = {shape: example_error_body(shape) for shape in "ABCDEFGHI"}
    assert bodies["A"]["type"] == "rate_limited"
    assert bodies["A"]["raw_status_code"] == 429
    assert isinstance(bodies["B"]["message"], dict)
    assert json.loads(bodies["C"]["message"])["detail"][0]["loc"] == ["body", "frequency_penalty"]
    assert bodies["D"]["object"] == "Error"
    assert bodies["D"]["code"] == 3001
    assert bodies["E"] == {"message": "Requests rate limit exceeded"}
    assert bodies["F"]["message"] == "Unauthorized"
    assert bodies["G"] == {"detail": "Not Found"}
    assert isinstance(bodies["H"]["detail"], list)
    assert bodies["I"] is None
    bodies["A"]["message"] = "changed"
    assert example_error_body("A")["message"] == "Rate limit exceeded"
    with pytest.raises(ValueError, match="unknown error body shape 'Z'"):
        example_error_body("Z")


def test_error_object():
    """``error_object`` is shape A, with ``raw_status_code`` only when given."""
    assert error_object("m", error_type="t", code="1", param="p") == {
        "object": "error",
        "message": "m",
        "type": "t",
        "param": "p",
        "code": "1",
    }
    assert error_object({"detail": []}, raw_status_code=422)["raw_status_code"] == 422


def test_gateway_html_and_rate_limit_headers():
    """Gateway pages name the status; rate-limit headers use Mistral's current names."""
    assert "<title>502 Bad Gateway</title>" in gateway_html(502)
    assert "<title>599</title>" in gateway_html(599)
    assert rate_limit_headers(remaining_requests=3)["x-ratelimit-remaining-req-minute"] == "3"


def test_sse_event_and_comment_round_trip():
    """Raw SSE helpers produce what the decoder reads back."""
    decoder = SSEDecoder()
    raw = sse_comment() + sse_event("a\nb", event="e", event_id="1", retry=5)
    assert decoder.feed(raw) == [ServerSentEvent(b"a\nb", "e", "1", 5)]


# --- scenario validation --------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        pytest.param(lambda: Stream(["x"]), TypeError, "Stream item 0 is a str", id="str-item"),
        pytest.param(
            lambda: Stream([{"a": 1}, {"b": object()}]),
            TypeError,
            "Stream item 1: the chunk is not JSON",
            id="not-json",
        ),
        pytest.param(lambda: Stream([{"a": float("nan")}]), TypeError, "not JSON", id="nan"),
        pytest.param(
            lambda: Stream([Drop(), b"x"]), ValueError, "nothing can follow Drop", id="after-drop"
        ),
        pytest.param(lambda: Stream(b"data: x\n\n"), TypeError, "a sequence", id="bytes-items"),
        pytest.param(lambda: Stream(batch=0), ValueError, "batch must be an int >= 1", id="batch"),
        pytest.param(lambda: Stream(delay=-1), ValueError, "delay must be", id="delay"),
        pytest.param(lambda: Stream(status=42), ValueError, "three-digit", id="status"),
        pytest.param(lambda: Stream(status=True), TypeError, "three-digit", id="bool-status"),
        pytest.param(
            lambda: Stream(headers={"x": "a\r\nb"}), ValueError, "malformed", id="header-crlf"
        ),
        pytest.param(lambda: Stream(headers={"x": 1}), TypeError, "must be str", id="header-int"),
        pytest.param(lambda: Stream(newline=b"\n\n"), ValueError, "newline", id="newline"),
        pytest.param(lambda: Pause(float("inf")), ValueError, "finite", id="pause-inf"),
        pytest.param(lambda: Repeat({"a": 1}, -1), ValueError, "count must be", id="repeat-count"),
        pytest.param(lambda: Repeat("x", 1), TypeError, "not str", id="repeat-item"),
        pytest.param(lambda: Reply(200, {1j}), TypeError, "Reply: the body", id="reply-body"),
        pytest.param(lambda: Reply(1000), ValueError, "three-digit", id="reply-status"),
        pytest.param(lambda: FakeMistral(429), TypeError, "not int", id="not-a-scenario"),
    ],
)
def test_bad_scenarios_fail_when_built(build, error, match):
    """A malformed scenario fails in the test that wrote it, with a message naming why."""
    with pytest.raises(error, match=match):
        build()


def test_enqueue_rejects_non_scenarios(fake):
    """``enqueue`` checks its arguments like the constructor."""
    with pytest.raises(TypeError, match="not dict"):
        fake.enqueue({"status": 429})


def test_writes_group_events_into_batches():
    """Events are written ``batch`` at a time; markers flush; a repeated batch is one object."""
    one = b"data: 1\n\n"
    stream = Stream(
        [b"a", Repeat(one, 7), Pause(0), b"b", Drop()],
        batch=3,
    )
    writes = list(stream.writes())
    assert writes == [b"a" + one * 2, one * 3, one * 2, Pause(0), b"b", Drop()]
    repeated = list(Stream([Repeat(one, 6)], batch=3, done=False).writes())
    assert repeated[0] is repeated[1]
    assert list(Stream([], done=True).writes()) == [b"data: [DONE]\n\n"]
    assert list(Stream([Drop()], done=True).writes()) == [Drop()]


# --- serving ---------------------------------------------------------------------------


def test_default_scenario_is_a_short_text_reply(fake):
    """With nothing queued the server streams a complete, valid text answer."""
    with httpx.Client() as client:
        events = stream_events(client, fake.chat_url)
    assert events[-1].is_done
    chunks = chunks_of(events)
    text = "".join(chunk["choices"][0]["delta"]["content"] for chunk in chunks if chunk["choices"])
    assert text == "Hello from the fake Mistral server."
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert text_reply("Hello", " from the fake", " Mistral server.") == DEFAULT_SCENARIO


def test_requests_are_recorded(fake):
    """Method, path, query, headers (lower-cased) and body are recorded; repr hides secrets."""
    with httpx.Client(headers={"Authorization": "Bearer sk-secret"}) as client:
        response = client.post(fake.chat_url + "?x=1", json=BODY)
        client.post(f"{fake.url}/chat/completions", json=BODY)
        client.post(f"{fake.url}/v1/v1/chat/completions", content=b"not json")
    first, second, third = fake.requests
    assert (first.method, first.path, first.query) == ("POST", "/v1/chat/completions", "x=1")
    assert first.headers["authorization"] == "Bearer sk-secret"
    assert first.headers["content-type"] == "application/json"
    assert first.json() == BODY
    assert first.correlation_id == response.headers["mistral-correlation-id"]
    assert second.path == "/chat/completions"
    assert third.path == "/v1/v1/chat/completions"
    assert third.body == b"not json"
    with pytest.raises(json.JSONDecodeError):
        third.json()
    assert "sk-secret" not in repr(first)
    assert "mistral-small-latest" not in repr(first)
    assert len({request.correlation_id for request in fake.requests}) == 3


def test_repeated_headers_are_joined(fake):
    """A header sent twice is recorded once, values joined with a comma."""
    with httpx.Client() as client:
        client.post(fake.chat_url, json=BODY, headers=[("x-a", "1"), ("x-a", "2")])
    assert fake.requests[0].headers["x-a"] == "1, 2"


def test_chunked_request_body_is_read(fake):
    """A request body sent with chunked transfer encoding is recorded whole."""
    with httpx.Client() as client:
        client.post(fake.chat_url, content=iter([b'{"a":', b" 1}"]))
    assert fake.requests[0].headers["transfer-encoding"] == "chunked"
    assert fake.requests[0].json() == {"a": 1}


def test_chunked_request_body_with_trailers(fake):
    """Chunk extensions and trailers in a chunked request body are skipped over."""
    with socket.create_connection(("127.0.0.1", fake.port)) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n2;ext=1\r\n{}\r\n0\r\nx-trailer: 1\r\n\r\n"
        )
        assert sock.recv(1024).startswith(b"HTTP/1.1 200 ")
    assert fake.requests[0].json() == {}


@pytest.mark.parametrize(
    ("method", "path", "status", "body"),
    [
        pytest.param("POST", "/v1/models", 404, {"detail": "Not Found"}, id="other-path"),
        pytest.param(
            "GET", "/v1/chat/completions", 405, {"detail": "Method Not Allowed"}, id="get"
        ),
    ],
)
def test_other_routes_answer_like_the_api(fake, method, path, status, body):
    """Unknown paths and methods get the API's answers and take nothing from the queue."""
    fake.enqueue(Reply(201))
    with httpx.Client() as client:
        response = client.request(method, fake.url + path)
    assert (response.status_code, response.json()) == (status, body)
    assert fake.pending == 1
    assert fake.requests[0].path == path


def test_scenarios_are_served_first_in_first_out():
    """Queued scenarios answer requests in order, then the default takes over."""
    with FakeMistral(Reply(429), Reply(503)) as server:
        server.enqueue(Reply(500), Reply(201))
        assert server.pending == 4
        with httpx.Client() as client:
            statuses = [client.post(server.chat_url, json=BODY).status_code for _ in range(5)]
        assert statuses == [429, 503, 500, 201, 200]
        assert server.pending == 0


def test_rate_limit_then_success():
    """The classic script: a 429 with Retry-After, then a streamed answer."""
    with FakeMistral(
        Reply(429, example_error_body("A"), headers={"Retry-After": "1"}),
        text_reply("ok"),
        default=None,
    ) as server:
        with httpx.Client() as client:
            first = client.post(server.chat_url, json=BODY)
            events = stream_events(client, server.chat_url)
        assert first.status_code == 429
        assert first.headers["retry-after"] == "1"
        assert first.json()["type"] == "rate_limited"
        assert chunks_of(events)[1]["choices"][0]["delta"]["content"] == "ok"


def test_unscripted_request_without_default_is_a_clear_500():
    """With ``default=None`` an unexpected request gets a 500 that says what happened."""
    with FakeMistral(default=None) as server, httpx.Client() as client:
        response = client.post(server.chat_url, json=BODY)
    assert response.status_code == 500
    assert response.json()["type"] == "fake_server_unscripted"
    assert "no scenario queued for request #1" in response.json()["message"]


@pytest.mark.parametrize(
    ("reply", "content_type", "content"),
    [
        pytest.param(Reply(400, {"detail": "x"}), "application/json", b'{"detail":"x"}', id="json"),
        pytest.param(
            Reply(503, "upstream connect error"),
            "text/plain; charset=utf-8",
            b"upstream connect error",
            id="text",
        ),
        pytest.param(
            Reply(502, gateway_html(502), content_type="text/html"),
            "text/html",
            gateway_html(502).encode(),
            id="html",
        ),
        pytest.param(Reply(500, b"\x00\xff"), None, b"\x00\xff", id="bytes"),
        pytest.param(Reply(403), None, b"", id="empty"),
        pytest.param(
            Reply(200, {"id": "x", "choices": []}),
            "application/json",
            b'{"id":"x","choices":[]}',
            id="json-200-to-a-stream-request",
        ),
    ],
)
def test_reply_bodies(fake, reply, content_type, content):
    """Any body shape is sent as given, with a matching Content-Type and Content-Length."""
    fake.enqueue(reply)
    with httpx.Client() as client, client.stream("POST", fake.chat_url, json=BODY) as response:
        body = response.read()
    assert response.status_code == reply.status
    assert response.headers.get("content-type") == content_type
    assert response.headers["content-length"] == str(len(content))
    assert body == content


@pytest.mark.parametrize("shape", list("ABCDEFGHI"))
def test_every_error_shape_round_trips(fake, shape):
    """Each WIRE.md §7.2 body shape arrives exactly as the example."""
    fake.enqueue(Reply(422, example_error_body(shape)))
    with httpx.Client() as client:
        response = client.post(fake.chat_url, json=BODY)
    expected = example_error_body(shape)
    assert (response.json() if response.content else None) == expected


def test_reply_headers(fake):
    """Retry headers, rate-limit headers and an unusual status all go out as given."""
    headers = {"retry-after-ms": "1500", "mistral-correlation-id": "fixed", **rate_limit_headers()}
    fake.enqueue(Reply(529, {"message": "overloaded"}, headers=headers))
    with httpx.Client() as client:
        response = client.post(fake.chat_url, json=BODY)
    assert response.status_code == 529
    for name, value in headers.items():
        assert response.headers[name] == value


def test_close_before_headers():
    """The server reads the request and hangs up: a transport error, and it is recorded."""
    with FakeMistral(CloseBeforeHeaders(), CloseBeforeHeaders(reset=True)) as server:
        with httpx.Client() as client, pytest.raises(httpx.RemoteProtocolError):
            client.post(server.chat_url, json=BODY)
        with httpx.Client() as client, pytest.raises(httpx.ReadError):
            client.post(server.chat_url, json=BODY)
        assert [request.correlation_id for request in server.requests] == [None, None]
        assert server.requests[0].json() == BODY
        server.wait_open_connections(0)


def test_drop_after_chunks():
    """A drop mid-body delivers the chunks before it, then an incomplete-read error."""
    with FakeMistral(Stream([role_chunk(), text_chunk("a"), text_chunk("b"), Drop()])) as server:
        events: list[ServerSentEvent] = []
        with (
            httpx.Client() as client,
            client.stream("POST", server.chat_url, json=BODY) as response,
            pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"),
        ):
            events.extend(iter_events(response.iter_bytes()))
        assert [chunk["choices"][0]["delta"]["content"] for chunk in chunks_of(events)] == [
            "",
            "a",
            "b",
        ]
        server.wait_open_connections(0)


def test_drop_with_reset():
    """``Drop(reset=True)`` resets the connection: httpx reports a read error."""
    with (
        FakeMistral(Stream([role_chunk(), Drop(reset=True)])) as server,
        httpx.Client() as client,
        client.stream("POST", server.chat_url, json=BODY) as response,
        pytest.raises(httpx.ReadError),
    ):
        response.read()


def test_drop_in_the_middle_of_an_event():
    """Raw bytes can cut an event in half before the drop."""
    half = b'data: {"id":"x","cho'
    with (
        FakeMistral(Stream([text_chunk("a"), half, Drop()])) as server,
        httpx.Client() as client,
        client.stream("POST", server.chat_url, json=BODY) as response,
    ):
        decoder = SSEDecoder()
        events: list[ServerSentEvent] = []
        with pytest.raises(httpx.RemoteProtocolError):
            events.extend(event for read in response.iter_bytes() for event in decoder.feed(read))
        assert len(events) == 1
        assert decoder.finish() is True


def test_stall_trips_the_read_timeout():
    """A pause longer than the client's read timeout raises ``ReadTimeout`` after the data."""
    with FakeMistral(Stream([role_chunk(), text_chunk("a"), Pause(60), finish_chunk()])) as server:
        events: list[ServerSentEvent] = []
        with (
            httpx.Client(timeout=httpx.Timeout(5.0, read=0.3)) as client,
            client.stream("POST", server.chat_url, json=BODY) as response,
            pytest.raises(httpx.ReadTimeout),
        ):
            events.extend(iter_events(response.iter_bytes()))
        assert len(events) == 2
        # The client gave up and closed: the server sees it without waiting out the pause.
        server.wait_open_connections(0, timeout=5)


def test_short_stall_then_the_rest():
    """A pause shorter than the read timeout only delays the rest of the stream."""
    with (
        FakeMistral(Stream([text_chunk("a"), Pause(0.2), text_chunk("b")])) as server,
        httpx.Client() as client,
    ):
        events = stream_events(client, server.chat_url)
    assert [event.is_done for event in events] == [False, False, True]


def test_shutdown_ends_a_stall_promptly():
    """Closing the server frees a client stuck in a long stall (no read timeout)."""
    server = FakeMistral(Stream([text_chunk("a"), Pause(600)])).start()
    outcome: list[BaseException | None] = []
    first_event = threading.Event()

    def client_thread():
        try:
            with (
                httpx.Client(timeout=None) as client,  # noqa: S113  -- wait out any stall
                client.stream("POST", server.chat_url, json=BODY) as response,
            ):
                for _event in iter_events(response.iter_bytes()):
                    first_event.set()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=client_thread)
    thread.start()
    try:
        assert first_event.wait(10)
    finally:
        server.close()  # would block for 600 s if the stall ignored shutdown
    thread.join(10)
    assert not thread.is_alive()
    assert isinstance(outcome[0], httpx.RemoteProtocolError)


def test_slow_trickle_sends_one_write_per_delay():
    """``delay`` paces the writes: the client receives the events one read at a time."""
    with (
        FakeMistral(Stream([text_chunk(str(i)) for i in range(4)], delay=0.05)) as server,
        httpx.Client() as client,
        client.stream("POST", server.chat_url, json=BODY) as response,
    ):
        reads = [SSEDecoder().feed(read) for read in response.iter_bytes()]
    assert [len(events) for events in reads] == [1, 1, 1, 1, 1]


def test_bursts_put_many_events_in_one_write():
    """``batch`` sends many events per write, as Mistral's proxies sometimes do."""
    with (
        FakeMistral(Stream([text_chunk("x")] * 100, batch=50, done=False)) as server,
        httpx.Client() as client,
        client.stream("POST", server.chat_url, json=BODY) as response,
    ):
        decoder = SSEDecoder()
        sizes = [len(decoder.feed(read)) for read in response.iter_bytes()]
    assert sum(sizes) == 100
    assert max(sizes) > 1


def test_done_can_be_omitted_and_chunked_framing_turned_off():
    """No ``[DONE]``; and without chunked framing the body ends when the server closes."""
    with FakeMistral(
        Stream([text_chunk("a")], done=False),
        Stream([text_chunk("b")], chunked=False),
    ) as server:
        with httpx.Client() as client:
            first = stream_events(client, server.chat_url)
            with client.stream("POST", server.chat_url, json=BODY) as response:
                second = list(iter_events(response.iter_bytes()))
        assert [event.is_done for event in first] == [False]
        assert "transfer-encoding" not in response.headers
        assert response.headers["connection"] == "close"
        assert [event.is_done for event in second] == [False, True]
        server.wait_open_connections(0)


def test_close_delimited_body_cut_short_looks_clean():
    """Without chunked framing a drop cannot be told from the end (as the SDK probe found)."""
    with (
        FakeMistral(Stream([text_chunk("a"), Drop()], chunked=False)) as server,
        httpx.Client() as client,
    ):
        events = stream_events(client, server.chat_url)
    assert len(events) == 1


def test_malformed_json_comments_and_usage_only_chunks(fake):
    """Raw items go out verbatim next to chunks, in order."""
    fake.enqueue(
        Stream(
            [
                sse_comment("keep-alive"),
                sse_event("{this is not json"),
                usage_only_chunk(usage_info(1, 2)),
            ]
        )
    )
    with httpx.Client() as client:
        events = stream_events(client, fake.chat_url)
    assert events[0].data == "{this is not json"
    with pytest.raises(json.JSONDecodeError):
        json.loads(events[0].data_bytes)
    assert json.loads(events[1].data_bytes)["choices"] == []
    assert events[2].is_done


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_stream_line_endings(fake, newline):
    """Chunks and ``[DONE]`` can be framed with any of the three SSE line endings."""
    fake.enqueue(Stream([text_chunk("a")], newline=newline))
    with httpx.Client() as client, client.stream("POST", fake.chat_url, json=BODY) as response:
        body = response.read()
    assert body.endswith(b"data: [DONE]" + newline * 2)
    assert body.count(newline * 2) == 2
    assert [event.is_done for event in iter_events([body])] == [False, True]


def test_stream_status_and_headers(fake):
    """A stream can carry any status, content type and extra headers."""
    fake.enqueue(Stream([], status=201, content_type="text/plain", headers={"x-extra": "1"}))
    with httpx.Client() as client, client.stream("POST", fake.chat_url) as response:
        response.read()
    assert response.status_code == 201
    assert response.headers["content-type"] == "text/plain"
    assert response.headers["x-extra"] == "1"
    assert response.headers["cache-control"] == "no-cache"


def test_big_stream_is_complete():
    """A large repeated stream arrives whole: every chunk, the finish chunk and ``[DONE]``."""
    with FakeMistral(big_stream(10_000, batch=64)) as server, httpx.Client() as client:
        events = stream_events(client, server.chat_url)
    assert len(events) == 10_003
    assert json.loads(events[5_000].data_bytes)["choices"][0]["delta"]["content"] == "tok "
    assert json.loads(events[-2].data_bytes)["usage"]["completion_tokens"] == 10_000


# --- connections ------------------------------------------------------------------------


def test_keep_alive_reuses_one_connection(fake):
    """Sequential requests from one client share a connection; closing the client closes it."""
    with httpx.Client() as client:
        for _ in range(3):
            stream_events(client, fake.chat_url)
        assert fake.open_connections == 1
        assert fake.accepted_connections == 1
    fake.wait_open_connections(0)
    assert fake.accepted_connections == 1


def test_many_sequential_connections(fake):
    """``Connection: close`` makes every request a new connection, and each one closes."""
    with httpx.Client(headers={"Connection": "close"}) as client:
        for _ in range(50):
            assert client.post(fake.chat_url, json=BODY).status_code == 200
    fake.wait_open_connections(0)
    assert fake.accepted_connections == 50


def test_concurrent_connections():
    """Several clients stream at once, each on its own connection and thread."""
    with FakeMistral(default=Stream([text_chunk("a"), Pause(1.5), text_chunk("b")])) as server:
        results: list[int] = []

        def one_client():
            with httpx.Client() as client:
                results.append(len(stream_events(client, server.chat_url)))

        threads = [threading.Thread(target=one_client) for _ in range(4)]
        for thread in threads:
            thread.start()
        server.wait_open_connections(4)  # all four are open at the same time
        for thread in threads:
            thread.join(10)
        assert results == [3, 3, 3, 3]
        server.wait_open_connections(0)


def test_early_break_closes_the_connection():
    """A client that stops reading mid-stream and closes the response frees the connection."""
    with (
        FakeMistral(Stream([text_chunk("a"), Pause(60), text_chunk("b")])) as server,
        httpx.Client() as client,
    ):
        with client.stream("POST", server.chat_url, json=BODY) as response:
            for _event in iter_events(response.iter_bytes()):
                break
        server.wait_open_connections(0, timeout=5)  # while the client is still open


def test_early_close_during_a_fast_stream_closes_the_connection():
    """A client that hangs up while the server is still writing frees the connection."""
    with (
        FakeMistral(big_stream(500_000, batch=512)) as server,
        httpx.Client() as client,
    ):
        with client.stream("POST", server.chat_url, json=BODY) as response:
            for _event in iter_events(response.iter_bytes()):
                break
        server.wait_open_connections(0, timeout=5)


def test_client_leaving_during_a_trickle_frees_the_connection():
    """A read timeout during a slow trickle ends the server's wait, not just the client's."""
    with (
        FakeMistral(Stream([text_chunk("a"), text_chunk("b")], delay=60)) as server,
        httpx.Client(timeout=httpx.Timeout(5.0, read=0.2)) as client,
    ):
        with (
            pytest.raises(httpx.ReadTimeout),
            client.stream("POST", server.chat_url, json=BODY) as response,
        ):
            response.read()
        server.wait_open_connections(0, timeout=5)


def test_client_reset_during_a_stall_frees_the_connection():
    """A client that resets the connection during a stall is noticed at once."""
    with FakeMistral(Stream([text_chunk("a"), Pause(60)])) as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n")
        received = sock.recv(4096)
        while b"data: " not in received:  # the first event is in: the server is in the stall
            received += sock.recv(4096)
        assert received.startswith(b"HTTP/1.1 200 ")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        server.wait_open_connections(0, timeout=5)


def test_reset_to_a_client_that_stopped_reading_still_happens(monkeypatch):
    """``Drop(reset=True)`` waits for the client's acks only while they progress, then resets."""
    monkeypatch.setattr(_fake_server, "_DRAIN_TIMEOUT", 0.5)  # how long "no progress" lasts
    request = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
    with (
        FakeMistral(Stream([Repeat(text_chunk("x" * 100), 40), Drop(reset=True)])) as server,
        socket.socket() as sock,
    ):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # room for a few events
        sock.settimeout(10)
        sock.connect(("127.0.0.1", server.port))
        sock.sendall(request)  # and never read: the rest of the body stays unacknowledged
        server.wait_open_connections(1)
        server.wait_open_connections(0, timeout=10)
        with pytest.raises(ConnectionResetError):
            read_to_the_end(sock)


def read_to_the_end(sock: socket.socket) -> bytes:
    """Everything the peer sends until it closes."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def test_data_from_the_client_during_a_stall_does_not_end_it():
    """Bytes sent during a stall (a pipelined request) neither end it nor get lost."""
    request = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
    with (
        FakeMistral(Stream([text_chunk("a"), Pause(0.3), text_chunk("b")]), Reply(204)) as server,
        socket.create_connection(("127.0.0.1", server.port)) as sock,
    ):
        sock.sendall(request)
        received = sock.recv(4096)
        sock.sendall(request)  # the next request, while the first response is stalled
        while b"HTTP/1.1 204 " not in received:
            received += sock.recv(4096)
        assert received.count(b"data: ") == 3  # a, b and [DONE], all before the 204
        assert len(server.requests) == 2


def test_wait_open_connections_times_out_with_a_message(fake):
    """Waiting for a count that never comes raises ``TimeoutError`` naming both counts."""
    with httpx.Client() as client:
        client.post(fake.chat_url, json=BODY)
        with pytest.raises(TimeoutError, match="1 connection"):
            fake.wait_open_connections(0, timeout=0.05)


def test_shutdown_with_idle_keep_alive_connection():
    """Closing the server while a client keeps an idle connection open returns promptly."""
    server = FakeMistral().start()
    with httpx.Client() as client:
        client.post(server.chat_url, json=BODY)
        assert server.open_connections == 1
        server.close()
        assert server.open_connections == 0
        with pytest.raises(httpx.TransportError):
            client.post(server.chat_url, json=BODY)


def test_client_reset_is_not_reported_as_a_server_error(fake, capsys):
    """A client that resets mid-request is normal: nothing is printed."""
    sock = socket.create_connection(("127.0.0.1", fake.port))
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
    fake.wait_open_connections(1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    fake.wait_open_connections(0)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "framing",
    [
        pytest.param(b"Content-Length: abc", id="length-not-a-number"),
        pytest.param(b"Content-Length: -1", id="negative-length"),
        pytest.param(b"Transfer-Encoding: chunked\r\n\r\nzz", id="chunk-size-not-hex"),
    ],
)
def test_bad_request_framing_gets_a_400(fake, framing):
    """A body whose framing makes no sense is answered with 400, not a crash."""
    with socket.create_connection(("127.0.0.1", fake.port)) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + framing + b"\r\n\r\n")
        assert sock.recv(1024).startswith(b"HTTP/1.1 400 ")
    assert fake.requests == ()


def test_a_request_target_that_is_no_url_gets_a_400(fake, capsys):
    """An absolute target ``urlsplit`` refuses is answered with 400, with no traceback."""
    with socket.create_connection(("127.0.0.1", fake.port), timeout=30) as sock:
        sock.sendall(b"POST http://[::1/v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(1024).startswith(b"HTTP/1.1 400 ")
    assert fake.requests == ()
    assert "Traceback" not in capsys.readouterr().err


# --- async -------------------------------------------------------------------------------


def test_async_client_streams_and_sees_drops():
    """The server works with ``httpx.AsyncClient`` the same way."""

    async def run(url):
        async with httpx.AsyncClient() as client:
            async with client.stream("POST", url, json=BODY) as response:
                first = [read async for read in response.aiter_bytes()]
            with pytest.raises(httpx.RemoteProtocolError):
                async with client.stream("POST", url, json=BODY) as response:
                    await response.aread()
        return first

    with FakeMistral(text_reply("a"), Stream([text_chunk("a"), Drop()])) as server:
        reads = asyncio.run(run(server.chat_url))
        assert list(iter_events(reads))[-1].is_done
        server.wait_open_connections(0)


def test_async_cancellation_during_a_stall_closes_the_connection():
    """Cancelling a task stuck in a stall closes its connection; the server notices."""

    async def run(server):
        got_first = asyncio.Event()

        async def consume():
            async with (
                httpx.AsyncClient(timeout=None) as client,  # noqa: S113  -- wait out any stall
                client.stream("POST", server.chat_url, json=BODY) as response,
            ):
                async for _read in response.aiter_bytes():
                    got_first.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(got_first.wait(), 10)
        assert server.open_connections == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with FakeMistral(Stream([text_chunk("a"), Pause(600)])) as server:
        asyncio.run(run(server))
        server.wait_open_connections(0, timeout=5)


# --- lifecycle, process mode, public names ---------------------------------------------


def test_lifecycle_errors():
    """Using a server before start or starting it twice is a clear error; close is idempotent."""
    server = FakeMistral()
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.url
    server.close()  # never started: nothing to do
    with pytest.raises(RuntimeError, match="once"):
        server.start()
    with FakeMistral() as started:
        with pytest.raises(RuntimeError, match="once"):
            started.start()
        started.close()
    started.close()


def test_closed_server_refuses_connections():
    """After ``close`` the port is free: the way to script "connection refused"."""
    with FakeMistral() as server:
        url = server.chat_url
    with httpx.Client() as client, pytest.raises(httpx.ConnectError):
        client.post(url, json=BODY)


def test_separate_process_big_stream():
    """``FakeMistralProcess`` serves the preset from a child process until closed."""
    with FakeMistralProcess("big-stream", chunks=2_000, batch=100) as server:
        assert server.chat_url == server.url + "/v1/chat/completions"
        with httpx.Client() as client:
            for _ in range(2):  # the same preset for every request
                events = stream_events(client, server.chat_url)
                assert len(events) == 2_003
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.url
    server.close()  # already stopped: nothing to do


def test_separate_process_cannot_start_twice():
    """Starting a running child again is a clear error."""
    with FakeMistralProcess("text") as server, pytest.raises(RuntimeError, match="already"):
        server.start()


@pytest.mark.integration
@pytest.mark.parametrize(
    ("arguments", "events", "at_least"),
    [
        pytest.param(["--scenario", "big-stream", "--chunks", "5"], 8, 0.0, id="big-stream"),
        pytest.param(["--scenario", "text"], 6, 0.0, id="text-default"),
        # Five writes (role, two texts, finish, [DONE]), each after a 0.1 s pause.
        pytest.param(
            ["--scenario", "text", "--chunks", "2", "--delay", "0.1"], 5, 0.5, id="text-paced"
        ),
    ],
)
def test_command_line_serves_until_sigterm(capsys, arguments, events, at_least):
    """``python -m adapter.testing serve`` prints its URL and serves until SIGTERM.

    With ``--delay`` every write waits that long, so the reply takes at least the sum.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    counts: list[int] = []
    took: list[float] = []

    def client():
        deadline = time.monotonic() + 10
        with httpx.Client() as http:
            while time.monotonic() < deadline:
                try:
                    began = time.monotonic()
                    counts.append(
                        len(stream_events(http, f"http://127.0.0.1:{port}/v1/chat/completions"))
                    )
                    took.append(time.monotonic() - began)
                    break
                except httpx.ConnectError:
                    time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)  # handled by main(): it was listening already

    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=client)
    thread.start()
    try:
        code = _fake_process.main(["serve", "--port", str(port), *arguments])
        restored = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGINT, handlers[0])
        signal.signal(signal.SIGTERM, handlers[1])
        thread.join(10)
    assert code == 0
    assert restored == handlers  # main() put back the handlers it replaced
    assert counts == [events]
    assert took[0] >= at_least
    assert capsys.readouterr().out == f"http://127.0.0.1:{port}\n"


def test_python_dash_m_adapter_testing_exits_with_the_status_of_main(monkeypatch, capsys):
    """``python -m adapter.testing`` runs ``main`` and exits with its status (2: usage error)."""
    monkeypatch.setattr(sys, "argv", ["adapter.testing", "serve", "--port", "99999"])
    monkeypatch.delitem(sys.modules, "adapter.testing.__main__", raising=False)
    with pytest.raises(SystemExit) as info:  # what ``-m`` runs: the module's code, once
        importlib.import_module("adapter.testing.__main__")
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        "python -m adapter.testing serve: error: argument --port: expected a port from 0 to "
        "65535, got '99999' (see python -m adapter.testing serve --help)\n"
    )


#: Bad command lines of ``python -m adapter.testing``, and what the one line must name.
SERVE_USAGE_ERRORS: list[tuple[list[str], list[str]]] = [
    ([], ["python -m adapter.testing: error: ", "required: {serve}"]),
    (["serve", "--port", "99999"], ["--port", "0 to 65535", "'99999'"]),
    (["serve", "--port", "-1"], ["--port", "0 to 65535", "'-1'"]),
    (["serve", "--port", "http"], ["--port", "0 to 65535", "'http'"]),
    (["serve", "--chunks", "-5"], ["--chunks", "integer >= 0", "'-5'"]),
    (["serve", "--chunks", "many"], ["--chunks", "integer >= 0", "'many'"]),
    (["serve", "--scenario", "big-stream", "--batch", "0"], ["--batch", "integer >= 1", "'0'"]),
    (["serve", "--delay", "-0.5"], ["--delay", "finite number of seconds >= 0", "'-0.5'"]),
    (["serve", "--delay", "inf"], ["--delay", "finite number of seconds >= 0", "'inf'"]),
    (["serve", "--delay", "soon"], ["--delay", "finite number of seconds >= 0", "'soon'"]),
    (["serve", "--scenario", "huge"], ["--scenario", "'huge'", "'big-stream'"]),
    (["serve", "--verbose"], ["unrecognized arguments: --verbose", "--help"]),
    # A byte the locale could not decode reaches argv as a surrogate escape.
    (["serve", "--text", "tok \udcff"], ["--text", "valid UTF-8"]),
]


def test_command_line_usage_errors_are_one_line_and_exit_2(capsys):
    """A bad command line is one line on stderr naming the value and what is allowed: exit 2.

    No usage block, no traceback, nothing on stdout, and no server is started.
    """
    failures = []
    for argv, names in SERVE_USAGE_ERRORS:
        try:
            status: object = _fake_process.main(argv)
        except BaseException as exc:  # a raised error (SystemExit too) is what this finds
            status = f"raised {type(exc).__name__}"
        out, err = capsys.readouterr()
        missing = [name for name in names if name not in err]
        if status != 2 or err.count("\n") != 1 or missing or out:
            failures.append(f"{argv}: status {status}, stderr {err!r}, missing {missing}")
    assert failures == []


@pytest.mark.integration
def test_command_line_that_cannot_listen_says_so_in_one_line(capsys):
    """A port already taken is one line naming the address (exit 2), and nothing leaks."""
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert _fake_process.main(["serve", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(
        f"python -m adapter.testing serve: error: cannot listen on 127.0.0.1:{port}: "
    )
    assert err.count("\n") == 1
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers


def test_separate_process_text_preset():
    """The text preset streams ``chunks`` pieces of ``text``."""
    with (
        FakeMistralProcess("text", chunks=3, text="ab") as server,
        httpx.Client() as client,
    ):
        chunks = chunks_of(stream_events(client, server.chat_url))
    assert [chunk["choices"][0]["delta"]["content"] for chunk in chunks] == [
        "",
        "ab",
        "ab",
        "ab",
        "",
    ]


def test_separate_process_that_fails_to_start_says_so():
    """A child that exits before printing its URL raises instead of hanging."""
    with pytest.raises(RuntimeError, match="did not start"):
        FakeMistralProcess("no-such-preset").start()  # type: ignore[arg-type]


def test_recorded_request_is_a_plain_record():
    """``RecordedRequest`` can be built directly, e.g. to compare against."""
    request = RecordedRequest("POST", "/v1/chat/completions", body=b"{}")
    assert request.json() == {}
    assert request.headers == {}


def test_testing_all_is_complete():
    """``adapter.testing.__all__`` lists exactly its public names, sorted as ruff sorts them."""
    module = adapter.testing
    public = sorted(
        name
        for name in vars(module)
        if not name.startswith("_") and not isinstance(getattr(module, name), type(module))
    )
    assert len(set(module.__all__)) == len(module.__all__)
    assert sorted(module.__all__) == public


def test_docstring_examples():
    """The server's docstring example runs as written."""
    assert doctest.testmod(_fake_server).failed == 0


def test_docs_examples_run():
    """The Python examples in docs/testing.md run as written."""
    docs = Path(__file__).parents[3] / "docs" / "testing.md"
    blocks = re.findall(r"```python\n(.*?)```", docs.read_text(), flags=re.DOTALL)
    assert len(blocks) == 5
    for block in blocks:
        exec(compile(block, str(docs), "exec"), {})  # noqa: S102  -- our own docs


def test_the_default_answer_can_be_switched_while_serving():
    """An outage that starts and heals: ``fake.default`` is read per request."""
    with FakeMistral(default=Reply(503)) as fake:
        assert fake.default == Reply(503)
        assert httpx.post(fake.chat_url, json={}).status_code == 503
        fake.default = Reply(200, {"ok": True})
        assert httpx.post(fake.chat_url, json={}).json() == {"ok": True}
        with pytest.raises(TypeError, match="scenario must be"):
            fake.default = "nope"  # type: ignore[assignment]
