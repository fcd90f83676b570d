"""Assistant streaming events: cheap construction, one live ``partial``, the schema's shape."""

import pytest
from pydantic import ValidationError

from adapter.pi import (
    ASSISTANT_MESSAGE_EVENT_ADAPTER,
    AssistantDoneEvent,
    AssistantMessage,
    AssistantTextDeltaEvent,
    AssistantTextStartEvent,
    AssistantToolCallEndEvent,
    TextContent,
    ToolCall,
    Usage,
    UsageCost,
    parse_assistant_message_event,
)
from adapter.pi._events import (
    AssistantThinkingDeltaEvent,
    AssistantToolCallDeltaEvent,
    text_delta_event,
    thinking_delta_event,
    toolcall_delta_event,
)


def new_message() -> AssistantMessage:
    cost = UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0)
    usage = Usage(input=0, output=0, cacheRead=0, cacheWrite=0, totalTokens=0, cost=cost)
    return AssistantMessage(
        content=[],
        api="mistral-chat",
        provider="mistral",
        model="m",
        usage=usage,
        stopReason="stop",
        timestamp=1,
    )


def test_constructed_event_dumps_like_a_validated_one():
    """``model_construct`` fills the tag and writes exactly what a validated event writes."""
    message = new_message()
    cheap = AssistantTextDeltaEvent.model_construct(contentIndex=0, delta="hi", partial=message)
    checked = AssistantTextDeltaEvent(contentIndex=0, delta="hi", partial=message)
    assert cheap.type == "text_delta"
    assert cheap.model_dump() == checked.model_dump()
    assert cheap.model_dump()["type"] == "text_delta"


@pytest.mark.parametrize(
    "construct", [pytest.param(True, id="model_construct"), pytest.param(False, id="validated")]
)
def test_events_share_the_live_partial(construct):
    """Every event holds the same message object, so it shows the latest state."""
    message = new_message()
    make = AssistantTextStartEvent.model_construct if construct else AssistantTextStartEvent
    start = make(contentIndex=0, partial=message)
    message.content.append(TextContent(text=""))
    delta = AssistantTextDeltaEvent.model_construct(contentIndex=0, delta="a", partial=message)
    message.content[0].text += "a"
    assert start.partial is message
    assert delta.partial is message
    assert start.model_dump()["partial"]["content"] == [{"type": "text", "text": "a"}]


def test_done_event_round_trips():
    """A done event carries the final message and a stop reason from its narrow set."""
    message = new_message()
    message.content.append(ToolCall(id="a1B2c3D4e", name="f", arguments={"q": 1}))
    message.stopReason = "toolUse"
    event = AssistantDoneEvent(reason="toolUse", message=message)
    again = parse_assistant_message_event(event.model_dump_json())
    assert again == event


def test_tool_call_end_carries_the_call():
    """``toolcall_end`` holds the complete tool call next to the partial message."""
    call = ToolCall(id="a1B2c3D4e", name="f", arguments={})
    event = AssistantToolCallEndEvent(contentIndex=0, toolCall=call, partial=new_message())
    assert event.model_dump()["toolCall"] == {
        "type": "toolCall",
        "id": "a1B2c3D4e",
        "name": "f",
        "arguments": {},
    }


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        pytest.param(
            {"type": "text_chunk"}, "Input tag 'text_chunk' found using 'type'", id="unknown-type"
        ),
        pytest.param(
            {"contentIndex": 0},
            "Unable to extract tag using discriminator 'type'",
            id="missing-type",
        ),
    ],
)
def test_unknown_event_type_is_an_error(raw, match):
    """An unknown or missing event type is rejected with the field and value named."""
    with pytest.raises(ValidationError, match=match):
        parse_assistant_message_event(raw)


def test_done_reason_is_narrow():
    """``done`` accepts only stop/length/toolUse; errors belong to the ``error`` event."""
    with pytest.raises(ValidationError, match="reason"):
        AssistantDoneEvent.model_validate(
            {"type": "done", "reason": "error", "message": new_message()}
        )


#: Every event ``type`` and the fields it requires (pi's ``AssistantMessageEvent``).
EVENT_REQUIRED = {
    "start": {"type", "partial"},
    "text_start": {"type", "contentIndex", "partial"},
    "text_delta": {"type", "contentIndex", "delta", "partial"},
    "text_end": {"type", "contentIndex", "content", "partial"},
    "thinking_start": {"type", "contentIndex", "partial"},
    "thinking_delta": {"type", "contentIndex", "delta", "partial"},
    "thinking_end": {"type", "contentIndex", "content", "partial"},
    "image_end": {"type", "contentIndex", "content", "partial"},
    "toolcall_start": {"type", "contentIndex", "partial"},
    "toolcall_delta": {"type", "contentIndex", "delta", "partial"},
    "toolcall_end": {"type", "contentIndex", "toolCall", "partial"},
    "done": {"type", "reason", "message"},
    "error": {"type", "reason", "error"},
}


def test_assistant_message_event_schema_shape():
    """The schema discriminates on ``type`` over pi's tags; each event's required fields; open."""
    schema = ASSISTANT_MESSAGE_EVENT_ADAPTER.json_schema()
    assert schema["discriminator"]["propertyName"] == "type"
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == set(EVENT_REQUIRED)
    for tag, ref in mapping.items():
        member = schema["$defs"][ref.rsplit("/", 1)[1]]
        assert member["properties"]["type"]["const"] == tag
        assert set(member["required"]) == EVENT_REQUIRED[tag], tag
        assert member["additionalProperties"] is True, tag  # open records: extra keys pass


@pytest.mark.parametrize(
    ("builder", "cls"),
    [
        pytest.param(text_delta_event, AssistantTextDeltaEvent, id="text"),
        pytest.param(thinking_delta_event, AssistantThinkingDeltaEvent, id="thinking"),
        pytest.param(toolcall_delta_event, AssistantToolCallDeltaEvent, id="toolcall"),
    ],
)
def test_delta_builders_build_what_the_constructor_builds(builder, cls):
    """The hot path's delta builders give the constructor's instance, and validate as it does."""
    message = new_message()
    built = builder(3, "delta text", message)
    validated = cls(contentIndex=3, delta="delta text", partial=message)
    assert type(built) is cls
    assert built == validated
    assert built.partial is message
    assert repr(built) == repr(validated)
    assert built.model_dump_json() == validated.model_dump_json()
    built.delta = "changed"  # assignment works as on a constructed instance
    validated.delta = "changed"
    assert built.model_dump() == validated.model_dump()
    with pytest.raises(ValidationError, match="contentIndex"):
        builder("3", "delta text", message)
