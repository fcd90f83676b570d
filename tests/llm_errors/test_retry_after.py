"""Retry-After parsing: seconds, milliseconds, HTTP dates, and garbage."""

import email.utils

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors import parse_retry_after
from llm_errors._retry_after import _HINT, parse_duration, retry_after_from_text

NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        pytest.param({"Retry-After": "7"}, 7.0, id="seconds"),
        pytest.param({"retry-after": "1.5"}, 1.5, id="float-seconds"),
        pytest.param({"RETRY-AFTER": " 30 "}, 30.0, id="case-and-spaces"),
        pytest.param({"retry-after-ms": "1500"}, 1.5, id="milliseconds"),
        pytest.param({"retry-after-ms": "250", "retry-after": "9"}, 0.25, id="ms-wins"),
        pytest.param({"retry-after-ms": "junk", "retry-after": "9"}, 9.0, id="bad-ms-falls-back"),
        pytest.param({"retry-after-ms": "-5", "retry-after": "2"}, 2.0, id="negative-ms-ignored"),
        pytest.param({"Retry-After": "0"}, 0.0, id="zero"),
        pytest.param({"Retry-After": b"12"}, 12.0, id="bytes-value"),
    ],
)
def test_numeric_headers(headers, expected):
    """Seconds and milliseconds headers are read case-insensitively, -ms first."""
    assert parse_retry_after(headers, now=NOW) == expected


def test_http_date_in_the_future():
    """An HTTP date is measured against ``now``."""
    date = email.utils.formatdate(NOW + 120, usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now=NOW) == pytest.approx(120.0)


def test_http_date_in_the_past_means_now():
    """A date that already passed means "retry now", not a negative wait."""
    date = email.utils.formatdate(NOW - 3600, usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now=NOW) == 0.0


def test_http_date_with_minus_zero_zone():
    """``-0000`` dates parse as naive datetimes and are read as GMT."""
    date = email.utils.formatdate(NOW + 60)[:-5] + "-0000"
    assert parse_retry_after({"Retry-After": date}, now=NOW) == pytest.approx(60.0)


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param(None, id="none"),
        pytest.param({}, id="empty"),
        pytest.param({"Retry-After": "soon"}, id="word"),
        pytest.param({"Retry-After": "-1"}, id="negative"),
        pytest.param({"Retry-After": "nan"}, id="nan"),
        pytest.param({"Retry-After": "inf"}, id="inf"),
        pytest.param({"Retry-After": "Mon, 99 Foo 2024 99:99:99 GMT"}, id="broken-date"),
        pytest.param({"Retry-After": ""}, id="blank"),
        pytest.param({"Retry-After": 5}, id="non-string-value"),
        pytest.param({"x-ratelimit-reset": "5"}, id="other-header"),
        pytest.param(["Retry-After", "5"], id="not-a-mapping"),
    ],
)
def test_garbage_is_ignored(headers):
    """Anything that is not a valid wait gives ``None``, never an exception."""
    assert parse_retry_after(headers, now=NOW) is None


def test_real_httpx_headers():
    """``httpx.Headers`` (a case-insensitive multi-dict) is accepted as is."""
    httpx = pytest.importorskip("httpx")
    assert parse_retry_after(httpx.Headers({"Retry-After": "3"})) == 3.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("9m38.016s", 578.016, id="go-style"),
        pytest.param("6 seconds. Please go here", 6.0, id="spelled-out"),
        pytest.param("1h2m", 3720.0, id="hours-minutes"),
        pytest.param("2 hours and 5 minutes", 7500.0, id="and"),
        pytest.param("250ms", 0.25, id="milliseconds"),
        pytest.param("3 days", 259200.0, id="days"),
        pytest.param("soon", None, id="not-a-duration"),
        pytest.param("2 more tries", None, id="m-is-not-minutes-in-a-word"),
    ],
)
def test_parse_duration(text, expected):
    """Go-style and spelled-out durations are summed; non-durations give ``None``."""
    assert parse_duration(text) == (pytest.approx(expected) if expected else None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("Please try again in 9m38.016s. Need more tokens?", 578.016, id="groq"),
        pytest.param("Please retry after 86400 seconds.", 86400.0, id="azure"),
        pytest.param("Please retry in 25.465784708s.", 25.465784708, id="gemini"),
        pytest.param("'retryDelay': '59s'", 59.0, id="google-retry-info"),
        pytest.param("Please try again in a moment.", None, id="no-number"),
        pytest.param("timeout=30s was set", None, id="no-hint-word"),
        pytest.param(
            "Stream error after retries: kimi-k2.5 账号队列超时: "
            "所有可用账号暂时不可用\uff0c请 78 秒后重试",
            78.0,
            id="chinese-relay",  # dwgx/WindsurfAPI#160
        ),
        pytest.param(
            "该模型当前访问量过大,请您稍后再试",
            None,
            id="chinese-no-number",  # https://docs.bigmodel.cn/cn/api/rate-limit
        ),
    ],
)
def test_retry_after_from_text(text, expected):
    """Providers' "try again in ..." hints become seconds."""
    assert retry_after_from_text(text) == (pytest.approx(expected) if expected else None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("try again in 5s, the window resets daily", 5.0, id="try-at-start"),
        pytest.param("xretry in 5s", None, id="no-boundary-before"),
        pytest.param("reset in 3 minutes; retry in 9s", 180.0, id="first-hint-wins"),
        pytest.param("please Try\tagain in 2s or retry after 4s", 2.0, id="tab-between-words"),
        pytest.param("entry 7: retry_delay: 12s", 12.0, id="retry-delay"),
        pytest.param("d\u00e9j\u00e0 vu: retry in 1.5s", 1.5, id="non-ascii"),
    ],
)
def test_wait_hints_are_found_wherever_they_start(text, expected):
    """The scan starts at the first possible hint word and still finds the first hint."""
    assert retry_after_from_text(text) == expected


_HINT_PIECES = st.sampled_from(
    [
        "try",
        "re",
        "retry",
        "reset",
        "resets",
        "again",
        "_delay",
        "delay",
        " ",
        "\t",
        "x",
        "in",
        "after",
        "5s",
        "2 minutes",
        "1h",
        ":",
        "\u0130",
        "\u00e9",
        "TRY",
        "Again",
    ]
)


@settings(deadline=None)
@given(st.lists(_HINT_PIECES, max_size=12))
def test_wait_hint_scan_start_changes_nothing(pieces):
    """Starting the scan at the first possible hint word finds what a full scan finds."""
    text = "".join(pieces)
    low = text.lower()
    expected = None
    if "retry" in low or "try again" in low or "reset" in low:
        for hint in _HINT.finditer(text):
            expected = parse_duration(text[hint.end() :])
            if expected is not None:
                break
    assert retry_after_from_text(text) == expected
