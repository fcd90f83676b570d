"""The classifier's verdict: a small frozen record, shared by every layer."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from llm_errors._taxonomy import ErrorCode

__all__ = ["Classification", "Layer"]


class Layer(enum.StrEnum):
    """Which kind of evidence decided, most reliable first."""

    TYPED = "typed"
    """Our own :class:`~llm_errors.LlmError` carried its code."""
    EXCEPTION = "exception"
    """An exception type in the ``__cause__``/``__context__`` chain."""
    STATUS = "status"
    """An HTTP status, a provider error body's ``type``/``code``, or headers."""
    TEXT = "text"
    """The flattened message text, matched against the pattern table."""
    WORDS = "words"
    """No rule decided; the words of the text did (weights fitted on the corpus).

    .. versionadded:: 0.3.0
    """
    FALLBACK = "fallback"
    """Nothing matched: ``PROVIDER_ERROR``."""


@dataclass(frozen=True, slots=True)
class Classification:
    """Where a failure is routed, and why.

    Attributes:
        code: The routed code.
        retryable: Whether ``code`` is retryable under the classifier's retryable set.
        retry_after: Seconds the server asked to wait, when it said so.
        status: The HTTP status found in the evidence, if any.
        rule: The id of the rule that decided (``"fallback"`` when none did;
            ``"words.<CODE>"`` when the words layer did).
        layer: The kind of evidence that decided.
        resets_at: When the limit resets, as epoch seconds, where the evidence of a
            rate limit or a quota states an instant (a ``resets_at`` field, "resets at
            2026-09-01T00:00:00Z", our own error's ``resets_at``). A stated duration
            is ``retry_after``'s; nothing here depends on the current time.

    .. versionchanged:: 0.3.0 ``resets_at``.
    """

    code: ErrorCode
    retryable: bool
    retry_after: float | None = None
    status: int | None = None
    rule: str = "fallback"
    layer: Layer = Layer.FALLBACK
    resets_at: float | None = None
