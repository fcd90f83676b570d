"""Benchmark: ``llm-errors classify`` end to end on an application log, against anchors.

Writes a deterministic log (default 1,000,000 lines: 15 % error lines, each a real
error message of the rule table's examples behind a log prefix, the rest ordinary
INFO/DEBUG lines), then measures in the same run, median of ``--repeat`` runs:

* our CLI as a user runs it (a subprocess, output to /dev/null), ``--format jsonl``
  and ``--format table``, with ``--jobs 1`` and ``--jobs 0`` (every core); and with
  ``--jobs 1`` on the same log with a unique request id at the end of every error
  message (the verdict cache's no-hit case; the main log's messages repeat);
* bare ``classify(line)`` over every line (the public per-message API);
* pi-ai 1.6.0's own heuristics (``isContextOverflow`` and ``isRetryableAssistantError``,
  ``dist/utils/overflow.js`` and ``dist/utils/retry.js``) in Node over the same log,
  line by line, installed from the npm registry at run time into ``--piai-prefix``
  (skipped, with the reason printed, where Node or npm is missing);
* ``grep -ciE`` with 15 trigger alternatives, the physical-limit column;
* the ratios, and the worst case: ``classify()`` on adversarial inputs at the input cap;
* the machine's own parallel scaling (a CPU-bound loop in one process and in one per
  core, alternating), the ceiling the ``--jobs`` ratio is read against;
* with ``--baseline TREE``, our CLI against another source tree's (a git worktree of an
  earlier commit), alternately, on this tree's log and on one made from the other tree's
  rule examples, so a change of the rules and one of the engine can be told apart.

Wall-clock MB/s is what a user sees; on a shared machine the CPU time of our runs
(MB per CPU-second, from ``getrusage``) is printed beside it, as it is less
sensitive to other load.

    python bench/classify.py                 # 1,000,000 lines
    python bench/classify.py --lines 100000  # a quick run
    python bench/classify.py --baseline ../old   # also against a worktree of another commit
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from llm_errors import RULES, classify
from llm_errors._classify import MAX_INPUT
from llm_errors.logs._feed import block_filter

_LEVELS = ("INFO", "INFO", "INFO", "DEBUG")
_LOGGERS = ("app.api", "app.worker", "app.sched", "llm.client", "http.access", "cache")
_PATHS = ("/v1/chat/completions", "/v1/embeddings", "/healthz", "/v1/models", "/api/users/42")
_MESSAGES = (
    "request completed",
    "cache hit for key prompt:{n}",
    "user session refreshed",
    "streaming response started",
    "tokens counted prompt_tokens={n} completion_tokens={m}",
    "worker heartbeat ok queue_depth={m}",
    "loaded configuration from /etc/app/config.yaml",
    "scheduled job finished in {n} ms",
    "model warmup done model=mistral-large-latest",
    "rendered template index.html",
    "retrying request attempt=1 backoff_ms={n}",
    "GET {path} 200 {n}ms",
    "connection pool size=10 idle=4",
)
_ERROR_SHARE = 0.15
_GREP_WORDS = (
    "error|exception|timeout|timed out|rate limit|429|500|502|503|overloaded|quota"
    "|context length|refused|reset|unavailable"
)
#: Adversarial inputs at the cap: (label, repeated unit, text after the repeats).
WORST = (
    ("trigger before a lookahead", "Prompt tokens limit exceeded ", "monthly limit"),
    ("repeated status numbers", "429 ", "ECONNRESET"),
    ("repeated status contexts", "status 503 ", ""),
    ("repeated HTTP versions", "HTTP/1.1 ", "429"),
    ("repeated retry hints", "Please try again in 1s. ", ""),
    ("repeated trigger words", "timeout rate limit quota exceeded ", ""),
    ("runs of separators", " -:/", "rate limit exceeded"),
)
_PIAI = "@earendil-works/pi-ai@1.6.0"
_NODE_SCRIPT = r"""
const fs = require("fs");
const path = require("path");
const base = path.join(process.argv[1], "node_modules/@earendil-works/pi-ai/dist/utils");
(async () => {
  const { isContextOverflow } = await import(path.join(base, "overflow.js"));
  const { isRetryableAssistantError } = await import(path.join(base, "retry.js"));
  let hits = 0;
  const lines = fs.readFileSync(process.argv[2], "utf8").split("\n");
  for (const line of lines) {
    const message = { stopReason: "error", errorMessage: line, provider: "x",
                      usage: { input: 0, cacheRead: 0, output: 0 } };
    if (isContextOverflow(message) || isRetryableAssistantError(message)) hits++;
  }
  console.log(JSON.stringify({ hits }));
})();
"""


def _normal_line(rng: random.Random, stamp: str) -> str:
    message = rng.choice(_MESSAGES).format(
        n=rng.randint(1, 5000), m=rng.randint(1, 900), path=rng.choice(_PATHS)
    )
    return (
        f"{stamp} {rng.choice(_LEVELS):5} {rng.choice(_LOGGERS)} "
        f"[req={rng.getrandbits(32):08x}] {message} ms={rng.randint(1, 3000)}"
    )


def examples() -> list[str]:
    """The rule examples, each flattened to one line: the error messages of the log."""
    return [" ".join(example.text.split()) for rule in RULES for example in rule.examples]


def generate(
    lines: int,
    seed: int = 2,
    *,
    unique: bool = False,
    pool: Sequence[str] | None = None,
    share: float = _ERROR_SHARE,
) -> list[str]:
    """A deterministic log of ``lines`` lines, ``share`` of them real error messages.

    The messages are drawn from ``pool`` (default: the rule examples), so they repeat
    (the CLI's verdict cache hits on nearly every one); with ``unique`` each error
    message ends with its own request id, as many real logs write it, so the cache
    never hits.
    """
    rng = random.Random(seed)
    pool = examples() if pool is None else pool
    out = []
    for i in range(lines):
        stamp = _stamp(i)
        if rng.random() < share:
            tail = f" (request id: req_{rng.getrandbits(96):024x})" if unique else ""
            out.append(
                f"{stamp} ERROR {rng.choice(_LOGGERS)} [req={rng.getrandbits(64):016x}] "
                f"call failed: {rng.choice(pool)}{tail}"
            )
        else:
            out.append(_normal_line(rng, stamp))
    return out


def _stamp(i: int) -> str:
    return f"2026-07-22T10:{i // 60000 % 60:02d}:{i // 1000 % 60:02d}.{i % 1000:03d}Z"


def _record(rng: random.Random, i: int, shape: int, message: str, error: bool) -> dict[str, object]:
    """One record as structlog (0), pino (1) or python-json-logger (2) writes it.

    structlog: ``JSONRenderer`` after ``add_log_level``, ``TimeStamper(fmt="iso")`` and
    bound fields; pino: its default keys (numeric ``level``, epoch ``time``, ``pid``,
    ``hostname``, ``msg``) with pino-http's ``res.statusCode`` and ``err`` serializer;
    python-json-logger: ``%(asctime)s %(levelname)s %(name)s %(message)s``.
    """
    logger, request = rng.choice(_LOGGERS), f"{rng.getrandbits(64):016x}"
    if shape == 0:
        record: dict[str, object] = {"event": "call failed" if error else message}
        if error:
            record["error"] = message
        record |= {"level": "error" if error else "info", "logger": logger}
        return record | {"timestamp": _stamp(i), "request_id": request}
    if shape == 1:
        record = {"level": 50 if error else 30, "time": 1784714400000 + i, "pid": 4242}
        record |= {"hostname": "worker-1", "reqId": request}
        if error:
            return record | {"err": {"type": "Error", "message": message}, "msg": message}
        return (
            record
            | {"res": {"statusCode": 200}, "responseTime": rng.randint(1, 3000)}
            | {"msg": message}
        )
    level = "ERROR" if error else rng.choice(_LEVELS)
    stamp = _stamp(i).replace("T", " ").replace(".", ",").rstrip("Z")
    text = f"call failed: {message}" if error else message
    return {"asctime": stamp, "levelname": level, "name": logger, "message": text}


def generate_records(lines: int, seed: int = 2, share: float = _ERROR_SHARE) -> list[str]:
    """A deterministic JSON-lines log: ``share`` error records, a third of each library's shape.

    The error records carry the rule examples; the others the ordinary messages.
    """
    rng = random.Random(seed)
    pool = examples()
    out = []
    for i in range(lines):
        error = rng.random() < share
        message = (
            rng.choice(pool)
            if error
            else rng.choice(_MESSAGES).format(
                n=rng.randint(1, 5000), m=rng.randint(1, 900), path=rng.choice(_PATHS)
            )
        )
        out.append(json.dumps(_record(rng, i, i % 3, message, error)))
    return out


def _median(run: Callable[[], object], repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def _row(
    label: str, megabytes: float, seconds: float | None, note: str = "", cpu: float | None = None
) -> None:
    if seconds is None:
        print(f"{label:<50}{'-':>10}  {note}")
        return
    per_cpu = f"  {megabytes / cpu:7.1f} MB per CPU-second" if cpu else ""
    print(f"{label:<50}{megabytes / seconds:8.1f} MB/s  {seconds:7.2f} s{per_cpu}{note}")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tree_env(tree: Path | None) -> dict[str, str] | None:
    """The environment that runs ``tree``'s ``src`` (``None``: this installation)."""
    if tree is None:
        return None
    return {**os.environ, "PYTHONPATH": str(tree / "src")}


def _cli(log: Path, fmt: str, jobs: int, tree: Path | None = None) -> Callable[[], None]:
    command = [sys.executable, "-m", "llm_errors", "classify", "--format", fmt]
    command += ["--progress", "never", "--jobs", str(jobs), str(log)]
    env = _tree_env(tree)

    def run() -> None:
        done = subprocess.run(  # noqa: S603 - this interpreter, fixed arguments
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=env
        )
        if done.returncode != 0:  # say why, not only that it failed
            sys.stderr.write(done.stderr.decode("utf-8", errors="replace")[-4000:])
            done.check_returncode()

    return run


_EXAMPLES_OF = (
    "import json; from llm_errors import RULES; "
    "print(json.dumps([' '.join(e.text.split()) for r in RULES for e in r.examples]))"
)


def _baseline(tree: Path, lines: int, log: Path, work: Path, repeat: int) -> None:
    """Our CLI against the CLI of another source tree (a worktree of an earlier commit).

    Both run alternately on two logs: this tree's (its rule examples) and one made
    the same way from the other tree's rule examples, so a change of the rules and a
    change of the engine are told apart. Per run: wall time and the CPU time of the
    child (``getrusage``); medians.
    """
    found = subprocess.run(  # noqa: S603 - this interpreter, fixed arguments
        [sys.executable, "-c", _EXAMPLES_OF],
        capture_output=True,
        text=True,
        check=True,
        env=_tree_env(tree),
    )
    pool = json.loads(found.stdout)
    theirs = work / "baseline.log"
    theirs.write_text("".join(f"{line}\n" for line in generate(lines, pool=pool)), "utf-8")
    print(
        f"against the tree {tree} ({len(pool)} examples; here {len(examples())}), --jobs 1, "
        f"medians of {repeat} alternating runs, MB/s wall (MB per CPU-second); the ratio "
        "is this tree's MB per CPU-second over the baseline's:"
    )
    print(f"  {'log':<24}{'format':<8}{'this tree':>22}{'baseline':>22}{'ratio':>9}")
    for name, path in (("this tree's examples", log), ("the baseline's examples", theirs)):
        size = path.stat().st_size / 1e6
        for fmt in ("jsonl", "table"):
            timings: dict[Path | None, list[tuple[float, float]]] = {None: [], tree: []}
            for _ in range(repeat):
                for side, runs in timings.items():
                    before, start = _children_cpu(), time.perf_counter()
                    _cli(path, fmt, 1, side)()
                    runs.append((time.perf_counter() - start, _children_cpu() - before))
            wall = {side: statistics.median(w for w, _ in runs) for side, runs in timings.items()}
            cpu = {side: statistics.median(c for _, c in runs) for side, runs in timings.items()}
            cells = [f"{size / wall[side]:8.1f} ({size / cpu[side]:5.1f})" for side in timings]
            ratio = cpu[tree] / cpu[None]
            print(f"  {name:<24}{fmt:<8}{cells[0]:>22}{cells[1]:>22}{ratio:8.2f}x")


def _piai(log: Path, prefix: Path) -> Callable[[], int] | str:
    """One run of pi-ai's heuristics over ``log`` in a Node process, or why it cannot run.

    The run is a whole process, timed as ours are (``getrusage`` of the child: start-up,
    reading and the loop), and returns how many lines pi-ai flagged.
    """
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "skipped: node or npm is not installed"
    if not (prefix / "node_modules/@earendil-works/pi-ai/package.json").exists():
        installed = subprocess.run(  # noqa: S603 - fixed arguments
            [npm, "install", "--silent", "--prefix", str(prefix), _PIAI],
            capture_output=True,
            check=False,
        )
        if installed.returncode:
            return f"skipped: npm install {_PIAI} failed"
    command = [node, "-e", _NODE_SCRIPT, str(prefix), str(log)]

    def run() -> int:
        result = subprocess.run(command, capture_output=True, text=True, check=True)  # noqa: S603
        return int(json.loads(result.stdout)["hits"])

    try:
        run()  # a first run outside the timing: it fails here, not mid-table
    except subprocess.CalledProcessError as failed:
        return f"skipped: node failed ({failed.stderr.strip().splitlines()[-1:]})"
    return run


def _grep(log: Path, repeat: int) -> float | None:
    grep = shutil.which("grep")
    if grep is None:
        return None
    command = [grep, "-ciE", _GREP_WORDS, str(log)]

    def run() -> None:
        # Not to /dev/null: GNU grep then stops at the first match.
        subprocess.run(command, capture_output=True, check=False)  # noqa: S603

    return _median(run, repeat)


def _speed_table(logs: Sequence[tuple[str, Path]], prefix: Path, repeat: int) -> None:
    """Each log shape: our CLI's two formats (alternating) against pi-ai's heuristics.

    Both sides: CPU seconds of the whole process (``getrusage`` of the child: start-up,
    reading, output), median of ``repeat`` runs, the three contenders alternating. The
    ratio is pi-ai's seconds over ours.
    """
    print(
        f"speed table: --jobs 1, MB per CPU-second of the whole process (medians of {repeat} "
        "alternating runs), against pi-ai 1.6.0's heuristics in a Node process:"
    )
    print(
        f"  {'log shape':<34}{'MB':>7}{'table':>9}{'jsonl':>9}{'pi-ai':>9}"
        f"{'table/pi-ai':>13}{'jsonl/pi-ai':>13}"
    )
    for label, path in logs:
        size = path.stat().st_size / 1e6
        piai = _piai(path, prefix)
        contenders: dict[str, Callable[[], object]] = {
            "table": _cli(path, "table", 1),
            "jsonl": _cli(path, "jsonl", 1),
        }
        if not isinstance(piai, str):
            contenders["pi-ai"] = piai
        cpu: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(repeat):
            for name, run in contenders.items():
                before = _children_cpu()
                run()
                cpu[name].append(_children_cpu() - before)
        ours = {name: statistics.median(runs) for name, runs in cpu.items()}
        cells = f"{size:7.1f}{size / ours['table']:9.1f}{size / ours['jsonl']:9.1f}"
        if isinstance(piai, str):
            print(f"  {label:<34}{cells}  pi-ai {piai}")
            continue
        theirs = ours.pop("pi-ai")
        ratios = f"{theirs / ours['table']:12.2f}x{theirs / ours['jsonl']:12.2f}x"
        print(f"  {label:<34}{cells}{size / theirs:9.1f}{ratios}")


#: Iterations of the calibration loop (about a second of one core).
_SPIN = 20_000_000


def _spin(count: int) -> int:
    total = 0
    for i in range(count):
        total += i * i
    return total


def _machine_scaling(cores: int, repeat: int) -> float:
    """How much faster ``cores`` processes run a CPU-bound loop than one (same run).

    A shared virtual machine's cores do not always give ``cores`` times one: this is
    the ceiling ``--jobs`` is measured against. Median of ``repeat`` pairs, alternating.
    """
    ones, manies = [], []
    with multiprocessing.get_context("spawn").Pool(cores) as workers:
        workers.map(_spin, [1] * cores)  # started before the timing
        for _ in range(repeat):
            start = time.perf_counter()
            _spin(_SPIN)
            ones.append(time.perf_counter() - start)
            start = time.perf_counter()
            workers.map(_spin, [_SPIN] * cores)
            manies.append(time.perf_counter() - start)
    return cores * statistics.median(ones) / statistics.median(manies)


def _worst_case() -> None:
    print(f"worst case: classify() at the input cap ({MAX_INPUT:,} characters), best of 3")
    for label, unit, tail in WORST:
        text = (unit * (MAX_INPUT // len(unit) + 1))[: MAX_INPUT - len(tail) - 1] + " " + tail
        best = min(_median(functools.partial(classify, text), 1) for _ in range(3))
        verdict = classify(text)
        print(f"  {label:<32}{best * 1000:8.1f} ms  {verdict.rule}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="log lines to generate")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument(
        "--piai-prefix",
        type=Path,
        default=Path(tempfile.gettempdir()) / "piai",
        help="where npm installs pi-ai (reused between runs)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="also run the CLI of this source tree (say a git worktree of an earlier "
        "commit) alternately with ours, on both trees' logs",
    )
    args = parser.parse_args(argv)

    lines = generate(args.lines)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "app.log"
        log.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        megabytes = log.stat().st_size / 1e6
        errors = sum(" ERROR " in line for line in lines)
        cores = os.cpu_count() or 1
        engine = "blocks (Hyperscan)" if block_filter() is not None else "line by line"
        print(
            f"log: {len(lines):,} lines, {megabytes:.1f} MB, {errors / len(lines):.1%} error "
            f"lines; {len(RULES)} rules; {cores} cores; scan: {engine}"
        )
        shapes = [("text, 15 % error lines", log)]
        for label, name, made in (
            ("text, 1 % error lines", "rare.log", generate(args.lines, share=0.01)),
            ("text, 15 %, unique id per error", "unique.log", generate(args.lines, unique=True)),
            ("JSON lines, 15 % error records", "records.jsonl", generate_records(args.lines)),
        ):
            path = Path(tmp) / name
            path.write_text("".join(f"{line}\n" for line in made), encoding="utf-8")
            shapes.append((label, path))
        _speed_table(shapes, args.piai_prefix, args.repeat)
        ours: dict[str, float] = {}
        runs = [(log, fmt, jobs, "") for fmt in ("jsonl", "table") for jobs in (1, 0)]
        for path, fmt, jobs, note in runs:
            label = f"llm-errors --format {fmt} --jobs {jobs}{note}"
            size = path.stat().st_size / 1e6
            before = _children_cpu()
            seconds = _median(_cli(path, fmt, jobs), args.repeat)
            cpu = (_children_cpu() - before) / args.repeat
            _row(label + ":", size, seconds, cpu=cpu)
            # For the ratios: the time this throughput takes over the main log's size.
            ours[label] = seconds * megabytes / size
        for line in lines[:20_000]:  # plans and patterns built outside the timing
            classify(line)
        before = time.process_time()
        bare = _median(lambda: [classify(line) for line in lines], args.repeat)
        cpu = (time.process_time() - before) / args.repeat
        _row("classify() per line:", megabytes, bare, cpu=cpu)
        node = _piai(log, args.piai_prefix)
        piai: float | None = None
        if isinstance(node, str):
            _row("pi-ai 1.6.0 heuristics (Node):", megabytes, None, node)
        else:
            hits: list[int] = []
            before = _children_cpu()
            piai = _median(lambda: hits.append(node()), args.repeat)
            cpu = (_children_cpu() - before) / args.repeat
            note = f"  ({hits[0]:,} lines flagged)"
            _row("pi-ai 1.6.0 heuristics (Node):", megabytes, piai, note, cpu=cpu)
        grep = _grep(log, args.repeat)
        _row("grep -ciE (15 words):", megabytes, grep, "" if grep else "skipped: no grep")
        print("ratios (throughput, same run):")
        for label, seconds in ours.items():
            parts = [f"{(piai or 0) / seconds:5.2f}x pi-ai" if piai else "pi-ai -"]
            parts.append(f"{(grep or 0) / seconds:5.2f}x grep" if grep else "grep -")
            print(f"  {label:<50}{', '.join(parts)}")
        ceiling = _machine_scaling(cores, max(args.repeat, 5))
        print(
            f"  the machine: {cores} processes of a CPU-bound loop run {ceiling:.2f}x one "
            "(medians of alternating runs)"
        )
        for fmt in ("jsonl", "table"):
            one = ours[f"llm-errors --format {fmt} --jobs 1"]
            every = ours[f"llm-errors --format {fmt} --jobs 0"]
            print(
                f"  --format {fmt}: --jobs 0 is {one / every:.2f}x --jobs 1 on {cores} cores "
                f"({one / every / ceiling:.0%} of the machine's)"
            )
        if args.baseline is not None:
            _baseline(args.baseline, args.lines, log, Path(tmp), args.repeat)
    _worst_case()
    return 0


if __name__ == "__main__":
    sys.exit(main())
