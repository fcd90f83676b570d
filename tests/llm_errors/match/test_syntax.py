"""The pattern parser: tree shapes, refusals with their offsets, bounds, and soundness."""

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from llm_errors import RULES
from llm_errors._match.matcher import FLAGS
from llm_errors._match.prefilter import LINE_START, derive_triggers, lowered, text_tokens, translate
from llm_errors._match.syntax import (
    COUNT_LIMIT,
    NESTING_LIMIT,
    Alternation,
    Anchor,
    AnchorKind,
    AnyChar,
    Category,
    CategoryKind,
    Char,
    CharClass,
    Flag,
    GroupKind,
    LookAround,
    PatternGroup,
    PatternRepeat,
    Range,
    RepeatMode,
    Sequence,
    UnsupportedSyntaxError,
    parse,
)


def chars(text):
    """The sequence of literal characters ``text``."""
    return Sequence(tuple(Char(c) for c in text))


NON_CAPTURING = GroupKind.NON_CAPTURING


@pytest.mark.parametrize(
    ("pattern", "tree"),
    [
        pytest.param("a", Char("a"), id="one-character"),
        pytest.param("ab", chars("ab"), id="characters"),
        pytest.param("", Sequence(()), id="empty"),
        pytest.param("a|b|", Alternation((Char("a"), Char("b"), Sequence(()))), id="alternation"),
        pytest.param(".", AnyChar(), id="dot"),
        pytest.param(
            r"^$\A\Z\b\B",
            Sequence(tuple(Anchor(kind) for kind in AnchorKind)),
            id="anchors",
        ),
        pytest.param(
            r"\d\D\w\W\s\S",
            Sequence(tuple(Category(kind) for kind in CategoryKind)),
            id="categories",
        ),
        pytest.param(
            r"\n\t\r\f\v\a\0\012\x41\u00e9\U0001F600",
            chars("\n\t\r\f\v\a\0\n\x41\u00e9\U0001f600"),
            id="character-escapes",
        ),
        pytest.param(r"\.\-\ \#\é", chars(".- #é"), id="escaped-punctuation"),
        pytest.param(
            r"[a\-c-e\d]",
            CharClass((Char("a"), Char("-"), Range("c", "e"), Category(CategoryKind.DIGIT))),
            id="class",
        ),
        pytest.param(r"[^\n]", CharClass((Char("\n"),), negated=True), id="negated-class"),
        pytest.param(
            "[]a-]", CharClass((Char("]"), Char("a"), Char("-"))), id="bracket-first-hyphen-last"
        ),
        pytest.param(
            r"[^]\b.[(]",
            CharClass((Char("]"), Char("\b"), Char("."), Char("["), Char("(")), negated=True),
            id="literals-in-a-class",
        ),
        pytest.param(
            r"[\s-]", CharClass((Category(CategoryKind.SPACE), Char("-"))), id="escape-then-hyphen"
        ),
        pytest.param("(a)", PatternGroup(Char("a")), id="capturing"),
        pytest.param("(?:a)", PatternGroup(Char("a"), NON_CAPTURING), id="non-capturing"),
        pytest.param("(?P<word>a)", PatternGroup(Char("a"), name="word"), id="named"),
        pytest.param("(?<word>a)", PatternGroup(Char("a"), name="word"), id="angle-named"),
        pytest.param("(?>a)", PatternGroup(Char("a"), GroupKind.ATOMIC), id="atomic"),
        pytest.param(
            "(?i:a)",
            PatternGroup(Char("a"), NON_CAPTURING, flags_on=frozenset({Flag.IGNORECASE})),
            id="flag-on",
        ),
        pytest.param(
            "(?s-im:a)",
            PatternGroup(
                Char("a"),
                NON_CAPTURING,
                flags_on=frozenset({Flag.DOTALL}),
                flags_off=frozenset({Flag.IGNORECASE, Flag.MULTILINE}),
            ),
            id="flags-on-and-off",
        ),
        pytest.param("(?=a)", LookAround(Char("a")), id="lookahead"),
        pytest.param("(?!a)", LookAround(Char("a"), negated=True), id="negative-lookahead"),
        pytest.param("(?<=a)", LookAround(Char("a"), behind=True), id="lookbehind"),
        pytest.param(
            "(?<!a)", LookAround(Char("a"), behind=True, negated=True), id="negative-lookbehind"
        ),
        pytest.param("a(?#no \\) here)b", chars("ab"), id="comment"),
        pytest.param(
            "a(?#c)*", PatternRepeat(Char("a"), 0, None), id="comment-before-a-quantifier"
        ),
        pytest.param("a*", PatternRepeat(Char("a"), 0, None), id="star"),
        pytest.param("a+", PatternRepeat(Char("a"), 1, None), id="plus"),
        pytest.param("a?", PatternRepeat(Char("a"), 0, 1), id="question-mark"),
        pytest.param("a{3}", PatternRepeat(Char("a"), 3, 3), id="exact"),
        pytest.param("a{3,}", PatternRepeat(Char("a"), 3, None), id="at-least"),
        pytest.param("a{,3}", PatternRepeat(Char("a"), 0, 3), id="at-most"),
        pytest.param("a{2,5}", PatternRepeat(Char("a"), 2, 5), id="between"),
        pytest.param("a{,}", PatternRepeat(Char("a"), 0, None), id="no-bounds"),
        pytest.param("a*?", PatternRepeat(Char("a"), 0, None, RepeatMode.LAZY), id="lazy"),
        pytest.param("a{2,5}?", PatternRepeat(Char("a"), 2, 5, RepeatMode.LAZY), id="lazy-between"),
        pytest.param(
            "a++", PatternRepeat(Char("a"), 1, None, RepeatMode.POSSESSIVE), id="possessive"
        ),
        pytest.param(
            "(?:ab)?+",
            PatternRepeat(PatternGroup(chars("ab"), NON_CAPTURING), 0, 1, RepeatMode.POSSESSIVE),
            id="possessive-group",
        ),
        pytest.param(
            "(?=a)*", PatternRepeat(LookAround(Char("a")), 0, None), id="repeated-lookaround"
        ),
        pytest.param("x{}", chars("x{}"), id="empty-braces-are-literal"),
        pytest.param("x{1,2", chars("x{1,2"), id="unclosed-braces-are-literal"),
        pytest.param("x{ 1}", chars("x{ 1}"), id="spaced-braces-are-literal"),
        pytest.param("x{1,%d}", chars("x{1,%d}"), id="no-fuzzy-start-is-literal"),
        pytest.param("a]}#", chars("a]}#"), id="closing-brackets-are-literal"),
        pytest.param(
            r"\b(?:x|y z)+$",
            Sequence(
                (
                    Anchor(AnchorKind.BOUNDARY),
                    PatternRepeat(
                        PatternGroup(Alternation((Char("x"), chars("y z"))), NON_CAPTURING), 1, None
                    ),
                    Anchor(AnchorKind.END),
                )
            ),
            id="nested",
        ),
    ],
)
def test_tree_shapes(pattern, tree):
    """Each construct of the subset becomes its node, as ``regex`` reads it."""
    assert parse(pattern) == tree


@pytest.mark.parametrize(
    ("pattern", "construct", "offset"),
    [
        pytest.param(r"(a)\1", "backreference or octal escape", 3, id="backreference"),
        pytest.param(r"[\1]", "backreference or octal escape", 1, id="octal-in-a-class"),
        pytest.param("(?P<n>a)(?P=n)", "named backreference", 8, id="named-backreference"),
        pytest.param("(a)(?(1)b|c)", "conditional", 3, id="conditional"),
        pytest.param(r"x\p{Lu}", "Unicode property", 1, id="property"),
        pytest.param(r"[\P{L}]", "Unicode property", 1, id="property-in-a-class"),
        pytest.param(r"\N{EM DASH}", "named character", 0, id="named-character"),
        pytest.param(r"ab\m", "word-start anchor", 2, id="word-start"),
        pytest.param(r"\e", "escape \\e", 0, id="unknown-escape"),
        pytest.param(r"[\A]", "escape \\A", 1, id="anchor-in-a-class"),
        pytest.param("(?V1)[a--b]", "flag 'V'", 0, id="version-1"),
        pytest.param("(?i)a", "inline flags", 0, id="global-flags"),
        pytest.param("a(?m)b", "inline flags", 1, id="positional-flags"),
        pytest.param("(?x: a )", "flag 'x'", 0, id="verbose"),
        pytest.param("(?i", "bad inline flags", 0, id="unterminated-flags"),
        pytest.param("(?-:a)", "no flags after '-'", 0, id="no-flags-off"),
        pytest.param("(?i-i:a)", "flag turned on and off", 0, id="flag-on-and-off"),
        pytest.param("ab{e<=1}", "fuzzy constraint", 2, id="fuzzy"),
        pytest.param("a{1<=e<=2}", "fuzzy constraint", 1, id="fuzzy-bounds"),
        pytest.param("a{2i+1d<3}", "fuzzy constraint", 1, id="fuzzy-cost"),
        pytest.param("(?R)", "recursion", 0, id="recursion"),
        pytest.param("(a)(?1)", "group call", 3, id="group-call"),
        pytest.param("(a)(?-1)", "group call", 3, id="relative-call"),
        pytest.param("(?P<n>a)(?&n)", "group call", 8, id="named-call"),
        pytest.param("(?P<n>a)(?P>n)", "group call", 8, id="python-named-call"),
        pytest.param("(?|a)", "branch reset", 0, id="branch-reset"),
        pytest.param("(*SKIP)a", "backtracking verb", 0, id="verb"),
        pytest.param("(?<1>a)", "bad group name", 0, id="bad-angle-name"),
        pytest.param("(?<n", "bad group name", 0, id="unterminated-angle-name"),
        pytest.param("(?P<1>a)", "bad group name", 0, id="bad-name"),
        pytest.param("(?Px)", "unknown extension (?P", 0, id="unknown-p-extension"),
        pytest.param("(?~a)", "unknown extension (?~", 0, id="unknown-extension"),
        pytest.param("(?", "unterminated group", 0, id="bare-extension"),
        pytest.param("[[:alpha:]]", "POSIX character class", 1, id="posix-class"),
        pytest.param("*a", "nothing to repeat", 0, id="nothing-to-repeat"),
        pytest.param("a|+", "nothing to repeat", 2, id="nothing-after-a-bar"),
        pytest.param("a{2}{3}", "multiple repeat", 4, id="multiple-repeat"),
        pytest.param(r"\b+", "repeated anchor", 2, id="repeated-anchor"),
        pytest.param("x{3,2}", "repeat with its minimum over its maximum", 1, id="min-over-max"),
        pytest.param(f"x{{{COUNT_LIMIT + 1}}}", "repeat count over the limit", 1, id="big-count"),
        pytest.param("x{" + "9" * 5000 + "}", "repeat count over the limit", 1, id="huge-count"),
        pytest.param("a(b", "unterminated group", 1, id="unterminated-group"),
        pytest.param("ab)", "unbalanced parenthesis", 2, id="unbalanced"),
        pytest.param("a[bc", "unterminated character class", 1, id="unterminated-class"),
        pytest.param("[a-", "unterminated character class", 1, id="unterminated-range"),
        pytest.param("[z-a]", "bad character range", 1, id="reversed-range"),
        pytest.param(r"[\d-z]", "range from a class escape", 1, id="range-from-category"),
        pytest.param(r"[a-\w]", "range to a class escape", 1, id="range-to-category"),
        pytest.param("(?#open", "unterminated comment", 0, id="unterminated-comment"),
        pytest.param("a\\", "escape at the end of the pattern", 1, id="trailing-backslash"),
        pytest.param(r"\x4", "incomplete hexadecimal escape", 0, id="short-hex"),
        pytest.param(r"\u00g0", "incomplete hexadecimal escape", 0, id="bad-hex"),
        pytest.param(r"\U00110000", "escape beyond Unicode", 0, id="beyond-unicode"),
    ],
)
def test_refused_constructs_are_named_with_their_offset(pattern, construct, offset):
    """Anything outside the subset raises one error type naming the construct and its offset."""
    with pytest.raises(UnsupportedSyntaxError) as raised:
        parse(pattern)
    assert (raised.value.construct, raised.value.offset) == (construct, offset)
    assert isinstance(raised.value, ValueError)
    assert str(raised.value) == f"{construct} at offset {offset}"


def test_nesting_is_bounded():
    """Groups nest up to the limit the rules are held to; one more is refused where it opens."""
    deepest = "(?:" * NESTING_LIMIT + "a" + ")" * NESTING_LIMIT
    tree = parse(deepest)
    for _ in range(NESTING_LIMIT):
        assert isinstance(tree, PatternGroup)
        tree = tree.body
    assert tree == Char("a")
    too_deep = "(" + deepest + ")"
    with pytest.raises(UnsupportedSyntaxError) as raised:
        parse(too_deep)
    assert raised.value.offset == len("(" + "(?:" * (NESTING_LIMIT - 1))  # the innermost
    assert str(NESTING_LIMIT) in raised.value.construct


def test_ten_thousand_alternatives_parse():
    """A wide pattern parses flat, its size bounded by its length (no recursion per branch)."""
    tree = parse("|".join(f"w{i}" for i in range(10_000)))
    assert isinstance(tree, Alternation)
    assert len(tree.alternatives) == 10_000
    assert tree.alternatives[9_999] == chars("w9999")


def test_every_builtin_rule_parses():
    """The subset covers every built-in rule: none is left to "always try"."""
    refused = {}
    for rule in RULES:
        try:
            parse(rule.pattern)
        except UnsupportedSyntaxError as exc:
            refused[rule.id] = str(exc)
    assert refused == {}


@pytest.mark.parametrize(
    ("pattern", "tokens"),
    [
        pytest.param(r"\bgo(?:od){0,1}\b", {"go", "good"}, id="a-repeat-of-zero-or-one"),
        pytest.param(r"\bab{1,2}\b", set(), id="a-repeat-of-one-or-two-is-unknown"),
        pytest.param(r"\bgo(?:ne){0}\b", {"go"}, id="a-repeat-of-none"),
        pytest.param("\\b\u212aill\\b", set(), id="a-letter-that-folds-to-ascii"),
        pytest.param("\\b[\u2100-\u2130]ill\\b", set(), id="a-range-that-folds-to-ascii"),
        pytest.param(r"\bx[^\n]y\b", set(), id="a-negated-separator-is-not-one"),
        pytest.param(r"\bdown\Bload\b", {"download"}, id="no-boundary-joins-words"),
        pytest.param(r"\bgo\b(?=\s)", {"go"}, id="a-lookaround-consumes-nothing"),
    ],
)
def test_derivation_over_the_tree(pattern, tokens):
    """The walk reads counts, negation and the two boundaries as the tree gives them."""
    assert set(derive_triggers(pattern).tokens) == tokens


# Soundness on generated patterns: each pattern comes with a text it may match (the
# text each part could match, joined), so most examples do match, in context.

WORDS = ["err", "time", "out", "a", "b", "x1", "ok"]
#: Leaves: a piece of pattern and texts it matches (anchors and look-arounds: none);
#: words come first, and more often.
WORDY = [
    *((word, (word, word.upper(), word.title())) for word in WORDS),
    *((rf"\b{word}\b", (word, word.upper())) for word in WORDS),
    (r"\berr", ("err", "Err")),
    (r"out\b", ("out", "OUT")),
]
#: Separators put between two parts, and texts they match.
SEPARATORS = [
    (" ", (" ",)),
    (r"\s+", (" ", "\n", "  ")),
    ("[ -]", (" ", "-")),
    (r":\s*", (":", ": ")),
    (r"\W", ("-", ".")),
]
LEAVES = [
    *WORDY,
    *SEPARATORS,
    (" ", (" ",)),
    ("-", ("-",)),
    (":", (":",)),
    (r"\.", (".",)),
    (".", ("x", "-", " ")),
    (r"\b", ("",)),
    (r"\B", ("",)),
    ("^", ("", "\n")),
    ("$", ("", "\n")),
    (r"\A", ("",)),
    (r"\Z", ("",)),
    (r"\d", ("1", "7")),
    (r"\w", ("a", "_", "Z", "1")),
    (r"\s", (" ", "\n", "\t")),
    (r"\W", ("-", " ", "\n")),
    (r"\S", ("a", "-")),
    (r"\D", ("a", " ")),
    ("[ab]", ("a", "B")),
    ("[^a]", ("b", " ", "-")),
    ("[a-c]", ("a", "C")),
    ("[ -]", (" ", "-")),
    ("[A-Z]", ("q", "Q")),
    (r"[\s,]", (" ", ",")),
    (r"[\w.]", ("k", ".")),
    (r"[^\n]", ("z", " ")),
    ("[]a]", ("]", "a")),
    (r"\x41", ("a", "A")),
]
GROUPS = ["(?:", "(", "(?>", "(?i:", "(?-i:"]
LOOKAROUNDS = ["(?=", "(?!", "(?<=", "(?<!"]
#: Quantifiers and how many times a text may repeat its body's.
QUANTIFIERS = {
    "*": (0, 2),
    "+": (1, 2),
    "?": (0, 1),
    "{2}": (2, 2),
    "{0,2}": (0, 2),
    "{1,}": (1, 3),
    "{,2}": (0, 2),
    "*?": (0, 2),
    "{1,2}?": (1, 2),
    "*+": (0, 2),
    "?+": (0, 1),
}


@st.composite
def _pick(draw, table):
    pattern, texts = draw(st.sampled_from(table))
    return pattern, draw(st.sampled_from(texts))


def _joined(parts):
    return "".join(part[0] for part in parts), "".join(part[1] for part in parts)


def _combined(children):
    return st.one_of(
        st.tuples(children, _pick(SEPARATORS), children).map(_joined),
        st.tuples(children, children).map(_joined),
        st.tuples(children, children, st.booleans()).map(
            lambda ab: (f"(?:{ab[0][0]}|{ab[1][0]})", ab[0][1] if ab[2] else ab[1][1])
        ),
        st.tuples(st.sampled_from(GROUPS), children).map(lambda g: (f"{g[0]}{g[1][0]})", g[1][1])),
        st.tuples(st.sampled_from(LOOKAROUNDS), children).map(lambda g: (f"{g[0]}{g[1][0]})", "")),
        st.tuples(children, st.sampled_from(sorted(QUANTIFIERS)), st.integers(0, 3)).map(
            lambda r: (
                f"(?:{r[0][0]}){r[1]}",
                r[0][1] * min(max(r[2], QUANTIFIERS[r[1]][0]), QUANTIFIERS[r[1]][1]),
            )
        ),
    )


PATTERNS = st.recursive(st.one_of(_pick(WORDY), _pick(LEAVES)), _combined, max_leaves=8)
CONTEXT = st.lists(
    st.sampled_from([*WORDS, "ERR", "x", "1", "_", " ", "-", ":", ".", "\n"]), max_size=4
).map("".join)


def _starts_at(anchor, text, start):
    """Whether a match starting at ``start`` starts where ``anchor`` says."""
    if anchor == LINE_START:
        return start == 0 or text[start - 1] == "\n"
    padded = b" " + translate(text) + b" "
    return padded[start : start + len(anchor) + 2] == b" " + anchor.encode() + b" "


@given(PATTERNS, CONTEXT, CONTEXT)
def test_derivation_is_sound_on_generated_patterns(generated, before, after):
    """Every match holds a trigger, starts at an anchor and goes through a way."""
    pattern, sample = generated
    parse(pattern)
    compiled = regex.compile(pattern, FLAGS)
    triggers = derive_triggers(pattern)
    for text in (before + sample + after, sample, before + after):
        tokens = {token.decode() for token in text_tokens(text)}
        for found in compiled.finditer(text, overlapped=True, timeout=1.0):
            if triggers.tokens:
                assert tokens & triggers.tokens, found
            elif triggers.substrings:
                assert any(sub in lowered(found.group()) for sub in triggers.substrings), found
            if triggers.anchors:
                assert any(_starts_at(a, text, found.start()) for a in triggers.anchors), found
            if triggers.ways:
                assert any(
                    needed <= tokens and (anchor is None or _starts_at(anchor, text, found.start()))
                    for anchor, needed in triggers.ways
                ), found
