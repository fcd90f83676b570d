"""Streaming throughput: our adapter against raw httpx + ``json.loads`` and the official SDK.

One large stream (``--chunks`` text chunks, default 200,000) is served by the fake
server running in a separate process (``adapter.testing.FakeMistralProcess``, 256
events per write, so the server is never the bottleneck) and consumed, in
interleaved rounds, by:

- **raw**: ``httpx`` ``iter_lines`` and ``json.loads`` per ``data:`` line: the
  baseline of a client that parses the chunks with the standard library and does
  nothing else (no validation, no events);
- **ours (sync)** / **ours (async)**: ``MistralAdapter.stream`` /
  ``AsyncMistralAdapter.stream``, every pi event consumed;
- **sdk**: ``mistralai`` 3.7.0 ``Mistral(...).chat.stream(...)`` against the same
  kind of server, on fewer chunks (``--sdk-chunks``) because it is slow; compared
  per chunk.

Then:

2. where the time goes: the same chunks as in-memory reads through each stage of our
   pipeline (SSE decoding, + chunk parsing, + mapping to events, + the client's
   core), against raw's line decoding + ``json.loads`` on the same reads (CPU time of
   this process, so other jobs on the machine move it less);
3. whether the per-event cost is flat: our adapter on a 10,000-chunk and a
   1,000,000-chunk stream, and per 100,000-chunk window inside the long one (the
   message grows to 4 MB of text: a quadratic append would show here);
4. peak memory while streaming (``tracemalloc``): bounded by the message, not by the
   bytes received (nothing buffers the stream).

Prints medians and ratios from one run. Run: ``python bench/stream.py [--chunks N]
[--sdk-chunks N] [--runs R] [--long N] [--otel]``; ``--otel`` runs only section 5,
the cost of the OpenTelemetry span and metrics.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import httpx
from httpx._decoders import LineDecoder, TextDecoder  # raw's own line decoding, in memory
from mistralai.client import Mistral
from pydantic import BaseModel

from adapter import Context
from adapter._mistral import stream as _stream
from adapter._mistral.async_client import AsyncMistralAdapter
from adapter._mistral.client import Settings
from adapter._mistral.stream import map_data, start
from adapter._mistral.sync_client import MistralAdapter
from adapter._mistral.wire import parse_chunk, parse_completion_chunk
from adapter._sse import SSEDecoder
from adapter.pi import AssistantTextDeltaEvent, UserMessage
from adapter.testing import FakeMistralProcess, big_stream

MODEL = "mistral-small-latest"
CONTEXT = Context(messages=[UserMessage(content="Say tok many times.", timestamp=1)])
BODY = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "stream": True}
KEY = "bench"


# --- the consumers --------------------------------------------------------------------


def raw(url: str) -> int:
    """Raw httpx line iteration + ``json.loads`` per data line; returns the chunks parsed."""
    count = 0
    with httpx.Client(timeout=60) as client, client.stream("POST", url, json=BODY) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                data = line[6:]
                if data == "[DONE]":
                    break
                json.loads(data)
                count += 1
    return count


def ours_sync(base_url: str) -> int:
    """Our sync adapter; returns the text deltas received."""
    count = 0
    with MistralAdapter(api_key=KEY, base_url=base_url) as adapter:
        for event in adapter.stream(MODEL, CONTEXT):
            if event.type == "text_delta":
                count += 1
    return count


def ours_async(base_url: str) -> int:
    """Our async adapter; returns the text deltas received."""

    async def main() -> int:
        count = 0
        async with AsyncMistralAdapter(api_key=KEY, base_url=base_url) as adapter:
            async for event in adapter.stream(MODEL, CONTEXT):
                if event.type == "text_delta":
                    count += 1
        return count

    return asyncio.run(main())


def sdk(base_url: str) -> int:
    """The official SDK's ``chat.stream``; returns the events received."""
    client = Mistral(api_key=KEY, server_url=base_url)
    count = 0
    with client.chat.stream(model=MODEL, messages=[{"role": "user", "content": "hi"}]) as events:
        for _ in events:
            count += 1
    return count


def timed(fn: Callable[[str], int], url: str, expected: int) -> float:
    gc.collect()  # every consumer starts from a collected heap (the SDK leaves much garbage)
    start = time.perf_counter()
    got = fn(url)
    elapsed = time.perf_counter() - start
    if got != expected:
        raise SystemExit(f"{fn.__name__}: expected {expected:,} chunks, got {got:,}")
    return elapsed


def rate(chunks: int, seconds: float) -> str:
    return f"{chunks / seconds:>12,.0f} chunks/s {seconds / chunks * 1e6:>7.2f} us/chunk"


# --- 1. throughput over HTTP ----------------------------------------------------------


def throughput(chunks: int, sdk_chunks: int, runs: int) -> None:
    print(
        f"\n1. throughput over HTTP: fake server in a separate process, {chunks:,} text chunks "
        f"(sdk: {sdk_chunks:,}), median of {runs} interleaved runs"
    )
    times: dict[str, list[float]] = {"raw": [], "ours (sync)": [], "ours (async)": [], "sdk": []}
    with (
        FakeMistralProcess(chunks=chunks) as server,
        FakeMistralProcess(chunks=sdk_chunks) as small,
    ):
        for _ in range(runs):
            times["raw"].append(timed(raw, server.chat_url, chunks + 2))
            times["ours (sync)"].append(timed(ours_sync, server.url, chunks))
            times["ours (async)"].append(timed(ours_async, server.url, chunks))
            times["sdk"].append(timed(sdk, small.url, sdk_chunks + 2))
    per_chunk = {
        name: statistics.median(values) / (sdk_chunks if name == "sdk" else chunks)
        for name, values in times.items()
    }
    for name, seconds in per_chunk.items():
        n = sdk_chunks if name == "sdk" else chunks
        print(f"   {name:<14}{rate(n, seconds * n)}")
    for name in ("ours (sync)", "ours (async)"):
        ours = per_chunk[name]
        print(
            f"   {name}: {per_chunk['raw'] / ours:.2f}x raw's throughput (target >= 0.67), "
            f"{per_chunk['sdk'] / ours:.0f}x the SDK's (target >= 50)"
        )


# --- 2. where the time goes -----------------------------------------------------------


def stages(chunks: int, runs: int) -> None:
    print(
        f"\n2. where the time goes: {chunks:,} chunks as in-memory reads of 256 events, "
        f"median of {runs} runs"
    )
    reads = [w for w in big_stream(chunks, batch=256).writes() if isinstance(w, bytes)]
    settings = Settings(
        api_key=KEY, base_url="http://bench", timeouts=None, headers=None, retry=None
    )
    model = settings.prepare(MODEL, CONTEXT, None).model

    def raw_lines() -> None:
        text, lines = TextDecoder(), LineDecoder()
        for read in reads:
            for line in lines.decode(text.decode(read)):
                if line.startswith("data: ") and line != "data: [DONE]":
                    json.loads(line[6:])

    def decode() -> None:
        decoder = SSEDecoder()
        for read in reads:
            decoder.feed_data(read)

    def decode_parse() -> None:
        decoder = SSEDecoder()
        for read in reads:
            for data in decoder.feed_data(read):
                if data != b"[DONE]":
                    parse_chunk(data)

    def decode_map() -> None:
        decoder = SSEDecoder()
        state, _ = start(model=model, now=0)
        for read in reads:
            for data in decoder.feed_data(read):
                map_data(state, data, now=1)

    def client_core() -> None:
        call = settings.prepare(MODEL, CONTEXT, None)
        call.begin()
        call.opened(httpx.Headers())
        for read in reads:
            for _ in call.feed(read):
                pass

    steps = [
        ("raw: httpx line decoding + json.loads", raw_lines),
        ("ours: SSE decoding (SSEDecoder.feed_data)", decode),
        ("  + parsing (adapter._mistral.wire.parse_chunk)", decode_parse),
        ("  + mapping to events (adapter._mistral.stream)", decode_map),
        ("  + the client's core (adapter._mistral.client)", client_core),
    ]
    samples: dict[str, list[float]] = {label: [] for label, _ in steps}
    for _ in range(runs):
        for label, step in steps:
            began = time.process_time()  # CPU time: in memory, nothing to wait for
            step()
            samples[label].append(time.process_time() - began)
    previous = 0.0
    for index, (label, _) in enumerate(steps):
        cost = statistics.median(samples[label]) / chunks * 1e6
        extra = f"  (+{cost - previous:.2f})" if index > 1 else ""
        print(f"   {label:<44}{cost:>6.2f} us/chunk{extra}")
        if index:
            previous = cost


# --- 3. flat per-event cost -----------------------------------------------------------


def flatness(short: int, long: int) -> None:
    print(
        f"\n3. per-event cost, {short:,} vs {long:,} chunks (sync adapter; timed from the first "
        "text delta, so connection setup is left out)"
    )
    results = {}
    drift = 1.0
    for chunks in (short, long):
        window = max(chunks // 10, 1)
        marks: list[float] = []
        with FakeMistralProcess(chunks=chunks) as server:
            ours_sync(server.url)  # warm-up: imports, catalog, first connection
            with MistralAdapter(api_key=KEY, base_url=server.url) as adapter:
                count = 0
                for event in adapter.stream(MODEL, CONTEXT):
                    if event.type == "text_delta":
                        if count % window == 0:
                            marks.append(time.perf_counter())
                        count += 1
                marks.append(time.perf_counter())
        windows = [(b - a) / window * 1e6 for a, b in itertools.pairwise(marks)]
        results[chunks] = (marks[-1] - marks[0]) / chunks * 1e6
        drift = windows[-1] / windows[0]
        print(
            f"   {chunks:>9,} chunks: {results[chunks]:.2f} us/chunk; per {window:,}-chunk "
            f"window: first {windows[0]:.2f}, median {statistics.median(windows):.2f}, "
            f"last {windows[-1]:.2f} us/chunk"
        )
    print(
        f"   long/short per-chunk cost: {results[long] / results[short]:.2f}; last/first window "
        f"of the long stream: {drift:.2f} (flat = 1.0; the windows share one run, so machine "
        "load moves them least)"
    )


# --- 4. memory ------------------------------------------------------------------------


def memory(chunks: int) -> None:
    print(f"\n4. peak memory while streaming {chunks:,} chunks (sync adapter, tracemalloc)")
    with FakeMistralProcess(chunks=chunks) as server:
        ours_sync(server.url)  # warm-up outside the trace
        tracemalloc.start()
        with MistralAdapter(api_key=KEY, base_url=server.url) as adapter:
            message = adapter.complete(MODEL, CONTEXT)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    text = sum(len(block.text) for block in message.content if block.type == "text")
    wire = len(json.dumps(big_stream(1).items[1].item, separators=(",", ":"))) + 8
    print(
        f"   received ~{wire * chunks / 1e6:.1f} MB of SSE; the message holds "
        f"{text / 1e6:.1f} MB of text; peak traced memory {peak / 1e6:.1f} MB "
        f"({peak / (wire * chunks):.2f}x the bytes received, {peak / text:.1f}x the text)"
    )


# --- 6. OpenTelemetry overhead (--otel) -----------------------------------------------


def otel_overhead(chunks: int, calls: int, runs: int) -> None:
    """Section 6 (``--otel``): the adapter's span and metrics, off, API without SDK, SDK.

    The SDK exports to an exporter that does nothing, through a ``SimpleSpanProcessor``
    (the span is exported on the calling thread: the dearer processor), so what is
    measured is the SDK's own span and metric work. Imported here: the other sections
    run without OpenTelemetry.
    """
    from opentelemetry.sdk.metrics import MeterProvider  # noqa: PLC0415
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: PLC0415
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
    from opentelemetry.sdk.trace.export import (  # noqa: PLC0415
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    from adapter._mistral import telemetry  # noqa: PLC0415

    class NoOpExporter(SpanExporter):
        def export(self, spans: object) -> SpanExportResult:  # noqa: ARG002
            return SpanExportResult.SUCCESS

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(NoOpExporter()))
    sdk = telemetry.Telemetry(
        tracer_provider=tracer_provider,
        meter_provider=MeterProvider(metric_readers=[InMemoryMetricReader()]),
    )
    settings: dict[str, telemetry.Telemetry | None] = {
        "off": None,  # what the adapter does when opentelemetry is not installed
        "API, no SDK": telemetry.Telemetry(),  # the global providers, never configured here
        "SDK, no-op exporter": sdk,
    }
    print(
        f"\n5. OpenTelemetry overhead: {chunks:,}-chunk streams over HTTP (per delta) and "
        f"{calls:,} short calls in memory (per call), CPU time of this process, median of "
        f"{runs} interleaved runs"
    )
    per_delta: dict[str, list[float]] = {
        f"{n} {k}": [] for n in settings for k in ("sync", "async")
    }
    per_call: dict[str, list[float]] = {name: [] for name in settings}
    core = Settings(api_key=KEY, base_url="http://bench", timeouts=None, headers=None, retry=None)
    reads = [w for w in big_stream(8, batch=256).writes() if isinstance(w, bytes)]

    def cpu(consumer: Callable[[str], int], url: str) -> float:
        """CPU seconds of this process (the server runs in another): load moves it less."""
        gc.collect()
        began = time.process_time()
        if consumer(url) != chunks:
            raise SystemExit(f"{consumer.__name__}: expected {chunks:,} deltas")
        return time.process_time() - began

    def short_call() -> None:
        call = core.prepare(MODEL, CONTEXT, None)

        def events() -> Iterator[object]:
            call.begin()
            yield from call.opened(httpx.Headers({"content-type": "text/event-stream"}))
            for read in reads:
                yield from call.feed(read)

        for _ in telemetry.trace_sync(events(), call, MODEL, None):  # type: ignore[arg-type]
            pass

    with FakeMistralProcess(chunks=chunks) as server:
        for _ in range(runs):
            for name, chosen in settings.items():
                telemetry._telemetry = chosen  # noqa: SLF001 - the bench picks the setting
                per_delta[f"{name} sync"].append(cpu(ours_sync, server.url) / chunks)
                per_delta[f"{name} async"].append(cpu(ours_async, server.url) / chunks)
                began = time.process_time()
                for _ in range(calls):
                    short_call()
                per_call[name].append((time.process_time() - began) / calls)
    telemetry._telemetry = telemetry._UNRESOLVED  # noqa: SLF001
    for kind in ("sync", "async"):
        base = statistics.median(per_delta[f"off {kind}"])
        for name in settings:
            cost = statistics.median(per_delta[f"{name} {kind}"])
            print(
                f"   per delta, {kind:<5} {name:<20}{cost * 1e6:>7.3f} us  x{cost / base:.3f} off"
            )
    base = statistics.median(per_call["off"])
    for name in settings:
        cost = statistics.median(per_call[name])
        print(
            f"   per call (8 chunks, in memory) {name:<20}{cost * 1e6:>8.2f} us  "
            f"+{(cost - base) * 1e6:.2f} us"
        )


# --- 5. the shortcuts into pydantic ---------------------------------------------------


def _constructed_delta(index: int, delta: str, partial: Any) -> AssistantTextDeltaEvent:
    """The constructor, ``BaseModel.__init__``: what ``text_delta_event`` improves on."""
    return AssistantTextDeltaEvent(contentIndex=index, delta=delta, partial=partial)


def _unvalidated_delta(index: int, delta: str, partial: Any) -> AssistantTextDeltaEvent:
    """``model_construct``: public, skips validation, implemented in Python."""
    return AssistantTextDeltaEvent.model_construct(contentIndex=index, delta=delta, partial=partial)


_SLOTS = {name: BaseModel.__dict__[name].__set__ for name in BaseModel.__slots__}


def _slots_delta(index: int, delta: str, partial: Any) -> AssistantTextDeltaEvent:
    """The removed shortcut: pydantic's private instance slots written directly."""
    event: AssistantTextDeltaEvent = object.__new__(AssistantTextDeltaEvent)
    values = {"type": "text_delta", "contentIndex": index, "delta": delta, "partial": partial}
    _SLOTS["__dict__"](event, values)
    _SLOTS["__pydantic_fields_set__"](event, {"contentIndex", "delta", "partial"})
    _SLOTS["__pydantic_extra__"](event, {})
    _SLOTS["__pydantic_private__"](event, None)
    return event


@contextlib.contextmanager
def _swapped(name: str, value: object) -> Iterator[None]:
    """Replace ``adapter._mistral.stream.<name>`` for the block."""
    saved = getattr(_stream, name)
    setattr(_stream, name, value)
    try:
        yield
    finally:
        setattr(_stream, name, saved)


def _in_memory(
    variants: dict[str, list[tuple[str, object]]], chunks: int, runs: int
) -> dict[str, float]:
    """CPU time per chunk of raw's line decoding + ``json.loads`` and of each variant."""
    reads = [w for w in big_stream(chunks, batch=256).writes() if isinstance(w, bytes)]
    settings = Settings(
        api_key=KEY, base_url="http://bench", timeouts=None, headers=None, retry=None
    )

    def raw_lines() -> None:
        text, lines = TextDecoder(), LineDecoder()
        for read in reads:
            for line in lines.decode(text.decode(read)):
                if line.startswith("data: ") and line != "data: [DONE]":
                    json.loads(line[6:])

    def client_core() -> None:
        call = settings.prepare(MODEL, CONTEXT, None)
        call.begin()
        call.opened(httpx.Headers())
        for read in reads:
            for _ in call.feed(read):
                pass

    samples: dict[str, list[float]] = {"raw": []} | {name: [] for name in variants}
    for _ in range(runs):
        for name, swap in [("raw", []), *variants.items()]:
            with contextlib.ExitStack() as stack:
                for swapped in swap:
                    stack.enter_context(_swapped(*swapped))
                began = time.process_time()
                raw_lines() if name == "raw" else client_core()
                samples[name].append((time.process_time() - began) / chunks)
    return {name: statistics.median(values) for name, values in samples.items()}


def shortcuts(chunks: int, sdk_chunks: int, runs: int) -> None:
    print(
        f"\n5. the hot path's shortcuts (delta events, chunk parsing), each swapped out: sync "
        f"adapter, {chunks:,} text chunks (sdk: {sdk_chunks:,}), median of {runs} interleaved runs"
    )
    variants: dict[str, list[tuple[str, object]]] = {
        "as shipped": [],
        "delta events: constructor": [("text_delta_event", _constructed_delta)],
        "delta events: model_construct": [("text_delta_event", _unvalidated_delta)],
        "delta events: private slots": [("text_delta_event", _slots_delta)],
        "no _plain_chunk (validate all)": [("parse_chunk", parse_completion_chunk)],
        "neither (constructor, validate)": [
            ("text_delta_event", _constructed_delta),
            ("parse_chunk", parse_completion_chunk),
        ],
    }
    times: dict[str, list[float]] = {"raw": [], "sdk": []} | {name: [] for name in variants}
    with (
        FakeMistralProcess(chunks=chunks) as server,
        FakeMistralProcess(chunks=sdk_chunks) as small,
    ):
        for _ in range(runs):
            times["raw"].append(timed(raw, server.chat_url, chunks + 2) / chunks)
            times["sdk"].append(timed(sdk, small.url, sdk_chunks + 2) / sdk_chunks)
            for name, swap in variants.items():
                with contextlib.ExitStack() as stack:
                    for swapped in swap:
                        stack.enter_context(_swapped(*swapped))
                    times[name].append(timed(ours_sync, server.url, chunks) / chunks)
    in_memory = _in_memory(variants, chunks, runs * 3)
    per_chunk = {name: statistics.median(values) for name, values in times.items()}
    print("   in memory, CPU time (the machine's load moves it least; HTTP adds the same")
    print("   transport cost to raw and ours, so the ratio over HTTP is at least this one):")
    for name, cost in in_memory.items():
        ratio = "" if name == "raw" else f"  {in_memory['raw'] / cost:.2f}x raw (target >= 0.67)"
        print(f"   {name:<32}{cost * 1e6:>7.2f} us/chunk{ratio}")
    print("   over HTTP:")
    for name in ("raw", "sdk"):
        print(f"   {name:<32}{per_chunk[name] * 1e6:>7.2f} us/chunk")
    for name in variants:
        ours = per_chunk[name]
        print(
            f"   {name:<32}{ours * 1e6:>7.2f} us/chunk  {per_chunk['raw'] / ours:.2f}x raw "
            f"(target >= 0.67), {per_chunk['sdk'] / ours:.0f}x the SDK (target >= 50)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200_000, help="chunks per stream")
    parser.add_argument("--sdk-chunks", type=int, default=20_000, help="chunks for the SDK")
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs per method")
    parser.add_argument("--short", type=int, default=10_000, help="short stream (flatness)")
    parser.add_argument("--long", type=int, default=1_000_000, help="long stream (flatness)")
    parser.add_argument("--otel", action="store_true", help="only the OpenTelemetry overhead")
    parser.add_argument(
        "--shortcuts", action="store_true", help="only section 5: each shortcut vs public API"
    )
    args = parser.parse_args()
    if args.chunks < 1 or args.sdk_chunks < 1:
        parser.error("--chunks and --sdk-chunks must be positive")
    if args.otel:
        otel_overhead(args.chunks, max(args.chunks // 20, 100), args.runs)
        return
    if args.shortcuts:
        shortcuts(args.chunks, args.sdk_chunks, args.runs)
        return
    throughput(args.chunks, args.sdk_chunks, args.runs)
    stages(args.chunks, args.runs)
    flatness(args.short, args.long)
    memory(args.chunks)


if __name__ == "__main__":
    main()
