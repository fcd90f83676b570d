"""Fallback by error code, counted on fake Mistral servers: does each error go where it helps?

Every hop is a ``MistralAdapter`` with its own ``RetryPolicy``, pointed at its own
``adapter.testing.FakeMistral`` on 127.0.0.1; the requests are counted on the servers.
Four phases, all through ``llm_retry.fallback``:

* outage: two hops, scope ``mistral:a`` on server A and ``mistral:b`` on server B, their
  policies sharing one ``InProcessCoordination`` with a ``CircuitBreaker`` (10 outcomes,
  half of them failed, open 2 s doubling to 8 s: the settings of ``bench/fleet.py``).
  Server A answers every request with a 503 for ``--outage`` seconds, then heals; calls
  arrive at ``--rate`` per second from a thread pool, during the outage and for
  ``HEAL`` seconds after it. Figures: calls served (the target: all), requests that
  reached A during the outage (before the breaker first opened, and after it: the
  probes), requests to B, the time from A's healing to the first call it served, and
  the share of A's calls once its breaker closed;
* context overflow: hops stating windows of 32k, 16k and 128k, in that order (the 16k
  one stands before the 128k one, where any-next would call it); the 32k server answers
  an overflow. Only the 128k server may get the second request;
* quota: hop 1 (key ``team-a``) answers a spent budget; hop 2 has the same key and
  must get nothing, hop 3 (key ``team-b``) one request per call;
* content filter: hop 1 answers a filtered prompt. By default the call stops (hops 2
  and 3 get nothing); with ``rules={CONTENT_FILTER: OTHER_PROVIDER}`` it goes on to the
  first hop of another provider (hop 3), past one of the same provider with another key.

The error bodies are ones the repository ships, never written for this bench:

* 503: ``example_error_body("I")``, no body at all (docs/wire.md §7.2 I);
* overflow: Mistral's 400 ``code 3051`` body (docs/wire.md §9 "context length",
  ``tests/adapter/mistral/test_errors.py``);
* quota: none of Mistral's is in the repository. The body is a LiteLLM proxy's spent
  per-key budget (``tests/llm_errors/corpus`` ``q-litellm-006``, ``BerriAI/litellm#4208``;
  the corpus line's trailing ``%`` is the shell's no-newline mark, not the body's), as a
  proxy with one virtual key per team in front of Mistral answers;
* content filter: none of Mistral's either (Mistral ends a stream with ``finish_reason``
  ``content_filter``, which the adapter does not raise). The body is Azure's
  (``sealb-opencode-032``, ``anomalyco/opencode#17968``), as a Mistral model deployed on
  Azure answers, so that hop states ``provider="azure"``.

Before the phases, each body is served once and the adapter's error classified, so a
change of the classifier shows here rather than as odd counts.

Run: ``python bench/fallback.py [--outage SECONDS] [--rate CALLS_PER_S] [--calls N]``.
The last line reads ``fallback: outage S/N served, A_req requests to the failed scope
(R/s), overflow->larger W/N (smaller 0), quota->other key K/N (same key 0), filter
stopped F/N (opted in: other provider P/N)``.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from adapter import Context, MistralAdapter, Timeouts
from adapter.pi import AssistantMessage, UserMessage
from adapter.testing import FakeMistral, Reply, Scenario, example_error_body, text_reply
from llm_errors import ErrorCode, LlmError, classify
from llm_retry import (
    CircuitBreaker,
    FallbackRule,
    Hop,
    InProcessCoordination,
    RetryPolicy,
    fallback,
)
from llm_retry.instrumentation import BreakerEvent, set_on_retry_hooks

KEY = "bench-key-for-the-fake"
MODEL = "mistral-small-latest"
CONTEXT = Context(messages=[UserMessage(content="Summarise the attached report.", timestamp=1)])
TIMEOUTS = Timeouts(connect=5.0, read=10.0, total=10.0)

# --- the error bodies (see the module docstring for where each comes from) ------------------

#: docs/wire.md §9 "context length", verbatim.
OVERFLOW_BODY = (
    '{"object":"error","message":"Prompt contains 159202 tokens and 0 draft tokens, too large '
    'for model with 131072 maximum context length","type":"invalid_request_invalid_args",'
    '"param":null,"code":"3051","raw_status_code":400}'
)
#: tests/llm_errors/corpus content_filter_quota.jsonl q-litellm-006, verbatim.
QUOTA_BODY = (
    '{"error":{"message":"Budget has been exceeded! Current cost: 0.0010747, Max budget: 0.0",'
    '"type":"auth_error","param":null,"code":400}}'
)
#: tests/llm_errors/corpus sealed_2026_12b.jsonl sealb-opencode-032, verbatim.
FILTER_BODY = (
    '{"error":{"message":"The response was filtered due to the prompt triggering Azure '
    'OpenAI\'s content management policy.","type":"invalid_request_error",'
    '"code":"content_filter"}}'
)

OUTAGE = Reply(503, example_error_body("I"))
OVERFLOW = Reply(400, json.loads(OVERFLOW_BODY))
QUOTA = Reply(400, json.loads(QUOTA_BODY))
FILTERED = Reply(400, json.loads(FILTER_BODY))
#: What each error reply must be classified as, or the phase measures something else.
EXPECTED: tuple[tuple[str, Reply, ErrorCode], ...] = (
    ("503, no body", OUTAGE, ErrorCode.SERVER),
    ("400 code 3051", OVERFLOW, ErrorCode.CONTEXT_OVERFLOW),
    ("400 LiteLLM budget", QUOTA, ErrorCode.QUOTA_EXCEEDED),
    ("400 Azure content filter", FILTERED, ErrorCode.CONTENT_FILTER),
)

# --- the outage phase's settings -------------------------------------------------------------

SCOPE_A = "mistral:a"
SCOPE_B = "mistral:b"
BREAKER = CircuitBreaker(
    failure_ratio=0.5, min_calls=10, window=10.0, open_for=2.0, max_open_for=8.0
)
#: Seconds of calls after A heals: the longest open period, the probe, a margin.
HEAL = BREAKER.max_open_for + 4.0
#: Threads making the outage phase's calls (calls in flight at once, at most).
WORKERS = 32
#: Longest the outage phase waits for its last calls after the schedule ends, in seconds.
DRAIN_TIMEOUT = 60.0
#: Longest a fallback call may take in all, in seconds.
CALL_DEADLINE = 30.0


def served_reply(name: str) -> Scenario:
    """The success of the server named ``name``: its name is the reply's text."""
    return text_reply(f"served by {name}")


def served_by(message: AssistantMessage) -> str:
    """The name of the server that answered ``message`` (see :func:`served_reply`)."""
    text = "".join(getattr(block, "text", "") for block in message.content)
    return text.removeprefix("served by ")


def complete_with(adapter: MistralAdapter) -> Callable[[Context], AssistantMessage]:
    """One hop: a completion of ``MODEL`` through ``adapter``."""

    def complete(context: Context) -> AssistantMessage:
        return adapter.complete(MODEL, context)

    return complete


def quiet_policy(**settings: Any) -> RetryPolicy:
    """A hop's policy: short backoff, no log line per retry, bounded attempts and time."""
    return RetryPolicy(
        max_attempts=2, deadline=10.0, initial_wait=0.05, max_wait=0.2, on_retry=None, **settings
    )


def check_bodies() -> None:
    """Serve each error body once; the adapter's error must have the expected code."""
    seen = []
    for label, reply, code in EXPECTED:
        with (
            FakeMistral(reply) as fake,
            MistralAdapter(api_key=KEY, base_url=fake.url, timeouts=TIMEOUTS) as adapter,
        ):
            try:
                adapter.complete(MODEL, CONTEXT)
            except LlmError as error:
                got = classify(error).code
            else:
                raise SystemExit(f"{label}: the adapter returned a reply")
        if got is not code:
            raise SystemExit(f"{label}: classified {got}, expected {code}")
        seen.append(f"{label} -> {got}")
    print("bodies: " + "; ".join(seen))


# --- phase 1: an outage of the first of two scopes -------------------------------------------


@dataclass(frozen=True)
class Call:
    """One call of the outage phase: when it started, what it took, who served it."""

    started: float
    took: float
    served: str | None
    error: str | None = None


@dataclass
class Outage:
    """What the outage phase saw."""

    seconds: float
    rate: float
    calls: list[Call]
    a_during: int
    a_before_open: int | None
    b_requests: int
    a_requests: int
    opened: list[float]
    probes: int
    closed_after: float | None
    healed: float

    @property
    def served(self) -> int:
        """Calls that ended with a reply."""
        return sum(call.error is None for call in self.calls)

    @property
    def per_second(self) -> float:
        """Requests to A per second of outage."""
        return self.a_during / self.seconds


def outage_phase(seconds: float, rate: float) -> Outage:
    """Scope A down for ``seconds`` then healed, calls at ``rate``/s through A then B."""
    coordination = InProcessCoordination(breaker=BREAKER)
    events: list[tuple[float, str, int]] = []
    lock = threading.Lock()
    total = math.ceil((seconds + HEAL) * rate)
    with ExitStack() as stack:
        fake_a = stack.enter_context(FakeMistral(default=OUTAGE))
        fake_b = stack.enter_context(FakeMistral(default=served_reply("B")))

        def hook(event: object) -> None:
            if isinstance(event, BreakerEvent) and event.scope == SCOPE_A:
                with lock:
                    events.append((time.monotonic(), event.state.value, len(fake_a.requests)))

        stack.enter_context(set_on_retry_hooks([hook]))
        hops = []
        for name, fake, scope in (("A", fake_a, SCOPE_A), ("B", fake_b, SCOPE_B)):
            policy = quiet_policy(coordination=coordination, scope=scope)
            adapter = stack.enter_context(
                MistralAdapter(api_key=KEY, base_url=fake.url, timeouts=TIMEOUTS, retry=policy)
            )
            hops.append(
                Hop(
                    complete_with(adapter),
                    name=name,
                    scope=scope,
                    coordination=coordination,
                    provider="mistral",
                )
            )
        ask = fallback(*hops, deadline=CALL_DEADLINE)
        pool = stack.enter_context(ThreadPoolExecutor(max_workers=WORKERS))
        began = time.monotonic()

        def one() -> Call:
            start = time.monotonic()
            try:
                message = ask(CONTEXT)
            except Exception as error:  # counted and shown, never hidden
                return Call(start - began, time.monotonic() - start, None, describe(error))
            return Call(start - began, time.monotonic() - start, served_by(message))

        futures: list[Future[Call]] = []
        heal_at, healed, a_during = began + seconds, math.nan, 0
        while len(futures) < total:
            now = time.monotonic()
            if math.isnan(healed) and now >= heal_at:
                a_during = len(fake_a.requests)
                fake_a.default = served_reply("A")
                healed = now - began
                continue
            due = began + len(futures) / rate
            if now >= due:
                futures.append(pool.submit(one))
                continue
            time.sleep(min(due, heal_at if math.isnan(healed) else due) - now)
        done, pending = wait_all(futures, timeout=DRAIN_TIMEOUT)
        if pending:
            raise SystemExit(f"outage: {len(pending)} calls still running after {DRAIN_TIMEOUT} s")
        calls = sorted((future.result() for future in done), key=lambda call: call.started)
        a_requests, b_requests = len(fake_a.requests), len(fake_b.requests)
    with lock:
        seen = [(at - began, state, count) for at, state, count in events]
    opened = [at for at, state, _ in seen if state == "open" and at < healed]
    first_open = next((count for _, state, count in seen if state == "open"), None)
    closed = [at for at, state, _ in seen if state == "closed" and at >= healed]
    return Outage(
        seconds=seconds,
        rate=rate,
        calls=calls,
        a_during=a_during,
        a_before_open=first_open,
        b_requests=b_requests,
        a_requests=a_requests,
        opened=opened,
        probes=sum(state == "half_open" and at < healed for at, state, _ in seen),
        closed_after=closed[0] - healed if closed else None,
        healed=healed,
    )


def describe(error: BaseException) -> str:
    """An error in a few words: its type and code (never its message: it holds a body)."""
    return f"{type(error).__name__} {classify(error).code}"


def report_outage(result: Outage) -> None:
    calls, healed = result.calls, result.healed
    during = [call for call in calls if call.started < healed]
    failed = Counter(call.error for call in calls if call.error is not None)
    back = [call for call in calls if call.started >= healed and call.served == "A"]
    recovery = back[0].started + back[0].took - healed if back else math.inf
    after_close = [
        call
        for call in calls
        if result.closed_after is not None and call.started >= healed + result.closed_after
    ]
    times = sorted(call.took for call in during)
    before = result.a_before_open
    after = result.a_during - before if before is not None else None
    print(
        f"outage ({result.seconds:g} s of 503s on A, then {HEAL:g} s healed; {len(calls)} calls "
        f"at {result.rate:g}/s; breaker {BREAKER.min_calls} outcomes, "
        f"{BREAKER.failure_ratio:g} failed, open {BREAKER.open_for:g} s doubling to "
        f"{BREAKER.max_open_for:g} s):"
    )
    print(
        f"  served {len(calls) - sum(failed.values())}/{len(calls)}"
        + (f"; failed: {dict(failed)}" if failed else "")
    )
    first = f"{result.opened[0]:.2f} s" if result.opened else "never"
    print(
        f"  requests to A during the outage: {result.a_during} "
        f"({result.a_during / result.seconds:.2f}/s) for {len(during)} calls; "
        f"before the breaker first opened ({first}): {before}; after: {after} in "
        f"{len(result.opened)} open periods, {result.probes} probes"
    )
    print(
        f"  requests to B: {result.b_requests}; to A in all: {result.a_requests}; "
        f"call time during the outage p50 {statistics.median(times) * 1000:.0f} ms, "
        f"max {times[-1] * 1000:.0f} ms"
    )
    closed = f"{result.closed_after:.2f} s" if result.closed_after is not None else "never"
    a_share = sum(call.served == "A" for call in after_close)
    print(
        f"  after healing: first call served by A {recovery:.2f} s later, breaker closed "
        f"{closed} later; calls served by A once it closed {a_share}/{len(after_close)}"
    )


# --- phases 2 to 4: one error, the hops it may go to ------------------------------------------


@dataclass(frozen=True)
class HopSpec:
    """One hop of a routing phase: its server's answer and what the hop states."""

    name: str
    answer: Scenario
    context_window: int | None = None
    provider: str | None = None
    key: str | None = None


def route(
    specs: Sequence[HopSpec],
    calls: int,
    rules: Mapping[ErrorCode, FallbackRule] | None = None,
) -> tuple[list[int], Counter[str]]:
    """``calls`` calls through the hops: the requests per server, and each call's end."""
    with ExitStack() as stack:
        fakes = [stack.enter_context(FakeMistral(default=spec.answer)) for spec in specs]
        hops = []
        for spec, fake in zip(specs, fakes, strict=True):
            adapter = stack.enter_context(
                MistralAdapter(
                    api_key=KEY, base_url=fake.url, timeouts=TIMEOUTS, retry=quiet_policy()
                )
            )
            hops.append(
                Hop(
                    complete_with(adapter),
                    name=spec.name,
                    context_window=spec.context_window,
                    provider=spec.provider,
                    key=spec.key,
                )
            )
        ask = fallback(*hops, rules=rules, deadline=CALL_DEADLINE)
        ends: Counter[str] = Counter()
        for _ in range(calls):
            try:
                ends[f"served by {served_by(ask(CONTEXT))}"] += 1
            except Exception as error:  # counted and shown, never hidden
                ends[f"raised {describe(error)}"] += 1
        return [len(fake.requests) for fake in fakes], ends


def show(title: str, specs: Sequence[HopSpec], requests: list[int], ends: Counter[str]) -> None:
    per_server = ", ".join(
        f"{spec.name} {count}" for spec, count in zip(specs, requests, strict=True)
    )
    print(f"{title}: requests {per_server}; calls {dict(ends)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outage", type=float, default=60.0, help="seconds A answers 503")
    parser.add_argument("--rate", type=float, default=10.0, help="calls per second in the outage")
    parser.add_argument("--calls", type=int, default=20, help="calls per routing phase")
    args = parser.parse_args()
    if args.outage <= 0 or args.rate <= 0 or args.calls < 1:
        parser.error("--outage and --rate must be > 0, --calls >= 1")
    # The fallback logs a WARNING per fallback: thousands here, and not what is measured.
    logging.getLogger("llm_retry").setLevel(logging.ERROR)
    n = args.calls
    check_bodies()

    overflow = [
        HopSpec("32k", OVERFLOW, context_window=32_000),
        HopSpec("16k", served_reply("16k"), context_window=16_000),
        HopSpec("128k", served_reply("128k"), context_window=128_000),
    ]
    overflow_requests, ends = route(overflow, n)
    show(f"overflow ({n} calls; the 32k hop overflows)", overflow, overflow_requests, ends)

    quota = [
        HopSpec("team-a small", QUOTA, provider="mistral", key="team-a"),
        HopSpec("team-a large", served_reply("team-a large"), provider="mistral", key="team-a"),
        HopSpec("team-b small", served_reply("team-b small"), provider="mistral", key="team-b"),
    ]
    quota_requests, ends = route(quota, n)
    show(f"quota ({n} calls; team-a's budget is spent)", quota, quota_requests, ends)

    content = [
        HopSpec("azure team-a", FILTERED, provider="azure", key="team-a"),
        HopSpec("azure team-b", served_reply("azure team-b"), provider="azure", key="team-b"),
        HopSpec("mistral team-a", served_reply("mistral team-a"), provider="mistral", key="team-a"),
    ]
    stopped_requests, stopped_ends = route(content, n)
    show(f"content filter, default rules ({n} calls)", content, stopped_requests, stopped_ends)
    opt_in = {ErrorCode.CONTENT_FILTER: FallbackRule.OTHER_PROVIDER}
    other_requests, ends = route(content, n, rules=opt_in)
    show(f"content filter, opted in to other_provider ({n} calls)", content, other_requests, ends)

    result = outage_phase(args.outage, args.rate)
    report_outage(result)
    stopped = stopped_ends[f"raised ContentFilterError {ErrorCode.CONTENT_FILTER}"]
    print(
        f"fallback: outage {result.served}/{len(result.calls)} served, {result.a_during} "
        f"requests to the failed scope ({result.per_second:.2f}/s), overflow->larger "
        f"{overflow_requests[2]}/{n} (smaller {overflow_requests[1]}), quota->other key "
        f"{quota_requests[2]}/{n} (same key {quota_requests[1]}), filter stopped {stopped}/{n} "
        f"(opted in: other provider {other_requests[2]}/{n})"
    )


if __name__ == "__main__":
    main()
