"""The error taxonomy: codes and the typed exceptions that carry them.

Every failure of an LLM call is routed to exactly one :class:`ErrorCode`.
The codes fall into three groups::

    ErrorCode
    ├── retryable by default (DEFAULT_RETRYABLE_CODES)
    │   ├── TRANSPORT         connection refused/reset/dropped, TLS or DNS failure,
    │   │                     a stream that ended before its terminal event
    │   ├── TIMEOUT           connect/read/total timeout, HTTP 408 and 504
    │   ├── RATE_LIMIT        HTTP 429 throttling, overload that says "try later" (529)
    │   └── SERVER            HTTP 500/502/503, provider internal errors, failed gateways
    ├── permanent (never retried by default)
    │   ├── AUTH              401/403, invalid or revoked key
    │   ├── INVALID_REQUEST   400/404/422: malformed request, unknown model, bad tool schema
    │   ├── CONTEXT_OVERFLOW  the request can never fit the model's context window
    │   ├── QUOTA_EXCEEDED    billing or quota exhausted: looks like a 429 but will not pass
    │   ├── CONTENT_FILTER    safety or moderation refusal
    │   ├── ABORTED           the caller cancelled
    │   └── PROVIDER_ERROR    the catch-all for genuinely unclassified failures
    └── caller bugs: not codes at all; raised as TypeError/ValueError outside this tree

The exception hierarchy is deliberately flat: :class:`LlmError` carries a ``code`` and
there is one direct subclass per code, so callers can ``except RateLimitError`` while
retry routing works on codes, never on ``isinstance`` ladders::

    Exception
    └── LlmError
        ├── TransportError       ├── AuthError
        ├── LlmTimeoutError      ├── InvalidRequestError
        ├── RateLimitError       ├── ContextOverflowError
        ├── ServerError          ├── QuotaExceededError
        └── ProviderError        ├── ContentFilterError
                                 └── AbortedError

``PROVIDER_ERROR`` stays non-retryable on purpose: widening it would retry failures
that can never succeed. The fix for a recoverable failure that lands there is to
classify it, not to blur the bucket.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from llm_errors._redact import redact

__all__ = [
    "DEFAULT_RETRYABLE_CODES",
    "AbortedError",
    "AuthError",
    "ContentFilterError",
    "ContextOverflowError",
    "ErrorCode",
    "InvalidRequestError",
    "LlmError",
    "LlmTimeoutError",
    "ProviderError",
    "QuotaExceededError",
    "RateLimitError",
    "ServerError",
    "TransportError",
    "error_class_for",
    "make_error",
]

#: Longest body excerpt kept on an error, in characters (after redaction).
BODY_EXCERPT_LIMIT = 2048


class ErrorCode(enum.StrEnum):
    """Where a failure is routed; the value equals the name."""

    TRANSPORT = "TRANSPORT"
    TIMEOUT = "TIMEOUT"
    RATE_LIMIT = "RATE_LIMIT"
    SERVER = "SERVER"
    PROVIDER_ERROR = "PROVIDER_ERROR"
    AUTH = "AUTH"
    INVALID_REQUEST = "INVALID_REQUEST"
    CONTEXT_OVERFLOW = "CONTEXT_OVERFLOW"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    CONTENT_FILTER = "CONTENT_FILTER"
    ABORTED = "ABORTED"


#: The codes a retry policy retries unless told otherwise.
DEFAULT_RETRYABLE_CODES: frozenset[ErrorCode] = frozenset(
    {ErrorCode.RATE_LIMIT, ErrorCode.SERVER, ErrorCode.TIMEOUT, ErrorCode.TRANSPORT}
)


def _excerpt(body: object) -> str | None:
    """Bound and redact a response body so it can travel on an error safely."""
    if body is None:
        return None
    if isinstance(body, bytes | bytearray):
        text = bytes(body).decode("utf-8", errors="replace")
    elif isinstance(body, str):
        text = body
    else:
        try:
            text = json.dumps(body, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(body)
    text = redact(text)
    if len(text) > BODY_EXCERPT_LIMIT:
        text = f"{text[:BODY_EXCERPT_LIMIT]}…[{len(text) - BODY_EXCERPT_LIMIT} more chars]"
    return text


class LlmError(Exception):
    """A failed LLM call, routed to an :class:`ErrorCode`.

    Context is keyword-only. The message and body are redacted on construction
    (API keys, data URLs and base64 runs are replaced), so ``str()``, ``repr()``,
    pickles and log records never carry them.

    Args:
        message: What happened, naming the offending type, field or status.
        code: The code; a subclass fixes it, and passing a different one is a bug.
        status: The HTTP status, when there was one.
        retry_after: Seconds the server asked us to wait.
        provider: The provider name, e.g. ``"mistral"``.
        model: The model id the call used.
        request_id: The provider's request or correlation id.
        rule: Which classifier rule decided the code.
        body: The response body (any shape); kept as a bounded, redacted excerpt.
        resets_at: When the limit resets, as epoch seconds, where that instant is
            known: the server stated it, or a fleet parked the scope until then.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.3.0 ``resets_at``.
    """

    #: The code instances of this class carry by default.
    default_code: ClassVar[ErrorCode] = ErrorCode.PROVIDER_ERROR

    code: ErrorCode
    message: str
    status: int | None
    retry_after: float | None
    provider: str | None
    model: str | None
    request_id: str | None
    rule: str | None
    body: str | None
    resets_at: float | None

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode | str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
        provider: str | None = None,
        model: str | None = None,
        request_id: str | None = None,
        rule: str | None = None,
        body: object = None,
        resets_at: float | None = None,
    ) -> None:
        fixed = type(self) is not LlmError
        if code is None:
            resolved = self.default_code
        else:
            resolved = ErrorCode(code)
            if fixed and resolved is not self.default_code:
                raise ValueError(
                    f"{type(self).__name__} always carries code {self.default_code}, not {resolved}"
                )
        self.code = resolved
        self.message = redact(str(message))
        self.status = status
        self.retry_after = retry_after
        self.provider = provider
        self.model = model
        self.request_id = request_id
        self.rule = rule
        self.body = _excerpt(body)
        self.resets_at = resets_at
        super().__init__(self.message)

    @property
    def retryable(self) -> bool:
        """Whether the code is in :data:`DEFAULT_RETRYABLE_CODES`."""
        return self.code in DEFAULT_RETRYABLE_CODES

    def context(self) -> dict[str, Any]:
        """The keyword-only context, for logging and for rebuilding the error."""
        return {
            "code": self.code,
            "status": self.status,
            "retry_after": self.retry_after,
            "provider": self.provider,
            "model": self.model,
            "request_id": self.request_id,
            "rule": self.rule,
            "body": self.body,
            "resets_at": self.resets_at,
        }

    def with_context(self, **changes: Any) -> Self:
        """A copy with some context replaced.

        The class, message, notes and any attributes callers attached (such as the
        adapter's ``partial``) are kept; the cause chain is the caller's to set with
        ``raise … from``.
        """
        ctx = self.context() | changes
        if type(self) is not LlmError:
            ctx.pop("code", None)
        copy = type(self)(self.message, **ctx)
        own = set(copy.__dict__)
        copy.__dict__.update((k, v) for k, v in self.__dict__.items() if k not in own)
        return copy

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception pickling replays ``args`` positionally, which loses keyword-only
        # context; rebuild through the constructor instead and keep ``__dict__``
        # (notes, attributes added by callers) as state.
        return (_rebuild, (type(self), self.message, self.context()), dict(self.__dict__))

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        parts = [repr(self.message)]
        if type(self) is LlmError:
            parts.append(f"code={self.code.value!r}")
        for name in (
            "status",
            "retry_after",
            "resets_at",
            "provider",
            "model",
            "request_id",
            "rule",
        ):
            value = getattr(self, name)
            if value is not None:
                parts.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


def _rebuild(cls: type[LlmError], message: str, context: Mapping[str, Any]) -> LlmError:
    ctx = dict(context)
    if cls is not LlmError:
        ctx.pop("code", None)
    return cls(message, **ctx)


class TransportError(LlmError):
    """The connection failed or dropped, or the stream ended before its terminal event."""

    default_code = ErrorCode.TRANSPORT


class LlmTimeoutError(LlmError):
    """A connect, read or total timeout (named so it does not shadow ``TimeoutError``)."""

    default_code = ErrorCode.TIMEOUT


class RateLimitError(LlmError):
    """Throttled, or the provider is overloaded and says to try later."""

    default_code = ErrorCode.RATE_LIMIT


class ServerError(LlmError):
    """The provider or a gateway in front of it failed (500/502/503)."""

    default_code = ErrorCode.SERVER


class ProviderError(LlmError):
    """The catch-all for failures no rule could classify; not retryable."""

    default_code = ErrorCode.PROVIDER_ERROR


class AuthError(LlmError):
    """The key is missing, invalid or not allowed to do this (401/403)."""

    default_code = ErrorCode.AUTH


class InvalidRequestError(LlmError):
    """The request is malformed: bad field, unknown model, bad tool schema."""

    default_code = ErrorCode.INVALID_REQUEST


class ContextOverflowError(LlmError):
    """The request can never fit the model's context window."""

    default_code = ErrorCode.CONTEXT_OVERFLOW


class QuotaExceededError(LlmError):
    """Billing or quota is exhausted; waiting minutes will not help."""

    default_code = ErrorCode.QUOTA_EXCEEDED


class ContentFilterError(LlmError):
    """A safety or moderation system refused the request or the output."""

    default_code = ErrorCode.CONTENT_FILTER


class AbortedError(LlmError):
    """The caller cancelled the call."""

    default_code = ErrorCode.ABORTED


_CLASS_FOR_CODE: Mapping[ErrorCode, type[LlmError]] = {
    cls.default_code: cls
    for cls in (
        TransportError,
        LlmTimeoutError,
        RateLimitError,
        ServerError,
        ProviderError,
        AuthError,
        InvalidRequestError,
        ContextOverflowError,
        QuotaExceededError,
        ContentFilterError,
        AbortedError,
    )
}


def error_class_for(code: ErrorCode | str) -> type[LlmError]:
    """The :class:`LlmError` subclass that carries ``code``."""
    return _CLASS_FOR_CODE[ErrorCode(code)]


def make_error(code: ErrorCode | str, message: str, **context: Any) -> LlmError:
    """Build the subclass for ``code``, e.g. for ``raise make_error(c, msg) from exc``."""
    return error_class_for(code)(message, **context)
