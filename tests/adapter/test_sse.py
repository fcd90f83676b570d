"""The incremental SSE decoder: framing, fields, reads split anywhere, end of stream."""

import asyncio
import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapter import _sse
from adapter._sse import (
    DONE,
    ServerSentEvent,
    SSEDecoder,
    SSELimitError,
    SSELineSplitter,
    aiter_events,
    iter_events,
)

NEWLINES = [
    pytest.param(b"\n", id="LF"),
    pytest.param(b"\r\n", id="CRLF"),
    pytest.param(b"\r", id="CR"),
]

# One frame exercising every feature; `{nl}` is replaced by the line ending under test.
FRAME_LINES = [
    b": keep-alive",
    b"",
    b'data: {"text": "h\xc3\xa9llo \xf0\x9f\x98\x80"}',  # 2- and 4-byte UTF-8 sequences
    b"",
    b"event: delta",
    b"id: 42",
    b"retry: 1500",
    b"data: first",
    b": a comment between data lines",
    b"data:second",
    b"data",
    b"",
    b"unknown: ignored",
    b"data: [DONE]",
    b"",
]
FRAME_EVENTS = [
    ServerSentEvent('{"text": "héllo 😀"}'.encode()),
    ServerSentEvent(b"first\nsecond\n", "delta", "42", 1500),
    ServerSentEvent(DONE, "message", "42", 1500),
]


def frame(newline: bytes) -> bytes:
    return b"".join(line + newline for line in FRAME_LINES)


def decode_reads(reads) -> tuple[list[ServerSentEvent], bool]:
    decoder = SSEDecoder()
    events = [event for read in reads for event in decoder.feed(read)]
    return events, decoder.finish()


@pytest.mark.parametrize("newline", NEWLINES)
def test_frame_split_at_every_offset(newline):
    """A frame split into two reads at any byte offset decodes to the same events."""
    stream = frame(newline)
    for offset in range(len(stream) + 1):
        events, discarded = decode_reads([stream[:offset], stream[offset:]])
        assert events == FRAME_EVENTS, f"split at byte {offset}"
        assert discarded is False


@pytest.mark.parametrize("newline", NEWLINES)
@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 64, 4096])
def test_frame_in_reads_of_fixed_size(newline, size):
    """A frame fed in reads of any fixed size decodes to the same events."""
    stream = frame(newline)
    reads = [stream[i : i + size] for i in range(0, len(stream), size)]
    assert decode_reads(reads) == (FRAME_EVENTS, False)


@pytest.mark.parametrize(
    ("reads", "data"),
    [
        pytest.param([b"data: a\r", b"\ndata: b\r\n\r\n"], [b"a\nb"], id="CRLF-split-across-reads"),
        pytest.param([b"data: a\r", b"\r", b"\n"], [b"a"], id="CR-CRLF-split"),
        pytest.param([b"data: a\r\n", b"\r\n"], [b"a"], id="CRLF-then-CRLF"),
        pytest.param([b"data: a\n\r\ndata: b\r\rdata: c\n\n"], [b"a", b"b", b"c"], id="mixed"),
        pytest.param([b"data: a\r", b"", b"\n", b"\n"], [b"a"], id="empty-read-after-CR"),
    ],
)
def test_line_endings_across_reads(reads, data):
    """CRLF counts as one line end even when the CR and the LF arrive in different reads."""
    events, _ = decode_reads(reads)
    assert [event.data_bytes for event in events] == data


@pytest.mark.parametrize(
    ("lines", "data"),
    [
        pytest.param([b"data: one", b"data: two"], b"one\ntwo", id="multi-line"),
        pytest.param([b"data:no-space"], b"no-space", id="no-space"),
        pytest.param([b"data:  two spaces"], b" two spaces", id="only-one-space-removed"),
        pytest.param([b"data"], b"", id="name-only"),
        pytest.param([b"data:"], b"", id="empty-value"),
        pytest.param([b"data", b"data"], b"\n", id="two-empty-lines"),
        pytest.param([b"data: a:b: c"], b"a:b: c", id="colons-in-value"),
    ],
)
def test_data_lines(lines, data):
    """``data`` values are joined with LF; one leading space is removed, no more."""
    events, _ = decode_reads([b"\n".join([*lines, b"", b""])])
    assert [event.data_bytes for event in events] == [data]


@pytest.mark.parametrize(
    "stream",
    [
        pytest.param(b": keep-alive\n\n", id="keep-alive"),
        pytest.param(b":\n\n", id="empty-comment"),
        pytest.param(b"event: ping\n\n", id="event-without-data"),
        pytest.param(b"id: 1\nretry: 10\n\n", id="id-and-retry-only"),
        pytest.param(b"\n\n\n", id="blank-lines"),
        pytest.param(b"Data: x\n\n", id="field-names-are-case-sensitive"),
        pytest.param(b"foo: bar\n\n", id="unknown-field"),
        pytest.param(b" data: x\n\n", id="leading-space-is-part-of-the-name"),
    ],
)
def test_blocks_that_dispatch_nothing(stream):
    """Comments, keep-alives, unknown fields and data-less blocks dispatch no event."""
    assert decode_reads([stream]) == ([], False)


def test_event_type_applies_to_one_event_and_resets():
    """``event:`` names the next event only, including when that block had no data."""
    events, _ = decode_reads([b"event: a\ndata: 1\n\ndata: 2\n\nevent: b\n\ndata: 3\n\n"])
    assert [(event.event, event.data) for event in events] == [
        ("a", "1"),
        ("message", "2"),
        ("message", "3"),
    ]


@pytest.mark.parametrize(
    "method", [pytest.param("feed", id="feed"), pytest.param("decode", id="decode")]
)
def test_dispatch_resets_the_data_and_the_type(method):
    """Each event starts empty: no data or type of the event before it leaks into it."""
    decoder = SSEDecoder()
    stream = b"event: a\ndata: 1\ndata: 2\n\ndata: 3\n\n"
    if method == "feed":
        events = decoder.feed(stream)
    else:
        events = [e for line in stream.split(b"\n")[:-1] if (e := decoder.decode(line))]
    assert events == [ServerSentEvent(b"1\n2", "a"), ServerSentEvent(b"3")]
    assert decoder.feed_data(b"event: b\ndata: 4\n\ndata: 5\n\n") == [b"4", b"5"]
    assert decoder.feed(b"data: 6\n\n") == [ServerSentEvent(b"6")]
    assert decoder.finish() is False


def test_id_persists_and_ignores_nul():
    """The last event ID is kept across events, reset by an empty ``id``, NUL ignored."""
    events, _ = decode_reads(
        [b"id: 7\ndata: a\n\ndata: b\n\nid: x\x00y\ndata: c\n\nid\ndata: d\n\n"]
    )
    assert [event.id for event in events] == ["7", "7", "7", ""]


@pytest.mark.parametrize(
    ("value", "retry"),
    [
        pytest.param(b"2500", 2500, id="digits"),
        pytest.param(b"0", 0, id="zero"),
        pytest.param(b"", None, id="empty"),
        pytest.param(b"-1", None, id="negative"),
        pytest.param(b"1.5", None, id="decimal"),
        pytest.param(b" 10", None, id="extra-space"),
        pytest.param("\u0661".encode(), None, id="non-ascii-digit"),
        pytest.param(b"9" * 18, 10**18 - 1, id="18-digits"),
        pytest.param(b"9" * 19, None, id="19-digits"),
        pytest.param(b"1" * 5000, None, id="5000-digits"),
    ],
)
def test_retry_accepts_ascii_digits_only(value, retry):
    """``retry`` is set only from ASCII digits; anything else is ignored."""
    events, _ = decode_reads([b"retry: " + value + b"\ndata: x\n\n"])
    assert events[0].retry == retry


def test_retry_persists_across_events():
    """The reconnection time set by ``retry`` stays until the stream changes it."""
    events, _ = decode_reads([b"retry: 5\ndata: a\n\ndata: b\n\nretry: 9\n\ndata: c\n\n"])
    assert [event.retry for event in events] == [5, 5, 9]


@pytest.mark.parametrize(
    "reads",
    [
        pytest.param([b"\xef\xbb\xbfdata: x\n\n"], id="whole"),
        pytest.param([b"\xef", b"\xbb", b"\xbf", b"data: x\n\n"], id="byte-by-byte"),
        pytest.param([b"\xef\xbb", b"\xbfdata: x\n\n"], id="split"),
        pytest.param([b"", b"\xef\xbb\xbfdata: x\n\n"], id="after-empty-read"),
        pytest.param([b"data: x\n\n"], id="no-bom"),
    ],
)
def test_leading_bom_is_dropped(reads):
    """One UTF-8 BOM at the start of the stream is dropped, however the reads split it."""
    assert decode_reads(reads) == ([ServerSentEvent(b"x")], False)


def test_only_the_first_bom_is_dropped():
    """A second BOM, or one later in the stream, is part of the line (an unknown field)."""
    bom = b"\xef\xbb\xbf"
    events, _ = decode_reads([bom + bom + b"data: x\n\n", bom + b"data: y\n\ndata: z\n\n"])
    assert events == [ServerSentEvent(b"z")]


def test_a_lone_bom_prefix_byte_is_not_dropped():
    """Bytes that only start like a BOM are kept (here they make an unknown field)."""
    events, _ = decode_reads([b"\xef", b"data: x\n\ndata: y\n\n"])
    assert events == [ServerSentEvent(b"y")]


@pytest.mark.parametrize("text", ["é", "€", "😀", "naïve café 日本"])
def test_utf8_split_inside_a_sequence(text):
    """A multi-byte UTF-8 sequence split between reads is decoded whole."""
    stream = b"data: " + text.encode() + b"\n\n"
    for offset in range(len(stream) + 1):
        events, _ = decode_reads([stream[:offset], stream[offset:]])
        assert [event.data for event in events] == [text], f"split at byte {offset}"


def test_invalid_utf8_is_kept_raw_and_replaced_as_text():
    """``data_bytes`` is the raw payload; ``data`` decodes it with replacement like the spec."""
    events, _ = decode_reads([b"event: \xff\ndata: a\xffb\n\n"])
    assert events[0].data_bytes == b"a\xffb"
    assert events[0].data == "a\ufffdb"
    assert events[0].event == "\ufffd"


def test_done_sentinel_is_an_ordinary_event():
    """``data: [DONE]`` is an event with ``is_done`` set; decoding continues after it."""
    events, _ = decode_reads([b"data: {}\n\ndata: [DONE]\n\ndata: after\n\n"])
    assert [event.is_done for event in events] == [False, True, False]
    assert events[1].data == "[DONE]"
    assert not ServerSentEvent(b"[DONE] ").is_done


@pytest.mark.parametrize(
    ("stream", "events"),
    [
        pytest.param(b"data: a\n\ndata: b", [b"a"], id="unterminated-line"),
        pytest.param(b"data: a\n\ndata: b\n", [b"a"], id="no-blank-line"),
        pytest.param(b"data: a\n\nevent: x\n", [b"a"], id="pending-event-type"),
        pytest.param(b"data: a\n\n: partial comm", [b"a"], id="unterminated-comment"),
        pytest.param(b"\xef\xbb", [], id="partial-bom"),
    ],
)
def test_unfinished_event_is_discarded_at_end_of_stream(stream, events):
    """As the spec says, an event without its blank line is discarded; ``finish`` says so."""
    assert decode_reads([stream]) == ([ServerSentEvent(data) for data in events], True)
    assert [event.data_bytes for event in iter_events([stream])] == events


@pytest.mark.parametrize(
    "stream",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"data: a\n\n", id="event"),
        pytest.param(b"data: a\n\n: keep-alive\n", id="trailing-comment"),
        pytest.param(b"data: a\n\nid: 3\nretry: 4\n", id="trailing-id-and-retry"),
    ],
)
def test_clean_end_of_stream(stream):
    """A stream that ends on an event boundary discards nothing."""
    _, discarded = decode_reads([stream])
    assert discarded is False


def test_finish_resets_for_a_new_stream():
    """After ``finish`` the decoder starts over: a BOM is dropped again, id and retry stay."""
    decoder = SSEDecoder()
    assert decoder.feed(b"id: 1\nretry: 2\ndata: a\n\ndata: cut") == [
        ServerSentEvent(b"a", "message", "1", 2)
    ]
    assert decoder.finish() is True
    assert decoder.feed(b"\xef\xbb\xbfdata: b\n\n") == [ServerSentEvent(b"b", "message", "1", 2)]
    assert decoder.finish() is False


def test_decode_line_by_line():
    """The field state machine also takes lines one at a time (without terminators)."""
    decoder = SSEDecoder()
    results = [
        decoder.decode(line) for line in [b"event: e", b"data: x", b": c", b"data: y", b"", b""]
    ]
    assert results == [None, None, None, None, ServerSentEvent(b"x\ny", "e"), None]


def test_line_splitter():
    """The splitter yields complete lines and hands back the unterminated rest at the end."""
    splitter = SSELineSplitter()
    assert splitter.feed(b"a\r\nb") == [b"a"]
    assert splitter.feed(b"c\rd\r") == [b"bc", b"d"]
    assert splitter.feed(b"\ne") == []
    assert splitter.feed(b"f") == []
    assert splitter.finish() == b"ef"
    assert splitter.finish() == b""


def test_long_line_in_small_reads():
    """A long line arriving in many small reads is reassembled exactly once complete."""
    payload = bytes(range(32, 127)) * 2000
    stream = b"data: " + payload + b"\n\n"
    events, _ = decode_reads([stream[i : i + 7] for i in range(0, len(stream), 7)])
    assert events == [ServerSentEvent(payload)]


def test_iter_events_over_reads():
    """``iter_events`` decodes any iterable of reads lazily."""
    reads = iter([b"data: a\n", b"\ndata: b\n\n"])
    events = iter_events(reads)
    assert next(events) == ServerSentEvent(b"a")
    assert list(events) == [ServerSentEvent(b"b")]


def test_aiter_events_over_async_reads():
    """``aiter_events`` decodes an async iterable of reads."""

    async def reads():
        for read in [b"data: a\r", b"\n\r\ndata: b\n\n", b"data: cut"]:
            await asyncio.sleep(0)
            yield read

    async def collect():
        return [event async for event in aiter_events(reads())]

    assert asyncio.run(collect()) == [ServerSentEvent(b"a"), ServerSentEvent(b"b")]


def test_docstring_examples():
    """The examples in the module's docstrings run as written."""
    assert doctest.testmod(_sse).failed == 0


# --- Property: any chunking of a stream yields the same events ------------------------

LINE_TEXT = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"), max_size=12
)


@st.composite
def streams(draw):
    """A random valid event stream (bytes) and the events it must decode to."""
    lines: list[str] = []
    expected: list[ServerSentEvent] = []
    last_id = ""
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["event", "comment", "ignored"]))
        if kind == "comment":
            lines += [":" + draw(LINE_TEXT), ""]
            continue
        if kind == "ignored":
            lines += ["event: " + draw(LINE_TEXT), ""]  # no data: nothing dispatched
            continue
        event_type = draw(st.none() | LINE_TEXT.filter(lambda t: not t.startswith(" ")))
        event_id = draw(st.none() | st.text("abc123", max_size=4))
        data = draw(st.lists(LINE_TEXT, min_size=1, max_size=3))
        block = [] if event_type is None else [f"event:{event_type}"]
        if event_id is not None:
            block.append(f"id: {event_id}")
            last_id = event_id
        block += [f"data: {line}" for line in data]
        lines += [*block, ""]
        expected.append(
            ServerSentEvent("\n".join(data).encode(), event_type or "message", last_id, None)
        )
    encoded = b""
    previous = b""
    for line in lines:
        newline = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
        if previous == b"\r" and not line and newline == b"\n":
            newline = b"\r\n"  # CR then an empty LF line would read as one CRLF
        encoded += line.encode() + newline
        previous = newline
    if draw(st.booleans()):
        encoded = b"\xef\xbb\xbf" + encoded
    return encoded, expected


@given(streams(), st.data())
def test_any_chunking_yields_the_same_events(stream_and_events, data):
    """However a stream is cut into reads, the decoded events are the expected ones."""
    stream, expected = stream_and_events
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=12)))
    reads = [stream[start:end] for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    assert decode_reads([stream]) == (expected, False)
    assert decode_reads(reads) == (expected, False)


@pytest.mark.parametrize("newline", NEWLINES)
def test_feed_data_split_at_every_offset(newline):
    """``feed_data`` gives the data of the frame's events however it is split in two."""
    stream = frame(newline)
    for offset in range(len(stream) + 1):
        decoder = SSEDecoder()
        data = decoder.feed_data(stream[:offset]) + decoder.feed_data(stream[offset:])
        assert data == [event.data_bytes for event in FRAME_EVENTS], f"split at byte {offset}"
        assert decoder.finish() is False


@given(streams(), st.data())
def test_feed_data_is_the_data_of_feed_in_any_mix(stream_and_events, data):
    """Reads fed through ``feed`` or ``feed_data`` in any mix: the same events and data."""
    stream, expected = stream_and_events
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=12)))
    reads = [stream[start:end] for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    decoder = SSEDecoder()
    got: list[ServerSentEvent | bytes] = []
    for read in reads:
        got += decoder.feed_data(read) if data.draw(st.booleans()) else decoder.feed(read)
    assert decoder.finish() is False
    assert len(got) == len(expected)
    for item, event in zip(got, expected, strict=True):
        assert item == (event.data_bytes if isinstance(item, bytes) else event)


# --- limits -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reads",
    [
        pytest.param([b"data: " + b"x" * 100], id="one-read"),
        pytest.param([b"data: "] + [b"x"] * 59, id="byte-by-byte"),
        pytest.param([b"data: xx", b"x" * 100 + b"\n"], id="completed-in-a-later-read"),
        pytest.param([b"data: 1\n\ndata: " + b"x" * 100 + b"\n\n"], id="inside-one-read"),
    ],
)
def test_a_line_over_max_line_raises_naming_the_limit(reads):
    """A line longer than ``max_line``, however it is split into reads, raises SSELimitError."""
    decoder = SSEDecoder(max_line=64)
    for read in reads[:-1]:
        decoder.feed_data(read)
    with pytest.raises(SSELimitError, match="max_line=64") as info:
        decoder.feed_data(reads[-1])
    assert (info.value.limit, info.value.value) == ("max_line", 64)


def test_a_line_at_max_line_passes():
    """A line of exactly ``max_line`` bytes is decoded (the limit is inclusive)."""
    decoder = SSEDecoder(max_line=64)
    line = b"data: " + b"x" * 58
    assert decoder.feed_data(line[:30]) == []
    assert decoder.feed_data(line[30:] + b"\n\n") == [b"x" * 58]


def test_an_event_over_max_event_raises_and_a_dispatch_resets_the_count():
    """Data lines add up per event only: the count restarts at each dispatch."""
    decoder = SSEDecoder(max_event=40)
    for _ in range(10):  # 10 events of 3 x 10 bytes: each under the limit
        assert decoder.feed_data(b"data: 0123456789\n" * 3 + b"\n") == [
            b"\n".join([b"0123456789"] * 3)
        ]
    with pytest.raises(SSELimitError, match="max_event=40"):
        decoder.feed_data(b"data: 0123456789\n" * 4)
