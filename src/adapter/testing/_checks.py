"""The argument checks of the scenario and chunk builders (pure).

Every builder checks its arguments when it is called, so a mistake fails in the test
that wrote it, with a message that names the builder, the argument and what it takes:
a wrong type is a ``TypeError``, a value out of range a ``ValueError``. The value is
shown, cut to :data:`SHOWN_LIMIT` characters.

.. versionadded:: 0.2.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final, NoReturn, get_args

from adapter._mistral.wire import KnownFinishReason

__all__ = [
    "FINISH_REASONS",
    "SHOWN_LIMIT",
    "check_bool",
    "check_finish_reason",
    "check_int",
    "check_mapping",
    "check_seconds",
    "check_status",
    "check_str",
    "shown",
]

#: The most characters of a rejected value an error shows.
SHOWN_LIMIT: Final = 60
#: The ``finish_reason`` values the builders take (any other: ``completion_chunk``).
FINISH_REASONS: Final[tuple[str, ...]] = get_args(KnownFinishReason)


def shown(value: object) -> str:
    """``repr(value)``, cut to :data:`SHOWN_LIMIT` characters."""
    text = repr(value)
    return text if len(text) <= SHOWN_LIMIT else f"{text[:SHOWN_LIMIT]}…"


def _fail(error: type[Exception], owner: str, name: str, expected: str, value: object) -> NoReturn:
    raise error(f"{owner}: {name} must be {expected}, got {shown(value)}")


def check_str(
    owner: str, name: str, value: object, *, optional: bool = False, line: bool = False
) -> None:
    """A ``str`` (or ``None`` when ``optional``); with ``line``, one without CR or LF."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        _fail(TypeError, owner, name, "a str or None" if optional else "a str", value)
    elif line and ("\r" in value or "\n" in value):
        _fail(ValueError, owner, name, "one line (no CR or LF)", value)


def check_bool(owner: str, name: str, value: object, *, optional: bool = False) -> None:
    """``True`` or ``False`` (or ``None`` when ``optional``)."""
    if not (isinstance(value, bool) or (value is None and optional)):
        _fail(TypeError, owner, name, "a bool or None" if optional else "a bool", value)


def check_int(
    owner: str, name: str, value: object, minimum: int = 0, *, optional: bool = False
) -> None:
    """An ``int`` (not a ``bool``) of at least ``minimum`` (or ``None`` when ``optional``)."""
    if value is None and optional:
        return
    expected = f"an int >= {minimum}" + (" or None" if optional else "")
    if not isinstance(value, int) or isinstance(value, bool):
        _fail(TypeError, owner, name, expected, value)
    elif value < minimum:
        _fail(ValueError, owner, name, expected, value)


def check_seconds(owner: str, name: str, value: object) -> None:
    """A finite number of seconds, ``>= 0``."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        _fail(TypeError, owner, name, "a finite number >= 0", value)
    elif not (value >= 0 and math.isfinite(value)):
        _fail(ValueError, owner, name, "a finite number >= 0", value)


def check_status(owner: str, name: str, value: object) -> None:
    """A three-digit status code, an ``int``."""
    if not isinstance(value, int) or isinstance(value, bool):
        _fail(TypeError, owner, name, "a three-digit int", value)
    elif not 100 <= value <= 999:  # noqa: PLR2004 - what a status line can carry
        _fail(ValueError, owner, name, "a three-digit int", value)


def check_mapping(owner: str, name: str, value: object, *, optional: bool = False) -> None:
    """A mapping, such as a ``dict`` (or ``None`` when ``optional``)."""
    if not (isinstance(value, Mapping) or (value is None and optional)):
        _fail(TypeError, owner, name, "a mapping or None" if optional else "a mapping", value)


def check_finish_reason(owner: str, name: str, value: object, *, optional: bool) -> None:
    """One of :data:`FINISH_REASONS` (or ``None`` when ``optional``).

    A reason Mistral may add later is sent with ``completion_chunk(finish_reason=...)``.
    """
    if value is None and optional:
        return
    if value not in FINISH_REASONS:
        choices = ", ".join(map(repr, FINISH_REASONS)) + (" or None" if optional else "")
        error = ValueError if isinstance(value, str) else TypeError
        _fail(error, owner, name, f"one of {choices} (any other: completion_chunk)", value)
