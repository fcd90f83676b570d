"""Per-policy counters, readable after (and during) calls from any thread."""

from __future__ import annotations

import threading
from collections import Counter

from llm_errors import ErrorCode
from llm_retry._events import GiveUpReason

__all__ = ["RetryStats"]


class RetryStats:
    """What every call made through one policy did, in total.

    A frozen :class:`~llm_retry.RetryPolicy` holds one of these as ``policy.stats``; the
    wrapper records into it, users only read. Reads take the same lock as writes, so a
    value is never torn, but two reads may straddle a concurrent call.

    .. versionadded:: 0.1.0
    """

    __slots__ = (
        "_attempts",
        "_calls",
        "_give_up_reasons",
        "_give_ups",
        "_lock",
        "_retries",
        "_successes",
        "_total_sleep",
    )

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls = 0
        self._attempts = 0
        self._retries = 0
        self._successes = 0
        self._total_sleep = 0.0
        self._give_ups: Counter[ErrorCode] = Counter()
        self._give_up_reasons: Counter[GiveUpReason] = Counter()

    @property
    def calls(self) -> int:
        """Calls started (a call is one invocation of the wrapped function or loop)."""
        with self._lock:
            return self._calls

    @property
    def attempts(self) -> int:
        """Attempts made, first attempts included."""
        with self._lock:
            return self._attempts

    @property
    def retries(self) -> int:
        """Attempts after a first one, i.e. waits started."""
        with self._lock:
            return self._retries

    @property
    def successes(self) -> int:
        """Calls that ended without an error (a stream: when it was exhausted or closed)."""
        with self._lock:
            return self._successes

    @property
    def total_sleep(self) -> float:
        """Seconds of planned waits, summed (waits skipped in testing mode included)."""
        with self._lock:
            return self._total_sleep

    @property
    def give_ups(self) -> dict[ErrorCode, int]:
        """Calls that ended in an error, by the error's code (a copy)."""
        with self._lock:
            return dict(self._give_ups)

    @property
    def give_up_reasons(self) -> dict[GiveUpReason, int]:
        """Calls that ended in an error, by why retrying stopped (a copy)."""
        with self._lock:
            return dict(self._give_up_reasons)

    def record_call(self) -> None:
        """Count a call starting."""
        with self._lock:
            self._calls += 1

    def record_attempt(self) -> None:
        """Count an attempt starting."""
        with self._lock:
            self._attempts += 1

    def record_retry(self, sleep: float) -> None:
        """Count a retry and the wait planned before it."""
        with self._lock:
            self._retries += 1
            self._total_sleep += sleep

    def record_success(self) -> None:
        """Count a call that ended without an error."""
        with self._lock:
            self._successes += 1

    def record_give_up(self, code: ErrorCode, reason: GiveUpReason) -> None:
        """Count a call that ended in an error."""
        with self._lock:
            self._give_ups[code] += 1
            self._give_up_reasons[reason] += 1

    def __repr__(self) -> str:
        with self._lock:
            give_ups = {str(code): n for code, n in sorted(self._give_ups.items())}
            return (
                f"RetryStats(calls={self._calls}, attempts={self._attempts}, "
                f"retries={self._retries}, successes={self._successes}, "
                f"total_sleep={self._total_sleep:.3f}, give_ups={give_ups})"
            )
