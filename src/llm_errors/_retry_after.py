"""How long the server asked us to wait: ``Retry-After`` headers and wait hints in text.

Pure functions, no I/O. Servers say it in three ways, all parsed here the way
openai-python's ``_calculate_retry_timeout`` reads them: ``retry-after-ms``
(milliseconds, preferred because it is precise), ``Retry-After`` in seconds and
``Retry-After`` as an HTTP date. Garbage is ignored, never an exception: a
malformed header must not turn a retryable failure into a crash.

A log often holds the headers only as text (``HTTP 429 Too Many Requests;
Retry-After: 20``, a printed ``Headers({'retry-after': '20'})``):
:func:`retry_after_in_text` reads a header written there, through
:func:`parse_retry_after` itself, so the text says exactly what the header would.
"""

from __future__ import annotations

import datetime as dt
import math
import time
from collections.abc import Mapping
from typing import Final

import regex as _re

__all__ = [
    "daily_reset_from_text",
    "parse_duration",
    "parse_reset_time",
    "parse_retry_after",
    "reset_time_from_text",
    "retry_after_from_text",
    "retry_after_in_text",
]

#: Header values written in a text that are read (the first of each name decides).
HEADERS_IN_TEXT_LIMIT: Final = 8

_UNIT_SECONDS = {
    "ms": 0.001,
    "msec": 0.001,
    "millisecond": 0.001,
    "milliseconds": 0.001,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "m": 60.0,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hrs": 3600.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "d": 86400.0,
    "day": 86400.0,
    "days": 86400.0,
}

# One "<number><unit>" part of a Go-style or spelled-out duration: "9m38.016s",
# "1h2m", "25.46s", "6 seconds", "2 hours".
_PART = _re.compile(
    r"(\d+(?:\.\d+)?)\s*(milliseconds?|msec|ms|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|sec|s"
    r"|days?|d)(?![a-z])",
    _re.IGNORECASE,
)
_DURATION = _re.compile(
    r"^\s*(?:\d+(?:\.\d+)?\s*(?:milliseconds?|msec|ms|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?"
    r"|sec|s|days?|d)(?![a-z])\s*(?:and\s+)?)+",
    _re.IGNORECASE,
)
# "try again in 9m38.016s", "Please retry after 6 seconds", "retry in 25.465784708s",
# "retryDelay": "59s", "reset in 2 hours".
_HINT = _re.compile(
    r"(?:\b(?:try\s+again|retry|resets?)\s+(?:in|after)\s+|\bretry_?delay\W{1,4})"
    r"(?=\d)",
    _re.IGNORECASE,
)


# A header written in text: its name (hyphen or underscore; quoted, as a printed mapping
# has it, or not), ``:`` or ``=``, then a value of the header's own forms only: seconds
# (at most 12 digits) or an IMF-fixdate (RFC 9110 section 5.6.7). A wait named in
# prose ("retry after 20 users") is neither a header name nor such a value.
_HEADER_IN_TEXT = _re.compile(
    r"""\bretry[-_]after(?P<ms>[-_]ms)?\b["']?[ \t]{0,4}[:=][ \t]{0,4}["']?
        (?P<value>\d{1,12}(?:\.\d{1,6})?(?!\w|\.\d)
        |(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),[ ]\d{2}[ ]
         (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ ]\d{4}[ ]\d{2}:\d{2}:\d{2}[ ]GMT)""",
    _re.IGNORECASE | _re.VERBOSE,
)


# A Chinese relay's "请 78 秒后重试" ("please retry in 78 seconds", dwgx/WindsurfAPI#160):
# the number and its unit come before "后" ("after") and "重试"/"再试" ("retry").
_HINT_ZH = _re.compile(r"(\d+(?:\.\d+)?)\s*(秒|分钟|小时)\s*后\s*(?:重试|再试)")
_UNIT_ZH = {"秒": 1.0, "分钟": 60.0, "小时": 3600.0}


# A stated reset time: an RFC 3339 / ISO 8601 date and time *with* its zone ("Z", an
# offset, "UTC" or "GMT"). A time without a zone ("will reset at 2026-07-02 17:39:49",
# openclaw/openclaw#97764) names no instant, so it is not read.
_ISO_TIME = (
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?"
    r"[ ]?(?:Z|[+-]\d{2}:?\d{2}|UTC|GMT)(?![\w:])"
)
_ISO_VALUE = _re.compile(rf"\s*({_ISO_TIME})\s*$")
# Epoch seconds (10 digits) or milliseconds (13): 2001 to 2286 either way.
_EPOCH = r"\d{10}(?:\d{3})?(?![\d.])"
# In a text: a "resets_at"/"reset_at" field with an epoch or a time (OpenAI's usage-limit
# body: ``"resets_at": 1783426459``), or a time with its zone at most 60 characters after
# the word "reset" on the same line ("Your quota resets at 2026-09-01 00:00 UTC"), or
# Claude Code's "Claude AI usage limit reached|1762952400" (anthropics/claude-code#11429).
_RESET_IN_TEXT = _re.compile(
    rf"""\breset(?:s)?_at\b["']?[ \t]{{0,4}}[:=][ \t]{{0,4}}["']?
        (?:(?P<epoch>{_EPOCH})|(?P<field>{_ISO_TIME}))
        |\breset(?:s|ting)?\b[^\n]{{0,60}}?(?P<time>{_ISO_TIME})
        |\blimit[ ]reached[^|\n]{{0,30}}\|(?P<pipe>{_EPOCH})""",
    _re.IGNORECASE | _re.VERBOSE,
)
# Google's per-day quota ids ("GenerateRequestsPerDayPerProjectPerModel-FreeTier") in a
# QuotaFailure: such quotas reset at midnight Pacific time, as the Gemini API's rate-limit
# page says (https://ai.google.dev/gemini-api/docs/rate-limits), whatever short
# RetryInfo delay comes beside them.
_GOOGLE_DAY_QUOTA = _re.compile(r"\bquota_?id\W{1,4}[\w-]{0,60}(?-i:PerDay)", _re.IGNORECASE)
_PACIFIC = "America/Los_Angeles"
#: Characters of a message searched for a per-day quota id (a Gemini 429 body is ~1 kB).
_DAILY_TEXT_LIMIT: Final = 65_536
#: Longest field value read as a reset time, in characters (an RFC 3339 time is 35 at most).
_RESET_VALUE_LIMIT: Final = 64
#: Epoch seconds of 2001-09-09 and of 2286-11-20: the range a stated reset time is read in.
_EPOCH_RANGE: Final = (1e9, 1e10)


def _finite_non_negative(value: float) -> float | None:
    if math.isnan(value) or math.isinf(value) or value < 0:
        return None
    return value


def _number(text: str) -> float | None:
    try:
        return _finite_non_negative(float(text.strip()))
    except ValueError:
        return None


def parse_duration(text: str) -> float | None:
    """Seconds in a duration such as ``"9m38.016s"``, ``"6 seconds"`` or ``"1h2m"``.

    Returns ``None`` when ``text`` does not start with a duration.
    """
    match = _DURATION.match(text)
    if match is None:
        return None
    total = 0.0
    for number, unit in _PART.findall(match.group(0)):
        total += float(number) * _UNIT_SECONDS[unit.lower()]
    return _finite_non_negative(total)


def retry_after_from_text(text: str) -> float | None:
    """The wait a provider's message asks for ("Please try again in 9m38s"), in seconds."""
    if not text.isascii() and "后" in text and (found := _HINT_ZH.search(text)):
        return _finite_non_negative(float(found[1]) * _UNIT_ZH[found[2]])
    low = text.lower()
    if "retry" not in low and "try again" not in low and "reset" not in low:
        return None  # cheap test first: the regex scan costs more than these lookups
    # Every hint starts with "try", "retry" or "reset": scan from the first of them,
    # not from the start of the line (the scan costs per character). Offsets in the
    # lower-cased text are the text's own only for ASCII text.
    try_at, reset_at = low.find("try"), low.find("reset")
    starts = [at for at in (max(try_at - 2, 0) if try_at >= 0 else -1, reset_at) if at >= 0]
    first = min(starts, default=0) if text.isascii() else 0
    for hint in _HINT.finditer(text, first):
        seconds = parse_duration(text[hint.end() :])
        if seconds is not None:
            return seconds
    return None


def retry_after_in_text(text: str, *, now: float | None = None) -> float | None:
    """Seconds a ``retry-after-ms`` or ``Retry-After`` header written in ``text`` asks for.

    The first :data:`HEADERS_IN_TEXT_LIMIT` headers written are read, and the first
    value of each name goes to :func:`parse_retry_after` as a header would (``-ms``
    wins; an HTTP date is measured against ``now``, default the current time, so in
    an old log it reads as ``0.0``).
    """
    if "fter" not in text and "FTER" not in text:
        return None  # cheap test first: most texts name no such header
    headers: dict[str, str] = {}
    for count, found in enumerate(_HEADER_IN_TEXT.finditer(text)):
        if count == HEADERS_IN_TEXT_LIMIT:
            break
        headers.setdefault("retry-after-ms" if found["ms"] else "retry-after", found["value"])
    return parse_retry_after(headers, now=now) if headers else None


def parse_retry_after(
    headers: Mapping[str, str] | None = None, *, now: float | None = None
) -> float | None:
    """Seconds the server asked us to wait, from ``retry-after-ms`` or ``Retry-After``.

    Header names are matched case-insensitively. ``retry-after-ms`` wins when it is
    a valid number; ``Retry-After`` may be seconds (a float is accepted) or an HTTP
    date, which is measured against ``now`` (epoch seconds, default: the current
    time). A date in the past means "now" (``0.0``). Negative, non-finite and
    unparsable values are ignored, and any non-mapping input gives ``None``.

    .. versionadded:: 0.1.0
    """
    if not isinstance(headers, Mapping):
        return None
    lowered: dict[str, str] = {}
    try:
        items: list[tuple[object, object]] = list(headers.items())
    except Exception:  # noqa: BLE001 - a broken mapping is garbage, and garbage is ignored
        return None
    for key, raw in items:
        value = raw.decode("latin-1") if isinstance(raw, bytes) else raw
        if isinstance(key, str) and isinstance(value, str):
            lowered.setdefault(key.lower(), value)
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        value = _number(millis)
        if value is not None:
            return value / 1000.0
    header = lowered.get("retry-after")
    if header is None:
        return None
    seconds = _number(header)
    if seconds is not None:
        return seconds
    import email.utils  # noqa: PLC0415 - an HTTP date is rare; the module costs 12 ms to import

    try:
        when = email.utils.parsedate_to_datetime(header.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000" parses as naive; RFC 9110 dates are GMT anyway
        when = when.replace(tzinfo=dt.UTC)
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def _epoch(value: float) -> float | None:
    """Epoch seconds from seconds or milliseconds, told apart by size; ``None`` out of range."""
    if not math.isfinite(value):
        return None
    seconds = value / 1000.0 if value >= _EPOCH_RANGE[1] * 100 else value
    return seconds if _EPOCH_RANGE[0] <= seconds < _EPOCH_RANGE[1] else None


def _iso(text: str) -> float | None:
    """Epoch seconds of an ISO time with its zone (a ``UTC``/``GMT`` suffix reads as ``Z``)."""
    stamp = text.strip()
    if stamp[-3:].upper() in ("UTC", "GMT"):
        stamp = stamp[:-3].rstrip() + "+00:00"
    head, dot, rest = stamp.partition(".")
    if dot:  # fromisoformat reads at most six fraction digits
        digits = len(rest) - len(rest.lstrip("0123456789"))
        stamp = head + dot + rest[: min(digits, 6)] + rest[digits:]
    try:
        when = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return _epoch(when.timestamp()) if when.tzinfo is not None else None


def parse_reset_time(value: object) -> float | None:
    """When a limit resets, as epoch seconds, from a field's value; ``None`` if it says no instant.

    Epoch seconds or milliseconds (a number or digits: ``1783426459``), or an RFC 3339
    time with its zone (``"2026-09-01T00:00:00Z"``); only instants from 2001 to 2286
    are read. A time without a zone, a duration and garbage give ``None``.

    .. versionadded:: 0.3.0
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _epoch(float(value))
    if not isinstance(value, str) or len(value) > _RESET_VALUE_LIMIT:
        return None
    stripped = value.strip()
    if stripped.isdigit():
        return _epoch(float(stripped))
    found = _ISO_VALUE.match(stripped)
    return _iso(found[1]) if found else None


def reset_time_from_text(text: str) -> float | None:
    """When a message says the limit resets, as epoch seconds; ``None`` if it states no instant.

    Reads a ``resets_at``/``reset_at`` field written in the text (an epoch or an ISO
    time), an ISO time with its zone up to 60 characters after "reset" on the same
    line, or the epoch after "limit reached|" (Claude Code's usage-limit message).
    Durations ("resets in 2h") are :func:`retry_after_from_text`'s.

    .. versionadded:: 0.3.0
    """
    if "eset" not in text and "ESET" not in text and "reached|" not in text:
        return None  # cheap test first: most texts name no reset
    for found in _RESET_IN_TEXT.finditer(text):
        epoch = found["epoch"] or found["pipe"]
        seconds = _epoch(float(epoch)) if epoch else _iso(found["field"] or found["time"])
        if seconds is not None:
            return seconds
    return None


def daily_reset_from_text(text: str, *, now: float) -> float | None:
    """When a per-day quota a message names is back, as epoch seconds; ``None`` if it names none.

    A Google quota id of a per-day quota (``quotaId: GenerateRequestsPerDayPerProject
    PerModel-FreeTier``) says the next midnight Pacific time after ``now``: Google's
    per-day quotas reset then, whatever the short ``RetryInfo`` delay beside them. It
    depends on the day, so ``classify`` does not put it in ``resets_at`` (a verdict is
    the same today and tomorrow); ``llm_retry`` asks for it when a call meets a spent
    quota. ``None`` too where the time-zone database is missing (Windows without
    ``tzdata``).

    .. versionadded:: 0.3.0
    """
    if "PerDay" not in text or not _GOOGLE_DAY_QUOTA.search(text[:_DAILY_TEXT_LIMIT]):
        return None
    import zoneinfo  # noqa: PLC0415 - only a per-day quota needs the zone database

    try:
        zone = zoneinfo.ZoneInfo(_PACIFIC)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
    day = dt.datetime.fromtimestamp(now, zone).date() + dt.timedelta(days=1)
    return dt.datetime.combine(day, dt.time(), zone).timestamp()
