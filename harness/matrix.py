"""``rplay matrix``: workloads x servers x binlog_format x binlog_row_image x isolation, then one comparison.

One primary/replica pair per server is started once and reset between cells. Every cell writes its own run
directory and, when it finished, a ``.done`` marker, so a rerun of the same matrix skips finished cells.
MATRIX.toml::

    workloads = ["fixtures/seeds/*.sql", "more/"]   # files, globs or directories (relative to the TOML)
    servers = ["local:mariadb"]
    binlog_format = ["STATEMENT", "MIXED", "ROW"]
    binlog_row_image = ["FULL", "MINIMAL"]
    isolation = ["REPEATABLE-READ"]                  # optional, default: the server's
    timeout = 30                                     # optional, replica wait per cell (s)
    cache_stats = true                               # optional: measure each statement's cache counters
    [session_vars]                                   # optional, applied to every session
    [server_opts]                                    # optional, passed to every pair
"""

from __future__ import annotations

import glob
import itertools
import json
import re
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from harness.backends.base import Pair, ServerSpec
from predictor.exceptions import RplayError, ServerGoneError, UsageError

DONE = ".done"
CELLS = "cells"


@dataclass(frozen=True)
class Cell:
    workload: Path
    server: str
    binlog_format: str
    binlog_row_image: str
    isolation: str | None

    @property
    def name(self) -> str:
        parts = [self.server, self.workload.stem, self.binlog_format, self.binlog_row_image,
                 self.isolation or "default"]
        return "__".join(re.sub(r"[^A-Za-z0-9._-]+", "-", p) for p in parts)

    def session_vars(self, base: Mapping[str, str]) -> dict[str, str]:
        out = {**base, "binlog_format": self.binlog_format, "binlog_row_image": self.binlog_row_image}
        if self.isolation:
            out["transaction_isolation"] = self.isolation
        return out


@dataclass(frozen=True)
class Matrix:
    workloads: tuple[Path, ...]
    servers: tuple[str, ...]
    binlog_formats: tuple[str, ...]
    binlog_row_images: tuple[str, ...]
    isolations: tuple[str | None, ...] = (None,)
    session_vars: Mapping[str, str] = field(default_factory=dict)
    server_opts: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 30.0
    cache_stats: bool = True
    """Measure Binlog_cache_use / Binlog_stmt_cache_use per statement: without them a COMMIT-ended group of
    one statement is taken for the statement cache, and MariaDB ends a transaction that touched a temporary
    table with COMMIT too (harness/binlog/README.md); with them the observed cache is the server's."""

    def cells(self) -> list[Cell]:
        """Grouped by server, so each server's pair serves all its cells in a row."""
        return [Cell(w, s, f, i, iso) for s, w, f, i, iso in itertools.product(
            self.servers, self.workloads, self.binlog_formats, self.binlog_row_images, self.isolations)]


def _strings(d: Mapping[str, Any], key: str, path: Path, *, required: bool = True) -> tuple[str, ...]:
    v = d.get(key)
    if v is None and not required:
        return ()
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x for x in v):
        raise UsageError(f"{path}: {key!r} must be a non-empty list of strings")
    return tuple(v)


def _expand_workloads(patterns: Sequence[str], base: Path, path: Path) -> tuple[Path, ...]:
    found: list[Path] = []
    for pat in patterns:
        p = Path(pat) if Path(pat).is_absolute() else base / pat
        if p.is_dir():
            matches = sorted(x for x in p.rglob("*.sql") if x.is_file())
        elif any(c in pat for c in "*?["):
            matches = sorted(Path(x) for x in glob.glob(str(p), recursive=True) if Path(x).is_file())
        else:
            matches = [p] if p.is_file() else []
        if not matches:
            raise UsageError(f"{path}: workload {pat!r} matches no file")
        found.extend(m.resolve() for m in matches)
    unique = tuple(dict.fromkeys(found))
    stems = [w.stem for w in unique]
    if len(set(stems)) != len(stems):
        dup = sorted({s for s in stems if stems.count(s) > 1})
        raise UsageError(f"{path}: several workloads are named {', '.join(dup)}; "
                         "cell names need distinct workload file names")
    return unique


def _vars(d: Mapping[str, Any], key: str, path: Path) -> dict[str, str]:
    v = d.get(key, {})
    if not isinstance(v, dict):
        raise UsageError(f"{path}: [{key}] must be a table of VAR = VALUE")
    return {str(k).lower().replace("-", "_"): str(x) for k, x in v.items()}


def load_matrix(path: Path | str) -> Matrix:
    path = Path(path)
    try:
        d = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise UsageError(f"cannot read matrix file {path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: not valid TOML: {e}") from None
    known = {"workloads", "servers", "binlog_format", "binlog_row_image", "isolation", "session_vars",
             "server_opts", "timeout", "cache_stats"}
    unknown = sorted(set(d) - known)
    if unknown:
        raise UsageError(f"{path}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    servers = _strings(d, "servers", path)
    for s in servers:
        ServerSpec.parse(s)
    isolations: tuple[str | None, ...] = _strings(d, "isolation", path, required=False) or (None,)
    timeout = d.get("timeout", 30.0)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise UsageError(f"{path}: timeout must be a positive number of seconds")
    cache_stats = d.get("cache_stats", True)
    if not isinstance(cache_stats, bool):
        raise UsageError(f"{path}: cache_stats must be true or false")
    return Matrix(
        workloads=_expand_workloads(_strings(d, "workloads", path), path.parent, path), servers=servers,
        binlog_formats=tuple(x.upper() for x in _strings(d, "binlog_format", path)),
        binlog_row_images=tuple(x.upper() for x in _strings(d, "binlog_row_image", path)),
        isolations=tuple(x.upper() if x else None for x in isolations),
        session_vars=_vars(d, "session_vars", path), server_opts=_vars(d, "server_opts", path),
        timeout=float(timeout), cache_stats=cache_stats)


class MatrixProgress:
    """``matrix 3/24 (12%) 40s ETA 4m10s  cell-name`` on one terminal line; silent when not a terminal."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.started = time.monotonic()
        self.ran = 0  # cells actually run (skipped ones do not inform the ETA)

    def show(self, done: int, label: str) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        eta = "?"
        if self.ran:
            remaining = elapsed / self.ran * (self.total - done)
            eta = f"{int(remaining // 60)}m{int(remaining % 60):02d}s"
        pct = 100 * done // self.total if self.total else 100
        line = f"matrix {done}/{self.total} ({pct}%) {elapsed:.0f}s ETA {eta}  {label[:60]}"
        self.stream.write(f"\r{line}\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


@dataclass(frozen=True)
class MatrixResult:
    ran: tuple[str, ...]
    skipped: tuple[str, ...]
    failed: Mapping[str, str]  # cell -> error


def _start_pair(server: str, opts: Mapping[str, str], timeout: float) -> Pair:
    from harness.backends import open_backend

    return open_backend(ServerSpec.parse(server), timeout=max(timeout, 30.0)).start_pair(opts)


def run_matrix(matrix: Matrix, out: Path, *, log: Callable[[str], None] | None = None) -> MatrixResult:
    """Run every cell not yet done; a failing cell is recorded and the rest go on."""
    from harness.run import run_workload
    from predictor.workload import load_workload

    say = log or (lambda m: print(m, file=sys.stderr))
    cells = matrix.cells()
    root = out / CELLS
    root.mkdir(parents=True, exist_ok=True)
    workloads = {w: load_workload(w) for w in matrix.workloads}
    progress = MatrixProgress(len(cells))
    ran: list[str] = []
    skipped: list[str] = []
    failed: dict[str, str] = {}
    done = 0
    try:
        for server, group in itertools.groupby(cells, key=lambda c: c.server):
            todo: list[Cell] = []
            for c in group:
                if (root / c.name / DONE).exists():
                    skipped.append(c.name)
                    done += 1
                else:
                    todo.append(c)
            if not todo:
                continue
            progress.show(done, f"starting {server}")
            pair: Pair | None = None
            try:
                for c in todo:
                    progress.show(done, c.name)
                    cell_dir = root / c.name
                    try:
                        if pair is None:
                            pair = _start_pair(server, matrix.server_opts, matrix.timeout)
                        (cell_dir / DONE).unlink(missing_ok=True)
                        run_workload(workloads[c.workload], pair, c.session_vars(matrix.session_vars),
                                     matrix.server_opts, cell_dir, server=server, reset=True,
                                     timeout=matrix.timeout, cache_stats=matrix.cache_stats)
                        (cell_dir / DONE).write_text(json.dumps({
                            "workload": str(c.workload), "server": server, "binlog_format": c.binlog_format,
                            "binlog_row_image": c.binlog_row_image, "isolation": c.isolation}) + "\n")
                        ran.append(c.name)
                    except RplayError as e:
                        failed[c.name] = str(e)
                        progress.close()
                        say(f"rplay matrix: cell {c.name} failed: {e}")
                        if isinstance(e, ServerGoneError) and pair is not None:
                            pair.close()
                            pair = None  # the next cell starts a fresh pair
                    done += 1
                    progress.ran += 1
                    progress.show(done, c.name)
            finally:
                if pair is not None:
                    pair.close()
    finally:
        progress.close()
    return MatrixResult(tuple(ran), tuple(skipped), failed)
