"""The main job: the seed corpus on a local MariaDB pair under every binlog_format x binlog_row_image,
predicted, observed, compared, report written.

Each fixture runs once per (binlog_format, binlog_row_image) cell, with the other session settings of
its own ``-- config`` lines (isolation, autocommit...) kept; fixtures whose ``-- servers`` list has no
MariaDB profile (predict-only cases) are skipped. One pair serves every cell, reset in between.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.backends import open_backend
from harness.backends.base import Pair, ServerSpec
from harness.progress import Progress
from harness.run import run_workload
from predictor.exceptions import RplayError, ServerGoneError
from predictor.workload import Workload, load_workload

FORMATS: tuple[str, ...] = ("STATEMENT", "MIXED", "ROW")
IMAGES: tuple[str, ...] = ("FULL", "MINIMAL", "NOBLOB")
_AXES = frozenset({"binlog_format", "binlog_row_image"})


@dataclass(frozen=True)
class Cell:
    workload: Workload
    path: Path
    session_vars: tuple[tuple[str, str], ...]

    @property
    def label(self) -> str:
        return "_".join(f"{v}" for _, v in self.session_vars).lower().replace("-", "_")


def cells(paths: Sequence[Path], server_profile_prefix: str = "mariadb") -> list[Cell]:
    out: list[Cell] = []
    for path in paths:
        w = load_workload(path)
        servers = w.headers.servers
        if servers and not any(s.startswith(server_profile_prefix) for s in servers):
            continue
        bases: dict[tuple[tuple[str, str], ...], None] = {}
        for cfg in w.headers.configs or ((),):
            bases.setdefault(tuple((k, v) for k, v in cfg if k not in _AXES), None)
        for base in bases:
            for fmt in FORMATS:
                for img in IMAGES:
                    out.append(Cell(w, path, (("binlog_format", fmt), ("binlog_row_image", img), *base)))
    return out


def corpus_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.sql") if p.is_file())


def run_cells(todo: Sequence[Cell], runs_dir: Path, server: str = "local:mariadb", workers: int = 3,
              progress: Progress | None = None) -> tuple[int, list[str]]:
    """Run every cell on ``workers`` reused pairs in parallel; returns (runs written, failures).

    A run mostly waits on its servers, so a few pairs side by side finish the corpus several times faster
    than one. Pairs are started from the calling thread (their cleanup hooks need it); a pair whose server
    died is replaced by the worker that saw it.
    """
    spec = ServerSpec.parse(server)
    backend = open_backend(spec)
    prog = progress or Progress("demo")
    failures: list[str] = []
    done = 0
    lock = threading.Lock()
    queue: list[Cell] = list(todo)
    pairs: list[Pair] = []
    try:
        for _ in range(max(1, min(workers, len(todo)))):
            pairs.append(backend.start_pair({}))

        def work(slot: int) -> None:
            nonlocal done
            while True:
                with lock:
                    if not queue:
                        return
                    cell = queue.pop(0)
                pair = pairs[slot]
                out = runs_dir / cell.path.parent.name / cell.path.stem / cell.label
                try:
                    # cache counters per statement: the binlog alone cannot tell every cache (Matrix.cache_stats)
                    run_workload(cell.workload, pair, dict(cell.session_vars), {}, out, server=str(spec),
                                 reset=True, cache_stats=True)
                    with lock:
                        done += 1
                except RplayError as e:
                    with lock:
                        failures.append(f"{cell.path} [{cell.label}]: {e}")
                    if isinstance(e, ServerGoneError):
                        return  # this pair is gone; the other workers finish the queue
                with lock:
                    prog.update(done + len(failures), len(todo))

        threads = [threading.Thread(target=work, args=(i,), name=f"rplay-demo-{i}") for i in range(len(pairs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for pair in pairs:
            pair.close()
        prog.close()
    return done, failures


def demo(corpus: Path, out: Path, server: str = "local:mariadb", spark_master: str = "local[*]",
         workers: int = 3) -> int:
    from harness.compare import compare

    t0 = time.monotonic()
    todo = cells(corpus_files(corpus))
    runs_dir = out / "runs"
    print(f"rplay demo: {len(todo)} runs of {len({c.path for c in todo})} seed workloads on {server}",
          file=sys.stderr)
    done, failures = run_cells(todo, runs_dir, server, workers)
    t_runs = time.monotonic() - t0
    for f in failures:
        print(f"  run failed: {f}", file=sys.stderr)
    report_dir = out / "report"
    report = compare([runs_dir], report_dir, master=spark_master)
    s = report.summary
    print(f"\n{done} runs in {t_runs:.1f}s, compared in {time.monotonic() - t0 - t_runs:.1f}s; "
          f"{s['statements']} statements")
    for dim, d in s["dimensions"].items():
        pct = 100.0 * d["agree"] / d["total"] if d["total"] else 100.0
        print(f"  {dim:<11} {d['agree']:>6}/{d['total']:<6} agree  {pct:6.2f}%")
    agree = sum(d["agree"] for d in s["dimensions"].values())
    total = sum(d["total"] for d in s["dimensions"].values())
    print(f"  {'all':<11} {agree:>6}/{total:<6} agree  {100.0 * agree / max(total, 1):6.2f}%")
    print(f"report: {report_dir / 'report.html'}")
    return 0 if not failures else 1
