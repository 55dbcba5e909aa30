"""User variables and LAST_INSERT_ID(), per session, as far as the data model knows them.

Applications keep the id of the row they just inserted (``SET @order = LAST_INSERT_ID()``) and use it in
the next statements' WHERE and VALUES; without its value each of those statements stops the tracking of
its table. A variable is known when a SET gave it a value the evaluator computes (literals, arithmetic of
known values, LAST_INSERT_ID() after an INSERT whose generated id the data model assigned, a scalar
subquery over tracked rows). ``SELECT ... INTO @v``, ``@v := ...`` inside a statement and a SET the
evaluator cannot compute make it unknown; so is a variable no statement of the workload set.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from predictor.evaluate import UNKNOWN, CannotEvaluate, Value, known, value
from predictor.parse import parse
from predictor.query import Source, resolved, select_rows
from predictor.session import SessionState


def assigned(tree: exp.Expression) -> tuple[str, ...]:
    """Lower-case names of the user variables a statement assigns: SET @v, INTO @v, @v := ..."""
    out: list[str] = []
    for node in tree.find_all(exp.PropertyEQ, exp.Into, exp.SetItem):
        if isinstance(node, exp.Into):
            targets = [node.this, *(node.expressions or [])]
        else:
            target = node.this.this if isinstance(node, exp.SetItem) and isinstance(node.this, exp.EQ) else node.this
            targets = [target]
        out += [t.name.lower() for t in targets if isinstance(t, exp.Parameter)]
    return tuple(dict.fromkeys(out))


_SESSION_FUNCTIONS = frozenset({"LAST_INSERT_ID", "CONNECTION_ID", "ROW_COUNT"})


def bind(tree: exp.Expression, s: SessionState, hidden: frozenset[str] | None = None) -> exp.Expression:
    """``tree`` with the session's known user variables, LAST_INSERT_ID() (as the statement began), ROW_COUNT()
    (as far as the data model followed the statement before) and CONNECTION_ID() (a value equal to no other
    session's) put in as values. ``hidden``: the variables a trigger or stored function may set; given, a
    variable the session never set and no such body sets is NULL (else it is unknown)."""
    if not s.user_vars and s.read_insert_id is UNKNOWN and s.row_count is None and hidden is None:
        return tree

    def put(x: exp.Expression) -> exp.Expression:
        if isinstance(x, exp.Parameter):
            name = x.name.lower()
            v = s.user_vars.get(name, UNKNOWN if hidden is None or name in hidden else None)
            return x if v is UNKNOWN else known(v, f"@{x.name}")
        if isinstance(x, exp.Anonymous) and not x.expressions and x.name.upper() in _SESSION_FUNCTIONS:
            if x.name.upper() == "CONNECTION_ID":
                return known(s.connection, "CONNECTION_ID()")
            if x.name.upper() == "ROW_COUNT":
                return x if s.row_count is None else known(s.row_count, "ROW_COUNT()")
            return x if s.read_insert_id is UNKNOWN else known(s.read_insert_id, "LAST_INSERT_ID()")
        return x

    if not any(isinstance(x, exp.Parameter) or (isinstance(x, exp.Anonymous) and x.name.upper() in _SESSION_FUNCTIONS)
               for x in tree.walk()):
        return tree
    return tree.transform(put)  # a copy: parse() trees are shared


Results = Callable[[exp.Expression], exp.Expression]  # puts in what calls of functions that write returned


def run_set(sql: str, s: SessionState, sources: Callable[[str], Source | None], ran: Results | None = None) -> None:
    """A SET statement: each ``@v = expr`` gets expr's value (UNKNOWN when it cannot be computed)."""
    tree = parse(sql)
    if ran is not None and isinstance(tree, exp.Set):
        tree = ran(tree)
    if not isinstance(tree, exp.Set):
        return
    for item in tree.expressions:
        eq = item.this if isinstance(item, exp.SetItem) else None
        if not isinstance(eq, exp.EQ | exp.PropertyEQ) or not isinstance(eq.this, exp.Parameter):
            continue
        v: Value
        try:
            v = value(resolved(bind(eq.expression, s), sources), {})
        except CannotEvaluate:
            v = UNKNOWN
        s.user_vars[eq.this.name.lower()] = v


ER_TOO_MANY_ROWS = 1172
ER_SP_FETCH_NO_DATA = 1329


def run_select_into(sql: str, s: SessionState, sources: Callable[[str], Source | None],
                    ran: Results | None = None) -> int | None:
    """``SELECT ... INTO @v, ...`` over rows the data model follows: one row gives the variables its values;
    none leaves them as they were, with the warning 1329; several fail with 1172. The code, or None (the
    variables are then unknown, as the caller left them)."""
    tree = parse(sql)
    if ran is not None and isinstance(tree, exp.Select):
        tree = ran(tree)
    if not isinstance(tree, exp.Select):
        return None
    into = tree.args.get("into")
    if not isinstance(into, exp.Into) or into.args.get("unlogged") or into.args.get("temporary"):
        return None
    targets = [into.this, *(into.expressions or ())] if into.this is not None else list(into.expressions or ())
    if not targets or not all(isinstance(t, exp.Parameter) for t in targets):
        return None
    query = tree.copy()
    query.set("into", None)
    bound = bind(query, s)
    got = select_rows(bound, sources)
    if got is None:
        # one row that may match and no other: bet on it, as the app selects an entity it knows is there
        # (loan_servicing_app's loan looked up by its borrower's e-mail and a status the model lost)
        bet = select_rows(bound, sources, lenient=True)
        got = bet if bet is not None and len(bet[1]) == 1 else None
    if got is None or any(len(r) != len(targets) for r in got[1]):
        return None
    rows = got[1]
    if len(rows) != 1:
        return ER_SP_FETCH_NO_DATA if not rows else ER_TOO_MANY_ROWS
    for t, v in zip(targets, rows[0], strict=True):
        s.user_vars[t.name.lower()] = v
    return None
