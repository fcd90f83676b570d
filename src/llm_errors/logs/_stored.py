"""Keep what start-up derives from the rules in the user's cache directory between runs.

Four things: the block filter's compiled Hyperscan database
(:mod:`llm_errors.logs._blocks`; compiling it takes about half a second of CPU, more
than scanning a 100 MB log, loading it well under a millisecond), the rules'
trigger words (:mod:`llm_errors._match.prefilter`; deriving them walks every
pattern's parse tree, about 0.2 s for the built-in table, loading them a few ms), and
the rules' patterns as ``regex`` compiled them (about 0.15 s for the built-in table,
loading them a few ms), and the block filter's expression of each pattern
(:mod:`llm_errors.logs._superset`; about 25 ms for the built-in table, needed even to
name the stored database).
The first run stores each under a name derived from everything it depends on (the
patterns, their flags, the Hyperscan or ``regex`` version, Python's and the machine;
the trigger analysis's own source), and later runs load it.

The directory is ``LLM_ERRORS_CACHE_DIR`` when set (an empty value turns storing
off), else the platform's user cache directory for ``llm-errors`` (from
``platformdirs``, part of the ``fast`` extra; without it nothing is stored).
Storing never fails a run: an unreadable, oversized, corrupt or foreign file is
ignored and replaced (a trigger table is checked field by field), and a directory
that cannot be written only costs the work. A file is written whole to a temporary
name and renamed, so concurrent runs (``--jobs`` workers, two shells) never read half
a file.

Compiled patterns are stored as ``regex`` pickles them (a file starting with the
SHA-256 of the rest), and read back by an unpickler that rebuilds compiled patterns and
nothing else: it looks up no other global, so a file in the cache directory cannot make
a run call anything else.
"""

from __future__ import annotations

import contextlib
import copyreg
import hashlib
import importlib
import io
import json
import os
import pickle
import platform
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

import regex

from llm_errors.engine import (
    FLAGS,
    FORWARD_ANALYSIS,
    TRIGGER_ANALYSIS,
    Triggers,
    compiled_patterns,
    known_patterns,
    known_triggers,
    triggers_of,
)
from llm_errors.logs import _superset

__all__ = [
    "CACHE_ENV",
    "PATTERNS_KEPT",
    "STORED_LIMIT",
    "cache_dir",
    "load_or_compile",
    "store_patterns",
    "stored_patterns",
    "stored_supersets",
    "stored_triggers",
]

_T = TypeVar("_T")

#: The environment variable naming the cache directory ("" turns storing off).
CACHE_ENV: Final = "LLM_ERRORS_CACHE_DIR"
#: Largest stored database read back, in bytes (the block filter's is about 1 MiB).
STORED_LIMIT: Final = 64 << 20
#: Compiled patterns one stored file keeps (the built-in table is 170); past it, a run
#: stores only the patterns it compiled itself.
PATTERNS_KEPT: Final = 2048


def cache_dir() -> Path | None:
    """Where the stored tables are kept, or ``None`` when none are kept."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured else None
    try:
        platformdirs = importlib.import_module("platformdirs")
    except ImportError:
        return None
    return Path(platformdirs.user_cache_dir("llm-errors", appauthor=False))


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()[:40]


def _name(hyperscan: Any, key: bytes) -> str:
    version = str(hyperscan.__version__).encode()
    return f"hyperscan-{_digest(version, platform.machine().encode(), key)}.db"


def _read(path: Path) -> bytes | None:
    try:
        with path.open("rb") as file:
            data = file.read(STORED_LIMIT + 1)
    except OSError:
        return None
    return None if len(data) > STORED_LIMIT else data


def _write(path: Path, data: bytes) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
        temporary = Path(name)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            temporary.replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise


def _load(hyperscan: Any, path: Path) -> Any | None:
    data = _read(path)
    if data is None:
        return None
    try:
        database = hyperscan.loadb(data, hyperscan.HS_MODE_BLOCK)
        # A loaded database comes without scratch space, and scanning it then fails
        # (darvid/python-hyperscan#153): allocate it, as ``compile`` does.
        database.scratch = hyperscan.Scratch(database)
    except (hyperscan.error, ValueError, TypeError):  # corrupt, truncated, another platform
        return None
    return database


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
        _write(path, hyperscan.dumpb(database))
    return database


def _triggers_json(triggers: Triggers) -> list[object]:
    # (a way's anchor may be None: those first)
    ways = sorted(
        ([anchor, sorted(tokens)] for anchor, tokens in triggers.ways),
        key=lambda way: (way[0] is not None, way[0] or "", way[1]),
    )
    return [sorted(triggers.tokens), sorted(triggers.substrings), sorted(triggers.anchors), ways]


def _strings(value: object) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError
    return frozenset(value)


def _fields(value: object, count: int) -> list[object]:
    if not isinstance(value, list) or len(value) != count:
        raise TypeError
    return value


def _way(value: object) -> tuple[str | None, frozenset[str]]:
    anchor, tokens = _fields(value, 2)
    if not isinstance(anchor, str | None):
        raise TypeError
    return anchor, _strings(tokens)


def _triggers_from(value: object) -> Triggers:
    tokens, substrings, anchors, ways = _fields(value, 4)
    if not isinstance(ways, list):
        raise TypeError
    return Triggers(
        _strings(tokens), _strings(substrings), _strings(anchors), frozenset(map(_way, ways))
    )


def _kept(
    name: str,
    sources: Sequence[Path],
    patterns: Sequence[str],
    *,
    derive: Callable[[str], _T],
    encode: Callable[[_T], object],
    decode: Callable[[object], _T],
) -> tuple[dict[str, _T], bool] | None:
    """What ``derive`` gives each of ``patterns``, and whether it was stored: else it is now.

    The file is keyed on the patterns and on the ``sources`` of the analysis, so a changed
    analysis never reads what an older one derived; a damaged one (``decode`` raising
    ``KeyError``, ``TypeError`` or ``ValueError``) is derived again and replaced.
    ``None`` when nothing is stored (no cache directory).
    """
    directory = cache_dir()
    if directory is None:
        return None
    texts = [source.read_bytes() for source in sources]
    path = directory / f"{name}-{_digest(*texts, *(p.encode() for p in patterns))}.json"
    data = _read(path)
    if data is not None:
        try:
            return _decoded(data, patterns, decode), True
        except (ValueError, TypeError, KeyError, RecursionError):
            pass  # damaged: replaced below
    derived = {pattern: derive(pattern) for pattern in patterns}
    stored = {pattern: encode(value) for pattern, value in derived.items()}
    _write(path, json.dumps(stored, ensure_ascii=False).encode())
    return derived, False


def _decoded(data: bytes, patterns: Sequence[str], decode: Callable[[object], _T]) -> dict[str, _T]:
    table = json.loads(data)
    if not isinstance(table, dict):
        raise TypeError
    return {pattern: decode(table[pattern]) for pattern in patterns}


def stored_triggers(patterns: Sequence[str]) -> None:
    """Give the matcher the stored triggers of ``patterns``; store them if they were missing.

    Keyed on the source of the analysis (``engine.TRIGGER_ANALYSIS``). Deriving happens at
    most once per process (the matcher's cache).
    """
    kept = _kept(
        "triggers",
        TRIGGER_ANALYSIS,
        patterns,
        derive=triggers_of,
        encode=_triggers_json,
        decode=_triggers_from,
    )
    if kept is not None:
        known_triggers(kept[0])


#: The sources of the block filter's expressions: the writer and the forward reading.
_SUPERSET_ANALYSIS: Final = (Path(_superset.__file__), *FORWARD_ANALYSIS)


def stored_supersets(patterns: Sequence[str]) -> None:
    """Give the block filter the stored expressions of ``patterns``; store them if missing.

    Keyed on the sources of the writer and of the forward reading. Writing happens at most
    once per process (the writer's cache).
    """
    kept = _kept(
        "supersets",
        _SUPERSET_ANALYSIS,
        patterns,
        derive=_superset.superset,
        encode=_latin1,
        decode=_expression,
    )
    if kept is not None and kept[1]:  # (written ones are in the writer's cache already)
        _superset.known_supersets(kept[0])


def _latin1(expression: bytes | None) -> str | None:
    return None if expression is None else expression.decode("latin-1")


def _expression(value: object) -> bytes | None:
    if value is not None and not isinstance(value, str):
        raise TypeError
    return None if value is None else value.encode("latin-1")


def _rebuild() -> Callable[..., Any] | None:
    """What a pickled ``regex`` pattern is rebuilt with (``None``: ``regex`` pickles none)."""
    probe = regex.compile("", FLAGS)
    reduce = copyreg.dispatch_table.get(type(probe))
    if reduce is None:
        return None
    rebuild = reduce(probe)[0]
    return rebuild if callable(rebuild) else None


class _PatternUnpickler(pickle.Unpickler):
    """Rebuilds compiled patterns and nothing else: every other global is refused."""

    def __init__(self, data: bytes, rebuild: Callable[..., Any]) -> None:
        super().__init__(io.BytesIO(data))
        self._rebuild = rebuild

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (self._rebuild.__module__, self._rebuild.__name__):
            return self._rebuild
        raise pickle.UnpicklingError(f"a stored pattern file names {module}.{name}")


def _patterns_path(directory: Path) -> Path:
    versions = (str(regex.__version__), sys.version, platform.machine(), str(int(FLAGS)))
    return directory / f"patterns-{_digest(*(v.encode() for v in versions))}.pickle"


def _load_patterns(path: Path, rebuild: Callable[..., Any]) -> dict[str, regex.Pattern[str]]:
    """The compiled patterns stored at ``path``; empty when missing, damaged or foreign."""
    data = _read(path)
    if data is None or hashlib.sha256(data[32:]).digest() != data[:32]:
        return {}
    try:
        table = _PatternUnpickler(data[32:], rebuild).load()
    # A file whose digest holds was written whole by a run of the same versions; what
    # else a rebuild of a stranger's bytes may raise must still not fail the run.
    except Exception:  # noqa: BLE001
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        source: pattern
        for source, pattern in table.items()
        if isinstance(source, str)
        and isinstance(pattern, regex.Pattern)
        and pattern.pattern == source
        and pattern.flags & FLAGS == FLAGS
    }


def stored_patterns() -> None:
    """Give the matcher the compiled patterns earlier runs stored (see :func:`store_patterns`)."""
    directory, rebuild = cache_dir(), _rebuild()
    if directory is not None and rebuild is not None:
        known_patterns(_load_patterns(_patterns_path(directory), rebuild))


def store_patterns() -> None:
    """Store the patterns this process compiled, beside those stored, if any is new."""
    directory, rebuild = cache_dir(), _rebuild()
    if directory is None or rebuild is None:
        return
    path = _patterns_path(directory)
    stored, compiled = _load_patterns(path, rebuild), compiled_patterns()
    if compiled.keys() <= stored.keys():
        return
    table = {**stored, **compiled} if len(stored) + len(compiled) <= PATTERNS_KEPT else compiled
    payload = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
    if len(payload) + 32 <= STORED_LIMIT:
        _write(path, hashlib.sha256(payload).digest() + payload)
