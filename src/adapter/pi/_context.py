"""What a caller hands the adapter: the context of a call and its options.

These are plain frozen dataclasses, not pydantic models: the messages inside a
:class:`Context` are already validated pi records (``AgentMessage``), and the
options are checked where they meet the wire, by the strict request models in
``adapter._mistral.wire`` (a temperature out of range fails there, naming the field,
before anything is sent). Constructing them costs nothing and copies nothing.

Only :class:`Tool` checks its input at construction, because a bad function name
is a caller bug best reported where the tool is defined, not on every request.

.. versionadded:: 0.1.0
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from adapter.pi._messages import AgentMessage
from adapter.pi._model import ThinkingLevel
from llm_errors import redact

__all__ = [
    "Context",
    "ForcedTool",
    "JsonSchemaFormat",
    "StreamOptions",
    "Tool",
    "ToolChoice",
]

#: Mistral's function name rule (mistral-common's request validator): the API
#: rejects any other name with a 400.
_FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def _check_function_name(name: str, what: str) -> None:
    if _FUNCTION_NAME.fullmatch(name) is None:
        shown = redact(name[:80])
        raise ValueError(
            f"{what} {shown!r} is not a valid Mistral function name "
            "(1 to 64 characters from a-z, A-Z, 0-9, '_' and '-')"
        )


@dataclass(frozen=True, slots=True)
class Tool:
    """A function the model may call: its name, what it does and its JSON Schema.

    ``parameters`` is the JSON Schema of the arguments object, sent unchanged.

    Raises:
        ValueError: ``name`` is not 1 to 64 characters from ``a-zA-Z0-9_-``.

    .. versionadded:: 0.1.0
    """

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    def __post_init__(self) -> None:
        _check_function_name(self.name, "tool name")


@dataclass(frozen=True, slots=True)
class ForcedTool:
    """``tool_choice`` that makes the model call this one tool.

    Raises:
        ValueError: ``name`` is not a valid Mistral function name.

    .. versionadded:: 0.1.0
    """

    name: str

    def __post_init__(self) -> None:
        _check_function_name(self.name, "forced tool name")


#: ``auto`` (the model decides), ``none`` (no tool), ``any``/``required`` (some tool),
#: or one :class:`ForcedTool`.
ToolChoice: TypeAlias = Literal["auto", "none", "any", "required"] | ForcedTool


@dataclass(frozen=True, slots=True, kw_only=True)
class JsonSchemaFormat:
    """Structured output: the reply is JSON matching ``schema``.

    .. versionadded:: 0.1.0
    """

    name: str
    schema: Mapping[str, Any]
    description: str | None = None
    strict: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """One call's input: the system prompt, the transcript and the tools.

    ``messages`` are pi transcript messages (``AgentMessage``). The request mapping
    sends ``user``, ``developer``, ``assistant`` and ``toolResult`` messages; the
    agent-only roles (``bashExecution``, ``custom``, ``compactionSummary``...) must be
    converted to those by the agent first (see ``docs/adapter.md``, "Request mapping").

    .. versionadded:: 0.1.0
    """

    system_prompt: str | None = None
    messages: Sequence[AgentMessage] = ()
    tools: Sequence[Tool] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamOptions:
    """Per-call options. ``None`` means "not sent": the server default applies.

    - ``temperature`` (0 to 1.5), ``top_p`` (above 0, up to 1), ``max_tokens``,
      ``random_seed``, ``stop``, ``response_format`` (``"text"``, ``"json_object"``
      or a :class:`JsonSchemaFormat`), ``tool_choice`` (:data:`ToolChoice`) and
      ``parallel_tool_calls`` map to the request fields of the same meaning; ranges
      are checked when the request is built.
    - ``reasoning``: pi's thinking level, sent as ``reasoning_effort`` or
      ``prompt_mode`` depending on the model (``docs/adapter.md``, "Request mapping").
      ``None`` and ``"inherit"`` send nothing.
    - ``session_id``: sent as the ``x-affinity`` header, which Mistral uses to route
      a conversation's calls to the same prompt cache, and as the body's
      ``prompt_cache_key`` (the spec's field for it; pi-ai sends both).
    - ``never_raise``: pi's never-throw contract. The client ends the stream with an
      ``error`` event carrying the partial message instead of raising.
    - ``resume``: continue this call's stream if it is cut after output was delivered
      (``True``), never (``False``), or as the adapter was built (``None``); see
      ``docs/adapter.md``, "Resuming a cut stream".

    .. versionchanged:: 0.3.0 ``resume``.

    .. versionadded:: 0.1.0
    """

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    random_seed: int | None = None
    stop: str | Sequence[str] | None = None
    response_format: Literal["text", "json_object"] | JsonSchemaFormat | None = None
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    reasoning: ThinkingLevel | None = None
    session_id: str | None = None
    never_raise: bool = False
    resume: bool | None = None
