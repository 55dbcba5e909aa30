"""What the optimizer decides before an UPDATE / DELETE runs: that no row can match, so the statement returns
at once and nothing is logged, even as a statement.

Two cases are followed: the first column of an index compared with NULL (both servers), and an empty table
of an engine whose row estimates are exact (MEMORY; on MariaDB MyISAM too: InnoDB never estimates 0), in
the cases its profile says (Profile.EMPTY_TABLE_SKIPS)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from predictor.analyze import StatementInfo
from predictor.catalog import KeyKind, Table
from predictor.nodes import Known
from predictor.parse import parse
from predictor.profiles import EmptyTable
from predictor.resolve import lookup
from predictor.session import SessionState
from predictor.variables import bind

if TYPE_CHECKING:
    from predictor.engine import Predictor

_COMPARISONS = (exp.EQ, exp.LT, exp.GT, exp.LTE, exp.GTE, exp.NullSafeEQ)


def nothing_to_do(p: Predictor, sql: str, info: StatementInfo, s: SessionState) -> bool:
    """Whether a single-table UPDATE / DELETE is dropped before it runs (see the module's docstring)."""
    if not info.writes:
        return False
    empty = _empty_table(p, info, s)
    if not empty and "@" not in sql and "NULL" not in sql and "null" not in sql:
        return False
    t = lookup(info.writes[0].table, p.catalog, s)
    if t is None or not p.data.may_parse():
        return False
    tree = parse(sql)
    where = tree.args.get("where") if isinstance(tree, exp.Update | exp.Delete) else None
    if where is None:
        return False
    leading = {k.columns[0].lower() for k in t.keys if k.columns}
    if empty and _skipped(p.profile.EMPTY_TABLE_SKIPS, _conjuncts(where.this), t, leading):
        return True
    return _null_read(p, where.this, s, t, leading)


def _empty_table(p: Predictor, info: StatementInfo, s: SessionState) -> bool:
    """The statement's table is of an engine whose estimates are exact, and holds no row
    (fixtures/seeds/003_logging_rules/empty_range.sql)."""
    t = lookup(info.writes[0].table, p.catalog, s)
    if t is None or t.engine.lower() not in p.profile.EMPTY_ESTIMATE_ENGINES:
        return False
    d = p.data.tables.get(t.ident)
    return d is not None and d.tracked and all(r is None for r in d.rows)


def _skipped(rule: EmptyTable, conjuncts: list[exp.Expression], t: Table, leading: set[str]) -> bool:
    if rule is EmptyTable.ANY_WHERE:
        return True
    if rule is EmptyTable.INDEX_RANGE:
        return any(_range(c, leading) for c in conjuncts)
    given = _equalities(conjuncts)
    return t.engine.lower() in ("memory", "heap") and any(
        k.kind is KeyKind.PLAIN and not k.btree and k.columns and {x.lower() for x in k.columns} <= given
        for k in t.keys)


def _conjuncts(cond: exp.Expression) -> list[exp.Expression]:
    return [c for c in (cond.flatten() if isinstance(cond, exp.And) else [cond]) if isinstance(c, exp.Expression)]


def _constant(e: object) -> bool:
    return isinstance(e, exp.Expression) and e.find(exp.Column) is None and e.find(exp.Subquery) is None


def _equalities(conjuncts: list[exp.Expression]) -> set[str]:
    """The columns the conjuncts give a value to: ``c = constant``, ``c IN (constants)``."""
    out: set[str] = set()
    for c in conjuncts:
        while isinstance(c, exp.Paren):
            c = c.this
        if isinstance(c, exp.In) and isinstance(c.this, exp.Column) and c.expressions and not c.args.get("query") \
                and all(_constant(x) for x in c.expressions):
            out.add(c.this.name.lower())
        elif isinstance(c, exp.EQ):
            out |= {col.name.lower() for col, other in ((c.this, c.expression), (c.expression, c.this))
                    if isinstance(col, exp.Column) and _constant(other)}
    return out


def _range(c: exp.Expression, leading: set[str]) -> bool:
    """A conjunct the range optimizer reads: the first column of an index compared with a constant (not IS
    NULL: whether MariaDB runs ``WHERE k IS NULL`` on an empty MyISAM table varied between runs)."""
    if isinstance(c, exp.Paren):
        return _range(c.this, leading)
    if isinstance(c, exp.In | exp.Between):
        operands = c.expressions if isinstance(c, exp.In) else [c.args.get("low"), c.args.get("high")]
        return isinstance(c.this, exp.Column) and c.this.name.lower() in leading and not c.args.get("query") \
            and bool(operands) and all(_constant(x) for x in operands)
    if not isinstance(c, _COMPARISONS):
        return False
    return any(isinstance(col, exp.Column) and col.name.lower() in leading and _constant(other)
               for col, other in ((c.this, c.expression), (c.expression, c.this)))


def _null_read(p: Predictor, cond: exp.Expression, s: SessionState, t: Table, leading: set[str]) -> bool:
    """The WHERE compares the first column of an index with NULL (a NULL literal, or a user variable that is
    NULL): the range optimizer finds no row (both servers; fixtures/seeds/003_logging_rules/impossible_where.sql)."""
    hidden = p.catalog.hidden_user_vars()
    unset = {x.name.lower() for x in cond.find_all(exp.Parameter)} - set(s.user_vars) - hidden
    if p.profile.FIRST_NULL_READ_LOGGED and unset - s.read_vars:
        s.read_vars |= unset
        return False
    return any(_null_comparison(c, leading, t) for c in _conjuncts(bind(cond, s, hidden)))


def _null_comparison(c: exp.Expression, leading: set[str], t: Table) -> bool:
    def is_null(e: exp.Expression) -> bool:
        return isinstance(e, exp.Null) or (isinstance(e, Known) and e.this[0] is None)

    if isinstance(c, exp.Paren):
        return _null_comparison(c.this, leading, t)
    if isinstance(c, exp.In) and isinstance(c.this, exp.Column) and c.expressions and not c.args.get("query"):
        return c.this.name.lower() in leading and all(is_null(e) for e in c.expressions)
    if not isinstance(c, exp.EQ | exp.NEQ | exp.LT | exp.GT | exp.LTE | exp.GTE | exp.NullSafeEQ):
        return False
    for col, other in ((c.this, c.expression), (c.expression, c.this)):
        if isinstance(col, exp.Column) and col.name.lower() in leading and is_null(other):
            column = t.column(col.name)
            return not isinstance(c, exp.NullSafeEQ) or (column is not None and not column.nullable)
    return False
