"""Load and check users' rules files: structure, patterns, and that every example holds.

:mod:`llm_errors._rules.user` reads the structure; here each pattern is compiled
as the matcher compiles it, and every example must be classified *by its rule*,
with its rule's code, by a classifier that has the file's rules in place (so a
rule placed too low, or a pattern that misses its own example, is caught when the
file is loaded, not in production).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import regex as _re

from llm_errors._classify import Classifier
from llm_errors._match.matcher import FLAGS, TextMatcher
from llm_errors._rules.patterns import Rule
from llm_errors._rules.user import RULES_FILE_LIMIT, RulesFileError, parse_rules

__all__ = ["check_rules", "load_rule_files", "load_rules", "rules_from_toml"]


def _fail(rule: Rule, field: str, detail: str) -> RulesFileError:
    return RulesFileError(detail, file=rule.origin or "<rules>", rule=repr(rule.id), field=field)


def _check_pattern(rule: Rule) -> None:
    """The pattern compiles as the matcher compiles it, and cannot match an empty text."""
    try:
        compiled = _re.compile(rule.pattern, FLAGS)
    except _re.error as exc:  # the message and position, never the pattern
        # ``regex.error`` has ``msg`` and ``pos`` as ``re.error`` does (its stubs omit them).
        msg, pos = getattr(exc, "msg", str(exc)), getattr(exc, "pos", None)
        where = "" if pos is None else f" at position {pos}"
        raise _fail(rule, "pattern", f"does not compile: {msg}{where}") from None
    try:
        TextMatcher((rule,))  # global inline flags, backreferences
    except ValueError as exc:
        detail = str(exc).removeprefix(f"rule {rule.id!r}: ")
        raise _fail(rule, "pattern", detail) from None
    if compiled.search("") is not None:
        raise _fail(rule, "pattern", "matches an empty text, so it would match every line")


def check_rules(rules: Sequence[Rule]) -> Classifier:
    """Check ``rules`` together; return the classifier that has them in place.

    Every example must be decided by its own rule, with that rule's code.

    Raises:
        RulesFileError: a pattern does not compile, or an example is classified otherwise.

    .. versionadded:: 0.2.0
    """
    for rule in rules:
        _check_pattern(rule)
    classifier = Classifier(extra_rules=rules)
    for rule in rules:
        for number, example in enumerate(rule.examples):
            verdict = classifier.classify(example.text)
            if verdict.rule != rule.id or verdict.code is not rule.code:
                raise _fail(
                    rule,
                    f"examples[{number}]",
                    f"is classified {verdict.code.name} by rule {verdict.rule!r}, not "
                    f"{rule.code.name} by this rule (the pattern misses it, or a rule "
                    "placed before this one decides it)",
                )
    return classifier


def rules_from_toml(text: str, *, name: str = "<rules>") -> tuple[Rule, ...]:
    """The checked rules of a rules file's text, for ``Classifier(extra_rules=...)``.

    Raises:
        RulesFileError: the message names ``name``, the rule and the field.

    .. versionadded:: 0.2.0
    """
    rules = parse_rules(text, name=name)
    check_rules(rules)
    return rules


def load_rules(path: str | Path) -> tuple[Rule, ...]:
    """The checked rules of the rules file at ``path`` (at most ``RULES_FILE_LIMIT`` bytes).

    Raises:
        RulesFileError: the file cannot be read, is too big, is not UTF-8, or a rule is wrong.

    .. versionadded:: 0.2.0
    """
    name = str(path)
    try:
        with Path(path).open("rb") as stream:
            data = stream.read(RULES_FILE_LIMIT + 1)
    except OSError as exc:
        detail = f"cannot be read: {exc.strerror or type(exc).__name__}"
        raise RulesFileError(detail, file=name, rule=None, field=None) from None
    if len(data) > RULES_FILE_LIMIT:
        detail = f"is over the limit of {RULES_FILE_LIMIT} bytes"
        raise RulesFileError(detail, file=name, rule=None, field=None)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        detail = f"is not UTF-8 (byte {exc.start})"
        raise RulesFileError(detail, file=name, rule=None, field=None) from None
    return rules_from_toml(text, name=name)


def load_rule_files(paths: Iterable[str | Path]) -> tuple[Rule, ...]:
    """The rules of several files, checked each alone and then all together.

    Raises:
        RulesFileError: a file is wrong, two files share a rule id, or a rule of one
            file takes an example of another.

    .. versionadded:: 0.2.0
    """
    rules: list[Rule] = []
    owner: dict[str, str] = {}
    count = 0
    for path in paths:
        count += 1
        for rule in load_rules(path):
            if rule.id in owner:
                raise _fail(rule, "id", f"is also the id of a rule in {owner[rule.id]}")
            owner[rule.id] = rule.origin or str(path)
            rules.append(rule)
    if count > 1:
        check_rules(rules)
    return tuple(rules)
