"""Find the errors in a stream of log lines and classify each one (pure: no I/O).

:class:`Scanner` is fed decoded lines one at a time and returns what they
revealed: :class:`Finding` objects (one per error) and :class:`Problem` objects
(input it could not use as intended). Its state is bounded whatever the input
size: at most one open traceback (see :mod:`llm_errors.logs._traceback`) and one
held-back finding.

Which lines are errors:

* a line or JSON record a rule routes anywhere (the words layer never makes an error:
  its verdicts count as ``fallback`` here);
* a line or record with an error marker that no rule decides: an *unmatched* error, its
  code the words layer's where that decides (``Scanner``'s ``words``). Markers are an
  upper-case level word (``ERROR``, ``CRITICAL``, ``FATAL``, ``SEVERE``, ``PANIC``,
  ``ALERT``, ``EMERG``, ``CRIT``, ``ERR``), ``level=error`` and its kin (``levelname``,
  ``severity``, ``lvl``; any case), a word ending in ``Error`` or ``Exception``,
  ``Traceback``, a lower-case ``error:``, ``panic:``, ``Uncaught``/``Unhandled``; in a
  JSON record also a level field (``level``, ``levelname``, ``severity``, ``log.level``,
  ``lvl``) saying error or worse (a pino/bunyan level of 50 or more), or a non-empty
  ``error``, ``err``, ``exception``, ``exc_info``, ``exc_text``, ``stack_trace`` or
  ``traceback`` field;
* a Python traceback, from its header to its final exception line and through
  its chained causes, is one error. A log line flagged as an error right before
  the header (what ``logger.exception`` writes) joins it. The most reliable
  evidence decides: the rebuilt exception chain first, then the text of its
  exception lines (final first), then that log line;
* an error line and the lines that continue it (stack frames, a ``[cause]:`` or
  ``Caused by:`` block, an HTML page: :mod:`llm_errors.logs._group`) are one error,
  classified on their text together (its best evidence wins; if no rule decides,
  the error line's verdict stands) and placed at the error line. Not in
  ``--input jsonl``, where every line is a record of its own.

Messages are kept only as redacted excerpts of bounded length.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Final, Literal, NamedTuple, cast

from llm_errors import Classification, Layer, redact
from llm_errors.engine import MAX_VALUES, inert, reads_key, scrub
from llm_errors.engine import NATIVE as _NATIVE
from llm_errors.logs._group import Group
from llm_errors.logs._prefix import NATIVE, canonical, message_start
from llm_errors.logs._traceback import ParsedTraceback, TracebackParser, match_header

__all__ = [
    "ERROR_KEYS",
    "ERROR_LEVELS",
    "EXCERPT_CACHE_LIMIT",
    "EXCERPT_LIMIT",
    "LEVEL_KEY_HINTS",
    "MARKER_HINTS",
    "MISSING",
    "PINO_ERROR_LEVEL",
    "TRACEBACK_HINT",
    "VERDICT_CACHE_LIMIT",
    "Finding",
    "InputMode",
    "Problem",
    "ProblemKind",
    "Scanner",
    "excerpt",
    "excerpt_json",
    "has_marker",
    "lookup",
    "subjects",
]

#: Longest message excerpt on a finding, in characters (after redaction).
EXCERPT_LIMIT: Final = 240
#: Characters looked at before redacting; far more than any excerpt keeps.
_REDACT_WINDOW: Final = 4096
#: Distinct canonical lines whose verdict a scanner keeps (least recently used dropped).
VERDICT_CACHE_LIMIT: Final = 8192
#: Distinct messages whose redacted excerpt is kept (least recently used dropped).
EXCERPT_CACHE_LIMIT: Final = 8192

Classify = Callable[[object], Classification]
_NOTHING: Final[tuple[()]] = ()
Kind = Literal["line", "traceback", "record"]

_MARKER = re.compile(
    r"""
      \b(?:ERROR|CRITICAL|FATAL|SEVERE|PANIC|ALERT|EMERG|CRIT|ERR)\b
    | (?:Error|Exception)\b
    | \bTraceback\b
    | \b(?:error|panic):
    | \b(?:Uncaught|Unhandled)\b
    """,
    re.VERBOSE,
)
# What follows a level key (``level``, ``levelname``, ``severity``, ``lvl``: found by
# plain substring search, which is far cheaper than a case-insensitive regex search).
_LEVEL_VALUE = re.compile(
    r"""(?:name|NAME|Name)?["']?\s*[=:]\s*["']?
        (?i:err(?:or)?|crit(?:ical)?|fatal|severe|panic|alert|emerg(?:ency)?)\b""",
    re.VERBOSE,
)
#: What every level key holds (``level``, ``levelname``, ``severity``, ``lvl``), in any case.
LEVEL_KEY_HINTS: Final = ("evel", "EVEL", "everity", "EVERITY", "lvl", "LVL")
#: Every marker contains one of these substrings, and most lines contain none: one
#: search for plain literals is cheaper than any marker search (the CLI's block
#: filter looks for them too).
MARKER_HINTS: Final = (
    "ERR",
    "CRIT",
    "FATAL",
    "SEVERE",
    "PANIC",
    "ALERT",
    "EMERG",
    "rror",
    "xception",
    "Traceback",
    "anic:",
    "Uncaught",
    "Unhandled",
    *LEVEL_KEY_HINTS,
)
_MARKER_HINT = re.compile("|".join(re.escape(hint) for hint in MARKER_HINTS))


def _hinted(text: str) -> bool:
    """``_MARKER_HINT.search(text) is not None``: the two commonest hints tested first.

    Most lines with a hint are error lines (``ERROR``, ``error``), where a substring
    test answers in a tenth of the search's time.
    """
    return "ERR" in text or "rror" in text or _MARKER_HINT.search(text) is not None


#: What every traceback header line contains.
TRACEBACK_HINT: Final = "most recent call last):"
_TOO_DEEP: Final = "JSON nested too deeply to read; scanned as plain text"
_LEVEL_KEYS = ("level", "levelname", "severity", "log.level", "lvl")
#: The level names that make a JSON record an error (lowercase, after stripping).
ERROR_LEVELS: Final = frozenset(
    {"err", "error", "crit", "critical", "fatal", "severe", "panic", "alert", "emerg", "emergency"}
)
#: The numeric level from which a JSON record is an error (pino: 50 ``error``, 60 ``fatal``).
PINO_ERROR_LEVEL: Final = 50
#: Top-level keys whose truthy value makes a JSON record an error.
ERROR_KEYS: Final = (
    "error",
    "err",
    "exception",
    "exc_info",
    "exc_text",
    "stack_trace",
    "traceback",
)
_SUMMARY_KEYS = (("message",), ("msg",), ("event",))
_DETAIL_KEYS = (
    ("error", "message"),
    ("err", "message"),
    ("error",),
    ("err",),
    ("exception",),
)
_RANK = {
    Layer.TYPED: 0,
    Layer.EXCEPTION: 1,
    Layer.STATUS: 2,
    Layer.TEXT: 3,
    # No rule decided either: which text an error is shown by is never the words' call.
    Layer.WORDS: 4,
    Layer.FALLBACK: 4,
}
#: The layers of a verdict no rule gave: they never make a line an error on their own,
#: and such an error counts as unmatched (a rule would say what it is).
UNDECIDED: Final = frozenset({Layer.WORDS, Layer.FALLBACK})


class InputMode(enum.StrEnum):
    """How lines are read: JSON objects where a line starts with ``{``, or one of each."""

    AUTO = "auto"
    TEXT = "text"
    JSONL = "jsonl"


class ProblemKind(enum.StrEnum):
    """Input the scan could not use as intended; each is reported and counted."""

    UNREADABLE = "unreadable file"
    BAD_JSON = "bad JSON line"
    BINARY = "binary line"
    UNDECODABLE = "undecodable line"
    LONG_LINE = "over-long line"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with the input at ``line`` (``None``: the whole file)."""

    kind: ProblemKind
    line: int | None
    detail: str


class Finding(NamedTuple):
    """One error found in the input, lines ``line`` to ``end_line`` (1-based).

    A named tuple: a log of errors makes one per error line, and a tuple is built
    about three times faster than a frozen dataclass.
    """

    line: int
    end_line: int
    kind: Kind
    classification: Classification
    text: str
    """The text that decided, raw: only :attr:`message` may leave the process."""

    @property
    def message(self) -> str:
        """A redacted excerpt of :attr:`text`, at most :data:`EXCERPT_LIMIT` characters.

        Computed on demand: a table report needs it only for unmatched errors.
        """
        return excerpt(self.text)

    @property
    def matched(self) -> bool:
        """Whether a rule decided (else unmatched: the words layer's code or the fallback)."""
        return self.classification.layer not in UNDECIDED


class _Missing(enum.Enum):
    MISSING = enum.auto()


MISSING: Final = _Missing.MISSING


def lookup(value: object, path: Sequence[str]) -> object:
    """Follow a dotted ``path`` into nested JSON; :data:`MISSING` when it leads nowhere.

    A key that itself contains dots (ECS ``"log.level"``) is tried before its parts,
    and a numeric part indexes a list (``errors.0.message``).
    """
    if not path:
        return value
    if isinstance(value, Mapping):
        for cut in range(len(path), 0, -1):
            key = ".".join(path[:cut])
            if key in value:
                found = lookup(value[key], path[cut:])
                if found is not MISSING:
                    return found
        return MISSING
    if isinstance(value, list) and path[0].isdigit() and int(path[0]) < len(value):
        return lookup(value[int(path[0])], path[1:])
    return MISSING


def has_marker(text: str) -> bool:
    """Whether a plain-text line says it reports an error (see the module docstring)."""
    return _hinted(text) and _marked(text)


def _marked(text: str) -> bool:
    """:func:`has_marker` for a text known to hold a marker hint."""
    if _MARKER.search(text) is not None:
        return True
    for key in LEVEL_KEY_HINTS:
        start = text.find(key)
        while start >= 0:
            if _LEVEL_VALUE.match(text, start + len(key)):
                return True
            start = text.find(key, start + 1)
    return False


#: The caches of :func:`excerpt` that :func:`excerpt_json`'s compiled path reads: plain
#: dicts (emptied when full) the compiled code can look up without calling Python.
_SCRUBBED: dict[str, str] = {}
_INERT_FORMS: dict[str, bool] = {}


def _flat_scrubbed(message: str) -> str:
    """``message`` scrubbed, its whitespace runs made one space (cached in :data:`_SCRUBBED`)."""
    flat = _SCRUBBED.get(message)
    if flat is None:
        if len(_SCRUBBED) >= EXCERPT_CACHE_LIMIT:
            _SCRUBBED.clear()
        flat = _SCRUBBED[message] = " ".join(scrub(message).split())
    return flat


@functools.lru_cache(maxsize=EXCERPT_CACHE_LIMIT)
def _flat_redacted(text: str) -> str:
    return " ".join(redact(text).split())


def _inert_head(head: str) -> bool:
    """``inert(head)`` for a log prefix, cached under the prefix's canonical form.

    The answer is the same: the canonical form only turns the hex digits of the stamp
    and of ids into ``0``, and no scrubber's anchor (a key word or prefix, ``data:``,
    ``bearer``, ``basic``) can lie in such a run or run into it: each holds a letter
    that is not a hex digit, and what stands right before and after a run (``[``,
    ``=``, ``:``, ``]``, a blank, or no letter or digit) is none of theirs. Where the
    canonical form is computed in Python it costs more than the test: no cache then.
    """
    if not NATIVE:
        return inert(head)
    form = canonical(head)
    known = _INERT_FORMS.get(form)
    if known is None:
        if len(_INERT_FORMS) >= EXCERPT_CACHE_LIMIT:
            _INERT_FORMS.clear()
        known = _INERT_FORMS[form] = inert(head)
    return known


def excerpt(text: str) -> str:
    """One redacted line of at most :data:`EXCERPT_LIMIT` characters.

    Redaction runs before the cut, over a window far wider than the excerpt, so a
    secret straddling the cut is still caught whole. After a log prefix in which no
    scrubber can start a match (``_redact.inert``), the message is redacted alone
    and that result is cached under the message's exact text: the excerpt is the
    same as redacting the whole line. Any other text is cached whole (a record's
    message repeats as often as a line's).
    """
    start = message_start(text)
    if start and _inert_head(head := text[:start]):
        flat = " ".join(head.split()) + " " + _flat_scrubbed(text[start:_REDACT_WINDOW])
    else:
        flat = _flat_redacted(text[:_REDACT_WINDOW])
    if len(flat) > EXCERPT_LIMIT:
        return flat[: EXCERPT_LIMIT - 1] + "…"
    return flat


def excerpt_json(text: str) -> str:
    """``json.dumps(excerpt(text))`` (ASCII): a finding's ``message`` in its JSON line.

    Where the per-line core was built, a line whose prefix and message :func:`excerpt`
    has already seen is encoded in one compiled step, from those caches.
    """
    if _NATIVE is not None:
        found = _NATIVE.excerpt_json(text, _INERT_FORMS, _SCRUBBED, _REDACT_WINDOW, EXCERPT_LIMIT)
        if found is not None:
            return cast("str", found)
    return encode_basestring_ascii(excerpt(text))


def _better(first: tuple[Classification, str], second: tuple[Classification, str]) -> bool:
    """Whether ``second`` rests on more reliable evidence than ``first``."""
    return _RANK[second[0].layer] < _RANK[first[0].layer]


def _classify_traceback(
    parsed: ParsedTraceback, classify: Classify, words: Classify | None
) -> tuple[Classification, str]:
    """Classify the rebuilt chain; if no rule decides, each exception line, then the words."""
    exc = parsed.to_exception()
    final = parsed.final
    if exc is None or final is None:
        text = "Traceback (most recent call last): cut off before its exception line"
        return classify(text), text
    verdict = classify(exc)
    if verdict.layer in UNDECIDED:
        for line in reversed(parsed.exceptions):
            by_text = classify(line.text)
            if by_text.layer not in UNDECIDED:
                return by_text, final.text
        if verdict.layer is Layer.FALLBACK and words is not None:
            verdict = words(exc)
    return verdict, final.text


def _embedded_traceback(text: str) -> ParsedTraceback | None:
    """The first traceback inside a multi-line string (a JSON log field), if any."""
    if TRACEBACK_HINT not in text:
        return None
    lines = iter(text.splitlines())
    for line in lines:
        header = match_header(line)
        if header is not None:
            parser = TracebackParser(*header)
            for rest in lines:
                if not parser.feed(rest):
                    break
            return parser.result()
    return None


def subjects(text: str) -> list[object]:
    """What to classify for one pasted message, most reliable first.

    A traceback gives its rebuilt exception chain, then its exception lines (final
    first), then the whole text (a log line pasted with it); a JSON object gives the
    parsed mapping, then the text; anything else is just the text. ``explain`` takes
    the first of these a rule decides.
    """
    embedded = _embedded_traceback(text)
    if embedded is not None:
        chain = embedded.to_exception()
        lines = [line.text for line in reversed(embedded.exceptions)]
        return [chain, *lines, text] if chain is not None else [text]
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):  # a hostile paste must not end the command
            return [text]
        if isinstance(value, dict):
            return [value, text]
    return [text]


def _record_flagged(record: Mapping[str, object]) -> bool:
    """Whether a JSON log record says it reports an error (level or error field)."""
    for key in _LEVEL_KEYS:
        level = lookup(record, key.split("."))
        if isinstance(level, str) and level.strip().lower() in ERROR_LEVELS:
            return True
        if isinstance(level, int) and not isinstance(level, bool) and level >= PINO_ERROR_LEVEL:
            return True
    return any(record.get(key) for key in ERROR_KEYS)


def _reported(record: Mapping[str, object], verdict: Classification, text: str) -> bool:
    """Whether a record is a finding: a rule decided, or it says it reports an error."""
    return verdict.layer not in UNDECIDED or _record_flagged(record) or has_marker(text)


def _first_text(record: Mapping[str, object], paths: Sequence[Sequence[str]]) -> str | None:
    for path in paths:
        value = lookup(record, path)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _record_json(record: Mapping[str, object]) -> str:
    """A record's excerpt when it has no message or error detail: itself, as compact JSON."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)[
        :_REDACT_WINDOW
    ]


def _told(record: Mapping[str, object]) -> str | None:
    """The record's message and error detail (``None``: it has neither)."""
    summary = _first_text(record, _SUMMARY_KEYS)
    detail = _first_text(record, _DETAIL_KEYS)
    if summary and detail and detail != summary:
        return f"{summary}: {detail}"
    return summary or detail or None


# The top-level keys a record's finding reads besides the classifier's evidence.
_RECORD_KEYS: Final = frozenset(
    {
        *_LEVEL_KEYS,
        *(key.split(".")[0] for key in _LEVEL_KEYS),
        *ERROR_KEYS,
        *(path[0] for path in (*_SUMMARY_KEYS, *_DETAIL_KEYS)),
    }
)


#: Keys whose :func:`_read` answer is kept (record keys repeat: a handful per log).
_READ_KEPT: Final = 4096
_read_keys: dict[str, bool] = {}


def _read(key: str) -> bool:
    """Whether a record's finding can depend on a plain value (not a container) under ``key``."""
    known = _read_keys.get(key)
    if known is None:
        known = key in _RECORD_KEYS or reads_key(key)
        if len(_read_keys) < _READ_KEPT:
            _read_keys[key] = known
    return known


def _record_key(record: Mapping[str, object]) -> str | None:
    """What a record's finding depends on, as one string; ``None``: cannot be cached.

    Its containers and the plain values of the keys the finding reads (:func:`_read`)
    in order: not a timestamp, a pid or a request id, so records that differ only in
    those share a verdict. A record with a traceback in a string field, one near the
    classifier's bound on values, or one without a message or error detail (its
    excerpt is then the whole record) is not cached.
    """
    kept = {}
    for key, value in record.items():
        kind = type(value)
        if kind is dict or kind is list:
            kept[key] = value
            continue
        if kind is str and TRACEBACK_HINT in value:  # type: ignore[operator]
            return None
        if _read(key):
            kept[key] = value
    try:
        key = repr(kept)  # (parsed JSON: the repr tells every value apart, twice as fast as dumps)
    except RecursionError:
        return None
    # Every value counts towards the classifier's bound, read or not: far from the
    # bound (values are at most the separators and containers, plus one), none is cut.
    # (Each of those is a character of the key: a short key is far from it.)
    if len(record) + len(key) >= MAX_VALUES and (
        len(record) + key.count(",") + key.count("[") + key.count("{") >= MAX_VALUES
    ):
        return None
    return key


class Scanner:
    """Fed the lines of one input in order; returns the findings and problems they reveal.

    Args:
        classify: The classifier (``llm_errors.classify``, a ``Classifier`` or its
            :meth:`~llm_errors.Classifier.by_rules`): what it routes by a rule is an error.
        mode: Whether lines are plain text, JSON Lines, or detected per line.
        field: A dotted path to the message in each JSON record; without it the
            whole record goes to the classifier as a mapping.
        words: Asked for the code of an error ``classify`` left to the fallback
            (:meth:`~llm_errors.Classifier.by_words`), and only then: with
            ``classify=classifier.by_rules``, the words layer costs nothing on the
            lines that are not errors.

    A plain-text line with an error-marker hint (:data:`MARKER_HINTS`: the lines that
    repeat as errors) is classified as its canonical form (``_prefix.canonical``: the
    digits and hex letters of a leading timestamp and of bracketed ids made ``0``),
    through a cache of :data:`VERDICT_CACHE_LIMIT` verdicts keyed on that exact
    text, so a repeated message costs one lookup (docs/classifier.md, "Verdict cache").

    Attributes:
        records: JSON records read.
        missing_field: JSON records without ``field`` (not errors, just counted).
    """

    def __init__(
        self,
        classify: Classify,
        *,
        mode: InputMode = InputMode.AUTO,
        field: str | None = None,
        words: Classify | None = None,
    ) -> None:
        self._classify = classify
        self._words = words
        # Keyed on the canonical line (``_prefix.canonical``): the exact text classified.
        self._line_verdict = functools.lru_cache(maxsize=VERDICT_CACHE_LIMIT)(classify)
        self._line_words = (
            None if words is None else functools.lru_cache(maxsize=VERDICT_CACHE_LIMIT)(words)
        )
        self._mode = mode
        self._field = tuple(field.split(".")) if field else None
        self._traceback: TracebackParser | None = None
        self._traceback_lines = (0, 0)
        self._traceback_header: Finding | None = None
        # An error line is held while the next lines may continue it (a traceback
        # header may follow it too); ``_group`` gathers those lines (not in JSONL mode),
        # opened when a line may continue it: most error lines are followed by another
        # line of the log.
        self._held: Finding | None = None
        self._group: Group | None = None
        self._grows = mode is not InputMode.JSONL
        # Records classified as mappings, keyed on ``_record_key`` (least recently used
        # dropped first).
        self._record_verdicts: dict[str, tuple[Classification, str, bool]] = {}
        self.records = 0
        self.missing_field = 0

    def feed(self, number: int, text: str) -> Sequence[Finding | Problem]:
        """Take line ``number`` (1-based, without its line ending)."""
        out: list[Finding | Problem] = []
        if self._taken(number, text, out):
            return _NOTHING
        if not text or text.isspace():
            self._release(out)
            return out
        if self._mode is InputMode.JSONL or (
            self._mode is InputMode.AUTO and text.lstrip().startswith("{")
        ):
            parsed = self._parse_json(number, text)
            if not isinstance(parsed, Problem):
                try:
                    finding = self._record(number, parsed)
                except RecursionError:  # parsed, but too deep to walk or re-encode
                    parsed = Problem(ProblemKind.BAD_JSON, number, _TOO_DEEP)
                else:
                    self.records += 1
                    self._release(out)
                    if finding is not None:
                        out.append(finding)
                    return out
            out.append(parsed)
        if TRACEBACK_HINT in text:
            header = match_header(text)
            if header is not None:
                self._traceback = TracebackParser(*header)
                self._traceback_lines = (number, number)
                self._traceback_header = self._take_held()
                return out
        self._release(out)
        self._hold(self._line(number, text))
        return out or _NOTHING

    def feed_words(self, number: int, text: str) -> Sequence[Finding | Problem]:
        """:meth:`feed` for a line of trigger words only, while no traceback is open.

        Such a line (``LineFilter.ends``) holds no marker hint, traceback header, JSON
        object, NUL, ESC or character IGNORECASE folds to ASCII: only a rule can make
        it an error, so every other check of :meth:`feed` is skipped; unless an error
        line is held, which the line may continue (then it takes :meth:`feed`).
        """
        if self._held is not None:
            return self.feed(number, text)
        self._hold(self._by_rules(number, text))
        return _NOTHING

    @property
    def in_traceback(self) -> bool:
        """Whether a traceback is open (every next line must be fed, one by one)."""
        return self._traceback is not None

    @property
    def holding(self) -> bool:
        """Whether an error line is held: the next line may continue it (:meth:`continues`)."""
        return self._held is not None

    def may_continue(self, first: int) -> bool:
        """Whether a next line whose first byte is ``first`` may :meth:`continue <continues>` it.

        ``False`` is exact; ``True`` asks for :meth:`continues` on the decoded line.
        """
        return self._held is not None and self._grows and Group.may_take(first)

    def continues(self, text: str) -> bool:
        """Whether line ``text``, fed next, would continue the held error line.

        A traceback header never does (it opens a traceback, which the held line joins).
        """
        return self._taking(text) is not None

    @property
    def clean(self) -> bool:
        """Whether the state is the initial one: no open traceback, no held finding."""
        return self._traceback is None and self._held is None

    def gap(self, records: int = 0) -> Sequence[Finding]:
        """Skip lines that are not errors (no trigger, marker, JSON or traceback header).

        Feeding them one by one would only release the held finding, which this does.
        Only valid when no traceback is open and the first of them does not
        :meth:`continue <continues>` the held error line. ``records`` of them are JSON
        records with no sign of an error (``LineFilter``): counted as read, not parsed.
        """
        self.records += records
        held = self._take_held()
        return _NOTHING if held is None else (held,)

    def finish(self) -> list[Finding | Problem]:
        """The end of the input: close an open traceback, release a held finding."""
        out: list[Finding | Problem] = []
        if self._traceback is not None:
            out.append(self._close_traceback())
        self._release(out)
        return out

    def _taken(self, number: int, text: str, out: list[Finding | Problem]) -> bool:
        """Whether the open traceback or the held error line takes line ``number``.

        If a traceback ends before it, its finding goes to ``out``.
        """
        if self._traceback is not None:
            if self._traceback.feed(text):
                self._traceback_lines = (self._traceback_lines[0], number)
                return True
            out.append(self._close_traceback())
        elif (group := self._taking(text)) is not None:
            group.add(number, text)
            return True
        return False

    def _release(self, out: list[Finding | Problem]) -> None:
        held = self._take_held()
        if held is not None:
            out.append(held)

    def _taking(self, text: str) -> Group | None:
        """The held line's group (opened now if need be), if it takes line ``text``."""
        held = self._held
        if held is None or not self._grows:
            return None
        if TRACEBACK_HINT in text and match_header(text) is not None:
            return None
        group = self._group
        if group is None:
            group = self._group = Group.open(held.line, held.text)
        return group if group.takes(text) else None

    def _hold(self, finding: Finding | None) -> None:
        """Hold the error line ``finding`` (if any): lines may continue it, a traceback join it."""
        self._held = finding
        self._group = None

    def _take_held(self) -> Finding | None:
        """The held error, with the lines that continued it; nothing is held after."""
        held, group = self._held, self._group
        self._held = self._group = None
        if held is None or group is None or not group.grown:
            return held
        if len(group.text_lines) == 1:  # only frames and closing brackets were taken
            return Finding(held.line, group.end, held.kind, held.classification, held.text)
        text = group.text
        verdict = self._classify(text)
        if verdict.layer in UNDECIDED:
            verdict = held.classification  # the error line's own verdict stands
            if verdict.layer is Layer.FALLBACK and self._words is not None:
                verdict = self._words(text)
        return Finding(held.line, group.end, held.kind, verdict, text)

    def _line(self, number: int, text: str) -> Finding | None:
        if not _hinted(text):
            return self._by_rules(number, text)
        line = canonical(text)
        verdict = self._line_verdict(line)
        if verdict.layer in UNDECIDED:
            if not _marked(text):
                return None
            if verdict.layer is Layer.FALLBACK and self._line_words is not None:
                verdict = self._line_words(line)
        return Finding(number, number, "line", verdict, text)

    def _by_rules(self, number: int, text: str) -> Finding | None:
        """A line without a marker: an error only if a rule decides (uncached: rarely repeats)."""
        verdict = self._classify(text)
        if verdict.layer in UNDECIDED:
            return None
        return Finding(number, number, "line", verdict, text)

    def _close_traceback(self) -> Finding:
        assert self._traceback is not None  # noqa: S101 -- only called with one open
        verdict, text = _classify_traceback(self._traceback.result(), self._classify, self._words)
        first, last = self._traceback_lines
        header = self._traceback_header
        if header is not None:
            first = header.line
            if _better((verdict, text), (header.classification, header.text)):
                verdict, text = header.classification, header.text
        self._traceback = self._traceback_header = None
        return Finding(first, last, "traceback", verdict, text)

    def _parse_json(self, number: int, text: str) -> Mapping[str, object] | Problem:
        try:
            value = json.loads(text)
        except ValueError as exc:
            detail = f"not valid JSON ({exc}); scanned as plain text"
            return Problem(ProblemKind.BAD_JSON, number, detail)
        except RecursionError:
            return Problem(ProblemKind.BAD_JSON, number, _TOO_DEEP)
        if not isinstance(value, dict):
            detail = f"a JSON {type(value).__name__}, not an object; scanned as plain text"
            return Problem(ProblemKind.BAD_JSON, number, detail)
        return value

    def _record(self, number: int, record: Mapping[str, object]) -> Finding | None:
        subject: object = record
        if self._field is not None:
            subject = lookup(record, self._field)
            if subject is MISSING or subject is None:
                self.missing_field += 1
                return None
        if isinstance(subject, Mapping):
            verdict, text, found = self._judge_mapping(record, subject)
        else:
            text = subject if isinstance(subject, str) else json.dumps(subject)
            verdict = self._classify(text)
            embedded = _embedded_traceback(text)
            if embedded is not None:
                candidate = _classify_traceback(embedded, self._classify, self._words)
                if _better((verdict, text), candidate):
                    verdict, text = candidate
            found = _reported(record, verdict, text)
            if found and verdict.layer is Layer.FALLBACK and self._words is not None:
                verdict = self._words(text)
        return Finding(number, number, "record", verdict, text) if found else None

    def _judge_mapping(
        self, record: Mapping[str, object], subject: Mapping[str, object]
    ) -> tuple[Classification, str, bool]:
        """``subject``'s verdict, excerpt and whether it is reported.

        The whole record (no ``--field``) goes through a cache keyed on :func:`_record_key`,
        least recently used dropped first: a hit moves to the end (a record's verdict
        costs tens of microseconds; on ``bench/classify.py``'s JSON log, dropping the
        oldest instead missed 27 % more often).
        """
        key = _record_key(record) if subject is record else None
        verdicts = self._record_verdicts
        if key is not None and (known := verdicts.pop(key, None)) is not None:
            verdicts[key] = known
            return known
        told = _told(subject)
        verdict, text = self._embedded(
            subject, self._classify(subject), told or _record_json(subject)
        )
        reported = _reported(record, verdict, text)
        if reported and verdict.layer is Layer.FALLBACK and self._words is not None:
            verdict = self._words(subject)
        known = (verdict, text, reported)
        if key is not None and told is not None:
            if len(verdicts) >= VERDICT_CACHE_LIMIT:
                del verdicts[next(iter(verdicts))]
            verdicts[key] = known
        return known

    def _embedded(
        self, record: Mapping[str, object], verdict: Classification, text: str
    ) -> tuple[Classification, str]:
        """A traceback in a top-level string field decides if its evidence is more reliable."""
        for value in record.values():
            if isinstance(value, str):
                embedded = _embedded_traceback(value)
                if embedded is not None:
                    candidate = _classify_traceback(embedded, self._classify, self._words)
                    if _better((verdict, text), candidate):
                        return candidate
        return verdict, text
