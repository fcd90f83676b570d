"""Many streams at once: our async adapter against raw ``httpx.AsyncClient`` + ``json.loads``.

A fake server in a separate process (``adapter.testing.FakeMistralProcess``) streams
``--tokens`` text chunks per response at a realistic pace (one chunk per write,
``--delay`` seconds apart: 20 tokens/s by default), and ``--streams`` concurrent
streams (1,000 by default) are consumed in one asyncio loop by:

- **raw**: ``httpx.AsyncClient.stream`` + ``aiter_lines`` + ``json.loads`` per
  ``data:`` line (the baseline: parse the chunks, nothing else);
- **ours**: ``AsyncMistralAdapter.stream``, every pi event consumed.

Each consumer runs in a fresh child process (so its peak RSS is its own), in
alternating rounds against the same server; the figures are medians over the rounds:

- aggregate deltas/s: text deltas received by all streams / wall time;
- CPU per 1,000 deltas: the child's CPU time (user + system) / deltas x 1,000; the
  target is ours >= 0.8x raw's efficiency (raw's CPU per delta / ours);
- peak RSS per open stream: (peak RSS - RSS before the streams open) / streams;
- time to first event: from starting a stream to its first text delta (the first
  event with content, for both), median and 95th percentile.

Run: ``python bench/concurrency.py [--streams N] [--tokens N] [--delay S] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from adapter import AsyncMistralAdapter, Context
from adapter.pi import UserMessage
from adapter.testing import FakeMistralProcess

MODEL = "mistral-small-latest"
CONTEXT = Context(messages=[UserMessage(content="Count slowly.", timestamp=1)])
BODY = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "stream": True}


def _rss_kib() -> int:
    """This process's resident set size now, in KiB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _client(streams: int) -> httpx.AsyncClient:
    """One pooled client for every stream, with room for all of them at once.

    It keeps httpx's default 20 idle connections: httpcore 1.0's pool scans every
    connection for every idle one whenever a request starts or ends, so a pool holding
    hundreds of idle connections costs O(n^2) per request (it dominated a profile).
    """
    limits = httpx.Limits(max_connections=streams + 16, max_keepalive_connections=20)
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(60, connect=60, pool=60))


async def _raw(client: httpx.AsyncClient, url: str) -> tuple[int, float]:
    """One raw stream; returns (text deltas, seconds to the first one)."""
    began = time.perf_counter()
    first = 0.0
    deltas = 0
    async with client.stream("POST", url, json=BODY) as response:
        async for line in response.aiter_lines():
            if not line.startswith("data: "):
                continue
            data = line[6:]
            if data == "[DONE]":
                continue  # read to the end of the body, as ours does, so the connection is reused
            chunk = json.loads(data)
            if chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
                deltas += 1
                first = first or time.perf_counter() - began
    return deltas, first


async def _ours(adapter: AsyncMistralAdapter) -> tuple[int, float]:
    """One stream through our adapter; returns (text deltas, seconds to the first one)."""
    began = time.perf_counter()
    first = 0.0
    deltas = 0
    async for event in adapter.stream(MODEL, CONTEXT):
        if event.type == "text_delta":
            deltas += 1
            first = first or time.perf_counter() - began
    return deltas, first


async def _consume(kind: str, base_url: str, streams: int, ramp: float) -> dict[str, Any]:
    """Open ``streams`` streams over ``ramp`` seconds, consume them all, measure."""
    async with _client(streams) as client:
        adapter = AsyncMistralAdapter(api_key="bench", base_url=base_url, client=client)
        url = f"{base_url}/v1/chat/completions"
        await (_raw(client, url) if kind == "raw" else _ours(adapter))  # warm-up: imports
        rss_before = _rss_kib()
        cpu_before = time.process_time()

        async def one(index: int) -> tuple[int, float]:
            await asyncio.sleep(ramp * index / streams)  # a burst, not one instant
            return await (_raw(client, url) if kind == "raw" else _ours(adapter))

        began = time.perf_counter()
        results = await asyncio.gather(*(one(index) for index in range(streams)))
        wall = time.perf_counter() - began
        cpu = time.process_time() - cpu_before
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    firsts = sorted(first for _, first in results)
    deltas = sum(count for count, _ in results)
    return {
        "deltas": deltas,
        "wall": wall,
        "cpu": cpu,
        "rss_per_stream_kib": (peak - rss_before) / streams,
        "first_median": statistics.median(firsts),
        "first_p95": firsts[int(0.95 * (len(firsts) - 1))],
    }


def _child(kind: str, base_url: str, streams: int, ramp: float) -> dict[str, Any]:
    """Run one consumer in a fresh interpreter; its figures come back as JSON."""
    command = [sys.executable, __file__, "--child", kind, base_url, str(streams), str(ramp)]
    output = subprocess.run(  # noqa: S603 - this very script
        command, check=True, capture_output=True, text=True, timeout=600
    ).stdout
    result: dict[str, Any] = json.loads(output.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000, help="concurrent streams")
    parser.add_argument("--tokens", type=int, default=100, help="text chunks per stream")
    parser.add_argument("--delay", type=float, default=0.05, help="seconds between chunks")
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds to open all streams")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, base_url, streams, ramp = args.child
        print(json.dumps(asyncio.run(_consume(kind, base_url, int(streams), float(ramp)))))
        return
    print(
        f"{args.streams:,} concurrent streams of {args.tokens} text chunks, one every "
        f"{args.delay * 1000:g} ms (fake server in a separate process), opened over "
        f"{args.ramp:g} s; median of {args.rounds} alternating rounds, each consumer in a "
        f"fresh process; {os.cpu_count()} cores shared with other jobs"
    )
    figures: dict[str, list[dict[str, Any]]] = {"raw": [], "ours": []}
    with FakeMistralProcess("text", chunks=args.tokens, delay=args.delay) as server:
        for _ in range(args.rounds):
            for kind, results in figures.items():
                result = _child(kind, server.url, args.streams, args.ramp)
                expected = args.streams * args.tokens
                if result["deltas"] != expected:
                    raise SystemExit(f"{kind}: {result['deltas']:,} deltas, expected {expected:,}")
                results.append(result)

    def median(kind: str, key: str) -> float:
        return statistics.median(result[key] for result in figures[kind])

    cpu_per_k = {
        kind: statistics.median(r["cpu"] / r["deltas"] * 1000 for r in results)
        for kind, results in figures.items()
    }
    for kind, results in figures.items():
        rate = statistics.median(r["deltas"] / r["wall"] for r in results)
        print(
            f"   {kind:<5} {rate:>9,.0f} deltas/s   CPU {cpu_per_k[kind] * 1000:6.1f} ms per "
            f"1,000 deltas   peak RSS {median(kind, 'rss_per_stream_kib'):6.1f} KiB per stream"
            f"   first delta {median(kind, 'first_median') * 1000:6.1f} ms median, "
            f"{median(kind, 'first_p95') * 1000:6.1f} ms p95"
        )
    print(
        f"   ours: {cpu_per_k['raw'] / cpu_per_k['ours']:.2f}x raw's CPU efficiency per delta "
        "(target >= 0.8)"
    )


if __name__ == "__main__":
    main()
