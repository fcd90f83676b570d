"""The words of a message, as the words layer weighs them (pure: text in, features out).

One function serves the runtime and the fitting (``tools/fit_words.py``), so the weights
are always looked up under the names they were fitted on. A message becomes:

* its words, lower-cased: identifiers are split where a reader sees words
  (``RemoteProtocolError`` is remote, protocol, error; ``ERR_SOCKET_CLOSED`` is err,
  socket, closed, and stays whole too), an errno name also by its parts
  (``ECONNRESET``: conn, reset), letters and digits together kept whole (``x509``,
  ``http2``; an id such as ``9f86d081`` is then one word no weight knows), numbers
  dropped but for a 4xx/5xx status (``#503``);
* each pair of neighbouring words (``timed out``, ``reset by``): short phrases;
* character bigrams of Chinese, Japanese and Korean runs, which have no spaces.

Only the first :data:`TEXT_LIMIT` characters are read, so the cost is bounded whatever
the input.
"""

from __future__ import annotations

import itertools
from typing import Final

import regex

__all__ = ["TEXT_LIMIT", "WORD_LIMIT", "features"]

#: Characters of a message read (error messages state their cause early).
TEXT_LIMIT: Final = 4096
#: Longer runs of letters are data (base64, hashes), not words; shorter ones are noise.
WORD_LIMIT: Final = 40
_WORD_MIN = 2
#: An errno name is ``E`` and at least four letters (``EPIPE``).
_ERRNO_MIN = 5
_STATUS_DIGITS = 3

_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
# An identifier with underscores; letters and digits mixed; a CJK run; a camel-case
# piece; a number.
_PIECES: Final = regex.compile(
    rf"(?P<snake>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)"
    r"|(?P<mixed>[A-Za-z0-9]*(?:[A-Za-z][0-9]|[0-9][A-Za-z])[A-Za-z0-9]*)"
    rf"|(?P<cjk>[{_CJK}]+)"
    rf"|(?P<word>\p{{Lu}}+(?=\p{{Lu}}\p{{Ll}})|\p{{Lu}}?\p{{Ll}}+|\p{{Lu}}+|(?:(?![{_CJK}])\p{{L}})+)"
    r"|(?P<number>[0-9]+)"
)
_SNAKE_PART: Final = regex.compile(r"\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|[0-9]+")
#: What errno names (``ECONNRESET``, ``EHOSTUNREACH``) are made of, longest first.
_ERRNO_STEMS: Final = (
    "notavail",
    "timedout",
    "refused",
    "unreach",
    "aborted",
    "notconn",
    "nobufs",
    "proto",
    "reset",
    "again",
    "inuse",
    "conn",
    "host",
    "pipe",
    "addr",
    "down",
    "net",
    "not",
    "found",
    "noname",
    "nodata",
    "fail",
)


def _errno_parts(word: str) -> list[str] | None:
    """``econnreset`` -> ``["conn", "reset"]``; ``None`` when it is not made of stems."""
    rest, parts = word[1:], []
    while rest:
        stem = next((s for s in _ERRNO_STEMS if rest.startswith(s)), None)
        if stem is None:
            return None
        parts.append(stem)
        rest = rest[len(stem) :]
    return parts


def _add_word(piece: str, words: list[str], extra: list[str]) -> None:
    word = piece.lower()
    if not _WORD_MIN <= len(word) <= WORD_LIMIT:
        return
    words.append(word)
    if piece.isupper() and word[0] == "e" and len(word) >= _ERRNO_MIN:
        extra.extend(_errno_parts(word) or ())


def features(text: str) -> list[str]:
    """The features of ``text``: words, neighbouring pairs and CJK bigrams, in order, repeated."""
    text = text[:TEXT_LIMIT]
    out: list[str] = []
    words: list[str] = []  # in reading order: pairs are made of neighbours
    extra: list[str] = []  # whole identifiers and errno parts: words, never in a pair
    for match in _PIECES.finditer(text):
        kind = match.lastgroup
        piece = match.group()
        if kind == "word":
            _add_word(piece, words, extra)
        elif kind == "mixed":
            # Never in a pair: the ids a log's canonical form folds to digits leave the
            # same neighbours behind (docs/classifier.md, "Verdict cache").
            if len(piece) <= WORD_LIMIT:
                extra.append(piece.lower())
        elif kind == "snake":
            extra.append(piece.lower())
            for part in _SNAKE_PART.findall(piece):
                if not part.isdigit():
                    _add_word(part, words, extra)
        elif kind == "number":
            # A status, not a port (``:443``) or a part of a time or address.
            start = match.start()
            if len(piece) == _STATUS_DIGITS and piece[0] in "45" and text[start - 1 : start] != ":":
                words.append("#" + piece)
        else:
            if len(piece) == 1:
                out.append(piece)
            out.extend(piece[i : i + 2] for i in range(len(piece) - 1))
    out.extend(words)
    out.extend(extra)
    out.extend(f"{first} {second}" for first, second in itertools.pairwise(words))
    return out
