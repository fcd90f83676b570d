r"""The rate-limit state a provider states on its responses, read into one shape (pure).

Providers say on every response, success or error, how much of each limit is left
and when it refills; a fleet that reads it can slow down before the 429 instead of
after it. Three header families are read, each from a public capture:

* OpenAI (and Azure OpenAI, Groq and other compatible servers):
  ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}``, the reset a Go duration
  (``12ms``, ``1s``, ``6m0s``) or seconds; as in the headers quoted at
  https://community.openai.com/t/how-to-get-rate-limit-reset-time-for-response-api/1268905.
  Azure sends ``-1`` when it has no figure (openai/openai-dotnet#838): ignored.
* Anthropic: ``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-
  {limit,remaining,reset}``, the reset an RFC 3339 time (a recorded response in
  tidyllm's tests, https://rdrr.io/cran/tidyllm/src/tests/testthat/claude/api.anthropic.com/v1/messages-e050b5-POST.R).

Both state the time until the window is full again, and their windows are read as
token buckets refilling steadily until then (:attr:`Window.gradual`): pacing admits
attempts as the window refills instead of holding them until all of it has. Should a
server refill all at once instead, the attempts sent early meet a 429 and its shared
cooldown, as without pacing.
* Mistral: ``x-ratelimit-{limit,remaining}-{req,tokens}-minute`` (no reset: the window
  is a minute) and the older ``ratelimitbysize-{limit,remaining,reset}`` (tokens, the
  reset in seconds); ``docs/wire.md`` (section 7.3), from ``mistralai/client-ts#169``.

Plus ``retry-after-ms``/``Retry-After`` (:func:`llm_errors.parse_retry_after`). An
absolute reset is measured against the response's own ``Date`` when it has one (the
server's clock on both sides, whatever this machine's clock says), else against
``now``. Unknown headers and values that are not numbers, negative, or past
:data:`MAX_COUNT` or :data:`MAX_RESET` are ignored, never raised: a quirky proxy must
not fail a call.
"""

from __future__ import annotations

import datetime as dt
import enum
import math
import re
import time
from collections.abc import Iterable, Mapping
from typing import Final, NamedTuple

from llm_errors import parse_retry_after

__all__ = [
    "MAX_COUNT",
    "MAX_HEADERS",
    "MAX_RESET",
    "RateLimits",
    "Unit",
    "Window",
    "read_rate_limits",
]

#: Largest limit or remaining count read (larger values are garbage, not a limit).
MAX_COUNT: Final = 10**12
#: Longest reset read, in seconds (a day); a limit that refills later is a quota.
MAX_RESET: Final = 86_400.0
#: Most header pairs read from one response; the rest are not looked at.
MAX_HEADERS: Final = 512


class Unit(enum.StrEnum):
    """What a window counts.

    .. versionadded:: 0.3.0
    """

    REQUESTS = "requests"
    TOKENS = "tokens"
    INPUT_TOKENS = "input_tokens"
    OUTPUT_TOKENS = "output_tokens"


class Window(NamedTuple):
    """One limit a response stated: how much is left of it, and when it refills.

    .. versionadded:: 0.3.0
    """

    #: What the window counts.
    unit: Unit
    #: How much is left, as the server counted at the response.
    remaining: int
    #: The window's size, when stated.
    limit: int | None = None
    #: Seconds after the response until the window is full again, when stated or
    #: implied by the header's name (a ``-minute`` window refills within 60 s).
    reset: float | None = None
    #: Whether the window refills steadily up to its limit at ``reset`` (a token bucket:
    #: OpenAI's and Anthropic's, whose reset is the time to a full bucket), rather than
    #: at once at ``reset`` (a fixed window, or a refill not known to be steady).
    gradual: bool = False


class RateLimits(NamedTuple):
    """Everything a response said about its limits (see :func:`read_rate_limits`).

    .. versionadded:: 0.3.0
    """

    #: One per unit stated, in the order of :class:`Unit`.
    windows: tuple[Window, ...] = ()
    #: Seconds the server asked callers to wait (``retry-after-ms``/``Retry-After``).
    retry_after: float | None = None


# Each family: the unit and the names of its limit, remaining and reset headers (a
# reset of None: not stated), and how its reset reads (or the window's length in
# seconds, for a family whose name says it).
_OPENAI: Final = tuple(
    (
        unit,
        f"x-ratelimit-limit-{name}",
        f"x-ratelimit-remaining-{name}",
        f"x-ratelimit-reset-{name}",
    )
    for unit, name in ((Unit.REQUESTS, "requests"), (Unit.TOKENS, "tokens"))
)
_ANTHROPIC: Final = tuple(
    (unit, f"{head}-limit", f"{head}-remaining", f"{head}-reset")
    for unit, head in (
        (Unit.REQUESTS, "anthropic-ratelimit-requests"),
        (Unit.TOKENS, "anthropic-ratelimit-tokens"),
        (Unit.INPUT_TOKENS, "anthropic-ratelimit-input-tokens"),
        (Unit.OUTPUT_TOKENS, "anthropic-ratelimit-output-tokens"),
    )
)
_MISTRAL: Final = tuple(
    (unit, f"x-ratelimit-limit-{name}-minute", f"x-ratelimit-remaining-{name}-minute")
    for unit, name in ((Unit.REQUESTS, "req"), (Unit.TOKENS, "tokens"))
)
_MISTRAL_BY_SIZE: Final = (
    "ratelimitbysize-limit",
    "ratelimitbysize-remaining",
    "ratelimitbysize-reset",
)
#: A Go duration as OpenAI writes a reset: ``1h2m3.5s``, ``6m0s``, ``12ms``.
_GO_DURATION: Final = re.compile(
    r"(?:(\d{1,6}(?:\.\d{1,9})?)h)?(?:(\d{1,6}(?:\.\d{1,9})?)m(?!s))?"
    r"(?:(\d{1,9}(?:\.\d{1,9})?)s)?(?:(\d{1,12}(?:\.\d{1,9})?)ms)?"
)
_PLAIN_NUMBER: Final = re.compile(r"\d{1,15}(?:\.\d{1,9})?")


def read_rate_limits(
    headers: Mapping[str, str] | Iterable[tuple[str, str]], *, now: float | None = None
) -> RateLimits:
    """The rate-limit state ``headers`` state, in one shape whatever the provider.

    Args:
        headers: A response's headers: a mapping (``httpx.Headers``, a ``dict``) or
            pairs; names in any case. At most :data:`MAX_HEADERS` pairs are read.
        now: Epoch seconds the response arrived, to measure an absolute reset when the
            response has no ``Date``; default: the current time.

    Returns:
        The windows stated (none when no family is there) and the asked wait.

    .. versionadded:: 0.3.0
    """
    found = _lowered(headers)
    arrived = _date(found.get("date"))
    if arrived is None:
        arrived = time.time() if now is None else now
    windows: dict[Unit, Window] = {}
    for unit, limit, remaining, reset in _OPENAI:
        stated = _duration(found.get(reset))
        _add(windows, found, unit, limit=limit, remaining=remaining, reset=stated, gradual=True)
    for unit, limit, remaining, reset in _ANTHROPIC:
        stated = _until(found.get(reset), arrived)
        _add(windows, found, unit, limit=limit, remaining=remaining, reset=stated, gradual=True)
    for unit, limit, remaining in _MISTRAL:
        _add(windows, found, unit, limit=limit, remaining=remaining, reset=60.0)
    limit, remaining, reset = _MISTRAL_BY_SIZE
    stated = _duration(found.get(reset))
    _add(windows, found, Unit.TOKENS, limit=limit, remaining=remaining, reset=stated)
    return RateLimits(
        tuple(windows[unit] for unit in Unit if unit in windows),
        parse_retry_after(found, now=arrived),
    )


def _lowered(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """The first :data:`MAX_HEADERS` pairs, names lower-cased; the first of a name wins."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    found: dict[str, str] = {}
    try:
        for count, (name, value) in enumerate(pairs):
            if count >= MAX_HEADERS:
                break
            if isinstance(name, str) and isinstance(value, str):
                found.setdefault(name.lower(), value)
    except (TypeError, ValueError):  # not pairs: garbage is ignored
        return found
    return found


def _add(
    windows: dict[Unit, Window],
    found: Mapping[str, str],
    unit: Unit,
    *,
    limit: str,
    remaining: str,
    reset: float | None,
    gradual: bool = False,
) -> None:
    """Add ``unit``'s window when its remaining count reads; the first family stated wins."""
    left = _count(found.get(remaining))
    if left is None or unit in windows:
        return
    windows[unit] = Window(unit, left, _count(found.get(limit)), reset, gradual)


def _count(value: str | None) -> int | None:
    """A non-negative whole count up to :data:`MAX_COUNT`, else ``None``."""
    if value is None:
        return None
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > len(str(MAX_COUNT)):
        return None
    number = int(text)
    return number if number <= MAX_COUNT else None


def _duration(value: str | None) -> float | None:
    """A reset written as seconds or as a Go duration, within :data:`MAX_RESET`."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if _PLAIN_NUMBER.fullmatch(text):
        seconds = float(text)
    else:
        matched = _GO_DURATION.fullmatch(text)
        if matched is None or not any(matched.groups()):
            return None
        hours, minutes, whole, millis = (float(part or 0) for part in matched.groups())
        seconds = hours * 3600 + minutes * 60 + whole + millis / 1000
    return seconds if math.isfinite(seconds) and seconds <= MAX_RESET else None


def _until(value: str | None, arrived: float) -> float | None:
    """Seconds from ``arrived`` to an RFC 3339 time (``0.0`` when it has passed)."""
    if value is None:
        return None
    try:
        when = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    seconds = max(0.0, when.timestamp() - arrived)
    return seconds if seconds <= MAX_RESET else None


def _date(value: str | None) -> float | None:
    """An HTTP ``Date`` as epoch seconds, or ``None``."""
    if value is None:
        return None
    import email.utils  # noqa: PLC0415 - as in llm_errors: the module costs 12 ms to import

    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.timestamp()
