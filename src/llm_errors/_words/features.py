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
import re
from typing import Final

__all__ = ["TEXT_LIMIT", "WORD_LIMIT", "features"]

#: Characters of a message read (error messages state their cause early).
TEXT_LIMIT: Final = 4096
#: Longer runs of letters are data (base64, hashes), not words; shorter ones are noise.
WORD_LIMIT: Final = 40
_WORD_MIN = 2
#: An errno name is ``E`` and at least four letters (``EPIPE``).
_ERRNO_MIN = 5
_STATUS_DIGITS = 3

# Chinese, Japanese and Korean: kana, CJK ideographs (and extension A, compatibility),
# Hangul syllables.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# A run of CJK characters, or of other word characters (letters, digits, underscores),
# with the colon right before it (``:443`` is a port, not a status).
_RUNS: Final = re.compile(f"(:?)([{_CJK}]+|[^\\W{_CJK}]+)")
# Where a reader sees words in ``RemoteProtocolError`` or ``HTTPStatusError``.
_CAMEL: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[^\W\d_A-Za-z]+")
_CJK_CHAR: Final = re.compile(f"[{_CJK}]")
_CJK_FIRST: Final = "\u3040"
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
    if word[0] == "e" and len(word) >= _ERRNO_MIN and piece.isupper():
        extra.extend(_errno_parts(word) or ())


def _add_letters(run: str, words: list[str], extra: list[str]) -> None:
    """A run of letters: one word, or the words of its camel case."""
    if run.islower() or run.isupper() or run.istitle():
        _add_word(run, words, extra)
    else:
        for piece in _CAMEL.findall(run):
            _add_word(piece, words, extra)


def _add_run(run: str, words: list[str], extra: list[str]) -> None:
    """A run of word characters other than CJK: letters, a number, or both."""
    if run.isalpha():
        _add_letters(run, words, extra)
    elif run.isdigit():
        return
    elif "_" in run:
        if len(run) <= WORD_LIMIT:
            extra.append(run.lower())
        for part in run.split("_"):
            if part:
                _add_run(part, words, extra)
    elif len(run) <= WORD_LIMIT:
        # Letters and digits: kept whole and never in a pair, so the ids a log's
        # canonical form folds to digits leave the same neighbours behind
        # (docs/classifier.md, "Verdict cache").
        extra.append(run.lower())


def features(text: str) -> list[str]:
    """The features of ``text``: words, neighbouring pairs and CJK bigrams, in order, repeated."""
    out: list[str] = []
    words: list[str] = []  # in reading order: pairs are made of neighbours
    extra: list[str] = []  # whole identifiers and errno parts: words, never in a pair
    for colon, run in _RUNS.findall(text[:TEXT_LIMIT]):
        if not run.isalpha():
            if not run.isdigit():
                _add_run(run, words, extra)
            elif len(run) == _STATUS_DIGITS and run[0] in "45" and not colon:
                words.append("#" + run)  # a status, not a port, a time or an address
        elif run[0] >= _CJK_FIRST and _CJK_CHAR.match(run):
            if len(run) == 1:
                out.append(run)
            out.extend([run[i : i + 2] for i in range(len(run) - 1)])
        elif run.islower() or run.isupper() or run.istitle():  # most words: no camel case
            word = run.lower()
            if _WORD_MIN <= len(word) <= WORD_LIMIT:
                words.append(word)
                if word[0] == "e" and len(word) >= _ERRNO_MIN and run.isupper():
                    extra.extend(_errno_parts(word) or ())
        else:
            _add_letters(run, words, extra)
    out.extend(words)
    out.extend(extra)
    out.extend([f"{first} {second}" for first, second in itertools.pairwise(words)])
    return out
