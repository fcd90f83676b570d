"""The installed distribution's version, read once from its metadata.

The version lives in one place, ``pyproject.toml``; every package, CLI and the
adapter's ``User-Agent`` read it from the installed metadata instead of repeating it.
"""

from __future__ import annotations

from importlib import metadata
from typing import Final

__all__ = ["DISTRIBUTION", "UNKNOWN_VERSION", "distribution_version"]

#: The name this project is installed under.
DISTRIBUTION: Final = "llm-resilience"
#: What a source tree that was never installed reports (a PEP 440 local version).
UNKNOWN_VERSION: Final = "0+unknown"


def distribution_version() -> str:
    """Return the installed ``llm-resilience`` version, or ``0+unknown`` when not installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return UNKNOWN_VERSION
