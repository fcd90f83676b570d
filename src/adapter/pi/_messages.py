"""pi transcript messages, discriminated by ``role``.

``AgentMessage`` is the union of all eleven roles. Parse untrusted data with
:func:`parse_agent_message` (or ``AGENT_MESSAGE_ADAPTER``): an unknown ``role`` is a
validation error that names the field and the value, never a silent fallback.

.. versionadded:: 0.1.0
"""
# ruff: noqa: N815  -- camelCase attribute names are pi's wire names, kept verbatim

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Field, TypeAdapter

from adapter.pi._content import (
    AssistantContent,
    Attribution,
    ImageContent,
    MessageContent,
    StopReason,
    Usage,
    UserContent,
)
from adapter.pi._record import Boolean, Integer, JsonObject, Number, OpenRecord

__all__ = [
    "AGENT_MESSAGE_ADAPTER",
    "AgentMessage",
    "AssistantMessage",
    "BashExecutionMessage",
    "BranchSummaryMessage",
    "CompactionSummaryMessage",
    "CustomMessage",
    "DeveloperMessage",
    "FileMentionItem",
    "FileMentionMessage",
    "HookMessage",
    "ParentIrc",
    "PythonExecutionMessage",
    "ToolResultMessage",
    "UserMessage",
    "parse_agent_message",
]


class ParentIrc(OpenRecord):
    """Parent-agent IRC message carried by a steer; render it instead of the model-facing `content` envelope."""  # noqa: E501  -- pi-ai's doc string, verbatim

    from_: str = Field(alias="from", description="Sending parent agent id.")
    body: str = Field(description="Message body as the parent wrote it.")


class UserMessage(OpenRecord):
    """A message from the user (or the host, on the user's behalf)."""

    role: Literal["user"] = "user"
    content: MessageContent
    parentIrc: ParentIrc | None = None
    synthetic: Boolean | None = None
    steering: Boolean | None = None
    liveSteered: Boolean | None = None
    historyRewriteAt: Number | None = None
    attribution: Attribution | None = None
    providerPayload: JsonObject | None = None
    timestamp: Number


class DeveloperMessage(OpenRecord):
    """A developer (system-level) instruction inside the transcript."""

    role: Literal["developer"] = "developer"
    content: MessageContent
    attribution: Attribution | None = None
    synthetic: Boolean | None = None
    userInitiated: Boolean | None = None
    providerPayload: JsonObject | None = None
    timestamp: Number


class AssistantMessage(OpenRecord):
    """One model turn: content blocks, usage and why it stopped.

    Mutable on purpose: the stream mapper grows one instance in place and puts the
    same object into every event's ``partial``.
    """

    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent]
    api: str
    provider: str
    model: str
    responseId: str | None = None
    upstreamProvider: str | None = None
    upstreamModel: str | None = None
    usage: Usage
    stopReason: StopReason
    errorMessage: str | None = None
    errorStatus: Integer | None = None
    errorId: Number | None = None
    providerPayload: JsonObject | None = None
    timestamp: Number
    duration: Number | None = None
    ttft: Number | None = None
    completedAt: Number | None = None


class ToolResultMessage(OpenRecord):
    """The result of one tool call, sent back to the model."""

    role: Literal["toolResult"] = "toolResult"
    toolCallId: str
    toolName: str
    content: list[UserContent]
    details: Any = None
    isError: Boolean
    attribution: Attribution | None = None
    prunedAt: Number | None = None
    useless: Boolean | None = None
    timestamp: Number


class BashExecutionMessage(OpenRecord):
    """A shell command the user ran, with its output."""

    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str
    exitCode: Integer | None = None
    cancelled: Boolean
    truncated: Boolean
    images: list[ImageContent] | None = None
    meta: JsonObject | None = None
    timestamp: Number
    excludeFromContext: Boolean | None = None


class PythonExecutionMessage(OpenRecord):
    """Python code the user ran, with its output."""

    role: Literal["pythonExecution"] = "pythonExecution"
    code: str
    output: str
    exitCode: Integer | None = None
    cancelled: Boolean
    truncated: Boolean
    meta: JsonObject | None = None
    timestamp: Number
    excludeFromContext: Boolean | None = None


class CustomMessage(OpenRecord):
    """An extension-defined message, tagged by ``customType``."""

    role: Literal["custom"] = "custom"
    customType: str
    content: MessageContent
    display: Boolean
    details: Any = None
    attribution: Attribution | None = None
    timestamp: Number


class HookMessage(OpenRecord):
    """A message injected by a hook, tagged by ``customType``."""

    role: Literal["hookMessage"] = "hookMessage"
    customType: str
    content: MessageContent
    display: Boolean
    details: Any = None
    attribution: Attribution | None = None
    timestamp: Number


class BranchSummaryMessage(OpenRecord):
    """A summary of a transcript branch that was left."""

    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    fromId: str
    timestamp: Number


class CompactionSummaryMessage(OpenRecord):
    """A summary that replaced older messages when the context was compacted."""

    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    shortSummary: str | None = None
    tokensBefore: Integer
    tokensAfter: Integer | None = None
    method: str | None = None
    providerPayload: JsonObject | None = None
    timestamp: Number


class FileMentionItem(OpenRecord):
    """One file the user mentioned, with its content or why it was skipped."""

    path: str
    content: str
    lineCount: Integer | None = None
    byteSize: Integer | None = None
    skippedReason: Literal["tooLarge", "binary"] | None = None
    image: ImageContent | None = None


class FileMentionMessage(OpenRecord):
    """Files the user mentioned, inlined into the transcript."""

    role: Literal["fileMention"] = "fileMention"
    files: list[FileMentionItem]
    timestamp: Number


#: A transcript message, discriminated by `role`.
AgentMessage: TypeAlias = Annotated[
    UserMessage
    | DeveloperMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | PythonExecutionMessage
    | CustomMessage
    | HookMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
    | FileMentionMessage,
    Field(discriminator="role", description="A transcript message, discriminated by `role`."),
]

#: Validates and dumps :data:`AgentMessage` (use ``validate_json`` on raw bytes).
AGENT_MESSAGE_ADAPTER: TypeAdapter[AgentMessage] = TypeAdapter(
    AgentMessage, config=ConfigDict(hide_input_in_errors=True)
)


def parse_agent_message(data: str | bytes | bytearray | Mapping[str, Any]) -> AgentMessage:
    """Parse one transcript message from JSON text or an already decoded object.

    Raises:
        pydantic.ValidationError: naming the field, e.g. an unknown ``role`` value.

    .. versionadded:: 0.1.0
    """
    if isinstance(data, str | bytes | bytearray):
        return AGENT_MESSAGE_ADAPTER.validate_json(data)
    return AGENT_MESSAGE_ADAPTER.validate_python(data)
