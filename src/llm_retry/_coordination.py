"""Coordination: where calls share a cooldown and a retry budget, per scope.

A *scope* names what shares state: calls to one provider and model (``"openai:gpt-4o"``)
share one rate limit, so they should share one cooldown and one budget. A
:class:`Coordination` stores that state; two backends ship:

* :class:`InProcessCoordination`: cooldowns shared by the calls of one process; the
  budget is the :class:`~llm_retry.RetryBudget` object itself, as without coordination;
* :class:`llm_retry.redis.RedisCoordination` (the ``llm-resilience[redis]`` extra): both
  shared by every process of a fleet.

The interface is four operations, each sync and async, so another store could be added
without touching the retry logic. A backend never makes a call fail: when its store is
unreachable it answers from this process (fails open).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Final, Protocol, runtime_checkable

from llm_errors import ErrorCode
from llm_retry._budget import RetryBudget
from llm_retry._checks import require_callable, require_int, require_number

__all__ = [
    "COOLDOWN_CODES",
    "DEFAULT_MAX_COOLDOWN",
    "DEFAULT_SCOPE",
    "MAX_SCOPE_LENGTH",
    "WAKE_JITTER",
    "Coordination",
    "InProcessCoordination",
    "Scope",
    "check_scope",
    "resolve_scope",
]

#: The scope of a coordinated call when neither the policy nor the call names one.
DEFAULT_SCOPE: Final = "default"
#: Longest scope name accepted (scopes become Redis keys).
MAX_SCOPE_LENGTH: Final = 200
#: Longest cooldown a backend records, in seconds, whatever a server asked for.
DEFAULT_MAX_COOLDOWN: Final = 300.0
#: Codes whose server-directed wait becomes the scope's cooldown: a rate limit, or an
#: overloaded server that said how long to stay away.
COOLDOWN_CODES: Final = frozenset({ErrorCode.RATE_LIMIT, ErrorCode.SERVER})
#: After a cooldown, each call waits up to this fraction of it more, uniformly, so a
#: fleet that waited together does not come back in one burst.
WAKE_JITTER: Final = 0.1

#: A policy's scope: a name, or a function of the wrapped call's arguments.
Scope = str | Callable[..., str]


@runtime_checkable
class Coordination(Protocol):
    """Shared cooldowns and retry budgets, keyed by scope.

    Implementations answer from their store, or from this process when the store
    fails: no method raises because coordination is unavailable.

    .. versionadded:: 0.1.0
    """

    def cooldown(self, scope: str) -> float:
        """Seconds left of ``scope``'s cooldown, ``0.0`` when there is none."""
        ...

    def extend_cooldown(self, scope: str, seconds: float) -> None:
        """Make ``scope``'s cooldown last at least ``seconds`` from now (the later end wins)."""
        ...

    def try_spend(self, scope: str, budget: RetryBudget) -> bool:
        """Take one retry token from ``scope``'s bucket (sized and refilled as ``budget``)."""
        ...

    def record_success(self, scope: str, budget: RetryBudget) -> None:
        """Add ``budget.refill`` tokens to ``scope``'s bucket, up to ``budget.capacity``."""
        ...

    async def acooldown(self, scope: str) -> float:
        """:meth:`cooldown` for async callers."""
        ...

    async def aextend_cooldown(self, scope: str, seconds: float) -> None:
        """:meth:`extend_cooldown` for async callers."""
        ...

    async def atry_spend(self, scope: str, budget: RetryBudget) -> bool:
        """:meth:`try_spend` for async callers."""
        ...

    async def arecord_success(self, scope: str, budget: RetryBudget) -> None:
        """:meth:`record_success` for async callers."""
        ...


def check_scope(scope: object) -> str:
    """``scope`` as a valid scope name: a non-empty printable string without braces.

    Braces are refused because the Redis backend puts the scope inside a ``{hash tag}``.
    """
    if not isinstance(scope, str):
        raise TypeError(f"a retry scope must be a str, got {type(scope).__name__}")
    if not scope or len(scope) > MAX_SCOPE_LENGTH:
        raise ValueError(
            f"a retry scope must have 1 to MAX_SCOPE_LENGTH={MAX_SCOPE_LENGTH} characters, "
            f"got {len(scope)}"
        )
    if "{" in scope or "}" in scope or not scope.isprintable():
        raise ValueError("a retry scope must be printable and contain no '{' or '}'")
    return scope


def resolve_scope(
    scope: Scope | None, args: tuple[object, ...], kwargs: Mapping[str, object]
) -> str:
    """The scope of one call: the policy's, else the first argument's, else the default.

    A callable scope is called with the call's arguments. Without one, a first argument
    with a string ``llm_retry_scope`` attribute names it (the Mistral adapter's calls
    say ``mistral:<model id>`` this way).
    """
    if isinstance(scope, str):
        return scope
    if scope is not None:
        return check_scope(scope(*args, **kwargs))
    named = getattr(args[0], "llm_retry_scope", None) if args else None
    return check_scope(named) if isinstance(named, str) else DEFAULT_SCOPE


class InProcessCoordination:
    """Cooldowns shared by the calls of this process; the budget stays the object itself.

    Args:
        max_cooldown: Longest cooldown recorded, in seconds.
        max_scopes: Most scopes with a cooldown held at once; beyond it, ended cooldowns
            are dropped first, then the one ending soonest.
        clock: Monotonic seconds.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_clock", "_lock", "_max_cooldown", "_max_scopes", "_until")

    def __init__(
        self,
        *,
        max_cooldown: float = DEFAULT_MAX_COOLDOWN,
        max_scopes: int = 1024,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_cooldown = require_number("max_cooldown", max_cooldown)
        self._max_scopes = require_int("max_scopes", max_scopes, minimum=1)
        require_callable("clock", clock)
        self._clock = clock
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    @property
    def max_cooldown(self) -> float:
        """Longest cooldown recorded, in seconds."""
        return self._max_cooldown

    def cooldown(self, scope: str) -> float:
        """Seconds left of ``scope``'s cooldown in this process."""
        with self._lock:
            until = self._until.get(scope)
            if until is None:
                return 0.0
            left = until - self._clock()
            if left <= 0:
                del self._until[scope]
                return 0.0
            return left

    def extend_cooldown(self, scope: str, seconds: float) -> None:
        """Make ``scope``'s cooldown last at least ``seconds`` (capped) from now."""
        with self._lock:
            until = self._clock() + min(seconds, self._max_cooldown)
            if until <= self._until.get(scope, until - 1.0):
                return
            if scope not in self._until and len(self._until) >= self._max_scopes:
                self._make_room()
            self._until[scope] = until

    def _make_room(self) -> None:
        """Drop ended cooldowns, or else the one ending soonest (the lock is held)."""
        now = self._clock()
        for ended in [name for name, until in self._until.items() if until <= now]:
            del self._until[ended]
        if len(self._until) >= self._max_scopes:
            del self._until[min(self._until, key=self._until.__getitem__)]

    def try_spend(self, scope: str, budget: RetryBudget) -> bool:  # noqa: ARG002 - one bucket
        """Take a token from ``budget`` itself (shared by whoever holds it)."""
        return budget.try_spend()

    def record_success(self, scope: str, budget: RetryBudget) -> None:  # noqa: ARG002
        """Refill ``budget`` itself."""
        budget.record_success()

    async def acooldown(self, scope: str) -> float:
        """:meth:`cooldown` (no I/O, so it never waits)."""
        return self.cooldown(scope)

    async def aextend_cooldown(self, scope: str, seconds: float) -> None:
        """:meth:`extend_cooldown` (no I/O)."""
        self.extend_cooldown(scope, seconds)

    async def atry_spend(self, scope: str, budget: RetryBudget) -> bool:
        """:meth:`try_spend` (no I/O)."""
        return self.try_spend(scope, budget)

    async def arecord_success(self, scope: str, budget: RetryBudget) -> None:
        """:meth:`record_success` (no I/O)."""
        self.record_success(scope, budget)

    def __repr__(self) -> str:
        return f"InProcessCoordination(max_cooldown={self._max_cooldown:g})"
