"""The file loop ``classify`` and ``report`` share: open each input, scan it, count.

A :class:`Run` opens every input as :func:`~llm_errors.logs.open_source` does
(files, gzip, ``-`` for stdin), feeds it to a :class:`~llm_errors.logs.Scanner` by
:class:`~llm_errors.logs._feed.Feeder`, with ``--jobs`` processes for a large file
(:mod:`llm_errors.logs._parallel`), draws the progress bar and fills the
:class:`~llm_errors.logs.Tally`. What a finding or a problem then does is the
command's own: a subclass says it in :meth:`Run.finding`, :meth:`Run.found`,
:meth:`Run.found_range` and :meth:`Run.problem`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Final, TextIO

from llm_errors.logs import _feed
from llm_errors.logs._context import Dated
from llm_errors.logs._feed import BlockFilter, Feeder, Watcher
from llm_errors.logs._input import InputError, Source, open_source
from llm_errors.logs._options import JOBS_LIMIT, choice, job_count, text
from llm_errors.logs._report import printable, render_progress
from llm_errors.logs._rules_command import classifier_for
from llm_errors.logs._scan import Finding, InputMode, Problem, ProblemKind, Scanner
from llm_errors.logs._tally import Tally

if TYPE_CHECKING:  # ``--jobs`` only: its processes and pools are imported when used
    import concurrent.futures

    from llm_errors.logs._parallel import Findings

__all__ = ["PROBLEMS_SHOWN", "PROGRESS_AFTER", "Run", "add_input_options", "add_run_options"]

#: Seconds a run takes before the progress bar appears (``--progress auto``, a terminal).
PROGRESS_AFTER: Final = 1.0
#: Problems of one kind printed per file; the rest are counted in the summary only.
PROBLEMS_SHOWN: Final = 5
_PROGRESS_INTERVAL: Final = 0.25  # seconds between redraws


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """``--input`` and ``--field``: how every command that reads logs reads their lines."""
    parser.add_argument(
        "--input",
        type=choice(InputMode),
        choices=list(InputMode),
        default=InputMode.AUTO,
        help="line format: auto (JSON where a line starts with '{'), text or jsonl (default: auto)",
    )
    parser.add_argument(
        "--field",
        type=text("a dotted path such as error.message"),
        metavar="PATH",
        help="dotted path to the message in each JSON record, e.g. error.message "
        "(default: classify the whole record)",
    )


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``--progress`` and ``--jobs``, which every :class:`Run` reads."""
    parser.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="progress bar on stderr: auto shows it when stderr is a terminal and the "
        "run takes over a second (default: auto)",
    )
    parser.add_argument(
        "--jobs",
        type=job_count,
        default=1,
        metavar="N",
        help="processes for a large file (8 MiB or more, not gzip or stdin), merged in "
        f"input order; 0 = one per core; at most {JOBS_LIMIT} (default: 1)",
    )


class _Progress:
    """A one-line progress bar on a terminal, redrawn at most every quarter second.

    It appears only once the run has taken :data:`PROGRESS_AFTER` seconds (unless
    forced), so short runs print nothing.
    """

    def __init__(self, stream: TextIO, label: str, total: int | None, *, delay: float) -> None:
        self._stream = stream
        self._label = label
        self._total = total
        self._start = time.monotonic()
        self._delay = delay
        self._drawn = 0.0
        self._visible = False

    def update(self, done: int, *, lines: int | None = None, force: bool = False) -> None:
        now = time.monotonic()
        if now - self._start < self._delay and not (force and self._visible):
            return
        if force or now - self._drawn >= _PROGRESS_INTERVAL:
            line = render_progress(self._label, done, self._total, now - self._start, lines=lines)
            self._stream.write(f"\r{line}")
            self._stream.flush()
            self._drawn, self._visible = now, True

    def clear(self) -> None:
        if self._visible:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._visible = False


class Run:
    """One run over the inputs, counted in ``tally``; subclasses handle what is found.

    ``args`` are the command's options: ``input``, ``field``, ``jobs`` and ``progress``.
    """

    #: Date each finding by the lines before it (the report): every line is shown to
    #: :meth:`watcher`, and ``--jobs`` workers send dated findings.
    dates: ClassVar[bool] = False

    def __init__(self, args: argparse.Namespace, tally: Tally, *, jsonl: bool = False) -> None:
        self.args = args
        self.tally = tally
        self.jsonl = jsonl
        self.progress: _Progress | None = None
        self._number = 0  # lines of the current input read so far
        self._bytes = 0  # bytes of it read (decompressed)
        self._shown: dict[ProblemKind, int] = {}  # problems printed, of the current input

    # What the command does with what is found.

    def begin(self, name: str) -> None:
        """An input starts (also one that cannot be opened, before its problem)."""

    def watcher(self) -> Watcher | None:
        """What is shown the lines of the input being read (only when :attr:`dates`)."""
        return None

    def finding(self, name: str, finding: Finding) -> None:
        """An error found in this process."""
        raise NotImplementedError

    def found(self, name: str, found: Dated) -> None:
        """A dated error found by a ``--jobs`` worker (:attr:`dates` runs), in input order."""
        raise NotImplementedError

    def found_range(self, name: str, findings: Findings, low: int, high: int) -> None:
        """The errors ``findings[low:high]`` of a ``--jobs`` worker, in input order."""
        raise NotImplementedError

    def problem(self, name: str, problem: Problem) -> None:
        """An input problem (to be counted in the tally)."""
        raise NotImplementedError

    def end(self, name: str, *, lines: int, size: int) -> None:
        """An input was read: ``lines`` lines, ``size`` bytes (decompressed)."""

    def print_problem(self, name: str, problem: Problem) -> None:
        """Count ``problem``; print it on stderr, up to :data:`PROBLEMS_SHOWN` per kind and input.

        What ``classify`` and ``suggest`` do with a problem: one line naming the input,
        the line and what was wrong; past the limit one line saying more follow.
        """
        self.tally.add_problem(name, problem)
        shown = self._shown.get(problem.kind, 0)
        self._shown[problem.kind] = shown + 1
        if shown > PROBLEMS_SHOWN:
            return
        if self.progress is not None:
            self.progress.clear()
        where = name if problem.line is None else f"{name}:{problem.line}"
        if shown == PROBLEMS_SHOWN:
            text = f"{name}: more {problem.kind}s follow, not shown (counted in the summary)"
        else:
            text = f"{where}: {problem.kind}: {problem.detail}"
        print(f"llm-errors: {printable(text)}", file=sys.stderr)  # noqa: T201

    # The loop.

    def _begin(self, name: str) -> None:
        self._shown = {}
        self.begin(name)

    def scan_all(self, paths: Sequence[str]) -> None:
        """Scan ``paths`` in order, with ``--jobs`` processes for each large file."""
        jobs: int = self.args.jobs
        if jobs > 1:
            from llm_errors.logs import _parallel  # noqa: PLC0415 -- 15 ms of imports saved

            with _parallel.pool(
                jobs, self.args.user_rules, mode=self.args.input, field=self.args.field
            ) as executor:
                for path in paths:
                    self.scan_parallel(path, executor, jobs)
        else:
            for path in paths:
                self.scan(path)

    def scan(self, path: str) -> None:
        """Scan one input with this process."""
        try:
            with open_source(path, sys.stdin.buffer if path == "-" else None) as source:
                self.tally.files += 1
                self._begin(source.name)
                self.progress = self._progress(source)
                classifier = classifier_for(self.args.user_rules)
                scanner = Scanner(
                    classifier.by_rules,
                    mode=self.args.input,
                    field=self.args.field,
                    words=classifier.by_words,
                )
                self._number = self._bytes = 0
                try:
                    self._read(source, scanner)
                except InputError as exc:
                    self.problem(source.name, Problem(ProblemKind.UNREADABLE, exc.line, exc.detail))
                self.handle(source.name, scanner.finish())
                self.tally.lines += self._number
                self.tally.records += scanner.records
                self.tally.missing_field += scanner.missing_field
                self.end(source.name, lines=self._number, size=self._bytes)
                if self.progress is not None:
                    self.progress.update(self._done(source), lines=self._number, force=True)
                    self.progress.clear()
                    self.progress = None
        except InputError as exc:
            self._begin(path)
            self.problem(path, Problem(ProblemKind.UNREADABLE, exc.line, exc.detail))

    def _filter(self) -> BlockFilter | None:
        classifier = classifier_for(self.args.user_rules)
        return _feed.block_filter(classifier, mode=self.args.input, field=self.args.field)

    def _read(self, source: Source, scanner: Scanner) -> None:
        """Feed every line to ``scanner``; ``self._number`` counts the lines read."""
        watcher = self.watcher()
        feeder = Feeder(scanner, lambda events: self.handle(source.name, events), watcher=watcher)
        progress = self.progress

        def tick() -> None:
            self._number, self._bytes = feeder.number, feeder.bytes
            if progress is not None:
                progress.update(self._done(source), lines=feeder.number)

        try:
            feeder.read(source.stream, self._filter(), tick)
        finally:
            self._number, self._bytes = feeder.number, feeder.bytes

    def _done(self, source: Source) -> int:
        """Bytes done: of the file where its size is known, else (stdin, gzip) bytes read."""
        return source.position() if source.stream is source.raw and source.size else self._bytes

    def scan_parallel(self, path: str, executor: concurrent.futures.Executor, jobs: int) -> None:
        """Scan ``path`` with ``jobs`` processes when it is worth it, else with this one."""
        from llm_errors.logs import _parallel  # noqa: PLC0415 -- see scan_all

        found = _parallel.plan(
            path,
            jobs,
            executor,
            name=path,
            mode=self.args.input,
            field=self.args.field,
            jsonl=self.jsonl,
            dated=self.dates,
            rules=self.args.user_rules,
        )
        if found is None:
            self.scan(path)
            return
        try:
            parts = list(executor.map(_parallel.scan_part, found.tasks))
        except (InputError, OSError):
            parts = []  # the one-process scan reports what went wrong
        merged = _parallel.merge(parts, found.tasks) if parts else None
        if merged is None:
            self.scan(path)
            return
        self.tally.files += 1
        self._begin(path)
        for events, findings, low, high in merged.pieces:
            for _, event in events:
                if isinstance(event, Problem):
                    self.problem(path, event)
                else:
                    self.found(path, event)
            if high > low:
                self.found_range(path, findings, low, high)
        self.tally.lines += parts[-1].lines
        self.tally.records += merged.records
        self.tally.missing_field += merged.missing_field
        self.end(path, lines=parts[-1].lines, size=found.size)

    def handle(self, name: str, events: Sequence[Finding | Problem]) -> None:
        """Pass on the scanner's events, in order."""
        for event in events:
            if isinstance(event, Problem):
                self.problem(name, event)
            else:
                self.finding(name, event)

    def _progress(self, source: Source) -> _Progress | None:
        mode = self.args.progress
        if mode == "never" or (mode == "auto" and not sys.stderr.isatty()):
            return None
        # A percentage only where the size is known: not for stdin or decompressed gzip.
        total = source.size if source.stream is source.raw else None
        return _Progress(
            sys.stderr, source.name, total, delay=0.0 if mode == "always" else PROGRESS_AFTER
        )
