"""Mistral chat-completions wire models, hand-written and small.

Only the fields we send or read are modelled (the vendored OpenAPI spec and the
``mistralai`` SDK are the reference, not the source). Three kinds of model:

- **Request** models (:class:`ChatCompletionRequest`, the four messages, tools,
  ``tool_choice``, ``response_format``) forbid unknown keys: the API answers an unknown
  key with 422 ``extra_forbidden``, so a typo in our request mapping fails here, before
  anything is sent.
- **Response** models (:class:`CompletionChunk` and everything in it) ignore unknown
  keys, so a field Mistral adds tomorrow passes. ``finish_reason`` is an open set.
- **Content chunks** serve both directions. They ignore unknown keys too (a field we
  do not store is never sent either).

Unknown content chunk types are never dropped and never fail the parse: in a
response, a chunk whose ``type`` we do not know (or that has no ``type``) becomes an
:class:`UnknownChunk` that carries *only the type name*, never the payload. The stream
mapper matches on the chunk classes and rejects an ``UnknownChunk`` (and any known type
pi cannot show) with an error naming the type, per ADR 0014
(``docs/adr/0014-content-chunk-coverage.md``). A malformed payload (not JSON, a field
of the wrong type, a chunk that is not an object) is a :class:`pydantic.ValidationError`
from :func:`parse_completion_chunk` instead. The request-side union is closed: we only
send the nine types.

Parsing: :func:`parse_completion_chunk` is one call per ``data:`` payload
(``CompletionChunk.model_validate_json`` on the raw bytes). The stream reads payloads
with :func:`parse_chunk` instead, which gives the same answers faster
(``bench/chunk_parse.py``). Nearly every chunk of a reply only adds text or reasoning
(one choice whose ``delta.content`` is a string, or a list of ``text`` chunks and
``thinking`` chunks made of ``text`` parts); for those it returns just the chunk id, model
and the content (a :data:`PlainChunk`), decoded with pydantic's own JSON parser
(``pydantic_core.from_json``) and checked by hand for exactly what validation would
accept unchanged, without building the model instances. Any other payload is
validated from the decoded value (no second parse), and one that fails is validated
again from the bytes, so errors are reported exactly as
:func:`parse_completion_chunk` reports them. ``tests/adapter/mistral/test_wire.py`` checks
both claims on generated payloads, and ``tests/adapter/mistral/test_stream.py`` that the
mapping is the same either way.

.. versionadded:: 0.1.0
"""

from typing import Annotated, Any, Literal, TypeAlias, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
)
from pydantic_core import from_json as _from_json

__all__ = [
    "CONTENT_CHUNK_TYPES",
    "THINK_PART_TYPES",
    "AudioChunk",
    "ChatCompletionRequest",
    "CompletionChunk",
    "CompletionResponseStreamChoice",
    "CompletionTokensDetails",
    "ContentChunk",
    "DeltaContentChunk",
    "DeltaMessage",
    "DocumentURLChunk",
    "FileChunk",
    "FinishReason",
    "Function",
    "FunctionCall",
    "FunctionName",
    "ImageURL",
    "ImageURLChunk",
    "JsonSchema",
    "KnownFinishReason",
    "NamedToolChoice",
    "PlainChunk",
    "PlainPart",
    "Prediction",
    "PromptMode",
    "PromptTokensDetails",
    "ReasoningEffort",
    "ReferenceChunk",
    "ResourceChunk",
    "ResourceLinkChunk",
    "ResponseFormat",
    "TextChunk",
    "ThinkChunk",
    "ThinkPart",
    "ToolReferenceChunk",
    "UnknownChunk",
    "UsageInfo",
    "WireAssistantMessage",
    "WireMessage",
    "WireSystemMessage",
    "WireTool",
    "WireToolCall",
    "WireToolChoice",
    "WireToolMessage",
    "WireUserMessage",
    "parse_chunk",
    "parse_completion_chunk",
]


class _Response(BaseModel):
    """Read from the wire: frozen, and unknown keys are ignored so new fields pass."""

    model_config = ConfigDict(frozen=True, extra="ignore", hide_input_in_errors=True)


class _Request(BaseModel):
    """Sent to the wire: frozen, and unknown keys are an error (the API would 422)."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        hide_input_in_errors=True,
        validate_by_name=True,
        serialize_by_alias=True,
    )


# --- content chunks ------------------------------------------------------------------


class TextChunk(_Response):
    """``{"type": "text", "text": ...}``."""

    type: Literal["text"] = "text"
    text: str = Field(repr=False)


class ImageURL(_Response):
    """The object form of ``image_url``; ``url`` may be a ``data:`` URL."""

    url: str = Field(repr=False)
    detail: str | None = None


class ImageURLChunk(_Response):
    """An image by URL or ``data:`` URI, bare or as :class:`ImageURL`."""

    type: Literal["image_url"] = "image_url"
    image_url: str | ImageURL = Field(repr=False)


class DocumentURLChunk(_Response):
    """A document by URL (user input; never streamed by chat models we know of)."""

    type: Literal["document_url"] = "document_url"
    document_url: str = Field(repr=False)
    document_name: str | None = None


class ReferenceChunk(_Response):
    """Citation marker: indexes into the references supplied with tool results."""

    type: Literal["reference"] = "reference"
    reference_ids: list[int | str]


class FileChunk(_Response):
    """An uploaded file by id."""

    type: Literal["file"] = "file"
    file_id: str


class AudioChunk(_Response):
    """Base64 audio input (Voxtral); pi has no audio surface (ADR 0014)."""

    type: Literal["input_audio"] = "input_audio"
    input_audio: str = Field(repr=False)


class ToolReferenceChunk(_Response):
    """A built-in tool's source, only inside a ``thinking`` chunk."""

    type: Literal["tool_reference"] = "tool_reference"
    tool: str
    title: str
    url: str | None = None
    favicon: str | None = None
    description: str | None = None


class UnknownChunk(_Response):
    """A chunk of a type we do not know: only the type name is kept, never the payload.

    ``type`` is ``None`` when the chunk had no ``type`` key. The stream mapper rejects
    it with an error naming the type (ADR 0014).
    """

    type: str | None = None


def _tagger(known: frozenset[str]) -> Any:
    """A callable discriminator: a known ``type`` selects its model, else ``unknown``.

    Objects without a known type go to :class:`UnknownChunk` (whose validation then
    rejects a ``type`` that is not a string); non-objects get no tag, which pydantic
    reports as a validation error.
    """

    def tag(value: Any) -> str | None:
        if isinstance(value, dict):
            kind = value.get("type")
        elif isinstance(value, BaseModel):
            kind = getattr(value, "type", None)
        else:
            return None
        return kind if isinstance(kind, str) and kind in known else "unknown"

    return tag


THINK_PART_TYPES = frozenset({"text", "reference", "tool_reference"})
#: A part of a ``thinking`` chunk; an unknown part type becomes :class:`UnknownChunk`.
ThinkPart: TypeAlias = Annotated[
    Annotated[TextChunk, Tag("text")]
    | Annotated[ReferenceChunk, Tag("reference")]
    | Annotated[ToolReferenceChunk, Tag("tool_reference")]
    | Annotated[UnknownChunk, Tag("unknown")],
    Discriminator(_tagger(THINK_PART_TYPES)),
]


class ThinkChunk(_Response):
    """Reasoning: a list of parts (text, and citation or tool references)."""

    type: Literal["thinking"] = "thinking"
    thinking: list[ThinkPart]
    signature: str | None = Field(default=None, repr=False)
    closed: bool | None = None


class ResourceChunk(_Response):
    """An embedded resource (SDK-only; undocumented for chat completions)."""

    type: Literal["resource"] = "resource"
    uri: str
    content: Annotated[TextChunk | ImageURLChunk, Field(discriminator="type")]


class ResourceLinkChunk(_Response):
    """A link to a resource (SDK-only; undocumented for chat completions)."""

    type: Literal["resource_link"] = "resource_link"
    uri: str
    metadata: dict[str, str | int | float | bool] | None = None


#: The nine wire types, closed: what a request may contain.
ContentChunk: TypeAlias = Annotated[
    TextChunk
    | ImageURLChunk
    | DocumentURLChunk
    | ReferenceChunk
    | FileChunk
    | ThinkChunk
    | AudioChunk
    | ResourceChunk
    | ResourceLinkChunk,
    Field(discriminator="type"),
]

#: The ``type`` tags of :data:`ContentChunk`, for the mapper and the coverage test.
CONTENT_CHUNK_TYPES = frozenset(
    member.model_fields["type"].default for member in get_args(get_args(ContentChunk)[0])
)

#: What a response delta may contain: the nine types, or :class:`UnknownChunk`.
DeltaContentChunk: TypeAlias = Annotated[
    Annotated[TextChunk, Tag("text")]
    | Annotated[ImageURLChunk, Tag("image_url")]
    | Annotated[DocumentURLChunk, Tag("document_url")]
    | Annotated[ReferenceChunk, Tag("reference")]
    | Annotated[FileChunk, Tag("file")]
    | Annotated[ThinkChunk, Tag("thinking")]
    | Annotated[AudioChunk, Tag("input_audio")]
    | Annotated[ResourceChunk, Tag("resource")]
    | Annotated[ResourceLinkChunk, Tag("resource_link")]
    | Annotated[UnknownChunk, Tag("unknown")],
    Discriminator(_tagger(CONTENT_CHUNK_TYPES)),
]


# --- tool calls ----------------------------------------------------------------------


class FunctionCall(_Response):
    """The called function; ``arguments`` is a JSON string (or, rarely, an object)."""

    name: str = ""
    arguments: str | dict[str, Any] = Field(default="", repr=False)


class WireToolCall(_Response):
    """A tool call, in a response delta or replayed in an assistant message.

    ``id`` is ``None`` or the string ``"null"`` when the server has not sent one yet
    (a Speakeasy default that leaks onto the wire).
    """

    id: str | None = None
    type: str = "function"
    function: FunctionCall
    index: int = 0


# --- response ------------------------------------------------------------------------

#: The reasons Mistral is known to send (``model_length`` so far only on non-streamed
#: responses); the chunk builders of ``adapter.testing`` accept these.
KnownFinishReason: TypeAlias = Literal["stop", "length", "model_length", "error", "tool_calls"]
#: Why a choice stopped; an open set, since Mistral adds reasons over time.
FinishReason: TypeAlias = KnownFinishReason | str


class DeltaMessage(_Response):
    """What one chunk adds to the message: text, chunks and/or tool calls."""

    role: str | None = None
    content: str | list[DeltaContentChunk] | None = None
    tool_calls: list[WireToolCall] | None = None


class CompletionResponseStreamChoice(_Response):
    """One choice of a chunk (we read choice 0)."""

    index: int
    delta: DeltaMessage
    finish_reason: FinishReason | None = None


class PromptTokensDetails(_Response):
    """Prompt token breakdown; ``cached_tokens`` are prompt-cache hits."""

    cached_tokens: int | None = None


class CompletionTokensDetails(_Response):
    """Completion token breakdown."""

    reasoning_tokens: int | None = None


class UsageInfo(_Response):
    """Token usage, on the last chunk. Cache hits hide under three spellings."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    prompt_tokens_details: PromptTokensDetails | None = None
    prompt_token_details: PromptTokensDetails | None = None
    num_cached_tokens: int | None = None
    completion_tokens_details: CompletionTokensDetails | None = None

    @property
    def cached_tokens(self) -> int:
        """Prompt tokens served from cache, from whichever field the server used."""
        for details in (self.prompt_tokens_details, self.prompt_token_details):
            if details is not None and details.cached_tokens is not None:
                return details.cached_tokens
        return self.num_cached_tokens or 0


class CompletionChunk(_Response):
    """One ``data:`` payload of the stream. ``choices`` may be empty (usage-only).

    ``error`` is kept only so that the stream mapper sees, without decoding the
    payload again, that a chunk-shaped payload also carries an error object.
    """

    id: str
    object: str | None = None
    created: int | None = None
    model: str
    choices: list[CompletionResponseStreamChoice]
    usage: UsageInfo | None = None
    error: Any = Field(default=None, repr=False)


def parse_completion_chunk(data: bytes | bytearray | str) -> CompletionChunk:
    """Decode and validate one ``data:`` payload in a single call.

    Raises:
        pydantic.ValidationError: the payload is not JSON or not a chunk.

    .. versionadded:: 0.1.0
    """
    chunk: CompletionChunk = _validate_chunk_json(data)
    return chunk


# The validator's own methods, bound once: ``model_validate_json`` is a Python wrapper
# that only forwards default arguments, and this is called once per chunk.
_validate_chunk_json = CompletionChunk.__pydantic_validator__.validate_json
_validate_chunk_python = CompletionChunk.__pydantic_validator__.validate_python

#: One part of a :data:`PlainChunk`'s content: ``("text", text, None)`` for a ``text``
#: chunk, ``("thinking", text, signature)`` for a ``thinking`` chunk whose parts are all
#: ``text`` (their texts joined).
PlainPart: TypeAlias = tuple[Literal["text", "thinking"], str, str | None]
#: A chunk that only adds text or reasoning, as :func:`parse_chunk` returns it:
#: ``(chunk id, content)``, the content a string or a list of :data:`PlainPart`.
PlainChunk: TypeAlias = tuple[str, str, str | list[PlainPart]]


def parse_chunk(data: bytes | bytearray | str) -> PlainChunk | CompletionChunk:
    """Decode one ``data:`` payload: a :data:`PlainChunk` when it only adds text.

    That is a :class:`CompletionChunk` whose only choice has ``index`` 0 and a
    ``delta.content`` that is a string (possibly empty) or a list of ``text`` chunks
    and ``thinking`` chunks made of ``text`` parts, with no ``tool_calls``, no
    ``finish_reason``, no ``usage``, no ``error`` and an ``object`` other than
    ``"error"`` (in any case): nearly every chunk of a reply, Mistral's first one
    included. For it, the result is ``(id, model, content)``, what
    :func:`parse_completion_chunk` would give for those fields; any other payload gives
    the validated :class:`CompletionChunk`.

    Raises:
        pydantic.ValidationError: as :func:`parse_completion_chunk` raises it, with
            the same errors.

    .. versionadded:: 0.1.0
    """
    try:
        value = _from_json(data)
    except ValueError:
        return parse_completion_chunk(data)  # raises the parse error as validation reports it
    plain = _plain_chunk(value)
    if plain is not None:
        return plain
    try:
        chunk: CompletionChunk = _validate_chunk_python(value)
    except ValidationError:
        # Validated again from the bytes, so the errors are the ones they give (the
        # same fields and messages the decoded value would give, but JSON's wording).
        return parse_completion_chunk(data)
    return chunk


def _plain_chunk(chunk: Any) -> PlainChunk | None:
    """``(id, model, content)`` if the decoded payload is a :data:`PlainChunk`, else ``None``.

    The JSON parser is the one validation uses (same syntax, same strings, the last
    of duplicate keys wins), and each check admits only values that validation
    accepts unchanged (no coercion: ``"index": "0"`` is left to validation).
    Unknown keys are ignored, as the model ignores them.
    """
    found = _plain_envelope(chunk)
    if found is None:
        return None
    chunk_id, model, delta = found
    if len(delta) > 1:  # the first chunk's role, or keys that validation ignores
        role = delta.get("role")
        if (role is not None and role.__class__ is not str) or delta.get("tool_calls") is not None:
            return None
    content = delta.get("content")
    if content.__class__ is str:
        return chunk_id, model, content
    if content.__class__ is not list:
        return None
    parts = _plain_parts(content)
    return None if parts is None else (chunk_id, model, parts)


def _plain_envelope(chunk: Any) -> tuple[str, str, dict[str, Any]] | None:
    """``(id, model, delta)`` of a chunk with one plain choice and nothing else, else ``None``."""
    # ``x.__class__ is str`` rather than ``isinstance``: bool is not an int here, and a
    # JSON value is never a subclass. Subscripts for the keys a chunk always has (a
    # missing one is a KeyError: not plain), ``in`` for those it usually lacks.
    if chunk.__class__ is not dict:
        return None
    try:
        chunk_id = chunk["id"]
        model = chunk["model"]
        # Of the JSON values, only a one-item list unpacks to one object (a dict
        # unpacks to its key, a string to its character); the dict check follows.
        (choice,) = chunk["choices"]
        index = choice["index"]
        delta = choice["delta"]
    except (KeyError, TypeError, ValueError):
        return None
    marker = chunk.get("object")
    created = chunk.get("created")
    if (
        chunk_id.__class__ is not str
        or model.__class__ is not str
        or choice.__class__ is not dict
        or (created is not None and created.__class__ is not int)
        or (
            marker is not None
            and marker != "chat.completion.chunk"  # the usual value: no case folding
            and (marker.__class__ is not str or marker.lower() == "error")
        )
        or ("usage" in chunk and chunk["usage"] is not None)
        or ("error" in chunk and chunk["error"] is not None)
        or index != 0
        or index.__class__ is not int
        or delta.__class__ is not dict
        or choice.get("finish_reason") is not None
    ):
        return None
    return chunk_id, model, delta


def _plain_parts(content: list[Any]) -> list[PlainPart] | None:
    """The :data:`PlainPart` of each ``text`` or plain ``thinking`` chunk, else ``None``."""
    parts: list[PlainPart] = []
    for part in content:
        if part.__class__ is not dict:
            return None
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            if text.__class__ is not str:
                return None
            parts.append(("text", text, None))
        elif kind == "thinking":
            thinking = _thinking_text(part)
            if thinking is None:
                return None
            parts.append(thinking)
        else:
            return None
    return parts


def _thinking_text(part: dict[str, Any]) -> PlainPart | None:
    """``("thinking", text, signature)`` for a thinking chunk of text parts only."""
    inner = part.get("thinking")
    signature = part.get("signature")
    closed = part.get("closed")
    if (
        inner.__class__ is not list
        or (signature is not None and signature.__class__ is not str)
        or (closed is not None and closed.__class__ is not bool)
    ):
        return None
    texts: list[str] = []
    for piece in inner:
        if piece.__class__ is not dict or piece.get("type") != "text":
            return None
        text = piece.get("text")
        if text.__class__ is not str:
            return None
        texts.append(text)
    return "thinking", "".join(texts), signature


# --- request -------------------------------------------------------------------------

#: ``reasoning_effort``; ``max`` is in the SDK 3.7.0 enum but not yet in the spec.
ReasoningEffort: TypeAlias = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
#: ``prompt_mode``: ``reasoning`` selects the reasoning system prompt (magistral).
PromptMode: TypeAlias = Literal["reasoning"]


class WireSystemMessage(_Request):
    """A system prompt: text, or text and thinking chunks."""

    role: Literal["system"] = "system"
    content: str | list[Annotated[TextChunk | ThinkChunk, Field(discriminator="type")]]


class WireUserMessage(_Request):
    """A user turn."""

    role: Literal["user"] = "user"
    content: str | list[ContentChunk] | None


class WireAssistantMessage(_Request):
    """A replayed assistant turn; ``prefix`` asks the model to continue it."""

    role: Literal["assistant"] = "assistant"
    content: str | list[ContentChunk] | None = None
    tool_calls: list[WireToolCall] | None = None
    prefix: bool | None = None


class WireToolMessage(_Request):
    """A tool result; ``tool_call_id`` must be 9 alphanumerics."""

    role: Literal["tool"] = "tool"
    content: str | list[ContentChunk] | None
    tool_call_id: str | None = None
    name: str | None = None


#: A request message, discriminated by ``role``.
WireMessage: TypeAlias = Annotated[
    WireSystemMessage | WireUserMessage | WireAssistantMessage | WireToolMessage,
    Field(discriminator="role"),
]


class Function(_Request):
    """A function the model may call; ``parameters`` is a JSON Schema."""

    name: str
    description: str | None = None
    parameters: dict[str, Any]
    strict: bool | None = None


class WireTool(_Request):
    """A function tool (the built-in tools are not used by this adapter)."""

    type: Literal["function"] = "function"
    function: Function


class FunctionName(_Request):
    """Names the function a :class:`NamedToolChoice` forces."""

    name: str


class NamedToolChoice(_Request):
    """Force one particular function."""

    type: Literal["function"] = "function"
    function: FunctionName


#: ``tool_choice``: a mode, or one named function.
WireToolChoice: TypeAlias = Literal["auto", "none", "any", "required"] | NamedToolChoice


class JsonSchema(_Request):
    """A named JSON Schema for structured output; ``schema`` is ``schema_`` in Python."""

    name: str
    description: str | None = None
    schema_: dict[str, Any] = Field(alias="schema")
    strict: bool | None = None


class ResponseFormat(_Request):
    """``response_format``: free text, any JSON object, or JSON matching a schema."""

    type: Literal["text", "json_object", "json_schema"] = "text"
    json_schema: JsonSchema | None = None


class Prediction(_Request):
    """Expected output, to speed up near-identical rewrites."""

    type: Literal["content"] = "content"
    content: str = ""


class ChatCompletionRequest(_Request):
    """The body of ``POST /v1/chat/completions``: spec fields only, as of the vendored spec.

    Serialize with :meth:`to_json`, which leaves out every field that is ``None``.
    """

    model: str
    messages: list[WireMessage]
    temperature: float | None = Field(default=None, ge=0, le=1.5)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=0)
    stream: bool = True
    stop: str | list[str] | None = None
    random_seed: int | None = Field(default=None, ge=0)
    metadata: dict[str, Any] | None = None
    response_format: ResponseFormat | None = None
    tools: list[WireTool] | None = None
    tool_choice: WireToolChoice | None = None
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    n: int | None = Field(default=None, ge=1)
    prediction: Prediction | None = None
    parallel_tool_calls: bool | None = None
    reasoning_effort: ReasoningEffort | None = None
    prompt_mode: PromptMode | None = None
    prompt_cache_key: str | None = None
    service_tier: Literal["auto", "standard_only"] | None = None
    safe_prompt: bool | None = None

    def to_json(self) -> bytes:
        """The request body as JSON bytes, without the fields left at ``None``."""
        return self.model_dump_json(exclude_none=True).encode()
