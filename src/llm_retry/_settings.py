"""A retry policy's data: a frozen description of how LLM calls are retried.

:class:`RetrySettings` holds the fields (validated on construction, buildable from a
mapping or the environment) and what reads them without running a call: the scope a
call shares, its rate limits, its budget. :class:`~llm_retry.RetryPolicy` (in
``_core``) adds the entry points that apply it, so the call machinery reads the data
downward. The policy is shared and immutable, apart from its ``stats`` counters.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self, cast

from llm_errors import DEFAULT_RETRYABLE_CODES, classify
from llm_retry._aimd import LearnedRate
from llm_retry._budget import RetryBudget
from llm_retry._checks import (
    Codes,
    require_bool,
    require_callable,
    require_int,
    require_number,
)
from llm_retry._config import parse_bool, parse_environ, parse_mapping
from llm_retry._coordination import (
    DEFAULT_SCOPE,
    Coordination,
    FailOpen,
    Scope,
    check_scope,
    named_scope,
)
from llm_retry._events import RetryEvent, log_retry
from llm_retry._limits import MAX_COUNT, RateLimits, read_rate_limits
from llm_retry._stats import RetryStats
from llm_retry._strategies import (
    DEFAULT_INITIAL_WAIT,
    DEFAULT_JITTER,
    DEFAULT_MAX_RETRY_AFTER,
    DEFAULT_MAX_WAIT,
    DEFAULT_MULTIPLIER,
    Classifier,
    check_backoff,
    check_retry_on,
)

__all__ = ["RetrySettings"]


@dataclass(frozen=True, slots=True)
class RetrySettings:
    """The data of a :class:`~llm_retry.RetryPolicy`: its fields, their checks, how to read them.

    The fields are documented on :class:`~llm_retry.RetryPolicy`, the class to use;
    this one holds no call machinery, so the core that runs calls reads it downward.

    .. versionadded:: 0.3.0
    """

    max_attempts: int = 4
    deadline: float = 90.0
    initial_wait: float = DEFAULT_INITIAL_WAIT
    max_wait: float = DEFAULT_MAX_WAIT
    multiplier: float = DEFAULT_MULTIPLIER
    jitter: bool = DEFAULT_JITTER
    retry_on: Codes = DEFAULT_RETRYABLE_CODES
    respect_retry_after: bool = True
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER
    wait_for_reset: float = 0.0
    classifier: Classifier = classify
    budget: RetryBudget | None = None
    scope: Scope | None = None
    coordination: Coordination | None = None
    estimate_tokens: Callable[..., int] | None = None
    on_retry: Callable[[RetryEvent], object] | None = log_retry
    sleep: Callable[[float], object] = time.sleep
    async_sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    stats: RetryStats = field(default_factory=RetryStats, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        require_int("max_attempts", self.max_attempts, minimum=1)
        require_number("deadline", self.deadline, strict=True, finite=False)
        require_number("initial_wait", self.initial_wait)
        require_number("max_wait", self.max_wait)
        check_backoff(self.initial_wait, self.max_wait, name="initial_wait")
        require_number("multiplier", self.multiplier, minimum=1.0)
        require_bool("jitter", self.jitter)
        # Normalised once, so equality, hashing and repr see the codes, not their spelling.
        object.__setattr__(self, "retry_on", check_retry_on("retry_on", self.retry_on))
        require_bool("respect_retry_after", self.respect_retry_after)
        require_number("max_retry_after", self.max_retry_after)
        require_number("wait_for_reset", self.wait_for_reset)
        require_callable("classifier", self.classifier)
        if self.budget is not None and not isinstance(self.budget, RetryBudget):
            raise TypeError(
                f"budget must be a RetryBudget or None, got {type(self.budget).__name__}"
            )
        if isinstance(self.scope, str):
            check_scope(self.scope)
        else:
            require_callable("scope", self.scope, optional=True)
        require_callable("estimate_tokens", self.estimate_tokens, optional=True)
        if self.coordination is not None and not isinstance(self.coordination, Coordination):
            raise TypeError(
                "coordination must be a Coordination (InProcessCoordination, "
                f"RedisCoordination) or None, got {type(self.coordination).__name__}"
            )
        require_callable("on_retry", self.on_retry, optional=True)
        require_callable("sleep", self.sleep)
        require_callable("async_sleep", self.async_sleep)
        require_callable("clock", self.clock)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, object]) -> Self:
        """Build a policy from plain settings, e.g. a parsed TOML or JSON section.

        Keys are field names among ``max_attempts``, ``deadline``, ``initial_wait``,
        ``max_wait``, ``multiplier``, ``jitter``, ``retry_on``, ``respect_retry_after``,
        ``max_retry_after`` and ``scope`` (a name); values may be typed or strings
        (``retry_on`` as a list of code names or one comma-separated string). Anything
        else is a ``ValueError`` naming the key. Set the callables and objects
        (``budget``, ``coordination``, ``on_retry``…) afterwards with
        ``dataclasses.replace``.

        .. versionadded:: 0.1.0
        """
        return cls(**cast("dict[str, Any]", parse_mapping(mapping)))

    @classmethod
    def from_env(cls, prefix: str = "LLM_RETRY_", environ: Mapping[str, str] | None = None) -> Self:
        """Build a policy from ``{prefix}{FIELD}`` variables, e.g. ``LLM_RETRY_MAX_ATTEMPTS=6``.

        Unknown ``{prefix}*`` variables are an error (a typo should not pass silently);
        empty ones count as unset. ``LLM_RETRY_RETRY_ON=RATE_LIMIT,SERVER`` sets the codes.
        ``LLM_RETRY_REDIS_URL`` shares cooldowns and budget tokens through Redis (a
        :class:`~llm_retry.redis.RedisCoordination`, which needs the
        ``llm-resilience[redis]`` extra), under keys prefixed ``LLM_RETRY_REDIS_PREFIX``,
        learning each scope's rate from its 429s when ``LLM_RETRY_REDIS_LEARN_RATE`` is
        true (``LearnedRate()``); a URL a Redis client cannot use (``localhost:6379``,
        without ``redis://``) is a ``ValueError`` naming the variable.

        .. versionadded:: 0.1.0
        .. versionchanged:: 0.3.0 ``LLM_RETRY_REDIS_LEARN_RATE``.
        """
        env = dict(os.environ if environ is None else environ)
        url = env.pop(f"{prefix}REDIS_URL", "").strip()
        key_prefix = env.pop(f"{prefix}REDIS_PREFIX", "").strip()
        learn_name = f"{prefix}REDIS_LEARN_RATE"
        learn = parse_bool(learn_name, env.pop(learn_name, "").strip() or "false") is True
        kwargs = parse_environ(env, prefix=prefix)
        if learn and not url:
            raise ValueError(f"{learn_name} is set but {prefix}REDIS_URL is not")
        if url:
            kwargs["coordination"] = _redis_coordination(url, key_prefix, prefix, learn=learn)
        return cls(**cast("dict[str, Any]", kwargs))

    def record_rate_limits(
        self,
        headers: Mapping[str, str] | Iterable[tuple[str, str]],
        *,
        scope: str | None = None,
        now: float | None = None,
    ) -> RateLimits:
        """Read a response's rate-limit headers and pace later attempts by them.

        Call it with every response's headers, success or error, of a client the
        policy does not see (the Mistral adapter does it itself). Under the backend's
        ``headroom``, an attempt under ``scope`` then waits for the window's refill
        instead of being sent into a 429. Without ``coordination`` nothing is kept;
        the headers are read all the same. Never raises for the headers' content. With
        a Redis backend the statement is shared with the fleet (one command; async
        callers use :meth:`arecord_rate_limits`).

        Args:
            headers: The response's headers (see :func:`llm_retry.read_rate_limits`).
            scope: The scope the response's call ran under; default: :meth:`scope_of`
                with no arguments (the policy's ``scope`` name, else ``"default"``).
            now: Epoch seconds the response arrived (for a reset stated as a time in a
                response without ``Date``); default: now.

        Returns:
            What the headers stated.

        .. versionadded:: 0.3.0
        """
        limits = read_rate_limits(headers, now=now)
        if self.coordination is not None:
            named = self._given_scope(scope)
            FailOpen(self.coordination).record_limits(named, limits)
        return limits

    async def arecord_rate_limits(
        self,
        headers: Mapping[str, str] | Iterable[tuple[str, str]],
        *,
        scope: str | None = None,
        now: float | None = None,
    ) -> RateLimits:
        """:meth:`record_rate_limits` for async callers: a Redis backend's write is awaited.

        .. versionadded:: 0.3.0
        """
        limits = read_rate_limits(headers, now=now)
        if self.coordination is not None:
            named = self._given_scope(scope)
            await FailOpen(self.coordination).arecord_limits(named, limits)
        return limits

    def try_spend(self, *, scope: str | None = None) -> bool:
        """Take one token from ``budget`` for a retry the policy does not run itself.

        The Mistral adapter spends one on every continuation of a cut stream, so that
        resumes and retries share one bound against storms. ``True`` without a budget;
        with ``coordination`` the token comes from ``scope``'s bucket (default: the
        policy's scope) and a failing backend grants it, as it does for retries. Async
        callers with a Redis backend use :meth:`atry_spend`.

        .. versionadded:: 0.3.0
        """
        budget = self.budget
        if budget is None:
            return True
        if self.coordination is None:
            return budget.try_spend()
        named = self._given_scope(scope)
        return FailOpen(self.coordination).try_spend(named, budget)

    async def atry_spend(self, *, scope: str | None = None) -> bool:
        """:meth:`try_spend` for async callers: a Redis backend's command is awaited.

        .. versionadded:: 0.3.0
        """
        budget = self.budget
        if budget is None:
            return True
        if self.coordination is None:
            return budget.try_spend()
        named = self._given_scope(scope)
        return await FailOpen(self.coordination).atry_spend(named, budget)

    def _given_scope(self, scope: str | None) -> str:
        """``scope`` checked, or the policy's own when none is given (records and spends)."""
        return self.scope_of() if scope is None else check_scope(scope)

    def scope_of(self, *args: object, **kwargs: object) -> str:
        """The scope a call with these arguments shares its cooldown, budget and pace under.

        The policy's ``scope`` (a name, or its function called with the arguments), else
        the first argument's ``llm_retry_scope``, else ``"default"``: what the policy
        uses when it runs ``fn(*args, **kwargs)`` with a ``coordination`` backend.

        .. versionadded:: 0.3.0
        """
        return named_scope(self.scope, args, kwargs) or DEFAULT_SCOPE

    def tokens_of(self, *args: object, **kwargs: object) -> int:
        """The tokens a call with these arguments is estimated to spend (``0``: no estimate).

        ``estimate_tokens`` called with the arguments; what it returns must be a whole
        number from ``0`` to ``10**12``, else a ``ValueError`` (a ``TypeError`` for a
        non-integer) names the field. Without it, the first argument's
        ``llm_retry_tokens`` when that is such a number (the Mistral adapter's calls
        estimate their request's tokens this way), else ``0``.

        .. versionadded:: 0.3.0
        """
        if self.estimate_tokens is None:
            named: object = getattr(args[0], "llm_retry_tokens", None) if args else None
            if isinstance(named, bool) or not isinstance(named, int):
                return 0
            return named if 0 <= named <= MAX_COUNT else 0
        return require_int(
            "estimate_tokens()", self.estimate_tokens(*args, **kwargs), minimum=0, maximum=MAX_COUNT
        )


def _redis_coordination(url: str, key_prefix: str, env_prefix: str, *, learn: bool) -> Coordination:
    """A Redis backend for ``from_env``; the optional ``redis`` package is imported here."""
    try:
        from llm_retry.redis import RedisCoordination  # noqa: PLC0415 - the optional extra
        from llm_retry.redis._backend import check_url  # noqa: PLC0415
    except ImportError as error:
        raise ImportError(
            f"{env_prefix}REDIS_URL is set but the redis package is not installed: "
            "pip install 'llm-resilience[redis]'"
        ) from error
    check_url(url, name=f"{env_prefix}REDIS_URL")  # the error names the variable
    options: dict[str, Any] = {"learn": LearnedRate() if learn else None}
    if key_prefix:
        options["prefix"] = key_prefix
    return RedisCoordination(url, **options)
