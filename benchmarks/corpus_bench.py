"""Time of the whole conformance corpus on a real local pair vs the time of only predicting it.

Runs ``rplay check`` twice over the same files: predicting only (the baseline), then with
``--server local:mariadb`` (one pair started, reset between files, every file under all its configs).
Prints both side by side with the ratio; the target for the server run is under 60 s.

    .venv/bin/python benchmarks/corpus_bench.py [PATH ...]      (default: fixtures/seeds)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.check import Tally, workload_files  # noqa: E402
from harness.commands.check import run_check  # noqa: E402
from predictor.workload import load_workload  # noqa: E402

TARGET_S = 60.0


def _timed(paths: list[Path], server: str | None) -> tuple[float, Tally]:
    sink = io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(sink):
        tally = run_check(paths, server=server, profile=None, basedir=None, timeout=30.0, out=None)
    return time.perf_counter() - t, tally


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path, default=[ROOT / "fixtures" / "seeds"])
    ap.add_argument("--server", default="local:mariadb")
    args = ap.parse_args()
    files = workload_files(args.paths)
    wls = [load_workload(f) for f in files]
    runs = sum(len(w.headers.configs or ((),)) for w in wls if not w.headers.predict_only)
    stmts = sum(len(w.statements) * len(w.headers.configs or ((),)) for w in wls)
    print(f"corpus: {len(files)} files, {runs} real runs (file x config), {stmts} statement-configs")
    pred_s, pred = _timed(args.paths, None)
    srv_s, srv = _timed(args.paths, args.server)
    print(f"{'':24}{'predict only':>16}{'with ' + args.server:>28}")
    print(f"{'wall time (s)':24}{pred_s:16.2f}{srv_s:28.2f}")
    counts = (f"{pred.passed}/{pred.failed}", f"{srv.passed}/{srv.failed}")
    print(f"{'checks passed/failed':24}{counts[0]:>16}{counts[1]:>28}")
    print(f"{'per real run (ms)':24}{'':>16}{1000 * srv_s / max(runs, 1):28.1f}")
    print(f"ratio server/predict: {srv_s / pred_s:.1f}x; target < {TARGET_S:.0f} s: "
          f"{'met' if srv_s < TARGET_S else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
