"""Join of predicted and observed records in pyarrow/numpy, run inside Spark tasks (``mapInArrow``).

Both sides of a run are two files (a run directory's, or a staged chunk holding many runs), so joining them
inside one task avoids shuffling every record across the cluster: a task reads its parts, full-outer-joins
them by (run, seq) and emits flat ``p_*``/``o_*`` columns. Workers must see the files' paths (true for local
mode and a cluster on one host or a shared filesystem).

Acero cannot carry list columns through a join, so the keys are joined with row indices and the columns
are then gathered with ``take`` (skipped for a side whose rows come out complete and in order, usually the
predicted one). A numpy sorted merge on one int64 key was tried: slower than Acero's hash join here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.compare.inputs import OPTIONAL_COLUMNS, RECORD_SCHEMA

_COLUMNS = ("session", "sql", "error", "warnings", "unsafe", "format", "cache", "group", "row_events",
            "warnings_unread")
_NAMES = {"row_events": "events"}

FLAT_SCHEMA = pa.schema(
    [pa.field("run", pa.string()), pa.field("seq", pa.int64())]
    + [f for p in ("p", "o") for f in [pa.field(f"{p}_present", pa.bool_())] + [
        pa.field(f"{p}_{_NAMES.get(c, c)}", RECORD_SCHEMA.field(c).type) for c in _COLUMNS]])

PART_TYPE = pa.struct([pa.field("run", pa.string()), pa.field("predicted", pa.string()),
                       pa.field("observed", pa.string())])
"""One part of a task: ``run`` null means the files carry a ``run`` column (a staged chunk)."""
TASK_SCHEMA = pa.schema([pa.field("parts", pa.list_(PART_TYPE)), pa.field("keep", pa.bool_())])
BATCH_ROWS = 65536


def _read(path: str, run: str | None) -> pa.Table:
    have = set(pq.read_schema(path).names)
    names = ["seq", *[c for c in _COLUMNS if c in have or c not in OPTIONAL_COLUMNS]]
    table = pq.read_table(path, columns=names + (["run"] if run is None else []), use_threads=False)
    for c in _COLUMNS:
        if c not in table.column_names:  # an optional column an older file lacks
            f = RECORD_SCHEMA.field(c)
            table = table.append_column(f, pa.nulls(table.num_rows, f.type))
    schema = pa.schema([RECORD_SCHEMA.field(n) if n != "run" else pa.field("run", pa.string())
                        for n in table.column_names])
    table = table.cast(schema)
    if run is not None:
        table = table.append_column("run", pa.repeat(pa.scalar(run, pa.string()), table.num_rows))
    return table.combine_chunks()


def _side(parts: Sequence[dict[str, Any]], side: str) -> pa.Table:
    tables = [_read(p[side], p["run"]) for p in parts]
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables).combine_chunks()


def _keys(pt: pa.Table, ot: pa.Table) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    """(run, seq, predicted row, observed row) of the full outer join, sorted by run and seq."""
    keys_p = pa.table({"run": pt["run"], "seq": pt["seq"], "pi": pa.array(np.arange(pt.num_rows))})
    keys_o = pa.table({"run": ot["run"], "seq": ot["seq"], "oi": pa.array(np.arange(ot.num_rows))})
    keys = keys_p.join(keys_o, ["run", "seq"], join_type="full outer", coalesce_keys=True)
    keys = keys.sort_by([("run", "ascending"), ("seq", "ascending")])
    return (keys["run"].combine_chunks(), keys["seq"].combine_chunks(), keys["pi"].combine_chunks(),
            keys["oi"].combine_chunks())


def _is_identity(idx: pa.Array, rows: int) -> bool:
    if len(idx) != rows or idx.null_count:
        return False
    return bool(np.array_equal(idx.to_numpy(), np.arange(rows)))


def join_parts(parts: Sequence[dict[str, Any]]) -> pa.Table:
    """The parts' records full-outer-joined by (run, seq), as flat ``p_*``/``o_*`` columns (FLAT_SCHEMA)."""
    pt, ot = _side(parts, "predicted"), _side(parts, "observed")
    run, seq, pi, oi = _keys(pt, ot)
    cols: dict[str, pa.Array] = {"run": run, "seq": seq}
    for prefix, table, idx in (("p", pt, pi), ("o", ot, oi)):
        cols[f"{prefix}_present"] = pc.if_else(pc.is_valid(idx), True, None)
        identity = _is_identity(idx, table.num_rows)  # every record of this side, in order: no gather
        for c in _COLUMNS:
            cols[f"{prefix}_{_NAMES.get(c, c)}"] = table[c] if identity else pc.take(table[c], idx)
    return pa.Table.from_pydict(cols, schema=FLAT_SCHEMA)


def join_table(run: str, predicted: str, observed: str) -> pa.Table:
    """One run's two files joined (FLAT_SCHEMA)."""
    return join_parts([{"run": run, "predicted": predicted, "observed": observed}])


def join_runs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` function: task rows (TASK_SCHEMA) in, joined flat records out."""
    for batch in batches:
        for row in batch.to_pylist():
            yield from join_parts(row["parts"]).to_batches(max_chunksize=BATCH_ROWS)
