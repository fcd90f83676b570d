"""One call's retry state, and the tenacity strategies that read it.

A :class:`Call` is created per call and never shared, so it can hold the call's start
time, the waits it made and why it stopped, and build a fresh ``Retrying`` /
``AsyncRetrying`` (a shared tenacity object would mix the state of concurrent calls).
Its ``retry``/``wait``/``stop`` methods are tenacity strategies over the same pure
decisions as the public ones in ``_strategies``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import tenacity as _t

from llm_errors import Classification
from llm_retry._events import GiveUpReason, RetryEvent, RetryInfo, annotate
from llm_retry._strategies import (
    is_retryable,
    planned_wait,
    require_failure,
    server_wait,
)
from llm_retry._testing import active_recorder

if TYPE_CHECKING:
    from llm_retry._policy import RetryPolicy

__all__ = ["Call"]


class Call:
    """The state of one call through a :class:`~llm_retry.RetryPolicy`."""

    __slots__ = (
        "_last",
        "_policy",
        "_recorder",
        "_skipped",
        "_start",
        "_stop",
        "_target",
        "attempts",
        "waited",
    )

    def __init__(self, policy: RetryPolicy, target: str) -> None:
        self._policy = policy
        self._target = target
        self._recorder = active_recorder()
        self._start = policy.clock()
        self._skipped = 0.0
        self._last: tuple[BaseException, Classification, float | None] | None = None
        self._stop: tuple[GiveUpReason, str] | None = None
        self.attempts = 0
        self.waited = 0.0
        policy.stats.record_call()

    def elapsed(self) -> float:
        """Seconds since the call started; waits skipped in testing mode count too."""
        return self._policy.clock() - self._start + self._skipped

    def _judge(self, error: BaseException) -> tuple[Classification, float | None]:
        """Classify ``error`` and read its usable server wait, once per error.

        The strategies (``retry``, ``wait``, ``stop``, ``before_sleep``) all ask about
        the same failure; the answer is kept for the latest error only.
        """
        if self._last is None or self._last[0] is not error:
            policy = self._policy
            classification = policy.classifier(error)
            server = server_wait(classification) if policy.respect_retry_after else None
            self._last = (error, classification, server)
        return self._last[1], self._last[2]

    def classify(self, error: BaseException) -> Classification:
        """The policy's classification of ``error``."""
        return self._judge(error)[0]

    def requested_wait(self, error: BaseException) -> float | None:
        """The server-directed wait of ``error`` if usable and respected, else ``None``."""
        return self._judge(error)[1]

    # -- tenacity strategies -------------------------------------------------------

    def before(self, _retry_state: _t.RetryCallState) -> None:
        """Count an attempt."""
        self.attempts += 1
        self._policy.stats.record_attempt()

    def retry(self, retry_state: _t.RetryCallState) -> bool:
        """Retry exactly the codes in ``retry_on``."""
        outcome = retry_state.outcome
        error = None if outcome is None else outcome.exception()
        return error is not None and is_retryable(error, self._policy.retry_on, self.classify)

    def wait(self, retry_state: _t.RetryCallState) -> float:
        """The server-directed wait if usable, else the (jittered) backoff."""
        server = self.requested_wait(require_failure(retry_state))
        return planned_wait(server, retry_state.attempt_number, self._policy)

    def stop(self, retry_state: _t.RetryCallState) -> bool:
        """Stop on attempts, a too-long Retry-After, the deadline, then the budget.

        Runs after :meth:`wait`, so the planned wait is known: a wait that would end
        after the deadline is never started. The budget is asked last, so a token is
        only spent on a retry that will really happen.
        """
        policy = self._policy
        sleep = retry_state.upcoming_sleep
        server = self.requested_wait(require_failure(retry_state))
        if retry_state.attempt_number >= policy.max_attempts:
            self._stop = (GiveUpReason.MAX_ATTEMPTS, f"max_attempts={policy.max_attempts} reached")
        elif server is not None and server > policy.max_retry_after:
            self._stop = (
                GiveUpReason.RETRY_AFTER_TOO_LONG,
                (
                    f"the server asked to wait {server:g}s, "
                    f"above max_retry_after={policy.max_retry_after:g}s"
                ),
            )
        elif self.elapsed() + sleep > policy.deadline:
            self._stop = (
                GiveUpReason.DEADLINE,
                (
                    f"the next wait of {sleep:.2f}s would end after the deadline "
                    f"({policy.deadline:g}s)"
                ),
            )
        elif policy.budget is not None and not policy.budget.try_spend():
            self._stop = (
                GiveUpReason.BUDGET_EXHAUSTED,
                (
                    "the shared retry budget is exhausted (many calls are failing), "
                    "so this one was not retried"
                ),
            )
        else:
            return False
        return True

    def before_sleep(self, retry_state: _t.RetryCallState) -> None:
        """Record the retry and tell the ``on_retry`` hook."""
        error = require_failure(retry_state)
        event = RetryEvent(
            target=self._target,
            attempt=retry_state.attempt_number,
            classification=self.classify(error),
            sleep=retry_state.upcoming_sleep,
            elapsed=self.elapsed(),
            error=error,
        )
        self._policy.stats.record_retry(event.sleep)
        if self._recorder is not None:
            self._recorder.events.append(event)
        if self._policy.on_retry is not None:
            self._policy.on_retry(event)

    def _instant(self, seconds: float) -> float:
        """In testing mode, record the wait and turn it into zero; else keep it."""
        self.waited += seconds
        if self._recorder is None:
            return seconds
        self._recorder.sleeps.append(seconds)
        self._skipped += seconds
        return 0.0

    def sleep(self, seconds: float) -> None:
        """Wait with the policy's ``sleep`` (for zero seconds in testing mode)."""
        self._policy.sleep(self._instant(seconds))

    async def async_sleep(self, seconds: float) -> None:
        """Wait with the policy's ``async_sleep`` (for zero seconds in testing mode).

        Sleeping zero rather than not at all still yields to the event loop, with
        whatever library the policy's ``async_sleep`` belongs to.
        """
        await self._policy.async_sleep(self._instant(seconds))

    # -- tenacity controllers ------------------------------------------------------

    def retrying(self) -> _t.Retrying:
        """A fresh tenacity controller for this call only."""
        return _t.Retrying(sleep=self.sleep, **self._strategies())

    def async_retrying(self) -> _t.AsyncRetrying:
        """A fresh async tenacity controller for this call only."""
        return _t.AsyncRetrying(sleep=self.async_sleep, **self._strategies())

    def _strategies(self) -> dict[str, Any]:
        """What both controllers are built from, apart from how they sleep."""
        return {
            "stop": self.stop,
            "wait": self.wait,
            "retry": self.retry,
            "before": self.before,
            "before_sleep": self.before_sleep,
            "reraise": True,
        }

    # -- outcomes ------------------------------------------------------------------

    def got_through(self) -> None:
        """The retryable phase succeeded: refill the shared budget."""
        if self._policy.budget is not None:
            self._policy.budget.record_success()

    def succeeded(self) -> None:
        """The call ended without an error."""
        self._policy.stats.record_success()

    def give_up(self, error: Exception, *, delivered: int | None = None) -> None:
        """Count the failure and attach a :class:`~llm_retry.RetryInfo` to ``error``."""
        code = self.classify(error).code
        if delivered:
            reason, detail = (
                GiveUpReason.STREAM_STARTED,
                (
                    f"the stream failed after {delivered} item(s) reached the caller; "
                    "a restart would duplicate them"
                ),
            )
        elif self._stop is not None:
            reason, detail = self._stop
        else:
            reason, detail = GiveUpReason.NOT_RETRYABLE, f"{code} is not retried by this policy"
        self._policy.stats.record_give_up(code, reason)
        info = RetryInfo(
            code=code,
            reason=reason,
            attempts=self.attempts,
            waited=self.waited,
            elapsed=self.elapsed(),
            detail=detail,
            items_delivered=delivered,
        )
        annotate(error, info)
