"""Classify a column of messages in one call: :func:`classify_many` and its columns.

Error messages that already sit in a table (a Polars or pandas column, a Dask
partition of a folder of logs) are classified where they are, one call per column,
and come back as columns a data frame takes as they are, not as a loop of records.

Such columns repeat a few templates over many rows, so within one call the verdict of
each distinct text is kept and reused. A kept verdict is the one
:meth:`~llm_errors.Classifier.classify` gives that exact text (the key is the whole
text), so the columns are what a loop of ``classify`` gives; the one difference is
that a ``Retry-After`` written as an HTTP date is measured against the time the text
was first seen in the call, not at each repeat. The cache is bounded by construction
(:data:`CACHE_LIMIT` texts of at most :data:`CACHED_TEXT_LIMIT` characters); past it,
texts are classified without being kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Final

from llm_errors._classification import Classification, Layer
from llm_errors._classify import Classifier, _default
from llm_errors._taxonomy import ErrorCode

__all__ = ["CACHED_TEXT_LIMIT", "CACHE_LIMIT", "ClassificationColumns", "classify_many"]

#: Distinct texts whose verdicts one call keeps; later new texts are classified uncached.
CACHE_LIMIT: Final = 16_384
#: Characters of the longest text kept; a longer one is classified at each occurrence.
#: With :data:`CACHE_LIMIT` this bounds what the cache holds alive (32 Mi characters)
#: when the texts come from a generator rather than a list the caller already holds.
CACHED_TEXT_LIMIT: Final = 2_048


@dataclass(frozen=True, slots=True, repr=False)
class ClassificationColumns:
    """The verdicts of many texts, as one column per :class:`~llm_errors.Classification` field.

    Row ``i`` of every column is the verdict of the ``i``-th text. Each attribute is
    named after the field it holds, so ``columns.code[i]`` is ``classify(texts[i]).code``.

    Attributes:
        code: The routed codes.
        retryable: Whether each code is retryable under the classifier's retryable set.
        retry_after: Seconds the text asked to wait, or ``None``.
        status: The HTTP status the text states, or ``None``.
        rule: The id of the deciding rule (``"fallback"`` when none matched).
        layer: The kind of evidence that decided.
        resets_at: When the limit resets, as epoch seconds, where the text states
            that instant, or ``None``.

    Raises:
        ValueError: The columns are not all of the same length.

    .. versionadded:: 0.3.0
    """

    code: tuple[ErrorCode, ...]
    retryable: tuple[bool, ...]
    retry_after: tuple[float | None, ...]
    status: tuple[int | None, ...]
    rule: tuple[str, ...]
    layer: tuple[Layer, ...]
    resets_at: tuple[float | None, ...]

    def __post_init__(self) -> None:
        lengths = {name: len(getattr(self, name)) for name in _COLUMNS}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"columns of different lengths: {lengths}")

    def __len__(self) -> int:
        return len(self.code)

    def __repr__(self) -> str:  # a million rows are not echoed back
        return f"ClassificationColumns(rows={len(self)})"

    def as_dict(self) -> dict[str, list[object]]:
        """Plain lists by column name, for ``polars.DataFrame(...)`` or ``pandas.DataFrame(...)``.

        Codes and layers are their plain string values, so a data frame library
        reads them as strings without knowing our enums.
        """
        return {
            "code": [code.value for code in self.code],
            "retryable": list(self.retryable),
            "retry_after": list(self.retry_after),
            "status": list(self.status),
            "rule": list(self.rule),
            "layer": [layer.value for layer in self.layer],
            "resets_at": list(self.resets_at),
        }


#: The column names: :class:`~llm_errors.Classification`'s fields, in its order.
_COLUMNS: Final = tuple(field.name for field in fields(Classification))


def classify_many(
    texts: Iterable[str], *, classifier: Classifier | None = None
) -> ClassificationColumns:
    """Classify every text of ``texts``, in order, and return the verdicts as columns.

    The batch form of :func:`~llm_errors.classify` for messages in a table: row ``i``
    of the result is ``classifier.classify(text)`` of the ``i``-th text. Columns
    repeat a few templates, so each distinct text is classified once per call: up to
    16,384 distinct texts of up to 2,048 characters are kept
    (``llm_errors._batch.CACHE_LIMIT`` and ``CACHED_TEXT_LIMIT``), and past that,
    texts are classified at each occurrence. A ``Retry-After`` written as an HTTP
    date is measured when its text is first seen in the call.

    Args:
        texts: The messages, each a ``str`` (a column's values, a partition's lines).
        classifier: The classifier to use; the default one when ``None``.

    Raises:
        TypeError: ``texts`` is a single ``str``, or an item is not a ``str`` (the
            message names its index and type, never its value).

    .. versionadded:: 0.3.0
    """
    if isinstance(texts, str):
        raise TypeError("texts must be an iterable of str, not a single str")
    classify = (_default() if classifier is None else classifier).classify
    kept: dict[str, Classification] = {}
    verdicts: list[Classification] = []
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{index}] must be a str, got {type(text).__name__}")
        verdict = kept.get(text)
        if verdict is None:
            verdict = classify(text)
            if len(kept) < CACHE_LIMIT and len(text) <= CACHED_TEXT_LIMIT:
                kept[text] = verdict
        verdicts.append(verdict)
    return ClassificationColumns(
        code=tuple([verdict.code for verdict in verdicts]),
        retryable=tuple([verdict.retryable for verdict in verdicts]),
        retry_after=tuple([verdict.retry_after for verdict in verdicts]),
        status=tuple([verdict.status for verdict in verdicts]),
        rule=tuple([verdict.rule for verdict in verdicts]),
        layer=tuple([verdict.layer for verdict in verdicts]),
        resets_at=tuple([verdict.resets_at for verdict in verdicts]),
    )
