"""Recognise Python tracebacks in log text and rebuild their exception chain.

A traceback spans many lines, but only a few of them say what failed: the final
``pkg.Error: message`` line of each segment, and the separators that chain the
segments (``The above exception was the direct cause of the following
exception:`` sets ``__cause__``, ``During handling of the above exception,
another exception occurred:`` sets ``__context__``). :class:`TracebackParser`
is a small line-fed state machine that keeps just those, so a traceback of any
length costs bounded memory. :meth:`ParsedTraceback.to_exception` rebuilds the
chain as real exception objects whose classes carry the logged qualified names,
so the classifier's exception layer reads a logged ``httpx.ReadTimeout`` exactly
as it reads a live one: by name, without importing anything. Builtin names
(``ConnectionResetError``, ``TimeoutError``) resolve to the builtin classes.

Exception groups (``+ Exception Group Traceback``) are read as one group whose
members are every exception line inside it.

An exception line whose message opens an HTML page (an SDK's status error holding
a gateway's 502 page: ``openai.InternalServerError: <html>``) takes the page's
lines up to its ``</html>`` into its message, as :mod:`llm_errors.logs._group`
reads a page after an error line, at most :data:`~llm_errors.logs._group.GROUP_LINES`
of them (past that the traceback ends, and the rest are read as lines).

Output that every log line carries a prefix for (a timestamp, a container tag)
is handled when the prefix has the same shape on each line: digits may change,
the width may not.
"""

from __future__ import annotations

import builtins
import enum
import functools
import re
from dataclasses import dataclass, field

from llm_errors.logs._group import GROUP_LINES, closes_html, in_html, opens_html

__all__ = ["ExceptionLine", "Link", "ParsedTraceback", "TracebackParser", "match_header"]

#: Longest exception message kept per exception line, in characters.
MESSAGE_LIMIT = 4096
#: Most exception lines kept per traceback; the oldest causes are dropped first.
CHAIN_LIMIT = 16

_HEADER = re.compile(r"Traceback \(most recent call last\):\s*$")
_GROUP_HEADER = re.compile(r"\+ Exception Group Traceback \(most recent call last\):\s*$")
_EXCEPTION_LINE = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?::(?: (?P<msg>.*))?)?$")
_CAUSE = "The above exception was the direct cause of the following exception:"
_CONTEXT = "During handling of the above exception, another exception occurred:"
_ERRNO = re.compile(r"\[Errno (?P<errno>-?\d+)\] (?P<strerror>.*)$", re.DOTALL)
_DIGITS = re.compile(r"\d")


class Link(enum.Enum):
    """How an exception line relates to the one before it."""

    FIRST = "first"
    CAUSE = "cause"
    CONTEXT = "context"
    MEMBER = "member"


@dataclass(frozen=True, slots=True)
class ExceptionLine:
    """One ``name: message`` line of a traceback, and how it chains to the previous one."""

    name: str
    message: str
    link: Link

    @property
    def text(self) -> str:
        """The line as Python printed it."""
        return f"{self.name}: {self.message}" if self.message else self.name


@dataclass(frozen=True, slots=True)
class ParsedTraceback:
    """What a traceback says failed: its exception lines, oldest cause first."""

    exceptions: tuple[ExceptionLine, ...]
    group: bool = False

    @property
    def final(self) -> ExceptionLine | None:
        """The exception that was raised last (the group itself for a group)."""
        if not self.exceptions:
            return None
        return self.exceptions[0] if self.group else self.exceptions[-1]

    def to_exception(self) -> BaseException | None:
        """Rebuild the chain (or group) as exception objects, the final one returned."""
        if not self.exceptions:
            return None
        if self.group:
            head, *members = self.exceptions
            built = [_build(line.name, line.message) for line in members]
            if built:
                return BaseExceptionGroup(head.message or head.name, built)
            return _build(head.name, head.message)
        final: BaseException | None = None
        for line in self.exceptions:
            exc = _build(line.name, line.message)
            if final is not None:
                if line.link is Link.CAUSE:
                    exc.__cause__ = final
                else:
                    exc.__context__ = final
            final = exc
        return final


def match_header(text: str) -> tuple[str, bool] | None:
    """If ``text`` opens a traceback, return its line prefix and whether it is a group."""
    found = _GROUP_HEADER.search(text)
    if found is not None:
        lead = text[: found.start()]
        return (lead.rstrip() + " " if lead.strip() else ""), True
    found = _HEADER.search(text)
    if found is not None:
        return text[: found.start()], False
    return None


class _State(enum.Enum):
    FRAMES = enum.auto()
    EXCEPTION = enum.auto()
    HTML = enum.auto()  # the exception line's message opened an HTML page
    BLANK = enum.auto()
    CHAIN = enum.auto()


@dataclass(slots=True)
class TracebackParser:
    """Fed the lines after a traceback header; says which lines still belong to it.

    Args:
        prefix: What precedes ``Traceback`` on the header line; continuation lines
            must start with a prefix of the same shape, which is then stripped.
        group: Whether the header opened an exception group.
    """

    prefix: str = ""
    group: bool = False
    _shape: str = field(init=False)
    _state: _State = field(init=False, default=_State.FRAMES)
    _link: Link = field(init=False, default=Link.FIRST)
    _lines: list[ExceptionLine] = field(init=False, default_factory=list)
    _fed: bool = field(init=False, default=False)
    _html_lines: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self._shape = _DIGITS.sub("0", self.prefix)

    def feed(self, text: str) -> bool:
        """Take one line; ``False`` means it does not belong (the traceback ended before it)."""
        if self.prefix:
            if _DIGITS.sub("0", text[: len(self.prefix)]) == self._shape:
                text = text[len(self.prefix) :]
            elif self._fed or not text[:1].isspace():
                return False
            else:
                # The header shared a line with a log record; the frames that follow do not.
                self.prefix = self._shape = ""
        self._fed = True
        if self.group:
            return self._feed_group(text)
        return self._feed_plain(text)

    def result(self) -> ParsedTraceback:
        """The exception lines read so far (a cut-off traceback may have none)."""
        return ParsedTraceback(tuple(self._lines), group=self.group)

    def _feed_plain(self, text: str) -> bool:
        if self._state is _State.HTML and (taken := self._feed_html(text)) is not None:
            return taken
        indented = text[:1].isspace()
        blank = not text.strip()
        state = self._state
        if state is _State.FRAMES:
            if indented and not blank:
                return True
            return self._exception(text)
        if state is _State.EXCEPTION and indented and not blank:
            self._extend(text.strip())
            return True
        if state in {_State.EXCEPTION, _State.BLANK} and blank:
            self._state = _State.BLANK
            return True
        if state in {_State.EXCEPTION, _State.BLANK} and text.strip() in {_CAUSE, _CONTEXT}:
            self._link = Link.CAUSE if text.strip() == _CAUSE else Link.CONTEXT
            self._state = _State.CHAIN
            return True
        if state is _State.CHAIN:
            if blank:
                return True
            if _HEADER.match(text):
                self._state = _State.FRAMES
                return True
            # A cause that was never raised prints as its exception line alone.
            return self._exception(text)
        return False

    def _feed_html(self, text: str) -> bool | None:
        """A line of the HTML page the exception line opened; ``None``: not one, read on."""
        if self._html_lines >= GROUP_LINES:
            return False  # a page without its end: the rest are read as lines
        if not in_html(text):
            self._state = _State.EXCEPTION  # the page was cut short
            return None
        self._html_lines += 1
        if text.strip():
            self._extend(text.strip())
        if closes_html(text):
            self._state = _State.EXCEPTION
        return True

    def _feed_group(self, text: str) -> bool:
        stripped = text.lstrip()
        if stripped.startswith("+"):
            return True  # a member separator such as "+-+---- 1 ----"
        if not stripped.startswith("|"):
            return False
        body = stripped[2:] if stripped[1:2] == " " else ""
        if body[:1].isspace() or body.strip() in {"", _CAUSE, _CONTEXT} or _HEADER.match(body):
            return True
        parsed = _EXCEPTION_LINE.match(body)
        if parsed is not None:
            link = Link.FIRST if not self._lines else Link.MEMBER
            self._append(ExceptionLine(parsed["name"], _bound(parsed["msg"] or ""), link))
        return True

    def _exception(self, text: str) -> bool:
        parsed = _EXCEPTION_LINE.match(text)
        if parsed is None:
            return False
        self._append(ExceptionLine(parsed["name"], _bound(parsed["msg"] or ""), self._link))
        self._state = _State.HTML if opens_html(text) else _State.EXCEPTION
        self._html_lines = 0
        return True

    def _append(self, line: ExceptionLine) -> None:
        self._lines.append(line)
        if len(self._lines) > CHAIN_LIMIT:
            # Keep the group head (it names the group), drop the oldest cause otherwise.
            del self._lines[1 if self.group else 0]

    def _extend(self, more: str) -> None:
        last = self._lines[-1]
        if len(last.message) < MESSAGE_LIMIT:
            joined = f"{last.message} {more}" if last.message else more
            self._lines[-1] = ExceptionLine(last.name, _bound(joined), last.link)


def _bound(message: str) -> str:
    return message[:MESSAGE_LIMIT]


def _build(name: str, message: str) -> BaseException:
    """An exception object of the logged class name, carrying the logged message."""
    if "." not in name:
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            errno = _ERRNO.match(message) if issubclass(builtin, OSError) else None
            try:
                if errno is not None:
                    return builtin(int(errno["errno"]), errno["strerror"])
                return builtin(message) if message else builtin()
            except TypeError:
                pass  # e.g. UnicodeDecodeError needs five arguments: fall back to a stand-in
    return _stand_in(name)(message) if message else _stand_in(name)()


@functools.lru_cache(maxsize=512)
def _stand_in(name: str) -> type[Exception]:
    """A class named like the logged one (``module.QualName``), so name-based rules match."""
    module, _, qualname = name.rpartition(".")
    return type(
        qualname, (Exception,), {"__module__": module or "builtins", "__qualname__": qualname}
    )
