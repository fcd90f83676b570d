"""Read an input in blocks of whole lines, and find the lines worth a closer look.

Most lines of an application log hold no error: no trigger word of any rule, no
error marker, no JSON object, no traceback header. For such a line the per-line
scan does nothing but release a held finding. So the scan reads about
:data:`BLOCK_SIZE` bytes at a time, and one native call per block (a Hyperscan
database of the rules' patterns, rewritten, the marker hints and a few special
cases; a second, small one for the few lines those patterns cannot be trusted on)
reports the end of every line that *might* matter. Only those lines are decoded
and fed to the :class:`~llm_errors.logs.Scanner` one by one; a run of other lines
is one :meth:`~llm_errors.logs.Scanner.gap`. The filter is a superset test, so the
findings are exactly those of the per-line scan (``tests/llm_errors/test_same_verdicts.py``
checks both paths give the recorded findings).

Hyperscan (the ``hyperscan`` package, the ``fast`` extra) is optional: without it
:func:`line_filter` returns ``None`` and the scan reads line by line, as before.
"""

from __future__ import annotations

import enum
import functools
import importlib
import re
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from llm_errors import RULES
from llm_errors.engine import MAX_INPUT
from llm_errors.logs._input import LINE_LIMIT, InputError, Readable
from llm_errors.logs._scan import (
    ERROR_KEYS,
    ERROR_LEVELS,
    LEVEL_KEY_HINTS,
    MARKER_HINTS,
    PINO_ERROR_LEVEL,
    TRACEBACK_HINT,
)
from llm_errors.logs._stored import load_or_compile, stored_supersets
from llm_errors.logs._superset import superset

__all__ = [
    "BLOCK_SIZE",
    "WORDS_LIMIT",
    "CutLine",
    "LineFilter",
    "Lines",
    "Records",
    "RuleWords",
    "iter_blocks",
    "line_filter",
    "line_start",
]

#: Bytes read at a time (the last partial line is carried to the next block).
BLOCK_SIZE: Final = 1 << 20
#: Bytes of trigger words per expression: Hyperscan refuses an expression of about
#: 16,000 bytes, and a record's word expression of 200 words of 40 letters ("Pattern is
#: too large"), as a few hundred user rules with a word each give; so longer lists are
#: split over several expressions.
WORDS_LIMIT: Final = 4096
_MARKED: Final = 0  # the expression ids
_WORDS: Final = 1
_SIGNED: Final = 2  # a sign of an error (:func:`_signs`): marked if the line is a record
_UNTRUSTED_LINE: Final = 3  # a line the rules' expressions are not trusted on: words decide
_NOT_RECORD: Final = 4  # (records database) a line that does not start with ``{``: once a block
_BRACE: Final = ord("{")

# What makes a line worth the per-line scan, besides a trigger word of a rule: every
# error marker of ``_scan.has_marker`` contains one of the hints.
_MARKER_HINTS: Final = (*MARKER_HINTS, TRACEBACK_HINT)
# Lines the cheap paths would treat differently: NUL and ESC (binary data, ANSI
# colours), the characters IGNORECASE folds to ASCII letters, a JSON object after
# leading space (a non-ASCII first character is taken to be space, to be safe).
_SPECIAL: Final = rb"[\x00\x1b]|\xc5\xbf|\xc4\xb0|\xc4\xb1|\xe2\x84\xaa|^[\t\x0b\x0c\r \x1c-\x1f]*"
# ... and a JSON object at the line start, unless records are read by their signs.
_OBJECT: Final = rb"\{"
# Where a rule's expression is not trusted (``_superset``): a non-ASCII byte, or a
# control character ``\s`` may or may not match.
_UNTRUSTED: Final = rb"[\x80-\xff\x0b\x0c\x1c-\x1f]"
_UNTRUSTED_LINE_END: Final = _UNTRUSTED + rb"[^\n]*$"
_LEAD: Final = rb"[\x80-\xff]|[\t\x0b\x0c\r \x1c-\x1f]\{"


#: A rule as the filter takes it: its pattern, and its trigger tokens (UTF-8).
RuleWords = tuple[str, frozenset[bytes]]


@dataclass(frozen=True, slots=True)
class CutLine:
    """A line longer than the line limit: its first ``chunk`` bytes, ``cut`` bytes skipped."""

    chunk: bytes
    cut: int


# A record line not closed by ``}`` (cut short, or not JSON): its own expression, as
# Hyperscan takes an end anchor only at an expression's end.
_NOT_CLOSED: Final = rb"^\{(?:[^\n]*[^}\r\n])?\r?$"
# A record whose first key is not in double quotes (it may not be valid JSON).
_UNQUOTED_KEY: Final = rb"^\{[ \t]*[^\"\s}][^\n]*$"


class Lines(NamedTuple):
    """What :meth:`LineFilter.scan` found in a block (an end: the offset of a line's newline)."""

    ends: list[int]
    """Where the lines worth a look end, in order."""
    words: set[int]
    """Which of those hold words only."""
    foreign: set[int]
    """Where every line with a non-ASCII byte ends (and with a control character the
    engines read differently): the only lines that can be invalid UTF-8."""
    records: bool
    """Whether a line may be a record the filter passes over: one starts with ``{`` and
    records are read by their signs (kept, every such line is reported)."""
    only_records: bool
    """Whether, besides, every line starts with ``{`` (then a run of lines passed over is
    a run of records: counted, not searched for ``{``)."""


class Records(enum.Enum):
    """How the filter takes a line that starts with ``{`` (a JSON record, in ``auto`` input)."""

    KEEP = "keep"
    """Every such line is looked at (``--field`` names what to classify; text input)."""
    SIGNS = "signs"
    """Only a record with a sign of an error is looked at; the others are passed over
    unparsed and counted as records (``auto`` input without ``--field``)."""
    ONLY = "only"
    """As :attr:`SIGNS`, and every line that does not start with ``{`` is looked at
    (``jsonl`` input without ``--field``: such a line is a problem to report)."""


def _escaped(data: bytes) -> bytes:
    """``data`` as an expression matching exactly those bytes (each one escaped)."""
    return b"".join(b"\\x%02x" % byte for byte in data)


def _loose(word: str) -> bytes:
    """``word`` caseless, with ``_``, ``-`` and ``@`` anywhere (as ``_evidence`` reads keys)."""
    return b"(?i:" + b"[_@-]*".join(letter.encode() for letter in word) + b")"


def _signs(identifiers: Iterable[str]) -> bytes:
    r"""What makes a JSON record line worth parsing (``_scan.Scanner._record``'s tests).

    Any one suffices (besides :data:`_NOT_CLOSED`, :data:`_UNQUOTED_KEY` and a rule's
    word in a value): an error level (a level key with an error name in its value or
    a number from pino's error level on), an error key, an error status (a ``status``
    or ``code`` key, in any spelling, with a 4xx or 5xx value), an error identifier
    (``identifiers``, caseless, anywhere), an escape or control character (the text
    may hide any of these), or a line that may not be valid JSON: a single-quoted
    value, a trailing comma, two objects. The expression finds them anywhere in a
    line; only a line that starts with ``{`` counts (:meth:`LineFilter.ends` checks:
    Hyperscan runs the expression without a ``^\{[^\n]*`` before it about twice as fast).
    """
    level_keys = b"|".join(re.escape(hint.encode()) for hint in LEVEL_KEY_HINTS)
    level_key = rb"(?:" + level_keys + rb")(?:name|NAME|Name)?\"[ \t]*:[ \t]*"
    names = sorted(ERROR_LEVELS)
    prefixes = b"|".join(
        name.encode() for name in names if not any(name.startswith(o) for o in names if o != name)
    )
    # PINO_ERROR_LEVEL is a multiple of ten: 50 and on is [5-9][0-9] or three digits and more.
    numbers = rb"[%d-9][0-9]|[1-9][0-9]{2,}" % (PINO_ERROR_LEVEL // 10)
    words: list[bytes] = []
    digits: list[bytes] = []
    for identifier in sorted(identifiers):
        (digits if identifier.isdigit() else words).append(_escaped(identifier.encode()))
    key = rb"(?:" + _loose("status") + rb"|" + _loose("code") + rb")[_@-]*\"[ \t]*:[ \t]*"
    signs = [
        level_key + rb"\"[^\"\n]*(?i:" + prefixes + rb")",
        level_key + rb"(?:" + numbers + rb")",
        b"|".join(re.escape(b'"%s"' % name.encode()) for name in ERROR_KEYS),
        key + rb"(?:\[|\"[^\"\n]*[45][0-9][0-9]|[45][0-9][0-9][ \t]*[,}\]])",
        rb"[\\\x00-\x09\x0b\x0c\x0e-\x1f]|\r[^\n]",
        rb"\}[ \t]*\{|,[ \t]*[}\]]|:[ \t]*'",
    ]
    if words:
        signs.append(rb"(?i:" + b"|".join(words) + rb")")
    if digits:
        signs.append(rb"[^0-9](?:" + b"|".join(digits) + rb")[^0-9]")
    return rb"(?:" + b"|".join(signs) + rb")[^\n]*$"


class LineFilter:
    """Hyperscan databases that report the end of each line that may hold an error.

    Expressions of two kinds. *Words*: for each rule, an expression that matches every
    line the rule matches (:func:`~llm_errors.logs._superset.superset`, on ASCII lines
    without the control characters the engines read differently), or, for a rule
    that cannot be written so, its trigger words; and on the lines where those
    expressions are not trusted (non-ASCII or with such a character), any rule's
    trigger word, looked for by a second scan of just those lines (they are rare, a
    word is common: one scan for both would follow every word). *Marked*: everything
    else that makes a line worth the per-line scan (the marker hints, a traceback
    header, a JSON object, the special characters).
    A line that only words expressions find holds *words only*: the scanner skips its
    other checks (:meth:`~llm_errors.logs.Scanner.feed_words`), unless it starts with ``{``.

    ``rules`` are each rule's pattern and trigger tokens (the non-ASCII ones UTF-8
    encoded, found as caseless substrings). With ``records`` other than
    :attr:`Records.KEEP`, a line starting with ``{`` is reported for a trigger word in
    a value, a marker hint other than a level key's, or a sign of an error
    (:func:`_signs`; ``identifiers`` are the error bodies' identifiers):
    ``{"level": "info", "msg": "served /healthz"}`` is passed over. Then a block
    that holds a record is scanned with the words of every rule instead of their
    expressions (on a text line, or in a record's values), as Hyperscan follows the
    expressions through JSON several times more slowly.
    """

    def __init__(
        self,
        hyperscan: Any,
        rules: Sequence[RuleWords],
        records: Records = Records.KEEP,
        identifiers: Iterable[str] = (),
    ) -> None:
        if records is Records.KEEP:
            hints = "|".join(re.escape(hint) for hint in _MARKER_HINTS).encode()
            marked = hints + rb"|" + _SPECIAL + rb"(?:" + _OBJECT + rb"|[\x80-\xff])"
        else:
            # A level key alone marks a text line, not a record (its value must say error).
            other = "|".join(re.escape(h) for h in _MARKER_HINTS if h not in LEVEL_KEY_HINTS)
            level = "|".join(re.escape(hint) for hint in LEVEL_KEY_HINTS).encode()
            marked = (
                other.encode() + rb"|" + _SPECIAL + rb"(?:" + _LEAD + rb")"
                rb"|^(?:[^{\n][^\n]*)?(?:" + level + rb")"
            )
            if records is Records.ONLY:
                marked += rb"|^[^{\n]"
        # Each reported once per line at its end: ``[^\n]*$`` runs to the line end, and
        # Hyperscan reports each end offset of an expression once.
        common = [rb"(?:" + marked + rb")[^\n]*$"]
        every = sorted(set().union(*(tokens for _, tokens in rules)))
        # The built-in rules' expressions are most of the compile: beside users' rules they
        # are a database of their own, compiled once per process and stored.
        built_in = _built_in_expressions()
        own = [rule for rule in rules if rule[0] not in built_in]
        if own and len(own) < len(rules):
            self._text: tuple[Any, ...] = (
                _text_database(hyperscan, common, own),
                _rules_database(hyperscan, tuple(built_in.values())),
            )
        else:
            self._text = (_text_database(hyperscan, common, rules),)
        # The words of every rule, for the lines the expressions are not trusted on: few
        # in most logs, so they are scanned apart, after the block (:meth:`ends`).
        self._words = _words_database(hyperscan, every)
        # A block with records gets the words instead of the rules' expressions, which
        # Hyperscan follows far more slowly through JSON (and a record's words count in
        # its values only).
        # (Only a block with records holds a line starting with ``{``: the expressions for
        # such lines are in this database alone.)
        self._records = (
            None
            if records is Records.KEEP
            else _records_database(
                hyperscan, [*common, _NOT_CLOSED, _UNQUOTED_KEY], _signs(identifiers), every
            )
        )

    def ends(self, block: bytes) -> tuple[list[int], set[int]]:
        """Where the lines worth a look end, in order, and which of them hold words only.

        An end is the offset of the newline closing the line, or the block's length.
        """
        found = self.scan(block)
        return found.ends, found.words

    def scan(self, block: bytes) -> Lines:
        """:meth:`ends`, and where the lines with a non-ASCII byte end."""
        marked: set[int] = set()
        words: set[int] = set()
        signed: set[int] = set()
        untrusted: set[int] = set()
        not_records: set[int] = set()
        add = (marked.add, words.add, signed.add, untrusted.add, not_records.add)

        def on_match(found: int, _start: int, end: int, _flags: int, _context: object) -> None:
            add[found](end)

        databases = self._text
        records = self._records is not None and (block[:1] == b"{" or b"\n{" in block)
        if records:
            databases = (self._records,)
        for database in databases:
            database.scan(block, match_event_handler=on_match)
        for end in signed - marked:  # a sign of an error counts in a record only
            if block[line_start(block, end)] == _BRACE:
                marked.add(end)
        # (A record's words are the records database's own: only text lines need this.)
        rest = untrusted - marked - words if databases is self._text else None
        if self._words is not None and rest:
            words.update(self._with_words(block, sorted(rest)))
        if len(block) > MAX_INPUT:
            marked.update(_long_line_ends(block))
        return Lines(
            sorted(marked | words), words - marked, untrusted, records, records and not not_records
        )

    def _with_words(self, block: bytes, ends: Sequence[int]) -> list[int]:
        """Which of the lines ending at ``ends`` hold a trigger word of some rule.

        The lines are scanned joined, apart from the block: a word is common in a log
        and the lines that need one rare, so the block's scan looks for neither.
        """
        lines = [block[line_start(block, end) : end] for end in ends]
        joined = b"\n".join(lines)
        # Where each line ends in ``joined``, and so where a word expression reports it.
        at: dict[int, int] = {}
        offset = -1
        for end, line in zip(ends, lines, strict=True):
            offset += len(line) + 1
            at[offset] = end
        found: set[int] = set()
        self._words.scan(joined, match_event_handler=lambda *match: found.add(match[2]))
        return [at[end] for end in found]


def line_start(block: bytes, end: int) -> int:
    """Where the line of ``block`` that ends at ``end`` (a reported end) starts."""
    return block.rfind(b"\n", 0, end) + 1


def _word_expressions(tokens: Sequence[bytes]) -> list[bytes]:
    """The trigger ``tokens`` as alternations of at most :data:`WORDS_LIMIT` bytes each.

    An ASCII token is a caseless whole word; a non-ASCII one (UTF-8, caseless) is
    found as a substring, as the matcher does.
    """
    alternatives = [re.escape(token) for token in tokens if token.isascii()]
    foreign = [_escaped(token) for token in tokens if not token.isascii()]
    words = [rb"(?i:\b(?:" + b"|".join(chunk) + rb")\b)" for chunk in _chunks(alternatives)]
    return words + [rb"(?:" + b"|".join(chunk) + rb")" for chunk in _chunks(foreign)]


def _chunks(alternatives: Sequence[bytes]) -> Iterator[list[bytes]]:
    """``alternatives`` in order, in runs whose total length stays under :data:`WORDS_LIMIT`."""
    chunk: list[bytes] = []
    size = 0
    for alternative in alternatives:
        if chunk and size + len(alternative) + 1 > WORDS_LIMIT:
            yield chunk
            chunk, size = [], 0
        chunk.append(alternative)
        size += len(alternative) + 1
    if chunk:
        yield chunk


def _text_database(hyperscan: Any, common: Sequence[bytes], rules: Sequence[RuleWords]) -> Any:
    """``common`` (marked), untrusted lines, and each rule's expression or words."""
    # Where the rules' expressions are not trusted, any rule's word counts: such a line
    # is reported here, and its words looked for apart (:meth:`LineFilter.ends`).
    fixed = [*common, _UNTRUSTED_LINE_END]
    ids = [_MARKED] * len(common) + [_UNTRUSTED_LINE]
    written = [(superset(pattern), tokens) for pattern, tokens in rules]
    multiline = hyperscan.HS_FLAG_MULTILINE
    ruled = multiline | hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_PREFILTER

    def database(kept: Sequence[tuple[bytes | None, frozenset[bytes]]]) -> Any:
        expressions, flags = list(fixed), [multiline] * len(fixed)
        words: set[bytes] = set()
        for expression, tokens in kept:
            if expression is None:
                words |= tokens
            else:
                expressions.append(expression)
                flags.append(ruled)
        expressions += [word + rb"[^\n]*$" for word in _word_expressions(sorted(words))]
        flags += [multiline] * (len(expressions) - len(flags))
        return _compiled(
            hyperscan, expressions, ids + [_WORDS] * (len(expressions) - len(ids)), flags
        )

    def compile_database() -> Any:
        try:
            return database(written)
        except hyperscan.error:  # some rule's expression is refused: its words stand in
            return database([(_compiles(hyperscan, e, ruled), t) for e, t in written])

    # Compiling takes one or two CPU-seconds; a stored copy loads in a few ms.
    parts = [*fixed, *(b"%s\0%s" % (e or b"", b"\1".join(sorted(t))) for e, t in written)]
    return load_or_compile(
        hyperscan, b"block-filter\0%d\0%s" % (ruled, b"\0".join(parts)), compile_database
    )


_BUILT_IN_PATTERNS: Final = frozenset(rule.pattern for rule in RULES)


@functools.cache
def _built_in_expressions() -> dict[str, bytes]:
    """The built-in rules' patterns that have an expression, and their expressions."""
    written = ((rule.pattern, superset(rule.pattern)) for rule in RULES)
    return {pattern: expression for pattern, expression in written if expression is not None}


@functools.cache
def _rules_database(hyperscan: Any, expressions: tuple[bytes, ...]) -> Any:
    """The built-in rules' expressions alone (each is tested to compile)."""
    flag = hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_PREFILTER
    ids = [_WORDS] * len(expressions)
    return _stored_database(hyperscan, b"built-in-rules", list(expressions), ids, flag)


def _words_database(hyperscan: Any, every: Sequence[bytes]) -> Any:
    """Every rule's trigger word, each line holding one reported at its end (``None``: no words)."""
    expressions = [word + rb"[^\n]*$" for word in _word_expressions(every)]
    if not expressions:
        return None
    ids = [_WORDS] * len(expressions)
    return _stored_database(hyperscan, b"words", expressions, ids, hyperscan.HS_FLAG_MULTILINE)


def _records_database(
    hyperscan: Any, common: Sequence[bytes], signs: bytes, every: Sequence[bytes]
) -> Any:
    """``common`` (marked), ``signs`` (:data:`_SIGNED`), and a line's or a record value's words."""
    expressions = [*common, signs, _UNTRUSTED_LINE_END]
    ids = [_MARKED] * len(common) + [_SIGNED, _UNTRUSTED_LINE]
    # A text line's words: one expression per chunk of words.
    expressions += [
        rb"^(?:[^{\n][^\n]*)?" + word + rb"[^\n]*$" for word in _word_expressions(every)
    ]
    # In a record, only a word in a value counts (a key is never classified): the
    # string holding it closes before ``,``, ``}`` or ``]``, or it ends a bare value.
    # (No ``^\{[^\n]*`` before the word: on a record line that holds wherever a word
    # starts, and a text line with a word is the chunk's anyway.) One expression per
    # ASCII word: Hyperscan runs them about a third faster than the same words in
    # alternations (measured on ``bench/classify.py``'s records), more reports and all.
    expressions += [word + rb"(?:[^\"\n]*\")?[ \t]*[,}\]][^\n]*$" for word in _word_each(every)]
    ids += [_WORDS] * (len(expressions) - len(ids))
    flags = [hyperscan.HS_FLAG_MULTILINE] * len(expressions)
    # Whether some line is not a record (blank lines too): reported once per block.
    expressions.append(rb"^[^{]")
    ids.append(_NOT_RECORD)
    flags.append(hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_SINGLEMATCH)
    return _stored_database(hyperscan, b"records", expressions, ids, flags)


def _word_each(tokens: Sequence[bytes]) -> list[bytes]:
    """:func:`_word_expressions` with one expression per ASCII token (the others chunked)."""
    alone = [rb"(?i:\b" + re.escape(token) + rb"\b)" for token in tokens if token.isascii()]
    return alone + _word_expressions([token for token in tokens if not token.isascii()])


def _stored_database(
    hyperscan: Any, label: bytes, expressions: list[bytes], ids: list[int], flag: int | list[int]
) -> Any:
    """``expressions`` (reporting ``ids``, with ``flag``, or each its own) compiled or loaded.

    The stored copy is keyed on everything the database is made of, ids and flags included.
    """
    flags = [flag] * len(expressions) if isinstance(flag, int) else flag
    numbers = b",".join(b"%d:%d" % pair for pair in zip(ids, flags, strict=True))
    key = b"%s\0%s\0%s" % (label, numbers, b"\0".join(expressions))
    return load_or_compile(hyperscan, key, lambda: _compiled(hyperscan, expressions, ids, flags))


def _compiled(hyperscan: Any, expressions: list[bytes], ids: list[int], flags: list[int]) -> Any:
    database = hyperscan.Database()
    database.compile(expressions=expressions, ids=ids, elements=len(expressions), flags=flags)
    return database


def _compiles(hyperscan: Any, expression: bytes | None, flags: int) -> bytes | None:
    """``expression`` if Hyperscan compiles it alone with ``flags``, else ``None``."""
    if expression is None:
        return None
    try:
        hyperscan.Database().compile(expressions=[expression], ids=[0], elements=1, flags=[flags])
    except hyperscan.error:
        return None
    return expression


def _long_line_ends(block: bytes) -> list[int]:
    """Ends of lines longer than the classifier's input cap (their cut could make a token).

    Jumps ``MAX_INPUT`` bytes at a time and looks back for a newline: linear in the block.
    """
    ends: list[int] = []
    start = 0
    size = len(block)
    while start + MAX_INPUT < size:
        newline = block.rfind(b"\n", start, start + MAX_INPUT + 1)
        if newline >= 0:
            start = newline + 1
            continue
        end = block.find(b"\n", start + MAX_INPUT)
        ends.append(size if end < 0 else end)
        start = size if end < 0 else end + 1
    return ends


@functools.cache
def _hyperscan() -> Any:
    try:
        return importlib.import_module("hyperscan")
    except ImportError:
        return None


@functools.cache
def _filter_for(
    rules: tuple[RuleWords, ...], records: Records, identifiers: frozenset[str]
) -> LineFilter | None:
    module = _hyperscan()
    if module is None:
        return None
    # Each rule's expression (and each built-in rule's), as an earlier run stored them.
    stored_supersets(sorted({*(pattern for pattern, _ in rules), *_BUILT_IN_PATTERNS}))
    try:
        return LineFilter(module, rules, records, identifiers)
    except module.error:  # a database Hyperscan refuses to build: every line is read
        return None


def line_filter(
    rules: Sequence[RuleWords],
    records: Records = Records.KEEP,
    identifiers: frozenset[str] = frozenset(),
) -> LineFilter | None:
    """The block filter for these rules (pattern, trigger tokens), or ``None`` without Hyperscan.

    Built once per process for the same rules; each rule's expression is read from the
    cache directory when an earlier run stored it (``_stored.stored_supersets``).
    """
    return _filter_for(tuple(rules), records, identifiers)


def iter_blocks(
    stream: Readable, limit: int = LINE_LIMIT, size: int = BLOCK_SIZE
) -> Iterator[bytes | CutLine]:
    """Blocks of whole lines (the last one may lack its newline at the end of input).

    A line longer than ``limit`` bytes comes alone as a :class:`CutLine`, exactly as
    :func:`~llm_errors.logs.iter_lines` cuts it. ``size`` must not exceed ``limit``.

    Raises:
        InputError: reading failed (an I/O error, a corrupt or truncated gzip stream).
            Its ``line`` is ``None``: the caller numbers the lines it was given, so it
            knows where reading stopped (a count here would cost a pass over each block).
    """
    carry = b""
    # ``read1`` returns what is there: on a truncated gzip stream every whole line
    # before the damage is yielded before the error, as line-by-line reading does.
    read: Callable[[int], bytes] = getattr(stream, "read1", stream.read)
    try:
        while data := read(size):
            buffer = carry + data if carry else data
            # Only the line that spans the carry and the new data can be over the limit.
            start = carry.rfind(b"\n") + 1
            end = buffer.find(b"\n", len(carry))
            if (end if end >= 0 else len(buffer)) - start >= limit:
                if start:
                    yield buffer[:start]
                stop = len(buffer) if end < 0 else end + 1
                carry = (yield from _cut(read, buffer[start:stop], limit, size)) + buffer[stop:]
                continue
            last = buffer.rfind(b"\n")
            if last < 0:
                carry = buffer
                continue
            block, carry = buffer[: last + 1], buffer[last + 1 :]
            yield block
        if carry:
            yield carry
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"reading failed: {exc}") from exc


def _cut(
    read: Callable[[int], bytes], line: bytes, limit: int, size: int
) -> Generator[CutLine, None, bytes]:
    """Yield ``line``'s first ``limit`` bytes and skip to its end; return what follows it.

    ``line`` starts a line, has at least ``limit`` bytes, and holds a newline only as
    its last byte if at all. The count of skipped bytes leaves out the line ending,
    as :func:`~llm_errors.logs.iter_lines` does.
    """
    chunk, rest = line[:limit], line[limit:]
    # Line reading takes the rest in pieces of ``limit`` bytes and leaves the line
    # ending of the last piece out of the count: the last ``limit`` bytes suffice.
    total, last = 0, b""
    while True:
        newline = rest.find(b"\n")
        piece = rest if newline < 0 else rest[: newline + 1]
        total += len(piece)
        last = (last + piece)[-limit:]
        if newline >= 0:
            final = last[len(last) - (total - (total - 1) // limit * limit) :]
            yield CutLine(chunk, total - (len(final) - len(final.rstrip(b"\r\n"))))
            return rest[newline + 1 :]
        rest = read(size)
        if not rest:
            yield CutLine(chunk, total)
            return b""
