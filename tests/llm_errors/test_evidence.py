"""Evidence from bodies, log records and objects: the shapes providers really send."""

import pytest
import tenacity

from llm_errors import ErrorCode, classify
from llm_errors._evidence import Evidence, gather_mapping, walk_exceptions

E = ErrorCode


# Mistral body shapes from shared/mistral/WIRE.md section 7.2 (A-I), with their statuses.
MISTRAL_SHAPES = [
    pytest.param(
        429,
        {
            "object": "error",
            "message": "Rate limit exceeded",
            "type": "rate_limited",
            "param": None,
            "code": "1300",
            "raw_status_code": 429,
        },
        E.RATE_LIMIT,
        id="A-rate-limited",
    ),
    pytest.param(
        422,
        {
            "object": "error",
            "message": {
                "detail": [
                    {
                        "type": "extra_forbidden",
                        "loc": ["body", "stream_options", "include_usage"],
                        "msg": "Extra inputs are not permitted",
                        "input": True,
                    }
                ]
            },
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        },
        E.INVALID_REQUEST,
        id="B-object-message",
    ),
    pytest.param(
        422,
        {
            "object": "error",
            "message": '{"detail":[{"type":"extra_forbidden","loc":'
            '["body","frequency_penalty"],"msg":"Extra inputs are not permitted"}]}',
            "type": "internal_error_proxy",
            "param": None,
            "code": "1000",
        },
        E.INVALID_REQUEST,
        id="C-stringified-message",
    ),
    pytest.param(
        400,
        {
            "object": "Error",
            "detail": [
                {
                    "type": "extra_forbidden",
                    "loc": ["body", "tools"],
                    "msg": "Extra inputs are not permitted",
                    "input": [],
                }
            ],
            "message": [
                {
                    "type": "extra_forbidden",
                    "loc": ["body", "tools"],
                    "msg": "Extra inputs are not permitted",
                    "input": [],
                }
            ],
            "type": "invalid_request_error",
            "code": 3001,
        },
        E.INVALID_REQUEST,
        id="D-integer-code",
    ),
    pytest.param(
        429, {"message": "Requests rate limit exceeded"}, E.RATE_LIMIT, id="E-legacy-gateway"
    ),
    pytest.param(
        401, {"message": "Unauthorized", "request_id": "c61f2f15"}, E.AUTH, id="F-unauthorized"
    ),
    pytest.param(404, {"detail": "Not Found"}, E.INVALID_REQUEST, id="G-not-found"),
    pytest.param(
        422,
        {"detail": [{"loc": ["body"], "msg": "field required", "type": "missing"}]},
        E.INVALID_REQUEST,
        id="H-spec",
    ),
    pytest.param(403, {}, E.AUTH, id="I-empty-body"),
    pytest.param(
        400,
        {
            "object": "error",
            "message": "Prompt contains 159202 tokens and 0 draft tokens, too "
            "large for model with 131072 maximum context length",
            "type": "invalid_request_invalid_args",
            "param": None,
            "code": "3051",
            "raw_status_code": 400,
        },
        E.CONTEXT_OVERFLOW,
        id="context-3051",
    ),
    pytest.param(
        None,
        {
            "message": "Not enough capacity available for this request, please retry later.",
            "type": "backend_out_of_capacity",
            "code": "3505",
        },
        E.RATE_LIMIT,
        id="capacity-3505",
    ),
    pytest.param(
        503,
        {
            "object": "error",
            "message": "Service tier capacity exceeded for this model.",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        },
        E.RATE_LIMIT,
        id="capacity-wording-beats-503",
    ),
]


@pytest.mark.parametrize(("status", "body", "code"), MISTRAL_SHAPES)
def test_mistral_body_shapes(status, body, code):
    """Every Mistral error shape seen in the wild routes to the right code."""
    record = {"status_code": status, "body": body} if status else body
    assert classify(record).code is code


@pytest.mark.parametrize(
    ("record", "code"),
    [
        pytest.param(
            {
                "error": {
                    "code": 429,
                    "message": "Resource has been exhausted (e.g. check quota).",
                    "status": "RESOURCE_EXHAUSTED",
                }
            },
            E.RATE_LIMIT,
            id="google-429",
        ),
        pytest.param(
            {
                "error": {
                    "code": 400,
                    "message": "API key not valid. Please pass a valid API key.",
                    "status": "INVALID_ARGUMENT",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "API_KEY_INVALID",
                        }
                    ],
                }
            },
            E.AUTH,
            id="google-bad-key-on-400",
        ),
        pytest.param(
            {
                "__type": "com.amazon.coral.service#ThrottlingException",
                "message": "Too many tokens, please wait before trying again.",
            },
            E.RATE_LIMIT,
            id="aws-json-type",
        ),
        pytest.param(
            {
                "error": {"message": "Internal server error", "code": 502},
                "choices": [{"finish_reason": "error"}],
            },
            E.SERVER,
            id="openrouter-in-band-code",
        ),
        pytest.param(
            {"choices": [{"delta": {}, "finish_reason": "content_filter"}]},
            E.CONTENT_FILTER,
            id="finish-reason-content-filter",
        ),
        pytest.param(
            {"candidates": [{"finishReason": "SAFETY"}]},
            E.CONTENT_FILTER,
            id="gemini-finish-reason-safety",
        ),
        pytest.param(
            {
                "level": "error",
                "event": "llm call failed",
                "exc_info": "Traceback (most recent call last):\n  ...\n"
                "httpx.ReadTimeout: timed out",
            },
            E.TIMEOUT,
            id="structlog-record-with-traceback",
        ),
        pytest.param(
            {"name": "AbortError", "message": "This operation was aborted", "code": 20},
            E.ABORTED,
            id="node-abort-error",
        ),
        pytest.param(
            {"response": {"status": 503, "headers": {"retry-after": "5"}}},
            E.SERVER,
            id="nested-response",
        ),
    ],
)
def test_provider_shapes(record, code):
    """Bodies and records of other providers and loggers route to the right code."""
    assert classify(record).code is code


def test_retry_delay_in_google_details():
    """Google's RetryInfo ``retryDelay`` becomes ``retry_after``."""
    record = {
        "error": {
            "code": 429,
            "status": "RESOURCE_EXHAUSTED",
            "message": "quota",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "59s"}],
        }
    }
    assert classify(record).retry_after == 59.0


@pytest.mark.parametrize(
    ("wait", "retry_after"),
    [
        pytest.param({"retry_after": 20}, 20.0, id="seconds"),
        pytest.param({"retryAfterMs": 1500}, 1.5, id="milliseconds"),
        pytest.param({"retry_after": "20"}, 20.0, id="seconds-as-text"),
        pytest.param({"retry_after": "20s"}, 20.0, id="duration"),
        pytest.param({"retry_after_ms": "2s"}, None, id="duration-under-a-milliseconds-key"),
        pytest.param({"retry_after": "soon"}, None, id="word"),
        pytest.param({"retry_after": None}, None, id="null"),
        pytest.param({"retry_after": -3}, None, id="negative"),
        pytest.param({"retry_after": "nan"}, None, id="nan"),
        pytest.param({"retry_after_ms": "1500"}, 1.5, id="milliseconds-as-text"),
        pytest.param({"retry_after": "inf"}, None, id="infinite"),
        pytest.param({"retry_after": 1e309}, None, id="infinite-number"),
    ],
)
def test_wait_fields_of_a_record(wait, retry_after):
    """A record's own wait field is its ``retry_after``; one that is no wait is ignored."""
    result = classify({"status": 429, **wait})
    assert (result.code, result.rule, result.retry_after) == (E.RATE_LIMIT, "http.429", retry_after)


def test_outermost_status_is_found_first():
    """A record's own status comes before a nested one."""
    evidence = Evidence()
    gather_mapping({"error": {"status": 500}, "status": 429}, evidence)
    assert evidence.statuses == [429, 500]


def test_bounded_on_huge_and_deep_input():
    """Pathological bodies are cut off, not followed forever."""
    deep: dict = {}
    node = deep
    for _ in range(200):
        node["error"] = {}
        node = node["error"]
    node["type"] = "overloaded_error"
    assert classify(deep).rule == "fallback"
    huge = {"message": "x" * 2_000_000 + " overloaded"}
    assert classify(huge).code is E.PROVIDER_ERROR


@pytest.mark.parametrize(("fields", "statuses"), [(1_999, [429]), (2_000, [])])
def test_values_beyond_the_bound_are_not_read(fields, statuses):
    """A record's first 2,000 values are read; a status after them is not."""
    record: dict[str, object] = {f"field{i}": i for i in range(fields)}
    record["status"] = 429
    evidence = Evidence()
    gather_mapping(record, evidence)
    assert evidence.statuses == statuses


def test_walk_is_breadth_first_and_cycle_safe():
    """The chain is walked outermost first, each exception once."""
    inner, middle, outer = KeyError("inner"), ValueError("middle"), RuntimeError("outer")
    middle.__cause__ = inner
    outer.__cause__ = middle
    inner.__context__ = outer  # a cycle
    assert walk_exceptions(outer) == [outer, middle, inner]


class _UpstreamError(Exception):
    """An application's error carrying the parsed JSON body of the reply it failed on."""

    def __init__(self, message, body):
        super().__init__(message)
        self.body = body


def test_json_array_body_is_read_as_structure():
    """A body that is a JSON array (Gemini wraps its error in one) is read field by field."""
    # continuedev/continue#8516 (corpus row freshb-009), parsed.
    body = [
        {
            "error": {
                "code": 400,
                "message": "API key not valid. Please pass a valid API key.",
                "status": "INVALID_ARGUMENT",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                        "domain": "googleapis.com",
                        "metadata": {"service": "generativelanguage.googleapis.com"},
                    }
                ],
            }
        }
    ]
    result = classify(_UpstreamError("boom", body))
    assert (result.code, result.status) == (E.AUTH, 400)


def test_grpc_accessor_that_raises_is_skipped():
    """A gRPC error whose ``code()`` raises is still read through ``details()``."""
    rpc_error = type("RpcError", (Exception,), {"__module__": "grpc", "__qualname__": "RpcError"})

    class HalfDoneRpcError(rpc_error):
        def code(self):
            raise RuntimeError("the call has not terminated")

        def details(self):
            return "failed to connect to all addresses"

    assert classify(HalfDoneRpcError()).code is E.TRANSPORT


def test_retry_error_of_returned_values_links_to_nothing():
    """A tenacity RetryError after attempts that returned a value wraps no exception."""
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_result(lambda result: result is None),
        stop=tenacity.stop_after_attempt(2),
    )
    with pytest.raises(tenacity.RetryError) as caught:
        retrying(lambda: None)
    assert walk_exceptions(caught.value) == [caught.value]
    assert classify(caught.value).rule == "fallback"


@pytest.mark.parametrize("status", ["\u00b2", "4" * 5000, "4291", "42"])
def test_a_status_that_is_no_status_leaves_the_rest_of_the_record(status):
    """A status field that is not three ASCII digits is passed over; the body still decides."""
    record = {"status": status, "error": {"type": "rate_limit_error"}}
    verdict = classify(record)
    assert (verdict.code, verdict.status) == (ErrorCode.RATE_LIMIT, None)
