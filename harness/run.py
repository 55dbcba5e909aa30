"""``rplay run``: replay one workload on a real pair and write the run directory (see RUN_DIR.md).

``run_workload`` takes a running Pair (the matrix runner reuses one across workloads); ``run`` starts a
pair from a ``--server`` spec, runs, and closes it whatever happens.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.backends import open_backend
from harness.backends.base import Pair, ServerSpec
from harness.connect import query
from harness.execution import Execution
from harness.progress import Progress
from harness.replay import ReplayOptions, effective_session, replay
from harness.replica import ReplicaReport, check_replica
from predictor.exceptions import RplayError, ServerGoneError
from predictor.predict import predict_workload, profile_for_version
from predictor.records import Format, StatementRecord, write_jsonl
from predictor.workload import Workload, load_workload


@dataclass(frozen=True)
class RunResult:
    out_dir: Path
    executions: tuple[Execution, ...]
    observed: tuple[StatementRecord, ...]
    replica: ReplicaReport | None
    info: Mapping[str, Any]
    error: str | None = None
    timings: Mapping[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


def records_from_executions(executions: Sequence[Execution], reason: str) -> list[StatementRecord]:
    """Observed records without the binlog (it could not be read): server messages only."""
    return [StatementRecord(e.seq, e.session, e.sql, e.error, e.warning_codes, e.unsafe,
                            format=Format.NONE if e.replica_only else Format.UNKNOWN,
                            reason="ran on the replica only" if e.replica_only else reason,
                            warnings_unread=e.warnings_unread)
            for e in executions]


def _binlog_bytes(pair: Pair) -> int | None:
    try:
        return sum(int(r[1]) for r in query(pair.primary, "SHOW BINARY LOGS"))
    except RplayError:
        return None


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")


def run_workload(workload: Workload, pair: Pair, session_vars: Mapping[str, str],
                 server_opts: Mapping[str, str], out_dir: Path, *, server: str = "", reset: bool = True,
                 timeout: float = 30.0, cache_stats: bool = False, pair_ready: float = 0.0,
                 progress: Progress | None = None) -> RunResult:
    """Replay ``workload`` on ``pair`` and write ``out_dir``. ``reset`` first makes the pair as new.

    A lost server ends the run with ServerGoneError after everything recorded so far is written.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    prog = progress or Progress("replay", enabled=False)
    timings: dict[str, float] = {"pair_ready": round(pair_ready, 4)}
    if reset:
        t = time.monotonic()
        prog.note("resetting pair")
        pair.reset()
        timings["pair_ready"] = round(pair_ready + time.monotonic() - t, 4)
    version = pair.primary.version
    profile = profile_for_version(version)
    options = ReplayOptions(session_vars=dict(session_vars), cache_stats=cache_stats, replica_timeout=timeout)
    effective = effective_session(pair.primary, options)

    started = time.time()  # the run starts now: its date literals are placed against this (predictor/moments.py)
    predicted = predict_workload(workload, profile, session_vars, server_opts, run_at=started)
    write_jsonl(out_dir / "predicted.jsonl", predicted)

    result = replay(workload, pair, options, on_progress=prog.update)
    timings["replay"] = round(result.elapsed, 4)
    error = str(result.error) if result.error else None

    events_path = out_dir / "events.jsonl"
    t = time.monotonic()
    observed: list[StatementRecord]
    decode_error: str | None = None
    if result.error is None:
        prog.note("decoding binlog")
        try:
            from harness.observe import observe

            obs = observe(result.executions, pair.primary)
            observed = list(obs.records)
            obs.write_events(events_path)
        except Exception as e:  # a decoder failure must not lose the replay's records
            decode_error = f"{type(e).__name__}: {e}"
            observed = records_from_executions(result.executions, f"binlog not decoded: {decode_error}")
    else:
        observed = records_from_executions(result.executions, "run ended: server gone")
    if not events_path.exists():
        events_path.write_text("", encoding="utf-8")
    timings["decode"] = round(time.monotonic() - t, 4)
    write_jsonl(out_dir / "observed.jsonl", observed)

    replica: ReplicaReport | None = None
    t = time.monotonic()
    if result.error is None:
        prog.note("checking replica")
        try:
            replica = check_replica(pair, workload, timeout=timeout)
        except ServerGoneError as e:
            error = str(e)
        if replica is not None:
            _write_json(out_dir / "replica.json", replica.to_dict())
    timings["replica_check"] = round(time.monotonic() - t, 4)
    prog.close()

    info: dict[str, Any] = {
        "workload": workload.name,
        "workload_title": workload.headers.title,
        "server": server,
        "server_version": version,
        "profile": profile,
        "started_at": datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
        "session_vars": dict(session_vars),
        "server_opts": dict(server_opts),
        "binlog_format": effective["binlog_format"],
        "binlog_row_image": effective["binlog_row_image"],
        "transaction_isolation": effective["transaction_isolation"],
        "statements": len(workload.statements),
        "executed": len(result.executions),
        "statement_errors": sum(1 for e in result.executions if e.error is not None),
        "timings": timings,
        "binlog_bytes": _binlog_bytes(pair) if result.error is None else None,
        "cache_stats": cache_stats,
        "error": error,
        "decode_error": decode_error,
    }
    _write_json(out_dir / "run.json", info)
    run = RunResult(out_dir, tuple(result.executions), tuple(observed), replica, info, error, timings)
    if result.error is not None:
        raise result.error
    return run


def run(workload_path: Path | str, out_dir: Path | str, *, server: str = "local:mariadb",
        basedir: Path | str | None = None, session_vars: Mapping[str, str] | None = None,
        server_opts: Mapping[str, str] | None = None, timeout: float = 30.0, cache_stats: bool = False,
        progress: Progress | None = None) -> RunResult:
    """Start a pair for ``server``, run the workload file on it, close the pair (always)."""
    workload = load_workload(workload_path)
    spec = ServerSpec.parse(server)
    backend = open_backend(spec, basedir=basedir, timeout=max(timeout, 30.0))
    sv, so = dict(session_vars or {}), dict(server_opts or {})
    prog = progress or Progress("replay", enabled=False)
    prog.note(f"starting {spec}")
    t = time.monotonic()
    with backend.start_pair(so) as pair:
        ready = time.monotonic() - t
        return run_workload(workload, pair, sv, so, Path(out_dir), server=str(spec), reset=False,
                            timeout=timeout, cache_stats=cache_stats, pair_ready=ready, progress=prog)


__all__ = ["RunResult", "records_from_executions", "run", "run_workload"]
