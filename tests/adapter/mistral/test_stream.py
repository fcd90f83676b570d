"""Stream mapping: recorded-style ``.sse`` streams through the SSE decoder and the mapper."""

import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from syrupy.extensions.json import JSONSnapshotExtension

from adapter import get_model
from adapter._mistral.errors import UnmappableChunkError, partial_of
from adapter._mistral.stream import StreamState, fail, finish, map_chunk, map_data, start
from adapter._mistral.wire import parse_completion_chunk
from adapter._sse import iter_events
from adapter.pi import AssistantMessage, ModelInfo, TextContent, ThinkingContent, ToolCall
from llm_errors import (
    AbortedError,
    ErrorCode,
    LlmError,
    LlmTimeoutError,
    ProviderError,
    ServerError,
    TransportError,
)

FIXTURES = Path(__file__).parent / "fixtures"
MODEL = get_model("mistral-large-latest")
START = 1_764_258_570_000  # epoch milliseconds, pi's unit
STEP = 10


class Clock:
    """A fake wall clock in milliseconds that moves ``STEP`` on every reading."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> int:
        """The current reading; the next one is ``STEP`` later."""
        value = self.now
        self.now += STEP
        return value


class Run:
    """The outcome of one stream: its events, the live message and the error, if any."""

    def __init__(self, state: StreamState, events: list[Any], error: LlmError | None) -> None:
        self.state = state
        self.events = events
        self.error = error

    @property
    def message(self) -> AssistantMessage:
        """The live message every event holds."""
        return self.state.message


def run_bytes(raw: bytes, *, model: ModelInfo = MODEL, reads: list[bytes] | None = None) -> Run:
    """Feed a raw SSE body (in ``reads``, or in one read) to the mapper as the client does."""
    clock = Clock()
    state, events = start(model=model, now=clock())
    error = None
    try:
        for sse in iter_events(reads if reads is not None else [raw]):
            events += map_data(state, sse.data_bytes, now=clock())
            if state.ended:
                break
        else:
            events += finish(state, saw_done=False, now=clock())
    except LlmError as exc:
        error = exc
        events.append(fail(state, exc, now=clock()))
    return Run(state, events, error)


def run_fixture(name: str) -> Run:
    return run_bytes((FIXTURES / f"{name}.sse").read_bytes())


def record(event: Any) -> dict[str, Any]:
    """An event without its ``partial`` (the live message is recorded once, at the end)."""
    return event.model_dump(exclude={"partial", "message", "error"})


def error_record(error: LlmError | None) -> dict[str, Any] | None:
    if error is None:
        return None
    return {
        "class": type(error).__name__,
        "code": error.code.value,
        "message": error.message,
        "status": error.status,
        "rule": error.rule,
        "chunk_type": getattr(error, "chunk_type", None),
    }


def chunk(delta: str = "{}", *, finish_reason: str | None = None, usage: str = "") -> bytes:
    """One ``data:`` payload (as bytes) with a given delta object."""
    reason = "null" if finish_reason is None else f'"{finish_reason}"'
    tail = f',"usage":{usage}' if usage else ""
    return (
        f'{{"id":"cmpl-1","object":"chat.completion.chunk","created":1,"model":"m",'
        f'"choices":[{{"index":0,"delta":{delta},"finish_reason":{reason}}}]{tail}}}'
    ).encode()


ALL_FIXTURES = sorted(path.stem for path in FIXTURES.glob("*.sse"))
SUCCESS = [
    "citations_in_text",
    "citations_in_thinking",
    "empty_id",
    "finish_length",
    "finish_model_length",
    "finish_reason_without_done",
    "finish_unknown",
    "first_chunk_without_content",
    "fragmented_tool_call",
    "keep_alive_crlf",
    "parallel_tool_calls",
    "text",
    "text_after_tool_call",
    "thinking_and_text_one_delta",
    "thinking_signature",
    "thinking_then_text",
    "tool_call",
    "tool_call_no_arguments",
    "tool_call_object_arguments",
    "usage_only_final_chunk",
]
REJECTED = {
    "rejected_image_url": "image_url",
    "rejected_document_url": "document_url",
    "rejected_file": "file",
    "rejected_input_audio": "input_audio",
    "rejected_resource": "resource",
    "rejected_resource_link": "resource_link",
    "rejected_unknown_type": "hologram",
    "rejected_missing_type": None,
    "rejected_thinking_tool_reference": "tool_reference",
    "rejected_thinking_unknown_part": "scribble",
}


def rounded_costs(message: dict[str, Any]) -> dict[str, Any]:
    """A message dump with its costs at 12 significant digits: rate x tokens has float noise."""
    cost = message["usage"]["cost"]
    for key, value in cost.items():
        cost[key] = value if isinstance(value, int) else float(f"{value:.12g}")
    return message


# --- snapshots ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in ALL_FIXTURES])
def test_event_sequence_snapshot(name, snapshot):
    """Each recorded-style stream maps to the snapshotted events, final message and error."""
    run = run_fixture(name)
    result = {
        "events": [record(event) for event in run.events],
        "message": rounded_costs(run.message.model_dump()),
        "error": error_record(run.error),
    }
    assert result == snapshot.use_extension(JSONSnapshotExtension)


# --- invariants over every fixture ------------------------------------------------------


def test_event_order_follows_the_content_model(table):
    """``start`` first; per block ``*_start``, deltas, ``*_end``; one block open at a time."""

    def check(name):
        run = run_fixture(name)
        kinds = [event.type for event in run.events]
        assert kinds[0] == "start"
        assert kinds[-1] in {"done", "error"}
        assert kinds.count("start") == 1
        assert sum(kind in {"done", "error"} for kind in kinds) == 1
        open_index = None
        next_index = 0
        for event in run.events[1:-1]:
            family, _, phase = event.type.rpartition("_")
            if phase == "start":
                assert open_index is None, "a block opened before the previous one closed"
                assert event.contentIndex == next_index
                open_index = next_index
                next_index += 1
            else:
                assert event.contentIndex == open_index
                if phase == "end":
                    open_index = None
            block = run.message.content[event.contentIndex]
            assert (
                block.type
                == {"text": "text", "thinking": "thinking", "toolcall": "toolCall"}[family]
            )
        if kinds[-1] == "done":
            assert open_index is None
            assert next_index == len(run.message.content)

    table.check(((name, (name,)) for name in ALL_FIXTURES), check)


def test_every_event_holds_the_same_live_message(table):
    """No per-event copies: every event's ``partial`` (and the final message) is one object."""

    def check(name):
        run = run_fixture(name)
        holder = {"done": "message", "error": "error"}
        for event in run.events:
            assert getattr(event, holder.get(event.type, "partial")) is run.message
        if run.error is not None:
            assert partial_of(run.error) is run.message

    table.check(((name, (name,)) for name in ALL_FIXTURES), check)


def test_deltas_add_up_to_the_final_blocks(table):
    """Concatenated deltas equal each block's final text, thinking or argument JSON."""

    def check(name):
        run = run_fixture(name)
        assert run.events[-1].type == "done"
        deltas: dict[int, str] = {}
        for event in run.events:
            if event.type.endswith("_delta"):
                deltas[event.contentIndex] = deltas.get(event.contentIndex, "") + event.delta
        for index, block in enumerate(run.message.content):
            if isinstance(block, TextContent):
                assert deltas[index] == block.text
            elif isinstance(block, ThinkingContent):
                assert deltas[index] == block.thinking
            else:
                assert isinstance(block, ToolCall)
                assert _json_or_empty(deltas.get(index, "")) == block.arguments

    table.check(((name, (name,)) for name in SUCCESS), check)


def _json_or_empty(text: str) -> Any:
    import json

    return json.loads(text) if text else {}


# --- text and thinking ------------------------------------------------------------------


def test_empty_first_content_opens_no_block():
    """Mistral's first chunk (``content: ""``) produces no event at all."""
    state, _ = start(model=MODEL, now=0)
    assert map_data(state, chunk('{"role":"assistant","content":""}'), now=1) == []
    assert map_data(state, chunk('{"content":[{"type":"text","text":""}]}'), now=2) == []
    assert state.message.content == []
    assert state.message.ttft is None


def test_text_arrives_as_text_and_string_pieces_in_one_block():
    """A ``text`` chunk and a plain string continue the same text block."""
    run = run_fixture("thinking_then_text")
    assert [block.type for block in run.message.content] == ["thinking", "text"]
    assert run.message.content[1].text == "The answer is 4."


def test_consecutive_thinking_pieces_stay_one_block():
    """Thinking pieces over several chunks form a single thinking block."""
    run = run_fixture("thinking_then_text")
    thinking = run.message.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "The user asks for 2+2."
    assert [event.type for event in run.events].count("thinking_start") == 1


def test_thinking_signature_is_kept():
    """A ``signature`` on a thinking chunk becomes the block's ``thinkingSignature``."""
    run = run_fixture("thinking_signature")
    assert run.message.content[0].thinkingSignature == "c2lnbmF0dXJl"


def test_signature_alone_opens_a_thinking_block():
    """A thinking chunk with only a signature still keeps it (never dropped)."""
    state, _ = start(model=MODEL, now=0)
    events = map_data(
        state, chunk('{"content":[{"type":"thinking","thinking":[],"signature":"sig"}]}'), now=1
    )
    assert [event.type for event in events] == ["thinking_start"]
    assert state.message.content == [ThinkingContent(thinking="", thinkingSignature="sig")]


def test_text_grows_on_the_live_message():
    """``partial`` already shows each delta when its event is handed out."""
    state, _ = start(model=MODEL, now=0)
    seen = []
    for piece in ("a", "b", "c"):
        (event,) = [
            e
            for e in map_data(state, chunk(f'{{"content":"{piece}"}}'), now=1)
            if e.type == "text_delta"
        ]
        seen.append(event.partial.content[0].text)
    assert seen == ["a", "ab", "abc"]


def test_empty_thinking_opens_no_block():
    """A thinking chunk without text, markers or signature adds nothing."""
    state, _ = start(model=MODEL, now=0)
    empty = '{"content":[{"type":"thinking","thinking":[{"type":"reference","reference_ids":[]}]}]}'
    assert map_data(state, chunk(empty), now=1) == []
    assert state.message.content == []


# --- citations --------------------------------------------------------------------------


def test_reference_appends_a_marker_to_the_current_text_block():
    """``reference`` chunks become ``[0, 1]`` markers in the text; empty ids add nothing."""
    run = run_fixture("citations_in_text")
    assert run.message.content == [
        TextContent(text='[0, 1]Paris is the capital[2] of France.["doc-7", 3]')
    ]


def test_reference_inside_thinking_becomes_a_marker():
    """A nested ``reference`` part joins the thinking text as a marker."""
    run = run_fixture("citations_in_thinking")
    assert run.message.content[0].thinking == "The document says so[0]."


def test_reference_after_thinking_opens_a_text_block():
    """A top-level reference closes the thinking block and opens a text block."""
    state, _ = start(model=MODEL, now=0)
    map_data(
        state,
        chunk('{"content":[{"type":"thinking","thinking":[{"type":"text","text":"t"}]}]}'),
        now=1,
    )
    events = map_data(state, chunk('{"content":[{"type":"reference","reference_ids":[4]}]}'), now=2)
    assert [event.type for event in events] == ["thinking_end", "text_start", "text_delta"]
    assert state.message.content[1] == TextContent(text="[4]")


def test_non_array_reference_ids_are_rejected_naming_the_field():
    """A present but non-array ``reference_ids`` is a PROVIDER_ERROR naming the field."""
    run = run_fixture("rejected_reference_ids_not_array")
    assert isinstance(run.error, ProviderError)
    assert run.error.code is ErrorCode.PROVIDER_ERROR
    assert "reference_ids" in run.error.message
    assert "chunk 3" in run.error.message
    assert "0,1" not in run.error.message


# --- rejected chunk types (ADR 0014) ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "chunk_type"), [pytest.param(name, kind, id=name) for name, kind in REJECTED.items()]
)
def test_rejected_chunk_types_raise_naming_the_type(name, chunk_type):
    """Every type pi cannot show raises ``UnmappableChunkError`` naming it, never dropping it."""
    run = run_fixture(name)
    error = run.error
    assert isinstance(error, UnmappableChunkError)
    assert error.code is ErrorCode.PROVIDER_ERROR
    assert error.chunk_type == chunk_type
    assert (repr(chunk_type) if chunk_type else "without a type") in error.message
    assert error.provider == "mistral"
    assert run.message.stopReason == "error"
    assert run.message.errorMessage == error.message


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in REJECTED])
def test_rejected_chunks_never_leak_their_payload(name):
    """Errors, reprs and the error message hold no part of the rejected payload."""
    run = run_fixture(name)
    error = run.error
    assert error is not None
    texts = [str(error), repr(error), run.message.errorMessage or "", repr(run.message)]
    for secret in ("SECRET", "iVBORw0KGgo", "UklGRiQ", "secret-report", "0b5d8e9c", "secret.txt"):
        assert all(secret not in text for text in texts), secret


def test_audio_rejection_names_pi_as_the_blocker():
    """``input_audio`` says that pi's missing audio surface is what blocks it."""
    run = run_fixture("rejected_input_audio")
    assert "pi has no audio content surface" in str(run.error)
    assert "blocked on pi" in str(run.error)


def test_a_rejected_chunk_contributes_nothing():
    """The text before the rejected part in the same chunk is not mapped either."""
    run = run_fixture("rejected_image_url")
    assert run.message.content == [TextContent(text="Before. ")]
    assert [event.type for event in run.events] == ["start", "text_start", "text_delta", "error"]


def test_unknown_type_name_is_bounded():
    """An absurdly long unknown type name is cut short in the message and attribute."""
    state, _ = start(model=MODEL, now=0)
    kind = "x y " * 1000  # not a base64-like run, so only the bound shortens it
    with pytest.raises(UnmappableChunkError) as info:
        map_data(state, chunk(f'{{"content":[{{"type":"{kind}"}}]}}'), now=1)
    assert len(info.value.message) < 300
    assert info.value.chunk_type is not None
    assert len(info.value.chunk_type) <= 61


# --- tool calls -------------------------------------------------------------------------


def test_tool_call_arguments_are_parsed_at_the_end():
    """A whole call in one delta: start, one delta with the JSON, end with parsed arguments."""
    run = run_fixture("tool_call")
    end = next(event for event in run.events if event.type == "toolcall_end")
    assert end.toolCall == ToolCall(id="D681PevKs", name="get_weather", arguments={"city": "Paris"})
    assert run.message.stopReason == "toolUse"


def test_parallel_tool_calls_are_kept_apart():
    """Two calls in one delta become two blocks with their own ids and arguments."""
    run = run_fixture("parallel_tool_calls")
    assert run.message.content == [
        ToolCall(id="D681PevKs", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="aB3dE5gH7", name="get_weather", arguments={"city": "Lyon"}),
    ]


def test_fragmented_tool_call_accumulates_by_index():
    """Fragments with ``"null"``/missing ids and empty names accumulate into one call."""
    run = run_fixture("fragmented_tool_call")
    assert run.message.content == [
        ToolCall(id="k3Jd9XwQa", name="search", arguments={"query": "pi content model", "limit": 3})
    ]
    assert [event.type for event in run.events].count("toolcall_delta") == 3


def test_object_arguments_are_accepted():
    """``arguments`` sent as an object is taken as is (its JSON is the delta)."""
    run = run_fixture("tool_call_object_arguments")
    assert run.message.content[0].arguments == {"zone": "UTC"}


def test_missing_id_gets_a_deterministic_mistral_valid_id():
    """A call that never gets an id gets 9 alphanumerics, the same on every run."""
    first = run_fixture("tool_call_object_arguments").message.content[0].id
    again = run_fixture("tool_call_object_arguments").message.content[0].id
    assert first == again
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", first)


def test_missing_ids_differ_per_call():
    """Two id-less calls in one message get different ids."""
    state, _ = start(model=MODEL, now=0)
    calls = (
        '{"tool_calls":[{"function":{"name":"a","arguments":"{}"},"index":0},'
        '{"function":{"name":"b","arguments":"{}"},"index":1}]}'
    )
    map_data(state, chunk(calls, finish_reason="tool_calls"), now=1)
    finish(state, saw_done=True, now=2)
    first, second = state.message.content
    assert first.id != second.id


def test_empty_arguments_mean_no_arguments():
    """``arguments: ""`` (a tool without parameters) parses as ``{}``."""
    run = run_fixture("tool_call_no_arguments")
    assert run.message.content == [ToolCall(id="D681PevKs", name="list_files", arguments={})]


@pytest.mark.parametrize(
    ("name", "words"),
    [
        pytest.param("tool_call_invalid_json", "not valid JSON", id="invalid-json"),
        pytest.param("tool_call_arguments_not_object", "not an object", id="not-an-object"),
        pytest.param("length_in_tool_call", "max_tokens cut the call", id="cut-by-length"),
        pytest.param("tool_call_without_name", "no function name", id="no-name"),
    ],
)
def test_bad_tool_calls_fail_loudly_without_the_arguments(name, words):
    """Unusable arguments are a PROVIDER_ERROR, never silently replaced; no argument leaks."""
    run = run_fixture(name)
    assert isinstance(run.error, ProviderError)
    assert words in run.error.message
    assert "SECRET-ARG" not in run.error.message
    assert "Once upon" not in run.error.message


def test_interleaved_tool_call_fragments_are_rejected():
    """A fragment for a call that was already closed is a protocol error, not a silent merge."""
    run = run_fixture("interleaved_tool_calls")
    assert isinstance(run.error, ProviderError)
    assert "tool call index 0 arrived after the call was closed" in run.error.message


def test_tool_name_may_arrive_in_a_later_fragment():
    """A first fragment with an empty name is named by a later one."""
    state, _ = start(model=MODEL, now=0)
    first = '{"tool_calls":[{"id":"null","function":{"name":"","arguments":"{"},"index":0}]}'
    later = '{"tool_calls":[{"function":{"name":"search","arguments":"}"},"index":0}]}'
    map_data(state, chunk(first), now=1)
    map_data(state, chunk(later, finish_reason="tool_calls"), now=2)
    events = finish(state, saw_done=True, now=3)
    assert events[0].toolCall.name == "search"
    assert events[0].toolCall.arguments == {}


def test_changed_tool_name_is_rejected():
    """A later fragment naming a different function is a protocol error."""
    state, _ = start(model=MODEL, now=0)
    map_data(
        state, chunk('{"tool_calls":[{"function":{"name":"a","arguments":""},"index":0}]}'), now=1
    )
    with pytest.raises(ProviderError, match="changed its function name"):
        map_data(
            state,
            chunk('{"tool_calls":[{"function":{"name":"b","arguments":""},"index":0}]}'),
            now=2,
        )


def test_truncated_tool_call_keeps_what_parsed():
    """After a failure, the open tool call in ``partial`` has the arguments that did parse."""
    run = run_fixture("truncated_in_tool_call")
    assert isinstance(run.error, TransportError)
    assert run.message.content == [
        ToolCall(id="D681PevKs", name="search", arguments={"query": "pi"})
    ]


# --- finish reasons ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "stop_reason"),
    [
        pytest.param("text", "stop", id="stop"),
        pytest.param("finish_length", "length", id="length"),
        pytest.param("finish_model_length", "length", id="model_length"),
        pytest.param("tool_call", "toolUse", id="tool_calls"),
        pytest.param("finish_unknown", "stop", id="unknown"),
    ],
)
def test_finish_reason_maps_to_stop_reason(name, stop_reason):
    """``finish_reason`` decides ``stopReason`` and the ``done`` event's reason."""
    run = run_fixture(name)
    assert run.message.stopReason == stop_reason
    assert run.events[-1].type == "done"
    assert run.events[-1].reason == stop_reason


def test_unknown_finish_reason_is_kept():
    """An unknown ``finish_reason`` ends as ``stop`` but the raw value is kept."""
    run = run_fixture("finish_unknown")
    assert run.message.providerPayload == {"finishReason": "content_filter"}


def test_known_finish_reason_adds_no_payload():
    """Known reasons leave ``providerPayload`` unset (it is not written at all)."""
    run = run_fixture("finish_model_length")
    assert "providerPayload" not in run.message.model_dump()


def test_finish_reason_error_is_a_server_error():
    """``finish_reason: "error"``: the server failed (SERVER, retryable); partial message kept."""
    run = run_fixture("finish_error")
    assert isinstance(run.error, ServerError)
    assert run.error.code is ErrorCode.SERVER
    assert run.error.status is None
    assert "finish_reason 'error'" in run.error.message
    assert run.message.content == [TextContent(text="Partial")]
    assert run.events[-1].type == "error"


def test_done_without_finish_reason_is_a_truncation():
    """``[DONE]`` with no ``finish_reason`` before it: TRANSPORT, the stream never said why."""
    run = run_fixture("done_without_finish_reason")
    assert isinstance(run.error, TransportError)
    assert run.error.message.startswith("stream ended without finish_reason ([DONE] after")
    assert run.events[-1].type == "error"


def test_finish_reason_without_done_is_a_success():
    """A ``finish_reason`` and a clean end of body (no ``[DONE]``) is a normal finish."""
    run = run_fixture("finish_reason_without_done")
    assert run.error is None
    assert run.events[-1].type == "done"


def test_truncated_stream_is_a_transport_error():
    """Neither ``[DONE]`` nor ``finish_reason``: TRANSPORT, with the text so far."""
    run = run_fixture("truncated")
    assert isinstance(run.error, TransportError)
    assert run.error.message.startswith("stream ended without finish_reason")
    assert run.error.retryable
    assert run.message.content == [TextContent(text="The answer is forty")]
    assert run.message.stopReason == "error"


# --- usage, cost, id, timing ------------------------------------------------------------


@pytest.mark.parametrize(
    "usage",
    [
        pytest.param('{"prompt_tokens_details":{"cached_tokens":30}', id="prompt_tokens_details"),
        pytest.param('{"prompt_token_details":{"cached_tokens":30}', id="prompt_token_details"),
        pytest.param('{"num_cached_tokens":30', id="num_cached_tokens"),
    ],
)
def test_cached_tokens_become_cache_read(usage):
    """All three spellings of cached prompt tokens land in ``cacheRead``, priced as such."""
    state, _ = start(model=MODEL, now=0)
    body = usage + ',"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}'
    map_data(state, chunk('{"content":"x"}', finish_reason="stop", usage=body), now=1)
    finish(state, saw_done=True, now=2)
    got = state.message.usage
    assert (got.input, got.cacheRead, got.output, got.totalTokens) == (70, 30, 20, 120)
    rates = MODEL.cost
    assert got.cost.input == pytest.approx(70 * rates.input / 1e6)
    assert got.cost.cacheRead == pytest.approx(30 * rates.cacheRead / 1e6)
    assert got.cost.output == pytest.approx(20 * rates.output / 1e6)
    assert got.cost.total == pytest.approx(got.cost.input + got.cost.cacheRead + got.cost.output)


def test_reasoning_tokens_are_kept():
    """``completion_tokens_details.reasoning_tokens`` becomes ``reasoningTokens``."""
    run = run_fixture("thinking_then_text")
    assert run.message.usage.reasoningTokens == 12


def test_total_tokens_default_to_the_sum():
    """A usage without ``total_tokens`` counts prompt plus completion."""
    state, _ = start(model=MODEL, now=0)
    map_data(state, chunk("{}", usage='{"prompt_tokens":5,"completion_tokens":2}'), now=1)
    assert state.message.usage.totalTokens == 7


def test_usage_only_final_chunk_is_handled():
    """A last chunk with ``choices: []`` and usage sets usage and cost."""
    run = run_fixture("usage_only_final_chunk")
    usage = run.message.usage
    assert (usage.input, usage.cacheRead, usage.output, usage.totalTokens) == (4, 8, 2, 14)
    assert usage.cost.total > 0


def test_response_id_is_the_first_non_empty_chunk_id():
    """``responseId`` comes from the chunk ``id``; an empty id leaves it absent."""
    assert run_fixture("text").message.responseId == "59060ef9339a4112b2c9e57e3ee6199d"
    empty = run_fixture("empty_id").message
    assert empty.responseId is None
    assert "responseId" not in empty.model_dump()


def test_timing_is_in_milliseconds_from_the_injected_clock():
    """``timestamp`` is the start, ``ttft`` the first content, ``duration`` the end (ms)."""
    run = run_fixture("text")  # readings: start, then one per data payload
    message = run.message
    assert message.timestamp == START
    assert message.ttft == 2 * STEP  # the first chunk (content "") is not a token
    assert message.duration == 4 * STEP
    assert message.completedAt == START + 4 * STEP


# --- protocol and in-band errors --------------------------------------------------------


def test_malformed_json_names_the_chunk_not_the_payload():
    """A payload that is not JSON is a PROVIDER_ERROR naming the chunk number."""
    run = run_fixture("malformed_json")
    assert isinstance(run.error, ProviderError)
    assert "chunk 3" in run.error.message
    assert "Invalid JSON" in run.error.message
    assert '"lo' not in run.error.message
    assert run.error.__cause__ is not None


def test_json_that_is_not_a_chunk_names_a_missing_field():
    """A JSON object that is neither a chunk nor an error names what is missing."""
    run = run_fixture("not_a_chunk")
    assert isinstance(run.error, ProviderError)
    assert "'id': Field required" in run.error.message


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param("[]", id="list"),
        pytest.param("{}", id="object"),
        pytest.param("5", id="number"),
    ],
)
def test_non_string_chunk_type_is_malformed_not_a_crash(kind):
    """A ``type`` that is not a string is a ``PROVIDER_ERROR`` naming the field."""
    state, _ = start(model=MODEL, now=0)
    with pytest.raises(ProviderError, match=r"'choices\[0\]\.delta\.content\[0\]\..*type'"):
        map_data(state, chunk(f'{{"content":[{{"type":{kind}}}]}}'), now=1)
    assert state.message.stopReason == "error"


def test_json_array_payload_is_malformed():
    """A JSON array is neither a chunk nor an error object."""
    state, _ = start(model=MODEL, now=0)
    with pytest.raises(ProviderError, match="chunk 1: not a valid Mistral chunk: Input should be"):
        map_data(state, b'[{"error": "x"}]', now=1)


def test_second_choice_is_rejected():
    """We never ask for ``n > 1``: a choice with another index is an error, not dropped."""
    run = run_fixture("second_choice")
    assert isinstance(run.error, ProviderError)
    assert "choice index 1" in run.error.message
    assert run.message.content == []


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("inband_error_object", id="object"),
        pytest.param("inband_error_envelope", id="envelope"),
    ],
)
def test_inband_error_carries_the_partial(name):
    """An error object inside the 200 stream raises, with the text so far on the error."""
    run = run_fixture(name)
    assert run.error is not None
    assert run.error.provider == "mistral"
    assert "chunk 3" in run.error.message
    assert partial_of(run.error) is run.message
    assert run.message.content == [TextContent(text="Hel")]


def test_inband_rate_limit_is_classified_by_its_content():
    """``raw_status_code: 429`` inside a 200 stream is RATE_LIMIT, not a 200 success."""
    run = run_fixture("inband_error_object")
    assert run.error is not None
    assert run.error.code is ErrorCode.RATE_LIMIT
    assert run.error.status == 429
    assert run.message.errorStatus == 429


def test_inband_server_error_is_classified_by_its_content():
    """An OpenAI-style ``{"error": {"type": "server_error"}}`` envelope is SERVER."""
    run = run_fixture("inband_error_envelope")
    assert isinstance(run.error, ServerError)


def test_error_key_on_a_valid_chunk_is_not_ignored():
    """A chunk that parses but also carries an ``error`` object still raises."""
    state, _ = start(model=MODEL, now=0)
    data = chunk('{"content":"x"}')[:-1] + b',"error":{"message":"upstream failed"}}'
    with pytest.raises(LlmError, match="upstream failed"):
        map_data(state, data, now=1)
    assert state.ended


def test_the_word_error_in_text_is_just_text():
    """Content that mentions ``"error"`` is mapped normally."""
    state, _ = start(model=MODEL, now=0)
    events = map_data(state, chunk('{"content":"error"}'), now=1)
    assert [event.type for event in events] == ["text_start", "text_delta"]


# --- fail, finish and the state machine -------------------------------------------------


def test_fail_with_aborted_error_sets_aborted():
    """An ABORTED error ends the message with ``stopReason`` ``aborted``."""
    state, _ = start(model=MODEL, now=0)
    map_data(state, chunk('{"content":"Hi"}'), now=1)
    error = AbortedError("cancelled by the caller")
    event = fail(state, error, now=5)
    assert event.reason == "aborted"
    assert event.error is state.message
    assert state.message.stopReason == "aborted"
    assert state.message.errorMessage == "cancelled by the caller"
    assert state.message.duration == 5
    assert partial_of(error) is state.message


def test_fail_records_the_status():
    """An error with an HTTP status sets ``errorStatus`` on the message."""
    state, _ = start(model=MODEL, now=0)
    fail(state, LlmTimeoutError("read timed out", status=504), now=1)
    assert state.message.errorStatus == 504


def test_fail_again_for_the_raised_error_returns_the_same_event():
    """The shell may call ``fail`` for an error the mapper raised: nothing changes."""
    state, _ = start(model=MODEL, now=0)
    with pytest.raises(TransportError) as info:
        finish(state, saw_done=False, now=7)
    first = state.error_event
    assert fail(state, info.value, now=99) is first
    assert state.message.duration == 7


def test_calls_after_the_end_are_bugs():
    """Feeding a finished stream is a ``RuntimeError``, outside the ``LlmError`` tree."""
    state, _ = start(model=MODEL, now=0)
    map_data(state, chunk('{"content":""}', finish_reason="stop"), now=1)
    map_data(state, b"[DONE]", now=1)
    with pytest.raises(RuntimeError, match="already ended"):
        map_data(state, chunk('{"content":"late"}'), now=2)
    with pytest.raises(RuntimeError, match="already ended"):
        finish(state, saw_done=True, now=3)


def test_a_finished_stream_cannot_fail():
    """After ``done``, ``fail`` is a bug: the final message is never rewritten."""
    state, _ = start(model=MODEL, now=0)
    map_data(state, chunk('{"content":""}', finish_reason="stop"), now=1)
    map_data(state, b"[DONE]", now=1)
    with pytest.raises(RuntimeError, match="already ended with 'done'"):
        fail(state, AbortedError("late"), now=2)
    assert state.message.stopReason == "stop"


def test_map_chunk_takes_parsed_chunks():
    """``map_chunk`` maps a chunk parsed elsewhere, with the same result as ``map_data``."""
    state, _ = start(model=MODEL, now=0)
    events = map_chunk(state, parse_completion_chunk(chunk('{"content":"Hi"}')), now=1)
    assert [event.type for event in events] == ["text_start", "text_delta"]
    assert state.chunks == 1


def test_any_split_of_the_body_maps_the_same():
    """Feeding the body byte by byte gives the same events as one read."""
    raw = (FIXTURES / "thinking_then_text.sse").read_bytes()
    whole = run_bytes(raw)
    split = run_bytes(raw, reads=[raw[i : i + 1] for i in range(len(raw))])
    assert [record(e) for e in split.events] == [record(e) for e in whole.events]
    assert split.message == whole.message


def test_error_with_partial_pickles():
    """The error keeps its chunk type and partial message through pickling."""
    error = run_fixture("rejected_file").error
    assert isinstance(error, UnmappableChunkError)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is UnmappableChunkError
    assert copy.chunk_type == "file"
    assert partial_of(copy) == partial_of(error)
    assert copy.with_context(status=None).chunk_type == "file"


def test_partial_of_other_errors_is_none():
    """``partial_of`` is ``None`` for errors that did not come from the mapper."""
    assert partial_of(ValueError("x")) is None
    assert partial_of(ProviderError("x")) is None


def _delta_json(kind: str, text: str, call: int) -> dict[str, Any]:
    """The ``delta`` of one chunk of a generated stream."""
    if kind == "plain":
        return {"content": text}
    if kind == "first":
        return {"role": "assistant", "content": ""}
    if kind == "typed":
        return {"content": [{"type": "text", "text": text}]}
    if kind == "thinking":
        return {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": text}]}]}
    if kind == "signed":
        thinking = {"type": "thinking", "thinking": [], "signature": text, "closed": True}
        return {"content": [thinking]}
    if kind == "mixed":
        pieces = [{"type": "text", "text": text}, {"type": "text", "text": "!"}]
        thinking = {"type": "thinking", "thinking": pieces}
        return {"content": [thinking, {"type": "text", "text": text}]}
    if kind == "reference":
        return {"content": [{"type": "reference", "reference_ids": [call]}]}
    function = {"name": f"f{call}", "arguments": f'{{"n": {call}}}'}
    return {"content": "", "tool_calls": [{"id": "abcdefgh1", "function": function, "index": call}]}


@st.composite
def _mixed_streams(draw: st.DrawFn) -> list[bytes]:
    """Payloads of a stream: text and thinking chunks (the fast path) among other kinds."""
    kinds = ["plain", "plain", "first", "typed", "thinking", "signed", "mixed", "reference", "tool"]
    payloads = []
    for call, kind in enumerate(draw(st.lists(st.sampled_from(kinds), max_size=12))):
        chunk_json = {
            "id": draw(st.sampled_from(["", "cmpl-1", "cmpl-2"])),
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": _delta_json(kind, draw(st.text(max_size=4)), call)}],
        }
        payloads.append(json.dumps(chunk_json).encode())
    return [*payloads, chunk('{"content":""}', finish_reason="stop")]


@given(_mixed_streams())
def test_text_fast_path_maps_like_the_general_path(payloads):
    """``map_data`` (fast path for text and thinking) gives what ``map_chunk`` gives."""
    fast, _ = start(model=MODEL, now=START)
    general, _ = start(model=MODEL, now=START)
    for now, payload in enumerate(payloads, START + 1):
        expected = map_chunk(general, parse_completion_chunk(payload), now=now)
        got = map_data(fast, payload, now=now)
        assert [event.model_dump() for event in got] == [e.model_dump() for e in expected]
        assert fast.message == general.message
        assert (fast.chunks, fast.open_index) == (general.chunks, general.open_index)
    done = finish(fast, saw_done=True, now=0)
    assert [e.model_dump() for e in done] == [
        e.model_dump() for e in finish(general, saw_done=True, now=0)
    ]
