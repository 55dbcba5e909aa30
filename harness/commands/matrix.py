"""``rplay matrix MATRIX.toml --out DIR``: run every cell of a matrix (resumable), then compare them all."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "matrix", help="run workloads x servers x binlog_format x row image x isolation, then compare",
        description="Run every cell of MATRIX.toml into DIR/cells/<cell> (cells already done are skipped), "
                    "then compare all cells into DIR/report. Exit 0: all agree; 1: mismatches or failed "
                    "cells; 2: bad input.")
    p.add_argument("matrix", type=Path, metavar="MATRIX.toml")
    p.add_argument("--out", required=True, type=Path, metavar="DIR")
    p.add_argument("--spark-master", default="local[*]", metavar="URL")
    p.add_argument("--no-compare", action="store_true", help="only run the cells")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    from harness.matrix import CELLS, load_matrix, run_matrix

    matrix = load_matrix(args.matrix)
    result = run_matrix(matrix, args.out)
    print(f"matrix: {len(result.ran)} cells run, {len(result.skipped)} already done, "
          f"{len(result.failed)} failed", file=sys.stderr)
    rc = 1 if result.failed else 0
    if args.no_compare:
        return rc
    if not any((args.out / CELLS).iterdir()):
        return rc or 1
    from harness.compare import compare

    report = compare([args.out / CELLS], args.out / "report", master=args.spark_master)
    print(f"compare: {report.summary['statements']} statements, {report.mismatch_count} mismatches -> "
          f"{args.out / 'report'}", file=sys.stderr)
    return max(rc, 1 if report.mismatch_count else 0)
