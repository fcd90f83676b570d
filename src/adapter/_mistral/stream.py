"""Mistral stream chunks -> pi assistant events: pure functions over a small state.

The I/O shell feeds every SSE ``data:`` payload to :func:`map_data` (or an already
parsed :class:`~adapter._mistral.wire.CompletionChunk` to :func:`map_chunk`) and yields the
events it returns; when the body ends without ``[DONE]`` it calls :func:`finish`;
when anything fails it calls :func:`fail` for the final ``error`` event::

    state, events = start(model=model, now=clock())
    try:
        for sse in iter_events(response.iter_bytes()):
            yield from map_data(state, sse.data_bytes, now=clock())
            if state.ended:
                break
        else:
            yield from finish(state, saw_done=False, now=clock())
    except LlmError as exc:
        event = fail(state, exc, now=clock())  # never_raise: yield event instead
        raise

:func:`map_data` parses with :func:`~adapter._mistral.wire.parse_chunk`: a chunk that only
adds text or reasoning (nearly all of them) arrives as ``(id, model, content)`` and is mapped
without building model instances, with the result :func:`map_chunk` gives for the
parsed chunk (a property test checks it); every other chunk goes through
:func:`map_chunk`.

``now`` is the wall clock in epoch milliseconds (pi's unit): the message
``timestamp`` is ``now`` at :func:`start`, ``ttft`` and ``duration`` are
differences in milliseconds, ``completedAt`` is ``now`` at the end.

Mapping, per ADR 0014 (map or reject, never drop):

- a string ``content`` and ``text`` chunks append to a text block; an empty string
  opens no block (Mistral's first chunk carries ``content: ""``);
- ``thinking`` chunks append to a thinking block (consecutive pieces stay one block);
  their nested ``text`` parts join the thinking text, nested ``reference`` parts
  become citation markers, a ``signature`` becomes ``thinkingSignature``; the
  ``closed`` flag is only used for prefixing requests and is not kept;
- a ``reference`` chunk appends the citation marker ``[0, 1]`` (its ``reference_ids``
  as JSON) to the current text block, opening one if needed; empty ``reference_ids``
  add nothing; a non-array ``reference_ids`` is a malformed chunk;
- every other chunk type (``image_url``, ``document_url``, ``file``, ``input_audio``,
  ``resource``, ``resource_link``, an unknown or missing type, and a thinking part
  other than ``text``/``reference`` such as ``tool_reference``) raises
  :class:`~adapter._mistral.errors.UnmappableChunkError` naming the type. A chunk is checked
  before it is mapped, so a rejected chunk contributes nothing: the error's
  ``partial`` holds exactly what the events before it delivered.

Blocks: a block is closed (``*_end``) before the next one opens, and
``contentIndex`` is the block's index in ``partial.content``. ``partial`` is the live
message: every event holds the same object and nothing is copied per event. Text and
thinking grow in place (see :func:`_append`), so the cost of an event does not grow
with the length of the message.

Tool calls are keyed by their ``index``. They usually arrive whole in one delta but
may come in fragments: the first fragment opens the block (``toolcall_start``),
every non-empty ``arguments`` fragment is a ``toolcall_delta`` (an object is sent as
its JSON text), and the call closes (``toolcall_end``) when another block opens or
at the end. ``arguments`` stays ``{}`` in ``partial`` until then (parsing per
fragment would make the cost grow with the arguments' length); at the close it is
parsed, ``""`` meaning ``{}``. Arguments that are not a JSON object raise a
``PROVIDER_ERROR`` naming the call (never silently replaced by ``{}``, since a tool
run with half its arguments is worse than an error); after a failure ``partial``
keeps what did parse. A fragment for a call that was already closed (interleaved
calls) is a protocol error, because a closed block cannot grow. An ``id`` that is
missing or the string ``"null"`` counts as missing; a call that never gets one is
given a deterministic 9-character id (hex, valid for Mistral's ``^[a-zA-Z0-9]{9}$``)
derived from the response id, the message timestamp and the call's index.

``finish_reason``: ``stop`` -> ``stop``, ``length``/``model_length`` -> ``length``,
``tool_calls`` -> ``toolUse``; ``error`` (the server stopped because of its own
failure) raises a ``ServerError`` (``SERVER``, retryable) at the end; any other
value -> ``stop`` with the raw value kept in ``providerPayload["finishReason"]``
(never a crash, never lost). The last
``finish_reason`` wins. Usage (from any chunk, the last wins; a usage-only chunk with
``choices: []`` is fine) gives ``input`` (uncached prompt tokens), ``cacheRead``,
``output``, ``totalTokens`` and ``reasoningTokens``, priced by
:func:`~adapter._mistral.catalog.calculate_cost`. ``responseId`` is the first non-empty
chunk ``id``; ``upstreamModel`` is the first ``model`` a chunk reports that differs
from the requested id (e.g. the dated model serving an alias). Only one choice is
supported (we never ask for ``n > 1``): a choice with another ``index`` is a
protocol error, not silently ignored. ``delta.role`` is not used.

End of stream: success needs a ``finish_reason``; without one, :func:`finish`
raises ``TransportError("stream ended without finish_reason …")``, whether or not
``[DONE]`` came (a stream that never said why it stopped was cut short).
An error object inside the stream is classified by its content
(:func:`~adapter._mistral.errors.error_from_payload`). Every error these functions raise has
gone through :func:`fail`: ``error.partial`` is the message with ``stopReason`` and
``errorMessage`` set.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Literal, assert_never

from pydantic import ValidationError

from adapter._mistral.catalog import calculate_cost
from adapter._mistral.errors import (
    PROVIDER,
    UnmappableChunkError,
    attach_partial,
    bounded_name,
    error_from_payload,
    is_error_object,
    loads_or_none,
    malformed_chunk_error,
    partial_of,
    protocol_error,
    quote_name,
)
from adapter._mistral.resume import add_usage
from adapter._mistral.wire import (
    AudioChunk,
    CompletionChunk,
    CompletionResponseStreamChoice,
    DeltaContentChunk,
    DocumentURLChunk,
    FileChunk,
    ImageURLChunk,
    PlainChunk,
    ReferenceChunk,
    ResourceChunk,
    ResourceLinkChunk,
    TextChunk,
    ThinkChunk,
    ThinkPart,
    ToolReferenceChunk,
    UnknownChunk,
    UsageInfo,
    WireToolCall,
    parse_chunk,
)
from adapter._sse import DONE
from adapter.pi._content import TextContent, ThinkingContent, ToolCall, Usage, UsageCost
from adapter.pi._events import (
    AssistantDoneEvent,
    AssistantErrorEvent,
    AssistantMessageEvent,
    AssistantStartEvent,
    AssistantTextEndEvent,
    AssistantTextStartEvent,
    AssistantThinkingEndEvent,
    AssistantThinkingStartEvent,
    AssistantToolCallEndEvent,
    AssistantToolCallStartEvent,
    text_delta_event,
    thinking_delta_event,
    toolcall_delta_event,
)
from adapter.pi._messages import AssistantMessage
from adapter.pi._model import ModelInfo
from llm_errors import ErrorCode, LlmError, ServerError, TransportError

__all__ = ["StreamState", "fail", "finish", "map_chunk", "map_data", "reopen", "start"]

_STOP_REASONS: dict[str, Literal["stop", "length", "toolUse"]] = {
    "stop": "stop",
    "length": "length",
    "model_length": "length",
    "tool_calls": "toolUse",
}

#: Why each rejected chunk type has no pi surface (ADR 0014); the error quotes it.
_REJECTED = {
    "image_url": "pi has no assistant image output (assistant content is text, thinking "
    "and tool calls)",
    "document_url": "pi has no document surface",
    "file": "pi has no file surface",
    "input_audio": "pi has no audio content surface (blocked on pi: pi 1.4.0 has no "
    "AudioContent block and no audio input modality)",
    "resource": "pi has no resource surface",
    "resource_link": "pi has no resource link surface",
    "tool_reference": "pi has no surface for built-in tool references",
}

_TOOL_ID_LENGTH = 9


@dataclass(slots=True)
class _ToolBlock:
    """A tool call being streamed: its block and its argument fragments."""

    call: ToolCall
    index: int
    has_id: bool
    fragments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class StreamState:
    """Everything the mapper remembers between chunks of one stream.

    Attributes:
        model: The model the call used (for cost and error context).
        message: The live assistant message; every event's ``partial`` is this object.
        started: ``now`` at :func:`start`, in epoch milliseconds.
        chunks: How many ``data:`` payloads were received (error messages cite it).
        finish_reason: The last ``finish_reason`` received, if any.
        ended: Whether the terminal event (``done`` or ``error``) has been produced;
            the shell stops reading once it is set.
        open_block: The open block, always the last one in ``message.content``
            (``None`` when none is open); ``open_index`` is its index.
        tools: The tool calls seen so far, by their wire ``index``.
        error_event: The ``error`` event, once :func:`fail` has produced it.
        response_model: The ``model`` of the latest chunk that was not plain text (the
            finish chunk has one): the model that answered, for telemetry.
        prior_usage: The usage of the requests a resumed stream made before this one,
            added to what this one reports (:func:`reopen`).

    The mapper's bookkeeping: read it, do not change it.

    .. versionadded:: 0.1.0
    """

    model: ModelInfo
    message: AssistantMessage
    started: float
    chunks: int = 0
    finish_reason: str | None = None
    ended: bool = False
    open_block: TextContent | ThinkingContent | _ToolBlock | None = None
    open_index: int = -1
    tools: dict[int, _ToolBlock] = field(default_factory=dict)
    error_event: AssistantErrorEvent | None = None
    response_model: str | None = None
    prior_usage: Usage | None = None


def start(*, model: ModelInfo, now: float) -> tuple[StreamState, list[AssistantMessageEvent]]:
    """Begin a stream: the empty message and the ``start`` event.

    .. versionadded:: 0.1.0
    """
    cost = UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0)
    usage = Usage(input=0, output=0, cacheRead=0, cacheWrite=0, totalTokens=0, cost=cost)
    message = AssistantMessage(
        content=[],
        api=model.api,
        provider=model.provider,
        model=model.id,
        usage=usage,
        stopReason="stop",
        timestamp=now,
    )
    state = StreamState(model=model, message=message, started=now)
    return state, [AssistantStartEvent(partial=message)]


def map_data(state: StreamState, data: bytes, *, now: float) -> list[AssistantMessageEvent]:
    """Map one SSE ``data:`` payload: ``[DONE]``, an in-band error, or a chunk.

    ``[DONE]`` finishes the stream (the events of :func:`finish`). A payload with an
    ``error`` object (or ``"object": "error"``) raises the classified error. A payload
    that is not JSON, or not a chunk, raises a ``PROVIDER_ERROR`` naming the chunk
    number and the offending field.

    .. versionadded:: 0.1.0
    """
    if data == DONE:
        return finish(state, saw_done=True, now=now)
    if state.ended:
        _check_open(state)
    chunk = _parse(state, data, now)
    if isinstance(chunk, tuple):
        return _map_plain(state, chunk, now)
    marker = chunk.object  # "chat.completion.chunk": the length test spares a lower()
    if chunk.error is not None or (
        marker is not None and len(marker) == len("error") and marker.lower() == "error"
    ):
        # a chunk-shaped payload that is also an error object: decode it to classify it
        inband = _inband_error(state, data, state.chunks + 1)
        if inband is not None:
            state.chunks += 1
            raise _failed(state, inband, now)
    return map_chunk(state, chunk, now=now)


def _parse(state: StreamState, data: bytes, now: float) -> PlainChunk | CompletionChunk:
    """Parse a payload; one that is not a chunk raises its in-band or malformed-chunk error."""
    try:
        return parse_chunk(data)
    except ValidationError as exc:
        position = state.chunks + 1
        state.chunks = position
        inband = _inband_error(state, data, position)
        if inband is not None:
            raise _failed(state, inband, now) from None
        error = malformed_chunk_error(exc, position=position, model=state.model.id)
        raise _failed(state, error, now) from exc


def _map_plain(state: StreamState, chunk: PlainChunk, now: float) -> list[AssistantMessageEvent]:
    """The hot path: a chunk that only adds text or reasoning (nearly all of them).

    What :func:`map_chunk` does with such a chunk, minus the model instances and the
    checks the shape has already passed.
    """
    chunk_id, model, content = chunk
    state.chunks += 1
    message = state.message
    if chunk_id and message.responseId is None:
        message.responseId = chunk_id
    if model != message.model and message.upstreamModel is None:
        message.upstreamModel = model  # e.g. the dated model serving an alias
    events: list[AssistantMessageEvent] = []
    if isinstance(content, str):
        block = state.open_block
        if content and block.__class__ is TextContent:
            values = block.__dict__  # _append(block, "text", content), inlined
            grown: str = values.pop("text")
            grown += content
            values["text"] = grown
            return [text_delta_event(state.open_index, content, message)]
        if content:
            _append_text(state, content, now, events)
        return events
    for kind, text, signature in content:
        if kind == "thinking":
            _append_thinking(state, text, signature, now, events)
        elif text:
            _append_text(state, text, now, events)
    return events


def map_chunk(
    state: StreamState, chunk: CompletionChunk, *, now: float
) -> list[AssistantMessageEvent]:
    """Map one parsed chunk to the events it produces (often one ``*_delta``).

    .. versionadded:: 0.1.0
    """
    if state.ended:
        _check_open(state)
    state.chunks += 1
    message = state.message
    if chunk.id and message.responseId is None:
        message.responseId = chunk.id
    state.response_model = chunk.model
    if chunk.model != message.model and message.upstreamModel is None:
        message.upstreamModel = chunk.model  # e.g. the dated model serving an alias
    if chunk.usage is not None:
        _apply_usage(state, chunk.usage)
    choices = chunk.choices
    if not choices:
        return []
    for choice in choices:
        _check_choice(state, choice, now)
    events: list[AssistantMessageEvent] = []
    for choice in choices:
        _map_choice(state, choice, now, events)
    return events


def _check_choice(state: StreamState, choice: CompletionResponseStreamChoice, now: float) -> None:
    """Reject a choice we cannot map before mapping any of the chunk."""
    if choice.index != 0:
        raise _protocol_failure(
            state, f"choice index {choice.index}: only one choice (index 0) is supported", now
        )
    content = choice.delta.content
    if isinstance(content, list):
        _check_parts(state, content, now)


def _map_choice(
    state: StreamState,
    choice: CompletionResponseStreamChoice,
    now: float,
    events: list[AssistantMessageEvent],
) -> None:
    """Map one checked choice: its content, its tool calls, its finish reason."""
    delta = choice.delta
    content = delta.content
    if isinstance(content, str):
        if content:
            _append_text(state, content, now, events)
    elif content is not None:
        for part in content:
            _map_part(state, part, now, events)
    for call in delta.tool_calls or ():
        _map_tool_call(state, call, now, events)
    if choice.finish_reason is not None:
        state.finish_reason = choice.finish_reason


def finish(state: StreamState, *, saw_done: bool, now: float) -> list[AssistantMessageEvent]:
    """End the stream: close the open block, settle the stop reason, emit ``done``.

    Raises:
        TransportError: neither ``[DONE]`` nor a ``finish_reason`` arrived (the body
            was cut short).
        LlmError: ``finish_reason`` was ``error`` (classified), or a tool call's
            arguments are not a JSON object.

    .. versionadded:: 0.1.0
    """
    _check_open(state)
    reason = state.finish_reason
    message = state.message
    if reason is None:
        ended = "[DONE]" if saw_done else "no [DONE]"
        raise _failed(
            state,
            TransportError(
                f"stream ended without finish_reason ({ended} after {state.chunks} chunks)",
                provider=PROVIDER,
                model=state.model.id,
                rule="adapter.truncated",
            ),
            now,
        )
    if reason == "error":
        # The server stopped generating because of its own failure: a server error
        # (retryable), like a 5xx, not a payload we cannot follow.
        raise _failed(
            state,
            ServerError(
                f"Mistral ended the stream with finish_reason 'error' at chunk {state.chunks}",
                provider=PROVIDER,
                model=state.model.id,
                rule="adapter.finish_reason_error",
            ),
            now,
        )
    events: list[AssistantMessageEvent] = []
    _close(state, now, events)
    stop = _STOP_REASONS.get(reason or "stop")
    if stop is None:
        payload = dict(message.providerPayload or {})
        payload["finishReason"] = reason
        message.providerPayload = payload
        stop = "stop"
    message.stopReason = stop
    message.duration = now - state.started
    message.completedAt = now
    state.ended = True
    events.append(AssistantDoneEvent(reason=stop, message=message))
    return events


def fail(state: StreamState, error: LlmError, *, now: float) -> AssistantErrorEvent:
    """Record a failure on the message and return the final ``error`` event.

    Sets ``stopReason`` (``aborted`` for an ``ABORTED`` error, else ``error``),
    ``errorMessage``, ``errorStatus`` (when the error has a status), ``duration`` and
    ``completedAt``, and attaches the message to ``error`` (:func:`partial_of`).
    Calling it again for the error the mapper already raised returns the same event.

    Raises:
        RuntimeError: the stream already ended with ``done`` (a finished message is
            never turned into an error afterwards).

    .. versionadded:: 0.1.0
    """
    message = state.message
    if state.error_event is not None and partial_of(error) is message:
        return state.error_event
    if state.ended and state.error_event is None:
        raise RuntimeError("this stream already ended with 'done'; it cannot fail afterwards")
    _settle_tool_arguments(state)
    reason: Literal["aborted", "error"] = "aborted" if error.code is ErrorCode.ABORTED else "error"
    message.stopReason = reason
    message.errorMessage = str(error)
    if error.status is not None:
        message.errorStatus = error.status
    message.duration = now - state.started
    message.completedAt = now
    state.ended = True
    attach_partial(error, message)
    event = AssistantErrorEvent(reason=reason, error=message)
    state.error_event = event
    return event


def reopen(state: StreamState) -> None:
    """Undo :func:`fail` so that a continuation request extends the message.

    The blocks stay as they are, the open one open, so the continuation's first text
    or thinking grows it under the same ``contentIndex``. The usage so far is kept
    and the continuation's is added to it (``prior_usage``).

    .. versionadded:: 0.3.0
    """
    message = state.message
    state.ended = False
    state.error_event = None
    state.finish_reason = None
    state.prior_usage = message.usage
    message.stopReason = "stop"
    message.errorMessage = None
    message.errorStatus = None
    message.duration = None
    message.completedAt = None


# --- internals ------------------------------------------------------------------------


def _check_open(state: StreamState) -> None:
    if state.ended:
        raise RuntimeError("this stream has already ended; start a new StreamState")


def _failed(state: StreamState, error: LlmError, now: float) -> LlmError:
    """Apply :func:`fail` and return the error, for ``raise _failed(...)``."""
    fail(state, error, now=now)
    return error


def _protocol_failure(state: StreamState, what: str, now: float) -> LlmError:
    """A wire shape we cannot follow, at the current chunk: failed and returned for ``raise``."""
    return _failed(state, protocol_error(what, position=state.chunks, model=state.model.id), now)


def _inband_error(state: StreamState, data: bytes, position: int) -> LlmError | None:
    """The classified error if ``data`` is an error object, else ``None``."""
    payload = loads_or_none(data)
    if is_error_object(payload):
        return error_from_payload(payload, model=state.model.id, position=position)
    return None


def _unmappable(state: StreamState, kind: str | None, now: float, *, inside: str = "") -> LlmError:
    where = f" inside a {inside} chunk" if inside else ""
    if kind is None:
        text = f"a content chunk without a type{where} cannot be mapped"
    elif kind in _REJECTED:
        text = f"content chunk type {kind!r}{where} cannot be mapped: {_REJECTED[kind]}"
    else:
        text = f"unknown content chunk type {quote_name(kind)}{where} cannot be mapped"
    error = UnmappableChunkError(
        f"chunk {state.chunks}: {text} (ADR 0014: map or reject, never drop)",
        chunk_type=None if kind is None else bounded_name(kind),
        provider=PROVIDER,
        model=state.model.id,
        rule="adapter.unmappable_chunk",
    )
    return _failed(state, error, now)


def _check_parts(state: StreamState, parts: list[DeltaContentChunk], now: float) -> None:
    """Reject the chunk before mapping any of it if one part has no pi surface."""
    for part in parts:
        match part:
            case TextChunk() | ReferenceChunk():
                pass
            case ThinkChunk():
                for inner in part.thinking:
                    _check_think_part(state, inner, now)
            case (
                ImageURLChunk()
                | DocumentURLChunk()
                | FileChunk()
                | AudioChunk()
                | ResourceChunk()
                | ResourceLinkChunk()
            ):
                raise _unmappable(state, part.type, now)
            case UnknownChunk():
                raise _unmappable(state, part.type, now)
            case _:  # pragma: no cover - exhaustive: mypy checks it
                assert_never(part)


def _check_think_part(state: StreamState, part: ThinkPart, now: float) -> None:
    match part:
        case TextChunk() | ReferenceChunk():
            pass
        case ToolReferenceChunk():
            raise _unmappable(state, part.type, now, inside="thinking")
        case UnknownChunk():
            raise _unmappable(state, part.type, now, inside="thinking")
        case _:  # pragma: no cover - exhaustive: mypy checks it
            assert_never(part)


def _marker(part: ReferenceChunk) -> str:
    """The citation marker ``[0, 1]``: the ids as JSON, so string ids stay exact."""
    return json.dumps(part.reference_ids, ensure_ascii=False) if part.reference_ids else ""


def _map_part(
    state: StreamState, part: DeltaContentChunk, now: float, events: list[AssistantMessageEvent]
) -> None:
    """Map one checked part (see :func:`_check_parts`)."""
    if isinstance(part, TextChunk):
        if part.text:
            _append_text(state, part.text, now, events)
    elif isinstance(part, ThinkChunk):
        pieces = [
            inner.text if isinstance(inner, TextChunk) else _marker(inner)
            for inner in part.thinking
            if isinstance(inner, TextChunk | ReferenceChunk)
        ]
        _append_thinking(state, "".join(pieces), part.signature, now, events)
    elif isinstance(part, ReferenceChunk):
        marker = _marker(part)
        if marker:
            _append_text(state, marker, now, events)
    else:  # pragma: no cover - _check_parts rejected every other type
        raise TypeError(part.type)


def _append(block: TextContent | ThinkingContent, key: str, delta: str) -> None:
    """Grow ``block.<key>`` in place.

    ``block.text += delta`` copies the whole string every time (quadratic over a long
    message). Popping it out of the pydantic instance's ``__dict__`` leaves the local
    name as its only reference, and CPython then resizes a string in place on ``+=``.
    """
    values = block.__dict__
    grown: str = values.pop(key)
    grown += delta
    values[key] = grown


def _open_block(
    state: StreamState,
    block: TextContent | ThinkingContent | _ToolBlock,
    now: float,
    events: list[AssistantMessageEvent],
) -> int:
    """Close the open block, append ``block``, and return its content index."""
    _close(state, now, events)
    message = state.message
    message.content.append(block.call if isinstance(block, _ToolBlock) else block)
    index = len(message.content) - 1
    state.open_block = block
    state.open_index = index
    if message.ttft is None:
        message.ttft = now - state.started
    return index


def _append_text(
    state: StreamState, text: str, now: float, events: list[AssistantMessageEvent]
) -> None:
    block = state.open_block
    message = state.message
    if block.__class__ is TextContent:
        index = state.open_index
    else:
        block = TextContent(text="")
        index = _open_block(state, block, now, events)
        events.append(AssistantTextStartEvent(contentIndex=index, partial=message))
    _append(block, "text", text)
    events.append(text_delta_event(index, text, message))


def _append_thinking(
    state: StreamState,
    text: str,
    signature: str | None,
    now: float,
    events: list[AssistantMessageEvent],
) -> None:
    block = state.open_block
    message = state.message
    if isinstance(block, ThinkingContent):
        index = state.open_index
    elif text or signature:  # a signature alone still opens a block, so it is kept
        block = ThinkingContent(thinking="")
        index = _open_block(state, block, now, events)
        events.append(AssistantThinkingStartEvent(contentIndex=index, partial=message))
    else:
        return
    if text:
        _append(block, "thinking", text)
        events.append(thinking_delta_event(index, text, message))
    if signature:
        block.thinkingSignature = signature


def _call_id(call: WireToolCall) -> str | None:
    """The wire id, or ``None`` when it is missing or the Speakeasy default ``"null"``."""
    return call.id if call.id and call.id != "null" else None


def _fallback_id(state: StreamState, index: int) -> str:
    """A deterministic Mistral-valid id for a call the server sent without one."""
    seed = f"{state.message.responseId or ''}|{state.message.timestamp}|{index}"
    return hashlib.sha256(seed.encode()).hexdigest()[:_TOOL_ID_LENGTH]


def _map_tool_call(
    state: StreamState, call: WireToolCall, now: float, events: list[AssistantMessageEvent]
) -> None:
    message = state.message
    tool = state.tools.get(call.index)
    wire_id = _call_id(call)
    name = call.function.name
    if tool is None:
        block = ToolCall(id=wire_id or _fallback_id(state, call.index), name=name, arguments={})
        tool = _ToolBlock(call=block, index=call.index, has_id=wire_id is not None)
        state.tools[call.index] = tool
        index = _open_block(state, tool, now, events)
        events.append(AssistantToolCallStartEvent(contentIndex=index, partial=message))
    elif tool is not state.open_block:
        raise _protocol_failure(
            state,
            f"a fragment of tool call index {call.index} arrived after the call was "
            "closed (interleaved tool calls are not supported)",
            now,
        )
    else:
        index = state.open_index
        if wire_id is not None and not tool.has_id:
            tool.call.id = wire_id
            tool.has_id = True
        if name and not tool.call.name:
            tool.call.name = name
        elif name and name != tool.call.name:
            raise _protocol_failure(
                state,
                f"tool call index {call.index} changed its function name",
                now,
            )
    arguments = call.function.arguments
    fragment = arguments if isinstance(arguments, str) else json.dumps(arguments)
    if fragment:
        tool.fragments.append(fragment)
        events.append(toolcall_delta_event(index, fragment, message))


def _parse_arguments(state: StreamState, tool: _ToolBlock) -> dict[str, object] | str:
    """The parsed arguments, or why they are not a JSON object (no payload quoted)."""
    raw = "".join(tool.fragments)
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except RecursionError:
        return "are nested too deeply to parse"
    except json.JSONDecodeError as exc:
        cut = " (the stream stopped for length: max_tokens cut the call)"
        hint = cut if _STOP_REASONS.get(state.finish_reason or "") == "length" else ""
        return f"are not valid JSON: {exc.msg} (char {exc.pos} of {len(raw)}){hint}"
    if not isinstance(parsed, dict):
        return f"are JSON {type(parsed).__name__}, not an object"
    return parsed


def _settle_tool_arguments(state: StreamState) -> None:
    """On failure: give the open tool call whatever arguments did parse."""
    tool = state.open_block
    if isinstance(tool, _ToolBlock):
        parsed = _parse_arguments(state, tool)
        if isinstance(parsed, dict):
            tool.call.arguments = parsed


def _close(state: StreamState, now: float, events: list[AssistantMessageEvent]) -> None:
    """Close the open block, if any, with its ``*_end`` event."""
    block = state.open_block
    if block is None:
        return
    index = state.open_index
    message = state.message
    if isinstance(block, TextContent):
        events.append(
            AssistantTextEndEvent(contentIndex=index, content=block.text, partial=message)
        )
    elif isinstance(block, ThinkingContent):
        events.append(
            AssistantThinkingEndEvent(contentIndex=index, content=block.thinking, partial=message)
        )
    else:
        call = block.call
        if not call.name:
            raise _protocol_failure(
                state,
                f"tool call index {block.index} has no function name",
                now,
            )
        parsed = _parse_arguments(state, block)
        if isinstance(parsed, str):
            raise _protocol_failure(
                state,
                f"the arguments of tool call {quote_name(call.name)} "
                f"(index {block.index}) {parsed}",
                now,
            )
        call.arguments = parsed
        block.fragments.clear()
        events.append(AssistantToolCallEndEvent(contentIndex=index, toolCall=call, partial=message))
    state.open_block = None


def _apply_usage(state: StreamState, info: UsageInfo) -> None:
    """Replace the message's usage with ``info``, priced at the model's rates."""
    cached = info.cached_tokens
    prompt = info.prompt_tokens
    output = info.completion_tokens
    uncached = max(prompt - cached, 0)
    total = info.total_tokens or prompt + output
    cost = UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0)
    usage = Usage(
        input=uncached, output=output, cacheRead=cached, cacheWrite=0, totalTokens=total, cost=cost
    )
    details = info.completion_tokens_details
    if details is not None and details.reasoning_tokens is not None:
        usage.reasoningTokens = details.reasoning_tokens
    calculate_cost(state.model, usage)
    prior = state.prior_usage
    state.message.usage = usage if prior is None else add_usage(prior, usage)
