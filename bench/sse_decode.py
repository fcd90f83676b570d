"""SSE decoding throughput: ``adapter._sse`` against a naive per-line ``str`` decoder.

The naive baseline is the usual shape of an SSE client (httpx-sse over httpx's line
decoder): decode every read to text, split lines on str, parse each line with
``str.partition`` and build a dataclass per event. Both decoders get the same reads of a
realistic Mistral stream (one ``data: {chunk}`` per event, with some non-ASCII text)
and must produce the same events. Ours keeps the payload as bytes (what the JSON parser
takes); the "ours+str" column adds decoding it to ``str``, like for like with the
baseline. Prints the median of several runs, events/s and ratios, per read size.

Then the same over real HTTP, from the fake server running in a separate process
(``adapter.testing.FakeMistralProcess``): what the server delivers to a raw socket, and
events/s through ``httpx`` with our decoder and with the naive one on ``iter_lines``.

Run: ``python bench/sse_decode.py [--events N] [--chunks N] [--runs R]``
"""

from __future__ import annotations

import argparse
import codecs
import collections
import json
import socket
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import httpx

from adapter._sse import SSEDecoder, iter_events
from adapter.testing import FakeMistralProcess


@dataclass(frozen=True, slots=True)
class NaiveEvent:
    """The baseline's event record."""

    data: str
    event: str
    id: str
    retry: int | None


def naive_lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """The baseline's line splitter: decode every read to text, then split it."""
    text_decoder = codecs.getincrementaldecoder("utf-8")("replace")
    buffer = ""
    for chunk in chunks:
        buffer += text_decoder.decode(chunk)
        lines = buffer.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        buffer = lines.pop()
        yield from lines


def naive_from_lines(lines: Iterable[str]) -> Iterator[NaiveEvent]:
    """The baseline's field state machine: one ``str`` step per line."""
    data: list[str] = []
    event, last_id, retry = "", "", None
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


def naive_events(chunks: Iterable[bytes]) -> Iterator[NaiveEvent]:
    """The baseline: text first, then lines, then one str state machine step per line."""
    return naive_from_lines(naive_lines(chunks))


def ours(chunks: Iterable[bytes]) -> Iterator[object]:
    """Our decoder as the adapter uses it: the payload stays bytes for the JSON parser."""
    return iter_events(chunks)


def ours_data(chunks: Iterable[bytes]) -> Iterator[object]:
    """Our decoder as the Mistral client drives it: ``feed_data``, no event records."""
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed_data(chunk)
    decoder.finish()


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


def decode_section(events: int, runs: int) -> None:
    """In-memory reads: the decoders alone."""
    print(f"\n1. decoding in-memory reads: {events:,} events per run, median of {runs} runs")
    print(
        f"{'case':<26}{'ours ev/s':>12}{'data ev/s':>12}{'ours+str ev/s':>15}"
        f"{'naive ev/s':>12}{'ours/naive':>12}{'data/naive':>12}{'ours+str/naive':>16}"
    )
    for label, newline, read_size in [
        ("LF, 64 KiB reads", b"\n", 65_536),
        ("LF, one event per read", b"\n", 0),
        ("LF, 100-byte reads", b"\n", 100),
        ("CRLF, 64 KiB reads", b"\r\n", 65_536),
        ("CR, 64 KiB reads", b"\r", 65_536),
    ]:
        stream = make_stream(events, newline)
        frame_size = stream.index(newline * 2) + 2 * len(newline)
        reads = split(stream, read_size or frame_size)
        got, want = list(iter_events(reads)), list(naive_events(reads))
        if [(e.data, e.event, e.id, e.retry) for e in got] != [
            (e.data, e.event, e.id, e.retry) for e in want
        ]:
            raise SystemExit(f"{label}: the decoders disagree")
        if list(ours_data(reads)) != [event.data_bytes for event in got]:
            raise SystemExit(f"{label}: feed_data disagrees with feed")
        count = len(got)
        ours_s = measure(ours, reads, runs)
        data_s = measure(ours_data, reads, runs)
        text_s = measure(ours_text, reads, runs)
        naive_s = measure(naive_events, reads, runs)
        print(
            f"{label:<26}{count / ours_s:>12,.0f}{count / data_s:>12,.0f}{count / text_s:>15,.0f}"
            f"{count / naive_s:>12,.0f}{naive_s / ours_s:>11.1f}x{naive_s / data_s:>11.1f}x"
            f"{naive_s / text_s:>15.1f}x"
        )


def drain(url: str) -> int:
    """POST a stream request on a raw socket and read the response to its end; bytes read."""
    host, port = url.removeprefix("http://").split(":")
    body = b'{"model":"m","messages":[],"stream":true}'
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: %b\r\nContent-Length: %d\r\n"
        b"Connection: close\r\n\r\n%b" % (host.encode(), len(body), body)
    )
    buffer = bytearray(1 << 20)
    total = 0
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(request)
        while received := sock.recv_into(buffer):
            total += received
    return total


def server_section(chunks: int, runs: int) -> None:
    """The fake server in its own process: what it delivers, and decoding over httpx."""
    print(
        f"\n2. fake server in a separate process (big-stream, batch 256): "
        f"{chunks:,} text chunks, median of {runs} runs"
    )
    expected = chunks + 3  # the role chunk, the finish chunk and [DONE]
    with FakeMistralProcess("big-stream", chunks=chunks, batch=256) as server:
        raw = []
        for _ in range(runs):
            start = time.perf_counter()
            size = drain(server.url)
            raw.append(time.perf_counter() - start)
        raw_s = statistics.median(raw)
        print(
            f"{'raw socket drain (server)':<40}{expected / raw_s:>14,.0f} chunks/s"
            f"  ({size / raw_s / 1e6:,.0f} MB/s)"
        )
        with httpx.Client(timeout=60) as client:

            def over_httpx(decode: Callable[[httpx.Response], Iterator[object]]) -> float:
                times = []
                for _ in range(runs):
                    start = time.perf_counter()
                    with client.stream("POST", server.chat_url, json={}) as response:
                        count = sum(1 for _ in decode(response))
                    times.append(time.perf_counter() - start)
                    if count != expected:
                        raise SystemExit(f"expected {expected} events, got {count}")
                return statistics.median(times)

            ours_s = over_httpx(lambda response: iter_events(response.iter_bytes()))
            naive_s = over_httpx(lambda response: naive_from_lines(response.iter_lines()))
        print(f"{'httpx iter_bytes + adapter._sse':<40}{expected / ours_s:>14,.0f} events/s")
        print(
            f"{'httpx iter_lines + naive decoder':<40}{expected / naive_s:>14,.0f} events/s"
            f"  (ours {naive_s / ours_s:.1f}x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000, help="events per in-memory run")
    parser.add_argument("--chunks", type=int, default=1_000_000, help="chunks per server run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    decode_section(args.events, args.runs)
    server_section(args.chunks, args.runs)


if __name__ == "__main__":
    main()
