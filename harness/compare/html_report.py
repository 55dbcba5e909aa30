"""report.html: one self-contained page (inline CSS and SVG, no scripts, no external assets).

Every piece of text from the inputs goes through ``html.escape``: workload SQL is untrusted.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape
from pathlib import Path
from typing import Any

import pyarrow.compute as pc

from harness.compare.results import Report
from predictor.records import DIMENSIONS

MAX_MISMATCHES = 500
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f")

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right}code,pre{font:12px/1.3 monospace;white-space:pre-wrap;
word-break:break-all;margin:0}.ok{color:#2a7a2a}.bad{color:#b00020}svg text{font:11px sans-serif}
"""


def _e(x: Any) -> str:
    return escape("" if x is None else str(x), quote=True)


def _pct(d: dict[str, int]) -> float | None:
    return None if not d["total"] else d["agree"] / d["total"]


def agreement_chart(by_server: dict[str, Any]) -> str:
    """Horizontal bars: per dimension, one bar per server, length = agreement."""
    servers = list(by_server)
    bar, gap, label_w, width = 12, 8, 90, 360
    group_h = bar * max(len(servers), 1) + gap
    legend_h = 16 * len(servers) + 6
    h = legend_h + group_h * len(DIMENSIONS) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + width + 70}" height="{h}" role="img">']
    for i, s in enumerate(servers):
        y = 4 + 16 * i
        out.append(f'<rect x="0" y="{y}" width="10" height="10" fill="{PALETTE[i % len(PALETTE)]}"/>'
                   f'<text x="14" y="{y + 9}">{_e(s)}</text>')
    for di, d in enumerate(DIMENSIONS):
        y0 = legend_h + di * group_h
        out.append(f'<text x="0" y="{y0 + group_h / 2}">{_e(d)}</text>')
        for si, s in enumerate(servers):
            p = _pct(by_server[s]["dimensions"][d])
            y = y0 + si * bar
            w = 0 if p is None else width * p
            label = "n/a" if p is None else f"{100 * p:.1f}%"
            out.append(f'<rect x="{label_w}" y="{y}" width="{width}" height="{bar - 2}" fill="#eee"/>'
                       f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar - 2}" '
                       f'fill="{PALETTE[si % len(PALETTE)]}"><title>{_e(s)} {_e(d)}: {label}</title></rect>'
                       f'<text x="{label_w + width + 4}" y="{y + bar - 3}">{label}</text>')
    out.append("</svg>")
    return "".join(out)


def format_matrix_chart(matrix: dict[str, dict[str, int]]) -> str:
    """Heat map: predicted format (rows) x observed format (columns)."""
    rows = sorted(matrix)
    cols = sorted({c for r in matrix.values() for c in r})
    if not rows:
        return "<p>no statements</p>"
    cell, left, top = 70, 110, 40
    peak = max(n for r in matrix.values() for n in r.values()) or 1
    w, h = left + cell * len(cols) + 10, top + cell * len(rows) // 2 + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img">',
           f'<text x="{left}" y="12">observed →</text><text x="0" y="{top - 4}">predicted ↓</text>']
    for ci, c in enumerate(cols):
        out.append(f'<text x="{left + ci * cell + 4}" y="{top - 4}">{_e(c)}</text>')
    for ri, r in enumerate(rows):
        y = top + ri * cell // 2
        out.append(f'<text x="0" y="{y + 22}">{_e(r)}</text>')
        for ci, c in enumerate(cols):
            n = matrix[r].get(c, 0)
            shade = int(235 - 170 * n / peak)
            color = f"rgb({shade},{shade + 10 if r == c else shade},{255 if r == c else shade})"
            out.append(f'<rect x="{left + ci * cell}" y="{y}" width="{cell - 2}" height="{cell // 2 - 2}" '
                       f'fill="{color}"/><text x="{left + ci * cell + 6}" y="{y + 22}">{n}</text>')
    out.append("</svg>")
    return "".join(out)


def binlog_bytes_chart(runs: list[dict[str, Any]]) -> str:
    """Mean binlog bytes per (server, binlog_row_image) over the runs that report it."""
    acc: dict[tuple[str, str], list[int]] = defaultdict(list)
    for r in runs:
        if r.get("binlog_bytes") is not None:
            acc[(r["server"], r["binlog_row_image"] or "?")].append(int(r["binlog_bytes"]))
    if not acc:
        return "<p>no run reported binlog_bytes</p>"
    keys = sorted(acc)
    means = {k: sum(v) / len(v) for k, v in acc.items()}
    peak = max(means.values()) or 1.0
    bar, label_w, width = 18, 260, 320
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + width + 120}" '
           f'height="{bar * len(keys) + 10}" role="img">']
    images = sorted({k[1] for k in keys})
    for i, k in enumerate(keys):
        y = 4 + i * bar
        color = PALETTE[images.index(k[1]) % len(PALETTE)]
        out.append(f'<text x="0" y="{y + 12}">{_e(k[0])} · {_e(k[1])}</text>'
                   f'<rect x="{label_w}" y="{y}" width="{width * means[k] / peak:.1f}" height="{bar - 4}" '
                   f'fill="{color}"/><text x="{label_w + width + 4}" y="{y + 12}">'
                   f'{means[k]:,.0f} B (n={len(acc[k])})</text>')
    out.append("</svg>")
    return "".join(out)


def _dimension_table(report: Report) -> str:
    s = report.summary
    servers = list(s["by_server"])
    head = "".join(f"<th>{_e(x)}</th>" for x in servers)
    rows = []
    for d in DIMENSIONS:
        cells = []
        for dd in [s["dimensions"][d], *[s["by_server"][x]["dimensions"][d] for x in servers]]:
            p = _pct(dd)
            cls = "ok" if dd["agree"] == dd["total"] else "bad"
            cells.append(f'<td class="num {cls}">{dd["agree"]}/{dd["total"]}'
                         f'{"" if p is None else f" ({100 * p:.1f}%)"}</td>')
        rows.append(f"<tr><th>{_e(d)}</th>{''.join(cells)}</tr>")
    return f"<table><tr><th>dimension</th><th>all</th>{head}</tr>{''.join(rows)}</table>"


def _runs_table(report: Report) -> str:
    rows = []
    for r in report.summary["runs"]:
        rows.append("<tr>" + "".join(f"<td>{_e(r.get(k))}</td>" for k in (
            "run", "workload", "server", "server_version", "binlog_format", "binlog_row_image",
            "transaction_isolation", "statements", "mismatches", "binlog_bytes")) + "</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("run", "workload", "server", "version", "format", "row image",
                                              "isolation", "statements", "mismatches", "binlog bytes"))
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _mismatch_table(report: Report) -> str:
    m = report.mismatches
    if not m.num_rows:
        return '<p class="ok">No mismatches.</p>'
    rows = []
    for x in m.slice(0, MAX_MISMATCHES).to_pylist():
        rows.append(f"<tr><td>{_e(x['run'])}</td><td>{_e(x['server'])}</td><td class=num>{_e(x['seq'])}</td>"
                    f"<td>{_e(x['dimension'])}</td><td>{_e(x['code'])}</td><td><code>{_e(x['predicted'])}"
                    f"</code></td><td><code>{_e(x['observed'])}</code></td><td><pre>{_e(x['sql'])}</pre></td></tr>")
    more = "" if m.num_rows <= MAX_MISMATCHES else (
        f"<p>First {MAX_MISMATCHES} of {m.num_rows}; all are in mismatches.parquet.</p>")
    return ("<table><tr><th>run</th><th>server</th><th>seq</th><th>dimension</th><th>code</th>"
            f"<th>predicted</th><th>observed</th><th>sql</th></tr>{''.join(rows)}</table>{more}")


def _top_fingerprints(report: Report, limit: int = 30) -> str:
    a = report.aggregates
    bad = a.filter(pc.greater(a["mismatch"], 0)) if a.num_rows else a
    if not bad.num_rows:
        return "<p>none</p>"
    rows = "".join(
        f"<tr><td>{_e(x['dimension'])}</td><td>{_e(x['server'])}</td><td>{_e(x['binlog_format'])}</td>"
        f"<td>{_e(x['binlog_row_image'])}</td><td>{_e(x['unsafe_reason'])}</td><td class=num>{x['mismatch']}/"
        f"{x['total']}</td><td><pre>{_e(x['fingerprint'])}</pre></td></tr>"
        for x in bad.slice(0, limit).to_pylist())
    return ("<table><tr><th>dimension</th><th>server</th><th>format</th><th>row image</th><th>unsafe</th>"
            f"<th>mismatch/total</th><th>fingerprint</th></tr>{rows}</table>")


def _divergence(report: Report) -> str:
    items = []
    for r in report.runs:
        if r.replica is None:
            continue
        if not r.replica.caught_up:
            items.append(f"<li><b>{_e(r.run)}</b>: replica did not catch up</li>")
        for err in r.replica.errors:
            items.append(f"<li><b>{_e(r.run)}</b>: replica error <code>{_e(err)}</code></li>")
        for t in r.replica.diverged:
            keys = ", ".join(t.differing_keys[:10])
            items.append(f"<li><b>{_e(r.run)}</b>: table <code>{_e(t.table)}</code> diverged "
                         f"(primary {_e(t.primary_rows)} rows, replica {_e(t.replica_rows)} rows"
                         f"{'; keys ' + _e(keys) if keys else ''}); "
                         f"first writer seq {_e(t.first_writer_seq)}: "
                         f"<pre>{_e(t.first_writer_sql)}</pre></li>")
    if not items:
        return '<p class="ok">No replica divergence reported.</p>'
    return f"<ul>{''.join(items)}</ul>"


def render_html(report: Report) -> str:
    s = report.summary
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>rplay compare</title>'
        f"<style>{CSS}</style></head><body>"
        f"<h1>rplay compare: {s['statements']} statements, {len(report.runs)} runs, "
        f'<span class="{"bad" if s["mismatches"] else "ok"}">{s["mismatches"]} mismatches</span></h1>'
        f"<h2>Agreement per dimension</h2>{_dimension_table(report)}"
        f"<h2>Agreement per dimension per server</h2>{agreement_chart(s['by_server'])}"
        f"<h2>Predicted &times; observed format</h2>{format_matrix_chart(s['format_matrix'])}"
        f"<h2>Binlog bytes per row-image mode</h2>{binlog_bytes_chart(s['runs'])}"
        f"<h2>Runs</h2>{_runs_table(report)}"
        f"<h2>Replica divergence</h2>{_divergence(report)}"
        f"<h2>Mismatching statement shapes</h2>{_top_fingerprints(report)}"
        f"<h2>Mismatches</h2>{_mismatch_table(report)}"
        "</body></html>\n")


def write_html(report: Report, path: Path) -> None:
    path.write_text(render_html(report), encoding="utf-8")
