"""report.md: a short Markdown summary for CI comments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.compare.results import Report
from predictor.records import DIMENSIONS

MAX_ROWS = 20


def _pct(d: dict[str, int]) -> str:
    return "-" if not d["total"] else f"{100 * d['agree'] / d['total']:.1f}%"


def _cell(text: Any, limit: int = 120) -> str:
    s = " ".join(str(text).split())
    s = s if len(s) <= limit else s[: limit - 1] + "…"
    return s.replace("|", "\\|").replace("`", "'").replace("<", "&lt;").replace(">", "&gt;")


def render_markdown(report: Report) -> str:
    s = report.summary
    out = [f"## rplay compare: {s['statements']} statements, {len(report.runs)} runs, "
           f"{s['mismatches']} mismatches", ""]
    servers = list(s["by_server"])
    out.append("| dimension | all | " + " | ".join(_cell(x) for x in servers) + " |")
    out.append("|---|---|" + "---|" * len(servers))
    for d in DIMENSIONS:
        dd = s["dimensions"][d]
        row = [d, f"{dd['agree']}/{dd['total']} ({_pct(dd)})"]
        row += [_pct(s["by_server"][x]["dimensions"][d]) for x in servers]
        out.append("| " + " | ".join(row) + " |")
    if s["codes"]:
        out += ["", "| code | count |", "|---|---|"]
        out += [f"| {c} | {n} |" for c, n in sorted(s["codes"].items(), key=lambda kv: -kv[1])]
    if report.mismatches.num_rows:
        out += ["", f"### First mismatches (of {report.mismatches.num_rows})", "",
                "| run | seq | dimension | code | predicted | observed | sql |", "|---" * 7 + "|"]
        for m in report.mismatches.slice(0, MAX_ROWS).to_pylist():
            out.append(f"| {_cell(m['run'], 40)} | {m['seq']} | {m['dimension']} | {m['code']} | "
                       f"{_cell(m['predicted'], 60)} | {_cell(m['observed'], 60)} | {_cell(m['sql'])} |")
    div = [(r, t) for r in report.runs if r.replica for t in r.replica.diverged]
    bad = [r for r in report.runs if r.replica and (not r.replica.caught_up or r.replica.errors)]
    if div or bad:
        out += ["", "### Replica findings", ""]
        for r in bad:
            out.append(f"- {_cell(r.run, 60)}: caught_up={r.replica.caught_up if r.replica else '?'} "
                       f"errors: {_cell('; '.join(r.replica.errors) if r.replica else '')}")
        for r, t in div:
            out.append(f"- {_cell(r.run, 60)}: table {_cell(t.table, 40)} diverged "
                       f"({t.primary_rows} vs {t.replica_rows} rows); first writer seq {t.first_writer_seq}: "
                       f"{_cell(t.first_writer_sql or '')}")
    return "\n".join(out) + "\n"


def write_markdown(report: Report, path: Path) -> None:
    path.write_text(render_markdown(report), encoding="utf-8")
