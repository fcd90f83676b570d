"""Aggregate findings and problems into a summary, in bounded memory (pure)."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from llm_errors import Classification, ErrorCode
from llm_errors.logs._scan import UNDECIDED, Finding, Problem, ProblemKind, excerpt

__all__ = ["WAITS_KEPT", "CappedCounter", "Resets", "Tally", "Waits", "normalise", "utc_time"]

#: Distinct unmatched messages tracked before the rarest are pruned.
UNMATCHED_CAP: Final = 5000
#: Longest normalised message kept as a key, in characters.
_KEY_LIMIT: Final = 160
#: Unreadable files listed by name in the summary; the rest are only counted.
_UNREADABLE_LISTED: Final = 20
#: Distinct waits kept exactly; past it every wait is kept to two significant digits.
WAITS_KEPT: Final = 4096

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
# One pass, the alternatives tried in order at each position; the group name is the
# placeholder.
_FOLD = re.compile(
    rf"""
      (?P<time>\d{{4}}-\d{{2}}-\d{{2}}(?:[T\ ]\d{{2}}:\d{{2}}(?::\d{{2}})?(?:[.,]\d+)?
               (?:Z|[+-]\d{{2}}:?\d{{2}})?)?
             | \b{_MONTH}\s+\d{{1,2}}\s+\d{{2}}:\d{{2}}:\d{{2}}\b
             | \b\d{{2}}:\d{{2}}:\d{{2}}(?:[.,]\d+)?\b)
    | (?P<uuid>\b[0-9a-fA-F]{{8}}-(?:[0-9a-fA-F]{{4}}-){{3}}[0-9a-fA-F]{{12}}\b)
    | (?P<hex>\b0x[0-9a-fA-F]+\b)
    | (?P<id>\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{{8,}})  # request, trace, completion ids
    | (?P<n>\d+(?:\.\d+)?)
    """,
    re.VERBOSE,
)
_LEADING_TIME = re.compile(r"^[\W_]*<time>[\s\],|-]*")


def _placeholder(match: re.Match[str]) -> str:
    return f"<{match.lastgroup}>"


def normalise(message: str) -> str:
    """Fold a message so that occurrences differing only in numbers or ids count together.

    Timestamps become ``<time>`` (and a leading one is dropped), UUIDs ``<uuid>``,
    long letter-and-digit tokens (request ids) ``<id>``, other numbers ``<n>``.
    """
    message = " ".join(_LEADING_TIME.sub("", _FOLD.sub(_placeholder, message)).split())
    return message[:_KEY_LIMIT]


class CappedCounter:
    """A counter of strings that keeps at most ``2 * cap`` keys.

    When full it keeps the ``cap`` most frequent keys and moves the others' counts
    to :attr:`untracked`, so heavy hitters survive while memory stays bounded.
    Counts are exact until the first prune and lower bounds after it.
    """

    def __init__(self, cap: int = UNMATCHED_CAP) -> None:
        self.cap = cap
        self.untracked = 0
        self._counts: dict[str, int] = {}

    def add(self, key: str) -> None:
        """Count one occurrence of ``key``."""
        self._counts[key] = self._counts.get(key, 0) + 1
        if len(self._counts) > 2 * self.cap:
            ranked = sorted(self._counts.items(), key=lambda item: item[1], reverse=True)
            self._counts = dict(ranked[: self.cap])
            self.untracked += sum(count for _, count in ranked[self.cap :])

    def most_common(self, n: int) -> list[tuple[str, int]]:
        """The ``n`` most frequent keys, most frequent first (ties: first seen first)."""
        return Counter(self._counts).most_common(n)

    @property
    def distinct(self) -> int:
        """Keys currently tracked."""
        return len(self._counts)

    @property
    def approximate(self) -> bool:
        """Whether a prune happened, so counts are lower bounds."""
        return self.untracked > 0


def _coarse(seconds: float) -> float:
    """``seconds`` to two significant digits: at most 90 values a decade."""
    return float(f"{seconds:.2g}")


def _seconds(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".") + " s"


@dataclass(slots=True)
class Waits:
    """The waits errors asked for (their ``retry_after``): how many, their median and max.

    Bounded: :data:`WAITS_KEPT` distinct values are kept exactly; past that every value
    is kept to two significant digits (:attr:`approximate`: the median is then within
    5 %). The count and the max are always exact.
    """

    count: int = 0
    longest: float = 0.0
    approximate: bool = False
    _values: Counter[float] = field(default_factory=Counter)

    def add(self, seconds: float, times: int = 1) -> None:
        """Count ``times`` errors that asked to wait ``seconds``."""
        self.count += times
        self.longest = max(self.longest, seconds)
        self._values[_coarse(seconds) if self.approximate else seconds] += times
        if len(self._values) > WAITS_KEPT:
            self.approximate = True
            coarse: Counter[float] = Counter()
            for value, count in self._values.items():
                coarse[_coarse(value)] += count
            self._values = coarse

    @property
    def distinct(self) -> int:
        """Distinct values kept (at most :data:`WAITS_KEPT`)."""
        return len(self._values)

    @property
    def median(self) -> float | None:
        """The median wait (of the two middle ones, their mean); ``None`` without waits."""
        if not self.count:
            return None
        low_rank, high_rank = (self.count - 1) // 2, self.count // 2  # equal for an odd count
        low = high = 0.0
        seen = 0
        for value, count in sorted(self._values.items()):
            if seen <= low_rank < seen + count:
                low = value
            seen += count
            if high_rank < seen:
                high = value
                break
        return (low + high) / 2

    def summary(self) -> str | None:
        """``3 asked to wait (median 20 s, max 60 s)``; ``None`` when none did."""
        median = self.median
        if median is None:
            return None
        about = "about " if self.approximate else ""
        return (
            f"{self.count:,} asked to wait "
            f"(median {about}{_seconds(median)}, max {_seconds(self.longest)})"
        )


def utc_time(epoch: float) -> str:
    """``epoch`` as RFC 3339 in UTC, to the second: ``2026-09-01T00:00:00Z``."""
    when = dt.datetime.fromtimestamp(epoch, dt.UTC)
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(slots=True)
class Resets:
    """The instants errors said their limit resets at (their ``resets_at``): count, range."""

    count: int = 0
    earliest: float = math.inf
    latest: float = -math.inf

    def add(self, epoch: float, times: int = 1) -> None:
        """Count ``times`` errors that said their limit resets at ``epoch``."""
        self.count += times
        self.earliest = min(self.earliest, epoch)
        self.latest = max(self.latest, epoch)

    def summary(self) -> str | None:
        """``2 stated a reset (2026-09-01T00:00:00Z to ...)``; ``None`` when none did."""
        if not self.count:
            return None
        first, last = utc_time(self.earliest), utc_time(self.latest)
        span = first if first == last else f"{first} to {last}"
        return f"{self.count:,} stated when their limit resets ({span})"


@dataclass(slots=True)
class Tally:
    """Everything the summary reports; fed per finding and per problem."""

    fail_on: frozenset[ErrorCode] = frozenset()
    files: int = 0
    lines: int = 0
    records: int = 0
    missing_field: int = 0
    errors: int = 0
    unmatched: int = 0
    retryable: int = 0
    by_code: Counter[ErrorCode] = field(default_factory=Counter)
    retryable_by_code: Counter[ErrorCode] = field(default_factory=Counter)
    by_rule: Counter[tuple[str, ErrorCode]] = field(default_factory=Counter)
    unmatched_messages: CappedCounter = field(default_factory=CappedCounter)
    problems: Counter[ProblemKind] = field(default_factory=Counter)
    unreadable: list[str] = field(default_factory=list)
    waits: Waits = field(default_factory=Waits)
    resets: Resets = field(default_factory=Resets)
    """The errors that asked to wait (``Retry-After`` or a stated wait), for the summary."""

    def add(self, finding: Finding) -> None:
        """Count one error."""
        self.count(finding.classification, finding.text)

    def count(self, verdict: Classification, text: str) -> None:
        """Count one error by its verdict; ``text`` (raw) is read only if it is unmatched."""
        self.count_verdict(verdict, 1)
        if verdict.layer in UNDECIDED:
            self.count_message(text)

    def count_message(self, text: str) -> None:
        """Count the message of one unmatched error (``text`` raw; only its excerpt is kept)."""
        self.unmatched_messages.add(normalise(excerpt(text)))

    def count_verdict(self, verdict: Classification, times: int) -> None:
        """Count ``times`` errors with ``verdict``, but not their messages (batched counts)."""
        self.errors += times
        self.by_code[verdict.code] += times
        self.by_rule[verdict.rule, verdict.code] += times
        self.retryable += verdict.retryable * times
        self.retryable_by_code[verdict.code] += verdict.retryable * times
        if verdict.layer in UNDECIDED:
            self.unmatched += times
        if verdict.retry_after is not None:
            self.waits.add(verdict.retry_after, times)
        if verdict.resets_at is not None:
            self.resets.add(verdict.resets_at, times)

    def add_problem(self, source: str, problem: Problem) -> None:
        """Count one problem; unreadable files are also remembered by name (the first few)."""
        self.problems[problem.kind] += 1
        if problem.kind is ProblemKind.UNREADABLE and len(self.unreadable) < _UNREADABLE_LISTED:
            self.unreadable.append(f"{source}: {problem.detail}")

    @property
    def failed(self) -> frozenset[ErrorCode]:
        """The ``fail_on`` codes that were seen."""
        return frozenset(code for code in self.fail_on if self.by_code[code])
