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


class Named:
    """A call argument that names its own scope, as the Mistral adapter's calls do."""

    llm_retry_scope = "mistral:mistral-small-latest"


def ask(*_args):
    """A user's function that fails once with a 429 (Retry-After: 1), then answers."""
    ask.calls += 1
    if ask.calls % 2:
        raise RateLimitError("429", status=429, retry_after=1.0)
    return "ok"


ask.calls = 0


@pytest.mark.parametrize(
    ("scope", "args", "named"),
    [
        pytest.param("openai:gpt-4o", (), "openai:gpt-4o", id="policy-scope"),
        pytest.param(lambda model: f"openai:{model}", ("gpt-4o",), "openai:gpt-4o", id="function"),
        pytest.param(None, (Named(),), "mistral:mistral-small-latest", id="argument"),
        pytest.param(None, ("hi",), f"{ask.__module__}.ask", id="qualified-name"),
    ],
)
def test_the_retry_line_names_the_calls_scope(make_policy, caplog, scope, args, named):
    """Without coordination too: the scope the call names, else the function's own name."""
    wrapped = make_policy(on_retry=log_retry, scope=scope).wrap(ask)
    with caplog.at_level(logging.WARNING, logger="llm_retry"):
        assert wrapped(*args) == "ok"
    (record,) = [r for r in caplog.records if r.name == "llm_retry"]
    assert record.getMessage() == (
        f"retrying {named} in 1.00s: attempt 1 failed with RATE_LIMIT (RateLimitError)"
    )
    assert record.target == named


@pytest.mark.integration
@pytest.mark.smoke
def test_the_mistral_adapters_retry_line_names_the_model_scope(caplog):
    """Over real loopback HTTP: ``retrying mistral:mistral-small-latest``, no private method."""
    from adapter import Context, MistralAdapter
    from adapter.pi import UserMessage
    from adapter.testing import FakeMistral, Reply, error_object, text_reply
    from llm_retry import RetryPolicy, instant_retries

    # Mistral's 429 as docs/observability.md's example (and the adapter's tests) send it.
    limited = Reply(
        429,
        error_object("Rate limit exceeded", error_type="rate_limited", code="1300"),
        headers={"Retry-After": "1"},
    )
    context = Context(messages=[UserMessage(content="Say hello", timestamp=1)])
    with (
        caplog.at_level(logging.WARNING, logger="llm_retry"),
        instant_retries(),
        FakeMistral(limited, text_reply("Hello")) as fake,
        MistralAdapter(api_key="any", base_url=fake.url, retry=RetryPolicy()) as mistral,
    ):
        mistral.complete("mistral-small-latest", context)
    (record,) = [r for r in caplog.records if r.name == "llm_retry"]
    assert record.getMessage() == (
        "retrying mistral:mistral-small-latest in 1.00s: attempt 1 failed with RATE_LIMIT "
        "(RateLimitError)"
    )
    assert "_attempt" not in caplog.text
    assert "adapter." not in caplog.text
