"""Scan one large file with several processes, merged in input order (``--jobs``).

The file is cut into one byte range per process, at line starts. Each process scans
its range with a fresh :class:`~llm_errors.logs.Scanner` and goes on for
:data:`OVERLAP` bytes into the next range. A fresh scanner may see the first lines
of a range differently from the one-process scan (a traceback or a held finding
crossing the cut), so the merge looks in that overlap for the first line after
which *both* neighbours are in the initial state (no open traceback, no held
finding): from there on both scans are the same, so the earlier process's events
are kept up to that line and the later one's after it. Where no such line exists
in the overlap (a traceback longer than the overlap), the file is scanned again
with one process. So the output equals the one-process output, always.
"""

from __future__ import annotations

import bisect
import concurrent.futures
import contextlib
import multiprocessing
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final

from llm_errors import Classification, Rule
from llm_errors.logs import _feed
from llm_errors.logs._context import Dated, Earlier, LineContext
from llm_errors.logs._feed import Feeder
from llm_errors.logs._report import finding_line
from llm_errors.logs._rules_command import classifier_for
from llm_errors.logs._scan import Finding, InputMode, Problem, Scanner

__all__ = [
    "OVERLAP",
    "PARALLEL_MIN",
    "Event",
    "Findings",
    "Merged",
    "Part",
    "Plan",
    "merge",
    "plan",
    "pool",
    "scan_part",
]

#: Files smaller than this are scanned by one process: starting more costs more.
PARALLEL_MIN: Final = 8 << 20
#: Bytes a process reads past the end of its range, to meet the next process.
OVERLAP: Final = 1 << 20
_READ: Final = 1 << 20
_GZIP_MAGIC: Final = b"\x1f\x8b"
_AFTER_ALL: Final = sys.maxsize  # the tag of events emitted at the end of the input

#: An event tagged with the line that emitted it: a problem, or a report's dated finding.
Event = tuple[int, Problem | Dated]


@dataclass(frozen=True, slots=True)
class Task:
    """One process's share: bytes ``start`` to ``end`` (read on to ``stop``)."""

    path: str
    name: str
    start: int
    end: int
    stop: int
    first: int
    """Lines before ``start``."""
    end_line: int
    """Lines before ``end``."""
    mode: InputMode
    field: str | None
    jsonl: bool
    dated: bool = False
    """Date each finding (the report): every line is read, none skipped by blocks."""
    rules: tuple[Rule, ...] = ()
    """The user's rules (``--rules``): a worker classifies with the same rules."""


@dataclass(slots=True)
class Findings:
    """A ``classify`` worker's findings, column by column, in input order.

    Columns of plain values pickle fast and a merged range of them is one slice, so the
    parent counts and writes a range without a Python step per finding; each distinct
    verdict crosses the process boundary once.
    """

    tags: list[int] = field(default_factory=list)
    """The line that emitted each finding (non-decreasing)."""
    verdicts: list[int] = field(default_factory=list)
    """Each finding's verdict, as an index into :attr:`table`."""
    table: list[Classification] = field(default_factory=list)
    """The distinct verdicts, in order of first appearance."""
    lines: list[str] = field(default_factory=list)
    """``--format jsonl``: each finding's JSON line (empty otherwise)."""
    unmatched: dict[int, str] = field(default_factory=dict)
    """The raw text of each unmatched error, by position (the table lists their messages)."""
    _index: dict[Classification, int] = field(default_factory=dict)

    def add(self, tag: int, finding: Finding, line: str | None) -> None:
        """Append one finding (``line``: its JSON line, for ``--format jsonl``)."""
        verdict = finding.classification
        index = self._index.get(verdict)
        if index is None:
            index = self._index[verdict] = len(self.table)
            self.table.append(verdict)
        if not finding.matched:
            self.unmatched[len(self.tags)] = finding.text
        self.tags.append(tag)
        self.verdicts.append(index)
        if line is not None:
            self.lines.append(line)


@dataclass(slots=True)
class Part:
    """What one process found: events tagged with the line that emitted them, and clean spans."""

    events: list[Event] = field(default_factory=list)
    findings: Findings = field(default_factory=Findings)
    """``classify``'s findings (a report's come dated, among :attr:`events`)."""
    clean: list[tuple[int, int, int, int]] = field(default_factory=list)
    """``(first, last, records, missing_field)``: the state is the initial one after
    each line from ``first`` to ``last``, with those counts; kept near the range's ends."""
    lines: int = 0
    records: int = 0
    missing_field: int = 0
    stamps: list[float | None] = field(default_factory=list)
    """Dated scans: the times of the last timestamped lines up to ``end`` (oldest first)."""
    stamped: int = 0
    """Dated scans: the timestamped lines up to ``end``."""


@dataclass(frozen=True, slots=True)
class Plan:
    """The ranges of one file."""

    tasks: tuple[Task, ...]
    size: int


class _Window:
    """At most ``limit`` bytes of an open file, read from where it stands."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        self._raw = raw
        self._left = limit

    def read(self, size: int, /) -> bytes:
        data = self._raw.read(min(size, self._left))
        self._left -= len(data)
        return data

    def readline(self, size: int, /) -> bytes:
        data = self._raw.readline(min(size, self._left))
        self._left -= len(data)
        return data


def _line_start_after(raw: IO[bytes], offset: int, size: int) -> int:
    if offset >= size:
        return size
    raw.seek(offset)
    raw.readline()
    return raw.tell()


def _count_lines(path: str, start: int, end: int) -> int:
    count = 0
    with Path(path).open("rb") as raw:
        raw.seek(start)
        left = end - start
        while left > 0 and (data := raw.read(min(_READ, left))):
            count += data.count(b"\n")
            left -= len(data)
    return count


def plan(
    path: str,
    jobs: int,
    executor: concurrent.futures.Executor,
    *,
    rules: tuple[Rule, ...] = (),
    **options: object,
) -> Plan | None:
    """The ranges for ``jobs`` processes, or ``None`` when one process should scan ``path``.

    ``rules`` (the user's) go to every worker with its range.
    """
    if jobs <= 1 or path == "-" or options.get("mode") is InputMode.JSONL:
        return None
    try:
        with Path(path).open("rb") as raw:
            size = os.fstat(raw.fileno()).st_size
            if size < PARALLEL_MIN or raw.read(2) == _GZIP_MAGIC or not Path(path).is_file():
                return None
            cuts = sorted(
                {0, *(_line_start_after(raw, size * k // jobs, size) for k in range(1, jobs))}
            )
            cuts = [cut for cut in cuts if cut < size]
            stops = [_line_start_after(raw, cut + OVERLAP, size) for cut in cuts[1:]]
    except OSError:
        return None  # the one-process scan reports it
    ends = [*cuts[1:], size]
    counts = list(executor.map(_count_lines, [path] * len(cuts), cuts, ends))
    firsts = [sum(counts[:k]) for k in range(len(cuts))]
    tasks = tuple(
        Task(
            path=path,
            name=str(options["name"]),
            start=start,
            end=end,
            stop=max(stop, end),
            first=first,
            end_line=first + count,
            mode=InputMode(str(options["mode"])),
            field=options["field"] if isinstance(options["field"], str) else None,
            jsonl=bool(options["jsonl"]),
            dated=bool(options.get("dated")),
            rules=rules,
        )
        for start, end, stop, first, count in zip(
            cuts, ends, [*stops, size], firsts, counts, strict=True
        )
    )
    return Plan(tasks, size)


def scan_part(task: Task) -> Part:
    """Scan one range (in a worker process)."""
    part = Part()
    classifier = classifier_for(task.rules)
    scanner = Scanner(
        classifier.by_rules, mode=task.mode, field=task.field, words=classifier.by_words
    )
    context = LineContext(end=task.end_line) if task.dated else None

    jsonl = task.jsonl

    def emit(events: Sequence[Finding | Problem]) -> None:
        tag = feeder.number
        for event in events:
            if isinstance(event, Problem):
                part.events.append((tag, event))
            elif context is not None:
                part.events.append((tag, context.date(event)))
            else:
                part.findings.add(tag, event, finding_line(task.name, event) if jsonl else None)

    def clean(first: int, last: int) -> None:
        # Kept where a neighbour may meet this part: its first bytes and the overlap.
        if feeder.bytes < OVERLAP or last > task.end_line:
            part.clean.append((first, last, scanner.records, scanner.missing_field))

    feeder = Feeder(scanner, emit, number=task.first, clean=clean, watcher=context)
    part.clean.append((task.first, task.first, 0, 0))  # a fresh scanner is clean
    with Path(task.path).open("rb") as raw:
        raw.seek(task.start)
        found = _feed.block_filter(classifier, mode=task.mode, field=task.field)
        feeder.read(_Window(raw, task.stop - task.start), found, lambda: None)
    if context is not None:
        part.stamps, part.stamped = context.memory()
    part.lines = feeder.number
    part.records, part.missing_field = scanner.records, scanner.missing_field
    finish = scanner.finish()
    feeder.number = _AFTER_ALL
    emit(finish)
    return part


def _meeting(
    before: Part, after: Part, line: int
) -> tuple[int, tuple[int, int], tuple[int, int]] | None:
    """The first line at or after ``line`` after which both parts are clean, and their counts."""
    starts = [span[0] for span in after.clean]
    for first, last, records, missing in before.clean:
        if last < line:
            continue
        low = max(first, line)
        at = bisect.bisect_right(starts, last)
        for other in after.clean[max(0, bisect.bisect_right(starts, low) - 1) : at]:
            meet = max(low, other[0])
            if meet <= min(last, other[1]):
                return meet, (records, missing), (other[2], other[3])
    return None


@dataclass(frozen=True, slots=True)
class Merged:
    """The one-process scan's output, from the parts: per part, its events and findings kept."""

    pieces: tuple[tuple[list[Event], Findings, int, int], ...]
    """Per part in input order: its events kept, and its findings ``[low:high]`` kept."""
    records: int
    missing_field: int


def merge(parts: Sequence[Part], tasks: Sequence[Task]) -> Merged | None:
    """The events and findings of the one-process scan, and its counts; ``None``: scan again.

    A dated finding that no line of its own range dates is dated from the ranges before.
    Within a part, problems come before its findings (they go to another stream).
    """
    cuts: list[tuple[int, tuple[int, int], tuple[int, int]]] = []
    for k in range(1, len(parts)):
        found = _meeting(parts[k - 1], parts[k], tasks[k].first)
        if found is None:
            return None
        cuts.append(found)
    pieces = []
    records = missing = 0
    earlier = Earlier()  # dated scans: the timestamped lines before each part
    for k, part in enumerate(parts):
        low = cuts[k - 1][0] if k else -1
        high = cuts[k][0] if k < len(cuts) else _AFTER_ALL
        events: list[Event] = []
        for tag, event in part.events:
            if low < tag <= high:
                if isinstance(event, Dated):
                    event = earlier.date(event)  # noqa: PLW2901
                events.append((tag, event))
        tags = part.findings.tags
        pieces.append(
            (events, part.findings, bisect.bisect_right(tags, low), bisect.bisect_right(tags, high))
        )
        earlier.add(part.stamps, part.stamped)
        start_counts = cuts[k - 1][2] if k else (0, 0)
        end_counts = cuts[k][1] if k < len(cuts) else (part.records, part.missing_field)
        records += end_counts[0] - start_counts[0]
        missing += end_counts[1] - start_counts[1]
    return Merged(tuple(pieces), records, missing)


@contextlib.contextmanager
def pool(
    jobs: int,
    rules: tuple[Rule, ...] = (),
    *,
    mode: InputMode = InputMode.AUTO,
    field: str | None = None,
) -> Iterator[concurrent.futures.ProcessPoolExecutor]:
    """Worker processes: forked when this process has one thread, else spawned.

    ``rules``, ``mode`` and ``field`` are the scan's: a forked worker inherits its filter.
    """
    method = "fork" if threading.active_count() == 1 and os.name == "posix" else "spawn"
    if method == "fork":
        # The classifier and the filter, built once and inherited.
        _feed.block_filter(classifier_for(rules), mode=mode, field=field)
    context = multiprocessing.get_context(method)
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as executor:
        yield executor
