"""Trigger bodies run row by row on the tracked rows: OLD.c / NEW.c are the row's values, IF / ELSEIF /
ELSE conditions are evaluated, and the UPDATEs, DELETEs and INSERT ... VALUES a body runs change the rows
of their table.

A BEFORE trigger's ``SET NEW.c = ...`` changes the row the statement writes.

Whether a trigger's UPDATE changed a row decides whether the statement has row events for that table
(``UPDATE slots`` whose trigger updates ``tallies`` only when a slot gets booked). A body this module cannot
follow (a loop, a CALL, a local variable, a condition on an unknown value) makes the whole firing
inexact: ``run`` returns None and the caller falls back to ``DataModel.fire``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from sqlglot import exp

from predictor import function_runs, nodes
from predictor.branches import by_shape
from predictor.catalog import Generated, Table
from predictor.codes import ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, signal_code
from predictor.data import DataModel, Mode, Pair, Refused, Updated, upsert_assignments, values_rows
from predictor.evaluate import UNKNOWN, CannotEvaluate, Row, known, truth, value
from predictor.joined import assignments_to, selected
from predictor.parse import parse
from predictor.query import Source, resolved, select_rows
from predictor.routines import conversion, if_chain, no_data


@dataclass(frozen=True)
class Upsert:
    """What a body's INSERT ... ON DUPLICATE KEY UPDATE did to a table: rows written and rows it changed
    (a counter's trigger logs an update event, not a write, once the counter's row exists: ev's
    legacy_counters), with the columns it gives and those it assigns, for the row images."""

    written: int
    updated: int
    columns: tuple[str, ...] | None  # the INSERT's column list (None: all)
    assigned: tuple[str, ...]


class Changed(dict[str, int | None]):
    """Table (lower case) -> rows the bodies changed or wrote there; None: some, how many is not known.
    ``upserts``: table -> what the bodies' INSERT ... ON DUPLICATE KEY UPDATE did there."""

    def __init__(self, counts: dict[str, int | None] | None = None) -> None:
        super().__init__(counts or {})
        self.upserts: dict[str, Upsert] = {}
        self.reworked = 0  # rows of the fired table whose NEW a BEFORE trigger made differ from OLD


_ALL_EVENTS = frozenset({"INSERT", "UPDATE", "DELETE"})


class _Inexact(Exception):
    """The body does something this module does not follow."""


class Signalled(Exception):
    """A body's SIGNAL ran: the statement fails with ``code`` at its row ``row`` (0-based). ``raised_in_body``
    False: the error is the statement's own (a key a BEFORE trigger's SET NEW made a duplicate), which
    MariaDB does not follow with its note 4094. ``before``: a BEFORE trigger raised it, before the row was
    written (its auto-increment value was not taken)."""

    def __init__(self, code: int, row: int, raised_in_body: bool = True, before: bool = False) -> None:
        super().__init__(code)
        self.code, self.row, self.raised_in_body, self.before = code, row, raised_in_body, before




def run(data: DataModel, t: Table, event: str, pairs: Sequence[Pair], tables: Callable[[str], Table | None],
        journal: Callable[[Table], None],
        bind: Callable[[exp.Expression], exp.Expression] = lambda body: body,
        dup_fails: bool = False, used: frozenset[str] = frozenset(), depth: int = 0,
        writer: Callable[[str], str | None] = lambda name: None,
        progress: list[int] | None = None, changing: frozenset[str] | None = None) -> Changed | None:
    """Fire ``t``'s triggers for ``event`` once per pair, BEFORE ones first; None when they cannot be followed
    (what they already changed is then overwritten by the caller's fallback). ``bind`` puts the session's
    known user variables into a body (predictor/variables.py). ``dup_fails``: a duplicate key a BEFORE trigger's
    SET NEW makes fails the statement (1062, raised as Signalled) rather than being skipped (IGNORE). ``used``:
    the tables the statement reads or writes; a body that writes one fails it (1442). The triggers of the
    rows a body changes run too (``depth``: how deep, as on the servers' nesting of trigger calls).
    ``writer(name)``: the CREATE text of stored function ``name`` if it writes (a body's call of it runs once
    on the data model, as a statement's: predictor/function_runs.py), else None. ``progress``, when None is
    returned, gets the number of rows whose BEFORE triggers ran (their SET NEW values are in the rows).
    ``changing``: the columns an UPDATE may change (None: any); for the others NEW.c is OLD.c (``_unchanged``)."""
    triggers = sorted((tr for tr in t.triggers if tr.event.upper() == event),
                      key=lambda tr: tr.timing.upper() != "BEFORE")
    changed = Changed(dict.fromkeys(_reached(t, event, tables, depth, writer), 0))
    if not triggers:
        return changed
    found = [_body(tr.text) for tr in triggers]
    if any(b is None for b in found):
        return None
    same = frozenset(c.name.lower() for c in t.columns) - changing if event == "UPDATE" and changing is not None \
        else frozenset()
    bodies = [(_unchanged(bind(b), same), tr.timing.upper() == "BEFORE") for b, tr in zip(found, triggers, strict=True)
              if b is not None]
    runner = _Runner(data, tables, journal, changed, t, dup_fails, used | {t.name.lower()}, bind, depth, writer)
    settled = 0  # rows whose BEFORE triggers ran
    try:
        for i, (old, new) in enumerate(pairs):
            for body, before in bodies:
                if not before:
                    settled = i + 1  # (the BEFORE bodies come first)
                _run_row(runner, body, before, old, new, i)
                new = runner.last_new  # as a BEFORE trigger's SET NEW.c left it, for the AFTER ones
            settled = i + 1
            if old is not None and new is not None and old != new:
                changed.reworked += 1  # (an UPDATE of a column to its value whose trigger bumps a version)
    except (_Inexact, CannotEvaluate):
        if progress is not None:
            # an AFTER trigger was not followed: the later rows' BEFORE triggers still give their NEW values
            # (what the AFTER ones write is forgotten by the caller)
            progress[:] = [settled + _before_only(runner, bodies, pairs[settled:], settled)]
        return None
    return changed


def _run_row(runner: _Runner, body: exp.Expression, before: bool, old: Row | None, new: Row | None,
               i: int) -> None:
    """Run one trigger body for one row (``runner.last_new``: the NEW row it leaves)."""
    rows: dict[str, Row | None] = {"old": old, "new": new, "": {}}
    # the model stored the row before its triggers run: a BEFORE trigger reading its own table
    # sees the row as it was (an INSERT's: not there yet; a unit's overlapping-lease check)
    runner.unwritten = (new, old) if before else None
    runner.not_found = None
    try:
        runner.node(body, rows)
    except _Signal as sig:
        raise Signalled(sig.code, i, sig.raised_in_body, before and sig.raised_in_body) from None
    runner.last_new = rows["new"]


def _unchanged(body: exp.Expression, same: frozenset[str]) -> exp.Expression:
    """``body`` with the IF conditions its shape decides, NEW.c being OLD.c for the columns ``same`` the UPDATE
    leaves as they were (``branches.by_shape``, as resolve.py's idle trigger statements): an audit trigger's
    status-change test is decided even where the model lost the status (loan_servicing_app's ``IF NEW.status
    <> OLD.status`` on an UPDATE of a loan's autopay flag)."""
    if not same:
        return body

    def put(x: exp.Expression) -> exp.Expression:
        if isinstance(x, exp.IfBlock) and isinstance(x.this, exp.Expression):
            truth = by_shape(x.this, same)
            if truth is not None:
                x.set("this", exp.true() if truth else exp.false())
        return x

    return body.copy().transform(put, copy=False)


def _before_only(runner: _Runner, bodies: Sequence[tuple[exp.Expression, bool]], pairs: Sequence[Pair],
                 first: int) -> int:
    """Run only the BEFORE triggers of ``pairs``, up to the first one not followed: how many rows ran."""
    for k, (old, new) in enumerate(pairs):
        try:
            for body, before in bodies:
                if before:
                    _run_row(runner, body, True, old, new, first + k)
                    new = runner.last_new
        except (_Inexact, CannotEvaluate, Signalled):
            return k
    return len(pairs)


def call(data: DataModel, text: str, args: Sequence[object], tables: Callable[[str], Table | None],
         journal: Callable[[Table], None], used: frozenset[str],
         writer: Callable[[str], str | None] = lambda name: None,
         changed: Changed | None = None) -> tuple[object] | None:
    """Run the stored function ``text`` once on the data model with ``args``: (its RETURN value,), or None
    when its body cannot be followed (what it changed so far is then the caller's to forget). A sequence
    function bumps its counter row and returns it (predictor/function_runs.py). ``changed``: counts the rows it
    changes (a trigger's calls: their tables' row events)."""
    body, sig = _body(text), _signature(text)
    if body is None or sig is None or len(sig[0]) != len(args):
        return None
    names, kinds, result = sig
    local: Row = {n: _converted(k, v) for n, k, v in zip(names, kinds, args, strict=True)}
    runner = _Runner(data, tables, journal, Changed() if changed is None else changed, None, True, used,
                     lambda b: b, 0, writer)
    try:
        runner.node(body, {"old": None, "new": None, "": local})
    except _Returned as r:
        return (_converted(result, r.value),)
    except (_Inexact, _Signal, Signalled, CannotEvaluate):
        return None
    return None  # no RETURN: error 1321, not followed


@lru_cache(maxsize=256)
def _signature(text: str) -> tuple[tuple[str, ...], tuple[exp.Expression | None, ...], exp.Expression | None] | None:
    """A function's parameter names and types, and its result type."""
    tree = parse(text)
    if not isinstance(tree, nodes.CreateRoutine):
        return None
    params = [x for x in tree.args.get("params") or () if isinstance(x, nodes.RoutineParam)]
    return tuple(x.name.lower() for x in params), tuple(x.args.get("kind") for x in params), tree.args.get("returns")


def _converted(kind: exp.Expression | None, v: object) -> object:
    """``v`` as a parameter or result of type ``kind`` holds it (unknown for a type whose conversion is not
    followed)."""
    convert = conversion(kind)
    if convert is None:
        return UNKNOWN
    try:
        return value(convert(known(v)), {})
    except CannotEvaluate:
        return UNKNOWN


def _reached(t: Table, event: str, tables: Callable[[str], Table | None], depth: int,
             writer: Callable[[str], str | None]) -> list[str]:
    """The tables ``t``'s ``event`` triggers write, themselves or through the functions they call, and those
    their writes' own triggers write (as deep as ``run`` follows them): none changed until a row fires them."""
    out: list[str] = []
    for tr in t.triggers:
        if tr.event.upper() != event:
            continue
        for info in tr.body:
            out += [x for f in info.functions if (text := writer(f)) is not None for x in _function_tables(text)]
            for w in info.writes:
                out.append(w.table.lower())
                inner = tables(w.table) if depth < 8 else None
                if inner is not None and inner.triggers and inner.ident != t.ident:
                    out += _reached(inner, w.op.value.upper(), tables, depth + 1, writer)
    return list(dict.fromkeys(out))


@lru_cache(maxsize=256)
def _function_tables(text: str) -> tuple[str, ...]:
    """The tables a stored function's body writes (lower case)."""
    body = _body(text)
    if body is None:
        return ()
    out = [n.this.name.lower() for n in body.find_all(exp.Insert, exp.Update, exp.Delete)
           if isinstance(n.this, exp.Table)]
    out += [n.this.this.name.lower() for n in body.find_all(exp.Insert)
            if isinstance(n.this, exp.Schema) and isinstance(n.this.this, exp.Table)]
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=256)
def new_columns(text: str) -> tuple[str, ...]:
    """The NEW.c a (BEFORE) trigger names, read or assigned, in any branch: in a BEFORE trigger every NEW field
    is settable, and both servers mark settable trigger fields as written by the statement (its MINIMAL after
    image has them; fixtures/seeds/004_wl5092/images_8_trigger_set_new.sql)."""
    body = _body(text)
    if body is None:
        return ()
    out: list[str] = []
    for col in body.find_all(exp.Column):
        if col.table.lower() == "new" and col.name.lower() not in out:
            out.append(col.name.lower())
    return tuple(out)


@lru_cache(maxsize=256)
def set_new_columns(text: str) -> tuple[str, ...]:
    """The NEW.c a (BEFORE) trigger assigns with SET, in any branch."""
    return tuple(dict.fromkeys(c for c, _ in guarded_sets(text)))


_SAME_VALUE_NODES = (exp.Column, exp.Identifier, exp.Literal, exp.Null, exp.Boolean, exp.EQ, exp.NEQ, exp.In,
                     exp.Not, exp.Is, exp.NullSafeEQ, exp.Paren)


@lru_cache(maxsize=256)
def idle_unless(text: str) -> frozenset[str]:
    """The columns c such that an UPDATE trigger's body does nothing while NEW.c = OLD.c: its body is one IF
    without ELSE whose condition then cannot hold (``IF NEW.state <> OLD.state THEN ...``, ``IF OLD.state =
    'open' AND NEW.state = 'accepted' THEN ...``), so an UPDATE that does not set c does not run it, whatever
    rows it matches (DataModel.fire)."""
    body = _body(text)
    while isinstance(body, exp.Block) and len(body.expressions) == 1:
        body = body.expressions[0]
    if not isinstance(body, exp.IfBlock) or body.args.get("false") is not None:
        return frozenset()
    cond = body.this
    conjuncts = [c for c in (cond.flatten() if isinstance(cond, exp.And) else [cond]) if isinstance(c, exp.Expression)]
    by_column: dict[str, list[exp.Expression]] = {}
    for c in conjuncts:
        names = {col.name.lower() for col in c.find_all(exp.Column)}
        if len(names) == 1 and all(isinstance(n, _SAME_VALUE_NODES) for n in c.walk()) and all(
                col.table.lower() in ("new", "old") for col in c.find_all(exp.Column)):
            by_column.setdefault(names.pop(), []).append(c)
    return frozenset(name for name, cs in by_column.items() if _never_when_kept(name, cs))


def _never_when_kept(name: str, conjuncts: list[exp.Expression]) -> bool:
    """Whether the conjuncts on NEW.name / OLD.name (compared with literals by = <> IN IS) are never all true
    when both are the same value: tried on each literal they name, on a value none names, and on NULL."""
    literals = [x.this for c in conjuncts for x in c.find_all(exp.Literal)]
    if all(isinstance(x, str) for x in literals) and all(
            x.is_string for c in conjuncts for x in c.find_all(exp.Literal)):
        other: object = "\x00rplay other"
        values: list[object] = [str(x).casefold().rstrip(" ") for x in literals]
    elif all(x.is_int for c in conjuncts for x in c.find_all(exp.Literal)):
        values = [int(x) for x in literals]
        other = max((int(x) for x in literals), default=0) + 1
    else:
        return False
    for v in [*values, other, None]:
        row = {name: v}
        try:
            if all(truth(c.transform(_as_row_column), row) for c in conjuncts):
                return False
        except CannotEvaluate:
            return False
    return True


def _as_row_column(n: exp.Expression) -> exp.Expression:
    return exp.column(n.name) if isinstance(n, exp.Column) else n


@lru_cache(maxsize=256)
def _body(text: str) -> exp.Expression | None:
    tree = parse(text) if text else None
    body = tree.args.get("body") if isinstance(tree, exp.Expression) else None
    return body if isinstance(body, exp.Expression) else None


class _Runner:
    def __init__(self, data: DataModel, tables: Callable[[str], Table | None], journal: Callable[[Table], None],
                 changed: Changed, subject: Table | None, dup_fails: bool, used: frozenset[str],
                 bind: Callable[[exp.Expression], exp.Expression], depth: int,
                 writer: Callable[[str], str | None] = lambda name: None) -> None:
        self.data, self.tables, self.journal, self.changed = data, tables, journal, changed
        self.subject = subject  # the table whose triggers run: SET NEW.c changes its row (None: a function)
        self.dup_fails = dup_fails  # a key SET NEW.c makes a duplicate fails the statement (no IGNORE)
        self.used = used  # the statement's own tables: writing one fails it (1442)
        self.unwritten: tuple[Row | None, Row | None] | None = None  # (stored row, row it stands for) in BEFORE
        self.not_found: exp.Expression | None = None  # the body's CONTINUE HANDLER FOR NOT FOUND statement
        self.bind, self.depth, self.writer = bind, depth, writer
        self.last_new: Row | None = None  # the NEW row the last body left (_run_row)

    def node(self, n: exp.Expression, rows: dict[str, Row | None]) -> None:
        if isinstance(n, exp.Block):
            for x in n.expressions:
                self.node(x, rows)
        elif isinstance(n, exp.Declare):
            self.declare(n, rows)
        elif isinstance(n, nodes.DeclareHandler):
            self.handler(n)
        elif isinstance(n, exp.Set):
            self.set(n, rows)
        elif isinstance(n, exp.Select) and isinstance(n.args.get("into"), exp.Into):
            self.select_into(n, rows)
        elif isinstance(n, nodes.Signal):
            code = signal_code(n)
            if code is not None:
                raise _Signal(code)
        elif isinstance(n, exp.CaseStatement) and (chain := if_chain(n, need_else=False)) is not None:
            self.node(chain, rows)
        elif isinstance(n, exp.IfBlock):
            try:
                taken = truth(resolved(_bound(n.this, rows), self.source), {})  # a scalar subquery too
            except CannotEvaluate:
                if not _only_signals(n):  # (a guard that can only fail the statement: taken not to)
                    for branch in (n.args.get("true"), n.args.get("false")):
                        if isinstance(branch, exp.Expression):
                            self.maybe(branch, rows)
                return
            branch = n.args.get("true") if taken else n.args.get("false")
            if isinstance(branch, exp.Expression):
                self.node(branch, rows)
        elif isinstance(n, exp.Return) and isinstance(n.this, exp.Expression):
            raise _Returned(value(resolved(_bound(n.this, rows), self.source), {}))
        elif isinstance(n, exp.Update):
            self.update(n, rows)
        elif isinstance(n, exp.Delete):
            self.delete(n, rows)
        elif isinstance(n, exp.Insert) and isinstance(n.this, exp.Table | exp.Schema):
            self.insert(n, rows)
        else:
            raise _Inexact(type(n).__name__)

    def maybe(self, n: exp.Expression, rows: dict[str, Row | None]) -> None:
        """A branch that may or may not run (its IF tests a value the model lost: parking_permits_app's payment
        for an unknown permit): what it may set becomes unknown, and the rest of the body is still followed."""
        if isinstance(n, exp.Block):
            for x in n.expressions:
                self.maybe(x, rows)
        elif isinstance(n, exp.IfBlock):
            for branch in (n.args.get("true"), n.args.get("false")):
                if isinstance(branch, exp.Expression):
                    self.maybe(branch, rows)
        elif isinstance(n, exp.CaseStatement) and (chain := if_chain(n, need_else=False)) is not None:
            self.maybe(chain, rows)
        elif isinstance(n, exp.Set):
            local = rows[""]
            assert local is not None
            for item in n.expressions:
                eq = item.this if isinstance(item, exp.SetItem) else None
                target = eq.this if isinstance(eq, exp.EQ) else None
                if isinstance(target, exp.Column) and target.table.lower() == "new":
                    self.set_new(target.name, known(UNKNOWN), rows)
                elif isinstance(target, exp.Column) and not target.table and target.name.lower() in local:
                    local[target.name.lower()] = UNKNOWN
                else:
                    raise _Inexact("SET of something other than a local variable")
        elif isinstance(n, exp.Select) and isinstance(n.args.get("into"), exp.Into):
            into = n.args["into"]
            local = rows[""]
            assert local is not None
            for x in [into.this, *(into.expressions or ())]:
                if not isinstance(x, exp.Column) or x.table or x.name.lower() not in local:
                    raise _Inexact("SELECT ... INTO something other than local variables")
                local[x.name.lower()] = UNKNOWN
        elif isinstance(n, exp.Update) and isinstance(n.this, exp.Table) and not n.this.args.get("joins") \
                and not n.args.get("from"):
            self.maybe_update(n, rows)
        elif isinstance(n, exp.Insert | exp.Delete) and isinstance(n.this, exp.Table | exp.Schema):
            t = self._table(n.this.this if isinstance(n.this, exp.Schema) else n.this)
            self.data.forget(t.ident)  # rows that may have come or gone
            self.maybe_fire(t, "DELETE" if isinstance(n, exp.Delete) else "INSERT", None)
            if isinstance(n, exp.Insert) and n.args.get("conflict") is not None:
                self.maybe_fire(t, "UPDATE", None)
        else:
            raise _Inexact(f"{type(n).__name__} in a branch that may run")

    def maybe_update(self, n: exp.Update, rows: dict[str, Row | None]) -> None:
        """An UPDATE that may run: the columns it (and its table's BEFORE UPDATE triggers, ON UPDATE
        CURRENT_TIMESTAMP, generated columns) sets are unknown in the rows its WHERE may select."""
        t = self._table(n.this)
        columns = _changing(t, n)
        where = n.args.get("where")
        try:
            cond = resolved(_bound(where.this, rows), self.source) if where is not None \
                and not n.args.get("limit") else None
        except CannotEvaluate:
            cond = None
        self.data.changed_columns(t, sorted(columns), cond)
        self.maybe_fire(t, "UPDATE", columns)

    def maybe_fire(self, t: Table, event: str, changing: frozenset[str] | None) -> None:
        """``t``'s rows may have been written with ``event``: its count is not known, nor what its triggers
        (not followed) changed."""
        self.count(t.name, None)
        self.data.fire(t.name, frozenset({event}), None, changing)
        for name in _reached(t, event, self.tables, self.depth, self.writer):
            self.count(name, None)
            self.data.fire(name, _ALL_EVENTS)  # and what the triggers of the rows those wrote did

    def declare(self, n: exp.Declare, rows: dict[str, Row | None]) -> None:
        local = rows[""]
        assert local is not None
        for item in n.expressions:
            if not isinstance(item, exp.DeclareItem) or not isinstance(item.args.get("kind"), exp.DataType):
                raise _Inexact("a DECLARE other than a variable")
            default = item.args.get("default")
            v = value(_bound(default, rows), {}) if isinstance(default, exp.Expression) else None
            for name in item.this if isinstance(item.this, list) else [item.this]:
                local[name.name.lower()] = v

    def handler(self, n: nodes.DeclareHandler) -> None:
        """``DECLARE CONTINUE HANDLER FOR NOT FOUND stmt``: run when a SELECT ... INTO finds no row. A handler
        for errors would catch the body's SIGNAL: not followed."""
        conditions = n.args.get("conditions") or []
        body = n.args.get("body")
        if str(n.args.get("action")).upper() != "CONTINUE" or not conditions or not all(map(no_data, conditions)) \
                or not isinstance(body, exp.Expression):
            raise _Inexact("a handler other than CONTINUE HANDLER FOR NOT FOUND")
        self.not_found = body

    def set(self, n: exp.Set, rows: dict[str, Row | None]) -> None:
        local = rows[""]
        assert local is not None
        for item in n.expressions:
            eq = item.this if isinstance(item, exp.SetItem) else None
            target = eq.this if isinstance(eq, exp.EQ) else None
            if isinstance(eq, exp.EQ) and isinstance(target, exp.Column) and target.table.lower() == "new":
                self.set_new(target.name, eq.expression, rows)
                continue
            if not isinstance(eq, exp.EQ) or not isinstance(target, exp.Column) or target.table \
                    or target.name.lower() not in local:
                raise _Inexact("SET of something other than a local variable")
            # ``SET v = (SELECT status FROM claims WHERE id = NEW.claim_id)``: the subquery's value
            e = self.called(_bound(eq.expression, rows), alone=True)
            local[target.name.lower()] = value(resolved(e, self.source), {})

    def set_new(self, column: str, e: exp.Expression, rows: dict[str, Row | None]) -> None:
        """``SET NEW.c = e``: the row the statement writes takes the value (unknown when it cannot be
        evaluated, as an UPDATE's assignment)."""
        row = rows.get("new")
        if row is None or self.subject is None:
            raise _Inexact("SET NEW in a trigger without a NEW row")
        called = self.called(_bound(e, rows), alone=True)
        try:
            v = value(resolved(called, self.source), {})  # (a scalar subquery: an inlined function's)
        except CannotEvaluate:
            v = UNKNOWN
        try:
            stored = self.data.set_new(self.subject, row, column, v)
        except Refused as refused:
            if self.dup_fails:
                raise _Signal(refused.code, raised_in_body=False) from None
            raise _Inexact("SET NEW clashes under IGNORE") from None
        if stored is None:
            raise _Inexact("SET NEW on a row the model does not follow")
        rows["new"] = stored
        if self.unwritten is not None and self.unwritten[0] is row:
            self.unwritten = (stored, self.unwritten[1])

    def called(self, e: exp.Expression, alone: bool = False) -> exp.Expression:
        """``e`` with its calls of functions that write run and replaced by what they returned
        (predictor/function_runs.py); ``alone``: ``e`` is a SET's value."""
        found = function_runs.calls(exp.Set(expressions=[e]) if alone else e, self.writer)
        if found is None:
            raise _Inexact("a call of a function that writes, not run once")
        if not found:
            return e
        results = function_runs.run(found, self.writer, lambda text, args: call(
            self.data, text, args, self.tables, self.journal, self.used, self.writer, self.changed))
        if results is None:
            raise _Inexact("a function's body")
        return function_runs.put(e, self.writer, results)

    def select_into(self, n: exp.Select, rows: dict[str, Row | None]) -> None:
        local = rows[""]
        assert local is not None
        into = n.args["into"]
        targets = [into.this, *(into.expressions or ())] if into.this is not None else list(into.expressions or ())
        names = [t.name.lower() for t in targets if isinstance(t, exp.Column) and not t.table]
        if len(names) != len(targets) or any(x not in local for x in names):
            raise _Inexact("SELECT ... INTO something other than local variables")
        query = n.copy()
        query.set("into", None)
        got = select_rows(_bound(query, rows), self.source)
        if got is None or len(got[1]) > 1 or any(len(r) != len(names) for r in got[1]):
            raise _Inexact("a SELECT ... INTO the model cannot evaluate")
        if not got[1]:  # no row: the variables keep their values, the NOT FOUND handler runs
            if self.not_found is not None:
                self.node(self.not_found, rows)
            return
        for name, v in zip(names, got[1][0], strict=False):
            local[name] = v

    def source(self, name: str) -> Source | None:
        t = self.tables(name)
        got = self.data.source(t) if t is not None else None
        if got is None or self.unwritten is None or t is None or self.subject is None \
                or t.ident != self.subject.ident:
            return got
        stored, was = self.unwritten
        rows = [was if r is stored else r for r in got.rows]
        return Source(got.columns, [r for r in rows if r is not None], got.keys)

    def _table(self, node: object) -> Table:
        t = self.tables(node.name) if isinstance(node, exp.Table) else None
        if t is None:
            raise _Inexact("a table the model does not know")
        if t.name.lower() in self.used and not t.temporary:
            raise _Signal(ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG)  # already used by the statement
        self.journal(t)
        return t

    def _selected(self, bound: exp.Expression, t: Table) -> list[Row] | None:
        """The rows a body's INSERT ... SELECT writes (NEW already bound: parking_permits_app's impound
        record), when the SELECT reads tables the data model follows; else None."""
        if not isinstance(bound, exp.Insert) or not isinstance(bound.expression, exp.Select):
            return None
        target = bound.this
        names = [str(c.name).lower() for c in target.expressions] if isinstance(target, exp.Schema) and \
            target.expressions else [c.name.lower() for c in t.columns]

        def source(name: str) -> Source | None:
            table = self.tables(name)
            return self.data.source(table) if table is not None else None

        got = select_rows(bound.expression, source)
        if got is None or any(len(r) != len(names) for r in got[1]):
            return None
        return [dict(zip(names, r, strict=True)) for r in got[1]]

    def insert(self, n: exp.Insert, rows: dict[str, Row | None]) -> None:
        t = self._table(n.this.this if isinstance(n.this, exp.Schema) else n.this)
        if self.data.tracked(t) is None:
            self.count(t.name, 1 if isinstance(n.expression, exp.Values) else None)
            return
        bound = self.called(_bound(n, rows))
        conflict = bound.args.get("conflict") if isinstance(bound, exp.Insert) else None
        assignments = upsert_assignments(bound) if isinstance(bound, exp.Insert) else None
        written = values_rows(bound, t) if isinstance(bound, exp.Insert) and isinstance(bound.expression, exp.Values) \
            and assignments is not None else self._selected(bound, t) if assignments is not None else None
        if written is None or assignments is None:
            raise _Inexact("INSERT ... SELECT in a trigger")
        # a duplicate fails the whole statement: not followed (the fallback forgets the table)
        pairs: list[Pair] = []
        mode = Mode.UPSERT if conflict is not None else Mode.IGNORE if n.args.get("ignore") else Mode.INSERT
        res = self.data.write(t, written, mode, commit=False, assignments=assignments, pairs=pairs)
        if res is None or res.dup_at is not None:
            raise _Inexact("a duplicate key in a trigger's INSERT")
        self.count(t.name, res.written + res.updated)
        if res.first_id is not None:
            _local(rows)[_INSERT_ID] = res.first_id
        if conflict is not None:
            target = bound.this
            columns = tuple(str(c.name).lower() for c in target.expressions) \
                if isinstance(target, exp.Schema) and target.expressions else None
            _upserted(self.changed, t.name, Upsert(res.written, res.updated, columns,
                                                   tuple(c.lower() for c, _ in assignments)))
        self.fire(t, "INSERT", [x for x in pairs if x[0] is None])
        kept = [x for x in pairs if x[0] is not None]
        if any(old == new for old, new in kept) and any(tr.event.upper() == "UPDATE" for tr in t.triggers):
            raise _Inexact("UPDATE triggers of a row an upsert kept")  # they run on some servers only
        self.fire(t, "UPDATE", [x for x in kept if x[0] != x[1]])

    def delete(self, n: exp.Delete, rows: dict[str, Row | None]) -> None:
        if n.args.get("using") or n.args.get("limit") or n.args.get("order") or not isinstance(n.this, exp.Table) \
                or n.this.args.get("joins"):
            raise _Inexact("multi-table or ordered DELETE in a trigger")
        t = self._table(n.this)
        where = n.args.get("where")
        pairs: list[Pair] = []
        got = self.data.delete_where(t, resolved(_bound(where.this, rows), self.source) if where is not None
                                     else None, pairs=pairs) if self.data.tracked(t) is not None else None
        self.count(t.name, got)
        self.fire(t, "DELETE", pairs if got is not None else None)

    def update(self, n: exp.Update, rows: dict[str, Row | None]) -> None:
        if not isinstance(n.this, exp.Table) or n.args.get("from") or n.args.get("limit") or n.args.get("order"):
            raise _Inexact("ordered UPDATE in a trigger")
        if n.this.args.get("joins"):
            self.update_joined(n, rows)
            return
        t = self._table(n.this)
        where = n.args.get("where")
        # ``WHERE id = (SELECT restaurant_id FROM orders WHERE id = NEW.order_id)``: the subquery's value
        cond = resolved(_bound(where.this, rows), self.source) if where is not None else None
        sets = [(e.this.name, resolved(_bound(e.expression, rows), self.source)) for e in n.expressions
                if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column)]
        got = self.updated(t, n, cond, sets)
        if got is not None and got.insert_id is not None:
            _local(rows)[_INSERT_ID] = got.insert_id  # ``SET c = LAST_INSERT_ID(c + 1)``: the body's next id

    def update_joined(self, n: exp.Update, rows: dict[str, Row | None]) -> None:
        """A multi-table UPDATE that sets one table's columns, its rows chosen by the join (freight_forwarding_app's
        customs hold puts the shipment joined to the declaration on hold)."""
        frm = n.this
        named = {e.this.table.lower() for e in n.expressions
                 if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column)}
        tables = [frm, *(j.this for j in frm.args.get("joins") or ())]
        node = next((x for x in tables if isinstance(x, exp.Table) and x.alias_or_name.lower() in named), None) \
            if len(named) == 1 else None
        if node is None:
            raise _Inexact("a multi-table UPDATE of several tables, or of columns it does not qualify")
        t = self._table(node)
        bound = _bound(n, rows)
        assert isinstance(bound, exp.Update)
        got = selected(bound, t, self.data.source(t, positions=True), self.source) \
            if self.data.tracked(t) is not None else None
        if got is None:
            raise _Inexact("a join the model does not follow")
        positions, joined = got
        sets = [(c, resolved(e, self.source)) for c, e in assignments_to(bound, t)]
        self.updated(t, n, None, sets, positions, joined)

    def updated(self, t: Table, n: exp.Update, cond: exp.Expression | None, sets: list[tuple[str, exp.Expression]],
                positions: list[int] | None = None, joined: dict[int, Row] | None = None) -> Updated | None:
        pairs: list[Pair] = []
        try:
            got = self.data.update_where(t, cond, sets, positions=positions, pairs=pairs, joined=joined) \
                if self.data.tracked(t) is not None else None
        except Refused as refused:
            if t.engine.lower() != "innodb":
                raise _Inexact(f"the trigger's UPDATE fails ({refused.code})") from None
            raise _Signal(refused.code) from None  # the statement fails with it, and is undone (trigger_check.sql)
        self.count(t.name, None if got is None else got[0])
        self.fire(t, "UPDATE", pairs if got is not None else None, _changing(t, n))
        return got

    def fire(self, t: Table, event: str, pairs: list[Pair] | None, changing: frozenset[str] | None = None) -> None:
        """The triggers of the rows a body's statement changed (a reading's trigger updates its device, whose
        AFTER UPDATE trigger logs only a status change: iot_app)."""
        if not any(tr.event.upper() == event for tr in t.triggers):
            return
        if pairs is None or self.depth >= 8:
            raise _Inexact("triggers of rows not followed")
        try:
            got = run(self.data, t, event, pairs, self.tables, self.journal, self.bind, self.dup_fails, self.used,
                      self.depth + 1, self.writer, changing=changing)
        except Signalled as sig:
            raise _Signal(sig.code, sig.raised_in_body) from None
        if got is None:
            raise _Inexact("triggers of a body's rows")
        merge(self.changed, got)

    def count(self, table: str, n: int | None) -> None:
        count(self.changed, table, n)


def _changing(t: Table, n: exp.Update) -> frozenset[str]:
    """The columns of ``t`` a body's UPDATE may change (``update_sets``)."""
    return update_sets(t, [e.this.name for e in n.expressions if isinstance(e, exp.EQ)
                           and isinstance(e.this, exp.Column)])


def update_sets(t: Table, columns: Sequence[str]) -> frozenset[str]:
    """The columns of ``t`` an UPDATE assigning ``columns`` may change: those, ON UPDATE CURRENT_TIMESTAMP and
    generated ones, and those its BEFORE UPDATE triggers assign (``SET NEW.c``; a NEW.c they only read keeps
    its value: loan_servicing_app's ``IF NEW.status IN (...)`` in a trigger that sets other columns)."""
    out = {c.lower() for c in columns}
    out |= {c.name.lower() for c in t.columns if c.on_update_now or c.generated is not Generated.NO}
    sets = [x for tr in t.triggers if tr.event.upper() == "UPDATE" and tr.timing.upper() == "BEFORE"
            for x in guarded_sets(tr.text)]
    names = frozenset(c.name.lower() for c in t.columns)
    grew = True
    while grew:  # a SET whose IF cannot hold while the columns not changed so far keep their values does not run
        unchanged = names - out
        before = len(out)
        out.update(c for c, guards in sets if c not in out and not any(
            by_shape(cond, unchanged) is (not branch) for cond, branch in guards))
        grew = len(out) > before
    return frozenset(out)


@lru_cache(maxsize=256)
def guarded_sets(text: str) -> tuple[tuple[str, tuple[tuple[exp.Expression, bool], ...]], ...]:
    """Each ``SET NEW.c`` of a trigger with the IF conditions around it and the branch it is in (True: THEN)
    (blood_bank_app's ``IF NEW.status = 'AVAILABLE' AND OLD.status <> 'AVAILABLE' ... THEN SET NEW.status``
    does not run for an UPDATE that leaves status alone)."""
    body = _body(text)
    if body is None:
        return ()
    out: list[tuple[str, tuple[tuple[exp.Expression, bool], ...]]] = []
    for item in body.find_all(exp.SetItem):
        eq = item.this
        if not (isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column) and eq.this.table.lower() == "new"):
            continue
        guards: list[tuple[exp.Expression, bool]] = []
        child: object = item
        at = item.parent
        while at is not None and at is not body:
            if isinstance(at, exp.IfBlock) and isinstance(at.this, exp.Expression) and child is not at.this:
                guards.append((at.this, child is at.args.get("true")))
            child, at = at, at.parent
        out.append((eq.this.name.lower(), tuple(guards)))
    return tuple(out)


def merge(total: Changed, got: Changed) -> None:
    """Add what ``got`` counts to ``total``."""
    for k, n in got.items():
        count(total, k, n)
    for k, u in got.upserts.items():
        _upserted(total, k, u)


def _upserted(changed: Changed, table: str, u: Upsert) -> None:
    key = table.lower()
    had = changed.upserts.get(key)
    changed.upserts[key] = u if had is None else Upsert(had.written + u.written, had.updated + u.updated,
                                                        u.columns, u.assigned)


def count(changed: Changed, table: str, n: int | None) -> None:
    """Add ``n`` rows (None: some, how many unknown) to ``table``'s count."""
    key = table.lower()
    had = changed.get(key, 0)
    changed[key] = None if had is None or n is None else had + n


def _only_signals(n: exp.IfBlock) -> bool:
    """Whether an IF's branches do nothing but SIGNAL (a validation guard: ``IF NEW.birth_date > CURDATE()
    THEN SIGNAL ...``)."""
    branches = [b for b in (n.args.get("true"), n.args.get("false")) if isinstance(b, exp.Expression)]
    return all(isinstance(x, nodes.Signal) for b in branches
               for x in (b.expressions if isinstance(b, exp.Block) else [b]))


class _Returned(Exception):
    def __init__(self, v: object) -> None:
        super().__init__()
        self.value = v


class _Signal(Exception):
    def __init__(self, code: int, raised_in_body: bool = True) -> None:
        super().__init__(code)
        self.code, self.raised_in_body = code, raised_in_body


# LAST_INSERT_ID() as a body has set it, kept among its locals (a name no variable has): a function's or a
# trigger's own, put back when it ends (fixtures/seeds/003_logging_rules/body_insert_id.sql)
_INSERT_ID = "last_insert_id()"


def _local(rows: dict[str, Row | None]) -> Row:
    local = rows.get("")
    if local is None:
        local = rows[""] = {}
    return local


def _bound(e: exp.Expression, rows: dict[str, Row | None]) -> exp.Expression:
    """``e`` with OLD.c / NEW.c replaced by the row's values (unknown ones stay unknown), and the body's
    local variables (which take precedence over column names) by theirs."""
    local = rows.get("") or {}

    def put(x: exp.Expression) -> exp.Expression:
        if isinstance(x, exp.Column | exp.Var) and not x.args.get("table") and x.name.lower() in local:
            return known(local[x.name.lower()])  # (a Var: ``SET NEW.c = v``, as sqlglot reads a lone name)
        if isinstance(x, exp.Anonymous) and not x.expressions and x.name.upper() == "LAST_INSERT_ID" \
                and _INSERT_ID in local:
            return known(local[_INSERT_ID], "LAST_INSERT_ID()")
        if isinstance(x, exp.Column) and x.table.lower() in ("old", "new"):
            row = rows.get(x.table.lower())
            if row is None:
                raise _Inexact(f"{x.table}.{x.name} in a trigger without that row")
            return known(row.get(x.name.lower(), UNKNOWN))
        return x

    return e.copy().transform(put)
