"""Real SDK exceptions from a loopback fault server, classified in three forms.

Each test module here names one SDK and defines, as plain data:

* ``CASES``: ``{case id: (expected code, the exception type the SDK raises, reply spec)}``;
  a reply spec is a dict read by :func:`make_reply` (``{"mode": "refused"}``: nobody
  listens);
* ``XFAIL``: ``{(case id, form): reason}`` for the forms today's rules get wrong (strict:
  a fixed rule turns the case red, so the mark is removed with the fix);
* ``provoke(base_url, case_id, read_timeout)``: point the SDK, its own retries off and
  its read timeout ``read_timeout`` (short for the stall cases, long otherwise), at
  ``base_url`` and return the exception it raises;
* ``RETRY_AFTER`` (optional): the seconds the ``status-429`` case's ``Retry-After``
  header says, when the classification can read them from the exception.

The tests are written once, here (:data:`SHARED_TESTS`), and collected in every module
of the folder as if it defined them (:func:`pytest_shared_tests`), so a module
holds only its data and its SDK glue. One test checks the whole table: every case
crossed with the forms (the exception object, its ``str()``, and its log line
``module.Qualname: message``), naming each failing row; the ``raised`` fixture provokes
each case once per module and checks that the request reached the server exactly once.
Everything listens on 127.0.0.1 only, and every wait and loop is bounded.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest

from llm_errors import classify

#: A stalled reply waits at most this long (the SDKs' read timeouts are far shorter).
STALL_LIMIT = 5.0
#: The SDK read timeout for the stall cases: short, so a stall costs half a second.
READ_TIMEOUT = 0.5
#: The read timeout for every other case: long, so a busy machine cannot turn a prompt
#: reply into a timeout.
PATIENT_TIMEOUT = 5.0
_STALLS = frozenset({"stall", "stall_body"})
#: One server accepts at most this many connections (retries are off: one is expected).
MAX_CONNECTIONS = 4
#: A request larger than this is not read further.
MAX_REQUEST = 1 << 20
_ACCEPT_POLL = 0.5
_SOCKET_TIMEOUT = 2.0
_JOIN_TIMEOUT = STALL_LIMIT + 1.0

MODES = frozenset({"whole", "stream", "drop", "stall", "stall_body", "hang_up", "refused"})
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    413: "Request Entity Too Large",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    529: "Site is overloaded",
}


@dataclass(frozen=True, slots=True)
class Reply:
    """What the server does with a request.

    ``whole`` sends the body with a Content-Length; ``stream`` sends it chunked and
    complete; ``drop`` sends it chunked and closes without the last chunk; ``stall``
    sends nothing; ``stall_body`` sends the chunked body and then nothing more;
    ``hang_up`` closes without a response.
    """

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    mode: str = "whole"


# nginx's default error pages, byte for byte (nginx src/http/ngx_http_special_response.c):
# what a gateway in front of any provider answers for these statuses.
_NGINX_TITLES = {
    408: "408 Request Time-out",
    413: "413 Request Entity Too Large",
    502: "502 Bad Gateway",
    503: "503 Service Temporarily Unavailable",
    504: "504 Gateway Time-out",
}


def nginx_page(status: int) -> bytes:
    """The default error page nginx serves for ``status``."""
    title = _NGINX_TITLES[status]
    return (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n"
        f"<center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n"
        "</body>\r\n</html>\r\n"
    ).encode()


def sse(events: list[tuple[str | None, object]]) -> bytes:
    """Server-sent events: ``(event name or None, JSON data or a raw string)`` pairs."""
    frames = []
    for event, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        head = f"event: {event}\n" if event else ""
        frames.append(f"{head}data: {payload}\n\n")
    return "".join(frames).encode()


def make_reply(spec: Mapping[str, Any]) -> Reply:
    """A :class:`Reply` from a module's spec.

    ``json`` (an object), ``sse`` (events for :func:`sse`), ``nginx`` (a status whose
    default nginx page is the body) or ``body`` (bytes or text, with ``content_type``)
    give the body; ``status``, ``headers`` and ``mode`` (one of :data:`MODES`) the rest.
    """
    keys = {"status", "json", "body", "sse", "nginx", "headers", "mode", "content_type"}
    unknown = set(spec) - keys
    if unknown:
        raise ValueError(f"unknown reply keys: {sorted(unknown)}")
    headers = dict(spec.get("headers", {}))
    mode = str(spec.get("mode", "stream" if "sse" in spec else "whole"))
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    if "json" in spec:
        body = json.dumps(spec["json"]).encode()
        headers.setdefault("content-type", "application/json")
    elif "sse" in spec:
        body = sse(spec["sse"])
        headers.setdefault("content-type", "text/event-stream")
    elif "nginx" in spec:
        body = nginx_page(int(spec["nginx"]))
        headers.setdefault("content-type", "text/html")
        spec = {"status": spec["nginx"], **spec}
    else:
        raw = spec.get("body", b"")
        body = raw.encode() if isinstance(raw, str) else bytes(raw)
        headers.setdefault("content-type", str(spec.get("content_type", "text/plain")))
    return Reply(int(spec.get("status", 200)), body, headers, mode)


def _read_request(conn: socket.socket) -> bytes:
    """Read one whole request, so closing never resets the socket with unread bytes."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < MAX_REQUEST:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.lower().split(b"\r\n")
    length = next((int(v.split(b":", 1)[1]) for v in lines if v.startswith(b"content-length:")), 0)
    chunked = any(v.startswith(b"transfer-encoding:") and b"chunked" in v for v in lines)
    while len(body) < MAX_REQUEST and (
        (chunked and not body.endswith(b"0\r\n\r\n")) or (not chunked and len(body) < length)
    ):
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head


def _head(reply: Reply, framing: str) -> bytes:
    reason = _REASONS.get(reply.status, "Unknown")
    lines = [f"HTTP/1.1 {reply.status} {reason}", *(f"{k}: {v}" for k, v in reply.headers.items())]
    lines += [framing, "connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _respond(conn: socket.socket, reply: Reply, stop: threading.Event) -> None:
    """Carry out ``reply`` on an accepted connection whose request was read."""
    if reply.mode == "hang_up":
        return
    if reply.mode == "stall":
        stop.wait(STALL_LIMIT)
        return
    if reply.mode == "whole":
        conn.sendall(_head(reply, f"content-length: {len(reply.body)}") + reply.body)
        return
    conn.sendall(_head(reply, "transfer-encoding: chunked") + _chunk(reply.body))
    if reply.mode == "stream":
        conn.sendall(b"0\r\n\r\n")
    elif reply.mode == "stall_body":
        stop.wait(STALL_LIMIT)
    # "drop": return without the terminating chunk; the caller closes the socket.


class FaultServer:
    """A small threaded server on 127.0.0.1 that answers every request with one reply."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[bytes] = []
        self._stop = threading.Event()
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(_ACCEPT_POLL)
        self.port: int = self._sock.getsockname()[1]
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept, daemon=True)
        self._acceptor.start()

    def _accept(self) -> None:
        while not self._stop.is_set() and len(self._threads) < MAX_CONNECTIONS:
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self._stop.is_set():  # the wake-up connection of close()
                conn.close()
                return
            worker = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            self._threads.append(worker)
            worker.start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(_SOCKET_TIMEOUT)
            try:
                head = _read_request(conn)
                if head:
                    self.requests.append(head)
                    _respond(conn, self.reply, self._stop)
            except OSError:
                return  # the client gave up first (its timeout fired): nothing to answer

    def close(self) -> None:
        """Stop accepting, release stalled replies, and join every thread (bounded)."""
        self._stop.set()
        with suppress(OSError):  # wake the acceptor now rather than at its next poll
            socket.create_connection(("127.0.0.1", self.port), timeout=_SOCKET_TIMEOUT).close()
        self._acceptor.join(_JOIN_TIMEOUT)
        for worker in self._threads:
            worker.join(_JOIN_TIMEOUT)
        self._sock.close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serving(spec: Mapping[str, Any]) -> Iterator[tuple[str, FaultServer | None]]:
    """``(base URL, server)`` for a reply spec; a refused spec has no server."""
    reply = make_reply(spec)
    if reply.mode == "refused":
        yield f"http://127.0.0.1:{closed_port()}", None
        return
    server = FaultServer(reply)
    try:
        yield f"http://127.0.0.1:{server.port}", server
    finally:
        server.close()


# ------------------------------------------------------------------- the three forms
def as_object(exc: BaseException) -> object:
    """The exception itself, as ``except Exception as e: classify(e)`` sees it."""
    return exc


def as_str(exc: BaseException) -> object:
    """``str(e)``: what an app stores or shows."""
    return str(exc)


def as_log_line(exc: BaseException) -> object:
    """The log line ``module.Qualname: message`` (the last line of a traceback)."""
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"


FORMS: dict[str, Callable[[BaseException], object]] = {
    "object": as_object,
    "str": as_str,
    "log-line": as_log_line,
}


@pytest.fixture(scope="module")
def raised(request: pytest.FixtureRequest) -> Callable[[str], BaseException]:
    """The exception the module's SDK raises for a case, provoked once per module."""
    module = request.module
    cache: dict[str, BaseException] = {}

    def get(case_id: str) -> BaseException:
        if case_id not in cache:
            spec = module.CASES[case_id][-1]
            timeout = READ_TIMEOUT if spec.get("mode") in _STALLS else PATIENT_TIMEOUT
            with serving(spec) as (base_url, server):
                exc = module.provoke(base_url, case_id, timeout)
            assert isinstance(exc, BaseException), f"{case_id}: the SDK raised nothing"
            if server is not None:  # it came from our fault, once: the SDK's retries are off
                assert len(server.requests) == 1, (repr(exc), server.requests)
            cache[case_id] = exc
        return cache[case_id]

    return get


# ------------------------------------------------------------------- the shared tests
@pytest.mark.integration
def test_each_fault_in_each_form(
    raised: Callable[[str], BaseException], table: Any, request: pytest.FixtureRequest
) -> None:
    """Each fault comes back as the SDK's own type, routed to the policy's code in every form.

    The type pins the SDK's behaviour; the exception, its str() and its log line must each
    classify to the case's code, but for the module's ``XFAIL`` entries, which must still
    be wrong (a fixed rule turns the row red until its entry is removed).
    """
    module = request.module
    cases: Mapping[str, tuple[Any, str, Mapping[str, Any]]] = module.CASES
    xfails: Mapping[tuple[str, str], str] = module.XFAIL
    unknown = set(xfails) - {(c, f) for c in cases for f in FORMS}
    assert not unknown, f"XFAIL names unknown cases: {sorted(unknown)}"

    def check(case_id: str, form: str) -> None:
        expected, name, _ = cases[case_id]
        exc = raised(case_id)
        assert f"{type(exc).__module__}.{type(exc).__qualname__}" == name
        code = classify(FORMS[form](exc)).code
        reason = xfails.get((case_id, form))
        if reason is None:
            assert code is expected, code
        else:
            assert code is not expected, f"fixed ({reason}): remove it from XFAIL"

    table.check(((f"{c}-{f}", (c, f)) for c in cases for f in FORMS), check)


@pytest.mark.integration
def test_retry_after_header_is_read_from_the_exception(
    raised: Callable[[str], BaseException], request: pytest.FixtureRequest
) -> None:
    """The 429's Retry-After header reaches the classification through the exception."""
    result = classify(raised("status-429"))
    assert (result.status, result.retry_after) == (429, request.module.RETRY_AFTER)


#: Each shared test, and the module-level name a module must define to get it.
SHARED_TESTS: dict[Callable[..., None], str] = {
    test_each_fault_in_each_form: "CASES",
    test_retry_after_header_is_read_from_the_exception: "RETRY_AFTER",
}


def pytest_shared_tests(module: ModuleType) -> list[Callable[..., None]]:
    """The shared tests whose data ``module`` defines (see tests/conftest.py)."""
    return [test for test, needs in SHARED_TESTS.items() if hasattr(module, needs)]
