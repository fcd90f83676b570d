"""Events, give-up records and the default log line: useful, and never a payload."""

import dataclasses
import logging
import pickle

import pytest

from llm_errors import Classification, ErrorCode, RateLimitError, ServerError
from llm_retry import RetryEvent, log_retry, retry_info

PROMPT = "PROMPT-SENTINEL summarise my medical record"
SECRET = "sk-proj-SENTINELsecretKEY0123456789"


def test_default_hook_logs_one_structured_warning_per_retry(make_policy, script, caplog):
    """One WARNING per retry on ``llm_retry`` with code, rule, status, attempt and sleep."""
    backend = script(RateLimitError("slow", status=429, retry_after=2.0), ServerError, "ok")
    wrapped = make_policy(on_retry=log_retry).wrap(backend)
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        wrapped(PROMPT, api_key=SECRET)
    records = [r for r in caplog.records if r.name == "llm_retry"]
    assert [r.levelno for r in records] == [logging.WARNING, logging.WARNING]
    first = records[0]
    assert (first.code, first.rule, first.status, first.attempt, first.sleep) == (
        "RATE_LIMIT",
        "typed",
        429,
        1,
        2.0,
    )
    assert records[1].code == "SERVER"
    assert "attempt 1 failed with RATE_LIMIT (RateLimitError)" in first.getMessage()


def test_logs_never_carry_arguments_or_messages(make_policy, script, caplog):
    """Neither the call's arguments nor the error's message reach the log."""
    backend = script(ServerError(f"upstream echoed: {PROMPT}"), "ok")
    with caplog.at_level(logging.DEBUG, logger="llm_retry"):
        make_policy(on_retry=log_retry).wrap(backend)(PROMPT, api_key=SECRET)
    text = caplog.text + " ".join(repr(vars(r)) for r in caplog.records)
    assert "PROMPT-SENTINEL" not in text
    assert SECRET not in text


def test_event_repr_leaves_the_error_out():
    """An event can be logged or printed without leaking the error's text."""
    event = RetryEvent(
        target="ask",
        attempt=1,
        classification=Classification(code=ErrorCode.SERVER, retryable=True),
        sleep=1.0,
        elapsed=0.1,
        error=ServerError(PROMPT),
    )
    assert "PROMPT-SENTINEL" not in repr(event)


def test_retry_info_absent_on_untouched_errors():
    """Errors that never went through a wrapper have no record."""
    assert retry_info(ValueError("x")) is None


def test_frozen_exceptions_are_raised_unannotated(make_policy, script):
    """An exception type that refuses attributes (even notes) is still raised as it was."""

    @dataclasses.dataclass(frozen=True)
    class FrozenError(Exception):
        status: int

    error = FrozenError(503)
    with pytest.raises(FrozenError) as info:
        make_policy().wrap(script(error))()
    assert info.value is error
    assert retry_info(error) is None
    assert not hasattr(error, "__notes__")


def test_annotated_errors_pickle_with_their_record(make_policy, script):
    """The record and the note travel with a pickled error (e.g. to a worker pool)."""
    with pytest.raises(ServerError) as info:
        make_policy(max_attempts=2).wrap(script(ServerError))()
    copy = pickle.loads(pickle.dumps(info.value))
    assert retry_info(copy) == retry_info(info.value)
    assert copy.__notes__ == info.value.__notes__
