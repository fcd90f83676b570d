"""``AsyncMistralAdapter``: the asyncio I/O shell around :mod:`adapter._mistral.client`.

The same shape as :mod:`adapter._mistral.sync_client`, line for line, with ``await``; the
only addition is the total deadline, which cancels a read in progress with
``asyncio.timeout`` (scoped to one read: a timeout scope must never span a
``yield`` of an async generator).

Cancellation: a cancelled task marks the message ``aborted`` (the events you
already hold show it, and ``partial_of`` finds it on the ``CancelledError``) and
the ``CancelledError`` propagates unchanged, as asyncio requires. It is never
turned into an ``AbortedError`` or an ``error`` event, not even with
``never_raise``: swallowing a cancellation breaks ``asyncio.timeout``,
``TaskGroup`` and shutdown.

Closing: httpcore marks a response closed before its close has finished, so a
cancellation delivered inside that close leaves the connection open for good
(https://github.com/encode/httpcore/issues/1115). ``aiter_raw`` closes the response
by itself when the body ends, inside whatever read is cancelled at that moment (the
drain's short deadline, or a cancellation the caller left pending), so the body is
read from ``response.stream``, which does not close, and the one close runs in a task
of its own that no cancellation of the caller's reaches (:func:`_close`).

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from types import TracebackType
from typing import Final, Self

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
from adapter._mistral.streams import AsyncMessageStream
from adapter._mistral.telemetry import trace_async
from adapter.pi._context import Context, StreamOptions
from adapter.pi._events import AssistantMessageEvent
from adapter.pi._messages import AssistantMessage
from llm_errors import LlmError

__all__ = ["AsyncMistralAdapter"]

Events = AsyncGenerator[AssistantMessageEvent, None]

# The closes under way (see _close): the event loop holds tasks only weakly.
_CLOSING: Final[set[asyncio.Task[None]]] = set()


class AsyncMistralAdapter(Shell[httpx.AsyncClient]):
    """Stream Mistral chat completions as pi assistant events (asyncio).

    Arguments and behaviour as :class:`~adapter.MistralAdapter`, with an
    ``httpx.AsyncClient`` for ``client``, :meth:`aclose` and ``async with``.

    Example::

        async with AsyncMistralAdapter() as mistral:
            async with contextlib.aclosing(mistral.stream(model, context)) as events:
                async for event in events:
                    ...

    ``aclosing`` releases the connection at once when you leave the loop early;
    without it, asyncio closes the abandoned stream a moment later.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.3.0 Named ``MistralAdapter`` before, the name of the
       blocking adapter now (httpx and openai name their clients this way).
    """

    __slots__ = ()
    _client_type = httpx.AsyncClient
    _other = "MistralAdapter"

    def _new_client(self, timeout: httpx.Timeout) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=timeout)

    def stream(
        self, model: ModelRef, context: Context, options: StreamOptions | None = None
    ) -> AsyncMessageStream:
        """Stream one reply: ``start``, the block events, then ``done`` (or ``error``).

        See :meth:`MistralAdapter.stream <adapter.MistralAdapter.stream>`;
        not a coroutine: it returns the async generator, and a bad ``model``,
        ``context`` or ``options`` raises at once.

        .. versionadded:: 0.1.0
        """
        call = self._settings.prepare(model, context, options)
        events = trace_async(self._events(call), call, model, options)
        return AsyncMessageStream(
            self._never_raise(call, events) if call.never_raise else events, call
        )

    async def complete(
        self, model: ModelRef, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessage:
        """Consume :meth:`stream` and return the final message.

        That is the ``done`` message, or with ``never_raise`` the ``error`` message.

        .. versionadded:: 0.1.0
        """
        call = self._settings.prepare(model, context, options)
        events = trace_async(self._events(call), call, model, options)
        async with contextlib.aclosing(
            self._never_raise(call, events) if call.never_raise else events
        ) as stream:
            async for _ in stream:
                pass
        assert call.state is not None  # noqa: S101 - the stream ran
        return call.state.message

    async def aclose(self) -> None:
        """Close the HTTP client if the adapter created it (a passed-in one stays open)."""
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    # --- the I/O shell ----------------------------------------------------------------

    @staticmethod
    async def _never_raise(call: StreamCall, events: Events) -> Events:
        try:
            async for event in events:
                yield event
        except LlmError as error:
            yield call.error_event(error)
        finally:
            await events.aclose()

    async def _resuming(self, call: StreamCall) -> Events:
        """The attempts, then a continuation for every cut that may be resumed."""
        attempts: Callable[[StreamCall], Events] = self._attempts
        while True:
            progressed = False
            async with contextlib.aclosing(attempts(call)) as events:
                try:
                    async for event in events:
                        progressed = True
                        yield event
                except LlmError as error:
                    if not progressed and not call.resumes:
                        raise  # failed before any output: the retry policy's case
                    refusal = call.refusal(error, progressed=progressed)
                    if refusal is None and not await self._spend(call):
                        refusal = ResumeRefusal.BUDGET
                    if refusal is not None:
                        attach_refusal(error, refusal)
                        raise
                else:
                    return
            attempts = call.resume(self._attempt)

    @staticmethod
    async def _spend(call: StreamCall) -> bool:
        retry = call.retry
        return retry is None or await retry.atry_spend(scope=retry.scope_of(call))

    async def _attempt(self, call: StreamCall) -> Events:
        """One request: retried as a whole (by ``retry``) until it yields ``start``."""
        call.begin()
        request = response = None
        try:
            request = self._client.build_request(
                "POST", call.url, content=call.body, headers=call.headers, timeout=call.timeout
            )
            async with asyncio.timeout(call.remaining()):
                response = await self._client.send(request, stream=True)
            await call.areceived(response.headers)
            if call.rejects(response.status_code, response.headers):
                raise call.response_error(
                    response.status_code, response.headers, await _read_body(response, call)
                )
            for event in call.opened(response.headers):
                yield event
            async with contextlib.aclosing(_body_events(call, response)) as body:
                async for event in body:
                    yield event
        except LlmError as error:
            call.fail(error)
            raise
        except httpx.HTTPError as exc:
            _give_request(exc, request)
            raise call.translate(exc) from exc
        except TimeoutError as exc:  # asyncio.timeout: the total deadline
            raise call.total_timeout() from exc
        except (RecursionError, ValueError) as exc:
            raise call.unexpected(exc) from exc
        except ABORTS as reason:
            call.abort(reason)
            raise
        finally:
            if response is not None:
                await _close(response)


async def _close(response: httpx.Response) -> None:
    """Close ``response`` to the end, even if the caller is cancelled meanwhile.

    The close runs in a task of its own behind ``asyncio.shield``: a cancellation
    raises here at once, as asyncio requires, while the close goes on and ends (it does
    not wait on the network: an unfinished response's connection is dropped).
    """
    closing = asyncio.ensure_future(response.aclose())
    _CLOSING.add(closing)
    closing.add_done_callback(_closed)
    await asyncio.shield(closing)


def _closed(closing: asyncio.Task[None]) -> None:
    """Forget a finished close; its error, if any, reached :func:`_close` unless cancelled."""
    _CLOSING.discard(closing)
    if not closing.cancelled():
        closing.exception()  # retrieved: no "exception was never retrieved" at exit


def _raw(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body's raw bytes, without the close at its end that ``aiter_raw`` adds."""
    stream = response.stream
    if not isinstance(stream, httpx.AsyncByteStream):
        raise TypeError(f"not an async response stream: {type(stream).__name__}")
    return aiter(stream)


def _give_request(exc: httpx.HTTPError, request: httpx.Request | None) -> None:
    """Give a body read's error its request, as ``aiter_raw`` does and :func:`_raw` not."""
    if request is None or not isinstance(exc, httpx.RequestError):
        return
    try:
        exc.request  # noqa: B018 - httpx raises RuntimeError when it is not set
    except RuntimeError:
        exc.request = request


async def _body_events(call: StreamCall, response: httpx.Response) -> Events:
    """The events of a 200 event stream's body, up to ``[DONE]`` or the end of the body."""
    reads = _raw(response)
    while (chunk := await _read(reads, call.remaining())) is not None:
        for event in call.feed(chunk):
            yield event
        if call.ended:
            await _drain(reads, call.remaining())
            return
    for event in call.end():
        yield event


async def _read(reads: AsyncIterator[bytes], remaining: float | None) -> bytes | None:
    """The next read of the body (``None`` at its end), within the total deadline."""
    if remaining is None:
        return await anext(reads, None)
    async with asyncio.timeout(remaining):
        return await anext(reads, None)


async def _read_body(response: httpx.Response, call: StreamCall) -> bytes:
    """An error response's body, decoded and bounded; whatever arrived if reading fails."""
    body = BoundedBody(call.limits.error_body)
    decoder = call.error_decoder(response.headers)
    if decoder is not None:
        with contextlib.suppress(httpx.HTTPError, TimeoutError, zlib.error):
            async with asyncio.timeout(call.remaining()):
                async for raw in _raw(response):
                    if body.add(decoder.pieces(raw)):
                        break
    return body.value()


async def _drain(reads: AsyncIterator[bytes], remaining: float | None) -> None:
    """Read what follows ``[DONE]`` (the end of the framing) so the connection is reused.

    At most :data:`DRAIN_LIMIT` bytes for at most :data:`DRAIN_WAIT` seconds (see the
    sync twin).
    """
    budget = DRAIN_LIMIT
    wait = DRAIN_WAIT if remaining is None else min(remaining, DRAIN_WAIT)
    with contextlib.suppress(httpx.HTTPError, TimeoutError):
        async with asyncio.timeout(wait):
            async for chunk in reads:
                budget -= len(chunk)
                if budget < 0:
                    return
