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

Run: ``python bench/retry_overhead.py [--calls N] [--runs R] [--otel]``
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


def otel_overhead(calls: int, runs: int) -> None:
    """``--otel``: the global hooks' cost, per successful call and per retry.

    A successful call dispatches nothing, so it should cost the same with any hook; a
    retry dispatches one event. Variants: no hook (as without ``opentelemetry``), the
    OpenTelemetry hook with the API and no SDK (the default when it is installed), and
    with the SDK (a meter provider with a reader, the call inside a span whose exporter
    does nothing; the span is opened in the baseline too, so only the hook is counted).
    """
    from opentelemetry.sdk.metrics import MeterProvider  # noqa: PLC0415
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: PLC0415
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
    from opentelemetry.sdk.trace.export import (  # noqa: PLC0415
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    from llm_errors import TransportError  # noqa: PLC0415
    from llm_retry.instrumentation import (  # noqa: PLC0415
        OpenTelemetryOnRetryHook,
        set_on_retry_hooks,
    )

    class NoOpExporter(SpanExporter):
        def export(self, spans: object) -> SpanExportResult:  # noqa: ARG002
            return SpanExportResult.SUCCESS

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(NoOpExporter()))
    tracer = tracer_provider.get_tracer("bench")
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    policy = RetryPolicy(on_retry=None, initial_wait=0.0, jitter=False, sleep=lambda _: None)
    failures = [0]

    def once() -> str:  # fails every other call: one retry per call
        failures[0] += 1
        if failures[0] % 2:
            raise TransportError("Server disconnected without sending a response.")
        return "reply"

    def ok() -> str:
        return "reply"

    def cpu(fn: Callable[[], object], calls: int) -> float:
        """CPU seconds per call of this process (other jobs on the machine move it less)."""
        began = time.process_time()
        for _ in range(calls):
            fn()
        return (time.process_time() - began) / calls

    def in_span(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            with tracer.start_as_current_span("call"):
                return fn()

        return run

    hooks = {
        "no hook": ((), False),
        "API, no SDK": ((OpenTelemetryOnRetryHook(),), False),
        "SDK (span)": ((), True),
        "SDK + hook": ((OpenTelemetryOnRetryHook(meter_provider=meter_provider),), True),
    }
    cases = {"success": policy.wrap(ok), "one retry": policy.wrap(once)}
    print(f"\n--otel: global retry hooks, CPU time, median of {runs} runs, {calls} calls per run")
    print(f"{'case':<12}{'variant':<14}{'µs/call':>10}{'+ µs':>8}")
    for case, fn in cases.items():
        samples: dict[str, list[float]] = {name: [] for name in hooks}
        for _ in range(runs):
            for name, (active, span) in hooks.items():
                with set_on_retry_hooks(active):
                    samples[name].append(cpu(in_span(fn) if span else fn, calls))
        medians = {name: statistics.median(values) for name, values in samples.items()}
        for name, seconds in medians.items():
            base = medians["SDK (span)" if name.startswith("SDK") else "no hook"]
            print(f"{case:<12}{name:<14}{seconds * 1e6:>10.2f}{(seconds - base) * 1e6:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000, help="calls per run")
    parser.add_argument("--runs", type=int, default=7, help="runs; the median is reported")
    parser.add_argument("--otel", action="store_true", help="only the global hooks' cost")
    args = parser.parse_args()
    if args.otel:
        otel_overhead(args.calls, args.runs)
        return

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
