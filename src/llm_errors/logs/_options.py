"""The command line's parser and option types: every bad word is a usage error of its command.

An error names the option, the value given and what is allowed (the choices, the
range), and is printed under the usage of the command it was given to, with exit
status 2 (argparse's :meth:`~argparse.ArgumentParser.error`). :class:`CommandParser`
remembers each command's options and its ``FILE ...``, so that the words argparse
leaves over are the command's own business (:meth:`CommandParser.take_extras`): an
unknown option is named with the closest one, a ``FILE`` after an option is a ``FILE``.
"""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Final, TypeVar

__all__ = [
    "JOBS_LIMIT",
    "CommandParser",
    "choice",
    "job_count",
    "text",
    "whole_number",
]

_E = TypeVar("_E", bound=StrEnum)

#: Most ``--jobs`` processes: what :class:`concurrent.futures.ProcessPoolExecutor`
#: accepts on Windows, and far past where more ranges stop paying for their merge.
JOBS_LIMIT: Final = 61


class CommandParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` that remembers its options and its open positional.

    ``options`` are every option string in the order added (``-h`` and ``--help``
    first); ``rest`` is the destination of the positional that takes any number of
    words (``FILE ...``, ``MESSAGE ...``), if the command has one.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.options: list[str] = []
        self.rest: str | None = None
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """Add an argument as argparse does, and remember its option strings."""
        action = super().add_argument(*args, **kwargs)
        self.options += action.option_strings
        if not action.option_strings and action.nargs in {"*", "+"}:
            self.rest = action.dest
        return action

    def take_extras(self, namespace: argparse.Namespace, extras: list[str]) -> None:
        """Take the words :meth:`parse_known_args` left over for this command, or exit 2.

        argparse hands the words a command does not know up to the top-level parser,
        which would show its own usage: here an unknown option is this command's usage
        error. argparse also leaves over the ``FILE`` words given after an option
        (``classify a.log --format jsonl b.log``): they join :attr:`rest`.
        """
        end = extras.index("--") if "--" in extras else len(extras)  # after it, only words
        words = extras[:end] + extras[end + 1 :]
        unknown = next((w for w in extras[:end] if w.startswith("-") and w != "-"), None)
        if unknown is not None:
            self.error(self.unknown(unknown))
        if self.rest is None:
            self.error(f"unrecognized arguments: {' '.join(words)}")
        getattr(namespace, self.rest).extend(words)

    def unknown(self, word: str) -> str:
        """The message for an option this command does not have, with the closest one."""
        name = word.split("=", 1)[0]
        # Compared without their dashes, which every option shares.
        names = {option.lstrip("-"): option for option in self.options}
        close = difflib.get_close_matches(name.lstrip("-"), names, n=1)
        hint = f": did you mean {names[close[0]]}?" if close else ""
        return f"unrecognized option {name!r}{hint} ({self.prog} takes {', '.join(self.options)})"


def whole_number(minimum: int) -> Callable[[str], int]:
    """An option's type: a whole number, ``minimum`` or more."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            number = minimum - 1
        if number < minimum:
            msg = f"{value!r} is not a whole number of {minimum} or more"
            raise argparse.ArgumentTypeError(msg)
        return number

    return parse


def job_count(value: str) -> int:
    """``--jobs``: 0 to :data:`JOBS_LIMIT` processes, 0 meaning one per core (up to the limit)."""
    try:
        count = int(value)
    except ValueError:
        count = -1
    if not 0 <= count <= JOBS_LIMIT:
        msg = f"{value!r} is not a number of processes from 0 to {JOBS_LIMIT} (0: one per core)"
        raise argparse.ArgumentTypeError(msg)
    return count or min(os.cpu_count() or 1, JOBS_LIMIT)


def choice(kind: type[_E]) -> Callable[[str], _E]:
    """An option's type: one of ``kind``'s values (give ``choices=list(kind)`` for the usage)."""

    def parse(value: str) -> _E:
        try:
            return kind(value)
        except ValueError:
            choices = ", ".join(member.value for member in kind)
            msg = f"invalid choice: {value!r} (choose from {choices})"
            raise argparse.ArgumentTypeError(msg) from None

    return parse


def text(what: str) -> Callable[[str], str]:
    """An option's type: any text but an empty one (``what`` says what it should be)."""

    def parse(value: str) -> str:
        if not value.strip():
            msg = f"{value!r} is empty: give {what}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse
