"""``rplay compare RUN_DIR... --out REPORT_DIR``: score predictions against real runs with PySpark."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "compare", help="compare predicted and observed records of run directories (PySpark)",
        description="Join predicted and observed records of run directories by seq, score every dimension "
                    "and write summary.json, mismatches.parquet, aggregates.parquet, report.html, report.md "
                    "and junit.xml. Exit 0: all agree; 1: mismatches; 2: bad input.")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR",
                   help="run directories, or directories containing them")
    p.add_argument("--out", required=True, type=Path, metavar="REPORT_DIR")
    p.add_argument("--spark-master", default="local[*]", metavar="URL",
                   help="Spark master (default local[*]; e.g. spark://127.0.0.1:7077)")
    p.add_argument("--engine", choices=("arrow", "native", "python"), default="arrow",
                   help="arrow: pyarrow join and columnar scoring inside Spark tasks (fastest); "
                        "native: Spark column expressions; python: the plain rules per row")
    p.add_argument("--junit-limit", type=int, default=50_000, metavar="N",
                   help="list passing testcases in junit.xml only up to N statements (default 50000)")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    from harness.compare import Engine, compare

    report = compare(args.runs, args.out, master=args.spark_master, engine=Engine(args.engine),
                     statement_limit=args.junit_limit)
    s = report.summary
    agree = sum(d["agree"] for d in s["dimensions"].values())
    total = sum(d["total"] for d in s["dimensions"].values())
    print(f"{s['statements']} statements in {len(report.runs)} runs: {agree}/{total} statement-dimensions "
          f"agree, {report.mismatch_count} mismatches -> {args.out}", file=sys.stderr)
    return 1 if report.mismatch_count else 0
