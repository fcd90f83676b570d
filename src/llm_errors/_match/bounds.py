"""How big a pattern grows once compiled, read from its text before it is compiled.

The ``regex`` module unrolls counted repeats: ``w(?:zq{1000}){1000}x``, 20 characters,
takes about 280 MB and most of a second to compile, and ``w(?:zq{60000}){60000}x``
exhausts memory; groups nested a few thousand deep overflow its parser's recursion.
A rule's pattern (a user's above all) is therefore measured first: its size with every
counted repeat multiplied out, and how deep its groups nest, each against a limit.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["NESTING_LIMIT", "SIZE_LIMIT", "bounds_problem", "pattern_bounds"]

#: Characters of a pattern once its counted repeats are multiplied out (the largest
#: built-in rule is under 5,000; 100,000 compiles in about 40 MB).
SIZE_LIMIT: Final = 100_000
#: Groups nested in one pattern (built-in rules nest at most 4).
NESTING_LIMIT: Final = 50

_QUANTIFIER: Final = re.compile(r"\{(\d*)(?:,(\d*))?\}")


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


def pattern_bounds(pattern: str) -> tuple[int, int]:
    """The pattern's size with counted repeats multiplied out, and its deepest nesting.

    An escape or a character class counts one; a group counts what it holds; ``X{m,n}``
    counts ``X`` times the larger bound. Linear in the pattern's length.
    """
    sizes = [0]  # the size of each open group, outermost first
    last = 0  # the size of the element just read, which a quantifier repeats
    deepest = 0
    at = 0
    while at < len(pattern):
        char = pattern[at]
        quantifier = _QUANTIFIER.match(pattern, at) if char == "{" else None
        if char == "(":
            sizes.append(0)
            deepest = max(deepest, len(sizes) - 1)
            at += 1
            continue
        if char == ")" and len(sizes) > 1:
            last = sizes.pop()
            sizes[-1] += last
            at += 1
            continue
        if quantifier is not None and any(quantifier.groups()):
            times = max(int(bound) for bound in quantifier.groups() if bound)
            sizes[-1] += last * (times - 1)
            last *= times
            at = quantifier.end()
            continue
        if char == "\\":
            at += 2
        elif char == "[":
            at = _class_end(pattern, at)
        else:
            at += 1
        sizes[-1] += 1
        last = 1
    return sum(sizes), deepest


def bounds_problem(pattern: str) -> str | None:
    """Why the pattern is too big or too deep to compile safely, or ``None``."""
    size, depth = pattern_bounds(pattern)
    if depth > NESTING_LIMIT:
        return f"nests groups {depth} deep, over the limit of {NESTING_LIMIT}"
    if size > SIZE_LIMIT:
        return (
            f"is about {size:,} characters once its counted repeats are multiplied out "
            f"(a repeat inside a repeat multiplies), over the limit of {SIZE_LIMIT:,}"
        )
    return None
