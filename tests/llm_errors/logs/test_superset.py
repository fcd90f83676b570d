"""A rule's Hyperscan expression finds every ASCII line its pattern matches."""

import functools

import pytest
import regex
from hypothesis import example, given, settings
from hypothesis import strategies as st

from llm_errors import RULES
from llm_errors._match.matcher import FLAGS
from llm_errors.logs._superset import superset

hyperscan = pytest.importorskip("hyperscan")

_PREFILTER = hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_MULTILINE | hyperscan.HS_FLAG_PREFILTER


def _database(expressions):
    database = hyperscan.Database()
    database.compile(
        expressions=expressions,
        ids=list(range(len(expressions))),
        elements=len(expressions),
        flags=[_PREFILTER] * len(expressions),
    )
    return database


def _reports(database, line: str) -> set[int]:
    """The ids whose expression reports ``line`` (between two other lines, at its end)."""
    block = b"INFO before\n" + line.encode() + b"\nINFO after\n"
    end = block.index(b"\nINFO after")
    found: set[int] = set()

    def on_match(found_id, _start, at, _flags, _context):
        if at == end:
            found.add(found_id)

    database.scan(block, match_event_handler=on_match)
    return found


def test_every_built_in_rule_has_an_expression_that_finds_its_examples():
    """All 170 rules are written as expressions; each finds the ASCII example lines it matches.

    (An example of several lines, flattened, may no longer match: a log line is read alone.)
    """
    expressions = [superset(rule.pattern) for rule in RULES]
    assert [rule.id for rule, e in zip(RULES, expressions, strict=True) if e is None] == []
    database = _database(expressions)
    missed, tried = [], 0
    for index, rule in enumerate(RULES):
        for written in rule.examples:
            line = " ".join(written.text.split())
            if not line.isascii():
                continue  # such lines are reported by any rule's word, not by expressions
            for text in (line, "2026-07-22T10:00:00.000Z ERROR app [req=9f86d081] " + line):
                if regex.search(rule.pattern, text, FLAGS) is None:
                    continue
                tried += 1
                if index not in _reports(database, text):
                    missed.append((rule.id, text))
    assert tried > 500
    assert missed == []


@pytest.mark.parametrize(
    ("pattern", "expression"),
    [
        pytest.param(r"closed$", rb"(?:closed(?=\n))[^\n]*$", id="end-anchor"),
        pytest.param(r"\Aabc\Z", rb"(?:^abc(?=\n))[^\n]*$", id="text-anchors"),
        pytest.param("x“?y", rb"(?:x(?:\xe2\x80\x9c)?y)[^\n]*$", id="quantified-non-ascii"),
        pytest.param(r"x\u201c?y", rb"(?:x(?:\xe2\x80\x9c)?y)[^\n]*$", id="u-escape"),
        pytest.param('[“"]', rb'(?:[\xe2\x80\x9c"])[^\n]*$', id="non-ascii-in-class"),
        pytest.param(r"[$]a\$", rb"(?:[$]a\$)[^\n]*$", id="dollar-as-text"),
        pytest.param(r"[]a]b", rb"(?:[]a]b)[^\n]*$", id="bracket-first-in-class"),
        pytest.param(r"a{,3}", rb"(?:a{0,3})[^\n]*$", id="open-lower-bound"),
        pytest.param(r"\u0041", rb"(?:\x41)[^\n]*$", id="ascii-u-escape"),
    ],
)
def test_patterns_are_rewritten(pattern, expression):
    assert superset(pattern) == expression


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"\Gx", id="continue-anchor"),
        pytest.param(r"\p{L}x", id="property"),
        pytest.param(r"\N{BULLET}", id="named-character"),
        pytest.param("\u212aelvin", id="folds-to-ascii"),
        pytest.param(r"\u017f", id="folds-to-ascii-escaped"),
        pytest.param(r"[[a]b]", id="nested-set"),
        pytest.param("(?x: a # [\n)", id="verbose"),
        pytest.param(r"[ab", id="open-class"),
        pytest.param("trailing\\", id="trailing-backslash"),
    ],
)
def test_what_cannot_be_rewritten_has_no_expression(pattern):
    assert superset(pattern) is None


#: Patterns with every rewritten construct, against random ASCII lines.
_PATTERNS = (
    r"\bclosed$",
    r"\Aerror:",
    "said “?retry”?",
    r"(?:reset|$)\s*by",
    r"a{,2}b\b",
    r'[^“"]z',
    r"(?<!no )limit(?= hit)",
)
_ALPHABET = 'abclosederrtyizhmbnp :-\t"$'


@functools.cache
def _patterns_database():
    return _database([superset(pattern) for pattern in _PATTERNS])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet=_ALPHABET, max_size=12), min_size=1, max_size=4).map(" ".join))
@example("the socket closed")
@example("error: x")
@example("she said retry")
@example("reset by peer")
@example("b")
@example("az")
@example("limit hit")
def test_a_line_the_pattern_matches_is_found(line):
    """Any ASCII line: if ``regex`` matches it, the expression reports it."""
    found = _reports(_patterns_database(), line)
    for index, pattern in enumerate(_PATTERNS):
        if regex.search(pattern, line, FLAGS):
            assert index in found, (pattern, line)
