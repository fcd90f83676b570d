"""Scrub secrets and payloads from text that ends up in errors and logs.

Errors travel far (logs, pickles, crash reporters), so anything that looks like a
credential or an inline payload is replaced before it is stored: API keys and
bearer tokens, data URLs and long base64 runs (images, audio, documents).
"""

from __future__ import annotations

import re as _re

__all__ = ["inert", "redact", "scrub"]

_DATA_URL = _re.compile(r"data:([\w.+-]+/[\w.+-]+)?(?:;[\w=.+-]+)*,[^\s\"'<>)\]}]*", _re.IGNORECASE)
# Anchored at the start of a run, so a long word is scanned once, not from every offset.
_BASE64_RUN = _re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{64,}={0,2}")
# The space after the scheme may be URL-encoded (``authorization=Bearer%20...``).
_BEARER = _re.compile(
    r"(?=[bB])\b(Bearer|Basic)(?:\s+|%20|\+)[A-Za-z0-9._~+/=-]{8,}", _re.IGNORECASE
)
_KEYED = _re.compile(
    r"""(?x)
    (?=[aAxXsSpPtTkK])   # a cheap first-letter gate before the alternation
    (?P<k>\b(?:api[-_]?key|x-api-key|x-goog-api-key|authorization|access[-_]?token
           |secret|password|token)\b
        # a bare "key" only as a query parameter or a quoted name (?key=, "key":), and
        # "API key" spaced only before a quoted value (API key: '...')
        |(?<=[?&;]|["'])key\b|\bapi\ key(?=\s*[:=]\s*["']))
    (?P<sep>["']?\s*[:=]\s*["']?)
    (?!Bearer\b|Basic\b|<redacted>)
    (?P<v>[^\s"',&;}]{6,})
    """,
    _re.IGNORECASE,
)
_PREFIXED_KEY = _re.compile(
    r"""(?x)(?=[sAgxh])\b(?:
        sk-(?:ant-|proj-)?[A-Za-z0-9_-]{12,}      # OpenAI, Anthropic
      | AIza[0-9A-Za-z_-]{30,}                    # Google
      | gsk_[A-Za-z0-9]{20,}                      # Groq
      | xai-[A-Za-z0-9]{20,}                      # xAI
      | hf_[A-Za-z0-9]{20,}                       # Hugging Face
      | AKIA[0-9A-Z]{16}                          # AWS access key id
    )""",
)


#: Literal anchors: a scrubber runs only if one of its words is in the text.
_WORDS = ("key", "auth", "token", "secret", "password")
_PREFIXES = ("sk-", "AIza", "gsk_", "xai-", "hf_", "AKIA")
_BASE64_MIN = 64
#: Every ``_KEYED`` match ends its name in one of these words, right before its separator
#: (an optional quote, spaces, ``:`` or ``=``): a text of key words without one, as
#: most messages that say ``token`` or ``key`` are, is passed over (one search of the
#: case-folded text; its substitutions keep what precedes and follows a key word).
_KEY_SEPARATOR = _re.compile(r"""(?:key|authorization|token|secret|password)["']?\s*[:=]""")
#: ``_BASE64_RUN``'s alphabet as ``x`` and every other byte as a space: a text holds a
#: run of :data:`_BASE64_MIN` if and only if its translation holds that many ``x``.
_BASE64_BYTES = bytes(
    ord("x") if chr(byte).isascii() and (chr(byte).isalnum() or chr(byte) in "+/_-") else ord(" ")
    for byte in range(256)
)
_BASE64_MIN_RUN = b"x" * _BASE64_MIN
#: Nothing shorter than this can hold a secret any scrubber would replace.
_SHORTEST_SECRET = 10


def _data_url(match: _re.Match[str]) -> str:
    mime = match.group(1) or "unknown"
    return f"data:{mime};<redacted {len(match.group(0))} chars>"


def redact(text: str) -> str:
    """Return ``text`` with credentials, data URLs and base64 runs replaced.

    Cheap when there is nothing to scrub: each pattern is anchored on a rare
    literal or a long character run.
    """
    if len(text) < _SHORTEST_SECRET:
        return text
    return scrub(text)


def scrub(text: str) -> str:
    """:func:`redact` without its shortcut for short texts (every pass that applies runs)."""
    # Each scrubber runs only when its literal anchor is present: most messages have
    # none, and a substring test is far cheaper than a regex scan.
    folded = text.casefold()
    if "data:" in folded:
        text = _DATA_URL.sub(_data_url, text)
    if "bearer" in folded or "basic" in folded:
        text = _BEARER.sub(r"\1 <redacted>", text)
    if _has_key_word(folded) and _KEY_SEPARATOR.search(folded):
        text = _KEYED.sub(r"\g<k>\g<sep><redacted>", text)
    if _has_key_prefix(text):
        text = _PREFIXED_KEY.sub("<redacted key>", text)
    if len(text) >= _BASE64_MIN and _BASE64_MIN_RUN in _base64_bytes(text):
        text = _BASE64_RUN.sub(lambda m: f"<redacted {len(m.group(0))} chars>", text)
    return str(text)


def _has_key_word(folded: str) -> bool:
    """Whether ``folded`` holds one of :data:`_WORDS` (substring tests beat a regex search)."""
    for word in _WORDS:  # noqa: SIM110 -- a loop: any() of a generator costs twice as much
        if word in folded:
            return True
    return False


def _has_key_prefix(text: str) -> bool:
    """Whether ``text`` holds one of :data:`_PREFIXES`."""
    for prefix in _PREFIXES:  # noqa: SIM110 -- as above
        if prefix in text:
            return True
    return False


def _base64_bytes(text: str) -> bytes:
    """``text``'s UTF-8 bytes with the base64 run's alphabet as ``x``, every other byte a space."""
    return text.encode("utf-8", "surrogatepass").translate(_BASE64_BYTES)


def inert(head: str) -> bool:
    """Whether no scrubber can start a match in ``head``.

    Every match starts at a literal anchor (``data:``, ``bearer``/``basic``, a key word
    or a key prefix) or is a run of at least 64 characters without a space. So when
    ``head`` holds none and ends in whitespace, and ``rest`` starts with another
    character, ``scrub(head + rest) == head + scrub(rest)``: matches in ``rest`` see
    the same character before them (none or a space both pass every lookbehind and
    word boundaries) and none can start in ``head`` or cross into it.
    """
    folded = head.casefold()
    if "data:" in folded or "bearer" in folded or "basic" in folded:
        return False
    if _has_key_word(folded) or _has_key_prefix(head):
        return False
    return len(head) < _BASE64_MIN or max(map(len, head.split())) < _BASE64_MIN
