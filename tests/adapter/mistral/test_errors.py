"""Error translation: every Mistral body shape and status, headers, in-band errors, no leaks."""

import json
import pickle
from http import HTTPStatus

import httpx
import pytest
from pydantic import ValidationError

from adapter._mistral.errors import (
    MESSAGE_LIMIT,
    UnmappableChunkError,
    attach_partial,
    error_from_payload,
    error_from_response,
    malformed_chunk_error,
    partial_of,
    protocol_error,
)
from adapter._mistral.wire import parse_completion_chunk
from adapter.pi import AssistantMessage, Usage, UsageCost
from llm_errors import (
    AuthError,
    ContextOverflowError,
    ErrorCode,
    InvalidRequestError,
    LlmError,
    LlmTimeoutError,
    ProviderError,
    RateLimitError,
    ServerError,
    classify,
)

# A realistic-looking secret of each kind that must never come back out.
SENTINEL_BASE64 = "QUJD" * 40 + "ZZZsentinelZZZ"
SENTINEL_DATA_URL = f"data:image/png;base64,{SENTINEL_BASE64}"
SENTINEL_KEY = "q9Xv2LmN8sentinelKEY7rT4wZ1pK6jH3"
SENTINEL_PROMPT = "my secret prompt text sentinel"


def respond(
    status: int, body: bytes | str = b"", headers: dict[str, str] | None = None
) -> LlmError:
    """Translate one response, as the client would."""
    raw = body.encode() if isinstance(body, str) else body
    return error_from_response(status=status, headers=headers or {}, body=raw, model="mistral-x")


# --- body shapes A to I (WIRE.md section 7.2) ---------------------------------------------

# The stdlib's reason phrase: RFC 9110 renamed 422, and Python 3.13 follows it.
UNPROCESSABLE = HTTPStatus(422).phrase

SHAPES = [
    pytest.param(
        429,
        '{"object":"error","message":"Rate limit exceeded","type":"rate_limited","param":null,'
        '"code":"1300","raw_status_code":429}',
        RateLimitError,
        "Mistral HTTP 429 Too Many Requests (type rate_limited, code 1300): Rate limit exceeded",
        id="A-object-error",
    ),
    pytest.param(
        422,
        '{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body",'
        '"stream_options","include_usage"],"msg":"Extra inputs are not permitted","input":true,'
        '"url":"https://errors.pydantic.dev/2.10/v/extra_forbidden"}]},'
        '"type":"invalid_request_error","param":null,"code":null}',
        InvalidRequestError,
        "Mistral HTTP 422 Unprocessable Content (type invalid_request_error): "
        "body.stream_options.include_usage: Extra inputs are not permitted",
        id="B-message-object",
    ),
    pytest.param(
        422,
        r'{"object":"error","message":"{\"detail\":[{\"type\":\"extra_forbidden\",\"loc\":'
        r"[\"body\",\"frequency_penalty\"],\"msg\":\"Extra inputs are not permitted\","
        r'\"input\":0.0,\"url\":\"https://errors.pydantic.dev/2.5/v/extra_forbidden\"}]}",'
        r'"type":"internal_error_proxy","param":null,"code":"1000"}',
        InvalidRequestError,
        "Mistral HTTP 422 Unprocessable Content (type internal_error_proxy, code 1000): "
        "body.frequency_penalty: Extra inputs are not permitted",
        id="C-stringified-message",
    ),
    pytest.param(
        422,
        '{"object":"Error","detail":[{"type":"extra_forbidden","loc":["body","tools"],'
        '"msg":"Extra inputs are not permitted","input":[]}],"message":[{"type":"extra_forbidden",'
        '"loc":["body","tools"],"msg":"Extra inputs are not permitted","input":[]}],'
        '"type":"invalid_request_error","code":3001}',
        InvalidRequestError,
        "Mistral HTTP 422 Unprocessable Content (type invalid_request_error, code 3001): "
        "body.tools: Extra inputs are not permitted",
        id="D-message-array-int-code",
    ),
    pytest.param(
        429,
        '{"message":"Requests rate limit exceeded"}',
        RateLimitError,
        "Mistral HTTP 429 Too Many Requests: Requests rate limit exceeded",
        id="E-legacy-gateway",
    ),
    pytest.param(
        401,
        '{"message":"Unauthorized","request_id":"c61f2f15feca71626a990e3740f99245"}',
        AuthError,
        "Mistral HTTP 401 Unauthorized: Unauthorized",
        id="F-message-request-id",
    ),
    pytest.param(
        401,
        '{"detail":"Unauthorized"}',
        AuthError,
        "Mistral HTTP 401 Unauthorized: Unauthorized",
        id="F-detail-string",
    ),
    pytest.param(
        404,
        '{"detail":"Not Found"}',
        InvalidRequestError,
        "Mistral HTTP 404 Not Found: Not Found",
        id="G-not-found",
    ),
    pytest.param(
        422,
        '{"detail":[{"loc":["body","messages",0],"msg":"Field required","type":"missing",'
        '"input":{},"ctx":{}}]}',
        InvalidRequestError,
        "Mistral HTTP 422 Unprocessable Content: body.messages.0: Field required",
        id="H-spec-validation-error",
    ),
    pytest.param(403, "", AuthError, "Mistral HTTP 403 Forbidden", id="I-empty-body"),
]


@pytest.mark.parametrize(("status", "body", "cls", "message"), SHAPES)
def test_every_body_shape_gives_a_typed_error_with_a_readable_message(status, body, cls, message):
    """Each shape Mistral has sent maps to its typed error and a one-line message."""
    error = respond(status, body)
    assert type(error) is cls
    assert error.message == message
    assert error.status == status
    assert error.provider == "mistral"
    assert error.model == "mistral-x"


def test_shape_f_request_id_comes_from_the_body_without_a_header():
    """The body's ``request_id`` is used when no correlation header is present."""
    error = respond(401, '{"message":"Unauthorized","request_id":"c61f2f15"}')
    assert error.request_id == "c61f2f15"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param("upstream connect error", ": upstream connect error", id="text"),
        pytest.param(
            "<html><title>502</title>\n\n  <h1>Bad</h1></html>", "<h1>Bad</h1>", id="html"
        ),
        pytest.param(b"\xff\xfe not utf-8", "\ufffd\ufffd not utf-8", id="invalid-utf8"),
        pytest.param('["a", "list"]', "Mistral HTTP 502 Bad Gateway", id="json-array"),
        pytest.param('{"object":"error"}', "Mistral HTTP 502 Bad Gateway", id="no-message"),
        pytest.param('{"error":{"message":"nested"}}', ": nested", id="openai-envelope"),
        pytest.param("{not json", ": {not json", id="broken-json"),
        pytest.param(
            '{"message":"{\\"message\\": \\"inner\\"}"}', ": inner", id="stringified-message"
        ),
        pytest.param(
            '{"detail":[1, {"msg": 2}, {"msg": "no location"}, {"loc": [], "msg": "empty"}]}',
            ": no location; empty",
            id="odd-detail-entries",
        ),
        pytest.param('{"message":"x","type":{"a":1},"code":1.5}', "Bad Gateway: x", id="odd-type"),
    ],
)
def test_odd_bodies_never_crash(body, message):
    """Text, HTML, invalid UTF-8 and JSON without a message all give a SERVER error."""
    error = respond(502, body)
    assert isinstance(error, ServerError)
    assert message in error.message


def test_message_is_bounded_and_on_one_line():
    """A huge message is cut to a bounded length and whitespace is collapsed."""
    error = respond(400, json.dumps({"message": "line\n" * 10_000}))
    assert "\n" not in error.message
    assert len(error.message) < MESSAGE_LIMIT + 100
    assert "more chars" in error.message


# --- statuses -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code"),
    [
        pytest.param(400, ErrorCode.INVALID_REQUEST, id="400"),
        pytest.param(401, ErrorCode.AUTH, id="401"),
        pytest.param(403, ErrorCode.AUTH, id="403"),
        pytest.param(404, ErrorCode.INVALID_REQUEST, id="404"),
        pytest.param(408, ErrorCode.TIMEOUT, id="408"),
        pytest.param(409, ErrorCode.INVALID_REQUEST, id="409"),
        pytest.param(422, ErrorCode.INVALID_REQUEST, id="422"),
        pytest.param(413, ErrorCode.CONTEXT_OVERFLOW, id="413"),
        pytest.param(418, ErrorCode.INVALID_REQUEST, id="418"),
        pytest.param(429, ErrorCode.RATE_LIMIT, id="429"),
        pytest.param(500, ErrorCode.SERVER, id="500"),
        pytest.param(502, ErrorCode.SERVER, id="502"),
        pytest.param(503, ErrorCode.SERVER, id="503"),
        pytest.param(504, ErrorCode.TIMEOUT, id="504"),
        pytest.param(599, ErrorCode.SERVER, id="599"),
    ],
)
def test_status_decides_the_code(status, code):
    """With no telling body, the status class decides (via the ``llm_errors`` classifier)."""
    error = respond(status)
    assert error.code is code
    assert error.status == status
    assert error.rule is not None


def test_context_length_400_is_context_overflow():
    """A 400 saying the prompt is too large for the context window is CONTEXT_OVERFLOW."""
    error = respond(
        400,
        '{"object":"error","message":"Prompt contains 159202 tokens and 0 draft tokens, too large '
        'for model with 131072 maximum context length","type":"invalid_request_invalid_args",'
        '"param":null,"code":"3051","raw_status_code":400}',
    )
    assert isinstance(error, ContextOverflowError)
    assert "code 3051" in error.message


@pytest.mark.parametrize(
    ("status", "body"),
    [
        pytest.param(
            429,
            '{"object":"error","message":"Service tier capacity exceeded for this model.",'
            '"type":"service_tier_capacity_exceeded","code":"3505","raw_status_code":429}',
            id="429-typed",
        ),
        pytest.param(
            503,
            '{"object":"error","message":"Service tier capacity exceeded for this model.",'
            '"type":"invalid_request_error","param":null,"code":null}',
            id="503-wording",
        ),
        pytest.param(
            429,
            '{"message":"Not enough capacity available for this request, please retry later.",'
            '"type":"backend_out_of_capacity","code":"3505"}',
            id="429-backend",
        ),
    ],
)
def test_capacity_is_a_distinguishable_rate_limit(status, body):
    """Capacity errors are RATE_LIMIT with their own rule, also when sent as a 503."""
    error = respond(status, body)
    plain = respond(429, '{"message":"Rate limit exceeded"}')
    assert isinstance(error, RateLimitError)
    assert error.rule != plain.rule
    assert error.retryable


# --- headers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        pytest.param({"Retry-After": "2"}, 2.0, id="seconds"),
        pytest.param({"retry-after": "0.5"}, 0.5, id="fractional"),
        pytest.param({"retry-after-ms": "1500"}, 1.5, id="milliseconds"),
        pytest.param({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0, id="past-date"),
        pytest.param({"Retry-After": "soon"}, None, id="garbage"),
        pytest.param({}, None, id="absent"),
    ],
)
def test_retry_after_comes_from_the_headers(headers, seconds):
    """``retry_after`` is read from ``retry-after-ms`` or ``Retry-After``; garbage is ignored."""
    assert respond(429, headers=headers).retry_after == seconds


def test_retry_after_from_a_rate_limit_message():
    """Without a header, a wait stated in a rate-limit message is used."""
    error = respond(429, '{"message":"Rate limit exceeded, please try again in 20s"}')
    assert error.retry_after == 20.0


def test_retry_after_on_a_server_error():
    """A 503 with ``Retry-After`` keeps the server's wait too."""
    assert respond(503, headers={"Retry-After": "5"}).retry_after == 5.0


@pytest.mark.parametrize(
    ("headers", "request_id"),
    [
        pytest.param({"Mistral-Correlation-Id": "corr-1"}, "corr-1", id="correlation"),
        pytest.param({"x-kong-request-id": "kong-2"}, "kong-2", id="kong-fallback"),
        pytest.param(
            {"x-kong-request-id": "kong-2", "mistral-correlation-id": "corr-1"},
            "corr-1",
            id="correlation-wins",
        ),
        pytest.param({}, None, id="none"),
    ],
)
def test_request_id_comes_from_the_correlation_headers(headers, request_id):
    """``mistral-correlation-id`` is the request id, else ``x-kong-request-id``."""
    assert respond(500, headers=headers).request_id == request_id


def test_httpx_headers_are_accepted():
    """The client can pass ``httpx.Headers`` as they are."""
    headers = httpx.Headers({"Retry-After": "3", "Mistral-Correlation-Id": "c-9"})
    error = error_from_response(status=429, headers=headers, body=b"", model=None)
    assert (error.retry_after, error.request_id) == (3.0, "c-9")


def test_type_and_code_are_kept_on_the_error():
    """The provider's ``type`` and ``code`` are in the message and in the body excerpt."""
    error = respond(
        400,
        '{"object":"error","message":"Tool call id was turn1_0 but must be a-z, A-Z, 0-9, with a '
        'length of 9.","type":"invalid_function_call","param":null,"code":"3280"}',
    )
    assert isinstance(error, InvalidRequestError)
    assert "(type invalid_function_call, code 3280)" in error.message
    assert error.body is not None
    body = json.loads(error.body)
    assert (body["type"], body["code"]) == ("invalid_function_call", "3280")


# --- in-band errors -------------------------------------------------------------------------


def test_inband_error_status_is_its_raw_status_code():
    """An in-band error's status is its ``raw_status_code``, never the stream's 200."""
    error = error_from_payload(
        {
            "object": "error",
            "message": "Service tier capacity exceeded for this model.",
            "type": "service_tier_capacity_exceeded",
            "code": "3505",
            "raw_status_code": 503,
        },
        model="m",
        position=7,
    )
    assert isinstance(error, RateLimitError)
    assert error.status == 503
    assert error.message.startswith("Mistral stream error at chunk 7 (type service_tier")


@pytest.mark.parametrize(
    ("payload", "cls"),
    [
        pytest.param(
            {"object": "error", "message": "Rate limit exceeded", "type": "rate_limited"},
            RateLimitError,
            id="type-without-status",
        ),
        pytest.param(
            {"error": {"message": "Internal server error", "type": "server_error"}},
            ServerError,
            id="envelope",
        ),
        pytest.param(
            {
                "object": "error",
                "message": "Prompt contains 5 tokens, too large for model with 4 maximum "
                "context length",
            },
            ContextOverflowError,
            id="context-wording",
        ),
        pytest.param({"error": "boom"}, ProviderError, id="bare-string"),
    ],
)
def test_inband_errors_are_classified_by_content(payload, cls):
    """In-band errors go through the same classifier as HTTP errors, on their content."""
    error = error_from_payload(payload)
    assert type(error) is cls
    assert error.provider == "mistral"


def test_inband_error_without_position_or_status():
    """Without a position or status the message and context stay minimal."""
    error = error_from_payload({"error": {"message": "x", "code": 1}})
    assert error.message == "Mistral stream error (code 1): x"
    assert error.status is None


# --- protocol errors and the partial ------------------------------------------------------


def test_protocol_error_names_the_chunk():
    """A protocol error is PROVIDER_ERROR and starts with the chunk number."""
    error = protocol_error("odd shape", position=12, model="m")
    assert error.code is ErrorCode.PROVIDER_ERROR
    assert error.message == "chunk 12: odd shape"
    assert not error.retryable


def test_malformed_chunk_names_the_field_not_the_value():
    """A validation failure names the field path and pydantic's reason, not the input."""
    with pytest.raises(ValidationError) as info:
        parse_completion_chunk(b'{"id":"a","model":"m","choices":[{"index":"SECRET","delta":{}}]}')
    error = malformed_chunk_error(info.value, position=3, model="m")
    assert error.message.startswith("chunk 3: not a valid Mistral chunk: 'choices[0].index'")
    assert "SECRET" not in error.message


def test_unmappable_chunk_error_is_a_provider_error_with_its_type():
    """``UnmappableChunkError`` is a ``ProviderError`` whose context includes the type."""
    error = UnmappableChunkError("chunk 1: nope", chunk_type="file", provider="mistral")
    assert isinstance(error, ProviderError)
    assert error.code is ErrorCode.PROVIDER_ERROR
    assert error.context()["chunk_type"] == "file"
    assert classify(error).code is ErrorCode.PROVIDER_ERROR
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.chunk_type, copy.message) == (
        UnmappableChunkError,
        "file",
        error.message,
    )


def _message() -> AssistantMessage:
    cost = UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0)
    usage = Usage(input=0, output=0, cacheRead=0, cacheWrite=0, totalTokens=0, cost=cost)
    return AssistantMessage(
        content=[],
        api="a",
        provider="mistral",
        model="m",
        usage=usage,
        stopReason="error",
        timestamp=1,
    )


def test_attach_partial_rides_on_any_llm_error():
    """``attach_partial`` returns the error; ``partial_of`` reads it back, also after pickling."""
    message = _message()
    error = attach_partial(LlmTimeoutError("read timed out"), message)
    assert isinstance(error, LlmTimeoutError)
    assert partial_of(error) is message
    assert partial_of(pickle.loads(pickle.dumps(error))) == message
    assert partial_of(LlmTimeoutError("other")) is None


# --- no leaks -------------------------------------------------------------------------------


LEAKY_BODIES = [
    pytest.param(
        422,
        json.dumps(
            {
                "object": "error",
                "message": {
                    "detail": [
                        {
                            "type": "string_too_long",
                            "loc": ["body", "messages", 0, "content"],
                            "msg": "String should have at most 10 characters",
                            "input": f"{SENTINEL_PROMPT} {SENTINEL_DATA_URL}",
                        }
                    ]
                },
                "type": "invalid_request_error",
            }
        ),
        id="validation-input-echo",
    ),
    pytest.param(
        400,
        json.dumps({"message": f"bad image {SENTINEL_DATA_URL} and {SENTINEL_BASE64}"}),
        id="payload-in-message",
    ),
    pytest.param(
        401,
        json.dumps(
            {"message": f"Invalid api_key={SENTINEL_KEY} (Authorization: Bearer {SENTINEL_KEY})"}
        ),
        id="key-in-message",
    ),
    pytest.param(401, f"Bearer {SENTINEL_KEY} rejected; {SENTINEL_DATA_URL}", id="key-in-text"),
]


@pytest.mark.parametrize(("status", "body"), LEAKY_BODIES)
def test_no_payload_or_key_leaks_from_response_errors(status, body):
    """Sentinel base64, data URLs, keys and echoed prompts never reach str, repr, body, pickle."""
    error = respond(status, body)
    surfaces = [str(error), repr(error), error.body or "", repr(pickle.dumps(error))]
    for surface in surfaces:
        assert SENTINEL_BASE64 not in surface
        assert "ZZZsentinelZZZ" not in surface
        assert SENTINEL_KEY not in surface
        assert SENTINEL_PROMPT not in surface


def test_no_payload_leaks_from_inband_errors():
    """An in-band error echoing a data URL or key keeps neither."""
    error = error_from_payload(
        {
            "object": "error",
            "message": f"{SENTINEL_DATA_URL} token={SENTINEL_KEY}",
            "input": SENTINEL_PROMPT,
        }
    )
    for surface in (str(error), repr(error), error.body or ""):
        assert "ZZZsentinelZZZ" not in surface
        assert SENTINEL_KEY not in surface
        assert SENTINEL_PROMPT not in surface
