"""``MistralAdapter``: the blocking I/O shell around :mod:`adapter._mistral.client`.

It sends the request with an ``httpx.Client``, feeds the bytes to the shared
:class:`~adapter._mistral.client.StreamCall` and closes the response in a ``finally``.
The async twin (:mod:`adapter._mistral.async_client`) has the same shape line for line;
everything that is not I/O lives in the shared core.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import contextlib
import socket
import threading
import zlib
from collections.abc import Callable, Generator, Iterator, Mapping
from types import TracebackType
from typing import NoReturn, Self

import httpx

from adapter._mistral.body import BoundedBody
from adapter._mistral.client import (
    ABORTS,
    DRAIN_LIMIT,
    DRAIN_WAIT,
    ModelRef,
    StreamCall,
)
from adapter._mistral.resume import ResumeRefusal, attach_refusal
from adapter._mistral.shell import Shell
from adapter._mistral.streams import MessageStream
from adapter._mistral.telemetry import trace_sync
from adapter.pi._context import Context, StreamOptions
from adapter.pi._events import AssistantMessageEvent
from adapter.pi._messages import AssistantMessage
from llm_errors import LlmError

__all__ = ["MistralAdapter"]

Events = Generator[AssistantMessageEvent, None, None]

#: ``async with MistralAdapter()``: the asyncio adapter's name before 0.3.0.
_ASYNC_HINT = (
    "adapter.MistralAdapter is the blocking adapter since 0.3.0; "
    "use adapter.AsyncMistralAdapter with 'async with'"
)


class MistralAdapter(Shell[httpx.Client]):
    """Stream Mistral chat completions as pi assistant events (blocking).

    Args:
        api_key: The API key; by default ``MISTRAL_API_KEY``. Never shown in reprs,
            logs or errors. :class:`~adapter._mistral.client.MissingApiKeyError` if neither
            is set. Spaces, tabs and line breaks around it are stripped (a key read
            from a file often ends with a newline); whitespace, control or non-ASCII
            characters inside it are a ``ValueError`` naming where it came from.
        base_url: The API's base URL (``https://api.mistral.ai``); ``…/v1`` works too.
        timeouts: Connect, read (between chunks), write, pool and total timeouts
            (:class:`~adapter._mistral.client.Timeouts`); they apply to every request, also
            on a client you pass in.
        client: An ``httpx.Client`` to send with (proxies, transports, pools). The
            adapter never closes a client it did not create; it closes its own in
            :meth:`close` (or at the end of a ``with`` block).
        headers: Extra headers for every request.
        retry: Retry failures that happen before the first event reaches you (a
            429, a 5xx, a connection that fails or closes before the response,
            a timeout before the stream starts), honouring ``Retry-After``. Once an
            event has been delivered nothing is retried: that would repeat output.
        limits: How large the pieces of a response may be (:class:`~adapter.Limits`).
        resume: Continue a stream cut after output was delivered (a ``TRANSPORT`` or
            ``TIMEOUT`` failure) with a second request that carries the partial
            message as a prefix, spliced into the same events; per call with
            ``StreamOptions.resume``. See ``docs/adapter.md``, "Resuming a cut stream".
        max_resumes: Continuations one call may make when ``resume`` is on (1 to
            :data:`~adapter.MAX_RESUMES`); each also takes a token from the retry
            policy's budget and fits in its deadline.

    Example::

        with MistralAdapter() as mistral:
            for event in mistral.stream("mistral-small-latest", Context(messages=[...])):
                ...

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.3.0 Named ``MistralAdapterSync`` before (still importable,
       deprecated); ``MistralAdapter`` was the asyncio adapter, now
       :class:`~adapter.AsyncMistralAdapter`.
    """

    __slots__ = ()
    _client_type = httpx.Client
    _other = "AsyncMistralAdapter"

    def _new_client(self, timeout: httpx.Timeout) -> httpx.Client:
        return httpx.Client(timeout=timeout)

    def stream(
        self, model: ModelRef, context: Context, options: StreamOptions | None = None
    ) -> MessageStream:
        """Stream one reply: ``start``, the block events, then ``done`` (or ``error``).

        The request is built before this returns, so a bad ``model``, ``context`` or
        ``options`` raises here. Every failure while streaming raises a typed
        ``llm_errors`` error whose :func:`~adapter.partial_of` is the message so far
        (``stopReason`` ``error``), unless ``options.never_raise`` is set: then the
        stream ends with the ``error`` event instead. Closing the generator early
        (``break`` out of a ``for`` over it, ``close()``) releases the connection and
        marks the message ``aborted``.

        .. versionadded:: 0.1.0
        """
        call = self._settings.prepare(model, context, options)
        events = trace_sync(self._events(call), call, model, options)
        return MessageStream(self._never_raise(call, events) if call.never_raise else events, call)

    def complete(
        self, model: ModelRef, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessage:
        """Consume :meth:`stream` and return the final message.

        That is the ``done`` message, or with ``never_raise`` the ``error`` message.

        .. versionadded:: 0.1.0
        """
        call = self._settings.prepare(model, context, options)
        events = trace_sync(self._events(call), call, model, options)
        for _ in self._never_raise(call, events) if call.never_raise else events:
            pass
        assert call.state is not None  # noqa: S101 - the stream ran
        return call.state.message

    def close(self) -> None:
        """Close the HTTP client if the adapter created it (a passed-in one stays open)."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> NoReturn:
        raise TypeError(_ASYNC_HINT)

    async def __aexit__(self, *exc_info: object) -> None:  # never reached
        raise TypeError(_ASYNC_HINT)

    # --- the I/O shell ----------------------------------------------------------------

    @staticmethod
    def _never_raise(call: StreamCall, events: Events) -> Events:
        try:
            yield from events
        except LlmError as error:
            yield call.error_event(error)

    def _resuming(self, call: StreamCall) -> Events:
        """The attempts, then a continuation for every cut that may be resumed."""
        attempts: Callable[[StreamCall], Events] = self._attempts
        while True:
            progressed = False
            with contextlib.closing(attempts(call)) as events:
                try:
                    for event in events:
                        progressed = True
                        yield event
                except LlmError as error:
                    if not progressed and not call.resumes:
                        raise  # failed before any output: the retry policy's case
                    refusal = call.refusal(error, progressed=progressed)
                    if refusal is None and not self._spend(call):
                        refusal = ResumeRefusal.BUDGET
                    if refusal is not None:
                        attach_refusal(error, refusal)
                        raise
                else:
                    return
            attempts = call.resume(self._attempt)

    @staticmethod
    def _spend(call: StreamCall) -> bool:
        retry = call.retry
        return retry is None or retry.try_spend(scope=retry.scope_of(call))

    def _attempt(self, call: StreamCall) -> Events:
        """One request: retried as a whole (by ``retry``) until it yields ``start``."""
        call.begin()
        response = None
        deadline = _Watchdog(call.remaining())
        try:
            request = self._client.build_request(
                "POST",
                call.url,
                content=call.body,
                headers=call.headers,
                timeout=call.timeout,
                extensions={"trace": deadline.trace},
            )
            response = self._client.send(request, stream=True)
            deadline.watch(response)
            call.received(response.headers)
            if call.rejects(response.status_code, response.headers):
                raise call.response_error(
                    response.status_code, response.headers, _read_body(response, call)
                )
            yield from call.opened(response.headers)
            reads = response.iter_raw()
            for chunk in reads:
                yield from call.feed(chunk)
                if call.ended:
                    break
            else:
                yield from call.end()
                return
            deadline.disarm()
            _drain(reads, response)
        except LlmError as error:
            call.fail(error)
            raise
        except httpx.HTTPError as exc:
            if deadline.fired:
                raise call.total_timeout() from exc
            raise call.translate(exc) from exc
        except (RecursionError, ValueError) as exc:
            raise call.unexpected(exc) from exc
        except ABORTS as reason:
            call.abort(reason)
            raise
        finally:
            deadline.disarm()
            if response is not None:
                response.close()


class _Watchdog:
    """A timer that shuts the call's socket down at a deadline, so a blocking read returns.

    ``httpx``'s read timeout restarts with every byte, so a server trickling its
    headers or body one byte at a time holds a blocking read for as long as it
    likes. The sync shell has no way to cancel a read but to shut the socket down:
    the timer does that at the deadline (``Timeouts.total``, or the wait after
    ``[DONE]``). The socket comes from httpcore's public extensions: the ``trace``
    callback's ``connect_tcp`` event for a new connection, the response's
    ``network_stream`` once the headers are in. A reused connection is known only
    from its headers on, so before them ``total`` is enforced only on new
    connections (``docs/adapter.md``, "Timeouts").
    """

    __slots__ = ("_lock", "_socket", "_timer", "fired")

    def __init__(self, seconds: float | None) -> None:
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._timer: threading.Timer | None = None
        self.fired = False
        if seconds is not None:
            self._start(seconds)

    def _start(self, seconds: float) -> None:
        timer = threading.Timer(seconds, self._fire)
        timer.daemon = True
        self._timer = timer
        timer.start()

    def trace(self, event: str, info: Mapping[str, object]) -> None:
        """Httpcore's trace callback: note the socket of a new connection."""
        if event.endswith("connect_tcp.complete"):
            stream = info.get("return_value")
            self._set(getattr(stream, "get_extra_info", lambda _: None)("socket"))

    def watch(self, response: httpx.Response) -> None:
        """Note the socket the response arrives on."""
        stream = response.extensions.get("network_stream")
        self._set(getattr(stream, "get_extra_info", lambda _: None)("socket"))

    def _set(self, sock: object) -> None:
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._socket = sock
            if self.fired:
                _shutdown(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            if self._socket is not None:
                _shutdown(self._socket)

    def disarm(self) -> None:
        """Stop the timer; a socket it already shut down stays shut."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _read_body(response: httpx.Response, call: StreamCall) -> bytes:
    """An error response's body, decoded and bounded; whatever arrived if reading fails."""
    body = BoundedBody(call.limits.error_body)
    decoder = call.error_decoder(response.headers)
    if decoder is not None:
        with contextlib.suppress(httpx.HTTPError, zlib.error):
            for raw in response.iter_raw():
                if body.add(decoder.pieces(raw)):
                    break
    return body.value()


def _drain(reads: Iterator[bytes], response: httpx.Response) -> None:
    """Read what follows ``[DONE]`` (the end of the framing) so the connection is reused.

    At most :data:`DRAIN_LIMIT` bytes for at most :data:`DRAIN_WAIT` seconds: the end
    of the framing comes with ``[DONE]`` or right after it; a server that sends
    neither it nor a close loses the connection instead of holding the call.
    """
    watchdog = _Watchdog(DRAIN_WAIT)
    watchdog.watch(response)
    budget = DRAIN_LIMIT
    try:
        with contextlib.suppress(httpx.HTTPError):
            for chunk in reads:
                budget -= len(chunk)
                if budget < 0:
                    return
    finally:
        watchdog.disarm()
