"""The fleet benchmark's ``minute`` part: 32 workers against 60 requests and 100k tokens a minute.

Imported by ``bench/fleet.py`` (``--parts minute``). A loopback provider enforces two
limits for all callers at once, as one organisation's key has them: 60 requests and
100,000 tokens a minute. A request costs what the provider counts at admission, as
OpenAI counts ``max_tokens`` with its estimate of the prompt: here a quarter of the
prompt's characters, rounded up, plus ``max_tokens`` (500); prompts are 1,600 to 8,000
characters, so a call costs 900 to 2,500 tokens (1,700 on average: at 60 requests a
minute the token limit binds too). It states its limits on every response, success or
429, in one provider's shape:

* ``openai``: token buckets refilled continuously, ``x-ratelimit-{limit,remaining,
  reset}-{requests,tokens}``, the reset the time to a full bucket as a Go duration;
* ``anthropic``: the same buckets, ``anthropic-ratelimit-{requests,tokens}-{limit,
  remaining,reset}``, the reset the instant of a full bucket in RFC 3339 to the second
  (read against the response's ``Date``, also to the second);
* ``mistral``: fixed one-minute windows from the run's start,
  ``x-ratelimit-{limit,remaining}-{req,tokens}-minute`` (no reset stated);
* ``none``: buckets as ``openai``, no rate-limit header at all.

A 429 always carries ``Retry-After`` in whole seconds (the time until both limits
admit the request, rounded up). ``--processes`` (8) worker processes run ``--threads``
(4) threads each, every thread making ``--minute-calls`` (4) calls of seeded random
sizes, all released together. Variants, in turn, ``--minute-runs`` times:

* ``independent``: a ``RetryPolicy`` per process, no coordination, ``Retry-After``
  honoured (the baseline);
* ``paced <shape>``: one shared ``RedisCoordination`` policy that records every
  response's headers (an httpx response hook calling ``record_rate_limits``) and
  estimates each call's tokens the provider's way (``estimate_tokens``), against the
  provider in that shape;
* ``learned``: headers off (shape ``none``); one shared policy whose backend learns
  the scope's rate from its 429s (``LearnedRate(min_rate=0.1)``: the limit is one
  request a second, the default floor half of it).

Per variant: 429s per 1,000 calls and their ratio to the baseline's in the same run,
and throughput as a share of the limit: the larger of requests and tokens served
beyond the provider's first minute's allowance (a full bucket, or the first window),
per second of the fleet's wall time, over the limit's rate. Targets: paced 429s at
most 1 % of the baseline's and throughput at least 90 %; learned at most 10 %.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import http.server
import json
import math
import random
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from llm_errors import RateLimitError
from llm_retry import LearnedRate, RetryPolicy
from llm_retry.redis import RedisCoordination

__all__ = ["MinuteProvider", "minute_runs", "serve_minute"]

REQUESTS_PER_MINUTE = 60
TOKENS_PER_MINUTE = 100_000
MAX_TOKENS = 500
PROMPT_CHARS = (1_600, 8_000)
SCOPE = "fake:minute"
WORKER_TIMEOUT = 900.0
SHAPES = ("openai", "anthropic", "mistral")
#: Seconds before the run's end after which no call starts (its retries, a second apart,
#: would fail on the deadline at once and be sent again).
LAST_START = 3.0


def tokens_of(body: bytes) -> int:
    """What the provider counts for a request at admission (and what workers estimate)."""
    request = json.loads(body)
    return math.ceil(len(request["prompt"]) / 4) + int(request["max_tokens"])


def go_duration(seconds: float) -> str:
    """``seconds`` as Go's ``time.Duration`` prints it (``850ms``, ``1.5s``, ``1m2.25s``)."""
    if seconds < 1:
        return f"{max(0, round(seconds * 1000))}ms"
    minutes, rest = divmod(seconds, 60)
    text = f"{rest:.3f}".rstrip("0").rstrip(".") + "s"
    return f"{int(minutes)}m{text}" if minutes else text


class MinuteProvider:
    """One key's two limits, stated in one provider's shape (every method holds the lock)."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.lock = threading.Lock()
        self.shape = "openai"
        #: Each answer: (monotonic time, status, tokens counted).
        self.answers: list[tuple[float, int, int]] = []
        self._refill(time.monotonic())

    def _refill(self, now: float) -> None:
        self.began = self.stamp = now
        self.requests, self.tokens = float(REQUESTS_PER_MINUTE), float(TOKENS_PER_MINUTE)
        self.window, self.used_requests, self.used_tokens = 0, 0, 0

    def reset(self, shape: str) -> list[tuple[float, int, int]]:
        """Full limits and a new shape; the answers so far."""
        with self.lock:
            answers, self.answers = self.answers, []
            self.shape = shape
            self._refill(time.monotonic())
            return answers

    def admit(self, cost: int) -> tuple[int, dict[str, str]]:
        """The status for a request of ``cost`` tokens now, and the headers to send."""
        with self.lock:
            now = time.monotonic()
            fixed = self.shape == "mistral"
            wait = self._fixed(now, cost) if fixed else self._bucket(now, cost)
            headers = self._stated()
            if wait > 0:
                self.answers.append((now, 429, 0))
                headers["Retry-After"] = str(max(1, math.ceil(wait)))
                return 429, headers
            self.answers.append((now, 200, cost))
            return 200, headers

    def _bucket(self, now: float, cost: int) -> float:
        """Continuous refill: the wait until both buckets hold the request (0: taken)."""
        elapsed = now - self.stamp
        self.stamp = now
        per_second_requests = REQUESTS_PER_MINUTE / 60
        per_second_tokens = TOKENS_PER_MINUTE / 60
        self.requests = min(REQUESTS_PER_MINUTE, self.requests + elapsed * per_second_requests)
        self.tokens = min(TOKENS_PER_MINUTE, self.tokens + elapsed * per_second_tokens)
        if self.requests >= 1 and self.tokens >= cost:
            self.requests -= 1
            self.tokens -= cost
            return 0.0
        return max(
            (1 - self.requests) / per_second_requests, (cost - self.tokens) / per_second_tokens
        )

    def _fixed(self, now: float, cost: int) -> float:
        """Fixed minute windows from the run's start: the wait until the next (0: taken)."""
        window = int((now - self.began) // 60)
        if window != self.window:
            self.window, self.used_requests, self.used_tokens = window, 0, 0
        if (
            self.used_requests + 1 <= REQUESTS_PER_MINUTE
            and self.used_tokens + cost <= TOKENS_PER_MINUTE
        ):
            self.used_requests += 1
            self.used_tokens += cost
            return 0.0
        return self.began + (window + 1) * 60 - now

    def _stated(self) -> dict[str, str]:
        """The limits as this provider's shape states them."""
        if self.shape == "none":
            return {}
        if self.shape == "mistral":
            return {
                "x-ratelimit-limit-req-minute": str(REQUESTS_PER_MINUTE),
                "x-ratelimit-remaining-req-minute": str(REQUESTS_PER_MINUTE - self.used_requests),
                "x-ratelimit-limit-tokens-minute": str(TOKENS_PER_MINUTE),
                "x-ratelimit-remaining-tokens-minute": str(TOKENS_PER_MINUTE - self.used_tokens),
            }
        full_requests = (REQUESTS_PER_MINUTE - self.requests) / (REQUESTS_PER_MINUTE / 60)
        full_tokens = (TOKENS_PER_MINUTE - self.tokens) / (TOKENS_PER_MINUTE / 60)
        if self.shape == "anthropic":
            wall = dt.datetime.now(dt.UTC)

            def instant(seconds: float) -> str:
                return (wall + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")

            return {
                "anthropic-ratelimit-requests-limit": str(REQUESTS_PER_MINUTE),
                "anthropic-ratelimit-requests-remaining": str(int(self.requests)),
                "anthropic-ratelimit-requests-reset": instant(full_requests),
                "anthropic-ratelimit-tokens-limit": str(TOKENS_PER_MINUTE),
                "anthropic-ratelimit-tokens-remaining": str(int(self.tokens)),
                "anthropic-ratelimit-tokens-reset": instant(full_tokens),
            }
        return {
            "x-ratelimit-limit-requests": str(REQUESTS_PER_MINUTE),
            "x-ratelimit-remaining-requests": str(int(self.requests)),
            "x-ratelimit-reset-requests": go_duration(full_requests),
            "x-ratelimit-limit-tokens": str(TOKENS_PER_MINUTE),
            "x-ratelimit-remaining-tokens": str(int(self.tokens)),
            "x-ratelimit-reset-tokens": go_duration(full_tokens),
        }


def serve_minute(provider: MinuteProvider) -> http.server.ThreadingHTTPServer:
    """The provider on a free loopback port, in daemon threads (``POST /v1/chat``)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            status, stated = provider.admit(tokens_of(body))
            if status == 200:
                time.sleep(provider.latency)
            self.send_response(status)  # with a Date header, to the second
            for name, value in stated.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: Any) -> None:
            pass

    server = QuietServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietServer(http.server.ThreadingHTTPServer):
    """A server that says nothing when a worker closes a kept-alive connection at its end."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass(frozen=True)
class MinuteJob:
    """What one worker process of the minute part does."""

    url: str
    redis_url: str | None
    prefix: str
    threads: int
    seconds: float
    seed: int
    paced: bool
    learned: bool


def minute_worker(job: MinuteJob, ready: Any, start: Any, results: Any) -> None:
    """Call from ``job.threads`` threads until ``job.seconds`` after the start; report."""
    coordination = None
    if job.redis_url is not None:
        learn = LearnedRate(min_rate=0.1) if job.learned else None
        coordination = RedisCoordination(job.redis_url, prefix=job.prefix, learn=learn)
    policy = RetryPolicy(
        max_attempts=1000,
        deadline=job.seconds,
        initial_wait=1.0,
        max_wait=1.0,
        on_retry=None,
        coordination=coordination,
        scope=SCOPE,
        estimate_tokens=tokens_of if job.paced else None,
    )
    hooks: dict[str, list[Any]] = {}
    if job.paced:
        hooks["response"] = [lambda response: policy.record_rate_limits(response.headers)]
    with httpx.Client(timeout=60.0, event_hooks=hooks) as client:

        def call(body: bytes) -> None:
            client.post(job.url, content=body).raise_for_status()

        def run(index: int) -> None:
            sizes = random.Random(job.seed * 100 + index)
            start.wait()
            stop = time.monotonic() + job.seconds
            while (left := stop - time.monotonic()) > LAST_START:
                # The deadline is the run's end: a call the pace would hold past it
                # fails at once instead of outliving the run. No call starts in the
                # last seconds, where every retry would be cut short by it.
                bounded = dataclasses.replace(policy, deadline=left)
                prompt = "x" * sizes.randint(*PROMPT_CHARS)
                body = json.dumps({"prompt": prompt, "max_tokens": MAX_TOKENS}).encode()
                with contextlib.suppress(httpx.HTTPStatusError, RateLimitError):
                    bounded.wrap(call)(body)

        client.get(job.url)  # connected before the start
        threads = [threading.Thread(target=run, args=(i,)) for i in range(job.threads)]
        for thread in threads:
            thread.start()
        ready.put(None)
        for thread in threads:
            thread.join()
    if coordination is not None:
        coordination.close()
    results.put(None)


@dataclass(frozen=True)
class MinuteResult:
    """What the provider answered one variant's fleet within the run's time."""

    seconds: float
    fixed: bool
    answers: list[tuple[float, int, int]]

    @property
    def served(self) -> int:
        """Requests served."""
        return sum(status == 200 for _, status, _ in self.answers)

    @property
    def limited(self) -> int:
        """429 responses."""
        return sum(status == 429 for _, status, _ in self.answers)

    @property
    def per_thousand(self) -> float:
        """429 responses per 1,000 calls served."""
        return 1000 * self.limited / max(1, self.served)

    @property
    def throughput(self) -> float:
        """Served as a share of what the limits allowed in the run's time (the larger unit).

        A bucket allows its depth plus its rate over the run; fixed windows allow their
        limit in each window the run reached.
        """
        tokens = sum(cost for _, _, cost in self.answers)
        # Minutes' worth allowed: each window reached, or the depth and the run's refill.
        minutes = math.ceil(self.seconds / 60) if self.fixed else 1 + self.seconds / 60
        return max(
            self.served / (REQUESTS_PER_MINUTE * minutes),
            tokens / (TOKENS_PER_MINUTE * minutes),
        )

    def limited_by_ten_seconds(self, began: float) -> list[int]:
        """The 429s in each ten seconds of the run."""
        counts = [0] * math.ceil(self.seconds / 10)
        for at, status, _ in self.answers:
            if status == 429:
                counts[min(len(counts) - 1, int((at - began) // 10))] += 1
        return counts


#: The variants: (name, shape the provider states, shared, paced, learned).
VARIANTS = (
    ("independent", "openai", False, False, False),
    ("paced openai", "openai", True, True, False),
    ("paced anthropic", "anthropic", True, True, False),
    ("paced mistral", "mistral", True, True, False),
    ("learned", "none", True, False, True),
)


def minute_runs(provider: MinuteProvider, url: str, redis_url: str, args: Any, ctx: Any) -> float:
    """Every variant, in turn, ``args.minute_runs`` times; the worst paced/independent ratio."""
    print(
        f"minute ({args.processes} processes x {args.threads} threads calling for "
        f"{args.minute_seconds:g} s; {REQUESTS_PER_MINUTE} requests and "
        f"{TOKENS_PER_MINUTE:,} tokens a minute, calls of {PROMPT_CHARS[0] // 4 + MAX_TOKENS:,} "
        f"to {PROMPT_CHARS[1] // 4 + MAX_TOKENS:,} tokens):"
    )
    print(
        f"  {'run':<4}{'variant':<17}{'429s':>6}{'served':>8}{'per 1k':>8}{'limit':>7}"
        "   429s per 10 s"
    )
    seen: dict[str, list[MinuteResult]] = {name: [] for name, *_ in VARIANTS}
    for run in range(1, args.minute_runs + 1):
        for name, shape, shared, paced, learned in VARIANTS:
            if name != "independent" and name.split()[-1] not in args.minute_variants:
                continue
            job = MinuteJob(
                url,
                redis_url if shared else None,
                f"minute-{time.monotonic_ns()}",
                args.threads,
                args.minute_seconds,
                seed=run,
                paced=paced,
                learned=learned,
            )
            result, began = fleet(provider, job, args.processes, ctx, shape=shape)
            seen[name].append(result)
            spread = " ".join(str(n) for n in result.limited_by_ten_seconds(began))
            print(
                f"  {run:<4}{name:<17}{result.limited:>6}{result.served:>8}"
                f"{result.per_thousand:>8.1f}{result.throughput:>7.0%}   {spread}"
            )
    ratios: dict[str, float] = {}
    for name, results in seen.items():
        if name == "independent" or not results:
            ratios[name] = math.nan
            continue
        ratios[name] = statistics.median(
            r.per_thousand / base.per_thousand
            for base, r in zip(seen["independent"], results, strict=True)
        )
        share = statistics.median(r.throughput for r in results)
        print(
            f"  median {name}: 429s per 1k calls / independent = {ratios[name]:.3f}, "
            f"limit {share:.0%}"
        )
    worst = max(
        (ratios[f"paced {shape}"] for shape in SHAPES),
        key=lambda r: -math.inf if math.isnan(r) else r,
    )
    print(
        "minute: 429s paced/independent = "
        + ", ".join(f"{shape} {ratios[f'paced {shape}']:.3f}" for shape in SHAPES)
        + f"; learned/independent = {ratios['learned']:.3f}"
    )
    return worst


def fleet(
    provider: MinuteProvider, job: MinuteJob, processes: int, ctx: Any, *, shape: str
) -> tuple[MinuteResult, float]:
    """Start the workers, release them together; what the provider answered in the run."""
    ready, results, start = ctx.Queue(), ctx.Queue(), ctx.Event()
    workers = [
        ctx.Process(
            target=minute_worker,
            args=(dataclasses.replace(job, seed=job.seed * 1000 + index), ready, start, results),
        )
        for index in range(processes)
    ]
    for process in workers:
        process.start()
    for _ in workers:
        ready.get(timeout=WORKER_TIMEOUT)
    provider.reset(shape)
    began = time.monotonic()
    start.set()
    for _ in workers:
        results.get(timeout=WORKER_TIMEOUT)
    for process in workers:
        process.join(timeout=WORKER_TIMEOUT)
    answers = [a for a in provider.reset("openai") if a[0] < began + job.seconds]
    return MinuteResult(job.seconds, shape == "mistral", answers), began
