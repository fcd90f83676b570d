"""What a retry tells the outside: hook events, give-up records and the default log line.

Nothing here carries the call's arguments, results or error messages: LLM call
arguments are prompts, and provider error messages often echo them. Events name the
call (by its scope, or the wrapped callable), the classified code and the timings; the
exception object itself is handed to hooks (users decide what to do with it) but never
logged or repr'd.
"""

from __future__ import annotations

import contextlib
import enum
import logging
from dataclasses import dataclass, field
from typing import TypeAlias

from llm_errors import Classification, ErrorCode
from llm_retry._breaker import BreakerState

__all__ = [
    "BreakerEvent",
    "CooldownEvent",
    "CoordinationEvent",
    "GiveUpEvent",
    "GiveUpReason",
    "HookEvent",
    "RetryEvent",
    "RetryInfo",
    "annotate",
    "log_retry",
    "retry_info",
]

#: The logger the default ``on_retry`` hook writes to.
logger = logging.getLogger("llm_retry")

_INFO_ATTRIBUTE = "llm_retry_info"


class GiveUpReason(enum.StrEnum):
    """Why a call stopped retrying and raised its error."""

    NOT_RETRYABLE = "not_retryable"
    """The error's code is not in ``retry_on`` (or the error is not an ``Exception``)."""
    MAX_ATTEMPTS = "max_attempts"
    """``max_attempts`` attempts were made."""
    DEADLINE = "deadline"
    """The next wait would have ended after the deadline, so it was not started."""
    RETRY_AFTER_TOO_LONG = "retry_after_too_long"
    """The server asked for a wait above ``max_retry_after``."""
    BUDGET_EXHAUSTED = "budget_exhausted"
    """The shared :class:`~llm_retry.RetryBudget` had no token left."""
    COOLDOWN = "cooldown"
    """The scope's shared cooldown ends after the deadline, so no attempt was made."""
    BREAKER_OPEN = "breaker_open"
    """The scope's circuit breaker is open: the call failed at once, before its probe."""
    QUOTA_PARKED = "quota_parked"
    """The scope's quota is spent until a stated reset: the call failed at once."""
    STREAM_STARTED = "stream_started"
    """A stream failed after items reached the caller; a restart would duplicate them."""


@dataclass(frozen=True, slots=True)
class RetryEvent:
    """One retry about to happen, as passed to ``on_retry`` hooks.

    Attributes:
        target: The call's name, never its arguments: its scope when it names one (the
            policy's ``scope``, or the first argument's ``llm_retry_scope``: the Mistral
            adapter's calls say ``mistral:<model id>``), else the wrapped callable's
            module and qualified name (``myapp.llm.ask``; the block's ``name`` for
            ``attempts()``).
        attempt: The attempt that just failed, counting from 1.
        classification: How the failure was routed.
        sleep: The planned wait before the next attempt, in seconds.
        elapsed: Seconds since the call started, including earlier waits, when the
            retry was decided: the figure the deadline was checked with, so
            ``elapsed + sleep <= deadline`` holds.
        error: The exception; kept out of ``repr`` so logging an event cannot leak it.
        scope: The coordination scope the call shares state under (``""`` without a
            ``coordination`` backend).

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0 ``scope``.
    .. versionchanged:: 0.3.0
       ``target`` is the call's scope when it names one, never a private method of the
       library that wraps the call.
    """

    target: str
    attempt: int
    classification: Classification
    sleep: float
    elapsed: float
    error: BaseException = field(repr=False, compare=False)
    scope: str = ""


@dataclass(frozen=True, slots=True)
class RetryInfo:
    """How a call ended in an error, attached to that error by the retry wrapper.

    Read it with :func:`retry_info`; the same facts are in the error's notes.

    Attributes:
        code: The classified code of the raised error.
        reason: Why retrying stopped.
        attempts: Attempts made, counting the failed one.
        waited: Seconds spent waiting between attempts.
        elapsed: Seconds from the call's start to the give-up.
        detail: One sentence for humans (numbers and codes only, no payloads).
        items_delivered: For streams, items that reached the caller before the error.

    .. versionadded:: 0.1.0
    """

    code: ErrorCode
    reason: GiveUpReason
    attempts: int
    waited: float
    elapsed: float
    detail: str
    items_delivered: int | None = None

    def note(self) -> str:
        """The line added to the error's ``__notes__``."""
        return (
            f"llm_retry: gave up on {self.code} after {self.attempts} attempt(s) in "
            f"{self.elapsed:.2f}s ({self.waited:.2f}s waiting): {self.detail}"
        )


def annotate(error: BaseException, info: RetryInfo) -> None:
    """Attach ``info`` to ``error`` as an attribute and a note (the error is not wrapped).

    Exception types that refuse new attributes (a frozen dataclass exception refuses
    even ``__notes__``) are left as they are: annotating must never replace the error.
    """
    with contextlib.suppress(AttributeError, TypeError):
        setattr(error, _INFO_ATTRIBUTE, info)
    with contextlib.suppress(AttributeError, TypeError):
        error.add_note(info.note())


def retry_info(error: BaseException) -> RetryInfo | None:
    """The :class:`RetryInfo` a retry wrapper attached to ``error``, if any.

    .. versionadded:: 0.1.0
    """
    info = getattr(error, _INFO_ATTRIBUTE, None)
    return info if isinstance(info, RetryInfo) else None


def log_retry(event: RetryEvent) -> None:
    """The default ``on_retry`` hook: one WARNING on the ``llm_retry`` logger per retry.

    The message names the call (its scope, or the callable), the code and the error
    type: ``retrying mistral:mistral-small-latest in 1.00s: attempt 1 failed with
    RATE_LIMIT (RateLimitError)``; ``extra`` carries the
    same fields for structured logging (``code``, ``rule``, ``status``, ``attempt``,
    ``sleep``, ``elapsed``, ``target``). The error's message is left out on purpose.

    .. versionadded:: 0.1.0
    """
    c = event.classification
    logger.warning(
        "retrying %s in %.2fs: attempt %d failed with %s (%s)",
        event.target,
        event.sleep,
        event.attempt,
        c.code.value,
        type(event.error).__name__,
        extra={
            "code": c.code.value,
            "rule": c.rule,
            "status": c.status,
            "attempt": event.attempt,
            "sleep": event.sleep,
            "elapsed": event.elapsed,
            "target": event.target,
        },
    )


@dataclass(frozen=True, slots=True)
class GiveUpEvent:
    """A call that stopped retrying and is about to raise its error, as passed to hooks.

    Attributes:
        target: The call's name, as in :class:`~llm_retry.RetryEvent` (its scope when
            it names one, else the wrapped callable's qualified name).
        code: The classified code of the raised error.
        reason: Why retrying stopped.
        attempts: Attempts made, counting the failed one.
        elapsed: Seconds from the call's start to the give-up.
        classification: How the last failure was routed.
        error: The exception; kept out of ``repr`` so logging an event cannot leak it.
        scope: The coordination scope the call shared state under (``""`` without one).

    .. versionadded:: 0.2.0
    """

    target: str
    code: ErrorCode
    reason: GiveUpReason
    attempts: int
    elapsed: float
    classification: Classification
    error: BaseException = field(repr=False, compare=False)
    scope: str = ""

    @classmethod
    def from_info(
        cls,
        target: str,
        info: RetryInfo,
        classification: Classification,
        error: BaseException,
        scope: str = "",
    ) -> GiveUpEvent:
        """The event for the :class:`~llm_retry.RetryInfo` attached to ``error``."""
        return cls(
            target=target,
            code=info.code,
            reason=info.reason,
            attempts=info.attempts,
            elapsed=info.elapsed,
            classification=classification,
            error=error,
            scope=scope,
        )


@dataclass(frozen=True, slots=True)
class CooldownEvent:
    """A call about to wait for its scope's shared cooldown before an attempt, as passed to hooks.

    Sent at the first wait before an attempt: the looks that may follow for the same
    attempt (after each wait the call asks the backend again, for a cooldown another call
    extended meanwhile or for the result of another call's probe) are not sent again.

    Attributes:
        target: The call's name, as in :class:`~llm_retry.RetryEvent`.
        scope: The coordination scope whose cooldown the call waits out.
        attempt: The attempt that waits, counting from 1 (``1``: before the first).
        sleep: The planned wait, in seconds: what the backend said is left, plus up to
            10 % wake-up jitter, never past the deadline.
        elapsed: Seconds since the call started, including earlier waits.

    .. versionadded:: 0.3.0
    """

    target: str
    scope: str
    attempt: int
    sleep: float
    elapsed: float


@dataclass(frozen=True, slots=True)
class BreakerEvent:
    """A scope's circuit breaker opened, let its probe through, or closed, as passed to hooks.

    Attributes:
        scope: The coordination scope whose breaker changed.
        state: Where it stands now.
        open_for: For ``open``: the seconds it stays open before its probe (doubled
            after each failed probe); else ``0.0``.

    .. versionadded:: 0.3.0
    """

    scope: str
    state: BreakerState
    open_for: float = 0.0


@dataclass(frozen=True, slots=True)
class CoordinationEvent:
    """A coordination backend's shared store went away, or came back, as passed to hooks.

    The Redis backend sends one when a command fails after the store answered (calls go
    on with this process's own cooldowns and budget) and one when a command succeeds
    again after that. It also logs both itself (a WARNING, at most every ``warn_every``
    seconds, and an INFO line), as the policy's ``on_retry`` logs retries.

    Attributes:
        backend: Which kind of store: ``"redis"``.
        available: ``False``: it went away; ``True``: it answers again.
        fallbacks: Operations answered without the store so far (the backend's
            ``fallbacks``), counting from its creation.
        down_for: With ``available``, seconds from the failure that made it unavailable
            to the first answer after it; else ``0.0``.
        error: The failure that made it unavailable (``None`` when it came back); kept
            out of ``repr``.

    .. versionadded:: 0.3.0
    """

    backend: str
    available: bool
    fallbacks: int
    down_for: float = 0.0
    error: BaseException | None = field(default=None, repr=False, compare=False)

    @property
    def state(self) -> str:
        """``"available"`` or ``"unavailable"``: what the store became (a metric label)."""
        return "available" if self.available else "unavailable"


#: What a hook receives: a retry about to happen, the give-up, a wait for a shared
#: cooldown, a coordination store's change of state, or a breaker's.
HookEvent: TypeAlias = RetryEvent | GiveUpEvent | CooldownEvent | CoordinationEvent | BreakerEvent
