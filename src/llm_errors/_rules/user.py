"""Users' rules files: read by the built-in table's reader, on top of the built-in table.

A user's file may replace a built-in rule (``override = true``), place a rule right
before or after one, and use the built-in fragments (``%{status_context}``); the
format is :mod:`llm_errors._rules.reader`'s.
"""

from __future__ import annotations

from llm_errors._rules.builtin import BUILTIN
from llm_errors._rules.reader import RulesFileError, read_table
from llm_errors._rules.rule import Rule

__all__ = ["parse_rules", "read_rules"]


def read_rules(text: str, *, name: str) -> tuple[tuple[Rule, ...], tuple[RulesFileError, ...]]:
    """The well-formed rules of a rules file's ``text``, and what is wrong with each other one.

    Every rule is read, so that one run names every bad rule: a rule with a wrong
    key, type, size, code, id or fragment, or the id of an earlier rule, is left out
    with its error. A text that is not TOML, or holds no array of rule tables (or too
    many), has no rules, and one error.

    .. versionadded:: 0.3.0
    """
    table, problems = read_table(text, name=name, base=BUILTIN)
    return table.rules, problems


def parse_rules(text: str, *, name: str) -> tuple[Rule, ...]:
    """The rules of a rules file's ``text`` (``name`` is what messages call the file).

    Raises:
        RulesFileError: the first of :func:`read_rules`'s errors: the text is not
            TOML, or a key, type, size, code, id or fragment is wrong.

    .. versionadded:: 0.2.0
    """
    rules, problems = read_rules(text, name=name)
    if problems:
        raise problems[0]
    return rules
