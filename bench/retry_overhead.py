"""Success-path overhead of ``llm_retry`` against the bare call and against bare tenacity.

Every case calls a function that succeeds at once, so what is measured is the price of
the wrapper itself: a fresh tenacity controller plus our per-call state (budget refill,
statistics). The tenacity baseline is what a user would write by hand:
``@tenacity.retry(stop=..., wait=wait_exponential_jitter(), reraise=True)``, which also
copies its controller per call. Streams are measured per item over a 100-item
generator, since our delegation (to count delivered items) runs per item.

Prints the median of several runs (variants measured round-robin, so background load
hits them alike) in microseconds per call (per stream for streams) and the ratios to
both baselines, all measured in this run.

Run: ``python bench/retry_overhead.py [--calls N] [--runs R]``
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncIterator, Callable, Iterator

import tenacity

from llm_retry import RetryPolicy, retry_llm

ITEMS = 100


def time_sync(fn: Callable[[], object], calls: int) -> float:
    """Seconds per call of ``fn`` over ``calls`` calls."""
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def time_async(fn: Callable[[], object], calls: int) -> float:
    """Seconds per awaited call of the coroutine function ``fn``."""

    async def loop() -> float:
        start = time.perf_counter()
        for _ in range(calls):
            await fn()
        return (time.perf_counter() - start) / calls

    return asyncio.run(loop())


def time_async_stream(fn: Callable[[], AsyncIterator[int]], calls: int) -> float:
    """Seconds per fully consumed async stream."""

    async def loop() -> float:
        start = time.perf_counter()
        for _ in range(calls):
            async for _item in fn():
                pass
        return (time.perf_counter() - start) / calls

    return asyncio.run(loop())


def build_cases() -> dict[str, dict[str, Callable[[int], float]]]:
    """Per kind of call: the bare function, tenacity's decorator, and ours."""
    policy = RetryPolicy()
    plain_tenacity = tenacity.retry(
        stop=tenacity.stop_after_attempt(4) | tenacity.stop_after_delay(90),
        wait=tenacity.wait_exponential_jitter(),
        reraise=True,
    )

    def sync_fn() -> str:
        return "reply"

    async def async_fn() -> str:
        return "reply"

    def sync_stream() -> Iterator[int]:
        yield from range(ITEMS)

    async def async_stream() -> AsyncIterator[int]:
        for item in range(ITEMS):
            yield item

    return {
        "sync function": {
            "bare": lambda n: time_sync(sync_fn, n),
            "tenacity": lambda n: time_sync(plain_tenacity(sync_fn), n),
            "llm_retry": lambda n: time_sync(retry_llm(policy)(sync_fn), n),
        },
        "async function": {
            "bare": lambda n: time_async(async_fn, n),
            "tenacity": lambda n: time_async(plain_tenacity(async_fn), n),
            "llm_retry": lambda n: time_async(retry_llm(policy)(async_fn), n),
        },
        f"sync stream ({ITEMS} items)": {
            "bare": lambda n: time_sync(lambda: sum(sync_stream()), n // 10),
            "llm_retry": lambda n: time_sync(lambda: sum(policy.wrap(sync_stream)()), n // 10),
        },
        f"async stream ({ITEMS} items)": {
            "bare": lambda n: time_async_stream(async_stream, n // 10),
            "llm_retry": lambda n: time_async_stream(policy.wrap(async_stream), n // 10),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000, help="calls per run")
    parser.add_argument("--runs", type=int, default=7, help="runs; the median is reported")
    args = parser.parse_args()

    print(f"median of {args.runs} runs, {args.calls} calls per run (streams: calls/10)")
    print(f"{'case':<26}{'variant':<11}{'µs/call':>10}{'x bare':>9}{'x tenacity':>12}")
    for case, variants in build_cases().items():
        # Round-robin over the variants so that load from other processes hits them alike.
        samples: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.runs):
            for name, run in variants.items():
                samples[name].append(run(args.calls))
        medians = {name: statistics.median(values) for name, values in samples.items()}
        for name, seconds in medians.items():
            versus_tenacity = (
                f"{seconds / medians['tenacity']:>12.2f}"
                if "tenacity" in medians and name != "bare"
                else ""
            )
            print(
                f"{case:<26}{name:<11}{seconds * 1e6:>10.2f}"
                f"{seconds / medians['bare']:>9.1f}{versus_tenacity}"
            )
        extra = medians["llm_retry"] - medians["bare"]
        print(f"{'':<26}{'overhead':<11}{extra * 1e6:>10.2f} µs per call")


if __name__ == "__main__":
    main()
