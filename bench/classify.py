"""Benchmark: classify a mixed log, against a naive per-rule ``re.search`` loop.

Generates a deterministic log (default 1,000,000 lines, about 15 % error lines of
many kinds: every rule's examples flattened to one line, tracebacks' last lines,
unknown errors), then measures, in the same run:

* ``classify(line)`` for every line (the public per-message API), and the same
  split by kind of line (error lines, other lines holding a trigger word, other
  lines), to show where the time goes;
* a naive baseline: for each line, search every rule's pattern in table order until
  one matches (the loop the combined pattern replaces), on a sample of the log
  because it is slow. It uses the ``regex`` module's ``search``, the same engine as
  ours: the stdlib ``re`` cannot compile the table (variable-width lookbehinds);
* trivial per-line loops (``"error" in line``, ``line.lower()``) and the bare
  tokenising that every line pays (``translate`` + ``split`` + one set test), so a
  reader can judge the machine's speed at the time of the run.

It prints lines/s and MB/s (median of ``--repeat`` runs) and the ratios, and checks
that ours and the naive loop agree on the deciding rule for every sampled line.

    python bench/classify.py                 # 1,000,000 lines
    python bench/classify.py --lines 100000  # a quick run
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import regex

from llm_errors import RULES, Classifier, ErrorCode
from llm_errors._match.matcher import FLAGS
from llm_errors._match.prefilter import TOKEN_TABLE, text_tokens

_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN")
_LOGGERS = ("app.api", "app.worker", "app.sched", "llm.client", "http.access", "cache")
_PATHS = ("/v1/chat/completions", "/v1/embeddings", "/healthz", "/v1/models", "/api/users/42")
_MESSAGES = (
    "request completed",
    "cache hit for key prompt:{n}",
    "user session refreshed",
    "streaming response started",
    "tokens counted prompt_tokens={n} completion_tokens={m}",
    "worker heartbeat ok queue_depth={m}",
    "loaded configuration from /etc/app/config.yaml",
    "scheduled job finished in {n} ms",
    "model warmup done model=mistral-large-latest",
    "rendered template index.html",
    "retrying request attempt=1 backoff_ms={n}",
    "GET {path} 200 {n}ms",
    "connection pool size=10 idle=4",
)
_UNKNOWN = (
    "KeyError: 'choices'",
    "ValueError: could not convert string to float: 'n/a'",
    "AssertionError: expected a tool call",
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    "AttributeError: 'NoneType' object has no attribute 'content'",
)
_TRACEBACK_LAST_LINES = (
    "httpx.ReadTimeout: timed out",
    "httpcore.ConnectError: [Errno 111] Connection refused",
    "ConnectionResetError: [Errno 104] Connection reset by peer",
    "openai.APIConnectionError: Connection error.",
    (
        "anthropic.InternalServerError: Error code: 500 - {'type': 'error', 'error': "
        "{'type': 'api_error', 'message': 'Internal server error'}}"
    ),
    (
        "requests.exceptions.ChunkedEncodingError: ('Connection broken: IncompleteRead(0 bytes "
        "read)', IncompleteRead(0 bytes read))"
    ),
    "asyncio.exceptions.CancelledError",
)
_ERROR_SHARE = 0.15


def _normal_line(rng: random.Random, stamp: str) -> str:
    message = rng.choice(_MESSAGES).format(
        n=rng.randint(1, 5000), m=rng.randint(1, 900), path=rng.choice(_PATHS)
    )
    return (
        f"{stamp} {rng.choice(_LEVELS):5} {rng.choice(_LOGGERS)} "
        f"[req={rng.getrandbits(64):016x}] {message} method=POST path={rng.choice(_PATHS)} "
        f"status=200 duration_ms={rng.randint(1, 3000)} tokens={rng.randint(1, 9000)}"
    )


def _error_pool() -> list[str]:
    pool = [" ".join(example.text.split()) for rule in RULES for example in rule.examples]
    pool += list(_TRACEBACK_LAST_LINES) + list(_UNKNOWN)
    return pool


def generate(lines: int, seed: int = 2) -> list[str]:
    """A deterministic mixed log of ``lines`` lines."""
    rng = random.Random(seed)
    pool = _error_pool()
    out = []
    for i in range(lines):
        stamp = f"2026-07-22T10:{i // 60000 % 60:02d}:{i // 1000 % 60:02d}.{i % 1000:03d}Z"
        if rng.random() < _ERROR_SHARE:
            out.append(
                f"{stamp} ERROR {rng.choice(_LOGGERS)} [req={rng.getrandbits(64):016x}] "
                f"call failed: {rng.choice(pool)}"
            )
        else:
            out.append(_normal_line(rng, stamp))
    return out


def _time(run: Callable[[], object], repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def _naive_rules() -> list[tuple[str, regex.Pattern[str]]]:
    return [(rule.id, regex.compile(rule.pattern, FLAGS)) for rule in RULES]


def naive_rule(line: str, compiled: Sequence[tuple[str, regex.Pattern[str]]]) -> str | None:
    """The first rule, in table order, whose pattern ``re.search``-es the line."""
    for rule_id, pattern in compiled:
        if pattern.search(line):
            return rule_id
    return None


def _row(label: str, lines: int, size_mb: float, seconds: float, note: str = "") -> None:
    print(f"{label:<24}{lines / seconds:12,.0f} lines/s {size_mb / seconds:8.1f} MB/s{note}")


def _megabytes(lines: Sequence[str]) -> float:
    return sum(len(line.encode()) + 1 for line in lines) / 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="log lines to generate")
    parser.add_argument(
        "--naive-lines", type=int, default=20_000, help="lines the naive loop runs on"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    args = parser.parse_args(argv)

    log = generate(args.lines)
    size_mb = _megabytes(log)
    errors = sum(" ERROR " in line for line in log)
    print(
        f"log: {len(log):,} lines, {size_mb:.1f} MB, {errors / len(log):.1%} error lines, "
        f"{len(RULES)} rules"
    )

    classifier = Classifier()
    classify = classifier.classify
    for line in log[:20_000]:  # build the plan and pattern caches outside the timing
        classify(line)

    def loop(lines: Sequence[str], call: Callable[[str], object]) -> Callable[[], None]:
        def run() -> None:
            for line in lines:
                call(line)

        return run

    seconds = _time(loop(log, classify), args.repeat)
    ours_lps = len(log) / seconds
    _row("classify():", len(log), size_mb, seconds)

    matcher = classifier._matcher  # noqa: SLF001 - the bench looks inside the engine
    kinds: dict[str, list[str]] = {"error lines": [], "with a trigger word": [], "others": []}
    for line in log:
        if " ERROR " in line:
            kinds["error lines"].append(line)
        elif matcher.tokens.isdisjoint(text_tokens(line)):
            kinds["others"].append(line)
        else:
            kinds["with a trigger word"].append(line)
    spent = {kind: _time(loop(lines, classify), args.repeat) for kind, lines in kinds.items()}
    total = sum(spent.values())
    for kind, lines in kinds.items():
        print(
            f"  {kind + ':':<22}{spent[kind] / len(lines) * 1e6:9.2f} µs/line  "
            f"{len(lines) / len(log):6.1%} of the lines, {spent[kind] / total:6.1%} of the time"
        )

    sample = log[: args.naive_lines]
    compiled = _naive_rules()
    naive_seconds = _time(loop(sample, lambda line: naive_rule(line, compiled)), args.repeat)
    naive_lps = len(sample) / naive_seconds
    _row(
        "naive re loop:",
        len(sample),
        _megabytes(sample),
        naive_seconds,
        f"  (on the first {len(sample):,} lines)",
    )
    print(f"{'ratio:':<24}{ours_lps / naive_lps:12.1f}x")

    print("same-run baselines (the machine's speed):")
    tokens = matcher.tokens

    def tokenise(line: str) -> bool:
        return tokens.isdisjoint(line.encode("ascii", "replace").translate(TOKEN_TABLE).split())

    for label, call in (
        ('  "error" in line:', lambda line: "error" in line),
        ("  line.lower():", str.lower),
        ("  tokenise + set test:", tokenise),
    ):
        base = _time(loop(log, call), args.repeat)
        _row(label, len(log), size_mb, base, f"  (classify() takes {seconds / base:.1f}x)")

    disagreements = 0
    for line in sample:
        found = matcher.match(line)
        ours_rule = classifier.rules[found.index].id if found else None
        if ours_rule != naive_rule(line, compiled):
            disagreements += 1
    matched = sum(classify(line).code is not ErrorCode.PROVIDER_ERROR for line in sample)
    print(
        f"agreement with the naive loop on the sample: {len(sample) - disagreements:,}/"
        f"{len(sample):,}; {matched:,} sampled lines classified"
    )
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
