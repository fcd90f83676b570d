"""Per-chunk parse cost: ``adapter._mistral.wire`` against the ``mistralai`` SDK and ``json.loads``.

All three parse the same ``data:`` payloads of a realistic Mistral stream (a role
chunk, text deltas, a reasoning stream with ``thinking`` chunk lists, a tool call and
a final chunk with usage), in one run:

- **ours**: ``parse_chunk(payload)``, what the stream uses: ``(id, model, content)`` for a
  chunk that only adds text or reasoning (``pydantic_core.from_json`` and checks by
  hand), the validated ``CompletionChunk`` for any other.
- **ours-models**: ``parse_completion_chunk(payload)``, one ``model_validate_json``
  call on the bytes (full pydantic models for every chunk).
- **sdk**: what ``mistralai`` 3.7.0 does per event once its SSE framing has found the
  ``data:`` text (``utils/eventstreaming.py`` ``_parse_event`` and the decoder in
  ``chat.py``): ``json.loads`` the data, ``json.dumps`` the event dict, then
  ``unmarshal_json_response(models.CompletionEvent, http_res, raw)``, which builds a
  fresh pydantic model class with ``create_model`` on every call.
- **sdk-unmarshal**: only the SDK's ``unmarshal_json(raw, CompletionEvent)`` step.
- **json.loads**: the plain decode, the floor for any validating parser.

Also prints the cost of constructing one pi event, the mapper's per-chunk allocation
(the trusted builder the mapper uses, the validating constructor, ``model_construct``).
Prints medians over several interleaved runs and the ratios against ours.

Run: ``python bench/chunk_parse.py [--runs R] [--repeat N]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import httpx2
from mistralai.client import models
from mistralai.client.utils.serializers import unmarshal_json
from mistralai.client.utils.unmarshal_json_response import unmarshal_json_response

from adapter._mistral.wire import CompletionChunk, parse_chunk, parse_completion_chunk
from adapter.pi import AssistantMessage, AssistantTextDeltaEvent, Usage, UsageCost
from adapter.pi._events import text_delta_event

HEAD = {
    "id": "59060ef9339a4112b2c9e57e3ee6199d",
    "object": "chat.completion.chunk",
    "created": 1764258570,
    "model": "mistral-medium-latest",
}
WORDS = ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog;", "élan,", "東京."]


def payload(delta: dict[str, object], finish: str | None = None, **extra: object) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return json.dumps({**HEAD, "choices": [choice], **extra}, ensure_ascii=False).encode()


def stream() -> list[bytes]:
    """One turn: reasoning, answer text, a tool call, usage; about 120 payloads."""
    chunks = [payload({"role": "assistant", "content": ""})]
    for i in range(40):
        think = [{"type": "text", "text": f" {WORDS[i % len(WORDS)]}"}]
        chunks.append(payload({"content": [{"type": "thinking", "thinking": think}]}))
    chunks.extend(payload({"content": f"{WORDS[i % len(WORDS)]} "}) for i in range(70))
    call = {
        "id": "D681PevKs",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "C"}'},
        "index": 0,
    }
    chunks.append(payload({"content": "", "tool_calls": [call]}, "tool_calls"))
    usage = {"prompt_tokens": 812, "completion_tokens": 230, "total_tokens": 1042}
    usage["prompt_tokens_details"] = {"cached_tokens": 512}  # type: ignore[assignment]
    chunks.append(payload({"content": ""}, "stop", usage=usage))
    return chunks


def sdk_event(http_res: httpx2.Response) -> Callable[[bytes], object]:
    """The SDK's per-event work after SSE framing: loads, dumps, unmarshal_json_response."""

    def parse(data: bytes) -> object:
        event = {"data": json.loads(data.decode())}
        return unmarshal_json_response(models.CompletionEvent, http_res, json.dumps(event))

    return parse


def sdk_unmarshal(data: bytes) -> object:
    """Only the SDK's validation step, on the event JSON it builds."""
    return unmarshal_json(b'{"data":' + data + b"}", models.CompletionEvent)


def time_per_chunk(parse: Callable[[bytes], object], chunks: list[bytes], repeat: int) -> float:
    """Seconds per chunk over ``repeat`` passes of the stream."""
    start = time.perf_counter()
    for _ in range(repeat):
        for chunk in chunks:
            parse(chunk)
    return (time.perf_counter() - start) / (repeat * len(chunks))


def check_same_result(chunks: list[bytes], http_res: httpx2.Response) -> None:
    """Ours and the SDK read the same text, finish reasons and usage; parse_chunk is used."""
    sdk = sdk_event(http_res)
    plain = sum(not isinstance(parse_chunk(chunk), CompletionChunk) for chunk in chunks)
    if plain < len(chunks) - 3:  # all but the tool call and the final chunk take the fast path
        raise SystemExit(f"only {plain} of {len(chunks)} payloads took parse_chunk's fast path")
    for chunk in chunks:
        ours = parse_completion_chunk(chunk).choices[0]
        theirs = sdk(chunk).data.choices[0]  # type: ignore[attr-defined]
        mine, other = ours.delta.content, theirs.delta.content
        same_content = mine == other if isinstance(mine, str) else len(mine or []) == len(other)
        if ours.finish_reason != theirs.finish_reason or not same_content:
            raise SystemExit(f"ours and the SDK disagree on {chunk!r}")


def _builder(*, contentIndex: int, delta: str, partial: AssistantMessage) -> object:  # noqa: N803  -- the event's field names
    return text_delta_event(contentIndex, delta, partial)


def event_costs(repeat: int) -> dict[str, float]:
    """Seconds to construct one text-delta event: trusted builder, validated, unvalidated."""
    cost = UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0)
    usage = Usage(input=0, output=0, cacheRead=0, cacheWrite=0, totalTokens=0, cost=cost)
    message = AssistantMessage(
        content=[], api="mistral", provider="mistral", model="m", usage=usage,
        stopReason="stop", timestamp=0,
    )  # fmt: skip
    results = {}
    for name, make in (
        ("text_delta_event(...) (the mapper's)", _builder),
        ("AssistantTextDeltaEvent(...)", AssistantTextDeltaEvent),
        ("AssistantTextDeltaEvent.model_construct(...)", AssistantTextDeltaEvent.model_construct),
    ):
        start = time.perf_counter()
        for _ in range(repeat):
            make(contentIndex=0, delta="word ", partial=message)
        results[name] = (time.perf_counter() - start) / repeat
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per method (median)")
    parser.add_argument("--repeat", type=int, default=20, help="passes over the stream per run")
    args = parser.parse_args()

    chunks = stream()
    http_res = httpx2.Response(200, headers={"content-type": "text/event-stream"})
    check_same_result(chunks, http_res)
    methods: dict[str, Callable[[bytes], object]] = {
        "ours": parse_chunk,
        "ours-models": parse_completion_chunk,
        "json.loads": json.loads,
        "sdk-unmarshal": sdk_unmarshal,
        "sdk": sdk_event(http_res),
    }
    # The SDK is ~100x slower: give it fewer passes so a run stays short.
    repeats = {"sdk": max(1, args.repeat // 10), "sdk-unmarshal": max(1, args.repeat // 10)}
    for parse in methods.values():
        parse(chunks[0])  # warm up
    # Rounds interleave the methods, so a load spike on the shared machine hits all alike.
    runs: dict[str, list[float]] = {name: [] for name in methods}
    for _ in range(args.runs):
        for name, parse in methods.items():
            runs[name].append(time_per_chunk(parse, chunks, repeats.get(name, args.repeat)))
    medians = {name: statistics.median(times) for name, times in runs.items()}

    size = statistics.mean(len(chunk) for chunk in chunks)
    print(f"{len(chunks)} payloads per stream, mean {size:.0f} bytes; median of {args.runs} runs")
    print(f"{'method':<16}{'us/chunk':>10}{'vs ours':>10}")  # ours = parse_chunk
    for name, seconds in medians.items():
        ratio = seconds / medians["ours"]
        print(f"{name:<16}{seconds * 1e6:>10.2f}{ratio:>9.2f}x")
    print(
        f"ours is {medians['sdk'] / medians['ours']:.0f}x faster than the SDK "
        f"(target >= 50x) and {medians['ours'] / medians['json.loads']:.2f}x json.loads "
        "(target <= 3x)"
    )
    print("pi event construction, us/event:")
    for name, seconds in event_costs(args.repeat * 5000).items():
        print(f"  {name:<46}{seconds * 1e6:>6.2f}")


if __name__ == "__main__":
    main()
