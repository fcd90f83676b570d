"""The docs site: its nav follows docs/index.md, and each public package has an API page."""

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PUBLIC = (
    "llm_errors",
    "llm_errors.logs",
    "llm_retry",
    "llm_retry.instrumentation",
    "llm_retry.redis",
    "adapter",
    "adapter.pi",
    "adapter.testing",
)
NAV_PAGE = re.compile(r"^\s*- (?:[^:\n]+: )?(\S+\.md)\s*$", re.MULTILINE)
INDEX_LINK = re.compile(r"\]\(([^)#\s]+\.md)\)")


def test_nav_follows_the_index():
    """mkdocs.yml lists the index, then every page docs/index.md links to, in its order."""
    nav = NAV_PAGE.findall((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    linked = INDEX_LINK.findall((DOCS / "index.md").read_text(encoding="utf-8"))
    assert nav == ["index.md", *linked]


def test_every_page_is_in_the_nav():
    """No page of docs/ is left out of the site's nav."""
    nav = set(NAV_PAGE.findall((ROOT / "mkdocs.yml").read_text(encoding="utf-8")))
    pages = {page.relative_to(DOCS).as_posix() for page in DOCS.rglob("*.md")}
    assert pages == nav


@pytest.mark.parametrize("module", PUBLIC)
def test_api_page(module):
    """Each public package has a page that renders it (mkdocstrings shows its `__all__`)."""
    page = (DOCS / "api" / f"{module}.md").read_text(encoding="utf-8")
    assert f"\n::: {module}\n" in page
    assert importlib.import_module(module).__all__


def test_api_pages_are_the_public_packages():
    """No API page documents a private module or one that is gone."""
    assert {page.stem for page in (DOCS / "api").glob("*.md")} == set(PUBLIC)


def test_public_is_every_public_module():
    """A new public module (no `_` in its path) gets an API page too."""
    modules = set()
    for path in (ROOT / "src").rglob("*.py"):
        parts = path.relative_to(ROOT / "src").with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            modules.add(".".join(parts))
    assert modules == set(PUBLIC)


def _sphinx_roles():
    spec = importlib.util.spec_from_file_location("sphinx_roles", DOCS / "_ext" / "sphinx_roles.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("docstring", "shown"),
    [
        pytest.param("a :class:`RetryBudget` here", "a `RetryBudget` here", id="name"),
        pytest.param(":class:`~llm_retry.RetryInfo`", "`RetryInfo`", id="tilde"),
        pytest.param(":mod:`adapter._mistral.client`", "`adapter._mistral.client`", id="path"),
        pytest.param(":meth:`the wrapper <RetryPolicy.wrap>`", "`the wrapper`", id="title"),
        pytest.param(":py:func:`!main`", "`main`", id="py-domain-no-link"),
        pytest.param("``literal`` and `code`", "``literal`` and `code`", id="no-role"),
    ],
)
def test_sphinx_roles_render_as_code(docstring, shown):
    """The site's griffe extension turns each Sphinx role into the code Sphinx would show."""
    pytest.importorskip("griffe", reason="the docs extra is not installed")
    assert _sphinx_roles().plain(docstring) == shown
