"""The rows of one table a multi-table UPDATE / DELETE selects, and the SET items that assign it: shared by
statements (predictor/rows.py) and trigger bodies (predictor/triggers.py)."""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from predictor.catalog import Table
from predictor.data import POSITION
from predictor.evaluate import Row
from predictor.query import Source, matching_rows

Selected = tuple[list[int], dict[int, Row]]


def selected(tree: exp.Expression, t: Table, own: Source | None,
             sources: Callable[[str], Source | None]) -> Selected | None:
    """Positions of ``t``'s rows the statement selects (``own``: ``t``'s rows with their positions), with the
    joined row each was matched with when it was matched once (SET a.x = b.y reads it), or None."""
    using = tree.args.get("using")
    frm = using[0] if isinstance(using, list) and using else tree.this
    if not isinstance(frm, exp.Table) or own is None:
        return None
    names = aliases(frm, t)
    if len(names) != 1:
        return None  # a self-join: which side a row is on is not followed

    def source(name: str) -> Source | None:
        return own if name.lower() == t.name.lower() else sources(name)

    first = frm.copy()
    first.set("joins", None)
    where = tree.args.get("where")
    rows = matching_rows(first, frm.args.get("joins") or (), where.this if where is not None else None, source)
    key = f"{names[0]}.{POSITION}"
    if rows is None or not all(isinstance(r.get(key), int) for r in rows):
        return None
    positions: list[int] = []
    joined: dict[int, Row] = {}
    twice: set[int] = set()
    for r in rows:
        pos = r[key]
        assert isinstance(pos, int)
        positions.append(pos)
        if pos in joined:
            twice.add(pos)  # matched several times: which joined row sets it is not followed
        joined[pos] = r
    return positions, {pos: r for pos, r in joined.items() if pos not in twice}


def aliases(frm: object, t: Table) -> list[str]:
    """The names ``t`` goes by in a FROM table and its joins (one per occurrence; several in a self-join)."""
    if not isinstance(frm, exp.Table):
        return []
    tables = [frm, *(j.this for j in frm.args.get("joins") or ())]
    return [x.alias_or_name.lower() for x in tables if isinstance(x, exp.Table) and x.name.lower() == t.name.lower()]


def assignments_to(tree: exp.Update, t: Table) -> list[tuple[str, exp.Expression]]:
    """The SET items of an UPDATE that assign ``t``'s columns (a multi-table UPDATE names their table)."""
    own = set(aliases(tree.this, t))
    names = {c.name.lower() for c in t.columns}
    return [(e.this.name, e.expression) for e in tree.expressions if isinstance(e, exp.EQ) and
            isinstance(e.this, exp.Column) and (e.this.table.lower() in own if e.this.table else
                                                e.this.name.lower() in names)]
