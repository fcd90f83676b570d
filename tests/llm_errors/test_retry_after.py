"""Retry-After parsing: seconds, milliseconds, HTTP dates, and garbage."""

import contextlib
import email.utils
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors import classify, daily_reset_from_text, explain, parse_retry_after
from llm_errors._retry_after import (
    _HINT,
    HEADERS_IN_TEXT_LIMIT,
    parse_duration,
    parse_reset_time,
    reset_time_from_text,
    retry_after_from_text,
    retry_after_in_text,
)
from llm_errors.logs._cli import main

NOW = 1_700_000_000.0


class _UnreadableHeaders(dict):
    """Headers whose items cannot be read (a broken mapping is garbage too)."""

    def items(self):
        raise RuntimeError("no")


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
        pytest.param(_UnreadableHeaders({"Retry-After": "5"}), id="mapping-that-raises"),
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
        pytest.param("retry in 1 or 2 minutes; reset in 60s", 60.0, id="hint-without-a-unit"),
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


#: Headers written in text, and text that only talks about them. Each row: (id, text,
#: the wait, or ``None``); ``NOW`` measures the dates.
_PROSE = (
    "`429 too many requests` can include `Retry-After` header that indicates how long to "
    "wait before making a new request."
)
HEADERS_IN_TEXT = (
    # The line of the report that asked for this (a plain log line, flattened headers).
    ("status-line", "HTTP 429 Too Many Requests; Retry-After: 20", 20.0),
    # RFC 9110 section 10.2.3's two examples, as a header line.
    ("rfc-seconds", "Retry-After: 120", 120.0),
    ("rfc-date", "Retry-After: Fri, 31 Dec 1999 23:59:59 GMT", 0.0),  # long past: now
    ("future-date", f"Retry-After: {email.utils.formatdate(NOW + 90, usegmt=True)}", 90.0),
    # openai-python reads retry-after-ms first (_calculate_retry_timeout); so does the text.
    ("ms-wins", "retry-after: 9, retry-after-ms: 1500", 1.5),
    ("printed-mapping", "Headers({'content-type': 'application/json', 'retry-after': '20'})", 20.0),
    ("json", '{"retry-after":"3"}', 3.0),
    ("underscore-equals", "rate limited: retry_after=5", 5.0),
    ("upper-case", "RETRY-AFTER: 7", 7.0),
    ("sentence-end", "429 from upstream; Retry-After: 20.", 20.0),
    # Not a header value: prose (textlint-rule/textlint-rule-no-dead-link#135), a
    # placeholder (icereed/paperless-gpt#814), a 429's printed headers without one
    # (anthropics/anthropic-sdk-typescript#357: its Date must not be read), units, garbage.
    ("prose", _PROSE, None),
    (
        "placeholder",
        "Azure does respond with an header in case of status code 429\n`Retry-After: <seconds>`",
        None,
    ),
    ("date-header", "date: 'Tue, 26 Mar 2024 19:59:59 GMT', 'x-should-retry': 'true'", None),
    ("words", "we retry after 20 users log in", None),
    ("a-unit", "Retry-After: 20s", None),
    ("negative", "Retry-After: -1", None),
    ("too-precise", "Retry-After: 1.1234567", None),
    ("another-header", "retry_after_seconds: 5", None),
)


def test_headers_written_in_text():
    """A ``Retry-After``/``retry-after-ms`` header in text reads as the header would."""
    wrong = [
        (name, found)
        for name, text, expected in HEADERS_IN_TEXT
        if (found := retry_after_in_text(text, now=NOW))
        != (None if expected is None else pytest.approx(expected))
    ]
    assert wrong == []


def test_headers_in_text_are_bounded():
    """Only the first headers written are read: a text of many costs no more than that."""
    bad = "Retry-After: Mon, 31 Feb 2024 10:00:00 GMT; "  # a header's form, not a date
    assert retry_after_in_text(bad * HEADERS_IN_TEXT_LIMIT + "retry-after-ms: 5000") is None
    assert retry_after_in_text(bad * (HEADERS_IN_TEXT_LIMIT - 1) + "retry-after-ms: 5000") == 5.0


@pytest.mark.parametrize(
    ("text", "code", "wait"),
    [
        pytest.param("HTTP 429 Too Many Requests; Retry-After: 20", "RATE_LIMIT", 20.0, id="429"),
        # A 503 may carry a Retry-After too (RFC 9110 section 10.2.3): any code reads it.
        pytest.param(
            "HTTP/1.1 503 Service Unavailable Retry-After: 120", "SERVER", 120.0, id="503"
        ),
        # Over an hour: the long-reset policy, as for a header (docs/errors.md).
        pytest.param(
            "HTTP 429 Too Many Requests; Retry-After: 86400",
            "QUOTA_EXCEEDED",
            86400.0,
            id="long-reset",
        ),
        # The hint still counts where no header is written (icereed/paperless-gpt#814).
        pytest.param(
            "API returned unexpected status code: 429: Your requests to gpt-4.1-nano for "
            "gpt-4.1-nano in Sweden Central have exceeded the token rate limit for your current "
            "AIServices S0 pricing tier. This request was for ChatCompletions_Create under Azure "
            "OpenAI API version 2023-05-15. Please retry after 45 seconds.",
            "RATE_LIMIT",
            45.0,
            id="hint",
        ),
    ],
)
def test_classify_and_explain_read_a_header_in_text(text, code, wait):
    """``classify``, ``explain`` and ``llm-errors explain --json`` give the header's wait.

    So does a JSON log record holding the message (read as a mapping, its text last).
    """
    verdict = classify(text)
    assert (verdict.code, verdict.retry_after) == (code, wait)
    assert explain(text).classification == verdict
    record = classify({"level": "error", "msg": text})
    assert (record.code, record.retry_after) == (code, wait)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["explain", "--json", text]) == 0
    assert json.loads(out.getvalue())["retry_after"] == wait


# -- stated reset instants: ``resets_at`` ------------------------------------------

#: 2026-09-01T00:00:00Z.
SEPT_1 = 1_788_220_800.0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(1_782_365_382, 1_782_365_382.0, id="epoch-seconds"),
        pytest.param("1782365382", 1_782_365_382.0, id="epoch-seconds-as-digits"),
        pytest.param(1_784_150_654_841, 1_784_150_654.841, id="epoch-milliseconds"),
        pytest.param("2026-09-01T00:00:00Z", SEPT_1, id="rfc3339-z"),
        pytest.param("2026-09-01T08:00:00+08:00", SEPT_1, id="rfc3339-offset"),
        pytest.param("2026-09-01 00:00 UTC", SEPT_1, id="utc-suffix"),
        pytest.param("2026-09-01T00:00:00.123456789Z", SEPT_1 + 0.123456, id="nanoseconds"),
        pytest.param("2026-09-01 00:00:00", None, id="no-zone"),
        pytest.param("6m0s", None, id="a-duration"),
        pytest.param(392_723, None, id="seconds-not-an-instant"),
        pytest.param(True, None, id="bool"),
        pytest.param(float("nan"), None, id="nan"),
        pytest.param("2026-13-45T00:00:00Z", None, id="no-such-date"),
        pytest.param("2026-09-01T00:00:00Z" + " " * 60, None, id="over-long"),
        pytest.param(None, None, id="none"),
    ],
)
def test_a_reset_field_is_read_as_an_instant(value, expected):
    """Epoch seconds or milliseconds, or RFC 3339 with its zone; anything else is no instant."""
    found = parse_reset_time(value)
    assert found == pytest.approx(expected) if expected is not None else found is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # router-for-me/CLIProxyAPI#3942 (OpenAI's usage-limit body, written in a log line).
        pytest.param(
            'codex error: {"error":{"type":"usage_limit_reached","message":"The usage limit '
            'has been reached","plan_type":"team","resets_at":1782365382,"eligible_promo":'
            'null,"resets_in_seconds":392723}}',
            1_782_365_382.0,
            id="resets_at-field",
        ),
        # MiniMax-AI/MiniMax-M2.7#36.
        pytest.param(
            "usage limit exceeded, 5-hour usage limit reached for Token Plan Starter "
            "(0/0 used), resets at 2026-05-15T15:00:00Z (2056)",
            1_778_857_200.0,
            id="time-after-reset",
        ),
        # anthropics/claude-code#11429 (the title).
        pytest.param("Claude AI usage limit reached|1762952400", 1_762_952_400.0, id="pipe-epoch"),
        # openclaw/openclaw#97764: no zone, so no instant.
        pytest.param(
            "Weekly/Monthly Limit Exhausted. Your limit will reset at 2026-07-02 17:39:49",
            None,
            id="no-zone",
        ),
        # anthropics/claude-code#2490: a clock time needs today's date to be an instant.
        pytest.param(
            "Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).",
            None,
            id="clock-time",
        ),
        pytest.param(
            "You have exhausted your capacity on this model. Your quota will reset after 4h28m20s.",
            None,
            id="a-duration",
        ),
    ],
)
def test_a_text_states_its_reset_instant(text, expected):
    """A ``resets_at`` field, a zoned time after "reset", Claude Code's ``|epoch``."""
    assert reset_time_from_text(text) == expected


def test_a_time_far_from_the_word_reset_is_not_its_reset():
    """Only the 60 characters after "reset" on its line are read."""
    far = "Your quota resets" + " soon" * 13 + " 2026-09-01T00:00:00Z"
    near = "Your quota resets at 2026-09-01T00:00:00Z"
    assert reset_time_from_text(far) is None
    assert reset_time_from_text(near) == SEPT_1
    assert reset_time_from_text("Your quota resets\n at 2026-09-01T00:00:00Z") is None


def test_classify_gives_the_reset_instant_of_a_quota_or_rate_limit_only():
    """``resets_at`` rides on rate limits and quotas; the same words elsewhere say nothing."""
    body = {
        "error": {
            "type": "usage_limit_reached",
            "message": "The usage limit has been reached",
            "plan_type": "team",
            "resets_at": 1782365382,
            "eligible_promo": None,
            "resets_in_seconds": 392723,
        }
    }
    from_body = classify(body)
    assert from_body.code == "QUOTA_EXCEEDED"
    assert from_body.resets_at == 1_782_365_382.0
    assert classify(json.dumps(body)).resets_at == 1_782_365_382.0
    assert classify("Claude AI usage limit reached|1762952400").resets_at == 1_762_952_400.0
    # A connection reset is no limit, whatever time follows it.
    reset = classify("read ECONNRESET at 2026-09-01T00:00:00Z: connection reset by peer")
    assert reset.code == "TRANSPORT"
    assert reset.resets_at is None
    # retry_after stays the stated duration: an instant is not turned into one here.
    assert from_body.retry_after is None


def test_a_stated_instant_never_depends_on_the_clock(monkeypatch):
    """The verdict of a text is the same whenever it is classified."""
    text = "usage limit reached, resets at 2026-05-15T15:00:00Z"
    before = classify(text)
    monkeypatch.setattr("time.time", lambda: 4_000_000_000.0)
    assert classify(text) == before
    assert explain(text).classification.resets_at == 1_778_857_200.0


def test_the_cli_writes_the_instant_in_utc(tmp_path):
    """``--format jsonl`` gives ``resets_at`` as RFC 3339 in UTC, the summary their range."""
    log = tmp_path / "app.log"
    log.write_text("ERROR Claude AI usage limit reached|1762952400\nERROR plain failure\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["classify", "--format", "jsonl", "--progress", "never", str(log)])
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [record["resets_at"] for record in records] == ["2025-11-12T13:00:00Z", None]
    assert "1 stated when their limit resets (2025-11-12T13:00:00Z)" in err.getvalue()


#: A Gemini per-day quota's 429, as quoted in google-gemini/api-examples#98.
GEMINI_PER_DAY = (
    "Quota exceeded for metric: "
    "generativelanguage.googleapis.com/generate_content_free_tier_requests"
    "\nquotaId: GenerateRequestsPerDayPerProjectPerModel-FreeTier"
)


@pytest.mark.parametrize(
    ("now", "midnight"),
    [
        # 2026-05-28 20:26:40Z is 13:26 in Los Angeles (PDT): the next midnight is 07:00Z.
        pytest.param(1_780_000_000.0, 1_780_038_000.0, id="summer-time"),
        # 2026-12-07 15:00:00Z is 07:00 in Los Angeles (PST): the next midnight is 08:00Z.
        pytest.param(1_796_655_600.0, 1_796_716_800.0, id="winter-time"),
        # 2026-12-08 02:00:00Z is still the 7th in Los Angeles (18:00 PST).
        pytest.param(1_796_695_200.0, 1_796_716_800.0, id="a-day-behind-utc"),
        # Exactly at midnight in Los Angeles: the next one, a day later.
        pytest.param(1_796_716_800.0, 1_796_803_200.0, id="at-midnight"),
    ],
)
def test_a_google_per_day_quota_resets_at_midnight_pacific(now, midnight):
    """Google's per-day quotas reset at midnight Pacific time (ai.google.dev rate-limits page)."""
    assert daily_reset_from_text(GEMINI_PER_DAY, now=now) == midnight
    per_minute = GEMINI_PER_DAY.replace("PerDay", "PerMinute")
    assert daily_reset_from_text(per_minute, now=now) is None
    # It depends on the day, so the verdict's resets_at does not carry it.
    assert reset_time_from_text(GEMINI_PER_DAY) is None
    assert classify(GEMINI_PER_DAY).resets_at is None
