"""The exception table: every row is recognised, by identity or by qualified name."""

import errno
import importlib
import inspect
import socket
import threading

import pytest

from llm_errors import Classifier, ErrorCode, Layer, classify
from llm_errors._rules.exceptions import (
    _STDLIB,
    ERRNO_RULES,
    EXCEPTION_RULES,
    lookup_errno,
    lookup_exception,
    qualified_names,
    stdlib_types,
)
from llm_errors._rules.status import status_rule

E = ErrorCode


def fake_exception(qualified: str, base: type[BaseException] = Exception) -> type[BaseException]:
    """A class that *looks like* ``qualified`` (module + name) without importing it."""
    module, _, name = qualified.rpartition(".")
    return type(name, (base,), {"__module__": module, "__qualname__": name})


RULES_ONLY = Classifier(words=False)
NAMED_ROWS = [row for row in EXCEPTION_RULES if row.name not in {r.name for r in _STDLIB}]


@pytest.mark.parametrize("row", [pytest.param(r, id=r.name) for r in _STDLIB])
def test_every_stdlib_row_by_identity(row):
    """Standard-library types are found by identity and classified by their row."""
    module, _, attribute = row.name.rpartition(".")
    cls = getattr(importlib.import_module(module), attribute)
    assert stdlib_types()[cls] is row
    exc = cls.__new__(cls)  # some need constructor arguments; identity is what counts
    assert lookup_exception(exc) is row
    result = classify(exc)
    assert (result.code, result.rule, result.layer) == (row.code, row.id, Layer.EXCEPTION)


def test_every_named_row_by_qualified_name(table):
    """A class carrying a row's qualified name is found without importing its library."""

    def check(row):
        exc = fake_exception(row.name)("boom")
        assert lookup_exception(exc) is row
        result = RULES_ONLY.classify(exc)  # the table's verdict (the words may read the name)
        if row.kind == "status":
            expected = (
                None if row.status is None else status_rule(row.status)
            )  # the status decides; without one there is no evidence
            assert result.rule == (expected or "fallback")
        else:
            assert (result.code, result.rule) == (row.code, row.id)

    table.check(((row.name, (row,)) for row in NAMED_ROWS), check)


@pytest.mark.parametrize(
    ("module", "name", "expected"),
    [
        pytest.param(
            "anthropic._exceptions",
            "RateLimitError",
            "anthropic.RateLimitError",
            id="private-module-dropped",
        ),
        pytest.param(
            "aiohttp.client_exceptions",
            "ServerDisconnectedError",
            "aiohttp.ServerDisconnectedError",
            id="package-plus-name",
        ),
        pytest.param(
            "mistralai.client.errors.sdkerror", "SDKError", "mistralai.SDKError", id="deep-module"
        ),
    ],
)
def test_name_variants(module, name, expected):
    """Private module segments are dropped and the package-level name is tried."""
    cls = type(name, (Exception,), {"__module__": module, "__qualname__": name})
    assert expected in qualified_names(cls)
    row = lookup_exception(cls())
    assert row is not None
    assert row.name == expected


def test_subclass_inherits_its_bases_row():
    """The lookup walks the MRO: an app's subclass of a known type keeps its meaning."""
    base = fake_exception("httpx.ReadTimeout")
    sub = type("MyReadTimeout", (base,), {"__module__": "myapp.errors"})
    assert classify(sub("slow")).code is E.TIMEOUT


def test_unknown_types_are_not_matched():
    """An unrelated exception has no row."""
    assert lookup_exception(fake_exception("myapp.SomethingBroke")()) is None


def test_class_without_a_module_name_is_read_by_its_message():
    """A class whose ``__module__`` is not a string has no names; its message still decides."""
    nameless = type("CallFailed", (Exception,), {"__module__": None})
    assert qualified_names(nameless) == ()
    assert lookup_exception(nameless("Connection reset by peer")) is None
    assert classify(nameless("Connection reset by peer")).code is E.TRANSPORT


@pytest.mark.parametrize(
    ("number", "row"), [pytest.param(n, r, id=r.name) for n, r in ERRNO_RULES.items()]
)
def test_every_errno_row(number, row):
    """A plain OSError carrying a network errno is classified by it."""
    exc = OSError(number, "socket failure")
    assert lookup_errno(exc) is row
    assert classify(exc).code is row.code


def test_other_oserror_is_not_a_network_failure():
    """A file error is not TRANSPORT."""
    assert classify(FileNotFoundError(errno.ENOENT, "no such file", "x.txt")).rule == "fallback"


# ------------------------------------------------------ installed libraries, real types
HTTPX_FAMILY_UNMAPPED = {
    # Programming errors and response-handling errors, not failures of a call.
    "CookieConflict",
    "HTTPError",
    "RequestError",
    "StreamError",
    "StreamClosed",
    "StreamConsumed",
    "RequestNotRead",
    "ResponseNotRead",
    "InvalidURL",
    "TooManyRedirects",
    "DecodingError",
    "SSEError",
    "ConnectionNotAvailable",
}


@pytest.mark.parametrize("package", ["httpx", "httpcore", "httpx2", "httpcore2"])
def test_every_exception_of_the_httpx_family_is_mapped_or_listed(package):
    """In the spirit of httpx's ``test_httpcore_all_exceptions_mapped``."""
    module = pytest.importorskip(package)
    exported = {
        name
        for name, value in vars(module).items()
        if inspect.isclass(value) and issubclass(value, Exception)
    }
    known = {
        row.name.split(".", 1)[1] for row in EXCEPTION_RULES if row.name.startswith(f"{package}.")
    }
    assert exported - known - HTTPX_FAMILY_UNMAPPED == set()


def test_real_mistral_sdk_error_is_read_by_its_status_and_body():
    """The SDKError of mistralai 3.7.0 carries status_code/body/headers: they decide."""
    httpx2 = pytest.importorskip("httpx2")
    sdkerror = pytest.importorskip("mistralai.client.errors.sdkerror")
    request = httpx2.Request("POST", "https://api.mistral.ai/v1/chat/completions")
    response = httpx2.Response(
        429,
        request=request,
        headers={"retry-after": "4"},
        json={
            "object": "error",
            "message": "Service tier capacity exceeded for this model.",
            "type": "service_tier_capacity_exceeded",
            "code": "3505",
        },
    )
    result = classify(sdkerror.SDKError("API error occurred", response))
    assert (result.code, result.status, result.retry_after, result.rule) == (
        E.RATE_LIMIT,
        429,
        4.0,
        "mistral.capacity",
    )


# ---------------------------------------------- real failures over sockets on 127.0.0.1
def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Server:
    """A one-shot TCP server on 127.0.0.1 running ``behaviour(conn)`` per connection."""

    def __init__(self, behaviour):
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen()
        self.port = self._sock.getsockname()[1]
        self._behaviour = behaviour
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        self._sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                self._behaviour(conn, self._stop)

    def close(self):
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()


@pytest.fixture
def server():
    servers = []

    def start(behaviour):
        srv = _Server(behaviour)
        servers.append(srv)
        return f"http://127.0.0.1:{srv.port}/v1/chat/completions"

    yield start
    for srv in servers:
        srv.close()


def _read_request(conn):
    """Read the whole request (headers and body), so closing never resets the socket.

    Closing with unread bytes in the receive buffer sends a RST, which the client
    would see as a reset instead of the clean hang-up a test means to show.
    """
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
         if line.lower().startswith(b"content-length:")),
        0,
    )  # fmt: skip
    while len(body) < length:
        body += conn.recv(65536)


def _hang_up(conn, stop):
    _read_request(conn)


def _stall(conn, stop):
    _read_request(conn)
    stop.wait(5)


def _drop_mid_body(conn, stop):
    _read_request(conn)
    conn.sendall(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        b'transfer-encoding: chunked\r\n\r\n10\r\ndata: {"id": 1}\n\r\n'
    )


def _status_429(conn, stop):
    _read_request(conn)
    body = b'{"error": {"type": "insufficient_quota", "message": "You exceeded your quota"}}'
    conn.sendall(
        b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
        b"retry-after: 2\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


@pytest.mark.integration
def test_refused_connection_is_transport():
    """httpx.ConnectError from a closed port on 127.0.0.1 is TRANSPORT."""
    httpx = pytest.importorskip("httpx")
    with pytest.raises(httpx.ConnectError) as info:
        httpx.post(f"http://127.0.0.1:{_closed_port()}/", timeout=2)
    assert (classify(info.value).code, classify(info.value).rule) == (
        E.TRANSPORT,
        "exception:httpx.ConnectError",
    )


@pytest.mark.integration
def test_server_hanging_up_is_transport(server):
    """A server that closes without answering gives RemoteProtocolError: TRANSPORT."""
    httpx = pytest.importorskip("httpx")
    url = server(_hang_up)
    with pytest.raises(httpx.RemoteProtocolError) as info:
        httpx.post(url, json={}, timeout=2)
    assert classify(info.value).code is E.TRANSPORT


@pytest.mark.integration
def test_read_timeout_is_timeout(server):
    """A server that never answers gives ReadTimeout: TIMEOUT."""
    httpx = pytest.importorskip("httpx")
    url = server(_stall)
    with pytest.raises(httpx.ReadTimeout) as info:
        httpx.post(url, json={}, timeout=httpx.Timeout(5.0, read=0.2))
    assert classify(info.value).code is E.TIMEOUT


@pytest.mark.integration
def test_stream_dropped_mid_body_is_transport(server):
    """A chunked stream cut mid-body fails while iterating: TRANSPORT."""
    httpx = pytest.importorskip("httpx")
    url = server(_drop_mid_body)
    with (
        pytest.raises(httpx.RemoteProtocolError) as info,
        httpx.stream("POST", url, json={}, timeout=2) as response,
    ):
        for _ in response.iter_lines():
            pass
    assert classify(info.value).code is E.TRANSPORT


@pytest.mark.integration
def test_raise_for_status_reads_the_body_and_headers(server):
    """``raise_for_status`` on a 429 with ``insufficient_quota`` is QUOTA_EXCEEDED."""
    httpx = pytest.importorskip("httpx")
    url = server(_status_429)
    response = httpx.post(url, json={}, timeout=2)
    with pytest.raises(httpx.HTTPStatusError) as info:
        response.raise_for_status()
    result = classify(info.value)
    assert (result.code, result.status, result.retry_after, result.layer) == (
        E.QUOTA_EXCEEDED,
        429,
        2.0,
        Layer.STATUS,
    )


# ------------------------------------------------------------ duck-typed SDK shapes
def test_grpc_error_is_read_through_code_and_details():
    """A grpc RpcError's ``code()``/``details()`` are evidence."""

    class StatusCode:
        name = "UNAVAILABLE"

    base = fake_exception("grpc.RpcError")

    class InactiveRpcError(base):
        def code(self):
            return StatusCode()

        def details(self):
            return "failed to connect to all addresses"

    InactiveRpcError.__module__ = "grpc._channel"
    # UNAVAILABLE with "failed to connect to all addresses" is a connection failure inside
    # gRPC's wrapper: TRANSPORT (docs/errors.md, policy wrapped-connection-failures), read
    # through code and details.
    assert classify(InactiveRpcError()).code is E.TRANSPORT


def test_botocore_client_error_response_dict():
    """A botocore ClientError.response carries Error.Code and the HTTP status."""
    client_error = fake_exception("botocore.exceptions.ClientError")
    throttling = type(
        "ThrottlingException", (client_error,), {"__module__": "botocore.errorfactory"}
    )
    exc = throttling("An error occurred (ThrottlingException) when calling the InvokeModel")
    exc.response = {
        "Error": {"Code": "ThrottlingException", "Message": "Too many requests"},
        "ResponseMetadata": {"HTTPStatusCode": 400},
    }
    result = classify(exc)
    assert (result.code, result.status, result.rule) == (E.RATE_LIMIT, 400, "bedrock.throttling")


def test_google_genai_api_error_fields():
    """google.genai APIError exposes code/status/message/details."""
    api_error = fake_exception("google.genai.errors.ClientError")
    exc = api_error("429 RESOURCE_EXHAUSTED.")
    exc.code = 429
    exc.status = "RESOURCE_EXHAUSTED"
    exc.details = {"error": {"code": 429, "message": "Quota exceeded for metric: x, limit: 0"}}
    assert classify(exc).code is E.QUOTA_EXCEEDED


def test_urllib3_max_retry_reason_is_followed():
    """MaxRetryError is generic; its ``reason`` (a timeout here) is more specific."""
    max_retry = fake_exception("urllib3.exceptions.MaxRetryError")
    read_timeout = fake_exception("urllib3.exceptions.ReadTimeoutError")
    exc = max_retry("Max retries exceeded")
    exc.reason = read_timeout("Read timed out.")
    assert classify(exc).code is E.TIMEOUT


def test_tenacity_retry_error_last_attempt_is_followed():
    """The RetryError of tenacity wraps the last attempt's exception."""

    class Attempt:
        def exception(self):
            return ConnectionResetError(104, "Connection reset by peer")

    retry_error = fake_exception("tenacity.RetryError")
    exc = retry_error("RetryError[<Future>]")
    exc.last_attempt = Attempt()
    assert classify(exc).code is E.TRANSPORT


def test_requests_connection_error_wrapping_in_args():
    """The requests library passes the urllib3 error as ``args[0]``: it is walked too."""
    new_connection = fake_exception("urllib3.exceptions.NewConnectionError")
    wrapper = fake_exception("myapp.CallFailed")
    assert classify(wrapper(new_connection("refused"))).code is E.TRANSPORT


def test_properties_that_raise_are_skipped():
    """A status property that raises is no evidence, not a crash."""

    class BrokenError(Exception):
        @property
        def status_code(self):
            raise RuntimeError("no response")

        @property
        def response(self):
            raise RuntimeError("not read")

    assert classify(BrokenError("Error code: 503")).code is E.SERVER
