"""The fake Mistral HTTP server: real sockets on 127.0.0.1, one thread per connection.

Built on the standard library only (``socketserver`` + ``http.server`` for request
parsing); responses are written by hand so that a test controls every byte, including
the ones a well-behaved server would never send.

Shutdown is prompt and leaves nothing behind: a wake-up socket pair ends the accept
loop and every :class:`~adapter.testing.Pause`, every open connection is shut down so
idle keep-alive threads return, and the handler threads are joined.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import http.server
import json
import logging
import selectors
import socket
import socketserver
import struct
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

from adapter.testing._chunks import error_object
from adapter.testing._resume import CutStream, continue_reply, prefix_mismatch
from adapter.testing._scenarios import (
    CloseBeforeHeaders,
    Drop,
    Pause,
    Reply,
    Scenario,
    Stream,
    text_reply,
)

__all__ = ["DEFAULT_SCENARIO", "FakeMistral", "RecordedRequest"]

_log = logging.getLogger("adapter.testing")

#: What the server answers when no scenario is queued, unless told otherwise.
DEFAULT_SCENARIO: Scenario = text_reply("Hello", " from the fake", " Mistral server.")

_CHAT_PATH = "/chat/completions"
_MAX_LINE = 65_536
#: Seconds without progress after which a reader counts as stopped: a loaded machine
#: (CI's coverage run beside three other suites) stalled a reader for over 2 s.
_DRAIN_TIMEOUT = 30.0

try:  # POSIX only: how many sent bytes the peer has not acknowledged yet
    import fcntl
    import termios

    _OUTQ: int | None = termios.TIOCOUTQ
except ImportError:  # pragma: no cover - Windows
    _OUTQ = None


@dataclass(frozen=True, slots=True)
class _Continuation:
    """The answer to the request that continues a :class:`CutStream`, queued first."""

    cut: CutStream
    original: bytes

    def answer(self, body: bytes) -> Stream | Reply:
        """The rest of the reply, or a 400 naming what the continuation got wrong."""
        try:
            mismatch = prefix_mismatch(self.cut, json.loads(self.original), json.loads(body))
        except ValueError:
            mismatch = "the request body is not JSON"
        if mismatch is not None:
            message = f"fake Mistral server: {mismatch}"
            return Reply(400, error_object(message, error_type="invalid_request_prefix"))
        return Stream(continue_reply(self.cut))


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the server received, as it arrived.

    The repr leaves out headers and body: they carry the API key and the prompt.

    Attributes:
        method: The HTTP method.
        path: The path, without the query string (``/v1/chat/completions``).
        query: The query string, without ``?`` (usually ``""``).
        headers: The headers, names lower-cased; repeated headers joined with ``", "``.
        body: The raw body.
        correlation_id: The ``mistral-correlation-id`` the response carried; ``None``
            when the scenario closed the connection before sending headers.

    .. versionadded:: 0.1.0
    """

    method: str
    path: str
    query: str = ""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    body: bytes = field(default=b"", repr=False)
    correlation_id: str | None = None

    def json(self) -> Any:
        """The body parsed as JSON (raises :class:`json.JSONDecodeError` if it is not)."""
        return json.loads(self.body)


class _Handler(http.server.BaseHTTPRequestHandler):
    """Parses requests (keep-alive HTTP/1.1) and hands each one to the fake."""

    protocol_version = "HTTP/1.1"
    server_version = "fake-mistral"
    sys_version = ""
    server: _TCPServer

    def do_POST(self) -> None:
        self.server.fake._respond(self)  # noqa: SLF001  -- the fake owns this server

    do_GET = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_POST  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  -- the base's name
        _log.debug("%s " + format, self.address_string(), *args)


class _TCPServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    """A threading TCP server that tells the fake about every connection it opens/closes."""

    # Handler threads are daemons (a forgotten server never blocks interpreter exit) that
    # FakeMistral.close() joins itself: socketserver only joins non-daemon threads.
    daemon_threads = True
    block_on_close = False
    # The listen backlog: room for a benchmark's burst of connections (bench/concurrency.py).
    request_queue_size = 1024

    def __init__(self, fake: FakeMistral, address: tuple[str, int]) -> None:
        self.fake = fake
        super().__init__(address, _Handler)

    def process_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any
    ) -> None:
        assert isinstance(request, socket.socket)  # noqa: S101  -- TCP: always a socket
        request.settimeout(None)  # blocking, though accepted from a non-blocking listener
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"fake-mistral:{self.server_address[1]}:{client_address[1]}",
            daemon=True,
        )
        self.fake._track(request, thread)  # noqa: SLF001
        thread.start()

    def close_request(self, request: socket.socket) -> None:  # type: ignore[override]
        try:
            super().close_request(request)
        finally:
            self.fake._untrack(request)  # noqa: SLF001

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return  # the client went away (reset, closed mid-request): not news
        super().handle_error(request, client_address)


def _abort(handler: _Handler, *, reset: bool) -> None:
    """Close the connection now, with a FIN, or with an RST when ``reset``."""
    handler.close_connection = True
    connection = handler.connection
    try:
        if reset:
            _drain(connection)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        handler.rfile.close()  # drop the file's reference so close() closes the socket now
        connection.close()
    except OSError:
        pass  # already shut down by close()


def _drain(connection: socket.socket) -> None:
    """Wait until the peer has acknowledged everything sent (``_DRAIN_TIMEOUT`` s per step).

    A close with ``SO_LINGER`` zero discards data still in the send queue, so an RST
    sent right after the last write could swallow chunks the scenario says were
    delivered. A slow reader (a loaded machine) acknowledges a large body over more
    than the timeout, so the wait is for progress, not for the whole; the queue only
    shrinks after the last write, so it ends. On platforms without ``TIOCOUTQ`` this
    returns at once.
    """
    if _OUTQ is None:
        return
    pending = array.array("i", [0])
    last = -1
    deadline = time.monotonic() + _DRAIN_TIMEOUT
    while time.monotonic() < deadline:
        try:
            fcntl.ioctl(connection, _OUTQ, pending)
        except OSError:
            return  # not supported for sockets here: nothing to wait for
        if not pending[0]:
            return
        if pending[0] != last:  # the peer took more: wait on
            last = pending[0]
            deadline = time.monotonic() + _DRAIN_TIMEOUT
        time.sleep(0.001)


def _read_body(handler: _Handler) -> bytes:
    """The request body, from ``Content-Length`` or chunked framing."""
    if "chunked" in handler.headers.get("Transfer-Encoding", "").lower():
        parts = []
        while size := int(handler.rfile.readline(_MAX_LINE).split(b";", 1)[0], 16):
            parts.append(handler.rfile.read(size))
            handler.rfile.readline(_MAX_LINE)
        while handler.rfile.readline(_MAX_LINE) not in {b"\r\n", b"\n", b""}:
            pass  # trailers
        return b"".join(parts)
    length = int(handler.headers.get("Content-Length") or 0)
    if length < 0:
        raise ValueError(length)
    return handler.rfile.read(length)


def _send_head(
    handler: _Handler, status: int, defaults: dict[str, str], extra: Mapping[str, str]
) -> None:
    """Status line and headers; ``extra`` replaces defaults of the same name."""
    headers = {name.lower(): (name, value) for name, value in defaults.items()}
    headers.update({name.lower(): (name, value) for name, value in extra.items()})
    handler.send_response(status)
    for name, value in headers.values():
        handler.send_header(name, value)
    handler.end_headers()


class FakeMistral:
    """A scripted Mistral chat-completions server on 127.0.0.1, for tests.

    Each request to ``…/chat/completions`` (``POST``; the path may have ``/v1`` once,
    twice or not at all: it is recorded, so a test can check it) takes the next queued
    scenario, or ``default`` when the queue is empty. Other paths get a 404
    ``{"detail": "Not Found"}`` and other methods a 405, as the real API answers. Every
    request is recorded; every response carries a fresh ``mistral-correlation-id``.

    Args:
        *scenarios: Scenarios to queue, answered in order (see :meth:`enqueue`).
        default: The answer when the queue is empty (:data:`DEFAULT_SCENARIO`, a
            short text reply). ``None``: a 500 whose message says that nothing was
            queued, for tests that want every request scripted.
        host: The interface to listen on.
        port: The port; ``0`` picks a free one.

    It is a context manager, ``with`` or ``async with`` (which closes in a worker
    thread, off the event loop); the pytest plugin's ``fake_mistral`` fixture gives a
    test one, started and closed around it.

    Example:
        >>> import httpx
        >>> from adapter.testing import FakeMistral, Reply, error_object
        >>> with FakeMistral(Reply(429, error_object("Rate limit exceeded"))) as fake:
        ...     first = httpx.post(fake.chat_url, json={"model": "m", "messages": []})
        ...     second = httpx.post(fake.chat_url, json={"model": "m", "messages": []})
        >>> first.status_code, second.status_code
        (429, 200)
        >>> fake.requests[0].json()["model"]
        'm'

    .. versionadded:: 0.1.0
    """

    def __init__(
        self,
        *scenarios: Scenario,
        default: Scenario | None = DEFAULT_SCENARIO,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self._check(scenarios)
        self._check(() if default is None else (default,))
        self._address = (host, port)
        self._default = default
        self._lock = threading.Lock()
        self._queue: deque[Scenario | _Continuation] = deque(scenarios)
        self._requests: list[RecordedRequest] = []
        self._connections = threading.Condition()
        self._open: set[socket.socket] = set()
        self._handlers: list[threading.Thread] = []
        self._accepted = 0
        self._server: _TCPServer | None = None
        self._thread: threading.Thread | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None
        self._closed = False

    # --- lifecycle -------------------------------------------------------------------

    def start(self) -> Self:
        """Bind, listen and serve in a background thread; returns ``self``."""
        if self._server is not None or self._closed:
            raise RuntimeError("FakeMistral: start() can be called once")
        self._server = _TCPServer(self, self._address)  # first: binding may fail
        self._wake = socket.socketpair()
        self._server.socket.settimeout(0)  # the accept loop selects before accepting
        self._thread = threading.Thread(
            target=self._accept_loop, name=f"fake-mistral:{self.port}", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving: end stalls, close every connection, join every thread."""
        if self._closed:
            return
        self._closed = True
        if self._server is None or self._wake is None or self._thread is None:
            return
        self._wake[1].send(b"x")  # never read: stays readable for every waiter
        self._thread.join()
        with self._connections:
            connections = list(self._open)
        for connection in connections:
            with contextlib.suppress(OSError):  # closed meanwhile
                connection.shutdown(socket.SHUT_RDWR)
        self._server.server_close()  # closes the listener
        with self._connections:
            handlers = list(self._handlers)
        for thread in handlers:
            thread.join()
        for end in self._wake:
            end.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        """Start serving (binding is immediate; the server runs in its own threads).

        .. versionadded:: 0.2.0
        """
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close in a worker thread, so joining the server's threads never blocks the loop.

        .. versionadded:: 0.2.0
        """
        await asyncio.to_thread(self.close)

    # --- what tests use --------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._server is None:
            raise RuntimeError("FakeMistral: not started (use it as a context manager)")
        port: int = self._server.server_address[1]
        return port

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:54321`` (what an SDK's ``server_url`` takes)."""
        return f"http://{self._address[0]}:{self.port}"

    @property
    def chat_url(self) -> str:
        """The full chat-completions URL, ``{url}/v1/chat/completions``."""
        return f"{self.url}/v1{_CHAT_PATH}"

    def enqueue(self, *scenarios: Scenario) -> None:
        """Queue scenarios; each request to the chat endpoint takes the oldest one."""
        self._check(scenarios)
        with self._lock:
            self._queue.extend(scenarios)

    @property
    def default(self) -> Scenario | None:
        """What answers a request when the queue is empty (``None``: an unscripted 500)."""
        with self._lock:
            return self._default

    @default.setter
    def default(self, scenario: Scenario | None) -> None:
        """Switch the answer while the server runs: an outage that starts or heals.

        .. versionadded:: 0.3.0
        """
        self._check(() if scenario is None else (scenario,))
        with self._lock:
            self._default = scenario

    @property
    def pending(self) -> int:
        """How many queued scenarios no request has taken yet."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> tuple[RecordedRequest, ...]:
        """Every request received so far, oldest first."""
        with self._lock:
            return tuple(self._requests)

    @property
    def open_connections(self) -> int:
        """Client connections open on the server side right now."""
        with self._connections:
            return len(self._open)

    @property
    def accepted_connections(self) -> int:
        """Client connections accepted since the start (keep-alive reuses one)."""
        with self._connections:
            return self._accepted

    def wait_open_connections(self, expected: int = 0, *, timeout: float = 5.0) -> None:
        """Wait until exactly ``expected`` connections are open.

        A client's close reaches the server a moment later, so a test asserting that
        a client released its connection waits here instead of sleeping.

        Raises:
            TimeoutError: the count did not reach ``expected`` in ``timeout`` seconds.
        """
        with self._connections:
            if not self._connections.wait_for(lambda: len(self._open) == expected, timeout):
                raise TimeoutError(
                    f"FakeMistral: {len(self._open)} connection(s) open after {timeout} s, "
                    f"expected {expected}"
                )

    # --- serving ---------------------------------------------------------------------

    @staticmethod
    def _check(scenarios: tuple[Scenario, ...]) -> None:
        for scenario in scenarios:
            if not isinstance(scenario, Stream | Reply | CloseBeforeHeaders | CutStream):
                raise TypeError(
                    "FakeMistral: a scenario must be a Stream, Reply, CloseBeforeHeaders or "
                    f"CutStream, not {type(scenario).__name__}"
                )

    def _accept_loop(self) -> None:
        assert self._server is not None  # noqa: S101  -- set by start() before the thread
        assert self._wake is not None  # noqa: S101
        server, wake = self._server, self._wake[0]
        with selectors.DefaultSelector() as selector:
            selector.register(server.socket, selectors.EVENT_READ)
            selector.register(wake, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select():
                    if key.fileobj is wake:
                        return
                    try:
                        request, address = server.get_request()
                    except OSError:
                        continue  # the client gave up before we accepted
                    server.process_request(request, address)

    def _track(self, connection: socket.socket, handler: threading.Thread) -> None:
        with self._connections:
            self._open.add(connection)
            self._accepted += 1
            self._handlers = [thread for thread in self._handlers if thread.is_alive()]
            self._handlers.append(handler)
            self._connections.notify_all()

    def _untrack(self, connection: socket.socket) -> None:
        with self._connections:
            self._open.discard(connection)
            self._connections.notify_all()

    def _take_scenario(self, method: str, path: str) -> Scenario | _Continuation:
        """The answer to request number ``len(self._requests) + 1``; call with the lock held."""
        if not path.endswith(_CHAT_PATH):
            return Reply(404, {"detail": "Not Found"})
        if method != "POST":
            return Reply(405, {"detail": "Method Not Allowed"}, headers={"Allow": "POST"})
        if self._queue:
            return self._queue.popleft()
        if self._default is not None:
            return self._default
        return Reply(
            500,
            error_object(
                f"fake Mistral server: no scenario queued for request #{len(self._requests) + 1} "
                f"({method} {path}); enqueue one, or pass a default",
                error_type="fake_server_unscripted",
            ),
        )

    def _respond(self, handler: _Handler) -> None:
        """Record one request and play its scenario; a vanished client ends it quietly."""
        try:
            body = _read_body(handler)
        except ValueError:
            handler.close_connection = True
            with contextlib.suppress(OSError):
                handler.send_error(400, "Bad request body framing")
            return
        try:
            target = urlsplit(handler.path)
        except ValueError:  # an absolute target that is no URL: "http://[::1/v1/..."
            handler.close_connection = True
            with contextlib.suppress(OSError):
                handler.send_error(400, "Bad request target")
            return
        headers: dict[str, str] = {}
        for name, value in handler.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        with self._lock:
            scenario = self._take_scenario(handler.command, target.path)
            if isinstance(scenario, _Continuation):
                scenario = scenario.answer(body)
            elif isinstance(scenario, CutStream) and scenario.continues:
                self._queue.appendleft(_Continuation(scenario, body))
            correlation_id = None if isinstance(scenario, CloseBeforeHeaders) else uuid.uuid4().hex
            self._requests.append(
                RecordedRequest(
                    handler.command, target.path, target.query, headers, body, correlation_id
                )
            )
        try:
            if isinstance(scenario, CloseBeforeHeaders):
                _abort(handler, reset=scenario.reset)
            elif isinstance(scenario, Reply):
                self._send_reply(handler, scenario, correlation_id or "")
            elif isinstance(scenario, CutStream):
                head = [scenario.body[: scenario.at]] if scenario.at else []
                cut = Stream([*head, Drop(reset=scenario.reset)], done=False)
                self._send_stream(handler, cut, correlation_id or "")
            else:
                self._send_stream(handler, scenario, correlation_id or "")
        except OSError:
            handler.close_connection = True  # the client went away mid-response

    @staticmethod
    def _send_reply(handler: _Handler, reply: Reply, correlation_id: str) -> None:
        payload, content_type = reply.encoded()
        defaults = {"Content-Length": str(len(payload)), "mistral-correlation-id": correlation_id}
        if content_type is not None:
            defaults["Content-Type"] = content_type
        _send_head(handler, reply.status, defaults, reply.headers)
        handler.connection.sendall(payload)

    def _send_stream(self, handler: _Handler, stream: Stream, correlation_id: str) -> None:
        defaults = {
            "Content-Type": stream.content_type,
            "Cache-Control": "no-cache",
            "mistral-correlation-id": correlation_id,
        }
        if stream.chunked:
            defaults["Transfer-Encoding"] = "chunked"
        else:
            defaults["Connection"] = "close"  # the end of the body is the end of the connection
        _send_head(handler, stream.status, defaults, stream.headers)
        connection = handler.connection
        raw: bytes | None = None
        framed = b""
        for step in stream.writes():
            if isinstance(step, bytes):
                if stream.delay and not self._hold(connection, stream.delay):
                    _abort(handler, reset=False)
                    return
                if not stream.chunked:
                    connection.sendall(step)
                    continue
                if step is not raw:  # a repeated batch is the same object: frame it once
                    raw, framed = step, b"%x\r\n%b\r\n" % (len(step), step)
                connection.sendall(framed)
            elif isinstance(step, Pause):
                if not self._hold(connection, step.seconds):
                    _abort(handler, reset=False)
                    return
            else:
                _abort(handler, reset=step.reset)
                return
        if stream.chunked:
            connection.sendall(b"0\r\n\r\n")
        else:
            handler.close_connection = True

    def _hold(self, connection: socket.socket, seconds: float) -> bool:
        """Wait ``seconds``; ``False`` if the server stops or the client leaves first."""
        assert self._wake is not None  # noqa: S101  -- only called while serving
        wake = self._wake[0]
        deadline = time.monotonic() + seconds
        with selectors.DefaultSelector() as selector:
            selector.register(wake, selectors.EVENT_READ)
            selector.register(connection, selectors.EVENT_READ)
            while (remaining := deadline - time.monotonic()) > 0:
                for key, _ in selector.select(remaining):
                    if key.fileobj is wake:
                        return False
                    try:
                        if not connection.recv(1, socket.MSG_PEEK):
                            return False  # the client closed the connection
                    except OSError:
                        return False  # the client reset the connection
                    selector.unregister(connection)  # it sent data: stop watching it
        return True
