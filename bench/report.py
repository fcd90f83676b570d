"""Benchmark: ``llm-errors report`` against ``llm-errors classify`` on the same log.

The log is examples/sample.log repeated (default 1,000 times: 110,000 lines of
real-looking lines, 31 % of them errors, every one timestamped), so both commands do
the same scan; the report adds, per finding, its time, its provider and model, its
examples, and then renders the page. Measured in the same run, median of
``--repeat`` runs each:

* ``classify --format jsonl`` with stdout sent to ``/dev/null`` (the baseline);
* ``report --output`` a temporary file;
* the report on a log of half the size, to show that time grows linearly.

    python bench/report.py                  # 110,000 lines
    python bench/report.py --copies 200     # a quick run
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

from llm_errors.logs import main

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample.log"


def _timed(argv: list[str]) -> float:
    sink = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
        status = main(argv)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{argv[0]} exited with {status}")
    return elapsed


def _median(argv: list[str], repeat: int) -> float:
    return statistics.median(_timed(argv) for _ in range(repeat))


def main_bench() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sample = SAMPLE.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        full, half = Path(tmp, "full.log"), Path(tmp, "half.log")
        full.write_text(sample * args.copies, encoding="utf-8")
        half.write_text(sample * (args.copies // 2), encoding="utf-8")
        lines = sample.count("\n") * args.copies
        output = str(Path(tmp, "report.html"))
        classify = _median(["classify", "--format", "jsonl", str(full)], args.repeat)
        report = _median(["report", str(full), "--output", output], args.repeat)
        report_half = _median(["report", str(half), "--output", output], args.repeat)
        size = Path(output).stat().st_size
    print(f"{lines:,} lines, median of {args.repeat} runs")
    print(f"  classify --format jsonl  {classify:6.2f} s  {lines / classify:>10,.0f} lines/s")
    print(f"  report                   {report:6.2f} s  {lines / report:>10,.0f} lines/s")
    print(f"  report / classify        {report / classify:6.2f}x")
    print(f"  report, full / half log  {report / report_half:6.2f}x (2.00 is linear)")
    print(f"  page size (half log)     {size:,} bytes")


if __name__ == "__main__":
    main_bench()
