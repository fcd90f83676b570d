"""The classifier (first cut: the typed layer only; the other layers are being built)."""

from __future__ import annotations

from llm_errors._classification import Classification, Layer
from llm_errors._taxonomy import DEFAULT_RETRYABLE_CODES, ErrorCode, LlmError

__all__ = ["classify"]


def classify(obj: object) -> Classification:
    """Route ``obj`` (an exception, a message or an error body) to a code; never raises."""
    if isinstance(obj, LlmError):
        return Classification(
            code=obj.code,
            retryable=obj.code in DEFAULT_RETRYABLE_CODES,
            retry_after=obj.retry_after,
            status=obj.status,
            rule=obj.rule or "typed",
            layer=Layer.TYPED,
        )
    return Classification(code=ErrorCode.PROVIDER_ERROR, retryable=False)
