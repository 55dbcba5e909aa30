"""Per-run join of predicted and observed records in pyarrow, run inside Spark tasks (``mapInArrow``).

Both sides of a run live in two files of one directory, so joining them inside one task avoids shuffling
every record across the cluster: one task per run reads its two files, full-outer-joins them by ``seq`` and
emits flat ``p_*``/``o_*`` columns. Workers must see the run directories' paths (true for local mode and a
cluster on one host or a shared filesystem). Acero cannot carry list columns through a join, so the keys
are joined with row indices and every column is then gathered with ``take``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.compare.inputs import RECORD_SCHEMA

_COLUMNS = ("session", "sql", "error", "warnings", "unsafe", "format", "cache", "group", "row_events")
_NAMES = {"row_events": "events"}

FLAT_SCHEMA = pa.schema(
    [pa.field("run", pa.string()), pa.field("seq", pa.int64())]
    + [f for p in ("p", "o") for f in [pa.field(f"{p}_present", pa.bool_())] + [
        pa.field(f"{p}_{_NAMES.get(c, c)}", RECORD_SCHEMA.field(c).type) for c in _COLUMNS]])

TASK_SCHEMA = pa.schema([pa.field("run", pa.string()), pa.field("predicted", pa.string()),
                         pa.field("observed", pa.string())])
BATCH_ROWS = 65536


def _read(path: str) -> pa.Table:
    table = pq.read_table(path, columns=["seq", *_COLUMNS])
    return table.cast(pa.schema([RECORD_SCHEMA.field(n) for n in table.column_names])).combine_chunks()


def join_table(run: str, predicted: str, observed: str) -> pa.Table:
    """The run's records full-outer-joined by seq, as flat ``p_*``/``o_*`` columns (FLAT_SCHEMA)."""
    pt, ot = _read(predicted), _read(observed)
    keys_p = pa.table({"seq": pt["seq"], "pi": pa.array(range(pt.num_rows), pa.int64())})
    keys_o = pa.table({"seq": ot["seq"], "oi": pa.array(range(ot.num_rows), pa.int64())})
    keys = keys_p.join(keys_o, "seq", join_type="full outer", coalesce_keys=True).sort_by("seq")
    pi, oi = keys["pi"].combine_chunks(), keys["oi"].combine_chunks()
    n = keys.num_rows
    cols: dict[str, pa.Array] = {"run": pa.array([run] * n, pa.string()),
                                 "seq": keys["seq"].combine_chunks()}
    for prefix, table, idx in (("p", pt, pi), ("o", ot, oi)):
        present = pc.if_else(pc.is_valid(idx), True, None)
        cols[f"{prefix}_present"] = present
        for c in _COLUMNS:
            cols[f"{prefix}_{_NAMES.get(c, c)}"] = pc.take(table[c], idx)
    return pa.Table.from_pydict(cols, schema=FLAT_SCHEMA)


def join_run(run: str, predicted: str, observed: str) -> Iterator[pa.RecordBatch]:
    yield from join_table(run, predicted, observed).to_batches(max_chunksize=BATCH_ROWS)


def join_runs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` function: (run, predicted path, observed path) rows in, joined flat records out."""
    for batch in batches:
        for row in batch.to_pylist():
            yield from join_run(row["run"], row["predicted"], row["observed"])
