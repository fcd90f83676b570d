"""The tutorial's Python blocks run, in order, in one namespace."""

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def test_tutorial_runs():
    """Every example in docs/tutorial.md executes and its assertions hold."""
    text = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    blocks = BLOCK.findall(text)
    assert len(blocks) >= 4
    namespace: dict[str, object] = {"__name__": "tutorial"}
    for number, block in enumerate(blocks, start=1):
        code = compile(block, f"docs/tutorial.md (block {number})", "exec")
        exec(code, namespace)  # noqa: S102 - our own documentation
