"""Open records: lossless round trips, strict scalars, payload-free reprs and errors."""

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from adapter.pi import (
    AGENT_MESSAGE_ADAPTER,
    ASSISTANT_MESSAGE_EVENT_ADAPTER,
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    Usage,
    UsageCost,
    UserMessage,
    parse_agent_message,
)

SECRET = "c2VjcmV0LXBheWxvYWQtdGhhdC1tdXN0LW5vdC1sZWFr"  # base64 stand-in for an image

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


def from_schema(schema: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Generate JSON values valid for a pydantic JSON Schema, extra keys included."""
    if "$ref" in schema:
        return from_schema(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(option, defs) for option in schema[key]])
    kind = schema.get("type")
    if kind is None:  # `unknown`: any JSON value
        return JSON_VALUES
    scalars: dict[str, st.SearchStrategy[Any]] = {
        "string": TEXT,
        "integer": st.integers(-(2**53), 2**53),
        "number": st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False),
        "boolean": st.booleans(),
        "null": st.none(),
    }
    if kind in scalars:
        return scalars[kind]
    if kind == "array":
        return st.lists(from_schema(schema["items"], defs), max_size=3)
    properties = schema.get("properties", {})
    if not properties:  # a free-form JSON object
        return st.dictionaries(st.text(max_size=5), JSON_VALUES, max_size=3)
    required = set(schema.get("required", ()))
    known = set(properties) | {"from_"}  # `from_` is the Python name of `from`
    extra_keys = st.text(min_size=1, max_size=6).filter(lambda key: key not in known)
    return st.fixed_dictionaries(
        {name: from_schema(properties[name], defs) for name in properties if name in required},
        optional={
            name: from_schema(sub, defs) for name, sub in properties.items() if name not in required
        },
    ).flatmap(
        lambda obj: st.dictionaries(extra_keys, JSON_VALUES, max_size=2).map(
            lambda extra: {**extra, **obj}
        )
    )


def strategy_for(adapter: TypeAdapter[Any]) -> st.SearchStrategy[Any]:
    """A strategy for the values an adapter's JSON Schema describes."""
    schema = adapter.json_schema()
    return from_schema(schema, schema.get("$defs", {}))


def canonical(obj: object) -> str:
    """JSON text that tells 1 from 1.0 and ignores key order."""
    return json.dumps(obj, sort_keys=True)


@settings(max_examples=60)
@given(strategy_for(AGENT_MESSAGE_ADAPTER))
def test_agent_messages_round_trip_key_for_key(message):
    """Any schema-valid message, extra keys included, survives parse -> dump unchanged."""
    parsed = AGENT_MESSAGE_ADAPTER.validate_json(json.dumps(message))
    dumped = AGENT_MESSAGE_ADAPTER.dump_json(parsed)
    assert canonical(json.loads(dumped)) == canonical(message)
    again = AGENT_MESSAGE_ADAPTER.dump_json(AGENT_MESSAGE_ADAPTER.validate_json(dumped))
    assert again == dumped


@settings(max_examples=40)
@given(strategy_for(ASSISTANT_MESSAGE_EVENT_ADAPTER))
def test_events_round_trip_key_for_key(event):
    """Any schema-valid event survives parse -> dump unchanged, via the Python path too."""
    parsed = ASSISTANT_MESSAGE_EVENT_ADAPTER.validate_python(event)
    assert canonical(ASSISTANT_MESSAGE_EVENT_ADAPTER.dump_python(parsed, mode="json")) == (
        canonical(event)
    )


def _usage() -> Usage:
    cost = UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0)
    return Usage(input=1, output=2, cacheRead=0, cacheWrite=0, totalTokens=3, cost=cost)


def test_unset_optionals_are_not_written():
    """A constructed record writes its required fields and nothing it was not given."""
    block = TextContent(text="hi")
    assert block.model_dump() == {"type": "text", "text": "hi"}
    assert json.loads(block.model_dump_json()) == {"type": "text", "text": "hi"}


def test_explicit_null_and_assignment_are_written():
    """A present null stays, and assigning an optional field makes it part of the output."""
    block = TextContent.model_validate_json('{"type": "text", "text": "a", "textSignature": null}')
    assert block.model_dump() == {"type": "text", "text": "a", "textSignature": None}
    message = AssistantMessage(
        content=[], api="x", provider="p", model="m", usage=_usage(), stopReason="stop", timestamp=1
    )
    assert "responseId" not in message.model_dump()
    message.responseId = "r1"
    assert message.model_dump()["responseId"] == "r1"


def test_unknown_keys_are_kept_and_written_back():
    """Keys a newer pi writes survive, nested ones included."""
    raw = {
        "role": "user",
        "content": [{"type": "text", "text": "a", "newBlockField": [1, 2]}],
        "timestamp": 5,
        "newMessageField": {"nested": True},
    }
    message = parse_agent_message(raw)
    assert message.model_dump(mode="json") == raw
    assert message.model_extra == {"newMessageField": {"nested": True}}


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        pytest.param(b"1700000000000", 1700000000000, id="integer-stays-integer"),
        pytest.param(b"1.5", 1.5, id="float-stays-float"),
        pytest.param(b"2.0", 2.0, id="integral-float-stays-float"),
    ],
)
def test_numbers_keep_their_json_type(raw, kept):
    """``number`` fields keep 1 and 1.0 apart, so the dump repeats the input text."""
    text = b'{"role":"user","content":"x","timestamp":' + raw + b"}"
    message = parse_agent_message(text)
    assert type(message.timestamp) is type(kept)
    assert message.model_dump_json().encode() == text


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("timestamp", "5", id="number-from-string"),
        pytest.param("timestamp", True, id="number-from-bool"),
        pytest.param("synthetic", 1, id="boolean-from-int"),
        pytest.param("synthetic", "true", id="boolean-from-string"),
    ],
)
def test_scalars_are_not_coerced(field, value):
    """A wrong scalar type is an error naming the field, not a silent rewrite."""
    raw = {"role": "user", "content": "x", "timestamp": 1, field: value}
    with pytest.raises(ValidationError) as info:
        parse_agent_message(raw)
    assert info.value.errors()[0]["loc"][1] == field


def test_integer_fields_reject_floats():
    """``number.integer`` rejects a fractional value and names the field."""
    with pytest.raises(ValidationError, match="totalTokens"):
        Usage.model_validate_json(
            '{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1.5,'
            '"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}'
        )


def test_repr_shows_structure_not_payloads():
    """Reprs name fields and sizes but never show text, base64, arguments or unknown keys."""
    image = ImageContent(data=SECRET, mimeType="image/png", url=f"data:image/png;base64,{SECRET}")
    call = ToolCall(id="abc123XYZ", name="search", arguments={"query": SECRET})
    message = UserMessage.model_validate(
        {"role": "user", "content": [image], "timestamp": 1, "secretExtra": SECRET}
    )
    for obj in (image, call, message):
        assert SECRET not in repr(obj)
        assert SECRET not in str(obj)
    assert repr(image) == (
        f"ImageContent(type='image', data=<{len(SECRET)} chars>, mimeType='image/png', "
        f"url=<{len(SECRET) + 22} chars>)"
    )
    assert "arguments=<object, 1 keys>" in repr(call)
    assert "secretExtra=<" in repr(message)


def test_repr_names_only_the_type_of_other_payload_values():
    """An unknown key holding a list or a number shows as its type name, never its items."""
    message = UserMessage.model_validate(
        {"role": "user", "content": "x", "timestamp": 1, "attachments": [SECRET], "score": 0.25}
    )
    assert SECRET not in repr(message)
    assert "attachments=<list>" in repr(message)
    assert "score=<float>" in repr(message)


def test_validation_errors_hide_the_input():
    """A rejected record's error names the field but not the payload it carried."""
    with pytest.raises(ValidationError) as info:
        parse_agent_message({"role": "user", "content": [{"type": "audio", "data": SECRET}]})
    assert SECRET not in str(info.value)


def test_schema_lists_the_tag_as_required():
    """The discriminator has a Python default but is required on the wire."""
    assert TextContent.model_json_schema()["required"] == ["type", "text"]
    assert UserMessage.model_json_schema()["required"][0] == "role"
