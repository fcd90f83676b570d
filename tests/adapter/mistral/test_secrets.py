"""The scrubber and the construction-time checks: the key and image data never surface."""

import base64
import contextlib
import pickle

import pytest

from adapter import Context, StreamOptions
from adapter._mistral.secrets import MIN_SCRUBBED_KEY, Scrubber, clean_api_key
from adapter._mistral.sync_client import MistralAdapter
from adapter.pi import UserMessage
from llm_errors import ProviderError

KEY = "q7Ws2Lk9/Xv4Tn8Bc1Rz6Hm3Jd5Pf0Ga"
IMAGE = base64.b64encode(bytes(range(256)) * 3).decode()


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(f"key {KEY} here", id="plain"),
        pytest.param("key " + KEY.replace("/", "\\/") + " here", id="slash-escaped"),
        pytest.param("key " + "".join(f"\\u{ord(c):04x}" for c in KEY) + " here", id="u-escaped"),
        pytest.param("key " + "".join(f"\\u{ord(c):04X}" for c in KEY) + " here", id="U-escaped"),
    ],
)
def test_the_key_is_scrubbed_in_every_json_spelling(text):
    r"""The configured key goes, as given or JSON-escaped (``\u``, ``\/``)."""
    assert Scrubber(KEY)(text) == "key <redacted> here"


@pytest.mark.parametrize(
    "echo",
    [
        pytest.param(IMAGE, id="one-line"),
        pytest.param("\n".join(IMAGE[i : i + 76] for i in range(0, len(IMAGE), 76)), id="mime-76"),
        pytest.param("\n".join(IMAGE[i : i + 60] for i in range(0, len(IMAGE), 60)), id="pem-60"),
        pytest.param(
            "\\n".join(IMAGE[i : i + 76] for i in range(0, len(IMAGE), 76)).replace("/", "\\/"),
            id="json-escaped",
        ),
        pytest.param(" ".join(IMAGE[i : i + 76] for i in range(0, len(IMAGE), 76)), id="collapsed"),
    ],
)
def test_base64_data_is_elided_however_it_is_wrapped(echo):
    """An echoed image, wrapped at 60 or 76 columns or JSON-escaped, leaves no 8 characters."""
    scrubbed = Scrubber("unrelated-key")(f"bad image: {echo}. Try again")
    assert scrubbed == "bad image: <base64 elided>. Try again"


@pytest.mark.parametrize("key", ["k", "none", "sk-local"])
def test_a_key_too_short_to_be_a_secret_is_not_scrubbed(key):
    """A local server's ``"k"`` does not cut words apart ("chun<redacted>s")."""
    text = "Mistral stream error: unknown chunk type 'thinks' in chunks: ok, none, sk-local"
    assert len(key) < MIN_SCRUBBED_KEY
    assert Scrubber(key)(text) == text
    assert Scrubber("k" * MIN_SCRUBBED_KEY)("a " + "k" * MIN_SCRUBBED_KEY) == "a <redacted>"


def test_prose_is_left_alone():
    """Ordinary words, ids and short tokens are not taken for base64."""
    text = "Invalid model: mistral-small-2603 (request 0f3a9c21) is not a valid value"
    assert Scrubber("k")(text) == text


def test_an_error_is_scrubbed_in_every_text_attribute_and_its_pickle():
    """Message, request_id, body and notes of an error lose the key; so does its pickle."""
    error = ProviderError(f"bad {KEY}", provider="mistral", request_id=KEY, body={"k": KEY})
    error.add_note(f"note {KEY}")
    Scrubber(KEY).error(error)
    for surface in (
        str(error),
        repr(error),
        repr(vars(error)),
        pickle.dumps(error).decode("latin-1"),
    ):
        assert KEY not in surface
    assert error.code.value == "PROVIDER_ERROR"


def test_an_error_inside_a_chain_is_scrubbed_in_every_text_attribute():
    """An ``LlmError`` another exception chains loses the key from all its fields, not just args."""
    inner = ProviderError(f"upstream {KEY}", provider="mistral", request_id=KEY, body={"k": KEY})
    outer = RuntimeError(f"wrapped {KEY}")
    outer.__cause__ = inner
    Scrubber(KEY).chain(outer)
    assert outer.args == ("wrapped <redacted>",)
    assert inner.request_id == "<redacted>"
    for surface in (str(inner), repr(inner), repr(vars(inner))):
        assert KEY not in surface


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("clé-non-ascii-0123456789", id="non-ascii"),
        pytest.param("key\u00a0with-nbsp-0123456789", id="nbsp"),
        pytest.param("key\x07with-bell-0123456789", id="control"),
        pytest.param("key with-space-0123456789", id="space"),
    ],
)
def test_a_key_that_cannot_travel_is_rejected_without_showing_it(key):
    """A key HTTP cannot carry fails at construction; the error does not quote it."""
    with pytest.raises(ValueError, match="api_key contains") as info:
        MistralAdapter(api_key=key)
    assert key not in repr(info.value)
    assert key[4:] not in str(info.value)
    assert clean_api_key(KEY) == KEY  # a real key's shape passes


def test_spaces_and_line_breaks_around_a_key_are_stripped_and_nothing_else():
    r"""A file's newline, CRLF or a pasted space around the key go; other characters fail.

    ``str.strip()`` would also take away a no-break space, NEL, a form feed or the
    ASCII separators (``\x1c``-``\x1f``), silently: those stay errors that say why.
    """
    padded = [f"{KEY}\n", f"{KEY}\r\n", f" \t{KEY} \n", f"\n{KEY}"]
    kept = [raw for raw in padded if clean_api_key(raw) != KEY]
    rejected = [f"\u00a0{KEY}", f"{KEY}\x85", f"{KEY}\x0c", f"{KEY}\x1f", f"{KEY}\v"]
    accepted = []
    for raw in rejected:
        with contextlib.suppress(ValueError):
            clean_api_key(raw)
            accepted.append(raw)
    assert (kept, accepted) == ([], [])


def test_a_bad_key_from_the_environment_is_named_so(monkeypatch):
    """A key from ``MISTRAL_API_KEY`` with a space inside names the variable, not the key."""
    monkeypatch.setenv("MISTRAL_API_KEY", "from the env\n")
    with pytest.raises(ValueError, match=r"^MISTRAL_API_KEY contains whitespace") as info:
        MistralAdapter()
    assert "from" not in str(info.value)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("secret\r\nX-Injected: 1", id="crlf"),
        pytest.param("secret\nvalue", id="lf"),
        pytest.param("secret\x00value", id="nul"),
        pytest.param("sécret-€", id="not-latin-1"),
    ],
)
def test_a_header_value_that_would_break_the_request_is_rejected_without_showing_it(value):
    """Caller headers with CR/LF/NUL (or that httpx cannot encode) fail at construction."""
    with pytest.raises(ValueError, match="X-Team") as info:
        MistralAdapter(api_key="k", headers={"X-Team": value})
    assert "secret" not in str(info.value)
    assert info.value.__cause__ is None


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("X Team", id="space"),
        pytest.param("X-Team:", id="colon"),
        pytest.param("", id="empty"),
        pytest.param("X-Tëam", id="non-ascii"),
    ],
)
def test_a_header_name_that_is_not_a_token_is_rejected(name):
    """A caller header whose name is not an HTTP token fails at construction, not at send."""
    with pytest.raises(ValueError, match="not a valid HTTP token"):
        MistralAdapter(api_key="k", headers={name: "value"})


def test_a_session_id_with_crlf_is_rejected_when_the_call_is_built():
    """``session_id`` travels as a header: CR/LF in it fails at ``stream()``, value unseen."""
    context = Context(messages=[UserMessage(content="hi", timestamp=1)])
    with MistralAdapter(api_key="k") as adapter, pytest.raises(ValueError) as info:
        adapter.stream("mistral-small-latest", context, StreamOptions(session_id="s\r\nX: 1"))
    assert "X: 1" not in str(info.value)


def test_credentials_in_the_base_url_are_never_shown():
    """A proxy URL's ``user:password@`` shows as ``***@`` in the repr and in base_url errors."""
    secret = "pr0xy-s3cret-value"
    with MistralAdapter(api_key="k", base_url=f"http://me:{secret}@127.0.0.1:8080") as adapter:
        assert secret not in repr(adapter)
        assert "http://***@127.0.0.1:8080" in repr(adapter)
    for bad in (f"ftp://me:{secret}@example.com", f"https://me:{secret}@[::1"):
        with pytest.raises(ValueError, match="base_url") as raised:
            MistralAdapter(api_key="k", base_url=bad)
        assert secret not in str(raised.value)
        assert "***@" in str(raised.value)
