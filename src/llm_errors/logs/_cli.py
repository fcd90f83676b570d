"""The ``llm-errors`` command line: classify the errors in logs, explain one message.

Only argument parsing and I/O live here. The file loop, shared with ``report``, is
in :mod:`llm_errors.logs._run`, reading in :mod:`llm_errors.logs._input`, finding and
classifying errors in :mod:`llm_errors.logs._scan`, counting in
:mod:`llm_errors.logs._tally`, rendering in :mod:`llm_errors.logs._report`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from llm_errors import Classification, ErrorCode, Layer
from llm_errors.engine import VersionAction
from llm_errors.logs._options import CommandParser, whole_number
from llm_errors.logs._report import (
    explanation_record,
    finding_line,
    render_explanation,
    render_table,
    summary_line,
)
from llm_errors.logs._report_command import add_report_command
from llm_errors.logs._rules_command import (
    add_rules_command,
    add_rules_option,
    classifier_for,
    load_args_rules,
)
from llm_errors.logs._run import Run, add_input_options, add_run_options
from llm_errors.logs._scan import UNDECIDED, Finding, InputMode, Problem, ProblemKind, subjects
from llm_errors.logs._stored import store_patterns
from llm_errors.logs._suggest import add_suggest_command
from llm_errors.logs._tally import Tally

if TYPE_CHECKING:
    from llm_errors.logs._parallel import Findings

__all__ = ["main"]

EXIT_OK: Final = 0
EXIT_FAIL_ON: Final = 1
EXIT_USAGE: Final = 2
EXIT_UNREADABLE: Final = 3
EXIT_INTERRUPTED: Final = 130
EXIT_BROKEN_PIPE: Final = 141

_EXPLAIN_LIMIT: Final = 1 << 20  # characters read from stdin by `explain -`
_WRITE_BATCH: Final = 1024  # JSON lines written at once
_COUNT_BATCH: Final = 4096  # distinct verdicts counted apart before the tally takes them

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
end_line, kind, code, rule, layer, retryable, retry_after, resets_at, status,
matched and a redacted message excerpt) and a summary line to stderr; --format
table writes
counts per code and per rule, the retryable share and the most frequent
unmatched messages. The default is table when stdout is a terminal, else jsonl.

{_EXIT_STATUS}"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``llm-errors`` with ``argv`` (default: the process arguments); return the status."""
    parser = _parser()
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:  # words argparse left over, to the command they were given to
            usage: CommandParser = args.usage
            usage.take_extras(args, extras)
        if getattr(args, "field", None) and args.input is InputMode.TEXT:
            args.usage.error("--field applies to JSON records; it cannot be used with --input text")
        if getattr(args, "fail_on", None) and (stray := _code_like_files(args)):
            args.usage.error(
                f"{stray[0]!r} is a missing FILE named like an error code: --fail-on takes "
                "one value, so give codes comma-separated or repeat the option"
            )
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if (problem := load_args_rules(args)) is not None:
        print(f"llm-errors: {problem}", file=sys.stderr)
        return EXIT_USAGE
    command: Callable[[argparse.Namespace], int] = args.command
    try:
        status = command(args)
    except KeyboardInterrupt:
        print("\nllm-errors: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    store_patterns()  # for the next run: what this one compiled
    return status


def _parser() -> CommandParser:
    parser = CommandParser(
        prog="llm-errors",
        description="Classify LLM call failures: find and route the errors in logs, "
        "or explain how one message is classified.",
        epilog=_EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction)
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
    add_input_options(scan)
    scan.add_argument(
        "--fail-on",
        metavar="CODE[,CODE...]",
        action="extend",
        type=_error_code,
        default=[],
        help="exit with status 1 if an error with one of these codes was seen "
        "(comma-separated, case-insensitive; the option may be repeated)",
    )
    scan.add_argument(
        "--top",
        type=whole_number(1),
        default=10,
        metavar="N",
        help="unmatched messages listed in the table (default: 10)",
    )
    add_run_options(scan)
    add_rules_option(scan)
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
    add_rules_option(explain)
    explain.set_defaults(command=_explain_command, usage=explain)
    add_report_command(commands.add_parser)
    add_rules_command(commands.add_parser)
    add_suggest_command(commands.add_parser)
    return parser


def _error_code(value: str) -> list[ErrorCode]:
    """One ``--fail-on`` value: a code or a comma-separated list of codes."""
    codes = []
    for part in filter(None, (v.strip() for v in value.split(","))):
        try:
            codes.append(ErrorCode(part.upper()))
        except ValueError:
            choices = ", ".join(ErrorCode)
            msg = f"{part!r} is not an error code (choose from {choices})"
            raise argparse.ArgumentTypeError(msg) from None
    if not codes:
        msg = f"{value!r} names no error code"
        raise argparse.ArgumentTypeError(msg)
    return codes


def _code_like_files(args: argparse.Namespace) -> list[str]:
    """FILEs that are missing and spelt like a code: the old ``--fail-on A B`` form."""
    codes = {code.value for code in ErrorCode}
    return [f for f in args.files if f.upper() in codes and not Path(f).exists()]


class _ClassifyRun(Run):
    """One ``classify`` run: writes findings, reports problems as met."""

    def __init__(self, args: argparse.Namespace, fmt: str) -> None:
        super().__init__(args, Tally(fail_on=frozenset(args.fail_on)), jsonl=fmt == "jsonl")
        # Counted and written in batches: a Counter step and a list append per finding,
        # one tally update per distinct verdict and one write per batch. Verdicts are
        # counted by identity (the classifier shares them; a verdict's own hash reads
        # every field), equal ones apart; the tally adds them up the same.
        self._verdicts: dict[int, Classification] = {}
        self._counts: Counter[int] = Counter()
        self._lines: list[str] = []

    def finding(self, name: str, finding: Finding) -> None:
        verdict = finding.classification
        self._counts[id(verdict)] += 1
        self._verdicts[id(verdict)] = verdict
        if not finding.matched:
            self.tally.count_message(finding.text)
        if self.jsonl:
            self._lines.append(finding_line(name, finding))
            if len(self._lines) >= _WRITE_BATCH:
                self._write()
        if len(self._counts) >= _COUNT_BATCH:
            self.flush()

    def found_range(self, name: str, findings: Findings, low: int, high: int) -> None:  # noqa: ARG002
        table = findings.table
        for index, times in Counter(findings.verdicts[low:high]).items():
            verdict = table[index]
            self._counts[id(verdict)] += times
            self._verdicts[id(verdict)] = verdict
        for position, text in findings.unmatched.items():
            if low <= position < high:
                self.tally.count_message(text)
        if self.jsonl:
            self._lines += findings.lines[low:high]
            self.flush()

    def flush(self) -> None:
        """Put the pending counts in the tally and write the pending JSON lines."""
        for key, times in self._counts.items():  # in order of first appearance
            self.tally.count_verdict(self._verdicts[key], times)
        self._counts.clear()
        self._verdicts.clear()
        self._write()

    def _write(self) -> None:
        """Write the pending JSON lines (the counts wait: a log's verdicts repeat)."""
        if self._lines:
            sys.stdout.write("\n".join(self._lines) + "\n")
            self._lines.clear()

    def end(self, name: str, *, lines: int, size: int) -> None:  # noqa: ARG002
        self.flush()

    def problem(self, name: str, problem: Problem) -> None:
        """Count a problem, and print it unless this file already printed enough of its kind."""
        self.flush()  # what came before it first, for a reader of both streams
        self.print_problem(name, problem)


def _classify_command(args: argparse.Namespace) -> int:
    fmt = args.format or ("table" if sys.stdout.isatty() else "jsonl")
    run = _ClassifyRun(args, fmt)
    run.scan_all(args.files or ["-"])
    run.flush()
    tally = run.tally
    if fmt == "table":
        sys.stdout.write(render_table(tally, top=args.top, field=args.field))
    else:
        print(f"llm-errors: {summary_line(tally, field=args.field)}", file=sys.stderr)
    if tally.failed:
        return EXIT_FAIL_ON
    if tally.problems[ProblemKind.UNREADABLE]:
        return EXIT_UNREADABLE
    return EXIT_OK


def _explain_command(args: argparse.Namespace) -> int:
    words: list[str] = args.message
    text = sys.stdin.read(_EXPLAIN_LIMIT) if words == ["-"] else " ".join(words)
    explain = classifier_for(args.user_rules).explain
    candidates = [explain(subject) for subject in subjects(text)]
    # The first a rule decides; else the first the words layer decides; else the first.
    best = next(
        (c for c in candidates if c.classification.layer not in UNDECIDED),
        next((c for c in candidates if c.classification.layer is Layer.WORDS), candidates[0]),
    )
    record = explanation_record(best)
    if args.json:
        print(json.dumps(record))
    else:
        print(render_explanation(record), end="")
    return EXIT_OK
