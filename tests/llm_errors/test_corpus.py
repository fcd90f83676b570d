"""The sourced corpus of real error strings: well-formed, and classified as labelled.

The figures and the held-out fifth are in ``bench/accuracy.py``; this test loads that
script's corpus reader so both read the corpus the same way.
"""

import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from llm_errors import ErrorCode

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "llm_errors" / "corpus"
FIELDS = {"id", "text", "code", "source", "provider", "why", "trimmed"}
# A thread (`owner/repo#N`), a file (`owner/repo:path`) or a web page.
SOURCE = re.compile(r"[\w.-]+/[\w.-]+(?:#\d+|:\S+)|https://\S+")
TEXT_LIMIT = 2000

#: The floor: the share of the corpus classified to its label's exact code, and the share
#: whose retryability agrees. A change that lowers either fails. Both meet their targets
#: (97 % and 99 %) on the whole corpus, the fresh files included (docs/classifier.md).
EXACT_FLOOR = 0.985
RETRY_FLOOR = 0.995
#: The files of strings collected after the rules were written (measured at 82.9 % exact
#: before any rule was written from them), and their own exact floor.
FRESH_FILES = ("fresh_a.jsonl", "fresh_b.jsonl")
FRESH_EXACT_FLOOR = 0.95
#: The sealed sets (tests/llm_errors/corpus/sealed), each collected after the rules were
#: written from sources neither the corpus, the catalogues nor another sealed set used, and
#: never used to write a rule or fit a weight: their floors (exact, retryable agreement,
#: false retries at most) are what the classifier reaches on them, so a change that makes
#: it generalise worse fails. Scored before anything was learned from them (rules only):
#: sealed_2026_12, 210 strings, 88.6 % and 94.3 %; sealed_2026_12b, 321 strings, 85.0 %,
#: 93.8 % and 2 false retries; sealed_2026_12c (collected after the words layer was
#: fitted), 318 strings, 78.6 % exact with the rules alone, 89.0 % with the words layer.
#: The second round of catalogues (907 strings) left sealed_2026_12b at 92.8 % but made
#: the words layer decide six more of its strings, one a false retry: its floor allows 3.
#: sealed_2026_12d (collected after the second round: 306 strings from 263 sources, most
#: of them apps' own error texts and notebook or commit outputs, the collectors' search
#: budget spent): 62.7 % exact with the rules alone, 78.1 % with the words layer (55
#: decided, 49 right, no false retry). sealed_2026_12e (collected from 309 new sources:
#: agent tools, Python frameworks, servers and relays, other runtimes), scored first:
#: 80.6 % exact and 93.0 % retryable agreement with the rules alone, 89.2 % and 95.9 %
#: with the words layer, 2 false retries (both the rules'). sealed_2026_12f (278 strings
#: from 268 new sources: chat apps and agent runtimes, Python libraries and evaluation
#: tools, model servers and relays, clients in Ruby, PHP, R, Julia, Swift, Dart, Kotlin,
#: C# and Go), scored first: 86.3 % and 93.2 % with the rules alone, 90.6 % and 96.4 %
#: with the words layer, 2 false retries.
SEALED_FLOORS = {
    "sealed_2026_12": (0.95, 0.98, 0),
    "sealed_2026_12b": (0.92, 0.96, 3),
    "sealed_2026_12c": (0.88, 0.93, 5),
    "sealed_2026_12d": (0.78, 0.86, 2),
    "sealed_2026_12e": (0.89, 0.95, 2),
    "sealed_2026_12f": (0.90, 0.96, 2),
}


def _accuracy():
    spec = importlib.util.spec_from_file_location("bench_accuracy", ROOT / "bench" / "accuracy.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ACCURACY = _accuracy()
RECORDS = [
    (path.name, number, json.loads(line))
    for path in sorted(CORPUS.glob("*.jsonl"))
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
    if line.strip()
]


#: The message catalogues mined from the code that emits the messages (OS, HTTP clients,
#: gateways, providers, agent tools; tests/llm_errors/corpus/catalogues): strings the words
#: layer is fitted on beside the corpus, never used to write a rule.
CATALOGUES = CORPUS / "catalogues"
CATALOGUE_RECORDS = [
    (path.name, number, json.loads(line))
    for path in sorted(CATALOGUES.glob("*.jsonl"))
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
    if line.strip()
]
#: Their floors (exact, retryable agreement): what the rules and the words layer fitted on
#: them reach (a training figure: docs/classifier.md, "The words layer").
CATALOGUE_FLOORS = (0.87, 0.90)


def test_corpus_is_large_and_varied():
    """At least 1,500 strings from at least 30 distinct sources."""
    assert len(RECORDS) >= 1500
    assert len({record["source"] for _, _, record in RECORDS}) >= 30


#: The sealed sets' records (their trimmed texts were cut by collectors who did not mark
#: the cut with "…": they are held to every other rule of a record).
SEALED_RECORDS = [
    (path.name, number, json.loads(line))
    for path in sorted((CORPUS / "sealed").glob("*.jsonl"))
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
    if line.strip()
]


def _record_problems(record, *, marked=True):
    """What is wrong with one record, in words (nothing when it is well formed)."""
    if set(record) != FIELDS:
        missing, extra = sorted(FIELDS - set(record)), sorted(set(record) - FIELDS)
        return [f"fields: missing {missing}, unexpected {extra}"]
    problems = []
    if record["code"] not in {code.value for code in ErrorCode}:
        problems.append(f"unknown code {record['code']!r}")
    if not SOURCE.fullmatch(record["source"]):
        problems.append(f"source not a thread, file or web page: {record['source']!r}")
    if not 0 < len(record["text"]) <= TEXT_LIMIT:
        problems.append(f"text length {len(record['text'])} not in 1..{TEXT_LIMIT}")
    if marked and record["trimmed"] and "…" not in record["text"]:
        problems.append("trimmed but the text has no '…'")
    return problems


# One test over every record rather than one per record (2,095 items): the per-item cost
# of pytest was most of this check's time; the message lists every bad record.
def test_every_record_is_well_formed():
    """Every record has its fields, a known code, a public source and a bounded text."""
    bad = [
        f"{name}:{number} {record.get('id')!r} ({'; '.join(problems)}): "
        f"{str(record.get('text'))[:80]!r}"
        for name, number, record in RECORDS + CATALOGUE_RECORDS
        if (problems := _record_problems(record))
    ]
    bad += [
        f"sealed/{name}:{number} {record.get('id')!r} ({'; '.join(problems)})"
        for name, number, record in SEALED_RECORDS
        if (problems := _record_problems(record, marked=False))
    ]
    assert bad == [], f"{len(bad)} malformed records:\n" + "\n".join(bad)


def test_ids_and_texts_are_unique():
    """No id or text appears twice across the corpus, the catalogues and the sealed sets."""
    every = RECORDS + CATALOGUE_RECORDS + SEALED_RECORDS
    ids = Counter(record["id"] for _, _, record in every)
    texts = Counter(record["text"] for _, _, record in every)
    assert [i for i, n in ids.items() if n > 1] == []
    assert [t[:80] for t, n in texts.items() if n > 1] == []


def test_corpus_is_classified_at_least_as_well_as_the_floor():
    """Exact and retryable agreement over the whole corpus stay at or above the floor."""
    verdicts = ACCURACY.judge(ACCURACY.load(CORPUS))
    exact = ACCURACY.share(verdicts, "exact")
    retry = ACCURACY.share(verdicts, "retry_agrees")
    wrong = [v.entry.id for v in verdicts if not v.retry_agrees]
    assert exact >= EXACT_FLOOR, f"exact {exact:.2%} below {EXACT_FLOOR:.1%}"
    assert retry >= RETRY_FLOOR, f"retry {retry:.2%} below {RETRY_FLOOR:.1%}; {wrong[:40]}"


def test_catalogues_are_classified_at_least_as_well_as_their_floor():
    """The mined catalogues keep their floor: most of it is the words layer's work."""
    verdicts = ACCURACY.judge(ACCURACY.load(CATALOGUES))
    assert len(verdicts) > 1000
    exact = ACCURACY.share(verdicts, "exact")
    retry = ACCURACY.share(verdicts, "retry_agrees")
    assert exact >= CATALOGUE_FLOORS[0], f"exact {exact:.1%}"
    assert retry >= CATALOGUE_FLOORS[1], f"retryable {retry:.1%}"


def test_fresh_files_are_classified_at_least_as_well_as_their_floor():
    """The strings collected after the rules keep their own exact floor, misses listed."""
    ids = {record["id"] for name, _, record in RECORDS if name in FRESH_FILES}
    verdicts = [v for v in ACCURACY.judge(ACCURACY.load(CORPUS)) if v.entry.id in ids]
    assert len(verdicts) == len(ids) > 300
    exact = ACCURACY.share(verdicts, "exact")
    wrong = [v.entry.id for v in verdicts if not v.exact]
    assert exact >= FRESH_EXACT_FLOOR, f"exact {exact:.1%} below {FRESH_EXACT_FLOOR:.0%}; {wrong}"


@pytest.mark.parametrize("name", sorted(SEALED_FLOORS))
def test_sealed_set_keeps_its_floor(name):
    """Strings no rule was written from keep their floor; no other set shares a source."""
    path = ACCURACY.SEALED / f"{name}.jsonl"
    sealed = ACCURACY.load(path)
    assert len(sealed) >= 200
    others = (
        ACCURACY.load(CORPUS)
        + ACCURACY.load(CATALOGUES)
        + [
            entry
            for other in ACCURACY.sealed_sets()
            if other != path
            for entry in ACCURACY.load(other)
        ]
    )
    assert not {e.source for e in sealed} & {e.source for e in others}
    verdicts = ACCURACY.judge(sealed)
    exact_floor, retry_floor, false_retries = SEALED_FLOORS[name]
    exact = ACCURACY.share(verdicts, "exact")
    retry = ACCURACY.share(verdicts, "retry_agrees")
    assert exact >= exact_floor, f"{name} exact {exact:.1%}"
    assert retry >= retry_floor, f"{name} retryable {retry:.1%}"
    assert sum(v.false_retry for v in verdicts) <= false_retries


def test_every_sealed_set_has_a_floor():
    assert sorted(path.stem for path in ACCURACY.sealed_sets()) == sorted(SEALED_FLOORS)


@pytest.mark.parametrize("path", sorted(ACCURACY.AGREEMENT.glob("*.jsonl")), ids=lambda p: p.stem)
def test_second_labelling_covers_its_sealed_set(path):
    """A second labelling names a sealed set, labels each of its ids once, with a known code."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert all(set(row) == {"id", "code", "sure"} for row in rows)
    assert all(isinstance(row["sure"], bool) for row in rows)
    assert {row["code"] for row in rows} <= {code.value for code in ErrorCode}
    exact, retry, count = ACCURACY.agreement(path)
    assert count == len(ACCURACY.load(ACCURACY.SEALED / path.name))
    assert retry >= exact  # the same code is the same retry decision
    assert exact >= 0.95, f"{path.stem}: the two labellings agree on {exact:.1%} only"


def test_held_out_fifth_is_chosen_by_source():
    """Strings of one source are all on one side of the split."""
    entries = ACCURACY.load(CORPUS)
    sides: dict[str, set[bool]] = {}
    for entry in entries:
        sides.setdefault(entry.source, set()).add(ACCURACY.held_out(entry))
    assert all(len(side) == 1 for side in sides.values())
    share = sum(ACCURACY.held_out(e) for e in entries) / len(entries)
    assert 0.1 < share < 0.3
