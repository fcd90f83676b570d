"""Collect evidence from exceptions, error bodies and log records, by duck typing.

No library is imported: an SDK error is read through the attributes such errors
carry (``status_code``/``status``/``response.status_code``, ``body``, ``headers``,
``response.headers``, ``message``), a parsed JSON body or log record through the
keys providers use (``status``, ``error.type``, ``error.code``, ``message``,
``detail``, ``headers``, nested ``error`` objects, AWS ``__type``/``Error.Code``,
Google ``status``/``details``). Every attribute access is guarded: a property that
raises is skipped, never propagated.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from llm_errors._retry_after import parse_duration, parse_reset_time
from llm_errors._rules.exceptions import qualified_names

__all__ = [
    "MAX_VALUES",
    "Evidence",
    "explicit_links",
    "gather_mapping",
    "gather_object",
    "gathered",
    "walk_exceptions",
]

_MAX_TEXT: Final = 32_768
_MAX_TOTAL_TEXT: Final = 131_072
_MAX_DEPTH: Final = 8
#: Values one input is read for at most (every value counts, evidence or not).
MAX_VALUES: Final = 2_000
_MAX_NODES: Final = 64
_MAX_JSON: Final = 1_000_000
_MIN_STATUS, _MAX_STATUS = 100, 599

_STATUS_KEYS: Final = frozenset(
    {"status", "statuscode", "httpstatus", "httpstatuscode", "rawstatuscode", "httpcode", "code"}
)
_ID_KEYS: Final = frozenset(
    {
        "type",
        "code",
        "errortype",
        "errorcode",
        "reason",
        "status",
        "name",
        "errorname",
        "finishreason",
        "stopreason",
        "blockreason",
    }
)
_TEXT_KEYS: Final = frozenset(
    {
        "message",
        "msg",
        "detail",
        "details",
        "error",
        "description",
        "title",
        "exception",
        "exc",
        "excinfo",
        "traceback",
        "stack",
        "stacktrace",
        "body",
        "text",
        "event",
        "log",
        "reason",
        "cause",
        "status",
        "raw",
    }
)
_TEXT_KEY_PARTS: Final = ("error", "err", "message", "msg", "exception", "reason", "detail")
_HEADER_KEYS: Final = frozenset({"headers", "responseheaders"})
_RETRY_KEYS: Final = frozenset({"retryafter", "retryafterms", "retrydelay"})
#: Fields that state when a limit resets (OpenAI's usage-limit body: ``"resets_at"``;
#: Google Cloud Code's ``"quotaResetTimeStamp"``, liuw1535/antigravity2api-nodejs#44).
_RESET_KEYS: Final = frozenset({"resetsat", "resetat", "quotaresettimestamp"})
_TIME_KEYS: Final = _RETRY_KEYS | _RESET_KEYS


@dataclass
class Evidence:
    """Everything one input said, in the order it was found (outermost first)."""

    statuses: list[int] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    headers: list[Mapping[str, str]] = field(default_factory=list)
    retry_hints: list[float] = field(default_factory=list)
    reset_times: list[float] = field(default_factory=list)
    _text_size: int = 0
    _values: int = 0

    def add_text(self, text: str) -> None:
        """Record a message (bounded; empty and repeated texts are skipped)."""
        text = text.strip()
        if not text or self._text_size >= _MAX_TOTAL_TEXT or text in self.texts:
            return
        text = text[:_MAX_TEXT]
        self.texts.append(text)
        self._text_size += len(text)

    def add_status(self, value: object) -> bool:
        """Record an HTTP status given as an int or a numeric string; say if it was one."""
        status: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            status = value
        elif isinstance(value, str) and re.fullmatch(r"[0-9]{3}", value.strip()):
            status = int(value.strip())
        if status is None or not _MIN_STATUS <= status <= _MAX_STATUS:
            return False
        self.statuses.append(status)
        return True

    def text(self) -> str:
        """All messages, one per line."""
        return "\n".join(self.texts)


def _safe_get(obj: object, name: str) -> object:
    try:
        return getattr(obj, name, None)
    except Exception:  # noqa: BLE001 - a property that raises is no evidence
        return None


def _norm_key(key: object) -> str:
    return str(key).lower().replace("_", "").replace("-", "").replace("@", "")


def _looks_like_json(text: str) -> bool:
    stripped = text.strip()
    return (
        len(stripped) < _MAX_JSON
        and stripped[:1] in "{["
        and stripped[-1:] in "}]"
        and len(stripped) > 1
    )


def _parse_json(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _retry_hint(key: str, value: object, evidence: Evidence) -> None:
    """A wait from a ``retry_after``/``retry_after_ms``/``retry_delay`` field, if finite."""
    unit = 1000.0 if key == "retryafterms" else 1.0
    seconds: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value) / unit
    elif isinstance(value, str):
        seconds = parse_duration(value)
        if seconds is None:
            try:
                seconds = float(value) / unit  # a number as text, in the field's unit
            except ValueError:
                seconds = None
        elif key == "retryafterms":  # a duration with its own unit under a milliseconds key
            seconds = None
    if seconds is not None and math.isfinite(seconds) and seconds >= 0:
        evidence.retry_hints.append(seconds)


def _time_hint(key: str, value: object, evidence: Evidence) -> None:
    """A wait (``retry_after``...) or a reset instant (``resets_at``...) from a field."""
    if key in _RETRY_KEYS:
        _retry_hint(key, value, evidence)
        return
    reset = parse_reset_time(value)
    if reset is not None:
        evidence.reset_times.append(reset)


def _string_value(key: str, value: str, evidence: Evidence, depth: int) -> None:
    if key in _STATUS_KEYS and evidence.add_status(value):
        return
    textual = key in _TEXT_KEYS or any(part in key for part in _TEXT_KEY_PARTS)
    if textual and _looks_like_json(value):
        parsed = _parse_json(value)
        if isinstance(parsed, Mapping | list):
            _gather_value(key, parsed, evidence, depth + 1)
            return
    if key in _ID_KEYS and not any(ch.isspace() for ch in value.strip()):
        evidence.identifiers.append(value)
        return
    if textual:
        evidence.add_text(value)


def _gather_value(key: str, value: object, evidence: Evidence, depth: int) -> None:
    evidence._values += 1  # noqa: SLF001 - the evidence's own bound
    if depth > _MAX_DEPTH or evidence._values > MAX_VALUES:  # noqa: SLF001
        return
    if key in _TIME_KEYS:
        _time_hint(key, value, evidence)
        return
    if isinstance(value, Mapping):
        if key in _HEADER_KEYS:
            evidence.headers.append(value)
            return
        gather_mapping(value, evidence, depth + 1)
    elif isinstance(value, str):
        _string_value(key, value, evidence, depth)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if key in _STATUS_KEYS and evidence.add_status(value):
            return
        if key in _ID_KEYS and isinstance(value, int):
            evidence.identifiers.append(str(value))
    elif isinstance(value, list | tuple):
        for item in value[:50]:
            _gather_value(key, item, evidence, depth + 1)


_GATHERED_KEYS: Final = _STATUS_KEYS | _ID_KEYS | _TEXT_KEYS | _HEADER_KEYS | _TIME_KEYS


def gathered(key: object) -> bool:
    """Whether a value that is not a mapping or list under ``key`` can be evidence.

    :func:`gather_mapping` reads such a value only under a status, identifier, text,
    header or wait key; under any other key (``timestamp``, ``pid``) it is ignored,
    so a mapping's verdict does not depend on it.
    """
    norm = _norm_key(key)
    return norm in _GATHERED_KEYS or any(part in norm for part in _TEXT_KEY_PARTS)


def gather_mapping(mapping: Mapping[object, object], evidence: Evidence, depth: int = 0) -> None:
    """Collect statuses, error types/codes, messages and headers from a body or log record."""
    if depth > _MAX_DEPTH:
        return
    try:
        items = list(mapping.items())
    except Exception:  # noqa: BLE001 - a broken mapping is no evidence
        return
    # Statuses and identifiers of this level first, then nested objects, so the
    # outermost status is found first.
    nested: list[tuple[str, object]] = []
    for raw_key, value in items:
        key = _norm_key(raw_key)
        if isinstance(value, Mapping | list | tuple) and key not in _HEADER_KEYS:
            nested.append((key, value))
        else:
            _gather_value(key, value, evidence, depth)
    for key, value in nested:
        _gather_value(key, value, evidence, depth)


def _grpc_call(obj: object, name: str) -> object:
    method = _safe_get(obj, name)
    if not callable(method):
        return None
    try:
        return method()
    except Exception:  # noqa: BLE001 - a gRPC accessor that fails is no evidence
        return None


def _is_grpc(obj: object) -> bool:
    return any(
        name.startswith("grpc.") and name.endswith("RpcError")
        for cls in type(obj).__mro__
        for name in qualified_names(cls)
    )


def _gather_body(value: object, evidence: Evidence) -> None:
    if isinstance(value, bytes | bytearray):
        value = bytes(value[:_MAX_JSON]).decode("utf-8", errors="replace")
    if isinstance(value, str):
        parsed = _parse_json(value) if _looks_like_json(value) else None
        if isinstance(parsed, Mapping):
            gather_mapping(parsed, evidence)
        else:
            evidence.add_text(value)
    elif isinstance(value, Mapping):
        gather_mapping(value, evidence)
    elif isinstance(value, list):
        _gather_value("details", value, evidence, 1)


def gather_object(obj: object, evidence: Evidence) -> bool:
    """Collect evidence from an exception or response-like object; say if it had a status."""
    had_status = _gather_statuses(obj, evidence)
    response = _safe_get(obj, "response")
    if isinstance(response, Mapping):  # botocore ClientError.response
        before = len(evidence.statuses)
        gather_mapping(response, evidence)
        had_status = had_status or len(evidence.statuses) > before
    elif response is not None:
        had_status = _gather_response(response, evidence) or had_status
    headers = _safe_get(obj, "headers")
    if isinstance(headers, Mapping):
        evidence.headers.append(headers)
    for name in ("body", "details", "error"):
        _gather_body(_safe_get(obj, name), evidence)
    if _is_grpc(obj):
        _gather_grpc(obj, evidence)
    message = _safe_get(obj, "message")
    if isinstance(message, str):
        evidence.add_text(message)
    return had_status


def _gather_statuses(obj: object, evidence: Evidence) -> bool:
    """The object's own status attributes (a string ``status`` is an identifier)."""
    had_status = False
    for name in ("status_code", "http_status", "status", "code"):
        value = _safe_get(obj, name)
        if name == "code" and not isinstance(value, int):
            continue
        if evidence.add_status(value):
            had_status = True
        elif name == "status" and isinstance(value, str):
            evidence.identifiers.append(value)
    return had_status


def _gather_response(response: object, evidence: Evidence) -> bool:
    """A response object's status, headers and already-read body; say if it had a status."""
    had_status = any(
        evidence.add_status(_safe_get(response, name)) for name in ("status_code", "status")
    )
    headers = _safe_get(response, "headers")
    if isinstance(headers, Mapping):
        evidence.headers.append(headers)
    # The body only if it is already in memory: httpx and requests keep a read body
    # in ``_content``; touching ``.content``/``.text`` could start network I/O.
    content = _safe_get(response, "_content")
    if isinstance(content, bytes) and content:
        _gather_body(content, evidence)
    return had_status


def _gather_grpc(obj: object, evidence: Evidence) -> None:
    """A gRPC error's ``code().name`` and ``details()``."""
    code_name = _safe_get(_grpc_call(obj, "code"), "name")
    if isinstance(code_name, str):
        evidence.identifiers.append(code_name)
    details = _grpc_call(obj, "details")
    if isinstance(details, str):
        evidence.add_text(details)


def _linked(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions ``exc`` points at: cause, context, group members, wrapped errors."""
    cause = exc.__cause__
    if cause is not None:
        yield cause
    context = exc.__context__
    if context is not None and not exc.__suppress_context__:
        yield context
    members = _safe_get(exc, "exceptions")
    if isinstance(exc, BaseExceptionGroup) and isinstance(members, Sequence):
        yield from (m for m in members if isinstance(m, BaseException))
    for arg in exc.args[:4]:
        if isinstance(arg, BaseException):
            yield arg
    for name in ("reason", "cause"):  # urllib3 MaxRetryError.reason, api_core RetryError.cause
        value = _safe_get(exc, name)
        if isinstance(value, BaseException):
            yield value
    attempt = _safe_get(exc, "last_attempt")  # tenacity.RetryError
    if attempt is not None:
        exception = _grpc_call(attempt, "exception")
        if isinstance(exception, BaseException):
            yield exception


def explicit_links(exc: BaseException) -> Iterator[BaseException]:
    """What :func:`_linked` gives, less an implicit ``__context__`` that is not the cause.

    ``raise … from err`` says why the outer error happened; an exception raised while
    handling another (``__context__`` alone) is a later, different failure, so what the
    final exception says about itself is read first (docs/errors.md, policy explicit-cause).
    """
    context = None if exc.__context__ is exc.__cause__ else exc.__context__
    for node in _linked(exc):
        if node is not context:
            yield node


def walk_exceptions(
    exc: BaseException, *, linked: Callable[[BaseException], Iterator[BaseException]] = _linked
) -> list[BaseException]:
    """``exc`` and everything it links to, breadth-first (outermost first), cycle-safe."""
    seen: set[int] = {id(exc)}
    order: list[BaseException] = []
    queue: deque[BaseException] = deque([exc])
    while queue and len(order) < _MAX_NODES:
        node = queue.popleft()
        order.append(node)
        try:
            neighbours = list(linked(node))
        except Exception:  # noqa: BLE001 - a broken exception object links to nothing
            neighbours = []
        for neighbour in neighbours:
            if id(neighbour) not in seen:
                seen.add(id(neighbour))
                queue.append(neighbour)
    return order
