"""Rules, docs and tests cite the classification policies of docs/errors.md by name.

A policy is cited as "policy quota-wording-wins" (or "policies never-fits and
inner-status"), the name being its anchor in docs/errors.md; numbers shifted each
time a policy was inserted, so none is cited by number.
"""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.policy

ROOT = Path(__file__).resolve().parents[1]
ANCHOR = re.compile(r'<a id="([a-z]+(?:-[a-z]+)*)"></a>\*\*`\1`\*\*')
NAME = r"[a-z]+(?:-[a-z]+)+|overload|capacity"
CITED = re.compile(
    rf"\b[Pp]olic(?:y|ies)(?: |[ ]\\\n\s*)((?:{NAME})(?:(?:, | and | or )(?:{NAME}))*)\b"
)
BY_NUMBER = re.compile(r"\b(?:[Pp]olic(?:y|ies)(?: rules?| additions?)?|[Aa]dditions?) \d")
SUFFIXES = {".md", ".py", ".toml", ".jsonl"}


def policies(text: str) -> list[str]:
    """The policy names docs/errors.md gives, in order."""
    return ANCHOR.findall(text)


def cited(text: str) -> list[str]:
    """Every policy name ``text`` cites."""
    return [
        name
        for found in CITED.finditer(text)
        for name in re.split(r", | and | or ", found.group(1))
    ]


def files() -> list[Path]:
    """Source, docs, tests and their data: not the generated reference nor this file."""
    found = [ROOT / "README.md"]
    for folder in ("src", "docs", "tests"):
        found += [
            p
            for p in (ROOT / folder).rglob("*")
            if p.suffix in SUFFIXES
            and p.name != "patterns.md"
            and p != Path(__file__).resolve()
            and "__pycache__" not in p.parts
        ]
    return sorted(found)


def test_every_cited_policy_exists_and_none_is_cited_by_number():
    """Each "policy NAME" names an anchor of docs/errors.md; no "policy 7" is left."""
    known = set(policies((ROOT / "docs" / "errors.md").read_text(encoding="utf-8")))
    assert len(known) >= 20
    unknown, numbered, seen = {}, {}, set()
    for path in files():
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        names = cited(text)
        seen.update(names)
        if bad := sorted(set(names) - known):
            unknown[where] = bad
        if by_number := BY_NUMBER.findall(text):
            numbered[where] = by_number
    assert not unknown
    assert not numbered
    assert seen & known


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("(docs/errors.md, policy spend-caps)", ["spend-caps"]),
        ("(policies never-fits and inner-status)", ["never-fits", "inner-status"]),
        ("RATE_LIMIT (policy \\\n  capacity); a reset", ["capacity"]),
        ("a content policy violation", []),
    ],
)
def test_citations_are_read(text, names):
    """The reader of citations finds the names, across a wrapped TOML line too."""
    assert cited(text) == names


def test_a_number_is_found():
    """A citation by number is what the check refuses."""
    assert BY_NUMBER.findall("addition 5, unless (policy 2)") == ["addition 5", "policy 2"]
