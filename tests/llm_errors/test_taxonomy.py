"""The taxonomy: codes, the flat exception tree, context, pickling and redaction."""

import pickle

import pytest

import llm_errors
from llm_errors import (
    DEFAULT_RETRYABLE_CODES,
    ErrorCode,
    LlmError,
    LlmTimeoutError,
    RateLimitError,
    error_class_for,
    make_error,
)
from llm_errors._taxonomy import BODY_EXCERPT_LIMIT

SECRET_KEY = "sk-proj-SENTINELsecretKEY0123456789"
SENTINEL_B64 = "iVBORw0KGgoAAAANSUhEUg" + "QUJD" * 40


def test_codes_are_names():
    """Every code's value is its name, and the set is exactly the documented one."""
    assert {c.value for c in ErrorCode} == {c.name for c in ErrorCode}
    assert {c.name for c in ErrorCode} == {
        "TRANSPORT", "TIMEOUT", "RATE_LIMIT", "SERVER", "PROVIDER_ERROR", "AUTH",
        "INVALID_REQUEST", "CONTEXT_OVERFLOW", "QUOTA_EXCEEDED", "CONTENT_FILTER", "ABORTED",
    }  # fmt: skip


def test_default_retryable_codes():
    """Exactly the four transient codes are retryable; the catch-all never is."""
    assert {
        ErrorCode.RATE_LIMIT, ErrorCode.SERVER, ErrorCode.TIMEOUT, ErrorCode.TRANSPORT
    } == DEFAULT_RETRYABLE_CODES  # fmt: skip
    assert ErrorCode.PROVIDER_ERROR not in DEFAULT_RETRYABLE_CODES


@pytest.mark.parametrize("code", list(ErrorCode), ids=str)
def test_one_direct_subclass_per_code(code):
    """Each code has its own direct subclass of LlmError that carries it."""
    cls = error_class_for(code)
    assert cls.__bases__ == (LlmError,)
    err = cls("boom")
    assert err.code is code
    assert err.retryable is (code in DEFAULT_RETRYABLE_CODES)
    assert isinstance(make_error(code, "x"), cls)


def test_no_builtin_shadowing():
    """No public exception name shadows a builtin."""
    import builtins

    assert not set(llm_errors.__all__) & set(dir(builtins))
    assert issubclass(LlmTimeoutError, LlmError)


def test_context_is_keyword_only():
    """A subclass takes the message positionally and the context by keyword."""
    err = RateLimitError("rate limited", retry_after=30.0, status=429, provider="mistral")
    assert (err.message, err.retry_after, err.status, err.provider) == (
        "rate limited", 30.0, 429, "mistral"
    )  # fmt: skip
    with pytest.raises(TypeError):
        RateLimitError("rate limited", 30.0)  # type: ignore[misc]


def test_subclass_rejects_a_different_code():
    """Giving a subclass a code other than its own is a bug, reported as ValueError."""
    with pytest.raises(ValueError, match="RateLimitError always carries code RATE_LIMIT"):
        RateLimitError("x", code=ErrorCode.SERVER)


def test_base_class_takes_any_code():
    """The base class carries whatever code it is given, default PROVIDER_ERROR."""
    assert LlmError("x").code is ErrorCode.PROVIDER_ERROR
    assert LlmError("x", code="TIMEOUT").code is ErrorCode.TIMEOUT


@pytest.mark.parametrize("cls", [LlmError, *(error_class_for(c) for c in ErrorCode)])
def test_pickle_round_trip(cls):
    """Errors survive pickling with their class, message, context and notes."""
    err = cls("failed", status=503, retry_after=1.5, provider="p", model="m", request_id="r",
              rule="rule-x", body={"error": "x"}, resets_at=1_788_220_800.0)  # fmt: skip
    err.add_note("attempt 3")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cls
    assert back.context() == err.context()
    assert str(back) == str(err)
    assert back.__notes__ == ["attempt 3"]


def test_chaining_is_preserved_by_raise_from():
    """``raise … from cause`` keeps the cause on the typed error."""
    cause = ConnectionResetError("reset")
    with pytest.raises(llm_errors.TransportError) as info:
        raise make_error(ErrorCode.TRANSPORT, "connection reset") from cause
    assert info.value.__cause__ is cause


def test_secrets_and_payloads_never_in_str_repr_or_body():
    """API keys, data URLs and base64 are scrubbed from message, repr and body."""
    payload = f"bad image data:image/png;base64,{SENTINEL_B64} key {SECRET_KEY}"
    err = LlmError(payload, body={"image": SENTINEL_B64, "auth": f"Bearer {SECRET_KEY}"})
    for text in (str(err), repr(err), err.body or "", repr(err.args), str(pickle.dumps(err))):
        assert SECRET_KEY not in text
        assert SENTINEL_B64[:40] not in text
    assert "data:image/png;<redacted" in str(err)


@pytest.mark.parametrize(
    ("body", "excerpt"),
    [
        pytest.param(
            b'{"error": {"message": "bad key", "key": "' + SECRET_KEY.encode() + b'"}}',
            '{"error": {"message": "bad key", "key": "<redacted>"}}',
            id="bytes-decoded",
        ),
        pytest.param({("error", "type"): "x"}, "{('error', 'type'): 'x'}", id="not-json-is-repr"),
    ],
)
def test_body_of_any_shape_becomes_text(body, excerpt):
    """A bytes body is decoded, one JSON cannot hold is its repr; either is redacted."""
    assert LlmError("x", body=body).body == excerpt


def test_body_excerpt_is_bounded():
    """A huge body is cut to a bounded excerpt that says how much was dropped."""
    err = LlmError("x", body="y " * 100_000)
    assert err.body is not None
    assert len(err.body) < 2100
    assert err.body.endswith("more chars]")


@pytest.mark.parametrize(
    ("size", "cut"),
    [
        pytest.param(BODY_EXCERPT_LIMIT - 1, False, id="one-under"),
        pytest.param(BODY_EXCERPT_LIMIT, False, id="at-the-limit"),
        pytest.param(BODY_EXCERPT_LIMIT + 1, True, id="one-over"),
    ],
)
def test_body_excerpt_limit_boundary(size, cut):
    """A body of exactly ``BODY_EXCERPT_LIMIT`` characters is kept whole; one more is cut."""
    body = ("no. " * size)[:size]  # prose: redaction leaves it alone
    err = LlmError("x", body=body)
    if cut:
        assert err.body == body[:BODY_EXCERPT_LIMIT] + "…[1 more chars]"
    else:
        assert err.body == body


@pytest.mark.parametrize(
    ("err", "code"),
    [
        pytest.param(RateLimitError("r", status=429), ErrorCode.RATE_LIMIT, id="subclass"),
        pytest.param(LlmError("r", code="TIMEOUT", status=429), ErrorCode.TIMEOUT, id="base"),
    ],
)
def test_with_context_copies(err, code):
    """``with_context`` returns a new error of the same class and code with context replaced."""
    other = err.with_context(retry_after=2.0, resets_at=1_788_220_800.0)
    assert type(other) is type(err)
    assert other.code is code
    assert (other.status, other.retry_after, err.retry_after) == (429, 2.0, None)
    assert (other.resets_at, err.resets_at) == (1_788_220_800.0, None)
    assert "resets_at=1788220800.0" in repr(other)
    assert "resets_at" not in repr(err)


def test_with_context_keeps_notes_and_attached_attributes():
    """Notes and caller-attached attributes survive ``with_context``."""
    err = LlmTimeoutError("slow", status=504)
    err.add_note("attempt 2")
    err.partial = {"role": "assistant"}  # type: ignore[attr-defined]
    other = err.with_context(request_id="r-1")
    assert other.__notes__ == ["attempt 2"]
    assert other.partial == {"role": "assistant"}  # type: ignore[attr-defined]
    assert (other.status, other.request_id) == (504, "r-1")
