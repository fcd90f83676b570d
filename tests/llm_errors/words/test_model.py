"""The words layer's weights: their decision, their file, and their place in the classifier."""

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

from llm_errors import Classifier, ErrorCode, Layer, Rule, classify, explain
from llm_errors._classify import _words_text
from llm_errors._words.model import FILE, WORDS_SHOWN, WordsModel, shipped

ROOT = Path(__file__).resolve().parents[3]
WEIGHTS = ROOT / "src" / "llm_errors" / "_words" / FILE
# Quoted in issue 22 as a recoverable failure no rule knew (the seed-003 family).
SEED_LIKE = "stream closed before a finish_reason was received"


def _fit_words():
    spec = importlib.util.spec_from_file_location("fit_words", ROOT / "tools" / "fit_words.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _model(**changes):
    """A two-code model: 'reset' weighs for TRANSPORT, 'key' for AUTH."""
    data = {
        "codes": ["AUTH", "TRANSPORT"],
        "bias": [0.0, 0.0],
        "thresholds": {"AUTH": 0.6, "TRANSPORT": 0.9},
        "weights": {"reset": [0.0, 3.0], "key": [1.0, 0.0], "peer": [0.5, 0.0]},
    }
    data.update(changes)
    return WordsModel(data)


def test_the_weights_file_is_fitted_from_the_corpus_as_it_stands():
    """Stale weights fail: refit with ``python tools/fit_words.py`` after changing the corpus."""
    stored = json.loads(WEIGHTS.read_text(encoding="utf-8"))["digest"]
    assert stored == _fit_words().digest(), "stale: run python tools/fit_words.py"


def test_the_digest_covers_every_corpus_and_catalogue_file():
    """A changed catalogue or corpus file (not a sealed set) changes what the weights say."""
    fit_words = _fit_words()
    names = {path.relative_to(fit_words.CORPUS).as_posix() for path in fit_words.corpus_files()}
    assert "transport_timeout.jsonl" in names
    assert "catalogues/node.jsonl" in names
    assert not [name for name in names if name.startswith("sealed")]


def test_a_code_decides_only_above_its_threshold():
    """TRANSPORT needs a share of 0.9: one 'reset' gives 0.95, so it decides."""
    model = _model()
    verdict = model.decide("connection reset")
    assert verdict is not None
    assert verdict.code is ErrorCode.TRANSPORT
    assert verdict.share == pytest.approx(1 / (1 + math.exp(-3.0)))
    assert verdict.words == (("reset", 3.0),)
    # 'key' and 'peer' give AUTH 1.5 against 0: a share of 0.82 clears AUTH's 0.6.
    assert model.decide("bad key peer").code is ErrorCode.AUTH  # type: ignore[union-attr]
    # 'reset' and 'key' and 'peer': TRANSPORT 3 against 1.5, a share of 0.82 < 0.9.
    assert model.decide("reset key peer") is None


def test_no_known_word_decides_nothing():
    """A text none of whose features has a weight is left to the fallback, whatever the bias."""
    model = _model(bias=[0.0, 9.0])
    assert model.decide("hello world") is None
    assert model.decide("") is None


def test_the_deciding_words_are_the_strongest_for_the_code():
    """At most ``WORDS_SHOWN`` words, only those that weighed for the code, strongest first."""
    weights = {f"w{i}": [0.0, float(i)] for i in range(1, 10)}
    weights["zz"] = [5.0, 0.0]
    model = _model(weights=weights)
    verdict = model.decide(" ".join([*weights, "zz"]))
    assert verdict is not None
    assert [word for word, _ in verdict.words] == [f"w{i}" for i in range(9, 9 - WORDS_SHOWN, -1)]


@pytest.mark.parametrize(
    ("changes", "error", "named"),
    [
        ({"codes": "AUTH"}, TypeError, "'codes'"),
        ({"weights": []}, TypeError, "'weights'"),
        ({"bias": [0.0]}, ValueError, "one bias"),
        ({"thresholds": {"AUTH": 0.5}}, ValueError, "one threshold"),
        ({"thresholds": {"AUTH": 0.0, "TRANSPORT": 0.9}}, ValueError, "(0, 1]"),
        ({"thresholds": {"AUTH": 0.5, "TRANSPORT": 1.5}}, ValueError, "(0, 1]"),
        ({"weights": {"reset": [3.0]}}, ValueError, "one weight per code"),
    ],
)
def test_malformed_weights_are_refused_by_name(changes, error, named):
    """A weights file of the wrong shape raises, naming the part that is wrong."""
    with pytest.raises(error, match=named.replace("(", r"\(").replace("]", r"\]")):
        _model(**changes)


def test_the_shipped_weights_hold_precision_first():
    """A retryable code needs a larger share than a permanent one, never less than a half."""
    model = shipped()
    shares = dict(zip(model.codes, model.thresholds, strict=True))
    assert set(shares) == set(ErrorCode)
    assert min(shares.values()) >= 0.5
    assert shares[ErrorCode.TRANSPORT] > shares[ErrorCode.AUTH]


def test_classify_reads_the_words_where_no_rule_decides():
    """The words layer's verdict: its layer, a rule id that says so, retryable as its code."""
    verdict = classify(SEED_LIKE)
    assert (verdict.code, verdict.layer, verdict.rule) == (
        ErrorCode.TRANSPORT,
        Layer.WORDS,
        "words.TRANSPORT",
    )
    assert verdict.retryable
    assert Classifier().by_rules(SEED_LIKE).layer is Layer.FALLBACK
    assert Classifier().by_words(SEED_LIKE) == verdict


def test_without_words_the_text_falls_back():
    """``words=False``: the rules alone; ``by_words`` then never decides."""
    classifier = Classifier(words=False)
    assert classifier.classify(SEED_LIKE).layer is Layer.FALLBACK
    assert classifier.by_words(SEED_LIKE).layer is Layer.FALLBACK
    assert explain(SEED_LIKE).words


def test_a_rule_outranks_the_words_users_rules_included():
    """A user's rule decides a text the words would have decided otherwise."""
    rule = Rule(
        id="mine.finish-reason",
        code=ErrorCode.SERVER,
        pattern=r"before a finish_reason",
        why="our gateway reports its own failure so",
    )
    verdict = Classifier(extra_rules=[rule]).classify(SEED_LIKE)
    assert (verdict.code, verdict.layer, verdict.rule) == (
        ErrorCode.SERVER,
        Layer.TEXT,
        "mine.finish-reason",
    )


def test_explain_lists_the_deciding_words():
    """``explain`` names the words layer and lists the words that decided, strongest first."""
    found = explain(SEED_LIKE)
    assert found.classification.layer is Layer.WORDS
    assert "words" in found.source  # type: ignore[operator]
    weights = [weight for _, weight in found.words]
    assert weights == sorted(weights, reverse=True)
    assert all(weight > 0 for weight in weights)
    said = set(SEED_LIKE.replace("_", " ").split()) | {"finish_reason"}
    assert {part for word, _ in found.words for part in word.split()} <= said
    assert explain("Service tier capacity exceeded").words == ()


class _StreamClosedError(Exception):
    """An exception type of no known library."""


def _raise_hiding() -> None:
    try:
        raise RuntimeError(SEED_LIKE)  # noqa: TRY301 - the failure handled below
    except RuntimeError:
        raise ValueError("x") from None


def _raise_during() -> None:
    try:
        raise RuntimeError(SEED_LIKE)  # noqa: TRY301 - the failure handled below
    except RuntimeError:
        raise ValueError("x")  # noqa: B904 - an implicit context, on purpose


def test_an_exception_is_read_by_its_explicit_chain_and_messages():
    """The message is read, and an explicit cause; a context, hidden or not, is not."""
    assert classify(RuntimeError(SEED_LIKE)).layer is Layer.WORDS
    outer = ValueError("x")
    outer.__cause__ = RuntimeError(SEED_LIKE)
    assert classify(outer).code is ErrorCode.TRANSPORT
    with pytest.raises(ValueError, match="x") as hidden:
        _raise_hiding()
    assert classify(hidden.value).layer is Layer.FALLBACK
    with pytest.raises(ValueError, match="x") as later:
        _raise_during()
    assert later.value.__context__ is not None
    assert classify(later.value).layer is Layer.FALLBACK  # an earlier, different failure


def test_what_the_words_read_of_an_exception():
    """A type of a library is read by its name; a built-in one (the rules know them) is not."""
    assert _words_text(ValueError("x")) == "x"
    assert _words_text(_StreamClosedError("y")) == f"{__name__}._StreamClosedError\ny"


def test_a_json_body_is_read_by_its_messages():
    """A body no status or type decides is read by its message."""
    body = json.dumps({"error": {"message": SEED_LIKE}})
    assert classify(body).layer is Layer.WORDS
    assert classify(json.loads(body)).layer is Layer.WORDS
    assert classify(SEED_LIKE.encode()).layer is Layer.WORDS


def test_the_words_never_raise():
    """An object whose ``__str__`` raises is no evidence, for the words layer too."""

    class HostileError(Exception):
        def __str__(self) -> str:
            raise RuntimeError

    assert classify(HostileError()).layer is Layer.FALLBACK
    assert Classifier().by_words(object()).layer is Layer.FALLBACK
