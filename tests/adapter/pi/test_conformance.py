"""Conformance with pi's content model (seed 001): names, optionality, types, tags, docs.

``SEED`` is the seed's ``messageDefs``/``modelDefs`` object definitions, transcribed
verbatim (``JSON_OBJECT`` written as ``Record``). Each model's JSON Schema is rendered
back into the seed's notation and compared field by field, so a renamed field, a lost
``?``, or an ``int`` that became ``float`` fails here.
"""

import re
from typing import Any, get_args

import pytest
from pydantic import BaseModel, TypeAdapter

import adapter.pi
from adapter.pi import (
    AGENT_MESSAGE_ADAPTER,
    ASSISTANT_MESSAGE_EVENT_ADAPTER,
    AgentMessage,
    AssistantContent,
    AssistantMessageEvent,
    UserContent,
)

SEED: dict[str, dict[str, str]] = {
    "TextContent": {
        "type": "'text'",
        "text": "string",
        "textSignature?": "string",
    },
    "ThinkingContent": {
        "type": "'thinking'",
        "thinking": "string",
        "thinkingSignature?": "string",
        "itemId?": "string",
        "narration?": "boolean",
    },
    "RedactedThinkingContent": {
        "type": "'redactedThinking'",
        "data": "string",
    },
    "ImageContent": {
        "type": "'image'",
        "data": "string",
        "mimeType": "string",
        "detail?": "'auto' | 'low' | 'high' | 'original'",
        "url?": "string",
        "providerFile?": "Record",
    },
    "ToolCall": {
        "type": "'toolCall'",
        "id": "string",
        "name": "string",
        "arguments": "Record",
        "thoughtSignature?": "string",
        "intent?": "string",
        "rawBlock?": "string",
        "customWireName?": "string",
        "providerMetadata?": "Record",
    },
    "FallbackContent": {
        "type": "'fallback'",
        "from": "Record",
        "to": "Record",
    },
    "AnthropicServerToolContent": {
        "type": "'anthropicServerTool'",
        "block": "Record",
    },
    "UsageCost": {
        "input": "number",
        "output": "number",
        "cacheRead": "number",
        "cacheWrite": "number",
        "total": "number",
    },
    "Usage": {
        "input": "number.integer",
        "output": "number.integer",
        "cacheRead": "number.integer",
        "cacheWrite": "number.integer",
        "totalTokens": "number.integer",
        "contextTokens?": "number.integer",
        "premiumRequests?": "number",
        "reasoningTokens?": "number.integer",
        "orchestration?": "Record",
        "cttl?": "Record",
        "server?": "Record",
        "credits?": "Record",
        "cost": "UsageCost",
    },
    "ParentIrc": {
        "from": "string",
        "body": "string",
    },
    "UserMessage": {
        "role": "'user'",
        "content": "MessageContent",
        "parentIrc?": "ParentIrc",
        "synthetic?": "boolean",
        "steering?": "boolean",
        "liveSteered?": "boolean",
        "historyRewriteAt?": "number",
        "attribution?": "Attribution",
        "providerPayload?": "Record",
        "timestamp": "number",
    },
    "DeveloperMessage": {
        "role": "'developer'",
        "content": "MessageContent",
        "attribution?": "Attribution",
        "synthetic?": "boolean",
        "userInitiated?": "boolean",
        "providerPayload?": "Record",
        "timestamp": "number",
    },
    "AssistantMessage": {
        "role": "'assistant'",
        "content": "AssistantContent[]",
        "api": "string",
        "provider": "string",
        "model": "string",
        "responseId?": "string",
        "upstreamProvider?": "string",
        "upstreamModel?": "string",
        "usage": "Usage",
        "stopReason": "StopReason",
        "errorMessage?": "string",
        "errorStatus?": "number.integer",
        "errorId?": "number",
        "providerPayload?": "Record",
        "timestamp": "number",
        "duration?": "number",
        "ttft?": "number",
        "completedAt?": "number",
    },
    "ToolResultMessage": {
        "role": "'toolResult'",
        "toolCallId": "string",
        "toolName": "string",
        "content": "UserContent[]",
        "details?": "unknown",
        "isError": "boolean",
        "attribution?": "Attribution",
        "prunedAt?": "number",
        "useless?": "boolean",
        "timestamp": "number",
    },
    "BashExecutionMessage": {
        "role": "'bashExecution'",
        "command": "string",
        "output": "string",
        "exitCode?": "number.integer",
        "cancelled": "boolean",
        "truncated": "boolean",
        "images?": "ImageContent[]",
        "meta?": "Record",
        "timestamp": "number",
        "excludeFromContext?": "boolean",
    },
    "PythonExecutionMessage": {
        "role": "'pythonExecution'",
        "code": "string",
        "output": "string",
        "exitCode?": "number.integer",
        "cancelled": "boolean",
        "truncated": "boolean",
        "meta?": "Record",
        "timestamp": "number",
        "excludeFromContext?": "boolean",
    },
    "CustomMessage": {
        "role": "'custom'",
        "customType": "string",
        "content": "MessageContent",
        "display": "boolean",
        "details?": "unknown",
        "attribution?": "Attribution",
        "timestamp": "number",
    },
    "HookMessage": {
        "role": "'hookMessage'",
        "customType": "string",
        "content": "MessageContent",
        "display": "boolean",
        "details?": "unknown",
        "attribution?": "Attribution",
        "timestamp": "number",
    },
    "BranchSummaryMessage": {
        "role": "'branchSummary'",
        "summary": "string",
        "fromId": "string",
        "timestamp": "number",
    },
    "CompactionSummaryMessage": {
        "role": "'compactionSummary'",
        "summary": "string",
        "shortSummary?": "string",
        "tokensBefore": "number.integer",
        "tokensAfter?": "number.integer",
        "method?": "string",
        "providerPayload?": "Record",
        "timestamp": "number",
    },
    "FileMentionItem": {
        "path": "string",
        "content": "string",
        "lineCount?": "number.integer",
        "byteSize?": "number.integer",
        "skippedReason?": "'tooLarge' | 'binary'",
        "image?": "ImageContent",
    },
    "FileMentionMessage": {
        "role": "'fileMention'",
        "files": "FileMentionItem[]",
        "timestamp": "number",
    },
    "AssistantStartEvent": {
        "type": "'start'",
        "partial": "AssistantMessage",
    },
    "AssistantTextStartEvent": {
        "type": "'text_start'",
        "contentIndex": "number.integer",
        "partial": "AssistantMessage",
    },
    "AssistantTextDeltaEvent": {
        "type": "'text_delta'",
        "contentIndex": "number.integer",
        "delta": "string",
        "partial": "AssistantMessage",
    },
    "AssistantTextEndEvent": {
        "type": "'text_end'",
        "contentIndex": "number.integer",
        "content": "string",
        "partial": "AssistantMessage",
    },
    "AssistantThinkingStartEvent": {
        "type": "'thinking_start'",
        "contentIndex": "number.integer",
        "partial": "AssistantMessage",
    },
    "AssistantThinkingDeltaEvent": {
        "type": "'thinking_delta'",
        "contentIndex": "number.integer",
        "delta": "string",
        "partial": "AssistantMessage",
    },
    "AssistantThinkingEndEvent": {
        "type": "'thinking_end'",
        "contentIndex": "number.integer",
        "content": "string",
        "partial": "AssistantMessage",
    },
    "AssistantImageEndEvent": {
        "type": "'image_end'",
        "contentIndex": "number.integer",
        "content": "ImageContent",
        "partial": "AssistantMessage",
    },
    "AssistantToolCallStartEvent": {
        "type": "'toolcall_start'",
        "contentIndex": "number.integer",
        "partial": "AssistantMessage",
    },
    "AssistantToolCallDeltaEvent": {
        "type": "'toolcall_delta'",
        "contentIndex": "number.integer",
        "delta": "string",
        "partial": "AssistantMessage",
    },
    "AssistantToolCallEndEvent": {
        "type": "'toolcall_end'",
        "contentIndex": "number.integer",
        "toolCall": "ToolCall",
        "partial": "AssistantMessage",
    },
    "AssistantDoneEvent": {
        "type": "'done'",
        "reason": "'stop' | 'length' | 'toolUse'",
        "message": "AssistantMessage",
    },
    "AssistantErrorEvent": {
        "type": "'error'",
        "reason": "'aborted' | 'error'",
        "error": "AssistantMessage",
    },
    "ModelCost": {
        "input": "number",
        "output": "number",
        "cacheRead": "number",
        "cacheWrite": "number",
    },
    "ThinkingConfig": {
        "mode": "string",
        "efforts": "Effort[]",
        "defaultLevel?": "Effort",
        "effortMap?": "Record",
        "supportsDisplay?": "boolean",
        "prefixBinding?": "boolean",
        "effortRouting?": "Record",
        "effortBudgets?": "Record",
        "suppressWhenOff?": "boolean",
        "requiresEffort?": "boolean",
    },
    "ModelInfo": {
        "id": "string",
        "name": "string",
        "api": "string",
        "provider": "string",
        "baseUrl": "string",
        "reasoning": "boolean",
        "input": "string[]",
        "cost": "ModelCost",
        "contextWindow": "number.integer | null",
        "maxTokens": "number.integer | null",
        "headers?": "Record",
        "premiumMultiplier?": "number",
        "preferWebsockets?": "boolean",
        "contextPromotionTarget?": "string",
        "priority?": "number.integer",
        "thinking?": "ThinkingConfig",
        "compat?": "Record",
    },
}

#: The seed's named unions, expanded when rendering the seed's types.
ALIASES = {
    "StopReason": "'stop' | 'length' | 'toolUse' | 'error' | 'aborted'",
    "Attribution": "'user' | 'agent'",
    "Effort": "'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max'",
    "MessageContent": "string | UserContent[]",
    "UserContent": "TextContent | ImageContent",
    "AssistantContent": (
        "TextContent | ThinkingContent | RedactedThinkingContent | FallbackContent"
        " | AnthropicServerToolContent | ImageContent | ToolCall"
    ),
}

ROLES = {
    "user",
    "developer",
    "assistant",
    "toolResult",
    "bashExecution",
    "pythonExecution",
    "custom",
    "hookMessage",
    "branchSummary",
    "compactionSummary",
    "fileMention",
}
ASSISTANT_CONTENT_TYPES = {
    "text",
    "thinking",
    "redactedThinking",
    "fallback",
    "anthropicServerTool",
    "image",
    "toolCall",
}
USER_CONTENT_TYPES = {"text", "image"}
EVENT_TYPES = {
    "start",
    "text_start",
    "text_delta",
    "text_end",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "image_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
    "done",
    "error",
}


def expand(seed_type: str) -> str:
    """Expand the seed's aliases; a union used as an array item gets parentheses."""
    for name, expansion in ALIASES.items():
        wrapped = f"({expansion})" if "|" in expansion else expansion
        seed_type = re.sub(rf"\b{name}\[\]", wrapped + "[]", seed_type)
        seed_type = re.sub(rf"\b{name}\b", expansion, seed_type)
    return seed_type


def render(schema: dict[str, Any]) -> str:
    """Write a pydantic property schema in the seed's notation."""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[1]
    if "const" in schema:
        return f"'{schema['const']}'"
    if "enum" in schema:
        return " | ".join(f"'{value}'" for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(render(option) for option in schema[key])
    kind = schema.get("type")
    if kind is None:
        return "unknown"
    if kind == "array":
        item = render(schema["items"])
        return f"({item})[]" if "|" in item else f"{item}[]"
    if kind == "object":
        return "Record"
    return {"integer": "number.integer"}.get(kind, kind)


def seed_view(model: type[BaseModel]) -> dict[str, str]:
    """A model's fields in the seed's notation: wire name, ``?`` if optional, type."""
    schema = model.model_json_schema()
    required = set(schema["required"])
    view = {}
    for name, prop in schema["properties"].items():
        rendered = render(prop)
        if name in required:
            view[name] = rendered
        else:
            view[f"{name}?"] = rendered.removesuffix(" | null")
    return view


def test_model_matches_seed(table):
    """Field names, optionality and types equal the seed's definition."""

    def check(name):
        model = getattr(adapter.pi, name)
        expected = {field: expand(seed_type) for field, seed_type in SEED[name].items()}
        assert seed_view(model) == expected

    table.check(((name, (name,)) for name in sorted(SEED)), check)


def test_every_seed_definition_is_exported():
    """Each seed definition, object or union, is importable from ``adapter``."""
    unions = {*ALIASES, "AgentMessage", "AssistantMessageEvent", "ThinkingLevel"}
    unions |= {"ConfiguredThinkingLevel"}
    for name in (*SEED, *unions):
        assert name in adapter.pi.__all__, name


def tags(union: object, field: str) -> set[str]:
    """The discriminator values of an ``Annotated`` union's members."""
    members = get_args(get_args(union)[0])
    return {get_args(member.model_fields[field].annotation)[0] for member in members}


@pytest.mark.parametrize(
    ("union", "field", "expected"),
    [
        pytest.param(AgentMessage, "role", ROLES, id="roles"),
        pytest.param(AssistantContent, "type", ASSISTANT_CONTENT_TYPES, id="assistant-content"),
        pytest.param(UserContent, "type", USER_CONTENT_TYPES, id="user-content"),
        pytest.param(AssistantMessageEvent, "type", EVENT_TYPES, id="events"),
    ],
)
def test_discriminator_sets_are_pinned(union, field, expected):
    """The exact roles, content types and event types; a change must be deliberate."""
    assert tags(union, field) == expected
    mapping = TypeAdapter(union).json_schema()["discriminator"]
    assert mapping["propertyName"] == field
    assert set(mapping["mapping"]) == expected


@pytest.mark.parametrize(
    ("adapter_", "count"),
    [
        pytest.param(AGENT_MESSAGE_ADAPTER, 11, id="agent-message"),
        pytest.param(ASSISTANT_MESSAGE_EVENT_ADAPTER, 13, id="event"),
    ],
)
def test_exported_adapters_dispatch_on_the_tag(adapter_, count):
    """The public adapters are the discriminated unions, one member per tag."""
    assert len(adapter_.json_schema()["discriminator"]["mapping"]) == count


DOCS = [
    ("Attribution", None, "Who initiated a message, for billing and attribution."),
    (
        "ThinkingContent",
        "narration",
        (
            "Prose the model addressed to the user, returned by the provider as thinking; "
            "present it as answer text."
        ),
    ),
    ("ImageContent", "data", "Base64-encoded image bytes."),
    ("ImageContent", None, "Inline image; also the shape hosts send with prompts."),
    (
        "FallbackContent",
        None,
        "Anthropic server-side fallback boundary marker; consumers other than Anthropic ignore it.",
    ),
    ("MessageContent", None, "Message content: plain text or content blocks."),
    ("ParentIrc", "from", "Sending parent agent id."),
    ("ParentIrc", "body", "Message body as the parent wrote it."),
    (
        "ParentIrc",
        None,
        (
            "Parent-agent IRC message carried by a steer; render it instead of the "
            "model-facing `content` envelope."
        ),
    ),
    ("AgentMessage", None, "A transcript message, discriminated by `role`."),
    (
        "AssistantMessageEvent",
        None,
        "Streaming update for one assistant message, discriminated by `type`.",
    ),
    ("ThinkingLevel", None, "Thinking selector; `inherit` defers to a higher-level selector."),
    (
        "ConfiguredThinkingLevel",
        None,
        "User-configured thinking selector, including automatic selection.",
    ),
    ("ModelCost", None, "Per-million-token USD rates."),
    ("ModelInfo", "input", "Accepted input modalities, e.g. `text`, `image`."),
    ("ModelInfo", "contextWindow", "Null when the provider does not report a limit."),
    ("ModelInfo", "maxTokens", "Null when the provider does not report a limit."),
    (
        "ModelInfo",
        None,
        "Model descriptor: the client-relevant subset of the server's model record.",
    ),
]


@pytest.mark.parametrize(
    ("name", "field", "doc"),
    [pytest.param(*row, id=f"{row[0]}.{row[1] or '-'}") for row in DOCS],
)
def test_seed_docs_are_schema_descriptions(name, field, doc):
    """The seed's doc strings reach the JSON Schema as descriptions."""
    target = getattr(adapter.pi, name)
    schema = (
        target.model_json_schema()
        if isinstance(target, type)
        else TypeAdapter(target).json_schema()
    )
    described = schema["properties"][field] if field else schema
    assert described["description"] == doc
