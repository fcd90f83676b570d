"""A Mistral chat-completions streaming adapter onto the pi content model.

This package holds the client surface: the adapters, their options, their errors and
the model catalog. The content model the adapter speaks (messages, content blocks,
streaming events, the model descriptor) lives in :mod:`adapter.pi`; the fake Mistral
server to test against lives in :mod:`adapter.testing`.
"""

import typing
import warnings

from adapter._mistral.async_client import AsyncMistralAdapter
from adapter._mistral.catalog import (
    CATALOG_DATE,
    UnknownModelError,
    calculate_cost,
    get_model,
    list_models,
)
from adapter._mistral.client import MAX_RESUMES, Limits, MissingApiKeyError, Timeouts
from adapter._mistral.errors import UnmappableChunkError, partial_of
from adapter._mistral.request import InvalidTranscriptError, UnsupportedContentError
from adapter._mistral.resume import ResumeRefusal, resume_refusal
from adapter._mistral.streams import AsyncMessageStream, MessageStream
from adapter._mistral.sync_client import MistralAdapter
from adapter.pi._context import (
    Context,
    ForcedTool,
    JsonSchemaFormat,
    StreamOptions,
    Tool,
    ToolChoice,
)
from llm_errors._version import module_attribute as _module_attribute

__all__ = [
    "CATALOG_DATE",
    "MAX_RESUMES",
    "AsyncMessageStream",
    "AsyncMistralAdapter",
    "Context",
    "ForcedTool",
    "InvalidTranscriptError",
    "JsonSchemaFormat",
    "Limits",
    "MessageStream",
    "MissingApiKeyError",
    "MistralAdapter",
    "ResumeRefusal",
    "StreamOptions",
    "Timeouts",
    "Tool",
    "ToolChoice",
    "UnknownModelError",
    "UnmappableChunkError",
    "UnsupportedContentError",
    "calculate_cost",
    "get_model",
    "list_models",
    "partial_of",
    "resume_refusal",
]

if typing.TYPE_CHECKING:
    #: The installed ``llm-resilience`` version (``0+unknown`` from a source tree never installed).
    #:
    #: .. versionadded:: 0.2.0
    __version__: str
    #: The blocking adapter's name before 0.3.0.
    #:
    #: .. deprecated:: 0.3.0 Use :class:`MistralAdapter`; removed in 0.4.0.
    MistralAdapterSync = MistralAdapter
else:

    def __getattr__(name: str) -> object:  # PEP 562: read when first used
        if name == "MistralAdapterSync":
            warnings.warn(
                "adapter.MistralAdapterSync is deprecated since 0.3.0 and goes in 0.4.0: the "
                "blocking adapter is adapter.MistralAdapter (the asyncio one is "
                "adapter.AsyncMistralAdapter)",
                DeprecationWarning,
                stacklevel=2,
            )
            return MistralAdapter
        return _module_attribute(__name__, name)
