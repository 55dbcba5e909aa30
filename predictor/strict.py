"""Strict mode (STRICT_TRANS_TABLES, the default of both servers): an INSERT that gives NULL to a NOT NULL
column fails with 1048, one that gives a CHAR / VARCHAR column a longer string with 1406; nothing is
logged. A non-transactional table keeps the rows before the bad one, so only a bad first row is predicted
there (what follows depends on how far the server got)."""

from __future__ import annotations

from collections.abc import Sequence

from predictor.catalog import Generated, Table
from predictor.codes import ER_BAD_NULL, ER_DATA_TOO_LONG
from predictor.evaluate import Row


def violation(t: Table, rows: Sequence[Row]) -> tuple[int, int] | None:
    """(error, row number) of the first value strict mode refuses, or None."""
    for i, row in enumerate(rows):
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
