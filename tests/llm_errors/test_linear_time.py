"""``classify`` takes linear time on adversarial text: doubling the input at most doubles the time.

Absolute timings would depend on the machine, so each case is measured at a
sixteenth of the input cap and at the cap, in the same run (the best of several
interleaved runs, so a burst of load hits both sizes), and its growth is compared
with that of a plain linear pass over the same text (tokenising it), which sees the
same memory and cache effects: linear work grows like it (about 16x over four
doublings), quadratic work about 16x more (over 200x measured).
"""

import gc
import time
from collections.abc import Callable

import pytest

from llm_errors import Classifier
from llm_errors._classify import MAX_INPUT
from llm_errors._match.prefilter import TOKEN_TABLE

# Noise on a loaded machine reaches about 2.5x; quadratic growth here is over 12x.
_TOLERANCE = 4
_RUNS = 9

#: (repeated unit, text after the repeats): repeated trigger words, status numbers,
#: retry hints, anchors before an unbounded lookahead, long runs of separators.
ADVERSARIAL = [
    pytest.param("Prompt tokens limit exceeded ", "monthly limit", id="lookahead-anchor"),
    pytest.param("429 ", "ECONNRESET", id="status-numbers"),
    pytest.param("status 503 ", "", id="status-contexts"),
    pytest.param("HTTP/1.1 ", "429", id="http-versions"),
    pytest.param("Please try again in 1s. ", "", id="retry-hints"),
    pytest.param("retry after 20 seconds ", "", id="retry-after-words"),
    pytest.param("timeout rate limit quota exceeded ", "", id="trigger-words"),
    pytest.param(" -:/", "rate limit exceeded", id="separators"),
    pytest.param("error code ", "500", id="context-words"),
    pytest.param("daily ", "limit", id="window-words"),
    # A rate limit's text is scanned for a stated reset instant: times without a zone
    # after "reset", and "limit reached|" without an epoch.
    pytest.param("rate limit resets at 2026-09-01T00:00 ", "", id="reset-times"),
    pytest.param("usage limit reached|12 ", "", id="reset-epochs"),
]


def _text(unit: str, tail: str, size: int) -> str:
    body = unit * (size // len(unit) + 1)
    return body[: size - len(tail) - 1] + " " + tail


def _tokenise(text: str) -> object:
    return text.encode().translate(TOKEN_TABLE).split()


def _growth(call: Callable[[str], object], small: str, full: str) -> float:
    """Best time on ``full`` over best time on ``small``, runs interleaved.

    CPU time of this thread, not wall time: on a loaded machine a longer run is more
    likely to be preempted, which would pass for superlinear growth.
    """
    best = {small: float("inf"), full: float("inf")}
    # The collector's passes grow with the test session's heap, not with the input.
    gc.disable()
    try:
        for _ in range(_RUNS):
            for text in (small, full):
                start = time.thread_time()
                call(text)
                best[text] = min(best[text], time.thread_time() - start)
    finally:
        gc.enable()
    return best[full] / best[small]


@pytest.mark.parametrize(("unit", "tail"), ADVERSARIAL)
def test_doubling_the_input_at_most_doubles_the_time(unit, tail):
    """A sixteenth of the cap, then the cap: the time grows as a linear pass's does."""
    classifier = Classifier()
    small = _text(unit, tail, MAX_INPUT // 16)
    full = _text(unit, tail, MAX_INPUT)
    classifier(small)  # plans and patterns compiled outside the timing
    growth = _growth(classifier, small, full)
    linear = _growth(_tokenise, small, full)
    assert growth <= max(linear, 16) * _TOLERANCE
