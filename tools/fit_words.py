"""Fit the words layer's weights from the corpus and write ``src/llm_errors/_words/weights.json``.

    pip install -e '.[dev]'            # scikit-learn is in the dev group, never a runtime need
    python tools/fit_words.py          # refit and write the weights (a test says when stale)
    python tools/fit_words.py --cv     # also print the leave-family-out figures per threshold

The strings are the corpus (``tests/llm_errors/corpus/*.jsonl``) and the message
catalogues mined from the code that emits them (``corpus/catalogues/*.jsonl``); the
sealed sets are never read. A feature is kept only when strings of :data:`MIN_FAMILIES`
different families (a repository, or a web site: ``family()``) hold it, so the layer
learns vocabulary, not one thread's wording. The model is scikit-learn's regularised
logistic regression on the presence of each feature; its coefficients are written as
data, rounded, with the smallest dropped. The thresholds (the share a code needs to
decide) are read from leave-family-out verdicts (:data:`FOLDS` folds, a family never
split) on the strings the rules leave to the fallback: for a retryable code the lowest
that keeps false retries at or under :data:`FALSE_RETRY_CAP` of them, precision first
(seed 003); for a permanent code the one that gets the most right
(``choose_thresholds``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from llm_errors import DEFAULT_RETRYABLE_CODES, Classifier, ErrorCode, Layer
from llm_errors._words import features as features_module
from llm_errors._words.features import features
from llm_errors._words.model import WordsModel

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "llm_errors" / "corpus"
OUTPUT = ROOT / "src" / "llm_errors" / "_words" / "weights.json"
#: A feature must occur in strings of this many families.
MIN_FAMILIES = 3
#: The inverse regularisation strength of the logistic regression.
C = 4.0
#: Weights smaller than this (in absolute value) are left out of the file, and so is a
#: feature none of whose weights reaches ``FEATURE_BELOW``: loading the file is what the
#: first text the rules leave costs a process.
DROP_BELOW = 0.02
FEATURE_BELOW = 0.1
#: Leave-family-out folds for the threshold.
FOLDS = 10
#: The largest share of decided strings allowed to be false retries.
FALSE_RETRY_CAP = 0.005
#: The shares tried; none below a half: a code decides only when it outweighs all others.
THRESHOLDS = tuple(round(0.50 + 0.05 * step, 2) for step in range(10))


@dataclass(frozen=True, slots=True)
class Example:
    """One corpus string: its text, label and family."""

    text: str
    code: ErrorCode
    family: str


def family(source: str) -> str:
    """The repository of a thread or file, or the site of a web page."""
    if source.startswith("https://"):
        return urlsplit(source).netloc.lower()
    return source.split("#", 1)[0].split(":", 1)[0].lower()


def corpus_files() -> list[Path]:
    """The files the weights are fitted on: the corpus and the message catalogues.

    Never the sealed sets.
    """
    return sorted(CORPUS.glob("*.jsonl")) + sorted((CORPUS / "catalogues").glob("*.jsonl"))


def load() -> list[Example]:
    """Every corpus string."""
    examples = []
    for path in corpus_files():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                examples.append(Example(raw["text"], ErrorCode(raw["code"]), family(raw["source"])))
    return examples


def digest() -> str:
    """What the weights are fitted from: the corpus, the feature reader and this script."""
    sha = hashlib.sha256()
    for path in (*corpus_files(), Path(features_module.__file__), Path(__file__)):
        sha.update(path.name.encode())
        sha.update(path.read_bytes())
    return sha.hexdigest()


def fit(
    examples: Sequence[Example], retryable: float = 1.0, permanent: float = 1.0
) -> dict[str, object]:
    """The weights file's content for ``examples``, with the shares each code needs to decide."""
    # Dev-only libraries, imported here so that ``digest`` (the staleness test) needs none.
    from scipy.sparse import csr_matrix  # noqa: PLC0415
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415

    rows = [set(features(example.text)) for example in examples]
    families: dict[str, set[str]] = defaultdict(set)
    for row, example in zip(rows, examples, strict=True):
        for feature in row:
            families[feature].add(example.family)
    vocabulary = sorted(f for f, seen in families.items() if len(seen) >= MIN_FAMILIES)
    column = {feature: i for i, feature in enumerate(vocabulary)}
    data, indices, pointers = [], [], [0]
    for row in rows:
        kept = sorted(column[f] for f in row if f in column)
        indices += kept
        data += [1.0] * len(kept)
        pointers.append(len(indices))
    matrix = csr_matrix((data, indices, pointers), shape=(len(rows), len(vocabulary)))
    labels = [example.code.value for example in examples]
    model = LogisticRegression(C=C, max_iter=5000)
    model.fit(matrix, labels)
    codes = [str(code) for code in model.classes_]
    weights: dict[str, list[float]] = {}
    for feature, i in column.items():
        row = [
            round(float(weight), 3) if abs(weight) >= DROP_BELOW else 0
            for weight in model.coef_[:, i]
        ]
        if max(abs(weight) for weight in row) >= FEATURE_BELOW:
            weights[feature] = row
    return {
        "format": 1,
        "digest": "",
        "codes": codes,
        "bias": [round(float(b), 3) for b in model.intercept_],
        "thresholds": {
            code: retryable if ErrorCode(code) in DEFAULT_RETRYABLE_CODES else permanent
            for code in codes
        },
        "weights": weights,
    }


def folds(
    examples: Sequence[Example], retryable: float, permanent: float
) -> Iterator[tuple[WordsModel, list[int]]]:
    """Leave-family-out: each fold's held-out indices, with a model fitted on the others.

    :data:`FOLDS` folds, a family never on both sides; the models decide at the given
    shares. ``bench/accuracy.py`` cross-validates with these folds too.
    """
    from sklearn.model_selection import GroupKFold  # noqa: PLC0415 - as in ``fit``

    groups = [example.family for example in examples]
    for train, test in GroupKFold(n_splits=FOLDS).split(examples, groups=groups):
        model = WordsModel(fit([examples[i] for i in train], retryable, permanent))
        yield model, [int(i) for i in test]


def held_out_verdicts(examples: Sequence[Example]) -> list[tuple[Example, ErrorCode, float]]:
    """Each string's top code and share from a model fitted without its family.

    Only the strings the rules leave to the fallback: the words layer reads no other.
    """
    rules = Classifier(words=False)
    out: list[tuple[Example, ErrorCode, float]] = []
    for model, test in folds(examples, 1e-9, 1e-9):
        for i in test:
            example = examples[i]
            if rules.classify(example.text).layer is not Layer.FALLBACK:
                continue
            verdict = model.decide(example.text)
            if verdict is None:
                out.append((example, ErrorCode.PROVIDER_ERROR, 0.0))
            else:
                out.append((example, verdict.code, verdict.share))
    return out


def false_retry(label: ErrorCode, predicted: ErrorCode) -> bool:
    """A permanent failure classified retryable."""
    return predicted in DEFAULT_RETRYABLE_CODES and label not in DEFAULT_RETRYABLE_CODES


def _final(
    verdicts: Sequence[tuple[Example, ErrorCode, float]], retryable: float, permanent: float
) -> list[tuple[Example, ErrorCode]]:
    """The verdicts with the thresholds applied: below its threshold, the fallback's code."""
    return [
        (
            e,
            code
            if share >= (retryable if code in DEFAULT_RETRYABLE_CODES else permanent)
            else ErrorCode.PROVIDER_ERROR,
        )
        for e, code, share in verdicts
    ]


def choose_thresholds(
    verdicts: Iterable[tuple[Example, ErrorCode, float]], *, show: bool = False
) -> tuple[float, float]:
    """The shares a retryable and a permanent code need to decide.

    ``verdicts`` are the held-out verdicts on the strings the rules left to the
    fallback. A retryable code needs the lowest share that keeps false retries at or
    under the cap (a permanent failure retried is the costly mistake); a permanent code
    the share that gets the most codes right (at worst it misses a retry the fallback
    missed too).
    """
    verdicts = list(verdicts)
    total = max(len(verdicts), 1)
    retryable = THRESHOLDS[-1]
    for threshold in reversed(THRESHOLDS):
        final = _final(verdicts, threshold, 1.0)
        if sum(false_retry(e.code, code) for e, code in final) / total <= FALSE_RETRY_CAP:
            retryable = threshold
    permanent = max(
        reversed(THRESHOLDS),
        key=lambda t: sum(code is e.code for e, code in _final(verdicts, retryable, t)),
    )
    if show:
        for threshold in THRESHOLDS:
            final = _final(verdicts, retryable, threshold)
            exact = sum(code is e.code for e, code in final)
            retry = sum(
                (code in DEFAULT_RETRYABLE_CODES) == (e.code in DEFAULT_RETRYABLE_CODES)
                for e, code in final
            )
            false = sum(false_retry(e.code, code) for e, code in final)
            print(
                f"retryable {retryable:.2f}, permanent {threshold:.2f}: of {total} the rules "
                f"left, exact {exact / total:6.1%}, retry {retry / total:6.1%}, "
                f"false retries {false}"
            )
    return retryable, permanent


def render(weights: dict[str, object]) -> str:
    """The weights file's text: JSON, a line per feature (a refit's diff reads by feature)."""
    rows = weights["weights"]
    assert isinstance(rows, dict)  # noqa: S101 - written by ``fit``
    head = json.dumps({k: v for k, v in weights.items() if k != "weights"}, sort_keys=True)
    body = ",\n".join(
        f"{json.dumps(feature, ensure_ascii=False)}: {json.dumps(rows[feature])}"
        for feature in sorted(rows)
    )
    return f'{head[:-1]}, "weights": {{\n{body}\n}}}}\n'


def main(argv: Sequence[str] | None = None) -> int:
    """Refit and write the weights, or (``--check``) say whether they are stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", action="store_true", help="print the figures per threshold")
    parser.add_argument("--check", action="store_true", help="exit 1 when the file is stale")
    args = parser.parse_args(argv)
    if args.check:
        stored = json.loads(OUTPUT.read_text(encoding="utf-8")).get("digest")
        return 0 if stored == digest() else 1
    examples = load()
    retryable, permanent = choose_thresholds(held_out_verdicts(examples), show=args.cv)
    weights = fit(examples, retryable, permanent)
    weights["digest"] = digest()
    OUTPUT.write_text(render(weights), encoding="utf-8")
    print(
        f"{OUTPUT.relative_to(ROOT)}: {len(weights['weights'])} features, "  # type: ignore[arg-type]
        f"thresholds {retryable} (retryable codes), {permanent} (permanent codes)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
