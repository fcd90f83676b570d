r"""A parser of the regular-expression syntax our rules use, into a typed tree.

The trigger analysis (``prefilter``) must know a rule's pattern as a tree: which
literals follow which, where the alternatives and repeats are. Neither the ``regex``
module, which compiles the rules, nor the standard library offers a public parse
tree (``re``'s is private, and reads a few things differently from ``regex``), so
this module reads the subset of the syntax the rules need, as ``regex`` reads it
under the rules' flags (``VERSION0``, ``IGNORECASE``, ``MULTILINE``):

- literal characters, ``.``, and the escapes ``\d \w \s \D \W \S``, ``\n \t \r \f
  \v \a \0``, ``\xhh``, ``\uhhhh``, ``\Uhhhhhhhh``, and escaped punctuation;
- character classes: characters, ranges, the category escapes, negation;
- the anchors ``^ $ \A \Z \b \B``;
- groups: capturing, named (``(?P<name>...)``, ``(?<name>...)``), non-capturing, atomic
  (``(?>...)``), with scoped flags ``i``, ``m``, ``s`` (``(?i:...)``, ``(?-i:...)``);
  look-arounds (``(?=``, ``(?!``, ``(?<=``, ``(?<!``); comments (``(?#...)``);
- alternation, and repeats (``* + ? {m} {m,} {,n} {m,n}``, lazy and possessive).

Anything else raises :class:`UnsupportedSyntaxError`, naming the construct and its
offset: backreferences, conditionals, ``\p{...}``, ``\N{...}``, POSIX classes,
fuzzy constraints, recursion, inline (global) flags and the flags outside the three
above. The analysis then treats the rule as "always try it": slower, never wrong. A
pattern ``regex`` would refuse may still parse here; the rules are compiled (and so
checked) before they are analysed.

One pass, linear in the pattern's length; groups nest at most
:data:`~llm_errors._match.bounds.NESTING_LIMIT` deep, which bounds the recursion.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass
from typing import Final, TypeAlias

from llm_errors._match.bounds import NESTING_LIMIT

__all__ = [
    "COUNT_LIMIT",
    "NESTING_LIMIT",
    "Alternation",
    "Anchor",
    "AnchorKind",
    "AnyChar",
    "Category",
    "CategoryKind",
    "Char",
    "CharClass",
    "ClassMember",
    "Flag",
    "GroupKind",
    "LookAround",
    "Node",
    "PatternGroup",
    "PatternRepeat",
    "Range",
    "RepeatMode",
    "Sequence",
    "UnsupportedSyntaxError",
    "parse",
]

#: The largest count a repeat may give (``{m,n}``): ``regex`` and ``re`` refuse more.
COUNT_LIMIT: Final = 0xFFFF_FFFE
_COUNT_DIGITS: Final = len(str(COUNT_LIMIT))


class UnsupportedSyntaxError(ValueError):
    """A construct outside the subset this parser reads, or a malformed pattern.

    Attributes:
        construct: What was found (``backreference``, ``fuzzy constraint``, ...).
        offset: Where it starts in the pattern.
    """

    def __init__(self, construct: str, *, offset: int) -> None:
        super().__init__(f"{construct} at offset {offset}")
        self.construct = construct
        self.offset = offset


class CategoryKind(enum.StrEnum):
    """A category escape, by its letter."""

    DIGIT = "d"
    NOT_DIGIT = "D"
    WORD = "w"
    NOT_WORD = "W"
    SPACE = "s"
    NOT_SPACE = "S"


class AnchorKind(enum.StrEnum):
    r"""A zero-width assertion written as one token.

    ``^`` and ``$`` are line edges under ``MULTILINE`` (how the rules are compiled),
    string edges inside ``(?-m:...)``.
    """

    START = "^"
    END = "$"
    STRING_START = r"\A"
    STRING_END = r"\Z"
    BOUNDARY = r"\b"
    NOT_BOUNDARY = r"\B"


class GroupKind(enum.Enum):
    """What a group does besides grouping."""

    CAPTURING = enum.auto()
    NON_CAPTURING = enum.auto()
    ATOMIC = enum.auto()


class Flag(enum.StrEnum):
    """The flags a group may turn on or off for its body."""

    IGNORECASE = "i"
    MULTILINE = "m"
    DOTALL = "s"


class RepeatMode(enum.Enum):
    """How a repeat gives back what it matched."""

    GREEDY = enum.auto()
    LAZY = enum.auto()
    POSSESSIVE = enum.auto()


@dataclass(frozen=True, slots=True)
class Char:
    """One literal character (as written: case is the matcher's business)."""

    char: str


@dataclass(frozen=True, slots=True)
class AnyChar:
    """``.``: any character but a newline (any at all under ``(?s:...)``)."""


@dataclass(frozen=True, slots=True)
class Category:
    r"""A category escape (``\d``, ``\W``, ...), alone or in a class."""

    kind: CategoryKind


@dataclass(frozen=True, slots=True)
class Range:
    """A range of characters in a class, both ends included (``low <= high``)."""

    low: str
    high: str


@dataclass(frozen=True, slots=True)
class CharClass:
    """``[...]``: its members in the order written, and whether it is negated."""

    members: tuple[ClassMember, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Anchor:
    r"""A zero-width assertion written as one token (``^``, ``\b``, ...)."""

    kind: AnchorKind


@dataclass(frozen=True, slots=True)
class PatternGroup:
    """A parenthesised group: its body, kind, name and the flags it scopes."""

    body: Node
    kind: GroupKind = GroupKind.CAPTURING
    name: str | None = None
    flags_on: frozenset[Flag] = frozenset()
    flags_off: frozenset[Flag] = frozenset()


@dataclass(frozen=True, slots=True)
class LookAround:
    """A look-ahead or look-behind, positive or negative: it consumes nothing."""

    body: Node
    behind: bool = False
    negated: bool = False


@dataclass(frozen=True, slots=True)
class PatternRepeat:
    """A repeated element; ``high`` is ``None`` when unbounded."""

    body: Node
    low: int
    high: int | None
    mode: RepeatMode = RepeatMode.GREEDY


@dataclass(frozen=True, slots=True)
class Sequence:
    """Elements one after another (none: the empty pattern); never exactly one."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Alternation:
    """Two or more alternatives."""

    alternatives: tuple[Node, ...]


#: A member of a character class.
ClassMember: TypeAlias = Char | Range | Category
#: A node of the tree.
Node: TypeAlias = (
    Char
    | AnyChar
    | Category
    | CharClass
    | Anchor
    | PatternGroup
    | LookAround
    | PatternRepeat
    | Sequence
    | Alternation
)

_CHARACTER_ESCAPES: Final = {
    "a": "\a",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_ANCHOR_ESCAPES: Final = {
    "A": AnchorKind.STRING_START,
    "Z": AnchorKind.STRING_END,
    "b": AnchorKind.BOUNDARY,
    "B": AnchorKind.NOT_BOUNDARY,
}
_HEX_ESCAPES: Final = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS: Final = frozenset("0123456789abcdefABCDEF")
_OCTAL_DIGITS: Final = frozenset("01234567")
_DIGITS: Final = frozenset("0123456789")
_ASCII_LETTERS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
#: Escapes ``regex`` gives a meaning this parser does not read, by letter.
_UNKNOWN_ESCAPES: Final = {
    "p": "Unicode property",
    "P": "Unicode property",
    "N": "named character",
    "m": "word-start anchor",
    "M": "word-end anchor",
    "G": "search anchor",
    "K": "keep-out",
    "X": "grapheme cluster",
    "L": "named list",
    "R": "line ending",
    "h": "blank class",
    "z": "string-end anchor",
    "g": "group reference",
}
_QUANTIFIERS: Final[dict[str, tuple[int, int | None]]] = {
    "*": (0, None),
    "+": (1, None),
    "?": (0, 1),
}
_CATEGORY_LETTERS: Final = frozenset(kind.value for kind in CategoryKind)
_FLAGS: Final = {flag.value: flag for flag in Flag}
_ALL_FLAG_LETTERS: Final = frozenset("abefiLmprsuwxV")


def parse(pattern: str) -> Node:
    """The tree of ``pattern``, or :class:`UnsupportedSyntaxError` naming what it cannot read."""
    parser = _PatternParser(pattern)
    node = parser.alternation(0)
    if parser.at < len(pattern):  # the only way out of the top level early: a stray ")"
        raise UnsupportedSyntaxError("unbalanced parenthesis", offset=parser.at)
    return node


class _PatternParser:
    """Recursive descent over the pattern, one character of lookahead at a time."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0

    def peek(self, ahead: int = 0) -> str:
        at = self.at + ahead
        return self.text[at] if at < len(self.text) else ""

    def alternation(self, depth: int) -> Node:
        alternatives = [self.sequence(depth)]
        while self.peek() == "|":
            self.at += 1
            alternatives.append(self.sequence(depth))
        if len(alternatives) == 1:
            return alternatives[0]
        return Alternation(tuple(alternatives))

    def sequence(self, depth: int) -> Node:
        items: list[Node] = []
        while (char := self.peek()) and char not in "|)":
            counts = self.counts() if char == "{" else _QUANTIFIERS.get(char)
            if counts is not None:
                self.repeat(items, counts)
                continue
            item = self.atom(depth)
            if item is not None:
                items.append(item)
        if len(items) == 1:
            return items[0]
        return Sequence(tuple(items))

    def counts(self) -> tuple[int, int | None] | None:
        """The counts of a ``{m,n}`` quantifier here, or ``None`` if ``{`` is literal."""
        start = self.at
        at = start + 1
        low_end = self.digits(at)
        low_text, at = self.text[at:low_end], low_end
        comma = self.text.startswith(",", at)
        if comma:
            high_end = self.digits(at + 1)
            high_text, at = self.text[at + 1 : high_end], high_end
        else:
            high_text = low_text
        if not self.text.startswith("}", at) or not (low_text or comma):
            if self.fuzzy(start):
                raise UnsupportedSyntaxError("fuzzy constraint", offset=start)
            return None  # a literal "{", as ``regex`` reads it
        if len(low_text) > _COUNT_DIGITS or len(high_text) > _COUNT_DIGITS:
            raise UnsupportedSyntaxError("repeat count over the limit", offset=start)
        low = int(low_text or "0")
        high = int(high_text) if high_text else None
        if low > COUNT_LIMIT or (high is not None and high > COUNT_LIMIT):
            raise UnsupportedSyntaxError("repeat count over the limit", offset=start)
        if high is not None and low > high:
            raise UnsupportedSyntaxError("repeat with its minimum over its maximum", offset=start)
        return low, high

    def fuzzy(self, start: int) -> bool:
        """Whether ``regex`` may read the ``{`` at ``start`` as a fuzzy constraint.

        ``regex`` reads ``{`` as a literal unless what follows starts a constraint
        (``{e<=1}``, ``{1<=e<=2}``, ``{2i+1d<=3}``): one of ``deis``, or digits then
        ``<`` or one of ``dis``. Anything that may start one is refused, even where
        ``regex`` would give up and take the ``{`` literally.
        """
        end = self.digits(start + 1)
        following = self.text[end : end + 1]
        if end == start + 1:
            return bool(following) and following in "deis"
        return bool(following) and following in "<dis"

    def digits(self, at: int) -> int:
        while at < len(self.text) and self.text[at] in _DIGITS:
            at += 1
        return at

    def repeat(self, items: list[Node], counts: tuple[int, int | None]) -> None:
        """Apply the quantifier here (whose counts are read) to the last item read."""
        start = self.at
        self.at = self.text.index("}", start) + 1 if self.peek() == "{" else start + 1
        if not items:
            raise UnsupportedSyntaxError("nothing to repeat", offset=start)
        if isinstance(items[-1], PatternRepeat):
            raise UnsupportedSyntaxError("multiple repeat", offset=start)
        if isinstance(items[-1], Anchor):
            raise UnsupportedSyntaxError("repeated anchor", offset=start)
        mode = RepeatMode.GREEDY
        if self.peek() == "?":
            mode = RepeatMode.LAZY
            self.at += 1
        elif self.peek() == "+":
            mode = RepeatMode.POSSESSIVE
            self.at += 1
        items[-1] = PatternRepeat(items[-1], *counts, mode)

    def atom(self, depth: int) -> Node | None:
        """The element here, or ``None`` for a comment."""
        char = self.text[self.at]
        if char == "(":
            return self.group(depth + 1)
        if char == "[":
            return self.char_class()
        if char == "\\":
            return self.escape()
        self.at += 1
        if char == ".":
            return AnyChar()
        if char == "^":
            return Anchor(AnchorKind.START)
        if char == "$":
            return Anchor(AnchorKind.END)
        return Char(char)

    def group(self, depth: int) -> Node | None:
        start = self.at
        if depth > NESTING_LIMIT:
            raise UnsupportedSyntaxError(
                f"groups nested over the limit of {NESTING_LIMIT}", offset=start
            )
        self.at += 1
        if self.peek() == "*" and self.peek(1).isalpha():
            raise UnsupportedSyntaxError("backtracking verb", offset=start)
        if self.peek() != "?":
            return PatternGroup(self.body(depth, start))
        self.at += 1
        char = self.peek()
        self.at += 1
        if char == ":":
            return PatternGroup(self.body(depth, start), GroupKind.NON_CAPTURING)
        if char == ">":
            return PatternGroup(self.body(depth, start), GroupKind.ATOMIC)
        if char in ("=", "!"):
            return LookAround(self.body(depth, start), negated=char == "!")
        if char == "<" and self.peek() in ("=", "!"):
            negated = self.peek() == "!"
            self.at += 1
            return LookAround(self.body(depth, start), behind=True, negated=negated)
        if char == "<" or (char == "P" and self.peek() == "<"):  # regex reads both alike
            self.at += char == "P"
            name = self.name(start)
            return PatternGroup(self.body(depth, start), name=name)
        if char == "#":
            self.comment(start)
            return None
        if char in ("+", "-") and self.peek() in _DIGITS:
            raise UnsupportedSyntaxError("group call", offset=start)
        if char in _ALL_FLAG_LETTERS or char == "-":
            self.at -= 1
            flags_on, flags_off = self.flags(start)
            return PatternGroup(
                self.body(depth, start),
                GroupKind.NON_CAPTURING,
                flags_on=flags_on,
                flags_off=flags_off,
            )
        raise UnsupportedSyntaxError(_extension(char, self.peek()), offset=start)

    def body(self, depth: int, start: int) -> Node:
        node = self.alternation(depth)
        if self.peek() != ")":
            raise UnsupportedSyntaxError("unterminated group", offset=start)
        self.at += 1
        return node

    def name(self, start: int) -> str:
        end = self.at
        while end < len(self.text) and self.text[end] not in ")>":
            end += 1
        name = self.text[self.at : end]
        if not self.text.startswith(">", end) or not name.isidentifier():
            raise UnsupportedSyntaxError("bad group name", offset=start)
        self.at = end + 1
        return name

    def comment(self, start: int) -> None:
        """Skip ``(?#...)``: like ``regex`` and ``re``, a backslash hides the next character."""
        while (char := self.peek()) and char != ")":
            self.at += 2 if char == "\\" else 1
        if not self.peek():
            raise UnsupportedSyntaxError("unterminated comment", offset=start)
        self.at += 1

    def flags(self, start: int) -> tuple[frozenset[Flag], frozenset[Flag]]:
        """The flags of ``(?on-off:``, up to and past the colon."""
        flags_on = self.flag_letters(start)
        flags_off: frozenset[Flag] = frozenset()
        if self.peek() == "-":
            self.at += 1
            flags_off = self.flag_letters(start)
            if not flags_off:
                raise UnsupportedSyntaxError("no flags after '-'", offset=start)
        if self.peek() == ")":
            raise UnsupportedSyntaxError("inline flags", offset=start)
        if self.peek() != ":":
            raise UnsupportedSyntaxError("bad inline flags", offset=start)
        if flags_on & flags_off:
            raise UnsupportedSyntaxError("flag turned on and off", offset=start)
        self.at += 1
        return flags_on, flags_off

    def flag_letters(self, start: int) -> frozenset[Flag]:
        flags: set[Flag] = set()
        while (char := self.peek()) in _ALL_FLAG_LETTERS and char:
            if char not in _FLAGS:
                raise UnsupportedSyntaxError(f"flag {char!r}", offset=start)
            flags.add(_FLAGS[char])
            self.at += 1
        return frozenset(flags)

    def char_class(self) -> CharClass:
        start = self.at
        self.at += 1
        negated = self.peek() == "^"
        if negated:
            self.at += 1
        members: list[ClassMember] = []
        first = True
        while first or self.peek() != "]":
            if not self.peek():
                raise UnsupportedSyntaxError("unterminated character class", offset=start)
            members.extend(self.class_member())
            first = False
        self.at += 1
        return CharClass(tuple(members), negated)

    def class_member(self) -> tuple[ClassMember, ...]:
        """A member here, or (``x-`` before ``]``) a character and a literal hyphen."""
        start = self.at
        low = self.class_item()
        if self.peek() != "-" or isinstance(low, Category):
            if isinstance(low, Category) and self.peek() == "-" and self.peek(1) != "]":
                raise UnsupportedSyntaxError("range from a class escape", offset=start)
            return (low,)
        if self.peek(1) == "]":
            self.at += 1
            return (low, Char("-"))
        self.at += 1
        if not self.peek():
            raise UnsupportedSyntaxError("unterminated character class", offset=start)
        high = self.class_item()
        if isinstance(high, Category):
            raise UnsupportedSyntaxError("range to a class escape", offset=start)
        if high.char < low.char:
            raise UnsupportedSyntaxError("bad character range", offset=start)
        return (Range(low.char, high.char),)

    def class_item(self) -> Char | Category:
        char = self.text[self.at]
        if char == "\\":
            if self.peek(1) == "b":
                self.at += 2
                return Char("\b")  # backspace, in a class
            return self.common_escape()
        if char == "[" and self.peek(1) == ":":
            raise UnsupportedSyntaxError("POSIX character class", offset=self.at)
        self.at += 1
        return Char(char)

    def escape(self) -> Char | Category | Anchor:
        """An escape outside a class: an anchor or what :meth:`common_escape` reads."""
        anchor = _ANCHOR_ESCAPES.get(self.peek(1))
        if anchor is not None:
            self.at += 2
            return Anchor(anchor)
        return self.common_escape()

    def common_escape(self) -> Char | Category:
        """An escape that means the same in a class and out of one."""
        start = self.at
        self.at += 1
        char = self.peek()
        self.at += 1
        if not char:
            raise UnsupportedSyntaxError("escape at the end of the pattern", offset=start)
        if char in _CATEGORY_LETTERS:
            return Category(CategoryKind(char))
        if char in _CHARACTER_ESCAPES:
            return Char(_CHARACTER_ESCAPES[char])
        if char in _HEX_ESCAPES:
            return self.hex_escape(start, _HEX_ESCAPES[char])
        if char == "0":
            end = self.at
            while end < min(self.at + 2, len(self.text)) and self.text[end] in _OCTAL_DIGITS:
                end += 1
            code = int(self.text[self.at - 1 : end], 8)
            self.at = end
            return Char(chr(code))
        if char in _DIGITS:
            raise UnsupportedSyntaxError("backreference or octal escape", offset=start)
        if char in _ASCII_LETTERS:
            construct = _UNKNOWN_ESCAPES.get(char, f"escape \\{char}")
            raise UnsupportedSyntaxError(construct, offset=start)
        return Char(char)

    def hex_escape(self, start: int, length: int) -> Char:
        digits = self.text[self.at : self.at + length]
        if len(digits) != length or not all(d in _HEX_DIGITS for d in digits):
            raise UnsupportedSyntaxError("incomplete hexadecimal escape", offset=start)
        code = int(digits, 16)
        if code > sys.maxunicode:
            raise UnsupportedSyntaxError("escape beyond Unicode", offset=start)
        self.at += length
        return Char(chr(code))


def _extension(char: str, following: str) -> str:
    """The name of the ``(?...`` extension that ``char`` (and ``following``) starts."""
    if char == "P":
        return {"=": "named backreference", ">": "group call", "&": "group call"}.get(
            following, "unknown extension (?P"
        )
    names = {
        "(": "conditional",
        "|": "branch reset",
        "R": "recursion",
        "&": "group call",
        "": "unterminated group",
    }
    if char in names:
        return names[char]
    if char in _DIGITS:
        return "group call"
    return f"unknown extension (?{char}"
