"""The words of a message as the words layer weighs them."""

from hypothesis import given
from hypothesis import strategies as st

from llm_errors._words.features import TEXT_LIMIT, WORD_LIMIT, features


def test_identifiers_are_split_where_a_reader_sees_words():
    """Camel case and underscores part words; the whole identifier is a word too."""
    found = features("httpcore.RemoteProtocolError: ERR_SOCKET_CLOSED")
    assert {"remote", "protocol", "error", "err", "socket", "closed"} <= set(found)
    assert "err_socket_closed" in found
    assert "remote protocol" in found  # neighbours make a pair
    assert "socket closed" in found


def test_errno_names_are_also_read_by_their_parts():
    """``ECONNRESET`` says conn and reset; a word that is not made of errno stems stays whole."""
    found = features("read ECONNRESET; EHOSTUNREACH; ESOMETHING")
    assert {"econnreset", "conn", "reset", "ehostunreach", "host", "unreach"} <= set(found)
    assert "something" not in found
    assert "esomething" in found


def test_parts_of_a_word_never_make_a_pair():
    """Errno parts and whole identifiers are words, never one half of a pair."""
    found = features("connect ECONNREFUSED now; EAI_AGAIN")
    pairs = {feature for feature in found if " " in feature}
    assert pairs == {"connect econnrefused", "econnrefused now", "now eai", "eai again"}


def test_a_status_is_a_word_a_port_or_another_number_is_not():
    """``503`` is ``#503``; ``:443``, a count or a year is no word at all."""
    found = features("HTTP 503 from api.example.com:443 after 1200 ms in 2026")
    assert "#503" in found
    assert not [feature for feature in found if "443" in feature or "1200" in feature]
    assert not [feature for feature in found if "2026" in feature]


def test_letters_and_digits_together_are_one_word_outside_pairs():
    """``x509`` is kept; an id is one word no weight knows, and leaves its neighbours paired."""
    found = features("x509: certificate signed by unknown authority, request 9f86d081 failed")
    assert "x509" in found
    assert "9f86d081" in found
    assert "request failed" in found
    assert not [feature for feature in found if " " in feature and "9f86" in feature]


def test_cjk_runs_give_character_pairs():
    """Chinese, Japanese and Korean have no spaces: each run gives its bigrams."""
    assert features("服务器繁忙") == ["服务", "务器", "器繁", "繁忙"]
    assert features("요청이 너무 많습니다") == ["요청", "청이", "너무", "많습", "습니", "니다"]
    assert features("错") == ["错"]


def test_runs_of_letters_too_long_for_words_are_data():
    """A base64 run is no word; two-letter words are the shortest kept."""
    assert features("a" * (WORD_LIMIT + 1)) == []
    assert features("b" * WORD_LIMIT) == ["b" * WORD_LIMIT]
    assert features("I x ok") == ["ok"]


def test_only_the_first_characters_are_read():
    """The bound: what lies past ``TEXT_LIMIT`` adds nothing."""
    head = "timeout " * (TEXT_LIMIT // 8)
    assert features(head + " overloaded") == features(head)


@given(st.text(max_size=300))
def test_features_are_lower_case_and_come_from_the_text(text):
    """Every feature is lower case and made of what the text says (any input)."""
    lowered = text.lower()
    for feature in features(text):
        assert feature == feature.lower()
        for part in feature.lstrip("#").split(" "):
            assert part in lowered
