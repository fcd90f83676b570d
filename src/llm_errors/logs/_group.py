"""Group the lines that continue an error line into that one error (pure).

A Python traceback is read by its own parser (:mod:`llm_errors.logs._traceback`).
Other errors span lines too, and read line by line each line would count as an
error of its own: Node prints ``TypeError: fetch failed``, its ``    at ...`` frames
and the error's cause as an indented ``[cause]: ...`` block (``util.inspect``), Java
prints tab-indented ``at ...`` frames and ``Caused by: ...``, and a gateway's HTML page follows
the line that reports it. A :class:`Group` is one error line and the lines that
continue it:

* a line indented deeper than the error line (frames, a cause block, details);
* a cause at the start of a line: ``[cause]:``, ``cause:``, ``caused by:`` (any case;
  Java's ``Caused by:``, Next.js's ``Cause:``);
* a line of closing brackets only (``}``: the end of ``util.inspect``'s braces);
* a line that opens an HTML document (``<html``, ``<!DOCTYPE html``); and once a
  line taken (the error line too) opened one, up to the line holding ``</html>``,
  every line that starts with a tag (``<`` and a letter, ``/`` or ``!``), with
  white space, or is blank. A page's text at the start of a line, or a page cut
  short (log messages often are), ends the group at the next log line.

Any other line ends the group, a blank one too (outside an HTML page): a held
error line is then released as it always was, so the scan is in its initial state
after the same lines as before (what ``--jobs`` meets on).

Stack frames (``at ...``, ``... 12 more``) say where, not what: as a traceback's
frames, they count toward the bounds but are not kept in the group's text (nor are
lines of closing brackets and an HTML page's blank lines). A group
is bounded by :data:`GROUP_LINES` lines and :data:`GROUP_BYTES` bytes: the line that
would pass either bound is not taken (the group ends before it, and the line is
read as a new one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["GROUP_BYTES", "GROUP_LINES", "Group", "closes_html", "in_html", "opens_html"]

#: Most lines in one group, the error line included.
GROUP_LINES: Final = 512
#: Most bytes in one group (UTF-8, line ends not counted), the error line included.
GROUP_BYTES: Final = 65_536

_CAUSE = re.compile(r"\s*(?:\[cause\]|cause|caused by):", re.IGNORECASE)
_CLOSERS = re.compile(r"\s*[\]})]+[,;]?\s*")
_FRAME = re.compile(r"\s+(?:at\s|\.\.\.\s\d+\s(?:more|common frames omitted))")
_HTML_OPEN = re.compile(r"<(?:html|!doctype\s+html)\b", re.IGNORECASE)
_HTML_AT_START = re.compile(r"\s*" + _HTML_OPEN.pattern, re.IGNORECASE)
_HTML_CLOSE = re.compile(r"</html\s*>", re.IGNORECASE)
_TAG = re.compile(r"<[A-Za-z/!]")  # not a syslog priority such as ``<13>``
# The first bytes of the lines a group may take: ASCII white space (``str.isspace``'s),
# a non-ASCII lead byte (Unicode white space), a cause (``[``, ``c``), a closing
# bracket, a tag; and ``\n``, ending an empty line (an HTML page's blank one).
_FIRST_BYTES: Final = frozenset(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f[cC]})<") | frozenset(
    range(0x80, 0x100)
)


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def opens_html(text: str) -> bool:
    """Whether ``text`` opens an HTML document it does not close."""
    opening = _HTML_OPEN.search(text) if "<" in text else None
    return opening is not None and _HTML_CLOSE.search(text, opening.end()) is None


def closes_html(text: str) -> bool:
    """Whether ``text`` holds the ``</html>`` that ends a document."""
    return "<" in text and _HTML_CLOSE.search(text) is not None


def in_html(text: str) -> bool:
    """Whether ``text`` may be a line of an open HTML document: a tag, white space, blank."""
    return not text or text[:1].isspace() or _TAG.match(text) is not None


@dataclass(slots=True)
class Group:
    """One error line, numbered ``first``, and the lines taken after it (see the module doc)."""

    first: int
    text_lines: list[str]
    """The lines kept: the error line, then those taken but frames, closers and blanks."""
    end: int
    """The last line taken."""
    indent: int
    lines: int = 1
    bytes: int = 0
    html: bool = False
    """Inside an HTML document: its lines are taken up to its ``</html>``."""

    @classmethod
    def open(cls, number: int, text: str) -> Group:
        """The group of error line ``number``."""
        return cls(number, [text], number, _indent(text), bytes=_size(text), html=opens_html(text))

    @property
    def grown(self) -> bool:
        """Whether a line was taken after the error line."""
        return self.end > self.first

    @property
    def text(self) -> str:
        """The lines kept, one per line: what the grouped error is classified on."""
        return "\n".join(self.text_lines)

    def takes(self, text: str) -> bool:
        """Whether line ``text``, the next one, continues the group (within the bounds)."""
        if self.lines >= GROUP_LINES or self.bytes + _size(text) > GROUP_BYTES:
            return False
        if self.html:
            return in_html(text)
        return (
            (text[:1].isspace() and _indent(text) > self.indent)
            or _CAUSE.match(text) is not None
            or _CLOSERS.fullmatch(text) is not None
            or _HTML_AT_START.match(text) is not None
        )

    @staticmethod
    def may_take(first: int) -> bool:
        """Whether a next line whose first byte (UTF-8) is ``first`` may be taken.

        ``False`` is exact (:meth:`takes` is then ``False``): a test of one byte,
        before the line is decoded, for the line after most error lines.
        """
        return first in _FIRST_BYTES

    def add(self, number: int, text: str) -> None:
        """Take line ``number``, which :meth:`takes` accepted."""
        self.lines += 1
        self.bytes += _size(text)
        self.end = number
        if not text or text.isspace():
            return  # a blank line of an HTML page
        self.html = not closes_html(text) if self.html else opens_html(text)
        if _FRAME.match(text) is None and _CLOSERS.fullmatch(text) is None:
            self.text_lines.append(text)
