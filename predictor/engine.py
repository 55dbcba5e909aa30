"""The prediction loop: one ``Predictor`` walks a workload statement by statement, keeping the catalog,
every session's state and the predicted binlog, and hands each statement to the handler of its kind.

Handlers are small functions in ``HANDLERS``, one module per family: ``dml`` (with ``rows``: what the
tracked rows decide), ``ddl``, ``transactions``, ``calls``. The per-statement rules they apply (resolve,
unsafe, decide, images, cache placement) live in their own modules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from sqlglot import exp

from predictor import function_runs, triggers
from predictor.analyze import DML_KINDS, Kind, Op, StatementInfo, Write
from predictor.binlog import Binlog, Builder, copy_record
from predictor.calls import handle_call
from predictor.catalog import Catalog, Table
from predictor.codes import ER_NON_UNIQ_ERROR, ER_PARSE_ERROR, ER_SP_DOES_NOT_EXIST
from predictor.context import Context
from predictor.data import PARSES_PER_ANALYSIS, DataModel
from predictor.ddl import (
    handle_alter,
    handle_create_routine,
    handle_create_select,
    handle_create_table,
    handle_create_trigger,
    handle_create_view,
    handle_ddl_other,
    handle_drop_routine,
    handle_drop_table,
    handle_drop_trigger,
    handle_drop_view,
    handle_flush,
    handle_rename,
    handle_sequence,
    handle_truncate,
)
from predictor.dml import apply_outcome, counts_change, handle_binlog, handle_dml, handle_noop, update_row_counts
from predictor.evaluate import UNKNOWN, CannotEvaluate
from predictor.fingerprint import fingerprint
from predictor.memo import emptiness, session_part, trx_clean
from predictor.moments import READING
from predictor.outcome import Outcome, Replay
from predictor.prepared import handle_deallocate, handle_execute, handle_prepare
from predictor.profiles import Profile
from predictor.query import resolved
from predictor.records import StatementRecord
from predictor.resolve import lookup, resolve
from predictor.rows import parsed, table_source, with_key_checks
from predictor.session import Cache, Piece, SessionState
from predictor.transactions import (
    handle_begin,
    handle_commit,
    handle_lock,
    handle_release,
    handle_rollback,
    handle_rollback_to,
    handle_savepoint,
    handle_set,
    handle_set_transaction,
    handle_unlock,
    handle_xa,
)
from predictor.undo import journal, restore

Handler = Callable[["Predictor", Builder, StatementInfo, SessionState], None]


class Predictor:
    def __init__(self, profile: Profile, session_vars: Mapping[str, str] | None = None,
                 cached: bool = True) -> None:
        self.profile = profile
        self.cached = cached  # False: every DML decision is made afresh (see predict_workload)
        self.session_vars = dict(session_vars or {})
        self.catalog = Catalog()
        self.sessions: dict[str, SessionState] = {}
        self.binlog = Binlog(cached, self._column_order)
        self.rows: dict[str, int | None] = {}  # known row counts of base tables (None: unknown)
        self.memo: dict[tuple[object, ...], Outcome] = {}
        self.memo_infos: dict[int, StatementInfo] = {}
        self.memo_names: dict[int, tuple[int, tuple[str, ...]]] = {}  # id(info): (catalog version, tables)
        self.analyses: set[int | str] = set()  # analyses seen (id, or fingerprint uncached): new ones add parses
        self.id_writers: dict[tuple[int, int], bool] = {}  # (id(info), catalog version): may set LAST_INSERT_ID()
        self.plain: dict[tuple[int, int], bool] = {}  # (id(info), catalog version): rows.with_key_checks' fast path
        self.function_writes: dict[tuple[tuple[str, ...], int], tuple[Write, ...]] = {}  # see ``_function_writes``
        self.replays: dict[tuple[object, ...], Replay] = {}  # memo key -> an autocommitted statement's result
        self.applied: tuple[StatementInfo, Outcome] | None = None  # handle_dml: memoised outcome as is
        # replay keys: each session's session_part as a small int while no statement took the full path
        self.session_ids: dict[str, int] = {}
        self.session_parts: dict[tuple[object, ...], int] = {}
        self.clean_parts: set[int] = set()
        self.noop_memo: dict[tuple[object, ...], tuple[bool, bool]] = {}  # SELECT/DO: (writes, missing)
        self.quiet: dict[tuple[object, ...], StatementRecord] = {}  # SELECT/DO writing nothing: record shape
        self.data = DataModel()
        self.ran: function_runs.Ran | None = None  # the statement's calls of functions that write, run

    # ---- sessions and transactions -------------------------------------------------------------

    def session(self, name: str) -> SessionState:
        s = self.sessions.get(name)
        if s is None:
            s = SessionState.start(name, self.profile.SESSION_DEFAULTS, self.session_vars)
            self.sessions[name] = s
        return s

    def commit(self, s: SessionState) -> None:
        self.binlog.flush(s.trx_cache, Cache.TRX)
        s.reset_trx()

    def rollback(self, s: SessionState) -> None:
        restore(s.trx_undo, self.data, self.rows)  # the rows a rolled-back transaction changed are back
        fmt = s.binlog_format
        nontrans = self.cannot_rollback(s) and (self.profile.ROLLBACK_LOGS_UNDOABLE_CACHE_ONLY or fmt == "STATEMENT")
        keep = s.trx_keep_log or nontrans or (s.trx_nontrans_temp and fmt == "MIXED")
        if keep and s.trx_cache:
            self.binlog.flush(s.trx_cache, Cache.TRX)
        else:
            self.noted(s.trx_cache)
        s.reset_trx()

    def noted(self, pieces: list[Piece]) -> None:
        """The statements of a transaction cache a ROLLBACK discards were still decided as they ran: their
        1592 note stands though nothing of them is logged (telecom_mvno_app: a top-up rolled back, to a
        savepoint too)."""
        for piece in pieces:
            b = self.binlog.builders.get(piece.seq)
            if b is not None and not piece.rows:
                b.unsafe_noted = True

    def journal(self, s: SessionState, t: Table) -> None:
        """Before ``s`` changes ``t``'s rows in a transaction: keep them for ROLLBACK [TO SAVEPOINT]."""
        mine = s.multi_stmt_mode and self.profile.engine(t.engine).transactional
        others = [u for o in self.sessions.values() if o is not s and o.in_trx for u in o.undo_layers() if u]
        if mine or others:
            journal(s.undo_layers() if mine else (), others, self.data, self.rows, t.ident)

    def cannot_rollback(self, s: SessionState) -> bool:
        """Whether a rollback must be logged because something it cannot undo was changed."""
        if self.profile.ROLLBACK_LOGS_UNDOABLE_CACHE_ONLY:
            return any(x.nontrans for x in s.trx_cache)  # MySQL: the cache's own cannot_rollback flag
        return s.trx_modified_nontrans

    def implicit_commit(self, s: SessionState) -> None:
        if s.in_trx or s.trx_cache:
            self.commit(s)
        s.explicit = False

    def end_statement(self, s: SessionState, stmt_cache: list[Piece], trx_pieces: list[Piece]) -> None:
        """Flush the statement cache, queue transactional pieces, commit when not in a transaction."""
        if (self.profile.ONE_GROUP_PER_COMMIT and stmt_cache and not s.multi_stmt_mode
                and (trx_pieces or s.trx_cache)):
            self.binlog.flush_together([(stmt_cache, Cache.STMT), ([*s.trx_cache, *trx_pieces], Cache.TRX)])
            s.reset_trx()
            return
        self.binlog.flush(stmt_cache, Cache.STMT)
        s.trx_cache.extend(trx_pieces)
        if s.multi_stmt_mode:
            s.in_trx = True
        else:
            self.commit(s)

    def finish(self) -> None:
        """Disconnect every session: open transactions are rolled back."""
        for s in self.sessions.values():
            if s.in_trx or s.trx_cache:
                self.rollback(s)

    # ---- one statement ---------------------------------------------------------------------------

    def step(self, seq: int, session: str, sql: str, info: StatementInfo) -> None:
        READING.seq = seq  # the clock readings it stores (predictor/moments.py)
        s = self.sessions.get(session)
        if s is None:
            s = self.session(session)
        s.read_insert_id = s.last_insert_id  # s.next_statement(), inlined for the hot path
        s.row_count = s.rows_changed
        s.rows_changed = None
        if s.sticky_row and not s.temp_tables:
            s.sticky_row = False  # each statement starts in the session's format once no temporary table is left
        if info.kind is not Kind.SELECT:
            for name in info.user_vars:  # also when a memoised record is replayed
                s.user_vars[name] = UNKNOWN
        if info.reserved_names and not info.reserved_names.isdisjoint(self.profile.RESERVED_WORDS):
            self._reserved(seq, session, sql, s)
            return
        if self.cached:
            kind = info.kind
            if kind in DML_KINDS:
                if not s.trx_cache and not s.multi_stmt_mode:
                    self._step_autocommit_dml(seq, session, sql, info, s)
                    return
            elif (kind is Kind.SELECT and not info.user_vars and not info.for_update) or kind is Kind.DO:
                self._step_quiet(seq, session, sql, info, s)
                return
        self._step_full(seq, session, sql, info, s)

    def _reserved(self, seq: int, session: str, sql: str, s: SessionState) -> None:
        """A name the server reserves, unquoted: the statement does not parse there (1064), nothing runs."""
        b = self.binlog.builders[seq] = Builder(seq, session, sql)
        b.error = ER_PARSE_ERROR
        if not s.trx_cache:
            self.binlog.finalize(seq)

    def fail(self, seq: int, session: str, sql: str, error: Exception) -> None:
        """The predictor itself failed on statement ``seq`` (a bug, not bad input): the statement is UNKNOWN
        with the error as its reason, and the rest of the workload is still predicted."""
        self.session_ids.clear()
        self.binlog.done = [r for r in self.binlog.done if r.seq != seq]
        b = self.binlog.builders.get(seq)
        if b is None:
            b = self.binlog.builders[seq] = Builder(seq, session, sql)
        b.unknown = True
        b.reason = f"predictor error: {type(error).__name__}: {error}"
        s = self.sessions.get(session)
        if s is None or not s.trx_cache:
            self.binlog.finalize(seq)

    def _step_quiet(self, seq: int, session: str, sql: str, info: StatementInfo, s: SessionState) -> None:
        """SELECT / DO: when resolving finds no table written (handle_noop), the record depends only on the
        statement and the catalog (missing tables, deprecation warnings), in any transaction state."""
        key = (id(info), self.catalog.version) if not s.temp_tables else None
        shape = self.quiet.get(key) if key is not None else None
        if shape is not None:
            self.binlog.done.append(copy_record(shape, seq, session, sql, None))
            return
        b = self._step_full(seq, session, sql, info, s)
        writes = self.noop_memo.get(key, (True, True))[0] if key is not None and (info.functions or info.reads) \
            else False
        if key is None or b.group is not None or writes:
            return
        if self.binlog.builders.get(seq) is b:  # kept for a transaction's end: finalize it now, no piece can come
            self.binlog.finalize(seq)
        rec = self.binlog.done[-1]
        if rec.seq == seq:
            if len(self.quiet) > 50_000:
                self.quiet.clear()
            self.quiet[key] = rec

    def _step_full(self, seq: int, session: str, sql: str, info: StatementInfo, s: SessionState) -> Builder:
        self.session_ids.clear()  # any handler may change any session
        seen = id(info) if self.cached else fingerprint(sql)  # the Analyzer keeps one analysis per fingerprint
        if seen not in self.analyses:  # a statement unlike any before (literals aside): more parses
            self.analyses.add(seen)  # (a new analysis is never replayed: it always comes this way)
            self.data.parses_left += PARSES_PER_ANALYSIS
        b = Builder(seq, session, sql)
        self.binlog.builders[seq] = b
        if info.kind is Kind.UNKNOWN:
            b.unknown = True
            b.reason = info.unknown_reason or "unsupported statement"
            if not self.catalog.columns_unsure:  # an ALTER TABLE, maybe: no more 1054 from the catalog
                self.catalog.columns_unsure = True
                self.catalog.version += 1
        else:
            self._step(b, info, s)
        if self.cached and not s.trx_cache:
            # a statement's pieces only ever wait in its own session's transaction cache: none are left
            self.binlog.finalize(seq)
        return b

    def _replay_key(self, session: str, info: StatementInfo, s: SessionState) -> tuple[object, ...]:
        """memo_key with the session's part interned as a small int, kept from one replayed statement to
        the next (replaying changes no session field of it but the ones reset_trx() resets)."""
        sid = self.session_ids.get(session)
        if sid is None:
            part = session_part(s)
            sid = self.session_parts.get(part)
            if sid is None:
                if len(self.session_parts) > 10_000:  # the ints are reused: forget every key holding one
                    self.session_parts.clear()
                    self.clean_parts.clear()
                    self.session_ids.clear()
                    self.replays.clear()
                sid = self.session_parts[part] = len(self.session_parts)
                if trx_clean(s):
                    self.clean_parts.add(sid)
            self.session_ids[session] = sid
        return (id(info), self.catalog.version, sid, *emptiness(self, info, s))

    def _step_autocommit_dml(self, seq: int, session: str, sql: str, info: StatementInfo, s: SessionState) -> None:
        """An autocommitted DML statement: when the same statement template was already applied in the same
        state (the memo key), replay it: the same record but for seq, sql and group, the same number of
        groups, the same row counts and reset transaction. The data model still sees every statement."""
        key = self._replay_key(session, info, s)
        r = self.replays.get(key)
        if r is None:
            groups = self.binlog.groups
            self.applied = None
            self._step_full(seq, session, sql, info, s)
            applied, self.applied = self.applied, None
            if applied is None or applied[0] is not info or not applied[1].logged or not self.binlog.done:
                return
            out = applied[1]
            rec = self.binlog.done[-1]
            used = self.binlog.groups - groups
            if rec.seq == seq and rec.group == (groups if used else None):
                self.replays[key] = Replay(out, rec, used, counts_change(info, out.row_writes))
            return
        out = r.out
        self.run_functions(sql, info, s)
        # the data model sees every statement; it changes no session field of session_part
        checked = with_key_checks(self, sql, info, s, out)
        if checked.error is not None:
            self.undo_functions(s)
        if checked is not out:  # the data model changed the decision (a duplicate key): apply it in full
            self.session_ids.clear()
            b = Builder(seq, session, sql)
            self.binlog.builders[seq] = b
            apply_outcome(self, b, info, s, checked)
            self._tail(b, info, s)
            if not s.trx_cache:
                self.binlog.finalize(seq)
            return
        binlog = self.binlog
        g = binlog.groups
        binlog.groups = g + r.groups
        if r.counts:
            update_row_counts(self, info, s, out.row_writes)
        s.reset_trx()
        if key[2] not in self.clean_parts:
            del self.session_ids[session]
        binlog.done.append(copy_record(r.record, seq, session, sql, g if r.groups else None))

    def _column_order(self, table: str) -> tuple[str, ...] | None:
        t = self.catalog.table(table)
        return None if t is None else tuple(c.name for c in t.columns)

    def _step(self, b: Builder, info: StatementInfo, s: SessionState) -> None:
        self.dispatch(b, info, s)
        self._tail(b, info, s)

    def dispatch(self, b: Builder, info: StatementInfo, s: SessionState) -> None:
        """Hand the statement to the handler of its kind (``HANDLERS``)."""
        if info.kind is not Kind.SELECT:  # @v := ... in other statements: not followed (predictor/variables.py)
            for name in info.user_vars:
                s.user_vars[name] = UNKNOWN
        if self.profile.MISSING_FUNCTIONS and info.kind not in _DEFINITIONS and any(
                f in self.profile.MISSING_FUNCTIONS for f in info.functions):
            b.error = ER_SP_DOES_NOT_EXIST  # FUNCTION md5 does not exist: nothing runs
            return
        self.run_functions(b.sql, info, s)
        HANDLERS.get(info.kind, handle_noop)(self, b, info, s)
        if b.error is not None:
            self.undo_functions(s)

    def run_functions(self, sql: str, info: StatementInfo, s: SessionState) -> None:
        """Run the statement's calls of stored functions that write on the data model (predictor/function_runs.py);
        when they cannot be followed, forget what they write."""
        self.ran = None
        if not info.functions or not self.catalog.has_functions() or not self.functions_write(info.functions):
            return
        tree = parsed(self, sql, s)
        if isinstance(tree, exp.Expression):
            tree = function_runs.with_subqueries_valued(tree, self.writing_function, lambda e: resolved(
                e, lambda name: table_source(self, name, s), per_row=False))
        found = function_runs.calls(tree, self.writing_function, lambda update: self._matched(update, s)) \
            if isinstance(tree, exp.Expression) else None
        if not found:
            self.forget_function_writes(info, s)
            return
        tables = [t for w in self.functions_write(info.functions)
                  if (t := lookup(w.table, self.catalog, s)) is not None]
        before = function_runs.saved(self.data, tables)
        used = frozenset(r.lower() for r in info.reads) | frozenset(info.write_names)
        changed = triggers.Changed()
        results = function_runs.run(found, self.writing_function, lambda text, args: triggers.call(
            self.data, text, args, lambda name: lookup(name, self.catalog, s), lambda t: self.journal(s, t), used,
            self.writing_function, changed))
        if results is None:
            self.forget_function_writes(info, s)
            return
        self.ran = function_runs.Ran(sql, results, before, changed)

    def _matched(self, update: exp.Update, s: SessionState) -> int | None:
        """How many rows a single-table UPDATE selects, from the data model (None: not known)."""
        t = lookup(update.this.name, self.catalog, s)
        where = update.args.get("where")
        if t is None:
            return None
        try:
            cond = resolved(where.this, lambda name: table_source(self, name, s)) if where is not None else None
        except CannotEvaluate:
            return None
        got = self.data.selected(t, cond)
        return None if got is None else len(got)

    def undo_functions(self, s: SessionState) -> None:
        """The statement failed: what its functions wrote to transactional tables is undone with it."""
        if self.ran is not None:
            function_runs.undo(self.data, self.ran, lambda t: self.profile.engine(t.engine).transactional)
            self.ran = None

    def results(self, sql: str) -> Callable[[exp.Expression], exp.Expression] | None:
        """What the statement ``sql``'s calls of functions that write returned, to put into a tree of it."""
        ran = self.ran
        if ran is None or ran.sql != sql:
            return None
        return lambda tree: function_runs.put(tree, self.writing_function, ran.results)

    def writing_function(self, name: str) -> str | None:
        """The CREATE text of stored function ``name`` if it writes a table (itself or through the functions
        it calls), else None."""
        return self.function_text(name) if self.functions_write((name.lower(),)) else None

    def functions_write(self, functions: tuple[str, ...]) -> tuple[Write, ...]:
        """What the stored functions ``functions`` write, themselves or through the functions they call."""
        key = (functions, self.catalog.version)
        writes = self.function_writes.get(key)
        if writes is None:
            writes = self.function_writes[key] = self._function_writes(functions, 0)
        return writes

    def forget_function_writes(self, info: StatementInfo, s: SessionState) -> None:
        """What the statement's stored functions write is not known any more: a function that writes is never
        inlined (routines.inline_functions), so its rows are not evaluated (the columns an UPDATE sets; the
        whole table for an INSERT or DELETE). ev's fn_next_ref and mes's fn_next_no bump a sequence row."""
        if not info.functions or not self.catalog.has_functions():
            return
        for w in self.functions_write(info.functions):
            t = lookup(w.table, self.catalog, s)
            d = self.data.tables.get(t.ident if t is not None else w.table.lower())
            if d is None or not d.tracked or t is None:
                continue
            self.journal(s, t)  # (a ROLLBACK puts the known values back)
            if w.op is Op.UPDATE and w.columns is not None:
                d.set_unknown(w.columns)
            else:
                d.tracked = False

    def _function_writes(self, functions: Iterable[str], depth: int) -> tuple[Write, ...]:
        out: list[Write] = []
        for f in functions:
            r = self.catalog.routine("FUNCTION", f)
            if r is None or depth > 8:
                continue
            for x in r.body:
                out += [w for w in x.writes if w.table]
                out += self._function_writes(x.functions, depth + 1)
        return tuple(out)

    def _tail(self, b: Builder, info: StatementInfo, s: SessionState) -> None:
        """What every statement gets after its handler ran: deprecation warnings, one-shot isolation."""
        if self.profile.DEPRECATED_FUNCTIONS and (_uses(info, self.profile.DEPRECATED_FUNCTIONS) or any(
                v.select is not None and _uses(v.select, self.profile.DEPRECATED_FUNCTIONS)
                for v in (self.catalog.view(r) for r in info.reads) if v is not None)):
            b.warnings.add(1287)  # parsed again: the statement's own text and the views it reads
        elif self.profile.DEPRECATED_OUTSIDE_ROUTINES and info.kind not in _DEFINITIONS and any(
                f in self.profile.DEPRECATED_OUTSIDE_ROUTINES for f in info.functions):
            b.warnings.add(1287)
        if self.profile.DEPRECATED_AT_RUN and b.error is None and self._runs(info, s, self.profile.DEPRECATED_AT_RUN):
            b.warnings.add(1287)
        if any(_is_column(lookup(t, self.catalog, s), name) for name, tables in info.group_aliases for t in tables):
            b.warnings.add(ER_NON_UNIQ_ERROR)  # GROUP BY takes the column, and says the alias was ambiguous
        if s.next_isolation and info.kind in (Kind.COMMIT, Kind.ROLLBACK):
            s.next_isolation = None

    def _runs(self, info: StatementInfo, s: SessionState, names: frozenset[str], depth: int = 0) -> bool:
        """Whether executing the statement calls one of ``names``, through routines and triggers too."""
        if info.kind in (Kind.CREATE_ROUTINE, Kind.CREATE_TRIGGER, Kind.CREATE_VIEW) or depth > 8:
            return False
        if any(f in names for f in info.functions):
            return True
        if info.kind is Kind.CALL:
            r = self.catalog.routine("PROCEDURE", info.name or "")
            return r is not None and any(self._runs(x, s, names, depth + 1) for x in r.body)
        # stored functions run their body each time; trigger and view bodies are not re-checked (seen on 9.7)
        for f in info.functions:
            r = self.catalog.routine("FUNCTION", f)
            if r is not None and any(self._runs(x, s, names, depth + 1) for x in r.body):
                return True
        return False

    def function_text(self, name: str) -> str | None:
        """The CREATE FUNCTION statement of stored function ``name``, if there is one."""
        r = self.catalog.routine("FUNCTION", name)
        return r.text if r is not None else None

    def context(self, seq: int, info: StatementInfo, s: SessionState) -> Context:
        access = resolve(info, self.catalog, s, set_null_cascades=self.profile.FOREIGN_KEY_TABLES_LOCKED,
                         joined_triggers=self.profile.MULTI_UPDATE_OPENS_JOINED)
        return Context(seq, info, access, s, self.catalog, self.profile)


def _uses(info: StatementInfo, names: frozenset[str]) -> bool:
    """Whether the statement, or a body or view it defines, calls one of ``names``."""
    if any(f in names for f in info.functions):
        return True
    if info.select is not None and _uses(info.select, names):
        return True
    return any(_uses(b, names) for b in info.body)


_DEFINITIONS = frozenset({Kind.CREATE_ROUTINE, Kind.CREATE_TRIGGER})


HANDLERS: dict[Kind, Handler] = {
    **{k: handle_dml for k in DML_KINDS},
    Kind.SELECT: handle_noop,
    Kind.DO: handle_noop,
    Kind.CALL: handle_call,
    Kind.CREATE_TABLE: handle_create_table,
    Kind.CREATE_TABLE_LIKE: handle_create_table,
    Kind.CREATE_TABLE_SELECT: handle_create_select,
    Kind.DROP_TABLE: handle_drop_table,
    Kind.ALTER_TABLE: handle_alter,
    Kind.TRUNCATE: handle_truncate,
    Kind.RENAME_TABLE: handle_rename,
    Kind.CREATE_TRIGGER: handle_create_trigger,
    Kind.DROP_TRIGGER: handle_drop_trigger,
    Kind.CREATE_ROUTINE: handle_create_routine,
    Kind.DROP_ROUTINE: handle_drop_routine,
    Kind.CREATE_VIEW: handle_create_view,
    Kind.DROP_VIEW: handle_drop_view,
    Kind.CREATE_SEQUENCE: handle_sequence,
    Kind.DDL_OTHER: handle_ddl_other,
    Kind.BEGIN: handle_begin,
    Kind.COMMIT: handle_commit,
    Kind.ROLLBACK: handle_rollback,
    Kind.SAVEPOINT: handle_savepoint,
    Kind.ROLLBACK_TO: handle_rollback_to,
    Kind.RELEASE_SAVEPOINT: handle_release,
    Kind.XA: handle_xa,
    Kind.BINLOG: handle_binlog,
    Kind.PREPARE: handle_prepare,
    Kind.EXECUTE: handle_execute,
    Kind.DEALLOCATE: handle_deallocate,
    Kind.SET: handle_set,
    Kind.SET_TRANSACTION: handle_set_transaction,
    Kind.LOCK_TABLES: handle_lock,
    Kind.UNLOCK_TABLES: handle_unlock,
    Kind.FLUSH: handle_flush,
    Kind.NOOP: handle_noop,
}
"""Which handler runs for each statement kind."""


def _is_column(t: Table | None, name: str) -> bool:
    return t is not None and t.column(name) is not None
