"""The rules of ``verdict`` as Spark column expressions (the native engine: no Python per row).

``verdict`` stays the source of truth; ``tests/compare/test_spark.py`` proves both engines give the same
verdicts. Input: flat columns ``p_*`` and ``o_*`` (``flatjoin.FLAT_SCHEMA``), ``p_present``/``o_present``
null when a side is missing. Every dimension yields a code column: null = agree, ``EXCLUDED`` = not scored,
else a ``Code`` value.

Speed: a raw equality test comes first (records are written normalised, so equal values are the common
case); the set normalisation and the row-event classification, which use interpreted higher-order
functions, only run on rows whose raw values differ.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from harness.compare.codes import Code
from harness.compare.verdict import UNSAFE_NOTE
from predictor.records import DIMENSIONS, Format

EXCLUDED = "EXCLUDED"
"""Code-column value of an excluded (unscored) dimension."""

_EVENT = "struct<table:string,type:string,before:array<string>,after:array<string>>"



def _null() -> Column:
    return F.lit(None).cast("string")


def _lit(code: Code) -> Column:
    return F.lit(code.value)


def _col(prefix: str, name: str) -> Column:
    return F.col(f"{prefix}_{name}")


def _list(prefix: str, name: str, element: str) -> Column:
    return F.coalesce(_col(prefix, name), F.array().cast(f"array<{element}>"))


def _set(c: Column) -> Column:
    return F.sort_array(F.array_distinct(c))


def events(prefix: str) -> Column:
    """Row events with null image lists made empty."""
    empty = F.array().cast("array<string>")
    return F.transform(_list(prefix, "events", _EVENT), lambda e: F.struct(
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


def _keys(ev: Column) -> Column:
    return F.transform(ev, lambda e: F.struct(e["table"].alias("table"), e["type"].alias("type")))


def row_events_code() -> Column:
    """Mirrors ``verdict.row_events_code``."""
    pe, oe = events("p"), events("o")
    same = ~_nonempty(F.array_except(pe, oe)) & ~_nonempty(F.array_except(oe, pe))
    pk, ok = _keys(pe), _keys(oe)
    pc, oc = _image_columns(pe), _image_columns(oe)
    return (F.when(_list("p", "events", _EVENT) == _list("o", "events", _EVENT), _null())
            .when(same, _null())
            .when(_nonempty(F.array_except(pk, ok)), _lit(Code.ROW_EVENT_MISSING))
            .when(_nonempty(F.array_except(ok, pk)), _lit(Code.ROW_EVENT_UNEXPECTED))
            .when(_nonempty(F.array_except(pc, oc)), _lit(Code.ROW_IMAGE_MISSING_COLUMN))
            .when(_nonempty(F.array_except(oc, pc)), _lit(Code.ROW_IMAGE_EXTRA_COLUMN))
            .otherwise(_lit(Code.ROW_IMAGE_MISMATCH)))


def _set_code(name: str, element: str, code: Code) -> Column:
    p, o = _list("p", name, element), _list("o", name, element)
    return F.when(p == o, _null()).when(_set(p) == _set(o), _null()).otherwise(_lit(code))


def _equal_or(name: str, code: Code) -> Column:
    return F.when(_col("p", name).eqNullSafe(_col("o", name)), _null()).otherwise(_lit(code))


def dimension_code(dim: str) -> Column:
    """Code of ``dim`` for two present, known records (mirrors ``verdict.dimension_code``)."""
    if dim == "error":
        pe, oe = _col("p", "error"), _col("o", "error")
        return (F.when(pe.eqNullSafe(oe), _null())
                .when(pe.isNull(), _lit(Code.UNEXPECTED_ERROR))
                .when(oe.isNull(), _lit(Code.MISSING_ERROR))
                .otherwise(_lit(Code.ERROR_MISMATCH)))
    unread = F.coalesce(_col("o", "warnings_unread"), F.lit(False))  # not read: ROW_COUNT() had to stay
    if dim == "warnings":
        return F.when(unread, F.lit(EXCLUDED)).otherwise(_set_code("warnings", "bigint", Code.WARNING_MISMATCH))
    if dim == "unsafe":
        observable = (_col("o", "format") == Format.STATEMENT.value) | F.array_contains(
            _list("o", "warnings", "bigint"), UNSAFE_NOTE)
        return F.when(~observable, F.lit(EXCLUDED)).when(unread, F.lit(EXCLUDED)).otherwise(
            _set_code("unsafe", "string", Code.UNSAFE_MISMATCH))
    if dim == "format":
        return _equal_or("format", Code.FORMAT_MISMATCH)
    if dim == "cache":
        return _equal_or("cache", Code.CACHE_MISMATCH)
    if dim == "group":
        return _equal_or("group", Code.GROUP_ORDER)
    if dim == "row_events":
        return row_events_code()
    raise ValueError(f"unknown dimension {dim!r}")


def whole_record_code() -> Column:
    return (F.when(F.col("p_present").isNull(), _lit(Code.MISSING_PREDICTION))
            .when(F.col("o_present").isNull(), _lit(Code.MISSING_OBSERVATION))
            .when(_col("p", "format") == Format.UNKNOWN.value, _lit(Code.UNKNOWN_PREDICTION))
            .when(_col("o", "format") == Format.UNKNOWN.value, _lit(Code.UNKNOWN_OBSERVATION)))


def code_columns() -> list[Column]:
    """``code_<dim>`` for every dimension, in DIMENSIONS order (needs a ``whole`` column)."""
    return [F.coalesce(F.col("whole"), dimension_code(d)).alias(f"code_{d}") for d in DIMENSIONS]


def value_json(dim: str, prefix: str) -> Column:
    """A side's dimension value as JSON text (mirrors ``verdict.as_json(dimension_value)``)."""
    if dim in ("error", "group"):
        v = _col(prefix, dim).cast("string")
    elif dim in ("format", "cache"):
        v = F.concat(F.lit('"'), _col(prefix, dim), F.lit('"'))
    elif dim == "warnings":
        v = F.to_json(_set(_list(prefix, dim, "bigint")))
    elif dim == "unsafe":
        v = F.to_json(_set(_list(prefix, dim, "string")))
    elif dim == "row_events":
        v = F.to_json(F.sort_array(events(prefix)))
    else:
        raise ValueError(f"unknown dimension {dim!r}")
    return F.when(F.col(f"{prefix}_present").isNull(), F.lit("null")).otherwise(F.coalesce(v, F.lit("null")))


def unsafe_key() -> Column:
    p, o = _list("p", "unsafe", "string"), _list("o", "unsafe", "string")
    return F.when((F.size(p) == 0) & (F.size(o) == 0), F.lit("")).otherwise(
        F.array_join(_set(F.concat(p, o)), ","))
