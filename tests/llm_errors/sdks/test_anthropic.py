"""anthropic, the real SDK, against the loopback fault server: what it raises, classified.

Bodies follow the Anthropic API's error shape (Anthropic API docs, errors:
https://docs.anthropic.com/en/api/errors: ``{"type": "error", "error": {"type", "message"},
"request_id"}``), with the messages of the threads cited per case; statuses Anthropic
does not send itself come from a gateway in front of it (nginx's pages) or arrive bare.
"""

import anthropic

from llm_errors import ErrorCode

E = ErrorCode


def _error(kind, message, request_id="req_011CSHoEeqs5C35K2UUqR7Fy"):
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}


# The stream's first event, as in the streaming docs' example:
# https://docs.anthropic.com/en/docs/build-with-claude/streaming
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
_OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

#: case id -> (expected code, the type the SDK raises, reply spec)
CASES = {
    # ChatGPTNextWeb/NextChat#4964: an output-only max_tokens is a bad parameter.
    "status-400": (
        E.INVALID_REQUEST,
        "anthropic.BadRequestError",
        {
            "status": 400,
            "json": _error(
                "invalid_request_error",
                "max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens "
                "for claude-3-5-sonnet-20240620",
            ),
        },
    ),
    # anthropics/claude-code#4684: the credit error comes as a 400 (policy quota-wording-wins).
    "status-400-credit": (
        E.QUOTA_EXCEEDED,
        "anthropic.BadRequestError",
        {
            "status": 400,
            "json": _error(
                "invalid_request_error",
                "Your credit balance is too low to access the Anthropic API. Please go to Plans "
                "& Billing to upgrade or purchase credits.",
            ),
        },
    ),
    # anthropics/claude-code#12186
    "status-400-context": (
        E.CONTEXT_OVERFLOW,
        "anthropic.BadRequestError",
        {
            "status": 400,
            "json": _error(
                "invalid_request_error",
                "prompt is too long: 208310 tokens > 200000 maximum",
                "req_011CVQe1dLrGNMJyE1ghG1av",
            ),
        },
    ),
    # The docs' 401 example.
    "status-401": (
        E.AUTH,
        "anthropic.AuthenticationError",
        {"status": 401, "json": _error("authentication_error", "invalid x-api-key")},
    ),
    # anthropics/claude-code#51610
    "status-403": (
        E.AUTH,
        "anthropic.PermissionDeniedError",
        {
            "status": 403,
            "json": _error("permission_error", "Permission denied", "req_011CaH53rCYtDAVnwhLQvkuc"),
        },
    ),
    # The docs' error-shape example.
    "status-404": (
        E.INVALID_REQUEST,
        "anthropic.NotFoundError",
        {
            "status": 404,
            "json": _error("not_found_error", "The requested resource could not be found."),
        },
    ),
    "status-408": (E.TIMEOUT, "anthropic.RequestTimeoutError", {"nginx": 408}),
    # anthropics/anthropic-sdk-python#938: Cloudflare's 413, without the top-level type.
    "status-413": (
        E.CONTEXT_OVERFLOW,
        "anthropic.ContentTooLargeError",
        {
            "status": 413,
            "json": {
                "error": {
                    "type": "request_too_large",
                    "message": "Request exceeds the maximum size",
                }
            },
        },
    ),
    # Anthropic sends no 422: the status alone, bare.
    "status-422": (E.INVALID_REQUEST, "anthropic.UnprocessableEntityError", {"status": 422}),
    # cline/cline#42, with the retry-after header Anthropic's rate limits carry
    # (https://docs.anthropic.com/en/api/rate-limits#response-headers).
    "status-429": (
        E.RATE_LIMIT,
        "anthropic.RateLimitError",
        {
            "status": 429,
            "headers": {"retry-after": "7"},
            "json": _error(
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit "
                "(https://docs.anthropic.com/en/api/rate-limits); see the response headers for "
                "current usage.",
            ),
        },
    ),
    # The docs' 500.
    "status-500": (
        E.SERVER,
        "anthropic.InternalServerError",
        {"status": 500, "json": _error("api_error", "Internal server error")},
    ),
    "status-502": (E.SERVER, "anthropic.InternalServerError", {"nginx": 502}),
    "status-503": (E.SERVER, "anthropic.ServiceUnavailableError", {"nginx": 503}),
    "status-504": (E.TIMEOUT, "anthropic.GatewayTimeoutError", {"nginx": 504}),
    # anthropics/claude-code#35792
    "status-529": (
        E.RATE_LIMIT,
        "anthropic.OverloadedError",
        {
            "status": 529,
            "json": _error("overloaded_error", "Overloaded", "req_011CZAau32QzxDkriovTaFCB"),
        },
    ),
    # The streaming docs' in-band error event, after the stream began on a 200.
    "stream-error": (
        E.RATE_LIMIT,
        "anthropic.APIStatusError",
        {"sse": [("message_start", _MESSAGE_START), ("error", _OVERLOADED)]},
    ),
    "drop-mid-body": (
        E.TRANSPORT,
        "httpx2.RemoteProtocolError",
        {"sse": [("message_start", _MESSAGE_START)], "mode": "drop"},
    ),
    "stall": (E.TIMEOUT, "anthropic.APITimeoutError", {"mode": "stall"}),
    "stall-mid-stream": (
        E.TIMEOUT,
        "httpx2.ReadTimeout",
        {"sse": [("message_start", _MESSAGE_START)], "mode": "stall_body"},
    ),
    "refused": (E.TRANSPORT, "anthropic.APIConnectionError", {"mode": "refused"}),
    "hang-up": (E.TRANSPORT, "anthropic.APIConnectionError", {"mode": "hang_up"}),
    "malformed-200": (
        E.PROVIDER_ERROR,
        "json.decoder.JSONDecodeError",
        {
            "body": '{"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "mess',
            "content_type": "application/json",
        },
    ),
}
STREAMING = {"stream-error", "drop-mid-body", "stall-mid-stream"}

XFAIL: dict[tuple[str, str], str] = {}


#: The Retry-After of the 429 case, which the classification reads from the exception.
RETRY_AFTER = 7.0


def provoke(base_url, case_id, read_timeout):
    """Send one message (streamed for the stream cases), retries off; return what was raised."""
    client = anthropic.Anthropic(
        base_url=base_url, api_key="sk-ant-test", max_retries=0, timeout=read_timeout
    )
    request = {
        "model": "claude-opus-4-1-20250805",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "Hello, Claude"}],
    }
    try:
        if case_id in STREAMING:
            with client.messages.stream(**request) as stream:
                for _ in stream:
                    pass
        else:
            client.messages.create(**request)
    except Exception as exc:
        return exc
    finally:
        client.close()
    return None
