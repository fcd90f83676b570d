"""pi content blocks, usage and cost: the parts messages are built from.

Field names are the wire names of pi's content model (pi-ai's ``messageDefs``; see
``docs/models.md``), camelCase included, so a field reads the same here, in pi's TypeScript and in a
saved transcript. The one exception is ``from``, a Python keyword: the attribute
is ``from_`` and the wire key stays ``from``.

.. versionadded:: 0.1.0
"""
# ruff: noqa: N815  -- camelCase attribute names are pi's wire names, kept verbatim

from typing import Annotated, Literal, TypeAlias

from pydantic import ConfigDict, Field, TypeAdapter

from adapter.pi._record import Boolean, Integer, JsonObject, Number, OpenRecord

__all__ = [
    "ASSISTANT_CONTENT_ADAPTER",
    "USER_CONTENT_ADAPTER",
    "AnthropicServerToolContent",
    "AssistantContent",
    "Attribution",
    "FallbackContent",
    "ImageContent",
    "MessageContent",
    "RedactedThinkingContent",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "Usage",
    "UsageCost",
    "UserContent",
]

#: Who initiated a message, for billing and attribution.
Attribution: TypeAlias = Annotated[
    Literal["user", "agent"],
    Field(description="Who initiated a message, for billing and attribution."),
]
#: Why an assistant message ended.
StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]


class TextContent(OpenRecord):
    """A block of text."""

    type: Literal["text"] = "text"
    text: str
    textSignature: str | None = None


class ThinkingContent(OpenRecord):
    """The model's reasoning, as the provider returned it."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    thinkingSignature: str | None = None
    itemId: str | None = None
    narration: Boolean | None = Field(
        default=None,
        description=(
            "Prose the model addressed to the user, returned by the provider as thinking; "
            "present it as answer text."
        ),
    )


class RedactedThinkingContent(OpenRecord):
    """Reasoning the provider returned only in encrypted form."""

    type: Literal["redactedThinking"] = "redactedThinking"
    data: str


class ImageContent(OpenRecord):
    """Inline image; also the shape hosts send with prompts."""

    type: Literal["image"] = "image"
    data: str = Field(description="Base64-encoded image bytes.")
    mimeType: str
    detail: Literal["auto", "low", "high", "original"] | None = None
    url: str | None = None
    providerFile: JsonObject | None = None


class ToolCall(OpenRecord):
    """A tool call the model made; ``arguments`` is the parsed JSON object."""

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: JsonObject
    thoughtSignature: str | None = None
    intent: str | None = None
    rawBlock: str | None = None
    customWireName: str | None = None
    providerMetadata: JsonObject | None = None


class FallbackContent(OpenRecord):
    """Anthropic server-side fallback boundary marker; consumers other than Anthropic ignore it."""

    type: Literal["fallback"] = "fallback"
    from_: JsonObject = Field(alias="from")
    to: JsonObject


class AnthropicServerToolContent(OpenRecord):
    """An Anthropic server-side tool block, carried through unchanged."""

    type: Literal["anthropicServerTool"] = "anthropicServerTool"
    block: JsonObject


#: What a user (or a tool result) can send: text or an image.
UserContent: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]
#: Message content: plain text or content blocks.
MessageContent: TypeAlias = Annotated[
    str | list[UserContent],
    Field(description="Message content: plain text or content blocks."),
]
#: What an assistant message holds.
AssistantContent: TypeAlias = Annotated[
    TextContent
    | ThinkingContent
    | RedactedThinkingContent
    | FallbackContent
    | AnthropicServerToolContent
    | ImageContent
    | ToolCall,
    Field(discriminator="type"),
]

#: Validates and dumps one :data:`UserContent` block.
USER_CONTENT_ADAPTER: TypeAdapter[UserContent] = TypeAdapter(
    UserContent, config=ConfigDict(hide_input_in_errors=True)
)
#: Validates and dumps one :data:`AssistantContent` block.
ASSISTANT_CONTENT_ADAPTER: TypeAdapter[AssistantContent] = TypeAdapter(
    AssistantContent, config=ConfigDict(hide_input_in_errors=True)
)


class UsageCost(OpenRecord):
    """The USD cost of one call, split like :class:`Usage`."""

    input: Number
    output: Number
    cacheRead: Number
    cacheWrite: Number
    total: Number


class Usage(OpenRecord):
    """Token counts of one call and what they cost."""

    input: Integer
    output: Integer
    cacheRead: Integer
    cacheWrite: Integer
    totalTokens: Integer
    contextTokens: Integer | None = None
    premiumRequests: Number | None = None
    reasoningTokens: Integer | None = None
    orchestration: JsonObject | None = None
    cttl: JsonObject | None = None
    server: JsonObject | None = None
    credits: JsonObject | None = None
    cost: UsageCost
