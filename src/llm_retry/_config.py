"""Turn a plain mapping or environment variables into ``RetryPolicy`` keyword arguments.

Pure parsing: values may already have their type (from code, JSON, TOML) or be strings
(from the environment). Every unknown key and every bad value is an error naming it, so
a typo such as ``LLM_RETRY_MAX_ATTEMPT`` fails at startup instead of being ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from llm_retry._checks import require_codes, shown

__all__ = ["CONFIG_FIELDS", "parse_bool", "parse_environ", "parse_mapping"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _to_int(name: str, value: object) -> object:
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be an integer, got {shown(value)}") from None
    return value


def _to_float(name: str, value: object) -> object:
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be a number, got {shown(value)}") from None
    return value


def parse_bool(name: str, value: object) -> object:
    """``value`` as a bool (``true/false/1/0/yes/no/on/off`` for a string), else unchanged."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise ValueError(f"{name} must be one of true/false/1/0/yes/no/on/off, got {shown(value)}")
    return value


def _to_codes(name: str, value: object) -> object:
    return require_codes(name, value)


def _to_scope(name: str, value: object) -> object:
    if isinstance(value, str):
        return value.strip()
    raise TypeError(f"{name} must be a string, got {type(value).__name__}")


#: The settings that may come from configuration, with how to read each one.
CONFIG_FIELDS: Mapping[str, Callable[[str, object], object]] = {
    "max_attempts": _to_int,
    "deadline": _to_float,
    "initial_wait": _to_float,
    "max_wait": _to_float,
    "multiplier": _to_float,
    "jitter": parse_bool,
    "retry_on": _to_codes,
    "respect_retry_after": parse_bool,
    "max_retry_after": _to_float,
    "wait_for_reset": _to_float,
    "scope": _to_scope,
}


def parse_mapping(
    mapping: Mapping[str, object], *, label: Callable[[str], str] = str
) -> dict[str, object]:
    """Keyword arguments for ``RetryPolicy`` from ``mapping`` (keys are field names).

    ``label`` renders a key for error messages (the environment reader shows the
    variable's name instead of the field's).
    """
    kwargs: dict[str, object] = {}
    for key, value in mapping.items():
        parse = CONFIG_FIELDS.get(key)
        if parse is None:
            known = ", ".join(label(name) for name in CONFIG_FIELDS)
            raise ValueError(f"unknown retry setting {label(key)!r}; expected one of {known}")
        kwargs[key] = parse(label(key), value)
    return kwargs


def parse_environ(environ: Mapping[str, str], *, prefix: str) -> dict[str, object]:
    """Keyword arguments for ``RetryPolicy`` from ``{prefix}{FIELD}`` variables.

    Empty variables count as unset, so ``LLM_RETRY_DEADLINE=`` restores the default.
    """
    settings = {
        name[len(prefix) :].lower(): value
        for name, value in environ.items()
        if name.startswith(prefix) and value.strip()
    }
    return parse_mapping(settings, label=lambda key: f"{prefix}{key.upper()}")
