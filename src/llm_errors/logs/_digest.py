"""Everything a report shows, aggregated from findings in bounded memory (pure).

A :class:`Digest` wraps the :class:`~llm_errors.logs.Tally` that ``classify``
fills (so the counts are the same by construction) and adds what a report needs
beyond it: the timeline, counts per provider and model, per-file figures, the
first problems of each kind with their reasons, and for every row the first
:data:`EXCERPTS_PER_ROW` redacted excerpts (:class:`Excerpt`) with where they were found.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from llm_errors import ErrorCode
from llm_errors.logs._scan import Finding, Problem, ProblemKind
from llm_errors.logs._tally import Tally, normalise
from llm_errors.logs._timeline import Timeline

__all__ = [
    "EXCERPTS_PER_ROW",
    "FILES_LISTED",
    "NAMED_LIMIT",
    "PROBLEMS_LISTED",
    "Digest",
    "Excerpt",
    "FileStats",
    "Named",
]

#: Excerpts kept per table row.
EXCERPTS_PER_ROW: Final = 2
#: Distinct (provider, model) pairs counted; later pairs are counted as ``other``
#: (errors that name neither are always counted apart).
NAMED_LIMIT: Final = 200
#: Problems of each kind kept with their reasons; the rest are only counted.
PROBLEMS_LISTED: Final = 5
#: Files listed one by one; the rest are only counted in the totals.
FILES_LISTED: Final = 50

_OTHER: Final = ("other", "other")


@dataclass(frozen=True, slots=True)
class Excerpt:
    """A report row's example error: where it was found and its redacted message excerpt.

    Not a rule's :class:`llm_errors.Example` (a message a rule must decide): this is
    what the page shows of an error the logs held.
    """

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
    excerpts: list[Excerpt] = field(default_factory=list)


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


def _keep(excerpts: list[Excerpt], excerpt: Excerpt) -> None:
    if len(excerpts) < EXCERPTS_PER_ROW:
        excerpts.append(excerpt)


@dataclass(slots=True)
class Digest:
    """A report's figures; fed findings (with their time and names) and problems."""

    tally: Tally = field(default_factory=Tally)
    timeline: Timeline = field(default_factory=Timeline)
    bytes: int = 0
    files: list[FileStats] = field(default_factory=list)
    code_excerpts: dict[ErrorCode, list[Excerpt]] = field(default_factory=dict)
    rule_excerpts: dict[tuple[str, ErrorCode], list[Excerpt]] = field(default_factory=dict)
    unmatched_excerpts: dict[str, list[Excerpt]] = field(default_factory=dict)
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
        excerpt = Excerpt(source, finding.line, finding.end_line, finding.message)
        _keep(self.code_excerpts.setdefault(verdict.code, []), excerpt)
        _keep(self.rule_excerpts.setdefault((verdict.rule, verdict.code), []), excerpt)
        if not finding.matched:
            self._add_unmatched(normalise(excerpt.message), excerpt)
        if when is not None:
            self.timeline.add(when, verdict.code)
        key = (provider, model)
        if key not in self.named and key != (None, None) and len(self.named) >= NAMED_LIMIT:
            key = _OTHER
        row = self.named.setdefault(key, Named())
        row.count += 1
        row.retryable += verdict.retryable
        row.codes[verdict.code] += 1
        _keep(row.excerpts, excerpt)

    def _add_unmatched(self, key: str, excerpt: Excerpt) -> None:
        _keep(self.unmatched_excerpts.setdefault(key, []), excerpt)
        counter = self.tally.unmatched_messages
        if len(self.unmatched_excerpts) > 2 * counter.cap:
            # The counter pruned its rare keys; drop their excerpts too.
            kept = {message for message, _ in counter.most_common(counter.distinct)}
            self.unmatched_excerpts = {
                k: v for k, v in self.unmatched_excerpts.items() if k in kept
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
