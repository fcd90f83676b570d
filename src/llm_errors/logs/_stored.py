"""Keep a compiled Hyperscan database in the user's cache directory between runs.

Compiling the block filter (:mod:`llm_errors.logs._blocks`) takes about half a
second of CPU, more than scanning a 100 MB log; loading it back takes well under
a millisecond. So the first run stores the compiled database
(``hyperscan.dumpb``) under a name derived from everything it depends on (the
pattern, its flags, the Hyperscan version, the machine), and later runs load it.

The directory is ``LLM_ERRORS_CACHE_DIR`` when set (an empty value turns storing
off), else the platform's user cache directory for ``llm-errors`` (from
``platformdirs``, part of the ``fast`` extra; without it nothing is stored).
Storing never fails a run: an unreadable, oversized, corrupt or foreign file is
ignored and replaced, and a directory that cannot be written only costs the
compile. A file is written whole to a temporary name and renamed, so concurrent
runs (``--jobs`` workers, two shells) never read half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import platform
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

__all__ = ["CACHE_ENV", "STORED_LIMIT", "cache_dir", "load_or_compile"]

#: The environment variable naming the cache directory ("" turns storing off).
CACHE_ENV: Final = "LLM_ERRORS_CACHE_DIR"
#: Largest stored database read back, in bytes (the block filter's is about 1 MiB).
STORED_LIMIT: Final = 64 << 20


def cache_dir() -> Path | None:
    """Where compiled databases are kept, or ``None`` when they are not kept."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured else None
    try:
        platformdirs = importlib.import_module("platformdirs")
    except ImportError:
        return None
    return Path(platformdirs.user_cache_dir("llm-errors", appauthor=False))


def _name(hyperscan: Any, key: bytes) -> str:
    digest = hashlib.sha256()
    for part in (str(hyperscan.__version__).encode(), platform.machine().encode(), key):
        digest.update(len(part).to_bytes(8, "little") + part)
    return f"hyperscan-{digest.hexdigest()[:40]}.db"


def _load(hyperscan: Any, path: Path) -> Any | None:
    try:
        with path.open("rb") as file:
            data = file.read(STORED_LIMIT + 1)
    except OSError:
        return None
    if len(data) > STORED_LIMIT:
        return None
    try:
        database = hyperscan.loadb(data, hyperscan.HS_MODE_BLOCK)
        # A loaded database comes without scratch space, and scanning it then fails
        # (darvid/python-hyperscan#153): allocate it, as ``compile`` does.
        database.scratch = hyperscan.Scratch(database)
    except (hyperscan.error, ValueError, TypeError):  # corrupt, truncated, another platform
        return None
    return database


def _store(hyperscan: Any, path: Path, database: Any) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".db")
        temporary = Path(name)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(hyperscan.dumpb(database))
            temporary.replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise


def load_or_compile(hyperscan: Any, key: bytes, compile_database: Callable[[], Any]) -> Any:
    """The database ``key`` names, loaded from the cache directory or compiled (and stored).

    ``key`` must hold everything the database depends on besides the Hyperscan
    version and the machine (the expressions, their ids and flags, the mode).
    """
    directory = cache_dir()
    path = None if directory is None else directory / _name(hyperscan, key)
    if path is not None and (database := _load(hyperscan, path)) is not None:
        return database
    database = compile_database()
    if path is not None:
        _store(hyperscan, path, database)
    return database
