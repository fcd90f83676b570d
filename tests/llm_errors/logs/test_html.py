"""The HTML report: its structure, its numbers against ``classify``, its safety, its drawing.

The inputs are examples/sample.log, examples/sample.jsonl and logs generated here whose
lines are copied from them.
"""

import json
import os
import shutil
import struct
import subprocess
import unicodedata
import zlib
from collections import Counter
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from llm_errors import ErrorCode
from llm_errors.logs._cli import main
from llm_errors.logs._html import CODE_COLOURS, PLOT_BACKGROUND
from llm_errors.logs._tally import normalise

EXAMPLES = Path(__file__).parents[3] / "examples"
SAMPLE_LOG = EXAMPLES / "sample.log"
SAMPLE_JSONL = EXAMPLES / "sample.jsonl"
VOID = {"meta", "br", "hr", "img", "input", "link", "source", "wbr", "col", "area", "base"}
# Every element the report may contain: nothing that runs, embeds or fetches.
ALLOWED_TAGS = {
    *("html", "head", "meta", "title", "style", "body", "main", "header", "footer"),
    *("section", "h1", "h2", "p", "div", "span", "b", "code", "ul", "ol", "li", "figure"),
    *("table", "thead", "tbody", "tr", "th", "td"),
    *("svg", "g", "rect", "line", "text"),
}
FETCHING_ATTRIBUTES = {"src", "href", "xlink:href", "srcset", "action", "formaction", "poster"}


class Node:
    """An element of the parsed page: tag, attributes, children (nodes and text)."""

    def __init__(self, tag, attrs):
        self.tag = tag
        self.attrs = attrs
        self.children = []

    def iter(self):
        """Every element below this one, in document order."""
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.iter()

    def text(self):
        """The text inside, tags stripped."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def find_all(self, tag=None, **attrs):
        """Elements below with this tag and attributes (``class_`` matches one class)."""
        return [
            node
            for node in self.iter()
            if (tag is None or node.tag == tag)
            and all(_has(node, key, value) for key, value in attrs.items())
        ]

    def find(self, tag=None, **attrs):
        """The first of :meth:`find_all`, which must exist."""
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag} {attrs}>"
        return found[0]


def _has(node, key, value):
    if key != "class_":
        return node.attrs.get(key) == value
    if value is None:
        return "class" not in node.attrs
    return value in node.attrs.get("class", "").split()


class Page(HTMLParser):
    """The report parsed into a tree; every element must be closed where it was opened."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]
        self.feed(text)
        self.close()
        assert self.stack == [self.root], "unclosed elements"

    def handle_starttag(self, tag, attrs):
        """Open an element (void elements close at once)."""
        node = Node(tag, {key: value or "" for key, value in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        """A self-closed element (SVG)."""
        self.stack[-1].children.append(Node(tag, {key: value or "" for key, value in attrs}))

    def handle_endtag(self, tag):
        """Close the innermost element, which must be this one."""
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):
        """Keep text where it stands."""
        self.stack[-1].children.append(data)


def report(capsys, tmp_path, *argv, name="report.html"):
    """Run ``llm-errors report``; return the status, the page's text and the parsed page."""
    output = tmp_path / name
    status = main(["report", *argv, "--output", str(output)])
    capsys.readouterr()
    text = output.read_text(encoding="utf-8")
    return status, text, Page(text).root


def classified(capsys, *argv):
    """What ``llm-errors classify --format jsonl`` says about the same input."""
    assert main(["classify", "--format", "jsonl", *argv]) == 0
    out, _ = capsys.readouterr()
    return [json.loads(line) for line in out.splitlines()]


def number(node):
    return int(node.text().replace(",", ""))


INPUTS = [
    pytest.param([str(SAMPLE_LOG)], id="sample-log"),
    pytest.param([str(SAMPLE_JSONL)], id="sample-jsonl"),
    pytest.param(["--field", "err", str(SAMPLE_JSONL)], id="sample-jsonl-field"),
    pytest.param([str(SAMPLE_LOG), str(SAMPLE_JSONL)], id="both"),
]


@pytest.mark.parametrize("argv", INPUTS)
def test_structure(capsys, tmp_path, argv):
    """The page is well formed and has every section, with a drawn chart and a legend."""
    status, _, page = report(capsys, tmp_path, *argv)
    assert status == 0
    for section in ("summary", "files", "timeline", "codes", "rules", "providers", "unmatched"):
        assert page.find(id=section).find("h2" if section != "summary" else "h1").text()
    assert page.find("title").text() == "LLM error report"
    chart = page.find("svg", id="timeline-chart")
    assert chart.find("rect", class_="plot")
    assert chart.find_all("rect", **{"data-code": "RATE_LIMIT"})
    assert page.find("ul", class_="legend").find_all("li")
    assert page.find("section", id="codes").find_all("svg", class_="spark")
    assert {node.tag for node in page.iter()} <= ALLOWED_TAGS


@pytest.mark.parametrize("argv", INPUTS)
def test_numbers_match_classify(capsys, tmp_path, argv):
    """Counts per code, retryable shares, rules and unmatched messages are classify's."""
    records = classified(capsys, *argv)
    _, _, page = report(capsys, tmp_path, "--top", "1000", *argv)
    codes = page.find("section", id="codes")
    by_code = Counter(r["code"] for r in records)
    shown = {tr.attrs["data-code"]: tr for tr in codes.find_all("tr") if "data-code" in tr.attrs}
    assert {code: number(tr.find("td", class_="count")) for code, tr in shown.items()} == by_code
    for code, tr in shown.items():
        retryable = sum(r["retryable"] for r in records if r["code"] == code)
        assert tr.find("td", class_="retryable").text() == f"{100 * retryable / by_code[code]:.0f}%"
    total = codes.find("tr", class_="total")
    assert number(total.find("td", class_="count")) == len(records)
    rules = page.find("section", id="rules").find_all("tr")
    assert {
        (tr.attrs["data-rule"], tr.attrs["data-code"]): number(tr.find("td", class_="count"))
        for tr in rules
        if "data-rule" in tr.attrs
    } == Counter((r["rule"], r["code"]) for r in records)
    unmatched = page.find("section", id="unmatched").find("tbody").find_all("tr")
    assert {
        tr.find("td", class_="msg").text(): number(tr.find("td", class_="count"))
        for tr in unmatched
    } == Counter(normalise(r["message"]) for r in records if not r["matched"])
    cards = page.find("div", class_="cards").find_all("b")
    assert number(cards[0]) == len(records)
    bars = page.find("svg", id="timeline-chart").find_all("rect", class_=None)
    drawn = sum(int(rect.attrs.get("data-count", 0)) for rect in bars)
    assert drawn == len(records)  # every error of the samples carries a time


def test_providers_grouped(capsys, tmp_path):
    """Rows of one provider stay together, the provider with most errors first."""
    _, _, page = report(capsys, tmp_path, str(SAMPLE_LOG))
    rows = page.find("section", id="providers").find("tbody").find_all("tr")
    providers = [tr.find("td").text() for tr in rows]
    assert providers[:2] == ["anthropic", "anthropic"]
    assert providers.count("openai") == 3
    first = providers.index("openai")
    assert providers[first : first + 3] == ["openai"] * 3


def test_examples_are_the_first_two_of_each_row(capsys, tmp_path):
    """Each code row shows its first two errors, where they were found and their excerpt."""
    records = classified(capsys, str(SAMPLE_LOG))
    _, _, page = report(capsys, tmp_path, str(SAMPLE_LOG))
    row = page.find("section", id="codes").find("tr", **{"data-code": "RATE_LIMIT"})
    items = row.find("ul", class_="ex").find_all("li")
    expected = [r for r in records if r["code"] == "RATE_LIMIT"][:2]
    shown = [li.text() for li in items]
    assert shown == [f"{r['file']}:{r['line']}{r['message']}" for r in expected]


LINE = "2025-03-14 {clock} ERROR    router.chat: {message}"
HOSTILE = [
    '<script>alert("owned")</script> upstream returned 503',
    "\"><img src=x onerror=alert(1)> job 8812 failed: KeyError: 'choices'",
    "</td></tr></table><script src=https://evil.example/x.js></script> error: boom",
]


def test_hostile_log_text_stays_text(capsys, tmp_path):
    """Markup in log lines, file names and the title is escaped: no element, no script."""
    log = tmp_path / '"><script>alert(1).log'
    lines = [LINE.format(clock=f"09:12:0{i},000", message=m) for i, m in enumerate(HOSTILE)]
    record = {"level": 50, "msg": "failed", "model": "<script>alert(2)</script>"}
    lines.append(json.dumps({**record, "provider": '"><img src=x onerror=alert(3)>'}))
    log.write_text("\n".join(lines) + "\n")
    _, text, page = report(capsys, tmp_path, "--title", "<b onmouseover=x>t</b>", str(log))
    assert "<script" not in text.lower()
    assert "<img" not in text.lower()
    assert {node.tag for node in page.iter()} <= ALLOWED_TAGS
    assert not [key for node in page.iter() for key in node.attrs if key.startswith("on")]
    shown = page.text()
    assert '<script>alert("owned")</script>' in shown
    assert '"><img src=x onerror=alert(1)>' in shown
    assert '"><script>alert(1).log' in shown
    providers = page.find("section", id="providers").text()
    assert '"><img src=x onerror=alert(3)>' in providers
    assert "<script>alert(2)</script>" in providers
    assert page.find("h1").text() == "<b onmouseover=x>t</b>"


# Every Bidi_Control character: the embeddings, overrides and isolates by their class,
# and the three marks (LRM, RLM, ALM), whose classes are those of letters.
BIDI_CONTROLS = {
    chr(code)
    for code in range(0x110000)
    if unicodedata.bidirectional(chr(code))
    in {"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"}
} | {"\u200e", "\u200f", "\u061c"}


def test_bidi_controls_are_shown_escaped(capsys, tmp_path):
    """A right-to-left override from a file name or a log line cannot reverse the page's text."""
    controls = "".join(sorted(BIDI_CONTROLS))
    log = tmp_path / "app\u202e.log"
    message = f"upstream returned 503 \u202e{controls} (model gpt-4o\u202e)"
    record = {"level": 50, "msg": f"failed \u2067{controls}", "model": "gpt-4o\u202e"}
    lines = [LINE.format(clock="09:12:01,000", message=message), json.dumps(record)]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, text, page = report(capsys, tmp_path, "--title", "t\u202e", str(log))
    assert len(BIDI_CONTROLS) == 12  # Unicode's Bidi_Control property has twelve
    assert sorted(BIDI_CONTROLS & set(text)) == []
    shown = page.text()
    assert f"{tmp_path}/app\\u202e.log:1" in shown
    assert "upstream returned 503 \\u202e\\u061c\\u200e" in shown
    assert page.find("h1").text() == "t\\u202e"


@pytest.mark.parametrize("argv", [*INPUTS, pytest.param(["HOSTILE"], id="hostile")])
def test_nothing_fetched(capsys, tmp_path, argv):
    """No src, href or CSS url() anywhere, and a policy that forbids scripts and fetches."""
    if argv == ["HOSTILE"]:
        log = tmp_path / "hostile.log"
        log.write_text("\n".join(LINE.format(clock="09:12:01,000", message=m) for m in HOSTILE))
        argv = [str(log)]
    _, _, page = report(capsys, tmp_path, *argv)
    for node in page.iter():
        assert not FETCHING_ATTRIBUTES & set(node.attrs), node.tag
        assert not [v for v in node.attrs.values() if "://" in v or v.startswith("//")]
    style = page.find("style").text()
    assert "url(" not in style
    assert "@import" not in style
    policy = page.find("meta", **{"http-equiv": "Content-Security-Policy"}).attrs["content"]
    assert "default-src 'none'" in policy
    assert "script-src" not in policy


def epoch(iso):
    return int(datetime.fromisoformat(iso).timestamp())


def test_each_timestamp_form_lands_in_its_bucket(capsys, tmp_path):
    """Every supported form, and a traceback dated by its log line, lands in its second."""
    rate = '"HTTP/1.1 429 Too Many Requests"'
    record = {"level": 50, "err": {"message": "Overloaded", "statusCode": 529}, "msg": "failed"}
    lines = [
        f"no time on this line, nor before it: HTTP Request: POST {rate}",
        f"2025-03-14 09:12:01,004 INFO     httpx: HTTP Request: POST {rate}",
        f"2025-03-14T09:12:03.250Z stderr F httpx: HTTP Request: POST {rate}",
        f"2025-03-14T10:12:05+01:00 httpx: HTTP Request: POST {rate}",
        f"[2025-03-14 09:12:07.900] httpx: HTTP Request: POST {rate}",
        f'time="2025-03-14T09:12:09Z" level=error msg="HTTP Request: POST {rate}"',
        json.dumps({**record, "time": epoch("2025-03-14T09:12:11+00:00") * 1000 + 999}),
        json.dumps({**record, "ts": epoch("2025-03-14T09:12:13+00:00") + 0.5}),
        json.dumps({**record, "timestamp": "2025-03-14T09:12:15.001Z"}),
        "2025-03-14 09:12:17,730 ERROR    router.chat: completion failed",
        "Traceback (most recent call last):",
        '  File "/srv/router/chat.py", line 131, in complete',
        "TimeoutError",
        "2025-03-14 09:12:40,000 INFO     router.app: 41 requests served, 0 queued",
    ]
    log = tmp_path / "times.log"
    log.write_text("\n".join(lines) + "\n")
    records = classified(capsys, str(log))
    assert len(records) == 10
    _, _, page = report(capsys, tmp_path, str(log))
    bars = page.find("svg", id="timeline-chart").find_all("rect", class_=None)
    drawn = Counter()
    for rect in bars:
        key = int(rect.attrs["data-start"]), rect.attrs["data-code"]
        drawn[key] += int(rect.attrs["data-count"])
    second = epoch("2025-03-14T09:12:00+00:00")
    expected = Counter({(second + s, "RATE_LIMIT"): 1 for s in (1, 3, 5, 7, 9, 11, 13, 15)})
    expected[second + 17, "TIMEOUT"] = 1
    assert drawn == expected
    note = page.find("section", id="timeline").find_all("p", class_="note")[-1].text()
    assert note.startswith("9 of 10 errors carry a timestamp (1 without are not drawn)")


def test_no_timestamps_no_chart(capsys, tmp_path):
    """A log without times says so instead of drawing an empty chart."""
    log = tmp_path / "plain.log"
    log.write_text("ERROR router.jobs: job 8812 failed: KeyError: 'choices'\n")
    _, _, page = report(capsys, tmp_path, str(log))
    timeline = page.find("section", id="timeline")
    assert not timeline.find_all("svg")
    assert "no timeline" in timeline.text()
    assert "no timestamps" in page.find("section", id="codes").text()


# --- the drawing, in a real browser ------------------------------------------------------


def decode_png(data):
    """The pixels of an 8-bit RGB or RGBA PNG as rows of (r, g, b) tuples (stdlib only)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, header = 8, b"", None
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        offset += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    assert (depth, colour in (2, 6), interlace) == (8, True, 0)
    step = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * step
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        rows.append([tuple(line[x : x + 3]) for x in range(0, stride, step)])
        previous = line
    return rows


def rgb(colour):
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def screenshot(page, png, profile):
    binary = shutil.which("chromium")
    if binary is None:
        reason = "the chromium binary is not on PATH (Debian: apt-get install chromium)"
        if os.environ.get("LLM_ERRORS_REQUIRE_CHROMIUM") == "1":
            pytest.fail(f"LLM_ERRORS_REQUIRE_CHROMIUM=1 but {reason}")
        pytest.skip(reason)
    command = [
        binary,
        *("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"),
        *("--disable-background-networking", "--disable-component-update", "--disable-sync"),
        f"--user-data-dir={profile}",
        f"--screenshot={png}",
        "--window-size=1280,2000",
        f"file://{page}",
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=120)  # noqa: S603
    return decode_png(png.read_bytes())


@pytest.mark.integration
def test_chart_drawn_in_chromium(capsys, tmp_path):
    """Headless Chromium draws the chart: bars of every code inside the plot's box."""
    status, _, page = report(capsys, tmp_path, str(SAMPLE_LOG))
    assert status == 0
    rows = page.find("section", id="codes").find_all("tr")
    codes = {tr.attrs["data-code"] for tr in rows if "data-code" in tr.attrs}
    pixels = screenshot(tmp_path / "report.html", tmp_path / "shot.png", tmp_path / "profile")
    background = rgb(PLOT_BACKGROUND)
    where = [(x, y) for y, row in enumerate(pixels) for x, p in enumerate(row) if p == background]
    assert where, "the plot area was not drawn"
    left, right = min(x for x, _ in where), max(x for x, _ in where)
    top, bottom = min(y for _, y in where), max(y for _, y in where)
    assert right - left > 600
    assert bottom - top > 150
    colours = {rgb(CODE_COLOURS[code]): code for code in CODE_COLOURS}
    inside = Counter(
        colours.get(pixel, "other") for row in pixels[top : bottom + 1] for pixel in row[left:right]
    )
    inside.pop("other", None)
    assert set(inside) == codes  # every code's bars, nothing else coloured
    assert sum(inside.values()) > 0.05 * (right - left) * (bottom - top)


# --- rendering alone, from a digest built here ------------------------------------------


def digest_over(days, files=7, cap=5000):
    """A digest of errors spread over ``days``, read from ``files`` inputs."""
    from llm_errors._classification import Classification, Layer
    from llm_errors.logs._digest import Digest
    from llm_errors.logs._scan import Finding
    from llm_errors.logs._tally import CappedCounter, Tally

    digest = Digest(tally=Tally(unmatched_messages=CappedCounter(cap=cap)))
    for index in range(files):
        digest.open_file(f"app-{index}.log")
        digest.tally.files += 1
    start = epoch("2025-03-14T00:00:00+00:00")
    server = Classification(ErrorCode.SERVER, retryable=True, rule="http.5xx", layer=Layer.TEXT)
    unmatched = Classification(ErrorCode.PROVIDER_ERROR, retryable=False)
    for index in range(40):
        verdict = server if index % 2 else unmatched
        text = f"ERROR job {'x' * index} failed"
        finding = Finding(index + 1, index + 1, "line", verdict, text)
        digest.add("app-0.log", finding, when=start + index * days * 86400 / 40)
    return digest


def render(digest, **options):
    from llm_errors.logs._html import render_html

    text = render_html(
        digest,
        title="t",
        elapsed=options.pop("elapsed", 0.5),
        generated=datetime.fromisoformat("2026-12-01T09:00:00+00:00"),
        **options,
    )
    return text, Page(text).root


@pytest.mark.parametrize(
    ("days", "first_tick", "width"),
    [
        pytest.param(3, "03-14 00:00", "3 h", id="days-of-hours"),
        pytest.param(120, "2025-03-13", "1 week", id="months-of-weeks"),
        pytest.param(0.02, "00:00:00", "30 s", id="half-an-hour"),
    ],
)
def test_axis_labels_follow_the_width(days, first_tick, width):
    """Tick labels show what the bucket width needs: seconds, hours with dates, or dates."""
    _, page = render(digest_over(days))
    chart = page.find("svg", id="timeline-chart")
    labels = [t.text() for t in chart.find_all("text")]
    assert labels[-2] == f"time (UTC), one bar per {width}"
    assert first_tick in labels


def test_header_sizes_durations_and_lists():
    """Large inputs, long runs, many files and pruned counters are all said plainly."""
    digest = digest_over(3, files=60, cap=2)
    digest.bytes = 3 * 1024**3
    text, page = render(digest, elapsed=130, top=1)
    cards = [c.text() for c in page.find("div", class_="cards").find_all("div")]
    assert "3.0 GiBread" in cards
    assert "2.2 mintime taken" in cards
    assert "and 55 more" in page.find("header").find("p").text()
    assert "10 more files are counted in the totals." in text
    assert "Counts are lower bounds" in text
    assert "more not shown (raise --top)" in text
    digest.bytes = 5 * 1024**2
    assert "5.0 MiB" in render(digest, elapsed=3)[0]
    assert "3.0 s" in render(digest, elapsed=3)[0]


def test_empty_digest():
    """No errors: every section still there, saying so."""
    from llm_errors.logs._digest import Digest

    _, page = render(Digest())
    assert "No errors found." in page.find("section", id="codes").text()
    assert "No errors found." in page.find("section", id="rules").text()
    assert "No error names a provider" in page.find("section", id="providers").text()
    assert "a rule routed every error" in page.find("section", id="unmatched").text()


@pytest.mark.parametrize(
    ("require", "outcome"),
    [
        pytest.param(None, pytest.skip.Exception, id="skipped"),
        pytest.param("1", pytest.fail.Exception, id="required"),
    ],
)
def test_missing_chromium_skips_unless_required(tmp_path, monkeypatch, require, outcome):
    """No chromium: the drawing test is skipped naming it; LLM_ERRORS_REQUIRE_CHROMIUM=1 fails."""
    monkeypatch.setattr(shutil, "which", lambda _: None)
    if require is None:
        monkeypatch.delenv("LLM_ERRORS_REQUIRE_CHROMIUM", raising=False)
    else:
        monkeypatch.setenv("LLM_ERRORS_REQUIRE_CHROMIUM", require)
    with pytest.raises(outcome, match="the chromium binary is not on PATH"):
        screenshot(tmp_path / "r.html", tmp_path / "s.png", tmp_path / "p")
