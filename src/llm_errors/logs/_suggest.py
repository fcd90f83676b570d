r"""``llm-errors suggest``: skeleton rules for the most frequent unmatched messages.

The logs are scanned as ``classify`` scans them (with ``--rules`` in place, so
what your rules already match is not suggested again). Unmatched errors are
counted by their folded template, as the table's "most frequent unmatched
messages" are (:func:`~llm_errors.logs._tally.normalise`: numbers, ids, UUIDs and times
folded). For each of the ``--top`` templates one ``[[rules]]`` table is written:

* ``pattern``: the template with its literal text escaped, each run of spaces
  ``\s+``, each placeholder a pattern for what it stands for, and each redacted
  spot a pattern matching the secret or its redaction;
* ``code = "FILL_IN"``: not an error code, so ``rules check`` rejects the file
  until you choose one (the comment above lists them);
* ``examples``: the first :data:`EXAMPLES_KEPT` occurrences, redacted, each with
  its ``file:line`` as source.

Collecting is bounded: at most ``2 *`` :data:`TEMPLATES_KEPT` templates are
tracked (the rarest are dropped when full, as the table's counter does). Input
problems are printed and counted as ``classify`` prints and counts them (the same
file loop, :class:`~llm_errors.logs._run.Run`); the file is written only when every
input was read, and then whole (:mod:`llm_errors.logs._output`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from llm_errors import ErrorCode
from llm_errors.logs._options import text, whole_number
from llm_errors.logs._output import unwritable, write_whole
from llm_errors.logs._report import summary_line
from llm_errors.logs._rules_command import add_rules_option
from llm_errors.logs._run import Run, add_input_options
from llm_errors.logs._scan import Finding, Problem, ProblemKind
from llm_errors.logs._tally import Tally, normalise

__all__ = [
    "CODE_PLACEHOLDER",
    "EXAMPLES_KEPT",
    "TEMPLATES_KEPT",
    "Suggestion",
    "Suggestions",
    "add_suggest_command",
    "pattern_of",
    "render_rules",
]

#: Examples written per suggested rule.
EXAMPLES_KEPT: Final = 3
#: Distinct templates kept when pruning (the most frequent ones).
TEMPLATES_KEPT: Final = 5000
#: The code written into every suggestion: not an error code, so the file is
#: rejected until each rule's code is chosen.
CODE_PLACEHOLDER: Final = "FILL_IN"
EXIT_OK: Final = 0
EXIT_UNREADABLE: Final = 3
EXIT_UNWRITABLE: Final = 4

# What ``normalise`` and redaction put in place of text, and a pattern for each.
_SPOTS: Final = re.compile(r"<redacted(?: key| <n> chars)?>|<(?:time|uuid|hex|id|n)>")
_SPOT_PATTERNS: Final = {
    "<time>": r"\S+(?:\s+\S+){0,2}?",  # one to three words: 10:00:00, Jan 3 10:00:00
    "<uuid>": r"[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}",
    "<hex>": r"0x[0-9a-f]+",
    "<id>": r"[\w-]+",
    "<n>": r"\d+(?:\.\d+)?",
}
_REDACTED: Final = r"(?:<redacted[^>\n]*>|\S+)"
# A placeholder cut by the template's limit (a redaction's ``<redacted <n> chars>``
# holds a placeholder of its own), or the ellipsis of a cut excerpt.
_CUT_END: Final = re.compile(r"<redacted(?: <n>)?[a-z ]*$|<[a-z ]*$|…$")


def _literal(text: str) -> str:
    r"""``text`` as a pattern: escaped, each run of spaces ``\s+``."""
    return r"\s+".join(re.escape(part) for part in text.split(" "))


def pattern_of(template: str) -> str:
    """A pattern matching every message folded to ``template`` (and its redacted excerpt)."""
    template = _CUT_END.sub("", template).strip()
    parts: list[str] = []
    at = 0
    for spot in _SPOTS.finditer(template):
        if spot.start() > at:
            parts.append(_literal(template[at : spot.start()]))
        found = spot.group()
        parts.append(_SPOT_PATTERNS.get(found, _REDACTED))
        at = spot.end()
    if at < len(template):
        parts.append(_literal(template[at:]))
    return "".join(parts)


@dataclass(slots=True)
class Suggestion:
    """One folded template: how often it was seen, and its first examples."""

    template: str
    count: int = 0
    examples: list[tuple[str, str]] = field(default_factory=list)
    """``(file:line, redacted excerpt)``, in input order."""


@dataclass(slots=True)
class Suggestions:
    """Unmatched findings counted by template, in bounded memory (pure)."""

    cap: int = TEMPLATES_KEPT
    unmatched: int = 0
    by_template: dict[str, Suggestion] = field(default_factory=dict)

    def add(self, source: str, finding: Finding) -> None:
        """Count ``finding`` if it is unmatched (others are ignored)."""
        if finding.matched:
            return
        message = finding.message
        template = normalise(message)
        if not pattern_of(template):
            return
        self.unmatched += 1
        entry = self.by_template.get(template)
        if entry is None:
            entry = self.by_template[template] = Suggestion(template)
        entry.count += 1
        if len(entry.examples) < EXAMPLES_KEPT:
            lines = (
                str(finding.line)
                if finding.end_line == finding.line
                else f"{finding.line}-{finding.end_line}"
            )
            entry.examples.append((f"{source}:{lines}", message))
        if len(self.by_template) > 2 * self.cap:
            ranked = sorted(self.by_template.values(), key=lambda s: s.count, reverse=True)
            self.by_template = {s.template: s for s in ranked[: self.cap]}

    def top(self, n: int) -> list[Suggestion]:
        """The ``n`` most frequent templates (ties: first seen first)."""
        return sorted(self.by_template.values(), key=lambda s: s.count, reverse=True)[:n]


def _toml_string(text: str) -> str:
    """A TOML string: literal ('...') when it can be, else basic with JSON's escapes."""
    if "'" not in text and text.isprintable():
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def render_rules(suggestions: Sequence[Suggestion], *, read: Sequence[str], unmatched: int) -> str:
    """The rules file: a header, then one ``[[rules]]`` table per suggestion."""
    codes = ", ".join(code.name for code in ErrorCode)
    lines = [
        (
            f"# Suggested by llm-errors suggest from {', '.join(read)}: {unmatched} unmatched "
            f"errors; rules for the {len(suggestions)} most frequent messages below."
        ),
        f'# For each rule: choose its code (it is "{CODE_PLACEHOLDER}", which no check',
        "# accepts), give it a better id and why, review the pattern (it matches the",
        "# folded message; widen or narrow it), then: llm-errors rules check THIS_FILE",
    ]
    for number, suggestion in enumerate(suggestions, 1):
        lines += [
            "",
            f"# seen {suggestion.count} times",
            "[[rules]]",
            f'id = "unmatched.{number}"',
            f"# code: one of {codes}",
            f'code = "{CODE_PLACEHOLDER}"',
            f"pattern = {_toml_string(pattern_of(suggestion.template))}",
            f'why = "Seen {suggestion.count} times unmatched: say why it means its code."',
            "examples = [",
            *(
                f"  {{ text = {json.dumps(text, ensure_ascii=False)}, "
                f"source = {json.dumps(where, ensure_ascii=False)} }},"
                for where, text in suggestion.examples
            ),
            "]",
        ]
    return "\n".join(lines) + "\n"


def add_suggest_command(add_parser: Callable[..., argparse.ArgumentParser]) -> None:
    """Register ``suggest`` through a subparsers' ``add_parser``."""
    suggest = add_parser(
        "suggest",
        help="write skeleton rules for the most frequent unmatched messages",
        description="Scan logs as classify does and write a rules file (TOML) with one "
        "skeleton rule per frequent unmatched message: its pattern from the folded "
        f"message, its code {CODE_PLACEHOLDER} for you to choose, its first examples "
        "with their file:line.",
        epilog=f"Input problems are reported as classify reports them. The file is written "
        "only when the run succeeds (under a temporary name beside it, then renamed), so a "
        f"failed run leaves an existing file as it was.\n\nexit status: {EXIT_OK} written; "
        f"2 usage error; {EXIT_UNREADABLE} an input could not be opened or read to its end "
        f"(nothing written); {EXIT_UNWRITABLE} the file could not be written",
    )
    suggest.add_argument("files", nargs="*", metavar="FILE", help="log files; '-' or none: stdin")
    suggest.add_argument(
        "-o",
        "--output",
        required=True,
        type=text("a path, or - for stdout"),
        metavar="PATH",
        help="the rules file ('-': stdout)",
    )
    add_input_options(suggest)
    suggest.add_argument(
        "--top", type=whole_number(1), default=10, metavar="N", help="rules suggested (default: 10)"
    )
    add_rules_option(suggest)
    # One process, no progress bar: the Run's options, fixed.
    suggest.set_defaults(command=_suggest_command, usage=suggest, jobs=1, progress="never")


class _SuggestRun(Run):
    """One ``suggest`` run: ``classify``'s scan and problem reports, unmatched errors kept."""

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(args, Tally())
        self.suggestions = Suggestions()

    def finding(self, name: str, finding: Finding) -> None:
        self.tally.count_verdict(finding.classification, 1)  # its message: in the suggestions
        self.suggestions.add(name, finding)

    def problem(self, name: str, problem: Problem) -> None:
        self.print_problem(name, problem)


def _suggest_command(args: argparse.Namespace) -> int:
    output: str = args.output
    where = "stdout" if output == "-" else output
    if (reason := unwritable(output)) is not None:
        print(f"llm-errors: cannot write {output}: {reason}", file=sys.stderr)  # noqa: T201
        return EXIT_UNWRITABLE
    paths: list[str] = args.files or ["-"]
    run = _SuggestRun(args)
    run.scan_all(paths)
    summary = summary_line(run.tally, field=args.field)
    if run.tally.problems[ProblemKind.UNREADABLE]:
        # Rules from part of the logs would look complete: write none, keep any old file.
        print(f"llm-errors: wrote nothing to {where}: {summary}", file=sys.stderr)  # noqa: T201
        return EXIT_UNREADABLE
    suggestions = run.suggestions
    chosen = suggestions.top(args.top)
    text = render_rules(chosen, read=paths, unmatched=suggestions.unmatched)
    if (reason := write_whole(output, text)) is not None:
        print(f"llm-errors: cannot write {output}: {reason}", file=sys.stderr)  # noqa: T201
        return EXIT_UNWRITABLE
    wrote = f"{len(chosen)} suggested {'rule' if len(chosen) == 1 else 'rules'} to {where}"
    print(f"llm-errors: wrote {wrote}: {summary}", file=sys.stderr)  # noqa: T201
    return EXIT_OK
