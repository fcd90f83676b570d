"""A fleet of worker processes against one rate limit: shared Redis policy vs independent ones.

Starts a ``redis-server`` (a free loopback port, data in a temp dir) and a loopback fake
provider that enforces one rate limit for all callers: a token bucket (``--rate`` tokens
per second, ``2 * rate`` deep) that answers ``429`` with ``Retry-After`` (whole seconds,
as HTTP has it) when empty; a served call takes ``--latency`` seconds. The provider can
be switched into a full outage (every request a ``503``). Then ``--processes`` worker
processes make ``--calls`` calls each, released together once all have started. Each
worker first classifies a 200 and a 429 of the provider's shape, as a long-running
worker's classifier has (the first classification of a message shape compiles its
rules' expressions: about 10 ms for that 429 on a quiet machine, far more with the
whole fleet doing it at once); ``--cold`` leaves the 429 out:

* rate limit: 429 responses received, and completed calls per second, with independent
  per-process policies vs one shared ``RedisCoordination`` policy (no budget in either,
  so only the cooldown differs), alternating, ``--runs`` times; the figures are the
  medians of the per-run ratios. The provider also sorts its 429s by phase of its own
  rate-limit episodes (an episode opens with a 429 after the previous one's announced
  Retry-After ended): the opening one, the others of the first episode (the fleet starts
  together, before any cooldown can be recorded), those within 10 ms of the opening
  one (in flight before the cooldown reached the fleet), and later ones ("late": sent
  during a cooldown the caller could have known);
* rate limit with an exact wait: the same, with the provider also sending
  ``retry-after-ms`` (the milliseconds to its next token, which openai-python reads
  before ``Retry-After`` in ``_parse_retry_after_header``), and a third policy, the
  shared one without the probe after a cooldown (``probe_lease=0``), so the probe's
  effect has a figure; with whole seconds the bucket has refilled when a cooldown ends
  and the probe never meets an empty one;
* rate limit with pacing: the provider states its bucket on every response in OpenAI's
  shape (``x-ratelimit-limit-requests`` its depth, ``x-ratelimit-remaining-requests``
  the whole tokens left, ``x-ratelimit-reset-requests`` the time to a full bucket as a
  Go duration); a shared policy that records them (``RetryPolicy.record_rate_limits``,
  from an httpx response hook) against independent policies; ``paced-anthropic`` the
  same with the bucket stated in Anthropic's shape (``anthropic-ratelimit-requests-*``,
  the refill an RFC 3339 instant to the second, read against the response's ``Date``);
* minute (``bench/fleet_minute.py``): the issue's shape, 32 workers (``--processes`` x
  ``--threads``) calling for ``--minute-seconds`` against 60 requests and 100,000
  tokens a minute stated in OpenAI's, Anthropic's and Mistral's shapes, paced by the
  headers and the calls' token estimates, and with headers off, learned from 429s;
* rate limit with a learned rate: no headers read; a shared policy whose backend
  learns the scope's rate from its 429s (``RedisCoordination(learn=LearnedRate())``)
  against independent policies;
* outage: upstream attempts per call (amplification) with a shared budget in Redis, and
  for comparison with a budget per process and with none;
* breaker: one of two scopes (``/a``) down for ``--outage`` seconds (every request a
  ``503``) while the fleet calls both at ``--rate`` calls per second, each policy with
  a shared ``RedisCoordination`` breaker: the requests ``/a`` received after the
  breaker first opened, per open period (one is the probe; the target is at most one),
  the attempts per ``/a`` call after it opened (no call may pay more than one failed
  attempt), and how long after the server healed the first ``/a`` call got through
  (within one open period).

The last line reads ``fleet: 429 responses shared/independent = R (P processes), outage
amplification shared = A, paced/independent = Q`` (R from the whole-second runs; Q from
part ``minute``, the issue's benchmark: the worst of its three shapes' 429s per 1,000
calls over those of independent policies in the same run), and the line before it
``learned from 429s: 429s learned/independent = L, ...`` (L likewise for part
``learned``; part ``minute`` prints its own learned figure); the targets are R <= 0.2
and A <= 1.1, with completed calls per second no worse than independent policies,
Q <= 0.01 with at least 90 % of the limit's throughput, and L <= 0.1. A part left out
by ``--parts`` reads ``nan``.

Run: ``python bench/fleet.py [--processes P] [--calls M] [--rate R] [--latency S]
[--runs N] [--parts PART ...] [--cold] [--threads T] [--minute-seconds S]
[--minute-runs N] [--minute-variants V ...]`` (parts: whole, exact, minute, learned,
outage, breaker by default; paced and paced-anthropic when named)
(needs the ``redis-server`` binary and ``llm-resilience[redis]``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.server
import itertools
import math
import multiprocessing
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import redis
from fleet_minute import MinuteProvider, minute_runs, serve_minute

from llm_errors import ServerError, classify
from llm_retry import CircuitBreaker, LearnedRate, RetryBudget, RetryPolicy
from llm_retry.instrumentation import BreakerEvent, set_on_retry_hooks
from llm_retry.redis import RedisCoordination

SCOPE = "fake:model"
#: The parts run by default (``paced`` and ``paced-anthropic``, the bucket of the
#: ``whole`` part stated in OpenAI's and Anthropic's shapes, run when named).
PARTS = ("whole", "exact", "minute", "learned", "outage", "breaker")
READY_TIMEOUT = 10.0
WORKER_TIMEOUT = 300.0


class Provider:
    """The rate limit of one organisation: a token bucket shared by every caller."""

    def __init__(self, rate: float, latency: float) -> None:
        self.rate = rate
        self.capacity = 2 * rate
        self.latency = latency
        self.tokens = self.capacity
        self.stamp = time.monotonic()
        self.outage = False
        self.exact = False
        #: Whose header shape the bucket is stated in: "openai" or "anthropic".
        self.shape = "openai"
        self.lock = threading.Lock()
        self.counts = {"served": 0, "limited": 0, "failed": 0}
        self.limited_at: list[tuple[float, float]] = []
        # The breaker phase: the path in an outage, and every request's time and path.
        self.down: str | None = None
        self.hits: list[tuple[float, str]] = []

    def state(self) -> dict[str, str]:
        """The bucket as the provider states its limits on every response (the lock is held).

        OpenAI's shape gives the time to a full bucket as a duration; Anthropic's gives
        the instant of it, RFC 3339 to the second (read against the response's ``Date``,
        also to the second).
        """
        seconds = (self.capacity - self.tokens) / self.rate
        if self.shape == "anthropic":
            full = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)
            return {
                "anthropic-ratelimit-requests-limit": str(int(self.capacity)),
                "anthropic-ratelimit-requests-remaining": str(int(self.tokens)),
                "anthropic-ratelimit-requests-reset": full.strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        return {
            "x-ratelimit-limit-requests": str(int(self.capacity)),
            "x-ratelimit-remaining-requests": str(int(self.tokens)),
            "x-ratelimit-reset-requests": f"{seconds * 1000:.0f}ms",
        }

    def admit(self, path: str = "") -> tuple[int, float, dict[str, str]]:
        """The status for one request now, the Retry-After of a 429, and the stated limits."""
        if self.down is not None:
            with self.lock:
                self.hits.append((time.monotonic(), path))
                if path == self.down:
                    return 503, 0.0, {}
        status, retry_after = self._admit()
        with self.lock:
            return status, retry_after, self.state()

    def _admit(self) -> tuple[int, float]:
        with self.lock:
            if self.outage:
                self.counts["failed"] += 1
                return 503, 0.0
            now = time.monotonic()
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            if self.tokens >= 1.0:
                self.tokens -= 1.0
                self.counts["served"] += 1
                return 200, 0.0
            self.counts["limited"] += 1
            exact = (1.0 - self.tokens) / self.rate
            retry_after = exact if self.exact else max(1, math.ceil(exact))
            self.limited_at.append((now, retry_after))
            return 429, retry_after

    def reset(
        self, *, outage: bool, exact: bool = False, shape: str = "openai"
    ) -> tuple[dict[str, int], dict[str, int]]:
        """Refill the bucket, switch the outage, the exact wait and the header shape.

        Returns the counts and the 429s by phase so far.
        """
        with self.lock:
            counts, self.counts = self.counts, {"served": 0, "limited": 0, "failed": 0}
            limited, self.limited_at = self.limited_at, []
            self.tokens, self.stamp = self.capacity, time.monotonic()
            self.outage, self.exact, self.shape = outage, exact, shape
            return counts, phases(limited)


#: A 429 this soon after the one that opened its episode was sent before the fleet could
#: know of the cooldown (the opening 429's way back, its classification, Redis).
IN_FLIGHT = 0.010


def phases(limited: list[tuple[float, float]]) -> dict[str, int]:
    """The 429s by phase of the provider's own rate-limit episodes.

    An episode opens with a 429 after the previous one's announced Retry-After ended
    (the first episode: before any cooldown can have been recorded). A later 429 inside
    the announced window was in flight (within ``IN_FLIGHT`` of the opening one) or
    sent by a caller that did not honour the window it could have known ("late").
    """
    counts = {"first": 0, "opening": 0, "in_flight": 0, "late": 0}
    opened, until, episodes = -math.inf, -math.inf, 0
    for at, retry_after in limited:
        if at >= until:
            opened, until, episodes = at, at + retry_after, episodes + 1
            counts["opening"] += 1
        elif episodes == 1:
            counts["first"] += 1
        elif at - opened <= IN_FLIGHT:
            counts["in_flight"] += 1
        else:
            counts["late"] += 1
    return counts


def serve(provider: Provider) -> http.server.ThreadingHTTPServer:
    """The provider on a free loopback port, in daemon threads."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            status, retry_after, stated = provider.admit(self.path)
            if status == 200:
                time.sleep(provider.latency)
            self.send_response(status)
            for name, value in stated.items():
                self.send_header(name, value)
            if status == 429:
                # Whole seconds, as HTTP has it (rounded up); with ``exact``, also the
                # wait in milliseconds, which openai-python reads first when present
                # (``retry-after-ms`` in ``_parse_retry_after_header``).
                self.send_header("Retry-After", str(max(1, math.ceil(retry_after))))
                if provider.exact:
                    self.send_header("retry-after-ms", str(math.ceil(retry_after * 1000)))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A redis-server on a free loopback port; its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("bench/fleet.py needs the redis-server binary on PATH")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as directory:
        process = subprocess.Popen(  # noqa: S603 - the redis-server binary, our flags
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", directory, "--save", ""],
            stdout=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            with contextlib.suppress(redis.ConnectionError):
                if client.ping():
                    break
            if time.monotonic() > deadline:
                process.kill()
                raise SystemExit("redis-server did not start")
            time.sleep(0.05)
        client.close()
        try:
            yield url
        finally:
            process.terminate()
            process.wait(timeout=10)


@dataclass(frozen=True)
class Job:
    """What one worker process does."""

    provider_url: str
    redis_url: str | None
    prefix: str
    calls: int
    budget: bool
    initial_wait: float
    max_attempts: int
    #: The half-open time after a cooldown (``None``: the backend's default); ``0``
    #: turns the probe off (everyone may send once the cooldown has ended).
    probe_lease: float | None = None
    #: Classify only the 200 before the start: each worker's first 429 then compiles
    #: its rules' expressions during the run (``--cold``).
    cold: bool = False
    #: Record every response's rate-limit headers, so attempts are paced by them.
    paced: bool = False
    #: Learn the scope's rate from its 429s (``LearnedRate``), shared through Redis.
    learned: bool = False


def worker(job: Job, ready: Any, start: Any, results: Any) -> None:
    """Make ``job.calls`` calls through one policy; report completions and the end time."""
    coordination = None
    if job.redis_url is not None:
        options: dict[str, Any] = {"prefix": job.prefix}
        if job.probe_lease is not None:
            options["probe_lease"] = job.probe_lease
        if job.learned:
            options["learn"] = LearnedRate()
        coordination = RedisCoordination(job.redis_url, **options)
    policy = RetryPolicy(
        max_attempts=job.max_attempts,
        deadline=120.0,
        initial_wait=job.initial_wait,
        max_wait=max(job.initial_wait, 1.0),
        on_retry=None,
        budget=RetryBudget() if job.budget else None,
        coordination=coordination,
        scope=SCOPE,
    )
    completed = 0
    hooks: dict[str, list[Callable[[httpx.Response], object]]] = {}
    if job.paced:
        hooks["response"] = [lambda response: policy.record_rate_limits(response.headers)]
    with httpx.Client(timeout=30.0, event_hooks=hooks) as client:

        @policy.wrap
        def call() -> None:
            client.post(job.provider_url, content=b"{}").raise_for_status()

        # Connect to both and classify both answers the run meets before the start (a
        # long-running worker's classifier is warm), so the phase times calls, not
        # start-up: the first classification of a message shape compiles its rules'
        # expressions (about 10 ms for the 429 below on a quiet machine).
        warm = client.post(job.provider_url, content=b"{}")
        classify(httpx.HTTPStatusError("warm-up", request=warm.request, response=warm))
        if not job.cold:
            limited = httpx.Response(429, headers={"Retry-After": "1"}, request=warm.request)
            try:
                limited.raise_for_status()
            except httpx.HTTPStatusError as error:
                classify(error)
        if coordination is not None:
            coordination.cooldown(SCOPE)
        ready.put(None)
        start.wait()
        for _ in range(job.calls):
            with contextlib.suppress(httpx.HTTPStatusError):
                call()
                completed += 1
    fallbacks = 0
    if coordination is not None:
        fallbacks = coordination.fallbacks
        coordination.close()
    results.put((completed, time.monotonic(), fallbacks))


@dataclass(frozen=True)
class OutageJob:
    """What one worker of the breaker phase does: calls to two scopes, evenly spaced."""

    provider_url: str
    redis_url: str
    prefix: str
    seconds: float
    interval: float
    open_for: float
    max_open_for: float


def outage_worker(job: OutageJob, ready: Any, start: Any, results: Any) -> None:
    """Call ``/a`` and ``/b`` in turn; report each call and the breaker events seen."""
    seen: list[tuple[float, str, float]] = []

    def hook(event: object) -> None:
        if isinstance(event, BreakerEvent):
            seen.append((time.monotonic(), event.state.value, event.open_for))

    set_on_retry_hooks([hook])
    coordination = RedisCoordination(
        job.redis_url,
        prefix=job.prefix,
        breaker=CircuitBreaker(min_calls=10, open_for=job.open_for, max_open_for=job.max_open_for),
    )
    policy = RetryPolicy(
        max_attempts=3,
        deadline=10.0,
        initial_wait=0.01,
        max_wait=0.05,
        on_retry=None,
        coordination=coordination,
        scope=lambda path: f"fake:{path}",
    )
    calls: list[tuple[float, str, bool]] = []
    with httpx.Client(timeout=10.0) as client:

        @policy.wrap
        def call(path: str) -> None:
            client.post(job.provider_url + path, content=b"{}").raise_for_status()

        coordination.cooldown("fake:/a")
        ready.put(None)
        start.wait()
        began = time.monotonic()
        count = 0
        while time.monotonic() < began + job.seconds:
            path = "/a" if count % 2 == 0 else "/b"
            at = time.monotonic()
            try:
                call(path)
            except (httpx.HTTPStatusError, ServerError):
                calls.append((at, path, False))
            else:
                calls.append((at, path, True))
            count += 1
            time.sleep(max(0.0, began + count * job.interval - time.monotonic()))
    coordination.close()
    results.put((calls, seen))


def breaker_outage(
    provider: Provider, url: str, redis_url: str, args: argparse.Namespace, ctx: Any
) -> None:
    """One scope down for ``args.outage`` seconds: probes, attempts and recovery."""
    open_for, max_open_for, heal = 2.0, 8.0, 12.0
    processes = args.processes
    job = OutageJob(
        url.rsplit("/", 2)[0],
        redis_url,
        f"breaker-{time.monotonic_ns()}",
        seconds=args.outage + heal,
        interval=processes / args.rate,
        open_for=open_for,
        max_open_for=max_open_for,
    )
    ready, results, start = ctx.Queue(), ctx.Queue(), ctx.Event()
    workers = [
        ctx.Process(target=outage_worker, args=(job, ready, start, results))
        for _ in range(processes)
    ]
    for process in workers:
        process.start()
    for _ in workers:
        ready.get(timeout=WORKER_TIMEOUT)
    with provider.lock:
        provider.hits, provider.down = [], "/a"
        provider.tokens = provider.capacity = 10**9
    began = time.monotonic()
    start.set()
    time.sleep(args.outage)
    with provider.lock:
        provider.down, healed = "", time.monotonic()
    finished = [results.get(timeout=WORKER_TIMEOUT) for _ in workers]
    for process in workers:
        process.join(timeout=WORKER_TIMEOUT)
    with provider.lock:
        hits, provider.down = provider.hits, None
        provider.capacity = 2 * provider.rate
    calls = sorted(call for done, _ in finished for call in done)
    events = sorted(event for _, seen in finished for event in seen)
    opened = [at for at, state, _ in events if state == "open" and at < healed]
    if not opened:
        print(f"breaker ({args.outage:g} s outage of /a): never opened")
        return
    first = opened[0]
    received = [at for at, path in hits if path == "/a" and first < at < healed]
    a_calls = [at for at, path, _ in calls if path == "/a" and first < at < healed]
    back = [at for at, path, ok in calls if path == "/a" and ok and at >= healed]
    in_force = max((s for at, state, s in events if state == "open" and at < healed), default=0)
    recovery = (back[0] - healed) if back else math.inf
    b_ok = sum(ok for _, path, ok in calls if path == "/b")
    b_all = sum(path == "/b" for _, path, _ in calls)
    # Each open period runs from its opening to the next; the requests in it are its
    # probe (sent in the half-open time at its end) and, in the first, those already on
    # their way when it opened (sent within IN_FLIGHT of the opening).
    starts = [*opened, healed]
    per_period = [
        sum(start < at < end for at in received) for start, end in itertools.pairwise(starts)
    ]
    in_flight = sum(at - first <= IN_FLIGHT for at in received)
    print(
        f"breaker ({args.outage:g} s outage of /a, {len(calls)} calls at {args.rate:g}/s, "
        f"open {open_for:g} s doubling to {max_open_for:g} s): opened after "
        f"{first - began:.2f} s; /a requests after it opened {len(received)} in "
        f"{len(opened)} open period(s) = {len(received) / len(opened):.2f} per period "
        f"(by period {', '.join(map(str, per_period))}; {in_flight} in flight at the "
        f"opening); "
        f"attempts per /a call after it opened {len(received) / max(1, len(a_calls)):.3f}; "
        f"first /a success {recovery:.2f} s after healing (open period in force "
        f"{in_force:g} s); /b got through {b_ok}/{b_all}"
    )


@dataclass(frozen=True)
class Phase:
    """What the fleet did in one run."""

    calls: int
    completed: int
    seconds: float
    counts: dict[str, int]
    phases: dict[str, int]
    fallbacks: int

    @property
    def per_second(self) -> float:
        """Completed calls per second of the fleet's wall time."""
        return self.completed / self.seconds

    @property
    def amplification(self) -> float:
        """Upstream attempts per call."""
        return sum(self.counts.values()) / self.calls


def run_phase(
    provider: Provider,
    jobs: list[Job],
    *,
    outage: bool,
    ctx: Any,
    exact: bool = False,
    shape: str = "openai",
) -> Phase:
    """Start the workers, release them together, and count what the provider saw."""
    ready, results, start = ctx.Queue(), ctx.Queue(), ctx.Event()
    processes = [ctx.Process(target=worker, args=(job, ready, start, results)) for job in jobs]
    for process in processes:
        process.start()
    for _ in processes:
        ready.get(timeout=WORKER_TIMEOUT)
    provider.reset(outage=outage, exact=exact, shape=shape)
    began = time.monotonic()
    start.set()
    finished = [results.get(timeout=WORKER_TIMEOUT) for _ in processes]
    for process in processes:
        process.join(timeout=WORKER_TIMEOUT)
    counts, by_phase = provider.reset(outage=False)
    return Phase(
        calls=sum(job.calls for job in jobs),
        completed=sum(done for done, _, _ in finished),
        seconds=max(end for _, end, _ in finished) - began,
        counts=counts,
        phases=by_phase,
        fallbacks=sum(fallbacks for _, _, fallbacks in finished),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--calls", type=int, default=40, help="calls per process")
    parser.add_argument("--rate", type=float, default=20.0, help="provider requests/s")
    parser.add_argument("--latency", type=float, default=0.025, help="seconds per served call")
    parser.add_argument("--runs", type=int, default=3, help="rate-limit runs (medians)")
    parser.add_argument(
        "--outage", type=float, default=60.0, help="seconds /a is down in the breaker phase"
    )
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=[*PARTS, "paced", "paced-anthropic"],
        default=list(PARTS),
        help=f"which parts to run (default: {' '.join(PARTS)})",
    )
    parser.add_argument("--threads", type=int, default=4, help="threads per process (minute)")
    parser.add_argument(
        "--minute-seconds", type=float, default=120.0, help="seconds each minute fleet calls"
    )
    parser.add_argument("--minute-runs", type=int, default=1, help="runs of the minute part")
    parser.add_argument(
        "--minute-variants",
        nargs="+",
        choices=["openai", "anthropic", "mistral", "learned"],
        default=["openai", "anthropic", "mistral", "learned"],
        help="the minute part's variants besides independent policies (default: all)",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="warm the workers' classifiers with the 200 only, not also with a 429",
    )
    args = parser.parse_args()
    ctx = multiprocessing.get_context("spawn")
    provider = Provider(args.rate, args.latency)
    server = serve(provider)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1/chat"
    processes = args.processes
    print(
        f"{processes} processes x {args.calls} calls; provider {args.rate:g} requests/s, "
        f"{2 * args.rate:g} deep, {args.latency * 1000:g} ms per served call"
    )
    with redis_server() as redis_url:

        def phase(
            name: str,
            *,
            shared: bool,
            budget: bool,
            outage: bool,
            exact: bool = False,
            lease: float | None = None,
            paced: bool = False,
            learned: bool = False,
            shape: str = "openai",
        ) -> Phase:
            # Rate limit: attempts enough for every call to get through, waits as the
            # server directs. Outage: the default attempts, with short backoff waits.
            job = Job(
                url,
                redis_url if shared else None,
                f"{name}-{time.monotonic_ns()}",
                args.calls,
                budget,
                initial_wait=0.01 if outage else 1.0,
                max_attempts=4 if outage else 20,
                probe_lease=lease,
                cold=args.cold,
                paced=paced,
                learned=learned,
            )
            return run_phase(
                provider, [job] * processes, outage=outage, ctx=ctx, exact=exact, shape=shape
            )

        parts = set(args.parts)
        found: dict[str, tuple[list[float], list[float]]] = {}
        for part in ("whole", "exact", "paced", "paced-anthropic", "learned"):
            if part in parts:
                found[part] = rate_limit_runs(phase, args.runs, part=part)
        outage = outage_runs(phase) if "outage" in parts else math.nan
        paced = math.nan
        if "minute" in parts:
            limits = MinuteProvider(args.latency)
            minute_server = serve_minute(limits)
            minute_url = f"http://127.0.0.1:{minute_server.server_address[1]}/v1/chat"
            paced = minute_runs(limits, minute_url, redis_url, args, ctx)
            minute_server.shutdown()
        if "breaker" in parts:
            breaker_outage(provider, url, redis_url, args, ctx)
    server.shutdown()

    def median(part: str, index: int) -> float:
        return statistics.median(found[part][index]) if part in found else math.nan

    print(
        f"exact retry-after-ms: median 429s shared/independent = {median('exact', 0):.2f}, "
        f"calls/s shared/independent = {median('exact', 1):.2f}"
    )
    print(f"median completed calls/s shared/independent = {median('whole', 1):.2f}")
    print(f"paced by headers: calls/s paced/independent = {median('paced', 1):.2f}")
    print(
        "paced by Anthropic's headers: 429s paced/independent = "
        f"{median('paced-anthropic', 0):.2f}, "
        f"calls/s paced/independent = {median('paced-anthropic', 1):.2f}"
    )
    print(
        f"learned from 429s: 429s learned/independent = {median('learned', 0):.2f}, "
        f"calls/s learned/independent = {median('learned', 1):.2f}"
    )
    print(
        f"fleet: 429 responses shared/independent = {median('whole', 0):.2f} "
        f"({processes} processes), outage amplification shared = {outage:.2f}, "
        f"paced/independent = {paced:.3f}"
    )


#: The rate-limit variants of each part: (name, shared, probe_lease, what the shared
#: fleet does besides: "" nothing, "paced" records the headers, "learned" learns a rate).
VARIANTS = {
    "whole": (("independent", False, None, ""), ("shared", True, None, "")),
    "exact": (
        ("independent", False, None, ""),
        ("shared", True, None, ""),
        ("shared, no probe", True, 0.0, ""),
    ),
    "paced": (("independent", False, None, ""), ("paced", True, None, "paced")),
    "paced-anthropic": (("independent", False, None, ""), ("paced", True, None, "paced")),
    "learned": (("independent", False, None, ""), ("learned", True, None, "learned")),
}
#: What each part's heading adds.
_PART_NOTES = {
    "whole": "",
    "exact": "",
    "paced": "; the paced fleet records the rate-limit headers",
    "paced-anthropic": "; the same in Anthropic's shape (the refill as an RFC 3339 instant)",
    "learned": "; the learned fleet reads no rate-limit headers, it learns a rate from 429s",
}


def rate_limit_runs(
    phase: Callable[..., Phase], runs: int, *, part: str
) -> tuple[list[float], list[float]]:
    """Independent and shared policies, alternating; per-run ratios of 429s and calls/s.

    ``whole``: whole-second ``Retry-After``. ``exact``: the provider also sends
    ``retry-after-ms`` (the wait to its next token), and a shared fleet without the
    probe after a cooldown runs too. ``paced``: the shared fleet records the rate-limit
    headers of every response. ``learned``: it states none to them, and the shared
    fleet learns its rate from its 429s (``LearnedRate``). The ratios are the second
    variant's over the independent policies'.
    """
    variants = VARIANTS[part]
    exact = part == "exact"
    wait = "exact retry-after-ms" if exact else "whole-second Retry-After"
    print(f"rate limit (no budget; {wait} honoured{_PART_NOTES[part]}):")
    print(
        f"  {'run':<4}{'policy':<18}{'429s':>6}{'completed':>11}{'calls/s':>9}{'fallbacks':>10}"
        "   429s by phase: opening, in first episode, in flight, late"
    )
    seen: dict[str, list[Phase]] = {name: [] for name, _, _, _ in variants}
    for run in range(1, runs + 1):
        for name, shared, lease, besides in variants:
            result = phase(
                f"rl-{name}",
                shared=shared,
                budget=False,
                outage=False,
                exact=exact,
                lease=lease,
                paced=besides == "paced",
                learned=besides == "learned",
                shape="anthropic" if part == "paced-anthropic" else "openai",
            )
            seen[name].append(result)
            print(
                f"  {run:<4}{name:<18}{result.counts['limited']:>6}"
                f"{result.completed:>6}/{result.calls:<4}{result.per_second:>9.2f}"
                f"{result.fallbacks:>10}   {result.phases['opening']}, {result.phases['first']}, "
                f"{result.phases['in_flight']}, {result.phases['late']}"
            )
    for name, results in seen.items():
        print(
            f"  median {name:<16}"
            f"{statistics.median(r.counts['limited'] for r in results):>6g}"
            f"{'':>11}{statistics.median(r.per_second for r in results):>9.2f}"
        )
    pairs = list(zip(seen["independent"], seen[variants[1][0]], strict=True))
    ratios = [s.counts["limited"] / max(1, i.counts["limited"]) for i, s in pairs]
    speeds = [s.per_second / i.per_second for i, s in pairs]
    return ratios, speeds


def outage_runs(phase: Callable[..., Phase]) -> float:
    """Every request a 503: upstream attempts per call by budget; the shared one's figure."""
    print("outage (every request a 503; backoff from 10 ms; default max_attempts=4):")
    print(f"  {'budget':<13}{'attempts':>9}{'per call':>10}")
    shown = {}
    for name, shared, budget in (
        ("none", False, False),
        ("per process", False, True),
        ("shared", True, True),
    ):
        result = phase(f"out-{name}", shared=shared, budget=budget, outage=True)
        shown[name] = result.amplification
        print(f"  {name:<13}{result.counts['failed']:>9}{result.amplification:>10.2f}")
    return shown["shared"]


if __name__ == "__main__":
    main()
