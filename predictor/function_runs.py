"""Stored functions that write run on the data model, once per call, before the statement is evaluated.

A sequence function bumps its counter row and returns the new value (event_ticketing_venue_app's
fn_next_ref, mes_factory_app's fn_next_no): ``INSERT INTO work_orders (wo_no, ...) VALUES (CONCAT('WO-',
fn_next_no('WO')), ...)``. When the statement calls such functions a known number of times with known
arguments (in INSERT ... VALUES rows, SET, a SELECT or DO without a table), and nothing around a call decides
whether it runs, each call runs in statement order (predictor/triggers.py runs the body) and its result
stands in for the call wherever the statement is evaluated (rows.parsed): the document number is known, and
so are the later statements that name it. Otherwise, or when a body cannot be followed, what the functions
write is forgotten (engine.forget_function_writes).

A statement that then fails is undone, the functions' writes with it, in the transactional tables they
wrote (``undo``); a MyISAM counter keeps its bump.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot import exp

from predictor import nodes
from predictor.catalog import Table
from predictor.data import DataModel, TableData
from predictor.evaluate import UNKNOWN, CannotEvaluate, known, opaque, value

if TYPE_CHECKING:
    from predictor.triggers import Changed

# a call under one of these may or may not run: not followed
_CONDITIONAL = (exp.If, exp.Case, exp.Coalesce, exp.And, exp.Or, exp.Query, exp.Subquery)


@dataclass(frozen=True)
class Ran:
    """The results of the statement ``sql``'s calls, in statement order, and the tables they wrote as they
    were before (to put back when the statement fails)."""

    sql: str
    results: tuple[object, ...]
    before: tuple[tuple[Table, TableData], ...]
    changed: Changed | None = None  # the rows they changed, their upserts' written and updated rows too


Writer = Callable[[str], str | None]
"""A stored function's CREATE text when it writes a table, else None (Predictor.writing_function)."""
Call = Callable[[str, list[object]], tuple[object] | None]
"""Runs a function (CREATE text, argument values): (its RETURN value,), or None (triggers.call)."""


def _writing_calls(tree: exp.Expression, writer: Writer) -> list[exp.Anonymous]:
    return [n for n in tree.walk(bfs=False) if isinstance(n, exp.Anonymous) and writer(n.name) is not None]


def calls(tree: exp.Expression, writer: Writer,
          matched: Callable[[exp.Update], int | None] = lambda tree: None) -> list[exp.Anonymous] | None:
    """The statement's calls of functions that write, in the order they run; None when whether or how often
    one runs is not known (a call per row of a table, under a condition, or with an argument not known).
    ``matched(update)``: how many rows a single-table UPDATE selects, None if not known; a call in its SET
    runs once when that is one row (coworking_spaces_app's ``SET inv_no = next_invoice_no(p_period) WHERE
    id = v_inv``)."""
    found = _writing_calls(tree, writer)
    for c in found:
        once = _runs_once(tree, c) or (_in_update_set(tree, c) and matched(tree) == 1)  # type: ignore[arg-type]
        if not once or any(isinstance(x, exp.Column) or (
                isinstance(x, exp.Anonymous) and writer(x.name) is not None)
                for a in c.expressions for x in a.walk()):
            return None
    return found


def with_subqueries_valued(tree: exp.Expression, writer: Writer,
                           resolve: Callable[[exp.Expression], exp.Expression]) -> exp.Expression:
    """``tree`` with the subqueries in the arguments of its calls of functions that write replaced by their
    values where the data model has them: the server evaluates the arguments before the call
    (ev_charging_network_app's ``SET @pts = fn_award_loyalty(@d, @s, (SELECT energy_kwh FROM cdrs WHERE
    id = @cdr))``)."""
    if not any(a.find(exp.Subquery) for c in _writing_calls(tree, writer) for a in c.expressions):
        return tree
    tree = tree.copy()
    for c in _writing_calls(tree, writer):
        for a in list(c.expressions):
            if a.find(exp.Subquery):
                try:
                    a.replace(resolve(a))
                except CannotEvaluate:
                    pass
    return tree


def _in_update_set(tree: exp.Expression, call: exp.Expression) -> bool:
    """Whether ``call`` is in a SET value of a single-table UPDATE (not under a condition)."""
    if not isinstance(tree, exp.Update) or not isinstance(tree.this, exp.Table) or tree.this.args.get("joins") \
            or any(tree.args.get(k) for k in ("from", "from_", "limit", "order")):
        return False
    node = call.parent
    while node is not None and node.parent is not tree:
        if isinstance(node, _CONDITIONAL):
            return False
        node = node.parent
    return node is not None and any(node is e for e in tree.expressions)


def run(found: Sequence[exp.Anonymous], writer: Writer, call: Call) -> tuple[object, ...] | None:
    """Run the calls in order: what each returned, or None at the first one not followed (what the ones
    before it wrote stays: the caller forgets it)."""
    results: list[object] = []
    for c in found:
        args, text = arguments(c), writer(c.name)
        got = None if args is None or text is None else call(text, args)
        if got is None:
            return None
        results.append(got[0])
    return tuple(results)


def _runs_once(tree: exp.Expression, call: exp.Expression) -> bool:
    """Whether the statement evaluates ``call`` once where it stands: in an INSERT's VALUES row, a SET's
    value, the list of a SELECT or DO that reads no table."""
    node = call.parent
    while node is not None and node is not tree:
        if isinstance(node, _CONDITIONAL):
            return False
        if isinstance(node, exp.Values):
            return isinstance(tree, exp.Insert) and node is tree.expression
        node = node.parent
    if isinstance(tree, exp.Select):
        return not any(tree.args.get(k) for k in ("from_", "from", "joins", "where", "group", "having"))
    return isinstance(tree, exp.Set | nodes.Do)


def arguments(call: exp.Anonymous) -> list[object] | None:
    """The call's argument values; None when one is not known."""
    out: list[object] = []
    for a in call.expressions:
        try:
            v = value(a, {})
        except CannotEvaluate:
            return None
        if v is UNKNOWN or opaque(v):
            return None
        out.append(v)
    return out


def put(tree: exp.Expression, writer: Writer, results: Sequence[object]) -> exp.Expression:
    """``tree`` with its calls of functions that write replaced by what they returned."""
    tree = tree.copy()
    found = _writing_calls(tree, writer)
    if len(found) != len(results):
        return tree
    for call, v in zip(found, results, strict=True):
        if call is tree:
            return known(v)
        call.replace(known(v))
    return tree


def saved(data: DataModel, tables: Iterable[Table]) -> tuple[tuple[Table, TableData], ...]:
    """Copies of the followed tables ``tables`` as they are now."""
    out: list[tuple[Table, TableData]] = []
    for t in tables:
        d = data.tables.get(t.ident)
        if d is not None and d.tracked and all(t.ident != x.ident for x, _ in out):
            out.append((t, d.copy()))
    return tuple(out)


def undo(data: DataModel, ran: Ran, transactional: Callable[[Table], bool]) -> None:
    """The statement failed: its transactional tables are back as they were before the calls."""
    for t, d in ran.before:
        if transactional(t):
            data.tables[t.ident] = d
