"""Render a :class:`~llm_errors.logs._digest.Digest` as one self-contained HTML page (pure).

The page must open from a laptop with no connection and be safe to share, so it
carries its CSS inline, draws its charts as inline SVG, runs no script, loads no
font, image or stylesheet, and says so to the browser too (a Content-Security-Policy
that forbids scripts and every fetch). Every piece of log text goes through
:func:`html.escape`, and what comes from a log line is its redacted excerpt only.
Bidirectional controls (a right-to-left override in a file name or a log line
would reverse the dates and names after it) are shown as escapes such as
``\u202e``, never obeyed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from typing import Final

from llm_errors import DEFAULT_RETRYABLE_CODES, ErrorCode
from llm_errors.logs._digest import Digest, Excerpt, FileStats, Named
from llm_errors.logs._timeline import Series

__all__ = ["CODE_COLOURS", "PLOT_BACKGROUND", "render_html"]

#: One colour per code, used in the chart, its legend and the sparklines.
CODE_COLOURS: Final[Mapping[ErrorCode, str]] = {
    ErrorCode.TRANSPORT: "#4e79a7",
    ErrorCode.TIMEOUT: "#76b7b2",
    ErrorCode.RATE_LIMIT: "#f28e2b",
    ErrorCode.SERVER: "#e15759",
    ErrorCode.PROVIDER_ERROR: "#4b5563",
    ErrorCode.AUTH: "#b07aa1",
    ErrorCode.INVALID_REQUEST: "#9c755f",
    ErrorCode.CONTEXT_OVERFLOW: "#edc948",
    ErrorCode.QUOTA_EXCEEDED: "#ff9da7",
    ErrorCode.CONTENT_FILTER: "#59a14f",
    ErrorCode.ABORTED: "#bab0ac",
}
#: The chart's plot area fill; used nowhere else on the page (a test finds the chart by it).
PLOT_BACKGROUND: Final = "#f3f5fa"

_CHART_W, _CHART_H = 960, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 14, 52
_SPARK_W, _SPARK_H = 132, 26
_X_LABELS = 8
_Y_TICKS = 5
_KIB = 1024

_CSS = f"""
:root {{ color-scheme: light; }}
* {{ box-sizing: border-box; }}
body {{ margin: 0; background: #ffffff; color: #1f2937;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "Liberation Sans", sans-serif; }}
main {{ max-width: 1200px; margin: 0 auto; padding: 24px 28px 40px; }}
h1 {{ font-size: 24px; margin: 0 0 2px; }}
h2 {{ font-size: 17px; margin: 30px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #e5e7eb; }}
p {{ margin: 6px 0; }}
.sub, .note {{ color: #6b7280; }}
.note {{ font-size: 13px; }}
.cards {{ display: flex; flex-wrap: wrap; gap: 10px; margin: 14px 0 6px; }}
.card {{ border: 1px solid #e5e7eb; border-radius: 8px; padding: 8px 14px; min-width: 120px;
  background: #fafafa; }}
.card b {{ display: block; font-size: 20px; }}
.card span {{ color: #6b7280; font-size: 12px; }}
.card.warn {{ border-color: #f59e0b; background: #fffbeb; }}
table {{ border-collapse: collapse; width: 100%; margin: 6px 0; }}
th, td {{ text-align: left; vertical-align: top; padding: 5px 8px;
  border-bottom: 1px solid #eef0f3; }}
th {{ font-size: 12px; color: #6b7280; font-weight: 600; }}
td.num, th.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
.code {{ white-space: nowrap; font-weight: 600; }}
.sw {{ display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px;
  vertical-align: -1px; }}
.tag {{ font-size: 11px; color: #6b7280; font-weight: 400; margin-left: 4px; }}
.ex {{ margin: 0; padding: 0; list-style: none; }}
.ex li {{ font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono",
  monospace; color: #374151; overflow-wrap: anywhere; margin-bottom: 2px; }}
.where {{ color: #6b7280; margin-right: 6px; }}
.rule {{ font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono",
  monospace; white-space: nowrap; }}
.msg {{ font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono",
  monospace; overflow-wrap: anywhere; }}
.legend {{ display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 8px 0 4px; padding: 0;
  list-style: none; font-size: 13px; }}
.chips span {{ display: inline-block; white-space: nowrap; font-size: 12px; margin: 0 8px 2px 0; }}
svg.chart {{ width: 100%; height: auto; display: block; }}
svg text {{ font-family: inherit; fill: #4b5563; }}
svg.spark {{ display: block; }}
footer {{ margin-top: 36px; color: #9ca3af; font-size: 12px; }}
.plot {{ fill: {PLOT_BACKGROUND}; }}
"""
# Unicode's Bidi_Control characters (ALM, LRM, RLM, LRE..RLO, LRI..PDI), shown escaped.
_BIDI_CONTROLS: Final = {
    char: f"\\u{char:04x}"
    for char in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}
# No script, no fetch of any kind: the page is all there is.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _e(value: object) -> str:
    """``value`` as text of the page: markup escaped, bidirectional controls shown as escapes."""
    return escape(str(value).translate(_BIDI_CONTROLS), quote=True)


def _n(value: int) -> str:
    return f"{value:,}"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _size(count: int) -> str:
    if count < _KIB:
        return _plural(count, "byte")
    value = count / _KIB
    for unit in ("KiB", "MiB"):
        if value < _KIB:
            return f"{value:,.1f} {unit}"
        value /= _KIB
    return f"{value:,.1f} GiB"


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:  # noqa: PLR2004 -- two minutes read better as seconds
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.1f} min"


def _width_label(width: int) -> str:
    for size, unit in ((86400 * 7, "week"), (86400, "day"), (3600, "h"), (60, "min")):
        if width >= size and not width % size:
            count = width // size
            if unit in {"week", "day"}:
                return _plural(count, unit)
            return f"{count} {unit}"
    return f"{width} s"


def _clock(when: float) -> datetime:
    return datetime.fromtimestamp(when, UTC)


def _tick_format(width: int, span: int) -> str:
    if width >= 86400:  # noqa: PLR2004 -- a day
        return "%Y-%m-%d"
    if span >= 86400:  # noqa: PLR2004
        return "%m-%d %H:%M"
    return "%H:%M:%S" if width < 60 else "%H:%M"  # noqa: PLR2004 -- a minute


def _swatch(code: ErrorCode) -> str:
    return f'<span class="sw" style="background:{CODE_COLOURS[code]}"></span>'


def _code_cell(code: ErrorCode) -> str:
    kind = "retryable" if code in DEFAULT_RETRYABLE_CODES else "permanent"
    return f'<td class="code">{_swatch(code)}{_e(code)}<span class="tag">{kind}</span></td>'


def _excerpts(excerpts: Sequence[Excerpt]) -> str:
    items = "".join(
        f'<li><span class="where">{_e(x.where)}</span>{_e(x.message)}</li>' for x in excerpts
    )
    return f'<td><ul class="ex">{items}</ul></td>'


def _table(section: str, head: Sequence[tuple[str, bool]], rows: Iterable[str]) -> str:
    cells = "".join(f"<th{' class=num' if num else ''}>{_e(name)}</th>" for name, num in head)
    body = "".join(rows)
    return f'<table class="{section}"><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>'


# --- the header -----------------------------------------------------------------------


def _card(value: str, label: str, *, warn: bool = False) -> str:
    kind = "card warn" if warn else "card"
    return f'<div class="{kind}"><b>{_e(value)}</b><span>{_e(label)}</span></div>'


def _span_text(digest: Digest) -> str:
    timeline = digest.timeline
    if timeline.first is None or timeline.last is None:
        return "no timestamps"
    first, last = _clock(timeline.first), _clock(timeline.last)
    end = last.strftime("%H:%M:%S") if first.date() == last.date() else f"{last:%Y-%m-%d %H:%M:%S}"
    return f"{first:%Y-%m-%d %H:%M:%S} to {end} UTC"


def _header(digest: Digest, title: str, elapsed: float, field: str | None) -> str:
    tally = digest.tally
    problems = sum(tally.problems.values())
    names = ", ".join(stats.name for stats in digest.files[:5])
    if tally.files > len(digest.files[:5]):
        names += f" and {tally.files - len(digest.files[:5]):,} more"
    cards = [
        _card(_n(tally.errors), "errors"),
        _card(_share(tally.retryable, tally.errors), "retryable"),
        _card(_n(tally.unmatched), "unmatched (no rule)"),
        _card(_n(tally.files), "files" if tally.files != 1 else "file"),
        _card(_n(tally.lines), "lines read"),
        _card(_size(digest.bytes), "read"),
        _card(_duration(elapsed), "time taken"),
        _card(_n(problems), "input problems", warn=bool(problems)),
    ]
    read = f"{_plural(tally.lines, 'line')} of {names or 'no input'}"
    if tally.records:
        read += f" ({_plural(tally.records, 'JSON record')})"
    notes = [f"<p class=sub>{_e(read)}; errors seen {_e(_span_text(digest))}.</p>"]
    if tally.missing_field:
        notes.append(
            f"<p class=note>{_e(_plural(tally.missing_field, 'JSON record'))} had no field "
            f"{_e(repr(field))}: counted as read, not as errors.</p>"
        )
    waits = tally.waits.summary()
    if waits is not None:
        notes.append(
            f"<p class=note>Of these errors, {_e(waits)}, by Retry-After or a stated wait.</p>"
        )
    resets = tally.resets.summary()
    if resets is not None:
        notes.append(f"<p class=note>Of these errors, {_e(resets)}.</p>")
    if not problems:
        notes.append("<p class=note>Every line was read: no input problems.</p>")
    return (
        f'<header id="summary"><h1>{_e(title)}</h1>{"".join(notes)}'
        f'<div class="cards">{"".join(cards)}</div>{_problems(digest)}{_files(digest)}</header>'
    )


def _problems(digest: Digest) -> str:
    tally = digest.tally
    if not tally.problems:
        return ""
    rows = []
    for kind, count in sorted(tally.problems.items()):
        details = digest.problem_details.get(kind, [])
        more = count - len(details)
        items = "".join(f"<li>{_e(detail)}</li>" for detail in details)
        if more > 0:
            items += f"<li>… and {_n(more)} more</li>"
        rows.append(
            f'<tr><td class="code">{_e(kind)}</td><td class="num">{_n(count)}</td>'
            f'<td><ul class="ex">{items}</ul></td></tr>'
        )
    head = [("problem", False), ("count", True), ("where and why", False)]
    table = _table("problems", head, rows)
    return f'<section id="problems"><h2>Input not read as intended</h2>{table}</section>'


def _file_row(stats: FileStats) -> str:
    status = (
        f"unreadable: {stats.unreadable}" if stats.unreadable else f"{_n(stats.problems)} problems"
    )
    if not stats.unreadable and not stats.problems:
        status = "read to the end"
    return (
        f"<tr><td class=msg>{_e(stats.name)}</td><td class=num>{_n(stats.lines)}</td>"
        f"<td class=num>{_e(_size(stats.bytes))}</td><td class=num>{_n(stats.errors)}</td>"
        f"<td>{_e(status)}</td></tr>"
    )


def _files(digest: Digest) -> str:
    head = [("file", False), ("lines", True), ("bytes", True), ("errors", True), ("read", False)]
    rows = [_file_row(stats) for stats in digest.files]
    more = digest.tally.files - len(digest.files)
    note = f"<p class=note>{_n(more)} more files are counted in the totals.</p>" if more else ""
    return f'<section id="files"><h2>Files</h2>{_table("files", head, rows)}{note}</section>'


# --- the timeline ---------------------------------------------------------------------


def _nice_step(peak: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that reaches ``peak`` in :data:`_Y_TICKS` steps."""
    magnitude = 1
    while True:  # ends: each round multiplies the step by ten
        for factor in (1, 2, 5):
            if factor * magnitude * _Y_TICKS >= peak:
                return factor * magnitude
        magnitude *= 10


def _y_axis(top: int, step: int, plot_h: float) -> list[str]:
    out = []
    for value in range(0, top + 1, step):
        y = _TOP + plot_h - plot_h * value / top
        out.append(
            f'<line x1="{_LEFT}" x2="{_CHART_W - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#dde2ea" shape-rendering="crispEdges"/>'
            f'<text x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" font-size="12">{value}</text>'
        )
    return out


def _x_axis(series: Series, slot: float, plot_h: float) -> list[str]:
    starts = series.starts
    every = max(1, math.ceil(len(starts) / _X_LABELS))
    fmt = _tick_format(series.width, starts[-1] - starts[0] + series.width)
    base = _TOP + plot_h
    out = []
    for index in range(0, len(starts), every):
        x = _LEFT + index * slot
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{base:.1f}" y2="{base + 5:.1f}" '
            'stroke="#9ca3af"/>'
            f'<text x="{x:.1f}" y="{base + 19:.1f}" text-anchor="middle" font-size="12">'
            f"{_e(_clock(starts[index]).strftime(fmt))}</text>"
        )
    return out


def _bars(series: Series, slot: float, plot_h: float, top: int) -> list[str]:
    bar_w = max(1.0, slot * 0.78)
    label = _width_label(series.width)
    out = []
    for index, start in enumerate(series.starts):
        x = _LEFT + index * slot + (slot - bar_w) / 2
        y = _TOP + plot_h
        when = f"{_clock(start):%Y-%m-%d %H:%M:%S} UTC (+{label})"
        for code, counts in series.counts.items():
            count = counts[index]
            if not count:
                continue
            height = plot_h * count / top
            y -= height
            out.append(
                f'<rect x="{x:.2f}" y="{y:.2f}" width="{bar_w:.2f}" height="{height:.2f}" '
                f'fill="{CODE_COLOURS[code]}" data-start="{start}" data-code="{code}" '
                f'data-count="{count}"><title>{_e(when)} · {code}: {count}</title></rect>'
            )
    return out


def _chart(series: Series) -> str:
    plot_w = _CHART_W - _LEFT - _RIGHT
    plot_h = _CHART_H - _TOP - _BOTTOM
    step = _nice_step(max(series.totals))
    top = math.ceil(max(series.totals) / step) * step
    slot = plot_w / len(series.starts)
    label = _width_label(series.width)
    svg = (
        f'<svg class="chart" id="timeline-chart" viewBox="0 0 {_CHART_W} {_CHART_H}" '
        f'role="img" aria-label="errors per {_e(label)}, stacked by code">'
    )
    plot = (
        f'<rect class="plot" x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" '
        'shape-rendering="crispEdges"/>'
    )
    x_title = (
        f'<text x="{_LEFT + plot_w / 2:.0f}" y="{_CHART_H - 6}" text-anchor="middle" '
        f'font-size="13">time (UTC), one bar per {_e(label)}</text>'
    )
    y_title = (
        f'<text transform="translate(16 {_TOP + plot_h / 2:.0f}) rotate(-90)" '
        f'text-anchor="middle" font-size="13">errors per {_e(label)}</text>'
    )
    parts = [
        svg,
        plot,
        *_y_axis(top, step, plot_h),
        '<g shape-rendering="crispEdges">',
        *_bars(series, slot, plot_h, top),
        "</g>",
        *_x_axis(series, slot, plot_h),
        x_title,
        y_title,
        "</svg>",
    ]
    return "".join(parts)


def _legend(series: Series) -> str:
    items = "".join(
        f"<li>{_swatch(code)}{_e(code)} <span class=note>{_n(sum(counts))}</span></li>"
        for code, counts in series.counts.items()
    )
    return f'<ul class="legend">{items}</ul>'


def _timeline(digest: Digest, series: Series) -> str:
    timeline, errors = digest.timeline, digest.tally.errors
    head = '<section id="timeline"><h2>Errors over time</h2>'
    if not series.starts:
        return (
            f"{head}<p class=note>No error carried a timestamp this report can read "
            "(ISO 8601, the <code>YYYY-MM-DD HH:MM:SS,mmm</code> log prefix, or epoch "
            "seconds in a JSON record), so there is no timeline.</p></section>"
        )
    untimed = errors - timeline.timed
    note = f"{_n(timeline.timed)} of {_n(errors)} errors carry a timestamp"
    note += f" ({_n(untimed)} without are not drawn)" if untimed else ""
    note += f"; {_e(_span_text(digest))}; times without an offset are taken as written."
    chart = f"<figure style=margin:0>{_chart(series)}</figure>"
    return f"{head}{_legend(series)}{chart}<p class=note>{note}</p></section>"


def _sparkline(code: ErrorCode, series: Series) -> str:
    counts = series.counts.get(code)
    if not counts:
        return "<td class=note>no timestamps</td>"
    peak = max(counts)
    slot = _SPARK_W / len(counts)
    bar_w = max(1.0, slot * 0.8)
    rects = "".join(
        f'<rect x="{i * slot:.2f}" y="{_SPARK_H - 1 - (_SPARK_H - 2) * c / peak:.2f}" '
        f'width="{bar_w:.2f}" height="{(_SPARK_H - 2) * c / peak:.2f}"/>'
        for i, c in enumerate(counts)
        if c
    )
    label = f"{code} per {_width_label(series.width)}, peak {peak}"
    return (
        f'<td><svg class="spark" width="{_SPARK_W}" height="{_SPARK_H}" '
        f'viewBox="0 0 {_SPARK_W} {_SPARK_H}" role="img" '
        f'aria-label="{_e(label)}"><title>{_e(label)}</title>'
        f'<line x1="0" x2="{_SPARK_W}" y1="{_SPARK_H - 0.5}" y2="{_SPARK_H - 0.5}" '
        'stroke="#d1d5db"/>'
        f'<g fill="{CODE_COLOURS[code]}" shape-rendering="crispEdges">{rects}</g></svg>'
        f"<span class=note>peak {_n(peak)}</span></td>"
    )


# --- the tables -----------------------------------------------------------------------


def _codes(digest: Digest, series: Series) -> str:
    tally = digest.tally
    if not tally.errors:
        return '<section id="codes"><h2>Errors by code</h2><p>No errors found.</p></section>'
    rows = []
    for code, count in sorted(tally.by_code.items(), key=lambda item: (-item[1], item[0])):
        retryable = tally.retryable_by_code[code]
        rows.append(
            f'<tr data-code="{code}">{_code_cell(code)}<td class="num count">{_n(count)}</td>'
            f"<td class=num>{_share(count, tally.errors)}</td>"
            f'<td class="num retryable">{_share(retryable, count)}</td>'
            f"{_sparkline(code, series)}{_excerpts(digest.code_excerpts[code])}</tr>"
        )
    rows.append(
        '<tr class="total"><td class="code">total</td>'
        f'<td class="num count">{_n(tally.errors)}</td><td class=num>100%</td>'
        f'<td class="num retryable">{_share(tally.retryable, tally.errors)}</td>'
        "<td></td><td></td></tr>"
    )
    head = [
        ("code", False),
        ("errors", True),
        ("share", True),
        ("retryable", True),
        ("over time", False),
        ("examples (redacted)", False),
    ]
    return f'<section id="codes"><h2>Errors by code</h2>{_table("codes", head, rows)}</section>'


def _more(shown: int, total: int, noun: str) -> str:
    if total <= shown:
        return ""
    return f"<p class=note>{_plural(total - shown, noun)} more not shown (raise --top).</p>"


def _rules(digest: Digest, top: int) -> str:
    by_rule = digest.tally.by_rule
    if not by_rule:
        return '<section id="rules"><h2>Top rules</h2><p>No errors found.</p></section>'
    ranked = sorted(by_rule.items(), key=lambda item: (-item[1], item[0]))
    rows = [
        f'<tr data-rule="{_e(rule)}" data-code="{code}"><td class=rule>{_e(rule)}</td>'
        f"{_code_cell(code)}"
        f'<td class="num count">{_n(count)}</td>{_excerpts(digest.rule_excerpts[rule, code])}</tr>'
        for (rule, code), count in ranked[:top]
    ]
    head = [("rule", False), ("code", False), ("errors", True), ("examples (redacted)", False)]
    return (
        f'<section id="rules"><h2>Top rules</h2><p class=note>The rule that decided each error; '
        f"<code>fallback</code> means none did.</p>{_table('rules', head, rows)}"
        f"{_more(len(rows), len(ranked), 'rule')}</section>"
    )


def _chips(row: Named) -> str:
    chips = "".join(
        f"<span>{_swatch(code)}{_e(code)} {_n(count)}</span>"
        for code, count in sorted(row.codes.items(), key=lambda item: (-item[1], item[0]))
    )
    return f'<td class="chips">{chips}</td>'


def _providers(digest: Digest, top: int) -> str:
    named = [(key, row) for key, row in digest.named.items() if key != (None, None)]
    head = '<section id="providers"><h2>By provider and model</h2>'
    if not named:
        return f"{head}<p>No error names a provider or model.</p></section>"
    # Rows of one provider stay together, the provider with most errors first.
    per_provider = Counter[str | None]()
    for (provider, _), row in named:
        per_provider[provider] += row.count
    ranked = sorted(
        named,
        key=lambda item: (
            -per_provider[item[0][0]],
            item[0][0] or "~",
            -item[1].count,
            item[0][1] or "",
        ),
    )
    rows = [
        f"<tr><td>{_e(provider or '—')}</td><td class=rule>{_e(model or '—')}</td>"
        f'<td class="num count">{_n(row.count)}</td>'
        f"<td class=num>{_share(row.retryable, row.count)}</td>"
        f"{_chips(row)}{_excerpts(row.excerpts)}</tr>"
        for (provider, model), row in ranked[:top]
    ]
    columns = [
        ("provider", False),
        ("model", False),
        ("errors", True),
        ("retryable", True),
        ("codes", False),
        ("examples (redacted)", False),
    ]
    unnamed = digest.unnamed
    note = (
        f"<p class=note>Where the message names them; {_plural(unnamed, 'error')} "
        "named neither and are not listed.</p>"
    )
    return (
        f"{head}{note}"
        f"{_table('providers', columns, rows)}{_more(len(rows), len(ranked), 'row')}</section>"
    )


def _unmatched(digest: Digest, top: int) -> str:
    counter = digest.tally.unmatched_messages
    messages = counter.most_common(top)
    head = '<section id="unmatched"><h2>Most frequent unmatched messages</h2>'
    if not messages:
        return f"{head}<p>None: a rule routed every error.</p></section>"
    note = "Numbers, ids and times folded, so repeats count together."
    if counter.approximate:
        note += " Counts are lower bounds: rare messages were pruned to bound memory."
    rows = [
        f'<tr><td class="num count">{_n(count)}</td><td class=msg>{_e(message)}</td>'
        f"{_excerpts(digest.unmatched_excerpts.get(message, ()))}</tr>"
        for message, count in messages
    ]
    columns = [("errors", True), ("message (folded)", False), ("examples (redacted)", False)]
    return (
        f"{head}<p class=note>{note} No rule knows these: they are not LLM failures, or a "
        f"pattern is missing.</p>{_table('unmatched', columns, rows)}"
        f"{_more(len(rows), counter.distinct, 'message')}</section>"
    )


def render_html(
    digest: Digest,
    *,
    title: str,
    elapsed: float,
    generated: datetime,
    top: int = 15,
    field: str | None = None,
) -> str:
    """The whole report page; ``top`` bounds the rows of each ranked table."""
    series = digest.timeline.series()
    body = "".join(
        [
            _header(digest, title, elapsed, field),
            _timeline(digest, series),
            _codes(digest, series),
            _rules(digest, top),
            _providers(digest, top),
            _unmatched(digest, top),
        ]
    )
    footer = (
        f"<footer>Written by <code>llm-errors report</code> on "
        f"{generated.astimezone(UTC):%Y-%m-%d %H:%M} UTC. Self-contained: no scripts, "
        "nothing loaded from the network. Examples are redacted excerpts.</footer>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>"
        f"<body><main>{body}{footer}</main></body></html>\n"
    )
