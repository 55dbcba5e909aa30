"""The rules of ``verdict`` as Spark column expressions, so the job never calls Python per row.

``verdict`` stays the source of truth; ``tests/compare/test_engines.py`` proves both give the same verdicts.
Input: ``normalized`` columns ``p_*`` and ``o_*`` of the predicted and observed record structs.
Every dimension yields a code column: null = agree, ``EXCLUDED`` = not scored, else a ``Code`` value.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from harness.compare.codes import Code
from harness.compare.verdict import UNSAFE_NOTE
from predictor.records import DIMENSIONS, Format

EXCLUDED = "EXCLUDED"
"""Code-column value of an excluded (unscored) dimension."""


def _lit(code: Code) -> Column:
    return F.lit(code.value)


def _set(c: Column, element: str) -> Column:
    return F.array_sort(F.array_distinct(F.coalesce(c, F.array().cast(f"array<{element}>"))))


def _events(c: Column) -> Column:
    empty = F.array().cast("array<string>")
    ev = F.coalesce(c, F.array().cast(
        "array<struct<table:string,type:string,before:array<string>,after:array<string>>>"))
    return F.transform(ev, lambda e: F.struct(
        e["table"].alias("table"), e["type"].alias("type"),
        F.coalesce(e["before"], empty).alias("before"), F.coalesce(e["after"], empty).alias("after")))


def _image_columns(ev: Column) -> Column:
    def cols(e: Column, image: str) -> Column:
        return F.transform(e[image], lambda c: F.struct(
            e["table"].alias("table"), e["type"].alias("type"), F.lit(image).alias("image"),
            c.alias("column")))
    return F.flatten(F.transform(ev, lambda e: F.concat(cols(e, "before"), cols(e, "after"))))


def _nonempty(c: Column) -> Column:
    return F.size(c) > 0


def normalized(r: Column, prefix: str) -> list[Column]:
    """Flat, normalised columns of one side (computed once; the codes below only reference them)."""
    ev = _events(r["row_events"])
    return [
        r.isNull().alias(f"{prefix}_absent"), r["format"].alias(f"{prefix}_format"),
        r["cache"].alias(f"{prefix}_cache"), r["error"].alias(f"{prefix}_error"),
        r["group"].alias(f"{prefix}_group"),
        _set(r["warnings"], "bigint").alias(f"{prefix}_warnings"),
        _set(r["unsafe"], "string").alias(f"{prefix}_unsafe"),
        ev.alias(f"{prefix}_events"),
    ]


def _keys(ev: Column) -> Column:
    return F.transform(ev, lambda e: F.struct(e["table"].alias("table"), e["type"].alias("type")))


def row_events_code(pe: Column, oe: Column) -> Column:
    """Code of two normalised row-event arrays (mirrors ``verdict.row_events_code``)."""
    same = ~_nonempty(F.array_except(pe, oe)) & ~_nonempty(F.array_except(oe, pe))
    pk, ok = _keys(pe), _keys(oe)
    pc, oc = _image_columns(pe), _image_columns(oe)
    return (F.when(same, F.lit(None).cast("string"))
            .when(_nonempty(F.array_except(pk, ok)), _lit(Code.ROW_EVENT_MISSING))
            .when(_nonempty(F.array_except(ok, pk)), _lit(Code.ROW_EVENT_UNEXPECTED))
            .when(_nonempty(F.array_except(pc, oc)), _lit(Code.ROW_IMAGE_MISSING_COLUMN))
            .when(_nonempty(F.array_except(oc, pc)), _lit(Code.ROW_IMAGE_EXTRA_COLUMN))
            .otherwise(_lit(Code.ROW_IMAGE_MISMATCH)))


def _equal_or(a: Column, b: Column, code: Code) -> Column:
    return F.when(a.eqNullSafe(b), F.lit(None).cast("string")).otherwise(_lit(code))


def dimension_code(dim: str) -> Column:
    """Code of ``dim`` for two present, known records over ``normalized`` columns ``p_*``/``o_*``."""
    def p(name: str) -> Column:
        return F.col(f"p_{name}")

    def o(name: str) -> Column:
        return F.col(f"o_{name}")

    if dim == "error":
        return (F.when(p("error").eqNullSafe(o("error")), F.lit(None).cast("string"))
                .when(p("error").isNull(), _lit(Code.UNEXPECTED_ERROR))
                .when(o("error").isNull(), _lit(Code.MISSING_ERROR))
                .otherwise(_lit(Code.ERROR_MISMATCH)))
    if dim == "warnings":
        return _equal_or(p("warnings"), o("warnings"), Code.WARNING_MISMATCH)
    if dim == "unsafe":
        observable = (o("format") == Format.STATEMENT.value) | F.array_contains(o("warnings"), UNSAFE_NOTE)
        return F.when(~observable, F.lit(EXCLUDED)).otherwise(
            _equal_or(p("unsafe"), o("unsafe"), Code.UNSAFE_MISMATCH))
    if dim in ("format", "cache"):
        return _equal_or(p(dim), o(dim), Code.FORMAT_MISMATCH if dim == "format" else Code.CACHE_MISMATCH)
    if dim == "group":
        return _equal_or(p("group"), o("group"), Code.GROUP_ORDER)
    if dim == "row_events":
        return row_events_code(p("events"), o("events"))
    raise ValueError(f"unknown dimension {dim!r}")


def whole_record_code() -> Column:
    return (F.when(F.col("p_absent"), _lit(Code.MISSING_PREDICTION))
            .when(F.col("o_absent"), _lit(Code.MISSING_OBSERVATION))
            .when(F.col("p_format") == Format.UNKNOWN.value, _lit(Code.UNKNOWN_PREDICTION))
            .when(F.col("o_format") == Format.UNKNOWN.value, _lit(Code.UNKNOWN_OBSERVATION)))


def code_columns() -> list[Column]:
    """``code_<dim>`` for every dimension, in DIMENSIONS order (needs a ``whole`` column)."""
    return [F.coalesce(F.col("whole"), dimension_code(d)).alias(f"code_{d}") for d in DIMENSIONS]


def value_json(dim: str, prefix: str) -> Column:
    """A side's dimension value as JSON text (mirrors ``verdict.as_json(dimension_value)``)."""
    name = "events" if dim == "row_events" else dim
    c = F.col(f"{prefix}_{name}")
    if dim in ("error", "group"):
        v = c.cast("string")
    elif dim in ("format", "cache"):
        v = F.concat(F.lit('"'), c, F.lit('"'))
    elif dim == "row_events":
        v = F.to_json(F.array_sort(c))
    else:
        v = F.to_json(c)
    return F.when(F.col(f"{prefix}_absent"), F.lit("null")).otherwise(F.coalesce(v, F.lit("null")))


def unsafe_key() -> Column:
    both = F.concat(F.col("p_unsafe"), F.col("o_unsafe"))
    return F.array_join(F.array_sort(F.array_distinct(both)), ",")
