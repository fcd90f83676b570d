"""requests, the real library, calling the OpenAI REST API on the loopback fault server.

``raise_for_status()`` is how requests reports a status (its str() names the status and
reason, not the body; the object keeps ``.response``). Bodies are OpenAI's (OpenAI API
docs, error codes: https://platform.openai.com/docs/guides/error-codes, and the threads
cited per case), or nginx's pages and bare statuses where OpenAI sends none of its own.
requests retries nothing unless a Retry is mounted: none is.
"""

import requests

from llm_errors import ErrorCode

E = ErrorCode


def _error(message, kind, code=None):
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


_CHUNK = 'data: {"id":"chatcmpl-123","object":"chat.completion.chunk","choices":[]}\n\n'

#: case id -> (expected code, the type the library raises, reply spec)
CASES = {
    "status-400": (
        E.INVALID_REQUEST,
        "requests.exceptions.HTTPError",
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
        "requests.exceptions.HTTPError",
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
    # home-assistant/core#120072
    "status-403": (
        E.AUTH,
        "requests.exceptions.HTTPError",
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
        "requests.exceptions.HTTPError",
        {
            "status": 404,
            "json": _error(
                "The model `gpt-4o` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            ),
        },
    ),
    "status-408": (E.TIMEOUT, "requests.exceptions.HTTPError", {"nginx": 408}),
    "status-413": (E.CONTEXT_OVERFLOW, "requests.exceptions.HTTPError", {"nginx": 413}),
    "status-422": (E.INVALID_REQUEST, "requests.exceptions.HTTPError", {"status": 422}),
    # MSU-AI-Agents/fall-2025-course#76, with a Retry-After header.
    "status-429": (
        E.RATE_LIMIT,
        "requests.exceptions.HTTPError",
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
    "status-500": (
        E.SERVER,
        "requests.exceptions.HTTPError",
        {
            "status": 500,
            "json": _error(
                "The server had an error while processing your request. Sorry about that!",
                "server_error",
            ),
        },
    ),
    "status-502": (E.SERVER, "requests.exceptions.HTTPError", {"nginx": 502}),
    "status-503": (E.SERVER, "requests.exceptions.HTTPError", {"nginx": 503}),
    "status-504": (E.TIMEOUT, "requests.exceptions.HTTPError", {"nginx": 504}),
    "status-529": (E.RATE_LIMIT, "requests.exceptions.HTTPError", {"status": 529}),
    "drop-mid-body": (
        E.TRANSPORT,
        "requests.exceptions.ChunkedEncodingError",
        {"body": _CHUNK, "content_type": "text/event-stream", "mode": "drop"},
    ),
    "stall": (E.TIMEOUT, "requests.exceptions.ReadTimeout", {"mode": "stall"}),
    # requests wraps a read timeout inside the body as a ConnectionError (requests
    # src/requests/models.py, iter_content): the chain's urllib3 ReadTimeoutError decides.
    "stall-mid-stream": (
        E.TIMEOUT,
        "requests.exceptions.ConnectionError",
        {"body": _CHUNK, "content_type": "text/event-stream", "mode": "stall_body"},
    ),
    "refused": (E.TRANSPORT, "requests.exceptions.ConnectionError", {"mode": "refused"}),
    "hang-up": (E.TRANSPORT, "requests.exceptions.ConnectionError", {"mode": "hang_up"}),
    "malformed-200": (
        E.PROVIDER_ERROR,
        "requests.exceptions.JSONDecodeError",
        {"body": '{"id": "chatcmpl-123", "choices": [', "content_type": "application/json"},
    ),
}
STREAMING = {"drop-mid-body", "stall-mid-stream"}

_WRAPPED_TIMEOUT = (
    "requests.ConnectionError is a specific TRANSPORT row, so the urllib3 ReadTimeoutError "
    "it wraps (args[0], 'Read timed out.') does not decide"
)
XFAIL = {
    ("stall-mid-stream", "object"): _WRAPPED_TIMEOUT,
    ("stall-mid-stream", "log-line"): _WRAPPED_TIMEOUT + " (exc.transport matches the type name)",
}


#: The Retry-After of the 429 case, which the classification reads from the exception.
RETRY_AFTER = 9.0


def provoke(base_url, case_id, read_timeout):
    """POST chat completions once (streamed for the stream cases); return what was raised."""
    try:
        with requests.Session() as session:
            response = session.post(
                f"{base_url}/v1/chat/completions",
                json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello!"}]},
                headers={"Authorization": "Bearer sk-test"},
                timeout=(read_timeout, read_timeout),
                stream=case_id in STREAMING,
            )
            response.raise_for_status()
            if case_id in STREAMING:
                for _ in response.iter_lines():
                    pass
            else:
                response.json()
    except Exception as exc:
        return exc
    return None
