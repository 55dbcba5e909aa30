"""Evaluate the small expressions and SELECTs whose values decide a duplicate key.

Only what the data model needs: literals, column references, + - * on integers, comparisons joined by
AND/OR/NOT, and SELECT over one known table (or none) with UNION [ALL]. Anything else is "cannot say":
an expression becomes ``UNKNOWN`` (fine for a value nobody compares), a SELECT becomes None.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from predictor.moments import CLOCK, Moment, compare, shift


class _Unknown:
    """A value the model does not know (a function result, a column an UPDATE changed)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()

Value = object  # int | str (casefolded, trailing spaces stripped: default collations) | None (NULL) | Moment
#                | UNKNOWN
Row = dict[str, Value]  # lower-case column name -> value


class CannotEvaluate(Exception):
    """Raised inside the evaluator; callers turn it into None."""


@dataclass(frozen=True)
class Source:
    """A table a SELECT reads: its column names (lower case, table order) and its rows."""

    columns: tuple[str, ...]
    rows: Sequence[Row]


Sources = Callable[[str], Source | None]


def literal(e: exp.Expression) -> Value:
    """The value of a literal; raises CannotEvaluate for anything else."""
    if isinstance(e, exp.Literal):
        if e.is_string:
            return str(e.this).casefold().rstrip(" ")
        try:
            return int(e.this)
        except ValueError:
            return str(e.this)
    if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
        v = literal(e.this)
        return -v if isinstance(v, int) else UNKNOWN
    if isinstance(e, exp.Null):
        return None
    if isinstance(e, exp.Boolean):
        return 1 if e.this else 0
    raise CannotEvaluate(type(e).__name__)


_ARITH: dict[type[exp.Expression], Callable[[int, int], int]] = {
    exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul}
_CMP: dict[type[exp.Expression], Callable[[Any, Any], bool]] = {
    exp.EQ: operator.eq, exp.NEQ: operator.ne, exp.GT: operator.gt, exp.GTE: operator.ge,
    exp.LT: operator.lt, exp.LTE: operator.le}
_CMP_OPS: dict[type[exp.Expression], str] = {
    exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}


def opaque(v: Value) -> bool:
    """Whether equality cannot be decided on ``v`` (an unknown value, or a clock reading)."""
    return v is UNKNOWN or isinstance(v, Moment)


def clock_reading(e: object) -> Moment | None:
    """NOW(), CURRENT_TIMESTAMP(6), CURDATE(), ...: the reading (predictor/moments.py), else None."""
    if not isinstance(e, exp.Expression):
        return None
    name = e.name.upper() if isinstance(e, exp.Anonymous) else _CLOCK_NODES.get(type(e))
    return CLOCK.get(name) if name is not None else None  # an argument is the fractional-second precision


def _clock(e: exp.Expression, row: Row, values: Row | None) -> Value | None:
    """A clock reading, or one shifted by an INTERVAL (predictor/moments.py); None if ``e`` is neither."""
    if isinstance(e, exp.Anonymous) or type(e) in _CLOCK_NODES:
        return clock_reading(e)
    sign = 1 if isinstance(e, exp.Add | exp.DateAdd) else -1 if isinstance(e, exp.Sub | exp.DateSub) else 0
    if not sign:
        return None
    if isinstance(e, exp.Add | exp.Sub):
        if not isinstance(e.expression, exp.Interval):
            return None
        count, unit = e.expression.this, e.expression.args.get("unit")
    else:
        count, unit = e.expression, e.args.get("unit")
    base = value(e.this, row, values)
    n = literal(count) if isinstance(count, exp.Literal | exp.Neg) else UNKNOWN
    if isinstance(n, str) and n.lstrip("-").isdigit():
        n = int(n)
    if not isinstance(base, Moment) or not isinstance(n, int) or unit is None:
        return UNKNOWN
    return shift(base, sign * n, unit.name) or UNKNOWN


_CLOCK_NODES: dict[type[exp.Expression], str] = {
    exp.CurrentTimestamp: "NOW", exp.CurrentDate: "CURDATE", exp.CurrentDatetime: "NOW",
    exp.UtcTimestamp: "UTC_TIMESTAMP", exp.UtcDate: "UTC_DATE"}


def value(e: exp.Expression, row: Row, values: Row | None = None) -> Value:
    """Evaluate ``e`` against ``row``; ``values`` serves VALUES(col) (ON DUPLICATE KEY UPDATE)."""
    if isinstance(e, exp.Paren):
        return value(e.this, row, values)
    if isinstance(e, (exp.Column, exp.Identifier)):
        name = e.name.lower()
        if name not in row:
            raise CannotEvaluate(f"unknown column {name}")
        return row[name]
    if isinstance(e, exp.Anonymous) and e.name.upper() == "VALUES" and values is not None and e.expressions:
        return value(e.expressions[0], values)
    if isinstance(e, exp.Values) and values is not None and e.expressions:
        return value(e.expressions[0], values)
    if isinstance(e, exp.Func | exp.Add | exp.Sub):
        clock = _clock(e, row, values)
        if clock is not None:
            return clock
    for cls, fn in _ARITH.items():
        if isinstance(e, cls):
            a, b = value(e.this, row, values), value(e.expression, row, values)
            if a is None or b is None:
                return None
            if isinstance(a, int) and isinstance(b, int):
                return int(fn(a, b))
            return UNKNOWN
    for cls, fn in _CMP.items():
        if isinstance(e, cls):
            a, b = value(e.this, row, values), value(e.expression, row, values)
            if a is UNKNOWN or b is UNKNOWN:
                raise CannotEvaluate("comparison of an unknown value")
            if a is None or b is None:
                return None
            if isinstance(a, Moment) or isinstance(b, Moment):
                told = compare(a, b, _CMP_OPS[cls]) if isinstance(a, Moment) and isinstance(b, Moment) else None
                if told is None:
                    raise CannotEvaluate("clock readings too close to compare")
                return int(told)
            if type(a) is not type(b):
                raise CannotEvaluate("comparison across types")
            return 1 if fn(a, b) else 0
    if isinstance(e, (exp.And, exp.Or)):
        a, b = truth(e.this, row), truth(e.expression, row)
        return int(a and b) if isinstance(e, exp.And) else int(a or b)
    if isinstance(e, exp.Not):
        return int(not truth(e.this, row))
    if isinstance(e, exp.Is) and isinstance(e.expression, exp.Null):
        v = value(e.this, row, values)
        if v is UNKNOWN:
            raise CannotEvaluate("IS NULL of an unknown value")
        return int(v is None)
    try:
        return literal(e)
    except CannotEvaluate:
        if isinstance(e, exp.Func):
            return UNKNOWN  # NOW(), RAND(), UUID(), CONCAT(a, b): a value, just not one we know
        raise


def truth(e: exp.Expression, row: Row) -> bool:
    v = value(e, row)
    if v is UNKNOWN:
        raise CannotEvaluate("condition on an unknown value")
    return bool(v) if isinstance(v, int) else False


def output_name(e: exp.Expression) -> str:
    """The column name a SELECT item gets (CREATE ... SELECT matches columns by it)."""
    return (e.alias_or_name or e.sql(dialect="mysql")).lower()


def select_rows(q: exp.Expression, sources: Sources) -> tuple[tuple[str, ...], list[list[Value]]] | None:
    """Output column names and rows of a SELECT / UNION, or None when it cannot be evaluated."""
    try:
        return _query(q, sources)
    except (CannotEvaluate, RecursionError):
        return None


def _query(q: exp.Expression, sources: Sources) -> tuple[tuple[str, ...], list[list[Value]]]:
    if isinstance(q, exp.Subquery):
        return _query(q.this, sources)
    if isinstance(q, exp.Union):
        names, left = _query(q.this, sources)
        _, right = _query(q.expression, sources)
        if right and left and len(right[0]) != len(left[0]):
            raise CannotEvaluate("UNION of different widths")
        rows = left + right
        if q.args.get("distinct"):
            rows = _distinct(rows)
        return names, rows
    if not isinstance(q, exp.Select):
        raise CannotEvaluate(type(q).__name__)
    for arg in ("joins", "group", "having", "limit", "offset", "windows", "with_", "with"):
        if q.args.get(arg):
            raise CannotEvaluate(f"SELECT with {arg}")
    if any(isinstance(x, exp.AggFunc) for x in q.find_all(exp.AggFunc)):
        raise CannotEvaluate("aggregate")
    frm = q.args.get("from_") or q.args.get("from")
    src_rows: Sequence[Row] = [{}]
    src_cols: tuple[str, ...] = ()
    if frm is not None:
        t = frm.this
        if not isinstance(t, exp.Table) or t.args.get("joins"):
            raise CannotEvaluate("FROM is not one table")
        src = sources(t.name)
        if src is None:
            raise CannotEvaluate(f"rows of {t.name} unknown")
        src_rows, src_cols = src.rows, src.columns
    where = q.args.get("where")
    out_names: list[str] = []
    out: list[list[Value]] = []
    for e in q.expressions:
        if isinstance(e, exp.Star):
            out_names.extend(src_cols)
        else:
            out_names.append(output_name(e))
    for row in src_rows:
        if where is not None and not truth(where.this, row):
            continue
        vals: list[Value] = []
        for e in q.expressions:
            if isinstance(e, exp.Star):
                vals.extend(row.get(c, UNKNOWN) for c in src_cols)
            else:
                vals.append(value(e.this if isinstance(e, exp.Alias) else e, row))
        out.append(vals)
    if q.args.get("distinct"):
        out = _distinct(out)
    return tuple(out_names), out


def _distinct(rows: list[list[Value]]) -> list[list[Value]]:
    seen: set[tuple[Value, ...]] = set()
    out: list[list[Value]] = []
    for r in rows:
        if any(opaque(v) for v in r):
            raise CannotEvaluate("DISTINCT over unknown values")
        key = tuple(r)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out
