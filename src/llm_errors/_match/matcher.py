r"""Match a message against the whole rule table: the first rule in table order wins.

The rule listed first in the table wins wherever it matches, which is exactly the
precedence ``_rules/builtin.toml`` documents. Four things keep this fast on
log-sized input:

1. **Triggers** (``prefilter``): a line containing none of the rules' trigger
   tokens cannot match, and is answered after one ``bytes.translate``, one
   ``split`` and one set test, without any regex (most log lines end here). The
   non-ASCII tokens (runs of CJK characters, say) are looked for as substrings,
   and only when the line is not ASCII: they join its tokens, so the rest of the
   engine treats them like words.
2. **Plans**: otherwise, everything that depends only on *which* trigger, anchor
   and required tokens the line contains is worked out once and cached under
   that token set: the candidate rules (a rule stays only if the line holds every
   token of one of its ways to match, so ``connection pool`` does not try the
   ``connection error`` rule), and for each anchor present the rules that can
   start there, best rule first. Building a plan compiles nothing.
3. **Anchors**: nearly every rule's matches start, after ``\b``, with one of a
   few known tokens. Each candidate's own pattern (compiled on its first try, once
   per process) is then *tried at those offsets* (``pattern.match(text, offset)``),
   not searched for along the whole line; the lowest rule index wins, and a rule
   that cannot beat it is not tried.
4. **Search** for the rules without anchors (user rules that start with a
   character class, say): :data:`SEARCH_CHUNK` rules at a time, in table order, as
   alternatives of one pattern, each in its own named group. One search finds the
   leftmost match; when it belongs to a lower-priority rule, the search is repeated
   with only the rules listed before it (a shorter pattern, which usually finds
   nothing).

Users' patterns are not known to run in linear time (``bounds.py`` refuses the
classic exponential shapes, not every slow one), so a matcher holding rules from
outside the built-in table gives its patterns :data:`MATCH_TIMEOUT` seconds per
text. When they take longer, the text layer fails safe: that text matches none of
the user rules, only the built-in ones are tried on it (without a limit: they are
linear), and when none of those matches either, the classifier's verdict is
decided by other evidence, or is the non-retryable fallback. A
:class:`MatchTimeoutWarning` names the limit and
the user rules that were tried. The built-in rules are measured by the tests
(``tests/llm_errors/test_linear_time.py``): a matcher of only those passes no
limit, which would cost each pattern call about half a microsecond.

The status a matched message states is read where its 4xx/5xx tokens start
(``_rules/status.py``, ``status_in_tokens``), from the same tokens.
"""

from __future__ import annotations

import functools
import re
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

import regex as _re

from llm_errors._match.bounds import bounds_problem
from llm_errors._match.prefilter import (
    COMMON,
    LINE_START,
    TOKEN_TABLE,
    Triggers,
    derive_triggers,
    is_foreign,
    lowered,
    text_tokens,
    translate,
)
from llm_errors._native import NATIVE
from llm_errors._rules.builtin import RULES
from llm_errors._rules.rule import Rule
from llm_errors._rules.status import status_from_text, status_in_tokens

__all__ = [
    "ANCHOR_TRIES",
    "CACHE_LIMIT",
    "FLAGS",
    "MATCH_TIMEOUT",
    "PLAN_CACHE_LIMIT",
    "SEARCH_CHUNK",
    "MatchTimeoutWarning",
    "TextMatch",
    "TextMatcher",
    "compiled_patterns",
    "known_patterns",
    "known_triggers",
    "triggers_of",
]

#: How every rule is compiled: case-insensitive, ``^``/``$`` at line boundaries.
FLAGS: Final = _re.IGNORECASE | _re.MULTILINE | _re.VERSION0
#: Search patterns and derived triggers kept (least recently used ones are dropped).
CACHE_LIMIT: Final = 4096
#: Plans kept, by the set of a text's rule tokens (least recently used ones dropped): a
#: plan is a few tuples of rule indices, and a log's lines make thousands of token sets
#: (5,815 on ``bench/classify.py``'s 1,000,000 JSON records).
PLAN_CACHE_LIMIT: Final = 16384
#: Offsets at which one anchor's rules are tried per line: bounds the work per line
#: (a rule with an unbounded lookahead tried at every one of many repeated anchors
#: would be quadratic). Far more than any real message repeats one anchor word.
ANCHOR_TRIES: Final = 16
#: Seconds the patterns may take over one text when the matcher holds rules from outside
#: the built-in table; over it, only the built-in rules are tried on the text (a whole
#: 256 KiB input takes them under 0.1 s).
MATCH_TIMEOUT: Final = 1.0
#: Rules without anchors searched for with one combined pattern: searching the rules
#: listed before the one found compiles a pattern of them, which must stay small (with
#: 1,000 such rules, each example of ``rules check`` compiled one of 500 on average).
SEARCH_CHUNK: Final = 32
_GROUP_PREFIX: Final = "_r"
_ERROR_STATUS_TOKENS: Final = frozenset(str(status).encode() for status in range(400, 600))
#: User rules a :class:`MatchTimeoutWarning` names (the others are counted).
_NAMED_RULES: Final = 5
#: The needle of a try at every line start (a way anchored at ``^``).
_LINE_STARTS: Final = LINE_START.encode()

_BUILT_IN: Final = frozenset(RULES)
#: Each pattern's triggers, derived once per process for every matcher built after it
#: (a classifier with user rules, ``rules check`` and each ``--jobs`` worker build one
#: over the built-in rules again; deriving walks every pattern's parse tree).
_derived = functools.lru_cache(maxsize=CACHE_LIMIT)(derive_triggers)
#: Triggers worked out before this process started (the command line keeps a table of
#: them: ``llm_errors.logs._stored``), used instead of deriving; at most CACHE_LIMIT.
_known: dict[str, Triggers] = {}
#: Every rule pattern this process compiled with :data:`FLAGS` or was given
#: (:func:`known_patterns`), by source; at most CACHE_LIMIT. The command line keeps them
#: between runs (``llm_errors.logs._stored``): compiling the built-in table takes
#: ``regex`` about 0.15 s, loading it a few ms.
_compiled: dict[str, _re.Pattern[str]] = {}


def known_triggers(table: Mapping[str, Triggers]) -> None:
    """Take these patterns' triggers as given (each must be ``derive_triggers(pattern)``)."""
    for pattern, triggers in table.items():
        if len(_known) >= CACHE_LIMIT:
            break
        _known[pattern] = triggers


def known_patterns(table: Mapping[str, _re.Pattern[str]]) -> None:
    """Take these compiled patterns as given (each must be ``regex.compile(source, FLAGS)``)."""
    for source, pattern in table.items():
        if len(_compiled) >= CACHE_LIMIT:
            break
        _compiled[source] = pattern


def compiled_patterns() -> dict[str, _re.Pattern[str]]:
    """The patterns this process compiled or was given, by source (a copy)."""
    return dict(_compiled)


def _compiled_source(source: str) -> _re.Pattern[str]:
    """``regex.compile(source, FLAGS)`` of a rule's pattern, once per process."""
    pattern = _compiled.get(source)
    if pattern is None:
        pattern = _re.compile(source, FLAGS)
        if len(_compiled) < CACHE_LIMIT:
            _compiled[source] = pattern
    return pattern


def _seen_in(seen: frozenset[bytes]) -> Callable[[bytes], frozenset[bytes]]:
    """``lambda line: seen.intersection(line.translate(TOKEN_TABLE).split())``.

    Compiled where ``_llm_errors_native`` was built (``src/native``): it looks each token
    of the line up without making a bytes object of it, about 3x faster.
    """
    if NATIVE is None:
        return lambda line: seen.intersection(line.translate(TOKEN_TABLE).split())
    hits: Callable[[bytes], frozenset[bytes]] = NATIVE.TokenSet(seen, TOKEN_TABLE).hits
    return hits


def triggers_of(pattern: str) -> Triggers:
    """``derive_triggers(pattern)``, from the known table or derived once per process."""
    known = _known.get(pattern)
    return _derived(pattern) if known is None else known


# Recursion into the pattern or a group: (?R), (?1), (?-1), (?&name), (?P>name).
_RECURSION = _re.compile(r"(?<!\\)\(\?(?:R|[+-]?[0-9]+|&\w+|P>\w+)\)")
_GLOBAL_FLAGS = _re.compile(r"(?<!\\)\(\?[a-zA-Z0-9]*-?[a-zA-Z0-9]*\)")
_BACKREFERENCE = _re.compile(r"(?<!\\)(?:\\[1-9]|\\g<\d+>|\(\?P=)")
# A group named as the matcher names each rule's group: two such names clash when rules
# are searched together.
_OWN_NAME = _re.compile(rf"(?<!\\)\(\?P?<{_GROUP_PREFIX}\d")


class MatchTimeoutWarning(RuntimeWarning):
    """The patterns took over :data:`MATCH_TIMEOUT` on a text: only built-in rules were tried."""


class _Budget:
    """Seconds the patterns have left on one text: only time inside their calls counts.

    Compiling a pattern on its first use is not counted (on a loaded machine, compiling
    a chunk of a thousand user rules could take the whole limit, and so time out texts
    that match in microseconds).
    """

    __slots__ = ("left",)

    def __init__(self, seconds: float) -> None:
        self.left = seconds

    def match(self, pattern: _re.Pattern[str], text: str, at: int) -> _re.Match[str] | None:
        """``pattern.match(text, at)``; ``TimeoutError`` when the budget runs out."""
        return self._spend(pattern.match, text, at)

    def search(self, pattern: _re.Pattern[str], text: str) -> _re.Match[str] | None:
        """``pattern.search(text)``; ``TimeoutError`` when the budget runs out."""
        return self._spend(pattern.search, text)

    def _spend(
        self, call: Callable[..., _re.Match[str] | None], *args: object
    ) -> _re.Match[str] | None:
        if self.left <= 0:  # (``regex`` takes a negative timeout as none at all)
            raise TimeoutError
        start = time.monotonic()
        try:
            return call(*args, timeout=self.left)
        finally:
            self.left -= time.monotonic() - start


class TextMatch:
    """The winning rule for a message, the text it matched, and the status stated in it.

    ``status`` is the first 4xx/5xx the message states in a status context
    (``Error code: 429``), found while the tokens are at hand; ``None`` if none.
    """

    __slots__ = ("_found", "index", "status")

    def __init__(self, index: int, found: _re.Match[str], status: int | None = None) -> None:
        self.index = index
        self.status = status
        self._found = found

    @property
    def matched(self) -> str:
        """The text the rule matched (only explanations need it: not copied before)."""
        return self._found.group()


class _Try(NamedTuple):
    """Try ``rules`` (in table order) wherever the token in ``needle`` starts; ``first`` leads."""

    first: int
    needle: bytes
    rules: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Plan:
    """How to match a line, given the trigger, anchor and way tokens it contains.

    Everything that depends only on that token set is worked out once and cached:
    the candidate rules, the ones that must be searched for (no anchors), and the
    anchors present with the rules that can start there, best rule first.
    """

    candidates: tuple[int, ...]
    scanned: tuple[int, ...]
    tries: tuple[_Try, ...]


def _token_starts(padded: bytes, needle: bytes) -> Iterator[int]:
    """Where the token in ``needle`` starts, at most ``ANCHOR_TRIES`` times.

    ``padded`` is the translated text shifted by one, so an offset in it is the text's.
    """
    at = padded.find(needle)
    tries = 0
    while at >= 0 and tries < ANCHOR_TRIES:
        tries += 1
        yield at
        at = padded.find(needle, at + len(needle) - 1)


def _line_starts(text: str) -> Iterator[int]:
    """Every line start of ``text``, not bounded by ``ANCHOR_TRIES``.

    One try per line, each no longer than a search of the rest of the text would
    spend at that offset.
    """
    at = 0
    while True:
        yield at
        newline = text.find("\n", at)
        if newline < 0:
            return
        at = newline + 1


def _validate(rule: Rule, position: int) -> _re.Pattern[str] | None:
    """Refuse what ``rule``'s pattern may not hold; a user rule's pattern, compiled.

    Both as it is tried alone and as it is searched with others: a pattern that only
    compiles inside its group (``a)|(b``) escapes it, and is refused.
    """
    if _RECURSION.search(rule.pattern):
        raise ValueError(
            f"rule {rule.id!r}: recursion such as '(?R)', '(?1)' or '(?&name)' is not supported "
            "(it can take exponential time); write the repeated part out"
        )
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
    if rule in _BUILT_IN:
        return None  # compiled and measured by the tests (tests/llm_errors/match): 0.2 s saved
    if _OWN_NAME.search(rule.pattern):
        raise ValueError(
            f"rule {rule.id!r}: group names of {_GROUP_PREFIX!r} and a digit are the matcher's "
            "own (each rule's group is named so); choose another name"
        )
    if (problem := bounds_problem(rule.pattern)) is not None:
        raise ValueError(f"rule {rule.id!r}: pattern {problem}")
    try:
        compiled = _re.compile(rule.pattern, FLAGS)
        _re.compile(_alternative(position, rule.pattern), FLAGS)
    except (_re.error, ValueError) as exc:  # ValueError: flags regex refuses together
        raise ValueError(f"rule {rule.id!r}: pattern does not compile: {exc}") from exc
    return compiled


def _alternative(position: int, pattern: str) -> str:
    # The inner non-capturing group matters: without it the regex module merges the
    # rule's own top-level alternation into the combined one and scans much slower.
    return f"(?P<{_GROUP_PREFIX}{position}>(?:{pattern}))"


class TextMatcher:
    """Finds the first rule (in table order) that matches a message.

    Raises:
        ValueError: a rule's pattern does not compile, uses a global inline flag or a
            backreference; the message names the rule id.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        # Each rule's own pattern, tried at its anchors (``None``: not compiled yet; a
        # built-in rule's is compiled on its first try, as most never are).
        self._patterns: list[_re.Pattern[str] | None] = [
            _validate(rule, position) for position, rule in enumerate(self.rules)
        ]
        self.triggers: tuple[Triggers, ...] = tuple(
            triggers_of(rule.pattern) for rule in self.rules
        )
        by_token: dict[bytes, set[int]] = {}
        by_substring: dict[str, set[int]] = {}
        for position, triggers in enumerate(self.triggers):
            for token in triggers.tokens:
                by_token.setdefault(token.encode(), set()).add(position)
            for substring in triggers.substrings:
                by_substring.setdefault(substring, set()).add(position)
        self._by_token = {token: frozenset(found) for token, found in by_token.items()}
        self._by_substring = tuple((sub, frozenset(found)) for sub, found in by_substring.items())
        self._always = frozenset(i for i, triggers in enumerate(self.triggers) if triggers.always)
        self._anchors: tuple[frozenset[bytes], ...] = tuple(
            frozenset(anchor.encode("ascii") for anchor in triggers.anchors)
            for triggers in self.triggers
        )
        # A way's common words (``the``, ``error``) only count when they are keys anyway:
        # as keys they would multiply the plans for little gain.
        core = {t for triggers in self.triggers for t in (*triggers.tokens, *triggers.anchors)}
        self._ways: tuple[tuple[tuple[bytes | None, frozenset[bytes]], ...], ...] = tuple(
            tuple(
                (
                    anchor.encode("ascii") if anchor is not None else None,
                    frozenset(t.encode() for t in tokens if t in core or t not in COMMON),
                )
                for anchor, tokens in triggers.ways
            )
            for triggers in self.triggers
        )
        #: The trigger tokens of all rules (the non-ASCII ones UTF-8 encoded): a line
        #: without any matches no rule (unless some rule has substring triggers or none).
        self.tokens: frozenset[bytes] = frozenset(self._by_token)
        #: Whether a line without any of :attr:`tokens` surely matches no rule.
        self.exact: bool = not self._always and not self._by_substring
        # A plan is keyed by the trigger, anchor and way tokens a line contains; the
        # 4xx/5xx tokens are where a stated status may be.
        self._keys = self.tokens.union(
            *self._anchors, *(tokens for ways in self._ways for _, tokens in ways)
        )
        # Non-ASCII tokens (triggers and the words of every way),
        # found by substring search in non-ASCII text only: one scan for
        # the characters they start with, then a search only for the tokens starting there.
        by_first: dict[str, list[tuple[bytes, str]]] = {}
        for key in sorted(self._keys):
            if is_foreign(run := key.decode()):
                by_first.setdefault(run[0], []).append((key, run))
        self._foreign = {first: tuple(runs) for first, runs in by_first.items()}
        # (the standard library's ``re``: faster than ``regex`` at this plain class scan)
        self._foreign_first = (
            re.compile("[" + "".join(map(re.escape, sorted(by_first))) + "]") if by_first else None
        )
        self._seen = self._keys | _ERROR_STATUS_TOKENS
        # The tokens of a line's bytes among them: compiled where it was built (the same set).
        self._seen_in: Callable[[bytes], frozenset[bytes]] = _seen_in(self._seen)
        #: Seconds the patterns may take over one text (``None``: the built-in rules only).
        self.timeout: float | None = (
            None if all(rule in _BUILT_IN for rule in self.rules) else MATCH_TIMEOUT
        )
        self._no_rule = len(self.rules)
        self._rule_of = {f"{_GROUP_PREFIX}{i}": i for i in range(len(self.rules))}
        # What depends only on a line's token set is worked out once (bounded caches).
        self._plan = functools.lru_cache(maxsize=PLAN_CACHE_LIMIT)(self._build_plan)
        self._pattern = functools.lru_cache(maxsize=CACHE_LIMIT)(self._compile)

    # ------------------------------------------------------------------ public
    def candidates(self, text: str) -> tuple[int, ...]:
        """Indices of the rules that can possibly match ``text``, in table order."""
        tokens = text_tokens(text)
        if not text.isascii():
            tokens += self._foreign_in(text)
        return self._plan_for(text, self._keys.intersection(tokens)).candidates

    def match(self, text: str) -> TextMatch | None:
        """The first rule in table order that matches ``text``, or ``None``."""
        if text.isascii():
            # its UTF-8 bytes are the same, and the default codec needs no lookup
            translated = text.encode().translate(TOKEN_TABLE)
            tokens = translated.split()
        else:
            translated = translate(text)
            tokens = translated.split()
            tokens += self._foreign_in(text)
        if self.exact and self.tokens.isdisjoint(tokens):
            return None  # the fast negative path: most log lines end here
        hits = self._seen.intersection(tokens)
        statuses = None if _ERROR_STATUS_TOKENS.isdisjoint(hits) else _ERROR_STATUS_TOKENS & hits
        key = hits if statuses is None else self._keys & hits
        plan = self._plan(self._plan_key(text, key))
        if not plan.candidates:
            return None
        padded = b" " + translated + b" "  # a token is ``b" " + token + b" "`` in here
        budget = None if self.timeout is None else _Budget(self.timeout)
        try:
            best, found = self._best(text, padded, plan, budget)
        except TimeoutError:
            self._timed_out(plan.candidates)
            best, found = self._best(text, padded, self._built_in(plan), None)
        if found is None:
            return None
        if not text.isascii():  # a regex digit may be a non-ASCII digit, which is no token
            status = status_from_text(text)
        else:
            status = status_in_tokens(text, padded, statuses) if statuses else None
        return TextMatch(best, found, status)

    def may_match(self, line: bytes) -> bool:
        """Whether some rule may match ``line`` (UTF-8); ``False`` is exact: ``match`` is ``None``.

        The block scan's cheap test for lines of trigger words: an ASCII line is
        tokenised from its bytes as :meth:`match` tokenises its text, and the cached
        plan for its tokens says whether any rule is a candidate; most lines holding a
        trigger word (``connection pool size=10``) have none. Lines this cannot tell
        cheaply (not ASCII, or a table with substring triggers) answer ``True``.
        """
        if self._by_substring or not line.isascii():
            return True
        # (no trigger-token test first: the block filter found one in such a line, and
        # without one the plan has no candidates anyway)
        hits = self._seen_in(line)
        key = hits if _ERROR_STATUS_TOKENS.isdisjoint(hits) else self._keys & hits
        return bool(self._plan(key).candidates)

    def _best(
        self, text: str, padded: bytes, plan: _Plan, budget: _Budget | None
    ) -> tuple[int, _re.Match[str] | None]:
        """The best rule of ``plan`` matching ``text``: searched ones, then anchored tries.

        Raises:
            TimeoutError: the patterns spent ``budget`` first.
        """
        best, found = self._no_rule, None
        if plan.scanned:
            found = self._search(text, plan.scanned, budget)
            if found is not None:
                best = self._rule_of[found.lastgroup or ""]
        patterns = self._patterns
        for first, needle, rules in plan.tries:
            if best <= first:
                break  # no rule anchored here can beat the best so far
            starts = _line_starts(text) if needle == _LINE_STARTS else _token_starts(padded, needle)
            for at in starts:
                for index in rules:
                    if index >= best:
                        break
                    pattern = patterns[index] or self._compile_rule(index)
                    tried = (
                        pattern.match(text, at)
                        if budget is None
                        else budget.match(pattern, text, at)
                    )
                    if tried is not None:
                        best, found = index, tried
                        break
                if best == first:
                    break
        return best, found

    def search_all_rules(self, text: str) -> TextMatch | None:
        """The first matching rule found by searching every rule (a reference for tests)."""
        everything = tuple(range(len(self.rules)))
        budget = None if self.timeout is None else _Budget(self.timeout)
        try:
            found = self._search(text, everything, budget) if text else None
        except TimeoutError:
            self._timed_out(everything)
            return None
        if found is None:
            return None
        return TextMatch(self._rule_of[found.lastgroup or ""], found)

    # ------------------------------------------------------------------ internals
    def _timed_out(self, candidates: tuple[int, ...]) -> None:
        """Warn that a text took the patterns over the limit, naming the user rules tried."""
        users = [self.rules[i].id for i in candidates if self.rules[i] not in _BUILT_IN]
        named = ", ".join(users[:_NAMED_RULES]) + (
            f" and {len(users) - _NAMED_RULES} more" if len(users) > _NAMED_RULES else ""
        )
        warnings.warn(
            MatchTimeoutWarning(
                f"a text took the rules' patterns over the match-time limit "
                f"(MATCH_TIMEOUT, {self.timeout:g} s), so only the built-in rules were tried "
                f"on it: a pattern backtracks too much on it (rules from outside the built-in "
                f"table that were tried: {named or 'none'})"
            ),
            stacklevel=2,
        )

    def _built_in(self, plan: _Plan) -> _Plan:
        """``plan`` without the rules from outside the built-in table."""
        rules = self.rules

        def kept(indices: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(i for i in indices if rules[i] in _BUILT_IN)

        tries = [
            _Try(kept_rules[0], needle, kept_rules)
            for _, needle, candidates in plan.tries
            if (kept_rules := kept(candidates))
        ]
        return _Plan(kept(plan.candidates), kept(plan.scanned), tuple(sorted(tries)))

    def _foreign_in(self, text: str) -> list[bytes]:
        """The non-ASCII trigger tokens ``text`` contains (as substrings)."""
        if self._foreign_first is None:
            return []
        return [
            token
            for first in set(self._foreign_first.findall(text))
            for token, run in self._foreign[first]
            if run in text
        ]

    def _plan_for(self, text: str, hits: frozenset[bytes]) -> _Plan:
        return self._plan(self._plan_key(text, hits))

    def _plan_key(self, text: str, hits: frozenset[bytes]) -> object:
        if not self._by_substring:
            return hits
        low = lowered(text)
        return (hits, tuple(sub for sub, _ in self._by_substring if sub in low))

    def _build_plan(self, key: object) -> _Plan:
        hits: frozenset[bytes] = key[0] if isinstance(key, tuple) else key  # type: ignore[assignment]
        found = set(self._always)
        for token in hits:
            found |= self._by_token.get(token, frozenset())
        if isinstance(key, tuple):
            substrings = set(key[1])
            for sub, positions in self._by_substring:
                if sub in substrings:
                    found |= positions
        candidates: list[int] = []
        scanned: list[int] = []
        by_anchor: dict[bytes, list[int]] = {}
        for i in sorted(found):
            ways = self._ways[i]
            # Only the ways whose tokens are all in the line can match.
            starts = {anchor for anchor, tokens in ways if tokens <= hits}
            if ways and not starts:
                continue
            candidates.append(i)
            if not ways or None in starts:
                scanned.append(i)  # a way that can match here has no known start
                continue
            # Every way that can match here starts at a known token (even when others,
            # which cannot, have none): trying there finds every match.
            for anchor in starts:
                if anchor is not None:
                    by_anchor.setdefault(anchor, []).append(i)
        tries = sorted(
            _Try(rules[0], anchor if anchor == _LINE_STARTS else b" " + anchor + b" ", tuple(rules))
            for anchor, rules in by_anchor.items()
        )
        return _Plan(candidates=tuple(candidates), scanned=tuple(scanned), tries=tuple(tries))

    def _compile_rule(self, index: int) -> _re.Pattern[str]:
        """Rule ``index``'s own pattern, compiled on its first try (most rules never are)."""
        pattern = self._patterns[index] = _compiled_source(self.rules[index].pattern)
        return pattern

    def _compile(self, candidates: tuple[int, ...]) -> _re.Pattern[str]:
        # (not kept between runs: the searched sets of rules a log needs vary with it)
        source = "|".join(_alternative(i, self.rules[i].pattern) for i in candidates)
        return _re.compile(source, FLAGS)

    def _search(
        self, text: str, candidates: tuple[int, ...], budget: _Budget | None
    ) -> _re.Match[str] | None:
        # A chunk of the rules at a time, in table order: the first chunk with a match
        # holds the best rule. One search finds the leftmost match; a rule listed earlier
        # may still match further right, so search again with only those rules until
        # none does.
        for start in range(0, len(candidates), SEARCH_CHUNK):
            chunk = candidates[start : start + SEARCH_CHUNK]
            best: _re.Match[str] | None = None
            while chunk:
                pattern = self._pattern(chunk)
                found = pattern.search(text) if budget is None else budget.search(pattern, text)
                if found is None:
                    break
                best = found
                chunk = chunk[: chunk.index(self._rule_of[found.lastgroup or ""])]
            if best is not None:
                return best
        return None
