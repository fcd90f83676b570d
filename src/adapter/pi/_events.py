"""Streaming updates for one assistant message, discriminated by ``type``.

Every event but ``done``/``error`` carries ``partial``: the *live* message being
built. The stream mapper mutates one :class:`AssistantMessage` in place and puts that
same object into each event, as pi does, so an event's ``partial`` always shows the
latest state, not a snapshot.

Constructing events on the hot path: the mapper creates one delta event per chunk,
so the three delta events (:class:`AssistantTextDeltaEvent`,
:class:`AssistantThinkingDeltaEvent`, :class:`AssistantToolCallDeltaEvent`) have
trusted builders, :func:`text_delta_event`, :func:`thinking_delta_event` and
:func:`toolcall_delta_event`. They set the four slots pydantic keeps per instance
(``__dict__`` in field order, ``__pydantic_fields_set__``, ``__pydantic_extra__``,
``__pydantic_private__``) exactly as the validating constructor does, without
validating: about half its cost (0.7 us against 1.3 us with pydantic 2.14), which is
a large share of a chunk's budget (``bench/stream.py``). Only the mapper calls them,
with values it produced itself (an ``int`` index, a ``str`` delta, the live message);
a test checks that they build what the constructor builds. Everything else uses the
ordinary constructor, e.g.::

    AssistantTextStartEvent(contentIndex=0, partial=message)

It validates only the scalars, and the ``partial`` instance is passed through, not
copied or revalidated (``revalidate_instances="never"``), so every event holds the
same live object. ``model_construct`` would skip validation but is implemented in
Python and measured about 2x *slower* (3.3 us), so it buys nothing.

.. versionadded:: 0.1.0
"""
# ruff: noqa: N815  -- camelCase attribute names are pi's wire names, kept verbatim

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

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


# --- trusted builders for the hot path ---------------------------------------------------

_new = object.__new__
# The per-instance slots every pydantic model has (BaseModel.__slots__), set directly.
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def text_delta_event(
    content_index: int, delta: str, partial: AssistantMessage
) -> AssistantTextDeltaEvent:
    """``AssistantTextDeltaEvent(contentIndex=…, delta=…, partial=…)`` without validation.

    For the stream mapper only: the caller guarantees the types (see the module
    docstring).

    .. versionadded:: 0.1.0
    """
    event = _new(AssistantTextDeltaEvent)
    _set_dict(
        event,
        {"type": "text_delta", "contentIndex": content_index, "delta": delta, "partial": partial},
    )
    _set_fields_set(event, {"contentIndex", "delta", "partial"})
    _set_extra(event, {})
    _set_private(event, None)
    return event


def thinking_delta_event(
    content_index: int, delta: str, partial: AssistantMessage
) -> AssistantThinkingDeltaEvent:
    """``AssistantThinkingDeltaEvent(…)`` without validation (see :func:`text_delta_event`).

    .. versionadded:: 0.1.0
    """
    event = _new(AssistantThinkingDeltaEvent)
    _set_dict(
        event,
        {
            "type": "thinking_delta",
            "contentIndex": content_index,
            "delta": delta,
            "partial": partial,
        },
    )
    _set_fields_set(event, {"contentIndex", "delta", "partial"})
    _set_extra(event, {})
    _set_private(event, None)
    return event


def toolcall_delta_event(
    content_index: int, delta: str, partial: AssistantMessage
) -> AssistantToolCallDeltaEvent:
    """``AssistantToolCallDeltaEvent(…)`` without validation (see :func:`text_delta_event`).

    .. versionadded:: 0.1.0
    """
    event = _new(AssistantToolCallDeltaEvent)
    _set_dict(
        event,
        {
            "type": "toolcall_delta",
            "contentIndex": content_index,
            "delta": delta,
            "partial": partial,
        },
    )
    _set_fields_set(event, {"contentIndex", "delta", "partial"})
    _set_extra(event, {})
    _set_private(event, None)
    return event
