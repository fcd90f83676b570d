"""Content blocks and usage: tags, aliases, and clear errors for unknown block types."""

import pytest
from pydantic import ValidationError

from adapter.pi import (
    ASSISTANT_CONTENT_ADAPTER,
    USER_CONTENT_ADAPTER,
    FallbackContent,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    UserMessage,
)


@pytest.mark.parametrize(
    ("raw", "cls"),
    [
        pytest.param({"type": "text", "text": "a"}, TextContent, id="text"),
        pytest.param({"type": "thinking", "thinking": "hm"}, ThinkingContent, id="thinking"),
        pytest.param(
            {"type": "toolCall", "id": "c1", "name": "f", "arguments": {}}, ToolCall, id="toolCall"
        ),
        pytest.param(
            {"type": "image", "data": "AA==", "mimeType": "image/png"}, ImageContent, id="image"
        ),
    ],
)
def test_assistant_content_dispatches_on_type(raw, cls):
    """Each block lands in its own class and dumps back unchanged."""
    block = ASSISTANT_CONTENT_ADAPTER.validate_python(raw)
    assert type(block) is cls
    assert ASSISTANT_CONTENT_ADAPTER.dump_python(block) == raw


@pytest.mark.parametrize(
    ("adapter", "tag"),
    [
        pytest.param(ASSISTANT_CONTENT_ADAPTER, "audio", id="assistant-unknown"),
        pytest.param(USER_CONTENT_ADAPTER, "thinking", id="user-assistant-only"),
        pytest.param(USER_CONTENT_ADAPTER, "toolCall", id="user-tool-call"),
    ],
)
def test_unknown_block_type_names_field_and_value(adapter, tag):
    """A block type outside the union is an error naming ``type`` and the offending value."""
    with pytest.raises(ValidationError) as info:
        adapter.validate_json(f'{{"type": "{tag}", "data": "x"}}')
    (error,) = info.value.errors()
    assert error["type"] == "union_tag_invalid"
    assert f"Input tag '{tag}' found using 'type'" in str(info.value)


def test_missing_block_type_is_an_error():
    """A block without ``type`` is rejected, not guessed."""
    with pytest.raises(ValidationError, match="Unable to extract tag using discriminator 'type'"):
        ASSISTANT_CONTENT_ADAPTER.validate_python({"text": "a"})


def test_fallback_from_keeps_its_wire_name():
    """``from`` is a keyword in Python: the attribute is ``from_``, the key stays ``from``."""
    raw = {"type": "fallback", "from": {"model": "a"}, "to": {"model": "b"}}
    block = ASSISTANT_CONTENT_ADAPTER.validate_python(raw)
    assert isinstance(block, FallbackContent)
    assert block.from_ == {"model": "a"}
    assert block.model_dump() == raw
    assert FallbackContent(from_={"model": "a"}, to={"model": "b"}).model_dump() == raw


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("plain text", id="string"),
        pytest.param(
            [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
            ],
            id="blocks",
        ),
    ],
)
def test_message_content_is_text_or_user_blocks(content):
    """``MessageContent`` is a string or a list of text/image blocks."""
    message = UserMessage.model_validate({"role": "user", "content": content, "timestamp": 1})
    assert message.model_dump()["content"] == content


def test_blocks_are_mutable_without_revalidation():
    """The stream mapper appends to a block in place; assignment is not validated."""
    block = TextContent(text="a")
    block.text += "b"
    assert block.text == "ab"
    assert block.model_dump() == {"type": "text", "text": "ab"}
