"""Mistral failures as typed ``llm_errors`` errors: pure translation, no I/O.

Three sources of failure end up here:

- an HTTP error response (:func:`error_from_response`): the status, the headers and
  the body, in any of the body shapes Mistral has been seen to send (docs/wire.md §7.2,
  shapes A to I);
- an error object inside a 200 stream (:func:`error_from_payload`): classified by its
  content, never by the stream's HTTP 200 (docs/adapter.md, "Errors");
- a stream the adapter cannot follow: :class:`UnmappableChunkError` for a content
  chunk pi has no surface for (ADR 0014), :func:`malformed_chunk_error` for a payload
  that is not JSON or not a chunk. Both are ``PROVIDER_ERROR``, and both name the
  position in the stream (the chunk number), never the payload.

The code is decided by the ``llm_errors`` classifier from the status, the provider's
``type``/``code`` and the extracted message, so the routing rules live in one table
(``llm_errors``), not in an ``if`` ladder here.

What rides on an error:

- ``message``: ``"Mistral HTTP 429 Too Many Requests (type rate_limited, code 1300):
  Rate limit exceeded"``: the status, the provider's ``type`` and ``code`` (never
  lost: they are in the message and in ``body``), and a bounded message extracted
  from the body. Validation details are rendered as ``loc: msg`` and their ``input``
  (an echo of the request) is left out.
- ``body``: the response body with every ``input`` value elided, as a bounded and
  redacted excerpt (``LlmError`` bounds and redacts it).
- ``request_id``: ``mistral-correlation-id``, else ``x-kong-request-id``, else the
  body's ``request_id``.
- ``retry_after``: the classifier's, i.e. ``retry-after-ms`` or ``Retry-After``
  (``llm_errors.parse_retry_after``), else a wait a rate-limit message states.
- ``partial``: the assistant message so far, for every error the stream mapper
  raises. It is an instance attribute set by :func:`attach_partial` (so it survives
  pickling, which keeps ``__dict__``); read it with :func:`partial_of`, which is
  typed. ``LlmError.with_context`` builds a new error and does not carry it over.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import http
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import from_json as _from_json

from adapter.pi._messages import AssistantMessage
from llm_errors import (
    LlmError,
    ProviderError,
    classify,
    error_class_for,
    redact,
)

__all__ = [
    "PROVIDER",
    "UnmappableChunkError",
    "attach_partial",
    "bounded_name",
    "error_from_payload",
    "error_from_response",
    "is_error_object",
    "loads_or_none",
    "malformed_chunk_error",
    "partial_of",
    "protocol_error",
    "quote_name",
]

#: The ``provider`` every error from this adapter carries.
PROVIDER = "mistral"

#: Longest message extracted from a body, in characters.
MESSAGE_LIMIT = 500
#: Longest type name or field path quoted from the wire in a message.
_NAME_LIMIT = 60

_REQUEST_ID_HEADERS = ("mistral-correlation-id", "x-kong-request-id")


class UnmappableChunkError(ProviderError):
    """Mistral sent a content chunk pi has no surface for (ADR 0014).

    ``chunk_type`` names the type (``None`` when the chunk had no ``type``); the
    message names it too and says why it cannot be mapped, never the payload.

    .. versionadded:: 0.1.0
    """

    chunk_type: str | None

    def __init__(self, message: str, *, chunk_type: str | None = None, **context: Any) -> None:
        super().__init__(message, **context)
        self.chunk_type = chunk_type

    def context(self) -> dict[str, Any]:
        """The context, ``chunk_type`` included, so copies and pickles keep it."""
        return super().context() | {"chunk_type": self.chunk_type}


# --- the partial message on an error ----------------------------------------------------


def attach_partial(error: LlmError, partial: AssistantMessage) -> LlmError:
    """Set ``error.partial`` to the live message and return ``error`` (for ``raise``).

    .. versionadded:: 0.1.0
    """
    vars(error)["partial"] = partial
    return error


def partial_of(error: BaseException) -> AssistantMessage | None:
    """The assistant message an adapter error carries, ``None`` for any other error.

    The message has ``stopReason`` ``"error"`` or ``"aborted"`` and ``errorMessage``
    set, and holds everything that streamed before the failure.

    .. versionadded:: 0.1.0
    """
    value = vars(error).get("partial")
    return value if isinstance(value, AssistantMessage) else None


# --- names and bounds ----------------------------------------------------------------


def bounded_name(value: object) -> str:
    """A wire-supplied name (a type, a field path) safe to keep on an error: bounded."""
    text = redact(str(value))
    if len(text) > _NAME_LIMIT:
        text = f"{text[:_NAME_LIMIT]}…"
    return text


def quote_name(value: object) -> str:
    """:func:`bounded_name`, quoted for a message."""
    return repr(bounded_name(value))


def _bounded(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MESSAGE_LIMIT:
        text = f"{text[:MESSAGE_LIMIT]}…[{len(text) - MESSAGE_LIMIT} more chars]"
    return text


# --- body parsing ----------------------------------------------------------------------


def loads_or_none(data: str | bytes) -> Any:
    """Parse untrusted JSON, ``None`` if it is not JSON.

    ``pydantic_core.from_json`` rather than ``json.loads``: it bounds the nesting depth
    and reports a document nested too deeply as a ``ValueError``, where ``json.loads``
    raises ``RecursionError`` (60,000 ``[`` are enough).

    .. versionadded:: 0.2.0
    """
    try:
        return _from_json(data)
    except ValueError:
        return None


def _json_or_none(text: str) -> Any:
    """Parse ``text`` as JSON if it looks like an object or array, else ``None``."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    return loads_or_none(stripped)


def _details(value: object) -> str | None:
    """Render pydantic-style ``detail`` entries as ``loc: msg``, without their ``input``."""
    if isinstance(value, Mapping):
        value = value.get("detail")
        if isinstance(value, str):
            return value.strip() or None
    if not isinstance(value, list):
        return None
    parts: list[str] = []
    for entry in value:
        if not isinstance(entry, Mapping):
            continue
        msg = entry.get("msg")
        if not isinstance(msg, str):
            continue
        loc = entry.get("loc")
        if isinstance(loc, list) and loc:
            parts.append(f"{'.'.join(str(part) for part in loc)}: {msg}")
        else:
            parts.append(msg)
    return "; ".join(parts) or None


def _message_of(body: Mapping[str, Any]) -> str | None:
    """The human message of an error object, whatever its shape (docs/wire.md §7.2)."""
    message = body.get("message")
    if isinstance(message, str) and message.strip():
        nested = _json_or_none(message)  # shape C: a JSON document inside the string
        if nested is not None:
            found = _details(nested)
            if found is None and isinstance(nested, Mapping):
                found = _message_of(nested)
            if found is not None:
                return found
        return message
    if isinstance(message, Mapping | list):  # shapes B and D
        found = _details(message)
        if found is not None:
            return found
    detail = body.get("detail")  # shapes F, G and H
    found = _details({"detail": detail})
    if found is not None:
        return found
    error = body.get("error")  # an OpenAI-style envelope, e.g. in a stream
    if isinstance(error, Mapping):
        return _message_of(error)
    if isinstance(error, str) and error.strip():
        return error
    return None


def _scrub(value: Any) -> Any:
    """A copy of a JSON body with every ``input`` (an echo of the request) elided."""
    if isinstance(value, Mapping):
        return {key: "<elided>" if key == "input" else _scrub(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub(item) for item in value]
    return value


def _wire_text(value: object) -> str | None:
    """A provider ``type``/``code`` as text (``code`` is a string or an integer)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str | int):
        text = str(value).strip()
        return text or None
    return None


#: RFC 9110's reason phrases where Python's ``http.HTTPStatus`` changed them in 3.13, so
#: an error's message is the same on every Python the package supports.
_RFC9110_PHRASES = {
    413: "Content Too Large",
    416: "Range Not Satisfiable",
    422: "Unprocessable Content",
}


def _status_phrase(status: int) -> str:
    if status in _RFC9110_PHRASES:
        return _RFC9110_PHRASES[status]
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown Status"


def _describe(prefix: str, kind: str | None, code: str | None, text: str | None) -> str:
    tags = [f"type {kind}" if kind else "", f"code {code}" if code else ""]
    shown = ", ".join(tag for tag in tags if tag)
    head = f"{prefix} ({shown})" if shown else prefix
    return f"{head}: {_bounded(text)}" if text else head


def _classified(
    message: str,
    said: str | None,
    *,
    status: int | None,
    kind: str | None,
    code: str | None,
    model: str | None,
    request_id: str | None,
    body: object,
    headers: Mapping[str, str] | None = None,
) -> LlmError:
    """Ask the classifier for the code and build the matching typed error.

    The evidence is what the classifier reads best: the status, the provider's
    ``type``/``code``, the headers (``Retry-After``) and what the provider ``said``
    (bounded), never our own framing of it (its words are ours, not the failure's).
    """
    fields = {
        "message": _bounded(said) if said else None,
        "status": status,
        "headers": headers,
        "type": kind,
        "code": code,
    }
    evidence = {k: v for k, v in fields.items() if v is not None}
    verdict = classify(evidence)
    return error_class_for(verdict.code)(
        message,
        status=status,
        retry_after=verdict.retry_after,
        provider=PROVIDER,
        model=model,
        request_id=request_id,
        rule=verdict.rule,
        body=body,
    )


def error_from_response(
    *, status: int, headers: Mapping[str, str], body: bytes, model: str | None
) -> LlmError:
    """The typed error for an HTTP error response from Mistral.

    Never raises: any status, any headers and any body (JSON of any shape, text,
    HTML, empty, invalid UTF-8) give an error. ``headers`` may be any mapping
    (``httpx.Headers`` or a plain ``dict``); names are matched case-insensitively.

    .. versionadded:: 0.1.0
    """
    lowered = {str(key).lower(): str(value) for key, value in headers.items()}
    text = body.decode("utf-8", "replace")
    parsed = _json_or_none(text)
    fields: Mapping[str, Any] = parsed if isinstance(parsed, Mapping) else {}
    kind = _wire_text(fields.get("type"))
    code = _wire_text(fields.get("code"))
    extracted = _message_of(fields) if fields else None
    if extracted is None and parsed is None and text.strip():
        extracted = text  # shape I is empty; anything else that is not JSON is shown as text
    request_id = next((lowered[name] for name in _REQUEST_ID_HEADERS if lowered.get(name)), None)
    if request_id is None:
        request_id = _wire_text(fields.get("request_id"))
    message = _describe(f"Mistral HTTP {status} {_status_phrase(status)}", kind, code, extracted)
    return _classified(
        message,
        extracted,
        status=status,
        kind=kind,
        code=code,
        headers=lowered,
        model=model,
        request_id=request_id,
        body=_scrub(parsed) if parsed is not None else (text or None),
    )


def is_error_object(payload: object) -> bool:
    """Whether a decoded ``data:`` object (or a 200 JSON body) is an error, not a chunk.

    Mistral's own shape says ``"object": "error"`` (seen as ``"Error"`` too); an
    OpenAI-style envelope carries a non-empty ``error``.
    """
    if not isinstance(payload, Mapping):
        return False
    marker = payload.get("object")
    return bool(payload.get("error")) or (isinstance(marker, str) and marker.lower() == "error")


def error_from_payload(
    payload: Mapping[str, Any], *, model: str | None = None, position: int | None = None
) -> LlmError:
    """The typed error for an error object that arrived inside a 200 stream.

    ``payload`` is the decoded ``data:`` object: Mistral's own shape
    (``{"object": "error", "message": …, "type": …, "code": …, "raw_status_code": …}``)
    or an OpenAI-style envelope (``{"error": {…}}``). Its status is the
    ``raw_status_code`` it reports, if any, never the stream's 200.

    .. versionadded:: 0.1.0
    """
    inner = payload.get("error")
    fields: Mapping[str, Any] = inner if isinstance(inner, Mapping) else payload
    kind = _wire_text(fields.get("type"))
    code = _wire_text(fields.get("code"))
    raw_status = fields.get("raw_status_code", payload.get("raw_status_code"))
    status = (
        raw_status if isinstance(raw_status, int) and not isinstance(raw_status, bool) else None
    )
    where = f" at chunk {position}" if position is not None else ""
    said = _message_of(payload)
    message = _describe(f"Mistral stream error{where}", kind, code, said)
    return _classified(
        message,
        said,
        status=status,
        kind=kind,
        code=code,
        model=model,
        request_id=_wire_text(fields.get("request_id")),
        body=_scrub(payload),
    )


# --- protocol errors -------------------------------------------------------------------


def protocol_error(message: str, *, position: int, model: str | None) -> ProviderError:
    """A stream the adapter cannot follow: ``PROVIDER_ERROR``, naming the chunk number.

    .. versionadded:: 0.1.0
    """
    return ProviderError(
        f"chunk {position}: {message}", provider=PROVIDER, model=model, rule="adapter.protocol"
    )


def _path(loc: tuple[int | str, ...]) -> str:
    """A readable field path; pydantic's union-member labels (``list[…]``, ``str``) are dropped."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "[" in part or part in {"str", "int", "function-after", "function-wrap"}:
            continue
        else:
            out += f".{part}" if out else part
    return out


def malformed_chunk_error(
    error: ValidationError, *, position: int, model: str | None
) -> ProviderError:
    """A ``data:`` payload that is not JSON or not a chunk, naming the deepest bad field.

    The payload itself is never quoted (the wire models hide input in their errors).

    .. versionadded:: 0.1.0
    """
    problems = error.errors(include_url=False, include_input=False, include_context=False)
    if not problems:  # pragma: no cover - pydantic never raises an empty ValidationError
        return protocol_error("not a valid Mistral chunk", position=position, model=model)
    worst = max(problems, key=lambda problem: len(problem["loc"]))
    where = f"{quote_name(_path(worst['loc']))}: " if worst["loc"] else ""
    more = len(problems) - 1
    suffix = f" (and {more} more error{'s' if more > 1 else ''})" if more else ""
    return protocol_error(
        f"not a valid Mistral chunk: {where}{worst['msg']}{suffix}", position=position, model=model
    )
