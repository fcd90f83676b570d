"""pi -> Mistral: the request body, its headers and its URL, as pure functions.

:func:`to_wire` turns a :class:`~adapter.pi._context.Context` into the body of
``POST /v1/chat/completions``. It never sends anything and imports no HTTP client.
Every decision below is documented with its reason in ``docs/adapter.md``
("Request mapping"); in short:

- **Roles.** ``user`` -> ``user``; ``assistant`` -> ``assistant``; ``toolResult`` ->
  ``tool``; ``developer`` -> folded, with the system prompt, into one leading
  ``system`` message (Mistral rejects a ``system`` message after an assistant or tool
  message and as the last message). The agent-only roles raise
  :class:`UnsupportedContentError`: the agent converts them first.
- **Blocks.** Text is sent unless blank. Images become ``data:`` URLs when the model
  accepts images, and an explicit text placeholder otherwise. Assistant thinking,
  redacted thinking and Anthropic's ``fallback``/``anthropicServerTool`` markers are
  not replayed (ADR 0014's documented skip); an assistant image or any unknown block
  raises :class:`UnsupportedContentError` naming the type and the role.
- **Replay.** Assistant turns that ended in ``error`` or ``aborted`` are left out,
  and so are the results of their tool calls; an assistant turn left with nothing
  to say is left out; a tool call without a result before the next turn gets a
  synthetic error result; a ``user`` message right after a ``tool`` message gets a
  bridging assistant turn; tool call ids become Mistral's nine alphanumerics
  (:class:`ToolCallIds`).

Errors name the message index, the role and the block type, never the content.

.. versionadded:: 0.1.0
"""

import functools
import hashlib
import json
import re
import string
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeAlias

from adapter._mistral import wire
from adapter.pi._content import (
    AnthropicServerToolContent,
    FallbackContent,
    ImageContent,
    RedactedThinkingContent,
    TextContent,
    ThinkingContent,
    ToolCall,
)
from adapter.pi._context import Context, ForcedTool, JsonSchemaFormat, StreamOptions, Tool
from adapter.pi._messages import (
    AssistantMessage,
    DeveloperMessage,
    ToolResultMessage,
    UserMessage,
)
from adapter.pi._model import Effort, ModelInfo
from llm_errors import redact

__all__ = [
    "BRIDGE_TEXT",
    "MISSING_RESULT_TEXT",
    "InvalidTranscriptError",
    "ToolCallIds",
    "UnsupportedContentError",
    "chat_completions_url",
    "request_headers",
    "to_wire",
]

#: The assistant turn inserted between a ``tool`` message and a following ``user``
#: message, which some Mistral models reject ("Unexpected role 'user' after role 'tool'").
BRIDGE_TEXT = "I have processed the tool results."
#: The text of the synthetic result given to a tool call that has none.
MISSING_RESULT_TEXT = "No result provided"
#: Prefixed to the text of a tool result whose ``isError`` is set: the wire has no flag.
_ERROR_PREFIX = "[tool error]"
#: The text of a tool result that has neither text nor images.
_NO_OUTPUT_TEXT = "(no output)"

#: Agent-only roles: pi's agent turns them into LLM messages before a call.
_AGENT_ONLY_ROLES = frozenset(
    {
        "bashExecution",
        "pythonExecution",
        "custom",
        "hookMessage",
        "branchSummary",
        "compactionSummary",
        "fileMention",
    }
)
#: Effort levels from least to most, for clamping onto what a model accepts.
_EFFORT_ORDER: tuple[Effort, ...] = ("minimal", "low", "medium", "high", "xhigh", "max")
#: What the documented adjustable-reasoning models accept besides ``none`` (DOCS,
#: "Adjustable reasoning": ``high`` and ``none`` for mistral-small and mistral-medium-3.5).
_DEFAULT_EFFORTS: tuple[Effort, ...] = ("high",)

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")

_Chunks: TypeAlias = list[wire.ContentChunk]


# --- errors ----------------------------------------------------------------------------


def _shown(value: object, limit: int = 64) -> str:
    """A short, redacted repr of a name or id for an error message."""
    return repr(redact(str(value)[:limit]))


class UnsupportedContentError(ValueError):
    """A message role or content block the Mistral request cannot carry.

    A caller bug, not a runtime failure, so it sits outside the ``LlmError`` tree
    and no retry policy retries it. The message names the message index, the role
    and the block type, never the content.

    .. versionadded:: 0.1.0
    """

    def __init__(
        self, message: str, *, index: int, role: str, block_type: str | None = None
    ) -> None:
        super().__init__(message)
        self.index = index
        self.role = role
        self.block_type = block_type

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        rebuild = functools.partial(
            type(self), index=self.index, role=self.role, block_type=self.block_type
        )
        return rebuild, (str(self),)


class InvalidTranscriptError(ValueError):
    """The transcript's tool calls and results do not pair up.

    Mistral rejects such a request ("Unexpected tool call id", "Duplicate tool call
    id"); this says which message is wrong before anything is sent.

    .. versionadded:: 0.1.0
    """

    def __init__(self, message: str, *, index: int) -> None:
        super().__init__(message)
        self.index = index

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return functools.partial(type(self), index=self.index), (str(self),)


def _unsupported_block(
    block: object, *, index: int, role: str, why: str
) -> UnsupportedContentError:
    kind = getattr(block, "type", None)
    if kind is None and isinstance(block, Mapping):
        kind = block.get("type")
    name = str(kind) if kind is not None else type(block).__name__
    return UnsupportedContentError(
        f"messages[{index}] ({role}) has a content block of type {_shown(name)}: {why}",
        index=index,
        role=role,
        block_type=name,
    )


# --- tool call ids ---------------------------------------------------------------------

_VALID_ID = re.compile(r"[a-zA-Z0-9]{9}")
_BASE62 = string.digits + string.ascii_letters
_ID_LENGTH = 9


def _candidate(original: str, attempt: int) -> str:
    """The ``attempt``-th deterministic 9-character base62 id for ``original``."""
    data = original.encode("utf-8", "surrogatepass")
    if attempt:
        data += b"\x00" + str(attempt).encode()
    number = int.from_bytes(
        hashlib.blake2b(data, digest_size=16, person=b"mistral-tool-id").digest(), "big"
    )
    digits = []
    for _ in range(_ID_LENGTH):
        number, digit = divmod(number, 62)
        digits.append(_BASE62[digit])
    return "".join(digits)


class ToolCallIds:
    """Maps the tool call ids of one request onto Mistral's ``^[a-zA-Z0-9]{9}$``.

    Ids that already match are kept as they are (Mistral's own ids do). Every other
    id gets a blake2b hash in base62; when that candidate is taken (by a kept id or
    an earlier hash), the next candidate of the same id is tried, so the mapping is
    one-to-one. It depends only on the ids and their order, so the same transcript
    always gets the same ids, in the assistant message and in its results alike.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_to_original", "_to_wire")

    def __init__(self, originals: Iterable[str]) -> None:
        ordered = list(dict.fromkeys(originals))
        self._to_wire: dict[str, str] = {}
        self._to_original: dict[str, str] = {}
        for original in ordered:  # kept ids first, so no hash can take their place
            if _VALID_ID.fullmatch(original):
                self._bind(original, original)
        for original in ordered:
            if original in self._to_wire:
                continue
            attempt = 0
            while (candidate := _candidate(original, attempt)) in self._to_original:
                attempt += 1
            self._bind(original, candidate)

    def _bind(self, original: str, wire_id: str) -> None:
        self._to_wire[original] = wire_id
        self._to_original[wire_id] = original

    def __getitem__(self, original: str) -> str:
        """The wire id of ``original`` (which must be one of the ids given)."""
        return self._to_wire[original]

    def __len__(self) -> int:
        return len(self._to_wire)


# --- content ---------------------------------------------------------------------------


def _clean(text: str) -> str:
    """``text`` with lone UTF-16 surrogates replaced by U+FFFD: they cannot be sent as UTF-8."""
    if _LONE_SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _blank(text: str) -> bool:
    return not text.strip()


def _image_chunk(block: ImageContent, *, index: int, role: str) -> wire.ImageURLChunk:
    """A ``data:`` URL from ``data`` + ``mimeType``; ``url`` only when there is no data."""
    if block.data:
        url = f"data:{block.mimeType};base64,{block.data}"
    elif block.url:
        url = block.url
    else:
        raise UnsupportedContentError(
            f"messages[{index}] ({role}) has an image block with neither data nor url",
            index=index,
            role=role,
            block_type="image",
        )
    if block.detail is None:
        return wire.ImageURLChunk(image_url=url)
    detail = "high" if block.detail == "original" else block.detail
    return wire.ImageURLChunk(image_url=wire.ImageURL(url=url, detail=detail))


def _image_placeholder(model: ModelInfo) -> str | None:
    """The text that replaces an image ``model`` cannot take, or ``None`` if it takes images."""
    if "image" in model.input:
        return None
    return f"(image omitted: model {model.id} does not accept images)"


#: Joins the system prompt and the developer messages into one system message.
_SYSTEM_JOIN = "\n\n"
#: Replaces an image in a developer message: system messages carry text only.
_SYSTEM_IMAGE_PLACEHOLDER = "(image omitted: system messages cannot carry images)"


def _content_parts(
    blocks: Iterable[object], *, placeholder: str | None, index: int, role: str
) -> list[str | wire.ImageURLChunk]:
    """User-side blocks as texts and image chunks, in order; blank text dropped.

    An image becomes ``placeholder`` when that is set, an image chunk otherwise.
    """
    parts: list[str | wire.ImageURLChunk] = []
    for block in blocks:
        match block:
            case TextContent(text=text):
                if not _blank(text):
                    parts.append(_clean(text))
            case ImageContent():
                parts.append(
                    placeholder
                    if placeholder is not None
                    else _image_chunk(block, index=index, role=role)
                )
            case _:
                raise _unsupported_block(
                    block, index=index, role=role, why="only text and image blocks can be sent"
                )
    return parts


def _as_chunks(parts: Sequence[str | wire.ImageURLChunk]) -> _Chunks:
    return [wire.TextChunk(text=part) if isinstance(part, str) else part for part in parts]


def _tool_content(result: ToolResultMessage, *, model: ModelInfo, index: int) -> str | _Chunks:
    """A tool result's content: one string, or ordered chunks when it carries images.

    Mistral's tool message has no error flag, so an error result's text starts with
    ``[tool error]``; consecutive texts are joined with a newline.
    """
    parts = _content_parts(
        result.content, placeholder=_image_placeholder(model), index=index, role="toolResult"
    )
    merged: list[str | wire.ImageURLChunk] = []
    for part in parts or [_NO_OUTPUT_TEXT]:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] = f"{merged[-1]}\n{part}"
        else:
            merged.append(part)
    if result.isError:
        if isinstance(merged[0], str):
            merged[0] = f"{_ERROR_PREFIX} {merged[0]}"
        else:
            merged.insert(0, _ERROR_PREFIX)
    if len(merged) == 1 and isinstance(merged[0], str):
        return merged[0]
    return _as_chunks(merged)


# --- the transcript --------------------------------------------------------------------

_SKIPPED_STOP_REASONS = frozenset({"error", "aborted"})


def _replayed_call_ids(messages: Iterable[object]) -> Iterator[str]:
    """The tool call ids of the assistant turns that are replayed, in order."""
    for message in messages:
        if (
            isinstance(message, AssistantMessage)
            and message.stopReason not in _SKIPPED_STOP_REASONS
        ):
            for block in message.content:
                if isinstance(block, ToolCall):
                    yield block.id


class _Transcript:
    """Builds the wire messages in one pass, pairing tool calls with their results."""

    def __init__(self, model: ModelInfo, messages: Sequence[object]) -> None:
        self.model = model
        self.out: list[wire.WireMessage] = []
        self.ids = ToolCallIds(_replayed_call_ids(messages))
        #: Calls of the last replayed assistant turn still waiting for a result: id -> name.
        self.pending: dict[str, str] = {}
        #: Ids of calls from turns that were left out: their results are left out too.
        self.dropped: set[str] = set()
        #: The system prompt and the developer messages' text, for one system message.
        self.system_texts: list[str] = []

    # appending ----------------------------------------------------------------------

    def append(self, message: wire.WireMessage) -> None:
        if message.role == "user" and self.out and self.out[-1].role == "tool":
            self.out.append(wire.WireAssistantMessage(content=BRIDGE_TEXT))
        self.out.append(message)

    def settle(self) -> None:
        """Give every call still waiting a synthetic error result."""
        for call_id, name in self.pending.items():
            self.out.append(
                wire.WireToolMessage(
                    content=f"{_ERROR_PREFIX} {MISSING_RESULT_TEXT}",
                    tool_call_id=self.ids[call_id],
                    name=name,
                )
            )
        self.pending.clear()

    # per role -----------------------------------------------------------------------

    def system(self, content: str | Sequence[object], *, index: int, role: str) -> None:
        """Collect text for the leading system message (images become a placeholder)."""
        if isinstance(content, str):
            parts: list[str | wire.ImageURLChunk] = [] if _blank(content) else [_clean(content)]
        else:
            parts = _content_parts(
                content, placeholder=_SYSTEM_IMAGE_PLACEHOLDER, index=index, role=role
            )
        self.system_texts.extend(part for part in parts if isinstance(part, str))

    def user(self, message: UserMessage, index: int) -> None:
        self.settle()
        content: str | _Chunks
        if isinstance(message.content, str):
            if _blank(message.content):
                return
            content = _clean(message.content)
        else:
            parts = _content_parts(
                message.content,
                placeholder=_image_placeholder(self.model),
                index=index,
                role="user",
            )
            if not parts:
                return
            content = _as_chunks(parts)
        self.append(wire.WireUserMessage(content=content))

    def finish(self) -> list[wire.WireMessage]:
        """The wire messages, with the collected system text as one leading message."""
        self.settle()
        if self.system_texts:
            self.out.insert(0, wire.WireSystemMessage(content=_SYSTEM_JOIN.join(self.system_texts)))
        return self.out

    def assistant(self, message: AssistantMessage, index: int) -> None:
        self.settle()
        if message.stopReason in _SKIPPED_STOP_REASONS:  # not sent, so not checked either
            self.dropped.update(
                block.id for block in message.content if isinstance(block, ToolCall)
            )
            return
        calls: list[ToolCall] = []
        texts: list[str] = []
        blocks: Sequence[object] = message.content
        for block in blocks:
            match block:
                case TextContent(text=text):
                    if not _blank(text):
                        texts.append(_clean(text))
                case ToolCall():
                    calls.append(block)
                case (
                    ThinkingContent()
                    | RedactedThinkingContent()
                    | FallbackContent()
                    | AnthropicServerToolContent()
                ):
                    pass  # not replayed: ADR 0014's documented skip, and Anthropic-only markers
                case ImageContent():
                    raise _unsupported_block(
                        block,
                        index=index,
                        role="assistant",
                        why="Mistral cannot replay an image the assistant produced",
                    )
                case _:
                    raise _unsupported_block(
                        block, index=index, role="assistant", why="it cannot be sent to Mistral"
                    )
        if not texts and not calls:
            return
        if len({call.id for call in calls}) != len(calls):
            raise InvalidTranscriptError(
                f"messages[{index}] (assistant) has two tool calls with the same id",
                index=index,
            )
        content: str | _Chunks
        if len(texts) == 1:
            content = texts[0]
        elif texts:
            content = [wire.TextChunk(text=text) for text in texts]
        else:
            content = ""  # with tool calls: what Mistral's own CLI sends (docs/wire.md §3)
        self.append(
            wire.WireAssistantMessage(
                content=content,
                tool_calls=[
                    wire.WireToolCall(
                        id=self.ids[call.id],
                        function=wire.FunctionCall(
                            name=call.name,
                            arguments=_clean(json.dumps(call.arguments, ensure_ascii=False)),
                        ),
                        index=position,
                    )
                    for position, call in enumerate(calls)
                ]
                or None,
            )
        )
        self.pending = {call.id: call.name for call in calls}

    def tool_result(self, message: ToolResultMessage, index: int) -> None:
        call_id = message.toolCallId
        if call_id not in self.pending:
            if call_id in self.dropped:
                return
            raise InvalidTranscriptError(
                f"messages[{index}] (toolResult) answers tool call id {_shown(call_id)}, "
                "which is not waiting for a result (no replayed assistant turn made it, "
                "or it was already answered)",
                index=index,
            )
        name = self.pending.pop(call_id)
        self.out.append(
            wire.WireToolMessage(
                content=_tool_content(message, model=self.model, index=index),
                tool_call_id=self.ids[call_id],
                name=message.toolName or name,
            )
        )


def _messages(model: ModelInfo, context: Context) -> list[wire.WireMessage]:
    transcript = _Transcript(model, context.messages)
    if context.system_prompt is not None:
        transcript.system(context.system_prompt, index=-1, role="system_prompt")
    for index, message in enumerate(context.messages):
        match message:
            case UserMessage():
                transcript.user(message, index)
            case DeveloperMessage():
                transcript.system(message.content, index=index, role="developer")
            case AssistantMessage():
                transcript.assistant(message, index)
            case ToolResultMessage():
                transcript.tool_result(message, index)
            case _:
                role = getattr(message, "role", None)
                if role in _AGENT_ONLY_ROLES:
                    raise UnsupportedContentError(
                        f"messages[{index}] has role {role!r}, which only the agent knows: "
                        "convert it to a user, assistant or toolResult message first",
                        index=index,
                        role=str(role),
                    )
                raise UnsupportedContentError(
                    f"messages[{index}] is a {type(message).__name__}, not a pi message "
                    "(parse raw transcript data with adapter.parse_agent_message)",
                    index=index,
                    role=str(role),
                )
    return transcript.finish()


# --- options ---------------------------------------------------------------------------


def _tools(tools: Sequence[Tool]) -> list[wire.WireTool] | None:
    names = [tool.name for tool in tools]
    if len(set(names)) != len(names):
        duplicate = next(name for name in names if names.count(name) > 1)
        raise ValueError(f"two tools are named {_shown(duplicate)}")
    return [
        wire.WireTool(
            function=wire.Function(
                name=tool.name,
                description=tool.description or None,
                parameters=dict(tool.parameters),
            )
        )
        for tool in tools
    ] or None


def _tool_choice(options: StreamOptions, tools: Sequence[Tool]) -> wire.WireToolChoice | None:
    choice = options.tool_choice
    if isinstance(choice, ForcedTool):
        if choice.name not in {tool.name for tool in tools}:
            raise ValueError(
                f"tool_choice forces tool {_shown(choice.name)}, which is not in context.tools"
            )
        return wire.NamedToolChoice(function=wire.FunctionName(name=choice.name))
    if choice in {"any", "required"} and not tools:
        raise ValueError(f"tool_choice {choice!r} needs at least one tool in context.tools")
    return choice


def _response_format(options: StreamOptions) -> wire.ResponseFormat | None:
    match options.response_format:
        case None:
            return None
        case JsonSchemaFormat() as schema:
            return wire.ResponseFormat(
                type="json_schema",
                json_schema=wire.JsonSchema(
                    name=schema.name,
                    description=schema.description,
                    schema_=dict(schema.schema),
                    strict=schema.strict,
                ),
            )
        case kind:
            return wire.ResponseFormat(type=kind)


def _uses_prompt_mode(model: ModelInfo) -> bool:
    """Magistral models reason natively; ``prompt_mode`` selects their reasoning prompt."""
    return "magistral" in model.id.lower()


def _effort(model: ModelInfo, level: Effort) -> Effort:
    """Clamp ``level`` onto the efforts the model accepts: the highest one not above it.

    A level below all of them gets the lowest. Without a ``thinking`` config the model
    accepts what the documented adjustable-reasoning models accept: ``high``.
    """
    listed = (model.thinking.efforts if model.thinking else None) or _DEFAULT_EFFORTS
    accepted = sorted(set(listed), key=_EFFORT_ORDER.index)
    rank = _EFFORT_ORDER.index(level)
    at_or_below = [effort for effort in accepted if _EFFORT_ORDER.index(effort) <= rank]
    return at_or_below[-1] if at_or_below else accepted[0]


def _reasoning(
    model: ModelInfo, options: StreamOptions
) -> tuple[wire.ReasoningEffort | None, wire.PromptMode | None]:
    """``(reasoning_effort, prompt_mode)`` for the requested thinking level."""
    level = options.reasoning
    if level is None or level == "inherit" or not model.reasoning:
        return None, None
    if _uses_prompt_mode(model):
        return None, (None if level == "off" else "reasoning")
    if level == "off":
        return "none", None
    return _effort(model, level), None


def _stop(stop: str | Sequence[str] | None) -> str | list[str] | None:
    if stop is None or isinstance(stop, str):
        return stop
    return list(stop)


# --- public ----------------------------------------------------------------------------


def to_wire(
    *, model: ModelInfo, context: Context, options: StreamOptions | None = None
) -> wire.ChatCompletionRequest:
    """The streaming chat-completions request for ``context`` on ``model``.

    Pure: nothing is sent, nothing in ``context`` is changed.

    Raises:
        UnsupportedContentError: a role or block that cannot be sent (named, with its
            message index).
        InvalidTranscriptError: a tool result answers no waiting tool call.
        ValueError: a tool named twice, or ``tool_choice`` forcing an unknown tool;
            ``pydantic.ValidationError`` (a ``ValueError``) names an option out of range.

    .. versionadded:: 0.1.0
    """
    options = options or StreamOptions()
    reasoning_effort, prompt_mode = _reasoning(model, options)
    return wire.ChatCompletionRequest(
        model=model.id,
        messages=_messages(model, context),
        stream=True,
        temperature=options.temperature,
        top_p=options.top_p,
        max_tokens=options.max_tokens,
        random_seed=options.random_seed,
        stop=_stop(options.stop),
        response_format=_response_format(options),
        tools=_tools(context.tools),
        tool_choice=_tool_choice(options, context.tools),
        parallel_tool_calls=options.parallel_tool_calls,
        reasoning_effort=reasoning_effort,
        prompt_mode=prompt_mode,
        prompt_cache_key=options.session_id or None,
    )


def request_headers(*, model: ModelInfo, options: StreamOptions | None = None) -> dict[str, str]:
    """The headers a call needs besides authentication and content type.

    The model's own ``headers``, then ``x-affinity: <session_id>`` (Mistral routes a
    session's calls to the same prompt cache) unless the model already sets it.

    Raises:
        TypeError: a model header value is not a string.

    .. versionadded:: 0.1.0
    """
    headers: dict[str, str] = {}
    for name, value in (model.headers or {}).items():
        if not isinstance(value, str):
            raise TypeError(f"model header {_shown(name)} is a {type(value).__name__}, not a str")
        headers[name] = value
    session_id = options.session_id if options else None
    if session_id and "x-affinity" not in {name.lower() for name in headers}:
        headers["x-affinity"] = session_id
    return headers


def chat_completions_url(base_url: str) -> str:
    """``{base_url}/v1/chat/completions``, whether or not ``base_url`` ends in ``/v1`` or ``/``.

    Raises:
        ValueError: ``base_url`` is empty.

    .. versionadded:: 0.1.0
    """
    base = base_url.strip().rstrip("/")
    if not base:
        raise ValueError("base_url is empty")
    if not base.endswith("/v1"):
        base += "/v1"
    return f"{base}/chat/completions"
