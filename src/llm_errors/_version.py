"""The installed distribution's version, read once from its metadata, when first asked.

The version lives in one place, ``pyproject.toml``; every package, CLI and the
adapter's ``User-Agent`` read it from the installed metadata instead of repeating it.
Reading it imports :mod:`importlib.metadata` (a third of ``import llm_errors``), so
the packages' ``__version__`` and the ``--version`` options read it only when used.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from typing import Any, Final

__all__ = [
    "DISTRIBUTION",
    "UNKNOWN_VERSION",
    "VersionAction",
    "distribution_version",
    "module_attribute",
]

#: The name this project is installed under.
DISTRIBUTION: Final = "llm-resilience"
#: What a source tree that was never installed reports (a PEP 440 local version).
UNKNOWN_VERSION: Final = "0+unknown"


@functools.cache
def distribution_version() -> str:
    """Return the installed ``llm-resilience`` version, or ``0+unknown`` when not installed."""
    from importlib import metadata  # noqa: PLC0415 - costly, and rarely needed

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return UNKNOWN_VERSION


def module_attribute(module: str, name: str) -> str:
    """A package's lazy ``__getattr__`` (PEP 562): ``__version__``, else ``AttributeError``."""
    if name == "__version__":
        return distribution_version()
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


class VersionAction(argparse.Action):
    """``--version``: prints the command's name and :func:`distribution_version`, read when asked.

    ``command`` names the command (default: the parser's ``prog``).
    """

    def __init__(
        self, option_strings: Sequence[str], dest: str, command: str | None = None, **kwargs: Any
    ) -> None:
        kwargs.setdefault("help", "show program's version number and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.command = command

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,  # noqa: ARG002 - argparse's signature
        values: object,  # noqa: ARG002
        option_string: str | None = None,  # noqa: ARG002
    ) -> None:
        sys.stdout.write(f"{self.command or parser.prog} {distribution_version()}\n")
        parser.exit()
