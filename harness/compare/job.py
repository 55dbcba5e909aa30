"""The Spark job: load predicted/observed records of many runs, join by (run, seq), score, aggregate.

Spark only loads, joins and applies the rules; it returns small Arrow tables to the driver (aggregates per
run x SQL text, the mismatch rows, and per-statement verdicts when there are few enough for junit).
Fingerprints are computed afterwards on the driver, once per distinct SQL text (see ``fingerprint``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from harness.compare import columnar
from harness.compare.inputs import Part
from predictor.exceptions import CompareError
from predictor.records import DIMENSIONS

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession



class Engine(StrEnum):
    ARROW = "arrow"  # pyarrow join of a task's runs, columnar fast path + plain rules (arrowengine.py)
    NATIVE = "native"  # Spark column expressions (columnar.py)
    PYTHON = "python"  # verdict.score per row in mapInArrow (pyengine.py)


@dataclass(frozen=True)
class JobOptions:
    engine: Engine = Engine.ARROW
    statement_limit: int = 50_000
    """Per-statement verdicts (junit's passing testcases) are collected only up to this many statements."""


@dataclass(frozen=True)
class JobResult:
    aggregates: pa.Table  # run, sql or fingerprint, unsafe_key, pred/obs_format, statements, agree_/mismatch_
    mismatches: pa.Table  # run, seq, session, sql, dimension, code, predicted, observed
    statements: pa.Table | None  # run, seq, session, sql, code_<dim>; None above statement_limit
    statement_count: int
    seconds: float


TASK_ROWS = 200_000
"""Parts are packed into Spark tasks of about this many records (predicted + observed): a task costs
~0.1 s of scheduling and Python-worker overhead here, so hundreds of small runs must not be one task each,
while big runs stay one task per run so both cores keep busy until the end."""


def _tasks(spark: SparkSession, parts: Sequence[Part], keep: bool) -> DataFrame:
    """One row, and one partition, per task: the parts it joins (``flatjoin.TASK_SCHEMA``)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    from harness.compare.flatjoin import TASK_SCHEMA

    groups: list[list[dict[str, str | None]]] = []
    rows = TASK_ROWS
    for part in parts:
        if rows >= TASK_ROWS:
            groups.append([])
            rows = 0
        groups[-1].append({"run": part.run, "predicted": str(part.predicted), "observed": str(part.observed)})
        rows += part.rows
    data = [(g, keep) for g in groups]
    return spark.createDataFrame(spark.sparkContext.parallelize(data, max(1, len(data))),
                                 from_arrow_schema(TASK_SCHEMA))


def _joined(spark: SparkSession, parts: Sequence[Part]) -> DataFrame:
    """Flat joined records (``flatjoin.FLAT_SCHEMA``): each Spark task joins its parts' files."""
    from pyspark.sql.pandas.types import from_arrow_schema

    from harness.compare.flatjoin import FLAT_SCHEMA, join_runs

    return _tasks(spark, parts, False).mapInArrow(join_runs, from_arrow_schema(FLAT_SCHEMA))


def _verdicts(joined: DataFrame, engine: Engine) -> DataFrame:
    from pyspark.sql import functions as F

    if engine is Engine.PYTHON:
        from pyspark.sql.pandas.types import from_arrow_schema

        from harness.compare.pyengine import OUTPUT_SCHEMA, score_batches

        return joined.mapInArrow(score_batches, from_arrow_schema(OUTPUT_SCHEMA))
    flat = joined.withColumn("whole", columnar.whole_record_code())
    return flat.select(
        "run", "seq",
        F.coalesce(F.col("p_session"), F.col("o_session")).alias("session"),
        F.coalesce(F.col("p_sql"), F.col("o_sql")).alias("sql"),
        columnar.unsafe_key().alias("unsafe_key"),
        F.col("p_format").alias("pred_format"), F.col("o_format").alias("obs_format"),
        *columnar.code_columns(),
        *[columnar.value_json(d, "p").alias(f"pj_{d}") for d in DIMENSIONS],
        *[columnar.value_json(d, "o").alias(f"oj_{d}") for d in DIMENSIONS])


def _is_mismatch(code: Column) -> Column:
    return code.isNotNull() & (code != columnar.EXCLUDED)


def run_job(spark: SparkSession, parts: Sequence[Part], options: JobOptions = JobOptions()) -> JobResult:
    """Run the comparison over staged inputs (``inputs.stage``) as ONE Spark action.

    Spark groups the verdicts by (run, SQL text, unsafe key, formats) with per-dimension sums and carries
    the mismatching statements (and, for small inputs, every statement's codes) as lists in the groups,
    so the join is computed once: on this 2-core machine every extra action costs seconds.
    """
    from pyspark.sql import functions as F

    started = time.monotonic()
    keep_statements = max(sum(p.predicted_rows for p in parts),
                          sum(p.observed_rows for p in parts)) <= options.statement_limit
    if options.engine is Engine.ARROW:
        return _run_arrow(spark, parts, keep_statements, started)
    try:
        verdicts = _verdicts(_joined(spark, parts), options.engine)

        codes = [F.col(f"code_{d}") for d in DIMENSIONS]
        any_mismatch = F.lit(False)
        for c in codes:
            any_mismatch = any_mismatch | _is_mismatch(c)
        aggs: list[Column] = [F.count(F.lit(1)).alias("statements")]
        for d, c in zip(DIMENSIONS, codes, strict=True):
            aggs.append(F.sum(F.when(c.isNull(), 1).otherwise(0)).alias(f"agree_{d}"))
            aggs.append(F.sum(F.when(_is_mismatch(c), 1).otherwise(0)).alias(f"mismatch_{d}"))
        detail = F.struct("seq", "session", *codes, *[f"pj_{d}" for d in DIMENSIONS],
                          *[f"oj_{d}" for d in DIMENSIONS])
        aggs.append(F.collect_list(F.when(any_mismatch, detail)).alias("mismatched"))
        if keep_statements:
            aggs.append(F.collect_list(F.struct("seq", "session", *codes)).alias("all"))
        grouped = (verdicts.groupBy("run", "sql", "unsafe_key", "pred_format", "obs_format")
                   .agg(*aggs).toArrow())
    except CompareError:
        raise
    except Exception as e:  # Spark surfaces unreadable inputs as Java/py4j exceptions
        text = str(e).strip().splitlines()
        raise CompareError(f"the Spark comparison failed: {text[0] if text else type(e).__name__}") from None
    aggregates = grouped.drop_columns([c for c in ("mismatched", "all") if c in grouped.column_names])
    count = int(pc.sum(aggregates["statements"]).as_py() or 0) if aggregates.num_rows else 0
    mismatches = _explode_mismatches(grouped)
    statements = _explode(grouped, "all", ["seq", "session", *[f"code_{d}" for d in DIMENSIONS]]) \
        if keep_statements else None
    return JobResult(aggregates, mismatches, statements, count, time.monotonic() - started)


def _explode(grouped: pa.Table, column: str, fields: list[str]) -> pa.Table:
    """Flatten a list<struct> column, repeating the group's run and sql."""
    lists = grouped[column].combine_chunks() if grouped.num_rows else pa.array([], grouped.schema.field(
        column).type)
    parents = pc.list_parent_indices(lists)
    flat = pc.list_flatten(lists)
    cols = {"run": pc.take(grouped["run"], parents), "sql": pc.take(grouped["sql"], parents)}
    for f in fields:
        cols[f] = pc.struct_field(flat, f)
    return pa.table(cols)


def _explode_mismatches(grouped: pa.Table) -> pa.Table:
    fields = ["seq", "session", *[f"{k}_{d}" for k in ("code", "pj", "oj") for d in DIMENSIONS]]
    return _mismatch_rows(_explode(grouped, "mismatched", fields))


def _mismatch_rows(per_statement: pa.Table) -> pa.Table:
    """One row per mismatching statement-dimension, sorted by run, seq and dimension order (vectorised)."""
    parts = []
    for i, d in enumerate(DIMENSIONS):
        code = per_statement[f"code_{d}"]
        hit = pc.and_(pc.is_valid(code), pc.not_equal(pc.fill_null(code, ""), columnar.EXCLUDED))
        sub = per_statement.filter(hit)
        n = sub.num_rows
        cols = {
            "run": sub["run"], "seq": sub["seq"], "session": sub["session"], "sql": sub["sql"],
            "dimension": pa.repeat(pa.scalar(d), n), "code": sub[f"code_{d}"],
            "predicted": sub[f"pj_{d}"], "observed": sub[f"oj_{d}"],
            "_order": pa.repeat(pa.scalar(i, pa.int8()), n)}
        if "fingerprint" in per_statement.column_names:
            cols["fingerprint"] = sub["fingerprint"]
        parts.append(pa.table(cols))
    key = [("run", "ascending"), ("seq", "ascending"), ("_order", "ascending")]
    out = pa.concat_tables(parts).sort_by(key).drop_columns(["_order"])
    schema = MISMATCH_SCHEMA if "fingerprint" not in out.column_names else MISMATCH_SCHEMA.append(
        pa.field("fingerprint", pa.string()))
    return out.cast(schema)


MISMATCH_SCHEMA = pa.schema([
    pa.field("run", pa.string()), pa.field("seq", pa.int64()), pa.field("session", pa.string()),
    pa.field("sql", pa.string()), pa.field("dimension", pa.string()), pa.field("code", pa.string()),
    pa.field("predicted", pa.string()), pa.field("observed", pa.string())])


def _run_arrow(spark: SparkSession, parts: Sequence[Part], keep_statements: bool,
               started: float) -> JobResult:
    from pyspark.sql.pandas.types import from_arrow_schema

    from harness.compare.arrowengine import OUTPUT_SCHEMA, score_tasks

    try:
        tasks = _tasks(spark, parts, keep_statements)
        out = tasks.mapInArrow(score_tasks, from_arrow_schema(OUTPUT_SCHEMA)).toArrow()
    except Exception as e:  # a worker's error arrives as a Java/py4j exception
        text = [x for x in str(e).strip().splitlines() if "Error" in x or "Exception" in x]
        raise CompareError(f"the Spark comparison failed: {text[-1] if text else type(e).__name__}") from None
    kind = out["kind"]
    agg_cols = ["run", "fingerprint", "unsafe_key", "pred_format", "obs_format", "statements",
                *[f"{k}_{d}" for d in DIMENSIONS for k in ("agree", "mismatch")]]
    aggregates = out.filter(pc.equal(kind, "agg")).select(agg_cols)
    mism_cols = ["run", "sql", "fingerprint", "seq", "session",
                 *[f"{k}_{d}" for k in ("code", "pj", "oj") for d in DIMENSIONS]]
    mismatches = _mismatch_rows(out.filter(pc.equal(kind, "mismatch")).select(mism_cols))
    statements = None
    if keep_statements:
        statements = out.filter(pc.equal(kind, "stmt")).select(
            ["run", "seq", "session", "sql", *[f"code_{d}" for d in DIMENSIONS]])
    count = int(pc.sum(aggregates["statements"]).as_py() or 0) if aggregates.num_rows else 0
    return JobResult(aggregates, mismatches, statements, count, time.monotonic() - started)
