"""Testing mode: every retry wait becomes instant and is recorded instead.

Like stamina's ``set_testing``, the switch is process-wide (threads started by the code
under test see it too) and meant for test suites only. Skipped waits still count as
elapsed time for the deadline, so a test sees the same attempts, waits and give-ups
as production would, only without waiting.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from llm_retry._events import RetryEvent

__all__ = ["RetryRecorder", "active_recorder", "instant_retries"]


@dataclass(eq=False)
class RetryRecorder:
    """What happened while testing mode was on.

    Attributes:
        sleeps: Every planned wait, in seconds, in the order they would have happened.
        events: The :class:`~llm_retry.RetryEvent` of every retry.

    .. versionadded:: 0.1.0
    """

    sleeps: list[float] = field(default_factory=list)
    events: list[RetryEvent] = field(default_factory=list)


class _Switch:
    """The process-wide testing state: the innermost active recorder, if any."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.recorder: RetryRecorder | None = None


_SWITCH = _Switch()


def active_recorder() -> RetryRecorder | None:
    """The recorder of the innermost active :func:`instant_retries` block, or ``None``."""
    return _SWITCH.recorder


@contextmanager
def instant_retries() -> Iterator[RetryRecorder]:
    """Make every retry wait instant inside the block and record what would have happened.

    Example::

        with llm_retry.instant_retries() as recorder:
            with pytest.raises(ServerError):
                call_the_llm()
        assert recorder.sleeps == [1.0, 2.0, 4.0]

    Blocks nest; the innermost recorder gets the records. The pytest fixture
    ``llm_retry_testing`` wraps a test in this block.

    .. versionadded:: 0.1.0
    """
    recorder = RetryRecorder()
    with _SWITCH.lock:
        outer, _SWITCH.recorder = _SWITCH.recorder, recorder
    try:
        yield recorder
    finally:
        with _SWITCH.lock:
            _SWITCH.recorder = outer
