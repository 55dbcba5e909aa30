"""The python engine: ``verdict.score`` applied per row inside ``mapInArrow`` (slow, but the plain rules).

Kept to measure against the native columnar engine and to cross-check it on real data.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from harness.compare.codes import Outcome
from harness.compare.columnar import EXCLUDED
from harness.compare.verdict import score, unsafe_key
from predictor.records import DIMENSIONS, StatementRecord

OUTPUT_SCHEMA = pa.schema(
    [pa.field("run", pa.string()), pa.field("seq", pa.int64()), pa.field("session", pa.string()),
     pa.field("sql", pa.string()), pa.field("unsafe_key", pa.string()),
     pa.field("pred_format", pa.string()), pa.field("obs_format", pa.string())]
    + [pa.field(f"code_{d}", pa.string()) for d in DIMENSIONS]
    + [pa.field(f"pj_{d}", pa.string()) for d in DIMENSIONS]
    + [pa.field(f"oj_{d}", pa.string()) for d in DIMENSIONS])


_FIELDS = ("session", "sql", "error", "warnings", "unsafe", "format", "cache", "group", "warnings_unread")


def _record(row: dict[str, Any], prefix: str) -> StatementRecord | None:
    if row[f"{prefix}_present"] is None:
        return None
    d = {f: row[f"{prefix}_{f}"] for f in _FIELDS}
    d["seq"] = row["seq"]
    d["row_events"] = row[f"{prefix}_events"]
    return StatementRecord.from_dict(d)


def score_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Flat joined batches (``flatjoin.FLAT_SCHEMA``) in, one verdict row per statement out."""
    for batch in batches:
        cols: dict[str, list[Any]] = {f.name: [] for f in OUTPUT_SCHEMA}
        for row in batch.to_pylist():
            p, o = _record(row, "p"), _record(row, "o")
            either = p if p is not None else o
            assert either is not None
            cols["run"].append(row["run"])
            cols["seq"].append(row["seq"])
            cols["session"].append(either.session)
            cols["sql"].append(either.sql)
            cols["unsafe_key"].append(unsafe_key(p, o))
            cols["pred_format"].append(None if p is None else p.format.value)
            cols["obs_format"].append(None if o is None else o.format.value)
            for v in score(p, o):
                cols[f"code_{v.dimension}"].append(
                    EXCLUDED if v.outcome is Outcome.EXCLUDED else (None if v.code is None else v.code.value))
                cols[f"pj_{v.dimension}"].append(v.predicted)
                cols[f"oj_{v.dimension}"].append(v.observed)
        yield pa.RecordBatch.from_pydict(cols, schema=OUTPUT_SCHEMA)
