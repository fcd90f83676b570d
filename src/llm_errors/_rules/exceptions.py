"""Exception types we recognise, as a table, without importing any of their libraries.

Standard-library types are keyed by class identity; third-party types by their
*qualified name*, looked up along the MRO, so ``openai.RateLimitError`` is found
without ``import openai`` and a subclass inherits its base's row. For each class
the lookup tries ``module.Qualname``, the same with private module segments
dropped (``anthropic._exceptions.X`` -> ``anthropic.X``) and ``package.Qualname``
(``aiohttp.client_exceptions.X`` -> ``aiohttp.X``).

A row is one of three kinds:

* ``specific``: the type alone decides (``httpx.ReadTimeout`` -> TIMEOUT);
* ``generic``: a wrapper that decides only when nothing more specific is in the
  chain (``openai.APIConnectionError`` around an ``httpx.ReadTimeout``);
* ``status``: an SDK's HTTP-status error (``openai.RateLimitError``); it decides
  nothing by itself, the classifier reads its status, body and headers, and the
  row's ``status`` is used only when the object carries none.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from llm_errors._taxonomy import ErrorCode

__all__ = [
    "ERRNO_RULES",
    "EXCEPTION_RULES",
    "ExceptionRule",
    "lookup_errno",
    "lookup_exception",
    "qualified_names",
    "stdlib_types",
]

Kind = Literal["specific", "generic", "status"]


@dataclass(frozen=True, slots=True)
class ExceptionRule:
    """One row of the exception table."""

    name: str
    code: ErrorCode | None
    why: str
    source: str
    kind: Kind = "specific"
    status: int | None = None

    @property
    def id(self) -> str:
        """The rule id reported in a :class:`~llm_errors.Classification`."""
        return f"exception:{self.name}"


_T, _TO, _AB = ErrorCode.TRANSPORT, ErrorCode.TIMEOUT, ErrorCode.ABORTED
_PY = "https://docs.python.org/3/library/exceptions.html"

#: Standard-library types, matched by identity (aliases such as ``socket.timeout`` and
#: ``asyncio.TimeoutError`` are the same class as ``TimeoutError`` on Python >= 3.11):
#: (module, attribute, row). The modules are not imported here: an exception of one of
#: these types can only exist once its module is, so identities are resolved from
#: ``sys.modules`` as modules appear (importing asyncio and ssl up front would double
#: the import time of ``llm_errors``).
_STDLIB: Final[tuple[ExceptionRule, ...]] = (
    ExceptionRule("builtins.TimeoutError", _TO, "A stdlib timeout.", _PY),
    ExceptionRule("builtins.ConnectionResetError", _T, "The peer reset the socket.", _PY),
    ExceptionRule("builtins.ConnectionRefusedError", _T, "Nobody listens there.", _PY),
    ExceptionRule("builtins.ConnectionAbortedError", _T, "The socket was aborted.", _PY),
    ExceptionRule("builtins.BrokenPipeError", _T, "Writing to a closed socket.", _PY),
    ExceptionRule("builtins.ConnectionError", _T, "Base of the connection errors.", _PY, "generic"),
    ExceptionRule(
        "socket.gaierror",
        _T,
        "DNS resolution failed.",
        "https://docs.python.org/3/library/socket.html#socket.gaierror",
    ),
    ExceptionRule(
        "socket.herror",
        _T,
        "Host address lookup failed.",
        "https://docs.python.org/3/library/socket.html#socket.herror",
    ),
    ExceptionRule(
        "ssl.SSLError",
        _T,
        "The TLS layer failed (handshake, certificate, EOF).",
        "https://docs.python.org/3/library/ssl.html#ssl.SSLError",
    ),
    ExceptionRule(
        "http.client.IncompleteRead",
        _T,
        "The body ended before Content-Length.",
        "https://docs.python.org/3/library/http.client.html#http.client.IncompleteRead",
    ),
    ExceptionRule(
        "asyncio.IncompleteReadError",
        _T,
        "The stream hit EOF before the expected bytes.",
        "https://docs.python.org/3/library/asyncio-exceptions.html",
    ),
    ExceptionRule(
        "asyncio.CancelledError",
        _AB,
        "The task was cancelled by its caller.",
        "https://docs.python.org/3/library/asyncio-exceptions.html",
    ),
    ExceptionRule(
        "concurrent.futures.CancelledError",
        _AB,
        "The future was cancelled.",
        "https://docs.python.org/3/library/concurrent.futures.html",
    ),
    ExceptionRule("builtins.KeyboardInterrupt", _AB, "The user interrupted.", _PY),
)

_HTTPX_DOCS = "https://www.python-httpx.org/exceptions/"
_HTTPCORE_DOCS = "encode/httpcore httpcore/_exceptions.py"


def _httpx_family() -> Iterable[ExceptionRule]:
    timeouts = ("ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout")
    transports = ("ConnectError", "ReadError", "WriteError", "CloseError", "RemoteProtocolError")
    for package in ("httpx", "httpcore", "httpx2", "httpcore2"):
        source = _HTTPCORE_DOCS if package.startswith("httpcore") else _HTTPX_DOCS
        for name in timeouts:
            yield ExceptionRule(f"{package}.{name}", _TO, f"{package}: {name}.", source)
        yield ExceptionRule(
            f"{package}.TimeoutException", _TO, "Base of the timeouts.", source, "generic"
        )
        for name in transports:
            yield ExceptionRule(f"{package}.{name}", _T, f"{package}: {name}.", source)
        yield ExceptionRule(f"{package}.ProxyError", _T, "The proxy failed.", source)
        for name in ("NetworkError", "TransportError", "ProtocolError"):
            yield ExceptionRule(f"{package}.{name}", _T, f"Base class {name}.", source, "generic")
        yield ExceptionRule(
            f"{package}.LocalProtocolError",
            ErrorCode.INVALID_REQUEST,
            "We sent something the protocol forbids: a caller bug, not the network.",
            source,
        )
        yield ExceptionRule(
            f"{package}.UnsupportedProtocol",
            ErrorCode.INVALID_REQUEST,
            "The URL scheme is not http(s): a configuration bug.",
            source,
        )
        if package.startswith("httpx"):
            yield ExceptionRule(
                f"{package}.HTTPStatusError",
                None,
                "raise_for_status(): the response's status decides.",
                source,
                "status",
            )


# The Stainless-generated SDKs (openai, anthropic, groq) share these names.
_SDK_STATUS: Final = (
    ("BadRequestError", 400),
    ("AuthenticationError", 401),
    ("PermissionDeniedError", 403),
    ("NotFoundError", 404),
    ("ConflictError", 409),
    ("RequestTooLargeError", 413),
    ("UnprocessableEntityError", 422),
    ("RateLimitError", 429),
    ("InternalServerError", 500),
    ("ServiceUnavailableError", 503),
    ("DeadlineExceededError", 504),
    ("OverloadedError", 529),
)


def _stainless_family() -> Iterable[ExceptionRule]:
    for package in ("openai", "anthropic", "groq"):
        source = f"{package} SDK src/{package}/_exceptions.py"
        yield ExceptionRule(
            f"{package}.APITimeoutError", _TO, "The SDK's request timeout fired.", source
        )
        yield ExceptionRule(
            f"{package}.APIConnectionError",
            _T,
            "The SDK could not reach the API (wraps the transport error).",
            source,
            "generic",
        )
        yield ExceptionRule(
            f"{package}.APIStatusError", None, "The status decides.", source, "status"
        )
        for name, status in _SDK_STATUS:
            yield ExceptionRule(
                f"{package}.{name}", None, f"The SDK's {status} error.", source, "status", status
            )
    yield ExceptionRule(
        "openai.ContentFilterFinishReasonError",
        ErrorCode.CONTENT_FILTER,
        "The content filter stopped the output.",
        "openai SDK src/openai/_exceptions.py",
    )


def _rows(
    package: str,
    source: str,
    code: ErrorCode | None,
    names: Iterable[str],
    *,
    kind: Kind = "specific",
    why: str = "",
) -> Iterable[ExceptionRule]:
    for name in names:
        yield ExceptionRule(f"{package}.{name}", code, why or f"{package}: {name}.", source, kind)


def _status_rows(
    package: str, source: str, pairs: Iterable[tuple[str, int]]
) -> Iterable[ExceptionRule]:
    for name, status in pairs:
        yield ExceptionRule(
            f"{package}.{name}", None, f"{package}: HTTP {status}.", source, "status", status
        )


_AIOHTTP = "https://docs.aiohttp.org/en/stable/client_reference.html#client-exceptions"
_REQUESTS = "https://requests.readthedocs.io/en/latest/api/#exceptions"
_URLLIB3 = "https://urllib3.readthedocs.io/en/stable/reference/urllib3.exceptions.html"
_BOTOCORE = "boto/botocore botocore/exceptions.py"
_API_CORE = "googleapis/python-api-core google/api_core/exceptions.py"
_LITELLM = "https://docs.litellm.ai/docs/exception_mapping"

_NAMED: Final[tuple[ExceptionRule, ...]] = (
    *_httpx_family(),
    *_stainless_family(),
    *_rows(
        "mistralai",
        "mistralai/client-python src/mistralai/client/errors/",
        None,
        ("SDKError", "HTTPValidationError", "MistralError"),
        kind="status",
        why="The Mistral SDK's status error: its status_code and body decide.",
    ),
    ExceptionRule(
        "mistralai.NoResponseError",
        _T,
        "The Mistral SDK got no response at all.",
        "mistralai/client-python src/mistralai/client/errors/no_response_error.py",
    ),
    *_rows(
        "aiohttp",
        _AIOHTTP,
        _TO,
        ("ServerTimeoutError", "ConnectionTimeoutError", "SocketTimeoutError"),
    ),
    *_rows(
        "aiohttp",
        _AIOHTTP,
        _T,
        (
            "ServerDisconnectedError",
            "ClientConnectorError",
            "ClientConnectorSSLError",
            "ClientConnectorCertificateError",
            "ClientConnectorDNSError",
            "ClientSSLError",
            "ClientOSError",
            "ClientPayloadError",
            "ServerConnectionError",
            "ClientConnectionResetError",
        ),
    ),
    *_rows("aiohttp", _AIOHTTP, _T, ("ClientConnectionError",), kind="generic"),
    *_rows("aiohttp", _AIOHTTP, None, ("ClientResponseError",), kind="status"),
    *_rows("requests", _REQUESTS, _TO, ("ConnectTimeout", "ReadTimeout", "Timeout")),
    *_rows("requests", _REQUESTS, _T, ("ConnectionError", "ChunkedEncodingError", "SSLError")),
    *_rows("requests", _REQUESTS, _T, ("ProxyError",)),
    *_rows("requests", _REQUESTS, None, ("HTTPError",), kind="status"),
    *_rows("urllib3", _URLLIB3, _TO, ("ReadTimeoutError", "ConnectTimeoutError", "TimeoutError")),
    *_rows(
        "urllib3",
        _URLLIB3,
        _T,
        ("ProtocolError", "NewConnectionError", "SSLError", "ProxyError", "NameResolutionError"),
    ),
    *_rows("urllib3", _URLLIB3, _T, ("MaxRetryError",), kind="generic"),
    *_rows("botocore", _BOTOCORE, _TO, ("ReadTimeoutError", "ConnectTimeoutError")),
    *_rows(
        "botocore",
        _BOTOCORE,
        _T,
        (
            "EndpointConnectionError",
            "ConnectionClosedError",
            "ProxyConnectionError",
            "SSLError",
        ),
    ),
    *_rows("botocore", _BOTOCORE, _T, ("HTTPClientError", "ConnectionError"), kind="generic"),
    *_rows(
        "botocore", _BOTOCORE, ErrorCode.AUTH, ("NoCredentialsError", "PartialCredentialsError")
    ),
    *_rows("botocore", _BOTOCORE, None, ("ClientError",), kind="status"),
    *_status_rows(
        "google.api_core.exceptions",
        _API_CORE,
        (
            ("BadRequest", 400),
            ("InvalidArgument", 400),
            ("FailedPrecondition", 400),
            ("OutOfRange", 400),
            ("Unauthorized", 401),
            ("Unauthenticated", 401),
            ("Forbidden", 403),
            ("PermissionDenied", 403),
            ("NotFound", 404),
            ("TooManyRequests", 429),
            ("ResourceExhausted", 429),
            ("InternalServerError", 500),
            ("Unknown", 500),
            ("BadGateway", 502),
            ("ServiceUnavailable", 503),
            ("GatewayTimeout", 504),
        ),
    ),
    ExceptionRule(
        "google.api_core.exceptions.DeadlineExceeded",
        _TO,
        "The gRPC deadline passed.",
        _API_CORE,
    ),
    ExceptionRule(
        "google.api_core.exceptions.Cancelled", _AB, "The gRPC call was cancelled.", _API_CORE
    ),
    ExceptionRule(
        "google.api_core.exceptions.RetryError",
        _TO,
        "api_core's retry deadline ran out; the wrapped error is more specific.",
        _API_CORE,
        "generic",
    ),
    *_rows(
        "google.api_core.exceptions",
        _API_CORE,
        None,
        ("GoogleAPICallError",),
        kind="status",
    ),
    *_rows(
        "google.genai.errors",
        "googleapis/python-genai google/genai/errors.py",
        None,
        ("APIError", "ClientError", "ServerError"),
        kind="status",
        why="Google GenAI SDK error: its code/status fields decide.",
    ),
    ExceptionRule(
        "grpc.RpcError",
        None,
        "A gRPC error: its code() (StatusCode.UNAVAILABLE, ...) decides.",
        "grpc/grpc src/python/grpcio/grpc/__init__.py",
        "status",
    ),
    *_rows("litellm", _LITELLM, _TO, ("Timeout",)),
    *_rows("litellm", _LITELLM, _T, ("APIConnectionError",), kind="generic"),
    *_rows("litellm", _LITELLM, ErrorCode.CONTEXT_OVERFLOW, ("ContextWindowExceededError",)),
    *_rows("litellm", _LITELLM, ErrorCode.CONTENT_FILTER, ("ContentPolicyViolationError",)),
    *_rows("litellm", _LITELLM, ErrorCode.QUOTA_EXCEEDED, ("BudgetExceededError",)),
    *_status_rows(
        "litellm",
        _LITELLM,
        (
            ("BadRequestError", 400),
            ("AuthenticationError", 401),
            ("PermissionDeniedError", 403),
            ("NotFoundError", 404),
            ("UnprocessableEntityError", 422),
            ("RateLimitError", 429),
            ("InternalServerError", 500),
            ("BadGatewayError", 502),
            ("ServiceUnavailableError", 503),
        ),
    ),
    *_rows(
        "websockets",
        "https://websockets.readthedocs.io/en/stable/reference/exceptions.html",
        _T,
        ("ConnectionClosedError",),
    ),
    *_rows(
        "anyio",
        "https://anyio.readthedocs.io/en/stable/api.html#exceptions",
        _T,
        ("BrokenResourceError", "EndOfStream", "ClosedResourceError"),
    ),
    *_rows("h11", "python-hyper/h11 h11/_util.py", _T, ("RemoteProtocolError",)),
    *_rows(
        "trio", "https://trio.readthedocs.io/en/stable/reference-core.html", _AB, ("Cancelled",)
    ),
)

#: Every row, for documentation and for the test that exercises each of them.
EXCEPTION_RULES: Final[tuple[ExceptionRule, ...]] = (
    *_STDLIB,
    *_NAMED,
)


def _location(row: ExceptionRule) -> tuple[str, str]:
    """The module and attribute a standard-library row's class lives at, from its name."""
    module, _, attribute = row.name.rpartition(".")
    return module, attribute


_STDLIB_MODULES: Final = tuple(dict.fromkeys(_location(row)[0] for row in _STDLIB))
_by_type: dict[type, ExceptionRule] = {}
_resolved: tuple[bool, ...] = ()


def stdlib_types() -> dict[type, ExceptionRule]:
    """The identity table for the standard-library modules imported so far."""
    global _by_type, _resolved  # a cache refreshed as modules are imported
    loaded = tuple(module in sys.modules for module in _STDLIB_MODULES)
    if loaded != _resolved:
        table: dict[type, ExceptionRule] = {}
        for row in _STDLIB:
            module, attribute = _location(row)
            cls = getattr(sys.modules.get(module), attribute, None)
            if isinstance(cls, type):
                table.setdefault(cls, row)
        _by_type, _resolved = table, loaded
    return _by_type


_BY_NAME: Final[Mapping[str, ExceptionRule]] = {row.name: row for row in _NAMED}

_ERRNO_DOCS = "https://docs.python.org/3/library/errno.html"
#: A bare ``OSError`` carrying one of these errnos (some libraries raise those).
ERRNO_RULES: Final[Mapping[int, ExceptionRule]] = {
    number: ExceptionRule(f"errno.{name}", code, f"OSError with errno {name}.", _ERRNO_DOCS)
    for name, code in (
        ("ECONNRESET", _T),
        ("ECONNREFUSED", _T),
        ("ECONNABORTED", _T),
        ("EPIPE", _T),
        ("EHOSTUNREACH", _T),
        ("ENETUNREACH", _T),
        ("ENETDOWN", _T),
        ("ENOTCONN", _T),
        ("ETIMEDOUT", _TO),
    )
    if (number := getattr(errno, name, None)) is not None
}


def qualified_names(cls: type) -> tuple[str, ...]:
    """The names a class is looked up by, most precise first."""
    module = getattr(cls, "__module__", None)
    qualname = getattr(cls, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return ()
    public = ".".join(part for part in module.split(".") if not part.startswith("_"))
    top = module.split(".", 1)[0]
    names = (f"{module}.{qualname}", f"{public}.{qualname}", f"{top}.{qualname}")
    return tuple(dict.fromkeys(names))


def lookup_exception(exc: BaseException) -> ExceptionRule | None:
    """The row for the most derived class of ``exc`` that the table knows."""
    by_type = stdlib_types()
    for cls in type(exc).__mro__:
        row = by_type.get(cls)
        if row is not None:
            return row
        for name in qualified_names(cls):
            row = _BY_NAME.get(name)
            if row is not None:
                return row
    return None


def lookup_errno(exc: BaseException) -> ExceptionRule | None:
    """The row for a plain ``OSError`` whose ``errno`` names a network failure."""
    if isinstance(exc, OSError) and isinstance(exc.errno, int):
        return ERRNO_RULES.get(exc.errno)
    return None
