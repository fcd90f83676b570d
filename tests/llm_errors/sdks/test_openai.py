"""openai, the real SDK, against the loopback fault server: what it raises, classified.

Bodies are the OpenAI API's own (OpenAI API docs, error codes:
https://platform.openai.com/docs/guides/error-codes, and the threads cited per case);
statuses OpenAI does not send itself come from what sits in front of it (nginx's pages),
from OpenAI-compatible APIs that the SDK is pointed at (Mistral, Anthropic's OpenAI SDK
compatibility endpoint), as noted per case.
"""

import openai

from llm_errors import ErrorCode

E = ErrorCode


def _error(message, kind, code=None, param=None):
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


# A streamed chunk, as in the API reference (chat completions, the chunk object):
# https://platform.openai.com/docs/api-reference/chat-streaming
_CHUNK = {
    "id": "chatcmpl-123",
    "object": "chat.completion.chunk",
    "created": 1694268190,
    "model": "gpt-4o-mini",
    "system_fingerprint": "fp_44709d6fcb",
    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
}
_SERVER_ERROR = _error(
    "The server had an error while processing your request. Sorry about that!", "server_error"
)

#: case id -> (expected code, the type the SDK raises, reply spec)
CASES = {
    # The docs' 400 example (the repository's rule example for http.4xx).
    "status-400": (
        E.INVALID_REQUEST,
        "openai.BadRequestError",
        {
            "status": 400,
            "json": _error(
                "Unrecognized request argument supplied: timeout", "invalid_request_error"
            ),
        },
    ),
    # Upsonic/Upsonic#92
    "status-401": (
        E.AUTH,
        "openai.AuthenticationError",
        {
            "status": 401,
            "json": _error(
                "Incorrect API key provided: CHANGE_ME. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                "invalid_request_error",
                "invalid_api_key",
            ),
        },
    ),
    # The docs' 403, as OpenAI sends it (home-assistant/core#120072).
    "status-403": (
        E.AUTH,
        "openai.PermissionDeniedError",
        {
            "status": 403,
            "json": _error(
                "Country, region, or territory not supported",
                "request_forbidden",
                "unsupported_country_region_territory",
            ),
        },
    ),
    # feder-cr/invisible_playwright_mcp#889
    "status-404": (
        E.INVALID_REQUEST,
        "openai.NotFoundError",
        {
            "status": 404,
            "json": _error(
                "The model `gpt-4o` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            ),
        },
    ),
    # OpenAI sends no 408 body of its own: a gateway's page.
    "status-408": (E.TIMEOUT, "openai.APIStatusError", {"nginx": 408}),
    # A byte-size cap in front of the API.
    "status-413": (E.CONTEXT_OVERFLOW, "openai.APIStatusError", {"nginx": 413}),
    # Mistral's 422 through an OpenAI-compatible client (editor-code-assistant/eca#231).
    "status-422": (
        E.INVALID_REQUEST,
        "openai.UnprocessableEntityError",
        {
            "status": 422,
            "json": {
                "object": "error",
                "message": {
                    "detail": [
                        {
                            "type": "extra_forbidden",
                            "loc": ["body", "max_completion_tokens"],
                            "msg": "Extra inputs are not permitted",
                            "input": 32000,
                        }
                    ]
                },
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            },
        },
    ),
    # MSU-AI-Agents/fall-2025-course#76, with the Retry-After header rate limits carry.
    "status-429": (
        E.RATE_LIMIT,
        "openai.RateLimitError",
        {
            "status": 429,
            "headers": {"retry-after": "9"},
            "json": _error(
                "Rate limit reached for gpt-3.5-turbo in organization org-pR2Z3LP86Rl3jvVG0S9Kv3IT "
                "on requests per day (RPD): Limit 10000, Used 10000, Requested 1. Please try "
                "again in 8.64s. Visit https://platform.openai.com/account/rate-limits to learn "
                "more.",
                "requests",
                "rate_limit_exceeded",
            ),
        },
    ),
    # The docs' 500.
    "status-500": (E.SERVER, "openai.InternalServerError", {"status": 500, "json": _SERVER_ERROR}),
    "status-502": (E.SERVER, "openai.InternalServerError", {"nginx": 502}),
    # The docs' 503: the status outranks "overloaded" (docs/errors.md, policy overload).
    "status-503": (
        E.SERVER,
        "openai.InternalServerError",
        {
            "status": 503,
            "json": _error(
                "The engine is currently overloaded, please try again later", "server_error"
            ),
        },
    ),
    "status-504": (E.TIMEOUT, "openai.InternalServerError", {"nginx": 504}),
    # Anthropic's 529 through its OpenAI SDK compatibility endpoint (anthropics/claude-code#35792).
    "status-529": (
        E.RATE_LIMIT,
        "openai.InternalServerError",
        {
            "status": 529,
            "json": {
                "type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
                "request_id": "req_011CZAau32QzxDkriovTaFCB",
            },
        },
    ),
    # An in-band error on a 200 stream: the SDK raises APIError with the error's message
    # (openai/openai-python src/openai/_streaming.py); the docs' 500 wording.
    "stream-error": (E.SERVER, "openai.APIError", {"sse": [(None, _CHUNK), (None, _SERVER_ERROR)]}),
    "drop-mid-body": (
        E.TRANSPORT,
        "openai.APIConnectionError",
        {"sse": [(None, _CHUNK)], "mode": "drop"},
    ),
    "stall": (E.TIMEOUT, "openai.APITimeoutError", {"mode": "stall"}),
    "stall-mid-stream": (
        E.TIMEOUT,
        "openai.APITimeoutError",
        {"sse": [(None, _CHUNK)], "mode": "stall_body"},
    ),
    "refused": (E.TRANSPORT, "openai.APIConnectionError", {"mode": "refused"}),
    "hang-up": (E.TRANSPORT, "openai.APIConnectionError", {"mode": "hang_up"}),
    # A 200 whose JSON is cut: the SDK's json.loads fails (policy output-failures: output that
    # cannot be parsed is PROVIDER_ERROR).
    "malformed-200": (
        E.PROVIDER_ERROR,
        "json.decoder.JSONDecodeError",
        {
            "body": '{"id": "chatcmpl-123", "object": "chat.completion", "choices": [',
            "content_type": "application/json",
        },
    ),
}
STREAMING = {"stream-error", "drop-mid-body", "stall-mid-stream"}

XFAIL: dict[tuple[str, str], str] = {}


#: The Retry-After of the 429 case, which the classification reads from the exception.
RETRY_AFTER = 9.0


def provoke(base_url, case_id, read_timeout):
    """Call chat completions once, retries off, and return what the SDK raised."""
    client = openai.OpenAI(
        base_url=f"{base_url}/v1", api_key="sk-test", max_retries=0, timeout=read_timeout
    )
    stream = case_id in STREAMING
    try:
        response = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "Hello!"}], stream=stream
        )
        if stream:
            for _ in response:
                pass
    except Exception as exc:
        return exc
    finally:
        client.close()
    return None
