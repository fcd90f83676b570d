"""Secrets never leave in errors or the CLI's output: keys with and without a known prefix."""

import pytest

from llm_errors._redact import inert, scrub

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
