"""Harness speed: pair-ready time, reset time, and replay throughput vs the plain ``mariadb`` client.

    .venv/bin/python benchmarks/harness_bench.py [--statements 20000] [--pairs 3] [--repeat 2] [--docker]

1. pair ready: LocalBackend.start_pair() wall time (template made once per process, not counted), and
   Pair.reset(); with --docker also DockerBackend('mariadb-11.8') when an engine and image are available.
2. replay: the same 20k-statement file, on the same freshly reset server, fed to ``mariadb`` (one
   session, batch mode) and to rplay's replay (the run path's replay step); prints both and the ratio
   (target <= 1.3x). Also the cost of --cache-stats and of the whole run_workload (decode, replica check).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.backends.base import Flavor, Pair  # noqa: E402
from harness.backends.local import LocalBackend, LocalPair, template_for  # noqa: E402
from harness.replay import ReplayOptions, replay  # noqa: E402
from harness.run import run_workload  # noqa: E402
from predictor.workload import parse_workload  # noqa: E402


def workload_text(n: int) -> str:
    """A mixed single-session workload of ``n`` statements (autocommit DML on InnoDB and MyISAM)."""
    lines = ["CREATE TABLE ti (id INT PRIMARY KEY, a INT, b VARCHAR(32)) ENGINE=InnoDB;",
             "CREATE TABLE tm (id INT PRIMARY KEY, a INT, b VARCHAR(32)) ENGINE=MyISAM;"]
    i = 0
    while len(lines) < n:
        i += 1
        t = "ti" if i % 2 else "tm"
        k = i % 5
        if k in (0, 1, 2):
            lines.append(f"INSERT INTO {t} VALUES ({i}, {i % 97}, 'row-{i}');")
        elif k == 3:
            lines.append(f"UPDATE {t} SET a = a + 1 WHERE id = {i - 3};")
        else:
            lines.append(f"DELETE FROM {t} WHERE id = {i - 4};")
    return "\n".join(lines[:n]) + "\n"


def time_client(pair: Pair, path: Path) -> float:
    s = pair.primary
    argv = ["mariadb", "--no-defaults", "-h", s.host, "-P", str(s.port), "-u", s.user, f"-p{s.password}",
            "--batch", "rplay"]
    started = time.perf_counter()
    with open(path, "rb") as f:
        r = subprocess.run(argv, stdin=f, capture_output=True)
    elapsed = time.perf_counter() - started
    if r.returncode != 0:
        raise SystemExit(f"mariadb client failed: {r.stderr.decode(errors='replace')}")
    return elapsed


def time_replay(pair: Pair, text: str, cache_stats: bool = False, fences: bool | None = None) -> float:
    wl = parse_workload(text, "bench.sql")
    result = replay(wl, pair, ReplayOptions(cache_stats=cache_stats, fences=fences))
    if result.error is not None:
        raise SystemExit(str(result.error))
    errors = sum(1 for e in result.executions if e.error is not None)
    if errors:
        raise SystemExit(f"{errors} statements failed in the benchmark workload")
    return result.elapsed


def bench_pairs(backend: LocalBackend, n: int) -> None:
    t = time.perf_counter()
    template_for(backend.binaries)
    print(f"template data dir (once per process): {time.perf_counter() - t:.2f}s")
    ready, resets = [], []
    for _ in range(n):
        t = time.perf_counter()
        with backend.start_pair({}) as pair:
            ready.append(time.perf_counter() - t)
            for _ in range(3):
                t = time.perf_counter()
                pair.reset()
                resets.append(time.perf_counter() - t)
    print(f"local pair ready: median {statistics.median(ready):.2f}s  min {min(ready):.2f}s  "
          f"max {max(ready):.2f}s  (n={n}, target < 2 s)")
    print(f"local pair reset: median {statistics.median(resets):.3f}s  min {min(resets):.3f}s  "
          f"max {max(resets):.3f}s  (n={len(resets)}, target well under 1 s)")


def bench_docker(n: int) -> None:
    try:
        from harness.backends.docker import DockerBackend
    except ModuleNotFoundError:
        print("docker pair ready: skipped (no harness.backends.docker)")
        return
    backend = DockerBackend("mariadb-11.8")
    ready = []
    try:
        for _ in range(n):
            t = time.perf_counter()
            with backend.start_pair({}):
                ready.append(time.perf_counter() - t)
    except Exception as e:  # no engine / no image: report, do not fail the local numbers
        print(f"docker pair ready: skipped ({type(e).__name__}: {str(e)[:200]})")
        return
    print(f"docker (mariadb-11.8) pair ready: median {statistics.median(ready):.2f}s  n={n}")


def bench_replay(backend: LocalBackend, n: int, repeat: int, run_n: int, cache_stats: bool) -> None:
    text = workload_text(n)
    with tempfile.TemporaryDirectory(prefix="rplay-bench-") as tmp, backend.start_pair({}) as pair:
        assert isinstance(pair, LocalPair)
        path = Path(tmp) / "bench.sql"
        path.write_text(text)
        client, ours, stats, fenced = [], [], [], []
        for _ in range(repeat):  # interleaved, each on a freshly reset pair
            pair.reset()
            client.append(time_client(pair, path))
            pair.reset()
            ours.append(time_replay(pair, text))
            pair.reset()
            fenced.append(time_replay(pair, text, fences=True))
            if cache_stats:
                pair.reset()
                stats.append(time_replay(pair, text, cache_stats=True))
            print(f"  round: client {client[-1]:.2f}s  replay {ours[-1]:.2f}s", flush=True)
        c, o = min(client), min(ours)
        print(f"replay {n} statements (best of {repeat}): mariadb client {c:.2f}s ({n / c:,.0f}/s)   "
              f"rplay replay {o:.2f}s ({n / o:,.0f}/s)   ratio {o / c:.2f}x (target <= 1.3x)")
        ratios = [b / a for a, b in zip(client, ours, strict=True)]
        listed = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"  per-round ratios {listed}; median {statistics.median(ratios):.2f}x")
        u = min(fenced)
        print(f"  with binlog fences forced (multi-session workloads): {u:.2f}s  ratio {u / c:.2f}x vs client; "
              f"fences cost {u / o:.2f}x")
        if stats:
            s = min(stats)
            print(f"  with --cache-stats: {s:.2f}s  ratio {s / c:.2f}x vs client, {s / o:.2f}x vs replay")
        if run_n:
            pair.reset()
            t = time.perf_counter()
            res = run_workload(parse_workload(workload_text(run_n), "bench.sql"), pair, {}, {},
                               Path(tmp) / "run", reset=False)
            total = time.perf_counter() - t
            print(f"whole run_workload, {run_n} statements: {total:.2f}s  timings {dict(res.timings)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--statements", type=int, default=20000)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--run-statements", type=int, default=2000,
                    help="size of the workload timed through the whole run_workload (0: skip)")
    ap.add_argument("--no-cache-stats", action="store_true", help="skip timing --cache-stats")
    ap.add_argument("--docker", action="store_true", help="also time a docker:mariadb-11.8 pair")
    args = ap.parse_args()
    backend = LocalBackend(Flavor.MARIADB)
    bench_pairs(backend, args.pairs)
    if args.docker:
        bench_docker(args.pairs)
    bench_replay(backend, args.statements, args.repeat, args.run_statements, not args.no_cache_stats)


if __name__ == "__main__":
    main()
