"""``compare()``: run directories in, REPORT_DIR with summary/aggregates/mismatches/html/md/junit out."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pyarrow.parquet as pq

from harness.compare.html_report import write_html
from harness.compare.inputs import load_runs, stage
from harness.compare.job import Engine, JobOptions, run_job
from harness.compare.junit import write_junit
from harness.compare.markdown import write_markdown
from harness.compare.results import Report, build
from harness.compare.session import starting_spark_session
from predictor.exceptions import CompareError

DEFAULT_MASTER = "local[*]"


def compare(paths: Sequence[Path | str], out_dir: Path | str, *, master: str = DEFAULT_MASTER,
            engine: Engine = Engine.ARROW, statement_limit: int = 50_000,
            shuffle_partitions: int = 8) -> Report:
    """Compare every run below ``paths`` and write the report files into ``out_dir``."""
    runs = load_runs(paths)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CompareError(f"cannot create report directory {out}: {e}") from None
    staging = out / ".staging"
    try:
        # Spark's JVM starts while the driver reads and stages the inputs
        with starting_spark_session(master, shuffle_partitions=shuffle_partitions) as pending:
            parts = stage(runs, staging)
            result = run_job(pending.get(), parts, JobOptions(engine=engine, statement_limit=statement_limit))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    report = build(result, runs, engine=engine.value)
    write_report(report, out)
    return report


def write_report(report: Report, out: Path) -> None:
    (out / "summary.json").write_text(json.dumps(report.summary, indent=2) + "\n", encoding="utf-8")
    pq.write_table(report.mismatches, out / "mismatches.parquet")
    pq.write_table(report.aggregates, out / "aggregates.parquet")
    write_html(report, out / "report.html")
    write_markdown(report, out / "report.md")
    write_junit(report, out / "junit.xml")
