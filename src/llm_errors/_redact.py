"""Scrub secrets and payloads from text that ends up in errors and logs.

Errors travel far (logs, pickles, crash reporters), so anything that looks like a
credential or an inline payload is replaced before it is stored: API keys and
bearer tokens, data URLs and long base64 runs (images, audio, documents).
"""

from __future__ import annotations

import regex as _re

__all__ = ["redact"]

_DATA_URL = _re.compile(r"data:([\w.+-]+/[\w.+-]+)?(?:;[\w=.+-]+)*,[^\s\"'<>)\]}]*", _re.I)
_BASE64_RUN = _re.compile(r"[A-Za-z0-9+/_-]{64,}={0,2}")
_BEARER = _re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}", _re.I)
_KEYED = _re.compile(
    r"""(?x)
    (?P<k>\b(?:api[-_]?key|x-api-key|x-goog-api-key|authorization|access[-_]?token
           |secret|password|token)\b)
    (?P<sep>["']?\s*[:=]\s*["']?)
    (?!Bearer\b|Basic\b|<redacted>)
    (?P<v>[^\s"',&;}]{6,})
    """,
    _re.I,
)
_PREFIXED_KEY = _re.compile(
    r"""(?x)\b(?:
        sk-(?:ant-|proj-)?[A-Za-z0-9_-]{12,}      # OpenAI, Anthropic
      | AIza[0-9A-Za-z_-]{30,}                    # Google
      | gsk_[A-Za-z0-9]{20,}                      # Groq
      | xai-[A-Za-z0-9]{20,}                      # xAI
      | hf_[A-Za-z0-9]{20,}                       # Hugging Face
      | AKIA[0-9A-Z]{16}                          # AWS access key id
    )""",
)


def _data_url(match: _re.Match[str]) -> str:
    mime = match.group(1) or "unknown"
    return f"data:{mime};<redacted {len(match.group(0))} chars>"


def redact(text: str) -> str:
    """Return ``text`` with credentials, data URLs and base64 runs replaced.

    Cheap when there is nothing to scrub: each pattern is anchored on a rare
    literal or a long character run.
    """
    if not text:
        return text
    text = _DATA_URL.sub(_data_url, text)
    text = _BEARER.sub(r"\1 <redacted>", text)
    text = _KEYED.sub(r"\g<k>\g<sep><redacted>", text)
    text = _PREFIXED_KEY.sub("<redacted key>", text)
    return str(_BASE64_RUN.sub(lambda m: f"<redacted {len(m.group(0))} chars>", text))
