"""The docs site: its nav, its API pages, and what the built site shows a reader.

The pure tests read mkdocs.yml, docs/ and the site's griffe extension (docs/_ext). The
integration tests build the site once (``mkdocs build --strict``, skipped without the
docs extra) and read the API reference as a reader would: no raw reStructuredText, no
data dumps, no private members, each page opening with what users call first.
"""

import importlib
import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytestmark = pytest.mark.policy

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PUBLIC = (
    "llm_errors",
    "llm_errors.engine",
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
MEMBER = re.compile(r"^ {8}- (\w+)$", re.MULTILINE)
BUILD_TIMEOUT_S = 600


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


def members_of(module: str) -> list[str]:
    """The members an API page lists, in its order (its `options: members:`)."""
    return MEMBER.findall((DOCS / "api" / f"{module}.md").read_text(encoding="utf-8"))


def test_api_pages_list_every_public_name():
    """Each API page lists its module's `__all__` exactly once (in its own order)."""
    wrong = {}
    for module in PUBLIC:
        listed = members_of(module)
        exported = importlib.import_module(module).__all__
        if len(listed) != len(set(listed)) or set(listed) != set(exported):
            wrong[module] = sorted(set(listed) ^ set(exported)) or "listed twice"
    assert not wrong


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


DIRECTIVES = """\
Summary.

.. versionadded:: 0.1.0

.. versionchanged:: 0.2.0 ``scope``.

.. versionchanged:: 0.2.0
   ``retry_on`` takes any iterable
   of codes.

.. deprecated:: 0.3.0
   Use ``wrap``.
"""


def test_version_directives_render_as_notes():
    """Each version directive becomes a small note; a deprecation, a warning admonition."""
    pytest.importorskip("griffe", reason="the docs extra is not installed")
    shown = _sphinx_roles().directives(DIRECTIVES)
    assert ".. " not in shown
    assert "*Added in version 0.1.0.*\n{: .doc-version }" in shown
    assert "*Changed in version 0.2.0:* ``scope``.\n{: .doc-version }" in shown
    assert "*Changed in version 0.2.0:* ``retry_on`` takes any iterable of codes." in shown
    assert '!!! warning "Deprecated since version 0.3.0"\n    Use ``wrap``.' in shown


@pytest.mark.parametrize(
    ("docstring", "shown"),
    [
        pytest.param(
            "Example::\n\n    for attempt in policy.attempts():\n        pass\n\nAfter.",
            "Example:\n\n```python\nfor attempt in policy.attempts():\n    pass\n```\n\nAfter.",
            id="python",
        ),
        pytest.param(
            "The codes fall into three groups::\n\n    ErrorCode\n    ├── TRANSPORT\n",
            "The codes fall into three groups:\n\n```text\nErrorCode\n├── TRANSPORT\n```",
            id="not-python",
        ),
        pytest.param("A tree ::\n\n    x = 1\n", "A tree\n\n```python\nx = 1\n```", id="spaced"),
        pytest.param("Text.\n\n::\n\n    x = 1\n", "Text.\n\n```python\nx = 1\n```", id="bare"),
        pytest.param(
            "Args:\n    x: See::\n\n        x = 1\n",
            "Args:\n    x: See:\n\n    ```python\n    x = 1\n    ```",
            id="indented",
        ),
        pytest.param("Not a block::\nsame paragraph", "Not a block::\nsame paragraph", id="none"),
    ],
)
def test_literal_blocks_render_as_code(docstring, shown):
    """A `::` paragraph loses its marker as in Sphinx, and its indented block is fenced."""
    pytest.importorskip("griffe", reason="the docs extra is not installed")
    assert _sphinx_roles().literal_blocks(docstring) == shown


def test_comment_docs_and_long_values():
    """`#:` lines above an attribute are its docstring; a long value is not shown."""
    pytest.importorskip("griffe", reason="the docs extra is not installed")
    roles = _sphinx_roles()
    lines = ["x = 1", "#: The first line,", "#: and the second.", "LIMIT = 3"]
    assert roles.comment_doc(lines, 4) == "The first line,\nand the second."
    assert roles.comment_doc(lines, 1) is None
    assert roles.shown_value("x" * roles.VALUE_LIMIT)
    assert not roles.shown_value("x" * (roles.VALUE_LIMIT + 1))


# The built site, read as a reader would.

DIRECTIVE_TEXT = re.compile(r"\.\. (?:versionadded|versionchanged|deprecated)::")
# Wider than mkdocs.yml's line_length (72): a name or a string ruff cannot break.
SIGNATURE_WIDTH = 88


class ApiPage(HTMLParser):
    """What a built API page shows: its text, paragraphs, headings and signatures."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.paragraphs: list[str] = []
        self.headings: list[str] = []  # the ids of the objects' headings, in page order
        self.signatures: list[tuple[str, str]] = []  # (object kind, text)
        self._kind = ""
        self._paragraph: list[str] | None = None
        self._signature: list[str] | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """An object's block, a signature, a paragraph or an object's heading opens."""
        classes = (dict(attrs).get("class") or "").split()
        if tag == "div" and "doc-object" in classes:
            self._kind = next(c for c in classes if c.startswith("doc-") and c != "doc-object")
        elif tag == "div" and "doc-signature" in classes:
            self._signature = []
        elif tag == "p":
            self._paragraph = []
        elif tag.startswith("h") and "doc-heading" in classes:
            self.headings.append(dict(attrs).get("id") or "")

    def handle_endtag(self, tag: str) -> None:
        """A signature (no div inside it) or a paragraph closes."""
        if tag == "div" and self._signature is not None:
            self.signatures.append((self._kind, "".join(self._signature)))
            self._signature = None
        elif tag == "p" and self._paragraph is not None:
            self.paragraphs.append("".join(self._paragraph).strip())
            self._paragraph = None

    def handle_data(self, data: str) -> None:
        """Text, kept for the page and for the paragraph or signature it is in."""
        self.text.append(data)
        for collecting in (self._paragraph, self._signature):
            if collecting is not None:
                collecting.append(data)


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The site, built once with `mkdocs build --strict` (no warning allowed)."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(  # noqa: S603 - our own site
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def api_pages(site):
    """Each public module's built API page, parsed."""
    return {
        module: ApiPage((site / "api" / module / "index.html").read_text(encoding="utf-8"))
        for module in PUBLIC
    }


@pytest.mark.integration
def test_no_raw_restructured_text(api_pages):
    """No raw version directive and no paragraph ending in a literal block's `::`."""
    raw = {
        module: [p for p in page.paragraphs if p.endswith("::")]
        + DIRECTIVE_TEXT.findall("".join(page.text))
        for module, page in api_pages.items()
    }
    assert not {module: found for module, found in raw.items() if found}


@pytest.mark.integration
def test_no_value_dump(api_pages):
    """No attribute shows a value longer than the extension's VALUE_LIMIT."""
    pytest.importorskip("griffe", reason="the docs extra is not installed")
    limit = _sphinx_roles().VALUE_LIMIT
    dumps = {}
    for module, page in api_pages.items():
        for kind, text in page.signatures:
            name, _, value = text.partition(" = ")
            # Whitespace and the trailing commas the formatter adds do not count.
            shown = re.sub(r",(?=[)\]}])", "", "".join(value.split()))
            if kind == "doc-attribute" and len(shown) > limit:
                dumps[f"{module}: {name.strip()}"] = len(shown)
    assert not dumps


@pytest.mark.integration
def test_no_private_members(api_pages):
    """No private or dunder member has an entry (`__init__` is merged into its class)."""
    private = [
        heading
        for page in api_pages.values()
        for heading in page.headings
        if heading.rsplit(".", 1)[-1].startswith("_")
    ]
    assert not private


@pytest.mark.integration
def test_pages_open_with_what_users_call(api_pages):
    """`RetryPolicy` opens llm_retry's page; every page shows its members in its own order."""
    assert api_pages["llm_retry"].headings[0] == "llm_retry.RetryPolicy"
    shuffled = {}
    for module, page in api_pages.items():
        top = [
            h.removeprefix(f"{module}.")
            for h in page.headings
            if h.count(".") == module.count(".") + 1
        ]
        if top != members_of(module):
            shuffled[module] = top[:5]
    assert not shuffled


@pytest.mark.integration
def test_signatures_are_wrapped(api_pages):
    """Signatures are formatted to mkdocs.yml's line_length (ruff comes with the docs extra)."""
    wide = {
        f"{module}: {text.split('(')[0].split(':')[0]}": len(line)
        for module, page in api_pages.items()
        for _, text in page.signatures
        for line in text.splitlines()
        if len(line) > SIGNATURE_WIDTH
    }
    assert not wide
