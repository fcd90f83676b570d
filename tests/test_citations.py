"""Product text cites only public sources or files the repository ships."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.policy

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = sorted(
    [*ROOT.joinpath("src").rglob("*.py"), *ROOT.joinpath("docs").rglob("*.md"), ROOT / "README.md"]
)
# Process documents users do not have: the team's issues, the design seeds, shared notes.
INTERNAL = re.compile(r"\bissue \d+\b|\bseed 0\d\d\b|\bseeds/|\bshared/|\bWIRE\.md|DEVELOPERS\.md")
# A repository path cited in prose or code: docs/…, vendor/…, bench/…, examples/…, src/….
PATH = re.compile(r"(?<![\w/.:-])((?:docs|vendor|bench|examples|src|tests)/[\w./-]*\w)")
LINK = re.compile(r"\]\(((?!https?:|#|mailto:)[^)#\s]+)(?:#[^)]*)?\)")


def _ours(cited: str) -> bool:
    """A path of this repository: its first two parts exist here (not another repo's ``src/``)."""
    head = Path(*Path(cited).parts[:2])
    return "*" not in cited and ((ROOT / head).exists() or head.parts[0] in {"docs", "bench"})


#: Each product file as a ``(id, (path,))`` row for the ``table`` fixture.
ROWS = [(str(path.relative_to(ROOT)), (path,)) for path in PRODUCT]


def test_no_process_documents_cited(table):
    """No product file names an internal document (issues, seeds, shared notes)."""

    def check(path):
        assert not INTERNAL.findall(path.read_text(encoding="utf-8"))

    table.check(ROWS, check)


def test_cited_repository_files_exist(table):
    """Every repository path and relative Markdown link in product text exists."""

    def check(path):
        text = path.read_text(encoding="utf-8")
        missing = [p for p in PATH.findall(text) if _ours(p) and not (ROOT / p).exists()]
        if path.suffix == ".md" and path.name != "patterns.md":  # patterns.md shows regexes
            missing += [
                link for link in LINK.findall(text) if not (path.parent / link).resolve().exists()
            ]
        assert not missing

    table.check(ROWS, check)
