"""Imports point downward only: the layout in ``docs/architecture.md`` holds in the code."""

import ast
import collections
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import adapter
import llm_errors
import llm_retry

pytestmark = pytest.mark.policy

SRC = Path(__file__).resolve().parents[1] / "src"

# Each room, and what of ours it may import besides itself: other rooms, or single modules
# (the bottom of the classifier core that the tables are written in).
CORE_BOTTOM = {
    "llm_errors._taxonomy",
    "llm_errors._retry_after",
    "llm_errors._redact",
    "llm_errors._native",
}
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


def test_the_log_cli_reaches_the_core_through_its_public_api_and_one_hook(table):
    """``llm_errors.logs`` imports the core only as ``llm_errors`` and ``llm_errors.engine``.

    The command line is a tool built on the engine like any other: what it needs beyond
    the public API is named in the one documented hook, not picked from private modules.
    """
    public = {f"llm_errors.{name}" for name in llm_errors.__all__} | {"llm_errors"}
    logs = [path for path in MODULES if _module_name(path).startswith("llm_errors.logs")]

    def check(path):
        wrong = {
            name
            for name in _imports(path)
            if not name.startswith(("llm_errors.logs", "llm_errors.engine"))
            and name.startswith("llm_errors")
            and name not in public
        }
        assert not wrong, f"{_module_name(path)} imports {sorted(wrong)}"

    table.check(((str(path.relative_to(SRC)), (path,)) for path in logs), check)


def test_one_class_name_means_one_class():
    """No two classes of the three packages share a name, private ones included.

    Two ``Call`` classes met in one call stack, and two ``Example`` classes in one
    package; a reader (and a traceback) should never have to ask which one is meant.
    """
    defined = collections.defaultdict(set)
    for package in (llm_errors, llm_retry, adapter):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if info.name.endswith("__main__"):  # runs a command line when imported
                continue
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if inspect.isclass(value) and value.__module__ == module.__name__:
                    defined[name].add(module.__name__)
    assert {name: sorted(where) for name, where in defined.items() if len(where) > 1} == {}


def _module_imports() -> dict[str, set[str]]:
    """Each module of ours and the modules of ours it imports (a name's module if it is one).

    Every import counts, at any depth of the file: one made only for type hints or
    inside a function ties the two modules as much as one at the top.
    """
    modules = {_module_name(path): path for path in MODULES}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for imported in _imports(path):
            name = imported
            while name and name not in modules:  # ``pkg.mod.Name`` -> ``pkg.mod``
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + "."):
                targets.add(name)
        graph[module] = targets
    return graph


def test_no_module_imports_itself_through_others():
    """No circles: a module never reaches itself through the modules it imports.

    A package's ``__init__`` re-exporting its modules is not a circle (its modules never
    import the package itself), so only modules that are not packages' ``__init__`` and
    the packages below them are followed.
    """
    graph = _module_imports()
    circles = []
    for start in sorted(graph):
        stack, seen = [(start, [start])], {start}
        while stack:
            module, path = stack.pop()
            for target in sorted(graph.get(module, ())):
                if target == start:
                    circles.append(" -> ".join([*path, start]))
                elif target not in seen:
                    seen.add(target)
                    stack.append((target, [*path, target]))
    assert circles == []
