"""google-genai, the real SDK, against the loopback fault server: what it raises, classified.

Bodies are Google's error shape (``{"error": {"code", "message", "status", "details"}}``,
Gemini API troubleshooting: https://ai.google.dev/gemini-api/docs/troubleshooting) with
the messages of the threads cited per case; statuses Google does not send itself come
from a gateway in front of it (nginx's pages) or arrive bare.
"""

from google import genai
from google.genai import types

from llm_errors import ErrorCode

E = ErrorCode


def _error(code, status, message, **extra):
    return {"error": {"code": code, "message": message, "status": status, **extra}}


# A streamed chunk of generateContent (API reference, GenerateContentResponse:
# https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse).
_CHUNK = {
    "candidates": [{"content": {"parts": [{"text": "Hello"}], "role": "model"}, "index": 0}],
    "modelVersion": "gemini-2.0-flash",
}
# Google's own 502 page, as quoted in google-gemini/gemini-cli#4646 (its inline <style>
# trimmed to "…") and kenvandine/gemini-desktop#11 (the text).
_GOOGLE_502 = (
    "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <meta name=viewport "
    'content="initial-scale=1, minimum-scale=1, width=device-width">\n'
    "  <title>Error 502 (Server Error)!!1</title>\n  <style>…</style>\n"
    "  <a href=//www.google.com/><span id=logo aria-label=Google></span></a>\n"
    "  <p><b>502.</b> <ins>That\u2019s an error.</ins>\n  <p>The server encountered a temporary "
    "error and could not complete your request.<p>Please try again in 30 seconds.  "
    "<ins>That\u2019s all we know.</ins>\n"
)

#: case id -> (expected code, the type the SDK raises, reply spec)
CASES = {
    # openags/paper-search-mcp#26
    "status-400": (
        E.INVALID_REQUEST,
        "google.genai.errors.ClientError",
        {
            "status": 400,
            "json": _error(
                400,
                "INVALID_ARGUMENT",
                "Request contains an invalid argument.",
                errors=[
                    {
                        "message": "Request contains an invalid argument.",
                        "domain": "global",
                        "reason": "badRequest",
                    }
                ],
            ),
        },
    ),
    # A bad key is a 400 at Google (the troubleshooting page's example body).
    "status-400-key": (
        E.AUTH,
        "google.genai.errors.ClientError",
        {
            "status": 400,
            "json": _error(
                400,
                "INVALID_ARGUMENT",
                "API key not valid. Please pass a valid API key.",
                details=[
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                        "domain": "googleapis.com",
                        "metadata": {"service": "generativelanguage.googleapis.com"},
                    }
                ],
            ),
        },
    ),
    # kaitranntt/ccs#1131
    "status-401": (
        E.AUTH,
        "google.genai.errors.ClientError",
        {
            "status": 401,
            "json": _error(
                401,
                "UNAUTHENTICATED",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, "
                "login cookie or other valid authentication credential. See "
                "https://developers.google.com/identity/sign-in/web/devconsole-project.",
            ),
        },
    ),
    # gemini-cli-extensions/nanobanana#16 (its details list trimmed).
    "status-403": (
        E.AUTH,
        "google.genai.errors.ClientError",
        {
            "status": 403,
            "json": _error(
                403,
                "PERMISSION_DENIED",
                "Permission denied on resource project polynomial-coda-466015-e4.",
            ),
        },
    ),
    # Wei-Shaw/sub2api#612
    "status-404": (
        E.INVALID_REQUEST,
        "google.genai.errors.ClientError",
        {"status": 404, "json": _error(404, "NOT_FOUND", "Requested entity was not found.")},
    ),
    "status-408": (E.TIMEOUT, "google.genai.errors.ClientError", {"nginx": 408}),
    "status-413": (E.CONTEXT_OVERFLOW, "google.genai.errors.ClientError", {"nginx": 413}),
    "status-422": (E.INVALID_REQUEST, "google.genai.errors.ClientError", {"status": 422}),
    # google/generative-ai-docs#236, with a Retry-After header.
    "status-429": (
        E.RATE_LIMIT,
        "google.genai.errors.ClientError",
        {
            "status": 429,
            "headers": {"retry-after": "7"},
            "json": _error(
                429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
            ),
        },
    ),
    # continuedev/continue#10066: no free-tier quota at all (policy quota-wording-wins, limit: 0).
    "status-429-limit-zero": (
        E.QUOTA_EXCEEDED,
        "google.genai.errors.ClientError",
        {
            "status": 429,
            "json": _error(
                429,
                "RESOURCE_EXHAUSTED",
                "* Quota exceeded for metric: generativelanguage.googleapis.com/"
                "generate_content_free_tier_requests, limit: 0, model: gemini-2.0-flash\n"
                "Please retry in 7.967587226s.",
            ),
        },
    ),
    # justlovemaki/AIClient2API#392
    "status-500": (
        E.SERVER,
        "google.genai.errors.ServerError",
        {"status": 500, "json": _error(500, "INTERNAL", "Internal error encountered.")},
    ),
    # Google's 502 page says "try again in 30 seconds": still a SERVER error, not a 429.
    "status-502": (
        E.SERVER,
        "google.genai.errors.ServerError",
        {"status": 502, "body": _GOOGLE_502, "content_type": "text/html; charset=UTF-8"},
    ),
    # google-gemini/gemini-cli#12831: the status outranks "overloaded" (policy overload).
    "status-503": (
        E.SERVER,
        "google.genai.errors.ServerError",
        {
            "status": 503,
            "json": _error(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        },
    ),
    # googleapis/python-genai#1808: the backend's own deadline (policy who-cancelled).
    "status-503-deadline": (
        E.SERVER,
        "google.genai.errors.ServerError",
        {
            "status": 503,
            "json": _error(503, "UNAVAILABLE", "Deadline expired before operation could complete."),
        },
    ),
    "status-504": (E.TIMEOUT, "google.genai.errors.ServerError", {"nginx": 504}),
    "status-529": (E.RATE_LIMIT, "google.genai.errors.ServerError", {"status": 529}),
    # An error object in the SSE stream of a 200 (the SDK raises it by its own code).
    "stream-error": (
        E.SERVER,
        "google.genai.errors.ServerError",
        {"sse": [(None, _CHUNK), (None, _error(500, "INTERNAL", "Internal error encountered."))]},
    ),
    "drop-mid-body": (
        E.TRANSPORT,
        "httpx2.RemoteProtocolError",
        {"sse": [(None, _CHUNK)], "mode": "drop"},
    ),
    "stall": (E.TIMEOUT, "httpx2.ReadTimeout", {"mode": "stall"}),
    "stall-mid-stream": (
        E.TIMEOUT,
        "httpx2.ReadTimeout",
        {"sse": [(None, _CHUNK)], "mode": "stall_body"},
    ),
    "refused": (E.TRANSPORT, "httpx2.ConnectError", {"mode": "refused"}),
    "hang-up": (E.TRANSPORT, "httpx2.RemoteProtocolError", {"mode": "hang_up"}),
    "malformed-200": (
        E.PROVIDER_ERROR,
        "json.decoder.JSONDecodeError",
        {"body": '{"candidates": [{"content": {"parts": [', "content_type": "application/json"},
    ),
}
STREAMING = {"stream-error", "drop-mid-body", "stall-mid-stream"}

XFAIL: dict[tuple[str, str], str] = {}


#: The Retry-After of the 429 case, which the classification reads from the exception.
RETRY_AFTER = 7.0


def provoke(base_url, case_id, read_timeout):
    """Generate content once (streamed for the stream cases), retries off; return the error."""
    client = genai.Client(
        api_key="AIza-test-key",
        http_options=types.HttpOptions(
            base_url=base_url,
            timeout=int(read_timeout * 1000),  # milliseconds
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )
    try:
        if case_id in STREAMING:
            for _ in client.models.generate_content_stream(
                model="gemini-2.0-flash", contents="Hello"
            ):
                pass
        else:
            client.models.generate_content(model="gemini-2.0-flash", contents="Hello")
    except Exception as exc:
        return exc
    finally:
        client.close()
    return None
