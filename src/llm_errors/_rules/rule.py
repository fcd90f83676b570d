"""One rule of the text layer, and a real message it must classify.

Built-in rules (``builtin.toml``) and users' rules files are read into these by one
reader (:mod:`llm_errors._rules.reader`); a :class:`Rule` can also be built in code.
"""

from __future__ import annotations

from dataclasses import dataclass

from llm_errors._taxonomy import ErrorCode

__all__ = ["Example", "Rule"]


@dataclass(frozen=True, slots=True)
class Example:
    """A real-world message a rule must classify, and where it was seen.

    .. versionadded:: 0.1.0
    """

    text: str
    source: str


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the pattern table.

    The pattern is compiled with the ``regex`` module, case-insensitively and with
    ``^``/``$`` matching at line boundaries; use ``(?-i:...)`` for a case-sensitive
    part. Numbered backreferences are not allowed (rules are combined into one
    pattern, which renumbers groups). A pattern that does not compile is rejected
    when a :class:`~llm_errors.Classifier` is built.

    ``before`` / ``after`` (at most one) place an extra rule right before or after
    the built-in rule with that id instead of before all built-in rules; ``origin``
    says where a rule outside the built-in table was defined (a rules file), and is
    what :func:`~llm_errors.explain` shows as its source.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0 ``before``, ``after`` and ``origin``.
    """

    id: str
    code: ErrorCode
    pattern: str
    why: str
    examples: tuple[Example, ...] = ()
    before: str | None = None
    after: str | None = None
    origin: str | None = None

    def __post_init__(self) -> None:
        rule_id: object = self.id
        code: object = self.code
        pattern: object = self.pattern
        examples: object = self.examples
        if not isinstance(rule_id, str) or not rule_id.strip():
            raise ValueError(f"a rule needs a non-empty string id, got {rule_id!r}")
        if not isinstance(code, ErrorCode):
            raise TypeError(f"rule {rule_id!r}: code must be an ErrorCode, got {code!r}")
        if not isinstance(pattern, str) or not pattern:
            raise ValueError(f"rule {rule_id!r}: pattern must be a non-empty string")
        if not isinstance(examples, tuple) or not all(isinstance(e, Example) for e in examples):
            raise TypeError(f"rule {rule_id!r}: examples must be a tuple of Example")
        if self.before is not None and self.after is not None:
            raise ValueError(f"rule {rule_id!r}: give before or after, not both")
