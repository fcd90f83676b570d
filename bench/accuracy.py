"""Accuracy of the text classifier on the sourced corpus, with a held-out fifth.

The corpus (``tests/llm_errors/corpus/*.jsonl``) holds real error strings, each with the
code ``docs/errors.md`` gives it and its public source. The rules were written from it,
so the score on it is a floor, not a measure of generalisation. For that, a fifth of the
corpus is held out: every string whose *source* hashes into the fifth bucket, so that a
whole thread stays on one side and a rule written from one comment cannot be graded on
its neighbour.

It prints, for the training part and the held-out fifth: exact-code agreement and
retryable agreement (is the predicted code retried by default exactly when the label
is?), per code and per provider family, a confusion matrix and the misses by id.

The sealed sets (``tests/llm_errors/corpus/sealed/*.jsonl``) are the measure of
generalisation: strings collected from sources no rule author had used, after the rules
were written, and never used to write one. Each is printed as a part of its own, with
its false retries (a non-retryable failure classified retryable) and missed retries;
write no rule from one (when it has been learned from, move it into the corpus and
collect a new one).

    python bench/accuracy.py              # every part, 30 misses each
    python bench/accuracy.py --misses 200 # more misses
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from llm_errors import DEFAULT_RETRYABLE_CODES, ErrorCode, classify

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "llm_errors" / "corpus"
#: Strings collected after the rules were written, never used to write one.
SEALED = CORPUS / "sealed"
#: One source in this many is held out (by the hash of the source, never of the text).
HOLD_OUT = 5


@dataclass(frozen=True, slots=True)
class Entry:
    """One corpus string with its label and where it was read."""

    id: str
    text: str
    code: ErrorCode
    source: str
    provider: str
    why: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the classifier said about one entry."""

    entry: Entry
    predicted: ErrorCode
    rule: str

    @property
    def exact(self) -> bool:
        """The predicted code is the label's."""
        return self.predicted is self.entry.code

    @property
    def retry_agrees(self) -> bool:
        """The predicted code is retried by default exactly when the label's is."""
        return (self.predicted in DEFAULT_RETRYABLE_CODES) == (
            self.entry.code in DEFAULT_RETRYABLE_CODES
        )

    @property
    def false_retry(self) -> bool:
        """A failure that can never pass (a non-retryable label) would be retried."""
        return self.predicted in DEFAULT_RETRYABLE_CODES and (
            self.entry.code not in DEFAULT_RETRYABLE_CODES
        )

    @property
    def missed_retry(self) -> bool:
        """A recoverable failure (a retryable label) would not be retried."""
        return self.entry.code in DEFAULT_RETRYABLE_CODES and (
            self.predicted not in DEFAULT_RETRYABLE_CODES
        )


def sealed_sets() -> list[Path]:
    """The sealed sets, oldest first: each is scored on its own, never pooled."""
    return sorted(SEALED.glob("*.jsonl"))


def load(directory: Path = CORPUS) -> list[Entry]:
    """Every entry of every ``*.jsonl`` file in ``directory`` (or of that one file)."""
    entries = []
    paths = [directory] if directory.is_file() else sorted(directory.glob("*.jsonl"))
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                entries.append(
                    Entry(
                        id=raw["id"],
                        text=raw["text"],
                        code=ErrorCode(raw["code"]),
                        source=raw["source"],
                        provider=raw.get("provider", ""),
                        why=raw.get("why", ""),
                    )
                )
    return entries


def held_out(entry: Entry) -> bool:
    """Whether ``entry`` is in the held-out fifth (decided by its source alone)."""
    digest = hashlib.sha256(entry.source.encode("utf-8")).digest()
    return digest[0] % HOLD_OUT == 0


def judge(entries: Iterable[Entry]) -> list[Verdict]:
    """Classify each entry's text as flattened text (no status, no exception object)."""
    verdicts = []
    for entry in entries:
        result = classify(entry.text)
        verdicts.append(Verdict(entry, result.code, result.rule))
    return verdicts


def share(verdicts: Sequence[Verdict], attribute: str) -> float:
    """The share of ``verdicts`` for which ``attribute`` is true (1.0 when empty)."""
    if not verdicts:
        return 1.0
    return sum(getattr(v, attribute) for v in verdicts) / len(verdicts)


def _table(title: str, groups: dict[str, list[Verdict]]) -> None:
    print(f"\n{title:<24} {'n':>5} {'exact':>7} {'retry':>7}")
    for name, group in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(
            f"{name:<24} {len(group):>5} {share(group, 'exact'):>7.1%} "
            f"{share(group, 'retry_agrees'):>7.1%}"
        )


def _confusion(verdicts: Sequence[Verdict]) -> None:
    codes = list(ErrorCode)
    short = {code: code.value[:6] for code in codes}
    counts = Counter((v.entry.code, v.predicted) for v in verdicts)
    print("\nconfusion (rows: label, columns: predicted)")
    print(f"{'':<17}" + "".join(f"{short[c]:>7}" for c in codes))
    for label in codes:
        row = [counts[label, predicted] for predicted in codes]
        if any(row):
            print(f"{label.value:<17}" + "".join(f"{n or '.':>7}" for n in row))


def report(name: str, verdicts: Sequence[Verdict], misses: int) -> None:
    """Print one part's figures, tables and misses."""
    sources = {v.entry.source for v in verdicts}
    print(f"\n=== {name}: {len(verdicts)} strings from {len(sources)} sources ===")
    print(f"exact code:          {share(verdicts, 'exact'):.1%}")
    print(f"retryable agreement: {share(verdicts, 'retry_agrees'):.1%}")
    false = sum(v.false_retry for v in verdicts)
    missed = sum(v.missed_retry for v in verdicts)
    fallen = sum(not v.exact and v.rule == "fallback" for v in verdicts)
    print(f"false retries:       {false} ({share(verdicts, 'false_retry'):.1%})")
    print(f"missed retries:      {missed} ({share(verdicts, 'missed_retry'):.1%})")
    print(f"misses to fallback:  {fallen} of {sum(not v.exact for v in verdicts)}")
    by_code: dict[str, list[Verdict]] = defaultdict(list)
    by_provider: dict[str, list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        by_code[verdict.entry.code.value].append(verdict)
        by_provider[verdict.entry.provider or "?"].append(verdict)
    _table("per code", by_code)
    top = dict(sorted(by_provider.items(), key=lambda kv: -len(kv[1]))[:20])
    _table("per provider (top 20)", top)
    _confusion(verdicts)
    wrong = [v for v in verdicts if not v.exact]
    print(f"\nmisses ({len(wrong)}; first {min(misses, len(wrong))}):")
    for verdict in wrong[:misses]:
        text = " ".join(verdict.entry.text.split())[:110]
        print(
            f"  {verdict.entry.id}: {verdict.entry.code} -> {verdict.predicted} "
            f"({verdict.rule}) {text}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", type=int, default=30, help="misses listed per part")
    args = parser.parse_args(argv)
    entries = load()
    verdicts = judge(entries)
    training = [v for v in verdicts if not held_out(v.entry)]
    held = [v for v in verdicts if held_out(v.entry)]
    report("training (four fifths)", training, args.misses)
    report("held-out fifth", held, args.misses)
    summary = (
        f"\naccuracy: training exact {share(training, 'exact'):.1%} retry "
        f"{share(training, 'retry_agrees'):.1%}; held-out exact {share(held, 'exact'):.1%} "
        f"retry {share(held, 'retry_agrees'):.1%} ({len(entries)} strings)"
    )
    for path in sealed_sets():
        sealed = judge(load(path))
        report(f"sealed {path.stem} (collected after the rules)", sealed, args.misses)
        summary += (
            f"; {path.stem} exact {share(sealed, 'exact'):.1%} retry "
            f"{share(sealed, 'retry_agrees'):.1%} false retries "
            f"{share(sealed, 'false_retry'):.1%} ({len(sealed)} strings)"
        )
    print(summary)


if __name__ == "__main__":
    main()
