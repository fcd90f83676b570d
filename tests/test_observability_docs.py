"""Every example in docs/observability.md runs on its own, offline, and its assertions hold."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.policy

DOC = Path(__file__).resolve().parents[1] / "docs" / "observability.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
BLOCKS = BLOCK.findall(DOC.read_text(encoding="utf-8"))


def test_one_example_per_backend():
    """OpenTelemetry (adapter and own spans), Prometheus, structlog, logging, fleet events."""
    assert len(BLOCKS) == 6


@pytest.mark.parametrize("number", range(len(BLOCKS)), ids=lambda n: f"block-{n + 1}")
@pytest.mark.integration
def test_example_runs(number):
    """The block runs in a fresh interpreter (the global OpenTelemetry providers are set once)."""
    result = subprocess.run(  # noqa: S603 - our own documentation
        [sys.executable, "-c", BLOCKS[number]],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
