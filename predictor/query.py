"""Evaluate the SELECTs whose rows the data model needs: INSERT ... SELECT, CREATE ... SELECT, subqueries
in a WHERE, and the rows a multi-table DELETE / UPDATE selects.

A SELECT over known tables (``Sources``: tables and views the data model follows) with inner, cross and
LEFT joins, WHERE, GROUP BY with COUNT / SUM / MIN / MAX / AVG, HAVING, DISTINCT and UNION [ALL],
ORDER BY ... LIMIT where the order is known. Uncorrelated subqueries (``IN (SELECT ...)``, ``EXISTS``, a
scalar ``(SELECT ...)``) are evaluated first and put back as values (``evaluate.Known``). Anything else
(window functions, a correlated subquery, a LIMIT whose rows the order does not tell) is "cannot say":
None.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise
from typing import TypeGuard, cast

from sqlglot import exp

from predictor.dialect import RplayMySQL
from predictor.evaluate import UNKNOWN, UNKNOWN_NAME, CannotEvaluate, Row, Value, known, number, opaque, truth, value
from predictor.functions import joined
from predictor.moments import Moment, before, from_literal
from predictor.nodes import PerRow
from predictor.values import JsonText


@dataclass(frozen=True)
class Source:
    """A table a SELECT reads: its column names (lower case, table order) and its rows."""

    columns: tuple[str, ...]
    rows: Sequence[Row]
    keys: tuple[tuple[str, ...], ...] = ()  # its unique keys, for ``filtered``


Sources = Callable[[str], Source | None]
Result = tuple[tuple[str, ...], list[list[Value]]]  # output column names, rows

_MAX_JOINED = 100_000  # rows of a join beyond which the data model stops following (cost, not meaning)


def output_name(e: exp.Expression) -> str:
    """The column name a SELECT item gets (CREATE ... SELECT matches columns by it): its alias, a column's
    name, else the item as written (``@v``, ``a + 1``)."""
    if isinstance(e, exp.Alias | exp.Column):
        return e.alias_or_name
    return e.sql(dialect=RplayMySQL)


def select_rows(q: exp.Expression, sources: Sources, lenient: bool = False) -> Result | None:
    """Output column names and rows of a SELECT / UNION, or None when it cannot be evaluated. ``lenient``: a
    WHERE keeps the rows it cannot decide (a bet: a cursor's passes, see calls.py)."""
    try:
        return _query(q, sources, lenient)
    except (CannotEvaluate, RecursionError):
        return None


def matching_rows(tables: exp.Expression, joins: Sequence[exp.Expression], where: exp.Expression | None,
                  sources: Sources) -> list[Row] | None:
    """The joined rows a multi-table DELETE / UPDATE selects (each row holds ``alias.column`` keys), or None."""
    try:
        condition = resolved(where, sources) if where is not None else None
        return [r for r in _joined(tables, joins, sources) if condition is None or truth(condition, r)]
    except (CannotEvaluate, RecursionError):
        return None


LENIENT_ROWS = 8
"""At most this many undecided rows are bet to match (a cursor's passes): more (loan_servicing_app's autopay
cursor over loans joined to 72 schedule lines whose dates the model knows only to the day) is no bet at all."""


def filtered(rows: Sequence[Row], condition: exp.Expression, keys: Sequence[tuple[str, ...]] = (),
             lenient: bool = False) -> list[Row]:
    """The rows ``condition`` selects, in order; raises CannotEvaluate when it cannot be said for a row, unless
    the condition pins a unique key (``code = 'X' AND ...``) and another row surely matches: the row that
    cannot be evaluated would hold the same key. ``lenient``: such a row is kept, up to LENIENT_ROWS of them."""
    sure: list[Row] = []
    unsure = 0
    for r in rows:
        try:
            if truth(condition, r):
                sure.append(r)
        except CannotEvaluate:
            unsure += 1
            if lenient:
                sure.append(r)
    if lenient and unsure <= LENIENT_ROWS:
        return sure
    if unsure and (seen := _SURE_ONLY.get()) is not None:
        seen.append(unsure)  # the rows surely selected, the others counted (_in_sure_rows)
        return sure
    if unsure and not (sure and pins_key(condition, keys)):
        raise CannotEvaluate("condition on an unknown value")
    return sure


def pins_key(condition: exp.Expression, keys: Sequence[tuple[str, ...]]) -> bool:
    """Whether ``condition`` is ``k1 = v1 AND k2 = v2 AND ...`` (and more) over every column of one of
    ``keys``, each ``v`` free of columns."""
    if not keys:
        return False
    pinned: set[str] = set()
    for c in condition.flatten() if isinstance(condition, exp.And) else (condition,):
        c = c.unnest()
        if not isinstance(c, exp.EQ | exp.NullSafeEQ):
            continue
        for col, other in ((c.this, c.expression), (c.expression, c.this)):
            if isinstance(col, exp.Column) and not any(isinstance(n, exp.Column | exp.Query) for n in other.walk()):
                pinned.add(col.name.lower())
    return any(set(k) <= pinned for k in keys)


def resolved(e: exp.Expression, sources: Sources, per_row: bool = True) -> exp.Expression:
    """``e`` with its uncorrelated subqueries replaced by their values (where they can be evaluated), the
    others (``per_row``) by a PerRow node that evaluates them for each row of the outer query."""
    if not any(isinstance(n, exp.Subquery | exp.Exists) for n in e.walk()):
        return e
    token = _SURE_ONLY.set(None)  # a subquery's rows are all its rows, inside _in_sure_rows too
    try:
        return _resolved(e, sources, per_row)
    finally:
        _SURE_ONLY.reset(token)


def _resolved(e: exp.Expression, sources: Sources, per_row: bool) -> exp.Expression:

    def swap(n: exp.Expression) -> exp.Expression:
        subquery = isinstance(n, exp.In | exp.Exists) or (
            isinstance(n, exp.Subquery) and not isinstance(n.parent, exp.From | exp.Join))
        if per_row and subquery and _names_outer(n):
            return _per_row(n, sources)  # ``d.courier_id = c.id``: c.id is not d's id
        if isinstance(n, exp.In) and isinstance(n.args.get("query"), exp.Expression):
            got = select_rows(n.args["query"], sources)
            if got is None:
                return _in_sure_rows(n, sources)
            if len(got[0]) != 1:
                return n
            return exp.In(this=n.this, expressions=[known(r[0]) for r in got[1]])
        if isinstance(n, exp.Exists):
            got = select_rows(n.this, sources)
            return n if got is None else known(int(bool(got[1])))
        if subquery:
            got = select_rows(n, sources)
            if got is None or len(got[0]) != 1 or len(got[1]) > 1:
                return n  # more than one row is error 1242: not the data model's to say
            return known(got[1][0][0] if got[1] else None)
        return n

    return e.transform(swap)


_NOT_PLAIN_FILTER = ("joins", "group", "having", "limit", "offset")
_SURE_ONLY: ContextVar[list[int] | None] = ContextVar("_SURE_ONLY", default=None)


def _in_sure_rows(n: exp.In, sources: Sources) -> exp.Expression:
    """``x IN (SELECT c FROM t WHERE ...)`` whose WHERE cannot be said of some rows: x among the rows it
    surely selects, OR a value not known (true when x is among them, else not known; crowdfunding_platform_app's
    pledges of expired holds, some holds' status not known). Only a plain filter: no aggregate, grouping,
    DISTINCT ... LIMIT, nor HAVING, whose result the rows left out would change, and no join (a LEFT JOIN
    row left out would come back NULL-extended); its own subqueries are evaluated whole (``resolved``)."""
    q = n.args["query"]
    q = q.this if isinstance(q, exp.Subquery) else q
    if not isinstance(q, exp.Select) or any(q.args.get(k) for k in _NOT_PLAIN_FILTER) or any(
            True for _ in q.find_all(exp.AggFunc, exp.Window)):
        return n
    token = _SURE_ONLY.set([])
    try:
        got = select_rows(q, sources)
    finally:
        _SURE_ONLY.reset(token)
    if got is None or len(got[0]) != 1:
        return n
    return exp.Or(this=exp.In(this=n.this, expressions=[known(r[0]) for r in got[1]]),
                  expression=exp.Anonymous(this=UNKNOWN_NAME))


def _numbered(rows: list[Row], items: list[exp.Expression]) -> tuple[list[Row], list[exp.Expression]]:
    """``ROW_NUMBER() OVER ([PARTITION BY p] ORDER BY k)`` in SELECT items: each row gets its number as a
    hidden column the item reads instead (rows come out in the window's order). Other window functions, and
    rows the ORDER BY does not tell apart, cannot be evaluated."""
    count = 0

    def swap(n: exp.Expression) -> exp.Expression:
        nonlocal rows, count
        if not isinstance(n, exp.Window):
            return n
        order = n.args.get("order")
        if not isinstance(n.this, exp.RowNumber) or not isinstance(order, exp.Order) or n.args.get("spec"):
            raise CannotEvaluate("a window function other than ROW_NUMBER() OVER (... ORDER BY ...)")
        parts = list(n.args.get("partition_by") or ())
        name = f"#row_number{count}"
        count += 1
        numbered: list[Row] = []
        seen: set[object] = set()
        per_part: dict[object, int] = {}
        for r in _sorted(rows, [*parts, *order.expressions]):
            tie = r[_TIE]
            if tie in seen:
                raise CannotEvaluate("ROW_NUMBER() over rows its ORDER BY does not tell apart")
            seen.add(tie)
            part = tie[:len(parts)] if isinstance(tie, tuple) else ()
            per_part[part] = per_part.get(part, 0) + 1
            numbered.append({**{k: v for k, v in r.items() if k != _TIE}, name: per_part[part]})
        rows = numbered
        return exp.column(name)

    swapped = [e.transform(swap) for e in items]  # numbers the rows as it goes
    return rows, swapped


def _aggregates(e: exp.Expression) -> bool:
    """Whether a SELECT item aggregates the rows (COUNT(*) in a subquery of it does not)."""
    return any(isinstance(x, exp.AggFunc) for x in e.walk(prune=lambda x: isinstance(x, exp.Subquery | PerRow)))


def _per_row(n: exp.Expression, sources: Sources) -> exp.Expression:
    """A subquery that could not be evaluated alone, as one evaluated for each outer row with the outer
    row's columns put in (a correlated subquery); CannotEvaluate where it still cannot be."""

    def evaluate(row: Row) -> Value:
        bound = resolved(_correlated(n, row, sources), sources, per_row=False)
        if any(isinstance(x, exp.Subquery | exp.Exists) for x in bound.walk()):
            raise CannotEvaluate("a correlated subquery")
        return value(bound, row)

    return PerRow(this=(evaluate,), expression=n.copy())


def _names_outer(n: exp.Expression) -> bool:
    """Whether a subquery names a column by a table that is not one of its own (a correlated subquery)."""
    if isinstance(n, exp.In):  # the value tested is the outer query's: only its subquery counts
        query = n.args.get("query")
        if not isinstance(query, exp.Expression):
            return False
        n = query
    inner = _own_tables(n)
    return any(c.table and c.table.lower() not in inner for c in n.find_all(exp.Column))


def _own_tables(n: exp.Expression) -> set[str]:
    """The names a subquery's own tables go by (aliases, derived tables included)."""
    return {t.alias_or_name.lower() for t in n.find_all(exp.Table)} | \
        {s.alias.lower() for s in n.find_all(exp.Subquery) if s.alias}


def _correlated(n: exp.Expression, row: Row, sources: Sources) -> exp.Expression:
    """``n`` with the columns that name the outer row (not a table of the subquery) as the row's values."""
    inner = _own_tables(n)
    names: set[str] = set()
    for t in n.find_all(exp.Table):
        src = sources(t.name)
        names |= set(src.columns) if src is not None else set()

    def put(x: exp.Expression) -> exp.Expression:
        if not isinstance(x, exp.Column) or isinstance(x.this, exp.Star):
            return x
        name, table = x.name.lower(), x.table.lower()
        if table and table not in inner:
            key = f"{table}.{name}"
            return known(row[key] if key in row else row[name]) if key in row or name in row else x
        if not table and name not in names and name in row:
            return known(row[name])
        return x

    return n.transform(put)


def _query(q: exp.Expression, sources: Sources, lenient: bool = False) -> Result:
    if isinstance(q, exp.Subquery):
        return _query(q.this, sources, lenient)
    ctes = q.args.get("with_") or q.args.get("with")
    if isinstance(ctes, exp.With):
        q = q.copy()
        q.set("with_" if "with_" in q.arg_types else "with", None)
        return _query(q, _with(ctes, sources))
    if isinstance(q, exp.Union):
        names, left = _query(q.this, sources)
        _, right = _query(q.expression, sources)
        if right and left and len(right[0]) != len(left[0]):
            raise CannotEvaluate("UNION of different widths")
        both = left + right
        return names, _distinct(both) if q.args.get("distinct") else both
    if not isinstance(q, exp.Select):
        raise CannotEvaluate(type(q).__name__)
    if q.args.get("windows"):
        raise CannotEvaluate("SELECT with windows")
    frm = q.args.get("from_") or q.args.get("from")
    joins = q.args.get("joins") or ()
    rows: list[Row] = list(_joined(frm.this, joins, sources)) if frm is not None else [{}]
    where = q.args.get("where")
    if where is not None:
        single = frm.this if frm is not None and not joins and isinstance(frm.this, exp.Table) else None
        src = sources(single.name) if single is not None else None
        rows = filtered(rows, resolved(where.this, sources), src.keys if src is not None else (), lenient)
    items = [resolved(e, sources) for e in q.expressions]
    names = _names(items, frm, sources)
    group = q.args.get("group")
    having = q.args.get("having")
    aggregated = group is not None or having is not None or any(_aggregates(e) for e in items)
    windowed = any(isinstance(x, exp.Window) for e in items for x in e.walk())
    if windowed and not aggregated:
        rows, items = _numbered(rows, items)
    order = q.args.get("order")
    distinct = bool(q.args.get("distinct"))
    late = order is not None and (aggregated or distinct)  # sorted after grouping / DISTINCT
    if order is not None and not late:
        rows = _sorted(rows, order.expressions)
    groups: list[list[Row]] | None = None
    if aggregated:
        keys = [_group_key(k, items, rows) for k in group.expressions] if group is not None else []
        condition = resolved(having.this, sources) if having is not None else None
        groups = [g for g in _groups(rows, keys)
                  if condition is None or truth(_aggregated(condition, g), g[0] if g else {})]
        if windowed:  # a window numbers the groups (fleet_app: stops numbered per route over grouped parcels)
            firsts, items = _numbered([{**(g[0] if g else {}), _AT: i} for i, g in enumerate(groups)], items)
            groups = [groups[cast(int, r[_AT])] for r in firsts]
            out = [_project(items, r, g) for r, g in zip(firsts, groups, strict=True)]
        else:
            out = [_project(items, g[0] if g else {}, g) for g in groups]
    else:
        out = [_project(items, r, None) for r in rows]
    if distinct:
        out = _distinct(out)
        groups = None if groups is None or len(groups) == len(out) else []
    if late and order is not None:
        ordered = _sorted_output(out, names, order.expressions, groups, sources, items)
        return names, _limited(q, [out[cast(int, r[_AT])] for r in ordered], ordered)
    return names, _limited(q, out, rows if order is not None else None)


_AT = "#at"  # an output row's place before ORDER BY sorted it


def _sorted_output(out: list[list[Value]], names: Sequence[str], keys: Sequence[exp.Expression],
                   groups: list[list[Row]] | None, sources: Sources,
                   items: Sequence[exp.Expression] = ()) -> list[Row]:
    """The output rows of a grouped or DISTINCT SELECT in ORDER BY order (``_sorted``'s rules): a key is a
    select item by position or name (names go to the select list first, as on both servers), or, for groups,
    any expression over the group (``ORDER BY SUM(x) DESC``)."""
    same = {x.sql(): k for k, x in enumerate(x.this if isinstance(x, exp.Alias) else x for x in items)
            if isinstance(x, exp.Column)}  # (other items may hold nodes that have no SQL: PerRow)
    rows: list[Row] = []
    for i, vals in enumerate(out):
        named = dict(zip(names, vals, strict=False))
        r: Row = {_AT: i}
        for j, o in enumerate(keys):
            e = o.this if isinstance(o, exp.Ordered) else o
            if isinstance(e, exp.Literal) and e.is_int and 0 < int(e.this) <= len(vals):
                r[f"#key{j}"] = vals[int(e.this) - 1]
            elif isinstance(e, exp.Column) and not e.table and e.name.lower() in named:
                r[f"#key{j}"] = named[e.name.lower()]
            elif e.sql() in same and same[e.sql()] < len(vals):  # ``SELECT DISTINCT rx.patient_id ... ORDER BY
                r[f"#key{j}"] = vals[same[e.sql()]]                 # rx.patient_id``: the item itself
            elif groups:
                g = groups[i]
                r[f"#key{j}"] = value(_aggregated(resolved(e, sources), g), g[0] if g else {})
            else:
                raise CannotEvaluate("ORDER BY a value DISTINCT rows do not hold")
        rows.append(r)
    return _sorted(rows, [exp.Ordered(this=exp.column(f"#key{j}"), desc=bool(
        isinstance(o, exp.Ordered) and o.args.get("desc"))) for j, o in enumerate(keys)])


def _limited(q: exp.Select, out: list[list[Value]], ordered: list[Row] | None) -> list[list[Value]]:
    """``out`` cut by LIMIT / OFFSET: without ORDER BY only when every row is kept (the server's order is
    its own); with it, when the cut does not fall between rows that sort equal (``_sorted`` marks them)."""
    limit, offset = q.args.get("limit"), q.args.get("offset")
    if limit is None and offset is None:
        return out
    n = _count(limit.expression if isinstance(limit, exp.Limit) else limit) if limit is not None else len(out)
    skip = _count(offset.expression if isinstance(offset, exp.Offset) else offset) if offset is not None else 0
    if isinstance(limit, exp.Limit) and limit.args.get("offset") is not None:
        skip = _count(limit.args["offset"])
    if n == 0:
        return []  # LIMIT 0: no row, in any order (a scalar subquery's NULL)
    if ordered is None:
        if skip or n < len(out):
            raise CannotEvaluate("LIMIT without ORDER BY that drops rows")
        return out
    for cut in (skip, skip + n):
        if 0 < cut < len(ordered) and ordered[cut - 1].get(_TIE) == ordered[cut].get(_TIE):
            raise CannotEvaluate("LIMIT between rows ORDER BY does not tell apart")
    return out[skip:skip + n]


def _count(e: object) -> int:
    if isinstance(e, exp.Literal) and e.is_int:
        return int(e.this)
    raise CannotEvaluate("a LIMIT that is not a number")


_TIE = "#order"  # a sorted row's key: rows with equal keys are in the server's order, not known


def _sorted(rows: list[Row], keys: Sequence[exp.Expression]) -> list[Row]:
    """``rows`` in ORDER BY order, on integers and on strings whose order does not depend on the collation
    (digits, ASCII letters, spaces and ``-:.``; dates and times compare as their text). NULL sorts first."""
    decorated = []
    for r in rows:
        key: list[tuple[int, object]] = []
        for o in keys:
            v = value(o.this if isinstance(o, exp.Ordered) else o, r)
            if v is not None and not number(v) and not (_plain_text(v) and _plain(v)) and not isinstance(v, Moment):
                raise CannotEvaluate("ORDER BY a value whose order is not known")
            key.append((0, 0) if v is None else (1, v))
        decorated.append((tuple(key), r))
    for i in range(len(keys)):
        kinds = {Moment if isinstance(k[i][1], Moment) else str if isinstance(k[i][1], str) else int
                 for k, _ in decorated if k[i][0]}
        if kinds == {Moment, str}:  # date literals among clock readings: readings too (expires_at)
            decorated = [(_as_reading(k, i), r) for k, r in decorated]
        elif len(kinds) > 1:
            raise CannotEvaluate("ORDER BY over numbers and strings")
        texts = [str(k[i][1]) for k, _ in decorated if k[i][0] and isinstance(k[i][1], str)]
        if any(t.isdigit() for t in texts) and len({len(t) for t in texts}) > 1:
            raise CannotEvaluate("ORDER BY digit strings of different lengths")  # as text or as numbers?
    for i in reversed(range(len(keys))):
        o = keys[i]
        decorated.sort(key=lambda d, i=i: _Key(d[0][i]),  # type: ignore[misc]
                       reverse=bool(isinstance(o, exp.Ordered) and o.args.get("desc")))
    return [{**r, _TIE: k} for k, r in decorated]


def _as_reading(key: tuple[tuple[int, object], ...], i: int) -> tuple[tuple[int, object], ...]:
    """``key`` with its i-th value, a date literal, as a clock reading (predictor/moments.py)."""
    flag, v = key[i]
    if not isinstance(v, str):
        return key
    m = from_literal(v)
    if m is None:
        raise CannotEvaluate("ORDER BY clock readings and text")
    return (*key[:i], (flag, m), *key[i + 1:])


class _Key:
    """One ORDER BY key of a row, (0, 0) for NULL (first), else (1, value): numbers and plain strings as
    Python orders them, clock readings when their ranges say so (moments.before), else CannotEvaluate
    (``ORDER BY expires_at`` of bundles bought a few statements apart)."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[int, object]) -> None:
        self.key = key

    def __lt__(self, other: _Key) -> bool:
        (fa, a), (fb, b) = self.key, other.key
        if fa != fb or not fa:
            return fa < fb
        if not isinstance(a, Moment) or not isinstance(b, Moment):
            return bool(a < b)  # type: ignore[operator]
        earlier = before(a, b)
        if earlier is None:
            raise CannotEvaluate("ORDER BY clock readings whose order is not known")
        return earlier


_PLAIN = frozenset("0123456789abcdefghijklmnopqrstuvwxyz -:.")


def _plain_text(v: object) -> TypeGuard[str]:
    """A string, not a JSON document (its order is not its text's)."""
    return isinstance(v, str) and not isinstance(v, JsonText)


def _plain(v: str) -> bool:
    """Text whose order is the same in every collation (a DECIMAL kept as text is not: '10.5' < '9.5'); digits
    alone are, when all the keys have as many (phone numbers: ``_sorted`` checks)."""
    if v.isascii() and v.isdigit():
        return True
    try:
        float(v)
    except ValueError:
        return all(c in _PLAIN for c in v)
    return False


def _names(items: Sequence[exp.Expression], frm: exp.Expression | None, sources: Sources) -> tuple[str, ...]:
    out: list[str] = []
    for e in items:
        if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)):
            out += [c for _, c in _star_columns(e, frm, sources)]
        else:
            out.append(output_name(e).lower())
    return tuple(out)


def _star_columns(e: exp.Expression, frm: exp.Expression | None, sources: Sources) -> list[tuple[str, str]]:
    """(alias, column) pairs a ``*`` or ``t.*`` stands for (the FROM table's only: joins need names)."""
    t = frm.this if frm is not None else None
    if not isinstance(t, exp.Table):
        raise CannotEvaluate("* over a join")
    src = sources(t.name)
    if src is None:
        raise CannotEvaluate(f"rows of {t.name} unknown")
    alias = (t.alias_or_name or t.name).lower()
    return [(alias, c) for c in src.columns]


def _project(items: Sequence[exp.Expression], row: Row, group: list[Row] | None) -> list[Value]:
    vals: list[Value] = []
    for e in items:
        if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)):
            vals.extend(v for k, v in row.items() if "." not in k and not k.startswith("#"))
            continue
        inner = e.this if isinstance(e, exp.Alias) else e
        try:
            vals.append(value(_aggregated(inner, group) if group is not None else inner, row))
        except CannotEvaluate:
            vals.append(UNKNOWN)  # the rows are still known, as an INSERT's VALUES row with such a value is
    return vals


def _joined(first: exp.Expression, joins: Sequence[exp.Expression], sources: Sources) -> Iterator[Row]:
    """Rows of FROM ``first`` JOIN ...: each holds ``alias.column`` for every table, and ``column`` where
    only one table has it."""
    rows = _table_rows(first, sources)
    for j in joins:
        if not isinstance(j, exp.Join) or j.args.get("using") or j.args.get("method"):
            raise CannotEvaluate("a join other than [INNER | CROSS | LEFT] JOIN ... ON")
        side = str(j.args.get("side") or "").upper()
        if side not in ("", "LEFT") or str(j.args.get("kind") or "").upper() not in ("", "INNER", "CROSS"):
            raise CannotEvaluate(f"{side} JOIN")
        right = _table_rows(j.this, sources)
        on = j.args.get("on")
        nulls = dict.fromkeys(right[0] if right else (), None) if side == "LEFT" else None
        joined: list[Row] = []
        for r in rows:
            hit = False
            for other in right:
                both = _merge(r, other)
                if on is None or truth(on, both):
                    joined.append(both)
                    hit = True
            if not hit and side == "LEFT":
                if nulls is None or not right:
                    raise CannotEvaluate("LEFT JOIN of an empty table")  # its column names are not at hand
                joined.append(_merge(r, nulls))
            if len(joined) > _MAX_JOINED:
                raise CannotEvaluate("join too large to follow")
        rows = joined
    yield from rows


_MAX_RECURSION = 1000  # cte_max_recursion_depth (both servers' default): more passes fail the statement


def _with(ctes: exp.With, sources: Sources) -> Sources:
    """``sources`` with the WITH clause's tables, each evaluated once; a RECURSIVE one's ``anchor UNION ALL
    step`` pass by pass, each step reading the rows the pass before gave, until a pass gives none (a
    number generator: ``SELECT 1 AS i UNION ALL SELECT i + 1 FROM n WHERE i < 150``)."""
    local: dict[str, Source] = {}

    def look(name: str) -> Source | None:
        return local.get(name.lower()) or sources(name)

    recursive = bool(ctes.args.get("recursive"))
    for cte in ctes.expressions:
        name = cte.alias.lower()
        alias = cte.args.get("alias")
        given = tuple(c.name.lower() for c in alias.columns) if isinstance(alias, exp.TableAlias) else ()
        body = cte.this
        steps = recursive and isinstance(body, exp.Union) and any(
            t.name.lower() == name for t in body.expression.find_all(exp.Table))
        first = body.this if steps else body
        names, rows = _query(first, look)
        names = given or tuple(n.lower() for n in names)
        if len(set(names)) != len(names) or any(len(r) != len(names) for r in rows):
            raise CannotEvaluate("a WITH table's columns")
        out = list(rows)
        if steps:
            if body.args.get("distinct"):
                raise CannotEvaluate("a recursive UNION DISTINCT")
            new, passes = rows, 0
            while new:
                passes += 1
                if passes > _MAX_RECURSION or len(out) > _MAX_JOINED:
                    raise CannotEvaluate("a recursive WITH that does not end")
                local[name] = Source(names, [dict(zip(names, r, strict=True)) for r in new])
                _, new = _query(body.expression, look)
                out += new
        local[name] = Source(names, [dict(zip(names, r, strict=True)) for r in out])
    return look


def _table_rows(t: exp.Expression, sources: Sources) -> list[Row]:
    if isinstance(t, exp.Subquery):
        names, rows = _query(t.this, sources)
        alias = t.alias.lower()
        return [_qualified(alias, dict(zip(names, r, strict=True))) for r in rows]
    if not isinstance(t, exp.Table):
        raise CannotEvaluate(f"FROM {type(t).__name__}")
    if t.name.upper() == "DUAL" and not t.db:
        return [{}]  # FROM DUAL: one row of no columns
    src = sources(t.name)
    if src is None:
        raise CannotEvaluate(f"rows of {t.name} unknown")
    alias = (t.alias_or_name or t.name).lower()
    return [_qualified(alias, {c: r.get(c, UNKNOWN) for c in src.columns} | _hidden(r)) for r in src.rows]


def _hidden(r: Row) -> Row:
    return {k: v for k, v in r.items() if k.startswith("#")}  # e.g. "#pos": a row's place in its table


def _qualified(alias: str, row: Row) -> Row:
    return row | {f"{alias}.{c}": v for c, v in row.items()}


def _merge(left: Row, right: Row) -> Row:
    """Two tables' columns side by side; a bare name both have is UNKNOWN (the server would say 1052)."""
    out = dict(left)
    for k, v in right.items():
        out[k] = v if "." in k or k not in left else UNKNOWN
    return out


def _group_key(k: exp.Expression, items: Sequence[exp.Expression], rows: list[Row]) -> exp.Expression:
    """A GROUP BY key: a position, or a name that is no column of the FROM tables but a select alias (MySQL
    looks in the FROM tables first; utility_billing_app: GROUP BY bucket, a CASE)."""
    if isinstance(k, exp.Literal) and k.is_int and 0 < int(k.name) <= len(items):
        e = items[int(k.name) - 1]
        return cast(exp.Expression, e.this) if isinstance(e, exp.Alias) else e
    if isinstance(k, exp.Column) and not k.table and rows and k.name.lower() not in rows[0]:
        for e in items:
            if isinstance(e, exp.Alias) and e.alias.lower() == k.name.lower():
                return cast(exp.Expression, e.this)
    return k


def _groups(rows: list[Row], keys: Sequence[exp.Expression]) -> list[list[Row]]:
    """Rows grouped by the GROUP BY values (one group of all rows, even none, without GROUP BY)."""
    if not keys:
        return [rows]
    groups: dict[tuple[Value, ...], list[Row]] = {}
    for r in rows:
        k = tuple(value(e, r) for e in keys)
        if any(opaque(v) for v in k):
            raise CannotEvaluate("GROUP BY an unknown value")
        groups.setdefault(k, []).append(r)
    return list(groups.values())


def _aggregated(e: exp.Expression, group: list[Row]) -> exp.Expression:
    """``e`` with each aggregate replaced by its value over ``group``."""
    def swap(n: exp.Expression) -> exp.Expression:
        return known(_aggregate(n, group)) if isinstance(n, exp.AggFunc) else n
    return e.transform(swap)


def _aggregate(f: exp.AggFunc, group: list[Row]) -> Value:
    if isinstance(f, exp.GroupConcat):
        return _group_concat(f, group)
    arg = f.this
    if isinstance(f, exp.Count) and (arg is None or isinstance(arg, exp.Star)):
        return len(group)
    distinct = isinstance(arg, exp.Distinct)
    if isinstance(arg, exp.Distinct):
        # COUNT(DISTINCT a, b): rows with a NULL left out; values as the model holds them compare as the
        # default (_ci) collations do (case-folded, trailing spaces off)
        parts = arg.expressions
        if isinstance(f, exp.Count) and len(parts) > 1:
            keys = [tuple(value(x, r) for x in parts) for r in group]
            if any(opaque(v) for k in keys for v in k):
                raise CannotEvaluate("aggregate of unknown values")
            return len({k for k in keys if None not in k})
        if len(parts) != 1:
            raise CannotEvaluate("aggregate of DISTINCT")
        arg = parts[0]
    if not isinstance(arg, exp.Expression):
        raise CannotEvaluate("aggregate without an argument")
    vals = [value(arg, r) for r in group]
    if any(opaque(v) for v in vals):
        return UNKNOWN  # (a HAVING on it is not decided; a value made of it is unknown: MAX(last_seen))
    present = [v for v in vals if v is not None]
    if distinct:
        if any(isinstance(v, Moment | float) for v in present):
            raise CannotEvaluate("DISTINCT of clock readings or doubles")
        present = list(dict.fromkeys(present))
    if isinstance(f, exp.Count):
        return len(present)
    if not present:
        return None
    if isinstance(f, exp.Max | exp.Min):
        if len({Decimal if number(v) else type(v) for v in present}) != 1 or isinstance(present[0], Moment):
            raise CannotEvaluate("MIN/MAX across types")
        return max(present) if isinstance(f, exp.Max) else min(present)  # type: ignore[type-var]
    if not all(number(v) for v in present):
        raise CannotEvaluate("SUM/AVG of values that are not numbers")
    total = sum(v for v in present if isinstance(v, int | Decimal))
    if isinstance(f, exp.Sum):
        return total
    if isinstance(f, exp.Avg):
        return _average(total, present)
    raise CannotEvaluate(f"aggregate {type(f).__name__}")


def _group_concat(f: exp.GroupConcat, group: list[Row]) -> Value:
    """GROUP_CONCAT over the group's rows in its ORDER BY (``_sorted``'s rules), its NULLs left out; unknown
    when rows it does not tell apart give different texts, or when the result would be cut at
    group_concat_max_len (1024: a warning the model does not give)."""
    arg, order = f.this, []
    if isinstance(arg, exp.Order):
        arg, order = arg.this, list(arg.expressions)
    distinct = isinstance(arg, exp.Distinct)
    if distinct:
        arg = arg.expressions[0] if len(arg.expressions) == 1 else None
    if not isinstance(arg, exp.Expression):
        raise CannotEvaluate("GROUP_CONCAT without an argument")
    rows = _sorted(group, order) if order else group
    vals = [value(arg, r) for r in rows]
    if any(opaque(v) for v in vals):
        return UNKNOWN
    ties = [r.get(_TIE) for r in rows] if order else [()] * len(rows)
    kept = [(t, v) for t, v in zip(ties, vals, strict=True) if v is not None]
    if distinct:
        first: dict[Value, tuple[object, Value]] = {}
        for t, v in kept:
            first.setdefault(v, (t, v))
        kept = list(first.values())
    if any(a[0] == b[0] and a[1] != b[1] for a, b in pairwise(kept)):
        return UNKNOWN  # (without ORDER BY: in the server's scan order)
    sep = f.args.get("separator")
    if sep is not None and not (isinstance(sep, exp.Literal) and sep.is_string):
        raise CannotEvaluate("GROUP_CONCAT with a SEPARATOR that is not a string literal")
    out = joined([v for _, v in kept], "," if sep is None else str(sep.this)) if kept else None
    return UNKNOWN if isinstance(out, str) and len(out) > 1024 else out


def _average(total: int | Decimal, present: list[Value]) -> Decimal:
    """AVG of integers or DECIMALs: a DECIMAL with 4 more digits of scale than its argument
    (div_precision_increment), rounded half up, as both servers compute it."""
    if any(not isinstance(v, int | Decimal) or isinstance(v, bool) for v in present):
        raise CannotEvaluate("AVG of a float")
    scale = max((-int(v.as_tuple().exponent) for v in present if isinstance(v, Decimal)), default=0)
    return (Decimal(total) / len(present)).quantize(Decimal(1).scaleb(-(scale + 4)), rounding=ROUND_HALF_UP)


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
