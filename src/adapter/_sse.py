r"""Incremental Server-Sent Events decoding: bytes in, events out, no I/O.

Two small layers, after the WHATWG HTML Standard, "Server-sent events", sections
9.2.5 "Parsing an event stream" and 9.2.6 "Interpreting an event stream"
(https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream):

- :class:`SSELineSplitter` turns reads of any size into complete lines. A line ends
  at CRLF, LF or CR (also a CR at the end of one read followed by an LF at the start
  of the next), and one leading UTF-8 byte order mark is dropped.
- :class:`SSEDecoder` is the field state machine: ``data:`` lines are joined with
  ``"\n"``, a blank line dispatches, ``:`` comments (keep-alives) and unknown fields
  are ignored, ``event:``/``id:``/``retry:`` follow the spec.

Everything stays ``bytes`` until a field value is needed, so a UTF-8 sequence split
across reads is never decoded half-way, and only the values are decoded (with
replacement, as the spec's "UTF-8 decode" does; CR, LF and ``:`` are ASCII and never
occur inside a multi-byte sequence, so per-value decoding gives the same text).

Bounds: a line longer than ``max_line`` bytes, or an event whose data lines add up
to more than ``max_event`` bytes, raises :class:`SSELimitError` naming the limit, so
a server that never sends a newline (or never a blank line) cannot grow the decoder
without end. The defaults (:data:`MAX_LINE`, :data:`MAX_EVENT`) are far above any
real event; a pending line is measured as its pieces arrive, so the check is linear.

End of stream: the spec discards an event that is not followed by a blank line, and
so do we; :meth:`SSEDecoder.finish` reports whether anything was discarded.

The HTTP layer passes ``response.iter_bytes()``/``aiter_bytes()`` to
:func:`iter_events`/:func:`aiter_events` and nothing else, or feeds each read to
:meth:`SSEDecoder.feed` (:meth:`SSEDecoder.feed_data` when it needs only the data).

.. versionadded:: 0.1.0
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import NamedTuple, TypeVar

__all__ = [
    "DONE",
    "MAX_EVENT",
    "MAX_LINE",
    "SSEDecoder",
    "SSELimitError",
    "SSELineSplitter",
    "ServerSentEvent",
    "aiter_events",
    "iter_events",
]

#: The data of the event that ends an OpenAI-style (and Mistral) stream.
DONE = b"[DONE]"

_BOM = b"\xef\xbb\xbf"

#: The default longest line, in bytes (4 MiB).
MAX_LINE = 4 * 1024 * 1024
#: The default largest event (its data lines together), in bytes (8 MiB).
MAX_EVENT = 8 * 1024 * 1024


class SSELimitError(ValueError):
    """A line or an event is larger than the decoder's limit.

    Attributes:
        limit: The name of the limit (``"max_line"`` or ``"max_event"``).
        value: Its value, in bytes.

    .. versionadded:: 0.2.0
    """

    def __init__(self, limit: str, value: int) -> None:
        what = "line" if limit == "max_line" else "event"
        super().__init__(f"an SSE {what} is longer than {limit}={value:,} bytes")
        self.limit = limit
        self.value = value


_T = TypeVar("_T")

#: The longest ``retry:`` value interpreted (18 digits: over 31 million years, so no
#: real delay is lost); a longer one is ignored, as an invalid value is, since
#: ``int()`` of thousands of digits is slow and refused by Python's digit limit.
_RETRY_DIGITS = 18


class ServerSentEvent(NamedTuple):
    r"""One dispatched event: an immutable record without a per-instance ``__dict__``.

    The payload is kept as the raw bytes of the ``data:`` lines, because the consumer
    parses it as JSON and pydantic's ``validate_json`` takes bytes: decoding to ``str``
    first costs a decode, and for non-ASCII text a re-encode too (``bench/sse_decode.py``).
    A ``NamedTuple`` rather than a frozen slotted dataclass because one is built per
    event on the hot path and a tuple is about twice as cheap to construct.

    Attributes:
        data_bytes: The ``data:`` lines joined with ``b"\n"``, as received (UTF-8).
        event: The event type; ``"message"`` when the event had no ``event:`` field.
        id: The last event ID seen so far in the stream (the spec keeps it across
            events), ``""`` if none.
        retry: The reconnection time in milliseconds last set by a ``retry:`` field
            in the stream (also kept across events), ``None`` if none.

    .. versionadded:: 0.1.0
    """

    data_bytes: bytes
    event: str = "message"
    id: str = ""
    retry: int | None = None

    @property
    def data(self) -> str:
        """The data as text, decoded with replacement as the spec's "UTF-8 decode" does."""
        return self.data_bytes.decode("utf-8", "replace")

    @property
    def is_done(self) -> bool:
        """Whether this is the ``data: [DONE]`` end-of-stream sentinel."""
        return self.data_bytes == DONE


# Builds a ServerSentEvent from a complete tuple, skipping NamedTuple's Python-level
# __new__ (its keyword defaults): the decoder always passes all four fields.
_new_event = tuple.__new__


class SSELineSplitter:
    """Split a byte stream, fed in reads of any size, into lines without terminators.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_head", "_max_line", "_parts", "_pending", "_skip_lf", "_special")

    def __init__(self, *, max_line: int = MAX_LINE) -> None:
        self._max_line = max_line
        # Pieces of the unfinished line, joined once when its terminator arrives
        # (concatenating on every read is quadratic for a long line in small reads),
        # and their length.
        self._parts: list[bytes] = []
        self._pending = 0
        # The previous read ended in CR: an LF starting this read belongs to it.
        self._skip_lf = False
        # The bytes seen at the very start while they could still be a BOM; None once
        # the start of the stream has been passed.
        self._head: bytes | None = b""
        # Either of the two states above is active: one flag keeps them off the hot path.
        self._special = True

    def feed(self, chunk: bytes) -> list[bytes]:
        """Return the lines that ``chunk`` completes, in order.

        Raises:
            SSELimitError: a line is longer than ``max_line``.
        """
        if self._special or b"\r" in chunk:
            chunk = self._normalize(chunk)
        lines = chunk.split(b"\n")
        parts = self._parts
        limit = self._max_line
        if parts and len(lines) > 1:
            parts.append(lines[0])
            lines[0] = b"".join(parts)
            parts.clear()
            self._pending = 0
            if len(lines[0]) > limit:
                raise SSELimitError("max_line", limit)
        rest = lines.pop()
        if rest:
            parts.append(rest)
            self._pending += len(rest)
            if self._pending > limit:
                raise SSELimitError("max_line", limit)
        if len(chunk) > limit and any(len(line) > limit for line in lines):
            raise SSELimitError("max_line", limit)
        return lines

    def _normalize(self, chunk: bytes) -> bytes:
        """Drop a leading BOM and turn CRLF and CR line ends into LF."""
        if self._head is not None:
            chunk = self._head + chunk
            if len(chunk) < len(_BOM) and _BOM.startswith(chunk):
                self._head = chunk  # too short to tell yet: wait for more bytes
                return b""
            self._head = None
            chunk = chunk.removeprefix(_BOM)
        if self._skip_lf and chunk:
            self._skip_lf = False
            chunk = chunk.removeprefix(b"\n")
        if b"\r" in chunk:
            self._skip_lf = chunk.endswith(b"\r")
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        self._special = self._skip_lf  # the BOM check is over once we get here
        return chunk

    def finish(self) -> bytes:
        """Reset for a new stream; return the unterminated last line (``b""`` if none)."""
        rest = b"".join(self._parts) if self._head is None else self._head
        self._parts.clear()
        self._pending = 0
        self._skip_lf = False
        self._head = b""
        self._special = True
        return rest


class SSEDecoder:
    r"""The WHATWG event-stream field state machine, fed bytes or lines.

    Example:
        >>> decoder = SSEDecoder()
        >>> decoder.feed(b'data: {"a": 1}\n\ndata: [DO')
        [ServerSentEvent(data_bytes=b'{"a": 1}', event='message', id='', retry=None)]
        >>> [event.is_done for event in decoder.feed(b"NE]\n\n")]
        [True]

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_data", "_event", "_id", "_lines", "_max_event", "_retry", "_size")

    def __init__(self, *, max_line: int = MAX_LINE, max_event: int = MAX_EVENT) -> None:
        self._lines = SSELineSplitter(max_line=max_line)
        self._max_event = max_event
        self._data: list[bytes] = []
        self._size = 0  # the bytes in _data
        self._event = b""
        self._id = ""
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Return the events that ``chunk`` completes, in order."""
        return self._feed(chunk, self._dispatch)

    def feed_data(self, chunk: bytes) -> list[bytes]:
        r"""Return the data of the events that ``chunk`` completes, in order.

        The same as ``[event.data_bytes for event in self.feed(chunk)]``, for a
        consumer that reads only the data (the Mistral client: Mistral sends no
        ``event:`` or ``id:`` fields), without building an event record per event.
        ``event:``, ``id:`` and ``retry:`` lines are still interpreted, so the
        decoder's state is the same as after :meth:`feed`.

        Example:
            >>> SSEDecoder().feed_data(b"data: 1\n\nevent: x\ndata: 2\n\n")
            [b'1', b'2']
        """
        return self._feed(chunk, self._dispatch_data)

    def decode(self, line: bytes) -> ServerSentEvent | None:
        """Interpret one line (without its terminator); return the event it dispatches."""
        if not line:
            return self._dispatch()
        self._field(line)
        return None

    def finish(self) -> bool:
        """End the stream: discard an undispatched event, as the spec requires.

        Returns:
            Whether anything was discarded (an unterminated line or an event without
            its closing blank line), so a caller can tell a stream cut mid-event from
            one that ended on an event boundary. The decoder is then ready for a new
            stream (the last event ID and retry are kept, as by a reconnecting client).
        """
        discarded = bool(self._lines.finish() or self._data or self._event)
        self._data.clear()
        self._size = 0
        self._event = b""
        return discarded

    # --- the state machine: one path for every line, one for every dispatch ------------

    def _feed(self, chunk: bytes, dispatch: Callable[[], _T | None]) -> list[_T]:
        """Interpret the lines ``chunk`` completes; collect what ``dispatch`` returns."""
        out: list[_T] = []
        field = self._field
        for line in self._lines.feed(chunk):
            if line:
                field(line)
            elif (item := dispatch()) is not None:
                out.append(item)
        return out

    def _field(self, line: bytes) -> None:
        """Interpret one non-blank line: a field, or a comment."""
        if line.startswith(b"data: "):  # Mistral's every line: the usual case, parsed first
            name, value = b"data", line[6:]
        elif line.startswith(b":"):  # a comment, e.g. a keep-alive
            return
        else:
            name, _, value = line.partition(b":")
            if value[:1] == b" ":
                value = value[1:]
        if name == b"data":
            self._data.append(value)
            self._size += len(value) + 1
            if self._size > self._max_event:
                raise SSELimitError("max_event", self._max_event)
        elif name == b"event":
            self._event = value
        elif name == b"id" and b"\0" not in value:
            self._id = value.decode("utf-8", "replace")
        elif name == b"retry" and value.isdigit() and len(value) <= _RETRY_DIGITS:
            self._retry = int(value)  # bytes: ASCII digits only, as specified
        # Any other field is ignored, as the spec requires.

    def _dispatch_data(self) -> bytes | None:
        """A blank line: the event's data (``None`` if it had none); the type resets."""
        self._event = b""
        data = self._data
        if not data:
            return None  # no data: nothing is dispatched
        payload = b"\n".join(data)
        data.clear()
        self._size = 0
        return payload

    def _dispatch(self) -> ServerSentEvent | None:
        """A blank line: the event, with the fields it had (``None`` if it had no data)."""
        event = self._event
        payload = self._dispatch_data()
        if payload is None:
            return None
        name = event.decode("utf-8", "replace") if event else "message"
        return _new_event(ServerSentEvent, (payload, name, self._id, self._retry))


def iter_events(chunks: Iterable[bytes]) -> Iterator[ServerSentEvent]:
    """Decode an iterable of byte reads (e.g. ``response.iter_bytes()``) into events.

    An event cut off by the end of the stream is discarded, as the spec says; feed an
    :class:`SSEDecoder` directly to learn from :meth:`SSEDecoder.finish` that it was.

    .. versionadded:: 0.1.0
    """
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    decoder.finish()


async def aiter_events(chunks: AsyncIterable[bytes]) -> AsyncIterator[ServerSentEvent]:
    """Decode an async iterable of byte reads (e.g. ``response.aiter_bytes()``) into events.

    Like :func:`iter_events`, it discards an event cut off by the end of the stream.
    Closing this generator early does not close ``chunks``: the owner of the response
    closes it (in a ``finally``).

    .. versionadded:: 0.1.0
    """
    decoder = SSEDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    decoder.finish()
