"""Tenacity strategies that route on classified codes and honour server-directed waits.

The decisions are pure functions of an exception and a few settings
(:func:`is_retryable`, :func:`server_wait`, :func:`backoff_ceiling`); the public
strategies are thin tenacity shells over them, so they compose with tenacity's own
(``retry_if_code() | retry_if_exception_type(MyError)``, ``wait_... + wait_fixed(1)``,
``stop_after_attempt(4) | stop_if_retry_after_exceeds(60)``). :class:`~llm_retry.RetryPolicy`
uses the same pure functions, so both paths decide alike.

Everything is derived from ``retry_state.outcome.exception()``; nothing is stored on
tenacity objects, so one strategy instance may serve many concurrent calls.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Container
from typing import Final, Protocol, TypeAlias

import tenacity as _t

from llm_errors import DEFAULT_RETRYABLE_CODES, Classification, ErrorCode, classify
from llm_retry._checks import (
    Codes,
    require_bool,
    require_callable,
    require_codes,
    require_number,
)

__all__ = [
    "DEFAULT_INITIAL_WAIT",
    "DEFAULT_JITTER",
    "DEFAULT_MAX_RETRY_AFTER",
    "DEFAULT_MAX_WAIT",
    "DEFAULT_MULTIPLIER",
    "Backoff",
    "Classifier",
    "backoff_ceiling",
    "check_backoff",
    "check_retry_on",
    "failure",
    "is_retryable",
    "planned_wait",
    "require_failure",
    "retry_if_code",
    "server_wait",
    "stop_if_retry_after_exceeds",
    "wait_retry_after_or_backoff",
]

#: What a classifier looks like to the retry layer.
Classifier: TypeAlias = Callable[[BaseException], Classification]

# The defaults of both RetryPolicy and the public strategies, in one place.
#: Backoff ceiling after the first failure, in seconds.
DEFAULT_INITIAL_WAIT: Final = 1.0
#: Growth of the backoff ceiling per attempt.
DEFAULT_MULTIPLIER: Final = 2.0
#: Largest backoff ceiling, in seconds.
DEFAULT_MAX_WAIT: Final = 30.0
#: Full jitter on the backoff.
DEFAULT_JITTER: Final = True
#: Longest server-directed wait accepted, in seconds.
DEFAULT_MAX_RETRY_AFTER: Final = 60.0


class Backoff(Protocol):
    """The wait settings :func:`planned_wait` reads (a ``RetryPolicy`` is one)."""

    @property
    def initial_wait(self) -> float: ...
    @property
    def multiplier(self) -> float: ...
    @property
    def max_wait(self) -> float: ...
    @property
    def jitter(self) -> bool: ...
    @property
    def max_retry_after(self) -> float: ...


def check_backoff(initial: float, max_wait: float, *, name: str) -> None:
    """Refuse an initial wait (called ``name``) above the largest one (both numbers already)."""
    if initial > max_wait:
        raise ValueError(f"{name} ({initial:g}) must be <= max_wait ({max_wait:g})")


def check_retry_on(name: str, codes: object) -> frozenset[ErrorCode]:
    """Read a set of retryable codes (see ``require_codes``); never ``ABORTED``."""
    checked = require_codes(name, codes)
    if ErrorCode.ABORTED in checked:
        raise ValueError(f"{name} must not contain ABORTED: a cancelled call is never retried")
    return checked


def is_retryable(
    error: BaseException, retry_on: Container[ErrorCode], classifier: Classifier
) -> bool:
    """Whether ``error`` may be retried under ``retry_on``.

    Only ``Exception`` subclasses qualify: ``asyncio.CancelledError``, ``KeyboardInterrupt``,
    ``SystemExit`` and ``GeneratorExit`` are never retried, nor even classified.
    ``ABORTED`` never qualifies, whatever ``retry_on`` says.
    """
    if not isinstance(error, Exception):
        return False
    code = classifier(error).code
    return code is not ErrorCode.ABORTED and code in retry_on


def server_wait(classification: Classification, *, now: float | None = None) -> float | None:
    """The wait the server asked for (``Retry-After``/``retry-after-ms``), if it is usable.

    Where it stated no duration but an instant (``resets_at``), the time until then,
    measured against ``now`` (epoch seconds; default the current time); an instant
    already past is a wait of 0. A spent quota waits for the later of the two: a
    Gemini per-day quota comes with a RetryInfo delay of seconds, but it is back only
    at its reset. Negative and NaN values are treated as absent, so the backoff applies.
    """
    seconds = classification.retry_after
    if classification.resets_at is not None and (
        seconds is None or classification.code is ErrorCode.QUOTA_EXCEEDED
    ):
        until = max(0.0, classification.resets_at - (time.time() if now is None else now))
        seconds = until if seconds is None or not seconds >= 0 else max(seconds, until)
    if seconds is None or not seconds >= 0:
        return None
    return seconds


def backoff_ceiling(attempt: int, *, initial: float, multiplier: float, max_wait: float) -> float:
    """``initial * multiplier**(attempt - 1)``, capped at ``max_wait`` (overflow-safe).

    ``attempt`` is the attempt that just failed, counting from 1.
    """
    if initial == 0:
        return 0.0
    try:
        ceiling = initial * multiplier ** (attempt - 1)
    except OverflowError:
        return max_wait
    return min(ceiling, max_wait)


def full_jitter(ceiling: float) -> float:
    """AWS "full jitter": uniform in ``[0, ceiling]``."""
    return random.uniform(0.0, ceiling)  # noqa: S311 - jitter, not cryptography


def planned_wait(server: float | None, attempt: int, settings: Backoff) -> float:
    """The wait after failed ``attempt``: the server's (capped) if any, else the backoff."""
    if server is not None:
        return min(server, settings.max_retry_after)
    ceiling = backoff_ceiling(
        attempt,
        initial=settings.initial_wait,
        multiplier=settings.multiplier,
        max_wait=settings.max_wait,
    )
    return full_jitter(ceiling) if settings.jitter else ceiling


def failure(retry_state: _t.RetryCallState) -> BaseException | None:
    """The exception of the attempt that just ended, or ``None`` if it succeeded."""
    outcome = retry_state.outcome
    return None if outcome is None else outcome.exception()


def require_failure(retry_state: _t.RetryCallState) -> BaseException:
    """The failed attempt's exception, for strategies that only run after a failure."""
    error = failure(retry_state)
    if error is None:
        raise RuntimeError("tenacity asked for a wait after an attempt that did not fail")
    return error


class _RetryIfCode(_t.retry_base):
    def __init__(self, codes: frozenset[ErrorCode], classifier: Classifier) -> None:
        self._codes = codes
        self._classifier = classifier

    def __call__(self, retry_state: _t.RetryCallState) -> bool:
        error = failure(retry_state)
        return error is not None and is_retryable(error, self._codes, self._classifier)

    def __repr__(self) -> str:
        return f"retry_if_code({sorted(self._codes)})"


def retry_if_code(
    codes: Codes = DEFAULT_RETRYABLE_CODES,
    *,
    classifier: Classifier = classify,
) -> _t.retry_base:
    """Retry when the classified code of the failure is in ``codes``.

    Args:
        codes: The retryable codes: one ``ErrorCode``, a string of code names separated
            by commas and/or blanks in any case (``"RATE_LIMIT,SERVER"``), or a
            collection of codes and names. ``ABORTED`` is refused; an unknown name is a
            ``ValueError`` naming it and listing the codes.
        classifier: Routes an exception to a :class:`~llm_errors.Classification`.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0
       Code names are accepted.
    .. versionchanged:: 0.3.0
       One code, or one string of comma-separated names, is accepted.
    """
    require_callable("classifier", classifier)
    return _RetryIfCode(check_retry_on("codes", codes), classifier)


class _WaitRetryAfterOrBackoff(_t.wait.wait_base):
    def __init__(
        self,
        *,
        initial_wait: float,
        multiplier: float,
        max_wait: float,
        jitter: bool,
        max_retry_after: float,
        classifier: Classifier,
    ) -> None:
        self.initial_wait = initial_wait
        self.multiplier = multiplier
        self.max_wait = max_wait
        self.jitter = jitter
        self.max_retry_after = max_retry_after
        self._classifier = classifier

    def __call__(self, retry_state: _t.RetryCallState) -> float:
        error = failure(retry_state)
        server = server_wait(self._classifier(error)) if isinstance(error, Exception) else None
        return planned_wait(server, retry_state.attempt_number, self)


def wait_retry_after_or_backoff(
    *,
    initial: float = DEFAULT_INITIAL_WAIT,
    multiplier: float = DEFAULT_MULTIPLIER,
    max_wait: float = DEFAULT_MAX_WAIT,
    jitter: bool = DEFAULT_JITTER,
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
    classifier: Classifier = classify,
) -> _t.wait.wait_base:
    """Wait what the server asked for, else exponential backoff with full jitter.

    A server-directed wait (``Retry-After``, ``retry-after-ms``, read from the
    classification's ``retry_after``) replaces the backoff and is capped at
    ``max_retry_after``; pair this with :func:`stop_if_retry_after_exceeds` to give up
    instead of waiting less than the server asked. The backoff after attempt *n* is
    ``initial * multiplier**(n-1)`` capped at ``max_wait``, then, with ``jitter``,
    uniform in ``[0, that]``.

    .. versionadded:: 0.1.0
    """
    initial = require_number("initial", initial)
    max_wait = require_number("max_wait", max_wait)
    check_backoff(initial, max_wait, name="initial")
    require_callable("classifier", classifier)
    return _WaitRetryAfterOrBackoff(
        initial_wait=initial,
        multiplier=require_number("multiplier", multiplier, minimum=1.0),
        max_wait=max_wait,
        jitter=require_bool("jitter", jitter),
        max_retry_after=require_number("max_retry_after", max_retry_after),
        classifier=classifier,
    )


class _StopIfRetryAfterExceeds(_t.stop.stop_base):
    def __init__(self, max_retry_after: float, classifier: Classifier) -> None:
        self._max_retry_after = max_retry_after
        self._classifier = classifier

    def __call__(self, retry_state: _t.RetryCallState) -> bool:
        error = failure(retry_state)
        if not isinstance(error, Exception):
            return False
        server = server_wait(self._classifier(error))
        return server is not None and server > self._max_retry_after


def stop_if_retry_after_exceeds(
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER, *, classifier: Classifier = classify
) -> _t.stop.stop_base:
    """Stop at once when the server asks for a wait above ``max_retry_after`` seconds.

    Waiting less than the server asked would only earn another refusal, and waiting
    longer than the caller tolerates is worse than failing now.

    .. versionadded:: 0.1.0
    """
    require_callable("classifier", classifier)
    return _StopIfRetryAfterExceeds(
        require_number("max_retry_after", max_retry_after),
        classifier,
    )
