"""A typed error taxonomy for LLM calls and a classifier that routes any failure to it."""

from llm_errors._classification import Classification, Layer
from llm_errors._classify import classify
from llm_errors._redact import redact
from llm_errors._taxonomy import (
    DEFAULT_RETRYABLE_CODES,
    AbortedError,
    AuthError,
    ContentFilterError,
    ContextOverflowError,
    ErrorCode,
    InvalidRequestError,
    LlmError,
    LlmTimeoutError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ServerError,
    TransportError,
    error_class_for,
    make_error,
)

__all__ = [
    "DEFAULT_RETRYABLE_CODES",
    "AbortedError",
    "AuthError",
    "Classification",
    "ContentFilterError",
    "ContextOverflowError",
    "ErrorCode",
    "InvalidRequestError",
    "Layer",
    "LlmError",
    "LlmTimeoutError",
    "ProviderError",
    "QuotaExceededError",
    "RateLimitError",
    "ServerError",
    "TransportError",
    "classify",
    "error_class_for",
    "make_error",
    "redact",
]
