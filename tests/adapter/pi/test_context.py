"""Input types: frozen containers, tool names checked where tools are defined."""

import dataclasses

import pytest

from adapter.pi._context import Context, ForcedTool, JsonSchemaFormat, StreamOptions, Tool


def test_defaults_send_nothing():
    """Empty options and context hold no values: the server defaults apply."""
    options = StreamOptions()
    assert all(
        getattr(options, f.name) is None
        for f in dataclasses.fields(options)
        if f.name != "never_raise"
    )
    assert options.never_raise is False
    context = Context()
    assert (context.system_prompt, tuple(context.messages), tuple(context.tools)) == (None, (), ())


@pytest.mark.parametrize(
    ("value", "field"),
    [
        pytest.param(Context(), "system_prompt", id="context"),
        pytest.param(StreamOptions(), "temperature", id="options"),
        pytest.param(Tool("read"), "name", id="tool"),
        pytest.param(ForcedTool("read"), "name", id="forced-tool"),
        pytest.param(JsonSchemaFormat(name="a", schema={}), "name", id="json-schema"),
    ],
)
def test_inputs_are_frozen(value, field):
    """Inputs cannot change after construction, so one instance can serve many calls."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, "other")


def test_tool_defaults_to_an_empty_object_schema():
    """A tool without parameters takes an empty arguments object."""
    tool = Tool("now")
    assert tool.parameters == {"type": "object", "properties": {}}
    assert tool.description == ""


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("read_file", id="underscore"),
        pytest.param("web-search", id="dash"),
        pytest.param("a" * 64, id="64-chars"),
        pytest.param("X9", id="alphanumeric"),
    ],
)
def test_valid_tool_names(name):
    """Names Mistral accepts are accepted."""
    assert Tool(name).name == name
    assert ForcedTool(name).name == name


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("", id="empty"),
        pytest.param("a" * 65, id="65-chars"),
        pytest.param("read file", id="space"),
        pytest.param("ns.read", id="dot"),
        pytest.param("lire_\u00e9", id="non-ascii"),
    ],
)
def test_invalid_tool_names_fail_at_definition(name):
    """A name Mistral would reject with a 400 fails when the tool is defined, naming the rule."""
    with pytest.raises(ValueError, match="not a valid Mistral function name"):
        Tool(name)
    with pytest.raises(ValueError, match="forced tool name"):
        ForcedTool(name)


def test_invalid_tool_name_error_is_bounded_and_redacted():
    """A huge or secret-looking name is cut short and scrubbed in the message."""
    secret = "sk-" + "A" * 40
    with pytest.raises(ValueError) as info:
        Tool(secret + " " + "x" * 500)
    assert secret not in str(info.value)
    assert len(str(info.value)) < 300
