"""Without the redis-server binary the Redis tests skip, naming it; CI's switch makes that fail.

``.ci/run`` sets ``LLM_RESILIENCE_REQUIRE_REDIS=1`` so that a machine without the binary
cannot pass by skipping every fleet test. This runs one Redis test in a child pytest
whose ``PATH`` holds no binary at all, both ways.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
ONE_REDIS_TEST = "tests/llm_retry/test_redis.py::test_every_key_has_a_ttl"
REASON = "the redis-server binary is not on PATH"


def _run_without_redis(tmp_path: Path, require: str | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": str(tmp_path)}  # an empty directory: no binary is found
    env.pop("LLM_RESILIENCE_REQUIRE_REDIS", None)
    if require is not None:
        env["LLM_RESILIENCE_REQUIRE_REDIS"] = require
    return subprocess.run(  # noqa: S603 - this interpreter, fixed arguments
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", ONE_REDIS_TEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("require", "returncode", "said"),
    [
        pytest.param(None, 0, "1 skipped", id="skipped"),
        pytest.param("1", 1, f"LLM_RESILIENCE_REQUIRE_REDIS=1 but {REASON}", id="required"),
    ],
)
def test_a_missing_binary_skips_unless_required(tmp_path, require, returncode, said):
    result = _run_without_redis(tmp_path, require)
    assert result.returncode == returncode, result.stdout[-2000:]
    assert said in result.stdout
    assert REASON in result.stdout
