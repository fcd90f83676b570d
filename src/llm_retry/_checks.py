"""Constructor checks that name the offending field (pure; shared by every public type).

A bad setting is a caller bug, so it raises ``ValueError``/``TypeError`` at construction,
never an ``LlmError`` later: a retry policy can then never retry its own misconfiguration.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final, TypeAlias

from llm_errors import ErrorCode, redact

__all__ = [
    "SHOWN",
    "Codes",
    "require_bool",
    "require_callable",
    "require_codes",
    "require_int",
    "require_number",
    "shown",
]

#: What a set of error codes may be given as: one code, a string of comma- or
#: blank-separated code names, or a collection of codes and names.
Codes: TypeAlias = ErrorCode | str | Iterable[ErrorCode | str]

#: Characters of a bad value quoted in an error message.
SHOWN: Final = 40


def shown(value: object) -> str:
    """A short, redacted rendering of a bad setting for the error message."""
    text = redact(repr(value))
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}…"


def require_int(name: str, value: object, *, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an ``int`` from ``minimum`` to ``maximum`` (``bool`` is not an int here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def require_number(
    name: str, value: object, *, minimum: float = 0.0, strict: bool = False, finite: bool = True
) -> float:
    """``value`` as a real number ``>= minimum`` (``>`` when ``strict``); never NaN."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    number = float(value)
    if math.isnan(number) or (finite and math.isinf(number)):
        raise ValueError(f"{name} must be a finite number, got {value}")
    if number < minimum or (strict and number == minimum):
        bound = ">" if strict else ">="
        raise ValueError(f"{name} must be {bound} {minimum:g}, got {value}")
    return number


def require_bool(name: str, value: object) -> bool:
    """``value`` as a ``bool`` (no truthiness: ``"false"`` is not accepted here)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def require_callable(name: str, value: object, *, optional: bool = False) -> None:
    """Fail early when a hook or injected function is not callable."""
    if optional and value is None:
        return
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {type(value).__name__}")


def require_codes(name: str, codes: object) -> frozenset[ErrorCode]:
    """``codes`` as a frozenset of ``ErrorCode``: one code, a string of names, or a collection.

    Accepted: an ``ErrorCode``; a string of code names separated by commas and/or blanks
    (``"RATE_LIMIT,SERVER"``, ``"rate_limit, server"``); or any iterable of codes and
    names. A name is matched whatever its case and surrounding blanks; an unknown one is
    a ``ValueError`` naming it and listing the codes. A string of separators only names
    no code, like an empty list.
    """
    if isinstance(codes, str):  # an ErrorCode too (a StrEnum): its value is its one name
        return frozenset(_code(name, item) for item in codes.replace(",", " ").split())
    if not isinstance(codes, Iterable):
        raise TypeError(
            f'{name} must be an ErrorCode, a string of code names ("RATE_LIMIT,SERVER") '
            f"or a collection of them, got {type(codes).__name__}"
        )
    return frozenset(_code(name, item) for item in codes)


def _code(name: str, item: object) -> ErrorCode:
    if isinstance(item, ErrorCode):
        return item
    if not isinstance(item, str):
        raise TypeError(f"{name} must hold ErrorCode members or names, got {type(item).__name__}")
    try:
        return ErrorCode(item.strip().upper())
    except ValueError:
        valid = ", ".join(code.value for code in ErrorCode if code is not ErrorCode.ABORTED)
        raise ValueError(
            f"{name}: unknown error code {shown(item)}; expected some of {valid}"
        ) from None
