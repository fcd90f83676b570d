r"""Read a rules file, built-in or a user's, into :class:`~llm_errors.Rule` rows (pure).

One format and one reader for both: the built-in table (``builtin.toml``) and the
files users pass with ``--rules`` or :func:`~llm_errors.load_rules`::

    [patterns]                         # optional: named fragments, used as %{name}
    pool_busy = 'upstream (?:pool|queue) (?:busy|full)'

    [[rules]]
    id = "acme.gateway-busy"           # new ids only, unless override = true
    code = "RATE_LIMIT"                # an ErrorCode name
    pattern = '%{pool_busy}'           # a ``regex`` pattern; an array is its alternatives
    why = "Our gateway's wording for a throttled upstream."
    before = "http.429"                # optional: right before (or ``after``) a built-in rule
    examples = ["...", { text = "...", source = "app.log:12" }]

A user's file may use the built-in fragments too (``%{status_context}``); a literal
``%{`` is written ``%\{``. This module checks the structure: keys, types, sizes, code
names, ids, fragments and where a rule is placed. Whether the patterns compile and the
examples classify as their rule says needs the matcher and the classifier, so
:mod:`llm_errors._rules_file` checks that on top. Every error is a
:class:`RulesFileError` naming the file, the rule (or fragment) and the field, and
never quotes the file's text.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from llm_errors._rules.rule import Example, Rule
from llm_errors._taxonomy import ErrorCode

__all__ = [
    "EXAMPLES_LIMIT",
    "KEY_PARTS_LIMIT",
    "PATTERNS_LIMIT",
    "PATTERN_LIMIT",
    "RULES_FILE_LIMIT",
    "RULES_LIMIT",
    "TEXT_LIMIT",
    "RuleTable",
    "RulesFileError",
    "read_table",
]

#: Bytes of a rules file read; a larger file is rejected.
RULES_FILE_LIMIT: Final = 1 << 20
#: Rules in one file.
RULES_LIMIT: Final = 1000
#: Named fragments in one file.
PATTERNS_LIMIT: Final = 200
#: Examples of one rule.
EXAMPLES_LIMIT: Final = 50
#: Characters of a pattern or a fragment, once the fragments it uses are written out.
PATTERN_LIMIT: Final = 4096
#: Characters of an id, a ``why``, an example's text or source.
TEXT_LIMIT: Final = 4096
#: Parts of one dotted TOML key (``[[rules.examples]]`` has two): ``tomllib`` takes time
#: quadratic in them (a key of 100,000 parts, 200 KB, takes it over a minute), so a
#: text with a longer one is refused before it is parsed.
KEY_PARTS_LIMIT: Final = 16

_RULE_KEYS: Final = frozenset(
    {"id", "code", "pattern", "why", "before", "after", "override", "examples"}
)
_BUILTIN_RULE_KEYS: Final = frozenset({"id", "code", "pattern", "why", "examples"})
_REQUIRED: Final = ("id", "code", "pattern", "why", "examples")
_EXAMPLE_KEYS: Final = frozenset({"text", "source"})
_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
_ID_LIMIT: Final = 100
_NAME: Final = re.compile(r"[a-z][a-z0-9_]{0,39}")
_REFERENCE: Final = re.compile(r"%\{([a-z][a-z0-9_]{0,39})\}")
#: A TOML string or comment, which may hold dots that belong to no key. Multi-line
#: strings first; an unclosed string runs to the end of its line (or of the text), so
#: each character is read once.
_TOML_STRING_OR_COMMENT: Final = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*+(?:"{3,5})?'
    r"|'''(?:[^']|'(?!''))*+(?:'{3,5})?"
    r'|"(?:[^"\\\n]|\\.)*+"?'
    r"|'[^'\n]*+'?"
    r"|#[^\n]*+",
    re.DOTALL,
)
#: What ends a key outside strings: its dots lie between two of these.
_TOML_KEY_END: Final = re.compile(r"[=\[\]{},\n]")


class RulesFileError(ValueError):
    """A rules file that cannot be used: the message names the file, the rule and the field.

    Attributes:
        file: The file's name.
        rule: The rule's id (``#3`` for the third rule when its id is unusable), or
            ``None`` for the file as a whole.
        field: The offending field (``pattern``, ``examples[1]``, ``patterns.name``), or
            ``None``.

    .. versionadded:: 0.2.0
    """

    def __init__(self, detail: str, *, file: str, rule: str | None, field: str | None) -> None:
        where = file
        if rule is not None:
            where += f": rule {rule}"
        if field is not None:
            where += f": field {field!r}"
        super().__init__(f"{where}: {detail}")
        self.file = file
        self.rule = rule
        self.field = field


@dataclass(frozen=True, slots=True)
class RuleTable:
    """The rules of a file in its order, and its named fragments, written out."""

    rules: tuple[Rule, ...] = ()
    patterns: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: The ids of the rules, looked up for each rule of a user's file read on top.
    ids: frozenset[str] = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ids", frozenset(rule.id for rule in self.rules))


def _kind(value: object) -> str:
    """A value's TOML kind, for messages (never the value itself)."""
    if value is None:
        return "nothing"
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a float"}.get(
        type(value), "an array" if isinstance(value, list) else "a table"
    )


def _key_parts(text: str) -> int:
    """The parts of the longest dotted key of a TOML text, or more (linear in its length).

    Outside strings and comments, a key's dots lie between two of ``= [ ] { } ,`` or
    line ends; a value holds one at most (``1.5``, a time's fraction of a second).
    """
    bare = _TOML_STRING_OR_COMMENT.sub('""', text)
    return 1 + max(map(str.count, _TOML_KEY_END.split(bare), itertools.repeat(".")))


def _label(rule_id: object, number: int) -> str:
    """How a message names a rule: its id when usable, else its position."""
    if isinstance(rule_id, str) and len(rule_id) <= _ID_LIMIT and _ID.fullmatch(rule_id):
        return repr(rule_id)
    return f"#{number}"


def _alternatives(value: object) -> str | None:
    """A pattern's text: a string, or an array of alternatives joined with ``|``."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, list) and value and all(isinstance(p, str) and p.strip() for p in value):
        return "|".join(value)
    return None


class _Fragments:
    """Writes out ``%{name}`` references: the file's fragments, then the base's."""

    def __init__(self, name: str, raw: Mapping[str, str], base: Mapping[str, str]) -> None:
        self.name = name
        self.raw = raw
        self.base = base
        self.done: dict[str, str] = {}

    def expand(
        self, text: str, *, rule: str | None, field: str, using: tuple[str, ...] = ()
    ) -> str:
        """``text`` with each reference written out, at most :data:`PATTERN_LIMIT` long."""
        parts: list[str] = []
        size = 0
        end = 0
        for found in _REFERENCE.finditer(text):
            name = found.group(1)
            parts.append(text[end : found.start()])
            piece = self.fragment(name, rule=rule, field=field, using=using)
            parts.append(piece)
            size += found.start() - end + len(piece)
            end = found.end()
            if size > PATTERN_LIMIT:
                break
        parts.append(text[end:])
        expanded = "".join(parts)
        if len(expanded) > PATTERN_LIMIT:
            raise RulesFileError(
                f"is over the limit of {PATTERN_LIMIT} characters once its patterns are"
                " written out",
                file=self.name,
                rule=rule,
                field=field,
            )
        return expanded

    def fragment(self, name: str, *, rule: str | None, field: str, using: tuple[str, ...]) -> str:
        if name in self.done:
            return self.done[name]
        if name in self.raw:
            if name in using:
                chain = " -> ".join((*using[using.index(name) :], name))
                raise RulesFileError(
                    f"pattern {name} uses itself ({chain})", file=self.name, rule=rule, field=field
                )
            text = self.expand(self.raw[name], rule=rule, field=field, using=(*using, name))
            self.done[name] = text
            return text
        if name in self.base:
            return self.base[name]
        raise RulesFileError(
            f"uses %{{{name}}}, but there is no pattern {name} ([patterns] of this file or"
            " the built-in ones; write %\\{ for a literal %{)",
            file=self.name,
            rule=rule,
            field=field,
        )


class _Reader:
    """Reads one rule table; every error names the file, the rule and the field."""

    def __init__(
        self,
        table: Mapping[str, object],
        number: int,
        fragments: _Fragments,
        base: RuleTable | None,
    ) -> None:
        self.name = fragments.name
        self.table = table
        self.label = _label(table.get("id"), number)
        self.fragments = fragments
        self.base = base

    def fail(self, field: str | None, detail: str) -> RulesFileError:
        return RulesFileError(detail, file=self.name, rule=self.label, field=field)

    def text(self, field: str, limit: int | None = None) -> str:
        limit = TEXT_LIMIT if limit is None else limit
        value = self.table.get(field)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(field, f"must be a non-empty string, got {_kind(value)}")
        if len(value) > limit:
            raise self.fail(field, f"is {len(value)} characters, over the limit of {limit}")
        return value

    def pattern(self) -> str:
        value = self.table.get("pattern")
        text = _alternatives(value)
        if text is None:
            raise self.fail(
                "pattern",
                f"must be a non-empty string or array of them, got {_kind(value)}",
            )
        if len(text) > PATTERN_LIMIT:
            raise self.fail(
                "pattern", f"is {len(text)} characters, over the limit of {PATTERN_LIMIT}"
            )
        return self.fragments.expand(text, rule=self.label, field="pattern")

    def optional_id(self, field: str) -> str | None:
        if field not in self.table:
            return None
        value = self.text(field)
        if self.base is None or value not in self.base.ids:
            raise self.fail(field, "names no built-in rule (see docs/patterns.md for the ids)")
        return value

    def code(self) -> ErrorCode:
        value = self.text("code", _ID_LIMIT)
        try:
            return ErrorCode[value]
        except KeyError:
            choices = ", ".join(code.name for code in ErrorCode)
            raise self.fail("code", f"is not an error code (choose from {choices})") from None

    def examples(self) -> tuple[Example, ...]:
        value = self.table.get("examples")
        if not isinstance(value, list) or not value:
            raise self.fail("examples", f"must be a non-empty array, got {_kind(value)}")
        if len(value) > EXAMPLES_LIMIT:
            raise self.fail(
                "examples", f"has {len(value)} examples, over the limit of {EXAMPLES_LIMIT}"
            )
        return tuple(self.example(f"examples[{i}]", item) for i, item in enumerate(value))

    def example(self, field: str, item: object) -> Example:
        text: object
        source: object
        if isinstance(item, str):
            text, source = item, self.name
        elif isinstance(item, dict):
            unknown = sorted(set(item) - _EXAMPLE_KEYS)
            if unknown:
                raise self.fail(field, f"unknown key {unknown[0]!r} (known: source, text)")
            text, source = item.get("text"), item.get("source", self.name)
        else:
            raise self.fail(field, f"must be a string or a table, got {_kind(item)}")
        for part, value in (("text", text), ("source", source)):
            if not isinstance(value, str) or not value.strip():
                raise self.fail(
                    f"{field}.{part}", f"must be a non-empty string, got {_kind(value)}"
                )
            if len(value) > TEXT_LIMIT:
                raise self.fail(f"{field}.{part}", f"is over the limit of {TEXT_LIMIT} characters")
        return Example(str(text), str(source))

    def rule(self) -> Rule:
        known = _BUILTIN_RULE_KEYS if self.base is None else _RULE_KEYS
        unknown = sorted(set(self.table) - known)
        if unknown:
            raise self.fail(unknown[0], f"unknown key (known: {', '.join(sorted(known))})")
        for field in _REQUIRED:
            if field not in self.table:
                raise self.fail(field, "is missing")
        rule_id = self.text("id", _ID_LIMIT)
        if not _ID.fullmatch(rule_id):
            raise self.fail("id", "must be letters, digits and _ . : - (starting with one)")
        override = self.table.get("override", False)
        if not isinstance(override, bool):
            raise self.fail("override", f"must be true or false, got {_kind(override)}")
        builtin_ids = frozenset() if self.base is None else self.base.ids
        if rule_id in builtin_ids and not override:
            raise self.fail("id", "is a built-in rule's id: set override = true to replace it")
        if override and rule_id not in builtin_ids:
            raise self.fail("override", "there is no built-in rule with this id to replace")
        before, after = self.optional_id("before"), self.optional_id("after")
        if before is not None and after is not None:
            raise self.fail("after", "give before or after, not both")
        if override and (before or after):
            raise self.fail(
                "before" if before else "after",
                "a rule that replaces a built-in one keeps its place",
            )
        return Rule(
            id=rule_id,
            code=self.code(),
            pattern=self.pattern(),
            why=self.text("why"),
            examples=self.examples(),
            before=before,
            after=after,
            origin=None if self.base is None else self.name,
        )


def _raw_patterns(
    document: Mapping[str, object],
    name: str,
    base: Mapping[str, str],
    problems: list[RulesFileError],
) -> dict[str, str]:
    """The file's ``[patterns]`` as written; a bad one is left out with its error."""
    table = document.get("patterns", {})
    if not isinstance(table, dict):
        detail = "must be a table of named patterns, written [patterns]"
        problems.append(RulesFileError(detail, file=name, rule=None, field="patterns"))
        return {}
    if len(table) > PATTERNS_LIMIT:
        detail = f"has {len(table)} patterns, over the limit of {PATTERNS_LIMIT}"
        problems.append(RulesFileError(detail, file=name, rule=None, field="patterns"))
        return {}
    raw: dict[str, str] = {}
    for key, value in table.items():
        if not _NAME.fullmatch(key):
            detail = "a pattern's name is lower-case letters, digits and _ (up to 40)"
            problems.append(RulesFileError(detail, file=name, rule=None, field="patterns"))
            continue
        where = f"patterns.{key}"
        if key in base:
            detail = "is the name of a built-in pattern: use it as is, or choose another name"
            problems.append(RulesFileError(detail, file=name, rule=None, field=where))
            continue
        text = _alternatives(value)
        if text is None:
            detail = f"must be a non-empty string or array of them, got {_kind(value)}"
            problems.append(RulesFileError(detail, file=name, rule=None, field=where))
        elif len(text) > PATTERN_LIMIT:
            detail = f"is {len(text)} characters, over the limit of {PATTERN_LIMIT}"
            problems.append(RulesFileError(detail, file=name, rule=None, field=where))
        else:
            raw[key] = text
    return raw


def _document(text: str) -> dict[str, object] | str:
    """The TOML document of a rules file's ``text``, or why it cannot be one."""
    if len(text) > RULES_FILE_LIMIT:
        return f"is over the limit of {RULES_FILE_LIMIT} characters"
    if (parts := _key_parts(text)) > KEY_PARTS_LIMIT:
        return (
            f"is not valid TOML for a rules file: a dotted key of {parts:,} parts, over the "
            f"limit of {KEY_PARTS_LIMIT} (the keys of a rules file have one or two)"
        )
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # its message gives the line and column only
        return f"is not valid TOML: {exc}"
    except RecursionError:  # arrays nested thousands deep
        return "is not valid TOML: nested too deeply"


def read_table(
    text: str, *, name: str, base: RuleTable | None
) -> tuple[RuleTable, tuple[RulesFileError, ...]]:
    """The well-formed rules and fragments of a rules file's ``text``, and what is wrong.

    ``base`` is the built-in table a user's file adds to (its ids may be overridden
    or named by ``before``/``after``, its fragments used); ``None`` reads the
    built-in table itself. Every rule and fragment is read, so that one run names
    every bad one: a rule with a wrong key, type, size, code, id or fragment, or the
    id of an earlier rule, is left out with its error. A text that is not TOML, or
    holds no array of rule tables (or too many), has no rules, and one error.
    """
    document = _document(text)
    if isinstance(document, str):
        return RuleTable(), (RulesFileError(document, file=name, rule=None, field=None),)
    problems = [
        RulesFileError(
            "unknown top-level key (a rules file holds [patterns] and [[rules]] only)",
            file=name,
            rule=None,
            field=key if _NAME.fullmatch(key) else None,
        )
        for key in sorted(set(document) - {"rules", "patterns"})
    ]
    base_patterns = {} if base is None else base.patterns
    fragments = _Fragments(
        name, _raw_patterns(document, name, base_patterns, problems), base_patterns
    )
    patterns: dict[str, str] = {}
    for key in fragments.raw:
        try:
            patterns[key] = fragments.expand(f"%{{{key}}}", rule=None, field=f"patterns.{key}")
        except RulesFileError as exc:
            problems.append(exc)
    tables = document.get("rules", [])
    if tables == []:
        detail = "holds no rules (each is a table written [[rules]])"
        problems.append(RulesFileError(detail, file=name, rule=None, field=None))
        return RuleTable((), patterns), tuple(problems)
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        detail = "must be an array of tables, written [[rules]]"
        problems.append(RulesFileError(detail, file=name, rule=None, field="rules"))
        return RuleTable((), patterns), tuple(problems)
    if len(tables) > RULES_LIMIT:
        detail = f"has {len(tables)} rules, over the limit of {RULES_LIMIT}"
        problems.append(RulesFileError(detail, file=name, rule=None, field="rules"))
        return RuleTable((), patterns), tuple(problems)
    rules: list[Rule] = []
    seen: set[str] = set()
    for number, table in enumerate(tables, 1):
        try:
            rule = _Reader(table, number, fragments, base).rule()
        except RulesFileError as exc:
            problems.append(exc)
            continue
        if rule.id in seen:
            detail = "is the id of an earlier rule in this file"
            problems.append(RulesFileError(detail, file=name, rule=repr(rule.id), field="id"))
            continue
        seen.add(rule.id)
        rules.append(rule)
    return RuleTable(tuple(rules), patterns), tuple(problems)
