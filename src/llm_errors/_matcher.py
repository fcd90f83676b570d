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
from llm_errors._status import status_at, status_from_text

__all__ = ["FLAGS", "TextMatch", "TextMatcher"]

#: How every rule is compiled: case-insensitive, ``^``/``$`` at line boundaries.
FLAGS: Final = _re.IGNORECASE | _re.MULTILINE | _re.VERSION0
_CACHE_LIMIT: Final = 4096
_GROUP_PREFIX: Final = "_r"
_ERROR_STATUS_TOKENS: Final = frozenset(str(status).encode() for status in range(400, 600))

_GLOBAL_FLAGS = _re.compile(r"(?<!\\)\(\?[a-zA-Z0-9]*-?[a-zA-Z0-9]*\)")
_BACKREFERENCE = _re.compile(r"(?<!\\)(?:\\[1-9]|\\g<\d+>|\(\?P=)")


class TextMatch:
    """The winning rule for a message, the text it matched, and the status stated in it.

    ``status`` is the first 4xx/5xx the message states in a status context
    (``Error code: 429``), found while the tokens are at hand; ``None`` if none.
    """

    __slots__ = ("index", "matched", "status")

    def __init__(self, index: int, matched: str, status: int | None = None) -> None:
        self.index = index
        self.matched = matched
        self.status = status


@dataclass(slots=True)
class _Plan:
    """How to match a line whose candidate rules are ``candidates``."""

    candidates: tuple[int, ...]
    scanned: tuple[int, ...]
    #: anchor token -> ((the candidate rules whose matches may start with it, their
    #: combined pattern), the anchor token itself)
    by_anchor: dict[bytes, tuple[tuple[tuple[int, ...], _re.Pattern[str]], bytes]]
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
        if not self._slow and self._tokens.isdisjoint(tokens):
            return None  # the fast negative path: most log lines end here
        plan = self._plan_for(text, tokens)
        if plan is None:
            return None
        if translated is None:  # token offsets are exact for ASCII text only
            best = self._search(text, plan.candidates)
            if best is not None:
                best.status = status_from_text(text)
            return best
        padded = b" " + translated + b" "
        best = self._search(text, plan.scanned) if plan.scanned else None
        if plan.by_anchor:
            found = self._at_anchors(text, padded, tokens, plan, best)
            if found is not None:
                best = found
        if best is not None:
            statuses = _ERROR_STATUS_TOKENS.intersection(tokens)
            if statuses:
                best.status = status_at(text, _offsets(padded, statuses))
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
                anchor: ((tuple(rules), self._pattern(tuple(rules))), anchor)
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
        padded: bytes,
        tokens: list[bytes],
        plan: _Plan,
        best: TextMatch | None,
    ) -> TextMatch | None:
        # Every match of an anchored rule starts where one of its anchor tokens starts.
        # Take the anchors present in order of the best rule they could yield, and try,
        # at each place an anchor starts, the combined pattern of the rules anchored on
        # it; an anchor that cannot beat the current best ends the loop.
        ordered = sorted(
            (plan.by_anchor[anchor] for anchor in plan.anchors.intersection(tokens)),
            key=_first_rule,
        )
        improved: TextMatch | None = None
        for (rules, pattern), anchor in ordered:
            if best is not None and best.index <= rules[0]:
                break
            for start in _offsets(padded, (anchor,)):
                found = pattern.match(text, start)
                if found is not None:
                    index = _index(found)
                    if best is None or index < best.index:
                        best = improved = TextMatch(index, found.group())
                        if index == rules[0]:
                            break
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


def _offsets(padded: bytes, tokens: Iterable[bytes]) -> list[int]:
    """Where whole ``tokens`` start in the text ``padded`` (translated, space-padded) holds."""
    found: list[int] = []
    for token in tokens:
        needle = b" " + token + b" "
        at = padded.find(needle)
        while at >= 0:  # ``padded`` is shifted by one, so ``at`` is the text offset
            found.append(at)
            at = padded.find(needle, at + len(needle) - 1)
    return found


def _first_rule(entry: tuple[tuple[tuple[int, ...], _re.Pattern[str]], bytes]) -> int:
    return entry[0][0][0]
