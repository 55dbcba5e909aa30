"""CALL's arguments put into a procedure's body statements, so the data model follows the rows it writes.

A body statement is kept as text (``StatementInfo.text``); at CALL time its parameters and local
variables become the values they surely have: an IN argument that is a constant expression, a
variable's DEFAULT. A local variable the body assigns only by SET and SELECT ... INTO outside loops and
handlers takes each value in turn as the CALL runs (predictor/localvars.py). Any other name the body
assigns (FETCH ... INTO, an argument of a nested CALL, inside a loop) or an OUT parameter is unknown for
the whole body (a counted loop's counter is bound per pass, predictor/loops.py). Unknown values are
``RPLAY_UNKNOWN()``, a function the evaluator cannot know.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import lru_cache

from sqlglot import exp

from predictor import nodes
from predictor.dialect import RplayMySQL
from predictor.evaluate import FITS_NAME, UNKNOWN_NAME, Fresh, known
from predictor.moments import Moment
from predictor.parse import parse
from predictor.values import Cased, JsonText, Recased, double_sql

Bindings = Mapping[str, exp.Expression]  # lower-case name -> its value as an expression



@dataclass(frozen=True)
class Signature:
    """What CALL needs to bind a procedure body: parameters, local variables, and what the body assigns."""

    params: tuple[tuple[str, str], ...] = ()  # (lower-case name, IN | OUT | INOUT)
    variables: tuple[tuple[str, str | None], ...] = ()  # (lower-case name, DEFAULT as SQL or None)
    assigned: frozenset[str] = frozenset()
    sequential: frozenset[str] = frozenset()  # locals only SET / SELECT ... INTO outside loops and handlers
    catches: bool = False  # a handler for errors: a SIGNAL or failing statement may not end the CALL
    handlers: tuple[Handler, ...] = ()  # the body's top-level error handlers the CALL runs (predictor/calls.py)
    not_found: tuple[tuple[str, str], ...] = ()  # (variable, value SQL) a top-level CONTINUE HANDLER FOR NOT
    #   FOUND sets when a SELECT ... INTO finds no row, in a body without cursors (calls.py runs them)
    passed: tuple[Passed, ...] = ()  # the names in a nested CALL's arguments (settled() frees the IN ones)
    block_not_found: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # (SELECT ... INTO text, its
    #   nested block's CONTINUE HANDLER FOR NOT FOUND sets): run instead of ``not_found`` for that SELECT
    caught: frozenset[str] | None = None  # the SQLSTATE values and error numbers the error handlers name, when
    #   that is all they name (None: one catches SQLEXCEPTION or a named condition too)

    def may_catch(self, state: str | None, code: int) -> bool:
        """Whether some handler may catch a SIGNAL of SQLSTATE ``state`` and error ``code`` (a handler FOR
        SQLSTATE '23000' does not catch SIGNAL SQLSTATE '45000': mes_factory_app's sp_record_inspection)."""
        if not self.catches or self.caught is None:
            return self.catches
        return str(code) in self.caught or (state is not None and state in self.caught)

    def handler_for(self, code: int, catchers: Sequence[int] = ()) -> Handler | None:
        """The handler that catches error ``code`` of a statement in the nested blocks whose handlers are
        ``catchers`` (StatementInfo.catchers), if the body has one the CALL can run: the innermost block's
        first, then the body's; in one block, one naming the error wins over SQLEXCEPTION, as on the servers."""
        scopes = [[h for h in self.handlers if h.scoped and h.position == k] for k in reversed(catchers)]
        for here in (*scopes, [h for h in self.handlers if not h.scoped]):
            named = next((h for h in here if h.codes is not None and code in h.codes), None)
            found = named or next((h for h in here if h.codes is None), None)
            if found is not None:
                return found
        return None

    def settled(self, modes: Callable[[str], Sequence[str] | None]) -> Signature:
        """This signature once the procedures the body CALLs are known (``modes``: a procedure's parameter
        modes, None when there is no such procedure): a name passed only as IN arguments is not assigned
        by the nested CALL (``CALL sp_dispense(v_rx, v_qty, p_rph, ...)`` in a loop: pharmacy_chain_app); a
        name passed itself as an OUT / INOUT argument, by a CALL not repeated, is followed: it takes the value
        the nested CALL left in the parameter (calls.py; loan_servicing_app's ``CALL sp_next_doc_no('JRNL',
        v_no)``)."""
        if not self.passed:
            return self
        free = {x.name for x in self.passed}
        returned = {x.name for x in self.passed if x.followed}
        for x in self.passed:
            got = modes(x.procedure)
            mode = got[x.position] if got is not None and x.position < len(got) else None
            if mode != "IN":
                free.discard(x.name)
            if mode is None or (mode != "IN" and (not x.bare or x.repeated)):
                returned.discard(x.name)
        returned -= free
        if not free and not returned:
            return self
        unassigned = {x.name for x in self.passed if x.name in free and not x.assigned}
        followed = {x.name for x in self.passed if x.name in free and x.followed}
        return replace(self, assigned=self.assigned - unassigned, sequential=self.sequential | followed | returned,
                       passed=())


@dataclass(frozen=True)
class Passed:
    """A name in an argument of a nested CALL: assigned (and not followed) by it unless that parameter is
    IN, which only the procedure, created later perhaps, tells (Signature.settled)."""

    procedure: str
    position: int
    name: str
    assigned: bool  # the body assigns it elsewhere too
    followed: bool  # and follows it there (or never assigns it elsewhere)
    bare: bool = False  # the argument is the name itself (an OUT / INOUT parameter's value comes back to it)
    repeated: bool = False  # the CALL may run any number of times the CALL of the body does not follow


@dataclass(frozen=True)
class Handler:
    """``DECLARE EXIT | CONTINUE HANDLER FOR SQLEXCEPTION | error numbers`` at the body's top level, or a
    CONTINUE one in a nested BEGIN ... END: on an error it catches the CALL runs its statements (``ROLLBACK``,
    ``SET p_outcome = ...``); after an EXIT handler the CALL ends, failing again with the error when the
    handler ends with ``RESIGNAL``; after a CONTINUE one it goes on with the statement after the one that
    failed. Other handlers (SQLSTATE values, names, an EXIT one in a nested block, a CONTINUE one that
    SIGNALs) are not run: an error ends the CALL there."""

    position: int  # its order among the body's handlers: StatementInfo.handler of its statements
    codes: frozenset[int] | None  # None: every error (SQLEXCEPTION)
    resignals: bool
    exits: bool = True
    scoped: bool = False  # declared in a nested block: it catches the errors of that block's statements only
    #   (StatementInfo.catchers; loan_servicing_app's lockbox posts each line, recording the ones that fail)


def signature(tree: exp.Expression) -> Signature:
    """The signature of a CREATE PROCEDURE / FUNCTION tree."""
    params = tuple((p.name.lower(), str(p.args.get("mode") or "IN").upper())
                   for p in tree.args.get("params") or () if isinstance(p, nodes.RoutineParam))
    variables: list[tuple[str, str | None]] = []
    for d in tree.find_all(exp.Declare):
        for item in d.expressions:
            if isinstance(item, exp.DeclareItem):
                default = item.args.get("default")
                text = default.sql(dialect=RplayMySQL) if isinstance(default, exp.Expression) else None
                variables += [(n.name.lower(), text) for n in _names(item.this)]
    named = {name for name, _ in variables} | {name for name, _ in params}
    catches = any(not no_data(c) for h in tree.find_all(nodes.DeclareHandler) for c in h.args.get("conditions") or ())
    body = tree.args.get("body")
    declared = list(tree.find_all(nodes.DeclareHandler, bfs=False))
    runs = [(h, x) for k, h in enumerate(declared) if (x := _error_handler(h, k, body)) is not None]
    found = _not_found_handlers(tree, body, named)
    not_found = tuple((e.this.name.lower(), e.expression.sql(dialect=RplayMySQL))
                      for h in found for e in _not_found_sets(h, named) or ())
    inner = _block_not_found_handlers(tree, body, named)
    block_not_found = tuple((select.sql(dialect=RplayMySQL), tuple(
        (e.this.name.lower(), e.expression.sql(dialect=RplayMySQL)) for e in _not_found_sets(h, named) or ()))
        for h in inner for select in _selects_into(h))
    followed = {id(h) for h in found} | {id(h) for h, x in runs if not x.exits} | {id(h) for h in inner}
    unfollowed = _unfollowed(tree, followed)
    assigned = frozenset(assignments(tree))
    unfollowed_elsewhere = _unfollowed(tree, followed, calls=False)
    assigned_elsewhere = set(assignments(tree, calls=False))
    passed = tuple(Passed(c.this.name.lower(), k, n.name.lower(), n.name.lower() in assigned_elsewhere,
                          n.name.lower() not in unfollowed_elsewhere, bare(arg) == n.name.lower(), _repeated(c))
                   for c in tree.find_all(nodes.Call) for k, arg in enumerate(c.expressions)
                   for n in arg.find_all(exp.Identifier) if n.name.lower() in named)
    return Signature(params, tuple(variables), assigned, frozenset(named - unfollowed), catches,
                     tuple(x for _, x in runs), not_found, passed, block_not_found=block_not_found,
                     caught=_caught(tree))


def bare(arg: exp.Expression) -> str | None:
    """The local variable an argument is, when it is only that (``v_no``), lower case."""
    return arg.name.lower() if isinstance(arg, exp.Column) and not arg.table else None


def _caught(tree: exp.Expression) -> frozenset[str] | None:
    """The SQLSTATE values and error numbers the body's error handlers name; None when one names SQLEXCEPTION
    or a condition name."""
    out: set[str] = set()
    for h in tree.find_all(nodes.DeclareHandler):
        for c in h.args.get("conditions") or ():
            if no_data(c) or (isinstance(c, exp.Var) and c.name.upper() == "SQLWARNING"):
                continue
            if isinstance(c, exp.Literal) and c.is_int:
                out.add(str(c.this))
            elif isinstance(c, exp.Tuple) and isinstance(c.expressions[-1], exp.Literal):
                out.add(str(c.expressions[-1].this))
            else:
                return None
    return frozenset(out)


def signal_state(text: str) -> str | None:
    """The SQLSTATE a SIGNAL statement names, if it names one."""
    tree = parse(text)
    state = tree.this if isinstance(tree, nodes.Signal) else None
    return str(state.this) if isinstance(state, exp.Literal) else None


def _block_not_found_handlers(tree: exp.Expression, body: object,
                              named: set[str]) -> list[nodes.DeclareHandler]:
    """``CONTINUE HANDLER FOR NOT FOUND SET v = ...`` declared in a nested BEGIN ... END without a FETCH: it
    runs only when a SELECT ... INTO of its block finds no row (telecom_mvno_app's sp_rate_cdrs looks up
    the bundle to draw on, inside its cursor loop)."""
    return [h for h in tree.find_all(nodes.DeclareHandler)
            if isinstance(h.parent, exp.Block) and h.parent is not body and _not_found_sets(h, named)
            and not any(True for _ in h.parent.find_all(nodes.CursorOp))
            and not any(isinstance(x, nodes.DeclareHandler) and x is not h for x in h.parent.expressions)]


def _selects_into(h: nodes.DeclareHandler) -> list[exp.Select]:
    """The SELECT ... INTO statements of a handler's block."""
    block = h.parent
    return [x for x in block.find_all(exp.Select) if isinstance(x.args.get("into"), exp.Into)
            and x.find_ancestor(nodes.DeclareHandler) is None] if isinstance(block, exp.Block) else []


def _not_found_handlers(tree: exp.Expression, body: object, named: set[str]) -> list[nodes.DeclareHandler]:
    """The body's top-level ``CONTINUE HANDLER FOR NOT FOUND SET v = ...`` (Signature.not_found); none when
    the body has cursors (their FETCH runs it too, at the loop's end)."""
    if any(True for _ in tree.find_all(nodes.DeclareCursor)):
        return []
    return [h for h in tree.find_all(nodes.DeclareHandler) if h.parent is body and _not_found_sets(h, named)]


def _error_handler(h: nodes.DeclareHandler, position: int, body: object) -> Handler | None:
    """``h`` as a Handler the CALL can run, or None (see Handler)."""
    action = str(h.args.get("action") or "").upper()
    scoped = h.parent is not body
    if action not in ("EXIT", "CONTINUE") or (scoped and (action == "EXIT" or not isinstance(h.parent, exp.Block))):
        return None
    codes: set[int] = set()
    every = False
    for c in h.args.get("conditions") or ():
        if isinstance(c, exp.Var) and c.name.upper() == "SQLEXCEPTION":
            every = True
        elif isinstance(c, exp.Literal) and c.is_int:
            codes.add(int(c.this))
        else:
            return None
    stmt = h.args.get("body")
    steps = stmt.expressions if isinstance(stmt, exp.Block) else [stmt]
    signals = list(stmt.find_all(nodes.Signal)) if isinstance(stmt, exp.Expression) else []
    last = steps[-1] if steps else None
    resignals = (isinstance(last, nodes.Signal) and str(last.args.get("kind")).upper() == "RESIGNAL"
                 and not last.args.get("this"))
    if signals and not (resignals and signals == [last] and action == "EXIT"):
        return None  # a SIGNAL of its own, or a RESIGNAL not at the end of an EXIT handler: not followed
    return Handler(position, None if every else frozenset(codes), resignals, action == "EXIT", scoped)


def no_data(condition: object) -> bool:
    """NOT FOUND or SQLSTATE '02...': a handler that only ends a cursor loop."""
    if isinstance(condition, exp.Var):
        return condition.name.upper() == "NOT FOUND"
    if isinstance(condition, exp.Tuple):
        return any(isinstance(e, exp.Literal) and str(e.this).startswith("02") for e in condition.expressions)
    return False


_REPEATED = (exp.WhileBlock, exp.RepeatBlock, exp.LoopBlock, nodes.DeclareHandler)


def _unfollowed(tree: exp.Expression, followed: Collection[int] = (), calls: bool = True) -> set[str]:
    """Names a body assigns where a CALL cannot take the assignments in order: inside a loop or a CONTINUE
    handler (run any number of times; not the ``followed`` NOT FOUND handlers, by id: calls.py runs them),
    by FETCH or a nested CALL's arguments. An EXIT handler runs once, at the end (calls.py runs it):
    ``SET p_id = NULL`` there leaves ``SET p_id = LAST_INSERT_ID()`` followed."""
    out: set[str] = set()
    for item in tree.find_all(exp.SetItem):
        target = item.this.this if isinstance(item.this, exp.EQ) else None
        if isinstance(target, exp.Column) and not target.table and _repeated(item) \
                and id(item.find_ancestor(nodes.DeclareHandler)) not in followed:
            out.add(target.name.lower())
    for node in (*tree.find_all(exp.Into), *tree.find_all(nodes.CursorOp),
                 *(tree.find_all(nodes.Call) if calls else ()), *tree.find_all(nodes.GetDiagnostics)):
        if isinstance(node, exp.Into) and not _repeated(node):
            continue
        parts = node.expressions if node.expressions else [node.this]
        out.update(n.name.lower() for part in parts if isinstance(part, exp.Expression)
                   for n in part.find_all(exp.Identifier))
    return out


def _repeated(node: exp.Expression) -> bool:
    """Whether ``node`` may run any number of times the CALL does not follow: in a handler other than an EXIT
    one, or a loop the CALL does not unroll (a counted or cursor loop it does: calls.py carries the values
    from pass to pass, and makes them unknown when the passes are not known)."""
    at = node.find_ancestor(*_REPEATED)
    while at is not None:
        if isinstance(at, nodes.DeclareHandler):
            if str(at.args.get("action") or "").upper() != "EXIT":
                return True
        elif not _unrolled(at):
            return True
        at = at.find_ancestor(*_REPEATED)
    return False


def _unrolled(loop: exp.Expression) -> bool:
    from predictor.loops import conditional_loop, counted_loop, cursor_loop  # loops.py builds on this module

    root = loop.root()
    assert isinstance(root, exp.Expression)
    block = loop.parent
    siblings = block.expressions if isinstance(block, exp.Block) else []
    at = next((k for k, x in enumerate(siblings) if x is loop), None)
    before = siblings[at - 1] if at else None
    return counted_loop(loop, root, 0, before) is not None or cursor_loop(loop, root, 0) is not None \
        or conditional_loop(loop, 0) is not None


def assignments(tree: exp.Expression, calls: bool = True) -> list[str]:
    """The lower-case names a body assigns, once per assignment (SET, INTO, FETCH, a nested CALL's args)."""
    out: list[str] = []
    for item in tree.find_all(exp.SetItem):
        target = item.this.this if isinstance(item.this, exp.EQ) else None
        if isinstance(target, exp.Column) and not target.table:
            out.append(target.name.lower())
    for node in (*tree.find_all(exp.Into), *tree.find_all(nodes.CursorOp),
                 *(tree.find_all(nodes.Call) if calls else ()), *tree.find_all(nodes.GetDiagnostics)):
        parts = node.expressions if node.expressions else [node.this]
        if isinstance(node, nodes.GetDiagnostics):
            parts = [e.this for e in node.expressions if isinstance(e, exp.EQ)]
        for part in parts:
            if isinstance(part, exp.Expression):
                out += [n.name.lower() for n in part.find_all(exp.Identifier)]
    return out


def _names(node: object) -> list[exp.Expression]:
    if isinstance(node, list):
        return [n for n in node if isinstance(n, exp.Expression)]
    return [node] if isinstance(node, exp.Expression) else []


def call_bindings(call: str, sig: Signature, outer: Bindings | None = None) -> Bindings | None:
    """The values of ``sig``'s names for the CALL text ``call`` (already bound in its caller), or None."""
    tree = parse(call)
    if not isinstance(tree, nodes.Call):
        return None
    args = list(tree.expressions)
    if len(args) != len(sig.params):
        return None
    out: dict[str, exp.Expression] = {}
    for (name, mode), arg in zip(sig.params, args, strict=True):
        if mode == "OUT":
            out[name] = exp.Null()  # an OUT parameter starts NULL; assigned below if the body sets it
        else:
            value = substitute(arg, outer or {})
            out[name] = value if constant(value) else unknown()
    for name, default in sig.variables:
        value_tree = parse(f"SELECT {default}") if default is not None else None
        out[name] = (value_tree.expressions[0] if isinstance(value_tree, exp.Select) and
                     constant(value_tree.expressions[0]) else exp.Null() if default is None else unknown())
    for name in sig.assigned - sig.sequential:
        if name in out:
            out[name] = unknown()  # the sequential ones are reassigned as the CALL runs (predictor/calls.py)
    return out


def bind(text: str, bindings: Bindings) -> str | None:
    """``text`` with ``bindings``' names replaced by their values; None when it does not parse."""
    if not bindings:
        return text
    tree = parse(text)
    if not isinstance(tree, exp.Expression):
        return None
    return substitute(tree, bindings).sql(dialect=RplayMySQL)


def substitute(tree: exp.Expression, bindings: Bindings) -> exp.Expression:
    if not bindings:
        return tree
    tree = tree.copy()
    targets = {id(e.this) for node in (*tree.find_all(exp.Update), *tree.find_all(exp.OnConflict))
               for e in node.expressions if isinstance(e, exp.EQ)}  # SET col = ...: col is a column

    def swap(node: exp.Expression) -> exp.Expression:
        # ``SET a = b, c = 1``: sqlglot reads the bare ``b`` as a Var
        if (isinstance(node, exp.Column) and not node.table and id(node) not in targets) or (
                isinstance(node, exp.Var) and not isinstance(node.parent, exp.Interval | exp.DataType)):
            value = bindings.get(node.name.lower())
            if value is not None:
                return value.copy()
        return node

    return tree.transform(swap, copy=False)


def constant(e: exp.Expression) -> bool:
    """No column, variable or placeholder in it: the same value wherever the body uses it."""
    return not any(isinstance(n, exp.Column | exp.Parameter | exp.Placeholder | exp.SessionParameter)
                   for n in e.walk())


def as_expression(v: object) -> exp.Expression:
    """A computed value as an expression: a clock reading is kept as a value (an IF on it is decided), but
    the text of a statement it is bound into says it unknown (generator.known_sql)."""
    if isinstance(v, Moment | Fresh):  # (a UUID a trigger made: the same value, Fresh.said)
        return known(v)
    if v is None:
        return exp.Null()
    if isinstance(v, bool):
        return exp.Literal.number(int(v))
    if isinstance(v, int | Decimal):
        return exp.Literal.number(str(v) if isinstance(v, Decimal) else v)
    if isinstance(v, float):
        return exp.Literal.number(double_sql(v))
    if isinstance(v, JsonText):  # a document the model knows: read back as that document
        return unknown() if v.partial else exp.Cast(this=exp.Literal.string(str(v)),
                                                     to=exp.DataType.build("JSON"))
    if isinstance(v, Recased):
        return unknown()
    if isinstance(v, Cased):  # read back as the same string, its exact text kept
        return exp.Literal.string(v.exact if v.exact is not None else str(v))
    if type(v) is str:
        return exp.Literal.string(v)
    return unknown()


def unknown() -> exp.Expression:
    """A value the evaluator cannot know."""
    return exp.Anonymous(this=UNKNOWN_NAME)


_INTEGER_TYPES = frozenset({exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.MEDIUMINT,
                            exp.DataType.Type.INT, exp.DataType.Type.BIGINT, exp.DataType.Type.UTINYINT,
                            exp.DataType.Type.USMALLINT, exp.DataType.Type.UMEDIUMINT, exp.DataType.Type.UINT,
                            exp.DataType.Type.UBIGINT})


@lru_cache(maxsize=256)
def returned(text: str) -> tuple[tuple[str, ...], exp.Expression] | None:
    """(parameter names, expression) of a stored function the data model can inline: its body only RETURNs,
    maybe behind IFs (``IF p <= 0 THEN RETURN 0; END IF; RETURN p * 2``: an IF() expression). Integer and
    DECIMAL parameters and result only (a DECIMAL rounds to its scale on the way in and out, as the server
    converts it): other types convert in ways it does not follow (string truncation)."""
    tree = parse(text)
    if not isinstance(tree, nodes.CreateRoutine):
        return None
    body = tree.args.get("body")
    expr = _returning(body.expressions if isinstance(body, exp.Block) else [body])
    params = [x for x in tree.args.get("params") or () if isinstance(x, nodes.RoutineParam)]
    scales = [conversion(x.args.get("kind")) for x in params]
    result = conversion(tree.args.get("returns"))
    if expr is None or result is None or any(s is None for s in scales):
        return None
    names = tuple(x.name.lower() for x in params)
    converted = {n: sc(exp.column(n)) for n, sc in zip(names, scales, strict=True)
                 if sc is not None and sc is not _same}
    return names, result(substitute(expr, converted) if converted else expr)


def _returning(statements: Sequence[object], env: dict[str, exp.Expression] | None = None,
               scales: dict[str, Conversion] | None = None,
               missing: tuple[exp.EQ, ...] = ()) -> exp.Expression | None:
    """The value a function body returns as one expression, when it is only RETURNs and IFs around them, and
    local variables given by DECLARE ... DEFAULT, SET and ``SELECT c INTO v FROM ...`` (``env``: their values
    so far, as expressions; a SELECT ... INTO that finds no row leaves the variable as it was, and runs the
    ``missing`` SETs of a CONTINUE HANDLER FOR NOT FOUND)."""
    env, scales = ({} if env is None else env), ({} if scales is None else scales)
    if not statements:
        return None  # the body ends without RETURN (error 1321): not inlined
    first, rest = statements[0], list(statements[1:])
    if isinstance(first, exp.Return) and isinstance(first.this, exp.Expression):
        return substitute(first.this, env)
    if isinstance(first, nodes.Signal):  # the call fails there: no value (blood_bank_app's fn_shelf_expiry checks
        return unknown()  # its product code first; an IF the values decide false leaves the RETURN known)
    if isinstance(first, exp.Block):
        return _returning([*first.expressions, *rest], env, scales, missing)
    if isinstance(first, nodes.DeclareHandler):
        sets = _not_found_sets(first, env)
        return None if sets is None else _returning(rest, env, scales, sets)
    if isinstance(first, exp.CaseStatement):
        chain = if_chain(first)
        return None if chain is None else _returning([chain, *rest], env, scales, missing)
    if isinstance(first, exp.IfBlock) and isinstance(first.this, exp.Expression):
        branches = [first.args.get(k) for k in ("true", "false")]
        then, other = (_returning([*_block(b), *rest], dict(env), scales, missing) for b in branches)
        return exp.If(this=substitute(first.this, env), true=then, false=other) \
            if then is not None and other is not None else None
    if isinstance(first, exp.Declare):
        for item in first.expressions:
            scale = conversion(item.args.get("kind")) if isinstance(item, exp.DeclareItem) else None
            if scale is None:
                return None  # a type whose conversion is not followed
            scales = {**scales, **{n.name.lower(): scale for n in _names(item.this)}}
    assigned = _local_assignment(first, env, missing)
    if assigned is None:
        return None
    converted = {n: scales.get(n, _same)(e) for n, e in assigned.items()}
    return _returning(rest, {**env, **converted}, scales, missing)


def if_chain(case: exp.CaseStatement, need_else: bool = True) -> exp.IfBlock | None:
    """A CASE statement as the IF ... ELSEIF ... ELSE it means; None without ELSE when ``need_else`` (no WHEN
    matching is error 1339, not followed), else an empty ELSE."""
    default = case.args.get("default")
    if default is None and need_else:
        return None
    out: exp.Expression | None = default
    operand = case.this if isinstance(case.this, exp.Expression) else None
    for when in reversed(case.args.get("ifs") or []):
        test = when.this if operand is None else exp.EQ(this=operand.copy(), expression=when.this.copy())
        out = exp.IfBlock(this=test, true=when.args.get("true"), false=out)
    return out if isinstance(out, exp.IfBlock) else None


def _not_found_sets(handler: nodes.DeclareHandler, env: Collection[str]) -> tuple[exp.EQ, ...] | None:
    """The ``SET v = ...`` of a ``CONTINUE HANDLER FOR NOT FOUND`` (of local variables), else None."""
    conditions = handler.args.get("conditions") or []
    body = handler.args.get("body")
    if str(handler.args.get("action") or "").upper() != "CONTINUE" or len(conditions) != 1 \
            or not no_data(conditions[0]) or not isinstance(body, exp.Set):
        return None
    sets = [x.this for x in body.expressions if isinstance(x, exp.SetItem)]
    if not sets or not all(isinstance(e, exp.EQ) and isinstance(e.this, exp.Column) and not e.this.table
                           and e.this.name.lower() in env for e in sets):
        return None
    return tuple(e for e in sets if isinstance(e, exp.EQ))


def _local_assignment(node: object, env: dict[str, exp.Expression],
                      missing: tuple[exp.EQ, ...] = ()) -> dict[str, exp.Expression] | None:
    """The local variables ``node`` gives values (DECLARE, SET v = ..., SELECT c INTO v FROM ...), or None; the
    caller converts them to their declared types."""
    if isinstance(node, exp.Declare):
        out: dict[str, exp.Expression] = {}
        for item in node.expressions:
            if not isinstance(item, exp.DeclareItem):
                return None
            default = item.args.get("default")
            start = substitute(default, env) if isinstance(default, exp.Expression) else exp.Null()
            out.update({n.name.lower(): start for n in _names(item.this)})
        return out
    if isinstance(node, exp.Set):
        sets = [x.this for x in node.expressions if isinstance(x, exp.SetItem)]
        if not sets or not all(isinstance(e, exp.EQ) and isinstance(e.this, exp.Column) and not e.this.table
                               and e.this.name.lower() in env for e in sets):
            return None
        return {e.this.name.lower(): substitute(e.expression, env) for e in sets}
    into = node.args.get("into") if isinstance(node, exp.Select) else None
    if isinstance(node, exp.Select) and isinstance(into, exp.Into):
        targets = [into.this, *(into.expressions or ())] if into.this is not None else list(into.expressions or ())
        if len(targets) != len(node.expressions) or not all(
                isinstance(t, exp.Column) and not t.table and t.name.lower() in env for t in targets):
            return None
        query = substitute(node, env)
        query.set("into", None)
        # a row: its values; no row: the variables keep theirs (``DECLARE v DEFAULT 1000``), and the NOT
        # FOUND handler's SETs run
        unfound = {e.this.name.lower(): substitute(e.expression, env) for e in missing}
        out = {v: exp.If(this=exp.Exists(this=query.copy()), true=env[v], false=e) for v, e in unfound.items()}
        for k, target in enumerate(targets):
            name = target.name.lower()
            column = query.copy()
            column.set("expressions", [column.expressions[k]])
            out[name] = exp.If(this=exp.Exists(this=query.copy()), true=exp.Subquery(this=column),
                               false=unfound.get(name, env[name]))
        return out
    return None


def _block(node: object) -> list[exp.Expression]:
    if isinstance(node, exp.Block):
        return list(node.expressions)
    return [node] if isinstance(node, exp.Expression) else []


Conversion = Callable[[exp.Expression], exp.Expression]  # a value as a parameter / local / result type holds it


def _same(e: exp.Expression) -> exp.Expression:
    return e


def conversion(kind: object) -> Conversion | None:
    """How a parameter, local or result of type ``kind`` holds a value: an integer rounded (a DECIMAL half up,
    a DOUBLE half to even), a DOUBLE as a DOUBLE, a DECIMAL(p, s) rounded to s, a DATE as a datetime's day,
    a DATETIME as CAST(x AS DATETIME) does,
    a CHAR / VARCHAR(n) as it is when it fits (a longer string is unknown: truncated with a warning, or
    refused in strict mode), TEXT as it is; None for a type whose
    conversion is not followed."""
    if not isinstance(kind, exp.DataType):
        return None
    if kind.this is exp.DataType.Type.TEXT:
        return _same
    if kind.this in _INTEGER_TYPES or kind.this in (exp.DataType.Type.DOUBLE, exp.DataType.Type.BOOLEAN):
        to = exp.DataType.build("DOUBLE" if kind.this is exp.DataType.Type.DOUBLE else "BIGINT")
        return lambda e: exp.Cast(this=exp.Paren(this=e), to=to)
    if kind.this is exp.DataType.Type.DATE:
        return lambda e: exp.TsOrDsToDate(this=e)
    if kind.this is exp.DataType.Type.DATETIME and not kind.expressions:  # no fractional seconds to round
        return lambda e: exp.Cast(this=exp.Paren(this=e), to=exp.DataType.build("DATETIME"))
    if kind.this in (exp.DataType.Type.VARCHAR, exp.DataType.Type.CHAR):
        size = kind.expressions[0].this if kind.expressions else None
        width = int(size.this) if isinstance(size, exp.Literal) and size.is_int else 1 if not kind.expressions \
            else None
        return None if width is None else lambda e: exp.Anonymous(
            this=FITS_NAME, expressions=[exp.Paren(this=e), exp.Literal.number(width)])
    if kind.this is exp.DataType.Type.DECIMAL:
        digits = kind.expressions[1].this if len(kind.expressions) > 1 else None
        scale = int(digits.this) if isinstance(digits, exp.Literal) and digits.is_int else 0 if \
            len(kind.expressions) < 2 else None
        return None if scale is None else \
            lambda e: exp.Cast(this=exp.Paren(this=e), to=exp.DataType.build(f"DECIMAL(65, {scale})"))
    return None


def inline_functions(tree: exp.Expression, function: Callable[[str], str | None], depth: int = 0) -> exp.Expression:
    """``tree`` with calls of inlinable stored functions (``returned``) replaced by their RETURN expression
    over the call's arguments; ``function(name)`` gives a stored function's CREATE text, or None."""
    if depth > 8 or not any(isinstance(n, exp.Anonymous) for n in tree.walk()):
        return tree

    outer = _single_table(tree)

    def swap(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Anonymous):
            return node
        text = function(node.name)
        body = returned(text) if text else None
        if body is None or len(body[0]) != len(node.expressions):
            return node
        names, expr = body
        # a bare column of an argument is the row's of the query the call is in (INSERT ... SELECT f(code)
        # FROM procedure_codes: dental_group_app's plan items), else of the statement's one table
        scope = node.find_ancestor(exp.Select)
        own = _single_table(scope) if scope is not None else outer
        args = {n: exp.Paren(this=_qualified(a.copy(), own) if own and expr.find(exp.Query) else a.copy())
                for n, a in zip(names, node.expressions, strict=True)}
        inlined = substitute(_apart(expr, own) if own else expr, args)
        return exp.Paren(this=inline_functions(inlined, function, depth + 1))

    return tree.transform(swap)


def _single_table(tree: exp.Expression) -> str | None:
    """The alias of the one table an UPDATE / DELETE / SELECT reads its rows from, if it has one."""
    t = tree.this if isinstance(tree, exp.Update | exp.Delete) else None
    if isinstance(tree, exp.Select) and not tree.args.get("joins"):
        frm = tree.args.get("from_") or tree.args.get("from")
        t = frm.this if isinstance(frm, exp.From) else None
    if isinstance(tree, exp.Update | exp.Delete) and (tree.args.get("joins") or tree.args.get("using")
                                                      or tree.args.get("from")):
        return None
    return t.alias_or_name.lower() if isinstance(t, exp.Table) and not t.args.get("joins") else None


def _apart(expr: exp.Expression, outer: str) -> exp.Expression:
    """A function body whose subquery reads the outer row's table under its own name (``SELECT default_fee
    FROM codes WHERE code = p_code`` called from ``... FROM codes``): that table renamed, so the argument
    ``codes.code`` stays the outer row's (insert_select_function_column.sql)."""
    tables = [t for t in expr.find_all(exp.Table) if t.name.lower() == outer and not t.alias]
    if not tables or any(c.table.lower() == outer for c in expr.find_all(exp.Column)):
        return expr
    expr = expr.copy()
    for t in expr.find_all(exp.Table):
        if t.name.lower() == outer and not t.alias:
            t.set("alias", exp.TableAlias(this=exp.to_identifier(f"{outer}_inner")))
    return expr


def _qualified(arg: exp.Expression, table: str) -> exp.Expression:
    """An argument's bare columns named by their table: inlined into a function's subquery, ``seller_id``
    stays the outer row's (``SELECT bps FROM sellers WHERE id = items.seller_id``)."""
    for c in arg.find_all(exp.Column):
        if not c.table and not isinstance(c.this, exp.Star):
            c.set("table", exp.to_identifier(table))
    return arg
