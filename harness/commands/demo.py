"""``rplay demo``: the seed corpus on a local MariaDB pair, predicted, observed, compared, reported."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "seeds"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "demo", help="run the seed corpus on a local MariaDB pair and write the comparison report",
        description="Runs every seed workload under STATEMENT, MIXED and ROW x FULL, MINIMAL, NOBLOB on one "
                    "local MariaDB primary/replica pair, predicts each run, compares with PySpark and writes "
                    "the report.")
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="fixture directory (default: the seeds)")
    p.add_argument("--out", type=Path, default=Path("reports/demo"), help="output directory")
    p.add_argument("--server", default="local:mariadb", help="server spec (default local:mariadb)")
    p.add_argument("--spark-master", default="local[*]", metavar="URL")
    p.add_argument("--workers", type=int, default=3, help="server pairs run side by side (default 3)")
    p.set_defaults(func=_main)


def _main(args: argparse.Namespace) -> int:
    from harness.demo import demo
    from predictor.exceptions import UsageError

    if not args.corpus.is_dir():
        raise UsageError(f"corpus directory not found: {args.corpus}")
    return demo(args.corpus, args.out, args.server, args.spark_master, args.workers)
