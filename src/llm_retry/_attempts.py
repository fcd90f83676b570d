"""The iterator form: ``for attempt in policy.attempts(): with attempt: ...`` and ``async for``.

One :class:`Attempts` object serves both loops, so there is one name to learn. Each
``for``/``async for`` over it is one call with fresh tenacity state.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Self

import tenacity as _t

from llm_retry._call import Call

if TYPE_CHECKING:
    from llm_retry._policy import RetryPolicy

__all__ = ["Attempt", "Attempts"]


class Attempt:
    """One attempt of a retried block; use it as ``with attempt:``.

    A failure inside the block is handed to the policy (retried, or raised when the
    policy stops); leaving the block normally ends the loop.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_call", "_manager")

    def __init__(self, manager: _t.AttemptManager, call: Call) -> None:
        self._manager = manager
        self._call = call

    @property
    def number(self) -> int:
        """This attempt's number, counting from 1."""
        return self._manager.retry_state.attempt_number

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        if exc is None:
            self._call.got_through()
            self._call.succeeded()
        return self._manager.__exit__(exc_type, exc, traceback)

    def __repr__(self) -> str:
        return f"<Attempt {self.number}>"


class Attempts:
    """The attempts of one retried block, for ``for`` or ``async for``.

    Returned by :meth:`RetryPolicy.attempts`.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_name", "_policy")

    def __init__(self, policy: RetryPolicy, name: str) -> None:
        self._policy = policy
        self._name = name

    def __iter__(self) -> Iterator[Attempt]:
        return _SyncAttempts(Call(self._policy, self._name))

    def __aiter__(self) -> AsyncIterator[Attempt]:
        return _AsyncAttempts(Call(self._policy, self._name))


class _SyncAttempts:
    __slots__ = ("_call", "_managers")

    def __init__(self, call: Call) -> None:
        self._call = call
        self._managers = iter(call.retrying())

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> Attempt:
        try:
            manager = next(self._managers)
        except StopIteration:
            raise
        except Exception as error:
            self._call.give_up(error)
            raise
        return Attempt(manager, self._call)


class _AsyncAttempts:
    __slots__ = ("_call", "_managers")

    def __init__(self, call: Call) -> None:
        self._call = call
        self._managers = call.async_retrying().__aiter__()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Attempt:
        try:
            manager = await self._managers.__anext__()
        except StopAsyncIteration:
            raise
        except Exception as error:
            self._call.give_up(error)
            raise
        return Attempt(manager, self._call)
