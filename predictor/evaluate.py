"""Evaluate the small expressions whose values decide a duplicate key or which rows a WHERE selects.

Only what the data model needs: literals, column references, + - * / on numbers (exact as DECIMAL, or as
DOUBLE once a DOUBLE is involved: ``POW(10, d / 400)``), comparisons (and ``<=>``)
and IN joined by AND/OR/NOT (three-valued, as SQL), clock readings. Anything else is "cannot say": an expression becomes
``UNKNOWN`` (fine for a value nobody compares), a condition raises ``CannotEvaluate``. SELECTs are
evaluated in ``predictor/query.py``.
"""

from __future__ import annotations

import json
import math
import operator
import re
import weakref
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from sqlglot import exp

from predictor.functions import computed, is_computed
from predictor.moments import CLOCK, Moment, compare, from_literal, shift, shift_literal, stored
from predictor.nodes import Known, PerRow
from predictor.values import UNKNOWN, folded, real

__all__ = ["UNKNOWN", "CannotEvaluate", "Fresh", "Known", "Row", "Value", "comparable", "exact", "falsified", "known",
           "literal", "number", "truth", "value"]



class Fresh:
    """What UUID() / UUID_SHORT() return: a value equal to nothing but itself, so a unique key holding one
    never clashes (and the table's rows stay followed)."""

    __slots__ = ("__weakref__",)

    def __repr__(self) -> str:
        return "FRESH"

    def said(self) -> str:
        """SQL text that evaluates back to this very value (a procedure's parameter given a booking
        reference a trigger made with UUID(): dental_group_app's cancellation by reference)."""
        _SAID[id(self)] = self
        return f"{FRESH_NAME}({id(self)})"


FRESH_NAME = "RPLAY_FRESH"
UNKNOWN_NAME = "RPLAY_UNKNOWN"  # RPLAY_UNKNOWN(): a value the evaluator cannot know (routines.unknown)
FITS_NAME = "RPLAY_FITS"  # RPLAY_FITS(x, n): x when it fits n characters, else unknown (routines.conversion)
_SAID: weakref.WeakValueDictionary[int, Fresh] = weakref.WeakValueDictionary()


def _fits(e: exp.Anonymous, row: Row, values: Row | None) -> Value:
    """RPLAY_FITS(x, n): x stored in a CHAR / VARCHAR(n) parameter or local (routines.conversion): itself when
    it fits, else unknown (truncated with a warning, or refused in strict mode); a UUID-made value is bet to
    fit, as its maker sized it (a day pass code: coworking_spaces_app)."""
    x, width = e.expressions
    v = value(x, row, values)
    if isinstance(v, Fresh):
        return v
    return value(exp.If(this=exp.GT(this=exp.Length(this=x), expression=width), true=exp.Anonymous(
        this=UNKNOWN_NAME), false=x), row, values)


def _said(e: exp.Anonymous) -> Value:
    """The value ``RPLAY_FRESH(n)`` (Fresh.said) stands for; unknown once it is gone."""
    arg = e.expressions[0] if len(e.expressions) == 1 else None
    got = _SAID.get(int(arg.this)) if isinstance(arg, exp.Literal) and arg.is_int else None
    return UNKNOWN if got is None else got


_FRESH_FUNCTIONS = frozenset({"UUID_SHORT", "SYS_GUID"})  # and exp.Uuid
# of a fresh value, these are as unique as it (UNHEX(REPLACE(UUID(), '-', '')), MD5(UUID()), UUID_TO_BIN(UUID()))
_KEEPS_FRESH = (exp.Unhex, exp.Hex, exp.Replace, exp.MD5, exp.SHA, exp.SHA2, exp.Lower, exp.Upper, exp.Concat)
_KEEPS_FRESH_NAMES = frozenset({"UUID_TO_BIN", "BIN_TO_UUID", "SHA1"})

Value = object  # int | Decimal | float (a DOUBLE) | str (casefolded, trailing spaces stripped: default collations)
#                | None (NULL) | Moment | Fresh | UNKNOWN
Row = dict[str, Value]  # lower-case column name -> value


class CannotEvaluate(Exception):
    """Raised inside the evaluator; callers turn it into None."""


def comparable(a: Value, b: Value) -> bool:
    """Whether two known values compare: the same type, two numbers, or two strings (a Recased one too)."""
    return type(a) is type(b) or (real(a) and real(b)) or (isinstance(a, str) and isinstance(b, str))


def known(v: Value, text: str | None = None) -> Known:
    return Known(this=(v,), text=text)


def literal(e: exp.Expression) -> Value:
    """The value of a literal; raises CannotEvaluate for anything else."""
    if isinstance(e, exp.Literal):
        if e.is_string:
            return folded(str(e.this))
        try:
            return int(e.this)
        except ValueError:
            return exact(str(e.this))
    if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
        v = literal(e.this)
        return -v if isinstance(v, int | Decimal) else UNKNOWN
    if isinstance(e, exp.Null):
        return None
    if isinstance(e, exp.Boolean):
        return 1 if e.this else 0
    raise CannotEvaluate(type(e).__name__)


_DOUBLE = re.compile(r"(\d+\.?\d*|\.\d+)[eE][-+]?\d+")


def exact(text: str) -> Value:
    """A number written with a point (``12.50``): an exact DECIMAL; with an exponent (``1e3``): a DOUBLE;
    anything else keeps its text."""
    if _DOUBLE.fullmatch(text):
        return _finite(float(text))
    whole, dot, fraction = text.partition(".")
    if dot and (whole.isdigit() or whole == "") and fraction.isdigit():
        try:
            return Decimal(text)
        except InvalidOperation:
            return text
    return text


def number(v: object) -> bool:
    """An exact number: an integer or a DECIMAL (not a flag)."""
    return isinstance(v, int | Decimal) and not isinstance(v, bool)


def _finite(v: float) -> Value:
    """A DOUBLE result; an infinite or NaN one is an error or NULL on the server (1690): not followed."""
    return v if math.isfinite(v) else UNKNOWN


def _double(cls: type[exp.Expression], a: Value, b: Value) -> Value:
    """+ - * with a DOUBLE operand: computed in double precision, as the server does."""
    if not (real(a) and real(b)) or cls in (exp.IntDiv, exp.Mod):
        return UNKNOWN
    x, y = float(a), float(b)  # type: ignore[arg-type]
    return _finite(x + y if cls is exp.Add else x - y if cls is exp.Sub else x * y)


def _div(a: int, b: int) -> int | None:
    """MySQL's DIV: truncated toward zero; by zero, NULL."""
    if b == 0:
        return None
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _mod(a: int, b: int) -> int | None:
    """MOD / %: the remainder takes the dividend's sign; by zero, NULL."""
    if b == 0:
        return None
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


_ARITH: dict[type[exp.Expression], Callable[[int, int], int | None]] = {
    exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul, exp.IntDiv: _div, exp.Mod: _mod}
_CMP: dict[type[exp.Expression], Callable[[Any, Any], bool]] = {
    exp.EQ: operator.eq, exp.NEQ: operator.ne, exp.GT: operator.gt, exp.GTE: operator.ge,
    exp.LT: operator.lt, exp.LTE: operator.le}
_CMP_OPS: dict[type[exp.Expression], str] = {
    exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}


def opaque(v: Value) -> bool:
    """Whether equality cannot be decided on ``v``: an unknown value, or a clock reading other than a date a
    known number of days from today (predictor/moments.py)."""
    return v is UNKNOWN or (isinstance(v, Moment) and v.day is None)


def clock_reading(e: object) -> Moment | None:
    """NOW(), CURRENT_TIMESTAMP(6), CURDATE(), ...: the reading (predictor/moments.py), else None."""
    if not isinstance(e, exp.Expression):
        return None
    name = e.name.upper() if isinstance(e, exp.Anonymous) else _CLOCK_NODES.get(type(e))
    return CLOCK.get(name) if name is not None else None  # an argument is the fractional-second precision


def _as_moment(v: Value, other: Value) -> Value:
    """A date literal compared with a clock reading (``other``) is a moment too (predictor/moments.py)."""
    return (from_literal(v, other if isinstance(other, Moment) else None) or v) if isinstance(v, str) else v


def _clock(e: exp.Expression, row: Row, values: Row | None) -> Value | None:
    """A clock reading, or one shifted by an INTERVAL (predictor/moments.py); None if ``e`` is neither."""
    if isinstance(e, exp.Anonymous) or type(e) in _CLOCK_NODES:
        m = clock_reading(e)
        return None if m is None else stored(m)  # stamped with the statement reading it (moments.py)
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
    n = literal(count) if isinstance(count, exp.Literal | exp.Neg) else _count(count, row, values)
    if isinstance(n, str) and n.lstrip("-").isdigit():
        n = int(n)
    if isinstance(base, str) and isinstance(n, int) and unit is not None:
        return shift_literal(base, sign * n, unit.name) or UNKNOWN  # a date literal: exact (moments.py)
    if not isinstance(base, Moment) or not isinstance(n, int) or unit is None:
        return UNKNOWN
    return shift(base, sign * n, unit.name) or UNKNOWN


def _count(e: object, row: Row, values: Row | None) -> Value:
    """An INTERVAL's count given as an expression (``INTERVAL (due_day - 1) DAY``): whole numbers only."""
    if not isinstance(e, exp.Expression):
        return UNKNOWN
    try:
        n = value(e, row, values)
    except CannotEvaluate:
        return UNKNOWN
    if isinstance(n, Decimal) and n == n.to_integral_value():
        return int(n)
    return n if isinstance(n, int) and not isinstance(n, bool) else UNKNOWN


_CLOCK_NODES: dict[type[exp.Expression], str] = {
    exp.CurrentTimestamp: "NOW", exp.CurrentDate: "CURDATE", exp.CurrentDatetime: "NOW",
    exp.UtcTimestamp: "UTC_TIMESTAMP", exp.UtcDate: "UTC_DATE"}


def value(e: exp.Expression, row: Row, values: Row | None = None) -> Value:
    """Evaluate ``e`` against ``row``; ``values`` serves VALUES(col) (ON DUPLICATE KEY UPDATE)."""
    if isinstance(e, exp.Paren):
        return value(e.this, row, values)
    if isinstance(e, Known):
        return e.this[0]
    if isinstance(e, PerRow):
        return e.this[0](row)
    if isinstance(e, (exp.Column, exp.Identifier)):
        name = e.name.lower()
        if isinstance(e, exp.Column) and e.table:
            qualified = f"{e.table.lower()}.{name}"  # rows of a join also hold "alias.column"
            if qualified in row:
                return row[qualified]
        if name not in row:
            raise CannotEvaluate(f"unknown column {name}")
        return row[name]
    if isinstance(e, exp.Anonymous) and e.name.upper() == "VALUES" and values is not None and e.expressions:
        return value(e.expressions[0], values)
    if isinstance(e, exp.Values) and values is not None and e.expressions:
        return value(e.expressions[0], values)
    if isinstance(e, exp.If | exp.Case):
        return _conditional(e, row, values)
    if isinstance(e, exp.Nullif):
        a = value(e.this, row, values)
        if a is None or opaque(a):
            return a
        try:
            same = value(exp.EQ(this=known(a), expression=e.expression), row, values)
        except CannotEvaluate:
            return UNKNOWN
        return None if same == 1 else a
    if isinstance(e, exp.Anonymous) and e.name.upper() == "JSON_UNQUOTE" and len(e.expressions) == 1:
        v = value(e.expressions[0], row, values)
        return json.loads(v) if isinstance(v, str) and len(v) > 1 and v[0] == v[-1] == '"' else v
    if isinstance(e, exp.Anonymous) and e.name.upper() == "LAST_INSERT_ID" and len(e.expressions) == 1:
        return value(e.expressions[0], row, values)  # LAST_INSERT_ID(x) is x (and sets the session's: rows.py)
    if isinstance(e, exp.Uuid) or (isinstance(e, exp.Anonymous) and e.name.upper() in _FRESH_FUNCTIONS):
        return Fresh()
    if isinstance(e, exp.Anonymous) and e.name.upper() == FRESH_NAME:
        return _said(e)
    if isinstance(e, exp.Anonymous) and e.name.upper() == FITS_NAME and len(e.expressions) == 2:
        return _fits(e, row, values)
    if isinstance(e, exp.Func) and (isinstance(e, _KEEPS_FRESH) or _long_cut(e) or (
            isinstance(e, exp.Anonymous) and e.name.upper() in _KEEPS_FRESH_NAMES)):
        fresh = _fresh_argument(e, row, values)
        if fresh is not None:
            return fresh
    if isinstance(e, exp.Func):
        try:
            got = computed(e, lambda x: value(x, row, values))
        except CannotEvaluate:
            return UNKNOWN  # a function of an argument that cannot be evaluated: a value, not one we know
        if is_computed(got):
            return got
    if isinstance(e, exp.Func | exp.Add | exp.Sub):
        clock = _clock(e, row, values)
        if clock is not None:
            return clock
    if isinstance(e, exp.Div):
        return _quotient(value(e.this, row, values), value(e.expression, row, values))
    if isinstance(e, exp.Neg) and not isinstance(e.this, exp.Literal):  # -p_n (POW(1 + r, -p_n) of an inlined
        v = value(e.this, row, values)  # function: loan_servicing_app's fn_monthly_payment)
        return v if v is None or v is UNKNOWN else -v if number(v) else UNKNOWN  # type: ignore[operator]
    for cls, fn in _ARITH.items():
        if isinstance(e, cls):
            a, b = value(e.this, row, values), value(e.expression, row, values)
            if a is None or b is None:
                return None
            if isinstance(a, int) and isinstance(b, int):
                return fn(a, b)
            if isinstance(a, float) or isinstance(b, float):
                return _double(cls, a, b)
            if number(a) and number(b) and cls is not exp.IntDiv:
                return fn(a, b)  # type: ignore[arg-type]  # DECIMAL + - * are exact
            return UNKNOWN
    for cls, fn in _CMP.items():
        if isinstance(e, cls):
            a, b = value(e.this, row, values), value(e.expression, row, values)
            if a is UNKNOWN or b is UNKNOWN:
                raise CannotEvaluate("comparison of an unknown value")
            if a is None or b is None:
                return None
            if isinstance(a, Fresh) or isinstance(b, Fresh):
                if cls not in (exp.EQ, exp.NEQ):
                    raise CannotEvaluate("order of a UUID")
                return int((a is b) == (cls is exp.EQ))
            if isinstance(a, Moment) or isinstance(b, Moment):
                a, b = _as_moment(a, b), _as_moment(b, a)
                told = compare(a, b, _CMP_OPS[cls]) if isinstance(a, Moment) and isinstance(b, Moment) else None
                if told is None:
                    raise CannotEvaluate("clock readings too close to compare")
                return int(told)
            if not comparable(a, b):
                raise CannotEvaluate("comparison across types")
            if isinstance(a, float) or isinstance(b, float):
                a, b = float(a), float(b)  # type: ignore[arg-type]  # a DOUBLE compares as DOUBLE
            return 1 if fn(a, b) else 0
    if isinstance(e, exp.NullSafeEQ | exp.NullSafeNEQ):
        a, b = value(e.this, row, values), value(e.expression, row, values)
        if a is None or b is None:
            same = a is None and b is None
        else:
            same = bool(value(exp.EQ(this=known(a), expression=known(b)), row))
        return int(same) if isinstance(e, exp.NullSafeEQ) else int(not same)
    if isinstance(e, (exp.And, exp.Or)):
        return _connective(e, row, values)
    if isinstance(e, exp.Not):
        negated = _logical(e.this, row, values)
        return None if negated is None else 1 - negated
    if isinstance(e, exp.In):
        if e.args.get("query") is not None or e.args.get("unnest") is not None or e.args.get("field") is not None:
            raise CannotEvaluate("IN over a subquery not evaluated")
        return _member(value(e.this, row, values), [value(x, row, values) for x in e.expressions])
    if isinstance(e, exp.Between):
        low = exp.GTE(this=e.this, expression=e.args["low"])
        high = exp.LTE(this=e.this, expression=e.args["high"])
        return _connective(exp.And(this=low, expression=high), row, values)
    if isinstance(e, exp.Like):
        v = _like(value(e.this, row, values), value(e.expression, row, values))
        return 1 - v if v is not None and e.args.get("negate") else v
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


def _like(a: Value, pattern: Value) -> int | None:
    """``a LIKE pattern`` under a case-insensitive collation (strings are held case-folded); ``\\`` escapes.
    Trailing spaces count in LIKE, and values are held right-trimmed: a pattern ending in one is not decided."""
    if a is UNKNOWN or pattern is UNKNOWN:
        raise CannotEvaluate("LIKE on an unknown value")
    if a is None or pattern is None:
        return None
    if isinstance(a, bool) or not isinstance(a, str | int) or not isinstance(pattern, str) or pattern.endswith(" "):
        raise CannotEvaluate("LIKE not decided")
    out, chars = [], iter(pattern.casefold())
    for c in chars:
        out.append(".*" if c == "%" else "." if c == "_" else re.escape(next(chars, "\\") if c == "\\" else c))
    return int(re.fullmatch("".join(out), str(a).casefold(), re.S) is not None)


def _quotient(a: Value, b: Value) -> Value:
    """a / b of exact numbers: a DECIMAL with 4 more digits than ``a`` has (div_precision_increment); with a
    DOUBLE operand, a DOUBLE; NULL for a NULL operand; UNKNOWN for a zero divisor (NULL or an error, by
    sql_mode) and anything else."""
    if a is None or b is None:
        return None
    if (isinstance(a, float) or isinstance(b, float)) and real(a) and real(b) and b != 0:
        return _finite(float(a) / float(b))  # type: ignore[arg-type]
    if not (number(a) and number(b)) or b == 0:
        return UNKNOWN
    x, y = Decimal(a), Decimal(b)  # type: ignore[arg-type]
    exponent = x.as_tuple().exponent
    scale = (-exponent if isinstance(exponent, int) and exponent < 0 else 0) + 4
    try:
        return (x / y).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return UNKNOWN


_FRESH_CUT = 8  # hex digits of a UUID a substring keeps to stay as unique as it (a bet: 32 bits)


def _long_cut(e: exp.Expression) -> bool:
    """SUBSTRING(x, i, n) / LEFT(x, n) / RIGHT(x, n) keeping at least _FRESH_CUT characters: of a fresh value,
    as unique as it (a day pass code ``UPPER(SUBSTRING(REPLACE(UUID(), '-', ''), 1, 8))``: coworking_spaces_app)."""
    n = e.args.get("length") if isinstance(e, exp.Substring) else e.expression if isinstance(e, exp.Left | exp.Right) \
        else None
    return isinstance(n, exp.Literal) and n.is_int and int(n.this) >= _FRESH_CUT


def _fresh_argument(e: exp.Func, row: Row, values: Row | None) -> Fresh | None:
    """The fresh value ``e`` is built from (its first argument, or for CONCAT any part), else None."""
    args = e.expressions if isinstance(e, exp.Concat | exp.Anonymous) else [e.this]
    for x in args[:None if isinstance(e, exp.Concat) else 1]:
        if isinstance(x, exp.Expression):
            try:
                v = value(x, row, values)
            except CannotEvaluate:
                continue
            if isinstance(v, Fresh):
                return v
    return None


def _conditional(e: exp.If | exp.Case, row: Row, values: Row | None) -> Value:
    """IF(c, a, b) and CASE [x] WHEN ... THEN ... [ELSE ...] END; UNKNOWN when a condition cannot be said."""
    ifs = [e] if isinstance(e, exp.If) else [x for x in e.args.get("ifs") or () if isinstance(x, exp.If)]
    operand = e.this if isinstance(e, exp.Case) else None
    for branch in ifs:
        cond = exp.EQ(this=operand, expression=branch.this) if operand is not None else branch.this
        try:
            taken = _logical(cond, row, values)
        except CannotEvaluate:
            return UNKNOWN
        if taken == 1:
            return value(branch.args["true"], row, values)
    other = e.args.get("false") if isinstance(e, exp.If) else e.args.get("default")
    return value(other, row, values) if isinstance(other, exp.Expression) else None


def truth(e: exp.Expression, row: Row) -> bool:
    """Whether a WHERE / ON / HAVING condition selects ``row`` (NULL does not)."""
    v = value(e, row)
    if v is UNKNOWN:
        raise CannotEvaluate("condition on an unknown value")
    return bool(v) if isinstance(v, int) else False


def falsified(condition: exp.Expression, row: Row) -> bool:
    """Whether a conjunct of ``condition`` is surely not true (false or NULL) on ``row``, whatever its unknown
    values: then the whole condition is not true either."""
    conjuncts = condition.flatten() if isinstance(condition, exp.And) else (condition,)
    for c in conjuncts:
        try:
            if isinstance(c, exp.Expression) and not truth(c, row):
                return True
        except CannotEvaluate:
            continue
    return False


def _logical(e: exp.Expression, row: Row, values: Row | None) -> int | None:
    """A condition's SQL truth value: 1, 0 or None (NULL)."""
    v = value(e, row, values)
    if v is None or isinstance(v, int):
        return None if v is None else int(bool(v))
    raise CannotEvaluate("condition on a value that is not a number")


def _connective(e: exp.Expression, row: Row, values: Row | None) -> int | None:
    """AND / OR with SQL's three values; a side that cannot be evaluated only matters if the other does not
    decide (FALSE AND x, TRUE OR x)."""
    decides = 0 if isinstance(e, exp.And) else 1
    sides: list[int | None] = []
    unknown = False
    for side in (e.this, e.expression):
        try:
            v = _logical(side, row, values)
        except CannotEvaluate:
            unknown = True
            continue
        if v == decides:
            return decides
        sides.append(v)
    if unknown:
        raise CannotEvaluate("condition on an unknown value")
    return None if None in sides else 1 - decides


def _member(v: Value, items: Sequence[Value]) -> int | None:
    """``v IN (items)`` with SQL's NULL rules."""
    if not items:
        return 0
    if v is None:
        return None
    if opaque(v):
        raise CannotEvaluate("IN of an unknown value")
    null = unknown = False
    for x in items:
        if x is None:
            null = True
        elif opaque(x):
            unknown = True
        elif isinstance(x, Fresh) or isinstance(v, Fresh):
            if x is v:
                return 1
        elif not comparable(x, v):
            raise CannotEvaluate("comparison across types")
        elif x == v:
            return 1
    if unknown:
        raise CannotEvaluate("IN over unknown values")
    return None if null else 0
