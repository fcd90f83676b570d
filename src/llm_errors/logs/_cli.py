"""The ``llm-errors`` command line: classify the errors in logs, explain one message.

Only argument parsing and I/O live here. Reading is in :mod:`llm_errors.logs._input`,
finding and classifying errors in :mod:`llm_errors.logs._scan`, counting in
:mod:`llm_errors.logs._tally`, rendering in :mod:`llm_errors.logs._report`.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final, TextIO

from llm_errors._classification import Layer
from llm_errors._classify import classify, explain
from llm_errors._taxonomy import ErrorCode
from llm_errors.logs import _feed, _parallel
from llm_errors.logs._feed import Feeder
from llm_errors.logs._input import InputError, Source, open_source
from llm_errors.logs._report import (
    explanation_record,
    finding_line,
    render_explanation,
    render_progress,
    render_table,
    summary_line,
)
from llm_errors.logs._report_command import add_report_command
from llm_errors.logs._scan import Finding, InputMode, Problem, ProblemKind, Scanner, subjects
from llm_errors.logs._tally import Tally

__all__ = ["main"]

EXIT_OK: Final = 0
EXIT_FAIL_ON: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNREADABLE: Final = 3
EXIT_INTERRUPTED: Final = 130
EXIT_BROKEN_PIPE: Final = 141

#: Seconds a run takes before the progress bar appears (``--progress auto``, a terminal).
PROGRESS_AFTER: Final = 1.0
#: Problems of one kind printed per file; the rest are counted in the summary only.
PROBLEMS_SHOWN: Final = 5
_PROGRESS_INTERVAL: Final = 0.25  # seconds between redraws
_EXPLAIN_LIMIT: Final = 1 << 20  # characters read from stdin by `explain -`

_EXIT_STATUS = f"""\
exit status:
  {EXIT_OK}    every input was read and no --fail-on code was seen
  {EXIT_FAIL_ON}    an error with a --fail-on code was seen (wins over {EXIT_UNREADABLE})
  {EXIT_USAGE}    usage error (bad option, unknown code)
  {EXIT_UNREADABLE}    an input could not be opened or read to its end
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C)
  {EXIT_BROKEN_PIPE}  stdout was closed early (e.g. piped into head)
bad JSON lines, binary lines, undecodable lines and over-long lines are reported
on stderr and counted in the summary, but do not change the exit status."""

_CLASSIFY_EPILOG = f"""\
an error is a line or JSON record that the classifier routes to a rule, or one
that says it is an error (ERROR/CRITICAL/FATAL level, level=error, an ...Error or
...Exception name, a Traceback) while no rule matched: those are the unmatched
errors, code PROVIDER_ERROR, rule fallback. A Python traceback, with its chained
causes, is one error, classified by its exception chain.

output: --format jsonl writes one JSON object per error to stdout (file, line,
end_line, kind, code, rule, layer, retryable, retry_after, status, matched and a
redacted message excerpt) and a summary line to stderr; --format table writes
counts per code and per rule, the retryable share and the most frequent
unmatched messages. The default is table when stdout is a terminal, else jsonl.

{_EXIT_STATUS}"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``llm-errors`` with ``argv`` (default: the process arguments); return the status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "field", None) and args.input is InputMode.TEXT:
            args.usage.error("--field applies to JSON records; it cannot be used with --input text")
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    command: Callable[[argparse.Namespace], int] = args.command
    try:
        return command(args)
    except KeyboardInterrupt:
        print("\nllm-errors: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="llm-errors",
        description="Classify LLM call failures: find and route the errors in logs, "
        "or explain how one message is classified.",
        epilog=_EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    scan = commands.add_parser(
        "classify",
        help="find and classify the errors in log files",
        description="Find the errors in log files (plain text or JSON Lines, gzip "
        "welcome) and route each to an error code.",
        epilog=_CLASSIFY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    scan.add_argument("files", nargs="*", metavar="FILE", help="log files; '-' or none reads stdin")
    scan.add_argument(
        "--format",
        choices=["table", "jsonl"],
        help="output format (default: table on a terminal, else jsonl)",
    )
    scan.add_argument(
        "--input",
        type=InputMode,
        choices=list(InputMode),
        default=InputMode.AUTO,
        help="line format: auto (JSON where a line starts with '{'), text or jsonl (default: auto)",
    )
    scan.add_argument(
        "--field",
        metavar="PATH",
        help="dotted path to the message in each JSON record, e.g. error.message "
        "(default: classify the whole record)",
    )
    scan.add_argument(
        "--fail-on",
        metavar="CODE",
        nargs="+",
        action="extend",
        type=_error_code,
        default=[],
        help="exit with status 1 if an error with one of these codes was seen "
        "(space- or comma-separated; put FILEs first or after --)",
    )
    scan.add_argument(
        "--top",
        type=int,
        default=10,
        metavar="N",
        help="unmatched messages listed in the table (default: 10)",
    )
    scan.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="progress bar on stderr: auto shows it when stderr is a terminal and the "
        "run takes over a second (default: auto)",
    )
    scan.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="processes for a large file (8 MiB or more, not gzip or stdin), merged in "
        "input order; 0 = one per core (default: 1)",
    )
    scan.set_defaults(command=_classify_command, usage=scan)

    explain = commands.add_parser(
        "explain",
        help="explain how one message is classified",
        description="Show the code, rule, layer, retryability and the deciding rule's "
        "rationale and source for one error message, JSON error body or traceback.",
        epilog=_EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain.add_argument(
        "message",
        nargs="+",
        metavar="MESSAGE",
        help="the message (words are joined with spaces); '-' reads it from stdin",
    )
    explain.add_argument("--json", action="store_true", help="print one JSON object")
    explain.set_defaults(command=_explain_command)
    add_report_command(commands.add_parser)
    return parser


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = -1
    if jobs < 0:
        msg = f"{value!r} is not a number of processes (0 or more)"
        raise argparse.ArgumentTypeError(msg)
    return jobs or os.cpu_count() or 1


def _error_code(value: str) -> list[ErrorCode]:
    codes = []
    for part in filter(None, (v.strip() for v in value.split(","))):
        try:
            codes.append(ErrorCode(part.upper()))
        except ValueError:
            choices = ", ".join(ErrorCode)
            msg = f"{part!r} is not an error code (choose from {choices})"
            raise argparse.ArgumentTypeError(msg) from None
    return codes


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


class _Run:
    """One ``classify`` run: scans inputs, writes findings, reports problems as met."""

    def __init__(self, args: argparse.Namespace, fmt: str) -> None:
        self.args = args
        self.jsonl = fmt == "jsonl"
        self.tally = Tally(fail_on=frozenset(code for codes in args.fail_on for code in codes))
        self.progress: _Progress | None = None
        self._shown: dict[ProblemKind, int] = {}
        self._number = 0  # lines of the current input read so far
        self._bytes = 0  # bytes of it read (decompressed)

    def scan(self, path: str) -> None:
        self._shown = {}
        try:
            with open_source(path, sys.stdin.buffer if path == "-" else None) as source:
                self.tally.files += 1
                self.progress = self._progress(source)
                scanner = Scanner(classify, mode=self.args.input, field=self.args.field)
                self._number = 0
                try:
                    self._read(source, scanner)
                except InputError as exc:
                    self.report(source.name, Problem(ProblemKind.UNREADABLE, exc.line, exc.detail))
                self.handle(source.name, scanner.finish())
                self.tally.lines += self._number
                self.tally.records += scanner.records
                self.tally.missing_field += scanner.missing_field
                if self.progress is not None:
                    self.progress.update(self._done(source), lines=self._number, force=True)
                    self.progress.clear()
                    self.progress = None
        except InputError as exc:
            self.report(path, Problem(ProblemKind.UNREADABLE, exc.line, exc.detail))

    def _read(self, source: Source, scanner: Scanner) -> None:
        """Feed every line to ``scanner``; ``self._number`` counts the lines read."""
        found = None if self.args.input is InputMode.JSONL else _feed.block_filter()
        feeder = Feeder(scanner, lambda events: self.handle(source.name, events))
        progress = self.progress

        def tick() -> None:
            self._number, self._bytes = feeder.number, feeder.bytes
            if progress is not None:
                progress.update(self._done(source), lines=feeder.number)

        try:
            feeder.read(source.stream, found, tick)
        finally:
            self._number, self._bytes = feeder.number, feeder.bytes

    def _done(self, source: Source) -> int:
        """Bytes done: of the file where its size is known, else (stdin, gzip) bytes read."""
        return source.position() if source.stream is source.raw and source.size else self._bytes

    def scan_parallel(self, path: str, executor: concurrent.futures.Executor, jobs: int) -> None:
        """Scan ``path`` with ``jobs`` processes when it is worth it, else with this one."""
        found = _parallel.plan(
            path,
            jobs,
            executor,
            name=path,
            mode=self.args.input,
            field=self.args.field,
            jsonl=self.jsonl,
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
        self._shown = {}
        self.tally.files += 1
        for part, low, high in merged.ranges:
            for tag, problem in part.problems:
                if low < tag <= high:
                    self.report(path, problem)
            first, last = _parallel.kept(part, low, high)
            for index, times in Counter(part.verdict_ids[first:last]).items():
                self.tally.count_verdict(part.verdicts[index], times)
            for tag, message in part.unmatched:
                if low < tag <= high:
                    self.tally.unmatched_messages.add(message)
            sys.stdout.write(_parallel.kept_output(part, first, last))
        self.tally.lines += parts[-1].lines
        self.tally.records += merged.records
        self.tally.missing_field += merged.missing_field

    def handle(self, source: str, events: Sequence[Finding | Problem]) -> None:
        for event in events:
            if isinstance(event, Problem):
                self.report(source, event)
                continue
            self.tally.add(event)
            if self.jsonl:
                sys.stdout.write(finding_line(source, event) + "\n")

    def report(self, source: str, problem: Problem) -> None:
        """Count a problem, and print it unless this file already printed enough of its kind."""
        self.tally.add_problem(source, problem)
        shown = self._shown.get(problem.kind, 0)
        self._shown[problem.kind] = shown + 1
        if shown > PROBLEMS_SHOWN:
            return
        if self.progress is not None:
            self.progress.clear()
        where = source if problem.line is None else f"{source}:{problem.line}"
        if shown == PROBLEMS_SHOWN:
            text = f"{source}: more {problem.kind}s follow, not shown (counted in the summary)"
        else:
            text = f"{where}: {problem.kind}: {problem.detail}"
        print(f"llm-errors: {text}", file=sys.stderr)

    def _progress(self, source: Source) -> _Progress | None:
        mode = self.args.progress
        if mode == "never" or (mode == "auto" and not sys.stderr.isatty()):
            return None
        # A percentage only where the size is known: not for stdin or decompressed gzip.
        total = source.size if source.stream is source.raw else None
        return _Progress(
            sys.stderr, source.name, total, delay=0.0 if mode == "always" else PROGRESS_AFTER
        )


def _classify_command(args: argparse.Namespace) -> int:
    fmt = args.format or ("table" if sys.stdout.isatty() else "jsonl")
    run = _Run(args, fmt)
    paths = args.files or ["-"]
    if args.jobs > 1:
        with _parallel.pool(args.jobs) as executor:
            for path in paths:
                run.scan_parallel(path, executor, args.jobs)
    else:
        for path in paths:
            run.scan(path)
    tally = run.tally
    if fmt == "table":
        sys.stdout.write(render_table(tally, top=args.top, field=args.field))
    else:
        print(f"llm-errors: {summary_line(tally)}", file=sys.stderr)
    if tally.failed:
        return EXIT_FAIL_ON
    if tally.problems[ProblemKind.UNREADABLE]:
        return EXIT_UNREADABLE
    return EXIT_OK


def _explain_command(args: argparse.Namespace) -> int:
    words: list[str] = args.message
    text = sys.stdin.read(_EXPLAIN_LIMIT) if words == ["-"] else " ".join(words)
    candidates = [explain(subject) for subject in subjects(text)]
    best = next(
        (c for c in candidates if c.classification.layer is not Layer.FALLBACK), candidates[0]
    )
    record = explanation_record(best)
    if args.json:
        print(json.dumps(record))
    else:
        print(render_explanation(record), end="")
    return EXIT_OK
