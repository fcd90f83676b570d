"""A pytest plugin with one fixture, ``fake_mistral``: a started :class:`FakeMistral` per test.

Registered through the ``pytest11`` entry point beside ``llm_retry_testing``, so users'
suites get the fixture by installing the package. ``adapter.testing`` is imported when
a test asks for the fixture, not when pytest loads the plugin, so a suite that never
uses it does not pay for the import.

.. versionadded:: 0.2.0
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from adapter.testing._server import FakeMistral

__all__ = ["fake_mistral"]


@pytest.fixture
def fake_mistral() -> Iterator[FakeMistral]:
    """A :class:`~adapter.testing.FakeMistral` on a free port of 127.0.0.1, closed after the test.

    Nothing is queued: requests get ``DEFAULT_SCENARIO`` until the test queues its own
    scenarios with ``fake_mistral.enqueue(...)``.

    .. versionadded:: 0.2.0
    """
    from adapter.testing._server import FakeMistral  # noqa: PLC0415 - only when used

    with FakeMistral() as fake:
        yield fake
