r"""Read a pattern's look-behinds forward, for a filter that has none (pure).

A block filter runs each rule as a Hyperscan expression, which has no look-behind:
prefilter mode drops it, so ``\b(?:500|503)\b(?<=\bstatus\W{1,3}\d{3})`` finds every
line with a ``503`` in it (``queue_depth=503``). Yet such a look-behind can be read
forward. When a line matches ``P R (?<=B E) T``, where ``R`` (the items right before
the look-behind) and ``E`` (the last items of its body) have one and the same fixed
width, ``R`` ends where the look-behind is tried, so ``E`` matched ``R``'s text and
``B`` what comes before it: the same line matches ``B R T``, at the same positions.
:func:`forwarded` rewrites a pattern so wherever it can (``P`` is dropped, which only
widens it); the result matches at least every line the pattern matches, for a filter,
never for a verdict (its spans, groups and laziness are not the pattern's).

This holds where the match starts: at the top of the pattern, in each of its
alternatives and in a group that starts it. A look-behind at the start of an
alternative of the group after ``R`` (``R(?:(?<=B E)T|U)``) is brought there by
distributing ``R`` over the group's alternatives. Atomic groups and possessive or
lazy repeats are written as plain ones, which only widens.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Final

from llm_errors._match.syntax import (
    Alternation,
    Anchor,
    AnyChar,
    Category,
    Char,
    CharClass,
    ClassMember,
    LookAround,
    Node,
    PatternGroup,
    PatternRepeat,
    Range,
    Sequence,
    UnsupportedSyntaxError,
    parse,
)

__all__ = ["forwarded"]

_SPECIAL: Final = frozenset("\\.^$*+?{}[]|()")
_CLASS_SPECIAL: Final = frozenset("\\]^-[")
_ESCAPES: Final = {"\t": r"\t", "\n": r"\n", "\r": r"\r", "\f": r"\f", "\v": r"\v"}


def forwarded(pattern: str) -> str | None:
    """``pattern`` with its look-behinds read forward (module doc); ``None``: none can be.

    ``None`` also for a pattern outside the syntax :mod:`~llm_errors._match.syntax` reads.
    """
    if "(?<=" not in pattern:
        return None  # (most patterns: not worth a parse)
    try:
        tree = parse(pattern)
    except UnsupportedSyntaxError:
        return None
    rewritten = _forward(tree)
    return None if rewritten == tree else _print(rewritten)


# ---------------------------------------------------------------------- rewriting
def _forward(node: Node) -> Node:
    """``node``, which starts where a match starts, with its look-behinds read forward.

    Only there may the items before a run be dropped: a look-behind read forward in a
    group further on would need what comes before the group dropped too.
    """
    if isinstance(node, Sequence):
        return _forward_items(list(node.items), spread=True)[0]
    if isinstance(node, Alternation):
        return Alternation(tuple(_forward(alternative) for alternative in node.alternatives))
    if isinstance(node, PatternGroup):
        return dataclasses.replace(node, body=_forward(node.body))
    return node


def _forward_items(items: list[Node], *, spread: bool) -> tuple[Node, bool]:
    """A sequence's items with each look-behind that can be read forward so read.

    With ``spread``, the sequence may be distributed over the alternatives of one of
    its groups (once: the alternatives' sequences are not spread again, which bounds
    the size to the group's alternatives times the sequence).
    """
    moved = False
    while (read := _read_forward(items)) is not None:
        items, moved = read, True
    for at in range(len(items) if spread else 0):
        alternatives = _alternatives_after_a_run(items, at)
        if alternatives is None:
            continue
        outcomes = [
            _forward_items([*items[:at], *_items_of(one), *items[at + 1 :]], spread=False)
            for one in alternatives
        ]
        if any(read for _, read in outcomes):
            return Alternation(tuple(node for node, _ in outcomes)), True
    return _seq(items), moved


def _read_forward(items: list[Node]) -> list[Node] | None:
    """``items`` with their first look-behind that can be read forward so read, if any."""
    for at, item in enumerate(items):
        if not (isinstance(item, LookAround) and item.behind and not item.negated):
            continue
        body = _items_of(item.body)
        for width, body_cut in _fixed_tails(body):
            start = _run_start(items, at, width)
            if start is not None:
                return [*body[:body_cut], *items[start:at], *items[at + 1 :]]
    return None


def _alternatives_after_a_run(items: list[Node], at: int) -> tuple[Node, ...] | None:
    """The alternatives of ``items[at]`` if it is a plain group one of whose starts looks behind."""
    group = items[at]
    if not (
        isinstance(group, PatternGroup)
        and not group.flags_on
        and not group.flags_off
        and isinstance(group.body, Alternation)
    ):
        return None
    for alternative in group.body.alternatives:
        for item in _items_of(alternative):
            if isinstance(item, LookAround) and item.behind and not item.negated:
                return group.body.alternatives
            if _width(item) != 0:
                break
    return None


def _fixed_tails(body: list[Node]) -> Iterator[tuple[int, int]]:
    """``(width, cut)``: ``body[cut:]`` has that fixed width, smallest positive first.

    Zero-width items at a tail's start are left before the cut (they hold where they did).
    """
    width = 0
    for cut in range(len(body) - 1, -1, -1):
        item_width = _width(body[cut])
        if item_width is None:
            return
        if item_width:
            width += item_width
            yield width, cut


def _run_start(items: list[Node], at: int, width: int) -> int | None:
    """Where the items of ``width`` right before ``items[at]`` start (and zero-width ones)."""
    total = 0
    start = at
    while total < width:
        start -= 1
        if start < 0:
            return None
        item_width = _width(items[start])
        if item_width is None:
            return None
        total += item_width
    if total != width:
        return None
    while start > 0 and _width(items[start - 1]) == 0:
        start -= 1
    return start


def _width(node: Node) -> int | None:
    """How many characters ``node`` always matches (``None``: it varies)."""
    if isinstance(node, Char | AnyChar | Category | CharClass):
        return 1
    if isinstance(node, Anchor | LookAround):
        return 0
    if isinstance(node, PatternGroup):
        return _width(node.body)
    if isinstance(node, PatternRepeat):
        body = _width(node.body)
        if body == 0:
            return 0
        return None if body is None or node.high != node.low else body * node.low
    if isinstance(node, Sequence):
        total = 0
        for item in node.items:
            item_width = _width(item)
            if item_width is None:
                return None
            total += item_width
        return total
    widths = {_width(alternative) for alternative in node.alternatives}
    return widths.pop() if len(widths) == 1 else None


def _items_of(node: Node) -> list[Node]:
    return list(node.items) if isinstance(node, Sequence) else [node]


def _seq(items: list[Node]) -> Node:
    return items[0] if len(items) == 1 else Sequence(tuple(items))


# ---------------------------------------------------------------------- printing
def _print(node: Node) -> str:
    """``node`` as ``regex`` syntax (groups non-capturing, repeats greedy)."""
    if isinstance(node, Char):
        return _char(node.char, _SPECIAL)
    if isinstance(node, AnyChar):
        return "."
    if isinstance(node, Category):
        return "\\" + node.kind.value
    if isinstance(node, CharClass):
        members = "".join(_member(member) for member in node.members)
        return ("[^" if node.negated else "[") + members + "]"
    if isinstance(node, Anchor):
        return node.kind.value
    if isinstance(node, PatternGroup):
        flags = "".join(sorted(node.flags_on))
        if node.flags_off:
            flags += "-" + "".join(sorted(node.flags_off))
        return f"(?{flags}:{_print(node.body)})"
    if isinstance(node, LookAround):
        kind = ("<" if node.behind else "") + ("!" if node.negated else "=")
        return f"(?{kind}{_print(node.body)})"
    if isinstance(node, PatternRepeat):
        high = "" if node.high is None else str(node.high)
        counts = f"{{{node.low}}}" if node.high == node.low else f"{{{node.low},{high}}}"
        return _atom(node.body) + counts
    if isinstance(node, Sequence):
        return "".join(
            f"(?:{_print(item)})" if isinstance(item, Alternation) else _print(item)
            for item in node.items
        )
    return "|".join(_print(alternative) for alternative in node.alternatives)


def _atom(node: Node) -> str:
    printed = _print(node)
    return f"(?:{printed})" if isinstance(node, Sequence | Alternation) else printed


def _member(member: ClassMember) -> str:
    if isinstance(member, Range):
        return _char(member.low, _CLASS_SPECIAL) + "-" + _char(member.high, _CLASS_SPECIAL)
    if isinstance(member, Category):
        return "\\" + member.kind.value
    return _char(member.char, _CLASS_SPECIAL)


def _char(char: str, special: frozenset[str]) -> str:
    if char in special:
        return "\\" + char
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char.isascii() and not char.isprintable():
        return f"\\x{ord(char):02x}"
    return char
