"""The public tenacity strategies, used with plain tenacity and composed with its own."""

import math

import pytest
import tenacity
from hypothesis import given
from hypothesis import strategies as st

from llm_errors import (
    AbortedError,
    AuthError,
    Classification,
    ErrorCode,
    Layer,
    RateLimitError,
    ServerError,
)
from llm_retry import retry_if_code, stop_if_retry_after_exceeds, wait_retry_after_or_backoff
from llm_retry._strategies import backoff_ceiling, full_jitter, server_wait


def run(retrying, *outcomes):
    """Run plain tenacity over scripted outcomes; return (result or error, attempts, sleeps)."""
    sleeps = []
    attempts = []

    def attempt():
        outcome = outcomes[min(len(attempts), len(outcomes) - 1)]
        attempts.append(outcome)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    retrying = retrying.copy(sleep=sleeps.append, reraise=True)
    try:
        result = retrying(attempt)
    except Exception as error:
        result = error
    return result, len(attempts), sleeps


@pytest.mark.parametrize(
    ("attempt", "expected"),
    [
        pytest.param(1, 0.5, id="first"),
        pytest.param(2, 1.0, id="second"),
        pytest.param(4, 4.0, id="fourth"),
        pytest.param(5, 5.0, id="capped"),
        pytest.param(10_000, 5.0, id="overflow"),
    ],
)
def test_backoff_ceiling(attempt, expected):
    """``initial * multiplier**(n-1)``, capped at ``max_wait``, even when the power overflows."""
    assert backoff_ceiling(attempt, initial=0.5, multiplier=2.0, max_wait=5.0) == expected


def test_zero_initial_wait_means_no_backoff():
    """``initial_wait=0`` retries at once, whatever the multiplier."""
    assert backoff_ceiling(50, initial=0.0, multiplier=3.0, max_wait=5.0) == 0.0


@given(st.floats(min_value=0, max_value=1e6))
def test_full_jitter_stays_within_the_ceiling(ceiling):
    """Full jitter draws from ``[0, ceiling]``."""
    assert 0 <= full_jitter(ceiling) <= ceiling


@pytest.mark.parametrize(
    ("retry_after", "usable"),
    [
        pytest.param(None, None, id="absent"),
        pytest.param(0.0, 0.0, id="zero"),
        pytest.param(2.5, 2.5, id="float"),
        pytest.param(-1.0, None, id="negative"),
        pytest.param(math.nan, None, id="nan"),
        pytest.param(math.inf, math.inf, id="inf"),
    ],
)
def test_server_wait(retry_after, usable):
    """Negative and NaN waits count as absent; the rest is used as given."""
    c = Classification(code=ErrorCode.RATE_LIMIT, retryable=True, retry_after=retry_after)
    assert server_wait(c) == usable


@pytest.mark.parametrize(
    ("code", "retry_after", "resets_at", "usable"),
    [
        pytest.param("QUOTA_EXCEEDED", None, 1_000.0 + 90.0, 90.0, id="an-instant-ahead"),
        pytest.param("QUOTA_EXCEEDED", None, 1_000.0 - 5.0, 0.0, id="an-instant-past"),
        pytest.param("RATE_LIMIT", 3.0, 1_000.0 + 90.0, 3.0, id="a-rate-limits-duration-wins"),
        pytest.param("QUOTA_EXCEEDED", 3.0, 1_000.0 + 90.0, 90.0, id="a-quotas-later-reset-wins"),
        pytest.param("QUOTA_EXCEEDED", 300.0, 1_000.0 + 90.0, 300.0, id="a-quotas-later-wait"),
    ],
)
def test_server_wait_of_a_stated_instant(code, retry_after, resets_at, usable):
    """Without a duration, the time to the stated instant, against ``now``; 0 once past.

    A spent quota waits for the later of the two (a Gemini per-day quota states a
    RetryInfo delay of seconds beside a reset at midnight Pacific time).
    """
    c = Classification(
        code=ErrorCode[code], retryable=False, retry_after=retry_after, resets_at=resets_at
    )
    assert server_wait(c, now=1_000.0) == usable


def test_retry_if_code_retries_exactly_the_codes():
    """Transient codes are retried, permanent ones raised at once (plain tenacity)."""
    retrying = tenacity.Retrying(retry=retry_if_code(), stop=tenacity.stop_after_attempt(3))
    result, attempts, _ = run(retrying, ServerError("down"), "ok")
    assert (result, attempts) == ("ok", 2)
    auth = AuthError("bad key")
    result, attempts, _ = run(retrying, auth)
    assert (result, attempts) == (auth, 1)


def test_retry_if_code_custom_codes_and_classifier():
    """Custom codes and a custom classifier route foreign exceptions."""

    def classifier(error):
        code = ErrorCode.RATE_LIMIT if isinstance(error, LookupError) else ErrorCode.AUTH
        return Classification(code=code, retryable=True, layer=Layer.EXCEPTION)

    retrying = tenacity.Retrying(
        retry=retry_if_code({ErrorCode.RATE_LIMIT}, classifier=classifier),
        stop=tenacity.stop_after_attempt(5),
    )
    assert run(retrying, KeyError("k"), "ok")[:2] == ("ok", 2)
    assert run(retrying, ValueError("v"), "ok")[1] == 1


def test_retry_if_code_never_retries_aborted_or_base_exceptions():
    """ABORTED and non-``Exception`` errors are never retried nor swallowed."""
    retrying = tenacity.Retrying(retry=retry_if_code(), stop=tenacity.stop_after_attempt(3))
    aborted = AbortedError("cancelled")
    assert run(retrying, aborted)[:2] == (aborted, 1)
    with pytest.raises(KeyboardInterrupt):
        retrying.copy(reraise=True)(_raise, KeyboardInterrupt())


def _raise(error):
    raise error


def state_failing_with(error, attempt=1):
    """A tenacity call state whose last attempt raised ``error``."""
    state = tenacity.RetryCallState(tenacity.Retrying(), fn=None, args=(), kwargs={})
    state.attempt_number = attempt
    state.set_exception((type(error), error, None))
    return state


def test_strategies_ignore_base_exceptions_for_server_waits():
    """An interrupt never yields a server-directed wait nor a Retry-After stop."""
    state = state_failing_with(KeyboardInterrupt())
    assert wait_retry_after_or_backoff(jitter=False)(state) == 1.0
    assert stop_if_retry_after_exceeds(0)(state) is False
    assert retry_if_code()(state) is False


def test_retry_if_code_repr_lists_the_codes():
    """The predicate's repr shows what it retries."""
    assert (
        repr(retry_if_code({ErrorCode.SERVER})) == "retry_if_code([<ErrorCode.SERVER: 'SERVER'>])"
    )


def test_retry_if_code_refuses_aborted_and_non_codes():
    """Asking to retry ABORTED, or passing what is no code or name, is a caller bug."""
    with pytest.raises(ValueError, match="ABORTED"):
        retry_if_code({ErrorCode.ABORTED})
    with pytest.raises(ValueError, match="ABORTED"):
        retry_if_code("SERVER,aborted")
    with pytest.raises(TypeError, match="ErrorCode"):
        retry_if_code({503})
    with pytest.raises(TypeError, match="a string of code names"):
        retry_if_code(503)
    with pytest.raises(ValueError, match="unknown error code 'SERVRE'"):
        retry_if_code({"SERVRE"})


def test_retry_if_code_takes_code_names():
    """Names in any case retry the codes they name, as ``RetryPolicy(retry_on=...)`` does."""
    retrying = tenacity.Retrying(
        retry=retry_if_code(["server", " Timeout "]), stop=tenacity.stop_after_attempt(3)
    )
    assert run(retrying, ServerError("down"), "ok")[:2] == ("ok", 2)
    auth = AuthError("bad key")
    assert run(retrying, auth)[:2] == (auth, 1)


@pytest.mark.parametrize(
    "codes",
    [
        pytest.param("RATE_LIMIT", id="one-name"),
        pytest.param("rate_limit, server", id="comma-separated"),
        pytest.param(ErrorCode.RATE_LIMIT, id="one-code"),
    ],
)
def test_retry_if_code_takes_one_code_or_a_string_of_names(codes):
    """``retry_if_code("RATE_LIMIT")``, as docs/retry.md writes it, retries that code only."""
    retrying = tenacity.Retrying(retry=retry_if_code(codes), stop=tenacity.stop_after_attempt(3))
    limited = RateLimitError("429")
    assert run(retrying, limited, "ok")[:2] == ("ok", 2)
    auth = AuthError("bad key")
    assert run(retrying, auth)[:2] == (auth, 1)


def test_retry_if_code_composes_with_tenacity():
    """``|`` with a tenacity predicate retries the union."""
    retrying = tenacity.Retrying(
        retry=retry_if_code() | tenacity.retry_if_exception_type(LookupError),
        stop=tenacity.stop_after_attempt(4),
    )
    result, attempts, _ = run(retrying, ServerError("down"), KeyError("k"), "ok")
    assert (result, attempts) == ("ok", 3)


def test_wait_uses_retry_after_instead_of_backoff():
    """A server-directed wait replaces the backoff; others get the backoff."""
    wait = wait_retry_after_or_backoff(initial=1.0, jitter=False)
    retrying = tenacity.Retrying(
        retry=retry_if_code(), wait=wait, stop=tenacity.stop_after_attempt(4)
    )
    outcomes = (RateLimitError("slow", retry_after=7.0), ServerError("x"), ServerError("y"), "ok")
    assert run(retrying, *outcomes)[2] == [7.0, 2.0, 4.0]


def test_wait_caps_retry_after_and_ignores_bad_values():
    """Over the cap the wait is the cap; negative values fall back to the backoff."""
    wait = wait_retry_after_or_backoff(initial=0.5, jitter=False, max_retry_after=3.0)
    retrying = tenacity.Retrying(
        retry=retry_if_code(), wait=wait, stop=tenacity.stop_after_attempt(3)
    )
    outcomes = (RateLimitError("a", retry_after=99.0), RateLimitError("b", retry_after=-5.0), "ok")
    assert run(retrying, *outcomes)[2] == [3.0, 1.0]


def test_wait_composes_with_tenacity_waits():
    """``+`` adds a tenacity wait to ours."""
    wait = wait_retry_after_or_backoff(jitter=False) + tenacity.wait_fixed(0.25)
    retrying = tenacity.Retrying(
        retry=retry_if_code(), wait=wait, stop=tenacity.stop_after_attempt(2)
    )
    assert run(retrying, RateLimitError("a", retry_after=2.0), "ok")[2] == [2.25]


def test_stop_if_retry_after_exceeds_gives_up_without_sleeping():
    """A Retry-After above the cap stops at once; the original error is raised."""
    retrying = tenacity.Retrying(
        retry=retry_if_code(),
        wait=wait_retry_after_or_backoff(jitter=False, max_retry_after=10.0),
        stop=tenacity.stop_after_attempt(5) | stop_if_retry_after_exceeds(10.0),
    )
    error = RateLimitError("a", retry_after=11.0)
    result, attempts, sleeps = run(retrying, error, "ok")
    assert (result, attempts, sleeps) == (error, 1, [])
    assert run(retrying, RateLimitError("b", retry_after=10.0), "ok") == ("ok", 2, [10.0])


def test_one_strategy_instance_serves_many_calls():
    """Nothing is stored on tenacity objects, so reusing the strategies is safe."""
    wait = wait_retry_after_or_backoff(jitter=False)
    retry = retry_if_code()
    for _ in range(3):
        retrying = tenacity.Retrying(retry=retry, wait=wait, stop=tenacity.stop_after_attempt(3))
        assert run(retrying, ServerError("a"), ServerError("b"), "ok")[2] == [1.0, 2.0]


@pytest.mark.parametrize(
    ("factory", "settings", "match"),
    [
        pytest.param(wait_retry_after_or_backoff, {"initial": -1}, "initial", id="initial"),
        pytest.param(wait_retry_after_or_backoff, {"multiplier": 0}, "multiplier", id="mult"),
        pytest.param(
            wait_retry_after_or_backoff, {"initial": 9, "max_wait": 1}, "max_wait", id="order"
        ),
        pytest.param(wait_retry_after_or_backoff, {"jitter": "no"}, "jitter", id="jitter"),
        pytest.param(wait_retry_after_or_backoff, {"classifier": 1}, "classifier", id="clf"),
        pytest.param(stop_if_retry_after_exceeds, {"max_retry_after": -1}, "max_retry", id="cap"),
        pytest.param(stop_if_retry_after_exceeds, {"classifier": None}, "classifier", id="c2"),
    ],
)
def test_strategy_factories_validate(factory, settings, match):
    """The public factories reject bad settings with the parameter's name."""
    with pytest.raises((TypeError, ValueError), match=match):
        factory(**settings)


@given(
    attempt=st.integers(min_value=1, max_value=200),
    initial=st.floats(min_value=0, max_value=10),
    extra=st.floats(min_value=0, max_value=100),
    multiplier=st.floats(min_value=1, max_value=10),
    retry_after=st.one_of(st.none(), st.floats(min_value=-10, max_value=200)),
    cap=st.floats(min_value=0, max_value=100),
)
def test_planned_wait_property(*, attempt, initial, extra, multiplier, retry_after, cap):
    """The wait is the server's (within its cap) when usable, else within ``[0, max_wait]``."""
    max_wait = initial + extra
    wait = wait_retry_after_or_backoff(
        initial=initial, multiplier=multiplier, max_wait=max_wait, max_retry_after=cap
    )
    planned = wait(state_failing_with(RateLimitError("x", retry_after=retry_after), attempt))
    if retry_after is not None and retry_after >= 0:
        assert planned == min(retry_after, cap)
    else:
        assert 0 <= planned <= max_wait


def test_require_failure_refuses_a_successful_attempt():
    """A strategy that only runs after a failure says so if tenacity calls it otherwise."""
    from llm_retry._strategies import require_failure

    state = tenacity.RetryCallState(tenacity.Retrying(), fn=None, args=(), kwargs={})
    state.set_result("ok")
    with pytest.raises(RuntimeError, match="did not fail"):
        require_failure(state)
