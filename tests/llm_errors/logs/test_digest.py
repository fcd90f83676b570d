"""A report's figures: the classify tally plus examples, names, files and problems."""

from llm_errors import ErrorCode
from llm_errors._classification import Classification, Layer
from llm_errors.logs._digest import (
    EXCERPTS_PER_ROW,
    FILES_LISTED,
    NAMED_LIMIT,
    PROBLEMS_LISTED,
    Digest,
    Excerpt,
)
from llm_errors.logs._scan import Finding, Problem, ProblemKind
from llm_errors.logs._tally import CappedCounter, Tally

RATE_LIMIT = Classification(ErrorCode.RATE_LIMIT, retryable=True, rule="http.429", layer=Layer.TEXT)
UNMATCHED = Classification(ErrorCode.PROVIDER_ERROR, retryable=False)


def finding(line, verdict=RATE_LIMIT, text="HTTP/1.1 429 Too Many Requests"):
    return Finding(line, line, "line", verdict, text)


def test_examples_per_row_are_the_first_ones():
    """Each row keeps its first examples only, with where they were found."""
    digest = Digest()
    for line in range(1, 6):
        digest.add("app.log", finding(line), when=1741943521.0 + line, provider="openai")
    assert digest.tally.by_code[ErrorCode.RATE_LIMIT] == 5
    assert [x.line for x in digest.code_excerpts[ErrorCode.RATE_LIMIT]] == [1, 2]
    assert len(digest.rule_excerpts["http.429", ErrorCode.RATE_LIMIT]) == EXCERPTS_PER_ROW
    row = digest.named["openai", None]
    assert (row.count, row.retryable, row.codes[ErrorCode.RATE_LIMIT]) == (5, 5, 5)
    assert digest.timeline.timed == 5
    assert digest.unnamed == 0


def test_excerpt_where():
    """A one-line excerpt names its line, a traceback its range."""
    assert Excerpt("app.log", 3, 3, "m").where == "app.log:3"
    assert Excerpt("app.log", 3, 9, "m").where == "app.log:3-9"


def test_examples_are_redacted_excerpts():
    """An example is the finding's redacted message, never its raw text."""
    digest = Digest()
    digest.add("app.log", finding(1, text="429 Too Many Requests api_key=sk-abcdefghijklmnop1234"))
    (excerpt,) = digest.code_excerpts[ErrorCode.RATE_LIMIT]
    assert "sk-abcdefghijklmnop1234" not in excerpt.message


def test_named_pairs_bounded():
    """Past NAMED_LIMIT distinct pairs, the rest are counted together as other."""
    digest = Digest()
    for index in range(NAMED_LIMIT + 3):
        digest.add("app.log", finding(index + 1), provider="p", model=f"m-{index}")
    assert len(digest.named) == NAMED_LIMIT + 1
    assert digest.named["other", "other"].count == 3
    digest.add("app.log", finding(999))
    assert digest.unnamed == 1  # naming neither is still told apart once full


def test_unmatched_examples_follow_the_counter():
    """Examples of unmatched messages stay bounded with the capped counter."""
    digest = Digest(tally=Tally(unmatched_messages=CappedCounter(cap=2)))
    for index in range(12):
        digest.add("app.log", finding(index + 1, UNMATCHED, f"ERROR job failed: {'x' * index}"))
    assert len(digest.unmatched_excerpts) <= 2 * 2 + 1
    tracked = {message for message, _ in digest.tally.unmatched_messages.most_common(10)}
    assert set(digest.unmatched_excerpts) <= tracked | {"ERROR job failed: " + "x" * 11}
    digest2 = Digest()
    for line in (1, 2, 3):
        digest2.add("app.log", finding(line, UNMATCHED, f"ERROR job {line}000 failed"))
    assert [x.line for x in digest2.unmatched_excerpts["ERROR job <n> failed"]] == [1, 2]


def test_problems_keep_their_first_reasons():
    """Every problem is counted; the first few of each kind keep where and why."""
    digest = Digest()
    for line in range(1, PROBLEMS_LISTED + 4):
        digest.add_problem("app.log", Problem(ProblemKind.BINARY, line, "binary data"))
    digest.add_problem("gone.log", Problem(ProblemKind.UNREADABLE, None, "No such file"))
    assert digest.tally.problems[ProblemKind.BINARY] == PROBLEMS_LISTED + 3
    assert digest.problem_details[ProblemKind.BINARY][0] == "app.log:1: binary data"
    assert len(digest.problem_details[ProblemKind.BINARY]) == PROBLEMS_LISTED
    assert digest.problem_details[ProblemKind.UNREADABLE] == ["gone.log: No such file"]
    assert digest.tally.unreadable == ["gone.log: No such file"]


def test_files_listed_bounded():
    """Past FILES_LISTED inputs, stats are still counted but not kept one by one."""
    digest = Digest()
    for index in range(FILES_LISTED + 2):
        stats = digest.open_file(f"{index}.log")
        stats.lines = 1
    assert len(digest.files) == FILES_LISTED
