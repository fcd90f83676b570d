"""The block filter's compiled database is stored in the cache directory and loaded back."""

import pytest

from llm_errors.logs import _blocks, _stored
from llm_errors.logs._stored import CACHE_ENV, cache_dir, load_or_compile

hyperscan = pytest.importorskip("hyperscan")

BLOCK = b"INFO all good\nERROR upstream connect error or disconnect/reset\nINFO fine\n"


def _compiler(calls):
    def compile_database():
        calls.append(1)
        database = hyperscan.Database()
        database.compile(
            expressions=[rb"reset[^\n]*$"], ids=[0], elements=1, flags=[hyperscan.HS_FLAG_MULTILINE]
        )
        return database

    return compile_database


def _ends(database, block=BLOCK):
    found = []
    database.scan(block, match_event_handler=lambda _i, _s, end, _f, _c: found.append(end))
    return found


def test_compiled_once_then_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    calls = []
    first = load_or_compile(hyperscan, b"k", _compiler(calls))
    (stored,) = tmp_path.glob("hyperscan-*.db")
    second = load_or_compile(hyperscan, b"k", _compiler(calls))
    assert calls == [1]  # the second came from the file
    assert _ends(second) == _ends(first) == [BLOCK.index(b"\nINFO fine")]
    assert stored.stat().st_size > 0
    assert not list(tmp_path.glob(".tmp-*"))  # written under a temporary name, then renamed


def test_another_key_is_another_file(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    calls = []
    load_or_compile(hyperscan, b"one", _compiler(calls))
    load_or_compile(hyperscan, b"two", _compiler(calls))
    assert calls == [1, 1]
    assert len(list(tmp_path.glob("hyperscan-*.db"))) == 2


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(
            lambda data: data[:100] + bytes(b ^ 0xFF for b in data[100:200]) + data[200:],
            id="bytes-flipped",
        ),
        pytest.param(lambda _data: b"", id="empty"),
        pytest.param(lambda _data: b"not a database at all", id="foreign"),
    ],
)
def test_a_damaged_file_is_compiled_again_and_replaced(tmp_path, monkeypatch, damage):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    calls = []
    load_or_compile(hyperscan, b"k", _compiler(calls))
    (stored,) = tmp_path.glob("hyperscan-*.db")
    good = stored.read_bytes()
    stored.write_bytes(damage(good))
    database = load_or_compile(hyperscan, b"k", _compiler(calls))
    assert calls == [1, 1]
    assert _ends(database) == [BLOCK.index(b"\nINFO fine")]
    assert stored.read_bytes() == good


def test_a_file_over_the_limit_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    calls = []
    load_or_compile(hyperscan, b"k", _compiler(calls))
    monkeypatch.setattr(_stored, "STORED_LIMIT", 16)
    load_or_compile(hyperscan, b"k", _compiler(calls))
    assert calls == [1, 1]


def test_an_empty_setting_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, "")
    monkeypatch.chdir(tmp_path)
    assert cache_dir() is None
    calls = []
    load_or_compile(hyperscan, b"k", _compiler(calls))
    load_or_compile(hyperscan, b"k", _compiler(calls))
    assert calls == [1, 1]
    assert not list(tmp_path.rglob("*"))


def test_an_unwritable_directory_only_costs_the_compile(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the directory should be")
    monkeypatch.setenv(CACHE_ENV, str(blocker / "cache"))
    calls = []
    database = load_or_compile(hyperscan, b"k", _compiler(calls))
    assert calls == [1]
    assert _ends(database) == [BLOCK.index(b"\nINFO fine")]


def test_the_block_filter_loads_what_it_stored(tmp_path, monkeypatch):
    """A filter built from the stored database reports what a freshly compiled one does."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    # One rule written as an expression, one by its word (``\p{L}`` has no expression).
    rules = [
        (r"\bconnection reset\b", frozenset({b"reset"})),
        (r"\boverloaded\b\p{L}?", frozenset({b"overloaded"})),
    ]
    compiled = _blocks.LineFilter(hyperscan, rules)
    stored = sorted(tmp_path.glob("hyperscan-*.db"))
    assert len(stored) == 2  # the block's database and the words of untrusted lines
    modified = [path.stat().st_mtime_ns for path in stored]
    loaded = _blocks.LineFilter(hyperscan, rules)
    assert [path.stat().st_mtime_ns for path in stored] == modified  # not written again
    block = BLOCK + b"WARN model overloaded\nINFO x\nINFO caf\xc3\xa9 reset\nINFO y\n"
    assert loaded.ends(block) == compiled.ends(block)
    assert block.index(b"\nINFO y") in loaded.ends(block)[1]  # words, by the stored second scan


def test_a_stored_database_is_keyed_on_its_ids_too(tmp_path, monkeypatch):
    """The same expressions reporting other ids are another database, not the stored one."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    reported = []
    for ids in ([0], [3], [0]):
        database = _blocks._stored_database(
            hyperscan, b"test", [rb"reset[^\n]*$"], ids, hyperscan.HS_FLAG_MULTILINE
        )
        database.scan(b"x reset\n", match_event_handler=lambda found, *_: reported.append(found))
    assert reported == [0, 3, 0]
    assert len(list(tmp_path.glob("hyperscan-*.db"))) == 2
