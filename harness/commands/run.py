"""``rplay run WORKLOAD --server SPEC [--set VAR=VALUE ...] [--server-opt VAR=VALUE ...] --out DIR``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.options import add_var_options, parse_vars
from harness.progress import Progress


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "run", help="replay a workload on a real primary/replica pair and record what happened",
        description="Replay WORKLOAD on a fresh primary/replica pair; write observed/predicted records, "
                    "binlog events, the replica check and run.json to --out (see harness/RUN_DIR.md).")
    p.add_argument("workload", type=Path, help="workload file")
    p.add_argument("--server", default="local:mariadb", metavar="SPEC",
                   help="local:mariadb (default), local:mysql, docker:NAME")
    p.add_argument("--basedir", type=Path, help="server installation directory for local:* servers")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="run directory to write")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds to wait for the replica to catch up (default 30)")
    p.add_argument("--cache-stats", action=argparse.BooleanOptionalAction, default=True,
                   help="record Binlog_cache_use / Binlog_stmt_cache_use deltas per statement (default: on; "
                        "without them a one-statement group that ends with COMMIT is taken for the statement "
                        "cache, which MySQL's InnoDB statements that matched no row are not)")
    add_var_options(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from harness.run import run

    session_vars = parse_vars(args.set_vars, "--set")
    server_opts = parse_vars(args.server_opts, "--server-opt")
    with Progress("replay") as progress:
        result = run(args.workload, args.out, server=args.server, basedir=args.basedir,
                     session_vars=session_vars, server_opts=server_opts, timeout=args.timeout,
                     cache_stats=args.cache_stats, progress=progress)
    info = result.info
    errors = info.get("statement_errors", 0)
    print(f"rplay: ran {info['executed']} statements on {info['server_version']} "
          f"({info['binlog_format']}, {errors} statement errors) in {result.timings.get('replay', 0):.2f}s "
          f"-> {result.out_dir}", file=sys.stderr)
    rep = result.replica
    if rep is not None:
        for d in rep.diverged:
            seq = d.first_writer_seq
            writer = "" if seq is None else f" (first written by statement {seq})"
            print(f"rplay: replica diverged on table {d.table}: primary {d.primary_rows} rows, "
                  f"replica {d.replica_rows} rows{writer}", file=sys.stderr)
        for e in rep.errors:
            print(f"rplay: replica: {e}", file=sys.stderr)
        if not rep.caught_up:
            return 1
    if result.error:
        print(f"rplay: {result.error}", file=sys.stderr)
        return 1
    return 0
