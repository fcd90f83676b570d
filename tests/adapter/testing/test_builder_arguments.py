"""Every scenario and chunk builder of adapter.testing checks its arguments when called."""

import dataclasses
import inspect
from collections.abc import Callable
from typing import NamedTuple

import adapter.testing
from adapter.testing import (
    ChunkMeta,
    CloseBeforeHeaders,
    CutStream,
    Drop,
    Pause,
    Repeat,
    Reply,
    Script,
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

#: Public names of adapter.testing that are not builders: the server, its records, types.
NOT_BUILDERS = {"FakeMistral", "FakeMistralProcess", "RecordedRequest"}


class Bad(NamedTuple):
    """One bad argument: the builder, the argument, the call, and the error it must raise."""

    builder: str
    argument: str
    call: Callable[[], object]
    error: type[Exception]


T, V = TypeError, ValueError


def _(builder: str, argument: str, error: type[Exception], call: Callable[[], object]) -> Bad:
    return Bad(builder, argument, call, error)


BAD: list[Bad] = [
    _("Script", "thinking", T, lambda: Script(thinking=5)),
    _("Script", "text", T, lambda: Script(text=b"t")),
    _("Script", "tool_calls", T, lambda: Script(tool_calls="calls")),
    _("Script", "tool_calls", T, lambda: Script(tool_calls=[("f",)])),
    _("Script", "tool_calls", T, lambda: Script(tool_calls=[("f", 5)])),
    _("Script", "piece", V, lambda: Script(piece=0)),
    _("Script", "usage", T, lambda: Script(usage=5)),
    _("Script", "usage", V, lambda: Script(usage=(1, -1))),
    _("Script", "model", T, lambda: Script(model=None)),
    _("CutStream", "script", T, lambda: CutStream("text", at=0)),
    _("CutStream", "at", V, lambda: CutStream(Script(), at=-1)),
    _("CutStream", "at", V, lambda: CutStream(Script(), at=10**6)),
    _("CutStream", "repeat_prefix", T, lambda: CutStream(Script(), at=0, repeat_prefix=1)),
    _("CutStream", "reset", T, lambda: CutStream(Script(), at=0, reset="no")),
    _("completion_chunk", "delta", T, lambda: completion_chunk(5)),
    _("completion_chunk", "finish_reason", T, lambda: completion_chunk(finish_reason=5)),
    _("completion_chunk", "usage", T, lambda: completion_chunk(usage="u")),
    _("completion_chunk", "index", V, lambda: completion_chunk(index=-1)),
    _("completion_chunk", "index", T, lambda: completion_chunk(index=True)),
    _("completion_chunk", "choices", T, lambda: completion_chunk(choices="c")),
    _("completion_chunk", "choices", T, lambda: completion_chunk(choices=[5])),
    _("completion_chunk", "created", V, lambda: completion_chunk(created=-1)),
    _("completion_chunk", "model", T, lambda: completion_chunk(model=5)),
    _("completion_chunk", "modle", T, lambda: completion_chunk(modle="m")),
    _("role_chunk", "chunk_id", T, lambda: role_chunk(chunk_id=5)),
    _("role_chunk", "created", T, lambda: role_chunk(created="now")),
    _("role_chunk", "id", T, lambda: role_chunk(id="c1")),
    _("text_chunk", "text", T, lambda: text_chunk(5)),
    _("text_chunk", "typed", T, lambda: text_chunk("t", typed="yes")),
    _("text_chunk", "finish_reason", V, lambda: text_chunk("t", finish_reason="stpo")),
    _("text_chunk", "finish_reason", T, lambda: text_chunk("t", finish_reason=1)),
    _("text_chunk", "usage", T, lambda: text_chunk("t", usage=[])),
    _("text_chunk", "model", T, lambda: text_chunk("t", model=None)),
    _("text_chunk", "modle", T, lambda: text_chunk("t", modle="m")),
    _("thinking_chunk", "pieces", T, lambda: thinking_chunk(5)),
    _("thinking_chunk", "signature", T, lambda: thinking_chunk("a", signature=5)),
    _("thinking_chunk", "closed", T, lambda: thinking_chunk("a", closed="no")),
    _("thinking_chunk", "created", T, lambda: thinking_chunk("a", created=1.5)),
    _("reference_chunk", "reference_ids", V, lambda: reference_chunk(-1)),
    _("reference_chunk", "reference_ids", T, lambda: reference_chunk(1.5)),
    _("reference_chunk", "reference_ids", T, lambda: reference_chunk(True)),  # noqa: FBT003
    _("reference_chunk", "model", T, lambda: reference_chunk(1, model=None)),
    _("content_chunk", "parts", T, lambda: content_chunk("text")),
    _("content_chunk", "finish_reason", V, lambda: content_chunk(finish_reason="done")),
    _("content_chunk", "created", V, lambda: content_chunk(created=-1)),
    _("text_part", "text", T, lambda: text_part(None)),
    _("thinking_part", "pieces", T, lambda: thinking_part(b"x")),
    _("thinking_part", "signature", T, lambda: thinking_part(signature=1)),
    _("thinking_part", "closed", T, lambda: thinking_part(closed=1)),
    _("reference_part", "reference_ids", V, lambda: reference_part(-2)),
    _("reference_part", "reference_ids", T, lambda: reference_part(None)),
    _("tool_call", "name", T, lambda: tool_call(None)),
    _("tool_call", "arguments", T, lambda: tool_call("f", 5)),
    _("tool_call", "arguments", T, lambda: tool_call("f", {"at": object()})),
    _("tool_call", "call_id", T, lambda: tool_call("f", call_id=7)),
    _("tool_call", "index", V, lambda: tool_call("f", index=-1)),
    _("tool_call_chunk", "calls", T, lambda: tool_call_chunk("f")),
    _("tool_call_chunk", "finish_reason", V, lambda: tool_call_chunk(finish_reason="tool_call")),
    _("tool_call_chunk", "usage", T, lambda: tool_call_chunk(usage=5)),
    _("tool_call_chunk", "chunk_id", T, lambda: tool_call_chunk(chunk_id=1)),
    _("finish_chunk", "reason", V, lambda: finish_chunk("Stop")),
    _("finish_chunk", "reason", T, lambda: finish_chunk(None)),
    _("finish_chunk", "usage", T, lambda: finish_chunk(usage=5)),
    _("finish_chunk", "content", T, lambda: finish_chunk(content=None)),
    _("finish_chunk", "created", T, lambda: finish_chunk(created="1764258570")),
    _("usage_only_chunk", "usage", T, lambda: usage_only_chunk(None)),
    _("usage_only_chunk", "model", T, lambda: usage_only_chunk({}, model=b"m")),
    _("usage_info", "prompt_tokens", V, lambda: usage_info(-1, 2)),
    _("usage_info", "prompt_tokens", T, lambda: usage_info(1.0, 2)),
    _("usage_info", "completion_tokens", T, lambda: usage_info(1, "7")),
    _("usage_info", "cached_tokens", V, lambda: usage_info(1, 2, cached_tokens=-1)),
    _("usage_info", "cached_tokens", V, lambda: usage_info(1, 2, cached_tokens=3)),
    _("sse_event", "data", T, lambda: sse_event(b"x")),
    _("sse_event", "data", V, lambda: sse_event("a\rb")),
    _("sse_event", "event", V, lambda: sse_event("d", event="a\nb")),
    _("sse_event", "event_id", T, lambda: sse_event("d", event_id=5)),
    _("sse_event", "retry", V, lambda: sse_event("d", retry=-1)),
    _("sse_comment", "text", V, lambda: sse_comment("a\nb")),
    _("sse_comment", "text", T, lambda: sse_comment(5)),
    _("error_object", "message", T, lambda: error_object(5)),
    _("error_object", "error_type", T, lambda: error_object("m", error_type=None)),
    _("error_object", "code", T, lambda: error_object("m", code=True)),
    _("error_object", "code", T, lambda: error_object("m", code=1.5)),
    _("error_object", "param", T, lambda: error_object("m", param=5)),
    _("error_object", "raw_status_code", V, lambda: error_object("m", raw_status_code=42)),
    _("example_error_body", "shape", V, lambda: example_error_body("Z")),
    _("example_error_body", "shape", T, lambda: example_error_body(1)),
    _("gateway_html", "status", V, lambda: gateway_html(42)),
    _("gateway_html", "status", T, lambda: gateway_html("502")),
    _("gateway_html", "server", T, lambda: gateway_html(502, server=None)),
    _(
        "rate_limit_headers",
        "remaining_requests",
        V,
        lambda: rate_limit_headers(remaining_requests=-1),
    ),
    _(
        "rate_limit_headers",
        "remaining_tokens",
        T,
        lambda: rate_limit_headers(remaining_tokens="0"),
    ),
    _("rate_limit_headers", "limit_requests", V, lambda: rate_limit_headers(limit_requests=-60)),
    _("rate_limit_headers", "limit_tokens", T, lambda: rate_limit_headers(limit_tokens=1e6)),
    _("Pause", "seconds", V, lambda: Pause(-1)),
    _("Pause", "seconds", V, lambda: Pause(float("nan"))),
    _("Pause", "seconds", T, lambda: Pause("1")),
    _("Pause", "seconds", T, lambda: Pause(True)),  # noqa: FBT003
    _("Drop", "reset", T, lambda: Drop("yes")),
    _("Repeat", "count", V, lambda: Repeat({}, -1)),
    _("Repeat", "count", T, lambda: Repeat({}, 1.5)),
    _("Repeat", "item", T, lambda: Repeat("x", 1)),
    _("Stream", "items", T, lambda: Stream(5)),
    _("Stream", "done", T, lambda: Stream(done="no")),
    _("Stream", "batch", V, lambda: Stream(batch=0)),
    _("Stream", "delay", V, lambda: Stream(delay=-1)),
    _("Stream", "chunked", T, lambda: Stream(chunked=None)),
    _("Stream", "status", T, lambda: Stream(status=True)),
    _("Stream", "headers", T, lambda: Stream(headers=[("a", "b")])),
    _("Stream", "content_type", T, lambda: Stream(content_type=5)),
    _("Stream", "content_type", V, lambda: Stream(content_type="text/plain\r\nX: 1")),
    _("Stream", "newline", V, lambda: Stream(newline=b"\n\n")),
    _("Reply", "status", T, lambda: Reply("200")),
    _("Reply", "body", T, lambda: Reply(200, {1j})),
    _("Reply", "headers", T, lambda: Reply(headers=5)),
    _("Reply", "content_type", V, lambda: Reply(content_type="a\nb")),
    _("CloseBeforeHeaders", "reset", T, lambda: CloseBeforeHeaders(1)),
    _("text_reply", "pieces", T, lambda: text_reply("a", 5)),
    _("text_reply", "finish_reason", V, lambda: text_reply("a", finish_reason="stopped")),
    _("text_reply", "usage", T, lambda: text_reply("a", usage=5)),
    _("big_stream", "chunks", V, lambda: big_stream(-1)),
    _("big_stream", "text", T, lambda: big_stream(1, text=5)),
    _("big_stream", "batch", V, lambda: big_stream(1, batch=0)),
]


def _verdict(bad: Bad) -> str | None:
    """What is wrong with how the builder treated the bad argument, or ``None``."""
    try:
        bad.call()
    except Exception as exc:  # any other exception is a finding too
        message = str(exc)
        if type(exc) is not bad.error:
            return f"raised {type(exc).__name__}, not {bad.error.__name__}: {message}"
        if not message.startswith(f"{bad.builder}: ") or bad.argument not in message:
            return f"message does not name {bad.builder} and {bad.argument}: {message}"
        return None
    return "accepted it"


def test_every_builder_rejects_bad_arguments_when_called():
    """A wrong type is a TypeError, a bad value a ValueError; both name builder and argument."""
    failures = [
        f"{bad.builder}({bad.argument}) #{row}: {verdict}"
        for row, bad in enumerate(BAD)
        if (verdict := _verdict(bad)) is not None
    ]
    assert failures == []


def test_the_table_covers_every_public_builder_and_argument():
    """Each builder of ``adapter.testing.__all__`` has a row for each of its arguments."""
    builders = {
        name: value
        for name in adapter.testing.__all__
        if name not in NOT_BUILDERS
        and (
            inspect.isfunction(value := getattr(adapter.testing, name))
            or (isinstance(value, type) and dataclasses.is_dataclass(value))
        )
    }
    tested = {(bad.builder, bad.argument) for bad in BAD}
    missing = []
    for name, builder in builders.items():
        for parameter in inspect.signature(builder).parameters.values():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:  # the chunk keywords
                if not any((name, key) in tested for key in ChunkMeta.__annotations__):
                    missing.append(f"{name}(**{parameter.name})")
            elif (name, parameter.name) not in tested:
                missing.append(f"{name}({parameter.name})")
    assert missing == []


def test_good_arguments_still_build():
    """The checks pass what the builders document: ints and strings as ids, known reasons."""
    assert reference_part(0, "doc") == {"type": "reference", "reference_ids": [0, "doc"]}
    assert finish_chunk("error")["choices"][0]["finish_reason"] == "error"
    assert completion_chunk(finish_reason="content_filter")["choices"][0]["finish_reason"] == (
        "content_filter"
    )  # a reason Mistral may add: completion_chunk sends any string
    assert usage_info(5, 1, cached_tokens=5)["prompt_tokens_details"] == {"cached_tokens": 5}
    assert Stream(iter([text_chunk("a")])).items is not None  # any iterable of items
    assert Pause(0).seconds == 0
    assert text_chunk("a", chunk_id="c", model="m", created=0)["id"] == "c"
