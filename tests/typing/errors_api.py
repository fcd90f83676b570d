"""Type-checked, never run: the ``llm_errors`` API from a user's point of view.

``mypy --strict src tests/typing`` checks this file; every ``# type: ignore`` below is
an assertion that mypy rejects the line (``warn_unused_ignores`` is part of strict).
"""

from collections.abc import Callable
from typing import assert_type

import llm_errors
from llm_errors import (
    Classification,
    ClassificationColumns,
    Classifier,
    ErrorCode,
    Example,
    Explanation,
    LlmError,
    RateLimitError,
    Rule,
    classify,
    classify_many,
    explain,
    parse_retry_after,
)

err = RateLimitError("rate limited", retry_after=30.0, status=429, provider="mistral")
assert_type(err.code, ErrorCode)
assert_type(err.retryable, bool)
assert_type(err.retry_after, float | None)
assert_type(err.with_context(request_id="r"), RateLimitError)
RateLimitError("rate limited", 30.0)  # type: ignore[call-arg, arg-type]  # keyword-only context
assert_type(llm_errors.make_error(ErrorCode.SERVER, "down"), LlmError)
assert_type(llm_errors.error_class_for("TIMEOUT"), type[LlmError])

verdict = classify(ConnectionResetError("reset"))
assert_type(verdict, Classification)
assert_type(verdict.code, ErrorCode)
assert_type(verdict.retry_after, float | None)
assert_type(classify("terminated").retryable, bool)
assert_type(classify({"status": 429}).status, int | None)
assert_type(explain("Premature close"), Explanation)

rule = Rule(
    id="acme.gateway-hiccup",
    code=ErrorCode.TRANSPORT,
    pattern=r"acme gateway hiccup",
    why="Our in-house gateway's wording for a dropped upstream connection.",
    examples=(Example(text="acme gateway hiccup (conn 12)", source="internal runbook"),),
)
custom = Classifier(extra_rules=[rule])
as_callable: Callable[[object], Classification] = custom
assert_type(custom.classify("acme gateway hiccup"), Classification)
assert_type(custom.by_rules("acme gateway hiccup"), Classification)
assert_type(Classifier(words=False).by_words("stream closed"), Classification)
assert_type(explain("stream closed").words, tuple[tuple[str, float], ...])
assert_type(parse_retry_after({"retry-after": "2"}), float | None)
assert_type(llm_errors.DEFAULT_RETRYABLE_CODES, frozenset[ErrorCode])

placed = Rule("acme.after-429", ErrorCode.RATE_LIMIT, "acme busy", "w", after="http.429")
assert_type(placed.before, str | None)
assert_type(llm_errors.load_rules("rules.toml"), tuple[Rule, ...])
assert_type(llm_errors.rules_from_toml("", name="inline"), tuple[Rule, ...])
Classifier(extra_rules=llm_errors.load_rules("rules.toml"))
try:
    llm_errors.load_rules("rules.toml")
except llm_errors.RulesFileError as problem:
    assert_type(problem.field, str | None)
    as_value_error: ValueError = problem

columns = classify_many(["terminated", "Premature close"])
assert_type(columns, ClassificationColumns)
assert_type(columns.code, tuple[ErrorCode, ...])
assert_type(columns.retryable, tuple[bool, ...])
assert_type(columns.retry_after, tuple[float | None, ...])
assert_type(columns.status, tuple[int | None, ...])
assert_type(columns.rule, tuple[str, ...])
assert_type(columns.layer, tuple[llm_errors.Layer, ...])
assert_type(len(columns), int)
assert_type(columns.as_dict(), dict[str, list[object]])
assert_type(classify_many((line for line in ["a"]), classifier=custom), ClassificationColumns)
classify_many(["terminated"], custom)  # type: ignore[call-arg]  # the classifier is keyword-only
classify_many([b"terminated"])  # type: ignore[list-item]  # texts are str
