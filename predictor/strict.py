"""Strict mode (STRICT_TRANS_TABLES, the default of both servers): an INSERT that gives NULL to a NOT NULL
column fails with 1048, one that gives a CHAR / VARCHAR column a longer string with 1406; nothing is
logged. A non-transactional table keeps the rows before the bad one, so only a bad first row is predicted
there (what follows depends on how far the server got). A CHECK constraint a row makes false fails it in
any mode (``CHECK_FAILED``, Profile.CHECK_VIOLATION_ERROR: 3819 on MySQL, 4025 on MariaDB)."""

from __future__ import annotations

from collections.abc import Sequence

from predictor.catalog import Generated, Table
from predictor.codes import ER_BAD_NULL, ER_DATA_TOO_LONG
from predictor.evaluate import UNKNOWN, CannotEvaluate, Row, value
from predictor.moments import Moment
from predictor.parse import parse_expression

CHECK_FAILED = -1  # a CHECK constraint is false: the profile says which error


def time_dropped(t: Table, rows: Sequence[Row]) -> bool:
    """Whether a row gives a DATE column a clock reading with a time of day (NOW()): the server notes it
    (Profile.TIME_DROPPED_NOTE) and stores the day."""
    dates = [c.name.lower() for c in t.columns if c.type.upper().split("(")[0] == "DATE"]
    return any(isinstance(v := r.get(c), Moment) and not v.date for r in rows for c in dates)


def violation(t: Table, rows: Sequence[Row], full: Sequence[Row] | None = None) -> tuple[int, int] | None:
    """(error, row number) of the first value strict mode (or a CHECK) refuses, or None. ``full``: the rows
    with every column, for the CHECKs (an UPDATE's new rows); else missing columns take literal defaults."""
    for i, row in enumerate(rows):
        if t.checks and _check_fails(t, full[i] if full is not None else _with_defaults(t, row)):
            return CHECK_FAILED, i
        for c in t.columns:
            name = c.name.lower()
            if name not in row or c.generated is not Generated.NO:
                continue
            v = row[name]
            if v is None and not c.nullable and not c.auto_increment:
                return ER_BAD_NULL, i
            if c.length is not None and isinstance(v, str | int) and not isinstance(v, bool):
                text = str(v)
                if text.isascii() and len(text) > c.length:
                    return ER_DATA_TOO_LONG, i
    return None


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

