"""Read log inputs as numbered, decoded lines in bounded memory (the I/O side of a scan).

Files are read in binary and line by line, so a multi-gigabyte log costs one line
of memory, and a line is cut at :data:`LINE_LIMIT` bytes so even a log without
line breaks does not. Bytes that are not UTF-8 are replaced and reported, lines
with NUL bytes (binary data) are reported and skipped, gzip input is
decompressed on the fly. Every failure to read is raised as :class:`InputError`,
so the caller can tell it apart from a failure to write its output.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import stat
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final, Protocol

from llm_errors.logs._scan import Problem, ProblemKind

__all__ = [
    "LINE_LIMIT",
    "InputError",
    "Readable",
    "Source",
    "decode_line",
    "iter_lines",
    "open_source",
]

#: Longest line read whole, in bytes; the rest of a longer line is skipped (and reported).
LINE_LIMIT: Final = 1 << 20

_GZIP_MAGIC = b"\x1f\x8b"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Readable(Protocol):
    """What reading needs: a file opened in binary, stdin's buffer, a gzip stream."""

    def readline(self, size: int, /) -> bytes: ...

    def read(self, size: int, /) -> bytes: ...


class InputError(Exception):
    """An input could not be opened or read to its end; ``line`` is where reading stopped."""

    def __init__(self, detail: str, line: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.line = line


@dataclass(frozen=True, slots=True)
class Source:
    """An opened input: its display name, its (decompressed) byte stream and its size."""

    name: str
    stream: Readable
    size: int | None
    """Bytes in the underlying file when it is a regular file, for progress."""
    raw: IO[bytes]

    def position(self) -> int:
        """Bytes of the underlying file consumed so far (compressed bytes for gzip)."""
        try:
            return self.raw.tell()
        except (OSError, ValueError):
            return 0


@contextlib.contextmanager
def open_source(path: str, stdin: IO[bytes] | None = None) -> Iterator[Source]:
    """Open ``path`` (``-`` is ``stdin``) for reading; :class:`InputError` if it cannot be."""
    if path == "-":
        if stdin is None:
            raise InputError("no standard input to read")
        raw, name, owned = stdin, "<stdin>", False
    else:
        try:
            raw = Path(path).open("rb")  # noqa: SIM115 -- closed in the finally below
        except OSError as exc:
            raise InputError(exc.strerror or str(exc)) from exc
        name, owned = path, True
    try:
        size: int | None = None
        with contextlib.suppress(OSError, ValueError):
            info = os.fstat(raw.fileno())
            if stat.S_ISREG(info.st_mode):
                size = info.st_size
        stream: Readable = raw
        if isinstance(raw, io.BufferedReader):
            try:
                head = raw.peek(2)[:2]
            except OSError as exc:
                raise InputError(exc.strerror or str(exc)) from exc
            if head == _GZIP_MAGIC:
                stream = gzip.GzipFile(fileobj=raw, mode="rb")
        yield Source(name, stream, size, raw)
    finally:
        if owned:
            raw.close()


def iter_lines(stream: Readable, limit: int = LINE_LIMIT) -> Iterator[tuple[bytes, int]]:
    """Yield each line (with its ending) and how many bytes were cut off it.

    Raises:
        InputError: reading failed (an I/O error, a corrupt or truncated gzip stream).
    """
    number = 0
    try:
        while chunk := stream.readline(limit):
            number += 1
            if len(chunk) < limit or chunk.endswith(b"\n"):
                yield chunk, 0
                continue
            cut = 0
            while rest := stream.readline(limit):
                cut += len(rest)
                if rest.endswith(b"\n"):
                    cut -= len(rest) - len(rest.rstrip(b"\r\n"))
                    break
            yield chunk, cut
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"reading failed: {exc}", number + 1) from exc


def decode_line(number: int, raw: bytes, cut: int = 0) -> tuple[str | None, Sequence[Problem]]:
    """Decode one line; ``None`` for binary data. Every oddity comes back as a problem."""
    if not cut and b"\x00" not in raw and number != 1:
        # The common case, kept short: this runs once per line of a multi-gigabyte log.
        try:
            text = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            pass
        else:
            return (_ANSI.sub("", text) if "\x1b" in text else text), ()
    problems: list[Problem] = []
    if cut:
        detail = f"longer than {len(raw)} bytes: scanned its start, skipped {cut} bytes"
        problems.append(Problem(ProblemKind.LONG_LINE, number, detail))
    if b"\x00" in raw:
        problems.append(Problem(ProblemKind.BINARY, number, "binary data (NUL bytes); skipped"))
        return None, problems
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if cut and exc.reason == "unexpected end of data":
            # The cut split a character; that is the cut's doing, not the file's.
            text = raw[: exc.start].decode("utf-8", errors="replace")
        else:
            text = raw.decode("utf-8", errors="replace")
            detail = f"not UTF-8 at byte {exc.start}; undecodable bytes replaced with U+FFFD"
            problems.append(Problem(ProblemKind.UNDECODABLE, number, detail))
    text = text.rstrip("\r\n")
    if number == 1:
        text = text.removeprefix("\ufeff")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return text, problems
