"""What the fake server answers to one request: scenarios, and their wire bytes (pure).

A scenario is a frozen description: :class:`Stream` (an SSE response, possibly with
stalls and an abrupt end), :class:`Reply` (any status with any body) or
:class:`CloseBeforeHeaders`. Everything is validated and encoded when the scenario is
built, so a mistake fails in the test that wrote it, not in a server thread, and a
scenario served many times (a default, a benchmark) is encoded once.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, NamedTuple, TypeAlias

from adapter.testing._checks import (
    check_bool,
    check_finish_reason,
    check_int,
    check_mapping,
    check_seconds,
    check_status,
    check_str,
    shown,
)
from adapter.testing._chunks import (
    encode_chunk,
    finish_chunk,
    role_chunk,
    text_chunk,
    usage_info,
)
from adapter.testing._resume import CutStream

__all__ = [
    "CloseBeforeHeaders",
    "Drop",
    "Pause",
    "Repeat",
    "Reply",
    "Scenario",
    "Stream",
    "StreamItem",
    "big_stream",
    "text_reply",
]

_NEWLINES = (b"\n", b"\r\n", b"\r")


@dataclass(frozen=True, slots=True)
class Pause:
    """A stream item: send nothing for ``seconds`` while holding the connection open.

    A stall long enough to trip the client's read timeout. It ends early, and the
    connection is closed, when the server shuts down or the client disconnects.

    .. versionadded:: 0.1.0
    """

    seconds: float

    def __post_init__(self) -> None:
        check_seconds("Pause", "seconds", self.seconds)


@dataclass(frozen=True, slots=True)
class Drop:
    """A stream item: close the connection abruptly here, mid-body.

    A chunked body then lacks its terminating chunk, which clients report as an
    incomplete read (httpx: ``RemoteProtocolError``). With ``reset`` the server sends a
    TCP RST instead of a FIN (httpx: ``ReadError``, "connection reset by peer").

    .. versionadded:: 0.1.0
    """

    reset: bool = False

    def __post_init__(self) -> None:
        check_bool("Drop", "reset", self.reset)


@dataclass(frozen=True, slots=True)
class Repeat:
    """A stream item: one chunk (or raw bytes) ``count`` times, encoded once.

    How a stream of a million chunks stays small in memory and cheap to serve.

    .. versionadded:: 0.1.0
    """

    item: Mapping[str, Any] | bytes
    count: int

    def __post_init__(self) -> None:
        check_int("Repeat", "count", self.count)
        if not isinstance(self.item, Mapping | bytes):
            raise TypeError(
                f"Repeat: item must be a chunk (a mapping) or raw bytes, "
                f"not {type(self.item).__name__}"
            )


#: What a :class:`Stream` is made of: a chunk (a mapping, sent as ``data: <json>``),
#: raw bytes (sent as they are: comments, malformed JSON, a half event), or a marker.
StreamItem: TypeAlias = Mapping[str, Any] | bytes | Pause | Drop | Repeat


class _EncodedRepeat(NamedTuple):
    """An encoded :class:`Repeat`."""

    event: bytes
    times: int


def _check_headers(headers: object, owner: str) -> None:
    check_mapping(owner, "headers", headers)
    assert isinstance(headers, Mapping)  # noqa: S101  -- checked above, for the type checker
    for name, value in headers.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f"{owner}: header names and values must be str ({name!r})")
        if any(c in name + value for c in "\r\n") or not name or ":" in name:
            raise ValueError(f"{owner}: header {name!r} is malformed (CR, LF or ':' in it)")


@dataclass(frozen=True, slots=True)
class Stream:
    """A ``text/event-stream`` response, written item by item.

    Args:
        items: Chunks (mappings, see the chunk builders), raw ``bytes``, and the
            markers :class:`Pause`, :class:`Drop` and :class:`Repeat`. A :class:`Drop`
            can only be the last item.
        done: Send ``data: [DONE]`` after the items (not after a :class:`Drop`).
        batch: Events per write; each write is one HTTP chunk and usually one client
            read. ``1`` (the default) flushes every event; larger values make bursts,
            as Mistral's proxies sometimes do, and large streams fast.
        delay: Seconds to wait before every write: a slow trickle.
        chunked: ``True``: ``Transfer-Encoding: chunked``. ``False``: no framing, the
            body ends when the server closes the connection (HTTP/1.0 style), so an
            early end looks clean to the client.
        status: The status code (200 unless you are testing odd servers).
        headers: Extra response headers; they replace defaults of the same name.
        content_type: The ``Content-Type``.
        newline: The line ending of the events the server encodes (chunks and
            ``[DONE]``): LF (the default), CRLF or CR. Raw bytes items keep theirs.

    .. versionadded:: 0.1.0
    """

    items: Sequence[StreamItem] = ()
    _: KW_ONLY
    done: bool = True
    batch: int = 1
    delay: float = 0.0
    chunked: bool = True
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"
    newline: bytes = b"\n"
    _encoded: tuple[bytes | _EncodedRepeat | Pause | Drop, ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if isinstance(self.items, str | bytes | Mapping):
            raise TypeError("Stream: items must be a sequence of items, not one item")
        if not isinstance(self.items, Iterable):
            raise TypeError(f"Stream: items must be a sequence of items, got {shown(self.items)}")
        check_bool("Stream", "done", self.done)
        check_int("Stream", "batch", self.batch, 1)
        check_seconds("Stream", "delay", self.delay)
        check_bool("Stream", "chunked", self.chunked)
        if self.newline not in _NEWLINES:
            raise ValueError(f"Stream: newline must be one of {_NEWLINES}, got {self.newline!r}")
        check_status("Stream", "status", self.status)
        _check_headers(self.headers, "Stream")
        check_str("Stream", "content_type", self.content_type, line=True)
        encoded: list[bytes | _EncodedRepeat | Pause | Drop] = []
        for position, item in enumerate(self.items):
            where = f"Stream item {position}"
            if encoded and isinstance(encoded[-1], Drop):
                raise ValueError(f"{where}: nothing can follow Drop(), it ends the stream")
            if isinstance(item, Repeat):
                event = item.item
                encoded.append(
                    _EncodedRepeat(
                        event
                        if isinstance(event, bytes)
                        else encode_chunk(event, where, self.newline),
                        item.count,
                    )
                )
            elif isinstance(item, Mapping):
                encoded.append(encode_chunk(item, where, self.newline))
            elif isinstance(item, bytes | Pause | Drop):
                encoded.append(item)
            else:
                raise TypeError(
                    f"{where} is a {type(item).__name__}: expected a chunk (a mapping), raw "
                    "bytes (e.g. sse_event(...)), Pause, Drop or Repeat"
                )
        if self.done and not (encoded and isinstance(encoded[-1], Drop)):
            encoded.append(b"data: [DONE]" + self.newline + self.newline)
        object.__setattr__(self, "_encoded", tuple(encoded))  # a derived field of a frozen class

    def writes(self) -> Iterator[bytes | Pause | Drop]:
        """The body as the server sends it: writes of up to ``batch`` events, and markers.

        A repeated event yields the same ``bytes`` object for every full batch, so the
        server can frame it once.
        """
        batch, group = self.batch, list[bytes]()
        for item in self._encoded:
            if isinstance(item, bytes):
                group.append(item)
                if len(group) == batch:
                    yield b"".join(group)
                    group.clear()
            elif isinstance(item, _EncodedRepeat):
                count = item.times
                fill = min(count, batch - len(group)) if group else 0
                group += [item.event] * fill
                count -= fill
                if len(group) == batch:
                    yield b"".join(group)
                    group.clear()
                full = item.event * batch
                for _ in range(count // batch):
                    yield full
                group += [item.event] * (count % batch)
            else:
                if group:
                    yield b"".join(group)
                    group.clear()
                yield item
        if group:
            yield b"".join(group)


@dataclass(frozen=True, slots=True)
class Reply:
    """A complete (non-streamed) response: any status, any body, any headers.

    Args:
        status: The status code.
        body: ``None``: no body. ``bytes``: sent as is. ``str``: UTF-8, ``text/plain``
            unless ``content_type`` says otherwise. Anything else (a dict from
            :func:`error_object` or :func:`example_error_body`, a list…): JSON,
            ``application/json``.
        headers: Extra response headers (``Retry-After``, :func:`rate_limit_headers`…);
            they replace defaults of the same name, ``Content-Length`` included.
        content_type: The ``Content-Type``; by default derived from ``body`` as above
            (none for ``None`` and ``bytes``).

    .. versionadded:: 0.1.0
    """

    status: int = 200
    body: Any = None
    _: KW_ONLY
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str | None = None
    _payload: bytes = field(init=False, repr=False, compare=False)
    _type: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_status("Reply", "status", self.status)
        _check_headers(self.headers, "Reply")
        check_str("Reply", "content_type", self.content_type, optional=True, line=True)
        body, content_type = self.body, self.content_type
        if body is None:
            payload = b""
        elif isinstance(body, bytes):
            payload = body
        elif isinstance(body, str):
            payload = body.encode()
            content_type = content_type or "text/plain; charset=utf-8"
        else:
            try:
                payload = json.dumps(
                    body, ensure_ascii=False, separators=(",", ":"), allow_nan=False
                ).encode()
            except (TypeError, ValueError) as exc:
                raise TypeError(f"Reply: the body is not JSON-serialisable ({exc})") from None
            content_type = content_type or "application/json"
        object.__setattr__(self, "_payload", payload)  # derived fields of a frozen class
        object.__setattr__(self, "_type", content_type)

    def encoded(self) -> tuple[bytes, str | None]:
        """The body bytes and the ``Content-Type`` to send (``None``: no such header)."""
        return self._payload, self._type


@dataclass(frozen=True, slots=True)
class CloseBeforeHeaders:
    """Read the request, then close the connection without sending a byte.

    Clients report "server disconnected without sending a response" (httpx:
    ``RemoteProtocolError``), or with ``reset`` a connection reset (``ReadError``).

    .. versionadded:: 0.1.0
    """

    reset: bool = False

    def __post_init__(self) -> None:
        check_bool("CloseBeforeHeaders", "reset", self.reset)


#: What the server does with one request.
Scenario: TypeAlias = Stream | Reply | CloseBeforeHeaders | CutStream


def text_reply(
    *pieces: str,
    finish_reason: str = "stop",
    usage: Mapping[str, Any] | None = None,
) -> Stream:
    """A plain text answer streamed as Mistral does it.

    The role chunk (``content: ""``), one text chunk per piece, a finish chunk with
    usage (by default one completion token per piece), then ``[DONE]``.

    .. versionadded:: 0.1.0
    """
    for position, piece in enumerate(pieces):
        check_str("text_reply", f"pieces[{position}]", piece)
    check_finish_reason("text_reply", "finish_reason", finish_reason, optional=False)
    check_mapping("text_reply", "usage", usage, optional=True)
    return Stream(
        [
            role_chunk(),
            *(text_chunk(piece) for piece in pieces),
            finish_chunk(finish_reason, usage=usage or usage_info(10, len(pieces))),
        ]
    )


def big_stream(chunks: int, *, text: str = "tok ", batch: int = 256) -> Stream:
    """A long text answer for benchmarks: ``chunks`` text chunks of ``text``.

    Written ``batch`` events per write from one pre-encoded buffer, so the server is
    never the bottleneck. The role chunk, the finish chunk and ``[DONE]`` come extra.

    .. versionadded:: 0.1.0
    """
    check_int("big_stream", "chunks", chunks)
    check_str("big_stream", "text", text)
    check_int("big_stream", "batch", batch, 1)
    return Stream(
        [
            role_chunk(),
            Repeat(text_chunk(text), chunks),
            finish_chunk("stop", usage=usage_info(10, chunks)),
        ],
        batch=batch,
    )
