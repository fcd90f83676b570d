"""Resume a cut stream: the continuation request, its seam, and when not to try. Pure.

A stream that breaks after output was delivered cannot be retried (the caller would
see the output twice), but Mistral can continue an assistant message: the same
request with the partial message appended as the last message, ``prefix: true``
(``docs/wire.md``, "Request messages"). Its reply repeats the prefix before going on
(Mistral's own examples strip it: ``response[len(prefix):]``); another server may
not. :class:`Seam` tells the two apart on the wire, before anything is mapped: the
continuation's chunks are held back while their text and thinking repeat what was
delivered; once the whole delivered content has been repeated, the repeat is cut out
and the rest flows on; at the first character that differs, the held chunks are
released unchanged (no repeat: nothing to drop). Text is never lost, and never
delivered twice unless a server repeats only part of a prefix, which ``prefix: true``
does not allow.

When not to resume (:class:`ResumeRefusal`): a failure that is not a cut
(``TRANSPORT``/``TIMEOUT``), a cut after the reply said why it stopped, a cut inside
a tool call, structured output (a prefix
would break the JSON the schema asks for), the per-call limit, the retry policy's
deadline or budget, and a continuation the server refused.

.. versionadded:: 0.3.0
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from typing import Any, Final, Literal, TypeAlias

from adapter._mistral import wire
from adapter.pi._content import TextContent, ThinkingContent, Usage, UsageCost
from adapter.pi._messages import AssistantMessage
from llm_errors import ErrorCode, LlmError

__all__ = [
    "CUT_CODES",
    "ResumeRefusal",
    "Seam",
    "add_usage",
    "attach_refusal",
    "continuation",
    "delivered",
    "resume_refusal",
    "structured",
]

#: The failures a continuation can repair: the stream was cut (no terminal event,
#: ``[DONE]`` missing, a reset or a stall).
CUT_CODES: Final = frozenset({ErrorCode.TRANSPORT, ErrorCode.TIMEOUT})

Kind: TypeAlias = Literal["text", "thinking"]
Segment: TypeAlias = tuple[Kind, str]


class ResumeRefusal(enum.StrEnum):
    """Why a cut stream was not resumed (:func:`resume_refusal` of the error).

    .. versionadded:: 0.3.0
    """

    #: The failure is not a cut (``TRANSPORT`` or ``TIMEOUT``): nothing to continue.
    NOT_A_CUT = "not_a_cut"
    #: The stream broke after its ``finish_reason``: the reply was whole, only the end
    #: of the body was lost, and there is nothing to continue.
    FINISHED = "finished"
    #: The stream broke after a tool call began: its arguments cannot be continued.
    TOOL_CALL = "tool_call"
    #: The request asks for JSON (``response_format``): a prefix would break it.
    STRUCTURED_OUTPUT = "structured_output"
    #: The call already resumed ``max_resumes`` times.
    LIMIT = "limit"
    #: The retry policy's deadline has passed.
    DEADLINE = "deadline"
    #: The retry policy's budget has no token left.
    BUDGET = "budget"
    #: The continuation request failed before it delivered anything new.
    REFUSED = "refused"


def attach_refusal(error: LlmError, reason: ResumeRefusal) -> LlmError:
    """Record on ``error`` why it was not resumed, with a note saying so."""
    if resume_refusal(error) is None:
        vars(error)["resume_refusal"] = reason
        error.add_note(f"not resumed: {reason.value}")
    return error


def resume_refusal(error: BaseException) -> ResumeRefusal | None:
    """Why the adapter did not resume the stream ``error`` ended; ``None`` if resume was off.

    .. versionadded:: 0.3.0
    """
    value = vars(error).get("resume_refusal")
    return value if isinstance(value, ResumeRefusal) else None


def delivered(message: AssistantMessage) -> list[Segment] | None:
    """The message's text and thinking in order; ``None`` if it has a tool call."""
    segments: list[Segment] = []
    for block in message.content:
        if isinstance(block, TextContent):
            segments.append(("text", block.text))
        elif isinstance(block, ThinkingContent):
            segments.append(("thinking", block.thinking))
        else:
            return None
    return segments


def _prefix_content(segments: Sequence[Segment]) -> str | list[wire.ContentChunk]:
    if all(kind == "text" for kind, _ in segments):
        return "".join(text for _, text in segments)
    last = len(segments) - 1
    return [
        wire.ThinkChunk(thinking=[wire.TextChunk(text=text)], closed=position != last)
        if kind == "thinking"
        else wire.TextChunk(text=text)
        for position, (kind, text) in enumerate(segments)
    ]


def continuation(request: wire.ChatCompletionRequest, segments: Sequence[Segment]) -> bytes:
    """The body that continues ``request`` from ``segments`` (the same request if none).

    The delivered content goes last, as an assistant message with ``prefix: true``:
    a string when it is all text, else text and thinking chunks (the last thinking
    chunk ``closed: false`` when the cut was inside it, so the model thinks on).
    """
    if not any(text for _, text in segments):
        return request.to_json()
    prefix = wire.WireAssistantMessage(content=_prefix_content(segments), prefix=True)
    return request.model_copy(update={"messages": [*request.messages, prefix]}).to_json()


def structured(request: wire.ChatCompletionRequest) -> bool:
    """Whether ``request`` asks for JSON output, which a prefix cannot continue."""
    response_format = request.response_format
    return response_format is not None and response_format.type != "text"


def add_usage(first: Usage, second: Usage) -> Usage:
    """Two requests' usage as one: every count and cost summed."""
    cost = UsageCost(
        **{name: getattr(first.cost, name) + getattr(second.cost, name) for name in _COST_FIELDS}
    )
    usage = Usage(
        **{name: getattr(first, name) + getattr(second, name) for name in _USAGE_FIELDS},
        cost=cost,
    )
    if first.reasoningTokens is not None or second.reasoningTokens is not None:
        usage.reasoningTokens = (first.reasoningTokens or 0) + (second.reasoningTokens or 0)
    return usage


_USAGE_FIELDS: Final = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
_COST_FIELDS: Final = ("input", "output", "cacheRead", "cacheWrite", "total")


class _MismatchError(Exception):
    """The continuation does not repeat the delivered content (internal signal)."""


class Seam:
    """Cuts the continuation's repeat of the delivered content out of its chunks.

    Feed every ``data:`` payload of the continuation to :meth:`feed`; map what it
    returns, in order. While the continuation repeats the delivered content, its
    chunks are held (at most one per delivered character, so the hold is bounded by
    the message); chunks that add no content (the role chunk, a usage chunk) pass at
    once.
    """

    __slots__ = ("_cursor", "_expected", "_held", "repeated", "settled")

    def __init__(self, segments: Sequence[Segment]) -> None:
        self._expected = [(kind, text) for kind, text in segments if text]
        self._cursor = (0, 0)
        self._held: list[tuple[bytes, Any]] = []
        #: Whether the continuation repeated the delivered content (then cut out).
        self.repeated = False
        #: Whether the seam is decided; from then on payloads pass unchanged.
        self.settled = not self._expected

    def feed(self, data: bytes) -> list[bytes]:
        """The payloads to map now for ``data`` (none while a repeat is pending)."""
        if self.settled:
            return [data]
        chunk = _loads(data)
        pieces = _pieces(chunk)
        if pieces is None:  # [DONE], an error, a finish or a tool call: decide now
            return [*self._release(), data]
        if not pieces:
            return [data]
        try:
            rest = self._match(pieces)
        except _MismatchError:
            return [*self._release(), data]
        self._held.append((data, chunk))
        if rest is None:
            return []
        return self._cut(rest)

    def finish(self) -> list[bytes]:
        """The body ended while a repeat was pending: the held payloads, unchanged."""
        return self._release()

    def _match(self, pieces: list[Segment]) -> list[Segment] | None:
        """Advance over ``pieces``; what follows the repeat once it is complete."""
        index, offset = self._cursor
        expected = self._expected
        for position, (kind, piece) in enumerate(pieces):
            text = piece
            while text:
                if index == len(expected):
                    return [(kind, text), *pieces[position + 1 :]]
                want_kind, want = expected[index]
                part = want[offset : offset + len(text)]
                if kind != want_kind or not text.startswith(part):
                    raise _MismatchError
                offset += len(part)
                text = text[len(part) :]
                if offset == len(want):
                    index, offset = index + 1, 0
        self._cursor = (index, offset)
        return [] if index == len(expected) else None

    def _cut(self, rest: list[Segment]) -> list[bytes]:
        """The repeat is complete: the held chunks without it, the last one with ``rest``."""
        self.settled = self.repeated = True
        held, self._held = self._held, []
        out = [_with_content(chunk, []) for _, chunk in held[:-1]]
        out.append(_with_content(held[-1][1], rest))
        return out

    def _release(self) -> list[bytes]:
        self.settled = True
        held, self._held = self._held, []
        return [data for data, _ in held]


def _loads(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:  # not JSON ([DONE], or garbage the mapper will name)
        return None


def _pieces(chunk: Any) -> list[Segment] | None:
    """The text and thinking a plain content chunk adds; ``None`` for any other payload."""
    if not isinstance(chunk, dict) or "error" in chunk:
        return None
    choices = chunk.get("choices")
    if not isinstance(choices, list) or len(choices) > 1:
        return None
    if not choices:
        return []
    choice = choices[0]
    if not isinstance(choice, dict) or choice.get("finish_reason") is not None:
        return None
    delta = choice.get("delta")
    if not isinstance(delta, dict) or delta.get("tool_calls"):
        return None
    content = delta.get("content")
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)] if content else []
    return _parts(content)


def _parts(content: Any) -> list[Segment] | None:
    if not isinstance(content, list):
        return None
    pieces: list[Segment] = []
    for part in content:
        if not isinstance(part, dict):
            return None
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            pieces.append(("text", part["text"]))
        elif part.get("type") == "thinking" and not part.get("signature"):
            thinking = _thinking_text(part.get("thinking"))
            if thinking is None:
                return None
            pieces.append(("thinking", thinking))
        else:
            return None  # a reference or any other part: decided by the mapper
    return [(kind, text) for kind, text in pieces if text]


def _thinking_text(parts: Any) -> str | None:
    """The text of a thinking chunk made of text parts only; ``None`` for any other."""
    if not isinstance(parts, list):
        return None
    texts: list[str] = []
    for item in parts:
        if not isinstance(item, dict) or item.get("type") != "text":
            return None
        text = item.get("text")
        if not isinstance(text, str):
            return None
        texts.append(text)
    return "".join(texts)


def _with_content(chunk: dict[str, Any], rest: list[Segment]) -> bytes:
    """``chunk`` re-encoded with ``rest`` as its content (``""`` when nothing is left)."""
    content: str | list[dict[str, Any]]
    if all(kind == "text" for kind, _ in rest):
        content = "".join(text for _, text in rest)
    else:
        content = [
            {"type": "thinking", "thinking": [{"type": "text", "text": text}]}
            if kind == "thinking"
            else {"type": "text", "text": text}
            for kind, text in rest
        ]
    delta = dict(chunk["choices"][0]["delta"], content=content)
    choice = dict(chunk["choices"][0], delta=delta)
    return json.dumps(dict(chunk, choices=[choice]), ensure_ascii=False).encode()
