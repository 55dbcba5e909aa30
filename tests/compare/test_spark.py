"""The Spark job on synthetic run directories: counts equal a plain-Python count; engines agree; cluster."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from junitparser import Failure, JUnitXml

from harness.compare import Engine, compare
from harness.compare.results import Report
from tests.compare.plain import plain_summary
from tests.compare.synth import make_matrix

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return make_matrix(tmp_path_factory.mktemp("runs"), n=150)


@pytest.fixture(scope="module")
def native(runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Report, Path]]:
    out = tmp_path_factory.mktemp("native")
    yield compare([runs[0].parent], out, master="local[2]"), out


def _rows(report: Report) -> set[tuple[object, ...]]:
    m = report.mismatches
    return set(zip(*(m[c].to_pylist() for c in ("run", "seq", "dimension", "code", "predicted", "observed")),
                   strict=True))


def test_summary_equals_plain_count(native: tuple[Report, Path], runs: list[Path]) -> None:
    report, out = native
    summary = json.loads((out / "summary.json").read_text())
    plain = plain_summary(runs)
    assert summary["statements"] == plain["statements"] == 4 * 151
    assert summary["dimensions"] == plain["dimensions"]
    assert summary["by_server"] == plain["by_server"]
    assert _rows(report) == plain["rows"]
    assert pq.read_table(out / "mismatches.parquet").num_rows == len(plain["rows"])


def test_report_files(native: tuple[Report, Path]) -> None:
    _report, out = native
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html.lower() and "&lt;script&gt;" in html
    xml = JUnitXml.fromfile(str(out / "junit.xml"))
    cases = [c for s in xml for c in s]
    assert len(cases) == 4 * 151 * 7
    assert sum(1 for c in cases if any(isinstance(r, Failure) for r in c.result)) == _report.mismatch_count


@pytest.mark.parametrize("engine", [Engine.NATIVE, Engine.PYTHON])
def test_engines_agree(native: tuple[Report, Path], runs: list[Path], tmp_path: Path, engine: Engine) -> None:
    """The default (arrow) engine, Spark column expressions and the plain rules per row: same results."""
    py = compare([runs[0].parent], tmp_path, master="local[2]", engine=engine)
    report, _ = native
    assert _rows(py) == _rows(report)
    assert py.summary["dimensions"] == report.summary["dimensions"]
    assert py.statements is not None and report.statements is not None
    cols = report.statements.column_names
    key = [("run", "ascending"), ("seq", "ascending")]
    assert py.statements.select(cols).sort_by(key).equals(report.statements.sort_by(key))
    assert py.aggregates.sort_by([(c, "ascending") for c in py.aggregates.column_names]).equals(
        report.aggregates.sort_by([(c, "ascending") for c in report.aggregates.column_names]))


def test_parquet_inputs_and_exit_status(runs: list[Path], tmp_path: Path) -> None:
    """Parquet run dirs read in place; the CLI says 1 on mismatches and 0 when everything agrees."""
    from harness.compare.inputs import parse_jsonl, records_table
    from tests.compare.synth import write_run

    pred = parse_jsonl(runs[0] / "predicted.jsonl")
    same = tmp_path / "agree"
    write_run(same, pred, [r for r in pred if r.format.value != "UNKNOWN"],
              server="s", binlog_format="ROW", row_image="FULL")
    for side in ("predicted", "observed"):
        recs = parse_jsonl(same / f"{side}.jsonl")
        if side == "predicted":
            recs = [r for r in recs if r.format.value != "UNKNOWN"]
        pq.write_table(records_table(recs), same / f"{side}.parquet")
        (same / f"{side}.jsonl").unlink()
    cli = [str(Path(__file__).parents[2] / ".venv/bin/python"), "-m", "harness.cli", "compare"]
    ok = subprocess.run([*cli, str(same), "--out", str(tmp_path / "r0"), "--spark-master", "local[2]"],
                        capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "r0" / "summary.json").read_text())["mismatches"] == 0
    bad = subprocess.run([*cli, str(runs[1]), "--out", str(tmp_path / "r1"), "--spark-master", "local[2]"],
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1, bad.stderr
    assert "Traceback" not in bad.stderr


def test_standalone_cluster_gives_the_same_result(native: tuple[Report, Path], runs: list[Path],
                                                  tmp_path: Path) -> None:
    from tests.compare.spark_cluster import standalone_cluster

    before = _daemons()
    with standalone_cluster() as url:
        remote = compare([runs[0].parent], tmp_path, master=url)
    report, _ = native
    assert remote.summary["dimensions"] == report.summary["dimensions"]
    assert _rows(remote) == _rows(report)
    assert _daemons() == before  # master and worker are gone


def _daemons() -> set[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines()
            if "org.apache.spark.deploy.master.Master" in line
            or "org.apache.spark.deploy.worker.Worker" in line}
