"""Retry a stream only until its first item reaches the caller.

Restarting a stream after the caller has seen part of it would duplicate output
(the same text twice, a tool call issued twice), so a generator is retried while it
is opening or failing before its first item, and never after. Stamina documents
generator retries as restarts from scratch and marks async-generator retries as
provisional; we avoid the problem by design. A failure after the first item
propagates as it was, classified, with ``items_delivered`` in its
:class:`~llm_retry.RetryInfo` and its notes.

Plain tenacity does not retry an async generator at all: calling one returns the
generator object at once, which counts as success. Here the first item is fetched
inside the retry loop, so opening failures are retried for both kinds.

The rest of the stream is delegated by hand rather than with ``yield from``, which
cannot count items: ``send``/``throw``/``close`` reach the inner generator as they
would through ``yield from``.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator, Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, cast

from llm_retry._call import Call

if TYPE_CHECKING:
    from llm_retry._policy import RetryPolicy

__all__ = ["retry_async_generator", "retry_generator"]

P = ParamSpec("P")
Y = TypeVar("Y")
S = TypeVar("S")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class _Exhausted(Generic[R]):
    """The stream ended before its first item (with this return value)."""

    value: R


def _open(
    fn: Callable[P, Generator[Y, S, R]], *args: P.args, **kwargs: P.kwargs
) -> tuple[Generator[Y, S, R], Y | _Exhausted[R]]:
    """Start the stream and take its first item: the part that may be retried."""
    stream = fn(*args, **kwargs)
    try:
        return stream, next(stream)
    except StopIteration as stop:
        return stream, _Exhausted(cast("R", stop.value))


async def _aopen(
    fn: Callable[P, AsyncGenerator[Y, S]], *args: P.args, **kwargs: P.kwargs
) -> tuple[AsyncGenerator[Y, S], Y | _Exhausted[None]]:
    """Start the async stream and take its first item: the part that may be retried."""
    stream = fn(*args, **kwargs)
    try:
        return stream, await anext(stream)
    except StopAsyncIteration:
        return stream, _Exhausted(None)


def retry_generator(
    policy: RetryPolicy, fn: Callable[P, Generator[Y, S, R]], target: str
) -> Callable[P, Generator[Y, S, R]]:
    """Wrap a generator function: retried until the first item, delegated after."""

    @functools.wraps(fn)
    def retried(*args: P.args, **kwargs: P.kwargs) -> Generator[Y, S, R]:
        call = Call(policy, target, args, kwargs)
        try:
            opened: tuple[Generator[Y, S, R], Y | _Exhausted[R]]
            opened = call.retrying()(_open, fn, *args, **kwargs)
        except Exception as error:
            call.give_up(error, delivered=0)
            raise
        stream, head = opened
        call.got_through()
        if isinstance(head, _Exhausted):
            call.succeeded()
            return head.value
        item, delivered = head, 0
        try:
            while True:
                delivered += 1
                try:
                    sent = yield item
                except GeneratorExit:
                    stream.close()
                    call.succeeded()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - forwarded, as yield from does
                    item = stream.throw(thrown)
                else:
                    item = stream.send(sent)
        except StopIteration as stop:
            call.succeeded()
            value: R = stop.value
            return value
        except Exception as error:
            call.give_up(error, delivered=delivered)
            raise

    return retried


def retry_async_generator(
    policy: RetryPolicy, fn: Callable[P, AsyncGenerator[Y, S]], target: str
) -> Callable[P, AsyncGenerator[Y, S]]:
    """Wrap an async generator function: retried until the first item, delegated after."""

    @functools.wraps(fn)
    async def retried(*args: P.args, **kwargs: P.kwargs) -> AsyncGenerator[Y, S]:
        call = Call(policy, target, args, kwargs)
        try:
            opened: Any = await call.async_retrying()(_aopen, fn, *args, **kwargs)
        except Exception as error:
            call.give_up(error, delivered=0)
            raise
        stream, head = cast("tuple[AsyncGenerator[Y, S], Y | _Exhausted[None]]", opened)
        await call.agot_through()
        if isinstance(head, _Exhausted):
            call.succeeded()
            return
        item, delivered = head, 0
        try:
            while True:
                delivered += 1
                try:
                    sent = yield item
                except GeneratorExit:
                    await stream.aclose()
                    call.succeeded()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - forwarded, as yield from does
                    item = await stream.athrow(thrown)
                else:
                    item = await stream.asend(sent)
        except StopAsyncIteration:
            call.succeeded()
        except Exception as error:
            call.give_up(error, delivered=delivered)
            raise

    return retried
