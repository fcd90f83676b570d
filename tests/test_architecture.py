"""Imports point downward only: the layout in ``docs/architecture.md`` holds in the code."""

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.policy

SRC = Path(__file__).resolve().parents[1] / "src"

# Each room, and what of ours it may import besides itself: other rooms, or single modules
# (the bottom of the classifier core that the tables are written in).
CORE_BOTTOM = {"llm_errors._taxonomy", "llm_errors._retry_after", "llm_errors._redact"}
ALLOWED: dict[str, set[str]] = {
    "llm_errors": {"llm_errors._rules", "llm_errors._match"},
    "llm_errors._rules": CORE_BOTTOM,
    "llm_errors._match": {"llm_errors._rules"} | CORE_BOTTOM,
    "llm_errors.logs": {"llm_errors"},
    "llm_errors.__main__": {"llm_errors.logs"},
    "llm_retry": {"llm_errors"},
    "adapter._sse": set(),
    "adapter.pi": {"llm_errors"},
    "adapter._mistral.wire": set(),
    "adapter._mistral": {
        "llm_errors",
        "llm_retry",
        "adapter._sse",
        "adapter.pi",
        "adapter._mistral.wire",
    },
    "adapter.testing": {"adapter.pi", "adapter._mistral.wire"},
    "adapter": {
        "llm_errors",
        "llm_retry",
        "adapter._sse",
        "adapter.pi",
        "adapter._mistral",
        "adapter.testing",
    },
}


def _room(module: str) -> str:
    """The longest room name that ``module`` lies in."""
    best = ""
    for room in ALLOWED:
        if (module == room or module.startswith(room + ".")) and len(room) > len(best):
            best = room
    return best


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in {"llm_errors", "llm_retry", "adapter"}}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = sorted(p for p in SRC.rglob("*.py"))


def test_imports_point_downward(table):
    """A module imports only from its own room and the rooms below it."""

    def check(path):
        module = _module_name(path)
        room = _room(module)
        wrong = {
            name
            for name in _imports(path)
            if _room(name) != room
            and not any(
                _room(name) == a or name == a or name.startswith(a + ".") for a in ALLOWED[room]
            )
        }
        assert not wrong, f"{module} (room {room}) imports {sorted(wrong)}"

    table.check(((str(path.relative_to(SRC)), (path,)) for path in MODULES), check)
