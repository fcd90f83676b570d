"""The shared core of the Mistral clients: settings, one call's state, error translation.

:class:`~adapter.MistralAdapter` (``sync_client``) and
:class:`~adapter.AsyncMistralAdapter` (``async_client``) are thin I/O shells around this
module: they send the request, read bytes and close the response. Everything else
is here, once, and has no I/O of its own:

- :class:`Timeouts` and the adapter settings (:class:`Settings`): API key, URL,
  headers, the retry policy;
- :class:`StreamCall`, one call to ``stream``: the prepared request (built by the pure
  :func:`~adapter._mistral.request.to_wire`) and a state machine the shells drive per
  attempt (``begin`` -> ``rejects``/``response_error`` -> ``opened`` -> ``feed``
  per read -> ``end`` at the end of the body), which runs the SSE decoder and the
  pure stream mapper (:mod:`adapter._mistral.stream`);
- the translation of every failure into a typed ``llm_errors`` error that carries
  the partial message (:func:`~adapter._mistral.errors.partial_of`): HTTP statuses through
  :func:`~adapter._mistral.errors.error_from_response`, ``httpx`` exceptions through the
  ``llm_errors`` classifier (one routing table, in ``llm_errors``), the total
  timeout, and aborts.

Why the first event waits for the response: the ``start`` event is produced only
once the response is a ``200`` event stream, so a 429, a 5xx or a connection that
closes before the headers fails *before* anything reaches the caller, and a retry
policy (which retries a stream only until its first item) retries it.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import os
import re
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, TypeVar

import httpx

from adapter._mistral.body import ACCEPT_ENCODING, BodyDecoder, UnsupportedEncodingError
from adapter._mistral.catalog import get_model
from adapter._mistral.errors import (
    PROVIDER,
    error_from_payload,
    error_from_response,
    is_error_object,
    loads_or_none,
)
from adapter._mistral.request import chat_completions_url, request_headers, to_wire
from adapter._mistral.resume import (
    CUT_CODES,
    ResumeRefusal,
    Seam,
    Segment,
    continuation,
    delivered,
    structured,
)
from adapter._mistral.secrets import KEY_PADDING, Scrubber, check_header_value, clean_api_key
from adapter._mistral.stream import StreamState, fail, finish, map_data, reopen, start
from adapter._mistral.wire import ChatCompletionRequest
from adapter._sse import MAX_EVENT, MAX_LINE, SSEDecoder, SSELimitError
from adapter.pi._context import Context, StreamOptions
from adapter.pi._events import AssistantErrorEvent, AssistantMessageEvent
from adapter.pi._model import ModelInfo
from llm_errors import (
    AbortedError,
    LlmError,
    LlmTimeoutError,
    ProviderError,
    TransportError,
    classify,
    error_class_for,
    redact,
)
from llm_errors._version import distribution_version
from llm_retry import RetryPolicy

__all__ = [
    "ABORTS",
    "API_KEY_ENV",
    "DEFAULT_BASE_URL",
    "DRAIN_LIMIT",
    "DRAIN_WAIT",
    "MAX_RESUMES",
    "Limits",
    "MissingApiKeyError",
    "ModelRef",
    "Settings",
    "StreamCall",
    "Timeouts",
    "check_base_url",
    "now_ms",
]

#: The public API; a trailing ``/v1`` on any base URL is accepted too.
DEFAULT_BASE_URL: Final = "https://api.mistral.ai"
#: Where the API key is read from when none is passed.
API_KEY_ENV: Final = "MISTRAL_API_KEY"

#: The most that is read after ``[DONE]`` so the connection can be reused.
DRAIN_LIMIT: Final = 64 * 1024
#: The longest wait after ``[DONE]`` for the end of the framing, in seconds; a server
#: that neither sends it nor closes costs the connection, not the caller's time.
DRAIN_WAIT: Final = 0.1
#: The most continuations one call may make (``max_resumes``): each is a request.
MAX_RESUMES: Final = 10
#: Longest excerpt of an ``httpx`` exception message kept on a translated error.
_DETAIL_LIMIT: Final = 200

#: What ends a stream early without being a failure of the call: the caller closed
#: the stream (``GeneratorExit``), cancelled the task, or pressed Ctrl-C.
ABORTS: Final = (GeneratorExit, asyncio.CancelledError, KeyboardInterrupt)

ModelRef: TypeAlias = ModelInfo | str
T = TypeVar("T")


def _user_agent() -> str:
    return f"llm-resilience/{distribution_version()} (adapter; httpx {httpx.__version__})"


_USER_AGENT: Final = _user_agent()


def now_ms() -> int:
    """The wall clock in epoch milliseconds: pi's unit for timestamps and durations."""
    return time.time_ns() // 1_000_000


class MissingApiKeyError(ValueError):
    """No API key was passed and ``MISTRAL_API_KEY`` is not set.

    A configuration bug, raised when the adapter is constructed, outside the
    ``LlmError`` tree (nothing to retry).

    .. versionadded:: 0.1.0
    """


def _check_seconds(name: str, value: float | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"Timeouts.{name} must be a number of seconds or None, not {value!r}")
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"Timeouts.{name} must be a finite number > 0 or None, not {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeouts:
    """How long a request may take, in seconds; ``None`` means no limit.

    Attributes:
        connect: To open the connection (TCP and TLS).
        read: Between two reads of the response: the longest silence allowed
            before the headers and between chunks (``httpx``'s read timeout).
        write: To send one piece of the request.
        pool: To get a connection from the client's pool.
        total: For one request, from sending it to the last byte of the stream.
            It is checked before every read: the async adapter cancels a read at
            the deadline; the sync adapter also caps ``connect`` and ``read`` at
            ``total``, so a stalled read ends at most one read timeout late. Each
            retry attempt gets its own ``total``; the retry policy's ``deadline``
            bounds the attempts together.

    .. versionadded:: 0.1.0
    """

    connect: float | None = 10.0
    read: float | None = 120.0
    write: float | None = 30.0
    pool: float | None = 10.0
    total: float | None = None

    def __post_init__(self) -> None:
        for name in ("connect", "read", "write", "pool", "total"):
            _check_seconds(name, getattr(self, name))

    def for_httpx(self) -> httpx.Timeout:
        """The ``httpx`` timeouts of one request, ``connect`` and ``read`` capped at ``total``."""
        total = self.total

        def capped(value: float | None) -> float | None:
            if total is None:
                return value
            return total if value is None else min(value, total)

        return httpx.Timeout(
            connect=capped(self.connect), read=capped(self.read), write=self.write, pool=self.pool
        )


def _check_bytes(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Limits.{name} must be an int number of bytes, not {value!r}")
    if value < 1:
        raise ValueError(f"Limits.{name} must be at least 1, not {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """How large the pieces of a response may be, in bytes; past one, the call fails.

    Every limit is far above what Mistral sends; they exist so that a broken or
    hostile server cannot grow the client without end. Hitting one raises a
    ``ProviderError`` (``PROVIDER_ERROR``) that names the limit, with the partial
    message.

    Attributes:
        max_line: The longest SSE line (4 MiB): a server that never sends a newline.
        max_event: The largest SSE event, its ``data:`` lines together (8 MiB): a
            server that never sends the blank line that ends an event.
        max_read: The most decoded (inflated) bytes produced from one read of a
            compressed body before they are processed (1 MiB): a gzip bomb is read
            in pieces of this size, and hits ``max_line`` or ``max_event`` unless it
            is a valid stream.
        error_body: The most of an error response body that is read and decoded
            (64 KiB; it is bounded again on the error).

    .. versionadded:: 0.2.0
    """

    max_line: int = MAX_LINE
    max_event: int = MAX_EVENT
    max_read: int = 1024 * 1024
    error_body: int = 64 * 1024

    def __post_init__(self) -> None:
        for name in ("max_line", "max_event", "max_read", "error_body"):
            _check_bytes(name, getattr(self, name))


def _check_header(name: object, value: object) -> None:
    if not isinstance(name, str) or not isinstance(value, str):
        raise TypeError(f"headers: names and values must be str (header {str(name)[:60]!r})")
    check_header_value(name, value)
    if name.lower() == "authorization":
        raise ValueError("headers: pass the key as api_key, not as an Authorization header")


_PORTS: Final = range(1, 65536)


def check_base_url(base_url: object) -> str:
    """``base_url`` without surrounding blanks, once it is a URL a request can go to.

    Checked when the adapter is built, so that a typo fails there and not as an
    ``httpx.InvalidURL`` (or a retried connection error) at every call.

    Raises:
        TypeError: ``base_url`` is not a ``str``.
        ValueError: it does not parse, is not ``http://`` or ``https://``, has no
            host, or has a port outside 1 to 65535.

    .. versionadded:: 0.2.0
    """
    if not isinstance(base_url, str):
        raise TypeError(f"base_url must be a str, not {type(base_url).__name__}")
    url = base_url.strip()
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ValueError(f"base_url {shown_url(url)[:100]!r} is not a valid URL ({exc})") from None
    if parsed.scheme not in {"http", "https"} or not parsed.host:
        raise ValueError(
            f"base_url must be an http:// or https:// URL with a host, not {shown_url(url)!r}"
        )
    if parsed.port is not None and parsed.port not in _PORTS:
        raise ValueError(f"base_url has port {parsed.port}: a port is 1 to 65535")
    return url


_USERINFO = re.compile(r"(?<=//)[^/?#@]*@")


def shown_url(url: str) -> str:
    """``url`` as errors and reprs show it: credentials and query values become ``***``.

    A proxy or gateway URL may carry ``user:password@`` or a key as a query parameter
    (``?key=…``); like the adapter's key, neither is ever shown. Prefixed tokens
    elsewhere (a ``sk-…`` path segment) are redacted as ``llm_errors.redact`` does.
    """
    head, mark, query = redact(url).partition("?")
    if not mark:
        head, mark, query = head.partition("#")
    items = [item.partition("=") for item in query.split("&")] if query else []
    shown = "&".join(name + "=***" if equals else "***" for name, equals, _ in items)
    return _USERINFO.sub("***@", head) + mark + shown


class _Secret:
    """A string that never shows itself in a repr (e.g. in ``vars(adapter)``)."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<redacted>"


class Settings:
    """What every call of one adapter shares; built once, at construction."""

    __slots__ = (
        "authorization",
        "base_url",
        "headers",
        "limits",
        "max_resumes",
        "resume",
        "retry",
        "scrub",
        "timeout",
        "timeouts",
        "url",
    )

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str,
        timeouts: Timeouts | None,
        headers: Mapping[str, str] | None,
        retry: RetryPolicy | None,
        limits: Limits | None = None,
        resume: bool = False,
        max_resumes: int = 1,
    ) -> None:
        if api_key is not None and not isinstance(api_key, str):
            raise TypeError(f"api_key must be a str, not {type(api_key).__name__}")
        source = "api_key" if api_key is not None else API_KEY_ENV
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        if not key or not key.strip(KEY_PADDING):
            raise MissingApiKeyError(
                f"no Mistral API key: pass api_key=... or set {API_KEY_ENV} "
                "(any non-empty key works with adapter.testing.FakeMistral)"
            )
        key = clean_api_key(key, source=source)
        self.base_url = check_base_url(base_url)
        if timeouts is not None and not isinstance(timeouts, Timeouts):
            raise TypeError(f"timeouts must be a Timeouts, not {type(timeouts).__name__}")
        if retry is not None and not isinstance(retry, RetryPolicy):
            raise TypeError(f"retry must be a RetryPolicy or None, not {type(retry).__name__}")
        if limits is not None and not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, not {type(limits).__name__}")
        self.authorization = _Secret(f"Bearer {key}")
        self.scrub = Scrubber(key)
        self.limits = limits or Limits()
        self.url = chat_completions_url(self.base_url)
        self.timeouts = timeouts or Timeouts()
        self.timeout = self.timeouts.for_httpx()
        self.retry = retry
        if not isinstance(resume, bool):
            raise TypeError(f"resume must be a bool, not {type(resume).__name__}")
        if isinstance(max_resumes, bool) or not isinstance(max_resumes, int):
            raise TypeError(f"max_resumes must be an int, not {type(max_resumes).__name__}")
        if not 1 <= max_resumes <= MAX_RESUMES:
            raise ValueError(f"max_resumes must be 1 to {MAX_RESUMES}, not {max_resumes}")
        self.resume = resume
        self.max_resumes = max_resumes
        self.headers: dict[str, str] = {
            "Accept": "text/event-stream",
            "Accept-Encoding": ACCEPT_ENCODING,
            "Content-Type": "application/json",
            "User-Agent": _USER_AGENT,
        }
        for name, value in (headers or {}).items():
            _check_header(name, value)
            self.headers[name] = value

    def describe(self, cls: type) -> str:
        """The adapter's repr: the URL, the timeouts and the policy; never the key."""
        retry = "None"
        if self.retry is not None:
            retry = (
                f"RetryPolicy(max_attempts={self.retry.max_attempts}, "
                f"deadline={self.retry.deadline:g})"
            )
        return (
            f"{cls.__name__}(base_url={self.scrub(shown_url(self.base_url))!r}, "
            "api_key=<redacted>, "
            f"timeouts={self.timeouts!r}, retry={retry})"
        )

    def prepare(
        self, model: ModelRef, context: Context, options: StreamOptions | None
    ) -> StreamCall:
        """Build one call's request: the pure mapping runs here, so bugs raise at once.

        Raises:
            adapter.UnknownModelError: ``model`` is an id the catalog does not know.
            TypeError, ValueError: ``context`` or ``options`` cannot be sent (see
                :func:`~adapter._mistral.request.to_wire`).
        """
        if isinstance(model, str):
            info = get_model(model)
        elif isinstance(model, ModelInfo):
            info = model
        else:
            raise TypeError(
                f"model must be a ModelInfo or a catalog id, not {type(model).__name__}"
            )
        if not isinstance(context, Context):
            raise TypeError(f"context must be an adapter.Context, not {type(context).__name__}")
        options = options or StreamOptions()
        request = to_wire(model=info, context=context, options=options)
        headers = dict(self.headers)
        for name, value in request_headers(model=info, options=options).items():
            check_header_value(name, value)  # a session_id or model header with CR/LF
            headers[name] = value
        headers["Authorization"] = self.authorization.value
        return StreamCall(
            model=info,
            url=self.url,
            request=request,
            headers=headers,
            timeouts=self.timeouts,
            timeout=self.timeout,
            never_raise=options.never_raise,
            limits=self.limits,
            scrub=self.scrub,
            retry=self.retry,
            max_resumes=self.max_resumes
            if (self.resume if options.resume is None else options.resume)
            else 0,
        )


def _is_event_stream(content_type: str | None) -> bool:
    return content_type is not None and content_type.split(";", 1)[0].strip().lower() == (
        "text/event-stream"
    )


def _detail(exc: BaseException) -> str:
    """``Type: message`` of a foreign exception, redacted and bounded."""
    text = " ".join(redact(str(exc)).split())
    if len(text) > _DETAIL_LIMIT:
        text = f"{text[:_DETAIL_LIMIT]}…"
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


class StreamCall:
    """One call to ``stream``: the prepared request and the state of its latest attempt.

    The shells create it (through :meth:`Settings.prepare`) and drive it; each
    attempt starts with :meth:`begin`. Every error it returns or raises has been
    through :func:`~adapter._mistral.stream.fail`, so it carries the partial message.
    """

    __slots__ = (
        "_body",
        "_born",
        "_deadline",
        "_decoder",
        "_opened",
        "_scrub",
        "_seam",
        "_segments",
        "_start_events",
        "body",
        "headers",
        "limits",
        "max_resumes",
        "model",
        "never_raise",
        "request",
        "resumes",
        "retry",
        "state",
        "timeout",
        "timeouts",
        "url",
    )

    def __init__(
        self,
        *,
        model: ModelInfo,
        url: str,
        request: ChatCompletionRequest,
        headers: dict[str, str],
        timeouts: Timeouts,
        timeout: httpx.Timeout,
        never_raise: bool,
        limits: Limits,
        scrub: Scrubber,
        retry: RetryPolicy | None = None,
        max_resumes: int = 0,
    ) -> None:
        self.model = model
        self.retry = retry
        self.request = request
        self.max_resumes = max_resumes
        self.resumes = 0
        self._seam: Seam | None = None
        self._segments: list[Segment] = []
        self._born = None if retry is None else retry.clock()
        self.limits = limits
        self._scrub = scrub
        self._body: BodyDecoder | None = None
        self.url = url
        self.body = request.to_json()
        self.headers = headers
        self.timeouts = timeouts
        self.timeout = timeout
        self.never_raise = never_raise
        self.state: StreamState | None = None
        self._decoder = self._new_decoder()
        self._deadline: float | None = None
        self._opened = False
        self._start_events: list[AssistantMessageEvent] = []

    @property
    def llm_retry_scope(self) -> str:
        """What shares a retry cooldown and budget with this call (``llm_retry`` reads it)."""
        return f"mistral:{self.model.id}"

    @property
    def llm_retry_tokens(self) -> int:
        """A cheap estimate of the tokens this call counts against the model's token windows.

        A quarter of the request body's bytes (the prompt, the tools, the settings) plus
        its ``max_tokens``: ``llm_retry`` paces attempts by it when the policy has no
        ``estimate_tokens`` of its own.
        """
        return math.ceil(len(self.body) / 4) + (self.request.max_tokens or 0)

    @property
    def ended(self) -> bool:
        """Whether the attempt's stream has ended (``done`` or ``error`` produced)."""
        state = self.state
        return state is not None and state.ended

    # --- one attempt, in order ------------------------------------------------------

    def begin(self) -> StreamState:
        """Start an attempt: a fresh message (timestamped now), decoder and deadline.

        A continuation's attempt (after :meth:`resume`) keeps the message instead,
        reopened, and matches the reply against what was delivered from scratch.
        """
        state = self.state
        if self.resumes and state is not None:
            if state.ended:
                reopen(state)
            self._seam = Seam(self._segments)
        else:
            state, self._start_events = start(model=self.model, now=now_ms())
            self.state = state
        self._decoder = self._new_decoder()
        self._body = None
        total = self.timeouts.total
        self._deadline = None if total is None else time.monotonic() + total
        self._opened = False
        return state

    def _new_decoder(self) -> SSEDecoder:
        return SSEDecoder(max_line=self.limits.max_line, max_event=self.limits.max_event)

    def remaining(self) -> float | None:
        """Seconds left before the total deadline (``None``: no deadline)."""
        deadline = self._deadline
        return None if deadline is None else max(deadline - time.monotonic(), 0.0)

    def received(self, headers: httpx.Headers) -> None:
        """A response arrived: its rate-limit headers pace this scope's next attempts.

        Every response, success or error, with a retry policy that shares state through
        a ``coordination`` backend (``RetryPolicy.record_rate_limits``, under the scope
        this call's attempts run under); without one nothing would keep them, so the
        headers are not read at all.
        """
        retry = self.retry
        if retry is not None and retry.coordination is not None:
            retry.record_rate_limits(headers, scope=retry.scope_of(self))

    async def areceived(self, headers: httpx.Headers) -> None:
        """:meth:`received` for the async shell (a Redis backend's write is awaited)."""
        retry = self.retry
        if retry is not None and retry.coordination is not None:
            await retry.arecord_rate_limits(headers, scope=retry.scope_of(self))

    @staticmethod
    def rejects(status: int, headers: httpx.Headers) -> bool:
        """Whether the response is not a ``200`` event stream (read its body, then fail)."""
        return status != httpx.codes.OK or not _is_event_stream(headers.get("content-type"))

    def error_decoder(self, headers: httpx.Headers) -> BodyDecoder | None:
        """The decoder of an error body; ``None`` if its encoding cannot be decoded."""
        try:
            return BodyDecoder(headers.get("content-encoding"), max_read=self.limits.max_read)
        except UnsupportedEncodingError:
            return None

    def response_error(self, status: int, headers: httpx.Headers, body: bytes) -> LlmError:
        """The error for a rejected response, ``body`` decoded, ``Limits.error_body`` at most."""
        body = body[: self.limits.error_body]
        if status != httpx.codes.OK:
            error = error_from_response(
                status=status, headers=headers, body=body, model=self.model.id
            )
        else:
            error = self._not_a_stream(headers.get("content-type"), body)
        return self._failed(error)

    def opened(self, headers: httpx.Headers) -> list[AssistantMessageEvent]:
        """The response is a 200 event stream: the ``start`` event may go out now.

        Raises:
            ProviderError: the body is in a ``Content-Encoding`` the adapter did not
                ask for.
        """
        try:
            self._body = BodyDecoder(headers.get("content-encoding"), max_read=self.limits.max_read)
        except UnsupportedEncodingError as exc:
            raise self._failed(self._protocol(str(exc), "adapter.content_encoding")) from None
        self._opened = True
        events, self._start_events = self._start_events, []
        return events

    def feed(self, chunk: bytes) -> Iterator[AssistantMessageEvent]:
        """Map one raw read of the body; stops at the end of the stream (``state.ended``).

        A generator rather than a list: each event reaches the caller as soon as it is
        built and can be freed before the next one, which keeps a read of hundreds of
        events out of the garbage collector's older generations (measurably faster,
        ``bench/stream.py``).

        Raises:
            LlmTimeoutError: the total deadline has passed.
            ProviderError: a line, an event or a decoded read is over its limit
                (:class:`Limits`, named), or the compressed body is corrupt.
            LlmError: the mapper's errors (in-band errors, malformed chunks…).
        """
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise self.total_timeout()
        state = self.state
        body = self._body
        assert state is not None  # noqa: S101 - begin() runs first
        assert body is not None  # noqa: S101 - opened() runs first
        now = now_ms()  # one reading per read: its events arrived together
        feed_data = self._decoder.feed_data
        seam = self._seam
        try:
            for piece in (chunk,) if body.identity else body.pieces(chunk):
                for data in feed_data(piece):
                    if seam is not None and not seam.settled:
                        yield from self._through_seam(seam.feed(data), now)
                    else:
                        yield from map_data(state, data, now=now)
                    if state.ended:
                        return
        except SSELimitError as exc:
            raise self._failed(self._over_limit(exc.limit, exc.value)) from None
        except zlib.error:
            message = "Mistral's compressed body is not valid gzip or deflate data"
            raise self._failed(self._protocol(message, "adapter.content_encoding")) from None

    def end(self) -> list[AssistantMessageEvent]:
        """The body ended without ``[DONE]``: finish, or fail if the stream was cut.

        Raises:
            TransportError: the body ended in the middle of an event, or with neither
                ``[DONE]`` nor a ``finish_reason``.
        """
        state = self.state
        assert state is not None  # noqa: S101 - begin() runs first
        seam = self._seam
        if seam is not None and not seam.settled:
            events = list(self._through_seam(seam.finish(), now_ms()))
            if state.ended:
                return events
        else:
            events = []
        if self._decoder.finish():
            raise self._failed(
                TransportError(
                    f"Mistral's stream ended in the middle of an event after {state.chunks} "
                    "chunks (no [DONE])",
                    provider=PROVIDER,
                    model=self.model.id,
                    rule="adapter.truncated",
                )
            )
        return [*events, *finish(state, saw_done=False, now=now_ms())]

    def _through_seam(self, payloads: list[bytes], now: float) -> Iterator[AssistantMessageEvent]:
        """Map the payloads the seam let through, up to the end of the stream."""
        state = self.state
        assert state is not None  # noqa: S101 - begin() runs first
        for data in payloads:
            yield from map_data(state, data, now=now)
            if state.ended:
                return

    # --- resuming a cut stream ------------------------------------------------------

    def refusal(self, error: LlmError, *, progressed: bool) -> ResumeRefusal | None:
        """Why ``error`` cannot end in a continuation; ``None`` if one may be sent.

        ``progressed``: the attempt that failed delivered an event (a first attempt that
        delivered none never gets here: the retry policy owns that case).
        """
        if self.resumes and not progressed:
            return ResumeRefusal.REFUSED
        if error.code not in CUT_CODES:
            return ResumeRefusal.NOT_A_CUT
        state = self.state
        if state is not None and state.finish_reason is not None:
            return ResumeRefusal.FINISHED
        segments = None if state is None else delivered(state.message)
        if segments is None:
            return ResumeRefusal.TOOL_CALL
        if structured(self.request):
            return ResumeRefusal.STRUCTURED_OUTPUT
        if self.resumes >= self.max_resumes:
            return ResumeRefusal.LIMIT
        if self.deadline_left() == 0.0:
            return ResumeRefusal.DEADLINE
        return None

    def deadline_left(self) -> float | None:
        """Seconds left of the retry policy's deadline for the whole call (``None``: none)."""
        retry, born = self.retry, self._born
        if retry is None or born is None:
            return None
        return max(retry.deadline - (retry.clock() - born), 0.0)

    def resume(self, attempt: Callable[[StreamCall], T]) -> Callable[[StreamCall], T]:
        """Turn this call into its continuation; ``attempt`` wrapped for its attempts.

        The next :meth:`begin` reopens the message; the body becomes the continuation
        of the request from what was delivered (:func:`~adapter._mistral.resume.continuation`),
        retried by the policy under what is left of its deadline.
        """
        state = self.state
        assert state is not None  # noqa: S101 - a refusal() check came first
        self._segments = delivered(state.message) or []
        self.body = continuation(self.request, self._segments)
        self.resumes += 1
        payload = dict(state.message.providerPayload or {})
        payload["resumes"] = self.resumes
        state.message.providerPayload = payload
        retry, left = self.retry, self.deadline_left()
        if retry is None or left is None:
            return attempt
        return dataclasses.replace(retry, deadline=left).wrap(attempt)

    # --- failures -------------------------------------------------------------------

    def _failed(self, error: LlmError) -> LlmError:
        """Scrub ``error`` and record it on the message (``stopReason``, ``errorMessage``...)."""
        state = self.state
        assert state is not None  # noqa: S101 - begin() runs first
        self._scrub.error(error)
        fail(state, error, now=now_ms())
        state.message.errorMessage = error.message  # the mapper may have recorded it first
        return error

    def _protocol(self, message: str, rule: str) -> ProviderError:
        return ProviderError(
            f"{message} {self._where()}", provider=PROVIDER, model=self.model.id, rule=rule
        )

    def _over_limit(self, limit: str, value: int) -> ProviderError:
        what = {
            "max_line": "a line of Mistral's event stream",
            "max_event": "an event of Mistral's stream",
        }[limit]
        return self._protocol(
            f"{what} is longer than Limits.{limit}={value:,} bytes", f"adapter.limit.{limit}"
        )

    def unexpected(self, exc: RecursionError | ValueError) -> LlmError:
        """A payload the adapter could not process (e.g. nested too deeply): typed.

        Every parser the adapter uses on server data reports failures as its own
        errors; this catches what slips through, so a caller always gets an
        ``LlmError`` with the partial message (``never_raise``: an ``error`` event).
        """
        self._scrub.chain(exc)
        message = f"Mistral sent a payload the adapter could not process ({type(exc).__name__})"
        return self._failed(self._protocol(message, "adapter.unprocessable"))

    def fail(self, error: LlmError) -> None:
        """Record an error raised while streaming (the mapper's are recorded already)."""
        self._failed(error)

    def _where(self) -> str:
        state = self.state
        if not self._opened or state is None:
            return "before a response"
        return f"after {state.chunks} chunks" if state.chunks else "before the first chunk"

    def translate(self, exc: httpx.HTTPError) -> LlmError:
        """The typed error for an ``httpx`` exception (raise it ``from exc``).

        The code comes from the ``llm_errors`` classifier's exception table
        (``httpx.ReadTimeout`` -> ``TIMEOUT``, ``httpx.RemoteProtocolError`` ->
        ``TRANSPORT``…), so routing lives in one place; the message says when it
        happened and names the exception, never the request.
        """
        verdict = classify(exc)
        what = "request failed" if not self._opened else "stream failed"
        self._scrub.chain(exc)
        detail = _detail(exc)
        message = f"Mistral {what} {self._where()}: {detail}"
        if isinstance(exc, httpx.ReadTimeout) and self.timeout.read is not None:
            message += f" (no data for {self.timeout.read:g} s)"
        elif isinstance(exc, httpx.ConnectTimeout) and self.timeout.connect is not None:
            message += f" (connect timeout {self.timeout.connect:g} s)"
        # A status error raised by the caller's own client (a response hook's
        # ``raise_for_status``) keeps the status and the wait the classifier read.
        error = error_class_for(verdict.code)(
            message,
            provider=PROVIDER,
            model=self.model.id,
            rule=verdict.rule,
            status=verdict.status,
            retry_after=verdict.retry_after,
        )
        return self._failed(error)

    def total_timeout(self) -> LlmError:
        """The error for a passed total deadline."""
        return self._failed(
            LlmTimeoutError(
                f"Mistral request exceeded its total timeout of {self.timeouts.total:g} s "
                f"{self._where()}",
                provider=PROVIDER,
                model=self.model.id,
                rule="adapter.total_timeout",
            )
        )

    def abort(self, reason: BaseException) -> None:
        """The stream was closed, cancelled or interrupted: mark the message ``aborted``.

        The error is not raised (``reason`` goes on propagating, as asyncio requires
        for cancellation) and nothing is written into ``reason``: the message stays on
        this call, where the stream object (``MessageStream.message``) and the events
        the caller holds show it. A stream that had already ended (``done``, or an
        error whose response was being closed) is left as it ended.
        """
        state = self.state
        if state is None:
            return
        if state.ended:  # done, or failed and closing: left as it ended
            return
        how = {
            GeneratorExit: "the caller closed the stream",
            KeyboardInterrupt: "interrupted (KeyboardInterrupt)",
        }.get(type(reason), "the call was cancelled")
        self._failed(
            AbortedError(
                f"Mistral stream aborted {self._where()}: {how}",
                provider=PROVIDER,
                model=self.model.id,
                rule="adapter.aborted",
            )
        )

    def error_event(self, error: LlmError) -> AssistantErrorEvent:
        """The final ``error`` event for ``error`` (``never_raise``)."""
        state = self.state
        assert state is not None  # noqa: S101 - an error implies an attempt
        return fail(state, error, now=now_ms())

    def _not_a_stream(self, content_type: str | None, body: bytes) -> LlmError:
        """A 200 that is not an event stream: an error object, or a protocol error."""
        payload: Any = loads_or_none(body) if body.lstrip().startswith(b"{") else None
        if is_error_object(payload):
            return error_from_payload(payload, model=self.model.id)
        shown = repr(redact(content_type)[:60]) if content_type else "none"
        return ProviderError(
            f"Mistral answered HTTP 200 with Content-Type {shown} instead of an event "
            "stream (text/event-stream)",
            status=httpx.codes.OK,
            provider=PROVIDER,
            model=self.model.id,
            rule="adapter.not_event_stream",
        )
