"""A pytest plugin with one fixture, ``llm_retry_testing``: retries without waiting.

Registered through the ``pytest11`` entry point, so users' suites get the fixture by
installing the package; it only imports pytest when pytest loads it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from llm_retry._testing import RetryRecorder, instant_retries

__all__ = ["llm_retry_testing"]


@pytest.fixture
def llm_retry_testing() -> Iterator[RetryRecorder]:
    """Turn retry waits off for one test and record them (see :func:`llm_retry.instant_retries`).

    .. versionadded:: 0.1.0
    """
    with instant_retries() as recorder:
        yield recorder
