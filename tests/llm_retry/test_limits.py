"""read_rate_limits: captured headers of each family, garbage ignored (pure)."""

import email.utils

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_retry._limits import MAX_HEADERS, MAX_RESET, RateLimits, Unit, Window, read_rate_limits

#: A Chat Completions response's headers as quoted in
#: https://community.openai.com/t/how-to-get-rate-limit-reset-time-for-response-api/1268905
OPENAI = {
    "x-ratelimit-limit-requests": "5000",
    "x-ratelimit-limit-tokens": "160000",
    "x-ratelimit-limit-tokens_usage_based": "160000",
    "x-ratelimit-remaining-requests": "4999",
    "x-ratelimit-remaining-tokens": "159976",
    "x-ratelimit-remaining-tokens_usage_based": "159976",
    "x-ratelimit-reset-requests": "12ms",
    "x-ratelimit-reset-tokens": "9ms",
    "x-ratelimit-reset-tokens_usage_based": "9ms",
}
#: A recorded Anthropic response (tidyllm's tests, messages-e050b5-POST.R on rdrr.io).
ANTHROPIC = {
    "date": "Thu, 21 Aug 2025 12:41:00 GMT",
    "anthropic-ratelimit-input-tokens-limit": "80000",
    "anthropic-ratelimit-input-tokens-remaining": "80000",
    "anthropic-ratelimit-input-tokens-reset": "2025-08-21T12:40:59Z",
    "anthropic-ratelimit-output-tokens-limit": "16000",
    "anthropic-ratelimit-output-tokens-remaining": "16000",
    "anthropic-ratelimit-output-tokens-reset": "2025-08-21T12:41:00Z",
    "anthropic-ratelimit-requests-limit": "1000",
    "anthropic-ratelimit-requests-remaining": "999",
    "anthropic-ratelimit-requests-reset": "2025-08-21T12:40:59Z",
    "anthropic-ratelimit-tokens-limit": "96000",
    "anthropic-ratelimit-tokens-remaining": "96000",
    "anthropic-ratelimit-tokens-reset": "2025-08-21T12:40:59Z",
}
#: Mistral's current family, from the curl dump in mistralai/client-ts#169.
MISTRAL = {
    "x-ratelimit-limit-tokens-minute": "5000000",
    "x-ratelimit-remaining-tokens-minute": "4999911",
    "x-ratelimit-tokens-query-cost": "52",
    "x-ratelimit-limit-req-minute": "720",
    "x-ratelimit-remaining-req-minute": "717",
}


def test_openai_windows_and_go_durations():
    """Requests and tokens, each reset a Go duration in seconds."""
    assert read_rate_limits(OPENAI) == RateLimits(
        (
            Window(Unit.REQUESTS, 4999, 5000, 0.012, gradual=True),
            Window(Unit.TOKENS, 159976, 160000, 0.009, gradual=True),
        )
    )


def test_anthropic_resets_are_measured_against_the_responses_date():
    """RFC 3339 resets against the response's Date: this machine's clock plays no part."""
    limits = read_rate_limits(ANTHROPIC, now=0.0)
    assert limits.windows == (
        Window(Unit.REQUESTS, 999, 1000, 0.0, gradual=True),
        Window(Unit.TOKENS, 96000, 96000, 0.0, gradual=True),
        Window(Unit.INPUT_TOKENS, 80000, 80000, 0.0, gradual=True),
        Window(Unit.OUTPUT_TOKENS, 16000, 16000, 0.0, gradual=True),
    )
    later = dict(ANTHROPIC, **{"anthropic-ratelimit-requests-reset": "2025-08-21T12:41:42.5Z"})
    assert read_rate_limits(later).windows[0].reset == 42.5
    # Without a Date, against ``now``.
    undated = {k: v for k, v in later.items() if k != "date"}
    arrived = email.utils.parsedate_to_datetime(ANTHROPIC["date"]).timestamp() - 10
    assert read_rate_limits(undated, now=arrived).windows[0].reset == 52.5


def test_mistral_minute_windows_refill_within_a_minute():
    """No reset is sent: the window's name says a minute; it refills at once (not gradual)."""
    assert read_rate_limits(MISTRAL).windows == (
        Window(Unit.REQUESTS, 717, 720, 60.0),
        Window(Unit.TOKENS, 4999911, 5000000, 60.0),
    )
    older = {
        "ratelimitbysize-limit": "2000000",
        "ratelimitbysize-remaining": "1999",
        "ratelimitbysize-reset": "17",
    }
    assert read_rate_limits(older).windows == (Window(Unit.TOKENS, 1999, 2000000, 17.0),)


def test_names_in_any_case_pairs_and_retry_after():
    """httpx-style pairs in any case; retry-after-ms read as llm_errors reads it."""
    pairs = [
        ("X-RateLimit-Remaining-Requests", "0"),
        ("X-RateLimit-Reset-Requests", "6m0s"),
        ("Retry-After-Ms", "1500"),
    ]
    assert read_rate_limits(pairs) == RateLimits(
        (Window(Unit.REQUESTS, 0, None, 360.0, gradual=True),), 1.5
    )


@pytest.mark.parametrize(
    ("reset", "seconds"),
    [
        ("1s", 1.0),
        ("6m0s", 360.0),
        ("1h2m3.5s", 3723.5),
        ("12ms", 0.012),
        ("2m", 120.0),
        ("17", 17.0),
        ("0.25", 0.25),
        ("", None),
        ("abc", None),
        ("-5", None),
        ("5x", None),
        ("1e9", None),
        ("25h", None),
        (str(int(MAX_RESET) + 1), None),
    ],
)
def test_reset_durations(reset, seconds):
    """Seconds or a Go duration up to MAX_RESET; anything else is no reset."""
    headers = {"x-ratelimit-remaining-tokens": "5", "x-ratelimit-reset-tokens": reset}
    assert read_rate_limits(headers).windows == (
        Window(Unit.TOKENS, 5, None, seconds, gradual=True),
    )


@pytest.mark.parametrize(
    "count", ["-1", "abc", "1.5", "", "\uff11\uff12", "10000000000001", " 7 x"]
)
def test_counts_that_are_not_counts_are_ignored(count):
    """Azure's -1 (openai/openai-dotnet#838), fractions, full-width digits, huge values."""
    headers = {"x-ratelimit-limit-tokens": count, "x-ratelimit-remaining-tokens": count}
    assert read_rate_limits(headers) == RateLimits()
    assert read_rate_limits({**headers, "x-ratelimit-remaining-tokens": "3"}).windows == (
        Window(Unit.TOKENS, 3, None, None, gradual=True),
    )


def test_only_the_first_max_headers_pairs_are_read():
    """A response with thousands of headers costs a bounded look."""
    filler = [(f"x-filler-{i}", "1") for i in range(MAX_HEADERS)]
    assert read_rate_limits([*filler, ("x-ratelimit-remaining-requests", "9")]) == RateLimits()
    assert read_rate_limits([*filler[1:], ("x-ratelimit-remaining-requests", "9")]).windows


def test_garbage_input_is_no_limits():
    """Not pairs, not strings, bad dates: nothing, never an exception."""
    assert read_rate_limits([("x-ratelimit-remaining-requests", 5)]) == RateLimits()
    assert read_rate_limits([b"ab"]) == RateLimits()  # type: ignore[list-item]
    bad_date = {
        "date": "yesterday",
        "anthropic-ratelimit-requests-remaining": "1",
        "anthropic-ratelimit-requests-reset": "not a time",
    }
    assert read_rate_limits(bad_date, now=0.0).windows == (
        Window(Unit.REQUESTS, 1, None, None, gradual=True),
    )
    naive = {
        "anthropic-ratelimit-requests-remaining": "1",
        "anthropic-ratelimit-requests-reset": "2025-08-21T12:40:59",
    }
    assert read_rate_limits(naive).windows == (Window(Unit.REQUESTS, 1, None, None, gradual=True),)


@given(
    st.dictionaries(
        st.sampled_from([*OPENAI, *ANTHROPIC, *MISTRAL, "date", "retry-after"]),
        st.text(max_size=40),
    )
)
def test_any_values_never_raise(headers):
    """Whatever the values, a result in bounds."""
    for window in read_rate_limits(headers, now=0.0).windows:
        assert window.remaining >= 0
        assert window.reset is None or 0.0 <= window.reset <= MAX_RESET
