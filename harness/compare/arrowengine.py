"""The arrow engine: each Spark task joins its runs in pyarrow, scores them column-wise and aggregates.

Why: on Spark, moving every joined record into Spark's row format (mapInArrow output, nested lists) costs
far more than the scoring itself; runs are independent, so a task can finish its run and hand Spark only
aggregates and mismatches. Scoring is a columnar fast path plus the plain rules:

- a statement whose two records are equal on every raw dimension value agrees everywhere (``unsafe``
  EXCLUDED when not observable) -- decided with vectorised equality over the nested columns;
- a statement with a missing side or an UNKNOWN format goes through ``verdict.score`` itself;
- any other statement that differs has only its differing dimensions scored by ``verdict.score_dimension``
  (a raw-equal value agrees under every rule).

So ``verdict`` stays the only source of the codes; the columnar part only recognises plain agreement.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from harness.compare.codes import Code, Outcome
from harness.compare.columnar import EXCLUDED
from harness.compare.fingerprint import fingerprint
from harness.compare.flatjoin import join_parts
from harness.compare.verdict import UNSAFE_NOTE, score, score_dimension, unsafe_key
from predictor.records import DIMENSIONS, Format, StatementRecord

_S = pa.string()
OUTPUT_SCHEMA = pa.schema(
    [pa.field("kind", _S), pa.field("run", _S), pa.field("sql", _S), pa.field("fingerprint", _S),
     pa.field("unsafe_key", _S),
     pa.field("pred_format", _S), pa.field("obs_format", _S), pa.field("statements", pa.int64())]
    + [pa.field(f"{k}_{d}", pa.int64()) for d in DIMENSIONS for k in ("agree", "mismatch")]
    + [pa.field("seq", pa.int64()), pa.field("session", _S)]
    + [pa.field(f"{k}_{d}", _S) for k in ("code", "pj", "oj") for d in DIMENSIONS])
_RAW = {"error": "error", "warnings": "warnings", "unsafe": "unsafe", "format": "format", "cache": "cache",
        "group": "group", "row_events": "events"}


def rows_equal(a: pa.Array, b: pa.Array) -> np.ndarray:
    """Per row: a == b, nested lists and structs included; a null list equals an empty one."""
    n = len(a)
    if pa.types.is_list(a.type):
        la = pc.fill_null(pc.list_value_length(a), 0).to_numpy(zero_copy_only=False)
        lb = pc.fill_null(pc.list_value_length(b), 0).to_numpy(zero_copy_only=False)
        eq: np.ndarray = la == lb
        idx = np.nonzero(eq & (la > 0))[0]
        if len(idx):
            sa, sb = a.take(pa.array(idx)), b.take(pa.array(idx))
            el = rows_equal(pc.list_flatten(sa), pc.list_flatten(sb))
            parents = pc.list_parent_indices(sa).to_numpy(zero_copy_only=False)
            eq[idx[np.unique(parents[~el])]] = False
        return eq
    if pa.types.is_struct(a.type):
        out = np.ones(n, dtype=bool)
        for i in range(a.type.num_fields):
            out &= rows_equal(pc.struct_field(a, [i]), pc.struct_field(b, [i]))
        return out
    same = pc.fill_null(pc.equal(a, b), False)
    both_null = pc.and_(pc.is_null(a), pc.is_null(b))
    return np.asarray(pc.or_(same, both_null).to_numpy(zero_copy_only=False), dtype=bool)


def _has_note(warnings: pa.Array) -> np.ndarray:
    out = np.zeros(len(warnings), dtype=bool)
    flat = pc.list_flatten(warnings)
    if len(flat):
        hit = pc.equal(flat, UNSAFE_NOTE).to_numpy(zero_copy_only=False)
        out[pc.list_parent_indices(warnings).to_numpy(zero_copy_only=False)[hit]] = True
    return out


def _record(t: dict[str, list[Any]], prefix: str, i: int) -> StatementRecord | None:
    if t[f"{prefix}_present"][i] is None:
        return None
    return StatementRecord.from_dict({
        "seq": t["seq"][i], "session": t[f"{prefix}_session"][i], "sql": t[f"{prefix}_sql"][i],
        "error": t[f"{prefix}_error"][i], "warnings": t[f"{prefix}_warnings"][i],
        "unsafe": t[f"{prefix}_unsafe"][i], "format": t[f"{prefix}_format"][i],
        "cache": t[f"{prefix}_cache"][i], "group": t[f"{prefix}_group"][i],
        "row_events": t[f"{prefix}_events"][i], "warnings_unread": t[f"{prefix}_warnings_unread"][i]})


def _col(t: pa.Table, name: str) -> pa.Array:
    c = t[name]
    return c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c


_CODES: tuple[str | None, ...] = (None, EXCLUDED, *[c.value for c in Code])
"""Codes as small ints while scoring: 0 agrees, 1 is EXCLUDED, 2 and up are mismatch codes."""
_CODE_INDEX = {c: i for i, c in enumerate(_CODES)}
_CODE_NAMES = pa.array(_CODES, _S)


def _index(code: Code | None, outcome: Outcome) -> int:
    return 1 if outcome is Outcome.EXCLUDED else 0 if code is None else _CODE_INDEX[code.value]


def _mask(a: pa.Array) -> np.ndarray:
    return np.asarray(pc.fill_null(a, False).to_numpy(zero_copy_only=False), dtype=bool)


def score_run(t: pa.Table, keep_statements: bool) -> pa.Table:
    """Aggregate rows, mismatch rows and (optionally) statement rows of joined runs (OUTPUT_SCHEMA)."""
    n = t.num_rows
    pp = pc.is_valid(_col(t, "p_present")).to_numpy(zero_copy_only=False)
    op = pc.is_valid(_col(t, "o_present")).to_numpy(zero_copy_only=False)
    whole = np.zeros(n, dtype=np.int8)
    whole[pp & _mask(pc.equal(_col(t, "o_format"), Format.UNKNOWN.value))] = _CODE_INDEX[
        Code.UNKNOWN_OBSERVATION.value]
    whole[pp & _mask(pc.equal(_col(t, "p_format"), Format.UNKNOWN.value))] = _CODE_INDEX[
        Code.UNKNOWN_PREDICTION.value]
    whole[~op] = _CODE_INDEX[Code.MISSING_OBSERVATION.value]
    whole[~pp] = _CODE_INDEX[Code.MISSING_PREDICTION.value]
    known = whole == 0
    # raw-equal dimension values agree (verdict compares them as sets or scalars); only the differing ones
    # go through the plain rules below
    same = {d: rows_equal(_col(t, f"p_{_RAW[d]}"), _col(t, f"o_{_RAW[d]}")) for d in DIMENSIONS}
    unread = _mask(_col(t, "o_warnings_unread"))  # warnings not read: scored (EXCLUDED) by the plain rules
    same["warnings"] &= ~unread
    same["unsafe"] &= ~unread
    equal = known.copy()
    for d in DIMENSIONS:
        equal &= same[d]
    observable = _mask(pc.equal(_col(t, "o_format"), Format.STATEMENT.value)) | _has_note(_col(t, "o_warnings"))
    codes = {d: whole.copy() for d in DIMENSIONS}
    codes["unsafe"][known & same["unsafe"] & ~observable] = 1
    pu = pc.fill_null(pc.list_value_length(_col(t, "p_unsafe")), 0).to_numpy(zero_copy_only=False)
    ou = pc.fill_null(pc.list_value_length(_col(t, "o_unsafe")), 0).to_numpy(zero_copy_only=False)
    ukey = np.full(n, "", dtype=object)
    slow = np.nonzero(~equal | (pu > 0) | (ou > 0))[0]  # rows the plain rules decide (or key)
    pj: dict[str, dict[int, str]] = {d: {} for d in DIMENSIONS}
    oj: dict[str, dict[int, str]] = {d: {} for d in DIMENSIONS}
    if len(slow):
        sub = t.take(pa.array(slow)).to_pydict()
        for k, i in enumerate(slow.tolist()):
            p, o = _record(sub, "p", k), _record(sub, "o", k)
            ukey[i] = unsafe_key(p, o)
            if equal[i]:
                continue
            verdicts = score(p, o) if not known[i] else [
                score_dimension(d, p, o) for d in DIMENSIONS if not same[d][i]]
            for v in verdicts:
                c = _index(v.code, v.outcome)
                codes[v.dimension][i] = c
                if c > 1:
                    pj[v.dimension][i], oj[v.dimension][i] = v.predicted, v.observed
    mism_any = np.zeros(n, dtype=bool)
    for d in DIMENSIONS:
        mism_any |= codes[d] > 1
    sql = pc.coalesce(_col(t, "p_sql"), _col(t, "o_sql"))
    session = pc.coalesce(_col(t, "p_session"), _col(t, "o_session"))
    # aggregate by statement shape, not text: fingerprints are cached per worker process, so each distinct
    # text is tokenized once per worker and the aggregates stay small
    run = _col(t, "run")
    fps = _fingerprints(sql)
    keys = {"run": run, "fingerprint": fps, "unsafe_key": pa.array(ukey, _S),
            "pred_format": _col(t, "p_format"), "obs_format": _col(t, "o_format")}
    ind: dict[str, Any] = {"statements": np.ones(n, dtype=np.int64)}
    for d in DIMENSIONS:
        ind[f"agree_{d}"] = (codes[d] == 0).astype(np.int64)
        ind[f"mismatch_{d}"] = (codes[d] > 1).astype(np.int64)
    long = pa.table({**keys, **{k: pa.array(v) for k, v in ind.items()}})
    agg = long.group_by(list(keys), use_threads=False).aggregate([(k, "sum") for k in ind])
    agg = agg.rename_columns([c.removesuffix("_sum") for c in agg.column_names])
    parts = [_shape(agg.append_column("kind", pa.repeat(pa.scalar("agg"), agg.num_rows)))]
    mrows = np.nonzero(mism_any)[0]
    if len(mrows):
        # every mismatching row went through the plain rules, which rendered its values as JSON
        sel = pa.array(mrows)
        m: dict[str, Any] = {"kind": pa.repeat(pa.scalar("mismatch"), len(mrows)), "run": run.take(sel),
                             "sql": sql.take(sel), "fingerprint": fps.take(sel),
                             "seq": _col(t, "seq").take(sel), "session": session.take(sel)}
        rows = mrows.tolist()
        for d in DIMENSIONS:
            m[f"code_{d}"] = _CODE_NAMES.take(pa.array(codes[d][mrows]))
            m[f"pj_{d}"] = pa.array([pj[d].get(i) for i in rows], _S)
            m[f"oj_{d}"] = pa.array([oj[d].get(i) for i in rows], _S)
        parts.append(_shape(pa.table(m)))
    if keep_statements:
        s: dict[str, Any] = {"kind": pa.repeat(pa.scalar("stmt"), n), "run": run, "sql": sql,
                             "seq": _col(t, "seq"), "session": session}
        for d in DIMENSIONS:
            s[f"code_{d}"] = _CODE_NAMES.take(pa.array(codes[d]))
        parts.append(_shape(pa.table(s)))
    return pa.concat_tables(parts)


def _fingerprints(sql: pa.Array) -> pa.Array:
    encoded = pc.dictionary_encode(sql)
    shapes = pa.array([fingerprint(x) if x is not None else "" for x in encoded.dictionary.to_pylist()], _S)
    return pc.take(shapes, encoded.indices)


def _shape(part: pa.Table) -> pa.Table:
    n = part.num_rows
    cols = {f.name: (part[f.name].cast(f.type) if f.name in part.column_names else pa.nulls(n, f.type))
            for f in OUTPUT_SCHEMA}
    return pa.table(cols, schema=OUTPUT_SCHEMA)


def score_tasks(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` function: task rows (``flatjoin.TASK_SCHEMA``) in, OUTPUT_SCHEMA rows out."""
    for batch in batches:
        for row in batch.to_pylist():
            out = score_run(join_parts(row["parts"]), row["keep"])
            yield from out.to_batches(max_chunksize=65536)
