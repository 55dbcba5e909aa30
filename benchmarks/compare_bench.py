"""Comparison throughput: ``rplay compare`` on local[2] vs a single-process pyarrow join of the same files.

Builds N synthetic predicted/observed record pairs as Parquet run directories (cached under --data), then
prints records/s of: the full comparison (Spark job + reports), the Spark job alone, the python engine on
a slice, and the baseline (pyarrow reads both sides of every run and full-outer-joins them by run and seq).

    .venv/bin/python benchmarks/compare_bench.py --records 10000000
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.compare.inputs import RECORD_SCHEMA, ROW_EVENT_TYPE

FORMATS = np.array(["STATEMENT", "ROW", "NONE", "UNKNOWN"])
CACHES = np.array(["trx", "stmt", "none"])


def _sql_pool(distinct: int) -> pa.Array:
    shapes = ["INSERT INTO t{t} VALUES ({n}, 'v{n}')", "UPDATE t{t} SET b = 'x{n}' WHERE a = {n}",
              "DELETE FROM t{t} WHERE a = {n} LIMIT 1", "INSERT INTO t{t} SELECT * FROM s WHERE a > {n}"]
    return pa.array([shapes[i % 4].format(t=i % 7, n=i) for i in range(distinct)], pa.string())


def _events(seq: np.ndarray, fmt: np.ndarray) -> pa.Array:
    n = len(fmt)
    count = np.where(fmt == "ROW", 1, 0)
    offsets = np.concatenate([[0], np.cumsum(count)]).astype(np.int32)
    m = int(offsets[-1])
    cols = pa.array([["a", "b", "c"]] * 1, pa.list_(pa.string()))
    after = pa.ListArray.from_arrays(np.arange(0, 3 * m + 1, 3, dtype=np.int32),
                                     pa.array(np.tile(["a", "b", "c"], m)))
    before = pa.ListArray.from_arrays(np.zeros(m + 1, dtype=np.int32), pa.array([], pa.string()))
    del cols
    tables = pa.array(np.char.add("t", (seq[count > 0] % 7).astype(str)))
    ev = pa.StructArray.from_arrays([tables, pa.array(np.full(m, "write")), before, after],
                                    fields=list(ROW_EVENT_TYPE))
    assert len(count) == n
    return pa.ListArray.from_arrays(pa.array(offsets), ev)


def _side(rng: np.random.Generator, seq: np.ndarray, sql: pa.Array, fmt: np.ndarray, err: np.ndarray,
          cache: np.ndarray) -> pa.Table:
    n = len(seq)
    return pa.table({
        "seq": pa.array(seq), "session": pa.array(np.full(n, "default")), "sql": sql,
        "error": pa.array(err, mask=err == 0), "warnings": pa.ListArray.from_arrays(
            pa.array(np.zeros(n + 1, dtype=np.int32)), pa.array([], pa.int64())),
        "unsafe": pa.ListArray.from_arrays(pa.array(np.zeros(n + 1, dtype=np.int32)),
                                           pa.array([], pa.string())),
        "format": pa.array(fmt), "cache": pa.array(cache), "group": pa.array(seq // 2),
        "row_events": _events(seq, fmt), "reason": pa.nulls(n, pa.string())}, schema=RECORD_SCHEMA)


def build(data: Path, records: int, runs: int, distinct: int, seed: int = 7) -> list[Path]:
    marker = data / f"done-{records}-{runs}-{distinct}"
    dirs = [data / f"run{i:04d}" for i in range(runs)]
    if marker.exists():
        return dirs
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    pool = _sql_pool(distinct)
    per = records // runs
    for i, d in enumerate(dirs):
        d.mkdir()
        seq = np.arange(1, per + 1, dtype=np.int64)
        sql = pc.take(pool, pa.array(rng.integers(0, distinct, per)))
        fmt = FORMATS[rng.choice(4, per, p=[0.3, 0.6, 0.095, 0.005])]
        err = np.where(rng.random(per) < 0.02, 1062, 0)
        cache = CACHES[rng.integers(0, 3, per)]
        pq.write_table(_side(rng, seq, sql, fmt, err, cache), d / "predicted.parquet")
        # observed: 1% other format, 0.5% other error, 0.1% missing
        ofmt = np.where(rng.random(per) < 0.01, FORMATS[rng.integers(0, 3, per)],
                        np.where(fmt == "UNKNOWN", "ROW", fmt))
        oerr = np.where(rng.random(per) < 0.005, 1213, err)
        keep = rng.random(per) >= 0.001
        obs = _side(rng, seq, sql, ofmt, oerr, cache).filter(pa.array(keep))
        pq.write_table(obs, d / "observed.parquet")
        (d / "run.json").write_text(json.dumps({
            "workload": f"w{i % 10}", "server": ["local:mariadb", "docker:mysql-9.7"][i % 2],
            "server_version": "bench", "binlog_format": "MIXED",
            "binlog_row_image": ["FULL", "MINIMAL", "NOBLOB"][i % 3], "binlog_bytes": 1000 + i}))
    marker.write_text("")
    return dirs


def baseline(dirs: list[Path]) -> float:
    """Plain single-process pyarrow: read every run's two files, full-outer-join by (run, seq).

    Acero cannot carry list columns through a join, so the flat columns are joined with a row index and
    the nested ones (warnings, unsafe, row_events) are gathered by that index afterwards.
    """
    t = time.perf_counter()
    flat, nested = [], []
    for side in ("predicted", "observed"):
        parts = []
        for i, d in enumerate(dirs):
            tb = pq.read_table(d / f"{side}.parquet")
            parts.append(tb.append_column("run", pa.array(np.full(tb.num_rows, i, dtype=np.int32))))
        tb = pa.concat_tables(parts).combine_chunks()
        p = side[0]
        nested.append(tb.select(["warnings", "unsafe", "row_events"]))
        flat.append(pa.table({"run": tb["run"], "seq": tb["seq"], f"{p}_i": pa.array(np.arange(tb.num_rows)),
                              **{f"{p}_{c}": tb[c] for c in ("sql", "error", "format", "cache", "group")}}))
    joined = flat[0].join(flat[1], ["run", "seq"], join_type="full outer")
    pn = nested[0].take(joined["p_i"])
    on = nested[1].take(joined["o_i"])
    _ = pc.sum(pc.not_equal(joined["p_format"], joined["o_format"]))
    assert pn.num_rows == on.num_rows == joined.num_rows
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--distinct-sql", type=int, default=20_000)
    ap.add_argument("--data", type=Path, default=Path("/tmp/rplay-compare-bench"))
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--python-slice", type=int, default=2, help="runs for the python-engine measurement")
    args = ap.parse_args()
    from harness.compare import Engine, compare

    t = time.perf_counter()
    dirs = build(args.data / "runs", args.records, args.runs, args.distinct_sql)
    print(f"data: {args.records:,} pairs in {args.runs} runs, {args.distinct_sql:,} distinct SQL texts "
          f"(built/cached in {time.perf_counter() - t:.1f}s)")
    out = args.data / "report"
    t = time.perf_counter()
    report = compare([args.data / "runs"], out, master=args.master, statement_limit=0)
    total = time.perf_counter() - t
    job = report.summary["job_seconds"]
    t = time.perf_counter()
    base = baseline(dirs)
    n = report.summary["statements"]
    print(f"rplay compare ({args.master}, {report.summary['engine']}): {total:6.1f}s wall  "
          f"{n / total:12,.0f} records/s  "
          f"(Spark job {job:.1f}s = {n / job:,.0f} records/s; {report.mismatch_count:,} mismatches)")
    print(f"pyarrow single-process join baseline: {base:6.1f}s wall  {n / base:12,.0f} records/s")
    print(f"ratio compare/baseline wall time: {total / base:.2f}x; target < 60 s: "
          f"{'met' if total < 60 else 'NOT met'}")
    if args.python_slice:
        sl = dirs[: args.python_slice]
        rates = []
        first = None
        for engine in (Engine.ARROW, Engine.NATIVE, Engine.PYTHON):
            t = time.perf_counter()
            r = compare(sl, args.data / f"report-{engine}", master=args.master, engine=engine,
                        statement_limit=0)
            el = time.perf_counter() - t
            first = first or r.summary["dimensions"]
            assert r.summary["dimensions"] == first, engine
            rates.append(f"{engine} {el:.1f}s = {r.summary['statements'] / el:,.0f} rec/s")
        print(f"engines on {args.python_slice} runs (whole compare incl. Spark start): " + "; ".join(rates))


if __name__ == "__main__":
    main()
