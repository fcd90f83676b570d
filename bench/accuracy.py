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

The words layer (``llm_errors._words``) is fitted on the corpus and on the message
catalogues (``corpus/catalogues``), so its figures there are training figures too. Its
honest measures are the sealed sets and a leave-family-out cross-validation: the corpus
and the catalogues split into folds by family (a repository, or a web site: never one
family on both sides), the weights fitted on the other folds (``tools/fit_words.py``,
which needs the ``dev`` group), each string classified by the rules and, where they
leave it, by the fold's weights; printed per code with the words layer off and on. The
rules were written from the corpus, so only the words layer's part of it is unseen.

    python bench/accuracy.py              # every part, 30 misses each
    python bench/accuracy.py --misses 200 # more misses
    python bench/accuracy.py --no-cv      # without the cross-validation (no dev group)
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from llm_errors import DEFAULT_RETRYABLE_CODES, Classifier, ErrorCode, Layer, classify

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "llm_errors" / "corpus"
#: Strings collected after the rules were written, never used to write one.
SEALED = CORPUS / "sealed"
#: Messages mined from the code that emits them: training data of the words layer.
CATALOGUES = CORPUS / "catalogues"
#: Second, blind labellings of sealed sets (``id``, ``code``, ``sure``), one file per set
#: under its name: made from docs/errors.md alone, never seeing the first labels.
AGREEMENT = CORPUS.parent / "agreement"
FIT_WORDS = Path(__file__).resolve().parents[1] / "tools" / "fit_words.py"
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


def agreement(path: Path) -> tuple[float, float, int]:
    """How often a second labelling agrees with its sealed set's labels.

    Exact and retryable agreement, and the count: the labels' own consistency, the
    ceiling no classifier can be measured above.
    """
    labels = {entry.id: entry.code for entry in load(SEALED / path.name)}
    lines = path.read_text(encoding="utf-8").splitlines()
    second = [json.loads(line) for line in lines if line.strip()]
    if sorted(row["id"] for row in second) != sorted(labels):
        raise ValueError(f"{path.name}: the second labelling must cover its set's ids once each")
    pairs = [(labels[row["id"]], ErrorCode(row["code"])) for row in second]
    exact = sum(first is other for first, other in pairs) / len(pairs)
    retry = sum(
        (first in DEFAULT_RETRYABLE_CODES) == (other in DEFAULT_RETRYABLE_CODES)
        for first, other in pairs
    ) / len(pairs)
    return exact, retry, len(pairs)


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


def _fit_words():  # noqa: ANN202 - a script loaded by path
    spec = importlib.util.spec_from_file_location("fit_words", FIT_WORDS)
    assert spec is not None  # noqa: S101
    assert spec.loader is not None  # noqa: S101
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def cross_validate(entries: Sequence[Entry]) -> tuple[list[Verdict], list[Verdict]]:
    """Leave-family-out verdicts on ``entries``: the rules alone, and rules then words.

    In each fold the words layer's weights (and thresholds, as shipped) are fitted on the
    other folds' families only.
    """
    from llm_errors._words.model import shipped  # noqa: PLC0415

    fit_words = _fit_words()
    examples = [fit_words.Example(e.text, e.code, fit_words.family(e.source)) for e in entries]
    model = shipped()
    shares = dict(zip(model.codes, model.thresholds, strict=True))
    retryable = min(shares[code] for code in DEFAULT_RETRYABLE_CODES)
    permanent = min(shares[code] for code in ErrorCode if code not in DEFAULT_RETRYABLE_CODES)
    rules = Classifier(words=False)
    off: list[Verdict] = []
    on: list[Verdict] = []
    for words, test in fit_words.folds(examples, retryable, permanent):
        for i in test:
            entry = entries[i]
            by_rules = rules.classify(entry.text)
            off.append(Verdict(entry, by_rules.code, by_rules.rule))
            found = words.decide(entry.text) if by_rules.layer is Layer.FALLBACK else None
            on.append(
                Verdict(entry, found.code, f"words.{found.code}") if found is not None else off[-1]
            )
    return off, on


def report_cross_validation(off: Sequence[Verdict], on: Sequence[Verdict]) -> None:
    """Print the cross-validation per code, the words layer off and on."""
    print(f"\n=== leave-family-out cross-validation: {len(on)} strings ===")
    print(f"{'':<24} {'n':>5} {'exact off':>10} {'exact on':>9} {'retry off':>10} {'retry on':>9}")
    rows: dict[str, tuple[list[Verdict], list[Verdict]]] = defaultdict(lambda: ([], []))
    for without, with_words in zip(off, on, strict=True):
        for name in (without.entry.code.value, "all"):
            rows[name][0].append(without)
            rows[name][1].append(with_words)
    for name, (without, with_words) in sorted(rows.items(), key=lambda kv: -len(kv[1][0])):
        print(
            f"{name:<24} {len(without):>5} {share(without, 'exact'):>10.1%} "
            f"{share(with_words, 'exact'):>9.1%} {share(without, 'retry_agrees'):>10.1%} "
            f"{share(with_words, 'retry_agrees'):>9.1%}"
        )
    print(
        f"false retries: {sum(v.false_retry for v in off)} off, {sum(v.false_retry for v in on)} on"
    )


def report(name: str, verdicts: Sequence[Verdict], misses: int) -> None:
    """Print one part's figures, tables and misses."""
    sources = {v.entry.source for v in verdicts}
    print(f"\n=== {name}: {len(verdicts)} strings from {len(sources)} sources ===")
    print(f"exact code:          {share(verdicts, 'exact'):.1%}")
    print(f"retryable agreement: {share(verdicts, 'retry_agrees'):.1%}")
    false = sum(v.false_retry for v in verdicts)
    missed = sum(v.missed_retry for v in verdicts)
    fallen = sum(not v.exact and v.rule == "fallback" for v in verdicts)
    by_words = [v for v in verdicts if v.rule.startswith("words.")]
    print(f"false retries:       {false} ({share(verdicts, 'false_retry'):.1%})")
    print(f"missed retries:      {missed} ({share(verdicts, 'missed_retry'):.1%})")
    print(f"misses to fallback:  {fallen} of {sum(not v.exact for v in verdicts)}")
    print(
        f"by the words layer:  {len(by_words)}, {sum(v.exact for v in by_words)} exact, "
        f"{sum(v.false_retry for v in by_words)} false retries"
    )
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
    parser.add_argument(
        "--no-cv", action="store_true", help="leave out the cross-validation (no dev group)"
    )
    args = parser.parse_args(argv)
    entries = load()
    verdicts = judge(entries)
    training = [v for v in verdicts if not held_out(v.entry)]
    held = [v for v in verdicts if held_out(v.entry)]
    report("training (four fifths)", training, args.misses)
    report("held-out fifth", held, args.misses)
    catalogues = judge(load(CATALOGUES))
    report("message catalogues (words training data)", catalogues, args.misses)
    summary = (
        f"\naccuracy: training exact {share(training, 'exact'):.1%} retry "
        f"{share(training, 'retry_agrees'):.1%}; held-out exact {share(held, 'exact'):.1%} "
        f"retry {share(held, 'retry_agrees'):.1%} ({len(entries)} strings); catalogues exact "
        f"{share(catalogues, 'exact'):.1%} ({len(catalogues)} strings)"
    )
    if not args.no_cv:
        off, on = cross_validate(entries + [v.entry for v in catalogues])
        report_cross_validation(off, on)
        summary += (
            f"; cross-validated exact {share(off, 'exact'):.1%} without words, "
            f"{share(on, 'exact'):.1%} with"
        )
    for path in sealed_sets():
        sealed = judge(load(path))
        report(f"sealed {path.stem} (collected after the rules)", sealed, args.misses)
        summary += (
            f"; {path.stem} exact {share(sealed, 'exact'):.1%} retry "
            f"{share(sealed, 'retry_agrees'):.1%} false retries "
            f"{share(sealed, 'false_retry'):.1%} ({len(sealed)} strings)"
        )
    for path in sorted(AGREEMENT.glob("*.jsonl")):
        exact, retry, count = agreement(path)
        print(f"\nsecond labelling of {path.stem}: {exact:.1%} exact, {retry:.1%} retryable")
        summary += f"; labels of {path.stem} agree {exact:.1%} exact, {retry:.1%} retry ({count})"
    print(summary)


if __name__ == "__main__":
    main()
