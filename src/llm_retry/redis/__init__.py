"""Fleet-wide cooldowns and retry budgets in Redis (install ``llm-resilience[redis]``).

Every process of a fleet that points its policy at the same Redis and scope shares one
cooldown and one retry budget there, so a rate limit seen by one worker is honoured by
all, and an outage spends one budget instead of one per process.

Each operation is one Lua script, so it is atomic on the server: a cooldown keeps the
later of the stored and the new deadline, the token bucket is read and written in one
step. Deadlines are in the Redis server's clock (``TIME``), never a machine's own.

Keys are ``{prefix}:{<scope>}:cooldown`` and ``{prefix}:{<scope>}:budget``: the braces
are a Redis Cluster hash tag, so a scope's keys would share a slot (the client itself is
a standalone one). Every key has a TTL: a cooldown key lives until its cooldown ends
(plus one second), a budget key for ``key_ttl`` seconds after its last use, and a full
bucket is no key at all. An idle fleet leaves nothing behind.

Redis failures never fail a call: each command has a short timeout (``timeout``, 50 ms
by default); on a failure the call goes on with this process's own state (the
:class:`~llm_retry.InProcessCoordination` cooldowns it also keeps, the
:class:`~llm_retry.RetryBudget` object), Redis is left alone for ``pause`` seconds, a
WARNING is logged at most once per ``warn_every`` seconds, and :attr:`fallbacks` counts
the operations answered without Redis.

.. versionadded:: 0.2.0
"""

from llm_retry.redis._backend import DEFAULT_PREFIX, RedisCoordination

__all__ = ["DEFAULT_PREFIX", "RedisCoordination"]
