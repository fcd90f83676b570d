"""What ``stream()`` returns: the call's events, and the message they build.

A generator (``MessageStream``) or async generator (``AsyncMessageStream``) of pi
events, with one addition: :attr:`~MessageStream.message`, the live message. It is how
the message of a stream that was cancelled, interrupted or closed early is reached:
the adapter keeps it on its own objects and never writes it into the caller's
``CancelledError`` or ``KeyboardInterrupt`` (one such exception may end several
streams at once).

.. versionadded:: 0.3.0
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from types import TracebackType
from typing import Any

from adapter._mistral.client import StreamCall
from adapter.pi._events import AssistantMessageEvent
from adapter.pi._messages import AssistantMessage

__all__ = ["AsyncMessageStream", "MessageStream"]


def _message(call: StreamCall) -> AssistantMessage | None:
    state = call.state
    return None if state is None else state.message


def _exception(
    typ: type[BaseException] | BaseException, val: object, tb: TracebackType | None
) -> BaseException:
    """The exception ``throw``'s arguments describe (its one- or three-argument form)."""
    if isinstance(typ, BaseException):
        return typ.with_traceback(tb) if tb is not None else typ
    error = typ() if val is None else val if isinstance(val, typ) else typ(val)
    return error.with_traceback(tb) if tb is not None else error


class MessageStream(Generator[AssistantMessageEvent, None, None]):
    """The events of one call (a generator), and :attr:`message`.

    .. versionadded:: 0.3.0
    """

    __slots__ = ("_call", "_events")

    def __init__(
        self, events: Generator[AssistantMessageEvent, None, None], call: StreamCall
    ) -> None:
        self._events = events
        self._call = call

    @property
    def message(self) -> AssistantMessage | None:
        """The live message; ``None`` before the request was sent.

        As far as it got: ``aborted`` if the stream was cancelled, interrupted or closed
        early, the error's message if it failed, the ``done`` message at the end.
        """
        return _message(self._call)

    def send(self, value: None) -> AssistantMessageEvent:
        return self._events.send(value)

    def throw(
        self,
        typ: Any,
        val: Any = None,
        tb: TracebackType | None = None,
    ) -> AssistantMessageEvent:
        return self._events.throw(_exception(typ, val, tb))

    def close(self) -> None:
        self._events.close()


class AsyncMessageStream(AsyncGenerator[AssistantMessageEvent, None]):
    """The events of one call (an async generator), and :attr:`message`.

    .. versionadded:: 0.3.0
    """

    __slots__ = ("_call", "_events")

    def __init__(
        self, events: AsyncGenerator[AssistantMessageEvent, None], call: StreamCall
    ) -> None:
        self._events = events
        self._call = call

    @property
    def message(self) -> AssistantMessage | None:
        """The live message (see :attr:`MessageStream.message`)."""
        return _message(self._call)

    async def asend(self, value: None) -> AssistantMessageEvent:
        return await self._events.asend(value)

    async def athrow(
        self,
        typ: Any,
        val: Any = None,
        tb: TracebackType | None = None,
    ) -> AssistantMessageEvent:
        return await self._events.athrow(_exception(typ, val, tb))

    async def aclose(self) -> None:
        await self._events.aclose()
