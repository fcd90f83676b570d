"""``classify_many``: the rows are a loop of ``classify``, in order, each text classified once."""

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_errors import (
    Classification,
    ClassificationColumns,
    Classifier,
    ErrorCode,
    Layer,
    classify,
    classify_many,
)
from llm_errors import _batch as batch

CORPUS = Path(__file__).resolve().parent / "corpus"
#: Every real error string of the corpus and the sealed set, by row id.
ROWS = {
    row["id"]: row["text"]
    for path in sorted(CORPUS.rglob("*.jsonl"))
    for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())
}
TEXTS = list(ROWS.values())
FIELDS = [field.name for field in dataclasses.fields(Classification)]


def rows_of(columns: ClassificationColumns) -> list[Classification]:
    """The columns read back row by row, as ``Classification`` records."""
    return [
        Classification(**{name: getattr(columns, name)[i] for name in FIELDS})
        for i in range(len(columns))
    ]


class Counting(Classifier):
    """The default rules, counting the texts it is asked to classify."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[object] = []

    def classify(self, obj: object) -> Classification:
        """Note ``obj``, then classify it as the default rules do."""
        self.seen.append(obj)
        return super().classify(obj)


def test_the_columns_are_the_classification_fields():
    """One column per ``Classification`` field, same names, same order, in ``as_dict`` too."""
    assert [field.name for field in dataclasses.fields(ClassificationColumns)] == FIELDS
    assert list(classify_many(["terminated"]).as_dict()) == FIELDS


def test_every_corpus_string_gets_its_classify_verdict(table):
    """The whole corpus in one call: each row is what ``classify`` gives its text."""
    found = rows_of(classify_many(TEXTS))
    assert len(found) == len(TEXTS) > 2000
    table.check(
        ((row_id, (found[i], text)) for i, (row_id, text) in enumerate(ROWS.items())),
        lambda verdict, text: _same(verdict, classify(text)),
    )


def _same(verdict: Classification, expected: Classification) -> None:
    assert verdict == expected, f"{verdict} != {expected}"


@given(
    st.lists(
        st.one_of(st.sampled_from(TEXTS), st.text(max_size=300), st.sampled_from(TEXTS[:5])),
        max_size=40,
    )
)
def test_any_mix_of_texts_equals_a_loop_of_classify(texts):
    """Real strings, arbitrary text and repeats: the rows are the loop's verdicts, in order."""
    assert rows_of(classify_many(texts)) == [classify(text) for text in texts]


def test_order_is_kept():
    """Reversing the texts reverses every column."""
    texts = ["terminated", TEXTS[0], "Premature close", TEXTS[-1], "nothing wrong here"]
    forward = classify_many(texts)
    backward = classify_many(texts[::-1])
    for name in FIELDS:
        assert getattr(backward, name) == getattr(forward, name)[::-1]
    assert len(set(forward.code)) > 1  # the texts differ, so the test can tell an order


def test_the_classifier_given_is_used():
    """A classifier of one's own decides: with no retryable code, no row is retryable."""
    texts = ["HTTP 503 Service Unavailable", "terminated"]
    strict = Classifier(retryable_codes=())
    assert classify_many(texts).retryable == (True, True)
    assert classify_many(texts, classifier=strict).retryable == (False, False)
    assert rows_of(classify_many(texts, classifier=strict)) == [strict.classify(t) for t in texts]


def test_empty_input_gives_empty_columns():
    """No text: every column is empty, and ``as_dict`` gives empty lists."""
    columns = classify_many([])
    assert len(columns) == 0
    assert all(getattr(columns, name) == () for name in FIELDS)
    assert columns.as_dict() == {name: [] for name in FIELDS}


def test_any_iterable_is_read_once():
    """A generator (a partition's lines) is read once, in order."""
    texts = [TEXTS[3], TEXTS[4], TEXTS[3]]
    assert rows_of(classify_many(text for text in texts)) == [classify(t) for t in texts]


def test_each_distinct_text_is_classified_once():
    """Repeats reuse the verdict of their first occurrence; every row is still filled."""
    counting = Counting()
    a, b = TEXTS[10], TEXTS[20]
    columns = classify_many([a, b, a, a, b], classifier=counting)
    assert counting.seen == [a, b]
    assert rows_of(columns) == [classify(t) for t in [a, b, a, a, b]]


def test_the_cache_key_is_the_exact_text():
    """Texts that differ only in case keep their own verdicts (some rules read case)."""
    named = ROWS["aborted-vercelai-002"]
    assert named == "ResponseAborted"
    texts = [named.lower(), named, named.upper(), named]
    found = rows_of(classify_many(texts))
    assert found == [classify(text) for text in texts]
    assert found[0].code is not found[1].code


def test_an_http_date_is_measured_once_per_distinct_text(monkeypatch):
    """A ``Retry-After`` date is measured when its text is first seen, not at each repeat."""
    from email.utils import parsedate_to_datetime

    from llm_errors import _retry_after

    date = "Wed, 21 Oct 2026 07:28:00 GMT"
    ticks = iter(range(100))  # the clock moves a second each time it is read

    def clock():
        return parsedate_to_datetime(date).timestamp() - 30 + next(ticks)

    monkeypatch.setattr(_retry_after, "time", SimpleNamespace(time=clock))
    text = f"HTTP 429 Too Many Requests; Retry-After: {date}"
    assert classify_many([text, text, text]).retry_after == (30.0, 30.0, 30.0)
    assert [classify(text).retry_after for _ in range(2)] == [29.0, 28.0]


def test_past_the_cache_limit_texts_are_classified_each_time(monkeypatch):
    """With room for two texts, a third distinct text is classified at every occurrence."""
    monkeypatch.setattr(batch, "CACHE_LIMIT", 2)
    counting = Counting()
    a, b, c = TEXTS[10], TEXTS[20], TEXTS[30]
    columns = classify_many([a, b, c, c, a, b, c], classifier=counting)
    assert counting.seen == [a, b, c, c, c]
    assert rows_of(columns) == [classify(t) for t in [a, b, c, c, a, b, c]]


def test_long_texts_are_not_kept(monkeypatch):
    """A text over the kept length is classified at each occurrence; shorter ones are kept."""
    monkeypatch.setattr(batch, "CACHED_TEXT_LIMIT", 12)
    counting = Counting()
    short, long = "terminated", "Premature close"
    classify_many([short, long, short, long], classifier=counting)
    assert counting.seen == [short, long, long]


def test_the_bounds_have_their_documented_values():
    """The figures classify_many's docstring states are the constants'."""
    assert batch.CACHE_LIMIT == 16_384
    assert batch.CACHED_TEXT_LIMIT == 2_048
    doc = classify_many.__doc__ or ""
    assert "16,384" in doc
    assert "2,048" in doc


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        pytest.param(["terminated", 42], "texts[1] must be a str, got int", id="int"),
        pytest.param([None], "texts[0] must be a str, got NoneType", id="null"),
        pytest.param(["a", "b", b"sk-secret"], "texts[2] must be a str, got bytes", id="bytes"),
        pytest.param([["sk-secret"]], "texts[0] must be a str, got list", id="unhashable"),
        pytest.param("sk-secret", "texts must be an iterable of str, not a single str", id="str"),
    ],
)
def test_a_text_that_is_not_a_str_is_named_by_index_and_type(texts, message):
    """A ``TypeError`` names the item's index and type, never its value."""
    with pytest.raises(TypeError) as caught:
        classify_many(texts)
    assert str(caught.value) == message
    assert "secret" not in str(caught.value)


def test_as_dict_holds_plain_values():
    """Codes and layers are plain ``str`` values, so a data frame needs none of our types."""
    columns = classify_many(["HTTP 429 Too Many Requests; Retry-After: 20", "hello"])
    plain = columns.as_dict()
    assert plain == {
        "code": ["RATE_LIMIT", "PROVIDER_ERROR"],
        "retryable": [True, False],
        "retry_after": [20.0, None],
        "status": [429, None],
        "rule": [columns.rule[0], "fallback"],
        "layer": ["text", "fallback"],
        "resets_at": [None, None],
    }
    assert {type(value) for value in plain["code"] + plain["layer"]} == {str}
    assert columns.code == (ErrorCode.RATE_LIMIT, ErrorCode.PROVIDER_ERROR)
    assert columns.layer == (Layer.TEXT, Layer.FALLBACK)


def test_columns_of_different_lengths_are_refused():
    """A hand-built result whose columns disagree in length is a ``ValueError``."""
    with pytest.raises(ValueError, match="columns of different lengths"):
        ClassificationColumns(
            code=(ErrorCode.SERVER,),
            retryable=(),
            retry_after=(None,),
            status=(None,),
            rule=("fallback",),
            layer=(Layer.FALLBACK,),
            resets_at=(None,),
        )


def test_the_repr_names_the_row_count_not_the_rows():
    """A large result echoed in a REPL shows its size, not a million rows."""
    columns = classify_many(TEXTS[:3] * 1000)
    assert repr(columns) == "ClassificationColumns(rows=3000)"
