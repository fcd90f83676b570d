r"""Trigger tokens: a sound, cheap test of which rules *can* match a message.

Most log lines are not errors, and a big alternation costs the regex engine time
at every character. So each rule's pattern is analysed once for *trigger tokens*:
words that every match of the pattern must contain as a whole token, where a
token is a maximal run of ``[a-z0-9_]`` (ASCII word characters) in the lower-cased
text. A line whose tokens meet no trigger cannot match any rule, and the
classifier answers without running a regex at all; otherwise only the rules whose
triggers it contains are matched, still as one combined pattern. The finer
*ways* (one per expansion: the token its matches start with and all the tokens it
holds) narrow that further: a rule is tried only through a way whose tokens the
line holds, only where that way's anchor starts.

Any text is tokenised the same way, one byte per character so that offsets carry
over: a non-ASCII character is a separator, except the few that IGNORECASE
equates with an ASCII letter (the Kelvin sign, the long s, the dotted and dotless
i), which are folded first.

A wording with no ASCII word at all (a Chinese provider's ``请求过于频繁``) still gets
triggers: an expansion's runs of at least two literal *caseless* non-ASCII
characters (Unicode letters without case, such as CJK ideographs and kana, and
punctuation) are tokens too, preferred to its ASCII words. Such a token is looked
for as a substring, and only in non-ASCII text (``is_foreign``): ASCII text cannot
hold it, so a rule it triggers costs the ASCII path nothing. Caseless characters
match only themselves under IGNORECASE, so the substring test is as sound as the
word test.

The analysis walks the pattern's parse tree (:mod:`llm_errors._match.syntax`, which
reads the syntax our rules use as ``regex`` reads it), expands literal alternatives,
and keeps a run of word characters only when both sides are provably separators:
``\b``, ``^``/``$``, a separator literal, or a class of separators such as
``\s`` or ``\W``. Anything it cannot prove degrades to "no triggers", which
means "always try this rule": slower, never wrong. When a pattern uses syntax that
parser does not read (backreferences, ``\p{...}``, fuzzy matching), the rule is
always tried.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, assert_never

from llm_errors._match.syntax import (
    Alternation,
    Anchor,
    AnchorKind,
    AnyChar,
    Category,
    CategoryKind,
    Char,
    CharClass,
    ClassMember,
    LookAround,
    Node,
    PatternGroup,
    PatternRepeat,
    Range,
    Sequence,
    UnsupportedSyntaxError,
    parse,
)

__all__ = [
    "COMMON",
    "LINE_START",
    "TOKEN_TABLE",
    "Triggers",
    "derive_triggers",
    "is_foreign",
    "lowered",
    "text_tokens",
    "translate",
]

# Symbols of an expanded pattern: 1-char strings are literal characters (lower-cased);
# these three stand for a run of separator characters, a zero-width boundary that
# implies a separator (or line edge) on the other side, and anything else.
_SEP: Final = "<sep>"
_BOUND: Final = "<bound>"
_ANY: Final = "<any>"
# A line start (``^``, which the rules' MULTILINE makes one, or ``\A``): a bound that
# also says where the match of an expansion that begins with it starts.
_START: Final = "<start>"

#: The anchor of a way whose matches start at a line start (and with no token there).
LINE_START: Final = "^"

_MAX_EXPANSIONS: Final = 512
_MAX_CLASS_LITERALS: Final = 10
_MAX_RANGE: Final = 16
_MIN_SUBSTRING: Final = 3
#: The shortest run of caseless non-ASCII characters taken as a token (one ideograph
#: alone is too frequent a word to narrow anything).
_MIN_FOREIGN: Final = 2
_FOREIGN_WEIGHT: Final = 3

# Characters that IGNORECASE matching can equate with an ASCII letter.
_FOLD_TO_ASCII: Final = {0x017F: "s", 0x0130: "i", 0x0131: "i", 0x212A: "k"}
_WORD_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")

#: Frequent words of English and of ordinary log lines: poor triggers, used only when an
#: expansion of a pattern offers nothing rarer.
COMMON: Final = frozenset(
    {
        "a",
        "failed",
        "failure",
        "about",
        "after",
        "again",
        "all",
        "also",
        "an",
        "and",
        "any",
        "api",
        "are",
        "as",
        "at",
        "attempt",
        "backoff",
        "be",
        "been",
        "before",
        "but",
        "by",
        "cache",
        "can",
        "cannot",
        "chat",
        "client",
        "code",
        "completed",
        "completion",
        "config",
        "connection",
        "content",
        "could",
        "count",
        "data",
        "debug",
        "did",
        "do",
        "does",
        "done",
        "duration",
        "elapsed",
        "error",
        "errors",
        "false",
        "finished",
        "for",
        "from",
        "get",
        "had",
        "has",
        "have",
        "host",
        "how",
        "http",
        "https",
        "id",
        "idle",
        "if",
        "in",
        "info",
        "input",
        "into",
        "is",
        "it",
        "its",
        "job",
        "just",
        "key",
        "large",
        "latency",
        "level",
        "loaded",
        "may",
        "message",
        "method",
        "model",
        "models",
        "more",
        "ms",
        "msg",
        "name",
        "no",
        "none",
        "not",
        "now",
        "null",
        "of",
        "ok",
        "on",
        "one",
        "only",
        "or",
        "other",
        "our",
        "out",
        "output",
        "over",
        "path",
        "please",
        "pool",
        "port",
        "post",
        "prompt",
        "queue",
        "request",
        "request_id",
        "requests",
        "response",
        "result",
        "retry",
        "retrying",
        "sec",
        "seconds",
        "server",
        "service",
        "services",
        "session",
        "should",
        "size",
        "so",
        "some",
        "started",
        "status",
        "stream",
        "streaming",
        "than",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "time",
        "to",
        "token",
        "tokens",
        "total",
        "trace",
        "true",
        "try",
        "trying",
        "type",
        "up",
        "url",
        "use",
        "user",
        "user_id",
        "using",
        "value",
        "very",
        "wait",
        "warn",
        "warning",
        "was",
        "we",
        "were",
        "what",
        "when",
        "which",
        "while",
        "will",
        "with",
        "worker",
        "would",
        "you",
        "your",
    }
)

#: ``bytes.translate`` table: ASCII word characters are kept (lower-cased), everything
#: else becomes a space, so ``split()`` yields the tokens.
TOKEN_TABLE: Final = bytes(
    ord(chr(c).lower()) if chr(c).lower() in _WORD_CHARS else ord(" ") for c in range(256)
)
_FOLD_CHARS: Final = "".join(map(chr, _FOLD_TO_ASCII))


def translate(text: str) -> bytes:
    """``text`` as one byte per character: word characters lower-cased, the rest a space.

    Offsets are the text's offsets, so a token found at byte ``i`` starts at character
    ``i``. A non-ASCII character is a separator (``encode`` replaces it by ``?``),
    except the few IGNORECASE equates with an ASCII letter, which become that letter:
    a regex could match them as part of a token.
    """
    if text.isascii():  # O(1) in CPython: the common case costs one copy and one translate
        return text.encode().translate(TOKEN_TABLE)  # the same bytes as ASCII, no codec lookup
    if any(ch in text for ch in _FOLD_CHARS):
        text = text.translate(_FOLD_TO_ASCII)
    return text.encode("ascii", "replace").translate(TOKEN_TABLE)


def text_tokens(text: str) -> list[bytes]:
    """The ``[a-z0-9_]+`` tokens of ``text`` lower-cased, as bytes (IGNORECASE-safe)."""
    return translate(text).split()


def is_foreign(token: str) -> bool:
    """Whether a trigger token is a run of non-ASCII characters (found as a substring)."""
    return not token.isascii()


def lowered(text: str) -> str:
    """``text`` lower-cased the way trigger substrings are (IGNORECASE-safe)."""
    return text.translate(_FOLD_TO_ASCII).lower()


@dataclass(frozen=True, slots=True)
class Triggers:
    r"""What a line must contain for a rule to have a chance, and where a match starts.

    ``tokens`` (or, failing that, ``substrings``) are necessary: every match of the
    rule contains one of them. Both empty means the rule must always be tried. A
    token is a whole ASCII word, or (:func:`is_foreign`) a run of caseless non-ASCII
    characters that the text must contain as a substring. ``anchors`` are the
    tokens a match always *starts* with (after ``\b``), or :data:`LINE_START` for a
    match that starts at a line start; when a rule has them, it
    only needs to be tried where one of them starts, instead of being searched for
    along the whole line. Empty means some expansion's start is unknown.
    ``ways`` refine both: one per expansion of the pattern (its literal
    alternatives multiplied out), the token that expansion's matches start with
    (``None`` if unknown) and *all* the tokens they contain. A line can match only
    through a way whose tokens it all contains, and only where that way's anchor
    starts (``connection error`` needs both words, while ``tokens`` only lists
    ``connection``); a rule is searched only on a line where a way without an
    anchor can match. Empty when ``tokens`` is.
    """

    tokens: frozenset[str] = frozenset()
    substrings: frozenset[str] = frozenset()
    anchors: frozenset[str] = frozenset()
    ways: frozenset[tuple[str | None, frozenset[str]]] = frozenset()

    @property
    def always(self) -> bool:
        """Whether the rule must be tried on every line."""
        return not self.tokens and not self.substrings


_ALWAYS: Final = Triggers()
#: Categories of separators only (``\\s``, ``\\W``): no ASCII word character.
_SEPARATOR_CATEGORIES: Final = frozenset({CategoryKind.SPACE, CategoryKind.NOT_WORD})


def _is_separator_char(ch: str) -> bool:
    return ch not in _WORD_CHARS and ord(ch) not in _FOLD_TO_ASCII


def _literal(char: str) -> tuple[str, ...]:
    if ord(char) in _FOLD_TO_ASCII:
        return (_ANY,)
    return (char.lower() if char.isascii() else char,)


def _class_expansions(members: Iterable[ClassMember], *, negated: bool) -> set[tuple[str, ...]]:
    if negated:
        return {(_ANY,)}
    members = list(dict.fromkeys(members))  # each member once, as written
    if len(members) == 1 and isinstance(members[0], Char):
        return {_literal(members[0].char)}
    chars: list[str] = []
    enumerable = True  # every member is a known character (no category, no big range)
    all_separators = True
    for member in members:
        match member:
            case Char(char):
                found = [char]
            case Range(low_char, high_char):
                low, high = ord(low_char), ord(high_char)
                if any(low <= c <= high for c in _FOLD_TO_ASCII):
                    return {(_ANY,)}
                found = [chr(c) for c in range(low, high + 1)] if high - low < _MAX_RANGE else []
                if not found:
                    enumerable = False
                    # IGNORECASE: a range of capitals holds word characters too.
                    all_separators = all_separators and not any(
                        low <= ord(ch) <= high or low <= ord(ch.upper()) <= high
                        for ch in _WORD_CHARS
                    )
            case Category(kind) if kind in _SEPARATOR_CATEGORIES:
                enumerable = False
                continue
            case _:  # digit/word classes, ...: cannot reason about it
                return {(_ANY,)}
        chars.extend(found)
        all_separators = all_separators and all(
            _is_separator_char(ch.lower() if ch.isascii() else ch) for ch in found
        )
    if all_separators:
        return {(_SEP,)}
    if enumerable and len(chars) <= _MAX_CLASS_LITERALS:
        return {_literal(ch) for ch in chars}
    return {(_ANY,)}


def _is_separator_symbol(symbol: str) -> bool:
    r"""A symbol that consumes one or more separator characters (not ``\b``, not unknown)."""
    return symbol == _SEP or (len(symbol) == 1 and _is_separator_char(symbol))


def _is_separator_expansion(expansion: tuple[str, ...]) -> bool:
    return all(_is_separator_symbol(sym) for sym in expansion) and bool(expansion)


def _concat(left: set[tuple[str, ...]], right: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    if len(left) * len(right) > _MAX_EXPANSIONS:
        right = {(_ANY,)}
    return {a + b for a, b in itertools.product(left, right)}


def _expand_anchor(kind: AnchorKind) -> set[tuple[str, ...]]:
    if kind is AnchorKind.NOT_BOUNDARY:
        return {()}
    if kind in (AnchorKind.START, AnchorKind.STRING_START):
        return {(_START,)}
    return {(_BOUND,)}  # \b, $, \Z


def _expand_repeat(repeat: PatternRepeat) -> set[tuple[str, ...]]:
    inner = _expand(repeat.body)
    empty: set[tuple[str, ...]] = {()} if repeat.low == 0 else set()
    if repeat.high == 0:
        return {()}
    if repeat.high == 1:
        return inner | empty
    if all(_is_separator_expansion(e) for e in inner):
        return {(_SEP,)} | empty
    # Unknown in the middle, but a repeat starts as its body starts and ends as it
    # ends: when every expansion of the body starts (ends) with a separator, so does
    # every repeat of it, and the words beside it stay provably whole tokens.
    head = (_SEP,) if all(e and _is_separator_symbol(e[0]) for e in inner) else ()
    tail = (_SEP,) if all(e and _is_separator_symbol(e[-1]) for e in inner) else ()
    return {(*head, _ANY, *tail)} | empty


def _expand_branch(alternatives: Iterable[Node]) -> set[tuple[str, ...]]:
    union: set[tuple[str, ...]] = set()
    for alternative in alternatives:
        union |= _expand(alternative)
    return union if len(union) <= _MAX_EXPANSIONS else {(_ANY,)}


def _expand(node: Node) -> set[tuple[str, ...]]:
    match node:
        case Char(char):
            return {_literal(char)}
        case CharClass(members, negated):
            return _class_expansions(members, negated=negated)
        case Category():
            return _class_expansions((node,), negated=False)
        case Anchor(kind):
            return _expand_anchor(kind)
        case PatternGroup(body):
            return _expand(body)
        case Alternation(alternatives):
            return _expand_branch(alternatives)
        case PatternRepeat():
            return _expand_repeat(node)
        case LookAround():
            return {()}  # zero-width: consumes nothing, so it neither adds nor splits tokens
        case Sequence(items):
            result: set[tuple[str, ...]] = {()}
            for item in items:
                result = _concat(result, _expand(item))
            return result
        case AnyChar():
            return {(_ANY,)}
    assert_never(node)


def _bounded(symbol: str | None) -> bool:
    if symbol is None or symbol == _ANY:
        return False
    return symbol in (_SEP, _BOUND, _START) or _is_separator_char(symbol)


def _tokens_of(expansion: tuple[str, ...]) -> list[str]:
    tokens: list[str] = []
    i = 0
    n = len(expansion)
    while i < n:
        if expansion[i] in _WORD_CHARS:
            j = i
            while j < n and expansion[j] in _WORD_CHARS:
                j += 1
            before = expansion[i - 1] if i > 0 else None
            after = expansion[j] if j < n else None
            if _bounded(before) and _bounded(after):
                tokens.append("".join(expansion[i:j]))
            i = j
        else:
            i += 1
    return tokens


def _caseless_foreign(symbol: str) -> bool:
    """A literal non-ASCII character IGNORECASE matches only by itself: no case, no fold."""
    if len(symbol) != 1 or symbol.isascii() or ord(symbol) in _FOLD_TO_ASCII:
        return False
    category = unicodedata.category(symbol)
    return category == "Lo" or category[0] == "P"


def _foreign_of(expansion: tuple[str, ...]) -> list[str]:
    """The runs of caseless non-ASCII literals of an expansion, long enough to be tokens."""
    runs: list[str] = []
    current: list[str] = []
    for sym in (*expansion, _ANY):
        if _caseless_foreign(sym):
            current.append(sym)
            continue
        if len(current) >= _MIN_FOREIGN:
            runs.append("".join(current))
        current = []
    return runs


def _substrings_of(expansion: tuple[str, ...]) -> list[str]:
    runs: list[str] = []
    current: list[str] = []
    for sym in (*expansion, _ANY):
        if len(sym) == 1:
            current.append(sym)
        else:
            if len(current) >= _MIN_SUBSTRING and any(ch in _WORD_CHARS for ch in current):
                runs.append("".join(current))
            current = []
    return runs


def _score(token: str) -> int:
    if is_foreign(token):  # an ideograph carries about a word, and ASCII text never has it
        return _FOREIGN_WEIGHT * len(token)
    return len(token) - (100 if token in COMMON else 0)


def _anchor_of(expansion: tuple[str, ...]) -> str | None:
    r"""Where an expansion's match starts: ``\b`` (or ``^``) and a whole token, or a line start.

    The token when there is one (``^Cancelled`` starts at ``cancelled``); else
    :data:`LINE_START` when the expansion begins with ``^``; else ``None`` (unknown).
    """
    start = 0
    while start < len(expansion) and expansion[start] in (_BOUND, _START):
        start += 1
    at_line_start = LINE_START if expansion[:1] == (_START,) else None
    if start == 0:
        return None
    end = start
    while end < len(expansion) and expansion[end] in _WORD_CHARS:
        end += 1
    if end == start or end == len(expansion) or not _bounded(expansion[end]):
        return at_line_start
    return "".join(expansion[start:end])


def _minimal(
    ways: set[tuple[str | None, frozenset[str]]],
) -> frozenset[tuple[str | None, frozenset[str]]]:
    """``ways`` without those that need more than another way with the same anchor."""
    return frozenset(
        (anchor, tokens)
        for anchor, tokens in ways
        if not any(other < tokens for start, other in ways if start == anchor)
    )


def derive_triggers(pattern: str) -> Triggers:
    """The trigger tokens (or, failing that, substrings) and anchors of a rule pattern."""
    try:
        expansions = _expand(parse(pattern))
    except UnsupportedSyntaxError:  # syntax outside the subset ``syntax`` reads: always try it
        return _ALWAYS
    anchors = {_anchor_of(expansion) for expansion in expansions}
    anchor_set = frozenset(a for a in anchors if a is not None) if None not in anchors else None
    best_tokens: set[str] = set()
    ways: set[tuple[str | None, frozenset[str]]] = set()
    for expansion in expansions:
        tokens = [*_tokens_of(expansion), *_foreign_of(expansion)]
        if not tokens:
            break
        best_tokens.add(max(tokens, key=_score))
        ways.add((_anchor_of(expansion), frozenset(tokens)))
    else:
        return Triggers(
            tokens=frozenset(best_tokens), anchors=anchor_set or frozenset(), ways=_minimal(ways)
        )
    best_substrings: set[str] = set()
    for expansion in expansions:
        substrings = _substrings_of(expansion)
        if not substrings:
            return _ALWAYS
        best_substrings.add(max(substrings, key=len))
    return Triggers(substrings=frozenset(best_substrings), anchors=anchor_set or frozenset())
