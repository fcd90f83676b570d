"""Mistral wire models: chunk coverage against SDK and spec, stream quirks, strict requests."""

import json
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from syrupy.extensions.json import JSONSnapshotExtension

from adapter._mistral import wire

ADR = "docs/adr/0014-content-chunk-coverage.md"
#: The vendored public spec (see vendor/mistral/SOURCE.md); part of the repository, never skipped.
SPEC = Path(__file__).resolve().parents[3] / "vendor" / "mistral" / "openapi-public-doc.yaml"
SECRET = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="  # a base64 payload that must not be kept


def sdk_tags(union: object) -> set[str]:
    """The ``type`` tags of a ``mistralai`` union (its open-union fallback excluded)."""
    value = getattr(union, "__value__", union)  # the SDK wraps some unions in TypeAliasType
    args = get_args(value)
    members = get_args(args[0]) if len(args) and get_args(args[0]) else args
    tags = {member.model_fields["type"].default for member in members}
    return tags - {"UNKNOWN"}


def spec_union_tags(text: str, schema: str) -> set[str]:
    """The discriminator mapping keys of a ``components.schemas`` union in the YAML spec.

    PyYAML is not a dependency, so this reads the one block by indentation: the schema
    key at four spaces, its ``mapping:`` and the deeper ``tag: '#/...'`` lines under it.
    """
    lines = text.splitlines()
    start = lines.index(f"    {schema}:")
    tags: set[str] = set()
    in_mapping = False
    for line in lines[start + 1 :]:
        indent = len(line) - len(line.lstrip())
        if line.strip() and indent <= 4:
            break
        if line.strip() == "mapping:":
            in_mapping, mapping_indent = True, indent
        elif in_mapping and indent > mapping_indent and "'#/components/schemas/" in line:
            tags.add(line.strip().split(":", 1)[0])
        elif in_mapping and line.strip():
            in_mapping = False
    return tags


def coverage_message(missing: set[str]) -> str:
    return (
        f"Mistral added content chunk type(s) {sorted(missing)}: decide map or reject in the "
        f"decision table of {ADR} (never drop), then model it in src/adapter/_wire.py."
    )


def test_chunk_types_equal_the_sdk_union():
    """Our nine chunk types are exactly the ``mistralai`` SDK's ``ContentChunk`` union."""
    from mistralai.client import models

    upstream = sdk_tags(models.ContentChunk)
    assert upstream - wire.CONTENT_CHUNK_TYPES == set(), coverage_message(
        upstream - wire.CONTENT_CHUNK_TYPES
    )
    assert upstream == wire.CONTENT_CHUNK_TYPES


def test_thinking_parts_equal_the_sdk_union():
    """The parts a ``thinking`` chunk may hold match the SDK's ``Thinking`` union."""
    from mistralai.client import models

    thinking = models.ThinkChunk.model_fields["thinking"].annotation
    upstream = sdk_tags(get_args(thinking)[0])
    assert upstream - wire.THINK_PART_TYPES == set(), coverage_message(
        upstream - wire.THINK_PART_TYPES
    )
    assert upstream == wire.THINK_PART_TYPES


def test_chunk_types_cover_the_vendored_spec():
    """Every type of the spec's ``ContentChunk`` union is modelled."""
    spec_tags = spec_union_tags(SPEC.read_text(encoding="utf-8"), "ContentChunk")
    assert len(spec_tags) >= 7  # the parser found the union, not an empty block
    assert spec_tags <= wire.CONTENT_CHUNK_TYPES, coverage_message(
        spec_tags - wire.CONTENT_CHUNK_TYPES
    )


def test_spec_reader_reads_a_mapping_block():
    """The indentation reader takes the mapping keys and stops at the next schema."""
    text = (
        "    Other:\n      type: object\n"
        "    ContentChunk:\n      oneOf:\n        - $ref: '#/components/schemas/A'\n"
        "      discriminator:\n        propertyName: type\n        mapping:\n"
        "          a: '#/components/schemas/A'\n          b_c: '#/components/schemas/B'\n"
        "      title: ContentChunk\n"
        "    Next:\n      discriminator:\n        mapping:\n          z: '#/components/schemas/Z'\n"
    )
    assert spec_union_tags(text, "ContentChunk") == {"a", "b_c"}


def test_coverage_failure_points_at_the_adr():
    """A new upstream type fails with a message naming the type and the decision table."""
    message = coverage_message({"video_url"})
    assert "'video_url'" in message
    assert ADR in message
    assert Path(__file__).resolve().parents[3].joinpath(ADR).exists()


# --- parsing the stream ----------------------------------------------------------------

HEAD = '"id":"5906","object":"chat.completion.chunk","created":1764258570,"model":"m"'


def chunk(delta: str, finish: str = "null", extra: str = "") -> bytes:
    """One ``data:`` payload with the given delta JSON."""
    choice = f'{{"index":0,"delta":{delta},"finish_reason":{finish}}}'
    return f'{{{HEAD},"choices":[{choice}]{extra}}}'.encode()


def test_docs_example_stream():
    """The documented three-chunk stream: role, text pieces, stop with usage."""
    first = wire.parse_completion_chunk(chunk('{"role":"assistant","content":""}'))
    middle = wire.parse_completion_chunk(chunk('{"content":"3"}'))
    last = wire.parse_completion_chunk(
        chunk(
            '{"content":"00"}',
            '"stop"',
            ',"usage":{"prompt_tokens":19,"completion_tokens":7,"total_tokens":26}',
        )
    )
    assert first.choices[0].delta.role == "assistant"
    assert middle.choices[0].delta.content == "3"
    assert last.choices[0].finish_reason == "stop"
    assert last.usage == wire.UsageInfo(prompt_tokens=19, completion_tokens=7, total_tokens=26)


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(b'{"id":"","model":"m","choices":[]}', id="empty-id-no-object"),
        pytest.param(
            b'{"id":"x","model":"m","choices":[],"usage":{"prompt_tokens":1}}', id="usage-only"
        ),
        pytest.param(chunk('{"role":null}', extra=',"newTopLevel":1'), id="unknown-fields"),
    ],
)
def test_quirky_chunks_parse(payload):
    """Empty ids, usage-only chunks without choices and unknown fields all pass."""
    assert wire.parse_completion_chunk(payload).model == "m"


@pytest.mark.parametrize(
    "reason",
    [
        pytest.param("stop", id="stop"),
        pytest.param("length", id="length"),
        pytest.param("model_length", id="model_length"),
        pytest.param("error", id="error"),
        pytest.param("tool_calls", id="tool_calls"),
        pytest.param("content_filter", id="newer-string"),
    ],
)
def test_finish_reason_is_an_open_set(reason):
    """Known reasons and a newer string are all kept verbatim."""
    parsed = wire.parse_completion_chunk(chunk('{"content":""}', f'"{reason}"'))
    assert parsed.choices[0].finish_reason == reason


def test_tool_calls_arrive_complete():
    """A tool call delta carries id, name, the JSON-string arguments and the index."""
    delta = (
        '{"content":"","tool_calls":[{"id":"D681PevKs","function":{"name":"get_weather",'
        '"arguments":"{\\"city\\": \\"Paris\\"}"},"index":0},{"function":{"name":"f",'
        '"arguments":{"x":1}},"index":1}]}'
    )
    calls = wire.parse_completion_chunk(chunk(delta, '"tool_calls"')).choices[0].delta.tool_calls
    assert calls is not None
    assert calls[0] == wire.WireToolCall(
        id="D681PevKs",
        function=wire.FunctionCall(name="get_weather", arguments='{"city": "Paris"}'),
        index=0,
    )
    assert calls[1].id is None
    assert calls[1].function.arguments == {"x": 1}


NINE = [
    ('{"type":"text","text":"hi"}', wire.TextChunk),
    (f'{{"type":"image_url","image_url":"data:image/png;base64,{SECRET}"}}', wire.ImageURLChunk),
    (
        '{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"low"}}',
        wire.ImageURLChunk,
    ),
    ('{"type":"document_url","document_url":"https://x/d.pdf"}', wire.DocumentURLChunk),
    ('{"type":"reference","reference_ids":[1,"abc"]}', wire.ReferenceChunk),
    ('{"type":"file","file_id":"9b1c"}', wire.FileChunk),
    (
        (
            '{"type":"thinking","thinking":[{"type":"text","text":"hm"},'
            '{"type":"reference","reference_ids":[0]},'
            '{"type":"tool_reference","tool":"web_search","title":"t"}],'
            '"signature":"s","closed":true}'
        ),
        wire.ThinkChunk,
    ),
    (f'{{"type":"input_audio","input_audio":"{SECRET}"}}', wire.AudioChunk),
    ('{"type":"resource","uri":"u","content":{"type":"text","text":"r"}}', wire.ResourceChunk),
    ('{"type":"resource_link","uri":"u","metadata":{"k":1}}', wire.ResourceLinkChunk),
]


@pytest.mark.parametrize(
    ("raw", "cls"), [pytest.param(raw, cls, id=json.loads(raw)["type"]) for raw, cls in NINE]
)
def test_each_known_chunk_type_parses_in_a_delta(raw, cls):
    """All nine wire types become their own class inside ``delta.content``."""
    parsed = wire.parse_completion_chunk(chunk(f'{{"content":[{raw}]}}'))
    content = parsed.choices[0].delta.content
    assert isinstance(content, list)
    assert type(content[0]) is cls


def test_examples_cover_all_nine_types():
    """The examples above exercise every modelled type."""
    assert {json.loads(raw)["type"] for raw, _ in NINE} == wire.CONTENT_CHUNK_TYPES


def test_thinking_parts_keep_their_classes():
    """A thinking chunk's text, reference and tool_reference parts are told apart."""
    raw = NINE[6][0]
    content = wire.parse_completion_chunk(chunk(f'{{"content":[{raw}]}}')).choices[0].delta.content
    assert isinstance(content, list)
    think = content[0]
    assert isinstance(think, wire.ThinkChunk)
    assert [type(part) for part in think.thinking] == [
        wire.TextChunk,
        wire.ReferenceChunk,
        wire.ToolReferenceChunk,
    ]
    assert think.signature == "s"


def test_models_built_from_models_keep_their_classes():
    """Parts given as models, not JSON, are told apart by their ``type`` too."""
    think = wire.ThinkChunk(
        thinking=[wire.TextChunk(text="hm"), wire.ReferenceChunk(reference_ids=[1])]
    )
    delta = wire.DeltaMessage(content=[think, wire.TextChunk(text="Hi")])
    assert isinstance(delta.content, list)
    assert [type(part) for part in delta.content] == [wire.ThinkChunk, wire.TextChunk]
    assert [type(part) for part in think.thinking] == [wire.TextChunk, wire.ReferenceChunk]
    assert think.thinking[1].reference_ids == [1]


@pytest.mark.parametrize(
    ("item", "kind"),
    [
        pytest.param(f'{{"type":"video_url","video_url":"{SECRET}"}}', "video_url", id="unknown"),
        pytest.param(f'{{"data":"{SECRET}"}}', None, id="missing-type"),
        pytest.param(
            f'{{"type":"tool_reference","tool":"x","title":"{SECRET}"}}',
            "tool_reference",
            id="nested-only-type",
        ),
    ],
)
def test_unknown_chunk_types_keep_only_the_type_name(item, kind):
    """An unknown chunk parses to ``UnknownChunk(type=...)``; its payload is not kept."""
    parsed = wire.parse_completion_chunk(
        chunk(f'{{"content":[{{"type":"text","text":"a"}},{item}]}}')
    )
    content = parsed.choices[0].delta.content
    assert isinstance(content, list)
    unknown = content[1]
    assert type(unknown) is wire.UnknownChunk
    assert unknown.type == kind
    assert unknown.model_dump() == {"type": kind}
    assert SECRET not in repr(parsed)


def test_unknown_thinking_part_keeps_only_the_type_name():
    """Inside ``thinking``, an unknown part type is an ``UnknownChunk`` too."""
    raw = f'{{"type":"thinking","thinking":[{{"type":"image_url","image_url":"{SECRET}"}}]}}'
    content = wire.parse_completion_chunk(chunk(f'{{"content":[{raw}]}}')).choices[0].delta.content
    assert isinstance(content, list)
    think = content[0]
    assert isinstance(think, wire.ThinkChunk)
    assert think.thinking == [wire.UnknownChunk(type="image_url")]


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        pytest.param(b"{this is not json", "Invalid JSON", id="not-json"),
        pytest.param(
            b'{"object":"error","message":"Rate limit exceeded","type":"rate_limited"}',
            "choices",
            id="error-object",
        ),
        pytest.param(
            chunk('{"content":["bare string"]}'), "Unable to extract tag", id="non-object-chunk"
        ),
        pytest.param(chunk('{"content":[{"type":5}]}'), "type", id="non-string-type"),
        pytest.param(chunk('{"content":[{"type":"text"}]}'), "text", id="text-without-text"),
    ],
)
def test_malformed_payloads_fail_the_parse(payload, match):
    """Malformed payloads raise ``ValidationError`` naming what is wrong, not the payload."""
    with pytest.raises(ValidationError, match=match) as info:
        wire.parse_completion_chunk(payload)
    assert "Rate limit exceeded" not in str(info.value)


@pytest.mark.parametrize(
    ("usage", "cached"),
    [
        pytest.param(
            {"prompt_tokens_details": {"cached_tokens": 5}}, 5, id="prompt_tokens_details"
        ),
        pytest.param({"prompt_token_details": {"cached_tokens": 6}}, 6, id="prompt_token_details"),
        pytest.param({"num_cached_tokens": 7}, 7, id="num_cached_tokens"),
        pytest.param(
            {"prompt_tokens_details": {"cached_tokens": 5}, "num_cached_tokens": 7},
            5,
            id="details-win",
        ),
        pytest.param({"prompt_tokens_details": {}, "num_cached_tokens": 7}, 7, id="empty-details"),
        pytest.param({}, 0, id="none"),
    ],
)
def test_cached_tokens_from_any_spelling(usage, cached):
    """Cache hits are read from whichever of the three fields the server sent."""
    assert wire.UsageInfo.model_validate({"prompt_tokens": 10, **usage}).cached_tokens == cached


def test_reasoning_tokens_are_read():
    """``completion_tokens_details.reasoning_tokens`` is modelled."""
    usage = wire.UsageInfo.model_validate({"completion_tokens_details": {"reasoning_tokens": 3}})
    assert usage.completion_tokens_details == wire.CompletionTokensDetails(reasoning_tokens=3)


# --- parse_chunk: the stream's parser ----------------------------------------------------

_ABSENT = object()  # a key taken out of a generated payload

#: Values a generated payload may put anywhere: valid somewhere, coercible elsewhere
#: ("0", 1.0, "true"), or wrong.
_ANY_VALUE: tuple[object, ...] = (
    _ABSENT, None, True, False, 0, 1, -1, 1.0, 1.5, 10**30, float("nan"),
    "", "0", "1", "true", "text", "thinking", "reference", "error", "x",
    [], [None], [1, "a"], {}, {"type": "text", "text": "a"}, [{"type": "text", "text": "a"}],
)  # fmt: skip

_TEXT = {"content": "tok "}
_KINDS: tuple[dict[str, Any], ...] = (
    _TEXT,
    {"role": "assistant", "content": ""},
    {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": ""}]},
    {
        "content": [
            {"type": "thinking", "thinking": [{"type": "text", "text": "hm"}], "closed": False},
            {"type": "text", "text": "b"},
        ]
    },
    {"content": [{"type": "thinking", "thinking": [], "signature": "s"}]},
    {"content": [{"type": "text", "text": "a"}, {"type": "reference", "reference_ids": [0, "d"]}]},
    {
        "content": [
            {
                "type": "thinking",
                "thinking": [{"type": "text", "text": "hm"}, {"type": "tool_reference"}],
                "signature": "s",
                "closed": True,
            }
        ]
    },
    {"content": [{"type": "image_url", "image_url": {"url": "u"}}, {"type": "video"}]},
    {
        "content": "",
        "tool_calls": [
            {"id": "null", "function": {"name": "f", "arguments": '{"a": 1}'}, "index": 0},
            {"function": {"name": "g", "arguments": {"b": 2}}, "index": 1},
        ],
    },
)


def _tree_dicts(value: Any) -> list[dict[str, Any]]:
    """Every JSON object inside ``value``, outermost first."""
    found: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


@st.composite
def _payloads(draw: st.DrawFn) -> bytes:
    """A chunk of any kind with up to four values changed or removed, maybe damaged JSON."""
    chunk: dict[str, Any] = {
        "id": draw(st.text(max_size=6)),
        "object": "chat.completion.chunk",
        "created": 1764258570,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "delta": json.loads(json.dumps(draw(st.sampled_from((_TEXT, _TEXT, *_KINDS))))),
                "finish_reason": draw(st.sampled_from([None, None, "stop", "tool_calls"])),
            }
        ],
    }
    if draw(st.integers(0, 4)) == 0:
        usage = {"prompt_tokens": 3, "prompt_tokens_details": {"cached_tokens": 1}}
        chunk["usage"] = {**usage, "completion_tokens_details": {"reasoning_tokens": 2}}
    for _ in range(draw(st.integers(0, 4))):
        target = draw(st.sampled_from(_tree_dicts(chunk)))
        keys = sorted({*target, "type", "index", "error", "usage", "role"})
        key, value = draw(st.sampled_from(keys)), draw(st.sampled_from(_ANY_VALUE))
        if value is _ABSENT:
            target.pop(key, None)
        else:
            target[key] = json.loads(json.dumps(value))  # a fresh copy
    value: Any = draw(st.sampled_from([chunk] * 8 + [[chunk], "x", None]))
    separators = draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    text = json.dumps(value, separators=separators, ensure_ascii=draw(st.booleans()))
    damage = draw(st.sampled_from(["none"] * 5 + ["first", "last", "truncate", "trailing"]))
    key = draw(st.sampled_from(["id", "choices", "object", "error", "usage"]))
    if damage == "first" and text.startswith("{"):  # the later key wins in both parsers
        text = f'{{"{key}":null,{text[1:]}'
    elif damage == "last" and text.endswith("}"):
        text = f'{text[:-1]},"{key}":{draw(st.sampled_from(["null", "[]", "1"]))}}}'
    elif damage == "truncate":
        text = text[: draw(st.integers(0, max(len(text) - 1, 0)))]
    elif damage == "trailing":
        text += draw(st.sampled_from([" ", "\n", "x", "}", ",{}"]))
    return text.encode()


def _typed(value: Any) -> Any:
    """A value with every type spelled out, so ``1``, ``1.0`` and ``True`` differ."""
    if isinstance(value, BaseModel):
        return type(value).__name__, {name: _typed(item) for name, item in vars(value).items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    return type(value).__name__, repr(value)


def _as_plain(parsed: wire.CompletionChunk) -> wire.PlainChunk | None:
    """What ``parse_chunk`` gives for this chunk if it only adds text, read from the model."""
    if len(parsed.choices) != 1:
        return None
    choice = parsed.choices[0]
    marker = parsed.object
    if (
        choice.index != 0
        or choice.delta.tool_calls is not None
        or choice.finish_reason is not None
        or parsed.usage is not None
        or parsed.error is not None
        or (marker is not None and marker.lower() == "error")
    ):
        return None
    content = choice.delta.content
    if isinstance(content, str) or content is None:
        return None if content is None else (parsed.id, parsed.model, content)
    parts: list[wire.PlainPart] = []
    for part in content:
        if isinstance(part, wire.TextChunk):
            parts.append(("text", part.text, None))
        elif isinstance(part, wire.ThinkChunk) and all(
            isinstance(inner, wire.TextChunk) for inner in part.thinking
        ):
            text = "".join(inner.text for inner in part.thinking)  # type: ignore[union-attr]
            parts.append(("thinking", text, part.signature))
        else:
            return None
    return parsed.id, parsed.model, parts


def _outcome(parse: Any, payload: bytes) -> tuple[Any, str | None]:
    """What ``parse`` gives for ``payload``: its result, or the repr of its errors."""
    try:
        return parse(payload), None
    except ValidationError as exc:  # repr: NaN inputs compare unequal to themselves
        return None, repr((exc.title, exc.errors()))


def _agrees_with_validation(payload: bytes) -> object:
    """``parse_chunk``'s result, checked against ``parse_completion_chunk`` on the bytes."""
    expected, expected_errors = _outcome(wire.parse_completion_chunk, payload)
    got, errors = _outcome(wire.parse_chunk, payload)
    assert errors == expected_errors
    if isinstance(got, tuple):
        assert got == _as_plain(expected)
    else:
        assert _typed(got) == _typed(expected)
    return got if errors is None else errors


@given(_payloads())
def test_parse_chunk_agrees_with_validation(payload):
    """Same chunk (or ``(id, text)`` for plain text) and same errors as full validation."""
    _agrees_with_validation(payload)


_TEXTS = st.text(max_size=8)


@st.composite
def _plain_content(draw: st.DrawFn) -> tuple[Any, str | list[wire.PlainPart]]:
    """Content that only adds text: a string, or text and thinking chunks of text parts."""
    if draw(st.booleans()):
        text = draw(_TEXTS)
        return text, text
    wire_parts: list[dict[str, Any]] = []
    parts: list[wire.PlainPart] = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            text = draw(_TEXTS)
            wire_parts.append({"type": "text", "text": text})
            parts.append(("text", text, None))
            continue
        texts = draw(st.lists(_TEXTS, max_size=3))
        thinking: dict[str, Any] = {
            "type": "thinking",
            "thinking": [{"type": "text", "text": text} for text in texts],
        }
        signature = draw(st.sampled_from([_ABSENT, None, "sig"]))
        if signature is not _ABSENT:
            thinking["signature"] = signature
        closed = draw(st.sampled_from([_ABSENT, None, True, False]))
        if closed is not _ABSENT:
            thinking["closed"] = closed
        wire_parts.append(thinking)
        parts.append(("thinking", "".join(texts), None if signature is _ABSENT else signature))
    return wire_parts, parts


@st.composite
def _plain_payloads(draw: st.DrawFn) -> tuple[bytes, wire.PlainChunk]:
    """Well-formed chunks that only add text: any id and content, optional fields or not."""
    chunk_id = draw(st.text(max_size=12))
    wire_content, content = draw(_plain_content())
    delta: dict[str, Any] = {"content": wire_content}
    chunk: dict[str, Any] = {"id": chunk_id, "model": "m"}
    optional = [
        (delta, "role", (None, "assistant")),
        (delta, "tool_calls", (None,)),
        (chunk, "object", (None, "chat.completion.chunk")),
        (chunk, "created", (None, 1764258570)),
        (chunk, "usage", (None,)),
        (chunk, "logprobs", (None, 1)),
    ]
    for target, key, values in optional:
        value = draw(st.sampled_from([_ABSENT, *values]))
        if value is not _ABSENT:
            target[key] = value
    chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": None}]
    payload = json.dumps(chunk, ensure_ascii=draw(st.booleans())).encode()
    return payload, (chunk_id, "m", content)


@given(_plain_payloads())
def test_parse_chunk_gives_plain_chunks_as_id_model_and_content(case):
    """Well-formed chunks that only add text or reasoning come as ``(id, model, content)``."""
    payload, expected = case
    assert _agrees_with_validation(payload) == expected


PLAIN = chunk('{"content":"a"}')


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(chunk('{"content":"a"}', '"stop"'), id="finish-reason"),
        pytest.param(chunk('{"content":"a"}', extra=',"usage":{}'), id="usage"),
        pytest.param(chunk('{"content":"a"}', extra=',"error":false'), id="error-key"),
        pytest.param(chunk('{"content":[{"type":"reference","reference_ids":[1]}]}'), id="ref"),
        pytest.param(
            chunk(
                '{"content":[{"type":"thinking","thinking":[{"type":"reference","reference_ids":[0]}]}]}'
            ),
            id="thinking-reference",
        ),
        pytest.param(
            chunk('{"content":[{"type":"thinking","thinking":[],"closed":"true"}]}'),
            id="str-closed",
        ),
        pytest.param(chunk('{"content":[{"type":"x","text":"a"}]}'), id="unknown-with-text"),
        pytest.param(chunk('{"content":[{"text":"a"}]}'), id="untyped-with-text"),
        pytest.param(
            chunk('{"content":[{"type":"thinking","thinking":[{"type":"x","text":"a"}]}]}'),
            id="thinking-unknown-with-text",
        ),
        pytest.param(
            chunk('{"content":[{"type":"thinking","thinking":[{"text":"a"}]}]}'),
            id="thinking-untyped-with-text",
        ),
        pytest.param(chunk('{"content":"","tool_calls":[]}'), id="tool-calls"),
        pytest.param(chunk('{"content":null}'), id="null-content"),
        pytest.param(PLAIN.replace(b'"index":0', b'"index":1'), id="second-choice"),
        pytest.param(PLAIN.replace(b'"index":0', b'"index":"0"'), id="str-index"),
        pytest.param(PLAIN.replace(b'"index":0', b'"index":false'), id="bool-index"),
        pytest.param(PLAIN.replace(b"1764258570", b"1.0"), id="float-created"),
        pytest.param(PLAIN.replace(b"chat.completion.chunk", b"ERROR"), id="error-marker"),
        pytest.param(b'{"id":"a","model":"m","choices":[]}', id="no-choices"),
    ],
)
def test_parse_chunk_validates_everything_but_plain_text(payload):
    """Other valid payloads, also those validation coerces, come as the validated chunk."""
    parsed = wire.parse_chunk(payload)
    assert isinstance(parsed, wire.CompletionChunk)
    assert _typed(parsed) == _typed(wire.parse_completion_chunk(payload))


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(chunk('{"content":"a","role":5}'), id="bad-role"),
        pytest.param(PLAIN.replace(b'"5906"', b"5906"), id="int-id"),
        pytest.param(PLAIN.replace(b'"model":"m"', b'"model":null'), id="null-model"),
        pytest.param(PLAIN.replace(b"1764258570", b"[]"), id="list-created"),
        pytest.param(PLAIN.replace(b'"chat.completion.chunk"', b"7"), id="int-object"),
        pytest.param(PLAIN.replace(b'{"content":"a"}', b'["a"]'), id="delta-not-an-object"),
        pytest.param(PLAIN.replace(b"[{", b"[null,{"), id="null-choice"),
        pytest.param(PLAIN + b" x", id="trailing-bytes"),
        pytest.param(chunk('{"content":["a"]}'), id="bare-string-part"),
        pytest.param(chunk('{"content":[{"type":"text","text":1}]}'), id="int-text"),
        pytest.param(
            chunk('{"content":[{"type":"thinking","thinking":[{"type":"text","text":null}]}]}'),
            id="null-thinking-text",
        ),
        pytest.param(b"[DONE]", id="not-json"),
    ],
)
def test_parse_chunk_reports_errors_as_validation_does(payload):
    """Malformed payloads raise the errors ``parse_completion_chunk`` raises."""
    with pytest.raises(ValidationError):
        wire.parse_chunk(payload)
    _agrees_with_validation(payload)


# --- the request ------------------------------------------------------------------------


def full_request() -> wire.ChatCompletionRequest:
    """A request that uses every kind of message and option we model."""
    return wire.ChatCompletionRequest(
        model="mistral-small-latest",
        messages=[
            wire.WireSystemMessage(content="Be brief."),
            wire.WireUserMessage(
                content=[
                    wire.TextChunk(text="What is in this image?"),
                    wire.ImageURLChunk(image_url="https://example.com/cat.png"),
                ]
            ),
            wire.WireAssistantMessage(
                content="",
                tool_calls=[
                    wire.WireToolCall(
                        id="D681PevKs",
                        function=wire.FunctionCall(name="lookup", arguments='{"q": "cat"}'),
                    )
                ],
            ),
            wire.WireToolMessage(content="a cat", tool_call_id="D681PevKs", name="lookup"),
        ],
        temperature=0.3,
        max_tokens=256,
        tools=[
            wire.WireTool(
                function=wire.Function(
                    name="lookup",
                    description="Look something up.",
                    parameters={"type": "object", "properties": {"q": {"type": "string"}}},
                )
            )
        ],
        tool_choice=wire.NamedToolChoice(function=wire.FunctionName(name="lookup")),
        response_format=wire.ResponseFormat(
            type="json_schema",
            json_schema=wire.JsonSchema(name="answer", schema_={"type": "object"}, strict=True),
        ),
        reasoning_effort="high",
        prompt_mode="reasoning",
        random_seed=7,
    )


def test_request_payload(snapshot):
    """The request body as sent: spec names, ``None`` fields left out."""
    body = json.loads(full_request().to_json())
    assert body == snapshot.use_extension(JSONSnapshotExtension)
    assert body["response_format"]["json_schema"]["schema"] == {"type": "object"}
    assert "top_p" not in body


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("max_completion_tokens", 32000, id="openai-name"),
        pytest.param("stream_options", {"include_usage": True}, id="stream_options"),
        pytest.param("seed", 1, id="seed"),
    ],
)
def test_request_rejects_unknown_keys(field, value):
    """A key the API would 422 on is rejected here, by name."""
    with pytest.raises(ValidationError, match=field):
        wire.ChatCompletionRequest.model_validate(
            {"model": "m", "messages": [{"role": "user", "content": "hi"}], field: value}
        )


def test_request_messages_reject_unknown_keys():
    """``name`` on a user message (an OpenAI habit) is rejected before sending."""
    with pytest.raises(ValidationError, match="name"):
        wire.WireUserMessage.model_validate({"role": "user", "content": "hi", "name": "bob"})


def test_request_messages_dispatch_on_role():
    """An unknown role is named in the error."""
    with pytest.raises(ValidationError, match="Input tag 'developer' found using 'role'"):
        wire.ChatCompletionRequest.model_validate(
            {"model": "m", "messages": [{"role": "developer", "content": "x"}]}
        )


def test_request_content_union_is_closed():
    """We never send a chunk type outside the nine."""
    with pytest.raises(ValidationError, match="Input tag 'video_url' found using 'type'"):
        wire.WireUserMessage.model_validate({"content": [{"type": "video_url", "video_url": "u"}]})


@pytest.mark.parametrize(
    "choice",
    [
        pytest.param("auto", id="auto"),
        pytest.param("none", id="none"),
        pytest.param("any", id="any"),
        pytest.param("required", id="required"),
        pytest.param({"type": "function", "function": {"name": "f"}}, id="named"),
    ],
)
def test_tool_choice_forms(choice):
    """``tool_choice`` is a mode or a named function, and round-trips as sent."""
    request = wire.ChatCompletionRequest.model_validate(
        {"model": "m", "messages": [{"role": "user", "content": "x"}], "tool_choice": choice}
    )
    assert json.loads(request.to_json())["tool_choice"] == choice


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("temperature", 1.6, id="temperature"),
        pytest.param("top_p", 0, id="top_p"),
        pytest.param("reasoning_effort", "extreme", id="reasoning_effort"),
        pytest.param("prompt_mode", "fast", id="prompt_mode"),
    ],
)
def test_request_values_are_checked(field, value):
    """Values outside the spec's ranges and enums fail locally, naming the field."""
    with pytest.raises(ValidationError, match=field):
        wire.ChatCompletionRequest.model_validate(
            {"model": "m", "messages": [{"role": "user", "content": "x"}], field: value}
        )
