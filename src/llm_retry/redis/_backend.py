"""The Redis backend: four Lua scripts, a sync client and one async client per loop."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Final

import redis as _redis
import redis.asyncio as _aredis
from redis.asyncio.retry import Retry as _AsyncRetry
from redis.backoff import NoBackoff as _NoBackoff
from redis.retry import Retry as _Retry

from llm_retry._budget import RetryBudget
from llm_retry._checks import require_number
from llm_retry._coordination import DEFAULT_MAX_COOLDOWN, InProcessCoordination, check_scope

__all__ = ["DEFAULT_PREFIX", "RedisCoordination"]

#: The key prefix unless another is given (``LLM_RETRY_REDIS_PREFIX`` in ``from_env``).
DEFAULT_PREFIX: Final = "llm_retry"

logger = logging.getLogger("llm_retry")

# Seconds left of a cooldown, in microseconds of the server's clock (0: none).
_READ_COOLDOWN: Final = """
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local t = redis.call('TIME')
local left = tonumber(stored) - (tonumber(t[1]) * 1000000 + tonumber(t[2]))
if left <= 0 then return 0 end
return left
"""

# ARGV: cooldown in microseconds, extra TTL in milliseconds. The later deadline wins.
_EXTEND_COOLDOWN: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local wanted = now + tonumber(ARGV[1])
local stored = tonumber(redis.call('GET', KEYS[1]) or '0')
if wanted <= stored then return 0 end
local ttl = math.ceil((wanted - now) / 1000) + tonumber(ARGV[2])
redis.call('SET', KEYS[1], string.format('%.0f', wanted), 'PX', ttl)
return 1
"""

# ARGV: capacity, TTL in milliseconds. No key means a full bucket. 1: a token was taken.
_TRY_SPEND: Final = """
local capacity = tonumber(ARGV[1])
local tokens = math.min(capacity, tonumber(redis.call('GET', KEYS[1]) or ARGV[1]))
local spent = 0
if tokens >= 1 then
  tokens = tokens - 1
  spent = 1
end
redis.call('SET', KEYS[1], string.format('%.17g', tokens), 'PX', ARGV[2])
return spent
"""

# ARGV: capacity, refill, TTL in milliseconds. A bucket refilled to full is deleted.
_RECORD_SUCCESS: Final = """
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local capacity = tonumber(ARGV[1])
local tokens = math.min(capacity, tonumber(stored) + tonumber(ARGV[2]))
if tokens >= capacity then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.17g', tokens), 'PX', ARGV[3])
end
return 1
"""

#: What counts as Redis being unavailable (timeouts included); anything else is a bug.
_UNAVAILABLE: Final = (_redis.RedisError, OSError)
#: Milliseconds a cooldown key outlives its cooldown.
_COOLDOWN_KEY_MARGIN_MS: Final = 1000


_Args = list[str | int]


#: The scripts in the order the holders below unpack them.
_SCRIPTS: Final = (_READ_COOLDOWN, _EXTEND_COOLDOWN, _TRY_SPEND, _RECORD_SUCCESS)


class _SyncScripts:
    """The four scripts, registered on the sync client."""

    __slots__ = ("client", "extend", "read", "record", "spend")

    def __init__(self, client: _redis.Redis) -> None:
        self.client = client
        self.read, self.extend, self.spend, self.record = map(client.register_script, _SCRIPTS)


class _AsyncScripts:
    """The four scripts, registered on one event loop's async client (typed apart)."""

    __slots__ = ("client", "extend", "read", "record", "spend")

    def __init__(self, client: _aredis.Redis) -> None:
        self.client = client
        self.read, self.extend, self.spend, self.record = map(client.register_script, _SCRIPTS)


class RedisCoordination:
    """Cooldowns and retry budgets shared through Redis by every process of a fleet.

    Args:
        url: A ``redis://`` (or ``rediss://``, ``unix://``) URL; it may hold a password,
            so it is never logged or shown.
        prefix: Namespace of every key, so several applications can share one Redis.
        timeout: Seconds one Redis command (or connecting) may take before the call
            goes on without it.
        key_ttl: Seconds a budget key lives after its last use.
        max_cooldown: Longest cooldown recorded, in seconds, whatever a server asked.
        pause: Seconds Redis is left alone after a failure (each call would otherwise
            wait ``timeout`` for a server that is down).
        warn_every: Least seconds between two warnings about Redis being unavailable.

    The sync client is made at construction (it connects on first use); async callers
    get one client per event loop. Close them with :meth:`close` and :meth:`aclose`.

    .. versionadded:: 0.1.0
    """

    __slots__ = (
        "_async",
        "_down_until",
        "_fallbacks",
        "_key_ttl_ms",
        "_local",
        "_lock",
        "_pause",
        "_prefix",
        "_sync",
        "_timeout",
        "_url",
        "_warn_every",
        "_warned_at",
    )

    def __init__(
        self,
        url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        timeout: float = 0.05,
        key_ttl: float = 600.0,
        max_cooldown: float = DEFAULT_MAX_COOLDOWN,
        pause: float = 1.0,
        warn_every: float = 60.0,
    ) -> None:
        if not url.strip():
            raise ValueError("url must be a non-empty redis:// URL")
        self._prefix = check_scope(prefix)
        self._timeout = require_number("timeout", timeout, strict=True)
        self._key_ttl_ms = max(1, round(require_number("key_ttl", key_ttl, strict=True) * 1000))
        self._pause = require_number("pause", pause)
        self._warn_every = require_number("warn_every", warn_every)
        self._local = InProcessCoordination(max_cooldown=max_cooldown)
        self._url = url.strip()
        # No client-side retries: a failed command falls back at once (fail open).
        self._sync = _SyncScripts(
            _redis.Redis.from_url(
                self._url,
                socket_timeout=self._timeout,
                socket_connect_timeout=self._timeout,
                retry=_Retry(_NoBackoff(), 0),
            )
        )
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _AsyncScripts] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()
        self._fallbacks = 0
        self._down_until = float("-inf")
        self._warned_at = float("-inf")

    @property
    def prefix(self) -> str:
        """The namespace of every key."""
        return self._prefix

    @property
    def fallbacks(self) -> int:
        """Operations answered without Redis (it failed, timed out, or was being left alone)."""
        with self._lock:
            return self._fallbacks

    def key(self, scope: str, kind: str) -> str:
        """The Redis key of ``scope``'s ``kind`` (``"cooldown"`` or ``"budget"``)."""
        return f"{self._prefix}:{{{scope}}}:{kind}"

    # --- fail open ------------------------------------------------------------------

    def _usable(self) -> bool:
        """Whether to ask Redis now; counts a fallback when not."""
        with self._lock:
            if time.monotonic() < self._down_until:
                self._fallbacks += 1
                return False
            return True

    def _failed(self, error: BaseException) -> None:
        """Count the failure, leave Redis alone for a while, warn at most every interval."""
        now = time.monotonic()
        with self._lock:
            self._fallbacks += 1
            self._down_until = now + self._pause
            warn = now - self._warned_at >= self._warn_every
            if warn:
                self._warned_at = now
            count = self._fallbacks
        if warn:
            logger.warning(
                "Redis coordination unavailable (%s): calls go on with this process's own "
                "cooldowns and retry budget (%d operation(s) without Redis so far)",
                type(error).__name__,
                count,
                extra={"fallbacks": count},
            )

    def _run(self, command: Callable[[_SyncScripts], object]) -> object | None:
        """One sync command, or ``None`` when Redis is unavailable."""
        if not self._usable():
            return None
        try:
            return command(self._sync)
        except _UNAVAILABLE as error:
            self._failed(error)
            return None

    async def _arun(self, command: Callable[[_AsyncScripts], Awaitable[object]]) -> object | None:
        """One async command on this event loop's client, or ``None`` when unavailable."""
        if not self._usable():
            return None
        try:
            async with asyncio.timeout(self._timeout):
                return await command(self._scripts_for_loop())
        except (*_UNAVAILABLE, TimeoutError) as error:
            self._failed(error)
            return None

    def _scripts_for_loop(self) -> _AsyncScripts:
        """This event loop's client (an asyncio connection belongs to one loop)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            scripts = self._async.get(loop)
        if scripts is None:
            client = _aredis.Redis.from_url(
                self._url,
                socket_timeout=self._timeout,
                socket_connect_timeout=self._timeout,
                retry=_AsyncRetry(_NoBackoff(), 0),
            )
            scripts = _AsyncScripts(client)
            with self._lock:
                # Only this loop's thread makes its client, so nothing else set it meanwhile.
                self._async[loop] = scripts
        return scripts

    # --- the Coordination interface ---------------------------------------------------

    def cooldown(self, scope: str) -> float:
        """Seconds left of ``scope``'s cooldown, by the Redis server's clock."""
        key = [self.key(scope, "cooldown")]
        micros = self._run(lambda s: s.read(keys=key))
        return self._left(scope, micros)

    async def acooldown(self, scope: str) -> float:
        """:meth:`cooldown` for async callers."""
        key = [self.key(scope, "cooldown")]
        micros = await self._arun(lambda s: s.read(keys=key))
        return self._left(scope, micros)

    def _left(self, scope: str, micros: object) -> float:
        """The later of Redis's answer and what this process saw itself."""
        shared = micros / 1_000_000 if isinstance(micros, int) else 0.0
        return max(shared, self._local.cooldown(scope))

    def extend_cooldown(self, scope: str, seconds: float) -> None:
        """Make ``scope``'s cooldown last at least ``seconds`` (capped) from now, everywhere."""
        self._local.extend_cooldown(scope, seconds)
        key, args = self._extend_args(scope, seconds)
        self._run(lambda s: s.extend(keys=key, args=args))

    async def aextend_cooldown(self, scope: str, seconds: float) -> None:
        """:meth:`extend_cooldown` for async callers."""
        self._local.extend_cooldown(scope, seconds)
        key, args = self._extend_args(scope, seconds)
        await self._arun(lambda s: s.extend(keys=key, args=args))

    def _extend_args(self, scope: str, seconds: float) -> tuple[list[str], _Args]:
        micros = round(min(seconds, self._local.max_cooldown) * 1_000_000)
        return [self.key(scope, "cooldown")], [micros, _COOLDOWN_KEY_MARGIN_MS]

    def try_spend(self, scope: str, budget: RetryBudget) -> bool:
        """Take a token from ``scope``'s shared bucket; from ``budget`` itself without Redis."""
        key = [self.key(scope, "budget")]
        args: _Args = [repr(budget.capacity), self._key_ttl_ms]
        spent = self._run(lambda s: s.spend(keys=key, args=args))
        return budget.try_spend() if spent is None else spent == 1

    async def atry_spend(self, scope: str, budget: RetryBudget) -> bool:
        """:meth:`try_spend` for async callers."""
        key = [self.key(scope, "budget")]
        args: _Args = [repr(budget.capacity), self._key_ttl_ms]
        spent = await self._arun(lambda s: s.spend(keys=key, args=args))
        return budget.try_spend() if spent is None else spent == 1

    def record_success(self, scope: str, budget: RetryBudget) -> None:
        """Refill ``scope``'s shared bucket; ``budget`` itself without Redis."""
        key = [self.key(scope, "budget")]
        args: _Args = [repr(budget.capacity), repr(budget.refill), self._key_ttl_ms]
        if self._run(lambda s: s.record(keys=key, args=args)) is None:
            budget.record_success()

    async def arecord_success(self, scope: str, budget: RetryBudget) -> None:
        """:meth:`record_success` for async callers."""
        key = [self.key(scope, "budget")]
        args: _Args = [repr(budget.capacity), repr(budget.refill), self._key_ttl_ms]
        if await self._arun(lambda s: s.record(keys=key, args=args)) is None:
            budget.record_success()

    # --- lifecycle --------------------------------------------------------------------

    def close(self) -> None:
        """Close the sync client's connections."""
        self._sync.client.close()

    async def aclose(self) -> None:
        """Close the running event loop's async client, if it made one."""
        with self._lock:
            scripts = self._async.pop(asyncio.get_running_loop(), None)
        if scripts is not None:
            await scripts.client.aclose()

    def __repr__(self) -> str:
        return f"RedisCoordination(prefix={self._prefix!r}, timeout={self._timeout:g})"
