"""SSE decoding throughput: ``adapter._sse`` against a naive per-line ``str`` decoder.

The naive baseline is the usual shape of an SSE client (httpx-sse over httpx's line
decoder): decode every read to text, split lines on str, parse each line with
``str.partition`` and build a dataclass per event. Both decoders get the same reads of a
realistic Mistral stream (one ``data: {chunk}`` per event, with some non-ASCII text)
and must produce the same events. Ours keeps the payload as bytes (what the JSON parser
takes); the "ours+str" column adds decoding it to ``str``, like for like with the
baseline. Prints the median of several runs, events/s and ratios, per read size.

Run: ``python bench/sse_decode.py [--events N] [--runs R]``
"""

from __future__ import annotations

import argparse
import codecs
import collections
import json
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from adapter._sse import iter_events


@dataclass(frozen=True, slots=True)
class NaiveEvent:
    """The baseline's event record."""

    data: str
    event: str
    id: str
    retry: int | None


def naive_events(chunks: Iterable[bytes]) -> Iterator[NaiveEvent]:
    """The baseline: text first, then lines, then one str state machine step per line."""
    text_decoder = codecs.getincrementaldecoder("utf-8")("replace")
    buffer = ""
    data: list[str] = []
    event, last_id, retry = "", "", None
    for chunk in chunks:
        buffer += text_decoder.decode(chunk)
        lines = buffer.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        buffer = lines.pop()
        for line in lines:
            if not line:
                if data:
                    yield NaiveEvent("\n".join(data), event or "message", last_id, retry)
                data, event = [], ""
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            elif name == "id" and "\0" not in value:
                last_id = value
            elif name == "retry" and value.isdigit():
                retry = int(value)


def ours(chunks: Iterable[bytes]) -> Iterator[object]:
    """Our decoder as the adapter uses it: the payload stays bytes for the JSON parser."""
    return iter_events(chunks)


def ours_text(chunks: Iterable[bytes]) -> Iterator[object]:
    """Our decoder plus a ``str`` payload per event, to compare like with like."""
    return (event.data for event in iter_events(chunks))


def make_stream(events: int, newline: bytes) -> bytes:
    chunk = {
        "id": "59060ef9339a4112b2c9e57e3ee6199d",
        "object": "chat.completion.chunk",
        "created": 1764258570,
        "model": "mistral-large-latest",
        "choices": [{"index": 0, "delta": {"content": "tok\u00e9n "}, "finish_reason": None}],
    }
    payload = json.dumps(chunk, ensure_ascii=False, separators=(",", ":")).encode()
    frame = b"data: " + payload + newline + newline
    return frame * events + b"data: [DONE]" + newline + newline


def split(stream: bytes, size: int) -> list[bytes]:
    return [stream[i : i + size] for i in range(0, len(stream), size)]


def measure(
    decode: Callable[[list[bytes]], Iterator[object]], reads: list[bytes], runs: int
) -> float:
    """Median seconds for one full decode of ``reads``; events are consumed, not kept."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        collections.deque(decode(reads), maxlen=0)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    print(f"{args.events:,} events per run, median of {args.runs} runs")
    print(
        f"{'case':<26}{'ours ev/s':>12}{'ours+str ev/s':>15}{'naive ev/s':>12}"
        f"{'ours/naive':>12}{'ours+str/naive':>16}"
    )
    for label, newline, read_size in [
        ("LF, 64 KiB reads", b"\n", 65_536),
        ("LF, one event per read", b"\n", 0),
        ("LF, 100-byte reads", b"\n", 100),
        ("CRLF, 64 KiB reads", b"\r\n", 65_536),
        ("CR, 64 KiB reads", b"\r", 65_536),
    ]:
        stream = make_stream(args.events, newline)
        frame_size = stream.index(newline * 2) + 2 * len(newline)
        reads = split(stream, read_size or frame_size)
        got, want = list(iter_events(reads)), list(naive_events(reads))
        if [(e.data, e.event, e.id, e.retry) for e in got] != [
            (e.data, e.event, e.id, e.retry) for e in want
        ]:
            raise SystemExit(f"{label}: the decoders disagree")
        count = len(got)
        ours_s = measure(ours, reads, args.runs)
        text_s = measure(ours_text, reads, args.runs)
        naive_s = measure(naive_events, reads, args.runs)
        print(
            f"{label:<26}{count / ours_s:>12,.0f}{count / text_s:>15,.0f}"
            f"{count / naive_s:>12,.0f}{naive_s / ours_s:>11.1f}x{naive_s / text_s:>15.1f}x"
        )


if __name__ == "__main__":
    main()
