"""The fitted weights of the words layer, and the decision they make (pure lookups).

A linear model: each code scores its bias plus the weight of every distinct feature
of the text (:func:`~llm_errors._words.features.features`); the scores become shares
(a softmax), and the layer decides only when the winning code's share reaches that
code's threshold, chosen for precision when the weights were fitted (a retryable code
needs more). Below it, the text stays with the non-retryable fallback (the
catch-all is never retried, docs/errors.md).

The weights are data (``weights.json`` beside this module), written by
``python tools/fit_words.py`` from the corpus and never fitted at runtime.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Final

from llm_errors._taxonomy import ErrorCode
from llm_errors._words.features import features

__all__ = ["FILE", "WORDS_SHOWN", "WordsModel", "WordsVerdict", "shipped"]

#: The data file's name, beside this module.
FILE: Final = "weights.json"
#: Deciding words an explanation lists, strongest first.
WORDS_SHOWN: Final = 6


@dataclass(frozen=True, slots=True)
class WordsVerdict:
    """What the words said: the code, its share, and the words that weighed most for it."""

    code: ErrorCode
    share: float
    words: tuple[tuple[str, float], ...]


class WordsModel:
    """Weights per feature and code, a bias per code and the share each code needs to decide.

    Args:
        data: The parsed weights file: ``codes``, ``bias`` (one per code),
            ``thresholds`` (code -> share) and ``weights`` (feature -> one weight per
            code, in the order of ``codes``).

    Raises:
        TypeError: A part of the data is not of its type (names which).
        ValueError: The parts do not fit together (names how).
    """

    def __init__(self, data: Mapping[str, object]) -> None:
        codes, bias, thresholds, weights = (
            data.get("codes"),
            data.get("bias"),
            data.get("thresholds"),
            data.get("weights"),
        )
        if not (
            isinstance(codes, list)
            and isinstance(bias, list)
            and isinstance(thresholds, Mapping)
            and isinstance(weights, Mapping)
        ):
            raise TypeError(
                "words weights: 'codes' and 'bias' must be lists, 'thresholds' and 'weights' "
                "mappings"
            )
        if len(bias) != len(codes) or set(thresholds) != set(codes):
            raise ValueError("words weights: every code needs one bias and one threshold")
        self.codes: tuple[ErrorCode, ...] = tuple(ErrorCode(code) for code in codes)
        self.bias: tuple[float, ...] = tuple(float(value) for value in bias)
        self.thresholds: tuple[float, ...] = tuple(float(thresholds[code]) for code in codes)
        if not all(0.0 < share <= 1.0 for share in self.thresholds):
            raise ValueError("words weights: every threshold must be a share in (0, 1]")
        # One weight per code (a dense row), so a text's scores are summed column-wise in C.
        self.weights: dict[str, tuple[float, ...]] = {
            feature: tuple(row) for feature, row in weights.items()
        }
        if any(len(row) != len(self.codes) for row in self.weights.values()):
            raise ValueError("words weights: every feature needs one weight per code")

    def scores(self, text: str) -> tuple[list[float], list[str]]:
        """Each code's score for ``text``, and the distinct features that have weights."""
        weights = self.weights
        known = [feature for feature in dict.fromkeys(features(text)) if feature in weights]
        rows = [weights[feature] for feature in known]
        return [sum(column) for column in zip(self.bias, *rows, strict=True)], known

    def decide(self, text: str) -> WordsVerdict | None:
        """The code the words of ``text`` point to, or ``None`` below its threshold."""
        scores, known = self.scores(text)
        if not known:
            return None
        top = max(range(len(scores)), key=scores.__getitem__)
        peak = scores[top]
        share = 1.0 / sum(math.exp(score - peak) for score in scores)
        if share < self.thresholds[top]:
            return None
        for_top = [(feature, self.weights[feature][top]) for feature in known]
        weighed = sorted((pair for pair in for_top if pair[1] > 0), key=lambda pair: -pair[1])
        return WordsVerdict(self.codes[top], share, tuple(weighed[:WORDS_SHOWN]))


def shipped() -> WordsModel:
    """The model of the weights file that ships with the package."""
    text = files(__package__).joinpath(FILE).read_text(encoding="utf-8")
    return WordsModel(json.loads(text))
