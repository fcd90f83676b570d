r"""How big a pattern grows once compiled, and whether it can backtrack exponentially.

Both are read from the pattern's text before it is compiled, in one pass linear in
its length.

**Size and nesting.** The ``regex`` module unrolls counted repeats:
``w(?:zq{1000}){1000}x``, 20 characters, takes about 280 MB and most of a second to
compile, and ``w(?:zq{60000}){60000}x`` exhausts memory; groups nested a few thousand
deep overflow its parser's recursion. A rule's pattern (a user's above all) is
therefore measured first: its size with every counted repeat multiplied out, and how
deep its groups nest, each against a limit.

**Backtracking.** A backtracking engine takes exponential time to *fail* on a text
when a repeat can split the same characters between its iterations in many ways:
``\bfoo (a|aa)+$`` runs for hours on ``foo`` and 48 ``a`` followed by ``!``. Two
classic shapes are refused, a repeated group (``+``, ``*``, ``{n,}``, or ``{m,n}``
with ``n`` over :data:`SMALL_REPEAT`) that

- holds an unbounded repeat itself (nested quantifiers: ``(a+)+``, ``(\w+\s?)*``,
  ``(?:x*y?)+``), or
- has alternatives that can start with the same character (``(a|aa)+``,
  ``(?:ab|a)*``); alternatives count as overlapping unless their first characters
  are provably different (two different literals, a literal outside a class, or
  classes such as ``\s`` and ``\w``).

A possessive repeat (``a++``, ``(...)*+``) or an atomic group (``(?>...)``) never
gives back what it matched, so neither shape applies to it. The check is
conservative, not complete: other patterns can still backtrack badly, which is why
the matcher also bounds the time users' patterns may take on a text
(``matcher.MATCH_TIMEOUT``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Final, TypeAlias

import regex as _re

__all__ = [
    "NESTING_LIMIT",
    "SIZE_LIMIT",
    "SMALL_REPEAT",
    "backtracking_problem",
    "bounds_problem",
    "pattern_bounds",
]

#: Characters of a pattern once its counted repeats are multiplied out (the largest
#: built-in rule is under 5,000; 100,000 compiles in about 40 MB).
SIZE_LIMIT: Final = 100_000
#: Groups nested in one pattern (built-in rules nest at most 4).
NESTING_LIMIT: Final = 50
#: A repeat of at most this many times is small: the backtracking check lets a group
#: be repeated so (the built-in rules repeat a group at most 3 times,
#: ``(?:\w+\s+){0,3}``); a larger count is as good as unbounded.
SMALL_REPEAT: Final = 10

_QUANTIFIER: Final = re.compile(r"\{(\d*)(?:,(\d*))?\}")
#: What follows ``(``: a comment, a lookaround, an atomic group, scoped or inline flags,
#: a named group or a conditional's condition (names bounded, so each try is short).
_GROUP_HEAD: Final = re.compile(
    r"\?(?:(?P<comment>#[^)]*\)?)|(?P<look><?[=!])|(?P<atomic>>)"
    r"|(?P<flags>[a-zA-Z]*(?:-[a-zA-Z]*)?)(?P<end>[:)])"
    r"|P?<[^<>=!]{0,100}>|'[^']{0,100}'|\([^()]{0,100}\)|\|)?"
)
#: After ``\``, escapes longer than one character: ``\x41``, ``\u00e9``, ``\p{L}``, ``\0``.
_LONG_ESCAPE: Final = re.compile(
    r"[pPN]\{[^}]{0,100}\}|[pP][A-Za-z]|x\{[0-9a-fA-F]{1,8}\}|x[0-9a-fA-F]{2}"
    r"|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|g<[^>]{0,100}>|[0-7]{1,3}"
)
#: Escapes that consume nothing.
_ZERO_WIDTH_ESCAPES: Final = frozenset("bBAZmMG")
#: Escapes that stand for one known character.
_CHARACTER_ESCAPES: Final = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
#: The category escapes whose pairs are disjoint (a space is no word character).
_CATEGORIES: Final = frozenset({r"\d", r"\D", r"\s", r"\S", r"\w", r"\W"})
_DISJOINT: Final = frozenset(
    frozenset(pair)
    for pair in (
        (r"\s", r"\S"),
        (r"\s", r"\w"),
        (r"\s", r"\d"),
        (r"\d", r"\D"),
        (r"\d", r"\W"),
        (r"\w", r"\W"),
    )
)
#: How rules are compiled (``matcher.FLAGS``, which imports this module): a class is
#: tested against a literal case-insensitively, which can only find more overlaps.
_FLAGS: Final = _re.IGNORECASE | _re.VERSION0

#: A first character: ``("literal", the character)`` or ``("class", its text)``.
_Atom: TypeAlias = tuple[str, str]
#: Classes that start a repeated group's alternatives compared at most (more overlap).
_CLASSES_COMPARED: Final = 8
#: First characters kept per alternative or group (more are as good as unknown): the
#: sets are copied up through nested groups, which must stay linear.
_FIRSTS_KEPT: Final = 64
#: Digits of a repeat count converted (``int`` refuses over 4,300).
_COUNT_DIGITS: Final = 18


@dataclass(slots=True)
class _Element:
    """One thing a quantifier can repeat: an atom, a class, an escape or a group."""

    size: int
    #: What its matches can start with; ``None`` when unknown (anything).
    first: frozenset[_Atom] | None
    #: Whether it can match an empty text (its successor's first characters then count).
    nullable: bool = False
    #: Whether it holds a repeat that can give back what it matched, of unbounded count.
    unbounded: bool = False
    #: A group's alternatives' first characters (when it has two or more).
    alternatives: tuple[frozenset[_Atom] | None, ...] = ()
    #: Where it starts in the pattern (for messages).
    at: int = 0


@dataclass(slots=True)
class _Group:
    """A group being read: its finished alternatives and the one being read."""

    at: int
    atomic: bool = False
    lookaround: bool = False
    verbose: bool = False
    size: int = 0
    unbounded: bool = False
    alternatives: list[frozenset[_Atom] | None] = field(default_factory=list)
    #: The first characters of the alternative being read, while all before were nullable.
    first: set[_Atom] | None = field(default_factory=set)
    open: bool = True
    nullable_alternative: bool = False
    pending: _Element | None = None

    def flush(self) -> None:
        """Add the element just read (and maybe repeated) to the alternative being read."""
        element, self.pending = self.pending, None
        if element is None:
            return
        self.size += element.size
        self.unbounded = self.unbounded or element.unbounded
        if not self.open:
            return
        if element.first is None or self.first is None:
            self.first = None
        else:
            self.first |= element.first
            if len(self.first) > _FIRSTS_KEPT:
                self.first = None
        self.open = element.nullable

    def end_alternative(self) -> None:
        self.flush()
        # An alternative that can match nothing overlaps every other one.
        self.alternatives.append(None if self.open or self.first is None else frozenset(self.first))
        self.nullable_alternative = self.nullable_alternative or self.open
        self.first, self.open = set(), True

    def close(self) -> _Element:
        self.end_alternative()
        if self.lookaround:  # consumes nothing: the characters after it come first
            first: frozenset[_Atom] | None = frozenset()
        elif any(alternative is None for alternative in self.alternatives):
            first = None
        else:
            first = frozenset().union(*(a for a in self.alternatives if a is not None))
            if len(first) > _FIRSTS_KEPT:
                first = None
        return _Element(
            self.size,
            first,
            nullable=self.lookaround or self.nullable_alternative,
            unbounded=self.unbounded and not self.atomic,
            # (an atomic group's iteration keeps the alternative it chose)
            alternatives=tuple(self.alternatives)
            if len(self.alternatives) > 1 and not self.atomic
            else (),
            at=self.at,
        )


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class opening at ``start``."""
    at = start + 1
    if pattern.startswith("^", at):
        at += 1
    if pattern.startswith("]", at):  # a ``]`` first in a class is literal
        at += 1
    while at < len(pattern) and pattern[at] != "]":
        at += 2 if pattern[at] == "\\" else 1
    return at + 1


def _escape(pattern: str, at: int) -> tuple[int, _Element]:
    """The index after the escape at ``at`` (a backslash), and what it matches."""
    char = pattern[at + 1 : at + 2]
    if (long := _LONG_ESCAPE.match(pattern, at + 1)) is not None:
        return long.end(), _Element(1, None)
    if char in _ZERO_WIDTH_ESCAPES:
        return at + 2, _Element(1, frozenset(), nullable=True)
    if char in _CHARACTER_ESCAPES:
        return at + 2, _Element(1, frozenset({("literal", _CHARACTER_ESCAPES[char])}))
    text = pattern[at : at + 2]
    if text in _CATEGORIES:
        return at + 2, _Element(1, frozenset({("class", text)}))
    if char.isalnum() or not char:
        return at + 2, _Element(1, None)
    return at + 2, _Element(1, frozenset({("literal", char)}))


def _fold(char: str) -> str:
    """One key for the characters IGNORECASE equates (``s``, long s); it may merge more."""
    folded = char.upper().lower()
    return folded if len(folded) == 1 else char.lower()[:1]


def _in_class(klass: str, char: str) -> bool:
    """Whether a class (``[a-z]``, a category escape) may match ``char``; ``True`` if unsure."""
    try:
        return _re.fullmatch(klass, char, _FLAGS) is not None
    except _re.error:
        return True


def _alternatives_overlap(alternatives: tuple[frozenset[_Atom] | None, ...]) -> bool:
    """Whether two of the alternatives can start with the same character.

    Linear in their number: a literal seen twice overlaps at once; classes (a few at
    most, or they count as overlapping) are compared with each other and with the
    literals of the other alternatives.
    """
    literals: dict[str, tuple[int, str]] = {}
    classes: dict[str, int] = {}
    for number, first in enumerate(alternatives):
        if not first:  # unknown (``None``), or it starts with nothing it consumes
            return True
        for kind, text in first:
            if kind == "literal":
                if literals.setdefault(_fold(text), (number, text))[0] != number:
                    return True
            elif classes.setdefault(text, number) != number or len(classes) > _CLASSES_COMPARED:
                return True
    named = list(classes.items())
    return any(
        owner != other and frozenset({klass, other_klass}) not in _DISJOINT
        for at, (klass, owner) in enumerate(named)
        for other_klass, other in named[at + 1 :]
    ) or any(
        owner != number and _in_class(klass, char)
        for klass, owner in named
        for number, char in literals.values()
    )


def _repeat(quantifier: str) -> tuple[int, float]:
    """The least and most times a quantifier (``*``, ``+``, ``?`` or ``{m,n}``) repeats."""
    if quantifier == "*":
        return 0, math.inf
    if quantifier == "+":
        return 1, math.inf
    if quantifier == "?":
        return 0, 1
    low, comma, high = quantifier[1:-1].partition(",")
    least = _count(low) if low else 0
    if not comma:
        return least, least
    return least, _count(high) if high else math.inf


def _count(digits: str) -> int:
    """A repeat count as written (one too long to convert is as good as endless)."""
    return int(digits) if len(digits) <= _COUNT_DIGITS else 10**_COUNT_DIGITS


_NESTED: Final = (
    "repeats the group at position {at}, which holds an unbounded repeat (the shape of "
    "'(a+)+'), so failing to match can take exponential time: make the inner repeat "
    "possessive ('a++') or the group atomic ('(?>...)'), or repeat the group at most "
    f"{SMALL_REPEAT} times"
)
_OVERLAPPING: Final = (
    "repeats the group at position {at}, whose alternatives can start with the same "
    "character (the shape of '(a|aa)+'), so failing to match can take exponential "
    "time: make the alternatives start with different characters, make the repeat "
    "possessive ('(...)++') or the group atomic ('(?>...)')"
)


class _PatternReader:
    """One pass over a pattern: its size, its nesting, its first backtracking shape."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.at = 0
        self.groups = [_Group(0)]
        self.depth = 0
        self.problem: str | None = None

    def read(self) -> int:
        """Read the whole pattern; its size."""
        pattern = self.pattern
        while self.at < len(pattern):
            group = self.groups[-1]
            char = pattern[self.at]
            quantifier = _QUANTIFIER.match(pattern, self.at) if char == "{" else None
            if group.verbose and (char.isspace() or char == "#"):
                self.skip_space(char)
            elif char == "(":
                self.open_group()
            elif char == ")" and len(self.groups) > 1:
                self.close_group()
            elif char == "|":
                group.end_alternative()
                self.at += 1
            elif char in "*+?" or (quantifier is not None and any(quantifier.groups())):
                self.repeat(pattern[self.at] if quantifier is None else quantifier.group())
            else:
                group.flush()
                group.pending = self.element(char)
        while len(self.groups) > 1:  # unbalanced: the compiler says so; count what was read
            self.close_group()
        self.groups[0].end_alternative()
        return self.groups[0].size

    def skip_space(self, char: str) -> None:
        """Skip whitespace, or a comment to the end of its line (verbose mode)."""
        if char == "#":
            newline = self.pattern.find("\n", self.at)
            self.at = len(self.pattern) if newline < 0 else newline
        self.at += 1

    def open_group(self) -> None:
        """Open the group at ``self.at`` (or skip a comment, or take inline flags)."""
        group = self.groups[-1]
        start = self.at
        head = _GROUP_HEAD.match(self.pattern, start + 1)
        self.at = start + 1 if head is None else head.end()
        kind, flags = "", None
        if head is not None:
            kind = "inline" if head.group("end") == ")" else head.lastgroup or ""
            flags = head.group("flags")
        if kind == "comment":
            return
        verbose = group.verbose if flags is None else _verbose(flags, inherited=group.verbose)
        if kind == "inline":  # inline flags such as ``(?x)``: not a group
            group.verbose = verbose
            return
        group.flush()
        self.groups.append(
            _Group(start, atomic=kind == "atomic", lookaround=kind == "look", verbose=verbose)
        )
        self.depth = max(self.depth, len(self.groups) - 1)

    def close_group(self) -> None:
        group = self.groups.pop()
        self.groups[-1].pending = group.close()
        self.at += 1

    def repeat(self, quantifier: str) -> None:
        """Repeat the element just read; note the backtracking shape this makes, if any."""
        self.at += len(quantifier)
        modifier = self.pattern[self.at : self.at + 1]
        if modifier in ("+", "?"):  # possessive, lazy
            self.at += 1
        element = self.groups[-1].pending
        if element is None:
            return  # nothing to repeat: the compiler says so
        problem = _repeated(element, _repeat(quantifier), possessive=modifier == "+")
        self.problem = self.problem or problem
        if quantifier.startswith("{"):  # ``X{m,n}`` counts ``X`` times the larger bound
            element.size *= max(_count(bound) for bound in quantifier[1:-1].split(",") if bound)

    def element(self, char: str) -> _Element:
        """The atom, class or escape at ``self.at``, read."""
        start = self.at
        self.at += 1
        if char == "\\":
            self.at, element = _escape(self.pattern, start)
            return element
        if char == "[":
            self.at = _class_end(self.pattern, start)
            return _Element(1, frozenset({("class", self.pattern[start : self.at])}))
        if char in "^$":
            return _Element(1, frozenset(), nullable=True)
        if char == ".":
            return _Element(1, None)
        return _Element(1, frozenset({("literal", char)}))


def _verbose(flags: str, *, inherited: bool = False) -> bool:
    """Whether scoped or inline ``flags`` (``x``, ``-x``, ``i-x``) leave verbose mode on."""
    on, _, off = flags.partition("-")
    if "x" in off:
        return False
    return inherited or "x" in on


def _repeated(element: _Element, repeat: tuple[int, float], *, possessive: bool) -> str | None:
    """Repeat ``element`` in place; the backtracking shape this makes, or ``None``."""
    least, most = repeat
    large = most > SMALL_REPEAT
    problem = None
    if large and not possessive:
        if element.unbounded:
            problem = _NESTED.format(at=element.at)
        elif element.alternatives and _alternatives_overlap(element.alternatives):
            problem = _OVERLAPPING.format(at=element.at)
    element.unbounded = not possessive and (large or element.unbounded)
    element.nullable = element.nullable or least == 0
    element.alternatives = ()
    return problem


def pattern_bounds(pattern: str) -> tuple[int, int]:
    """The pattern's size with counted repeats multiplied out, and its deepest nesting.

    An escape or a character class counts one; a group counts what it holds; ``X{m,n}``
    counts ``X`` times the larger bound. Linear in the pattern's length.
    """
    reader = _PatternReader(pattern)
    return reader.read(), reader.depth


def backtracking_problem(pattern: str) -> str | None:
    """Which repeated group of ``pattern`` can backtrack exponentially, and the fix; or ``None``."""
    reader = _PatternReader(pattern)
    reader.read()
    return reader.problem


def bounds_problem(pattern: str) -> str | None:
    """Why the pattern is too big or too deep to compile safely, or may backtrack; or ``None``.

    The reason names the figure and the limit, or the repeated group, its shape and fixes.
    """
    reader = _PatternReader(pattern)
    size = reader.read()
    if reader.depth > NESTING_LIMIT:
        return f"nests groups {reader.depth} deep, over the limit of {NESTING_LIMIT}"
    if size > SIZE_LIMIT:
        return (
            f"is about {size:,} characters once its counted repeats are multiplied out "
            f"(a repeat inside a repeat multiplies), over the limit of {SIZE_LIMIT:,}"
        )
    return reader.problem
