"""The ``llm-errors report`` command: scan logs as ``classify`` does, write one HTML page.

The inputs and the scan are ``classify``'s own: the same file loop
(:class:`~llm_errors.logs._run.Run`, with ``--jobs``), the same
:class:`~llm_errors.logs.Scanner`, so the counts match ``classify`` by construction;
this module only adds, per finding, what a report needs beyond a
:class:`~llm_errors.logs.Finding`: the time of its first line and the provider and
model it names (:mod:`llm_errors.logs._context`). Aggregation is in
:mod:`llm_errors.logs._digest`, rendering in :mod:`llm_errors.logs._html`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Final

from llm_errors.logs._context import Dated, LineContext
from llm_errors.logs._digest import Digest, FileStats
from llm_errors.logs._html import render_html
from llm_errors.logs._options import text, whole_number
from llm_errors.logs._output import unwritable, write_whole
from llm_errors.logs._report import summary_line
from llm_errors.logs._rules_command import add_rules_option
from llm_errors.logs._run import Run, add_input_options, add_run_options
from llm_errors.logs._scan import Finding, Problem, ProblemKind

__all__ = ["EXIT_OK", "EXIT_UNREADABLE", "EXIT_UNWRITABLE", "add_report_command"]

# The same statuses as ``classify`` (see ``llm_errors.logs._cli``), plus one of its own.
EXIT_OK: Final = 0
EXIT_UNREADABLE: Final = 3
EXIT_UNWRITABLE: Final = 4

_DESCRIPTION = """\
Find and classify the errors in log files exactly as `classify` does, and write
one self-contained HTML page to share: errors over time stacked by code, counts
and retryable share per code, the top rules, errors per provider and model, the
most frequent unmatched messages, two redacted examples per row, and what was
read (files, lines, bytes, time taken, input problems and why)."""

_EPILOG = f"""\
timestamps: ISO 8601 or the `YYYY-MM-DD HH:MM:SS,mmm` prefix at the start of a
line, or a JSON record's timestamp/@timestamp/time/ts field (ISO 8601, or epoch
seconds; milliseconds as pino writes them work too). A line without one (a
traceback header) takes the time of the timestamped line before it.

exit status:
  {EXIT_OK}    the report was written and every input was read
  2    usage error (bad option)
  {EXIT_UNREADABLE}    the report was written, but an input could not be opened or read to its end
  {EXIT_UNWRITABLE}    the report could not be written (checked before scanning where possible)"""


def add_report_command(add_parser: Callable[..., argparse.ArgumentParser]) -> None:
    """Register ``report`` through a subparsers' ``add_parser``."""
    report = add_parser(
        "report",
        help="write a self-contained HTML report of the errors in log files",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    report.add_argument(
        "files", nargs="*", metavar="FILE", help="log files; '-' or none reads stdin"
    )
    report.add_argument(
        "-o",
        "--output",
        required=True,
        type=text("a path, or - for stdout"),
        metavar="PATH",
        help="where to write the HTML page ('-' writes it to stdout)",
    )
    add_input_options(report)
    report.add_argument(
        "--top",
        type=whole_number(1),
        default=15,
        metavar="N",
        help="rows in each ranked table: rules, providers and models, unmatched messages "
        "(default: 15)",
    )
    report.add_argument("--title", default="LLM error report", help="the page's heading and title")
    add_run_options(report)
    add_rules_option(report)
    report.set_defaults(command=report_command, usage=report)


class _ReportRun(Run):
    """One ``report`` run: ``classify``'s scan, with each finding dated and its names read."""

    dates = True

    def __init__(self, args: argparse.Namespace) -> None:
        self.digest = Digest()
        super().__init__(args, self.digest.tally)
        self._stats = FileStats("")
        self._context = LineContext()

    def begin(self, name: str) -> None:
        self._stats = self.digest.open_file(name)
        self._context = LineContext()

    def watcher(self) -> LineContext:
        return self._context

    def finding(self, name: str, finding: Finding) -> None:
        self.found(name, self._context.date(finding))

    def found(self, name: str, found: Dated) -> None:
        self._stats.errors += 1
        self.digest.add(
            name, found.finding, when=found.when, provider=found.provider, model=found.model
        )

    def problem(self, name: str, problem: Problem) -> None:
        self._stats.problems += 1
        if problem.kind is ProblemKind.UNREADABLE:
            self._stats.unreadable = problem.detail
        self.digest.add_problem(name, problem)

    def end(self, name: str, *, lines: int, size: int) -> None:  # noqa: ARG002
        self._stats.lines, self._stats.bytes = lines, size
        self.digest.bytes += size


def _scan(args: argparse.Namespace) -> tuple[Digest, str]:
    """Scan every input and render the page."""
    start = time.monotonic()
    run = _ReportRun(args)
    run.scan_all(args.files or ["-"])
    page = render_html(
        run.digest,
        title=args.title,
        elapsed=time.monotonic() - start,
        generated=datetime.now(UTC),
        top=args.top,
        field=args.field,
    )
    return run.digest, page


def report_command(args: argparse.Namespace) -> int:
    """Scan the inputs, write the page, print a summary line on stderr; return the status."""
    output: str = args.output
    reason = unwritable(output)
    if reason is None:
        digest, page = _scan(args)
        reason = write_whole(output, page)
    if reason is not None:
        print(f"llm-errors: cannot write {output}: {reason}", file=sys.stderr)  # noqa: T201
        return EXIT_UNWRITABLE
    tally = digest.tally
    summary = summary_line(tally, field=args.field)
    print(f"llm-errors: wrote {output}: {summary}", file=sys.stderr)  # noqa: T201
    return EXIT_UNREADABLE if tally.problems[ProblemKind.UNREADABLE] else EXIT_OK
