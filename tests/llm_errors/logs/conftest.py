"""Fixtures shared by the log CLI's tests."""

import subprocess
import sys

import pytest


@pytest.fixture
def calls_in_two_runs():
    """``count(setup)``: the length of ``calls`` after each of two CLI runs.

    ``setup`` is Python that defines the list ``calls``; it runs before the CLI reads an
    empty input, twice, each time in a fresh process (the cache directory is the test's).
    """

    def count(setup):
        code = (
            f"import sys; {setup};"
            "from llm_errors.logs._cli import main;"
            "main(['classify', '--format', 'jsonl', '/dev/null']);"
            "print(len(calls), file=sys.stderr)"
        )
        runs = [
            subprocess.run(  # noqa: S603 - our own code
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            )
            for _ in range(2)
        ]
        return [int(run.stderr.strip().splitlines()[-1]) for run in runs]

    return count
