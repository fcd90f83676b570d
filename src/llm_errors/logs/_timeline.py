"""When each error happened: timestamps read from log lines, counted per time bucket (pure).

Recognised timestamps:

* at the start of a plain-text line (after an optional ``[``, or a logfmt ``time=``,
  ``ts=`` or ``timestamp=`` key): ISO 8601 date and time, ``T`` or a space between
  them, an optional fraction after ``.`` or ``,`` (the Python ``logging`` prefix
  ``2025-03-14 09:12:01,004``), and an optional ``Z`` or ``±HH[:MM]`` offset;
* in a JSON record, the first of the keys in :data:`RECORD_TIME_KEYS` that holds such
  a string, or a number of seconds since the epoch (a value above 10^11 is read as
  milliseconds, as pino writes, above 10^14 as microseconds, above 10^17 as
  nanoseconds).

Times with an offset are converted to UTC; times without one are taken as written,
as if UTC. An offset no zone can have (``+24:00``, ``+99``, ``+0560``) makes the
time unbelievable, as month 13 does: that line is undated. Times outside 2000-2099
are not believed either (a counter that happens to sit in a ``time`` field would
stretch the chart over decades). A line without a
timestamp of its own, such as a traceback header, takes the time of the nearest
timestamped line before it in the same input (:class:`RecentLines`).

:class:`Timeline` counts errors per code in buckets whose width is one of
:data:`WIDTHS`; each width is a multiple of the previous one, so when the buckets
outgrow :data:`FINE_BUCKET_LIMIT` they merge exactly into wider ones, and
:meth:`Timeline.series` picks the narrowest width that draws at most
:data:`BAR_LIMIT` bars.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Final

from llm_errors import ErrorCode

__all__ = [
    "BAR_LIMIT",
    "FINE_BUCKET_LIMIT",
    "RECENT_LIMIT",
    "RECORD_TIME_KEYS",
    "WIDTHS",
    "RecentLines",
    "Series",
    "Timeline",
    "line_time",
    "record_time",
    "text_time",
]

#: Bucket widths in seconds, narrowest first, each a multiple of the one before it: from
#: one second to 52 weeks, so that a century (the believable span) fits in 101 buckets.
WIDTHS: Final = (
    *(1, 5, 10, 30, 60, 300, 600, 1800, 3600, 10800, 21600, 43200, 86400),
    *(7 * 86400, 28 * 86400, 364 * 86400),
)
#: Buckets kept before they are merged into the next width (memory stays bounded).
FINE_BUCKET_LIMIT: Final = 4096
#: Most bars a chart draws; the bucket width is chosen from the span to stay under it.
BAR_LIMIT: Final = 60
#: Timestamped lines remembered per input, so a finding can look back to its first line.
RECENT_LIMIT: Final = 1024
#: Characters of each remembered line kept (for naming the provider and model).
RECENT_TEXT_LIMIT: Final = 1024
#: JSON keys that hold a record's time, tried in order.
RECORD_TIME_KEYS: Final = ("timestamp", "@timestamp", "time", "ts", "datetime", "created", "date")

_EARLIEST: Final = 946_684_800.0  # 2000-01-01T00:00:00Z
_LATEST: Final = 4_102_444_800.0  # 2100-01-01T00:00:00Z
# The largest offset ISO 8601 can write (an offset of 24 h or more is no time zone).
_OFFSET_HOURS_MAX: Final = 23
_OFFSET_MINUTES_MAX: Final = 59
# Epoch numbers above these are milliseconds, microseconds, nanoseconds.
_EPOCH_UNITS: Final = ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3))

_ISO = (
    r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})[Tt ](?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})"
    r"(?:[.,](?P<f>\d{1,9}))?(?:\ ?(?P<tz>[Zz]|[+-]\d{2}(?::?\d{2})?))?"
)
_LINE_TIME = re.compile(r"(?:\[|(?:time|ts|timestamp)=[\"']?)?" + _ISO + r"(?![\d:])")
# The same at every line start of ASCII bytes, where ``\d`` is what the text's is.
_LINE_TIMES = re.compile(rb"(?m)^" + _LINE_TIME.pattern.encode("ascii"))
_TEXT_TIME = re.compile(_ISO + r"\s*")
# The characters a timestamped line can start with: a digit, ``[`` or a logfmt key.
_LINE_STARTS: Final = frozenset("0123456789[t")


def _epoch(match: re.Match[str]) -> float | None:
    fraction = match["f"] or "0"
    try:
        when = datetime(  # noqa: DTZ001 -- the zone, if any, is applied just below
            int(match["y"]),
            int(match["mo"]),
            int(match["d"]),
            int(match["h"]),
            int(match["mi"]),
            int(match["s"]),
            int(fraction.ljust(6, "0")[:6]),
        )
    except ValueError:  # month 13, second 61, ...
        return None
    zone = match["tz"]
    if zone and zone not in "Zz":
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:] or 0)
        if hours > _OFFSET_HOURS_MAX or minutes > _OFFSET_MINUTES_MAX:  # +24:00, +99, +0560
            return None
        offset = timedelta(hours=hours, minutes=minutes)
        value = when.replace(tzinfo=timezone(-offset if zone[0] == "-" else offset)).timestamp()
    else:
        value = when.replace(tzinfo=UTC).timestamp()
    return value if _EARLIEST <= value < _LATEST else None


def line_time(text: str) -> float | None:
    """The time at the start of a plain-text log line, in seconds since the epoch (UTC)."""
    if not text or text[0] not in _LINE_STARTS:
        return None
    match = _LINE_TIME.match(text)
    return None if match is None else _epoch(match)


def text_time(value: str) -> float | None:
    """A whole string that is an ISO 8601 time (a JSON record's time field)."""
    match = _TEXT_TIME.fullmatch(value.strip())
    return None if match is None else _epoch(match)


def _number_time(value: float) -> float | None:
    for above, per_second in _EPOCH_UNITS:
        if value > above:
            value /= per_second
            break
    return value if _EARLIEST <= value < _LATEST else None


def record_time(record: Mapping[str, object]) -> float | None:
    """The time of a JSON log record, from the first key of :data:`RECORD_TIME_KEYS`."""
    for key in RECORD_TIME_KEYS:
        value = record.get(key)
        if isinstance(value, str):
            found = text_time(value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found = _number_time(float(value))
        else:
            continue
        if found is not None:
            return found
    return None


class RecentLines:
    """The last :data:`RECENT_LIMIT` timestamped lines of one input, fed in order.

    A finding comes out of the scanner after its first line was read (a traceback
    only ends lines later), so this remembers enough to date it: :meth:`at` returns
    the time of the finding's first line, or of the nearest timestamped line before.
    Lines are only matched when fed; their time is computed when asked for, which
    is for a few lines per error rather than for every line.
    """

    def __init__(self, limit: int = RECENT_LIMIT) -> None:
        self._lines: deque[tuple[int, str]] = deque(maxlen=limit)
        self._dropped = False
        self.stamped = 0
        """Lines remembered so far, including those dropped since."""

    def feed(self, number: int, text: str) -> None:
        """Take line ``number``; remembered only if it starts like a timestamp."""
        if text and text[0] in _LINE_STARTS and _LINE_TIME.match(text) is not None:
            self._dropped = self._dropped or len(self._lines) == self._lines.maxlen
            self._lines.append((number, text[:RECENT_TEXT_LIMIT]))
            self.stamped += 1

    def feed_lines(self, number: int, block: bytes, start: int, stop: int) -> None:
        """Take the lines of ``block[start:stop]``, numbered from ``number``: as :meth:`feed`.

        ``block`` is ASCII and the range whole lines (the last may lack its newline),
        so one search of the bytes finds the lines :meth:`feed` would remember, and
        only the last :data:`RECENT_LIMIT` of them are decoded.
        """
        starts = [found.start() for found in _LINE_TIMES.finditer(block, start, stop)]
        if not starts:
            return
        limit = self._lines.maxlen or 0
        self._dropped = self._dropped or len(self._lines) + len(starts) > limit
        self.stamped += len(starts)
        kept = starts[-limit:]
        line, at = number + block.count(b"\n", start, kept[0]), kept[0]
        for begin in kept:
            line += block.count(b"\n", at, begin)
            end = block.find(b"\n", begin, stop)
            text = block[begin : stop if end < 0 else end].decode("ascii").rstrip("\r\n")
            self._lines.append((line, text[:RECENT_TEXT_LIMIT]))
            at = begin

    def times(self) -> list[float | None]:
        """The time of each remembered line, oldest first (``None``: not a believable time)."""
        return [line_time(text) for _, text in self._lines]

    def at(self, line: int) -> tuple[float | None, str | None]:
        """The time for ``line`` and the line's own text when it was remembered.

        If ``line`` is older than everything remembered because older lines were
        dropped (a traceback longer than :data:`RECENT_LIMIT` timestamped lines), the
        oldest remembered time is the closest one known, and it is used; if no line
        before it had a time, it has none.
        """
        for number, text in reversed(self._lines):
            if number <= line and (when := line_time(text)) is not None:
                return when, text if number == line else None
        if self._dropped:
            for _, text in self._lines:
                if (when := line_time(text)) is not None:
                    return when, None
        return None, None


@dataclass(frozen=True, slots=True)
class Series:
    """Errors per bucket, ready to draw: ``starts[i]`` is bar ``i``'s start (epoch seconds)."""

    width: int
    starts: tuple[int, ...]
    counts: Mapping[ErrorCode, tuple[int, ...]]

    @property
    def totals(self) -> tuple[int, ...]:
        """Errors of every code in each bucket."""
        return tuple(map(sum, zip(*self.counts.values(), strict=True))) if self.counts else ()


class Timeline:
    """Errors per code per time bucket, in at most :data:`FINE_BUCKET_LIMIT` buckets."""

    def __init__(self, limit: int = FINE_BUCKET_LIMIT) -> None:
        self._limit = limit
        self._width = 0  # index into WIDTHS
        self._buckets: dict[int, Counter[ErrorCode]] = {}
        self.first: float | None = None
        self.last: float | None = None
        self.timed = 0

    @property
    def width(self) -> int:
        """The current bucket width in seconds (widens as the span grows)."""
        return WIDTHS[self._width]

    def add(self, when: float, code: ErrorCode) -> None:
        """Count one error of ``code`` at ``when`` (epoch seconds)."""
        self.timed += 1
        self.first = when if self.first is None else min(self.first, when)
        self.last = when if self.last is None else max(self.last, when)
        start = int(when // self.width) * self.width
        bucket = self._buckets.get(start)
        if bucket is None:
            bucket = self._buckets[start] = Counter()
        bucket[code] += 1
        while len(self._buckets) > self._limit and self._width + 1 < len(WIDTHS):
            self._width += 1
            self._buckets = _merge(self._buckets, self.width)

    def series(self, bars: int = BAR_LIMIT) -> Series:
        """The buckets at the narrowest width that needs at most ``bars`` bars (every gap drawn)."""
        if not self._buckets:
            return Series(self.width, (), {})
        low, high = min(self._buckets), max(self._buckets)
        width = next(
            (w for w in WIDTHS[self._width :] if (high // w - low // w) < bars), WIDTHS[-1]
        )
        merged = _merge(self._buckets, width)
        first = low // width * width
        starts = tuple(range(first, high // width * width + width, width))
        codes = sorted(
            {code for bucket in merged.values() for code in bucket}, key=_ORDER.__getitem__
        )
        counts = {
            code: tuple(merged[s][code] if s in merged else 0 for s in starts) for code in codes
        }
        return Series(width, starts, counts)


_ORDER = {code: index for index, code in enumerate(ErrorCode)}


def _merge(buckets: Mapping[int, Counter[ErrorCode]], width: int) -> dict[int, Counter[ErrorCode]]:
    merged: dict[int, Counter[ErrorCode]] = {}
    for start, counts in buckets.items():
        merged.setdefault(start // width * width, Counter()).update(counts)
    return merged
