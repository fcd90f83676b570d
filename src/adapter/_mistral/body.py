"""Response bodies: content decoding with bounded output, and bounded error bodies; no I/O.

The shells read the raw bytes of a response (``iter_raw``) and decode them here, not
with ``httpx``'s decoders: those inflate each read in full, so a 1 MB gzip body that
inflates to 1 GiB is held whole in memory. :class:`BodyDecoder` inflates at most
``max_read`` bytes at a time and yields each piece before inflating the next, so the
stream decoder behind it (whose line and event limits then apply) sees a bomb as a
long run of bytes, in bounded memory and linear time.

The request advertises only what is decoded here (:data:`ACCEPT_ENCODING`); a
response in any other ``Content-Encoding`` fails with a ``ProviderError`` naming it.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Final

__all__ = [
    "ACCEPT_ENCODING",
    "BodyDecoder",
    "BoundedBody",
    "UnsupportedEncodingError",
]

#: The ``Accept-Encoding`` every request sends: the encodings :class:`BodyDecoder` reads.
ACCEPT_ENCODING: Final = "gzip, deflate"

_IDENTITY = frozenset({"", "identity"})
_GZIP = frozenset({"gzip", "x-gzip"})


class UnsupportedEncodingError(ValueError):
    """The response's ``Content-Encoding`` is not one the adapter asked for."""


class BodyDecoder:
    """Decode a response body read in raw pieces, ``max_read`` decoded bytes at a time."""

    __slots__ = ("_deflate", "_inflate", "_max_read")

    def __init__(self, content_encoding: str | None, *, max_read: int) -> None:
        """Prepare for ``content_encoding`` (the header's value, ``None`` if absent).

        Raises:
            UnsupportedEncodingError: an encoding other than gzip or deflate, or more
                than one (the message names it, bounded).
        """
        codings = [coding.strip().lower() for coding in (content_encoding or "").split(",")]
        codings = [coding for coding in codings if coding not in _IDENTITY]
        self._max_read = max_read
        self._deflate = False
        self._inflate: zlib._Decompress | None = None
        if not codings:
            return
        if len(codings) > 1 or codings[0] not in _GZIP | {"deflate"}:
            shown = ", ".join(codings)[:60]
            raise UnsupportedEncodingError(
                f"Content-Encoding {shown!r} was not asked for (accepted: {ACCEPT_ENCODING})"
            )
        self._deflate = codings[0] == "deflate"
        wbits = zlib.MAX_WBITS if self._deflate else zlib.MAX_WBITS | 16
        self._inflate = zlib.decompressobj(wbits)

    @property
    def identity(self) -> bool:
        """Whether the body is sent as is (nothing to decode)."""
        return self._inflate is None

    def pieces(self, raw: bytes) -> Iterator[bytes]:
        """The decoded bytes of ``raw``, in pieces of at most ``max_read`` bytes.

        Raises:
            zlib.error: the body is not valid gzip or deflate data.
        """
        inflate = self._inflate
        if inflate is None:
            yield raw
            return
        data = raw
        while data:
            try:
                piece = inflate.decompress(data, self._max_read)
            except zlib.error:
                if not self._deflate:
                    raise
                # "deflate" is zlib-wrapped by the standard, raw by some servers
                # (httpx's DeflateDecoder accepts both): retry the start as raw.
                self._deflate = False
                inflate = self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self._deflate = False  # past the first bytes: the format is settled
            data = inflate.unconsumed_tail
            if piece:
                yield piece


class BoundedBody:
    """Collects an error response body, decoded, up to ``limit`` bytes."""

    __slots__ = ("_limit", "_parts", "_size")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0

    def add(self, pieces: Iterator[bytes]) -> bool:
        """Keep ``pieces`` until the limit; ``True`` once it is reached (stop reading)."""
        for piece in pieces:
            self._parts.append(piece)
            self._size += len(piece)
            if self._size >= self._limit:
                return True
        return False

    def value(self) -> bytes:
        """What was read, cut at the limit."""
        return b"".join(self._parts)[: self._limit]
