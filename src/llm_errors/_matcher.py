r"""Match a message against the whole rule table with one combined pattern.

All rules are alternatives of a single ``regex`` pattern, in table order, each in
its own named group. The rule listed first in the table wins wherever it matches,
which is exactly the precedence ``_patterns.py`` documents, without a loop over
rules. Three things keep this fast on log-sized input:

1. **Triggers** (``_prefilter``): a line containing none of the rules' trigger
   tokens cannot match, and is answered after one ``bytes.translate`` and a set
   test, without any regex (most log lines end here). Otherwise the alternation
   is narrowed to the rules whose triggers the line contains; that specialised
   combined pattern is compiled once and cached, keyed by the tokens found.
2. **Anchors**: nearly every rule's matches start, after ``\b``, with one of a
   few known tokens. The combined pattern is then *tried at those offsets*
   (``pattern.match(text, offset)``), not searched for along the whole line, and
   the lowest rule index over those tries wins.
3. **Search** for the rules without anchors (user rules that start with a
   character class, say): one search finds the leftmost match; when it belongs to
   a lower-priority rule, the search is repeated with only the rules listed
   before it (a shorter pattern, which usually finds nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import regex as _re

from llm_errors._patterns import Rule
from llm_errors._prefilter import Triggers, derive_triggers, lowered, text_tokens, translate

__all__ = ["FLAGS", "TextMatch", "TextMatcher"]

#: How every rule is compiled: case-insensitive, ``^``/``$`` at line boundaries.
FLAGS: Final = _re.IGNORECASE | _re.MULTILINE | _re.VERSION0
_CACHE_LIMIT: Final = 4096
_GROUP_PREFIX: Final = "_r"
_ERROR_STATUS_TOKENS: Final = frozenset(str(status).encode() for status in range(400, 600))

_GLOBAL_FLAGS = _re.compile(r"(?<!\\)\(\?[a-zA-Z0-9]*-?[a-zA-Z0-9]*\)")
_BACKREFERENCE = _re.compile(r"(?<!\\)(?:\\[1-9]|\\g<\d+>|\(\?P=)")


class TextMatch:
    """The winning rule for a message, the text it matched, and a status hint.

    ``may_have_status`` is false when the message contains no 4xx/5xx number at all,
    which spares the caller a search for a status.
    """

    __slots__ = ("index", "matched", "may_have_status")

    def __init__(self, index: int, matched: str, *, may_have_status: bool = True) -> None:
        self.index = index
        self.matched = matched
        self.may_have_status = may_have_status


@dataclass(slots=True)
class _Plan:
    """How to match a line whose candidate rules are ``candidates``."""

    candidates: tuple[int, ...]
    scanned: tuple[int, ...]
    #: anchor token -> (the candidate rules whose matches may start with it, their pattern)
    by_anchor: dict[bytes, tuple[tuple[int, ...], _re.Pattern[str]]]
    anchors: frozenset[bytes]


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
        _re.compile(_alternative(position, rule.pattern), FLAGS)
    except _re.error as exc:
        raise ValueError(f"rule {rule.id!r}: pattern does not compile: {exc}") from exc


def _alternative(position: int, pattern: str) -> str:
    # The inner non-capturing group matters: without it the regex module merges the
    # rule's own top-level alternation into the combined one and scans much slower.
    return f"(?P<{_GROUP_PREFIX}{position}>(?:{pattern}))"


def _index(found: _re.Match[str]) -> int:
    return int((found.lastgroup or "")[len(_GROUP_PREFIX) :])


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
        by_token: dict[bytes, set[int]] = {}
        self._by_substring: tuple[tuple[str, frozenset[int]], ...] = ()
        by_substring: dict[str, set[int]] = {}
        always: set[int] = set()
        for position, triggers in enumerate(self.triggers):
            for token in triggers.tokens:
                by_token.setdefault(token.encode("ascii"), set()).add(position)
            for substring in triggers.substrings:
                by_substring.setdefault(substring, set()).add(position)
            if triggers.always:
                always.add(position)
        self._by_token = {token: frozenset(found) for token, found in by_token.items()}
        self._tokens = frozenset(self._by_token)
        self._by_substring = tuple((sub, frozenset(found)) for sub, found in by_substring.items())
        self._always = frozenset(always)
        self._slow = bool(always or by_substring)
        self._anchors: tuple[frozenset[bytes], ...] = tuple(
            frozenset(anchor.encode("ascii") for anchor in triggers.anchors)
            for triggers in self.triggers
        )
        self._plans: dict[object, _Plan] = {}
        self._compiled: dict[tuple[int, ...], _re.Pattern[str]] = {}

    # ------------------------------------------------------------------ public
    def candidates(self, text: str) -> tuple[int, ...]:
        """Indices of the rules that can possibly match ``text``, in table order."""
        plan = self._plan_for(text, text_tokens(text))
        return plan.candidates if plan is not None else ()

    def match(self, text: str) -> TextMatch | None:
        """The first rule in table order that matches ``text``, or ``None``."""
        translated = translate(text)
        tokens = translated.split() if translated is not None else text_tokens(text)
        plan = self._plan_for(text, tokens)
        if plan is None:
            return None
        if translated is None:  # token offsets are exact for ASCII text only
            return self._search(text, plan.candidates)
        best = self._search(text, plan.scanned) if plan.scanned else None
        if plan.by_anchor:
            found = self._at_anchors(text, translated, tokens, plan, best)
            if found is not None:
                best = found
        if best is not None:
            best.may_have_status = not _ERROR_STATUS_TOKENS.isdisjoint(tokens)
        return best

    def search_all_rules(self, text: str) -> TextMatch | None:
        """The first matching rule found by searching every rule (a reference for tests)."""
        return self._search(text, tuple(range(len(self.rules)))) if text else None

    # ------------------------------------------------------------------ internals
    def _plan_for(self, text: str, tokens: list[bytes]) -> _Plan | None:
        hits = self._tokens.intersection(tokens)
        if not hits and not self._slow:
            return None  # the fast negative path: most log lines end here
        key: object = frozenset(hits)
        if self._by_substring:
            low = lowered(text)
            key = (key, tuple(sub for sub, _ in self._by_substring if sub in low))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._build_plan(hits, key)
        return plan if plan.candidates else None

    def _build_plan(self, hits: Iterable[bytes], key: object) -> _Plan:
        found = set(self._always)
        for token in hits:
            found |= self._by_token[token]
        if isinstance(key, tuple):
            substrings = set(key[1])
            for sub, positions in self._by_substring:
                if sub in substrings:
                    found |= positions
        candidates = tuple(sorted(found))
        by_anchor: dict[bytes, list[int]] = {}
        for i in candidates:
            for anchor in self._anchors[i]:
                by_anchor.setdefault(anchor, []).append(i)
        plan = _Plan(
            candidates=candidates,
            scanned=tuple(i for i in candidates if not self._anchors[i]),
            by_anchor={
                anchor: (tuple(rules), self._pattern(tuple(rules)))
                for anchor, rules in by_anchor.items()
            },
            anchors=frozenset(by_anchor),
        )
        if len(self._plans) >= _CACHE_LIMIT:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    def _pattern(self, candidates: tuple[int, ...]) -> _re.Pattern[str]:
        pattern = self._compiled.get(candidates)
        if pattern is None:
            if len(self._compiled) >= _CACHE_LIMIT:
                self._compiled.clear()
            source = "|".join(_alternative(i, self.rules[i].pattern) for i in candidates)
            pattern = _re.compile(source, FLAGS)
            self._compiled[candidates] = pattern
        return pattern

    def _at_anchors(
        self,
        text: str,
        translated: bytes,
        tokens: list[bytes],
        plan: _Plan,
        best: TextMatch | None,
    ) -> TextMatch | None:
        # Every match of an anchored rule starts where one of its anchor tokens starts.
        # Try, at each such offset, the combined pattern of the rules anchored on that
        # token; in order of the best rule each try could yield, so the first try that
        # cannot beat the current best ends the loop.
        padded = b" " + translated + b" "
        tries: list[tuple[int, int, _re.Pattern[str]]] = []
        for anchor in plan.anchors.intersection(tokens):
            rules, pattern = plan.by_anchor[anchor]
            needle = b" " + anchor + b" "
            at = padded.find(needle)
            while at >= 0:  # ``padded`` is shifted by one, so ``at`` is the text offset
                tries.append((rules[0], at, pattern))
                at = padded.find(needle, at + len(needle) - 1)
        tries.sort(key=_rule_then_offset)
        improved: TextMatch | None = None
        for first, start, pattern in tries:
            if best is not None and best.index <= first:
                break
            found = pattern.match(text, start)
            if found is not None:
                index = _index(found)
                if best is None or index < best.index:
                    best = improved = TextMatch(index, found.group())
        return improved

    def _search(self, text: str, candidates: tuple[int, ...]) -> TextMatch | None:
        # One search finds the leftmost match; a rule listed earlier may still match
        # further right, so search again with only those rules until none does.
        best: TextMatch | None = None
        while candidates:
            found = self._pattern(candidates).search(text)
            if found is None:
                break
            index = _index(found)
            best = TextMatch(index, found.group())
            candidates = candidates[: candidates.index(index)]
        return best


def _rule_then_offset(attempt: tuple[int, int, _re.Pattern[str]]) -> tuple[int, int]:
    return attempt[0], attempt[1]
