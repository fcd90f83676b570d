"""Request mapping (pi -> Mistral wire): every rule, payload snapshots, ids, no leaks."""

import json
import pickle
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mistralai.client.models import ChatCompletionStreamRequest
from pydantic import ValidationError
from syrupy.extensions.json import JSONSnapshotExtension

from adapter import get_model
from adapter._mistral.request import (
    BRIDGE_TEXT,
    MISSING_RESULT_TEXT,
    InvalidTranscriptError,
    ToolCallIds,
    UnsupportedContentError,
    _candidate,
    chat_completions_url,
    request_headers,
    to_wire,
)
from adapter.pi import (
    AnthropicServerToolContent,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    DeveloperMessage,
    FallbackContent,
    FileMentionMessage,
    HookMessage,
    ImageContent,
    PythonExecutionMessage,
    RedactedThinkingContent,
    TextContent,
    ThinkingConfig,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UsageCost,
    UserMessage,
)
from adapter.pi._context import Context, ForcedTool, JsonSchemaFormat, StreamOptions, Tool

VISION = get_model("mistral-small-latest")  # text + image, adjustable reasoning
TEXT_ONLY = get_model("codestral-latest")  # text only, no reasoning
MAGISTRAL = get_model("magistral-medium-latest")  # native reasoning (prompt_mode)
LARGE = get_model("mistral-large-latest")  # text + image, no reasoning

SPEC = Path(__file__).resolve().parents[3] / "vendor" / "mistral" / "openapi-public-doc.yaml"
VALID_ID = re.compile(r"[a-zA-Z0-9]{9}")
#: Sentinels that must never appear in an error message or repr.
SECRET_B64 = "U0VOVElORUwtSU1BR0UtQllURVM=" * 8
SECRET_TEXT = "sentinel-prompt-text-7c1e"


# --- builders ---------------------------------------------------------------------------


def usage():
    cost = UsageCost(input=0, output=0, cacheRead=0, cacheWrite=0, total=0)
    return Usage(input=0, output=0, cacheRead=0, cacheWrite=0, totalTokens=0, cost=cost)


def user(content):
    return UserMessage(content=content, timestamp=1)


def developer(content):
    return DeveloperMessage(content=content, timestamp=1)


def assistant(*blocks, stop="stop"):
    return AssistantMessage(
        content=list(blocks),
        api="mistral-chat-completions",
        provider="mistral",
        model="mistral-small-2603",
        usage=usage(),
        stopReason=stop,
        timestamp=1,
    )


def text(value):
    return TextContent(text=value)


def image(data="iVBORw0KGgo=", mime="image/png", **extra):
    return ImageContent(data=data, mimeType=mime, **extra)


def call(call_id, name="read", **arguments):
    return ToolCall(id=call_id, name=name, arguments=arguments or {"path": "a.txt"})


def result(call_id, *blocks, name="read", error=False):
    return ToolResultMessage(
        toolCallId=call_id,
        toolName=name,
        content=list(blocks) or [text("ok")],
        isError=error,
        timestamp=1,
    )


def body(*messages, model=VISION, system=None, tools=(), options=None):
    """The JSON body ``to_wire`` produces, as sent."""
    context = Context(system_prompt=system, messages=list(messages), tools=list(tools))
    return json.loads(to_wire(model=model, context=context, options=options).to_json())


def wire_messages(*messages, **kwargs):
    return body(*messages, **kwargs)["messages"]


def roles(messages):
    return [message["role"] for message in messages]


READ = Tool("read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})


# --- system prompt and developer messages -------------------------------------------------


def test_system_prompt_leads():
    """The system prompt is the first message."""
    assert wire_messages(user("hi"), system="Be brief.") == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


@pytest.mark.parametrize("system", [None, "", "  \n"], ids=["none", "empty", "blank"])
def test_blank_system_prompt_is_not_sent(system):
    """No system prompt, or a blank one, produces no system message."""
    assert roles(wire_messages(user("hi"), system=system)) == ["user"]


def test_developer_messages_fold_into_the_leading_system_message():
    """Developer messages join the system prompt, in order, wherever they stand."""
    messages = wire_messages(
        developer("Rule one."),
        user("hi"),
        assistant(call("D681PevKs"), stop="toolUse"),
        developer([text("Rule two."), text("Rule three.")]),
        result("D681PevKs"),
        developer("Rule four."),
        system="Be brief.",
    )
    assert messages[0] == {
        "role": "system",
        "content": "Be brief.\n\nRule one.\n\nRule two.\n\nRule three.\n\nRule four.",
    }
    assert roles(messages) == ["system", "user", "assistant", "tool"]


def test_developer_images_become_a_placeholder():
    """System messages carry text only: a developer image is named, not dropped silently."""
    messages = wire_messages(developer([image()]), user("hi"))
    assert messages[0] == {
        "role": "system",
        "content": "(image omitted: system messages cannot carry images)",
    }


def test_blank_developer_message_adds_nothing():
    """A blank developer message does not produce an empty system message."""
    assert roles(wire_messages(developer(" "), developer([text("")]), user("hi"))) == ["user"]


# --- user content -----------------------------------------------------------------------------


def test_user_text_string_stays_a_string():
    """Plain string content is sent as a string."""
    assert wire_messages(user("hello")) == [{"role": "user", "content": "hello"}]


def test_user_images_become_data_urls_on_vision_models():
    """Text and image blocks keep their order; an image is a data URL from data + mimeType."""
    messages = wire_messages(user([text("What is this?"), image(data="QUJD", mime="image/jpeg")]))
    assert messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": "data:image/jpeg;base64,QUJD"},
            ],
        }
    ]


@pytest.mark.parametrize("model", [TEXT_ONLY, get_model("devstral-latest")], ids=lambda m: m.id)
def test_images_become_an_explicit_placeholder_on_text_models(model):
    """A model without image input gets a text saying the image was omitted, and why."""
    messages = wire_messages(user([text("Look:"), image()]), model=model)
    assert messages[0]["content"] == [
        {"type": "text", "text": "Look:"},
        {"type": "text", "text": f"(image omitted: model {model.id} does not accept images)"},
    ]
    assert "image_url" not in json.dumps(messages)


@pytest.mark.parametrize(
    ("block", "sent"),
    [
        pytest.param(
            image(data="QUJD", url="https://example.com/a.png"),
            "data:image/png;base64,QUJD",
            id="data-wins-over-url",
        ),
        pytest.param(
            image(data="", url="https://example.com/a.png"),
            "https://example.com/a.png",
            id="url-when-no-data",
        ),
        pytest.param(
            image(data="QUJD", detail="low"),
            {"url": "data:image/png;base64,QUJD", "detail": "low"},
            id="detail-low",
        ),
        pytest.param(
            image(data="QUJD", detail="original"),
            {"url": "data:image/png;base64,QUJD", "detail": "high"},
            id="detail-original-is-high",
        ),
    ],
)
def test_image_source_and_detail(block, sent):
    """Inline bytes are preferred; ``url`` is used only without them; detail maps onto Mistral's."""
    assert wire_messages(user([block]))[0]["content"] == [{"type": "image_url", "image_url": sent}]


def test_image_without_data_or_url_is_an_error():
    """An image with nothing to send is reported, naming the message and role."""
    with pytest.raises(
        UnsupportedContentError, match=r"messages\[0\] \(user\).*neither data nor url"
    ):
        body(user([image(data="")]))


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("", id="empty-string"),
        pytest.param(" \n\t", id="blank-string"),
        pytest.param([], id="no-blocks"),
        pytest.param([text(""), text("  ")], id="blank-blocks"),
    ],
)
def test_blank_user_messages_are_not_sent(content):
    """A user message with nothing to say is left out."""
    assert wire_messages(user(content), user("hi")) == [{"role": "user", "content": "hi"}]


def test_blank_text_blocks_are_dropped_between_others():
    """Blank text blocks are neither replayed nor produced, the others stay in order."""
    content = wire_messages(user([text(""), text("a"), text(" "), text("b")]))[0]["content"]
    assert content == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]


def test_lone_surrogates_are_replaced():
    """Text that cannot be encoded as UTF-8 is repaired, not a serialization crash."""
    content = wire_messages(user("a\ud800b"))[0]["content"]
    assert content == "a\ufffdb"


# --- assistant turns -------------------------------------------------------------------------


def test_assistant_text_is_replayed():
    """A finished assistant turn is replayed as text."""
    messages = wire_messages(user("hi"), assistant(text("Hello!")), user("bye"))
    assert messages[1] == {"role": "assistant", "content": "Hello!"}


@pytest.mark.parametrize(
    "block",
    [
        pytest.param(ThinkingContent(thinking="secret plan"), id="thinking"),
        pytest.param(ThinkingContent(thinking="Hi!", narration=True), id="thinking-narration"),
        pytest.param(RedactedThinkingContent(data="ZW5jcnlwdGVk"), id="redacted-thinking"),
        pytest.param(FallbackContent.model_validate({"from": {}, "to": {}}), id="fallback"),
        pytest.param(AnthropicServerToolContent(block={"type": "x"}), id="anthropic-server-tool"),
    ],
)
def test_assistant_blocks_that_are_not_replayed(block):
    """Thinking (ADR 0014's skip) and Anthropic-only markers are left out of the replay."""
    messages = wire_messages(user("hi"), assistant(block, text("Answer.")), user("more"))
    assert messages[1] == {"role": "assistant", "content": "Answer."}


def test_assistant_turn_with_nothing_left_is_skipped():
    """A turn that had only thinking (or blank text) sends no empty assistant message."""
    messages = wire_messages(
        user("hi"), assistant(ThinkingContent(thinking="..."), text(" ")), user("again")
    )
    assert roles(messages) == ["user", "user"]


def test_several_text_blocks_are_sent_as_chunks():
    """Text split by thinking keeps its parts as separate text chunks."""
    messages = wire_messages(
        user("hi"),
        assistant(text("One."), ThinkingContent(thinking="hm"), text("Two.")),
        user("ok"),
    )
    assert messages[1]["content"] == [
        {"type": "text", "text": "One."},
        {"type": "text", "text": "Two."},
    ]


def test_assistant_image_is_an_error():
    """An assistant image has no Mistral replay: the error names the type and the role."""
    with pytest.raises(UnsupportedContentError) as info:
        body(user("draw"), assistant(image()), user("again"))
    assert str(info.value).startswith("messages[1] (assistant) has a content block of type 'image'")
    assert (info.value.index, info.value.role, info.value.block_type) == (1, "assistant", "image")


def test_tool_calls_are_replayed_with_json_arguments():
    """Tool calls keep their name and their arguments as a JSON string; content is ``""``."""
    messages = wire_messages(
        user("read it"),
        assistant(call("D681PevKs", path="é.txt", lines=[1, 2]), stop="toolUse"),
        result("D681PevKs"),
    )
    assert messages[1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "D681PevKs",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "é.txt", "lines": [1, 2]}'},
                "index": 0,
            }
        ],
    }


def test_text_and_tool_calls_are_sent_together():
    """Text before a tool call is not lost: content and tool_calls both go out."""
    messages = wire_messages(
        user("go"),
        assistant(text("Let me look."), call("D681PevKs"), call("abcdefghi"), stop="toolUse"),
        result("D681PevKs"),
        result("abcdefghi"),
    )
    assert messages[1]["content"] == "Let me look."
    assert [c["index"] for c in messages[1]["tool_calls"]] == [0, 1]
    assert roles(messages) == ["user", "assistant", "tool", "tool"]


@pytest.mark.parametrize("stop", ["error", "aborted"])
def test_failed_turns_and_their_results_are_not_replayed(stop):
    """An errored or aborted turn is left out, and so are the results of its tool calls."""
    messages = wire_messages(
        user("go"),
        assistant(text("Partial"), call("call_1"), stop=stop),
        result("call_1"),
        user("try again"),
    )
    assert messages == [
        {"role": "user", "content": "go"},
        {"role": "user", "content": "try again"},
    ]


def test_failed_turns_are_not_checked_either():
    """A block that could not be sent does not fail the request when its turn is left out."""
    messages = wire_messages(user("draw"), assistant(image(), stop="error"), user("again"))
    assert roles(messages) == ["user", "user"]


@pytest.mark.parametrize("stop", ["stop", "length", "toolUse"])
def test_finished_turns_are_replayed(stop):
    """Every other stop reason replays the turn."""
    assert roles(wire_messages(user("go"), assistant(text("Hi"), stop=stop), user("x"))) == [
        "user",
        "assistant",
        "user",
    ]


# --- tool results ----------------------------------------------------------------------------


def test_tool_result_maps_to_a_tool_message():
    """A result becomes ``role: tool`` with the call's id and the tool's name."""
    messages = wire_messages(
        user("go"), assistant(call("D681PevKs"), stop="toolUse"), result("D681PevKs", text("42"))
    )
    assert messages[2] == {
        "role": "tool",
        "content": "42",
        "tool_call_id": "D681PevKs",
        "name": "read",
    }


def test_tool_result_without_a_name_takes_the_calls_name():
    """An empty ``toolName`` falls back to the name the assistant called."""
    messages = wire_messages(
        user("go"),
        assistant(call("D681PevKs", name="grep"), stop="toolUse"),
        result("D681PevKs", name=""),
    )
    assert messages[2]["name"] == "grep"


@pytest.mark.parametrize(
    ("blocks", "error", "content"),
    [
        pytest.param([text("a"), text("b")], False, "a\nb", id="texts-joined"),
        pytest.param([text("ENOENT")], True, "[tool error] ENOENT", id="error-prefix"),
        pytest.param([text(" ")], False, "(no output)", id="no-output"),
        pytest.param([text("")], True, "[tool error] (no output)", id="error-no-output"),
    ],
)
def test_tool_result_text(blocks, error, content):
    """Texts are joined; an error result says so, since the wire has no error flag."""
    messages = wire_messages(
        user("go"),
        assistant(call("D681PevKs"), stop="toolUse"),
        result("D681PevKs", *blocks, error=error),
    )
    assert messages[2]["content"] == content


def test_tool_result_images_stay_in_the_tool_message_on_vision_models():
    """Images in a tool result are sent in order with its text, as image_url chunks."""
    messages = wire_messages(
        user("screenshot"),
        assistant(call("D681PevKs", name="shot"), stop="toolUse"),
        result(
            "D681PevKs",
            text("page 1"),
            image(data="QUFB"),
            text("page 2"),
            image(data="QkJC"),
            error=True,
        ),
    )
    assert messages[2]["content"] == [
        {"type": "text", "text": "[tool error] page 1"},
        {"type": "image_url", "image_url": "data:image/png;base64,QUFB"},
        {"type": "text", "text": "page 2"},
        {"type": "image_url", "image_url": "data:image/png;base64,QkJC"},
    ]


def test_tool_result_starting_with_an_image_gets_its_error_prefix_first():
    """The error marker comes first even when the result opens with an image."""
    messages = wire_messages(
        user("x"),
        assistant(call("D681PevKs"), stop="toolUse"),
        result("D681PevKs", image(), error=True),
    )
    assert messages[2]["content"][0] == {"type": "text", "text": "[tool error]"}


def test_tool_result_images_become_placeholders_on_text_models():
    """A text-only model gets the placeholder inside the tool's text."""
    messages = wire_messages(
        user("x"),
        assistant(call("D681PevKs"), stop="toolUse"),
        result("D681PevKs", text("see"), image()),
        model=TEXT_ONLY,
    )
    assert messages[2]["content"] == (
        "see\n(image omitted: model codestral-latest does not accept images)"
    )


def test_missing_results_get_a_synthetic_error_before_the_next_turn():
    """A call without a result gets one, before the next user or assistant message."""
    messages = wire_messages(
        user("go"),
        assistant(call("D681PevKs"), call("abcdefghi", name="grep"), stop="toolUse"),
        result("abcdefghi", name="grep"),
        user("never mind"),
    )
    assert messages[2:5] == [
        {"role": "tool", "content": "ok", "tool_call_id": "abcdefghi", "name": "grep"},
        {
            "role": "tool",
            "content": f"[tool error] {MISSING_RESULT_TEXT}",
            "tool_call_id": "D681PevKs",
            "name": "read",
        },
        {"role": "assistant", "content": BRIDGE_TEXT},
    ]


def test_missing_results_before_the_next_assistant_turn():
    """Consecutive assistant turns still pair every call with a result."""
    messages = wire_messages(
        user("go"), assistant(call("D681PevKs"), stop="toolUse"), assistant(text("Done."))
    )
    assert roles(messages) == ["user", "assistant", "tool", "assistant"]
    assert messages[2]["content"] == f"[tool error] {MISSING_RESULT_TEXT}"


def test_missing_results_at_the_end_of_the_transcript():
    """A transcript ending in tool calls is completed, so it ends with ``tool`` as required."""
    messages = wire_messages(user("go"), assistant(call("D681PevKs"), stop="toolUse"))
    assert roles(messages) == ["user", "assistant", "tool"]


def test_user_after_tool_is_bridged():
    """``tool`` -> ``user`` gets an assistant turn in between, as the API requires."""
    messages = wire_messages(
        user("go"), assistant(call("D681PevKs"), stop="toolUse"), result("D681PevKs"), user("next")
    )
    assert roles(messages) == ["user", "assistant", "tool", "assistant", "user"]
    assert messages[3] == {"role": "assistant", "content": BRIDGE_TEXT}


def test_assistant_after_tool_is_not_bridged():
    """The normal agent loop (tool -> assistant) is left as it is."""
    messages = wire_messages(
        user("go"),
        assistant(call("D681PevKs"), stop="toolUse"),
        result("D681PevKs"),
        assistant(text("Done.")),
    )
    assert roles(messages) == ["user", "assistant", "tool", "assistant"]
    assert BRIDGE_TEXT not in json.dumps(messages)


@pytest.mark.parametrize(
    "messages",
    [
        pytest.param([user("go"), result("call_1")], id="no-call"),
        pytest.param(
            [
                user("go"),
                assistant(call("call_1"), stop="toolUse"),
                result("call_1"),
                result("call_1"),
            ],
            id="answered-twice",
        ),
        pytest.param(
            [user("go"), assistant(call("call_1"), stop="toolUse"), user("stop"), result("call_1")],
            id="after-the-turn-ended",
        ),
    ],
)
def test_tool_results_that_answer_no_waiting_call(messages):
    """Results the API would reject ("Unexpected tool call id") are reported by index."""
    with pytest.raises(
        InvalidTranscriptError, match=r"messages\[\d\] \(toolResult\) answers tool call id 'call_1'"
    ):
        body(*messages)


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(
            UnsupportedContentError("m", index=2, role="user", block_type="video"), id="unsupported"
        ),
        pytest.param(InvalidTranscriptError("m", index=4), id="invalid-transcript"),
    ],
)
def test_errors_survive_pickling(error):
    """The errors keep their message and context across processes."""
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), str(again), vars(again)) == (type(error), str(error), vars(error))


def test_duplicate_call_ids_in_one_turn_are_reported():
    """Two calls with one id cannot be paired with their results."""
    with pytest.raises(
        InvalidTranscriptError, match=r"messages\[1\] \(assistant\) has two tool calls"
    ):
        body(user("go"), assistant(call("x"), call("x"), stop="toolUse"))


# --- tool call ids ---------------------------------------------------------------------------


def test_foreign_ids_are_normalised_consistently():
    """``call_…``/UUID ids become 9 alphanumerics, the same in the call and its result."""
    messages = wire_messages(
        user("go"),
        assistant(
            call("call_PTLP8xhu3uwZk4l3nlnrrJha"),
            call("ee61e87d-25d8-4bad-8e47-02939eb234c5"),
            stop="toolUse",
        ),
        result("ee61e87d-25d8-4bad-8e47-02939eb234c5"),
        result("call_PTLP8xhu3uwZk4l3nlnrrJha"),
    )
    sent = [tc["id"] for tc in messages[1]["tool_calls"]]
    assert all(VALID_ID.fullmatch(i) for i in sent)
    assert len(set(sent)) == 2
    assert [messages[2]["tool_call_id"], messages[3]["tool_call_id"]] == [sent[1], sent[0]]


def test_ids_are_deterministic_across_requests():
    """The same transcript always gets the same ids (prefix caching stays warm)."""
    transcript = [user("go"), assistant(call("toolu_01A"), stop="toolUse"), result("toolu_01A")]
    assert body(*transcript) == body(*transcript)
    longer = [*transcript, assistant(text("ok")), user("more")]
    assert wire_messages(*longer)[1] == wire_messages(*transcript)[1]


def test_valid_ids_are_kept():
    """An id that already matches Mistral's rule is sent as it is."""
    assert ToolCallIds(["D681PevKs", "turn1_0"])["D681PevKs"] == "D681PevKs"


def test_id_collisions_take_the_next_candidate():
    """When a kept id equals another id's hash, that id takes its next candidate."""
    first = _candidate("call_x", 0)
    ids = ToolCallIds(["call_x", first])
    assert ids[first] == first
    assert ids["call_x"] == _candidate("call_x", 1)
    assert ids["call_x"] != first


@given(st.lists(st.text(max_size=40), max_size=60))
def test_id_mapping_is_valid_injective_and_deterministic(originals):
    """Any ids map to distinct valid ids, the same every time; valid ones are kept."""
    ids = ToolCallIds(originals)
    unique = list(dict.fromkeys(originals))
    mapped = [ids[original] for original in unique]
    assert all(VALID_ID.fullmatch(i) for i in mapped)
    assert len(set(mapped)) == len(unique) == len(ids)
    assert mapped == [ToolCallIds(originals)[original] for original in unique]
    assert all(ids[o] == o for o in unique if VALID_ID.fullmatch(o))


@given(
    st.lists(
        st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=4, unique=True),
        min_size=1,
        max_size=5,
    )
)
def test_ids_pair_calls_and_results_in_any_transcript(turns):
    """In a replayed tool loop every call id is valid and its result carries the same id."""
    messages = [user("go")]
    for turn in turns:
        messages.append(assistant(*(call(i) for i in turn), stop="toolUse"))
        messages.extend(result(i) for i in reversed(turn))
    sent = wire_messages(*messages)
    calls = [tc["id"] for m in sent if m["role"] == "assistant" for tc in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert all(VALID_ID.fullmatch(i) for i in calls)
    assert sorted(calls) == sorted(answered)
    for m_index, message in enumerate(sent):
        if message["role"] == "assistant" and "tool_calls" in message:
            own = {tc["id"] for tc in message["tool_calls"]}
            following = sent[m_index + 1 : m_index + 1 + len(own)]
            assert {m["tool_call_id"] for m in following} == own


# --- roles and block types that cannot be sent --------------------------------------------------

AGENT_ONLY = [
    pytest.param(
        BashExecutionMessage(
            command="ls", output="a", cancelled=False, truncated=False, timestamp=1
        ),
        id="bashExecution",
    ),
    pytest.param(
        PythonExecutionMessage(code="1", output="1", cancelled=False, truncated=False, timestamp=1),
        id="pythonExecution",
    ),
    pytest.param(
        CustomMessage(customType="note", content="x", display=True, timestamp=1), id="custom"
    ),
    pytest.param(
        HookMessage(customType="hook", content="x", display=True, timestamp=1), id="hookMessage"
    ),
    pytest.param(BranchSummaryMessage(summary="s", fromId="1", timestamp=1), id="branchSummary"),
    pytest.param(
        CompactionSummaryMessage(summary="s", tokensBefore=10, timestamp=1), id="compactionSummary"
    ),
    pytest.param(FileMentionMessage(files=[], timestamp=1), id="fileMention"),
]


@pytest.mark.parametrize("message", AGENT_ONLY)
def test_agent_only_roles_are_rejected_by_name(message):
    """Agent-only roles must be converted first; the error names the role and what to do."""
    with pytest.raises(UnsupportedContentError) as info:
        body(user("hi"), message)
    assert str(info.value) == (
        f"messages[1] has role {message.role!r}, which only the agent knows: "
        "convert it to a user, assistant or toolResult message first"
    )
    assert (info.value.index, info.value.role) == (1, message.role)


def test_raw_dicts_are_rejected_with_a_hint():
    """An unparsed transcript entry is named by its Python type, with the parser to use."""
    with pytest.raises(
        UnsupportedContentError,
        match=r"messages\[0\] is a dict, not a pi message.*parse_agent_message",
    ):
        body({"role": "user", "content": "hi", "timestamp": 1})


def smuggle(message, block):
    """Put an unvalidated block into a message (assignment is not validated)."""
    message.content.append(block)
    return message


@pytest.mark.parametrize(
    ("messages", "role"),
    [
        pytest.param(lambda b: [smuggle(user([text("hi")]), b)], "user", id="user"),
        pytest.param(
            lambda b: [
                user("go"),
                assistant(call("D681PevKs"), stop="toolUse"),
                smuggle(result("D681PevKs"), b),
            ],
            "toolResult",
            id="tool-result",
        ),
        pytest.param(
            lambda b: [user("go"), smuggle(assistant(text("hi")), b)], "assistant", id="assistant"
        ),
        pytest.param(
            lambda b: [smuggle(developer([text("x")]), b), user("go")], "developer", id="developer"
        ),
    ],
)
@pytest.mark.parametrize(
    ("block", "kind"),
    [
        pytest.param(
            {"type": "video", "data": SECRET_B64, "text": SECRET_TEXT}, "video", id="unknown-dict"
        ),
        pytest.param(object(), "object", id="no-type"),
    ],
)
def test_other_block_types_are_rejected_naming_type_and_role(messages, role, block, kind):
    """Any block a role cannot carry is an error naming the block type and the role."""
    with pytest.raises(
        UnsupportedContentError, match=rf"\({role}\) has a content block of type '{kind}'"
    ) as info:
        body(*messages(block))
    assert (info.value.role, info.value.block_type) == (role, kind)
    assert SECRET_B64 not in str(info.value)
    assert SECRET_TEXT not in str(info.value)


@pytest.mark.parametrize(
    "messages",
    [
        pytest.param(lambda b: [smuggle(user([text("hi")]), b)], id="user"),
        pytest.param(
            lambda b: [
                user("go"),
                assistant(call("D681PevKs"), stop="toolUse"),
                smuggle(result("D681PevKs"), b),
            ],
            id="tool-result",
        ),
        pytest.param(lambda b: [smuggle(developer([text("x")]), b), user("go")], id="developer"),
    ],
)
@pytest.mark.parametrize(
    "block",
    [
        pytest.param(ThinkingContent(thinking=SECRET_TEXT), id="thinking"),
        pytest.param(call("D681PevKs"), id="toolCall"),
    ],
)
def test_assistant_blocks_in_user_side_content_are_rejected(messages, block):
    """Assistant-only block types in user, developer or tool-result content are named."""
    with pytest.raises(UnsupportedContentError, match=f"content block of type '{block.type}'"):
        body(*messages(block))


def test_block_type_names_are_bounded_and_redacted():
    """A huge or secret-looking type tag is cut short and scrubbed in the message."""
    secret = "sk-" + "B" * 40
    with pytest.raises(UnsupportedContentError) as info:
        body(smuggle(user([text("hi")]), {"type": secret + "x" * 1000}))
    assert secret not in str(info.value)
    assert len(str(info.value)) < 300


# --- no leaks --------------------------------------------------------------------------------


def leaky_transcripts():
    """Transcripts that fail, each carrying the sentinel image and text."""
    secret_image = image(data=SECRET_B64)
    return [
        [user([text(SECRET_TEXT), secret_image]), assistant(secret_image, text(SECRET_TEXT))],
        [
            user([text(SECRET_TEXT), image(data="", url=f"https://x.test/{SECRET_TEXT}")]),
            FileMentionMessage(files=[], timestamp=1),
        ],
        [
            smuggle(
                user([text(SECRET_TEXT)]),
                {"type": "video", "text": SECRET_TEXT, "image": SECRET_B64},
            )
        ],
        [user([text(SECRET_TEXT), ImageContent(data="", mimeType="image/png")])],
        [user(SECRET_TEXT), assistant(text(SECRET_TEXT), call("x"), call("x"), stop="toolUse")],
        [user(SECRET_TEXT), result("call_1", text(SECRET_TEXT), image(data=SECRET_B64))],
        [
            user(SECRET_TEXT),
            CustomMessage(customType="n", content=SECRET_TEXT, display=True, timestamp=1),
        ],
    ]


@pytest.mark.parametrize("index", range(len(leaky_transcripts())))
def test_errors_never_contain_the_payload(index):
    """A sentinel base64 image, prompt text or image URL never appears in a raised error.

    Names (roles, block types, tool call ids) are echoed, bounded and redacted: they say
    *what* was wrong. Content never is.
    """
    with pytest.raises(ValueError) as info:
        body(*leaky_transcripts()[index])
    error = info.value
    shown = " ".join([str(error), repr(error), *map(str, error.args)])
    assert SECRET_B64 not in shown
    assert SECRET_B64[:40] not in shown
    assert "https://x.test" not in shown
    assert SECRET_TEXT not in shown


def test_request_repr_hides_image_data():
    """The built request's repr does not print image data (wire models hide payload fields)."""
    request = to_wire(model=VISION, context=Context(messages=[user([image(data=SECRET_B64)])]))
    assert SECRET_B64 not in repr(request)


# --- purity -------------------------------------------------------------------------------


def test_to_wire_does_not_change_the_context():
    """The mapping is pure: the caller's transcript is left exactly as it was."""
    messages = [
        user([text("hi"), image()]),
        assistant(ThinkingContent(thinking="t"), call("call_1"), stop="toolUse"),
        result("call_1"),
        user("more"),
    ]
    before = [m.model_dump_json() for m in messages]
    body(*messages, system="s")
    assert [m.model_dump_json() for m in messages] == before


# --- options -----------------------------------------------------------------------------------


def test_options_map_to_their_fields():
    """Sampling and tool options are sent under the spec's names; ``None`` is left out."""
    sent = body(
        user("hi"),
        tools=[READ],
        options=StreamOptions(
            temperature=0.2,
            top_p=0.9,
            max_tokens=100,
            random_seed=7,
            stop=("END", "STOP"),
            response_format="json_object",
            tool_choice="any",
            parallel_tool_calls=False,
            session_id="sess-123",
            never_raise=True,
        ),
    )
    assert {k: v for k, v in sent.items() if k not in {"messages", "tools"}} == {
        "model": "mistral-small-latest",
        "stream": True,
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 100,
        "random_seed": 7,
        "stop": ["END", "STOP"],
        "response_format": {"type": "json_object"},
        "tool_choice": "any",
        "parallel_tool_calls": False,
        "prompt_cache_key": "sess-123",
    }


def test_no_options_send_only_model_messages_and_stream():
    """Without options, only the required fields and ``stream`` go out."""
    assert set(body(user("hi"))) == {"model", "messages", "stream"}


def test_stop_string_stays_a_string():
    """A single stop sequence is sent as a string."""
    assert body(user("hi"), options=StreamOptions(stop="END"))["stop"] == "END"


def test_json_schema_response_format():
    """A JSON Schema format is sent under the spec's ``schema`` key."""
    fmt = JsonSchemaFormat(name="answer", schema={"type": "object"}, strict=True)
    assert body(user("hi"), options=StreamOptions(response_format=fmt))["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": True},
    }


@pytest.mark.parametrize("choice", ["auto", "none", "any", "required"])
def test_tool_choice_modes(choice):
    """The four modes are sent as they are."""
    assert (
        body(user("hi"), tools=[READ], options=StreamOptions(tool_choice=choice))["tool_choice"]
        == choice
    )


def test_forced_tool_choice():
    """A forced tool becomes the named-function form."""
    sent = body(user("hi"), tools=[READ], options=StreamOptions(tool_choice=ForcedTool("read")))
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "read"}}


def test_forced_tool_must_be_offered():
    """Forcing a tool that is not in the context is reported by name."""
    with pytest.raises(ValueError, match=r"forces tool 'write', which is not in context\.tools"):
        body(user("hi"), tools=[READ], options=StreamOptions(tool_choice=ForcedTool("write")))


@pytest.mark.parametrize("choice", ["any", "required"])
def test_must_call_a_tool_needs_a_tool(choice):
    """``any``/``required`` without tools is a caller bug, reported before sending."""
    with pytest.raises(ValueError, match=f"tool_choice '{choice}' needs at least one tool"):
        body(user("hi"), options=StreamOptions(tool_choice=choice))


@pytest.mark.parametrize(
    ("options", "field"),
    [
        pytest.param(StreamOptions(temperature=2.0), "temperature", id="temperature"),
        pytest.param(StreamOptions(top_p=0.0), "top_p", id="top_p"),
        pytest.param(StreamOptions(max_tokens=-1), "max_tokens", id="max_tokens"),
        pytest.param(StreamOptions(random_seed=-5), "random_seed", id="random_seed"),
    ],
)
def test_out_of_range_options_fail_naming_the_field(options, field):
    """Values the API would reject fail locally, naming the field."""
    with pytest.raises(ValidationError, match=field):
        body(user("hi"), options=options)


def test_tools_become_function_tools():
    """Tools are function tools with their JSON Schema; an empty description is left out."""
    sent = body(user("hi"), tools=[READ, Tool("now")])
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file.",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        },
        {
            "type": "function",
            "function": {"name": "now", "parameters": {"type": "object", "properties": {}}},
        },
    ]


def test_no_tools_sends_no_tools_key():
    """An empty tool list is not sent as ``[]``."""
    assert "tools" not in body(user("hi"), tools=[])


def test_duplicate_tool_names_are_reported():
    """Two tools with one name cannot be told apart by the model."""
    with pytest.raises(ValueError, match="two tools are named 'read'"):
        body(user("hi"), tools=[READ, Tool("read")])


# --- reasoning ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "level", "fields"),
    [
        pytest.param(VISION, None, {}, id="adjustable-unset"),
        pytest.param(VISION, "inherit", {}, id="adjustable-inherit"),
        pytest.param(VISION, "off", {"reasoning_effort": "none"}, id="adjustable-off"),
        pytest.param(VISION, "minimal", {"reasoning_effort": "high"}, id="adjustable-minimal"),
        pytest.param(VISION, "medium", {"reasoning_effort": "high"}, id="adjustable-medium"),
        pytest.param(VISION, "high", {"reasoning_effort": "high"}, id="adjustable-high"),
        pytest.param(VISION, "max", {"reasoning_effort": "high"}, id="adjustable-max"),
        pytest.param(
            get_model("mistral-medium-latest"),
            "xhigh",
            {"reasoning_effort": "high"},
            id="medium-3.5",
        ),
        pytest.param(MAGISTRAL, "high", {"prompt_mode": "reasoning"}, id="magistral-high"),
        pytest.param(MAGISTRAL, "minimal", {"prompt_mode": "reasoning"}, id="magistral-minimal"),
        pytest.param(MAGISTRAL, "off", {}, id="magistral-off"),
        pytest.param(LARGE, "high", {}, id="not-reasoning-high"),
        pytest.param(LARGE, "off", {}, id="not-reasoning-off"),
    ],
)
def test_reasoning_fields(model, level, fields):
    """Thinking levels map to ``reasoning_effort`` or magistral's ``prompt_mode``, per model."""
    sent = body(user("hi"), model=model, options=StreamOptions(reasoning=level))
    assert {k: v for k, v in sent.items() if k in {"reasoning_effort", "prompt_mode"}} == fields


@pytest.mark.parametrize(
    ("level", "effort"),
    [
        pytest.param("minimal", "low", id="below-all-takes-lowest"),
        pytest.param("low", "low", id="exact-low"),
        pytest.param("medium", "medium", id="exact-medium"),
        pytest.param("high", "medium", id="clamped-down"),
        pytest.param("max", "xhigh", id="max-to-highest"),
        pytest.param("off", "none", id="off"),
    ],
)
def test_reasoning_effort_clamps_onto_the_models_efforts(level, effort):
    """With ``thinking.efforts`` the highest listed effort not above the level is sent."""
    model = VISION.model_copy(
        update={"thinking": ThinkingConfig(mode="effort", efforts=["xhigh", "low", "medium"])}
    )
    sent = body(user("hi"), model=model, options=StreamOptions(reasoning=level))
    assert sent["reasoning_effort"] == effort


# --- against the spec and the SDK ------------------------------------------------------------


def spec_schema(name):
    """``(properties, required)`` of a ``components.schemas`` entry in the vendored YAML spec.

    PyYAML is not a dependency, so this reads the block by indentation: the schema at
    four spaces, its ``properties:`` keys at eight, its ``required:`` items.
    """
    lines = SPEC.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"    {name}:")
    properties, required, section = set(), set(), None
    for line in lines[start + 1 :]:
        indent = len(line) - len(line.lstrip())
        if line.strip() and indent <= 4:
            break
        if indent == 6:
            section = line.strip().rstrip(":")
        elif section == "properties" and indent == 8 and line.rstrip().endswith(":"):
            properties.add(line.strip().rstrip(":"))
        elif section == "required" and line.strip().startswith("- "):
            required.add(line.strip()[2:])
    return properties, required


def test_spec_reader_reads_the_request_schema():
    """The indentation reader finds the request's fields (guards the checks below)."""
    properties, required = spec_schema("ChatCompletionRequest")
    assert {"model", "messages", "reasoning_effort", "tool_choice"} <= properties
    assert required == {"model", "messages"}


SPEC_MESSAGES = {
    "system": "SystemMessage",
    "user": "UserMessage",
    "assistant": "AssistantMessage",
    "tool": "ToolMessage",
}


def full_transcript():
    """A transcript that exercises every kind of wire message and option."""
    messages = [
        developer("Use tools."),
        user([text("What is in this picture?"), image()]),
        assistant(
            ThinkingContent(thinking="Look at it."),
            text("Let me zoom."),
            call("call_1", name="zoom", factor=2),
            stop="toolUse",
        ),
        result("call_1", text("zoomed"), image(), name="zoom"),
        user("And now?"),
    ]
    options = StreamOptions(
        temperature=0.3,
        top_p=0.95,
        max_tokens=512,
        random_seed=1,
        stop="END",
        response_format=JsonSchemaFormat(name="a", schema={"type": "object"}),
        tool_choice=ForcedTool("zoom"),
        parallel_tool_calls=True,
        reasoning="high",
    )
    return messages, options


def test_payload_has_only_spec_fields():
    """Every key we send is a spec property, and the required ones are present."""
    messages, options = full_transcript()
    sent = body(*messages, system="Be brief.", tools=[Tool("zoom")], options=options)
    properties, required = spec_schema("ChatCompletionRequest")
    assert set(sent) <= properties
    assert required <= set(sent)
    assert set(roles(sent["messages"])) == set(SPEC_MESSAGES)
    for message in sent["messages"]:
        properties, required = spec_schema(SPEC_MESSAGES[message["role"]])
        assert set(message) <= properties
        assert required <= set(message)
    for tool_call in sent["messages"][2]["tool_calls"]:
        assert set(tool_call) <= spec_schema("ToolCall")[0]


def test_payload_validates_with_the_official_sdk():
    """The ``mistralai`` SDK parses our body into its own known message and chunk classes."""
    messages, options = full_transcript()
    sent = body(*messages, system="Be brief.", tools=[Tool("zoom")], options=options)
    parsed = ChatCompletionStreamRequest.model_validate(sent)
    assert [type(m).__name__ for m in parsed.messages] == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolMessage",
        "AssistantMessage",
        "UserMessage",
    ]
    chunks = [type(c).__name__ for c in parsed.messages[1].content]
    assert chunks == ["TextChunk", "ImageURLChunk"]


# --- snapshots -------------------------------------------------------------------------------


def agent_loop():
    """A coding-agent transcript with foreign ids, thinking, parallel calls and a failed turn."""
    return [
        user("Fix the failing test."),
        assistant(
            ThinkingContent(thinking="Run the tests first."),
            text("Running the tests."),
            call("toolu_01XyZ", name="bash", command="pytest -q"),
            stop="toolUse",
        ),
        result("toolu_01XyZ", text("1 failed"), name="bash", error=True),
        assistant(
            call("call_a", name="read", path="src/a.py"),
            call("call_b", name="read", path="tests/test_a.py"),
            stop="toolUse",
        ),
        result("call_b", text("def test_a(): ..."), name="read"),
        result("call_a", text("def a(): ..."), name="read"),
        assistant(text("I will edit"), call("call_c", name="edit"), stop="aborted"),
        result("call_c", text("edited"), name="edit"),
        developer("The user interrupted the edit."),
        user("Explain first."),
        assistant(
            text("The test expects 2, a() returns 1."),
            call("D681PevKs", name="read"),
            stop="toolUse",
        ),
        user("Go ahead."),
    ]


def vision_chat():
    """Images in user messages and tool results."""
    return [
        user([text("Compare these."), image(data="QUFB"), image(data="QkJC", mime="image/jpeg")]),
        assistant(call("shot_1", name="screenshot"), stop="toolUse"),
        result("shot_1", text("Screen:"), image(data="Q0ND"), name="screenshot"),
    ]


def chat():
    """A plain chat."""
    return [user("Hello"), assistant(text("Hi! How can I help?")), user("Tell me a joke.")]


@pytest.mark.parametrize(
    ("transcript", "call_kwargs"),
    [
        pytest.param(
            chat,
            {"system": "You are concise.", "options": StreamOptions(temperature=0.7)},
            id="chat",
        ),
        pytest.param(
            agent_loop,
            {
                "system": "You are a coding agent.",
                "tools": (Tool("bash"), READ, Tool("edit")),
                "options": StreamOptions(reasoning="high", session_id="s-1"),
            },
            id="agent-loop",
        ),
        pytest.param(vision_chat, {"tools": (Tool("screenshot"),)}, id="vision"),
        pytest.param(
            vision_chat,
            {"model": TEXT_ONLY, "tools": (Tool("screenshot"),)},
            id="vision-on-text-model",
        ),
        pytest.param(
            lambda: full_transcript()[0],
            {
                "model": MAGISTRAL,
                "system": "Think.",
                "tools": (Tool("zoom"),),
                "options": full_transcript()[1],
            },
            id="all-options-magistral",
        ),
    ],
)
def test_request_payload_snapshots(snapshot, transcript, call_kwargs):
    """The body as sent for representative transcripts."""
    assert body(*transcript(), **call_kwargs) == snapshot.use_extension(JSONSnapshotExtension)


# --- headers and URL ---------------------------------------------------------------------------


def test_session_id_becomes_x_affinity():
    """A session id routes the call to the session's prompt cache."""
    assert request_headers(model=VISION, options=StreamOptions(session_id="abc")) == {
        "x-affinity": "abc"
    }


def test_no_session_no_headers():
    """Without a session id and model headers there is nothing extra to send."""
    assert request_headers(model=VISION) == {}
    assert request_headers(model=VISION, options=StreamOptions()) == {}


def test_model_headers_are_sent_and_win_over_the_session():
    """A model's own headers are sent; its ``x-affinity`` is respected."""
    model = VISION.model_copy(update={"headers": {"X-Affinity": "pinned", "x-team": "a"}})
    assert request_headers(model=model, options=StreamOptions(session_id="abc")) == {
        "X-Affinity": "pinned",
        "x-team": "a",
    }


def test_non_string_model_header_is_reported():
    """A header value that is not a string is named, not sent as ``str(value)``."""
    model = VISION.model_copy(update={"headers": {"x-n": 1}})
    with pytest.raises(TypeError, match="model header 'x-n' is a int"):
        request_headers(model=model)


@pytest.mark.parametrize(
    ("base_url", "url"),
    [
        pytest.param(
            "https://api.mistral.ai", "https://api.mistral.ai/v1/chat/completions", id="host"
        ),
        pytest.param(
            "https://api.mistral.ai/", "https://api.mistral.ai/v1/chat/completions", id="slash"
        ),
        pytest.param(
            "https://api.mistral.ai/v1", "https://api.mistral.ai/v1/chat/completions", id="v1"
        ),
        pytest.param(
            "https://api.mistral.ai/v1/",
            "https://api.mistral.ai/v1/chat/completions",
            id="v1-slash",
        ),
        pytest.param(
            "http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/chat/completions", id="local"
        ),
        pytest.param(
            "https://gw.test/mistral", "https://gw.test/mistral/v1/chat/completions", id="prefix"
        ),
        pytest.param(
            "https://gw.test/mistral/v1",
            "https://gw.test/mistral/v1/chat/completions",
            id="prefix-v1",
        ),
    ],
)
def test_chat_completions_url(base_url, url):
    """The endpoint is built whether or not ``base_url`` ends in ``/v1`` or ``/``."""
    assert chat_completions_url(base_url) == url


@pytest.mark.parametrize("base_url", ["", " ", "/"])
def test_empty_base_url_is_an_error(base_url):
    """An empty base URL is reported instead of producing a relative path."""
    with pytest.raises(ValueError, match="base_url is empty"):
        chat_completions_url(base_url)
