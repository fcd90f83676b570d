"""Load and check users' rules files: structure, patterns, and that every example holds.

:mod:`llm_errors._rules.user` reads the structure; here each pattern is compiled
as the matcher compiles it, and every example must be classified *by its rule*,
with its rule's code, by a classifier that has the file's rules in place (so a
rule placed too low, or a pattern that misses its own example, is caught when the
file is loaded, not in production).

Loading (:func:`load_rules`, :func:`load_rule_files`) stops at the first error;
:func:`check_rule_files`, for ``llm-errors rules check``, finds them all: each bad
rule is left out with its error and the others are checked on; :func:`check_builtin`
checks the built-in table the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import regex as _re

from llm_errors._classify import Classifier
from llm_errors._match import matcher
from llm_errors._match.bounds import bounds_problem
from llm_errors._match.matcher import FLAGS, TextMatcher
from llm_errors._rules.builtin import FILE, RULES
from llm_errors._rules.reader import RULES_FILE_LIMIT, RulesFileError
from llm_errors._rules.rule import Rule
from llm_errors._rules.user import read_rules

__all__ = [
    "FileCheck",
    "check_builtin",
    "check_rule_files",
    "check_rules",
    "load_rule_files",
    "load_rules",
    "rules_from_toml",
]


def _fail(rule: Rule, field: str, detail: str) -> RulesFileError:
    file = rule.origin or (FILE if rule in RULES else "<rules>")
    return RulesFileError(detail, file=file, rule=repr(rule.id), field=field)


def _pattern_problem(rule: Rule) -> RulesFileError | None:
    """Whether the pattern compiles as the matcher compiles it and cannot match an empty text."""
    if (problem := bounds_problem(rule.pattern)) is not None:
        return _fail(rule, "pattern", problem)
    try:
        compiled = _re.compile(rule.pattern, FLAGS)
    except ValueError as exc:  # flags the regex module refuses together, as (?V1) and V0
        return _fail(rule, "pattern", f"does not compile: {exc}")
    except _re.error as exc:  # the message and position, never the pattern
        # ``regex.error`` has ``msg`` and ``pos`` as ``re.error`` does (its stubs omit them).
        msg, pos = getattr(exc, "msg", str(exc)), getattr(exc, "pos", None)
        where = "" if pos is None else f" at position {pos}"
        return _fail(rule, "pattern", f"does not compile: {msg}{where}")
    try:
        TextMatcher((rule,))  # global inline flags, backreferences
    except ValueError as exc:
        return _fail(rule, "pattern", str(exc).removeprefix(f"rule {rule.id!r}: "))
    if compiled.search("") is not None:
        return _fail(rule, "pattern", "matches an empty text, so it would match every line")
    return None


def _too_slow(rule: Rule, text: str) -> bool:
    """Whether ``rule``'s pattern alone takes over the match-time limit on ``text``."""
    try:
        _re.compile(rule.pattern, FLAGS).search(text, timeout=matcher.MATCH_TIMEOUT)
    except TimeoutError:
        return True
    return False


def _missed(classifier: Classifier, rule: Rule) -> list[RulesFileError]:
    """The examples of ``rule`` that ``classifier`` does not decide by it, with its code."""
    return [
        _fail(
            rule,
            f"examples[{number}]",
            f"is classified {verdict.code.name} by rule {verdict.rule!r}, not "
            f"{rule.code.name} by this rule "
            + (
                f"(the pattern takes over the match-time limit, MATCH_TIMEOUT "
                f"{matcher.MATCH_TIMEOUT:g} s, on it: it backtracks too much)"
                if _too_slow(rule, example.text)
                else "(the pattern misses it, or a rule placed before this one decides it)"
            ),
        )
        for number, example in enumerate(rule.examples)
        if (verdict := classifier.by_rules(example.text)).rule != rule.id
        or verdict.code is not rule.code
    ]


def _check(rules: Sequence[Rule]) -> tuple[Classifier, tuple[Rule, ...], list[RulesFileError]]:
    """The classifier with the rules whose pattern is right, the rules that pass, the problems.

    A rule passes when its pattern is right and each of its examples is decided by
    it, with its code, by that classifier.
    """
    problems: list[RulesFileError] = []
    compiled: list[Rule] = []
    for rule in rules:
        if (problem := _pattern_problem(rule)) is None:
            compiled.append(rule)
        else:
            problems.append(problem)
    classifier = Classifier(extra_rules=compiled)
    passed: list[Rule] = []
    for rule in compiled:
        missed = _missed(classifier, rule)
        problems += missed
        if not missed:
            passed.append(rule)
    return classifier, tuple(passed), problems


def check_rules(rules: Sequence[Rule]) -> Classifier:
    """Check ``rules`` together; return the classifier that has them in place.

    Every example must be decided by its own rule, with that rule's code.

    Raises:
        RulesFileError: a pattern does not compile, or an example is classified otherwise.

    .. versionadded:: 0.2.0
    """
    classifier, _, problems = _check(rules)
    if problems:
        raise problems[0]
    return classifier


def rules_from_toml(text: str, *, name: str = "<rules>") -> tuple[Rule, ...]:
    """The checked rules of a rules file's text, for ``Classifier(extra_rules=...)``.

    Raises:
        RulesFileError: the message names ``name``, the rule and the field.

    .. versionadded:: 0.2.0
    """
    rules, problems = read_rules(text, name=name)
    if problems:
        raise problems[0]
    check_rules(rules)
    return rules


@dataclass(frozen=True, slots=True)
class FileCheck:
    """One rules file checked alone: the rules that pass, and what is wrong with the others.

    .. versionadded:: 0.3.0
    """

    path: str
    rules: tuple[Rule, ...]
    problems: tuple[RulesFileError, ...]


def _check_file(path: str | Path) -> FileCheck:
    name = str(path)

    def failed(detail: str) -> FileCheck:
        return FileCheck(name, (), (RulesFileError(detail, file=name, rule=None, field=None),))

    try:
        with Path(path).open("rb") as stream:
            data = stream.read(RULES_FILE_LIMIT + 1)
    except OSError as exc:
        return failed(f"cannot be read: {exc.strerror or type(exc).__name__}")
    if len(data) > RULES_FILE_LIMIT:
        return failed(f"is over the limit of {RULES_FILE_LIMIT} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return failed(f"is not UTF-8 (byte {exc.start})")
    rules, problems = read_rules(text, name=name)
    _, passed, missed = _check(rules)
    return FileCheck(name, passed, (*problems, *missed))


def check_builtin() -> FileCheck:
    """The built-in table checked as a user's file is, by the default classifier.

    Each pattern must be right, and each example hold its rule's wording and be
    classified with its rule's code. A built-in example may be decided by an earlier
    rule with the same code (a wording both rules know); a user's example must be
    decided by its own rule.

    .. versionadded:: 0.3.0
    """
    classifier = Classifier()
    problems: list[RulesFileError] = []
    passed: list[Rule] = []
    for rule in RULES:
        found: list[RulesFileError] = []
        if (problem := _pattern_problem(rule)) is not None:
            found.append(problem)
        else:
            compiled = _re.compile(rule.pattern, FLAGS)
            for number, example in enumerate(rule.examples):
                verdict = classifier.by_rules(example.text)
                matches = compiled.search(example.text) is not None
                if not matches or verdict.code is not rule.code:
                    found.append(
                        _fail(
                            rule,
                            f"examples[{number}]",
                            f"is classified {verdict.code.name} by rule {verdict.rule!r} (the "
                            f"pattern {'matches' if matches else 'misses'} it), not "
                            f"{rule.code.name}",
                        )
                    )
        problems += found
        if not found:
            passed.append(rule)
    return FileCheck(FILE, tuple(passed), tuple(problems))


def load_rules(path: str | Path) -> tuple[Rule, ...]:
    """The checked rules of the rules file at ``path`` (at most ``RULES_FILE_LIMIT`` bytes).

    Raises:
        RulesFileError: the file cannot be read, is too big, is not UTF-8, or a rule is wrong.

    .. versionadded:: 0.2.0
    """
    check = _check_file(path)
    if check.problems:
        raise check.problems[0]
    return check.rules


def check_rule_files(
    paths: Iterable[str | Path],
) -> tuple[tuple[FileCheck, ...], tuple[RulesFileError, ...]]:
    """Every problem of several files: each file checked alone, then its good rules together.

    Together (for two files or more), a rule may not reuse the id of another file's
    rule, and a rule of one file may not take an example of another's; only the
    rules that passed alone are checked together, so no problem is told twice.

    .. versionadded:: 0.3.0
    """
    checks = tuple(_check_file(path) for path in paths)
    if len(checks) < 2:  # noqa: PLR2004 -- together means two files or more
        return checks, ()
    problems: list[RulesFileError] = []
    owner: dict[str, str] = {}
    rules: list[Rule] = []
    for check in checks:
        for rule in check.rules:
            if rule.id in owner:
                problems.append(_fail(rule, "id", f"is also the id of a rule in {owner[rule.id]}"))
                continue
            owner[rule.id] = check.path
            rules.append(rule)
    problems += _check(rules)[2]
    return checks, tuple(problems)


def load_rule_files(paths: Iterable[str | Path]) -> tuple[Rule, ...]:
    """The rules of several files, checked each alone and then all together.

    Raises:
        RulesFileError: a file is wrong, two files share a rule id, or a rule of one
            file takes an example of another (the first of :func:`check_rule_files`'s).

    .. versionadded:: 0.2.0
    """
    checks, together = check_rule_files(paths)
    problems = [*(problem for check in checks for problem in check.problems), *together]
    if problems:
        raise problems[0]
    return tuple(rule for check in checks for rule in check.rules)
