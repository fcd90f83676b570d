"""A typed error taxonomy for LLM calls and a classifier that routes any failure to it."""

import typing

from llm_errors._batch import ClassificationColumns, classify_many
from llm_errors._classification import Classification, Layer
from llm_errors._classify import Classifier, Explanation, classify, explain
from llm_errors._redact import redact
from llm_errors._retry_after import daily_reset_from_text, parse_retry_after
from llm_errors._rules.builtin import RULES
from llm_errors._rules.reader import RulesFileError
from llm_errors._rules.rule import Example, Rule
from llm_errors._rules_file import load_rules, rules_from_toml
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
from llm_errors._version import module_attribute as _module_attribute

if typing.TYPE_CHECKING:
    #: The installed ``llm-resilience`` version (``0+unknown`` in a source tree never installed).
    __version__: str
else:

    def __getattr__(name: str) -> str:  # PEP 562: ``__version__`` is read when first used
        return _module_attribute(__name__, name)


__all__ = [
    "DEFAULT_RETRYABLE_CODES",
    "RULES",
    "AbortedError",
    "AuthError",
    "Classification",
    "ClassificationColumns",
    "Classifier",
    "ContentFilterError",
    "ContextOverflowError",
    "ErrorCode",
    "Example",
    "Explanation",
    "InvalidRequestError",
    "Layer",
    "LlmError",
    "LlmTimeoutError",
    "ProviderError",
    "QuotaExceededError",
    "RateLimitError",
    "Rule",
    "RulesFileError",
    "ServerError",
    "TransportError",
    "classify",
    "classify_many",
    "daily_reset_from_text",
    "error_class_for",
    "explain",
    "load_rules",
    "make_error",
    "parse_retry_after",
    "redact",
    "rules_from_toml",
]
