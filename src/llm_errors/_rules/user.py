"""Users' own rules: a TOML rules file read into :class:`~llm_errors.Rule` rows (pure).

The file is a list of ``[[rules]]`` tables::

    [[rules]]
    id = "acme.gateway-busy"           # new ids only, unless override = true
    code = "RATE_LIMIT"                # an ErrorCode name
    pattern = 'upstream pool busy'     # a ``regex`` pattern, as built-in rules have
    why = "Our gateway's wording for a throttled upstream."
    before = "http.429"                # optional: right before (or ``after``) a built-in rule
    examples = ["...", { text = "...", source = "app.log:12" }]

This module checks the structure: keys, types, sizes, code names, ids and where a
rule is placed. Whether the patterns compile and the examples classify as their
rule says needs the matcher and the classifier, so :mod:`llm_errors._rules_file`
checks that on top. Every error is a :class:`RulesFileError` naming the file, the
rule and the field, and never quotes the file's text.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from typing import Final

from llm_errors._rules.patterns import RULES, Example, Rule
from llm_errors._taxonomy import ErrorCode

__all__ = [
    "EXAMPLES_LIMIT",
    "PATTERN_LIMIT",
    "RULES_FILE_LIMIT",
    "RULES_LIMIT",
    "TEXT_LIMIT",
    "RulesFileError",
    "parse_rules",
    "read_rules",
]

#: Bytes of a rules file read; a larger file is rejected.
RULES_FILE_LIMIT: Final = 1 << 20
#: Rules in one file.
RULES_LIMIT: Final = 1000
#: Examples of one rule.
EXAMPLES_LIMIT: Final = 50
#: Characters of a pattern.
PATTERN_LIMIT: Final = 4096
#: Characters of an id, a ``why``, an example's text or source.
TEXT_LIMIT: Final = 4096

_RULE_KEYS: Final = frozenset(
    {"id", "code", "pattern", "why", "before", "after", "override", "examples"}
)
_REQUIRED: Final = ("id", "code", "pattern", "why", "examples")
_EXAMPLE_KEYS: Final = frozenset({"text", "source"})
_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
_ID_LIMIT: Final = 100
_BUILTIN_IDS: Final = frozenset(rule.id for rule in RULES)


class RulesFileError(ValueError):
    """A rules file that cannot be used: the message names the file, the rule and the field.

    Attributes:
        file: The file's name.
        rule: The rule's id (``#3`` for the third rule when its id is unusable), or
            ``None`` for the file as a whole.
        field: The offending field (``pattern``, ``examples[1]``), or ``None``.

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


def _label(rule_id: object, number: int) -> str:
    """How a message names a rule: its id when usable, else its position."""
    if isinstance(rule_id, str) and len(rule_id) <= _ID_LIMIT and _ID.fullmatch(rule_id):
        return repr(rule_id)
    return f"#{number}"


class _Reader:
    """Reads one rule table; every error names the file, the rule and the field."""

    def __init__(self, name: str, table: Mapping[str, object], number: int) -> None:
        self.name = name
        self.table = table
        self.label = _label(table.get("id"), number)

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

    def optional_id(self, field: str) -> str | None:
        if field not in self.table:
            return None
        value = self.text(field)
        if value not in _BUILTIN_IDS:
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
        unknown = sorted(set(self.table) - _RULE_KEYS)
        if unknown:
            raise self.fail(unknown[0], f"unknown key (known: {', '.join(sorted(_RULE_KEYS))})")
        for field in _REQUIRED:
            if field not in self.table:
                raise self.fail(field, "is missing")
        rule_id = self.text("id", _ID_LIMIT)
        if not _ID.fullmatch(rule_id):
            raise self.fail("id", "must be letters, digits and _ . : - (starting with one)")
        override = self.table.get("override", False)
        if not isinstance(override, bool):
            raise self.fail("override", f"must be true or false, got {_kind(override)}")
        if rule_id in _BUILTIN_IDS and not override:
            raise self.fail("id", "is a built-in rule's id: set override = true to replace it")
        if override and rule_id not in _BUILTIN_IDS:
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
            pattern=self.text("pattern", PATTERN_LIMIT),
            why=self.text("why"),
            examples=self.examples(),
            before=before,
            after=after,
            origin=self.name,
        )


def _kind(value: object) -> str:
    """A value's TOML kind, for messages (never the value itself)."""
    if value is None:
        return "nothing"
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a float"}.get(
        type(value), "an array" if isinstance(value, list) else "a table"
    )


def read_rules(text: str, *, name: str) -> tuple[tuple[Rule, ...], tuple[RulesFileError, ...]]:
    """The well-formed rules of a rules file's ``text``, and what is wrong with each other one.

    Every rule is read, so that one run names every bad rule: a rule with a wrong
    key, type, size, code or id, or the id of an earlier rule, is left out with
    its error. A text that is not TOML, or holds no array of rule tables (or too
    many), has no rules, and one error.

    .. versionadded:: 0.3.0
    """
    if len(text) > RULES_FILE_LIMIT:
        detail = f"is over the limit of {RULES_FILE_LIMIT} characters"
        return (), (RulesFileError(detail, file=name, rule=None, field=None),)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # its message gives the line and column only
        detail = f"is not valid TOML: {exc}"
        return (), (RulesFileError(detail, file=name, rule=None, field=None),)
    problems = [
        RulesFileError(
            "unknown top-level key (a rules file holds [[rules]] tables only)",
            file=name,
            rule=None,
            field=key,
        )
        for key in sorted(set(document) - {"rules"})
    ]
    tables = document.get("rules", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        detail = "must be an array of tables, written [[rules]]"
        return (), (*problems, RulesFileError(detail, file=name, rule=None, field="rules"))
    if len(tables) > RULES_LIMIT:
        detail = f"has {len(tables)} rules, over the limit of {RULES_LIMIT}"
        return (), (*problems, RulesFileError(detail, file=name, rule=None, field="rules"))
    rules: list[Rule] = []
    seen: set[str] = set()
    for number, table in enumerate(tables, 1):
        try:
            rule = _Reader(name, table, number).rule()
        except RulesFileError as exc:
            problems.append(exc)
            continue
        if rule.id in seen:
            detail = "is the id of an earlier rule in this file"
            problems.append(RulesFileError(detail, file=name, rule=repr(rule.id), field="id"))
            continue
        seen.add(rule.id)
        rules.append(rule)
    return tuple(rules), tuple(problems)


def parse_rules(text: str, *, name: str) -> tuple[Rule, ...]:
    """The rules of a rules file's ``text`` (``name`` is what messages call the file).

    Raises:
        RulesFileError: the first of :func:`read_rules`'s errors: the text is not
            TOML, or a key, type, size, code or id is wrong.

    .. versionadded:: 0.2.0
    """
    rules, problems = read_rules(text, name=name)
    if problems:
        raise problems[0]
    return rules
