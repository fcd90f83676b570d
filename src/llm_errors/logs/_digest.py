"""Everything a report shows, aggregated from findings in bounded memory (pure).

A :class:`Digest` wraps the :class:`~llm_errors.logs.Tally` that ``classify``
fills (so the counts are the same by construction) and adds what a report needs
beyond it: the timeline, counts per provider and model, per-file figures, the
first problems of each kind with their reasons, and for every row the first
:data:`EXAMPLES_PER_ROW` redacted examples with where they were found.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from llm_errors._taxonomy import ErrorCode
from llm_errors.logs._scan import Finding, Problem, ProblemKind
from llm_errors.logs._tally import Tally, normalise
from llm_errors.logs._timeline import Timeline

__all__ = [
    "EXAMPLES_PER_ROW",
    "FILES_LISTED",
    "NAMED_LIMIT",
    "PROBLEMS_LISTED",
    "Digest",
    "Example",
    "FileStats",
    "Named",
]

#: Example lines kept per table row.
EXAMPLES_PER_ROW: Final = 2
#: Distinct (provider, model) pairs counted; later pairs are counted as ``other``
#: (errors that name neither are always counted apart).
NAMED_LIMIT: Final = 200
#: Problems of each kind kept with their reasons; the rest are only counted.
PROBLEMS_LISTED: Final = 5
#: Files listed one by one; the rest are only counted in the totals.
FILES_LISTED: Final = 50

_OTHER: Final = ("other", "other")


@dataclass(frozen=True, slots=True)
class Example:
    """One redacted example of a row: where it was found and its message excerpt."""

    source: str
    line: int
    end_line: int
    message: str

    @property
    def where(self) -> str:
        """``file:line`` or ``file:first-last``."""
        lines = str(self.line) if self.end_line == self.line else f"{self.line}-{self.end_line}"
        return f"{self.source}:{lines}"


@dataclass(slots=True)
class Named:
    """Errors that name one provider and model (either may be ``None``: not named)."""

    count: int = 0
    retryable: int = 0
    codes: Counter[ErrorCode] = field(default_factory=Counter)
    examples: list[Example] = field(default_factory=list)


@dataclass(slots=True)
class FileStats:
    """What was read of one input."""

    name: str
    lines: int = 0
    bytes: int = 0
    errors: int = 0
    problems: int = 0
    unreadable: str | None = None
    """Why the file could not be opened or read to its end, if so."""


def _keep(examples: list[Example], example: Example) -> None:
    if len(examples) < EXAMPLES_PER_ROW:
        examples.append(example)


@dataclass(slots=True)
class Digest:
    """A report's figures; fed findings (with their time and names) and problems."""

    tally: Tally = field(default_factory=Tally)
    timeline: Timeline = field(default_factory=Timeline)
    bytes: int = 0
    files: list[FileStats] = field(default_factory=list)
    code_examples: dict[ErrorCode, list[Example]] = field(default_factory=dict)
    rule_examples: dict[tuple[str, ErrorCode], list[Example]] = field(default_factory=dict)
    unmatched_examples: dict[str, list[Example]] = field(default_factory=dict)
    named: dict[tuple[str | None, str | None], Named] = field(default_factory=dict)
    problem_details: dict[ProblemKind, list[str]] = field(default_factory=dict)

    def open_file(self, name: str) -> FileStats:
        """Start counting one input; its stats are listed if fewer than the limit came before."""
        stats = FileStats(name)
        if len(self.files) < FILES_LISTED:
            self.files.append(stats)
        return stats

    def add(
        self,
        source: str,
        finding: Finding,
        *,
        when: float | None = None,
        provider: str | None = None,
        model: str | None = None,
    ) -> None:
        """Count one error found in ``source``."""
        self.tally.add(finding)
        verdict = finding.classification
        example = Example(source, finding.line, finding.end_line, finding.message)
        _keep(self.code_examples.setdefault(verdict.code, []), example)
        _keep(self.rule_examples.setdefault((verdict.rule, verdict.code), []), example)
        if not finding.matched:
            self._add_unmatched(normalise(example.message), example)
        if when is not None:
            self.timeline.add(when, verdict.code)
        key = (provider, model)
        if key not in self.named and key != (None, None) and len(self.named) >= NAMED_LIMIT:
            key = _OTHER
        row = self.named.setdefault(key, Named())
        row.count += 1
        row.retryable += verdict.retryable
        row.codes[verdict.code] += 1
        _keep(row.examples, example)

    def _add_unmatched(self, key: str, example: Example) -> None:
        _keep(self.unmatched_examples.setdefault(key, []), example)
        counter = self.tally.unmatched_messages
        if len(self.unmatched_examples) > 2 * counter.cap:
            # The counter pruned its rare keys; drop their examples too.
            kept = {message for message, _ in counter.most_common(counter.distinct)}
            self.unmatched_examples = {
                k: v for k, v in self.unmatched_examples.items() if k in kept
            }

    def add_problem(self, source: str, problem: Problem) -> None:
        """Count one problem and keep the first few of its kind with their reasons."""
        self.tally.add_problem(source, problem)
        details = self.problem_details.setdefault(problem.kind, [])
        if len(details) < PROBLEMS_LISTED:
            where = source if problem.line is None else f"{source}:{problem.line}"
            details.append(f"{where}: {problem.detail}")

    @property
    def unnamed(self) -> int:
        """Errors that name neither a provider nor a model."""
        row = self.named.get((None, None))
        return 0 if row is None else row.count
