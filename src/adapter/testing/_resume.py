"""A stream cut at a byte offset, and the continuation request that resumes it (pure).

:class:`Script` is a whole reply (thinking, text, tool calls): the reference a resumed
stream must end equal to. :class:`CutStream` serves its body up to byte ``at`` and
drops the connection; the fake server then answers the next request, the client's
continuation, with :func:`continue_reply`, after checking that the request is the
same request with exactly the delivered content as a last assistant message with
``prefix: true``. The reply repeats that prefix first, as Mistral does
(``repeat_prefix``), then goes on from where the cut left off.

.. versionadded:: 0.3.0
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapter.testing._checks import check_bool, check_int, check_str, shown
from adapter.testing._chunks import (
    DEFAULT_MODEL,
    ChunkMeta,
    encode_chunk,
    finish_chunk,
    role_chunk,
    text_chunk,
    thinking_chunk,
    tool_call,
    tool_call_chunk,
    usage_info,
)

__all__ = ["CutStream", "Script", "continue_reply", "prefix_mismatch"]

_DONE = b"data: [DONE]\n\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class Script:
    """A whole reply, streamed in pieces: thinking, then text, then tool calls.

    Args:
        thinking: The reasoning, sent as ``thinking`` chunks.
        text: The answer, sent as strings (as typed ``text`` parts after thinking).
        tool_calls: ``(name, arguments JSON text)`` pairs, each sent in fragments.
        piece: Characters per chunk.
        usage: ``(prompt_tokens, completion_tokens)`` of the final chunk.
        model: The ``model`` every chunk carries.

    .. versionadded:: 0.3.0
    """

    thinking: str = ""
    text: str = ""
    tool_calls: Sequence[tuple[str, str]] = ()
    piece: int = 8
    usage: tuple[int, int] = (12, 34)
    model: str = DEFAULT_MODEL

    def __post_init__(self) -> None:
        check_str("Script", "thinking", self.thinking)
        check_str("Script", "text", self.text)
        check_int("Script", "piece", self.piece, 1)
        check_str("Script", "model", self.model, line=True)
        usage: object = self.usage
        if not (isinstance(usage, tuple) and len(usage) == 2):  # noqa: PLR2004 - a pair
            raise TypeError(
                f"Script: usage must be (prompt_tokens, completion_tokens), got {shown(usage)}"
            )
        for count in usage:
            check_int("Script", "usage", count)
        calls: object = self.tool_calls
        if isinstance(calls, str | bytes) or not isinstance(calls, Sequence):
            raise TypeError(
                f"Script: tool_calls must be (name, arguments) pairs, got {shown(calls)}"
            )
        for call in calls:
            if not (isinstance(call, tuple) and len(call) == 2):  # noqa: PLR2004 - a pair
                raise TypeError(
                    f"Script: tool_calls must hold (name, arguments) pairs, got {shown(call)}"
                )
            check_str("Script", "tool_calls", call[0], line=True)
            check_str("Script", "tool_calls", call[1])

    def chunks(self, *, thinking_from: int = 0, text_from: int = 0) -> list[dict[str, Any]]:
        """The stream's chunks, from these offsets of the thinking and the text on."""
        meta: ChunkMeta = {"model": self.model}
        out = [role_chunk(**meta)]
        out += [
            thinking_chunk(part, **meta)
            for part in _pieces(self.thinking[thinking_from:], self.piece)
        ]
        typed = bool(self.thinking)
        out += [
            text_chunk(part, typed=typed, **meta)
            for part in _pieces(self.text[text_from:], self.piece)
        ]
        for index, (name, arguments) in enumerate(self.tool_calls):
            for position, part in enumerate(_pieces(arguments, self.piece) or [""]):
                call = tool_call(name if position == 0 else "", part, index=index)
                out.append(tool_call_chunk(call, finish_reason=None, **meta))
        reason = "tool_calls" if self.tool_calls else "stop"
        out.append(finish_chunk(reason, usage=usage_info(*self.usage), **meta))
        return out


def _pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


@dataclass(frozen=True, slots=True)
class CutStream:
    """A scenario: ``script``'s event stream, its connection dropped after byte ``at``.

    The body is the script's chunks and ``[DONE]``. What was delivered is the events
    that ended before ``at`` (a client maps whole events only). Unless the cut fell
    inside a tool call or after the finish chunk (a stream that said why it stopped),
    the fake server queues the answer to the continuation request first in line.

    Args:
        script: The whole reply.
        at: Bytes of the SSE body sent before the drop (``0`` to the body's length - 1).
        repeat_prefix: The continuation's reply repeats the prefix first, as Mistral's
            does; ``False`` for a server that sends only what follows.
        reset: Drop with a TCP RST instead of a FIN.

    .. versionadded:: 0.3.0
    """

    script: Script
    at: int
    repeat_prefix: bool = True
    reset: bool = False
    body: bytes = field(init=False, repr=False, compare=False)
    delivered_thinking: str = field(init=False, compare=False)
    delivered_text: str = field(init=False, compare=False)
    in_tool_call: bool = field(init=False, compare=False)
    finished: bool = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.script, Script):
            raise TypeError(f"CutStream: script must be a Script, got {shown(self.script)}")
        check_bool("CutStream", "repeat_prefix", self.repeat_prefix)
        check_bool("CutStream", "reset", self.reset)
        events = [encode_chunk(chunk, "CutStream", b"\n") for chunk in self.script.chunks()]
        body = b"".join(events) + _DONE
        check_int("CutStream", "at", self.at, 0)
        if self.at >= len(body):
            raise ValueError(
                f"CutStream: at must be below the body's {len(body)} bytes, got {self.at}"
            )
        thinking: list[str] = []
        text: list[str] = []
        in_tool, finished, end = False, False, 0
        for event in events:
            end += len(event)
            if end > self.at:
                break
            chunk = json.loads(event[len(b"data: ") :])
            choice = chunk["choices"][0]
            content = choice["delta"].get("content")
            for kind, value in _content(content):
                (thinking if kind == "thinking" else text).append(value)
            in_tool = in_tool or bool(choice["delta"].get("tool_calls"))
            finished = choice.get("finish_reason") is not None
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "delivered_thinking", "".join(thinking))
        object.__setattr__(self, "delivered_text", "".join(text))
        object.__setattr__(self, "in_tool_call", in_tool)
        object.__setattr__(self, "finished", finished)

    @property
    def continues(self) -> bool:
        """Whether a client that resumes sends a continuation for this cut."""
        return not (self.in_tool_call or self.finished)


def _content(content: Any) -> list[tuple[str, str]]:
    """``(kind, text)`` of a delta's content: a string, or text and thinking parts."""
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)]
    out: list[tuple[str, str]] = []
    for part in content:
        if not isinstance(part, Mapping):
            raise TypeError("a content part must be an object")
        if part.get("type") == "thinking":
            out.append(("thinking", "".join(item["text"] for item in part["thinking"])))
        elif part.get("type") == "text":
            out.append(("text", part["text"]))
        else:
            raise ValueError(f"a prefix part of type {str(part.get('type'))[:40]!r}")
    return out


def prefix_mismatch(cut: CutStream, original: Any, request: Any) -> str | None:
    """What is wrong with ``request`` as the continuation of ``original``; ``None``: nothing.

    Both are parsed JSON bodies. The continuation must be the same request plus, when
    anything was delivered, one last assistant message with ``prefix: true`` whose
    thinking and text are exactly what the cut delivered.
    """
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        return "the continuation is not a chat request"
    rest = {key: value for key, value in request.items() if key != "messages"}
    if rest != {key: value for key, value in original.items() if key != "messages"}:
        return "the continuation changed a request field other than messages"
    messages = request["messages"]
    if not (cut.delivered_thinking or cut.delivered_text):
        return None if messages == original["messages"] else "the messages changed"
    last = messages[-1] if messages else None
    if (
        not isinstance(last, dict)
        or last.get("role") != "assistant"
        or last.get("prefix") is not True
    ):
        return "the last message is not an assistant message with prefix: true"
    if messages[:-1] != original["messages"]:
        return "the messages before the prefix changed"
    try:
        parts = _content(last.get("content"))
    except (TypeError, ValueError, KeyError) as exc:
        return f"the prefix content cannot be read ({exc})"
    thinking = "".join(text for kind, text in parts if kind == "thinking")
    text = "".join(text for kind, text in parts if kind == "text")
    if thinking != cut.delivered_thinking:
        return "the prefix's thinking is not what was delivered"
    if text != cut.delivered_text:
        return "the prefix's text is not what was delivered"
    return None


def continue_reply(cut: CutStream) -> list[dict[str, Any]]:
    """The chunks that answer the continuation: the prefix again, then the rest."""
    script = cut.script
    rest = script.chunks(
        thinking_from=len(cut.delivered_thinking), text_from=len(cut.delivered_text)
    )
    if not cut.repeat_prefix:
        return rest
    meta: ChunkMeta = {"model": script.model}
    repeat = []
    if cut.delivered_thinking:
        repeat.append(thinking_chunk(cut.delivered_thinking, **meta))
    if cut.delivered_text:
        repeat.append(text_chunk(cut.delivered_text, typed=bool(script.thinking), **meta))
    return [rest[0], *repeat, *rest[1:]]
