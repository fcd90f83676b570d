"""Structured evidence as tables: HTTP statuses and provider error ``type``/``code`` values.

Both tables map to a rule id of the pattern table (``_patterns.RULES``), so a
structured signal takes that rule's code **and its position in the precedence
order**: a body ``"code": "insufficient_quota"`` ranks exactly where the
``quota.insufficient-quota`` wording does, and a status 429 ranks where
``http.429`` does. Overriding a rule id with ``Classifier(extra_rules=...)``
therefore also changes what the structured signal means.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

import regex as _re

__all__ = [
    "BODY_TYPES",
    "STATUS_RULES",
    "normalize_identifier",
    "status_from_text",
    "status_in_tokens",
    "status_rule",
]

#: HTTP status -> rule id. Unlisted 4xx fall back to ``http.4xx``, unlisted 5xx to ``http.5xx``.
STATUS_RULES: Final[Mapping[int, str]] = {
    400: "http.4xx",
    401: "http.auth",
    402: "http.402",
    403: "http.auth",
    404: "http.4xx",
    405: "http.4xx",
    407: "http.auth",
    408: "http.408",
    409: "http.4xx",
    410: "http.4xx",
    413: "http.413",
    415: "http.4xx",
    422: "http.4xx",
    429: "http.429",
    500: "http.5xx",
    502: "http.5xx",
    503: "http.5xx",
    504: "http.504",
    520: "http.5xx",
    521: "http.5xx",
    522: "http.5xx",
    523: "http.5xx",
    524: "http.5xx",
    525: "http.5xx",
    526: "http.5xx",
    527: "http.5xx",
    529: "http.529",
    530: "http.5xx",
}

_MIN_ERROR, _MIN_SERVER, _MAX_STATUS = 400, 500, 599


def status_rule(status: int) -> str | None:
    """The rule id an HTTP status maps to; ``None`` for non-error statuses."""
    rule = STATUS_RULES.get(status)
    if rule is not None:
        return rule
    if _MIN_ERROR <= status < _MIN_SERVER:
        return "http.4xx"
    if _MIN_SERVER <= status <= _MAX_STATUS:
        return "http.5xx"
    return None


#: A provider error ``type``/``code``/``reason``/``status``/``name`` value (normalised by
#: :func:`normalize_identifier`) -> rule id. Sources: OpenAI error codes, Anthropic
#: error types, Mistral ``type``/``code`` (docs/wire.md §7.2), AWS
#: ``__type``/``Error.Code``, gRPC/Google status names, Node ``code``/``name`` fields.
BODY_TYPES: Final[Mapping[str, str]] = {
    # quota and billing
    "insufficient_quota": "quota.insufficient-quota",
    "billing_hard_limit_reached": "quota.billing",
    "billing_not_active": "quota.billing",
    "servicequotaexceededexception": "quota.service-quota",
    "budgetexceedederror": "quota.window",
    # a request that never fits
    "context_length_exceeded": "context.length-exceeded",
    "string_above_max_length": "context.request-too-large",
    "request_too_large": "context.request-too-large",
    "3051": "context.length-exceeded",  # Mistral: prompt too long for the context window
    # content filters (also finish/stop/block reasons of in-band chunks)
    "content_filter": "filter.content-policy",
    "content_policy_violation": "filter.content-policy",
    "responsibleaipolicyviolation": "filter.content-policy",
    "safety": "filter.safety-block",
    "prohibited_content": "filter.safety-block",
    "blocklist": "filter.safety-block",
    "spii": "filter.safety-block",
    "image_safety": "filter.safety-block",
    "recitation": "filter.safety-block",  # Gemini: output withheld as recitation
    # auth
    "invalid_api_key": "auth.invalid-key",
    "api_key_invalid": "auth.invalid-key",
    "authentication_error": "auth.invalid-key",
    "permission_error": "auth.invalid-key",
    "unrecognizedclientexception": "aws.auth",
    "accessdeniedexception": "aws.auth",
    "expiredtokenexception": "aws.auth",
    "unauthenticated": "type.auth",
    "permission_denied": "type.auth",
    # throttling and overload
    "overloaded_error": "anthropic.overloaded",
    "throttlingexception": "bedrock.throttling",
    "toomanyrequestsexception": "bedrock.throttling",
    "service_tier_capacity_exceeded": "mistral.capacity",
    "backend_out_of_capacity": "mistral.capacity",
    "3505": "mistral.capacity",  # Mistral: service tier capacity exceeded
    "rate_limit_exceeded": "openai.rate-limit-code",
    "rate_limit_error": "type.rate-limit",
    "rate_limited": "type.rate-limit",
    "1300": "type.rate-limit",  # Mistral: rate limit exceeded
    "resource_exhausted": "type.rate-limit",
    # provider-side failures
    "api_error": "type.server",
    "server_error": "type.server",
    "internal_server_error": "type.server",
    "unavailable": "type.server",
    "internal": "type.server",
    "data_loss": "type.server",
    "internalserverexception": "type.server",
    "serviceunavailableexception": "type.server",
    "modelerrorexception": "type.server",
    "modelnotreadyexception": "type.server",
    "modelstreamerrorexception": "type.server",
    # timeouts
    "deadline_exceeded": "type.timeout",
    "modeltimeoutexception": "exc.timeout",
    "timeouterror": "exc.timeout",
    "etimedout": "node.timeout-codes",
    "und_err_connect_timeout": "node.timeout-codes",
    "und_err_headers_timeout": "node.timeout-codes",
    "und_err_body_timeout": "node.timeout-codes",
    # malformed requests
    "invalid_request_error": "type.invalid-request",
    "invalid_argument": "type.invalid-request",
    "failed_precondition": "type.invalid-request",
    "not_found_error": "type.invalid-request",
    "validationexception": "type.invalid-request",
    "resourcenotfoundexception": "type.invalid-request",
    "invalid_model": "type.invalid-request",
    "model_not_found": "type.invalid-request",
    "invalid_function_call": "type.invalid-request",
    "invalid_request_message_order": "type.invalid-request",
    "invalid_request_invalid_args": "type.invalid-request",
    "invalid_request_message_error": "type.invalid-request",
    "1500": "type.invalid-request",  # Mistral: invalid model
    "3230": "type.invalid-request",  # Mistral: message order / call-response count
    "3280": "type.invalid-request",  # Mistral: invalid tool call id
    # cancellation
    "cancelled": "type.cancelled",
    "aborterror": "abort.caller",
    "und_err_aborted": "abort.caller",
    # transport (Node error codes in serialised errors)
    "econnreset": "node.socket-codes",
    "econnrefused": "node.socket-codes",
    "econnaborted": "node.socket-codes",
    "epipe": "node.socket-codes",
    "enotfound": "node.socket-codes",
    "eai_again": "node.socket-codes",
    "ehostunreach": "node.socket-codes",
    "enetunreach": "node.socket-codes",
    "und_err_socket": "node.socket-codes",
    "und_err_closed": "node.socket-codes",
    "err_stream_premature_close": "node.socket-codes",
}

_MAX_IDENTIFIER = 80


def normalize_identifier(value: str) -> str | None:
    """``"com.amazon.coral#ThrottlingException"`` -> ``"throttlingexception"``, etc.

    Returns ``None`` for values that are prose rather than an identifier.
    """
    text = value.strip().strip("\"'")
    if not text or len(text) > _MAX_IDENTIFIER or any(ch.isspace() for ch in text):
        return None
    text = text.rsplit("#", 1)[-1].rsplit(":", 1)[-1]
    if text.lower().startswith("statuscode."):
        text = text[len("statuscode.") :]
    return text.lower()


_STATUS_CONTEXT = (
    r"(?<=(?:\bHTTP/\d(?:\.\d)?|\bHTTP(?:[ ]status)?(?:[ ]code)?|(?<![a-z])status(?:[ _-]?code)?"
    r"|\b(?:error|response)[ _-]?code|\bcode|\berror)\W{1,3}\d{3})"
)
_STATUS_IN_TEXT = _re.compile(rf"\b([45]\d\d)\b(?![.,]\d){_STATUS_CONTEXT}", _re.IGNORECASE)


def status_from_text(text: str) -> int | None:
    """The first error status (4xx/5xx) stated in a status context in ``text``."""
    found = _STATUS_IN_TEXT.search(text)
    return int(found.group(1)) if found else None


#: What a status context ends with (lower-cased), right before the 1 to 3 non-word
#: characters ahead of the number: ``HTTP``, ``status``, ``...code``, ``error``, or
#: the last digit of ``HTTP/1.1``.
_CONTEXT_ENDS: Final = (b"http", b"status", b"code", b"error", *(b"%d" % d for d in range(10)))
_MAX_GAP: Final = 3
# Bytes looked at before a number: the gap and the longest context end, with room to spare.
_WINDOW: Final = 16
#: Numbers in a possible status context checked per line (the first status wins).
_MAX_TRIES: Final = 32


def status_in_tokens(text: str, padded: bytes, numbers: Iterable[bytes]) -> int | None:
    """:func:`status_from_text` for ASCII ``text``, trying only where ``numbers`` start.

    ``padded`` is the text's token translation (``_prefilter.translate``) with a space
    on each side, and ``numbers`` are the 4xx/5xx tokens it contains. A number whose
    preceding word cannot end a status context, or that is more than three non-word
    characters away from it, is skipped without running the regex: most numbers in
    a message are counts and ids, and the context lookbehind is the costly part.
    """
    offsets: list[int] = []
    for number in numbers:
        needle = b" " + number + b" "
        at = padded.find(needle)
        # The first ``_MAX_TRIES`` places of each number hold the first ones of all.
        kept = 0
        while at >= 0 and kept < _MAX_TRIES:  # ``padded`` is shifted by one: text offsets
            before = padded[max(0, at + 1 - _WINDOW) : at + 1]  # bounded: linear time
            word = before.rstrip()
            if len(before) - len(word) <= _MAX_GAP and word.endswith(_CONTEXT_ENDS):
                offsets.append(at)
                kept += 1
            at = padded.find(needle, at + len(needle) - 1)
    # At most ``_MAX_TRIES`` regex calls: a line of thousands of numbers stays linear.
    for offset in sorted(offsets)[:_MAX_TRIES]:
        found = _STATUS_IN_TEXT.match(text, offset)
        if found is not None:
            return int(found.group(1))
    return None
