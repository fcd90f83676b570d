"""The SDK recipes' harness: a scripted loopback HTTP server and the recipes from the docs.

Each recipe test points a real SDK at :class:`LoopbackServer` (127.0.0.1 only), which
answers from a script (fail, then succeed) and counts every request it receives, so a
test can tell the attempts ``llm_retry`` made from any the SDK made on its own.

The recipes are not copied here: :func:`load_recipe` takes the Python block that follows
``<!-- recipe: NAME -->`` in docs/retry.md and executes it, so the documented code is the
code under test.

The tests every recipe shares are written once, here (:data:`SHARED_TESTS`), and
collected in each recipe module as if it defined them (:func:`pytest_shared_tests`).
A module holds its SDK's data and glue:

* ``CASES``: ``{scenario: {...}}`` for the scenarios it takes part in: ``retried`` (a
  transient failure, then an answer), ``exhausted`` (failures only), ``permanent`` (an
  error that is not retried), ``stream`` (a failed open, then a stream) and
  ``stream-cut`` (a stream cut after its first item), ``paced`` (an answer stating a
  spent rate-limit window, then one more; ``paced`` the wait expected before the second
  call, ``(low, high]``, with ``LLM_RETRY_REDIS_URL`` set). Each has ``replies``, the server's
  script as reply specs (:func:`reply_of`), and what the test expects: ``returns``,
  ``raises``, ``received``, ``describe`` (or ``describe_prefix``), ``sleeps``, ``path``;
* the fixtures ``sdk_recipe`` (the loaded recipe, its SDK's dummy credentials set) and
  ``client`` (the SDK client on the server), which the default ``complete`` (one call of
  the recipe's ``complete``) and ``stream`` (the recipe's ``stream``, each item passed
  to a callback) use; a recipe whose calls take no client overrides those two.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from llm_retry import GiveUpReason, RetryRecorder, retry_info

RETRY_DOC = Path(__file__).resolve().parents[3] / "docs" / "retry.md"
MAX_REQUEST_BODY = 1_000_000  # bytes a request may carry; larger ones are refused
SOCKET_TIMEOUT = 5.0  # seconds a connection may sit idle before the server drops it
SHUTDOWN_TIMEOUT = 5.0  # seconds to wait for the server thread on close


@dataclass(frozen=True)
class Reply:
    """One scripted answer.

    ``drop`` closes the connection without answering. ``declared_length`` announces a
    longer body than is sent, then closes: the client sees the body cut off mid-stream.
    ``hold`` waits, after sending the body, for :meth:`LoopbackServer.release` (at most
    ``SOCKET_TIMEOUT``) before closing, so the client reads what was sent before it sees
    the cut (aiohttp drops buffered data once the connection error is set).
    """

    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    drop: bool = False
    declared_length: int | None = None
    hold: bool = False


@dataclass(frozen=True)
class Request:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def json_reply(status: int, payload: object, *headers: tuple[str, str]) -> Reply:
    """A JSON answer."""
    return Reply(status, json.dumps(payload).encode(), headers=headers)


def sse_reply(*frames: str) -> Reply:
    """A 200 ``text/event-stream`` answer of the given frames, each ended by a blank line."""
    body = "".join(frame.rstrip("\n") + "\n\n" for frame in frames).encode()
    return Reply(200, body, content_type="text/event-stream")


def data_frames(*payloads: object) -> tuple[str, ...]:
    """``data: {json}`` frames, as openai-style and Gemini streams send them."""
    return tuple(f"data: {json.dumps(payload)}" for payload in payloads)


UNSCRIPTED = Reply(501, b"")  # answered to a request past the end of the script


class LoopbackServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 that answers from a script and records requests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._script: list[Reply] = []
        self._requests: list[Request] = []
        self.released = threading.Event()
        handler = type("Handler", (_Handler,), {"owner": self})
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    json = staticmethod(json_reply)
    sse = staticmethod(sse_reply)
    data_frames = staticmethod(data_frames)
    Reply = Reply

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with ``replies``, in order (then 501 to any other)."""
        with self._lock:
            self._script = list(replies)

    @property
    def requests(self) -> list[Request]:
        """Every request received so far."""
        with self._lock:
            return list(self._requests)

    @property
    def attempts(self) -> int:
        """How many requests reached the server."""
        with self._lock:
            return len(self._requests)

    def take(self, request: Request) -> Reply:
        """Record ``request`` and return its scripted reply."""
        with self._lock:
            self._requests.append(request)
            index = len(self._requests) - 1
            return self._script[index] if index < len(self._script) else UNSCRIPTED

    def release(self) -> None:
        """Let a held reply close its connection."""
        self.released.set()

    def close(self) -> None:
        """Stop serving and release the port."""
        self.release()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(SHUTDOWN_TIMEOUT)


class _Handler(http.server.BaseHTTPRequestHandler):
    owner: LoopbackServer
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' connection pools expect
    timeout = SOCKET_TIMEOUT

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib's name
        """Keep the test output clean."""

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BODY:
            self.send_error(413)
            return
        body = self.rfile.read(length) if length else b""
        reply = self.owner.take(
            Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        if reply.drop:
            self.close_connection = True
            return
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(reply.declared_length or len(reply.body)))
        for name, value in reply.headers:
            self.send_header(name, value)
        if reply.declared_length is not None:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(reply.body)
        self.wfile.flush()
        if reply.hold:
            self.owner.released.wait(SOCKET_TIMEOUT)

    do_GET = do_POST = _serve  # noqa: N815 - the stdlib's dispatch names


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A fresh loopback server for one test, closed after it."""
    loopback = LoopbackServer()
    try:
        yield loopback
    finally:
        loopback.close()


_RECIPE = re.compile(
    r"<!-- recipe: (?P<name>[\w-]+) -->\s*```python\n(?P<code>.*?)^```", re.MULTILINE | re.DOTALL
)


def documented_recipes() -> dict[str, str]:
    """Every recipe block of docs/retry.md, by name."""
    text = RETRY_DOC.read_text(encoding="utf-8")
    return {m["name"]: m["code"] for m in _RECIPE.finditer(text)}


@pytest.fixture
def recipe_names() -> set[str]:
    """The names of the recipes docs/retry.md holds."""
    return set(documented_recipes())


@pytest.fixture
def recipe() -> Callable[[str], SimpleNamespace]:
    """Load a recipe from docs/retry.md: ``recipe("openai").complete``."""
    return load_recipe


def load_recipe(name: str) -> SimpleNamespace:
    """Execute the docs' recipe ``name`` in a fresh namespace and return its names."""
    source = documented_recipes()[name]
    namespace: dict[str, object] = {"__name__": f"recipe_{name.replace('-', '_')}"}
    exec(compile(source, f"docs/retry.md (recipe {name})", "exec"), namespace)  # noqa: S102 - our own docs
    return SimpleNamespace(**namespace)


CORPUS = Path(__file__).resolve().parents[2] / "llm_errors" / "corpus"


class Corpus:
    """Real error strings by id, from tests/llm_errors/corpus (each row names its source)."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        for path in sorted(CORPUS.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                self._texts[row["id"]] = row["text"]

    def text(self, row_id: str) -> str:
        """The string of row ``row_id``."""
        return self._texts[row_id]

    def json(self, row_id: str) -> object:
        """The JSON error body quoted in row ``row_id`` (its first ``{`` to its last ``}``)."""
        text = self._texts[row_id]
        return json.loads(text[text.index("{") : text.rindex("}") + 1])


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    """The labelled corpus of real provider error strings."""
    return Corpus()


# ------------------------------------------------------------------- the reply specs
_SPEC_KEYS = frozenset(
    {"status", "json", "corpus", "sse", "data", "done", "raw", "content_type", "headers"}
    | {"drop", "declared_length", "hold"}
)


def reply_of(spec: Mapping[str, Any], corpus: Corpus) -> Reply:
    """A :class:`Reply` from a module's spec.

    The body is ``json`` (an object, or a function of the :class:`Corpus` returning one),
    ``corpus`` (the JSON error body of that corpus row), ``sse`` (named frames), ``data``
    (payloads as ``data:`` frames, then ``data: [DONE]`` with ``done``) or ``raw`` (bytes,
    with ``content_type``); ``status`` (200), ``headers`` (pairs, or a function that
    returns them when the reply is built, for times relative to the test), ``drop``,
    ``declared_length`` and ``hold`` are :class:`Reply`'s.
    """
    unknown = set(spec) - _SPEC_KEYS
    if unknown:
        raise ValueError(f"unknown reply keys: {sorted(unknown)}")
    status = int(spec.get("status", 200))
    if "json" in spec or "corpus" in spec:
        payload = spec["json"] if "json" in spec else corpus.json(spec["corpus"])
        base = json_reply(status, payload(corpus) if callable(payload) else payload)
    elif "sse" in spec or "data" in spec:
        frames = tuple(spec.get("sse", ())) + data_frames(*spec.get("data", ()))
        base = sse_reply(*frames, *(("data: [DONE]",) if spec.get("done") else ()))
    else:
        base = Reply(status, bytes(spec.get("raw", b"")))
    return Reply(
        status,
        base.body,
        str(spec.get("content_type", base.content_type)),
        headers=tuple(headers() if callable(headers := spec.get("headers", ())) else headers),
        drop=bool(spec.get("drop", False)),
        declared_length=spec.get("declared_length"),
        hold=bool(spec.get("hold", False)),
    )


@pytest.fixture
def reply(corpus: Corpus) -> Callable[[Mapping[str, Any]], Reply]:
    """Build a :class:`Reply` from a spec, for a module's own tests: ``reply(UNAVAILABLE)``."""
    return lambda spec: reply_of(spec, corpus)


@pytest.fixture
def complete(sdk_recipe: SimpleNamespace, client: object) -> Callable[[], object]:
    """One call of the recipe's ``complete(client, prompt)`` (a module may override it)."""
    return lambda: sdk_recipe.complete(client, "hi")


@pytest.fixture
def stream(
    sdk_recipe: SimpleNamespace, client: object
) -> Callable[[Callable[[object], None]], None]:
    """The recipe's ``stream(client, prompt)``, each item passed to a callback (overridable)."""

    def consume(on_item: Callable[[object], None]) -> None:
        for item in sdk_recipe.stream(client, "hi"):
            on_item(item)

    return consume


@pytest.fixture
def scenario(request: pytest.FixtureRequest, corpus: Corpus) -> dict[str, Any]:
    """The module's ``CASES`` entry for the shared test asking, its replies built."""
    case = dict(request.module.CASES[SHARED_TESTS[request.function]])
    case["replies"] = [reply_of(spec, corpus) for spec in case["replies"]]
    return case


def _check_description(
    recipe: SimpleNamespace, error: BaseException, case: Mapping[str, Any]
) -> None:
    """The recipe's ``describe`` says what the case expects (exactly, or how it starts)."""
    described = recipe.describe(error)
    if "describe_prefix" in case:
        assert described.startswith(case["describe_prefix"])
    else:
        assert described == case["describe"]


@pytest.fixture
def failure(
    scenario: dict[str, Any],
    server: LoopbackServer,
    sdk_recipe: SimpleNamespace,
    complete: Callable[[], object],
    llm_retry_testing: RetryRecorder,
) -> BaseException:
    """Script the scenario, call ``complete`` once, and return the error it must raise.

    The error is the type the scenario ``raises``, and the recipe's ``describe`` says
    what the scenario expects.
    """
    server.script(*scenario["replies"])
    with pytest.raises(scenario["raises"]) as caught:
        complete()
    _check_description(sdk_recipe, caught.value, scenario)
    return caught.value


# ------------------------------------------------------------------- the shared tests
def test_complete_retries_once_then_succeeds(
    scenario: dict[str, Any],
    server: LoopbackServer,
    complete: Callable[[], object],
    llm_retry_testing: RetryRecorder,
) -> None:
    """A transient failure then an answer: two requests reach the server, both made by llm_retry."""
    server.script(*scenario["replies"])
    assert complete() == scenario["returns"]
    assert server.attempts == 2
    assert llm_retry_testing.sleeps == scenario["sleeps"]  # the Retry-After, from the SDK error
    assert len(llm_retry_testing.events) == 1
    assert [r.path for r in server.requests] == [scenario["path"]] * 2


def test_sdk_retries_are_off(
    failure: BaseException, server: LoopbackServer, sdk_recipe: SimpleNamespace
) -> None:
    """With every request failing, the server sees exactly max_attempts requests."""
    assert server.attempts == sdk_recipe.policy.max_attempts == 4
    assert retry_info(failure).reason is GiveUpReason.MAX_ATTEMPTS


def test_permanent_error_is_not_retried(
    failure: BaseException, server: LoopbackServer, llm_retry_testing: RetryRecorder
) -> None:
    """A permanent error (a real body from the corpus) reaches the server once, not retried."""
    assert server.attempts == 1
    assert llm_retry_testing.events == []
    assert retry_info(failure).reason is GiveUpReason.NOT_RETRYABLE


def test_stream_retried_before_first_chunk(
    scenario: dict[str, Any],
    server: LoopbackServer,
    stream: Callable[[Callable[[object], None]], None],
    llm_retry_testing: RetryRecorder,
) -> None:
    """A failure on opening the stream is retried; the stream then yields every item."""
    server.script(*scenario["replies"])
    received: list[object] = []
    stream(received.append)
    assert received == scenario["returns"]
    assert server.attempts == 2
    assert len(llm_retry_testing.events) == 1
    if "path" in scenario:
        assert server.requests[1].path == scenario["path"]


def test_stream_not_retried_after_first_chunk(
    scenario: dict[str, Any],
    server: LoopbackServer,
    sdk_recipe: SimpleNamespace,
    stream: Callable[[Callable[[object], None]], None],
    llm_retry_testing: RetryRecorder,
) -> None:
    """A stream cut off after its first item is raised, not restarted, though retryable."""
    server.script(*scenario["replies"])
    received: list[object] = []

    def take(item: object) -> None:
        received.append(item)
        server.release()  # the first item is in: a held reply may now cut the connection

    with pytest.raises(scenario["raises"]) as caught:
        stream(take)
    assert received == scenario["received"]
    assert server.attempts == 1
    info = retry_info(caught.value)
    assert info.reason is GiveUpReason.STREAM_STARTED
    assert info.items_delivered == 1
    _check_description(sdk_recipe, caught.value, scenario)


@pytest.fixture
def fleet_env(redis_server: Any, prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``LLM_RETRY_REDIS_URL`` set to a real redis-server, before the recipe is loaded."""
    monkeypatch.setenv("LLM_RETRY_REDIS_URL", redis_server.url)
    monkeypatch.setenv("LLM_RETRY_REDIS_PREFIX", prefix)


def test_stated_limits_pace_the_next_call(
    fleet_env: None,
    scenario: dict[str, Any],
    server: LoopbackServer,
    complete: Callable[[], object],
    llm_retry_testing: RetryRecorder,
) -> None:
    """With ``LLM_RETRY_REDIS_URL`` set, an answer that spent its window holds the next call.

    The recipe's client hook records the answer's rate-limit headers in Redis; the
    next call waits for the stated refill before its request (the wait is recorded,
    not slept), with no code besides the recipe.
    """
    server.script(*scenario["replies"])
    assert complete() == scenario["returns"]
    assert llm_retry_testing.sleeps == []
    assert complete() == scenario["returns"]
    [pause] = llm_retry_testing.sleeps
    low, high = scenario["paced"]
    assert low < pause <= high
    assert server.attempts == 2
    assert llm_retry_testing.events == []  # a wait for the pace, not a retry


#: Each shared test, and the scenario of a module's ``CASES`` it runs (absent: not run).
SHARED_TESTS: dict[Callable[..., None], str] = {
    test_complete_retries_once_then_succeeds: "retried",
    test_stated_limits_pace_the_next_call: "paced",
    test_sdk_retries_are_off: "exhausted",
    test_permanent_error_is_not_retried: "permanent",
    test_stream_retried_before_first_chunk: "stream",
    test_stream_not_retried_after_first_chunk: "stream-cut",
}


def pytest_shared_tests(module: ModuleType) -> list[Callable[..., None]]:
    """The shared tests whose scenario ``module``'s ``CASES`` has (see tests/conftest.py)."""
    cases = getattr(module, "CASES", {})
    return [test for test, name in SHARED_TESTS.items() if name in cases]
