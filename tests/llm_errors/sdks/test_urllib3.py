"""urllib3, the real library, calling a REST API on the loopback fault server, classified.

urllib3 raises on a status only through ``Retry(status_forcelist=...)``: with ``total=0``
(no retry at all) the first such response raises ``MaxRetryError`` whose ``reason`` is a
``ResponseError('too many 429 error responses')`` (urllib3 src/urllib3/util/retry.py).
That exception keeps neither the response nor its body, so the status cases send the
status alone: the number in the reason's text is all the evidence there is. Transport
faults run with ``retries=False`` (the raw errors), and a refused connection once through
``Retry(total=0)`` (the ``MaxRetryError`` wrapper users see by default; a read timeout on
a POST is re-raised as is, POST not being retryable).
"""

import urllib3

from llm_errors import ErrorCode

E = ErrorCode

STATUS_CODES = {
    400: E.INVALID_REQUEST,
    401: E.AUTH,
    403: E.AUTH,
    404: E.INVALID_REQUEST,
    408: E.TIMEOUT,
    413: E.CONTEXT_OVERFLOW,
    422: E.INVALID_REQUEST,
    429: E.RATE_LIMIT,
    500: E.SERVER,
    502: E.SERVER,
    503: E.SERVER,
    504: E.TIMEOUT,
    529: E.RATE_LIMIT,
}
_MAX_RETRY = "urllib3.exceptions.MaxRetryError"
_CHUNK = 'data: {"candidates": [{"content": {"parts": [{"text": "Hello"}]}}]}\n\n'

#: case id -> (expected code, the type the library raises, reply spec)
CASES = {
    **{
        f"status-{status}": (
            code,
            _MAX_RETRY,
            {"status": status, "headers": {"retry-after": "7"}}
            if status == 429
            else {"status": status},
        )
        for status, code in STATUS_CODES.items()
    },
    "drop-mid-body": (
        E.TRANSPORT,
        "urllib3.exceptions.ProtocolError",
        {"body": _CHUNK, "content_type": "text/event-stream", "mode": "drop"},
    ),
    "stall": (E.TIMEOUT, "urllib3.exceptions.ReadTimeoutError", {"mode": "stall"}),
    "stall-mid-stream": (
        E.TIMEOUT,
        "urllib3.exceptions.ReadTimeoutError",
        {"body": _CHUNK, "content_type": "text/event-stream", "mode": "stall_body"},
    ),
    "refused": (E.TRANSPORT, "urllib3.exceptions.NewConnectionError", {"mode": "refused"}),
    "refused-max-retries": (E.TRANSPORT, _MAX_RETRY, {"mode": "refused"}),
    "hang-up": (E.TRANSPORT, "urllib3.exceptions.ProtocolError", {"mode": "hang_up"}),
    "malformed-200": (
        E.PROVIDER_ERROR,
        "json.decoder.JSONDecodeError",
        {"body": '{"candidates": [{"content": {"parts": [', "content_type": "application/json"},
    ),
}
STREAMING = {"drop-mid-body", "stall-mid-stream"}

_TOO_MANY = (
    "the MaxRetryError object falls to the generic MaxRetryError row (TRANSPORT), and a "
    "413 in 'too many 413 error responses' has no status rule of its own"
)
XFAIL = {
    **{(f"status-{status}", "object"): _TOO_MANY for status in STATUS_CODES},
    ("status-413", "str"): _TOO_MANY,
    ("status-413", "log-line"): _TOO_MANY,
}


def _retries(case_id):
    if case_id.startswith("status-"):
        return urllib3.Retry(total=0, status_forcelist=tuple(STATUS_CODES), allowed_methods=None)
    return urllib3.Retry(total=0) if case_id.endswith("-max-retries") else False


def provoke(base_url, case_id, read_timeout):
    """POST generateContent once with the case's retry setting; return what was raised."""
    with urllib3.PoolManager(
        retries=_retries(case_id),
        timeout=urllib3.Timeout(connect=read_timeout, read=read_timeout),
    ) as pool:
        try:
            response = pool.request(
                "POST",
                f"{base_url}/v1beta/models/gemini-2.0-flash:generateContent",
                json={"contents": [{"parts": [{"text": "Hello"}]}]},
                preload_content=case_id not in STREAMING,
            )
            if case_id in STREAMING:
                for _ in response.stream(1024):
                    pass
            else:
                response.json()
        except Exception as exc:
            return exc
    return None
