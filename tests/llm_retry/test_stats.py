"""Per-policy statistics after a mix of calls."""

import pytest

from llm_errors import AuthError, ErrorCode, ServerError
from llm_retry import GiveUpReason, RetryStats


def test_stats_count_calls_attempts_retries_and_give_ups(make_policy, script):
    """Counters add up across successes, retries and both kinds of give-up."""
    policy = make_policy(max_attempts=3)
    policy.wrap(script(ServerError, "ok"))()
    with pytest.raises(ServerError):
        policy.wrap(script(ServerError))()
    with pytest.raises(AuthError):
        policy.wrap(script(AuthError))()
    stats = policy.stats
    assert (stats.calls, stats.attempts, stats.retries, stats.successes) == (3, 6, 3, 1)
    assert stats.total_sleep == 1.0 + 1.0 + 2.0
    assert stats.give_ups == {ErrorCode.SERVER: 1, ErrorCode.AUTH: 1}
    assert stats.give_up_reasons == {GiveUpReason.MAX_ATTEMPTS: 1, GiveUpReason.NOT_RETRYABLE: 1}


def test_give_ups_are_copies():
    """Readers get snapshots they cannot use to corrupt the counters."""
    stats = RetryStats()
    stats.record_give_up(ErrorCode.SERVER, GiveUpReason.DEADLINE)
    stats.give_ups[ErrorCode.SERVER] = 99
    assert stats.give_ups == {ErrorCode.SERVER: 1}


def test_repr_summarises():
    """The repr shows every counter."""
    stats = RetryStats()
    stats.record_call()
    stats.record_attempt()
    stats.record_retry(0.5)
    stats.record_give_up(ErrorCode.TIMEOUT, GiveUpReason.MAX_ATTEMPTS)
    assert repr(stats) == (
        "RetryStats(calls=1, attempts=1, retries=1, successes=0, total_sleep=0.500, "
        "give_ups={'TIMEOUT': 1})"
    )
