"""RetryPolicy: defaults, validation on construction, builders and the decorator entry."""

import asyncio
import dataclasses
import math

import pytest

from llm_errors import DEFAULT_RETRYABLE_CODES, ErrorCode, ServerError, classify
from llm_retry import InProcessCoordination, RetryBudget, RetryPolicy, log_retry, retry_llm


def test_defaults_bound_attempts_and_time():
    """The defaults are the documented ones: 4 attempts, 90 s, the transient codes."""
    policy = RetryPolicy()
    assert policy.max_attempts == 4
    assert policy.deadline == 90.0
    assert policy.max_retry_after == 60.0
    assert policy.respect_retry_after is True
    assert policy.jitter is True
    assert policy.retry_on == DEFAULT_RETRYABLE_CODES
    assert policy.classifier is classify
    assert policy.budget is None
    assert policy.on_retry is log_retry


def test_frozen_and_slotted():
    """A policy cannot be changed after construction and has no ``__dict__``."""
    policy = RetryPolicy()
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.max_attempts = 9
    assert not hasattr(policy, "__dict__")


def test_replace_gives_fresh_stats():
    """``dataclasses.replace`` copies settings but not the counters."""
    policy = RetryPolicy()
    policy.stats.record_call()
    copy = dataclasses.replace(policy, max_attempts=2)
    assert copy.max_attempts == 2
    assert copy.stats is not policy.stats
    assert copy.stats.calls == 0


def test_equal_policies_compare_equal_and_hash():
    """Stats do not take part in equality, so equal settings mean equal policies."""
    a, b = RetryPolicy(max_attempts=3), RetryPolicy(max_attempts=3)
    a.stats.record_call()
    assert a == b
    assert hash(a) == hash(b)


@pytest.mark.parametrize(
    ("settings", "error", "field"),
    [
        pytest.param({"max_attempts": 0}, ValueError, "max_attempts", id="attempts-zero"),
        pytest.param({"max_attempts": 2.5}, TypeError, "max_attempts", id="attempts-float"),
        pytest.param({"max_attempts": True}, TypeError, "max_attempts", id="attempts-bool"),
        pytest.param({"deadline": 0}, ValueError, "deadline", id="deadline-zero"),
        pytest.param({"deadline": -1.0}, ValueError, "deadline", id="deadline-negative"),
        pytest.param({"deadline": math.nan}, ValueError, "deadline", id="deadline-nan"),
        pytest.param({"deadline": "90"}, TypeError, "deadline", id="deadline-str"),
        pytest.param({"initial_wait": -0.1}, ValueError, "initial_wait", id="initial-negative"),
        pytest.param({"max_wait": math.inf}, ValueError, "max_wait", id="max-wait-inf"),
        pytest.param(
            {"initial_wait": 5.0, "max_wait": 1.0}, ValueError, "initial_wait", id="initial>max"
        ),
        pytest.param({"multiplier": 0.5}, ValueError, "multiplier", id="multiplier<1"),
        pytest.param({"jitter": 1}, TypeError, "jitter", id="jitter-int"),
        pytest.param({"retry_on": 503}, TypeError, "retry_on", id="retry-on-number"),
        pytest.param({"retry_on": "SERVER,TEAPOT"}, ValueError, "TEAPOT", id="retry-on-str"),
        pytest.param({"retry_on": [429]}, TypeError, "retry_on", id="retry-on-int"),
        pytest.param({"retry_on": ["TEAPOT"]}, ValueError, "retry_on", id="retry-on-unknown"),
        pytest.param({"retry_on": ["aborted"]}, ValueError, "ABORTED", id="aborted-name"),
        pytest.param(
            {"retry_on": frozenset({ErrorCode.ABORTED})}, ValueError, "ABORTED", id="aborted"
        ),
        pytest.param(
            {"respect_retry_after": "yes"}, TypeError, "respect_retry_after", id="respect-str"
        ),
        pytest.param({"max_retry_after": -1}, ValueError, "max_retry_after", id="cap-negative"),
        pytest.param({"classifier": None}, TypeError, "classifier", id="classifier-none"),
        pytest.param({"budget": 10}, TypeError, "budget", id="budget-int"),
        pytest.param({"on_retry": "log"}, TypeError, "on_retry", id="on-retry-str"),
        pytest.param({"sleep": None}, TypeError, "sleep", id="sleep-none"),
        pytest.param({"async_sleep": 0}, TypeError, "async_sleep", id="async-sleep-int"),
        pytest.param({"clock": 0.0}, TypeError, "clock", id="clock-float"),
    ],
)
def test_bad_settings_fail_on_construction(settings, error, field):
    """Every bad setting is rejected at once with an error that names the field."""
    with pytest.raises(error, match=field):
        RetryPolicy(**settings)


@pytest.mark.parametrize(
    "codes",
    [
        pytest.param(["RATE_LIMIT", "SERVER"], id="names"),
        pytest.param([" rate_limit", "Server "], id="any-case"),
        pytest.param((ErrorCode.RATE_LIMIT, "SERVER"), id="mixed-tuple"),
        pytest.param({ErrorCode.RATE_LIMIT, ErrorCode.SERVER}, id="set"),
        pytest.param((c for c in ("RATE_LIMIT", "SERVER")), id="generator"),
    ],
)
def test_retry_on_takes_any_iterable_of_codes_or_names(codes):
    """Names and codes in any iterable become the same frozenset, so the policies are equal."""
    policy = RetryPolicy(retry_on=codes)
    assert policy.retry_on == frozenset({ErrorCode.RATE_LIMIT, ErrorCode.SERVER})
    assert isinstance(policy.retry_on, frozenset)
    assert policy == RetryPolicy(retry_on=frozenset({ErrorCode.RATE_LIMIT, ErrorCode.SERVER}))
    assert hash(policy) == hash(dataclasses.replace(policy))


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        pytest.param("RATE_LIMIT,SERVER", {ErrorCode.RATE_LIMIT, ErrorCode.SERVER}, id="docs"),
        pytest.param(
            " rate_limit , Server ", {ErrorCode.RATE_LIMIT, ErrorCode.SERVER}, id="case-blanks"
        ),
        pytest.param("RATE_LIMIT SERVER", {ErrorCode.RATE_LIMIT, ErrorCode.SERVER}, id="blanks"),
        pytest.param("RATE_LIMIT", {ErrorCode.RATE_LIMIT}, id="one-name"),
        pytest.param(ErrorCode.SERVER, {ErrorCode.SERVER}, id="one-code"),
        pytest.param(",", set(), id="no-name"),
    ],
)
def test_retry_on_takes_one_code_or_a_string_of_names(codes, expected):
    """``retry_on="RATE_LIMIT,SERVER"`` (docs/retry.md) and one ``ErrorCode`` are accepted."""
    policy = RetryPolicy(retry_on=codes)
    assert policy.retry_on == frozenset(expected)
    assert isinstance(policy.retry_on, frozenset)


def test_an_unknown_name_in_a_string_is_named_with_the_choices():
    """A misspelt name inside a comma-separated string is named, with every valid code."""
    with pytest.raises(ValueError, match="retry_on: unknown error code 'SERVR'") as caught:
        RetryPolicy(retry_on="RATE_LIMIT,SERVR")
    choices = caught.value.args[0].split("expected some of ", 1)[1].split(", ")
    assert choices == [code.value for code in ErrorCode if code is not ErrorCode.ABORTED]


def test_unknown_code_name_is_named_with_the_choices():
    """A misspelt name fails at construction, naming it and listing every code it could be."""
    with pytest.raises(ValueError, match="retry_on: unknown error code 'RATE_LIMITS'") as caught:
        RetryPolicy(retry_on=["RATE_LIMITS"])
    choices = caught.value.args[0].split("expected some of ", 1)[1].split(", ")
    assert choices == [code.value for code in ErrorCode if code is not ErrorCode.ABORTED]


def test_code_names_decide_what_is_retried():
    """A policy built from names retries those codes and nothing else."""
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) == 1:
            raise ServerError("down")
        return "ok"

    policy = RetryPolicy(retry_on=["server"], on_retry=None, sleep=lambda _: None, jitter=False)
    assert policy.wrap(flaky)() == "ok"
    assert len(calls) == 2
    calls.clear()
    refusing = RetryPolicy(retry_on=["timeout"], on_retry=None, sleep=lambda _: None)
    with pytest.raises(ServerError):
        refusing.wrap(flaky)()
    assert len(calls) == 1


def test_unbounded_deadline_and_single_attempt_are_valid():
    """``math.inf`` means no deadline, ``max_attempts=1`` means no retries."""
    policy = RetryPolicy(deadline=math.inf, max_attempts=1, on_retry=None)
    assert policy.deadline == math.inf


def test_from_mapping_builds_a_policy():
    """Typed and string settings both work; the rest keeps its defaults."""
    policy = RetryPolicy.from_mapping(
        {"max_attempts": "6", "deadline": 30, "jitter": "false", "retry_on": "rate_limit,SERVER"}
    )
    assert policy.max_attempts == 6
    assert policy.deadline == 30.0
    assert policy.jitter is False
    assert policy.retry_on == {ErrorCode.RATE_LIMIT, ErrorCode.SERVER}
    assert policy.max_retry_after == 60.0


def test_from_mapping_still_validates():
    """Values that parse but break a rule fail like direct construction does."""
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy.from_mapping({"max_attempts": "0"})


def test_from_mapping_rejects_a_non_collection_of_codes():
    """A ``retry_on`` that is neither a string nor a collection fails on construction."""
    with pytest.raises(TypeError, match="retry_on"):
        RetryPolicy.from_mapping({"retry_on": 5})


def test_from_env_reads_prefixed_variables():
    """``LLM_RETRY_*`` variables set the fields; others are ignored."""
    environ = {
        "LLM_RETRY_MAX_ATTEMPTS": "2",
        "LLM_RETRY_MAX_RETRY_AFTER": "12.5",
        "LLM_RETRY_RESPECT_RETRY_AFTER": "off",
        "LLM_RETRY_DEADLINE": "",
        "HOME": "/root",
    }
    policy = RetryPolicy.from_env(environ=environ)
    assert policy.max_attempts == 2
    assert policy.max_retry_after == 12.5
    assert policy.respect_retry_after is False
    assert policy.deadline == 90.0


def test_from_env_custom_prefix_and_default_environ(monkeypatch):
    """The prefix is configurable, and ``os.environ`` is read when no mapping is given."""
    monkeypatch.setenv("MYAPP_RETRY_MAX_ATTEMPTS", "7")
    assert RetryPolicy.from_env("MYAPP_RETRY_").max_attempts == 7


def test_from_env_rejects_typos():
    """An unknown prefixed variable is an error naming the variable."""
    with pytest.raises(ValueError, match="LLM_RETRY_MAX_ATTEMPT'"):
        RetryPolicy.from_env(environ={"LLM_RETRY_MAX_ATTEMPT": "3"})


def test_retry_llm_uses_its_own_default_policy():
    """``retry_llm()`` works without a policy and each use counts separately."""

    @retry_llm()
    def one():
        return 1

    @retry_llm()
    def two():
        return 2

    assert (one(), two()) == (1, 2)


def test_retry_llm_rejects_a_function_as_policy():
    """Forgetting the parentheses is a clear TypeError, not a broken decorator."""

    def fn():
        return None

    with pytest.raises(TypeError, match=r"retry_llm\(\) takes a RetryPolicy"):
        retry_llm(fn)


def test_wrap_rejects_non_callables():
    """Wrapping something that cannot be called fails at decoration time."""
    with pytest.raises(TypeError, match="callable"):
        RetryPolicy().wrap(42)


def test_budget_is_shared_by_identity():
    """Two policies given the same budget spend from the same bucket."""
    budget = RetryBudget(capacity=1)
    a = RetryPolicy(budget=budget, on_retry=None, sleep=lambda _: None)
    b = RetryPolicy(budget=budget, on_retry=None, sleep=lambda _: None)
    calls = []

    def failing():
        calls.append(1)
        raise ServerError("down")

    with pytest.raises(ServerError):
        a.wrap(failing)()
    calls.clear()
    with pytest.raises(ServerError):
        b.wrap(failing)()
    assert calls == [1]


def test_try_spend_takes_a_budget_token_for_a_retry_the_policy_does_not_run():
    """The adapter's continuations spend from the same budget as retries (``try_spend``)."""
    assert RetryPolicy().try_spend()  # no budget: always granted
    budget = RetryBudget(capacity=2, refill=0)
    alone = RetryPolicy(budget=budget)
    assert alone.try_spend()
    assert budget.tokens == 1
    shared = RetryPolicy(budget=budget, coordination=InProcessCoordination())
    assert shared.try_spend(scope="mistral:m")
    assert not shared.try_spend(scope="mistral:m")
    assert not asyncio.run(shared.atry_spend())
    assert budget.tokens == 0
