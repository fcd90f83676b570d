"""Recognise the prefix a logging library writes before a line's message (pure).

An application log line is a timestamp, a level word, a logger name and bracketed
ids, then the message: ``2026-07-22T10:00:00.000Z ERROR app.api [req=9f86d081] call
failed: ...``. Lines that report the same failure differ in the timestamp and the
ids, so the scanner's verdict cache (``_scan.VERDICT_CACHE_LIMIT``) is keyed on the
line with those two fields *canonical*: every digit and hex letter is ``0`` (but a
fraction of a second from 400 to 599 standing alone, which the rules read as a
status). So are the ids in the message that many logs end an error with (a UUID,
or ``req_`` and 24 hex digits): a hex run of at least 16 holding a digit and a
letter. Nothing else changes, so the canonical line has the same length, the same
word and non-word characters and the same level, logger and message words: the
verdict is that of the canonical line (docs/classifier.md, "Verdict cache", says
why this is a definition and how it was checked).

The excerpt cache (``_scan.excerpt``) uses :func:`message_start`: where the message
begins after the whole prefix.

The functions here are the definition. Where the package was built with a C compiler
at hand, :data:`canonical` and :data:`message_start` are the compiled reader of
``src/native`` (about ten times faster; ``tests/llm_errors/logs/test_prefix.py`` holds
it to these on generated lines); otherwise they are these.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Final

from llm_errors.engine import NATIVE as _NATIVE

__all__ = [
    "NATIVE",
    "canonical",
    "message_start",
    "pure_canonical",
    "pure_message_start",
]

#: Longest prefix looked at, in characters: a prefix is short, a long line is bounded.
PREFIX_WINDOW: Final = 256

_LEVELS = "TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRITICAL|CRIT|FATAL|SEVERE|PANIC|ALERT"
# A bracketed id: hex digits (and dashes, as in a UUID), at least 8, optionally keyed.
_ID_FORM = r"\[(?:[A-Za-z_]+[=:])?(?P<id>[0-9A-Fa-f-]{8,})\][ \t]+"
_HEAD = re.compile(
    rf"""
    \[?(?P<stamp>\d{{4}}-\d{{2}}-\d{{2}}[T ]\d{{2}}:\d{{2}}:\d{{2}}
                 (?:[.,](?P<fraction>\d{{1,9}}))?(?P<zone>Z|[+-]\d{{2}}:?\d{{2}})?)\]?[ \t]+
    (?:(?:{_LEVELS})[ \t]+)?
    (?:(?=[A-Za-z_])[\w-]+(?:\.[\w-]+)+[ \t]+      # a dotted logger name
     | (?=[A-Za-z_])[\w-]+[ \t]+(?=\[))?           # or any name before a bracketed id
    (?:{_ID_FORM})?
    """,
    re.VERBOSE | re.ASCII,
)
_ID = re.compile(_ID_FORM, re.ASCII)
# An id in the message: a UUID, or a run of at least 16 hex digits holding both a digit
# and a letter (a request or trace id; digits alone may be a time), standing alone or
# after ``_`` (``req_9f86d081...``). Runs are found by a plain class scan (a pattern
# with look-arounds is several times slower per line) and their shape checked after.
_HEX_RUN = re.compile(r"[0-9A-Fa-f][0-9A-Fa-f-]{15,}", re.ASCII)
_UUID = re.compile(r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}", re.ASCII)
_ID_MIN: Final = 16
# Bytes of a hex run (digits, hex letters, ``-``) as ``x``, all others as a space: a
# message holds a run of :data:`_ID_MIN` only if its translation holds that many ``x``.
# Most messages hold none, and this test costs a third of the run search it spares.
_RUN_BYTES: Final = bytes(
    ord("x") if chr(byte) in "0123456789abcdefABCDEF-" else ord(" ") for byte in range(256)
)
_RUN_MIN: Final = b"x" * _ID_MIN
_CANON: Final = bytes.maketrans(b"0123456789abcdefABCDEF", b"0" * 22)
_STATUS_DIGITS: Final = frozenset("45")
_STATUS_WIDTH: Final = 3


@functools.lru_cache(maxsize=4)
def _head(line: str) -> re.Match[str] | None:
    # The verdict cache (canonical) and the excerpt (message_start) read the same
    # line's prefix, a line or two apart (a finding is held for one line): matched once.
    return _HEAD.match(line, 0, PREFIX_WINDOW)


def _zeroed(text: str) -> str:
    # ASCII by construction (the patterns match ASCII only): bytes.translate is fast.
    return text.encode("ascii").translate(_CANON).decode("ascii")


def _status_like(head: re.Match[str]) -> bool:
    """Whether the fraction of a second stands alone and reads like a status (``,429 ERROR``).

    The rules read a standalone 4xx/5xx number as a status, so that one is kept.
    """
    fraction = head["fraction"]
    return (
        fraction is not None
        and len(fraction) == _STATUS_WIDTH
        and fraction[0] in _STATUS_DIGITS
        and head["zone"] != "Z"
    )


def _more_ids(line: str, pos: int) -> tuple[list[tuple[int, int]], int]:
    """The spans of further bracketed ids from ``pos`` on, and where they end."""
    spans = []
    while line.startswith("[", pos) and (found := _ID.match(line, pos, PREFIX_WINDOW)):
        spans.append(found.span("id"))
        pos = found.end()
    return spans, pos


def _is_id(text: str, start: int, end: int) -> bool:
    """Whether the hex run ``text[start:end]`` is a message id (see :data:`_HEX_RUN`)."""
    if (start and text[start - 1].isascii() and text[start - 1].isalnum()) or (
        end < len(text) and text[end].isascii() and text[end].isalnum()
    ):
        return False
    run = text[start:end]
    if "-" in run:
        return _UUID.fullmatch(run) is not None
    return len(run) >= _ID_MIN and not run.isdigit() and not run.isalpha()


def _message_ids(text: str) -> str:
    """``text`` with its message ids zeroed (the same text when it has none)."""
    if _RUN_MIN not in text.encode("utf-8", "surrogatepass").translate(_RUN_BYTES):
        return text
    parts: list[str] = []
    pos = 0
    for found in _HEX_RUN.finditer(text):
        start, end = found.span()
        if _is_id(text, start, end):
            parts += [text[pos:start], _zeroed(text[start:end])]
            pos = end
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)


def pure_canonical(line: str) -> str:
    """``line`` with its prefix's timestamp and ids, and its message's ids, canonical.

    See the module doc. A line without a recognised prefix keeps its prefix as it is.
    """
    head = _head(line)
    if head is None:
        return _message_ids(line)
    start, end = head.span("stamp")
    spans = [] if head["id"] is None else [head.span("id")]
    if spans:
        spans += _more_ids(line, head.end())[0]
    if _status_like(head):
        kept_start, kept_end = head.span("fraction")
        parts = [line[:start], _zeroed(line[start:kept_start]), line[kept_start:kept_end]]
        parts.append(_zeroed(line[kept_end:end]))
    else:
        parts = [line[:start], _zeroed(line[start:end])]
    for id_start, id_end in spans:
        parts += [line[end:id_start], _zeroed(line[id_start:id_end])]
        end = id_end
    parts.append(_message_ids(line[end:]))
    return "".join(parts)


def pure_message_start(line: str) -> int:
    """Where the message starts after a recognised prefix (``0``: no prefix recognised).

    The prefix ends in a space or tab and the message starts with another character.
    """
    head = _head(line)
    if head is None:
        return 0
    end = head.end()
    if head["id"] is not None:
        end = _more_ids(line, end)[1]
    return end if end < len(line) and not line[end].isspace() else 0


_READER: Final = None if _NATIVE is None else (_NATIVE.canonical, _NATIVE.message_start)
#: Whether :data:`canonical` and :data:`message_start` are the compiled reader.
NATIVE: Final = _READER is not None
#: :func:`pure_canonical`, compiled where it was built.
canonical: Final[Callable[[str], str]] = pure_canonical if _READER is None else _READER[0]
#: :func:`pure_message_start`, compiled where it was built.
message_start: Final[Callable[[str], int]] = pure_message_start if _READER is None else _READER[1]
