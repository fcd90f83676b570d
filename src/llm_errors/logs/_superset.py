r"""A rule's pattern as a Hyperscan expression that finds every ASCII line the rule matches (pure).

The block filter (:mod:`llm_errors.logs._blocks`) reports the lines a rule *may*
match; the classifier then decides. A report too many costs a look, one too few a
missed error, so each expression must match (at least) every line the rule's
``regex`` pattern matches, for the lines it is used on: ASCII lines without the
characters where the two engines read ``\s`` differently (the filter reports every
other line anyway). :func:`superset` rewrites a pattern so that this holds:

* A non-ASCII character can match no character of an ASCII line (the few that
  IGNORECASE folds to ASCII letters are refused), so it becomes its UTF-8 bytes, as a
  group outside a character class (a quantifier then applies to the whole
  character, as in ``regex``) and as bytes inside one (a class of them then matches
  every ASCII character the ``regex`` class does); ``\uXXXX`` is read as that character.
* ``$``, ``\Z`` and ``\z`` (the line's end) become the lookahead ``(?=\n)``,
  ``\A`` (its start) becomes ``^``: Hyperscan refuses end anchors inside an
  expression, and in prefilter mode drops lookarounds, which only widens a match.
* The expression runs to the line's end (``[^\n]*$``), so Hyperscan reports each
  line once, at its end.

* ``{,n}`` becomes ``{0,n}`` (PCRE, which Hyperscan follows, reads it as text).
* A look-behind is read forward where it can be (``llm_errors.engine.forwarded``):
  ``\b(?:500|503)\b(?<=\bstatus\W{1,3}\d{3})`` is written
  ``\bstatus\W{1,3}\b(?:500|503)\b``, so a ``503`` alone (``queue_depth=503``) is
  not reported; prefilter mode would drop it.

What cannot be rewritten (``\G``, ``\N{...}``, ``\p{...}``, a nested set, the
verbose flag) gives ``None``: the rule's trigger words stand in for it, as before.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Final

from llm_errors.engine import forwarded

__all__ = ["KNOWN_LIMIT", "known_supersets", "superset"]

#: Expressions given by :func:`known_supersets` kept at most (the built-in table is 170).
KNOWN_LIMIT: Final = 4096
#: Expressions an earlier run of this same analysis wrote (``_stored.stored_supersets``).
_known: dict[str, bytes | None] = {}


def known_supersets(table: Mapping[str, bytes | None]) -> None:
    """Take ``table``'s expressions as :func:`superset`'s, up to :data:`KNOWN_LIMIT` in all.

    For expressions stored by an earlier run under the same patterns and the same
    source of this analysis: writing the built-in table takes tens of milliseconds.
    """
    for pattern, expression in table.items():
        if pattern not in _known and len(_known) >= KNOWN_LIMIT:
            break
        _known[pattern] = expression


#: Characters IGNORECASE folds to or from ASCII letters (Kelvin sign, long s,
#: dotted and dotless i): an expression of bytes would miss their ASCII matches.
_FOLDS_TO_ASCII: Final = frozenset("\u212a\u017f\u0130\u0131")
_HEX4: Final = re.compile(r"[0-9a-fA-F]{4}")
_LINE_END: Final = rb"(?=\n)"
#: The verbose flag: its comments would be read as pattern text here.
_VERBOSE: Final = re.compile(r"\(\?[a-zA-Z]*x")
#: Escapes with no byte rewriting (or whose reading differs between the engines).
_REFUSED_ESCAPES: Final = frozenset("GNpPXR")


def _bytes(char: str) -> bytes:
    return b"".join(b"\\x%02x" % byte for byte in char.encode())


def _char(char: str, in_class: bool) -> bytes:
    """One character of the pattern, read as itself."""
    if char.isascii():
        return char.encode()
    return _bytes(char) if in_class else b"(?:" + _bytes(char) + b")"


def _escape(pattern: str, at: int, in_class: bool) -> tuple[bytes, int] | None:
    """The escape at ``pattern[at]`` (a backslash) rewritten, and where the pattern goes on."""
    escaped = pattern[at + 1 : at + 2]
    if not escaped or not escaped.isascii() or escaped in _REFUSED_ESCAPES:
        return None
    if escaped == "u":
        code = pattern[at + 2 : at + 6]
        if not _HEX4.fullmatch(code) or chr(int(code, 16)) in _FOLDS_TO_ASCII:
            return None
        literal = chr(int(code, 16))
        return (
            b"\\x%02x" % ord(literal) if literal.isascii() else _char(literal, in_class)
        ), at + 6
    if not in_class and escaped in "AZz":
        return (b"^" if escaped == "A" else _LINE_END), at + 2
    return b"\\" + escaped.encode(), at + 2


def superset(pattern: str) -> bytes | None:
    """The Hyperscan expression for ``pattern`` (see the module doc), or ``None``.

    Cached: a filter's start-up writes every rule (and the built-in rules again, as a
    database of their own beside a user's); given ones (:func:`known_supersets`) first.
    """
    return _known[pattern] if pattern in _known else _written(pattern)


@functools.lru_cache(maxsize=4096)
def _written(pattern: str) -> bytes | None:
    pattern = forwarded(pattern) or pattern
    if not _FOLDS_TO_ASCII.isdisjoint(pattern) or _VERBOSE.search(pattern):
        return None
    out: list[bytes] = []
    class_start = -1  # where the open class's members start (a ``]`` there is one); -1: none
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            rewritten = _escape(pattern, at, class_start >= 0)
            if rewritten is None:
                return None
            piece, at = rewritten
            out.append(piece)
            continue
        if class_start >= 0:
            if char == "[":
                return None  # a nested set: read differently by the engines
            if char == "]" and at > class_start:
                class_start = -1
            out.append(_char(char, in_class=True) if char != "]" else b"]")
        elif char == "[":
            negated = pattern[at + 1 : at + 2] == "^"
            class_start = at + 1 + negated
            out.append(b"[^" if negated else b"[")
            at = class_start
            continue
        elif char == "$":
            out.append(_LINE_END)
        elif char == "{" and pattern[at + 1 : at + 2] == ",":
            out.append(b"{0")  # ``{,n}``: PCRE reads it as text, ``regex`` as ``{0,n}``
        else:
            out.append(_char(char, in_class=False))
        at += 1
    if class_start >= 0:
        return None
    return b"(?:" + b"".join(out) + rb")[^\n]*$"
