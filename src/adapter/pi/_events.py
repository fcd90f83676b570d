"""Streaming updates for one assistant message, discriminated by ``type``.

Every event but ``done``/``error`` carries ``partial``: the *live* message being
built. The stream mapper mutates one :class:`AssistantMessage` in place and puts that
same object into each event, as pi does, so an event's ``partial`` always shows the
latest state, not a snapshot.

Constructing events on the hot path: the mapper creates one delta event per chunk,
so the three delta events (:class:`AssistantTextDeltaEvent`,
:class:`AssistantThinkingDeltaEvent`, :class:`AssistantToolCallDeltaEvent`) have
builders, :func:`text_delta_event`, :func:`thinking_delta_event` and
:func:`toolcall_delta_event`. They call the model's validator
(``__pydantic_validator__.validate_python``, public pydantic API) on a dict, which
validates exactly as the constructor does but skips ``BaseModel.__init__``'s Python
wrapper: 0.77 us against 1.14 us for the constructor (pydantic 2.14). Writing
pydantic's private instance slots directly would save another 0.25 us, but
``bench/stream.py --shortcuts`` shows the throughput target met without it
(``docs/adapter.md``, "Shortcuts"), so the adapter does not reach into pydantic's
internals. Everything else uses the ordinary constructor, e.g.::

    AssistantTextStartEvent(contentIndex=0, partial=message)

It validates only the scalars, and the ``partial`` instance is passed through, not
copied or revalidated (``revalidate_instances="never"``), so every event holds the
same live object. ``model_construct`` would skip validation but is implemented in
Python and measured about 3x *slower* (3.1 us), so it buys nothing.

.. versionadded:: 0.1.0
"""
# ruff: noqa: N815  -- camelCase attribute names are pi's wire names, kept verbatim

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import ConfigDict, Field, TypeAdapter

from adapter.pi._content import ImageContent, ToolCall
from adapter.pi._messages import AssistantMessage
from adapter.pi._record import Integer, OpenRecord

__all__ = [
    "ASSISTANT_MESSAGE_EVENT_ADAPTER",
    "AssistantDoneEvent",
    "AssistantErrorEvent",
    "AssistantImageEndEvent",
    "AssistantMessageEvent",
    "AssistantStartEvent",
    "AssistantTextDeltaEvent",
    "AssistantTextEndEvent",
    "AssistantTextStartEvent",
    "AssistantThinkingDeltaEvent",
    "AssistantThinkingEndEvent",
    "AssistantThinkingStartEvent",
    "AssistantToolCallDeltaEvent",
    "AssistantToolCallEndEvent",
    "AssistantToolCallStartEvent",
    "parse_assistant_message_event",
    "text_delta_event",
    "thinking_delta_event",
    "toolcall_delta_event",
]


class AssistantStartEvent(OpenRecord):
    """The stream opened; ``partial`` is the empty message."""

    type: Literal["start"] = "start"
    partial: AssistantMessage


class AssistantTextStartEvent(OpenRecord):
    """A text block opened at ``contentIndex``."""

    type: Literal["text_start"] = "text_start"
    contentIndex: Integer
    partial: AssistantMessage


class AssistantTextDeltaEvent(OpenRecord):
    """Text appended to the block at ``contentIndex``."""

    type: Literal["text_delta"] = "text_delta"
    contentIndex: Integer
    delta: str
    partial: AssistantMessage


class AssistantTextEndEvent(OpenRecord):
    """The text block at ``contentIndex`` closed; ``content`` is its full text."""

    type: Literal["text_end"] = "text_end"
    contentIndex: Integer
    content: str
    partial: AssistantMessage


class AssistantThinkingStartEvent(OpenRecord):
    """A thinking block opened at ``contentIndex``."""

    type: Literal["thinking_start"] = "thinking_start"
    contentIndex: Integer
    partial: AssistantMessage


class AssistantThinkingDeltaEvent(OpenRecord):
    """Reasoning appended to the block at ``contentIndex``."""

    type: Literal["thinking_delta"] = "thinking_delta"
    contentIndex: Integer
    delta: str
    partial: AssistantMessage


class AssistantThinkingEndEvent(OpenRecord):
    """The thinking block at ``contentIndex`` closed; ``content`` is its full text."""

    type: Literal["thinking_end"] = "thinking_end"
    contentIndex: Integer
    content: str
    partial: AssistantMessage


class AssistantImageEndEvent(OpenRecord):
    """An image block arrived complete at ``contentIndex``."""

    type: Literal["image_end"] = "image_end"
    contentIndex: Integer
    content: ImageContent
    partial: AssistantMessage


class AssistantToolCallStartEvent(OpenRecord):
    """A tool call opened at ``contentIndex``."""

    type: Literal["toolcall_start"] = "toolcall_start"
    contentIndex: Integer
    partial: AssistantMessage


class AssistantToolCallDeltaEvent(OpenRecord):
    """A fragment of the tool call's JSON arguments."""

    type: Literal["toolcall_delta"] = "toolcall_delta"
    contentIndex: Integer
    delta: str
    partial: AssistantMessage


class AssistantToolCallEndEvent(OpenRecord):
    """The tool call at ``contentIndex`` is complete."""

    type: Literal["toolcall_end"] = "toolcall_end"
    contentIndex: Integer
    toolCall: ToolCall
    partial: AssistantMessage


class AssistantDoneEvent(OpenRecord):
    """The message finished normally; ``message`` is final."""

    type: Literal["done"] = "done"
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage


class AssistantErrorEvent(OpenRecord):
    """The message ended in an error or was aborted; ``error`` is the final message."""

    type: Literal["error"] = "error"
    reason: Literal["aborted", "error"]
    error: AssistantMessage


#: Streaming update for one assistant message, discriminated by `type`.
AssistantMessageEvent: TypeAlias = Annotated[
    AssistantStartEvent
    | AssistantTextStartEvent
    | AssistantTextDeltaEvent
    | AssistantTextEndEvent
    | AssistantThinkingStartEvent
    | AssistantThinkingDeltaEvent
    | AssistantThinkingEndEvent
    | AssistantImageEndEvent
    | AssistantToolCallStartEvent
    | AssistantToolCallDeltaEvent
    | AssistantToolCallEndEvent
    | AssistantDoneEvent
    | AssistantErrorEvent,
    Field(
        discriminator="type",
        description="Streaming update for one assistant message, discriminated by `type`.",
    ),
]

#: Validates and dumps :data:`AssistantMessageEvent`.
ASSISTANT_MESSAGE_EVENT_ADAPTER: TypeAdapter[AssistantMessageEvent] = TypeAdapter(
    AssistantMessageEvent, config=ConfigDict(hide_input_in_errors=True)
)


def parse_assistant_message_event(
    data: str | bytes | bytearray | Mapping[str, Any],
) -> AssistantMessageEvent:
    """Parse one streaming event from JSON text or an already decoded object.

    Raises:
        pydantic.ValidationError: naming the field, e.g. an unknown ``type`` value.

    .. versionadded:: 0.1.0
    """
    if isinstance(data, str | bytes | bytearray):
        return ASSISTANT_MESSAGE_EVENT_ADAPTER.validate_json(data)
    return ASSISTANT_MESSAGE_EVENT_ADAPTER.validate_python(data)


# --- builders for the hot path ---------------------------------------------------------

# The validators, bound once: the builders skip only BaseModel.__init__'s Python wrapper.
_text_delta = AssistantTextDeltaEvent.__pydantic_validator__.validate_python
_thinking_delta = AssistantThinkingDeltaEvent.__pydantic_validator__.validate_python
_toolcall_delta = AssistantToolCallDeltaEvent.__pydantic_validator__.validate_python


def text_delta_event(
    content_index: int, delta: str, partial: AssistantMessage
) -> AssistantTextDeltaEvent:
    """``AssistantTextDeltaEvent(contentIndex=…, delta=…, partial=…)``, validated, faster.

    .. versionadded:: 0.1.0
    """
    event: AssistantTextDeltaEvent = _text_delta(
        {"contentIndex": content_index, "delta": delta, "partial": partial}
    )
    return event


def thinking_delta_event(
    content_index: int, delta: str, partial: AssistantMessage
) -> AssistantThinkingDeltaEvent:
    """``AssistantThinkingDeltaEvent(…)`` (see :func:`text_delta_event`).

    .. versionadded:: 0.1.0
    """
    event: AssistantThinkingDeltaEvent = _thinking_delta(
        {"contentIndex": content_index, "delta": delta, "partial": partial}
    )
    return event


def toolcall_delta_event(
    content_index: int, delta: str, partial: AssistantMessage
) -> AssistantToolCallDeltaEvent:
    """``AssistantToolCallDeltaEvent(…)`` (see :func:`text_delta_event`).

    .. versionadded:: 0.1.0
    """
    event: AssistantToolCallDeltaEvent = _toolcall_delta(
        {"contentIndex": content_index, "delta": delta, "partial": partial}
    )
    return event
