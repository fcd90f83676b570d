"""Transcript messages: one class per role, clear errors for unknown roles, the schema's shape."""

import json

import pytest
from pydantic import ValidationError

from adapter.pi import (
    AGENT_MESSAGE_ADAPTER,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    DeveloperMessage,
    FileMentionMessage,
    HookMessage,
    PythonExecutionMessage,
    ToolResultMessage,
    UserMessage,
    parse_agent_message,
)

USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 2,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003},
}
EXAMPLES = [
    (UserMessage, {"role": "user", "content": "hi", "timestamp": 1}),
    (DeveloperMessage, {"role": "developer", "content": "be brief", "timestamp": 1}),
    (
        AssistantMessage,
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm"},
                {"type": "text", "text": "hello"},
                {"type": "toolCall", "id": "a1B2c3D4e", "name": "f", "arguments": {"x": 1}},
            ],
            "api": "mistral-chat",
            "provider": "mistral",
            "model": "mistral-small-latest",
            "usage": USAGE,
            "stopReason": "toolUse",
            "timestamp": 1,
        },
    ),
    (
        ToolResultMessage,
        {
            "role": "toolResult",
            "toolCallId": "a1B2c3D4e",
            "toolName": "f",
            "content": [{"type": "text", "text": "42"}],
            "details": None,
            "isError": False,
            "timestamp": 2,
        },
    ),
    (
        BashExecutionMessage,
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "a\nb",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 3,
        },
    ),
    (
        PythonExecutionMessage,
        {
            "role": "pythonExecution",
            "code": "1+1",
            "output": "2",
            "cancelled": False,
            "truncated": False,
            "timestamp": 4,
        },
    ),
    (
        CustomMessage,
        {"role": "custom", "customType": "note", "content": "x", "display": True, "timestamp": 5},
    ),
    (
        HookMessage,
        {"role": "hookMessage", "customType": "h", "content": [], "display": False, "timestamp": 6},
    ),
    (
        BranchSummaryMessage,
        {"role": "branchSummary", "summary": "s", "fromId": "e1", "timestamp": 7},
    ),
    (
        CompactionSummaryMessage,
        {"role": "compactionSummary", "summary": "s", "tokensBefore": 900, "timestamp": 8},
    ),
    (
        FileMentionMessage,
        {
            "role": "fileMention",
            "files": [{"path": "a.py", "content": "x = 1", "lineCount": 1}],
            "timestamp": 9,
        },
    ),
]


@pytest.mark.parametrize(
    ("cls", "raw"), [pytest.param(cls, raw, id=raw["role"]) for cls, raw in EXAMPLES]
)
def test_each_role_parses_to_its_class(cls, raw):
    """Bytes, text and dicts all dispatch on ``role`` and dump back unchanged."""
    text = json.dumps(raw)
    for data in (text, text.encode(), raw):
        message = parse_agent_message(data)
        assert type(message) is cls
        assert message.model_dump(mode="json") == raw


def test_examples_cover_every_role():
    """The examples above exercise all eleven roles."""
    assert len({raw["role"] for _, raw in EXAMPLES}) == 11


def test_unknown_role_names_field_and_value():
    """An unknown role is a validation error naming ``role`` and the value, not a fallback."""
    with pytest.raises(ValidationError) as info:
        parse_agent_message({"role": "system", "content": "x", "timestamp": 1})
    message = str(info.value)
    assert "Input tag 'system' found using 'role'" in message
    assert "'user'" in message  # the expected tags are listed


def test_missing_role_is_an_error():
    """A message without ``role`` is rejected."""
    with pytest.raises(ValidationError, match="Unable to extract tag using discriminator 'role'"):
        parse_agent_message(b'{"content": "x", "timestamp": 1}')


def test_missing_required_field_is_named():
    """A missing required field is reported by its wire name and location."""
    raw = dict(EXAMPLES[2][1])
    del raw["stopReason"]
    with pytest.raises(ValidationError) as info:
        parse_agent_message(raw)
    assert info.value.errors()[0]["loc"] == ("assistant", "stopReason")


#: Every message ``role`` and the fields it requires (pi's ``AgentMessage``).
ROLE_REQUIRED = {
    "user": {"role", "content", "timestamp"},
    "developer": {"role", "content", "timestamp"},
    "assistant": {
        "role",
        "content",
        "api",
        "provider",
        "model",
        "usage",
        "stopReason",
        "timestamp",
    },
    "toolResult": {"role", "toolCallId", "toolName", "content", "isError", "timestamp"},
    "bashExecution": {"role", "command", "output", "cancelled", "truncated", "timestamp"},
    "pythonExecution": {"role", "code", "output", "cancelled", "truncated", "timestamp"},
    "custom": {"role", "customType", "content", "display", "timestamp"},
    "hookMessage": {"role", "customType", "content", "display", "timestamp"},
    "branchSummary": {"role", "summary", "fromId", "timestamp"},
    "compactionSummary": {"role", "summary", "tokensBefore", "timestamp"},
    "fileMention": {"role", "files", "timestamp"},
}


def test_agent_message_schema_shape():
    """The schema discriminates on ``role`` over pi's roles; each role's required fields; open."""
    schema = AGENT_MESSAGE_ADAPTER.json_schema()
    assert schema["discriminator"]["propertyName"] == "role"
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == set(ROLE_REQUIRED)
    for role, ref in mapping.items():
        member = schema["$defs"][ref.rsplit("/", 1)[1]]
        assert member["properties"]["role"]["const"] == role
        assert set(member["required"]) == ROLE_REQUIRED[role], role
        assert member["additionalProperties"] is True, role  # open records: extra keys pass
    content = schema["$defs"]["AssistantMessage"]["properties"]["content"]["items"]
    assert content["discriminator"]["propertyName"] == "type"
