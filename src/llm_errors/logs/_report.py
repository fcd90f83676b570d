"""Render scan results: JSON Lines records, the summary table, the progress bar (pure)."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Any, Final

from llm_errors import Classification, Explanation, redact
from llm_errors.logs._scan import UNDECIDED, Finding, ProblemKind, excerpt_json
from llm_errors.logs._tally import Tally, utc_time

__all__ = [
    "explanation_record",
    "finding_line",
    "finding_record",
    "printable",
    "render_explanation",
    "render_progress",
    "render_table",
    "reset_time",
    "summary_line",
]

_BAR_WIDTH = 24
_LABEL_WIDTH = 28
_MIB = 1 << 20
#: Distinct verdicts and file names whose JSON text is kept (least recently used dropped).
_JSON_CACHE: Final = 4096


# What a terminal would obey rather than show: C0 and C1 controls (ESC starts its
# escape sequences), DEL, and Unicode's bidirectional controls.
_UNPRINTABLE: Final = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: each control character shown as its escape."""
    return _UNPRINTABLE.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


def reset_time(verdict: Classification) -> str | None:
    """The verdict's ``resets_at`` as RFC 3339 in UTC (``2026-09-01T00:00:00Z``), or ``None``."""
    return None if verdict.resets_at is None else utc_time(verdict.resets_at)


def finding_record(source: str, finding: Finding) -> dict[str, Any]:
    """One ``--format jsonl`` object."""
    verdict = finding.classification
    return {
        "file": source,
        "line": finding.line,
        "end_line": finding.end_line,
        "kind": finding.kind,
        "code": verdict.code.value,
        "rule": verdict.rule,
        "layer": verdict.layer.value,
        "retryable": verdict.retryable,
        "retry_after": verdict.retry_after,
        "resets_at": reset_time(verdict),
        "status": verdict.status,
        "matched": finding.matched,
        "message": finding.message,
    }


#: Each verdict's keys as JSON, by the verdict's identity: the classifier shares its
#: verdicts, and a verdict's own hash reads every field. The verdict is kept with its
#: text, so no other object takes its identity while the entry lives.
_VERDICT_TEXTS: dict[int, tuple[Classification, str]] = {}


def _verdict_json(verdict: Classification) -> str:
    """The verdict's keys of a record, as ``json.dumps`` writes them (without braces)."""
    kept = _VERDICT_TEXTS.get(id(verdict))
    if kept is not None:
        return kept[1]
    if len(_VERDICT_TEXTS) >= _JSON_CACHE:
        _VERDICT_TEXTS.clear()
    text = _verdict_keys(verdict)
    _VERDICT_TEXTS[id(verdict)] = (verdict, text)
    return text


def _verdict_keys(verdict: Classification) -> str:
    return json.dumps(
        {
            "code": verdict.code.value,
            "rule": verdict.rule,
            "layer": verdict.layer.value,
            "retryable": verdict.retryable,
            "retry_after": verdict.retry_after,
            "resets_at": reset_time(verdict),
            "status": verdict.status,
            "matched": verdict.layer not in UNDECIDED,  # (``Finding.matched``)
        }
    )[1:-1]


@functools.lru_cache(maxsize=_JSON_CACHE)
def _string_json(text: str) -> str:
    return encode_basestring_ascii(text)


#: A record's message as JSON, by its text: records that share a verdict share their
#: text (``Scanner``'s record cache), a string whose hash Python keeps.
_record_message_json: Final = functools.lru_cache(maxsize=_JSON_CACHE)(excerpt_json)


def finding_line(source: str, finding: Finding) -> str:
    """``json.dumps(finding_record(source, finding))``, assembled from cached parts.

    The verdict's keys are serialised once per distinct verdict and the file name
    once per file; the message as :func:`~llm_errors.logs._scan.excerpt_json` does.
    """
    text = finding.text
    message = _record_message_json(text) if finding.kind == "record" else excerpt_json(text)
    return (
        f'{{"file": {_string_json(source)}, "line": {finding.line}, '
        f'"end_line": {finding.end_line}, "kind": "{finding.kind}", '
        f'{_verdict_json(finding.classification)}, "message": {message}}}'
    )


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _yes_no(part: int, whole: int) -> str:
    if part == whole:
        return "yes"
    return "no" if part == 0 else f"{part:,} of {whole:,}"


@dataclass(frozen=True, slots=True)
class _Summary:
    """The counts both the table and the summary line give, as phrases: their one source."""

    found: str
    """What was read and what was found in it (with the waits the errors asked for)."""
    missing: str | None
    """JSON records without ``--field``'s path."""
    problems: tuple[tuple[ProblemKind, str], ...]
    """One phrase per kind of input problem."""
    fail_on: str | None
    """Which ``--fail-on`` codes were seen, and how often."""

    @property
    def problem_list(self) -> str:
        """``input problems: 2 bad JSON lines, 1 unreadable file``."""
        return f"input problems: {', '.join(phrase for _, phrase in self.problems)}"


def _summarise(tally: Tally, field: str | None) -> _Summary:
    read = f"{_plural(tally.files, 'file')}, {_plural(tally.lines, 'line')}"
    if tally.records:
        read += f" ({_plural(tally.records, 'JSON record')})"
    found = (
        f"{_plural(tally.errors, 'error')} ({tally.retryable:,} retryable, "
        f"{tally.unmatched:,} unmatched)"
    )
    for stated in (tally.waits.summary(), tally.resets.summary()):
        if stated is not None:
            found += f"; {stated}"
    missing = None
    if tally.missing_field:
        missing = f"{_plural(tally.missing_field, 'JSON record')} had no field {field!r}"
    fail_on = None
    if tally.fail_on:
        codes = ", ".join(sorted(tally.fail_on))
        seen = sorted(tally.failed)
        verdict = ", ".join(f"{code} ({tally.by_code[code]:,})" for code in seen) or "none"
        fail_on = f"--fail-on {codes}: seen: {verdict}"
    problems = tuple((kind, _plural(n, str(kind))) for kind, n in sorted(tally.problems.items()))
    return _Summary(f"{read}: {found}", missing, problems, fail_on)


def summary_line(tally: Tally, *, field: str | None = None) -> str:
    """One line with every count of the table's headline (``--format jsonl``'s, on stderr).

    What was read, what was found, records without ``field``, input problems and the
    ``--fail-on`` verdict; the breakdowns per code and rule are in the records themselves.
    """
    summary = _summarise(tally, field)
    parts = [summary.found]
    if summary.missing:
        parts.append(summary.missing)
    if summary.problems:
        parts.append(summary.problem_list)
    if summary.fail_on:
        parts.append(summary.fail_on)
    return "; ".join(parts)


def render_table(tally: Tally, *, top: int = 10, field: str | None = None) -> str:
    """The ``--format table`` report: counts per code and rule, unmatched messages, problems."""
    summary = _summarise(tally, field)
    headline = summary.found
    if summary.problems:
        headline += f"; {summary.problem_list}"
    out = [f"Scanned {headline}."]
    if summary.missing:
        out.append(f"{summary.missing}.")
    if tally.errors:
        out += ["", f"  {'code':<18}{'count':>8}{'share':>8}  retryable"]
        for code, count in sorted(tally.by_code.items(), key=lambda item: (-item[1], item[0])):
            retryable = _yes_no(tally.retryable_by_code[code], count)
            out.append(f"  {code:<18}{count:>8,}{_share(count, tally.errors):>8}  {retryable}")
        out.append(f"  {'total':<18}{tally.errors:>8,}{'100%':>8}")
        out.append(f"  retryable share: {_share(tally.retryable, tally.errors)}")
        width = max(len(rule) for rule, _ in tally.by_rule) + 2
        out += ["", f"  {'rule':<{width}}{'code':<18}{'count':>8}"]
        rules = sorted(tally.by_rule.items(), key=lambda item: (-item[1], item[0]))
        out += [f"  {rule:<{width}}{code:<18}{count:>8,}" for (rule, code), count in rules]
    messages = tally.unmatched_messages.most_common(top)
    if messages:
        note = "numbers, ids and times folded"
        if tally.unmatched_messages.approximate:
            note += "; counts are lower bounds, rare messages were pruned"
        out += ["", f"Most frequent unmatched messages ({note}):"]
        out += [f"  {count:>6,}  {printable(message)}" for message, count in messages]
    elif not tally.errors:
        out += ["", "No errors found."]
    if summary.problems:
        out += ["", "Input problems (each reported on stderr as it was met):"]
        for kind, phrase in summary.problems:
            out.append(f"  {phrase}")
            if kind is ProblemKind.UNREADABLE:
                out += [f"      {printable(entry)}" for entry in tally.unreadable]
    if summary.fail_on:
        out += ["", summary.fail_on]
    return "\n".join(out) + "\n"


def render_progress(
    label: str, done: int, total: int | None, elapsed: float, *, lines: int | None = None
) -> str:
    """One progress-bar line.

    With a known size: ``app.log [#####.....]  50%  512/1,024 MiB  210.3 MiB/s  ETA 0:02``;
    without one (stdin, gzip): ``<stdin>  1,234,567 lines  512 MiB  210.3 MiB/s``.
    """
    if len(label) > _LABEL_WIDTH:
        label = "…" + label[-(_LABEL_WIDTH - 1) :]
    speed = done / elapsed if elapsed > 0 else 0.0
    rate = f"{speed / _MIB:,.1f} MiB/s" if elapsed > 0 else "- MiB/s"
    if total is None:
        counted = "" if lines is None else f"{lines:,} lines  "
        return f"{label:<{_LABEL_WIDTH}}  {counted}{done / _MIB:,.0f} MiB  {rate}"
    fraction = min(done / total, 1.0) if total else 1.0
    filled = round(fraction * _BAR_WIDTH)
    bar = "#" * filled + "." * (_BAR_WIDTH - filled)
    eta = ""
    if speed > 0 and done < total:
        minutes, seconds = divmod(round((total - done) / speed), 60)
        eta = f"  ETA {minutes}:{seconds:02d}"
    return (
        f"{label:<{_LABEL_WIDTH}} [{bar}] {fraction:>4.0%}  "
        f"{done / _MIB:,.0f}/{total / _MIB:,.0f} MiB  {rate}{eta}"
    )


def explanation_record(explanation: Explanation) -> dict[str, Any]:
    """The ``explain --json`` object (the matched text redacted)."""
    verdict = explanation.classification
    matched = explanation.matched
    return {
        "code": verdict.code.value,
        "retryable": verdict.retryable,
        "rule": verdict.rule,
        "layer": verdict.layer.value,
        "retry_after": verdict.retry_after,
        "resets_at": reset_time(verdict),
        "status": verdict.status,
        "matched": None if matched is None else redact(matched),
        "why": explanation.why,
        "source": explanation.source,
        "example": explanation.example,
        "words": [[word, weight] for word, weight in explanation.words] or None,
    }


def render_explanation(record: dict[str, Any]) -> str:
    """``explain`` for people: one ``key  value`` line per field, ``-`` for none.

    Values come from the message and from users' rules files (a rule's ``why``,
    its example, its file's name): control characters are shown escaped.
    """
    width = max(len(key) for key in record) + 2
    lines = []
    for key, value in record.items():
        shown = (
            "-"
            if value is None
            else ("yes" if value is True else "no" if value is False else value)
        )
        if key == "words" and value:
            shown = ", ".join(f"{word} {weight:+.2f}" for word, weight in value)
        lines.append(f"{key:<{width}}{printable(str(shown))}")
    return "\n".join(lines) + "\n"
