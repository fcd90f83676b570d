r"""Keeping the API key and image data out of every text the adapter builds; no I/O.

``llm_errors.redact`` recognises prefixed tokens (``sk-…``, ``Bearer …``) but cannot
tell an unprefixed 32-character Mistral key from any other word, so the adapter
scrubs *its own* key by value: :class:`Scrubber` replaces the key, also in the forms
a JSON encoder may give it (any character as ``\uXXXX``, ``/`` as ``\/``), and runs
of base64 data, also when wrapped every 60 or 76 columns or JSON-escaped, before an
error leaves the adapter (its message, ``request_id``, ``body``, notes, and the
messages of the exceptions it chains), and in the message's ``errorMessage``.

Keys and header values are checked when the adapter is built
(:func:`clean_api_key`, :func:`check_header_value`): a key that cannot travel in a
header would otherwise fail every call with an error whose ``repr`` holds
``Bearer <key>``. The errors name the problem, never the value. Spaces, tabs and
line breaks around a key are stripped first (:data:`KEY_PADDING`): a key read from a
file or an environment variable often ends with a newline, and no key has them.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import re
from typing import Final

from llm_errors import LlmError

__all__ = ["KEY_PADDING", "MIN_SCRUBBED_KEY", "Scrubber", "check_header_value", "clean_api_key"]

KEY_MARK: Final = "<redacted>"
#: The shortest key scrubbed by value. A shorter one (a local server's ``"k"`` or
#: ``"none"``) is no secret, and replacing it would cut ordinary words apart.
MIN_SCRUBBED_KEY: Final = 16
#: What is stripped from around an API key: ASCII spaces, tabs and line breaks.
KEY_PADDING: Final = " \t\r\n"
IMAGE_MARK: Final = "<base64 elided>"

# One base64 character, ``/`` possibly JSON-escaped; a run of 40 or more of them is
# data, not prose. Further lines of a wrapped run are taken while they are long (16+),
# end the data (padding), or are a short last line after a line break (real or
# JSON-escaped); a short word after mere spaces is left alone.
_B64 = r"(?:[A-Za-z0-9+]|\\?/)"
_SEP = r"(?:\s|\\[rn])+"
_BREAK = r"[ \t]*(?:\r?\n|\\r?\\n)(?:\s|\\[rn])*"
_MORE = (
    rf"(?:{_SEP}{_B64}{{16,}}={{0,2}}|{_BREAK}{_B64}{{1,15}}={{0,2}}|{_SEP}{_B64}{{1,15}}={{1,2}})"
)
_BASE64 = re.compile(rf"{_B64}{{40,}}={{0,2}}(?:{_MORE})*")
_CHAIN_LIMIT = 16
#: A header name: an RFC 9110 token.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def _escaped(char: str) -> str:
    r"""A pattern for ``char`` as given or JSON-escaped (``\u00e9``, ``\/``, ``\"``)."""
    forms = [re.escape(char), rf"\\u{ord(char):04x}"]
    if char in '/"\\':
        forms.append(re.escape("\\" + char))
    return f"(?:{'|'.join(forms)})"


class Scrubber:
    """Removes one API key, in any JSON spelling, and base64 runs from text."""

    __slots__ = ("_key", "_pattern")

    def __init__(self, key: str) -> None:
        self._key = key if len(key) >= MIN_SCRUBBED_KEY else None
        self._pattern = re.compile("".join(_escaped(char) for char in key), re.IGNORECASE)

    def __call__(self, text: str) -> str:
        """``text`` without the key (if it is :data:`MIN_SCRUBBED_KEY` long) or base64 data."""
        if self._key is not None:
            if self._key in text:
                text = text.replace(self._key, KEY_MARK)
            if "\\" in text:  # a JSON-escaped spelling of the key (rare: only then the regex)
                text = self._pattern.sub(KEY_MARK, text)
        return _BASE64.sub(IMAGE_MARK, text)

    def error(self, error: LlmError) -> None:
        """Scrub ``error`` in place: its text attributes and its notes.

        That is the message, ``request_id``, ``body``, ``chunk_type`` and any other
        ``str`` attribute (not ``code``, whose ``StrEnum`` stays as it is).
        """
        attributes = vars(error)
        for name, value in attributes.items():
            if type(value) is str:  # not the code, a StrEnum
                attributes[name] = self(value)
        error.args = (error.message,)
        self._notes(error)

    def chain(self, exc: BaseException) -> None:
        """Scrub the text arguments and notes of ``exc`` and of the exceptions it chains."""
        seen: set[int] = set()
        current: BaseException | None = exc
        while current is not None and id(current) not in seen and len(seen) < _CHAIN_LIMIT:
            seen.add(id(current))
            if isinstance(current, LlmError):
                self.error(current)
            else:
                current.args = tuple(
                    self(arg) if isinstance(arg, str) else arg for arg in current.args
                )
                self._notes(current)
            current = current.__cause__ or current.__context__

    def _notes(self, exc: BaseException) -> None:
        notes = getattr(exc, "__notes__", None)
        if notes:
            exc.__notes__ = [self(note) if isinstance(note, str) else note for note in notes]


def clean_api_key(key: str, *, source: str = "api_key") -> str:
    """The key without the :data:`KEY_PADDING` around it, checked for an HTTP header.

    ``source`` says where the key came from (``api_key`` or the environment variable),
    for the error; the error never shows the key.

    Raises:
        ValueError: what is left has non-ASCII, whitespace or control characters.
    """
    key = key.strip(KEY_PADDING)
    if not key.isascii():
        raise ValueError(f"{source} contains non-ASCII characters (a key is ASCII)")
    if not all(char.isprintable() and not char.isspace() for char in key):
        raise ValueError(
            f"{source} contains whitespace or control characters (inside the key: spaces, "
            "tabs and line breaks around it are stripped)"
        )
    return key


def check_header_value(name: str, value: str) -> None:
    """Reject a header value that would break the request, without showing it.

    Raises:
        ValueError: the name is not an HTTP token, or the value has CR, LF or NUL
            (header injection) or characters outside Latin-1 (httpx cannot send them).
    """
    if not _TOKEN.fullmatch(name):
        raise ValueError("headers: a header name is not a valid HTTP token (RFC 9110 5.1)")
    if any(char in value for char in "\r\n\0"):
        raise ValueError(f"headers: the value of {name!r} contains CR, LF or NUL")
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        raise ValueError(
            f"headers: the value of {name!r} has characters HTTP headers cannot carry"
        ) from None
