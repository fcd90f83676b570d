"""One wrapper for every kind of callable: dispatch on what the callable is.

Sync functions and coroutine functions are retried as a whole; generator and async
generator functions go to ``_stream`` (retried only before their first item). The
kind is decided once, at decoration time, from the function (or, for a callable
object, its ``__call__``), as tenacity and stamina do.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from llm_retry._call import Call
from llm_retry._checks import require_callable
from llm_retry._stream import retry_async_generator, retry_generator

if TYPE_CHECKING:
    from llm_retry._policy import RetryPolicy

__all__ = ["wrap"]

P = ParamSpec("P")
T = TypeVar("T")


def _is(predicate: Callable[[object], bool], fn: Callable[..., object]) -> bool:
    """``predicate`` holds for ``fn`` or, for a callable object, for its ``__call__``."""
    return predicate(fn) or predicate(type(fn).__call__)


def target_name(fn: object) -> str:
    """The name logs and events use for ``fn``: module and qualified name, never arguments."""
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else str(name)


def wrap(policy: RetryPolicy, fn: Callable[P, T]) -> Callable[P, T]:
    """Retry ``fn`` under ``policy`` (see :meth:`RetryPolicy.wrap`)."""
    require_callable("the wrapped object", fn)
    target = target_name(fn)
    if _is(inspect.isasyncgenfunction, fn):
        return cast("Callable[P, T]", retry_async_generator(policy, cast("Any", fn), target))
    if _is(inspect.isgeneratorfunction, fn):
        return cast("Callable[P, T]", retry_generator(policy, cast("Any", fn), target))
    if _is(inspect.iscoroutinefunction, fn):
        return cast("Callable[P, T]", _retry_coroutine(policy, cast("Any", fn), target))
    return _retry_function(policy, fn, target)


def _retry_function(policy: RetryPolicy, fn: Callable[P, T], target: str) -> Callable[P, T]:
    @functools.wraps(fn)
    def retried(*args: P.args, **kwargs: P.kwargs) -> T:
        call = Call(policy, target, args, kwargs)
        try:
            result = call.retrying()(fn, *args, **kwargs)
        except Exception as error:
            call.give_up(error)
            raise
        call.got_through()
        call.succeeded()
        return result

    return retried


def _retry_coroutine(
    policy: RetryPolicy, fn: Callable[P, Coroutine[Any, Any, T]], target: str
) -> Callable[P, Coroutine[Any, Any, T]]:
    @functools.wraps(fn)
    async def retried(*args: P.args, **kwargs: P.kwargs) -> T:
        call = Call(policy, target, args, kwargs)
        try:
            result: T = await call.async_retrying()(fn, *args, **kwargs)
        except Exception as error:
            call.give_up(error)
            raise
        await call.agot_through()
        call.succeeded()
        return result

    return retried
