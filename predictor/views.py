"""Writes through a view: the base table and the view's WHERE they apply to (``merged``), and WITH CHECK
OPTION, where a row the view would not show is refused (1369).

For CHECK OPTION, only the values the statement gives are looked at (``UPDATE v SET status = 'closed'``
through a view of open tickets): a condition of the view's WHERE they surely fail fails the statement, as on
both servers (property_rental_app). A row the statement matches is assumed, as for the rest of an UPDATE's
prediction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from predictor.analyze import Kind, StatementInfo
from predictor.catalog import Table
from predictor.evaluate import UNKNOWN, CannotEvaluate, Row, falsified, value
from predictor.parse import parse
from predictor.resolve import lookup
from predictor.session import SessionState

if TYPE_CHECKING:
    from predictor.engine import Predictor

ER_VIEW_CHECK_FAILED = 1369
ER_NON_UPDATABLE_TABLE = 1288
ER_NON_INSERTABLE_TABLE = 1471


def not_updatable(p: Predictor, info: StatementInfo) -> int | None:
    """The error of a write through a view whose rows cannot be written (an aggregate's: ev's
    v_event_revenue): 1471 for INSERT / REPLACE, 1288 for UPDATE / DELETE."""
    v = p.catalog.view(info.writes[0].table)
    if v is None or v.updatable:
        return None
    return ER_NON_INSERTABLE_TABLE if info.kind in (Kind.INSERT, Kind.REPLACE) else ER_NON_UPDATABLE_TABLE


def check_option(p: Predictor, sql: str, info: StatementInfo, s: SessionState) -> int | None:
    """The error of an INSERT / UPDATE through a view WITH CHECK OPTION whose new values the view rejects."""
    v = p.catalog.view(info.writes[0].table) if len(info.writes) == 1 else None
    if v is None or not v.check or v.select is None or not v.select.text or not p.data.may_parse():
        return None
    view = parse(v.select.text)
    where = view.args.get("where") if isinstance(view, exp.Select) else None
    if not isinstance(where, exp.Where):
        return None
    from predictor.rows import parsed  # rows.py calls this module

    tree = parsed(p, sql, s)
    rows: list[Row] = []
    if info.kind is Kind.UPDATE and isinstance(tree, exp.Update):
        rows.append({a.this.name.lower(): _given(a.expression) for a in tree.expressions if isinstance(a, exp.EQ)})
    elif info.kind is Kind.INSERT and isinstance(tree, exp.Insert) and isinstance(tree.this, exp.Schema) \
            and isinstance(tree.expression, exp.Values):
        names = [c.name.lower() for c in tree.this.expressions]
        rows.extend(dict(zip(names, (_given(x) for x in t.expressions), strict=False))
                    for t in tree.expression.expressions)
    return ER_VIEW_CHECK_FAILED if any(falsified(where.this, r) for r in rows) else None


def _given(e: exp.Expression) -> object:
    try:
        return value(e, {})
    except CannotEvaluate:
        return UNKNOWN


def bases(p: Predictor, name: str) -> tuple[str, ...]:
    """The tables view ``name`` reads (none for a name that is not a view)."""
    v = p.catalog.view(name)
    return v.select.reads if v is not None and v.select is not None else ()


def merged(p: Predictor, name: str, s: SessionState) -> tuple[Table, exp.Expression | None] | None:
    """The base table a write through view ``name`` changes, and the view's WHERE (None: it has none), for a
    view over one table that shows its columns under their own names (no join, grouping, DISTINCT or
    LIMIT); None for another view, whose writes the data model does not follow."""
    v = p.catalog.view(name)
    if v is None or v.select is None or not v.select.text or len(v.select.reads) != 1:
        return None
    t = lookup(v.select.reads[0], p.catalog, s)
    tree = parse(v.select.text)
    if t is None or not isinstance(tree, exp.Select) or not isinstance(tree.args.get("from_"), exp.From) \
            or any(tree.args.get(k) for k in ("joins", "group", "having", "distinct", "limit", "with")):
        return None
    for item in tree.expressions:
        col = item.this if isinstance(item, exp.Alias) else item
        if isinstance(col, exp.Star):
            continue
        if not isinstance(col, exp.Column) or col.name.lower() != item.alias_or_name.lower():
            return None
    where = tree.args.get("where")
    return t, where.this if isinstance(where, exp.Where) else None


def written_columns(p: Predictor, name: str, columns: tuple[str, ...],
                    s: SessionState) -> tuple[Table, list[str]] | None:
    """The base table an UPDATE through join view ``name`` setting ``columns`` changes, with its columns
    (the servers change one base table per statement: its columns are the view's plain columns, by their table
    alias), or None when that cannot be said. The other base tables stay followed (coworking_spaces_app's
    member name changed through its member-and-plan view)."""
    v = p.catalog.view(name)
    tree = parse(v.select.text) if v is not None and v.select is not None and v.select.text else None
    if not isinstance(tree, exp.Select):
        return None
    frm = tree.args.get("from_")
    tables = [frm.this] if isinstance(frm, exp.From) else []
    tables += [j.this for j in tree.args.get("joins") or ()]
    by_alias = {t.alias_or_name.lower(): t.name for t in tables if isinstance(t, exp.Table)}
    shown: dict[str, exp.Column] = {}
    for item in tree.expressions:
        col = item.this if isinstance(item, exp.Alias) else item
        if isinstance(col, exp.Column) and not isinstance(col.this, exp.Star):
            shown[(item.alias_or_name or col.name).lower()] = col
    cols = [shown.get(c.lower()) for c in columns]
    owners = {by_alias.get(c.table.lower()) if c is not None and c.table else None for c in cols}
    if len(owners) != 1 or None in owners:
        return None
    t = lookup(owners.pop() or "", p.catalog, s)
    return None if t is None else (t, [c.name.lower() for c in cols if c is not None])

