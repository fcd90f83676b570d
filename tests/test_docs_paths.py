"""Docstrings and docs name only modules and files that exist.

A restructuring leaves names behind: a docstring pointing at ``_status.py`` after the
module moved to ``_rules/status.py``, a page citing ``adapter/_mistral/foo.py``. This
test reads every docstring in src/ (``#:`` comments included), every page of docs/ and
README.md, and resolves what they name:

- a repository path (``src/llm_retry/_settings.py``, ``tests/...``, ``docs/...``,
  ``bench/...``, ``examples/...``) and a path inside a package
  (``adapter/_mistral/client.py``) must exist;
- a bare file name in a docstring (``_status.py``, ``STYLE.md``) must be a file of the
  repository;
- a dotted name with a private part (``llm_errors._rules.status``), and in a docstring
  any role's target (``:func:`~llm_errors.logs._tally.normalise```), must import.

Other projects' paths (a provider SDK's ``src/openai/_exceptions.py``) are not ours and
are left alone, as are dotted names without a private part outside roles: metric,
event and rule names read like module paths (``llm_retry.retries``).
"""

import ast
import functools
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.policy

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGES = "llm_errors|llm_retry|adapter"
BEFORE = r"(?<![\w/.:-])"  # not the middle of a longer path, name or address
REPO_PATH = re.compile(rf"{BEFORE}(?:src/(?:{PACKAGES})|tests|docs|bench|examples)/[\w./-]*\w")
PACKAGE_PATH = re.compile(rf"{BEFORE}(?:{PACKAGES})/[\w./-]*\w")
FILE_NAME = re.compile(rf"{BEFORE}\w+\.(?:py|md)\b")  # ours; not gen-ai-metrics.md
PRIVATE_DOTTED = re.compile(rf"{BEFORE}(?:{PACKAGES})(?:\.\w+)*\._\w*(?:\.\w+)*")
ROLE_TARGET = re.compile(r":(?:py:)?\w+:`[!~]?(?:[^`<]*<)?(?P<target>[\w.]+)>?`")


def docstrings(path: Path) -> str:
    """Every docstring of a module (attributes' too) and its ``#:`` comments, joined."""
    source = path.read_text(encoding="utf-8")
    texts = [
        node.value.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]
    texts += [line.strip()[2:] for line in source.splitlines() if line.strip().startswith("#:")]
    return "\n".join(texts)


#: The folders the repository ships (in the sdist too), beside its top-level files.
SHIPPED = ("src", "docs", "tests", "bench", "examples", "vendor", ".ci")


@functools.cache
def shipped_names() -> frozenset[str]:
    """The file names of the repository's shipped folders and top-level files.

    Caches, virtual environments and built sites lie outside these folders or in
    ``__pycache__``, so nothing local counts; a clone and an sdist give the same list.
    """
    paths = [path for path in ROOT.iterdir() if path.is_file()]
    for folder in SHIPPED:
        paths += [path for path in (ROOT / folder).rglob("*") if path.is_file()]
    return frozenset(path.name for path in paths if "__pycache__" not in path.parts)


def imports(dotted: str) -> bool:
    """Whether ``dotted`` is a module, or an object, field or attribute reached from one."""
    parts = dotted.split(".")
    if "__main__" in parts:  # running it is all importing does: the file must exist
        index = parts.index("__main__")
        return (SRC.joinpath(*parts[:index]) / "__main__.py").is_file()
    for count in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:count]))
        except ImportError:
            continue
        break
    else:
        return False
    for part in parts[count:]:
        if not hasattr(target, part):
            return declared(target, part)
        target = getattr(target, part)
    return True


def declared(owner: object, name: str) -> bool:
    """Whether a class declares ``name`` as a field or sets it (``self.name = ...``)."""
    if not inspect.isclass(owner):
        return False
    fields = {
        *getattr(owner, "model_fields", {}),
        *getattr(owner, "__dataclass_fields__", {}),
        *inspect.get_annotations(owner),
    }
    if name in fields:
        return True
    return re.search(rf"\bself\.{name}\b\s*(?::[^=\n]+)?=", inspect.getsource(owner)) is not None


def missing(text: str, *, docstring: bool, names: frozenset[str]) -> list[str]:
    """What ``text`` names that does not exist."""
    gone = [path for path in REPO_PATH.findall(text) if not (ROOT / path).exists()]
    gone += [path for path in PACKAGE_PATH.findall(text) if not (SRC / path).exists()]
    dotted = set(PRIVATE_DOTTED.findall(text))
    if docstring:
        gone += [name for name in FILE_NAME.findall(text) if name not in names]
        dotted |= {
            match["target"]
            for match in ROLE_TARGET.finditer(text)
            if re.match(rf"(?:{PACKAGES})\.", match["target"])
        }
    gone += sorted(name for name in dotted if not imports(name))
    return gone


def sources() -> Iterator[tuple[str, str, bool]]:
    """(where, text, whether it is docstrings) for src/, docs/ and README.md."""
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), docstrings(path), True
    for path in [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]:
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"), False


def test_named_modules_and_files_exist():
    """No docstring, docs page or README names a module or file the repository lacks."""
    names = shipped_names()
    stale = {}
    for where, text, docstring in sources():
        if gone := missing(text, docstring=docstring, names=names):
            stale[where] = gone
    assert not stale


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("pattern table (``_patterns.py``)", id="bare-file"),
        pytest.param("the anthropic pitfall, STYLE.md §9", id="unshipped-page"),
        pytest.param("see src/llm_errors/_status.py", id="repo-path"),
        pytest.param("see adapter/_mistral/foo.py", id="package-path"),
        pytest.param("tests/llm_retry/test_gone.py checks it", id="tests-path"),
        pytest.param("the ``llm_errors._patterns`` table", id="private-module"),
        pytest.param("as :func:`~llm_errors.logs.normalise` does", id="role-target"),
        pytest.param(":attr:`~llm_retry.RetryPolicy.gone`", id="role-attribute"),
    ],
)
def test_stale_names_are_found(text):
    """Each kind of stale name is reported (the planted ones of the docstrings fixed)."""
    assert missing(text, docstring=True, names=shipped_names())


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("``_rules/status.py`` and src/llm_retry/_settings.py", id="paths"),
        pytest.param("openai's src/openai/_exceptions.py (APITimeoutError)", id="theirs"),
        pytest.param(":func:`~llm_errors.logs._tally.normalise`", id="private-function"),
        pytest.param(":attr:`~llm_retry.RetryPolicy.max_attempts`", id="slotted-field"),
        pytest.param(":attr:`~adapter.pi.TextContent.text`", id="pydantic-field"),
        pytest.param(":attr:`~llm_errors.logs._timeline.RecentLines.stamped`", id="set-in-init"),
        pytest.param("the ``llm_retry.retries`` counter", id="metric-name"),
        pytest.param("``python -m llm_errors.__main__``", id="main-not-run"),
        pytest.param("(https://example.org/gen-ai-spans.md and ``gen-ai-metrics.md``)", id="url"),
    ],
)
def test_existing_names_pass(text):
    """Names that exist, and names that are not ours or not module paths, pass."""
    assert not missing(text, docstring=True, names=shipped_names())
