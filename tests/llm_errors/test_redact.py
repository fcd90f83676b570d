"""Secrets never leave in errors or the CLI's output: keys with and without a known prefix."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_errors._redact import (
    _BASE64_RUN,
    _BEARER,
    _DATA_URL,
    _KEYED,
    _PREFIXED_KEY,
    _data_url,
    inert,
    scrub,
)

SECRET = "abcdefghijklmnop123"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        pytest.param(
            f"GET https://generativelanguage.googleapis.com/v1beta/models?key={SECRET} failed",
            "GET https://generativelanguage.googleapis.com/v1beta/models?key=<redacted> failed",
            id="query-parameter",
        ),
        pytest.param(
            f'{{"key": "{SECRET}", "model": "x"}}',
            '{"key": "<redacted>", "model": "x"}',
            id="json-field",
        ),
        pytest.param(
            f"Invalid API key: '{SECRET}'", "Invalid API key: '<redacted>'", id="api-key-spaced"
        ),
        pytest.param(
            f"https://x/y?authorization=Bearer%20{SECRET}&z=1",
            "https://x/y?authorization=Bearer <redacted>&z=1",
            id="url-encoded-bearer",
        ),
        pytest.param(
            f"Authorization: Bearer {SECRET}", "Authorization: Bearer <redacted>", id="bearer"
        ),
        pytest.param(f"api_key={SECRET}", "api_key=<redacted>", id="api-key"),
    ],
)
def test_keys_their_context_names_are_redacted(text, redacted):
    """A key is replaced when its context says it is one, known prefix or not."""
    assert scrub(text) == redacted


@pytest.mark.parametrize(
    "text",
    [
        "monkey=banana12345 turkey: sandwich99",
        "the key point is that nothing here is secret",
        "cache key=abcdef1234 (a key of our own, not a credential)",
    ],
)
def test_words_that_merely_hold_key_are_left_alone(text):
    """``key`` inside a word, or as a plain word outside a query or a quoted name, is kept."""
    assert scrub(text) == text


def test_a_head_holding_a_key_word_is_not_inert():
    """The scan's prefix shortcut never skips a head that could start a key."""
    assert not inert('{"key": ')
    assert inert("2025-01-01 12:00:00 ERROR app: ")


def _every_pass(text: str) -> str:
    """Every scrubber, unconditionally: what ``scrub``'s anchor tests only spare work of."""
    text = _DATA_URL.sub(_data_url, text)
    text = _BEARER.sub(r"\1 <redacted>", text)
    text = _KEYED.sub(r"\g<k>\g<sep><redacted>", text)
    text = _PREFIXED_KEY.sub("<redacted key>", text)
    return _BASE64_RUN.sub(lambda m: f"<redacted {len(m.group(0))} chars>", text)


# Names in several cases (with characters that case-fold to ASCII letters), separators,
# values and the other anchors, put together as a secret would be and out of order.
_NAMES = st.sampled_from(
    [
        *("key", "KEY", "api_key", "API key", "x-api-key", "Authorization", "authorization"),
        *("access-token", "token", "Secret", "Password", "\u212aey", "pa\u017f\u017fword"),
        *("auth", "Bearer", "basic", "data:image/png;base64", "sk-proj-", "AIza", "gsk_"),
        *("hf_", "AKIA", "xai-", "mykey", "keys", "tokens"),
    ]
)
_SEPARATORS = st.sampled_from(["", ":", "=", ": ", " = ", '":"', "': '", " ", ",", "%20", "\t:"])
_VALUES = st.sampled_from(
    [
        "abcdefghij0123456789",
        "ABCDEFGHIJKLMNOP",
        "x",
        "<redacted>",
        "A" * 63,
        "A" * 64,
        "a-_+/" * 13,
    ]
)
_FILLER = st.sampled_from(["", " ", "?", "&", ";", '"', "'", "\u0130", "\u0131", "\u00e9"])
_PIECE = st.tuples(_FILLER, _NAMES, _SEPARATORS, _VALUES).map("".join) | st.text(max_size=6)


@settings(max_examples=400)
@given(st.lists(_PIECE, max_size=6).map("".join))
def test_the_anchor_tests_only_spare_work(text):
    """``scrub`` gives what running every scrubber gives, whatever the anchors say."""
    assert scrub(text) == _every_pass(text)
