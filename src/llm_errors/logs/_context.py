"""What a report adds to a finding: the time of its first line and the names it gives (pure).

A :class:`LineContext` is shown every line of one input in order (decoded, or as a
range of a block the scan passes over) and dates each finding as it comes out of the
scanner: a JSON record by its own time field, any
other finding by the nearest timestamped line at or before its first line
(:class:`~llm_errors.logs._timeline.RecentLines`). A ``--jobs`` worker sees only its
own range, so a finding with no timestamped line before it in that range carries a
:class:`LookBack`, and :class:`Earlier` gives the one-process answer from what the
ranges before it remembered.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from llm_errors.logs._providers import names, record_names
from llm_errors.logs._scan import Finding
from llm_errors.logs._timeline import RECENT_LIMIT, RecentLines, record_time

__all__ = ["Dated", "Earlier", "LineContext", "LookBack"]


@dataclass(frozen=True, slots=True)
class LookBack:
    """A finding dated by no line of the range read: what the ranges before it decide with."""

    remembered: int
    """Timestamped lines remembered from the start of the range."""
    first: float | None
    """The earliest believable time among them (what a full memory falls back to)."""


@dataclass(frozen=True, slots=True)
class Dated:
    """A finding with the time of its first line and the provider and model it names."""

    finding: Finding
    when: float | None
    provider: str | None
    model: str | None
    look_back: LookBack | None = None
    """Set when lines before the range read may date it (see :func:`look_back`)."""


class LineContext:
    """Dates the findings of one input: shown its lines in order, asked about each finding.

    ``end``: the lines shown are a ``--jobs`` range that starts after the input's
    start and owns the lines up to ``end`` (it reads on into the next range); its
    undated findings get a :class:`LookBack`, and :meth:`memory` is what its own
    lines leave for the ranges after it.
    """

    def __init__(self, *, end: int | None = None, limit: int = RECENT_LIMIT) -> None:
        self.recent = RecentLines(limit)
        self._end = end
        self._memory: tuple[list[float | None], int] | None = None
        self._current = ""

    def seen(self, number: int, text: str) -> None:
        """Take line ``number``, just before the scanner does."""
        if self._end is not None and number > self._end and self._memory is None:
            self._memory = self.memory()
        self.recent.feed(number, text)
        self._current = text

    def skipped(self, number: int, block: bytes, start: int, stop: int) -> bool:
        """Take the lines of ``block[start:stop]`` (ASCII, whole lines) from ``number`` on.

        What :meth:`seen` of each would do, without decoding them (the block scan
        passes over them): only the timestamped ones matter until a finding asks.
        ``False`` where the range holds the ``--jobs`` range's end (once per range):
        :meth:`seen` must then take them one by one.
        """
        last = number + block.count(b"\n", start, stop - 1)
        if self._end is not None and self._memory is None and last > self._end:
            return False
        self.recent.feed_lines(number, block, start, stop)
        return True

    def memory(self) -> tuple[list[float | None], int]:
        """The times of the timestamped lines remembered up to ``end``, and their count.

        Fed to :meth:`Earlier.add` for the ranges after this one.
        """
        if self._memory is not None:
            return self._memory
        return self.recent.times(), self.recent.stamped

    def date(self, finding: Finding) -> Dated:
        """Date ``finding``, which the scanner emitted on the line seen last."""
        if finding.kind == "record":
            # A record is a finding of the very line just fed, parsed as a JSON object.
            record = json.loads(self._current)
            return Dated(finding, record_time(record), *record_names(record, finding.text))
        when, first = self.recent.at(finding.line)
        provider, model = names(first, finding.text)
        back = None
        if when is None and self._end is not None:
            times = self.recent.times()
            earliest = next((t for t in times if t is not None), None)
            back = LookBack(len(times), earliest)
        return Dated(finding, when, provider, model, back)


@dataclass(slots=True)
class Earlier:
    """The timestamped lines of the ranges before one, for :meth:`date`: their last times.

    Fed each range's :meth:`~llm_errors.logs._timeline.RecentLines.times` and
    :attr:`~llm_errors.logs._timeline.RecentLines.stamped`, in input order, taken at
    the range's end.
    """

    limit: int = RECENT_LIMIT
    times: list[float | None] = field(default_factory=list)
    """The last ``limit`` timestamped lines' times, oldest first."""
    stamped: int = 0
    """All the timestamped lines."""

    def add(self, times: Sequence[float | None], stamped: int) -> None:
        """Take the next range's lines."""
        self.times = [*self.times, *times][-self.limit :]
        self.stamped += stamped

    def date(self, dated: Dated) -> Dated:
        """``dated`` as the one-process scan dates it, from the lines before its range.

        :class:`~llm_errors.logs._timeline.RecentLines` would have held the last
        ``limit - remembered`` of those lines too, and answers with the newest
        believable time, or, once it dropped lines, with the oldest it still holds.
        """
        back = dated.look_back
        if back is None:
            return dated
        room = max(self.limit - back.remembered, 0)
        window = self.times[max(len(self.times) - room, 0) :] if room else []
        when = next((t for t in reversed(window) if t is not None), None)
        if when is None and self.stamped + back.remembered > self.limit:
            when = back.first  # nothing believable before: the oldest remembered is the range's
        return dataclasses.replace(dated, when=when, look_back=None)
