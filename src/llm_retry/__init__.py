"""Retry LLM calls with tenacity: the right codes, Retry-After, deadlines and budgets.

One decorator for every kind of call (``@retry_llm(policy)`` or ``policy.wrap(fn)``
on sync and async functions and generators), the iterator form
(``for attempt in policy.attempts(): with attempt: ...``), composable tenacity
strategies, a shared :class:`RetryBudget` against retry storms, cooldowns and budgets
shared per scope by a :class:`Coordination` backend (in this process, or a fleet's Redis
with :mod:`llm_retry.redis`), fallback to another model, key or provider chosen by
the error's code (:func:`fallback`), and a testing mode.
"""

import typing

from llm_errors._version import module_attribute as _module_attribute
from llm_retry._aimd import LearnedRate
from llm_retry._breaker import BREAKER_CODES, BreakerState, CircuitBreaker
from llm_retry._budget import RetryBudget
from llm_retry._coordination import MAX_PARK, Admission, Coordination, InProcessCoordination
from llm_retry._core import Attempt, Attempts, RetryPolicy, retry_llm
from llm_retry._events import GiveUpReason, RetryEvent, RetryInfo, log_retry, retry_info
from llm_retry._fallback import (
    DEFAULT_FALLBACK_RULES,
    DEFAULT_FALLBACK_WAIT,
    FallbackRule,
    Hop,
    fallback,
    fallback_predicate,
)
from llm_retry._limits import RateLimits, Unit, Window, read_rate_limits
from llm_retry._stats import RetryStats
from llm_retry._strategies import (
    retry_if_code,
    stop_if_retry_after_exceeds,
    wait_retry_after_or_backoff,
)
from llm_retry._testing import RetryRecorder, instant_retries

__all__ = [
    "BREAKER_CODES",
    "DEFAULT_FALLBACK_RULES",
    "DEFAULT_FALLBACK_WAIT",
    "MAX_PARK",
    "Admission",
    "Attempt",
    "Attempts",
    "BreakerState",
    "CircuitBreaker",
    "Coordination",
    "FallbackRule",
    "GiveUpReason",
    "Hop",
    "InProcessCoordination",
    "LearnedRate",
    "RateLimits",
    "RetryBudget",
    "RetryEvent",
    "RetryInfo",
    "RetryPolicy",
    "RetryRecorder",
    "RetryStats",
    "Unit",
    "Window",
    "fallback",
    "fallback_predicate",
    "instant_retries",
    "log_retry",
    "read_rate_limits",
    "retry_if_code",
    "retry_info",
    "retry_llm",
    "stop_if_retry_after_exceeds",
    "wait_retry_after_or_backoff",
]

if typing.TYPE_CHECKING:
    #: The installed ``llm-resilience`` version (``0+unknown`` from a source tree never installed).
    #:
    #: .. versionadded:: 0.2.0
    __version__: str
else:

    def __getattr__(name: str) -> str:  # PEP 562: ``__version__`` is read when first used
        return _module_attribute(__name__, name)
