"""CALL: a procedure's body statements are decided and logged one by one under the CALL's record, with
the arguments bound, counted and cursor loops unrolled and IF branches the values rule out skipped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from sqlglot import exp

from predictor import nodes
from predictor.analyze import HANDLER, Kind, StatementInfo
from predictor.binlog import Builder
from predictor.branches import Decided, taken
from predictor.catalog import Routine
from predictor.codes import ER_SP_DOES_NOT_EXIST
from predictor.decide import ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE, ER_UNSAFE_STATEMENT
from predictor.dialect import RplayMySQL
from predictor.evaluate import UNKNOWN, CannotEvaluate, Value, value
from predictor.localvars import assign
from predictor.parse import parse
from predictor.query import select_rows
from predictor.routines import Bindings, ExitHandler, as_expression, bind, call_bindings
from predictor.rows import table_source
from predictor.session import SessionState
from predictor.unsafe import limited

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
    a counted loop's statements once per pass (predictor/loops.py)."""
    body = routine.body
    bound: dict[str, dict[str, exp.Expression]] = {}  # computed on first need: "" -> the CALL's bindings

    def bindings() -> dict[str, exp.Expression]:
        if "" not in bound:
            text = call if outer is not None else _with_user_vars(call, s)
            got = call_bindings(text, routine.signature, outer) if p.data.may_parse() else None
            bound[""] = dict(got or {})  # the sequential locals change as the CALL runs (localvars.py)
        return bound[""]

    decided: Decided = {}  # each IF's truth where the CALL entered it (one inside a loop: in this pass)
    if not _passes(p, b, routine, s, body, 0, bindings, depth, decided) and b.error is not None:
        handler = routine.signature.exit_for(b.error)
        if handler is not None:
            _handle(p, b, routine, s, handler, bindings, depth, decided)
    if final is not None and "" in bound:
        final.update(bound[""])  # the parameters' values where the CALL ended (OUT ones go to user variables)


def _handle(p: Predictor, b: Builder, routine: Routine, s: SessionState, handler: ExitHandler,
            bindings: Callable[[], Bindings], depth: int, decided: Decided) -> None:
    """An EXIT handler caught the CALL's error: its statements run, then the CALL ends, failing again
    with the error when the handler RESIGNALs (handler_exit.sql)."""
    error = b.error
    b.error = None
    steps = tuple(replace(x, guards=tuple(g for g in x.guards if g != HANDLER))
                  for x in routine.body if x.handler == handler.position)
    if not _run(p, b, routine, s, steps, bindings, depth, decided):
        return  # an error in the handler is the CALL's
    if handler.resignals:
        b.error = error
    elif p.profile.ROUTINE_ERROR_NOTE:
        b.warnings.discard(p.profile.ROUTINE_ERROR_NOTE)


def _passes(p: Predictor, b: Builder, routine: Routine, s: SessionState, body: tuple[StatementInfo, ...],
            level: int, bindings: Callable[[], Bindings], depth: int, decided: Decided) -> bool:
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
            if not _run(p, b, routine, s, body[i:j], bindings, depth, decided):
                return False
        else:
            base = bindings()
            passes = loop.each(base, lambda sql: _rows(p, s, sql))
            inner = {g.at for x in body[i:j] for g in x.guards if g.loops > level}
            for values in passes if passes is not None else [base]:
                for at in inner:
                    decided.pop(at, None)
                if not _passes(p, b, routine, s, body[i:j], level + 1, _constant(values), depth, decided):
                    return False
        i = j
    return True


def _with_user_vars(call: str, s: SessionState) -> str:
    """The CALL with the session's known user variables as its arguments' values (``CALL p(@tenant)``)."""
    tree = parse(call)
    if not isinstance(tree, nodes.Call) or not s.user_vars:
        return call

    def put(x: exp.Expression) -> exp.Expression:
        if isinstance(x, exp.Parameter) and s.user_vars.get(x.name.lower(), UNKNOWN) is not UNKNOWN:
            return as_expression(s.user_vars[x.name.lower()])
        return x

    return str(tree.transform(put).sql(dialect=RplayMySQL))


def _rows(p: Predictor, s: SessionState, sql: str) -> list[list[Value]] | None:
    """A cursor's rows, when the data model follows what its SELECT reads."""
    tree = parse(sql)
    got = select_rows(tree, lambda name: table_source(p, name, s)) if isinstance(tree, exp.Expression) else None
    return None if got is None else got[1]


def _constant(values: Bindings) -> Callable[[], Bindings]:
    return lambda: values


def _run(p: Predictor, b: Builder, routine: Routine, s: SessionState, statements: tuple[StatementInfo, ...],
         bindings: Callable[[], Bindings], depth: int, decided: Decided) -> bool:
    """Decide and log body statements under the CALL's builder; False when one failed (the CALL ends)."""
    for sub in statements:
        reached = taken(sub.guards, bindings(), decided, s.rows_changed) if sub.guards else True
        if reached is False:
            continue  # an IF branch the CALL's values do not take
        text = None
        if sub.text is not None and _follows(p, sub):
            values = bindings()
            text = bind(sub.text, values) if values or not routine.signature.params else None
        if sub.kind is Kind.CALL and depth < 8:
            r = p.catalog.routine("PROCEDURE", sub.name or "")
            if r is not None:
                unroll(p, b, r, s, text or "", bindings(), depth + 1)
                if b.error is not None:
                    return False  # an error in a called procedure ends its callers too
            continue
        sb = Builder(b.seq, b.session, text or b.sql)
        p.binlog.builders[b.seq] = sb
        s.next_statement()
        waiting = len(s.trx_cache)
        p.dispatch(sb, sub, s)
        if sub.signal is not None and reached is True and (not routine.signature.catches
                                                           or routine.signature.exit_for(sub.signal)):
            sb.error = sub.signal  # the CALL ends with the SIGNAL's error
        values = bindings()
        if sub.kind in (Kind.SET, Kind.SELECT) and sub.text is not None and not sub.loops and isinstance(values, dict):
            code = assign(sub.text, routine.signature.sequential, values, s, lambda name: table_source(p, name, s),
                          reached is True, p.function_text if p.catalog.has_functions() else None)
            sb.error = sb.error or code
        if sb.error == ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE:
            if s.binlog_format != "STATEMENT":
                # the GTID check fails after the statement went to row: its unsafe reasons are never reported
                sb.unsafe.clear()
            elif sb.unsafe:
                b.unsafe_noted = True  # in STATEMENT format the CALL reports them, 1592, logged or not (9.7)
        went_row = bool(sb.row_events) or any(x.rows for x in s.trx_cache[waiting:])  # written now, or at COMMIT
        if s.binlog_format == "MIXED" and (went_row or (sb.error is not None and sb.unsafe) or (
                sub.kind in (Kind.SELECT, Kind.NOOP) and sub.reads and limited(sub, p.profile))):
            # within one CALL, MIXED stays in row format once it switched (in a transaction the body opened
            # too: insurance_claims_app, sp_bind_policy); a SELECT ... LIMIT in the body (a
            # cursor's too: NOOP, its DECLARE) is decided as unsafe too, though it logs nothing, and so is an
            # unsafe statement that failed (what an EXIT handler then writes is rows)
            # (procedure_locals.sql, cursor_loops.sql, handler_exit.sql)
            s.force_row = True
        if p.profile.ROUTINE_LAST_WARNINGS:
            b.warnings &= {ER_UNSAFE_STATEMENT}  # the statement before's warnings are cleared
        _merge(b, sb)
        p.binlog.builders[b.seq] = b
        if sb.error is not None:
            b.error = sb.error
            if p.profile.ROUTINE_ERROR_NOTE:
                b.warnings.add(p.profile.ROUTINE_ERROR_NOTE)
            return False
    return True


def _follows(p: Predictor, sub: StatementInfo) -> bool:
    """Whether the data model reads this body statement's text (else the CALL's text is enough)."""
    if sub.kind in (Kind.CALL, Kind.CREATE_TABLE_SELECT):
        return True
    return any(p.data.watching(w.table) for w in sub.writes)


def _merge(into: Builder, sub: Builder) -> None:
    into.warnings |= sub.warnings
    into.unsafe |= sub.unsafe
    if into.group is None:
        into.group = sub.group
    for c in sub.caches:
        if c not in into.caches:
            into.caches.append(c)
    into.row_caches |= sub.row_caches
    into.wrote_query = into.wrote_query or sub.wrote_query
    for k, v in sub.row_events.items():
        into.row_events.setdefault(k, v)
