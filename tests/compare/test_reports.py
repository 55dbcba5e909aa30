"""Report files from a comparison computed without Spark: escaping, junit structure, summary shape."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
from junitparser import Failure, JUnitXml, Skipped

from harness.compare.inputs import load_runs
from harness.compare.results import MISMATCH_COLUMNS, build
from harness.compare.run import write_report
from tests.compare.plain import plain_job, plain_summary
from tests.compare.synth import make_matrix


def _report(tmp_path: Path) -> tuple[Path, list[Path]]:
    dirs = make_matrix(tmp_path / "runs", n=60)
    report = build(plain_job(load_runs(dirs)), load_runs(dirs))
    out = tmp_path / "report"
    out.mkdir()
    write_report(report, out)
    return out, dirs


def test_html_is_escaped_and_self_contained(tmp_path: Path) -> None:
    out, _ = _report(tmp_path)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html.lower()
    assert "&lt;script&gt;" in html  # the SQL and the replica's first writer are there, escaped
    assert "Error 1032 &lt;b&gt;" in html and "Error 1032 <b>" not in html  # replica errors too
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:|//)""", html)
    assert html.count("<svg") == 3


def test_junit_parses_with_one_case_per_statement_dimension(tmp_path: Path) -> None:
    out, dirs = _report(tmp_path)
    xml = JUnitXml.fromfile(str(out / "junit.xml"))
    plain = plain_summary(dirs)
    cases = [c for suite in xml for c in suite]
    assert len(cases) == plain["statements"] * 7
    failures = [c for c in cases if any(isinstance(r, Failure) for r in c.result)]
    skipped = [c for c in cases if any(isinstance(r, Skipped) for r in c.result)]
    assert len(failures) == len(plain["rows"])
    excluded = plain["statements"] * 7 - sum(d["total"] for d in plain["dimensions"].values())
    assert len(skipped) == excluded


def test_summary_and_mismatches(tmp_path: Path) -> None:
    out, dirs = _report(tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    plain = plain_summary(dirs)
    assert summary["statements"] == plain["statements"]
    assert summary["dimensions"] == plain["dimensions"]
    assert summary["by_server"] == plain["by_server"]
    m = pq.read_table(out / "mismatches.parquet")
    assert tuple(m.column_names) == MISMATCH_COLUMNS
    assert m.num_rows == len(plain["rows"])
    md = (out / "report.md").read_text()
    assert "| row_events |" in md and "<script" not in md


def test_junit_without_statement_verdicts_lists_at_most_max_failures(tmp_path: Path) -> None:
    """Above --junit-limit only failures are listed, and only the first few; mismatches.parquet has all."""
    from dataclasses import replace

    from harness.compare.junit import write_junit

    dirs = make_matrix(tmp_path / "runs", n=60)
    report = replace(build(plain_job(load_runs(dirs)), load_runs(dirs)), statements=None)
    assert report.mismatch_count > 5
    for limit, listed in ((5, 5), (10 ** 6, report.mismatch_count)):
        path = tmp_path / f"junit-{limit}.xml"
        write_junit(report, path, max_failures=limit)
        cases = [c for suite in JUnitXml.fromfile(str(path)) for c in suite]
        assert len(cases) == listed
        assert all(any(isinstance(r, Failure) for r in c.result) for c in cases)
        assert (f"the first {listed} of" in path.read_text()) == (listed < report.mismatch_count)
