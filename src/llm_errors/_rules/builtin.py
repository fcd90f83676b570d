"""The built-in text rules, read from ``builtin.toml`` by the reader users' files go through.

The file ships with the package; it is read once, at import. A problem in it is a
defect of the release, so it raises instead of leaving a rule out.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Final

from llm_errors._rules.reader import RuleTable, read_table
from llm_errors._rules.rule import Rule

__all__ = ["BUILTIN", "FILE", "RULES"]

#: The data file's name, as messages and ``llm-errors rules check --builtin`` call it.
FILE: Final = "builtin.toml"


def _load() -> RuleTable:
    text = files(__package__).joinpath(FILE).read_text(encoding="utf-8")
    table, problems = read_table(text, name=FILE, base=None)
    if problems:
        raise problems[0]
    return table


#: The built-in rules and their named fragments.
BUILTIN: Final = _load()
#: The built-in rules in precedence order: where several match, the first wins
#: (docs/patterns.md lists them all).
RULES: Final[tuple[Rule, ...]] = BUILTIN.rules
