"""Values a column cannot hold. Strict mode (STRICT_TRANS_TABLES, the default of both servers) refuses them:
NULL into NOT NULL (1048), a string longer than a CHAR / VARCHAR (1406), an integer out of the column's range
(1264), a string that is no number into an integer column (1366), a string an ENUM does not list (1265);
nothing is logged. A non-strict session (``SET sql_mode = ''``), and with STRICT_TRANS_TABLES a
non-transactional table's second and later rows, store the nearest value with a warning instead (1265
truncated, 1264, 1366, and 1048 for a NULL in a multi-row INSERT; a single-row INSERT's NULL fails in any
mode). A DECIMAL with more fraction digits than its column's scale is rounded, with note 1265, in any mode.
A CHECK constraint a row makes false fails it in any mode (``CHECK_FAILED``, Profile.CHECK_VIOLATION_ERROR:
3819 on MySQL, 4025 on MariaDB), and so does a string that is not JSON written to a JSON column
(``INVALID_JSON``, Profile.INVALID_JSON_ERROR)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from predictor.catalog import Column, Generated, Table
from predictor.codes import ER_BAD_NULL, ER_DATA_TOO_LONG
from predictor.evaluate import UNKNOWN, CannotEvaluate, Row, Value, number, value
from predictor.moments import Moment
from predictor.parse import parse_expression
from predictor.values import decimal_of

CHECK_FAILED = -1  # a CHECK constraint is false: the profile says which error
INVALID_JSON = -2  # not JSON, for a JSON column: the profile says which error


def time_dropped(t: Table, rows: Sequence[Row]) -> bool:
    """Whether a row gives a DATE column a clock reading with a time of day (NOW()): the server notes it
    (Profile.TIME_DROPPED_NOTE) and stores the day."""
    dates = [c.name.lower() for c in t.columns if c.type.upper().split("(")[0] == "DATE"]
    return any(isinstance(v := r.get(c), Moment) and not v.date for r in rows for c in dates)


ER_WARN_DATA_OUT_OF_RANGE = 1264
ER_WARN_DATA_TRUNCATED = 1265
ER_TRUNCATED_WRONG_VALUE_FOR_FIELD = 1366

_INT_RANGES = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "INTEGER": 32, "BIGINT": 64}


@dataclass(frozen=True)
class Issue:
    """A value a row gives a column that the column cannot hold: ``code`` is the error strict mode raises,
    ``warning`` what a non-strict mode notes instead (None: an error in any mode), ``stored`` what it stores."""

    code: int
    row: int
    column: str
    warning: int | None
    stored: Value
    note: bool = False  # noted in any mode, never refused (a DECIMAL rounded to its scale: 1265)


def issues(t: Table, rows: Sequence[Row], full: Sequence[Row] | None = None) -> list[Issue]:
    """Every value of ``rows`` strict mode (or a CHECK, in any mode) refuses, in row order. ``full``: the rows
    with every column, for the CHECKs (an UPDATE's new rows); else missing columns take literal defaults."""
    out: list[Issue] = []
    for i, row in enumerate(rows):
        found = [x for c in t.columns if (name := c.name.lower()) in row and c.generated is Generated.NO
                 and (x := _issue(c, row[name], i, len(rows))) is not None]
        out += found
        out += _generated_issues(t, row, full[i] if full is not None else None, i)
        if t.checks:  # on the values the columns hold: rounded, or what a non-strict mode stored
            whole = {**(full[i] if full is not None else _with_defaults(t, row)), **{x.column: x.stored for x in found}}
            if _check_fails(t, whole):
                out.append(Issue(CHECK_FAILED, i, "", None, UNKNOWN))
    return out


def _generated_issues(t: Table, row: Row, full: Row | None, i: int) -> list[Issue]:
    """A STORED generated DECIMAL column rounds what its expression gives: note 1265 (both servers: ``kda
    DECIMAL(8,2) AS ((kills + assists) / GREATEST(deaths, 1)) STORED``; generated_rounding.sql). An UPDATE's
    row (``full``) only when it sets a column the expression reads."""
    out: list[Issue] = []
    for c in t.generated:
        if c.generated is not Generated.STORED or c.scale is None or (full is not None and not (
                set(c.deps) & row.keys())):
            continue
        e = parse_expression(c.expression or "")
        try:
            v = value(e, full if full is not None else _with_defaults(t, row)) if e is not None else UNKNOWN
        except CannotEvaluate:
            continue
        x = _issue(c, v, i, 1) if number(v) or isinstance(v, float) else None
        if x is not None:
            out.append(x)
    return out


def _issue(c: Column, v: Value, row: int, rows: int) -> Issue | None:
    name = c.name.lower()
    if v is None:
        if not c.nullable and not c.auto_increment:
            # a single-row INSERT fails in any mode; a multi-row one stores the implicit default
            return Issue(ER_BAD_NULL, row, name, ER_BAD_NULL if rows > 1 else None, UNKNOWN)
        return None
    if c.scale is not None and (number(v) or isinstance(v, float)):
        given = decimal_of(v)  # type: ignore[arg-type]  # a DOUBLE by its shortest digits
        stored = given.quantize(Decimal(1).scaleb(-c.scale), ROUND_HALF_UP)
        return Issue(ER_WARN_DATA_TRUNCATED, row, name, ER_WARN_DATA_TRUNCATED, stored, True) \
            if stored != given else None
    if isinstance(v, bool) or not isinstance(v, str | int):
        return None
    if isinstance(v, str) and c.type.upper() == "JSON" and not _json(v):
        return Issue(INVALID_JSON, row, name, None, UNKNOWN)
    if c.choices is not None:  # not one of an ENUM's values: 1265, '' stored when not strict
        bad = isinstance(v, str) and v not in c.choices
        return Issue(ER_WARN_DATA_TRUNCATED, row, name, ER_WARN_DATA_TRUNCATED, "") if bad else None
    if c.length is not None:
        text = str(v)
        if text.isascii() and len(text) > c.length:
            return Issue(ER_DATA_TOO_LONG, row, name, ER_WARN_DATA_TRUNCATED, text[: c.length].rstrip(" "))
    bits = _INT_RANGES.get(c.type.upper().removeprefix("U"))
    if bits is None:
        return None
    if isinstance(v, str):
        digits = v.strip(" ").removeprefix("-").removeprefix("+")
        if digits.isdigit():
            v = int(v.strip(" "))
        elif not digits[:1].isdigit():
            return Issue(ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, row, name, ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, 0)
        else:
            return None  # '12abc', '3.5': converted, how is not modelled
    low, high = (0, 2 ** bits - 1) if c.type.upper().startswith("U") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if v < low or v > high:
        return Issue(ER_WARN_DATA_OUT_OF_RANGE, row, name, ER_WARN_DATA_OUT_OF_RANGE, min(max(v, low), high))
    return None


def _json(text: str) -> bool:
    """Whether ``text`` is a JSON document (as the server reads it: no NaN or Infinity)."""
    try:
        json.loads(text, parse_constant=_no_constant)
    except ValueError:
        return False
    return True


def _no_constant(name: str) -> object:
    raise ValueError(name)


def _with_defaults(t: Table, row: Row) -> Row:
    out: Row = {}
    for c in t.columns:
        name = c.name.lower()
        if name in row:
            out[name] = row[name]
        elif c.literal_default:
            out[name] = c.literal_default[0]
        elif c.nullable and not c.has_default and c.generated is Generated.NO:
            out[name] = None
        else:
            out[name] = UNKNOWN
    return out


def _check_fails(t: Table, row: Row) -> bool:
    """Whether a CHECK is false for ``row`` (NULL passes; unknown says nothing)."""
    for text in t.checks:
        cond = parse_expression(text)
        if cond is None:
            continue
        try:
            v = value(cond, row)
        except CannotEvaluate:
            continue
        if isinstance(v, int) and not isinstance(v, bool) and v == 0:
            return True
    return False

