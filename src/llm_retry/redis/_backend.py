"""The Redis backend: eight Lua scripts, a sync client and one async client per loop."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Final, Generic, TypeVar
from urllib.parse import urlsplit

import redis as _redis
import redis.asyncio as _aredis
import redis.asyncio.cluster as _acluster
import redis.cluster as _cluster
from redis.asyncio.retry import Retry as _AsyncRetry
from redis.backoff import NoBackoff as _NoBackoff
from redis.commands.core import AsyncScript as _AsyncScript
from redis.commands.core import Script as _Script
from redis.retry import Retry as _Retry

from llm_retry._aimd import MEASURE_WINDOW, MIN_SPAN, LearnedRate
from llm_retry._breaker import BreakerState, CircuitBreaker, Outcomes
from llm_retry._budget import RetryBudget
from llm_retry._checks import require_number
from llm_retry._coordination import (
    DEFAULT_MAX_COOLDOWN,
    DEFAULT_PROBE_LEASE,
    DEFAULT_PROBE_POLL,
    MAX_PARK,
    Admission,
    InProcessCoordination,
    check_scope,
    new_probe_token,
    poll_wait,
)
from llm_retry._events import BreakerEvent, CoordinationEvent, GiveUpReason
from llm_retry._limits import MAX_RESET, RateLimits
from llm_retry._pace import DEFAULT_HEADROOM, IN_FLIGHT_KEPT
from llm_retry.instrumentation._hooks import dispatch

__all__ = ["DEFAULT_PREFIX", "SCHEMES", "RedisCoordination", "check_url"]

#: The key prefix unless another is given (``LLM_RETRY_REDIS_PREFIX`` in ``from_env``).
DEFAULT_PREFIX: Final = "llm_retry"

logger = logging.getLogger("llm_retry")

#: The URL schemes redis-py connects through; a Redis Cluster client takes the first two.
SCHEMES: Final = ("redis", "rediss", "unix")
#: What RFC 3986 allows as a scheme: only text of this shape is quoted in an error.
_SCHEME_SYNTAX: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
#: An option's name as redis-py quotes it in its errors.
_OPTION: Final = re.compile(r"'([A-Za-z_][A-Za-z0-9_]*)'")


def check_url(url: object, *, cluster: bool = False, name: str = "url") -> str:
    """``url`` without surrounding blanks, if a Redis client can connect through it.

    Checked at construction so that a URL such as ``localhost:6379`` fails at start-up
    rather than at every call. The error says what is wrong (no scheme, a scheme that is
    not one of :data:`SCHEMES`, a port that is not a number, a ``unix://`` URL without a
    path) and lists the accepted schemes; it quotes a scheme at most, never the URL,
    which may hold a password. ``name`` is what the message calls the URL (the
    environment variable it came from, in ``from_env``).
    """
    if not isinstance(url, str):
        raise TypeError(f"{name} must be a str, got {type(url).__name__}")
    accepted = SCHEMES[:2] if cluster else SCHEMES
    expected = f"{', '.join(f'{scheme}://' for scheme in accepted)} (e.g. redis://localhost:6379/0)"
    text = url.strip()
    scheme, separator, _ = text.partition("://")
    if not text:
        raise ValueError(f"{name} is empty; it must be a Redis URL starting with {expected}")
    if not separator:
        raise ValueError(f"{name} has no scheme; it must start with {expected}")
    if scheme.lower() not in accepted:
        named = f"the scheme {scheme!r}" if _SCHEME_SYNTAX.fullmatch(scheme) else "a bad scheme"
        if cluster and scheme.lower() in SCHEMES:
            named += ", which a Redis Cluster client does not take"
        raise ValueError(f"{name} has {named}; it must start with {expected}")
    try:
        parts = urlsplit(text)
        _ = parts.port  # parsed on access: a ValueError for a port that is no number
    except ValueError:
        raise ValueError(
            f"{name} has a malformed host or port (a port is a number up to 65535, an "
            "IPv6 host goes in brackets)"
        ) from None
    if scheme.lower() == "unix" and not parts.path:
        raise ValueError(f"{name} is a unix:// URL without the socket's path (unix:///path)")
    _check_options(text, name)
    return text


def _check_options(url: str, name: str) -> None:
    """Refuse a URL whose query options a Redis connection does not take.

    redis-py reads them (``?socket_timeout=abc``, ``?nosuch=1``) only when it makes a
    connection; a connection object is made here, without connecting, so that the
    mistake fails at start-up. The error names the option, never its value.
    """
    try:
        pool = _redis.ConnectionPool.from_url(url)  # reads the options, connects nothing
        pool.make_connection()
        pool.disconnect()
    except (TypeError, ValueError) as error:
        quoted = _OPTION.search(str(error))
        option = f"the option {quoted.group(1)!r}" if quoted else "an option"
        raise ValueError(
            f"{name} has {option} that a Redis connection does not take (an unknown name, "
            "or a value of the wrong type)"
        ) from None


# Seconds left of a cooldown, in microseconds of the server's clock (0: none).
_READ_COOLDOWN: Final = """
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local t = redis.call('TIME')
local left = tonumber(stored) - (tonumber(t[1]) * 1000000 + tonumber(t[2]))
if left <= 0 then return 0 end
return left
"""

# KEYS: cooldown, probe. ARGV: cooldown in microseconds, the half-open time in
# milliseconds. The later deadline wins, and a new one ends any probe.
_EXTEND_COOLDOWN: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local wanted = now + tonumber(ARGV[1])
local stored = tonumber(redis.call('GET', KEYS[1]) or '0')
if wanted <= stored then return 0 end
local ttl = math.ceil((wanted - now) / 1000) + tonumber(ARGV[2])
redis.call('SET', KEYS[1], string.format('%.0f', wanted), 'PX', ttl)
redis.call('DEL', KEYS[2])
return 1
"""

# KEYS: cooldown, probe, parked, pace, breaker. ARGV: a fresh probe token, the pace's
# headroom, the attempt's token estimate (0: none), how many milliseconds requests in
# flight are counted with no statement (the pace key then lives that long). {state,
# microseconds}: 0 open; 1 closed, with the time left; 2 half-open, this caller holds
# the lease (which lasts as long as the half-open time); 3 half-open, another caller
# holds it, lease time left; 4 parked (a spent quota), the time to its reset; 5 paced (a
# stated rate-limit window nearly spent), the time to its refill; 6 the scope's breaker
# is open (the cooldown is its open time): fail now, the time until a probe may go; 7 as
# 2, the probe of an open breaker. An open or probing caller is paced as
# ``llm_retry._pace.Pace`` paces (the same rules, shared by the fleet: a request
# admitted here counts for every process, its token estimate for the token windows); a
# paced prober's lease is given back.
_ADMIT: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local parked = redis.call('GET', KEYS[3])
if parked and tonumber(parked) > now then return {4, tonumber(parked) - now} end
local state = 0
local stored = redis.call('GET', KEYS[1])
if stored then
  local broken = redis.call('EXISTS', KEYS[5]) == 1
  local left = tonumber(stored) - now
  if left > 0 then
    if broken then return {6, left} end
    return {1, left}
  end
  local open = redis.call('PTTL', KEYS[1])
  if open > 0 then
    if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', open) then
      local lease = math.max(redis.call('PTTL', KEYS[2]), 1) * 1000
      if broken then return {6, lease} end
      return {3, lease}
    end
    state = 2
    if broken then state = 7 end
  end
end
local fields = redis.call('HGETALL', KEYS[4])
local tokens = tonumber(ARGV[3])
if #fields == 0 then
  redis.call('HSET', KEYS[4], '_:inflight', 1, '_:tokens', tokens)
  redis.call('PEXPIRE', KEYS[4], ARGV[4])
  return {state, 0}
end
local windows = {}
for i = 1, #fields, 2 do
  local unit, part = string.match(fields[i], '^(.-):(%a+)$')
  if unit ~= '_' then
    windows[unit] = windows[unit] or {}
    windows[unit][part] = tonumber(fields[i + 1])
  end
end
local headroom = tonumber(ARGV[2])
local wait = 0
for unit, window in pairs(windows) do
  local left = window.refill - now
  if left > 0 then
    local limit = window.limit
    local kept = math.ceil(limit * headroom)
    local need = tokens
    if unit == 'requests' then need = 1 end
    local remaining, rate = window.remaining, 0
    if window.gradual == 1 and limit > remaining and window.refill > window.stated then
      rate = (limit - remaining) / (window.refill - window.stated)
      remaining = math.min(limit, remaining + rate * (now - window.stated))
    end
    local wanted = window.admitted + kept + math.max(need, 1)
    local short = 0
    if remaining < wanted and not (need > 0 and window.admitted == 0 and limit > 0
        and limit <= remaining) then
      short = left
      if rate > 0 and wanted <= limit then short = math.min(left, (wanted - remaining) / rate) end
    end
    if short > wait then wait = short end
  end
end
if wait > 0 then
  if state == 2 or state == 7 then redis.call('DEL', KEYS[2]) end
  return {5, wait}
end
for unit, window in pairs(windows) do
  local add = tokens
  if unit == 'requests' then add = 1 end
  if window.refill > now and add > 0 then
    redis.call('HINCRBY', KEYS[4], unit .. ':admitted', add)
  end
end
redis.call('HINCRBY', KEYS[4], '_:inflight', 1)
if tokens > 0 then redis.call('HINCRBY', KEYS[4], '_:tokens', tokens) end
if next(windows) == nil then redis.call('PEXPIRE', KEYS[4], ARGV[4]) end
return {state, 0}
"""

# KEYS: pace. ARGV: groups of unit, remaining, limit (0: not stated), microseconds to
# the refill, 1 when it refills gradually (else 0); then how many milliseconds the
# requests in flight are counted past the last refill. A response's statement replaces
# the last one (the server's count is the truth); the requests in flight but this
# response's count against it, as in ``llm_retry._pace``; the key lives that long past
# the latest refill.
_RECORD_PACE: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local known = tonumber(redis.call('HGET', KEYS[1], '_:inflight') or '0')
local in_flight, tokens = 0, 0
if known > 0 then
  in_flight = known - 1
  tokens = math.floor(tonumber(redis.call('HGET', KEYS[1], '_:tokens') or '0') * in_flight / known)
end
redis.call('DEL', KEYS[1])
if #ARGV == 1 then return 1 end
local longest = 0
for i = 1, #ARGV - 1, 5 do
  local unit, refill = ARGV[i], tonumber(ARGV[i + 3])
  local admitted = tokens
  if unit == 'requests' then admitted = in_flight end
  redis.call('HSET', KEYS[1], unit .. ':remaining', ARGV[i + 1], unit .. ':limit', ARGV[i + 2],
    unit .. ':refill', string.format('%.0f', now + refill), unit .. ':admitted', admitted,
    unit .. ':stated', string.format('%.0f', now), unit .. ':gradual', ARGV[i + 4])
  if refill > longest then longest = refill end
end
redis.call('HSET', KEYS[1], '_:inflight', in_flight, '_:tokens', tokens)
redis.call('PEXPIRE', KEYS[1], math.ceil(longest / 1000) + tonumber(ARGV[#ARGV]))
return 1
"""

# KEYS: cooldown, probe, breaker. ARGV: the probe's token, 1 to lift the cooldown. Only
# the lease's holder ends it; a cooldown that has not ended (a newer one) is kept.
# 1: ended; 2: ended, and the lift closed the scope's breaker; 0: not the holder.
_END_PROBE: Final = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
if ARGV[2] == '1' then
  local stored = redis.call('GET', KEYS[1])
  local t = redis.call('TIME')
  if stored and tonumber(stored) <= tonumber(t[1]) * 1000000 + tonumber(t[2]) then
    redis.call('DEL', KEYS[1])
    if redis.call('DEL', KEYS[3]) == 1 then return 2 end
  end
end
return 1
"""

# KEYS: cooldown, probe, breaker. ARGV: what happened ('open': this process's window
# opened it; 'failed': an attempt failed; 'read'), the open time in microseconds, the
# half-open time in milliseconds, the longest open time in microseconds. The breaker
# key holds the open time; while it exists the cooldown is the breaker's. {state,
# microseconds}: 0 closed (a failure is the caller's to count); 1 open, time to the
# probe; 2 half-open; 3 opened now (a failure in the half-open time is the probe's:
# twice the last open time, capped), for this long.
_BREAKER: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local stored = tonumber(redis.call('GET', KEYS[1]) or '0')
local opened = redis.call('GET', KEYS[3])
if ARGV[1] ~= 'open' then
  if not opened then return {0, 0} end
  if stored > now then return {1, stored - now} end
  if ARGV[1] == 'read' then return {2, 0} end
end
local open = tonumber(ARGV[2])
if opened then open = math.min(tonumber(opened) * 2, tonumber(ARGV[4])) end
local ttl = math.ceil(open / 1000) + tonumber(ARGV[3])
if now + open > stored then
  redis.call('SET', KEYS[1], string.format('%.0f', now + open), 'PX', ttl)
end
redis.call('SET', KEYS[3], string.format('%.0f', open), 'PX', ttl)
redis.call('DEL', KEYS[2])
return {3, open}
"""

# KEYS: parked. ARGV: the time to the quota's reset in microseconds. The later reset
# wins; the key lives until it.
_PARK: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local wanted = now + tonumber(ARGV[1])
local stored = tonumber(redis.call('GET', KEYS[1]) or '0')
if wanted <= stored then return 0 end
redis.call('SET', KEYS[1], string.format('%.0f', wanted), 'PX', math.ceil((wanted - now) / 1000))
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

# A scope's rate learned from its 429s, as ``llm_retry._aimd.Learner`` learns it, shared
# by the fleet. KEYS: the rate hash (base rate per second, ``at`` its decrease, ``next``
# the next free time, and the admissions measured: ``start``, ``n``, ``last``); times in
# microseconds of the server's clock. ARGV: increase share per second, measure window
# and the TTL of a measuring key in milliseconds. Answers the microseconds to wait (0:
# admitted, counted).
_LEARNED_ADMIT: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local h = redis.call('HMGET', KEYS[1], 'base', 'at', 'next', 'start', 'n')
local base, start = tonumber(h[1]), tonumber(h[4])
if base then
  local rate = base * (1 + tonumber(ARGV[1]) * math.max(0, now - tonumber(h[2])) / 1000000)
  local free = tonumber(h[3]) or 0
  if free > now then return free - now end
  redis.call('HSET', KEYS[1], 'next', string.format('%.0f', now + 1000000 / rate))
end
if not start or now - start >= tonumber(ARGV[2]) * 1000 then
  local fields = {'start', string.format('%.0f', now), 'n', 1}
  if start then
    local last = (tonumber(h[5]) or 0) * 1000000 / (now - start)
    fields[5], fields[6] = 'last', string.format('%.17g', last)
  end
  redis.call('HSET', KEYS[1], unpack(fields))
else
  redis.call('HINCRBY', KEYS[1], 'n', 1)
end
if not base then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 0
"""

# A 429: decrease the learned rate (at most once per hold), as ``Learner.limited`` does.
# KEYS: the rate hash. ARGV: decrease, increase, min rate, hold in microseconds, the
# shortest span measured in microseconds, forget in milliseconds. 1: decreased.
_LEARNED_LIMITED: Final = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local h = redis.call('HMGET', KEYS[1], 'base', 'at', 'start', 'n', 'last')
local base, at = tonumber(h[1]), tonumber(h[2])
if at and now - at < tonumber(ARGV[4]) then return 0 end
local known = nil
if base then known = base * (1 + tonumber(ARGV[2]) * math.max(0, now - at) / 1000000) end
local start, n = tonumber(h[3]), tonumber(h[4]) or 0
local measured = tonumber(h[5])
if start and n > 0 and now - start >= tonumber(ARGV[5]) then
  measured = n * 1000000 / (now - start)
end
if measured and measured > 0 and (not known or measured < known) then known = measured end
local rate = tonumber(ARGV[3])
if known then rate = math.max(rate, tonumber(ARGV[1]) * known) end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'base', string.format('%.17g', rate), 'at', string.format('%.0f', now),
  'next', string.format('%.0f', now + 1000000 / rate), 'start', string.format('%.0f', now), 'n', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
"""

_Args = list[str | int]
_T = TypeVar("_T")


class _MalformedAnswerError(ValueError):
    """An answer no script of ours gives: whatever listens on the port is not our Redis."""


def _held(admission: Admission, wait: int | None) -> tuple[Admission, str | None]:
    """``admission`` held by the learned rate's ``wait``, and the probe lease to give back.

    ``wait`` is in microseconds (0 or ``None``: not held). A held prober gives its lease
    back; the caller ends it, awaited or not, so the twins differ only there.
    """
    if not wait:
        return admission, None
    return Admission(wait / 1_000_000), admission.probe


def _micros(answer: object) -> int:
    """A script's time in microseconds: a non-negative integer."""
    if type(answer) is not int or answer < 0:
        raise _MalformedAnswerError("a time that is not a non-negative integer")
    return answer


def _ended(answer: object) -> int:
    """The end-probe script's 0, 1 or 2."""
    if type(answer) is not int or answer not in (0, 1, _BREAKER_CLOSED):
        raise _MalformedAnswerError("an end of probe that is not 0, 1 or 2")
    return answer


def _flag(answer: object) -> bool:
    """A script's 0 or 1."""
    if type(answer) is not int or answer not in (0, 1):
        raise _MalformedAnswerError("a flag that is not 0 or 1")
    return answer == 1


def _state(answer: object) -> tuple[int, int]:
    """The admit script's ``{state, microseconds}``."""
    if not isinstance(answer, list) or len(answer) != 2:  # noqa: PLR2004 - a pair
        raise _MalformedAnswerError("an admission that is not a pair")
    state = answer[0]
    if type(state) is not int or not 0 <= state <= _BREAKER_PROBER:
        raise _MalformedAnswerError("an unknown admission state")
    return state, _micros(answer[1])


#: The admit script's states (see ``_ADMIT``).
_CLOSED, _PROBER, _PROBING, _PARKED, _PACED, _BROKEN, _BREAKER_PROBER = 1, 2, 3, 4, 5, 6, 7
#: The breaker script's states (see ``_BREAKER``).
_SHUT, _OPEN, _HALF_OPEN, _OPENED = 0, 1, 2, 3
#: The end-probe script's answer when its lift closed the scope's breaker.
_BREAKER_CLOSED = 2

#: The scripts in the order the holders below unpack them.
_SCRIPTS: Final = (
    _READ_COOLDOWN,
    _EXTEND_COOLDOWN,
    _ADMIT,
    _END_PROBE,
    _TRY_SPEND,
    _RECORD_SUCCESS,
    _PARK,
    _RECORD_PACE,
    _BREAKER,
    _LEARNED_ADMIT,
    _LEARNED_LIMITED,
)


#: How long requests in flight are counted past the last refill (or, with no statement
#: yet, past the last admission), in milliseconds.
_IN_FLIGHT_MS: Final = round(IN_FLIGHT_KEPT * 1000)


def _pace_args(limits: RateLimits) -> _Args:
    """The record script's arguments: each window with a refill time, in microseconds."""
    args: _Args = []
    for window in limits.windows:
        if window.reset is not None and window.reset > 0:
            refill = round(window.reset * 1_000_000)
            gradual = int(window.gradual)
            args += [window.unit.value, window.remaining, window.limit or 0, refill, gradual]
    return [*args, _IN_FLIGHT_MS]


_S = TypeVar("_S", _Script, _AsyncScript)


class _Scripts(Generic[_S]):
    """The scripts, registered on one client (the sync one, or one event loop's)."""

    __slots__ = (
        "admit",
        "breaker",
        "end_probe",
        "extend",
        "learned",
        "limited",
        "pace",
        "park",
        "read",
        "record",
        "spend",
    )

    read: _S
    extend: _S
    admit: _S
    end_probe: _S
    spend: _S
    record: _S
    park: _S
    pace: _S
    breaker: _S
    learned: _S
    limited: _S

    def __init__(self, register: Callable[[str], _S]) -> None:
        (
            self.read,
            self.extend,
            self.admit,
            self.end_probe,
            self.spend,
            self.record,
            self.park,
            self.pace,
            self.breaker,
            self.learned,
            self.limited,
        ) = map(register, _SCRIPTS)


class _SyncScripts(_Scripts[_Script]):
    """The scripts on the sync client (standalone or cluster)."""

    __slots__ = ("client",)

    def __init__(self, client: _redis.Redis | _cluster.RedisCluster) -> None:
        self.client = client
        super().__init__(client.register_script)


class _AsyncScripts(_Scripts[_AsyncScript]):
    """The scripts on one event loop's async client.

    ``closer`` closes the client when its loop shuts down (:func:`_closed_with_loop`).
    """

    __slots__ = ("client", "closer")

    def __init__(
        self, client: _aredis.Redis | _acluster.RedisCluster, closer: AsyncGenerator[None, None]
    ) -> None:
        self.client = client
        self.closer = closer
        super().__init__(client.register_script)


async def _closed_with_loop(
    client: _aredis.Redis | _acluster.RedisCluster,
) -> AsyncGenerator[None, None]:
    """Hold ``client`` open until its event loop shuts down, then close it on that loop.

    Started once and left suspended, this generator is one the loop closes in
    ``shutdown_asyncgens()``, which ``asyncio.run`` (and so every finished
    ``asyncio.run``) calls before closing the loop: the client's connections close with
    the loop instead of staying open until garbage collection, one per finished loop.
    """
    try:
        yield
    finally:
        await client.aclose()


class RedisCoordination:
    """Cooldowns and retry budgets shared through Redis by every process of a fleet.

    Args:
        url: A ``redis://`` (or ``rediss://``, ``unix://``) URL; it may hold a password,
            so it is never logged or shown. With ``cluster``, any node of the cluster
            (``redis://`` or ``rediss://``). Checked here: a URL without a scheme such
            as ``localhost:6379`` is a ``ValueError`` that says what is wrong.
        prefix: Namespace of every key, so several applications can share one Redis.
        timeout: Seconds one Redis command (or connecting) may take before the call
            goes on without it.
        key_ttl: Seconds a budget key lives after its last use.
        max_cooldown: Longest cooldown recorded, in seconds, whatever a server asked.
        probe_lease: Longest half-open time after a cooldown, in seconds: one call
            probes, the others wait for its result at most this long.
        probe_poll: About how often a waiter looks again while another call probes.
        pause: Seconds Redis is left alone after a failure (each call would otherwise
            wait ``timeout`` for a server that is down).
        warn_every: Least seconds between two warnings about Redis being unavailable.
        cluster: Connect with Redis Cluster clients (``redis.cluster.RedisCluster`` and
            its asyncio twin); a scope's keys share one slot through their hash tag.
        headroom: Share of a stated rate-limit window kept free (:meth:`record_limits`).
            The windows are this process's: each response states the provider's count,
            which every process of the fleet spends.
        breaker: A circuit breaker per scope (:class:`~llm_retry.CircuitBreaker`), kept
            in this process: each process opens its own on the outcomes it saw.
        learn: Learn each scope's sending rate from its 429s
            (:class:`~llm_retry.LearnedRate`), shared by the fleet: every process
            spaces its attempts at the rate the fleet's 429s taught (for providers that
            state no rate-limit headers); ``None``: no learned rate.

    The sync client is made on first use; async callers get one client per event loop.
    Close them with :meth:`close` and :meth:`aclose`.

    .. versionadded:: 0.2.0
    .. versionchanged:: 0.3.0
       The URL is checked on construction; Redis coming back is logged, and both its
       going away and its coming back are sent to the hooks as a
       :class:`~llm_retry.instrumentation.CoordinationEvent`; ``learn`` and
       :meth:`record_limited`.
    """

    __slots__ = (
        "_async",
        "_breaker",
        "_cluster",
        "_down_since",
        "_down_until",
        "_fallbacks",
        "_key_ttl_ms",
        "_learn",
        "_learned_args",
        "_lease_ms",
        "_limited_args",
        "_local",
        "_lock",
        "_outage_warned",
        "_outcomes",
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
        probe_lease: float = DEFAULT_PROBE_LEASE,
        probe_poll: float = DEFAULT_PROBE_POLL,
        pause: float = 1.0,
        warn_every: float = 60.0,
        cluster: bool = False,
        headroom: float = DEFAULT_HEADROOM,
        breaker: CircuitBreaker | None = None,
        learn: LearnedRate | None = None,
    ) -> None:
        self._cluster = bool(cluster)
        self._url = check_url(url, cluster=self._cluster)
        self._prefix = check_scope(prefix)
        self._timeout = require_number("timeout", timeout, strict=True)
        self._key_ttl_ms = max(1, round(require_number("key_ttl", key_ttl, strict=True) * 1000))
        self._pause = require_number("pause", pause)
        self._warn_every = require_number("warn_every", warn_every)
        self._local = InProcessCoordination(
            max_cooldown=max_cooldown,
            probe_lease=probe_lease,
            probe_poll=probe_poll,
            headroom=headroom,
            breaker=breaker,
            learn=learn,
        )
        self._learn = learn
        # The learned-rate scripts' arguments, fixed by ``learn``: made once, not per call.
        self._learned_args: _Args = []
        self._limited_args: _Args = []
        if learn is not None:
            self._learned_args = [
                repr(learn.increase),
                round(MEASURE_WINDOW * 1000),
                round(learn.forget * 1000),
            ]
            self._limited_args = [
                repr(learn.decrease),
                repr(learn.increase),
                repr(learn.min_rate),
                round(learn.hold * 1_000_000),
                round(MIN_SPAN * 1_000_000),
                round(learn.forget * 1000),
            ]
        # The breaker's settings and this process's window of outcomes; its state is
        # the fleet's, in Redis (the local backend's own breaker serves a fallback).
        self._breaker = breaker
        self._outcomes = Outcomes(breaker or CircuitBreaker(), max_scopes=1024)
        # At least a millisecond, so a cooldown key always outlives its cooldown.
        self._lease_ms = max(1, round(self._local.probe_lease * 1000))
        self._sync: _SyncScripts | None = None
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _AsyncScripts] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()
        self._fallbacks = 0
        self._down_until = float("-inf")
        self._warned_at = float("-inf")
        # While Redis is unavailable: when it went away, and whether that was warned of.
        self._down_since: float | None = None
        self._outage_warned = False

    @property
    def prefix(self) -> str:
        """The namespace of every key."""
        return self._prefix

    @property
    def learn(self) -> LearnedRate | None:
        """How each scope's rate is learned from its 429s (``None``: it is not)."""
        return self._learn

    @property
    def fallbacks(self) -> int:
        """Operations answered without Redis (it failed, timed out, or was being left alone)."""
        with self._lock:
            return self._fallbacks

    def key(self, scope: str, kind: str) -> str:
        """The Redis key of ``scope``'s ``kind`` (``"cooldown"``, ``"probe"`` or ``"budget"``)."""
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
        """Count the failure, leave Redis alone for a while, warn at most every interval.

        The first failure after Redis answered is also a :class:`CoordinationEvent` for
        the hooks (``available=False``).
        """
        now = time.monotonic()
        with self._lock:
            self._fallbacks += 1
            self._down_until = now + self._pause
            went_away = self._down_since is None
            if went_away:
                self._down_since = now
            warn = now - self._warned_at >= self._warn_every
            if warn:
                self._warned_at = now
                self._outage_warned = True
            count = self._fallbacks
        if warn:
            logger.warning(
                "Redis coordination unavailable (%s): calls go on with this process's own "
                "cooldowns and retry budget (%d operation(s) without Redis so far)",
                type(error).__name__,
                count,
                extra={"fallbacks": count},
            )
        if went_away:
            dispatch(
                CoordinationEvent(backend="redis", available=False, fallbacks=count, error=error)
            )

    def _answered(self) -> None:
        """After a command Redis answered: if it was unavailable, say that it is back.

        A WARNING (at the level of the one it closes, and only when that outage was warned
        of) and a :class:`CoordinationEvent` with ``available=True``.
        """
        now = time.monotonic()
        with self._lock:
            since, self._down_since = self._down_since, None
            warned, self._outage_warned = self._outage_warned, False
            count = self._fallbacks
        if since is None:  # it was available (or another thread said so first)
            return
        down_for = now - since
        if warned:
            logger.warning(
                "Redis coordination available again after %.1fs: cooldowns and the retry "
                "budget are shared again (%d operation(s) without Redis so far)",
                down_for,
                count,
                extra={"fallbacks": count, "down_for": down_for},
            )
        dispatch(
            CoordinationEvent(backend="redis", available=True, fallbacks=count, down_for=down_for)
        )

    def _run(
        self, command: Callable[[_SyncScripts], object], read: Callable[[object], _T]
    ) -> _T | None:
        """One sync command's answer as ``read`` checks it, or ``None`` when unavailable.

        Unavailable is any failure: Redis down, slow or refusing, and also whatever else
        answers on the port (a proxy, a server that only speaks the protocol) and makes
        the client or ``read`` raise. Coordination fails open; it never fails a call.
        """
        if not self._usable():
            return None
        try:
            answer = read(command(self._sync_scripts()))
        except Exception as error:  # noqa: BLE001 - fail open, whatever went wrong
            self._failed(error)
            return None
        self._answered()
        return answer

    def _sync_scripts(self) -> _SyncScripts:
        """The sync client, made on first use with every script loaded.

        Loading them all at once (a cluster client also connects as it is made) keeps
        the first 429's cooldown to one round trip instead of three (``NOSCRIPT``, then
        ``SCRIPT LOAD``, then ``EVALSHA``), while other calls are on their way.
        """
        with self._lock:
            scripts = self._sync
        if scripts is None:
            client: _redis.Redis | _cluster.RedisCluster
            # No client-side retries: a failed command falls back at once (fail open).
            if self._cluster:
                client = _cluster.RedisCluster.from_url(
                    self._url,
                    socket_timeout=self._timeout,
                    socket_connect_timeout=self._timeout,
                    retry=_Retry(_NoBackoff(), 0),
                )
            else:
                client = _redis.Redis.from_url(
                    self._url,
                    socket_timeout=self._timeout,
                    socket_connect_timeout=self._timeout,
                    retry=_Retry(_NoBackoff(), 0),
                )
            try:
                for script in _SCRIPTS:
                    client.script_load(script)
            except BaseException:
                client.close()
                raise
            with self._lock:
                if self._sync is None:
                    self._sync = _SyncScripts(client)
                else:  # another thread made one meanwhile
                    client.close()
                scripts = self._sync
        return scripts

    async def _arun(
        self, command: Callable[[_AsyncScripts], Awaitable[object]], read: Callable[[object], _T]
    ) -> _T | None:
        """:meth:`_run` on this event loop's client."""
        if not self._usable():
            return None
        try:
            scripts = await self._scripts_for_loop()
            async with asyncio.timeout(self._timeout):
                answer = read(await command(scripts))
        except Exception as error:  # noqa: BLE001 - fail open, whatever went wrong
            self._failed(error)
            return None
        self._answered()
        return answer

    async def _scripts_for_loop(self) -> _AsyncScripts:
        """This event loop's client (an asyncio connection belongs to one loop)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            scripts = self._async.get(loop)
        if scripts is None:
            client: _aredis.Redis | _acluster.RedisCluster
            if self._cluster:
                client = _acluster.RedisCluster.from_url(
                    self._url,
                    socket_timeout=self._timeout,
                    socket_connect_timeout=self._timeout,
                    retry=_AsyncRetry(_NoBackoff(), 0),
                )
            else:
                client = _aredis.Redis.from_url(
                    self._url,
                    socket_timeout=self._timeout,
                    socket_connect_timeout=self._timeout,
                    retry=_AsyncRetry(_NoBackoff(), 0),
                )
            try:
                for script in _SCRIPTS:
                    async with asyncio.timeout(self._timeout):
                        await client.script_load(script)
            except BaseException:
                await client.aclose()
                raise
            closer = _closed_with_loop(client)
            await anext(closer)
            scripts = _AsyncScripts(client, closer)
            with self._lock:
                # Only this loop's tasks make its client; the first one made is kept.
                kept = self._async.setdefault(loop, scripts)
            if kept is not scripts:
                await closer.aclose()
            scripts = kept
        return scripts

    # --- the Coordination interface ---------------------------------------------------

    def cooldown(self, scope: str) -> float:
        """Seconds left of ``scope``'s cooldown, by the Redis server's clock."""
        key = [self.key(scope, "cooldown")]
        micros = self._run(lambda s: s.read(keys=key), _micros)
        return self._left(scope, micros)

    async def acooldown(self, scope: str) -> float:
        """:meth:`cooldown` for async callers."""
        key = [self.key(scope, "cooldown")]
        micros = await self._arun(lambda s: s.read(keys=key), _micros)
        return self._left(scope, micros)

    def _left(self, scope: str, micros: int | None) -> float:
        """The later of Redis's answer (capped) and what this process saw itself."""
        shared = 0.0 if micros is None else self._capped(micros)
        return max(shared, self._local.cooldown(scope))

    def _capped(self, micros: int) -> float:
        """A cooldown read from Redis, in seconds, at most ``max_cooldown``.

        Another writer (an older version, another configuration, a hand-set key) may have
        stored a longer one; this process never waits longer than it was told to.
        """
        return min(micros / 1_000_000, self._local.max_cooldown)

    def extend_cooldown(self, scope: str, seconds: float) -> None:
        """Make ``scope``'s cooldown last at least ``seconds`` (capped) from now, everywhere."""
        self._local.extend_cooldown(scope, seconds)
        key, args = self._extend_args(scope, seconds)
        self._run(lambda s: s.extend(keys=key, args=args), _flag)

    async def aextend_cooldown(self, scope: str, seconds: float) -> None:
        """:meth:`extend_cooldown` for async callers."""
        self._local.extend_cooldown(scope, seconds)
        key, args = self._extend_args(scope, seconds)
        await self._arun(lambda s: s.extend(keys=key, args=args), _flag)

    def _extend_args(self, scope: str, seconds: float) -> tuple[list[str], _Args]:
        micros = round(min(seconds, self._local.max_cooldown) * 1_000_000)
        return self._cooldown_keys(scope), [micros, self._lease_ms]

    def _cooldown_keys(self, scope: str) -> list[str]:
        return [self.key(scope, "cooldown"), self.key(scope, "probe")]

    def _admit_keys(self, scope: str) -> list[str]:
        return [
            *self._cooldown_keys(scope),
            self.key(scope, "parked"),
            self.key(scope, "pace"),
            self.key(scope, "breaker"),
        ]

    def _breaker_keys(self, scope: str) -> list[str]:
        return [*self._cooldown_keys(scope), self.key(scope, "breaker")]

    def admit(self, scope: str, *, tokens: int = 0) -> Admission:
        """The scope's state in Redis; this process's own while a cooldown it saw lasts."""
        own = self._local.cooldown(scope)
        if own > 0:
            return Admission(own)
        token = new_probe_token()
        keys = self._admit_keys(scope)
        args: _Args = [token, repr(self._local.pace.headroom), tokens, _IN_FLIGHT_MS]
        answer = self._run(lambda s: s.admit(keys=keys, args=args), _state)
        if answer is None:
            return self._local.admit(scope, tokens=tokens)
        admission = self._admission(answer, token, scope)
        if admission.wait > 0 or self._learn is None:
            return admission
        key, learned = [self.key(scope, "rate")], self._learned_args
        held, lease = _held(
            admission, self._run(lambda s: s.learned(keys=key, args=learned), _micros)
        )
        if lease is not None:
            self.end_probe(scope, lease, lifted=False)
        return held

    async def aadmit(self, scope: str, *, tokens: int = 0) -> Admission:
        """:meth:`admit` for async callers."""
        own = self._local.cooldown(scope)
        if own > 0:
            return Admission(own)
        token = new_probe_token()
        keys = self._admit_keys(scope)
        args: _Args = [token, repr(self._local.pace.headroom), tokens, _IN_FLIGHT_MS]
        answer = await self._arun(lambda s: s.admit(keys=keys, args=args), _state)
        if answer is None:
            return self._local.admit(scope, tokens=tokens)
        admission = self._admission(answer, token, scope)
        if admission.wait > 0 or self._learn is None:
            return admission
        key, learned = [self.key(scope, "rate")], self._learned_args
        wait = await self._arun(lambda s: s.learned(keys=key, args=learned), _micros)
        held, lease = _held(admission, wait)
        if lease is not None:
            await self.aend_probe(scope, lease, lifted=False)
        return held

    def record_limited(self, scope: str) -> None:
        """A rate limit under ``scope``: decrease the fleet's learned rate (and this process's)."""
        if self._learn is None:
            return
        self._local.record_limited(scope)
        key, args = [self.key(scope, "rate")], self._limited_args
        self._run(lambda s: s.limited(keys=key, args=args), _flag)

    async def arecord_limited(self, scope: str) -> None:
        """:meth:`record_limited` for async callers."""
        if self._learn is None:
            return
        self._local.record_limited(scope)
        key, args = [self.key(scope, "rate")], self._limited_args
        await self._arun(lambda s: s.limited(keys=key, args=args), _flag)

    def _admission(self, answer: tuple[int, int], token: str, scope: str) -> Admission:
        """The admit script's ``{state, microseconds}`` as an :class:`Admission`."""
        state, micros = answer
        if state == _CLOSED:
            return Admission(self._capped(micros))
        if state == _PROBER:
            return Admission(0.0, token)
        if state == _PROBING:
            return Admission(poll_wait(self._local.probe_poll, micros / 1_000_000))
        if state == _PARKED:
            seconds = min(micros / 1_000_000, MAX_PARK)
            return Admission(seconds, refused=GiveUpReason.QUOTA_PARKED)
        if state == _PACED:
            return Admission(min(micros / 1_000_000, MAX_RESET))
        if state == _BROKEN:
            return Admission(self._capped(micros), refused=GiveUpReason.BREAKER_OPEN)
        if state == _BREAKER_PROBER:
            dispatch(BreakerEvent(scope=scope, state=BreakerState.HALF_OPEN))
            return Admission(0.0, token)
        return Admission(0.0)

    def end_probe(self, scope: str, token: str, *, lifted: bool) -> None:
        """End the probe holding ``token`` in Redis (and in this process, after a fallback)."""
        self._local.end_probe(scope, token, lifted=lifted)
        keys = self._breaker_keys(scope)
        ended = self._run(lambda s: s.end_probe(keys=keys, args=[token, int(lifted)]), _ended)
        self._closed(scope, ended)

    async def aend_probe(self, scope: str, token: str, *, lifted: bool) -> None:
        """:meth:`end_probe` for async callers."""
        self._local.end_probe(scope, token, lifted=lifted)
        keys = self._breaker_keys(scope)
        ended = await self._arun(
            lambda s: s.end_probe(keys=keys, args=[token, int(lifted)]), _ended
        )
        self._closed(scope, ended)

    @staticmethod
    def _closed(scope: str, ended: int | None) -> None:
        """Tell the hooks when ending a probe closed the scope's breaker."""
        if ended == _BREAKER_CLOSED:
            dispatch(BreakerEvent(scope=scope, state=BreakerState.CLOSED))

    def try_spend(self, scope: str, budget: RetryBudget) -> bool:
        """Take a token from ``scope``'s shared bucket; from ``budget`` itself without Redis."""
        key = [self.key(scope, "budget")]
        args: _Args = [repr(budget.capacity), self._key_ttl_ms]
        spent = self._run(lambda s: s.spend(keys=key, args=args), _flag)
        return budget.try_spend() if spent is None else spent

    async def atry_spend(self, scope: str, budget: RetryBudget) -> bool:
        """:meth:`try_spend` for async callers."""
        key = [self.key(scope, "budget")]
        args: _Args = [repr(budget.capacity), self._key_ttl_ms]
        spent = await self._arun(lambda s: s.spend(keys=key, args=args), _flag)
        return budget.try_spend() if spent is None else spent

    def record_success(self, scope: str, budget: RetryBudget) -> None:
        """Refill ``scope``'s shared bucket; ``budget`` itself without Redis."""
        key = [self.key(scope, "budget")]
        args: _Args = [repr(budget.capacity), repr(budget.refill), self._key_ttl_ms]
        if self._run(lambda s: s.record(keys=key, args=args), _flag) is None:
            budget.record_success()

    async def arecord_success(self, scope: str, budget: RetryBudget) -> None:
        """:meth:`record_success` for async callers."""
        key = [self.key(scope, "budget")]
        args: _Args = [repr(budget.capacity), repr(budget.refill), self._key_ttl_ms]
        if await self._arun(lambda s: s.record(keys=key, args=args), _flag) is None:
            budget.record_success()

    def park(self, scope: str, seconds: float) -> None:
        """Park ``scope`` for every process until its quota resets, ``seconds`` from now.

        Capped at :data:`~llm_retry.MAX_PARK`; the later reset wins; kept in this
        process too.
        """
        self._local.park(scope, seconds)
        key, args = [self.key(scope, "parked")], [round(min(seconds, MAX_PARK) * 1_000_000)]
        self._run(lambda s: s.park(keys=key, args=args), _flag)

    async def apark(self, scope: str, seconds: float) -> None:
        """:meth:`park` for async callers."""
        self._local.park(scope, seconds)
        key, args = [self.key(scope, "parked")], [round(min(seconds, MAX_PARK) * 1_000_000)]
        await self._arun(lambda s: s.park(keys=key, args=args), _flag)

    def record_outcome(self, scope: str, *, failed: bool) -> None:
        """Count an attempt's outcome for ``scope``'s breaker, which the fleet shares.

        This process counts its own outcomes; when they open the breaker, it opens in
        Redis for every process. A failure while the fleet's breaker is half-open (its
        probe's) opens it again for twice as long. Without Redis, this process's own
        breaker counts instead.
        """
        if self._breaker is None:
            return
        if not failed:
            self._count(scope, failed=False)
            return
        keys, args = self._breaker_keys(scope), self._breaker_args("failed")
        answer = self._run(lambda s: s.breaker(keys=keys, args=args), _state)
        if answer is None:
            self._local.record_outcome(scope, failed=True)
        elif answer[0] == _SHUT and self._count(scope, failed=True):
            args = self._breaker_args("open")
            answer = self._run(lambda s: s.breaker(keys=keys, args=args), _state)
        self._opened(scope, answer)

    async def arecord_outcome(self, scope: str, *, failed: bool) -> None:
        """:meth:`record_outcome` for async callers."""
        if self._breaker is None:
            return
        if not failed:
            self._count(scope, failed=False)
            return
        keys, args = self._breaker_keys(scope), self._breaker_args("failed")
        answer = await self._arun(lambda s: s.breaker(keys=keys, args=args), _state)
        if answer is None:
            self._local.record_outcome(scope, failed=True)
        elif answer[0] == _SHUT and self._count(scope, failed=True):
            args = self._breaker_args("open")
            answer = await self._arun(lambda s: s.breaker(keys=keys, args=args), _state)
        self._opened(scope, answer)

    def _count(self, scope: str, *, failed: bool) -> bool:
        """Count an outcome in this process's window; ``True`` when it opens the breaker."""
        with self._lock:
            tripped = self._outcomes.record(scope, time.monotonic(), failed=failed)
            if tripped:
                self._outcomes.forget(scope)
        return tripped

    def _breaker_args(self, what: str) -> _Args:
        """The breaker script's arguments (a backend without a breaker only reads)."""
        settings = self._breaker or CircuitBreaker()
        return [
            what,
            round(settings.open_for * 1_000_000),
            self._lease_ms,
            round(settings.max_open_for * 1_000_000),
        ]

    @staticmethod
    def _opened(scope: str, answer: tuple[int, int] | None) -> None:
        """Tell the hooks when this process opened the fleet's breaker."""
        if answer is not None and answer[0] == _OPENED:
            seconds = answer[1] / 1_000_000
            dispatch(BreakerEvent(scope=scope, state=BreakerState.OPEN, open_for=seconds))

    def breaker_state(self, scope: str) -> tuple[BreakerState, float]:
        """The fleet's breaker of ``scope`` and the seconds to its probe.

        This process's own breaker when Redis is unavailable.
        """
        keys, args = self._breaker_keys(scope), self._breaker_args("read")
        answer = self._run(lambda s: s.breaker(keys=keys, args=args), _state)
        if answer is None:
            return self._local.breaker_state(scope)
        state, micros = answer
        if state == _OPEN:
            return BreakerState.OPEN, self._capped(micros)
        if state == _HALF_OPEN:
            return BreakerState.HALF_OPEN, 0.0
        return BreakerState.CLOSED, 0.0

    def record_limits(self, scope: str, limits: RateLimits) -> None:
        """Share a response's rate-limit windows with the fleet (and keep them here too).

        Every process then counts its admitted requests against the same statement.
        """
        self._local.record_limits(scope, limits)
        key, args = [self.key(scope, "pace")], _pace_args(limits)
        self._run(lambda s: s.pace(keys=key, args=args), _flag)

    async def arecord_limits(self, scope: str, limits: RateLimits) -> None:
        """:meth:`record_limits` for async callers."""
        self._local.record_limits(scope, limits)
        key, args = [self.key(scope, "pace")], _pace_args(limits)
        await self._arun(lambda s: s.pace(keys=key, args=args), _flag)

    # --- lifecycle --------------------------------------------------------------------

    def close(self) -> None:
        """Close the sync client's connections, if it made them."""
        with self._lock:
            scripts, self._sync = self._sync, None
        if scripts is not None:
            if isinstance(scripts.client, _cluster.RedisCluster):
                # close() leaves the nodes' pools connected (redis-py 8.1).
                scripts.client.disconnect_connection_pools()  # type: ignore[no-untyped-call]
            scripts.client.close()

    async def aclose(self) -> None:
        """Close the running event loop's async client, if it made one."""
        with self._lock:
            scripts = self._async.pop(asyncio.get_running_loop(), None)
        if scripts is not None:
            await scripts.closer.aclose()

    def __repr__(self) -> str:
        cluster = ", cluster=True" if self._cluster else ""
        return f"RedisCoordination(prefix={self._prefix!r}, timeout={self._timeout:g}{cluster})"
