"""Builders for the Mistral wire shapes the fake server sends (pure, no I/O).

Chunks follow ``CompletionChunk`` as seen on the wire (docs/wire.md §5): ``id``, ``object``,
``created``, ``model``, ``choices`` of ``{"index", "delta", "finish_reason"}``, and
``usage`` only where given. Every builder returns a fresh plain ``dict`` that a test may
edit further; anything the builders do not cover is a raw ``dict`` (or raw bytes, see
:func:`sse_event`), which the server sends as is.

Error bodies are the shapes collected in docs/wire.md §7.2, verbatim.

Every builder checks its arguments when it is called (:mod:`adapter.testing._checks`):
a mistake fails where it is made, with a ``TypeError`` or ``ValueError`` naming the
builder and the argument. ``finish_reason`` takes the reasons Mistral sends; a reason
it may add later goes through :func:`completion_chunk`, which takes any string.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, Literal, TypedDict, Unpack

from adapter.testing._checks import (
    check_bool,
    check_finish_reason,
    check_int,
    check_mapping,
    check_status,
    check_str,
    shown,
)

__all__ = [
    "DEFAULT_CHUNK_ID",
    "DEFAULT_MODEL",
    "ChunkMeta",
    "completion_chunk",
    "content_chunk",
    "encode_chunk",
    "error_object",
    "example_error_body",
    "finish_chunk",
    "gateway_html",
    "rate_limit_headers",
    "reference_chunk",
    "reference_part",
    "role_chunk",
    "sse_comment",
    "sse_event",
    "text_chunk",
    "text_part",
    "thinking_chunk",
    "thinking_part",
    "tool_call",
    "tool_call_chunk",
    "usage_info",
    "usage_only_chunk",
]

#: The ``id`` every chunk carries unless told otherwise (32 hex digits, like Mistral's).
DEFAULT_CHUNK_ID = "59060ef9339a4112b2c9e57e3ee6199d"
#: The ``model`` every chunk carries unless told otherwise.
DEFAULT_MODEL = "mistral-small-latest"
#: The ``created`` timestamp every chunk carries unless told otherwise.
DEFAULT_CREATED = 1764258570

ErrorShape = Literal["A", "B", "C", "D", "E", "F", "G", "H", "I"]


class ChunkMeta(TypedDict, total=False):
    """The chunk-level fields any chunk builder accepts as keywords.

    .. versionadded:: 0.1.0
    """

    chunk_id: str
    model: str
    created: int


_META_KEYS = tuple(ChunkMeta.__annotations__)


def _check_meta(owner: str, meta: Mapping[str, object]) -> None:
    """The chunk keywords: only ``chunk_id``, ``model`` (strings) and ``created`` (an int)."""
    for name, value in meta.items():
        if name not in _META_KEYS:
            raise TypeError(
                f"{owner}: unexpected keyword argument {name!r} "
                f"(the chunk keywords are {', '.join(_META_KEYS)})"
            )
        if name == "created":
            check_int(owner, name, value)
        else:
            check_str(owner, name, value)


def _check_parts(owner: str, name: str, parts: tuple[object, ...]) -> None:
    for position, part in enumerate(parts):
        check_mapping(owner, f"{name}[{position}]", part)


def _check_pieces(owner: str, pieces: tuple[object, ...]) -> None:
    for position, piece in enumerate(pieces):
        if not isinstance(piece, str | Mapping):
            raise TypeError(
                f"{owner}: pieces[{position}] must be a str or a content part (a mapping), "
                f"got {shown(piece)}"
            )


def _check_reference_ids(owner: str, reference_ids: tuple[object, ...]) -> None:
    for position, reference_id in enumerate(reference_ids):
        if isinstance(reference_id, str):
            continue
        if not isinstance(reference_id, int) or isinstance(reference_id, bool):
            error: type[Exception] = TypeError
        elif reference_id < 0:
            error = ValueError
        else:
            continue
        raise error(
            f"{owner}: reference_ids[{position}] must be an int >= 0 or a str, "
            f"got {shown(reference_id)}"
        )


def completion_chunk(
    delta: Mapping[str, Any] | None = None,
    *,
    finish_reason: str | None = None,
    usage: Mapping[str, Any] | None = None,
    index: int = 0,
    choices: list[Mapping[str, Any]] | None = None,
    **meta: Unpack[ChunkMeta],
) -> dict[str, Any]:
    """Any chunk: one choice with ``delta`` and ``finish_reason``, or ``choices`` verbatim.

    Args:
        delta: The choice's ``delta`` (``{}`` when omitted).
        finish_reason: The choice's ``finish_reason`` (``null`` when omitted): any
            string, also one Mistral does not send yet (the other builders take only
            the known reasons, to catch typos).
        usage: A ``usage`` object (see :func:`usage_info`); omitted when ``None``.
        index: The choice's ``index``.
        choices: The ``choices`` array as is (e.g. ``[]``), instead of one built choice.
        **meta: ``chunk_id``, ``model``, ``created``.

    .. versionadded:: 0.1.0
    """
    owner = "completion_chunk"
    check_mapping(owner, "delta", delta, optional=True)
    check_str(owner, "finish_reason", finish_reason, optional=True)
    check_mapping(owner, "usage", usage, optional=True)
    check_int(owner, "index", index)
    if choices is not None:
        if isinstance(choices, str | bytes | Mapping) or not isinstance(choices, list | tuple):
            raise TypeError(f"{owner}: choices must be a list of mappings, got {shown(choices)}")
        _check_parts(owner, "choices", tuple(choices))
    _check_meta(owner, meta)
    if choices is not None and (delta is not None or finish_reason is not None):
        raise ValueError("completion_chunk: pass either choices or delta/finish_reason")
    chunk: dict[str, Any] = {
        "id": meta.get("chunk_id", DEFAULT_CHUNK_ID),
        "object": "chat.completion.chunk",
        "created": meta.get("created", DEFAULT_CREATED),
        "model": meta.get("model", DEFAULT_MODEL),
        "choices": (
            [dict(choice) for choice in choices]
            if choices is not None
            else [{"index": index, "delta": dict(delta or {}), "finish_reason": finish_reason}]
        ),
    }
    if usage is not None:
        chunk["usage"] = dict(usage)
    return chunk


def role_chunk(**meta: Unpack[ChunkMeta]) -> dict[str, Any]:
    """The first chunk of a Mistral stream: ``{"role": "assistant", "content": ""}``.

    .. versionadded:: 0.1.0
    """
    _check_meta("role_chunk", meta)
    return completion_chunk({"role": "assistant", "content": ""}, **meta)


def text_chunk(
    text: str,
    *,
    typed: bool = False,
    finish_reason: str | None = None,
    usage: Mapping[str, Any] | None = None,
    **meta: Unpack[ChunkMeta],
) -> dict[str, Any]:
    """Text as plain-string content, or as a ``[{"type": "text"}]`` list when ``typed``.

    Plain models send strings; reasoning models send typed text after their thinking.

    .. versionadded:: 0.1.0
    """
    owner = "text_chunk"
    check_str(owner, "text", text)
    check_bool(owner, "typed", typed)
    check_finish_reason(owner, "finish_reason", finish_reason, optional=True)
    check_mapping(owner, "usage", usage, optional=True)
    _check_meta(owner, meta)
    content: Any = [text_part(text)] if typed else text
    return completion_chunk({"content": content}, finish_reason=finish_reason, usage=usage, **meta)


def thinking_chunk(
    *pieces: str | Mapping[str, Any],
    signature: str | None = None,
    closed: bool | None = None,
    **meta: Unpack[ChunkMeta],
) -> dict[str, Any]:
    """A reasoning delta: ``content`` is one ``thinking`` chunk (see :func:`thinking_part`).

    .. versionadded:: 0.1.0
    """
    owner = "thinking_chunk"
    _check_pieces(owner, pieces)
    check_str(owner, "signature", signature, optional=True)
    check_bool(owner, "closed", closed, optional=True)
    _check_meta(owner, meta)
    return content_chunk(thinking_part(*pieces, signature=signature, closed=closed), **meta)


def reference_chunk(*reference_ids: int | str, **meta: Unpack[ChunkMeta]) -> dict[str, Any]:
    """A citation: ``content`` is one ``reference`` chunk with these ids.

    .. versionadded:: 0.1.0
    """
    _check_reference_ids("reference_chunk", reference_ids)
    _check_meta("reference_chunk", meta)
    return content_chunk(reference_part(*reference_ids), **meta)


def content_chunk(
    *parts: Mapping[str, Any],
    finish_reason: str | None = None,
    **meta: Unpack[ChunkMeta],
) -> dict[str, Any]:
    """A delta whose ``content`` is this list of content chunks, as given.

    The escape hatch for several parts in one delta (thinking then text) and for types
    without a builder: ``content_chunk({"type": "image_url", "image_url": "https://…"})``.

    .. versionadded:: 0.1.0
    """
    owner = "content_chunk"
    _check_parts(owner, "parts", parts)
    check_finish_reason(owner, "finish_reason", finish_reason, optional=True)
    _check_meta(owner, meta)
    return completion_chunk(
        {"content": [dict(part) for part in parts]}, finish_reason=finish_reason, **meta
    )


def text_part(text: str) -> dict[str, Any]:
    """A ``text`` content chunk.

    .. versionadded:: 0.1.0
    """
    check_str("text_part", "text", text)
    return {"type": "text", "text": text}


def thinking_part(
    *pieces: str | Mapping[str, Any],
    signature: str | None = None,
    closed: bool | None = None,
) -> dict[str, Any]:
    """A ``thinking`` content chunk; a ``str`` piece becomes a nested ``text`` chunk.

    Other pieces (a ``reference``, a ``tool_reference``) are nested as given.
    ``signature`` and ``closed`` are included only when set.

    .. versionadded:: 0.1.0
    """
    owner = "thinking_part"
    _check_pieces(owner, pieces)
    check_str(owner, "signature", signature, optional=True)
    check_bool(owner, "closed", closed, optional=True)
    part: dict[str, Any] = {
        "type": "thinking",
        "thinking": [
            text_part(piece) if isinstance(piece, str) else dict(piece) for piece in pieces
        ],
    }
    if signature is not None:
        part["signature"] = signature
    if closed is not None:
        part["closed"] = closed
    return part


def reference_part(*reference_ids: int | str) -> dict[str, Any]:
    """A ``reference`` content chunk (ids may be ints or strings).

    .. versionadded:: 0.1.0
    """
    _check_reference_ids("reference_part", reference_ids)
    return {"type": "reference", "reference_ids": list(reference_ids)}


def tool_call(
    name: str,
    arguments: str | Mapping[str, Any] = "{}",
    *,
    call_id: str | None = None,
    index: int = 0,
) -> dict[str, Any]:
    """One complete tool call, as Mistral streams it.

    Args:
        name: The function name.
        arguments: A JSON string sent as is (a fragment works too), or a mapping that
            is JSON-encoded to a string, as the API sends it. For the rare object form,
            edit the returned dict.
        call_id: The call id; by default ``"call"`` + the index in 5 digits, which is
            nine alphanumerics like Mistral's. Pass ``"null"`` for the SDK quirk.
        index: The call's ``index`` (parallel calls differ here).

    .. versionadded:: 0.1.0
    """
    owner = "tool_call"
    check_str(owner, "name", name)
    check_str(owner, "call_id", call_id, optional=True)
    check_int(owner, "index", index)
    if isinstance(arguments, str):
        encoded = arguments
    elif isinstance(arguments, Mapping):
        try:
            encoded = json.dumps(arguments, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{owner}: arguments is not JSON-serialisable ({exc})") from None
    else:
        raise TypeError(
            f"{owner}: arguments must be a JSON string or a mapping, got {shown(arguments)}"
        )
    return {
        "id": f"call{index:05d}" if call_id is None else call_id,
        "type": "function",
        "function": {"name": name, "arguments": encoded},
        "index": index,
    }


def tool_call_chunk(
    *calls: Mapping[str, Any],
    finish_reason: str | None = "tool_calls",
    usage: Mapping[str, Any] | None = None,
    **meta: Unpack[ChunkMeta],
) -> dict[str, Any]:
    """A delta carrying these tool calls (see :func:`tool_call`) and ``content: ""``.

    Mistral sends every call whole in one delta, usually together with
    ``finish_reason: "tool_calls"`` (the default here; pass ``None`` to send it later).

    .. versionadded:: 0.1.0
    """
    owner = "tool_call_chunk"
    _check_parts(owner, "calls", calls)
    check_finish_reason(owner, "finish_reason", finish_reason, optional=True)
    check_mapping(owner, "usage", usage, optional=True)
    _check_meta(owner, meta)
    return completion_chunk(
        {"content": "", "tool_calls": [dict(call) for call in calls]},
        finish_reason=finish_reason,
        usage=usage,
        **meta,
    )


def finish_chunk(
    reason: str = "stop",
    *,
    usage: Mapping[str, Any] | None = None,
    content: str = "",
    **meta: Unpack[ChunkMeta],
) -> dict[str, Any]:
    """The last chunk: ``finish_reason`` and, when given, ``usage``.

    .. versionadded:: 0.1.0
    """
    owner = "finish_chunk"
    check_finish_reason(owner, "reason", reason, optional=False)
    check_mapping(owner, "usage", usage, optional=True)
    check_str(owner, "content", content)
    _check_meta(owner, meta)
    return completion_chunk({"content": content}, finish_reason=reason, usage=usage, **meta)


def usage_only_chunk(usage: Mapping[str, Any], **meta: Unpack[ChunkMeta]) -> dict[str, Any]:
    """A chunk with ``"choices": []`` and only ``usage``, as some models end their streams.

    .. versionadded:: 0.1.0
    """
    check_mapping("usage_only_chunk", "usage", usage)
    _check_meta("usage_only_chunk", meta)
    return completion_chunk(choices=[], usage=usage, **meta)


def usage_info(
    prompt_tokens: int, completion_tokens: int, *, cached_tokens: int | None = None
) -> dict[str, Any]:
    """A ``usage`` object; ``cached_tokens`` goes to ``prompt_tokens_details``.

    Cached tokens are part of the prompt, so ``cached_tokens`` is at most ``prompt_tokens``.

    .. versionadded:: 0.1.0
    """
    owner = "usage_info"
    check_int(owner, "prompt_tokens", prompt_tokens)
    check_int(owner, "completion_tokens", completion_tokens)
    check_int(owner, "cached_tokens", cached_tokens, optional=True)
    if cached_tokens is not None and cached_tokens > prompt_tokens:
        raise ValueError(
            f"{owner}: cached_tokens must be at most prompt_tokens ({prompt_tokens}), "
            f"got {cached_tokens}"
        )
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return usage


def sse_event(
    data: str,
    *,
    event: str | None = None,
    event_id: str | None = None,
    retry: int | None = None,
) -> bytes:
    """One raw SSE event (UTF-8), for payloads that are not chunks: ``"{not json"``.

    A multi-line ``data`` (lines split at LF) becomes several ``data:`` lines, as the
    format requires. A CR would end a line too, so it is refused in every field: write
    the raw bytes yourself for framing of your own.

    .. versionadded:: 0.1.0
    """
    owner = "sse_event"
    check_str(owner, "data", data)
    if "\r" in data:
        raise ValueError(f"{owner}: data must not contain CR (SSE ends a line there)")
    check_str(owner, "event", event, optional=True, line=True)
    check_str(owner, "event_id", event_id, optional=True, line=True)
    check_int(owner, "retry", retry, optional=True)
    lines = [] if event is None else [f"event: {event}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if retry is not None:
        lines.append(f"retry: {retry}")
    lines += [f"data: {line}" for line in data.split("\n")]
    return ("\n".join(lines) + "\n\n").encode()


def sse_comment(text: str = "keep-alive") -> bytes:
    """A raw SSE comment block, e.g. the keep-alive some proxies send (one line).

    .. versionadded:: 0.1.0
    """
    check_str("sse_comment", "text", text, line=True)
    return f": {text}\n\n".encode()


def _check_code(owner: str, code: object) -> None:
    if isinstance(code, bool) or not isinstance(code, str | int | None):
        raise TypeError(f"{owner}: code must be a str, an int or None, got {shown(code)}")


def error_object(
    message: str | Mapping[str, Any],
    *,
    error_type: str = "invalid_request_error",
    code: str | int | None = None,
    param: str | None = None,
    raw_status_code: int | None = None,
) -> dict[str, Any]:
    """Mistral's usual error body (shape A of docs/wire.md §7.2).

    Args:
        message: The message; a mapping gives the 422 object form (shape B).
        error_type: The ``type`` field, e.g. ``"rate_limited"``.
        code: The ``code`` field (Mistral sends strings like ``"1300"``, some ints).
        param: The ``param`` field.
        raw_status_code: Included only when given, as in newer responses.

    .. versionadded:: 0.1.0
    """
    owner = "error_object"
    if not isinstance(message, str | Mapping):
        raise TypeError(f"{owner}: message must be a str or a mapping, got {shown(message)}")
    check_str(owner, "error_type", error_type)
    _check_code(owner, code)
    check_str(owner, "param", param, optional=True)
    if raw_status_code is not None:
        check_status(owner, "raw_status_code", raw_status_code)
    body: dict[str, Any] = {
        "object": "error",
        "message": message if isinstance(message, str) else dict(message),
        "type": error_type,
        "param": param,
        "code": code,
    }
    if raw_status_code is not None:
        body["raw_status_code"] = raw_status_code
    return body


# docs/wire.md §7.2, verbatim (one level of log escaping removed from C, as noted there).
_ERROR_BODIES: dict[str, str | None] = {
    "A": '{"object":"error","message":"Rate limit exceeded","type":"rate_limited",'
    '"param":null,"code":"1300","raw_status_code":429}',
    "B": '{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body",'
    '"stream_options","include_usage"],"msg":"Extra inputs are not permitted","input":true,'
    '"url":"https://errors.pydantic.dev/2.10/v/extra_forbidden"}]},'
    '"type":"invalid_request_error","param":null,"code":null}',
    "C": '{"object":"error","message":"{\\"detail\\":[{\\"type\\":\\"extra_forbidden\\",'
    '\\"loc\\":[\\"body\\",\\"frequency_penalty\\"],\\"msg\\":\\"Extra inputs are not '
    'permitted\\",\\"input\\":0.0,\\"url\\":\\"https://errors.pydantic.dev/2.5/v/'
    'extra_forbidden\\"}]}","type":"internal_error_proxy","param":null,"code":"1000"}',
    "D": '{"object":"Error","detail":[{"type":"extra_forbidden","loc":["body","tools"],'
    '"msg":"Extra inputs are not permitted","input":[]}],"message":[{"type":"extra_forbidden",'
    '"loc":["body","tools"],"msg":"Extra inputs are not permitted","input":[]}],'
    '"type":"invalid_request_error","code":3001}',
    "E": '{"message":"Requests rate limit exceeded"}',
    "F": '{"message":"Unauthorized","request_id":"c61f2f15feca71626a990e3740f99245"}',
    "G": '{"detail":"Not Found"}',
    "H": '{"detail":[{"loc":["body","messages"],"msg":"Field required","type":"missing",'
    '"input":{},"ctx":{}}]}',
    "I": None,
}


def example_error_body(shape: ErrorShape) -> Any:
    """A fresh copy of the example body of one shape of docs/wire.md §7.2.

    ``"A"`` rate limit (the usual ``{"object": "error", …}``), ``"B"`` 422 with an
    object ``message``, ``"C"`` 422 with a stringified JSON ``message``, ``"D"``
    capital ``Error`` with integer ``code``, ``"E"`` legacy gateway 429, ``"F"`` 401
    with ``request_id``, ``"G"`` 404 ``detail``, ``"H"`` the spec's
    ``HTTPValidationError``, ``"I"`` no body at all (``None``).

    .. versionadded:: 0.1.0
    """
    if not isinstance(shape, str):
        raise TypeError(f"example_error_body: shape must be a str 'A' to 'I', got {shown(shape)}")
    if shape not in _ERROR_BODIES:
        raise ValueError(
            f"example_error_body: unknown error body shape {shown(shape)}: expected 'A' to 'I'"
        )
    text = _ERROR_BODIES[shape]
    return None if text is None else json.loads(text)


def gateway_html(status: int = 502, *, server: str = "cloudflare") -> str:
    """The HTML page a gateway sends instead of JSON (use with ``content_type="text/html"``).

    .. versionadded:: 0.1.0
    """
    check_status("gateway_html", "status", status)
    check_str("gateway_html", "server", server)
    try:
        title = f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        title = str(status)
    return (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n"
        f"<center><h1>{title}</h1></center>\r\n<hr><center>{server}</center>\r\n"
        "</body>\r\n</html>\r\n"
    )


def rate_limit_headers(
    *,
    remaining_requests: int = 0,
    remaining_tokens: int = 0,
    limit_requests: int = 60,
    limit_tokens: int = 500_000,
) -> dict[str, str]:
    """The rate-limit headers Mistral sends (the 2026 ``x-ratelimit-*`` family).

    .. versionadded:: 0.1.0
    """
    owner = "rate_limit_headers"
    check_int(owner, "remaining_requests", remaining_requests)
    check_int(owner, "remaining_tokens", remaining_tokens)
    check_int(owner, "limit_requests", limit_requests)
    check_int(owner, "limit_tokens", limit_tokens)
    return {
        "x-ratelimit-limit-req-minute": str(limit_requests),
        "x-ratelimit-remaining-req-minute": str(remaining_requests),
        "x-ratelimit-limit-tokens-minute": str(limit_tokens),
        "x-ratelimit-remaining-tokens-minute": str(remaining_tokens),
    }


def encode_chunk(chunk: Mapping[str, Any], where: str, newline: bytes) -> bytes:
    """``chunk`` as one SSE event, ``data: <json>``; ``where`` names it in errors."""
    try:
        payload = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{where}: the chunk is not JSON-serialisable ({exc})") from None
    return b"data: " + payload.encode() + newline + newline
