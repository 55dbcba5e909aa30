"""A procedure's local variables, followed statement by statement as a CALL runs.

``SELECT c INTO v FROM t WHERE ...`` and ``SET v = expr`` outside loops and handlers give ``v`` its value
for the statements after them, so that ``IF v >= capacity THEN SIGNAL ...`` is decided and
``INSERT ... VALUES (v)`` writes a known value (routines.Signature.sequential says which variables). An
assignment the CALL may or may not reach (an IF the values do not decide), or a value the data model
cannot compute, makes the variable unknown from there on.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping

from sqlglot import exp

from predictor.evaluate import CannotEvaluate, value
from predictor.parse import parse
from predictor.query import Source, resolved, select_rows
from predictor.routines import as_expression, inline_functions, substitute, unknown
from predictor.session import SessionState
from predictor.variables import ER_SP_FETCH_NO_DATA, ER_TOO_MANY_ROWS
from predictor.variables import bind as bind_user_vars

Locals = MutableMapping[str, exp.Expression]


def assign(text: str, names: frozenset[str], values: Locals, s: SessionState,
           sources: Callable[[str], Source | None], reached: bool,
           functions: Callable[[str], str | None] | None = None,
           ran: Callable[[exp.Expression], exp.Expression] | None = None) -> int | None:
    """Run the assignment ``text`` (``SET`` or ``SELECT ... INTO``) on ``values``, for the variables in
    ``names``; ``reached``: the CALL surely runs it; ``functions``: stored functions' CREATE texts, to inline
    the ones that only compute (routines.inline_functions); ``ran``: puts in what the statement's calls of
    functions that write returned (predictor/function_runs.py). The statement's error (1172: several rows),
    1329 when it surely found no row, or None."""
    tree = parse(text)
    if functions is not None and isinstance(tree, exp.Expression):
        tree = inline_functions(tree, functions)
    if ran is not None and isinstance(tree, exp.Expression):
        tree = ran(tree)
    if isinstance(tree, exp.Set):
        for item in tree.expressions:
            eq = item.this if isinstance(item, exp.SetItem) else None
            if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column) and not eq.this.table \
                    and eq.this.name.lower() in names:
                values[eq.this.name.lower()] = _computed(eq.expression, values, s, sources) if reached else unknown()
        return None
    into = tree.args.get("into") if isinstance(tree, exp.Select) else None
    if not isinstance(tree, exp.Select) or not isinstance(into, exp.Into):
        return None
    targets = [into.this, *(into.expressions or ())] if into.this is not None else list(into.expressions or ())
    mine = [t.name.lower() if isinstance(t, exp.Column) and not t.table and t.name.lower() in names else None
            for t in targets]
    query = tree.copy()
    query.set("into", None)
    got = select_rows(bind_user_vars(substitute(query, values), s), sources) if reached else None
    if got is not None and len(got[1]) > 1:
        return ER_TOO_MANY_ROWS
    if got is None or any(len(r) != len(targets) for r in got[1]):
        for name in mine:
            if name is not None:
                values[name] = unknown()
        return None
    if not got[1]:
        return ER_SP_FETCH_NO_DATA  # no row: left as they were (a NOT FOUND handler may run: calls.py)
    for name, v in zip(mine, got[1][0], strict=False):
        if name is not None:
            values[name] = as_expression(v)
    return None


def _computed(e: exp.Expression, values: Locals, s: SessionState,
              sources: Callable[[str], Source | None]) -> exp.Expression:
    try:
        return as_expression(value(resolved(bind_user_vars(substitute(e, values), s), sources), {}))
    except CannotEvaluate:
        return unknown()
