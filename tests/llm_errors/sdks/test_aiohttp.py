"""aiohttp, the real library, calling the Anthropic REST API on the loopback fault server.

``raise_for_status()`` raises ``ClientResponseError`` carrying the status, the reason and
the headers, not the body (aiohttp aiohttp/client_reqrep.py). Bodies are Anthropic's
(Anthropic API docs, errors: https://docs.anthropic.com/en/api/errors, and the threads
cited per case), or nginx's pages and bare statuses where Anthropic sends none of its
own. aiohttp retries nothing.
"""

import asyncio

import aiohttp

from llm_errors import ErrorCode

E = ErrorCode
_RESPONSE_ERROR = "aiohttp.client_exceptions.ClientResponseError"


def _error(status, kind, message, request_id="req_011CSHoEeqs5C35K2UUqR7Fy"):
    body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}
    return {"status": status, "json": body}


_EVENT = 'event: ping\ndata: {"type": "ping"}\n\n'

#: case id -> (expected code, the type the library raises, reply spec)
CASES = {
    # ChatGPTNextWeb/NextChat#4964
    "status-400": (
        E.INVALID_REQUEST,
        _RESPONSE_ERROR,
        _error(
            400,
            "invalid_request_error",
            "max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for "
            "claude-3-5-sonnet-20240620",
        ),
    ),
    "status-401": (
        E.AUTH,
        _RESPONSE_ERROR,
        _error(401, "authentication_error", "invalid x-api-key"),
    ),
    # anthropics/claude-code#51610
    "status-403": (
        E.AUTH,
        _RESPONSE_ERROR,
        _error(403, "permission_error", "Permission denied", "req_011CaH53rCYtDAVnwhLQvkuc"),
    ),
    "status-404": (
        E.INVALID_REQUEST,
        _RESPONSE_ERROR,
        _error(404, "not_found_error", "The requested resource could not be found."),
    ),
    "status-408": (E.TIMEOUT, _RESPONSE_ERROR, {"nginx": 408}),
    # anthropics/anthropic-sdk-python#938
    "status-413": (
        E.CONTEXT_OVERFLOW,
        _RESPONSE_ERROR,
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
    "status-422": (E.INVALID_REQUEST, _RESPONSE_ERROR, {"status": 422}),
    # cline/cline#42, with the retry-after header Anthropic's rate limits carry.
    "status-429": (
        E.RATE_LIMIT,
        _RESPONSE_ERROR,
        {
            **_error(
                429,
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit "
                "(https://docs.anthropic.com/en/api/rate-limits); see the response headers for "
                "current usage.",
            ),
            "headers": {"retry-after": "7"},
        },
    ),
    "status-500": (E.SERVER, _RESPONSE_ERROR, _error(500, "api_error", "Internal server error")),
    "status-502": (E.SERVER, _RESPONSE_ERROR, {"nginx": 502}),
    "status-503": (E.SERVER, _RESPONSE_ERROR, {"nginx": 503}),
    "status-504": (E.TIMEOUT, _RESPONSE_ERROR, {"nginx": 504}),
    # anthropics/claude-code#35792
    "status-529": (
        E.RATE_LIMIT,
        _RESPONSE_ERROR,
        _error(529, "overloaded_error", "Overloaded", "req_011CZAau32QzxDkriovTaFCB"),
    ),
    "drop-mid-body": (
        E.TRANSPORT,
        "aiohttp.client_exceptions.ClientPayloadError",
        {"body": _EVENT, "content_type": "text/event-stream", "mode": "drop"},
    ),
    "stall": (E.TIMEOUT, "aiohttp.client_exceptions.SocketTimeoutError", {"mode": "stall"}),
    "stall-mid-stream": (
        E.TIMEOUT,
        "aiohttp.client_exceptions.SocketTimeoutError",
        {"body": _EVENT, "content_type": "text/event-stream", "mode": "stall_body"},
    ),
    "refused": (E.TRANSPORT, "aiohttp.client_exceptions.ClientConnectorError", {"mode": "refused"}),
    "hang-up": (
        E.TRANSPORT,
        "aiohttp.client_exceptions.ServerDisconnectedError",
        {"mode": "hang_up"},
    ),
    "malformed-200": (
        E.PROVIDER_ERROR,
        "json.decoder.JSONDecodeError",
        {"body": '{"id": "msg_01", "type": "mess', "content_type": "application/json"},
    ),
}
STREAMING = {"drop-mid-body", "stall-mid-stream"}

XFAIL: dict[tuple[str, str], str] = {}


async def _call(base_url, case_id, read_timeout):
    timeout = aiohttp.ClientTimeout(sock_connect=read_timeout, sock_read=read_timeout)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.post(
            f"{base_url}/v1/messages",
            json={
                "model": "claude-opus-4-1-20250805",
                "max_tokens": 1024,
                "messages": [{"role": "user", "content": "Hello, Claude"}],
            },
            headers={"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"},
        ) as response,
    ):
        response.raise_for_status()
        if case_id in STREAMING:
            async for _ in response.content:
                pass
        else:
            await response.json()


#: The Retry-After of the 429 case, which the classification reads from the exception.
RETRY_AFTER = 7.0


def provoke(base_url, case_id, read_timeout):
    """POST a message once (streamed for the stream cases); return what was raised."""
    try:
        asyncio.run(_call(base_url, case_id, read_timeout))
    except Exception as exc:
        return exc
    return None
