"""Timestamps read from log lines and records, and errors counted per time bucket."""

import itertools
from datetime import datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from llm_errors import ErrorCode
from llm_errors.logs._timeline import (
    BAR_LIMIT,
    WIDTHS,
    RecentLines,
    Timeline,
    line_time,
    record_time,
    text_time,
)


def epoch(text):
    """Seconds since the epoch of an ISO 8601 time with its offset."""
    return datetime.fromisoformat(text).timestamp()


BASE = epoch("2025-03-14T09:12:01.004+00:00")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(
            "2025-03-14 09:12:01,004 ERROR    router.chat: failed", BASE, id="logging-comma"
        ),
        pytest.param("2025-03-14 09:12:01.004 ERROR x", BASE, id="logging-dot"),
        pytest.param("2025-03-14T09:12:01.004Z stderr F x", BASE, id="iso-z"),
        pytest.param("2025-03-14T10:12:01.004+01:00 x", BASE, id="iso-offset"),
        pytest.param("2025-03-14T04:12:01.004-0500 x", BASE, id="iso-offset-no-colon"),
        pytest.param("2025-03-14T11:12:01.004+02 x", BASE, id="iso-offset-hours"),
        pytest.param("2025-03-14 04:12:01.004 -05:00 x", BASE, id="space-before-offset"),
        pytest.param("[2025-03-14 09:12:01,004] ERROR x", BASE, id="bracketed"),
        pytest.param('time="2025-03-14T09:12:01.004Z" level=error', BASE, id="logfmt-time"),
        pytest.param("ts=2025-03-14T09:12:01.004Z level=error", BASE, id="logfmt-ts"),
        pytest.param("2025-03-14T09:12:01.004999999Z x", BASE + 0.000999, id="nanoseconds"),
        pytest.param("2025-03-14 09:12:01 ERROR x", BASE - 0.004, id="no-fraction"),
    ],
)
def test_line_time_forms(line, expected):
    """Each supported line prefix gives the same instant, in UTC."""
    assert line_time(line) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("ERROR 2025-03-14 09:12:01 not at the start", id="not-at-start"),
        pytest.param("2025-13-14 09:12:01 month 13", id="bad-month"),
        pytest.param("2025-03-14 09:12:61 second 61", id="bad-second"),
        pytest.param("1999-12-31 23:59:59 too early", id="before-2000"),
        pytest.param("2100-01-01 00:00:00 too late", id="after-2099"),
        pytest.param("2025-03-14 09:12 no seconds", id="no-seconds"),
        pytest.param("2025-03-14 09:12:01:77 not a time", id="trailing-colon"),
        pytest.param("2025-03-14T09:12:01+24:00 x", id="offset-24h"),
        pytest.param("2025-03-14T09:12:01-24:00 x", id="offset-minus-24h"),
        pytest.param("2025-03-14T09:12:01+2400 x", id="offset-24h-no-colon"),
        pytest.param("2025-03-14T09:12:01+99 x", id="offset-99h"),
        pytest.param("2025-03-14T09:12:01.004+05:60 x", id="offset-60min"),
        pytest.param("", id="empty"),
        pytest.param("Traceback (most recent call last):", id="no-time"),
    ],
)
def test_line_time_rejects(line):
    """What is not a believable timestamp at the start of the line gives none."""
    assert line_time(line) is None


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        pytest.param({"time": 1741943521004}, 1741943521.004, id="pino-milliseconds"),
        pytest.param({"ts": 1741943521.004}, 1741943521.004, id="seconds-float"),
        pytest.param({"created": 1741943521}, 1741943521.0, id="logging-created"),
        pytest.param({"time": 1741943521004000}, 1741943521.004, id="microseconds"),
        pytest.param({"time": 1741943521004000000}, 1741943521.004, id="nanoseconds"),
        pytest.param({"timestamp": "2025-03-14T09:12:01.004Z"}, BASE, id="iso-string"),
        pytest.param({"@timestamp": "2025-03-14T09:12:01.004Z"}, BASE, id="ecs"),
        pytest.param({"asctime": "x", "time": "2025-03-14 09:12:01,004"}, BASE, id="logging"),
        pytest.param({"time": "soon", "ts": 1741943521}, 1741943521.0, id="first-usable-key"),
        pytest.param({"time": True}, None, id="bool-is-not-a-time"),
        pytest.param({"time": 1834}, None, id="small-number"),
        pytest.param({"responseTime": 1741943521}, None, id="other-key"),
        pytest.param({"time": None}, None, id="null"),
    ],
)
def test_record_time(record, expected):
    """A JSON record's time field: epoch numbers by magnitude, or an ISO 8601 string."""
    found = record_time(record)
    if expected is None:
        assert found is None
    else:
        assert found == pytest.approx(expected, abs=1e-6)


_ZONE_FORMS = {
    "colon": "{sign}{h:02}:{m:02}",
    "no-colon": "{sign}{h:02}{m:02}",
    "hours": "{sign}{h:02}",
}


@given(
    sign=st.sampled_from("+-"),
    hours=st.integers(0, 99),
    minutes=st.integers(0, 99),
    form=st.sampled_from(sorted(_ZONE_FORMS)),
    space=st.booleans(),
)
@example(sign="+", hours=24, minutes=0, form="colon", space=False)
@example(sign="-", hours=24, minutes=0, form="no-colon", space=False)
@example(sign="+", hours=99, minutes=0, form="hours", space=False)
@example(sign="-", hours=23, minutes=59, form="colon", space=True)
def test_any_offset_is_converted_or_undated(sign, hours, minutes, form, space):
    """Every offset the pattern reads gives UTC if a zone can have it, else no time: no crash."""
    minutes = minutes if form != "hours" else 0
    zone = _ZONE_FORMS[form].format(sign=sign, h=hours, m=minutes)
    stamp = f"2025-03-14T09:12:01{' ' if space else ''}{zone}"
    shift = (1 if sign == "-" else -1) * (hours * 3600 + minutes * 60)
    expected = BASE - 0.004 + shift if hours <= 23 and minutes <= 59 else None
    for found in (line_time(f"{stamp} ERROR x"), text_time(stamp), record_time({"time": stamp})):
        if expected is None:
            assert found is None
        else:
            assert found == pytest.approx(expected, abs=1e-6)


@given(
    st.from_regex(
        r"\A\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,9})? ?([Zz]|[+-]\d{2}(:?\d{2})?)?\Z"
    )
)
def test_any_stamp_the_pattern_reads_is_a_time_or_none(stamp):
    """Whatever digits fill the fields (any script's), a stamp is a believable time or none."""
    for found in (line_time(stamp), text_time(stamp), record_time({"ts": stamp})):
        assert found is None or 946_684_800 <= found < 4_102_444_800


def test_text_time_needs_the_whole_string():
    """A record's string is a time only if it is nothing else."""
    assert text_time(" 2025-03-14T09:12:01.004Z ") == pytest.approx(BASE)
    assert text_time("2025-03-14T09:12:01Z and more") is None


def test_recent_lines_date_a_traceback_by_the_line_before():
    """A line without a time of its own takes the nearest timestamped line before it."""
    recent = RecentLines()
    recent.feed(1, "2025-03-14 09:12:01,004 ERROR first (provider openai)")
    recent.feed(2, "Traceback (most recent call last):")
    recent.feed(3, "2025-03-14 09:12:05,004 INFO later")
    first = "2025-03-14 09:12:01,004 ERROR first (provider openai)"
    assert recent.at(1) == (pytest.approx(BASE), first)
    assert recent.at(2) == (pytest.approx(BASE), None)
    assert recent.at(3)[0] == pytest.approx(BASE + 4)


def test_recent_lines_bounded():
    """Only the last few timestamped lines are kept; an older line gets the oldest time."""
    recent = RecentLines(limit=2)
    for number in range(1, 6):
        recent.feed(number, f"2025-03-14 09:12:0{number},004 x")
    assert recent.at(1) == (pytest.approx(BASE + 3), None)
    assert recent.at(5) == (pytest.approx(BASE + 4), "2025-03-14 09:12:05,004 x")
    assert RecentLines().at(7) == (None, None)


def test_recent_lines_before_the_first_time():
    """A line before any timestamped line has no time, even once later lines have one."""
    recent = RecentLines()
    recent.feed(1, "no time here")
    recent.feed(2, "2025-03-14 09:12:01,004 x")
    assert recent.at(1) == (None, None)


def test_timeline_buckets_and_gaps():
    """Bars start on multiples of the width, gaps are drawn as zeros, codes stack in order."""
    timeline = Timeline()
    start = epoch("2025-03-14T09:12:00+00:00")
    for offset, code in [
        (1, ErrorCode.RATE_LIMIT),
        (4, ErrorCode.TRANSPORT),
        (4.9, ErrorCode.RATE_LIMIT),
        (21, ErrorCode.SERVER),
        (99, ErrorCode.RATE_LIMIT),
    ]:
        timeline.add(start + offset, code)
    series = timeline.series()
    assert series.width == 5  # 99 s at 1 s would be 100 bars, over the limit
    assert series.starts[0] == start
    assert len(series.starts) == 20
    assert list(series.counts) == [ErrorCode.TRANSPORT, ErrorCode.RATE_LIMIT, ErrorCode.SERVER]
    assert series.counts[ErrorCode.RATE_LIMIT][:5] == (2, 0, 0, 0, 0)
    assert series.counts[ErrorCode.RATE_LIMIT][19] == 1
    assert series.counts[ErrorCode.SERVER][4] == 1
    assert series.totals[0] == 3
    assert sum(series.totals) == timeline.timed == 5


@pytest.mark.parametrize(
    ("span", "width"),
    [
        pytest.param(30, 1, id="half-minute"),
        pytest.param(59, 1, id="just-under-a-minute"),
        pytest.param(60, 5, id="a-minute"),
        pytest.param(2 * 3600, 300, id="two-hours"),
        pytest.param(3 * 86400, 10800, id="three-days"),
        pytest.param(400 * 86400, 7 * 86400, id="over-a-year"),
        pytest.param(500 * 86400, 28 * 86400, id="over-a-year-and-a-quarter"),
    ],
)
def test_width_from_span(span, width):
    """The narrowest width of the ladder that draws at most BAR_LIMIT bars."""
    timeline = Timeline()
    start = epoch("2025-03-13T00:00:00+00:00")
    timeline.add(start, ErrorCode.SERVER)
    timeline.add(start + span, ErrorCode.SERVER)
    series = timeline.series()
    assert series.width == width
    assert len(series.starts) <= BAR_LIMIT


def test_widths_merge_exactly():
    """Each width divides the next, so merged buckets never split one."""
    assert all(b % a == 0 for a, b in itertools.pairwise(WIDTHS))


def test_timeline_bounded_and_exact_after_merging():
    """Past the bucket limit the buckets widen, and no error is lost or moved."""
    timeline = Timeline(limit=8)
    start = epoch("2025-03-14T09:00:00+00:00")
    for second in range(0, 600, 7):
        timeline.add(start + second, ErrorCode.TIMEOUT)
    assert timeline.width > 1
    assert len(timeline._buckets) <= 8
    series = timeline.series()
    assert sum(series.totals) == len(range(0, 600, 7))
    assert series.width >= timeline.width
    assert timeline.first == start
    assert timeline.last == start + 595


def test_empty_timeline():
    """No timed error: no bars."""
    series = Timeline().series()
    assert series.starts == ()
    assert series.totals == ()
