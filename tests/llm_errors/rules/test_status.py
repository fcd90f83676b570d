"""The status and body-type tables: every row points at a real rule and is exercised."""

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors import RULES, Layer, classify
from llm_errors._match.matcher import FLAGS
from llm_errors._match.prefilter import translate
from llm_errors._rules.status import (
    BODY_TYPES,
    STATUS_RULES,
    normalize_identifier,
    status_from_text,
    status_in_tokens,
    status_rule,
)

BY_ID = {rule.id: rule for rule in RULES}


def test_every_status_row(table):
    """Each listed status maps to an existing rule, and a body with it is decided by it."""

    def check(status, rule_id):
        assert rule_id in BY_ID
        result = classify({"status": status})
        assert (result.rule, result.code, result.status, result.layer) == (
            rule_id,
            BY_ID[rule_id].code,
            status,
            Layer.STATUS,
        )

    rows = sorted(STATUS_RULES.items())
    table.check(((str(status), (status, rule_id)) for status, rule_id in rows), check)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (418, "http.4xx"),
        (499, "http.4xx"),
        (511, "http.5xx"),
        (200, None),
        (302, None),
        (600, None),
    ],
)
def test_unlisted_statuses_fall_back_by_class(status, expected):
    """Unlisted 4xx/5xx fall back to the generic rows; other statuses are no evidence."""
    assert status_rule(status) == expected


def test_every_body_type_row(table):
    """Each provider type/code maps to an existing rule and decides a body holding it."""

    def check(value, rule_id):
        assert rule_id in BY_ID
        result = classify({"error": {"type": value}})
        assert (result.rule, result.layer) == (rule_id, Layer.STATUS)

    table.check(((value, (value, rule_id)) for value, rule_id in sorted(BODY_TYPES.items())), check)


# Values that mean something only in their field (a finish reason of SAFETY, a gRPC
# status of INTERNAL); as a bare word in prose they are no evidence.
STRUCTURED_ONLY = {
    "safety",
    "blocklist",
    "spii",
    "prohibited_content",
    "image_safety",
    "recitation",
    "internal",
    "data_loss",
}


def test_body_types_are_also_matched_in_text(table):
    """The wording rule a type maps to recognises that type in flattened text too."""

    def check(value, rule_id):
        pattern = BY_ID[rule_id].pattern
        assert any(
            regex.search(pattern, candidate, FLAGS)
            for candidate in (value, value.upper(), value.title().replace("_", ""))
        ), rule_id

    rows = sorted(BODY_TYPES.items())
    table.check(
        (
            (value, (value, rule_id))
            for value, rule_id in rows
            if not value.isdigit() and value not in STRUCTURED_ONLY
        ),
        check,
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("com.amazon.coral.service#ThrottlingException", "throttlingexception"),
        ("StatusCode.UNAVAILABLE", "unavailable"),
        ("'insufficient_quota'", "insufficient_quota"),
        ("Service Unavailable", None),
        ("", None),
        ("x" * 200, None),
    ],
)
def test_normalize_identifier(raw, expected):
    """Namespaces and quotes are dropped; prose is not an identifier."""
    assert normalize_identifier(raw) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Error code: 429 - {...}", 429),
        ("HTTP/1.1 503 Service Unavailable", 503),
        ('"raw_status_code":422', 422),
        ("statusCode: 500", 500),
        ("AxiosError: Request failed with status code 401", 401),
        ("tokens=500 duration_ms=503", None),
        ("status=200", None),
        ("code: 3051", None),
        ("status 429.5", None),
    ],
)
def test_status_from_text(text, expected):
    """A 4xx/5xx counts only in a status context."""
    assert status_from_text(text) == expected


def _status_tokens(text):
    padded = b" " + translate(text) + b" "
    return padded, {t for t in padded.split() if t.isdigit() and len(t) == 3 and t[:1] in b"45"}


@pytest.mark.parametrize(
    "text",
    [
        "Error code: 429 - {...}",
        "HTTP/1.1 503 Service Unavailable",
        "HTTP/2 502",
        "statusCode: 500",
        "error_code=401 then error code  403",
        "tokens=500 duration_ms=503 status: 404",
        "code:    500",
        "500 at the start, then code: 502",
        "xstatus 429 and _status 503",
    ],
)
def test_status_from_tokens_agrees_with_the_search(text):
    """Reading statuses only where 3-digit tokens start finds what the full search finds."""
    padded, numbers = _status_tokens(text)
    assert status_in_tokens(text, padded, numbers) == status_from_text(text)


_STATUS_PIECES = st.sampled_from(
    [
        "HTTP/1.1 ",
        "HTTP ",
        "http status ",
        "status",
        "Status_Code",
        "error",
        "response-code",
        "code",
        "tokens",
        "2",
        ": ",
        " - ",
        "=",
        "   ",
        ".",
        ",5",
        "429",
        "503",
        "404",
        "599",
        "200",
        "x",
        "\n",
    ]
)


@settings(deadline=None)
@given(st.lists(_STATUS_PIECES, max_size=12))
def test_status_from_tokens_agrees_on_random_text(pieces):
    """The token precheck never skips a number the status regex would accept."""
    text = "".join(pieces)
    padded, numbers = _status_tokens(text)
    assert status_in_tokens(text, padded, numbers) == status_from_text(text)
