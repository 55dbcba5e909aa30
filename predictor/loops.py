"""Counted loops in procedure bodies: run their statements as many times as the CALL's arguments say.

A loop is counted when a local variable is compared with a bound in the loop's test, the loop's last
statement is ``SET var = var + step`` (a positive constant), the variable starts from its DEFAULT or from
a ``SET var = start`` right before the loop, nothing else assigns it and no LEAVE / ITERATE can cut a pass
short::

    DECLARE i INT DEFAULT 0;
    WHILE i < times DO ... SET i = i + 1; END WHILE;      -- or REPEAT ... SET i = i + 1; UNTIL i >= times

    WHILE r < rows DO                                     -- loops nest: the inner one restarts each pass
      SET s = 1; WHILE s <= seats DO ... SET s = s + 1; END WHILE;
      SET r = r + 1;
    END WHILE;

At CALL time the bound is bound to the arguments; when it is a constant the passes are simulated (each
pass sees the counter's value).

A cursor loop is one whose first statement FETCHes a cursor (the NOT FOUND handler ends it)::

    DECLARE c CURSOR FOR SELECT id, qty FROM t WHERE ...;
    OPEN c;
    l: LOOP FETCH c INTO v_id, v_qty; IF done THEN LEAVE l; END IF; ... END LOOP;

When the data model follows the tables the cursor's SELECT reads, it runs once per row, with the fetched
values bound. Any other WHILE / REPEAT / LOOP (``REPEAT DELETE ... LIMIT n; SET v = ROW_COUNT(); UNTIL v < n``)
runs pass by pass while its test, on the values the passes leave, says to go on (``Conditional``). A bound,
cursor or test the model cannot evaluate makes a loop run once, the variables it assigns unknown after it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from predictor import nodes
from predictor.dialect import RplayMySQL
from predictor.evaluate import CannotEvaluate, Value, value
from predictor.parse import parse
from predictor.routines import Bindings, as_expression, assignments, bind, no_data, substitute

MAX_PASSES = 1000  # beyond this a loop is predicted as one pass (the record would be the same; groups not)
MAX_CONDITIONAL_PASSES = 100  # a Conditional loop run this often: its test is taken as not followed

_OPS: dict[type[exp.Binary], str] = {exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">=", exp.NEQ: "<>",
                                     exp.EQ: "="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "<>": "<>", "=": "="}
_TESTS: dict[str, Callable[[int, int], bool]] = {"<": operator.lt, "<=": operator.le, ">": operator.gt,
                                                 ">=": operator.ge, "<>": operator.ne, "=": operator.eq}


Rows = Callable[[str], list[list[Value]] | None]  # a SELECT's rows as the data model follows them, or None


@dataclass(frozen=True)
class Loop:
    """A counted loop: ``var op bound`` keeps a WHILE going or ends a REPEAT."""

    position: int  # the loop's place in the body: tells two loops over one counter apart
    var: str  # lower-case counter name
    start: str  # SQL of the counter's DEFAULT
    op: str  # the comparison, counter on the left
    bound: str  # SQL of the other side
    step: int
    repeat: bool  # REPEAT ... UNTIL: the test comes after the pass and ends the loop

    def each(self, bindings: Bindings, rows: Rows) -> list[Bindings] | None:
        """The bindings of each pass (the counter's value put in), None when not known."""
        passes = self.passes(bindings)
        return None if passes is None else [{**bindings, self.var: exp.Literal.number(c)} for c in passes]

    def passes(self, bindings: Bindings) -> list[int] | None:
        """The counter's value in each pass, or None when the bound is not known (or too large)."""
        start, bound = _number(self.start, bindings), _number(self.bound, bindings)
        if start is None or bound is None:
            return None
        test = _TESTS[self.op]
        out: list[int] = []
        counter = start
        while len(out) <= MAX_PASSES:
            if not self.repeat and not test(counter, bound):
                return out
            out.append(counter)
            counter += self.step
            if self.repeat and test(counter, bound):
                return out
        return None


@dataclass(frozen=True)
class CursorLoop:
    """A loop over the rows of a cursor: one pass per row, the FETCH targets bound to the row's values."""

    position: int
    query: str  # SQL of the cursor's SELECT
    targets: tuple[str, ...]  # lower-case variables FETCH assigns, in order

    def each(self, bindings: Bindings, rows: Rows) -> list[Bindings] | None:
        text = bind(self.query, bindings)
        got = rows(text) if text is not None else None
        if got is None or len(got) > MAX_PASSES or any(len(r) != len(self.targets) for r in got):
            return None
        return [{**bindings, **{t: as_expression(v) for t, v in zip(self.targets, row, strict=True)}} for row in got]


@dataclass(frozen=True)
class Conditional:
    """Any other WHILE / REPEAT, or a LOOP a LEAVE ends: its passes are not known ahead; the CALL runs them one
    by one while the test, on the values the passes left (ROW_COUNT() too), says to go on (calls.py)."""

    position: int
    test: str | None  # SQL of the WHILE / UNTIL condition; None: a LOOP (only a LEAVE ends it)
    repeat: bool  # REPEAT ... UNTIL: the test comes after the pass and ends the loop

    def each(self, bindings: Bindings, rows: Rows) -> list[Bindings] | None:
        return None  # not known ahead


AnyLoop = Loop | CursorLoop | Conditional  # a loop a CALL unrolls (StatementInfo.loops)


def conditional_loop(node: exp.Expression, position: int) -> Conditional | None:
    """``node`` as a loop run pass by pass (an ITERATE, which cuts a pass short, is not followed)."""
    body = node.args.get("body")
    if not isinstance(body, exp.Block) or any(isinstance(n, exp.Iterate) for n in body.walk()):
        return None
    if isinstance(node, exp.WhileBlock) and isinstance(node.this, exp.Expression):
        return Conditional(position, node.this.sql(dialect=RplayMySQL), False)
    until = node.args.get("until")
    if isinstance(node, exp.RepeatBlock) and isinstance(until, exp.Expression):
        return Conditional(position, until.sql(dialect=RplayMySQL), True)
    if isinstance(node, exp.LoopBlock) and any(isinstance(n, exp.Leave) for n in body.walk()):
        return Conditional(position, None, False)
    return None


def cursor_loop(node: exp.Expression, root: exp.Expression, position: int) -> CursorLoop | None:
    """``node`` (a LOOP, WHILE or REPEAT of the body ``root``) as a loop over a cursor, or None."""
    if not isinstance(node, exp.LoopBlock | exp.WhileBlock | exp.RepeatBlock):
        return None
    body = node.args.get("body")
    first = body.expressions[0] if isinstance(body, exp.Block) and body.expressions else None
    if not isinstance(first, nodes.CursorOp) or str(first.args.get("kind")).upper() != "FETCH":
        return None
    name = first.name.lower()
    query = next((d.expression for d in root.find_all(nodes.DeclareCursor) if d.name.lower() == name), None)
    handled = any(no_data(c) for h in root.find_all(nodes.DeclareHandler) for c in h.args.get("conditions") or ())
    if not isinstance(query, exp.Expression) or not handled:
        return None
    targets = tuple(t.name.lower() for t in first.expressions or () if isinstance(t, exp.Expression))
    return CursorLoop(position, query.sql(dialect=RplayMySQL), targets)


def counted_loop(node: exp.Expression, root: exp.Expression, position: int,
                 before: exp.Expression | None = None) -> Loop | None:
    """``node`` (a WHILE or REPEAT of the body ``root``; ``before``: the statement before it in its block)
    as a counted loop, or None."""
    if isinstance(node, exp.WhileBlock):
        test, repeat = node.this, False
    elif isinstance(node, exp.RepeatBlock):
        test, repeat = node.args.get("until"), True
    else:
        return None
    body = node.args.get("body")
    if not isinstance(test, exp.Binary) or type(test) not in _OPS or not isinstance(body, exp.Block) \
            or not body.expressions:
        return None
    if any(isinstance(n, exp.Leave | exp.Iterate) for n in body.walk()):
        return None
    op = _OPS[type(test)]
    for counter, bound, cmp in ((test.this, test.expression, op), (test.expression, test.this, _FLIP[op])):
        if not _is_local(counter):
            continue
        var = counter.name.lower()
        step = _step(body.expressions[-1], var)
        if step is None or any(_is_local(n) and n.name.lower() == var for n in bound.walk()):
            continue
        reset = _reset(before, var)
        start = reset if reset is not None else _default(root, var)
        if start is None or assignments(root).count(var) != (1 if reset is None else 2):
            return None
        return Loop(position, var, start, cmp, bound.sql(dialect=RplayMySQL), step, repeat)
    return None


def _is_local(e: object) -> bool:
    return isinstance(e, exp.Column) and not e.table


def _assigned_to(statement: exp.Expression | None, var: str) -> exp.Expression | None:
    """``e`` when ``statement`` is ``SET var = e`` (one assignment, to the local ``var``), else None."""
    if not isinstance(statement, exp.Set) or len(statement.expressions) != 1:
        return None
    eq = statement.expressions[0].this
    if not (isinstance(eq, exp.EQ) and _is_local(eq.this) and eq.this.name.lower() == var):
        return None
    return eq.expression if isinstance(eq.expression, exp.Expression) else None


def _step(statement: exp.Expression, var: str) -> int | None:
    """``SET var = var + k`` (or ``k + var``) with a positive constant k: k."""
    add = _assigned_to(statement, var)
    if not isinstance(add, exp.Add):
        return None
    for counter, k in ((add.this, add.expression), (add.expression, add.this)):
        if _is_local(counter) and counter.name.lower() == var and isinstance(k, exp.Literal) and k.is_int:
            step = int(k.this)
            return step if step > 0 else None
    return None


def _reset(statement: exp.Expression | None, var: str) -> str | None:
    """The SQL of ``start`` when ``statement`` is ``SET var = start`` (start not reading var), else None."""
    start = _assigned_to(statement, var)
    if start is None or any(_is_local(n) and n.name.lower() == var for n in start.walk()):
        return None
    return str(start.sql(dialect=RplayMySQL))


def _default(root: exp.Expression, var: str) -> str | None:
    """The SQL of ``var``'s DEFAULT (NULL without one); None when ``var`` is not a local variable."""
    for item in root.find_all(exp.DeclareItem):
        names = item.this if isinstance(item.this, list) else [item.this]
        if any(isinstance(n, exp.Expression) and n.name.lower() == var for n in names):
            default = item.args.get("default")
            return default.sql(dialect=RplayMySQL) if isinstance(default, exp.Expression) else "NULL"
    return None


def _number(sql: str, bindings: Bindings) -> int | None:
    tree = parse(f"SELECT {sql}")
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1:
        return None
    try:
        v = value(substitute(tree.expressions[0], bindings), {})
    except CannotEvaluate:
        return None
    return v if isinstance(v, int) else None
