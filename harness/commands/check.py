"""``rplay check PATH... [--server SPEC] [--profile P]``: run the conformance corpus.

Every workload file is predicted under each of its ``-- config:`` lines and its ``-- expect`` lines are
checked against the prediction; with ``--server`` the file also runs on a real pair (one pair reused and
reset between files), and the expectations and the prediction are checked against what the server did.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pymysql

from harness.backends.base import Pair
from harness.check import (
    Failure,
    Mismatch,
    Source,
    Tally,
    check_workload_records,
    compare_workload_records,
    config_label,
    engine_files,
    lint_workload,
    workload_files,
)
from predictor.exceptions import ProfileError, RplayError, UsageError
from predictor.records import StatementRecord
from predictor.workload import Workload, load_workload

DEFAULT_PROFILE = "mariadb-10.11"


def register(subparsers: Any) -> None:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "check", help="check fixture expectations against the predictor (and a real server)",
        description="Predict every workload under each of its -- config lines and check its -- expect lines; "
                    "with --server also run it and check expectations and prediction against the server.")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="workload files or directories")
    p.add_argument("--server", metavar="SPEC",
                   help="also run on a real pair: local:mariadb, docker:mysql-9.7")
    p.add_argument("--profile", metavar="P",
                   help=f"predictor profile (default: the server's, else {DEFAULT_PROFILE})")
    p.add_argument("--basedir", type=Path, help="server installation directory for local:* servers")
    p.add_argument("--timeout", type=float, default=30.0, help="replica catch-up timeout in seconds")
    p.add_argument("--out", type=Path, metavar="DIR", help="keep the run directories here")
    p.set_defaults(func=main)


def find_engine_file(workload_path: Path, name: str) -> Path:
    """An ``-- engines:`` name: next to the workload, else in an ``engines/`` folder of an ancestor."""
    candidates = [workload_path.parent / name]
    candidates += [d / "engines" / name for d in workload_path.resolve().parents]
    for c in candidates:
        if c.is_file():
            return c
    raise ProfileError(f"{workload_path}: engine profile {name!r} not found (beside it, engines/)")


def load_engines(workload_path: Path) -> dict[str, Any]:
    """The user engine profiles a workload names in ``-- engines:``, merged."""
    from predictor.engines import load_engine_profiles

    out: dict[str, Any] = {}
    for name in engine_files(workload_path):
        out.update(load_engine_profiles(find_engine_file(workload_path, name)))
    return out


def predict(workload: Workload, profile: str, config: Mapping[str, str],
            engines: Mapping[str, Any]) -> tuple[list[StatementRecord], str | None]:
    """The prediction, or no records and the reason when the predictor failed."""
    from predictor.predict import predict_workload

    run_at = time.time() if workload.headers.clock_run else None
    try:
        return predict_workload(workload, profile, session_vars=config, engines=engines or None,
                                run_at=run_at), None
    except RplayError as e:
        return [], f"predictor failed: {e}"


def _runs_on(workload: Workload, profile: str) -> bool:
    servers = workload.headers.servers
    if workload.headers.predict_only:
        return False
    return not servers or any(profile == s or profile.startswith(s) for s in servers)


@contextmanager
def _pair(spec_text: str, basedir: Path | None, timeout: float) -> Iterator[Pair]:
    from harness.backends import open_backend
    from harness.backends.base import ServerSpec

    backend = open_backend(ServerSpec.parse(spec_text), basedir=basedir, timeout=max(timeout, 30.0))
    with backend.start_pair({}) as pair:
        yield pair


def check_file(path: Path, profile: str, pair: Pair | None, server: str, out_root: Path | None,
               timeout: float, cache_stats: bool = True) -> Tally:
    """Everything ``rplay check`` does for one file, returned as a tally."""
    try:
        workload = load_workload(path)
        lint = lint_workload(workload)
        engines = load_engines(path) if engine_files(path) else {}
    except RplayError as e:
        return Tally(0, (Failure(str(path), 0, "", "", Source.PREDICTED, Mismatch("file", "valid", str(e))),))
    tally = Tally(0, tuple(Failure(str(path), line, "", "", Source.PREDICTED, Mismatch("lint", "valid", msg))
                           for line, msg in lint))
    if lint:
        return tally  # an expectation that does not parse is reported, not checked
    run_here = _runs_on(workload, profile)
    for i, config in enumerate(workload.headers.configs or ((),)):
        cfg = dict(config)
        predicted, why = predict(workload, profile, cfg, engines)
        if why:
            tally += Tally(0, (Failure(str(path), 0, "", config_label(config), Source.PREDICTED,
                                       Mismatch("predictor", "records", why)),))
        tally += check_workload_records(workload, config, profile, predicted, Source.PREDICTED)
        if pair is None or not run_here:
            continue
        from harness.run import run_workload

        assert out_root is not None
        out_dir = out_root / f"{path.stem}.{i}"
        try:
            result = run_workload(workload, pair, cfg, {}, out_dir, server=server, reset=True,
                                  timeout=timeout, cache_stats=cache_stats)
        except (RplayError, pymysql.MySQLError, OSError) as e:
            # a lost or refused server is reported for this file; the next file resets the pair again
            tally += Tally(0, (Failure(str(path), 0, "", config_label(config), Source.OBSERVED,
                                       Mismatch("run", "completed", f"{type(e).__name__}: {e}")),))
            continue
        observed = list(result.observed)
        tally += check_workload_records(workload, config, profile, observed, Source.OBSERVED)
        if predicted:
            tally += compare_workload_records(workload, config, predicted, observed)
    return tally


def run_check(paths: Sequence[Path], *, server: str | None, profile: str | None, basedir: Path | None,
              timeout: float, out: Path | None) -> Tally:
    files = workload_files(paths)
    if not files:
        raise UsageError(f"no .sql workload files under {', '.join(map(str, paths))}")
    total = Tally()
    if server is None:
        prof = profile or DEFAULT_PROFILE
        for f in files:
            t = check_file(f, prof, None, "", None, timeout)
            _print(t)
            total += t
        return total
    from predictor.predict import profile_for_version

    with _pair(server, basedir, timeout) as pair:
        # without --out the runs go under the pair's own directory: removed with it, on SIGTERM too
        out_root = out if out is not None else pair.root / "check-runs"
        prof = profile or profile_for_version(pair.primary.version)
        for f in files:
            t = check_file(f, prof, pair, server, out_root, timeout)
            _print(t)
            total += t
    return total


def _print(t: Tally) -> None:
    for f in t.failures:
        print(f)
    sys.stdout.flush()


def main(args: argparse.Namespace) -> int:
    total = run_check(args.paths, server=args.server, profile=args.profile, basedir=args.basedir,
                      timeout=args.timeout, out=args.out)
    print(f"{total.passed} passed, {total.failed} failed")
    return 0 if total.failed == 0 else 1
