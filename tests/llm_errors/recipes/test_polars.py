"""The Polars recipe of docs/classifier.md, run on frames of the corpus's real messages."""

from collections import Counter

import polars as pl
import pytest

from llm_errors import classify_many

FIELDS = ["code", "retryable", "retry_after", "status", "rule", "layer", "resets_at"]


@pytest.fixture(scope="module")
def polars_recipe(recipe):
    """The recipe's names: ``VERDICT``, ``verdicts`` and ``with_verdicts``."""
    return recipe("polars")


@pytest.fixture(scope="module")
def messages(corpus):
    """Every corpus string three times over, interleaved, so that rows repeat."""
    return [text for _ in range(3) for text in corpus.values()]


@pytest.fixture(scope="module")
def frame(messages):
    """A lazy frame of the messages with a row number of their own."""
    return pl.LazyFrame({"row": range(len(messages)), "message": messages})


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_the_columns_are_classify_many_of_the_column(polars_recipe, frame, messages, engine):
    """Each row gets its message's verdict, rows and their other columns kept in order."""
    found = polars_recipe.with_verdicts(frame).collect(engine=engine)
    assert found.columns == ["row", "message", *FIELDS]
    assert found["row"].to_list() == list(range(len(messages)))
    assert found.select(FIELDS).to_dict(as_series=False) == classify_many(messages).as_dict()


def test_the_verdict_columns_have_the_documented_types(polars_recipe, frame):
    """Codes are strings, waits floats, statuses integers, whatever the batch held."""
    schema = polars_recipe.with_verdicts(frame).collect_schema()
    verdict = {name: schema[name] for name in FIELDS}
    assert verdict == dict(polars_recipe.VERDICT.to_schema())
    assert verdict["retry_after"] == pl.Float64
    empty = pl.LazyFrame({"message": []}, schema={"message": pl.String})
    assert polars_recipe.with_verdicts(empty).collect().schema == {"message": pl.String, **verdict}


def test_counts_per_code_are_those_of_classify_many(polars_recipe, frame, messages):
    """The group-by a user runs next counts what classify_many counts."""
    counted = polars_recipe.with_verdicts(frame).group_by("code").len().collect()
    assert dict(counted.iter_rows()) == Counter(classify_many(messages).as_dict()["code"])
    assert len(counted) >= 10  # the corpus spans (nearly) every code


def test_a_null_message_stops_the_query(polars_recipe):
    """A null is not a message: the query fails on it until the nulls are dropped."""
    frame = pl.LazyFrame({"message": ["terminated", None]})
    with pytest.raises(TypeError, match=r"texts\[\d+\] must be a str, got NoneType"):
        polars_recipe.with_verdicts(frame).collect()
    kept = polars_recipe.with_verdicts(frame.drop_nulls("message")).collect()
    assert kept["code"].to_list() == ["TRANSPORT"]
