"""``rplay predict WORKLOAD --server PROFILE``: one JSON record per statement, no server needed."""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime
from pathlib import Path

from harness.options import add_var_options, parse_vars
from predictor.engines import load_engine_profiles
from predictor.exceptions import UsageError
from predictor.predict import predict_workload
from predictor.profiles import PROFILES
from predictor.workload import load_workload


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("predict", help="predict what a server writes to its binlog for each statement",
                       description="Predict, per statement, the unsafe reasons, format, errors and warnings, "
                                   "cache, binlog group and row-image columns on a server profile.")
    p.add_argument("workload", help="workload file (.sql)")
    p.add_argument("--server", default="mariadb-10.11", metavar="PROFILE",
                   help=f"server profile: {', '.join(sorted(PROFILES))} (default mariadb-10.11)")
    add_var_options(p)
    p.add_argument("--engines", metavar="TOML", help="user engine profile file ([engine.NAME] tables)")
    p.add_argument("--at", metavar="TIME", type=_run_time,
                   help="when the run starts: an ISO date-time (local time unless it names a zone) or 'now'; "
                        "date literals are then compared with NOW() as of then (default: the run may come "
                        "up to a year after today)")
    p.add_argument("--out", metavar="FILE", help="write JSONL here instead of stdout")
    p.set_defaults(func=run)


def _run_time(text: str) -> float:
    """``--at``: seconds since the epoch (a run.json's ``started_at`` is accepted as it is)."""
    if text == "now":
        return time.time()
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO date-time or 'now': {text!r}") from None


def run(args: argparse.Namespace) -> int:
    profile = args.server.removeprefix("local:").removeprefix("docker:")
    if profile not in PROFILES:
        raise UsageError(f"unknown server profile {args.server!r}; known: {', '.join(sorted(PROFILES))}")
    if not Path(args.workload).is_file():
        raise UsageError(f"workload file not found: {args.workload}")
    workload = load_workload(args.workload)
    engines = load_engine_profiles(args.engines) if args.engines else None
    records = predict_workload(workload, profile, parse_vars(args.set_vars, "--set"),
                               parse_vars(args.server_opts, "--server-opt"), engines, run_at=args.at)
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    try:
        for r in records:
            out.write(r.dumps() + "\n")
    finally:
        if args.out:
            out.close()
    return 0
