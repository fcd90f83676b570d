"""Dating findings: a ``--jobs`` range's answer, completed from the ranges before, is exact."""

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from llm_errors import Classification, ErrorCode, Layer
from llm_errors.logs._context import Dated, Earlier, LineContext, LookBack
from llm_errors.logs._scan import Finding
from llm_errors.logs._timeline import line_time

VERDICT = Classification(code=ErrorCode.SERVER, retryable=True, rule="r", layer=Layer.TEXT)
LIMIT = 4  # a small memory, so that lines are dropped within a few lines


def line_of(kind, number):
    """A believable timestamp, one outside 2000-2099 (matched, not believed), or none."""
    if kind == "time":
        return f"2025-03-14 09:{number // 60 % 60:02d}:{number % 60:02d},000 INFO openai n={number}"
    if kind == "unbelievable":
        return f"1999-03-14 09:12:{number % 60:02d},000 INFO x"
    return "  File x, in y"


def finding(line):
    return Finding(line, line, "line", VERDICT, "upstream failed")


def fed(first, last, kinds, *, end=None):
    """A context shown lines ``first`` to ``last``; a range's when it owns lines up to ``end``."""
    context = LineContext(end=end, limit=LIMIT)
    for number in range(first, last + 1):
        context.seen(number, line_of(kinds[number - 1], number))
    return context


def answer(dated):
    assert dated.look_back is None
    return dated.when, dated.provider, dated.model


@st.composite
def scenarios(draw):
    """Lines, a finding's line, the line it is emitted on, and the cuts before it."""
    kinds = draw(st.lists(st.sampled_from(["time", "unbelievable", "plain"]), min_size=2))
    line = draw(st.integers(2, len(kinds)))
    emitted = draw(st.integers(line, len(kinds)))
    cuts = sorted(draw(st.sets(st.integers(1, line - 1), max_size=4)))
    return kinds, line, emitted, cuts


@given(scenarios())
# Nothing believable in what is remembered before: a full memory falls back to the range's.
@example((["unbelievable"] * 3 + ["plain", "time", "time"], 4, 6, [3]))
# The lines a full memory dropped before the range do not count.
@example((["time"] + ["unbelievable"] * 3 + ["plain", "unbelievable"], 5, 6, [4]))
# A memory just full has dropped nothing: no fallback.
@example((["unbelievable"] * 2 + ["plain", "time", "time"], 3, 5, [2]))
# Three ranges: the time comes from the first, across an undated second.
@example((["time", "plain", "plain", "plain", "plain"], 5, 5, [1, 3]))
def test_ranges_date_as_one_process(scenario):
    """Any cut into ranges, any finding in the last one: the same time and names."""
    kinds, line, emitted, cuts = scenario
    one = fed(1, emitted, kinds).date(finding(line))
    earlier = Earlier(limit=LIMIT)
    for start, end in zip([0, *cuts], cuts, strict=False):
        # A worker reads on past the end of its range, into the next one.
        earlier.add(*fed(start + 1, len(kinds), kinds, end=end).memory())
    first = cuts[-1] + 1 if cuts else 1
    last = fed(first, emitted, kinds, end=len(kinds)).date(finding(line))
    assert answer(earlier.date(last)) == answer(one)


def test_a_range_with_no_time_looks_back():
    """A traceback far below the last timestamp of the range before gets that time."""
    kinds = ["time", *["plain"] * 9]
    last = fed(5, 10, kinds, end=10).date(finding(8))
    assert last.when is None
    assert last.look_back == LookBack(remembered=0, first=None)
    earlier = Earlier(limit=LIMIT)
    earlier.add(*fed(1, 10, kinds, end=4).memory())
    assert earlier.date(last).when == line_time(line_of("time", 1))


def test_a_range_s_memory_ends_at_its_end():
    """What a range leaves for the next is its own lines', not those it read on into."""
    kinds = ["time", "plain", "time", "time"]
    assert fed(1, 4, kinds, end=2).memory() == ([line_time(line_of("time", 1))], 1)
    assert fed(1, 4, kinds, end=4).memory()[1] == 3


@pytest.mark.parametrize(
    "end", [pytest.param(None, id="whole-input"), pytest.param(3, id="dated-in-range")]
)
def test_no_look_back_where_nothing_before_can_change_it(end):
    """A whole input's answer is final; so is a range's that found a time in the range."""
    kinds = ["time", "plain", "plain"]
    dated = fed(1, 3, kinds, end=end).date(finding(3))
    assert dated.look_back is None
    assert dated.when == line_time(line_of("time", 1))


def test_a_record_is_dated_by_its_own_fields():
    """A JSON record's time and names come from the record, not from the lines before."""
    context = LineContext(end=5)
    context.seen(1, line_of("time", 1))
    record = {"time": "2025-03-14T09:00:00Z", "provider": "anthropic", "model": "claude-x"}
    context.seen(2, json.dumps(record))
    dated = context.date(Finding(2, 2, "record", VERDICT, "overloaded"))
    assert dated == Dated(dated.finding, line_time("2025-03-14T09:00:00Z"), "anthropic", "claude-x")
