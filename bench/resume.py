"""Resuming cut streams: does the caller end with exactly the uncut reply?

``--runs`` scripted replies (default 1,000) per flavour, sync and async, are served
by ``adapter.testing.FakeMistral`` and cut at a random byte offset of their event
stream (``CutStream``); the adapter (``resume=True``) continues each cut with a
``prefix: true`` request, which the fake checks against what was delivered before
answering with the rest. Replies are random words in several scripts, a third with
thinking before the text, a fifth with a tool call after it; three cuts in ten are a
TCP reset, the others a close; four in five continuations repeat the prefix (as
Mistral's do), the others do not.

Per run, the message the caller ends with (the ``done`` message, or the error's
partial) is compared with the script:

- **equal**: its text and thinking are the script's (and its tool calls, when it
  ended with ``done``); a cut inside a tool call ends with the typed error and the
  whole text, and counts here;
- **duplicated**: its text or thinking is not a prefix of the script's (text the
  reply never had, a repeat left in);
- **lost**: it ended with ``done`` but is missing text, thinking or a tool call;
- **short**: it ended with the typed error and a partial that is a prefix of the
  script's: refused, not mangled;
- **tool-call cuts resumed**: a cut inside a tool call that led to a continuation.

Run: ``python bench/resume.py [--runs N] [--seed S]``. The last line reads
``resume: E/N equal, D duplicated, L lost, T tool-call cuts resumed``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from adapter import AsyncMistralAdapter, Context, MistralAdapter, partial_of, resume_refusal
from adapter.pi import UserMessage
from adapter.testing import CutStream, FakeMistral, Script
from llm_errors import LlmError

MODEL = "magistral-medium-latest"
CONTEXT = Context(messages=[UserMessage(content="Tell me something.", timestamp=1)])
KEY = "bench-key-for-the-fake"
_PHRASE = (
    "the stream was cut before the finish reason arrived and so we go on "
    "übermäßig naïve café résumé 連続 ストリーム 继续 生成 🙂 données réseau"
)
WORDS = _PHRASE.split()


def scripts(rng: random.Random) -> Iterator[CutStream]:
    """Random scripts, each cut at a random byte offset of its event stream."""
    while True:
        thinking = (
            " ".join(rng.choices(WORDS, k=rng.randint(5, 40))) if rng.random() < 1 / 3 else ""
        )
        text = " ".join(rng.choices(WORDS, k=rng.randint(5, 80)))
        calls: list[tuple[str, str]] = []
        if rng.random() < 1 / 5:
            calls.append(("lookup", '{"query": "' + " ".join(rng.choices(WORDS, k=6)) + '"}'))
        script = Script(thinking=thinking, text=text, tool_calls=calls, piece=rng.randint(2, 12))
        size = len(CutStream(script, at=0).body)
        yield CutStream(
            script,
            at=rng.randrange(size),
            repeat_prefix=rng.random() < 0.8,
            reset=rng.random() < 0.3,
        )


def verdict(cut: CutStream, message: Any, *, done: bool) -> str:
    """``equal``, ``duplicated`` or ``lost`` for one run's final message, or ``short``."""
    script = cut.script
    text = "".join(block.text for block in message.content if block.type == "text")
    thinking = "".join(block.thinking for block in message.content if block.type == "thinking")
    for got, want in ((text, script.text), (thinking, script.thinking)):
        if not want.startswith(got):
            return "duplicated"  # text the reply never had: never acceptable
    calls = [(b.name, b.arguments) for b in message.content if b.type == "toolCall"]
    expected = [(name, json.loads(arguments)) for name, arguments in script.tool_calls]
    whole = text == script.text and thinking == script.thinking
    if done:
        return "equal" if whole and calls == expected else "lost"
    return "equal" if whole else "short"


class Tally:
    """The verdicts of one flavour's runs, and the tool-call cuts it resumed."""

    def __init__(self, fake: FakeMistral) -> None:
        self.fake = fake
        self.counts: Counter[str] = Counter()
        self.tools_resumed = 0
        self._before = 0

    def serve(self, cut: CutStream) -> None:
        """Queue the next cut reply."""
        self._before = len(self.fake.requests)
        self.fake.enqueue(cut)

    def record(self, cut: CutStream, message: Any, error: LlmError | None) -> None:
        """Judge the run's final message; a refusal must say why."""
        if error is not None and resume_refusal(error) is None:
            raise SystemExit(f"an error without a refusal at offset {cut.at}: {error}")
        self.counts[verdict(cut, message, done=error is None)] += 1
        if cut.in_tool_call and len(self.fake.requests) - self._before > 1:
            self.tools_resumed += 1
        if self.fake.pending:  # a continuation the client did not ask for
            raise SystemExit(f"a continuation was left unasked at offset {cut.at}")


def run_sync(cuts: list[CutStream]) -> Tally:
    with (
        FakeMistral() as fake,
        MistralAdapter(api_key=KEY, base_url=fake.url, resume=True) as adapter,
    ):
        tally = Tally(fake)
        for cut in cuts:
            tally.serve(cut)
            try:
                tally.record(cut, adapter.complete(MODEL, CONTEXT), None)
            except LlmError as error:
                tally.record(cut, partial_of(error), error)
    return tally


async def run_async(cuts: list[CutStream]) -> Tally:
    async with (
        FakeMistral() as fake,
        AsyncMistralAdapter(api_key=KEY, base_url=fake.url, resume=True) as adapter,
    ):
        tally = Tally(fake)
        for cut in cuts:
            tally.serve(cut)
            try:
                tally.record(cut, await adapter.complete(MODEL, CONTEXT), None)
            except LlmError as error:
                tally.record(cut, partial_of(error), error)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="cut replies per flavour")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    source = scripts(rng)
    cuts = [next(source) for _ in range(args.runs)]
    tool_cuts = sum(cut.in_tool_call for cut in cuts)
    print(f"{args.runs} cut replies per flavour (seed {args.seed}), {tool_cuts} inside a tool call")
    total: Counter[str] = Counter()
    resumed_tools = 0
    for flavour in ("sync", "async"):
        started = time.perf_counter()
        tally = run_sync(cuts) if flavour == "sync" else asyncio.run(run_async(cuts))
        seconds = time.perf_counter() - started
        counts, tools = tally.counts, tally.tools_resumed
        total += counts
        resumed_tools += tools
        print(
            f"{flavour:>5}: {counts['equal']} equal, {counts['short']} short (typed error, "
            f"partial a prefix of the reference), {counts['duplicated']} duplicated, "
            f"{counts['lost']} lost, {tools} tool-call cuts resumed ({seconds:.1f} s)"
        )
    runs = 2 * args.runs
    print(
        f"resume: {total['equal']}/{runs} equal, {total['duplicated']} duplicated, "
        f"{total['lost']} lost, {resumed_tools} tool-call cuts resumed"
    )


if __name__ == "__main__":
    main()
