"""Driver-side shaping of the job's output: fingerprints, run metadata, the summary and the aggregates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from harness.compare.fingerprint import fingerprint
from harness.compare.inputs import RunInfo
from harness.compare.job import JobResult
from predictor.records import DIMENSIONS

AGG_KEYS: tuple[str, ...] = ("dimension", "server", "binlog_format", "binlog_row_image", "unsafe_reason",
                             "fingerprint")
MISMATCH_COLUMNS: tuple[str, ...] = ("run", "server", "binlog_format", "binlog_row_image", "seq", "session",
                                     "sql", "fingerprint", "dimension", "predicted", "observed", "code")


@dataclass(frozen=True)
class Report:
    """Everything the report writers need."""

    runs: tuple[RunInfo, ...]
    summary: dict[str, Any]
    aggregates: pa.Table  # AGG_KEYS + statements, agree, mismatch, total
    mismatches: pa.Table  # MISMATCH_COLUMNS
    statements: pa.Table | None  # run, seq, session, sql, code_<dim>

    @property
    def mismatch_count(self) -> int:
        return int(self.mismatches.num_rows)


def _fingerprints(sql: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Fingerprint of every row, computing each distinct text once."""
    encoded = pc.dictionary_encode(sql)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    distinct = [fingerprint(s) if s is not None else "" for s in encoded.dictionary.to_pylist()]
    return pc.take(pa.array(distinct, pa.string()), encoded.indices)


def _run_column(table: pa.Table, runs: Sequence[RunInfo], attr: str) -> pa.Array:
    ids = pa.array([r.run for r in runs], pa.string())
    values = pa.array([getattr(r, attr) for r in runs], pa.string())
    return pc.take(values, pc.index_in(table["run"], value_set=ids))


def _with_run_columns(table: pa.Table, runs: Sequence[RunInfo]) -> pa.Table:
    for attr in ("server", "binlog_format", "binlog_row_image"):
        table = table.append_column(attr, _run_column(table, runs, attr))
    return table


def _dims(agree: dict[str, int], mismatch: dict[str, int]) -> dict[str, dict[str, int]]:
    return {d: {"agree": agree.get(d, 0), "total": agree.get(d, 0) + mismatch.get(d, 0)} for d in DIMENSIONS}


def _sum(table: pa.Table, column: str) -> int:
    return int(pc.sum(table[column]).as_py() or 0) if table.num_rows else 0


def build(result: JobResult, runs: Sequence[RunInfo], *, engine: str = "") -> Report:
    agg = _with_run_columns(result.aggregates, runs)
    if "fingerprint" not in agg.column_names:
        agg = agg.append_column("fingerprint", _fingerprints(agg["sql"]))

    # summary: overall, per run, per server
    def counts(t: pa.Table) -> dict[str, Any]:
        return {"statements": _sum(t, "statements"),
                "dimensions": _dims({d: _sum(t, f"agree_{d}") for d in DIMENSIONS},
                                    {d: _sum(t, f"mismatch_{d}") for d in DIMENSIONS})}

    per_run: list[dict[str, Any]] = []
    for r in runs:
        sub = agg.filter(pc.equal(agg["run"], r.run))
        entry = {"run": r.run, "path": str(r.path), "workload": r.workload,
                 "workload_title": r.meta.get("workload_title"), "server": r.server,
                 "server_version": r.server_version, "profile": r.meta.get("profile"),
                 "binlog_format": r.binlog_format, "binlog_row_image": r.binlog_row_image,
                 "transaction_isolation": r.meta.get("transaction_isolation"),
                 "session_vars": r.meta.get("session_vars"), "server_opts": r.meta.get("server_opts"),
                 "binlog_bytes": r.binlog_bytes, **counts(sub)}
        entry["mismatches"] = sum(v["total"] - v["agree"] for v in entry["dimensions"].values())
        if r.replica is not None:
            entry["replica"] = {"caught_up": r.replica.caught_up, "errors": list(r.replica.errors),
                                "diverged_tables": [t.table for t in r.replica.diverged]}
        per_run.append(entry)
    by_server = {s: counts(agg.filter(pc.equal(agg["server"], s))) for s in sorted({r.server for r in runs})}

    matrix: dict[str, dict[str, int]] = {}
    if agg.num_rows:
        fm = agg.group_by(["pred_format", "obs_format"], use_threads=False).aggregate([("statements", "sum")])
        for row in fm.to_pylist():
            pf, of = row["pred_format"] or "(none)", row["obs_format"] or "(none)"
            matrix.setdefault(pf, {})[of] = int(row["statements_sum"])

    mism = result.mismatches
    mism = _with_run_columns(mism, runs)
    if "fingerprint" not in mism.column_names:
        mism = mism.append_column("fingerprint", _fingerprints(mism["sql"]))
    mism = mism.select(list(MISMATCH_COLUMNS))
    codes = Counter(mism["code"].to_pylist()) if mism.num_rows else Counter[str]()

    summary: dict[str, Any] = {**counts(agg), "mismatches": mism.num_rows,
                               "codes": dict(sorted(codes.items())), "runs": per_run,
                               "by_server": by_server, "format_matrix": matrix,
                               "engine": engine, "job_seconds": round(result.seconds, 3)}

    # aggregates: dimension x server x format x image x unsafe reason x fingerprint
    parts: list[pa.Table] = []
    for d in DIMENSIONS:
        part = pa.table({
            "dimension": pa.array([d] * agg.num_rows, pa.string()), "server": agg["server"],
            "binlog_format": agg["binlog_format"], "binlog_row_image": agg["binlog_row_image"],
            "unsafe_reason": agg["unsafe_key"], "fingerprint": agg["fingerprint"],
            "statements": agg["statements"], "agree": agg[f"agree_{d}"], "mismatch": agg[f"mismatch_{d}"]})
        parts.append(part)
    long = pa.concat_tables(parts)
    grouped = long.group_by(list(AGG_KEYS), use_threads=False).aggregate(
        [("statements", "sum"), ("agree", "sum"), ("mismatch", "sum")])
    grouped = grouped.rename_columns([*AGG_KEYS, "statements", "agree", "mismatch"])
    grouped = grouped.append_column("total", pc.add(grouped["agree"], grouped["mismatch"]))
    grouped = grouped.sort_by([("mismatch", "descending"), ("dimension", "ascending"),
                               ("fingerprint", "ascending")])
    return Report(tuple(runs), summary, grouped, mism, result.statements)
