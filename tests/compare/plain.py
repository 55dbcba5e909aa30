"""An independent plain-Python comparison of run directories (no Spark), to check the Spark job against."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harness.compare.codes import Outcome
from harness.compare.verdict import score
from predictor.records import DIMENSIONS, StatementRecord, read_jsonl


def pairs(run_dir: Path) -> Iterable[tuple[StatementRecord | None, StatementRecord | None]]:
    pred = {r.seq: r for r in read_jsonl(run_dir / "predicted.jsonl")}
    obs = {r.seq: r for r in read_jsonl(run_dir / "observed.jsonl")}
    for seq in sorted(pred.keys() | obs.keys()):
        yield pred.get(seq), obs.get(seq)


def plain_summary(run_dirs: Iterable[Path]) -> dict[str, Any]:
    """statements, dimensions{agree,total}, by_server and the set of mismatch rows, counted directly."""
    dims = {d: {"agree": 0, "total": 0} for d in DIMENSIONS}
    by_server: dict[str, dict[str, Any]] = {}
    rows: set[tuple[str, int, str, str, str, str]] = set()
    n = 0
    for d in run_dirs:
        server = json.loads((d / "run.json").read_text())["server"]
        srv = by_server.setdefault(server, {"statements": 0,
                                            "dimensions": {x: {"agree": 0, "total": 0} for x in DIMENSIONS}})
        for p, o in pairs(d):
            n += 1
            srv["statements"] += 1
            for v in score(p, o):
                if v.outcome is Outcome.EXCLUDED:
                    continue
                for acc in (dims[v.dimension], srv["dimensions"][v.dimension]):
                    acc["total"] += 1
                    acc["agree"] += v.outcome is Outcome.AGREE
                if v.code is not None:
                    seq = (p or o).seq  # type: ignore[union-attr]
                    rows.add((d.name, seq, v.dimension, v.code.value, v.predicted, v.observed))
    return {"statements": n, "dimensions": dims, "by_server": by_server, "rows": rows}


def plain_job(runs: Iterable[Any]) -> Any:
    """A JobResult computed without Spark (same shapes as ``job.run_job``), for report tests."""
    import pyarrow as pa

    from harness.compare.columnar import EXCLUDED
    from harness.compare.job import MISMATCH_SCHEMA, JobResult
    from harness.compare.verdict import unsafe_key

    groups: dict[tuple[Any, ...], dict[str, int]] = {}
    mism: list[dict[str, Any]] = []
    stmts: list[dict[str, Any]] = []
    for r in runs:
        for p, o in pairs(r.path):
            rec = p or o
            assert rec is not None
            key = (r.run, rec.sql, unsafe_key(p, o), p and p.format.value, o and o.format.value)
            g = groups.setdefault(key, {"statements": 0, **{f"{k}_{d}": 0 for k in ("agree", "mismatch")
                                                             for d in DIMENSIONS}})
            g["statements"] += 1
            st: dict[str, Any] = {"run": r.run, "seq": rec.seq, "session": rec.session, "sql": rec.sql}
            for v in score(p, o):
                st[f"code_{v.dimension}"] = EXCLUDED if v.outcome is Outcome.EXCLUDED else (
                    v.code.value if v.code else None)
                if v.outcome is Outcome.AGREE:
                    g[f"agree_{v.dimension}"] += 1
                elif v.outcome is Outcome.MISMATCH:
                    assert v.code is not None
                    g[f"mismatch_{v.dimension}"] += 1
                    mism.append({"run": r.run, "seq": rec.seq, "session": rec.session, "sql": rec.sql,
                                 "dimension": v.dimension, "code": v.code.value, "predicted": v.predicted,
                                 "observed": v.observed})
            stmts.append(st)
    agg = pa.Table.from_pylist([{"run": k[0], "sql": k[1], "unsafe_key": k[2], "pred_format": k[3],
                                 "obs_format": k[4], **v} for k, v in groups.items()])
    n = sum(v["statements"] for v in groups.values())
    mismatches = pa.Table.from_pylist(mism, schema=MISMATCH_SCHEMA)
    return JobResult(agg, mismatches, pa.Table.from_pylist(stmts), n, 0.0)
