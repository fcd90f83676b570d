"""Benchmark: ``classify_many`` on a column of messages against a loop of ``classify``.

A column of error messages in a table repeats a few templates over many rows. The
column here draws ``--rows`` messages (default 200,000) from the real strings of
``tests/llm_errors/corpus/*.jsonl`` with Zipf weights (a few messages make most of the
rows, as in a table of errors), and a second column is the same rows with a request id
of its own at the end of every message (as many real logs write them: no text repeats,
so the verdict cache never hits). On each column, in the same run:

* ``[classify(t) for t in texts]``, the loop a user writes by hand;
* ``classify_many(texts)``, the columns.

Each contender runs ``--runs`` times, alternating (the order flips every run, so
background load hits both alike); the figure is the median of the process's CPU
seconds (``time.process_time``) per run, printed as MB (UTF-8) per CPU-second, with the
ratio of the two. The columns are checked to hold the loop's verdicts first.

    python bench/batch.py                 # 200,000 rows, 5 runs
    python bench/batch.py --rows 50000    # a quick run
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from llm_errors import Classification, classify, classify_many

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "llm_errors" / "corpus"
#: The Zipf exponent of the draw: the k-th most frequent message has weight 1/k**s.
ZIPF = 1.1


def corpus_texts() -> list[str]:
    """The corpus strings, in file order."""
    return [
        json.loads(line)["text"]
        for path in sorted(CORPUS.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def draw(texts: Sequence[str], rows: int, seed: int) -> list[str]:
    """``rows`` messages drawn from ``texts``, Zipf-weighted over a shuffled order."""
    rng = random.Random(seed)
    ranked = list(texts)
    rng.shuffle(ranked)
    weights = [1 / rank**ZIPF for rank in range(1, len(ranked) + 1)]
    return rng.choices(ranked, weights=weights, k=rows)


def with_ids(texts: Sequence[str], seed: int) -> list[str]:
    """Each message with a request id of its own at the end."""
    rng = random.Random(seed)
    return [f"{text} (request id: req_{rng.getrandbits(64):016x})" for text in texts]


def loop(texts: Sequence[str]) -> object:
    return [classify(text) for text in texts]


def columns(texts: Sequence[str]) -> object:
    return classify_many(texts)


def check(texts: Sequence[str]) -> None:
    """The columns hold the loop's verdicts, row by row."""
    found = classify_many(texts)
    rows = [
        Classification(code, retryable, retry_after, status, rule, layer)
        for code, retryable, retry_after, status, rule, layer in zip(
            found.code,
            found.retryable,
            found.retry_after,
            found.status,
            found.rule,
            found.layer,
            strict=True,
        )
    ]
    if rows != [classify(text) for text in texts]:
        raise SystemExit("classify_many's columns differ from the loop's verdicts")


def cpu_medians(
    contenders: dict[str, Callable[[Sequence[str]], object]], texts: Sequence[str], runs: int
) -> dict[str, float]:
    """Median CPU seconds per contender over ``runs`` alternating runs."""
    seconds: dict[str, list[float]] = {name: [] for name in contenders}
    order = list(contenders)
    for _ in range(runs):
        for name in order:
            start = time.process_time()
            contenders[name](texts)
            seconds[name].append(time.process_time() - start)
        order.reverse()
    return {name: statistics.median(values) for name, values in seconds.items()}


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    texts = corpus_texts()
    repeated = draw(texts, args.rows, args.seed)
    unique = with_ids(repeated, args.seed)
    classify("warm-up: compiles what the first verdicts need")
    check(repeated[:5000])
    check(unique[:5000])
    contenders = {"loop of classify()": loop, "classify_many()": columns}
    print(
        f"{args.rows:,} rows drawn from {len(texts):,} corpus strings (Zipf {ZIPF}); "
        f"MB (UTF-8) per CPU-second, medians of {args.runs} alternating runs"
    )
    for label, column in (("repeated messages", repeated), ("unique request ids", unique)):
        size = sum(len(text.encode()) for text in column) / 1e6
        medians = cpu_medians(contenders, column, args.runs)
        print(f"{label}: {len(set(column)):,} distinct, {size:.1f} MB")
        for name, cpu in medians.items():
            print(f"  {name:<20} {cpu:6.2f} s  {size / cpu:7.1f} MB/s")
        ratio = medians["loop of classify()"] / medians["classify_many()"]
        print(f"  classify_many / loop {ratio:6.2f}x")


if __name__ == "__main__":
    main()
