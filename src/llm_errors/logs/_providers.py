"""Which provider and model an error message names, if it names them (pure).

Nothing is inferred: a provider counts only when the text names it (``openai``,
``api.anthropic.com``, ``gemini``; the first one named wins, so ``Azure OpenAI``
is Azure), and a model only when its id appears, either in a known family's shape
(``gpt-4o-mini``, ``claude-3-5-haiku``, ``mistral-large-latest``, ...) or after the
word ``model`` (``model "llama3.2:70b"``). A JSON record's own ``provider`` and
``model`` fields win over its text. Names are bounded in length and dropped if
they look like a secret.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from llm_errors import redact

__all__ = ["NAME_LIMIT", "names", "record_names"]

#: Longest provider or model name kept, in characters.
NAME_LIMIT: Final = 64
#: How much of a text is searched for names.
_SEARCH_LIMIT: Final = 4096

# Canonical name -> what a message says, in lower case. Words that are also plain
# English ("together", "replicate") are matched only in their host or package form.
# Every alternative starts with a literal of the hint below it.
_PROVIDERS: Final = {
    "azure": r"azure",
    "openai": r"openai",
    "anthropic": r"anthropic",
    "mistral": r"mistral(?:ai)?(?![\w-])",
    "google": r"gemini(?![\w-])|vertex\s?ai|generativelanguage\.googleapis|aiplatform\.googleapis",
    "bedrock": r"bedrock",
    "cohere": r"cohere",
    "groq": r"groq",
    "ollama": r"ollama",
    "deepseek": r"deepseek(?![\w-])",
    "openrouter": r"openrouter",
    "together": r"together\.ai|together\.xyz|togetherai",
    "fireworks": r"fireworks(?:\.ai)?(?![\w-])",
    "xai": r"x\.ai(?![\w-])|xai(?![\w-])",
    "perplexity": r"perplexity",
    "huggingface": r"hugging\s?face",
    "cerebras": r"cerebras",
    "vllm": r"vllm",
}
_PROVIDER = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in _PROVIDERS.items()))
_MODEL_FAMILY = re.compile(
    r"""(?P<id>
        (?:chat)?gpt-[\w.-]*[a-z0-9]
      | o[134](?:-(?:mini|pro|preview)(?:-[\w.-]*[a-z0-9])?)?(?![\w.-])
      | text-embedding-[\w.-]*[a-z0-9]
      | claude-[\w.:@-]*[a-z0-9]
      | (?:open-)?(?:mistral|mixtral|codestral|ministral|pixtral|magistral|devstral)
        -[\w.-]*[a-z0-9]
      | gemini-[\w.-]*[a-z0-9]
      | gemma-?\d[\w.:-]*[a-z0-9]
      | llama-?\d[\w.:-]*[a-z0-9]
      | qwen-?\d[\w.:-]*[a-z0-9]
      | deepseek-[\w.-]*[a-z0-9]
      | command-r[\w.+-]*[a-z0-9+]
      | grok-[\w.-]*[a-z0-9]
    )""",
    re.VERBOSE,
)
_MODEL_NAMED = re.compile(
    r"""model(?:[_ ]?(?:id|name))?["']?\s*[\s=:]\s*[`'"]?
        (?P<id>[a-z][\w./:@-]*[a-z0-9])""",
    re.VERBOSE,
)


def _hint(*literals: str) -> re.Pattern[str]:
    # A plain alternation of literals is found many times faster than the patterns
    # above (the engine skips to the possible first letters); each hit is then
    # matched in full where it stands.
    return re.compile("|".join(map(re.escape, literals)))


_PROVIDER_HINT = _hint(
    *("azure", "openai", "anthropic", "mistral", "gemini", "vertex", "generativelanguage"),
    *("aiplatform", "bedrock", "cohere", "groq", "ollama", "deepseek", "openrouter"),
    *("together", "fireworks", "x.ai", "xai", "perplexity", "hugging", "cerebras", "vllm"),
)
_MODEL_HINT = _hint(
    *("gpt-", "chatgpt-", "o1", "o3", "o4", "text-embedding-", "claude-", "mistral-"),
    *("open-mistral-", "mixtral-", "codestral-", "ministral-", "pixtral-", "magistral-"),
    *("devstral-", "gemini-", "gemma", "llama", "qwen", "deepseek-", "command-r", "grok-"),
)
_MODEL_NAMED_HINT = _hint("model")
_RECORD_PROVIDER_KEYS: Final = ("provider", "llm_provider", "provider_name")
_RECORD_MODEL_KEYS: Final = ("model", "model_name", "model_id")


def _clean(name: str) -> str | None:
    name = name.strip().lower()
    if not name or len(name) > NAME_LIMIT or redact(name) != name:
        return None
    return name


def _first(
    hint: re.Pattern[str],
    pattern: re.Pattern[str],
    text: str,
    after: frozenset[str],
    start: int = 0,
) -> re.Match[str] | None:
    """The first match of ``pattern`` at a ``hint`` from ``start``, not right after ``after``."""
    while (found := hint.search(text, start)) is not None:
        at = found.start()
        if at == 0 or text[at - 1] not in after:
            full = pattern.match(text, at)
            if full is not None:
                return full
        start = at + 1
    return None


_ALNUM: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_IDENT: Final = _ALNUM | {"_"}
_WORD: Final = _IDENT | {"-"}


def _model(text: str) -> str | None:
    family = _first(_MODEL_HINT, _MODEL_FAMILY, text, _WORD)
    if family is not None:
        return _clean(family["id"])
    start = 0
    while (named := _first(_MODEL_NAMED_HINT, _MODEL_NAMED, text, _IDENT, start)) is not None:
        candidate = named["id"]
        if any(c.isdigit() for c in candidate) or "-" in candidate:
            return _clean(candidate)
        start = named.end()
    return None


def names(*texts: str | None) -> tuple[str | None, str | None]:
    """The provider and model the texts name, each from the first text that names one."""
    provider = model = None
    done: list[str] = []  # (a finding's text is often its first line, given as both)
    for text in texts:
        if not text or text in done:
            continue
        done.append(text)
        head = text[:_SEARCH_LIMIT].lower()
        if (
            provider is None
            and (found := _first(_PROVIDER_HINT, _PROVIDER, head, _ALNUM)) is not None
        ):
            provider = found.lastgroup
        if model is None:
            model = _model(head)
    return provider, model


def _field(record: Mapping[str, object], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and (cleaned := _clean(value)) is not None:
            return cleaned
    return None


def record_names(record: Mapping[str, object], text: str) -> tuple[str | None, str | None]:
    """A JSON record's provider and model: its own fields first, then its message text."""
    provider, model = names(text)
    return (
        _field(record, _RECORD_PROVIDER_KEYS) or provider,
        _field(record, _RECORD_MODEL_KEYS) or model,
    )
