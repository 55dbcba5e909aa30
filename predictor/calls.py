"""CALL: a procedure's body statements are decided and logged one by one under the CALL's record, with
the arguments bound, counted and cursor loops unrolled and IF branches the values rule out skipped."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from sqlglot import exp

from predictor import nodes
from predictor.analyze import CONDITION, HANDLER, Kind, StatementInfo
from predictor.binlog import Builder, ColumnOrder
from predictor.branches import Decided, holds, taken
from predictor.catalog import Routine
from predictor.codes import ER_SP_DOES_NOT_EXIST
from predictor.data import PARSES_PER_CALL
from predictor.decide import ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE, ER_UNSAFE_STATEMENT
from predictor.dialect import RplayMySQL
from predictor.evaluate import UNKNOWN, CannotEvaluate, Value, value
from predictor.localvars import assign
from predictor.loops import MAX_CONDITIONAL_PASSES, AnyLoop, Conditional, CursorLoop
from predictor.moments import Moment, calendar_day
from predictor.parse import parse
from predictor.query import select_rows
from predictor.routines import (
    Bindings,
    Handler,
    as_expression,
    assignments,
    bare,
    bind,
    call_bindings,
    constant,
    no_data,
    signal_state,
    unknown,
)
from predictor.rows import table_source
from predictor.session import SessionState
from predictor.unsafe import limited, read_unsafe, system_function
from predictor.variables import ER_SP_FETCH_NO_DATA

if TYPE_CHECKING:
    from predictor.engine import Predictor


def handle_call(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    routine = p.catalog.routine("PROCEDURE", info.name or "")
    if routine is None:
        b.error = ER_SP_DOES_NOT_EXIST
        return
    final: dict[str, exp.Expression] = {}
    try:
        unroll(p, b, routine, s, b.sql, None, depth=0, final=final)
    finally:
        s.force_row = False
        _set_outputs(b.sql, routine, s, final if b.error is None else {})
    if s.binlog_format == "STATEMENT" and 1592 in b.warnings:
        # the CALL reports what its statements were decided to be, when it ends: logged or not, failed or not
        # (sp_head::execute, issue_unsafe_warnings; handler_exit.sql)
        b.unsafe_noted = True


def _set_outputs(call: str, routine: Routine, s: SessionState, final: Bindings) -> None:
    """The user variables a CALL passes to OUT / INOUT parameters: the value the body left in the parameter
    when the data model followed it to the end (``final``), NULL when the body never assigns an OUT
    parameter (``CALL p(@n)`` then ``CONCAT('x', @n)``), else unknown."""
    tree = parse(call)
    if not isinstance(tree, nodes.Call):
        return
    sig = routine.signature
    for (name, mode), arg in zip(sig.params, tree.expressions, strict=False):
        if mode != "IN" and isinstance(arg, exp.Parameter):
            got = final.get(name)
            s.user_vars[arg.name.lower()] = None if mode == "OUT" and name not in sig.assigned else \
                _constant_value(got) if got is not None else UNKNOWN


def _constant_value(e: exp.Expression) -> Value:
    try:
        return value(e, {})
    except CannotEvaluate:
        return UNKNOWN


def unroll(p: Predictor, b: Builder, routine: Routine, s: SessionState, call: str, outer: Bindings | None,
            depth: int, final: dict[str, exp.Expression] | None = None) -> None:
    """CALL is unrolled: each statement of the body is decided and logged on its own, under the CALL, with
    the CALL's arguments in its text where the data model follows what it writes (predictor/routines.py);
    a counted loop's statements once per pass (predictor/loops.py). A workload's CALL parses from its own
    allowance (PARSES_PER_CALL), not from the data model's budget."""
    if depth > 0:
        _unroll(p, b, routine, s, call, outer, depth, final)
        return
    budget = p.data.parses_left
    p.data.parses_left = PARSES_PER_CALL
    try:
        _unroll(p, b, routine, s, call, outer, depth, final)
    finally:
        p.data.parses_left = budget


def _unroll(p: Predictor, b: Builder, routine: Routine, s: SessionState, call: str, outer: Bindings | None,
            depth: int, final: dict[str, exp.Expression] | None) -> None:
    routine = settled(p, routine)
    body = routine.body
    bound: dict[str, dict[str, exp.Expression]] = {}  # computed on first need: "" -> the CALL's bindings

    def bindings() -> dict[str, exp.Expression]:
        if "" not in bound:
            text = call if outer is not None else _with_user_vars(call, s, p.catalog.hidden_user_vars())
            got = call_bindings(text, routine.signature, outer) if p.data.may_parse() else None
            bound[""] = dict(got or {})  # the sequential locals change as the CALL runs (localvars.py)
        return bound[""]

    decided: Decided = {}  # each IF's truth where the CALL entered it (one inside a loop: in this pass)
    loose: set[int] = set()  # loops run pass by pass whose LEAVE a pass reached undecided
    try:
        ran = _passes(p, b, routine, s, body, 0, bindings, depth, decided, loose)
    except _Left:  # LEAVE of the body's label (analyze.RETURNS): the CALL ends here
        ran = True
    if not ran and b.error is not None:
        handler = routine.signature.handler_for(b.error)
        if handler is not None and handler.exits:
            _handle(p, b, routine, s, handler, bindings, depth, decided, loose)
    if final is not None and "" in bound:
        final.update(bound[""])  # the parameters' values where the CALL ended (OUT ones go to user variables)


def settled(p: Predictor, routine: Routine) -> Routine:
    """``routine`` with the parameter modes of the procedures it CALLs known (Signature.settled)."""
    def modes(name: str) -> tuple[str, ...] | None:
        r = p.catalog.routine("PROCEDURE", name)
        return None if r is None else tuple(mode for _, mode in r.signature.params)

    sig = routine.signature.settled(modes)
    return routine if sig is routine.signature else replace(routine, signature=sig)


def _handle(p: Predictor, b: Builder, routine: Routine, s: SessionState, handler: Handler,
            bindings: Callable[[], Bindings], depth: int, decided: Decided, loose: set[int]) -> bool:
    """A handler caught the CALL's error: its statements run; after an EXIT handler the CALL ends, failing
    again with the error when the handler RESIGNALs (handler_exit.sql); after a CONTINUE one the CALL goes
    on (handler_continue.sql). False when the error stays the CALL's."""
    error = b.error
    b.error = None
    steps = tuple(replace(x, guards=tuple(g for g in x.guards if g != HANDLER))
                  for x in routine.body if x.handler == handler.position)
    bare = replace(routine, signature=replace(routine.signature, handlers=()))  # a handler does not catch its own
    if not _run(p, b, bare, s, steps, bindings, depth, decided, loose):
        return False  # an error in the handler is the CALL's
    if handler.resignals:
        b.error = error
        return False
    if p.profile.ROUTINE_ERROR_NOTE:
        b.warnings.discard(p.profile.ROUTINE_ERROR_NOTE)
    return True


def _continues(p: Predictor, b: Builder, routine: Routine, s: SessionState, bindings: Callable[[], Bindings],
               depth: int, decided: Decided, loose: set[int], failed: StatementInfo) -> bool:
    """The CALL's error ``b.error``, of statement ``failed``, is caught by a CONTINUE handler, which ran: the
    CALL goes on."""
    handler = routine.signature.handler_for(b.error, failed.catchers) if b.error is not None else None
    if handler is None or handler.exits:
        return False
    return _handle(p, b, routine, s, handler, bindings, depth, decided, loose)


def _passes(p: Predictor, b: Builder, routine: Routine, s: SessionState, body: tuple[StatementInfo, ...],
            level: int, bindings: Callable[[], Bindings], depth: int, decided: Decided, loose: set[int]) -> bool:
    """Run ``body`` (statements inside ``level`` counted loops already bound): each run of statements in
    one more loop once per pass of that loop; False when a statement failed (the CALL ends). An IF inside
    the loop is decided again in each pass; one around it stays decided."""
    i = 0
    while i < len(body):
        loop = body[i].loops[level] if len(body[i].loops) > level else None
        j = i + 1
        while j < len(body) and (body[j].loops[level] if len(body[j].loops) > level else None) == loop:
            j += 1
        if loop is None:
            if not _run(p, b, routine, s, body[i:j], bindings, depth, decided, loose):
                return False
        elif not _loop(p, b, routine, s, loop, body[i:j], level, bindings, depth, decided, loose):
            return False
        i = j
    return True


_STEPS = itertools.count(1)  # Piece.step of the statements a CALL's body runs


class _Left(Exception):
    """A LEAVE the CALL surely reaches: the loop at ``position`` ends."""

    def __init__(self, position: int) -> None:
        super().__init__(position)
        self.position = position


def _loop(p: Predictor, b: Builder, routine: Routine, s: SessionState, loop: AnyLoop,
          body: tuple[StatementInfo, ...], level: int, bindings: Callable[[], Bindings], depth: int,
          decided: Decided, loose: set[int]) -> bool:
    """One loop: its statements once per pass, the counter or the fetched row put in; the variables its
    statements assign carry from one pass to the next, and a LEAVE the values decide ends it. A Conditional
    loop runs while its test says so (``_conditional``). When the passes are not known it runs once, its
    variables unknown before and after (their values depend on how many passes ran)."""
    got = bindings()
    state = got if isinstance(got, dict) else dict(got)  # the CALL's own dict: what the passes assign stays
    run = _Pass(p, b, routine, s, body, level, state, depth, decided, loose)
    if isinstance(loop, Conditional):
        ran = _conditional(run, loop)
        if ran is not None:
            return ran
    start = dict(state)
    passes = loop.each(start, lambda sql: _rows(p, s, sql))
    if passes is None:
        run.forget()
    elif isinstance(loop, CursorLoop):
        # each pass binds the row it fetched: a SET of a fetched variable later in the pass is followed
        # (mes_factory_app's sp_reserve_material draws v_need down in an inner WHILE)
        sig = routine.signature
        run.routine = replace(routine, signature=replace(sig, sequential=sig.sequential | frozenset(loop.targets)))
    try:
        for values in passes if passes is not None else [start]:
            state.update({k: v for k, v in values.items() if start.get(k) is not v})  # the counter, the row
            if not run():
                return False
    except _Left as left:
        if left.position != loop.position:
            raise  # it ends an outer loop
    if passes is None:
        run.forget()
    return True


class _Pass:
    """One pass of a loop's statements over the CALL's values ``state`` (what the pass assigns stays in it);
    the IFs inside the loop are decided again in each pass."""

    def __init__(self, p: Predictor, b: Builder, routine: Routine, s: SessionState,
                 body: tuple[StatementInfo, ...], level: int, state: dict[str, exp.Expression], depth: int,
                 decided: Decided, loose: set[int]) -> None:
        self.p, self.b, self.routine, self.s, self.body, self.level = p, b, routine, s, body, level
        self.state, self.depth, self.decided, self.loose = state, depth, decided, loose
        self.inner = {g.at for x in body for g in x.guards if g.loops > level}

    def __call__(self) -> bool:
        for at in self.inner:
            self.decided.pop(at, None)
        return _passes(self.p, self.b, self.routine, self.s, self.body, self.level + 1, lambda: self.state,
                       self.depth, self.decided, self.loose)

    def forget(self) -> None:
        """The variables the loop's statements assign become unknown."""
        for name in _assigned_in(self.body) & self.state.keys():
            self.state[name] = unknown()


def _conditional(run: _Pass, loop: Conditional) -> bool | None:
    """A loop run pass by pass while its test (or, for a LOOP, no LEAVE) says to go on. None when its first
    test is not decided (the caller runs it once, as a loop whose passes are not known); a test or LEAVE not
    decided later, or a pass that changed no variable, ends the passes with the loop's variables unknown."""
    state = run.state
    passes = 0
    sure = True
    try:
        while True:
            if not loop.repeat and loop.test is not None:
                goes_on = holds(loop.test, state, run.s.rows_changed)
                if goes_on is None and passes == 0:
                    return None
                if goes_on is not True:
                    sure = goes_on is False
                    break
            if passes >= MAX_CONDITIONAL_PASSES:
                sure = False
                break
            before = dict(state)
            run.loose.discard(loop.position)
            if not run():
                return False
            passes += 1
            if loop.position in run.loose:  # a LEAVE the values did not decide: how many passes ran is not known
                sure = False
                break
            if loop.repeat and loop.test is not None:
                ends = holds(loop.test, state, run.s.rows_changed)
                if ends is not False:
                    sure = ends is True
                    break
            if state == before and not (loop.repeat and loop.test is not None):
                sure = False  # nothing the test reads changed (it reads what the model does not follow)
                break
    except _Left as left:
        if left.position != loop.position:
            raise  # it ends an outer loop
    if not sure:
        run.forget()
    return True


def _assigned_in(body: tuple[StatementInfo, ...]) -> set[str]:
    """The local variables the SET / SELECT ... INTO statements of ``body`` assign."""
    out: set[str] = set()
    for x in body:
        tree = parse(x.text) if x.text is not None and x.kind in (Kind.SET, Kind.SELECT) else None
        if isinstance(tree, exp.Expression):
            out.update(assignments(tree))
    return out


def _with_user_vars(call: str, s: SessionState, hidden: frozenset[str]) -> str:
    """The CALL with the session's known user variables as its arguments' values (``CALL p(@tenant)``); one
    the session never set, and no trigger or function sets (``hidden``), is NULL (telecom_mvno_app's
    charging session passing @sub_fatima, which another session set). A date a whole number of days from
    today passes as its text; another clock reading is unknown in a statement's text."""
    tree = parse(call)
    if not isinstance(tree, nodes.Call):
        return call

    def put(x: exp.Expression) -> exp.Expression:
        if not isinstance(x, exp.Parameter):
            return x
        name = x.name.lower()
        v = s.user_vars.get(name, UNKNOWN if name in hidden else None)
        day = calendar_day(v) if isinstance(v, Moment) and v.date else None
        if day is not None:  # a date the text can carry (LAST_DAY(CURDATE())), by the bets of predictor/moments.py
            return exp.Literal.string(day.isoformat())
        return x if v is UNKNOWN else as_expression(v)

    return str(tree.transform(put).sql(dialect=RplayMySQL))


def _rows(p: Predictor, s: SessionState, sql: str) -> list[list[Value]] | None:
    """A cursor's rows, when the data model follows what its SELECT reads. A row its WHERE cannot decide (a
    value the model lost) is bet to be fetched: one pass per row that may match, rather than a single pass
    (loan_servicing_app's interest accrual over loans whose status and balance payments left unknown)."""
    tree = parse(sql)
    got = select_rows(tree, lambda name: table_source(p, name, s), lenient=True) \
        if isinstance(tree, exp.Expression) else None
    return None if got is None else got[1]


def _run(p: Predictor, b: Builder, routine: Routine, s: SessionState, statements: tuple[StatementInfo, ...],
         bindings: Callable[[], Bindings], depth: int, decided: Decided, loose: set[int]) -> bool:
    """Decide and log body statements under the CALL's builder; False when one failed (the CALL ends)."""
    for sub in statements:
        reached = taken(sub.guards, bindings(), decided, s.rows_changed, lambda name: table_source(p, name, s)) \
            if sub.guards else True
        if reached is False:
            continue  # an IF branch the CALL's values do not take
        if CONDITION in sub.extra:  # an IF's test: no statement, but MySQL decides its unsafe functions
            if reached is True and s.binlog_format == "MIXED" and _unsafe_expression(p, sub):
                s.force_row = True
            if reached is True and p.profile.ROUTINE_EVERY_STEP_CLEARS_WARNINGS:
                b.warnings &= {ER_UNSAFE_STATEMENT}
            continue
        if sub.leaves is not None:
            if reached is True:
                raise _Left(sub.leaves)
            if any(isinstance(x, Conditional) and x.position == sub.leaves for x in sub.loops):
                loose.add(sub.leaves)  # a loop run pass by pass: its passes end here, with what follows unknown
            continue  # a LEAVE the values do not decide: the pass goes on
        text = None
        if sub.text is not None and _follows(p, sub, s):
            values = bindings()
            text = bind(sub.text, values) if values or not routine.signature.params else None
        if sub.kind is Kind.CALL:
            r = p.catalog.routine("PROCEDURE", sub.name or "") if depth < 8 else None
            ended: dict[str, exp.Expression] = {}
            if r is not None:
                # the CALL's own text: its arguments are bound from the caller's values there, a date the
                # caller holds as a clock reading too (its text would not say: loan_servicing_app's v_first)
                unroll(p, b, r, s, sub.text if sub.text is not None else text or "", bindings(), depth + 1, ended)
            _returned(routine, r, sub, bindings(), ended if b.error is None else {})
            if r is not None and b.error is not None and not _continues(p, b, routine, s, bindings, depth, decided,
                                                                        loose, sub):
                return False  # an error in a called procedure ends its callers too
            continue
        if text is None:
            for name in sub.user_vars:
                s.user_vars[name] = UNKNOWN  # SET @v = ... on values not bound: unknown, not what it was
        sb = Builder(b.seq, b.session, text or b.sql)
        p.binlog.builders[b.seq] = sb
        s.next_statement()
        waiting = len(s.trx_cache)
        p.dispatch(sb, sub, s)
        if len(s.trx_cache) > waiting:  # what a COMMIT writes later: each statement's images apart (Piece.step)
            step = next(_STEPS)
            s.trx_cache[waiting:] = [replace(x, step=step) for x in s.trx_cache[waiting:]]
        _prepared(p, routine, sub, s, sb)
        if sub.signal is not None and reached is True and (routine.signature.handler_for(sub.signal, sub.catchers) or (
                not routine.signature.may_catch(signal_state(sub.text or ""), sub.signal))):
            sb.error = sub.signal  # the CALL ends with the SIGNAL's error
        values = bindings()
        if sub.kind in (Kind.SET, Kind.SELECT) and sub.text is not None and isinstance(values, dict):
            code = assign(sub.text, routine.signature.sequential, values, s, lambda name: table_source(p, name, s),
                          reached is True, p.function_text if p.catalog.has_functions() else None, p.results(sb.sql))
            if code == ER_SP_FETCH_NO_DATA:
                _not_found(routine, values, s, p, sub.text)
                if not _handles_no_data(routine.text):
                    sb.warnings.add(ER_SP_FETCH_NO_DATA)  # no handler took it: the CALL may report it
            else:
                sb.error = sb.error or code
        if sb.error == ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE:
            if s.binlog_format != "STATEMENT":
                # the GTID check fails after the statement went to row: its unsafe reasons are never reported
                sb.unsafe.clear()
            elif sb.unsafe:
                b.unsafe_noted = True  # in STATEMENT format the CALL reports them, 1592, logged or not (9.7)
        went_row = bool(sb.row_events) or any(x.rows for x in s.trx_cache[waiting:])  # written now, or at COMMIT
        if s.binlog_format == "MIXED" and (went_row or (sb.unsafe and (sb.error is not None or sub.writes)) or (
                sub.kind in (Kind.SELECT, Kind.NOOP, Kind.SET) and _decided_unsafe(p, sub, s, b.seq))):
            # within one CALL, MIXED stays in row format once it switched (in a transaction the body opened
            # too: insurance_claims_app, sp_bind_policy); a SELECT ... LIMIT in the body (a cursor's too:
            # NOOP, its DECLARE; and SET v = (SELECT ... LIMIT 1): set_limit.sql) is decided as unsafe
            # though it logs nothing, and so is an unsafe statement that failed (what an EXIT handler then
            # writes is rows) or changed no row (blood_bank_app's invoice upsert that finds the invoice)
            # (procedure_locals.sql, cursor_loops.sql, handler_exit.sql, call_unsafe_no_rows.sql)
            s.force_row = True
        elif s.binlog_format == "STATEMENT" and sub.kind is Kind.SELECT and sub.for_update \
                and limited(sub, p.profile) and sb.error is None:
            # a body's SELECT ... LIMIT ... FOR UPDATE write-locks what it reads: decided as a write, unsafe
            # (1592, though nothing is logged); not so at top level (select_for_update_limit.sql)
            sb.unsafe.add("LIMIT")
            sb.warnings.add(ER_UNSAFE_STATEMENT)
        if p.profile.ROUTINE_EVERY_STEP_CLEARS_WARNINGS or (
                sub.kind is not Kind.SET and (sub.reads or sub.writes)):
            b.warnings &= {ER_UNSAFE_STATEMENT}  # the statement before's warnings are cleared
        _merge(b, sb, p.binlog.order)
        p.binlog.builders[b.seq] = b
        if sb.error is not None:
            b.error = sb.error
            b.warnings.discard(ER_SP_FETCH_NO_DATA)  # the error's diagnostics replace the no-data warning
            if p.profile.ROUTINE_ERROR_NOTE:
                b.warnings.add(p.profile.ROUTINE_ERROR_NOTE)
            if not _continues(p, b, routine, s, bindings, depth, decided, loose, sub):
                return False
    return True


def _returned(routine: Routine, called: Routine | None, sub: StatementInfo, values: Bindings,
              ended: Bindings) -> None:
    """A nested CALL's OUT / INOUT parameters come back to the caller's variables it passed (the ones the caller
    follows: Signature.settled): the value the called body left there (``ended``), else unknown."""
    tree = parse(sub.text) if sub.text is not None else None
    if not isinstance(values, dict) or not isinstance(tree, nodes.Call):
        return
    params = called.signature.params if called is not None else ()
    for k, arg in enumerate(tree.expressions):
        name = bare(arg)
        if name is None or name not in routine.signature.sequential or (k < len(params) and params[k][1] == "IN"):
            continue
        got = ended.get(params[k][0]) if k < len(params) else None
        values[name] = got if got is not None and constant(got) else unknown()


def _prepared(p: Predictor, routine: Routine, sub: StatementInfo, s: SessionState, sb: Builder) -> None:
    """A body statement is prepared the first time it runs in a connection, and again once a table it uses
    was altered: MySQL then warns of VALUES() (1287), which a later statement of the body clears
    (routine_parse_warning.sql; loan_servicing_app's nightly batch; not warehouse_app's move_stock)."""
    deprecated = p.profile.DEPRECATED_OUTSIDE_ROUTINES
    if not deprecated or sub.text is None or not any(f in deprecated for f in sub.functions):
        return
    key = (routine.name.lower(), sub.text)
    if key not in s.prepared:
        s.prepared[key] = frozenset(t.lower() for t in (*sub.reads, *sub.write_names))
        sb.warnings.add(1287)


def _not_found(routine: Routine, values: dict[str, exp.Expression], s: SessionState, p: Predictor,
               text: str) -> None:
    """A SELECT ... INTO found no row: the body's CONTINUE HANDLER FOR NOT FOUND sets its variables
    (Signature.not_found; game_backend_app: ``SET v_price = NULL``, then ``IF v_price IS NULL``), or the one of
    the SELECT's own block (Signature.block_not_found)."""
    block = dict(routine.signature.block_not_found).get(text)
    for name, sql in block if block is not None else routine.signature.not_found:
        if name in routine.signature.sequential:
            assign(f"SET {name} = {sql}", routine.signature.sequential, values, s,
                   lambda t: table_source(p, t, s), True)


@lru_cache(maxsize=256)
def _handles_no_data(text: str) -> bool:
    """Whether a routine declares a handler for NOT FOUND (or error 1329): else a SELECT ... INTO that finds
    no row leaves warning 1329, which MariaDB's CALL reports unless a later statement clears it
    (Profile.ROUTINE_EVERY_STEP_CLEARS_WARNINGS; insert_select_unknown_value.sql)."""
    tree = parse(text)
    if not isinstance(tree, exp.Expression):
        return True
    return any(no_data(c) or (isinstance(c, exp.Literal) and str(c.this) == str(ER_SP_FETCH_NO_DATA))
               for h in tree.find_all(nodes.DeclareHandler) for c in h.args.get("conditions") or ())


def _decided_unsafe(p: Predictor, sub: StatementInfo, s: SessionState, seq: int) -> bool:
    """A body statement that writes nothing but is unsafe where the server decides it (unsafe.read_unsafe),
    or an unsafe expression MySQL decides anyway (``_unsafe_expression``)."""
    if sub.kind is not Kind.SELECT and _unsafe_expression(p, sub):
        return True
    if not (sub.reads or sub.functions or sub.sysvars or sub.limit is not None):
        return False
    return read_unsafe(p.context(seq, sub, s))


def _unsafe_expression(p: Predictor, sub: StatementInfo) -> bool:
    """An IF's test, SET v = ... or DECLARE ... DEFAULT with an unsafe function: MySQL's MIXED switches the rest
    of the CALL to rows there (Profile.BODY_UNSAFE_EXPRESSION_ROW; body_unsafe_expression.sql)."""
    return p.profile.BODY_UNSAFE_EXPRESSION_ROW and system_function(sub, p.profile)


def _follows(p: Predictor, sub: StatementInfo, s: SessionState) -> bool:
    """Whether the data model reads this body statement's text (else the CALL's text is enough)."""
    if sub.kind in (Kind.CALL, Kind.CREATE_TABLE_SELECT) or sub.user_vars:
        return True  # (SET @n = ROW_COUNT() in the body: the session's variable is the body's value)
    if sub.functions and p.catalog.has_functions() and p.functions_write(sub.functions):
        return True  # its calls of functions that write run (predictor/function_runs.py)
    # a temporary table's rows are kept under its ident (loan_servicing_app's late-fee candidates)
    return any(p.data.watching(s.ident(w.table)) for w in sub.writes)


def _merge(into: Builder, sub: Builder, order: ColumnOrder | None) -> None:
    into.warnings |= sub.warnings
    into.unsafe |= sub.unsafe
    if into.group is None:
        into.group = sub.group
    for c in sub.caches:
        if c not in into.caches:
            into.caches.append(c)
    into.row_caches |= sub.row_caches
    into.wrote_query = into.wrote_query or sub.wrote_query
    for v in sub.row_events.values():
        into.add_event(v, order)
