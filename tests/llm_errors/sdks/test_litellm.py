"""litellm, the real library, against the loopback fault server: what it raises, classified.

litellm is optional (the ``test-litellm`` extra: it alone weighs more than the rest of the
test dependencies together); without it this module is skipped. It is driven through its
OpenAI and its Anthropic providers, with the bodies of those APIs (OpenAI API docs, error
codes: https://platform.openai.com/docs/guides/error-codes; Anthropic API docs, errors:
https://docs.anthropic.com/en/api/errors; and the threads cited per case). litellm maps
them onto its own types (https://docs.litellm.ai/docs/exception_mapping), rewording them
on the way, which is what the text forms show.
"""

import os

import pytest

from llm_errors import ErrorCode

# litellm fetches its model cost map from the network at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
litellm = pytest.importorskip("litellm")
litellm.suppress_debug_info = True
# litellm 1.110.2's own TypedDicts make pydantic warn the first time a request is built.
pytestmark = pytest.mark.filterwarnings("ignore:Items? .* `ReadOnly` qualifier:UserWarning")

E = ErrorCode
_EXC = "litellm.exceptions."


def _openai_error(message, kind, code=None):
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _anthropic_error(kind, message, request_id="req_011CSHoEeqs5C35K2UUqR7Fy"):
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}


_CHUNK = {
    "id": "chatcmpl-123",
    "object": "chat.completion.chunk",
    "created": 1694268190,
    "model": "gpt-4o-mini",
    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
}
_MESSAGE_START = {
    "type": "message_start",
    "message": {
        "id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "claude-opus-4-1-20250805",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 25, "output_tokens": 1},
    },
}
_SERVER_ERROR = _openai_error(
    "The server had an error while processing your request. Sorry about that!", "server_error"
)

#: case id -> (expected code, the type litellm raises, reply spec); "anthropic-" cases go
#: through the Anthropic provider, the others through the OpenAI one.
CASES = {
    "status-400": (
        E.INVALID_REQUEST,
        _EXC + "BadRequestError",
        {
            "status": 400,
            "json": _openai_error(
                "Unrecognized request argument supplied: timeout", "invalid_request_error"
            ),
        },
    ),
    # crewAIInc/crewAI-examples#121
    "status-400-context": (
        E.CONTEXT_OVERFLOW,
        _EXC + "ContextWindowExceededError",
        {
            "status": 400,
            "json": _openai_error(
                "This model's maximum context length is 8192 tokens. However, your messages "
                "resulted in 8227 tokens. Please reduce the length of the messages.",
                "invalid_request_error",
                "context_length_exceeded",
            ),
        },
    ),
    # Upsonic/Upsonic#92
    "status-401": (
        E.AUTH,
        _EXC + "AuthenticationError",
        {
            "status": 401,
            "json": _openai_error(
                "Incorrect API key provided: CHANGE_ME. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                "invalid_request_error",
                "invalid_api_key",
            ),
        },
    ),
    # home-assistant/core#120072
    "status-403": (
        E.AUTH,
        _EXC + "APIError",
        {
            "status": 403,
            "json": _openai_error(
                "Country, region, or territory not supported",
                "request_forbidden",
                "unsupported_country_region_territory",
            ),
        },
    ),
    # feder-cr/invisible_playwright_mcp#889
    "status-404": (
        E.INVALID_REQUEST,
        _EXC + "NotFoundError",
        {
            "status": 404,
            "json": _openai_error(
                "The model `gpt-4o` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            ),
        },
    ),
    "status-408": (E.TIMEOUT, _EXC + "Timeout", {"nginx": 408}),
    "status-413": (E.CONTEXT_OVERFLOW, _EXC + "APIError", {"nginx": 413}),
    "status-422": (E.INVALID_REQUEST, _EXC + "BadRequestError", {"status": 422}),
    # MSU-AI-Agents/fall-2025-course#76, with a Retry-After header.
    "status-429": (
        E.RATE_LIMIT,
        _EXC + "RateLimitError",
        {
            "status": 429,
            "headers": {"retry-after": "9"},
            "json": _openai_error(
                "Rate limit reached for gpt-3.5-turbo in organization org-pR2Z3LP86Rl3jvVG0S9Kv3IT "
                "on requests per day (RPD): Limit 10000, Used 10000, Requested 1. Please try "
                "again in 8.64s. Visit https://platform.openai.com/account/rate-limits to learn "
                "more.",
                "requests",
                "rate_limit_exceeded",
            ),
        },
    ),
    "status-500": (E.SERVER, _EXC + "InternalServerError", {"status": 500, "json": _SERVER_ERROR}),
    "status-502": (E.SERVER, _EXC + "BadGatewayError", {"nginx": 502}),
    "status-503": (E.SERVER, _EXC + "ServiceUnavailableError", {"nginx": 503}),
    "status-504": (E.TIMEOUT, _EXC + "Timeout", {"nginx": 504}),
    # anthropics/claude-code#35792, through the Anthropic provider.
    "anthropic-status-529": (
        E.RATE_LIMIT,
        _EXC + "InternalServerError",
        {
            "status": 529,
            "json": _anthropic_error(
                "overloaded_error", "Overloaded", "req_011CZAau32QzxDkriovTaFCB"
            ),
        },
    ),
    # OpenAI's in-band error on a 200 stream: litellm reports it as a connection error.
    "stream-error": (
        E.SERVER,
        _EXC + "MidStreamFallbackError",
        {"sse": [(None, _CHUNK), (None, _SERVER_ERROR)]},
    ),
    # Anthropic's in-band overloaded_error (the streaming docs' error event): litellm
    # rewrites it as "InternalServerError: AnthropicError - Overloaded" with status 500.
    "anthropic-stream-error": (
        E.RATE_LIMIT,
        _EXC + "MidStreamFallbackError",
        {
            "sse": [
                ("message_start", _MESSAGE_START),
                (
                    "error",
                    {
                        "type": "error",
                        "error": {"type": "overloaded_error", "message": "Overloaded"},
                    },
                ),
            ]
        },
    ),
    "drop-mid-body": (
        E.TRANSPORT,
        _EXC + "MidStreamFallbackError",
        {"sse": [(None, _CHUNK)], "mode": "drop"},
    ),
    "stall": (E.TIMEOUT, _EXC + "Timeout", {"mode": "stall"}),
    "refused": (E.TRANSPORT, _EXC + "InternalServerError", {"mode": "refused"}),
    "anthropic-refused": (E.TRANSPORT, _EXC + "InternalServerError", {"mode": "refused"}),
    "hang-up": (E.TRANSPORT, _EXC + "InternalServerError", {"mode": "hang_up"}),
    "anthropic-malformed-200": (
        E.PROVIDER_ERROR,
        _EXC + "APIConnectionError",
        {
            "body": '{"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "mess',
            "content_type": "application/json",
        },
    ),
}
STREAMING = {"stream-error", "anthropic-stream-error", "drop-mid-body"}

_FORMS = ("object", "str", "log-line")
XFAIL = {
    **{
        (
            "anthropic-malformed-200",
            f,
        ): "litellm reports an unparseable 200 as 'APIConnectionError: "
        "AnthropicException - Unable to get json response': a malformed output, not a "
        "connection failure (PROVIDER_ERROR, policy output-failures)"
        for f in _FORMS
    },
}


#: The Retry-After of the 429 case, which the classification reads from the exception.
RETRY_AFTER = 9.0


def provoke(base_url, case_id, read_timeout):
    """One completion through the case's provider, retries off; return what litellm raised."""
    if case_id.startswith("anthropic-"):
        target = {"model": "anthropic/claude-opus-4-1-20250805", "api_base": base_url}
    else:
        target = {"model": "openai/gpt-4o-mini", "api_base": f"{base_url}/v1"}
    stream = case_id in STREAMING
    try:
        response = litellm.completion(
            **target,
            messages=[{"role": "user", "content": "Hello!"}],
            api_key="sk-test",
            max_retries=0,
            num_retries=0,
            timeout=read_timeout,
            stream=stream,
        )
        if stream:
            for _ in response:
                pass
    except Exception as exc:
        return exc
    return None
