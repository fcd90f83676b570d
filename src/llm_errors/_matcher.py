"""Match a message against the whole rule table with one combined pattern.

All rules are alternatives of a single ``regex`` pattern, in table order, each in
its own named group; one overlapped scan finds, at every position, the first rule
(in table order) that matches there, and the lowest rule index over the message
wins. That is exactly "the first rule in the table wins", without a loop over
rules.

The trigger tokens of ``_prefilter`` narrow the alternation first: a line that
contains no trigger token of any rule is answered without running a regex (most
log lines), and a line that does is matched against the combined pattern of just
the rules it can possibly match. Those specialised patterns are compiled once and
cached, keyed by the set of candidate rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import regex as _re

from llm_errors._patterns import Rule
from llm_errors._prefilter import Triggers, derive_triggers, lowered, text_tokens

__all__ = ["TextMatch", "TextMatcher"]

FLAGS: Final = _re.IGNORECASE | _re.MULTILINE | _re.VERSION0
_CACHE_LIMIT: Final = 4096
_GROUP_PREFIX: Final = "_r"

_GLOBAL_FLAGS = _re.compile(r"(?<!\\)\(\?[a-zA-Z0-9]*-?[a-zA-Z0-9]*\)")
_BACKREFERENCE = _re.compile(r"(?<!\\)(?:\\[1-9]|\\g<\d+>|\(\?P=)")


class TextMatch:
    """The winning rule for a message and the text it matched."""

    __slots__ = ("index", "matched")

    def __init__(self, index: int, matched: str) -> None:
        self.index = index
        self.matched = matched


def _validate(rule: Rule, position: int) -> None:
    if _GLOBAL_FLAGS.search(rule.pattern):
        raise ValueError(
            f"rule {rule.id!r}: global inline flags such as '(?i)' would leak into other rules; "
            "use a scoped group such as '(?-i:...)'"
        )
    if _BACKREFERENCE.search(rule.pattern):
        raise ValueError(
            f"rule {rule.id!r}: backreferences are not supported (rules are combined into one "
            "pattern, which renumbers groups)"
        )
    try:
        _re.compile(f"(?P<{_GROUP_PREFIX}{position}>{rule.pattern})", FLAGS)
    except _re.error as exc:
        raise ValueError(f"rule {rule.id!r}: pattern does not compile: {exc}") from exc


class TextMatcher:
    """Finds the first rule (in table order) that matches a message.

    Raises:
        ValueError: a rule's pattern does not compile, uses a global inline flag or a
            backreference; the message names the rule id.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        for position, rule in enumerate(self.rules):
            _validate(rule, position)
        self.triggers: tuple[Triggers, ...] = tuple(
            derive_triggers(rule.pattern) for rule in self.rules
        )
        by_token: dict[str, set[int]] = {}
        by_substring: dict[str, set[int]] = {}
        always: list[int] = []
        for position, triggers in enumerate(self.triggers):
            for token in triggers.tokens:
                by_token.setdefault(token, set()).add(position)
            for substring in triggers.substrings:
                by_substring.setdefault(substring, set()).add(position)
            if triggers.always:
                always.append(position)
        self._by_token = {token: frozenset(found) for token, found in by_token.items()}
        self._tokens = frozenset(self._by_token)
        self._by_substring = tuple(
            (substring, frozenset(found)) for substring, found in by_substring.items()
        )
        self._always = frozenset(always)
        self._compiled: dict[tuple[int, ...], _re.Pattern[str]] = {}

    def candidates(self, text: str) -> tuple[int, ...]:
        """Indices of the rules that can possibly match ``text``, in table order."""
        found = set(self._always)
        tokens = text_tokens(text)
        if not self._tokens.isdisjoint(tokens):
            for token in tokens & self._tokens:
                found |= self._by_token[token]
        if self._by_substring:
            low = lowered(text)
            for substring, positions in self._by_substring:
                if substring in low:
                    found |= positions
        return tuple(sorted(found))

    def _pattern(self, candidates: tuple[int, ...]) -> _re.Pattern[str]:
        pattern = self._compiled.get(candidates)
        if pattern is None:
            if len(self._compiled) >= _CACHE_LIMIT:
                self._compiled.clear()
            source = "|".join(
                f"(?P<{_GROUP_PREFIX}{i}>{self.rules[i].pattern})" for i in candidates
            )
            pattern = _re.compile(source, FLAGS)
            self._compiled[candidates] = pattern
        return pattern

    def match(self, text: str) -> TextMatch | None:
        """The first rule in table order that matches ``text``, or ``None``."""
        if not text:
            return None
        candidates = self.candidates(text)
        if not candidates:
            return None
        return self._scan(text, candidates)

    def match_all_rules(self, text: str) -> TextMatch | None:
        """Like :meth:`match`, without the trigger pre-filter (a reference for tests)."""
        return self._scan(text, tuple(range(len(self.rules)))) if text else None

    def _scan(self, text: str, candidates: tuple[int, ...]) -> TextMatch | None:
        best: TextMatch | None = None
        first = candidates[0]
        for found in self._pattern(candidates).finditer(text, overlapped=True):
            name = found.lastgroup
            if name is None or not name.startswith(_GROUP_PREFIX):  # pragma: no cover
                continue
            index = int(name[len(_GROUP_PREFIX) :])
            if best is None or index < best.index:
                best = TextMatch(index, found.group())
                if index == first:
                    break
        return best
