"""The prediction loop: one ``Predictor`` walks a workload statement by statement, keeping the catalog,
every session's state and the predicted binlog, and hands each statement to the handler of its kind.

Handlers are small functions in ``HANDLERS``; the per-statement rules they apply (resolve, unsafe,
decide, images, cache placement) live in their own modules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from sqlglot import exp

from predictor import triggers
from predictor.analyze import DML_KINDS, ONE_ROW, SELF_SUBQUERY, Kind, Op, StatementInfo
from predictor.binlog import Binlog, Builder, copy_record
from predictor.catalog import Catalog, Column, KeyKind, Routine, Table, Trigger, View
from predictor.context import Context
from predictor.data import POSITION, DataModel, Mode, Pair, values_rows
from predictor.decide import ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE, decide, gtid_consistency
from predictor.evaluate import Row
from predictor.images import images
from predictor.injection import InjectedRows, InjectionError, injected_rows
from predictor.literals import UNSURE, Unsure, literal_rows
from predictor.nodes import BinlogEvent
from predictor.parse import Parsed, parse
from predictor.profiles import Profile
from predictor.query import Source, matching_rows, resolved, select_rows
from predictor.records import StatementRecord
from predictor.resolve import lookup, resolve
from predictor.routines import UNKNOWN_NAME, Bindings, Signature, bind, call_bindings, inline_functions
from predictor.session import Cache, Piece, SessionState, canonical_var, normalize_value
from predictor.triggers import Changed
from predictor.undo import journal, restore
from predictor.unsafe import classify

ER_TABLE_EXISTS = 1050
ER_BAD_TABLE = 1051
ER_NO_SUCH_TABLE = 1146
ER_SP_DOES_NOT_EXIST = 1305
ER_TRG_DOES_NOT_EXIST = 1360
ER_TRG_ALREADY_EXISTS = 1359
ER_SP_ALREADY_EXISTS = 1304
ER_UNKNOWN_VIEW = 4092
ER_UNKNOWN_SYSTEM_VARIABLE = 1193
ER_WARNING_NOT_COMPLETE_ROLLBACK = 1196
ER_VIEW_SELECT_VARIABLE = 1351

Handler = Callable[["Predictor", Builder, StatementInfo, SessionState], None]


class Predictor:
    def __init__(self, profile: Profile, session_vars: Mapping[str, str] | None = None,
                 cached: bool = True) -> None:
        self.profile = profile
        self.cached = cached  # False: every DML decision is made afresh (see predict_workload)
        self.session_vars = dict(session_vars or {})
        self.catalog = Catalog()
        self.sessions: dict[str, SessionState] = {}
        self.binlog = Binlog(cached)
        self.rows: dict[str, int | None] = {}  # known row counts of base tables (None: unknown)
        self.memo: dict[tuple[object, ...], _Outcome] = {}
        self.memo_infos: dict[int, StatementInfo] = {}
        self.memo_names: dict[int, tuple[int, tuple[str, ...]]] = {}  # id(info): (catalog version, tables)
        self.replays: dict[tuple[object, ...], _Replay] = {}  # memo key -> an autocommitted statement's result
        self.applied: tuple[StatementInfo, _Outcome] | None = None  # handle_dml: memoised outcome as is
        # replay keys: each session's _session_part as a small int while no statement took the full path
        self.session_ids: dict[str, int] = {}
        self.session_parts: dict[tuple[object, ...], int] = {}
        self.clean_parts: set[int] = set()
        self.noop_memo: dict[tuple[object, ...], tuple[bool, bool]] = {}  # SELECT/DO: (writes, missing)
        self.quiet: dict[tuple[object, ...], StatementRecord] = {}  # SELECT/DO writing nothing: record shape
        self.data = DataModel()

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
        s.reset_trx()

    def journal(self, s: SessionState, t: Table) -> None:
        """Before ``s`` changes ``t``'s rows in a transaction: keep them for ROLLBACK [TO SAVEPOINT]."""
        mine = s.multi_stmt_mode and self.profile.engine(t.engine).transactional and not t.temporary
        others = [u for o in self.sessions.values() if o is not s and o.in_trx for u in o.undo_layers() if u]
        if mine or others:
            journal(s.undo_layers() if mine else (), others, self.data, self.rows, t.name)

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
        s = self.sessions.get(session)
        if s is None:
            s = self.session(session)
        if s.sticky_row and not s.temp_tables:
            s.sticky_row = False  # each statement starts in the session's format once no temporary table is left
        if self.cached:
            kind = info.kind
            if kind in DML_KINDS:
                if not s.trx_cache and not s.multi_stmt_mode:
                    self._step_autocommit_dml(seq, session, sql, info, s)
                    return
            elif kind is Kind.SELECT or kind is Kind.DO:
                self._step_quiet(seq, session, sql, info, s)
                return
        self._step_full(seq, session, sql, info, s)

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
        b = Builder(seq, session, sql)
        self.binlog.builders[seq] = b
        if info.kind is Kind.UNKNOWN:
            b.unknown = True
            b.reason = info.unknown_reason or "unsupported statement"
        else:
            self._step(b, info, s)
        if self.cached and not s.trx_cache:
            # a statement's pieces only ever wait in its own session's transaction cache: none are left
            self.binlog.finalize(seq)
        return b

    def _replay_key(self, session: str, info: StatementInfo, s: SessionState) -> tuple[object, ...]:
        """_memo_key with the session's part interned as a small int, kept from one replayed statement to
        the next (replaying changes no session field of it but the ones reset_trx() resets)."""
        sid = self.session_ids.get(session)
        if sid is None:
            part = _session_part(s)
            sid = self.session_parts.get(part)
            if sid is None:
                if len(self.session_parts) > 10_000:  # the ints are reused: forget every key holding one
                    self.session_parts.clear()
                    self.clean_parts.clear()
                    self.session_ids.clear()
                    self.replays.clear()
                sid = self.session_parts[part] = len(self.session_parts)
                if _trx_clean(s):
                    self.clean_parts.add(sid)
            self.session_ids[session] = sid
        return (id(info), self.catalog.version, sid, *_emptiness(self, info, s))

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
                self.replays[key] = _Replay(out, rec, used, _counts_change(info, out.row_writes))
            return
        out = r.out
        # the data model sees every statement; it changes no session field of _session_part
        checked = _with_key_checks(self, sql, info, s, out)
        if checked is not out:  # the data model changed the decision (a duplicate key): apply it in full
            self.session_ids.clear()
            b = Builder(seq, session, sql)
            self.binlog.builders[seq] = b
            _apply(self, b, info, s, checked)
            self._tail(b, info, s)
            if not s.trx_cache:
                self.binlog.finalize(seq)
            return
        binlog = self.binlog
        g = binlog.groups
        binlog.groups = g + r.groups
        if r.counts:
            _update_row_counts(self, info, out.row_writes)
        s.reset_trx()
        if key[2] not in self.clean_parts:
            del self.session_ids[session]
        binlog.done.append(copy_record(r.record, seq, session, sql, g if r.groups else None))

    def _step(self, b: Builder, info: StatementInfo, s: SessionState) -> None:
        handler = HANDLERS.get(info.kind, handle_noop)
        handler(self, b, info, s)
        self._tail(b, info, s)

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
        return Context(seq, info, resolve(info, self.catalog, s), s, self.catalog, self.profile)


def _uses(info: StatementInfo, names: frozenset[str]) -> bool:
    """Whether the statement, or a body or view it defines, calls one of ``names``."""
    if any(f in names for f in info.functions):
        return True
    if info.select is not None and _uses(info.select, names):
        return True
    return any(_uses(b, names) for b in info.body)


_DEFINITIONS = frozenset({Kind.CREATE_ROUTINE, Kind.CREATE_TRIGGER})

_ROW_TYPE = {Op.INSERT: "write", Op.UPDATE: "update", Op.DELETE: "delete"}


# ---- DML -----------------------------------------------------------------------------------------

def _changes_rows(p: Predictor, info: StatementInfo, t: Table, op: Op, s: SessionState) -> bool:
    """Whether the statement changes at least one row of ``t`` (known-empty tables change none)."""
    if op is Op.INSERT:
        if info.select_source and info.reads and ONE_ROW not in info.extra:
            srcs = [lookup(r, p.catalog, s) for r in info.reads]
            return not all(x is not None and not x.temporary and p.rows.get(x.name.lower()) == 0 for x in srcs)
        return True
    return t.temporary or p.rows.get(t.name.lower()) != 0


def _update_row_counts(p: Predictor, info: StatementInfo, writes: tuple[tuple[str, Op, bool, bool], ...]) -> None:
    for name, op, top, temporary in writes:
        if temporary:
            continue
        key = name.lower()
        if op is Op.INSERT:
            cur = p.rows.get(key)
            if info.values_rows and cur is not None:
                p.rows[key] = cur + info.values_rows
            elif not (info.select_source and cur == 0 and not _source_has_rows(p, info)):
                p.rows[key] = None
        elif op is Op.DELETE and top and not info.multi_table and info.limit is None and "where" not in info.extra:
            p.rows[key] = 0


def _counts_change(info: StatementInfo, writes: tuple[tuple[str, Op, bool, bool], ...]) -> bool:
    """Whether _update_row_counts(info, writes) can do anything (it only touches INSERTs and full DELETEs)."""
    return any(not temporary and (op is Op.INSERT or (
        op is Op.DELETE and top and not info.multi_table and info.limit is None and "where" not in info.extra))
        for _, op, top, temporary in writes)


def _source_has_rows(p: Predictor, info: StatementInfo) -> bool:
    return ONE_ROW in info.extra or any(p.rows.get(r.lower()) != 0 for r in info.reads)


@dataclass(frozen=True)
class _Outcome:
    """A DML decision that depends only on the key it is memoised under (see ``_memo_key``)."""

    error: int | None
    warnings: frozenset[int]
    unsafe: frozenset[str]
    stmt_cache: tuple[Piece, ...]
    trx: tuple[Piece, ...]
    writes_trans: bool
    writes_nontrans: bool
    nontrans_temp: bool
    logged: bool
    row_writes: tuple[tuple[str, Op, bool, bool], ...]  # (table, op, top, temporary) for row counts
    row_format: bool = False


@dataclass(frozen=True)
class _Replay:
    """An autocommitted statement's memoised outcome and the record it produced, which used ``groups``
    binlog groups starting at its own group (see Predictor._step_autocommit_dml)."""

    out: _Outcome
    record: StatementRecord
    groups: int
    counts: bool  # _update_row_counts can change a row count


def _memo_key(p: Predictor, info: StatementInfo, s: SessionState) -> tuple[object, ...]:
    """Everything _decide_dml reads besides the statement itself: catalog version, the session's
    variables and transaction flags, its temporary tables (whole definitions) and which tables the
    statement, its triggers and functions write or read are known to be empty."""
    return (id(info), p.catalog.version, *_session_part(s), *_emptiness(p, info, s))


def _session_part(s: SessionState) -> tuple[object, ...]:
    get = s.vars.get
    return (get("binlog_format"), get("binlog_row_image"), get("transaction_isolation"), s.next_isolation,
            get("autocommit"), get("sql_log_bin"), get("binlog_direct_non_transactional_updates"),
            s.explicit, s.in_trx, s.trx_has_trans_write, s.trx_modified_nontrans, s.trx_engines_warned,
            bool(s.trx_cache), s.force_row, s.sticky_row, tuple(s.temp_tables.items()) if s.temp_tables else ())


def _trx_clean(s: SessionState) -> bool:
    """The transaction fields of _session_part are what reset_trx() leaves."""
    return not (s.explicit or s.in_trx or s.trx_has_trans_write or s.trx_modified_nontrans or s.trx_cache
                or s.trx_engines_warned or s.next_isolation is not None)


def _emptiness(p: Predictor, info: StatementInfo, s: SessionState) -> tuple[bool, ...]:
    version = p.catalog.version
    known = p.memo_names.get(id(info))
    if known is None or known[0] != version:
        access = resolve(info, p.catalog, s)
        known = (version, tuple(dict.fromkeys(
            [w.table.lower() for w in info.writes] + [r.lower() for r in info.reads]
            + [u.table.name.lower() for u in access.writes] + [t.name.lower() for t in access.reads])))
        p.memo_names[id(info)] = known
        p.memo_infos[id(info)] = info  # keep the info alive while its id is part of a key
    names = known[1]
    if not names:
        return ()
    rows = p.rows
    if len(names) == 1:
        return (rows.get(names[0]) == 0,)
    return tuple([rows.get(n) == 0 for n in names])


_DELAYED_ENGINES = frozenset({"myisam", "memory", "archive", "blackhole"})
ER_DELAYED_NOT_SUPPORTED = 1616


def _handle_delayed(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> bool:
    """MariaDB's INSERT DELAYED: the delayed-insert thread writes and logs the rows (True: handled)."""
    if not (info.delayed and p.profile.DELAYED_THREAD and len(info.writes) == 1 and not info.select_source):
        return False
    fmt = p.profile.global_var("binlog_format").upper()
    if fmt == "STATEMENT" or not s.log_bin or s.locked:
        return False  # runs as a plain INSERT
    t = lookup(info.writes[0].table, p.catalog, s)
    if t is None or t.temporary:
        return False
    if p.profile.engine(t.engine).name not in _DELAYED_ENGINES:
        b.error = ER_DELAYED_NOT_SUPPORTED
        return True
    p.data.forget(t.name)
    p.rows[t.name.lower()] = None
    before, after = images(t, Op.INSERT, info.writes[0].columns, p.profile.global_var("binlog_row_image").upper(),
                          p.profile)
    p.binlog.flush([Piece(b.seq, True, True, t.name, before, after, "write")], Cache.STMT)
    return True


def handle_dml(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if info.delayed and _handle_delayed(p, b, info, s):
        return
    if p.cached:
        key = _memo_key(p, info, s)
        out = p.memo.get(key)
        if out is None:
            out = _decide_dml(p, b.seq, info, s)
            if len(p.memo) > 50_000:
                p.memo.clear()
                p.replays.clear()
                p.memo_names.clear()
            p.memo[key] = out
            p.memo_infos[id(info)] = info  # keep the info alive while its id is a key
    else:
        out = _decide_dml(p, b.seq, info, s)
    checked = out if out.error is not None else _with_key_checks(p, b.sql, info, s, out)
    if checked is out and p.cached and not info.delayed:
        p.applied = (info, out)
    if info.delayed and p.profile.DELAYED_WARNING:
        b.warnings.add(p.profile.DELAYED_WARNING)
    _apply(p, b, info, s, checked)


def _apply(p: Predictor, b: Builder, info: StatementInfo, s: SessionState, out: _Outcome) -> None:
    b.error = out.error
    if out.row_format and s.temp_tables:
        _stick_to_row(p, s)
    if out.warnings:
        b.warnings |= out.warnings
    if out.unsafe:
        b.unsafe |= out.unsafe
    if s.multi_stmt_mode and p.profile.COMBINED_ENGINES_WARNING in out.warnings:
        s.trx_engines_warned = True
    if out.error is not None and not out.logged:
        return
    if not out.logged and not out.row_writes:
        return
    multi = s.multi_stmt_mode
    if out.writes_trans and out.error is None:
        s.trx_has_trans_write = s.trx_has_trans_write or multi
    if out.writes_nontrans and multi:
        s.trx_modified_nontrans = True
    if out.nontrans_temp:
        s.trx_nontrans_temp = True
    if out.row_writes:
        _update_row_counts(p, info, out.row_writes)
    if not out.logged:
        return
    if not multi and not s.trx_cache:
        # autocommit with nothing pending: what end_statement() does, without re-addressing the memoised
        # pieces to this statement (they all belong to ``b``): the statement cache, then the commit
        if out.stmt_cache and out.trx and p.profile.ONE_GROUP_PER_COMMIT:
            p.binlog.write_together(b, [(out.stmt_cache, Cache.STMT), (out.trx, Cache.TRX)])
        else:
            if out.stmt_cache:
                p.binlog.write(b, out.stmt_cache, Cache.STMT)
            if out.trx:
                p.binlog.write(b, out.trx, Cache.TRX)
        s.reset_trx()
        return
    seq = b.seq
    p.end_statement(s, [x if x.seq == seq else x.at(seq) for x in out.stmt_cache],
                    [x if x.seq == seq else x.at(seq) for x in out.trx])


def _stick_to_row(p: Predictor, s: SessionState) -> None:
    if p.profile.MIXED_ROW_STICKY_WITH_TEMP_TABLES and s.binlog_format == "MIXED":
        s.sticky_row = True


def _with_key_checks(p: Predictor, sql: str, info: StatementInfo, s: SessionState, out: _Outcome) -> _Outcome:
    """What the rows of tracked tables decide: duplicate keys (1062, partial inserts, IGNORE'd rows) and the
    writes, updates and deletes of REPLACE and ON DUPLICATE KEY UPDATE."""
    fired: dict[str, Changed | None] = {}
    out = _key_checks(p, sql, info, s, out, fired)
    if fired and all(c is not None for c in fired.values()):
        out = _idle_triggers(info, out, fired)
    if p.data.fed:  # then what the triggers the statement fires update, and were not run, is unknown
        events = _EVENTS.get(info.kind, frozenset())
        if info.kind is Kind.INSERT and info.on_duplicate is not None:
            events = events | {"UPDATE"}
        for w in info.writes:
            if fired.get(w.table.lower()) is None:
                p.data.fire(w.table, events)
    return out


def _parsed(p: Predictor, sql: str) -> Parsed:
    """The statement the data model evaluates: its calls of stored functions that only RETURN an integer
    expression are inlined (predictor/routines.py)."""
    tree = parse(sql)
    if not isinstance(tree, exp.Expression) or not p.catalog.has_functions():
        return tree
    return inline_functions(tree, p.function_text)


def _fire(p: Predictor, s: SessionState, t: Table, event: str, pairs: list[Pair] | None,
          fired: dict[str, Changed | None]) -> None:
    """Run ``t``'s ``event`` triggers on the rows the statement wrote (predictor/triggers.py)."""
    if pairs is None or not any(tr.event.upper() == event for tr in t.triggers):
        return
    fired[t.name.lower()] = triggers.run(p.data, t, event, pairs, lambda name: lookup(name, p.catalog, s),
                                         lambda x: p.journal(s, x))


def _idle_triggers(info: StatementInfo, out: _Outcome, fired: dict[str, Changed | None]) -> _Outcome:
    """Row format: a table the statement's triggers changed no row of has no row events."""
    if not out.row_format:
        return out
    total: Changed = {}
    for changed in fired.values():
        for k, n in (changed or {}).items():
            had = total.get(k, 0)
            total[k] = None if had is None or n is None else had + n
    own = {w.table.lower() for w in info.writes}
    idle = {k for k, n in total.items() if n == 0 and k not in own}
    if not idle:
        return out
    stmt_cache = tuple(x for x in out.stmt_cache if not (x.rows and x.table.lower() in idle))
    trx = tuple(x for x in out.trx if not (x.rows and x.table.lower() in idle))
    return replace(out, stmt_cache=stmt_cache, trx=trx, logged=bool(stmt_cache or trx))


def _key_checks(p: Predictor, sql: str, info: StatementInfo, s: SessionState, out: _Outcome,
                fired: dict[str, Changed | None]) -> _Outcome:
    if not any(p.data.watching(w.table) for w in info.writes):
        return out  # nothing it writes is tracked (the common case of a big workload)
    if info.kind in (Kind.INSERT, Kind.REPLACE) and len(info.writes) == 1:
        return _write_rows(p, sql, info, s, out, fired)
    untouched: list[bool] = []  # per written table: no row changed (or matched: MULTI_UPDATE_STMT_CACHE_WHEN)
    for w in info.writes:
        t = lookup(w.table, p.catalog, s)
        if t is None or t.temporary:
            continue
        p.journal(s, t)
        if info.kind in (Kind.DELETE, Kind.UPDATE) and p.data.tracked(t) is not None and p.data.may_parse():
            tree = _parsed(p, sql)
            where = tree.args.get("where") if isinstance(tree, (exp.Delete, exp.Update)) else None
            cond = resolved(where.this, lambda name: _source(p, name, s)) if where is not None else None
            positions = _selected(p, tree, t, s) if info.multi_table and isinstance(tree, exp.Expression) else None
            if info.multi_table and positions is None:
                cond = exp.Anonymous(this=UNKNOWN_NAME)  # a join the model cannot follow: rows unknown
            pairs: list[Pair] | None = [] if t.triggers else None
            order = tree.args.get("order") if isinstance(tree, (exp.Delete, exp.Update)) else None
            by = order.expressions if isinstance(order, exp.Order) else ()
            if isinstance(tree, exp.Delete):
                changed = p.data.delete_where(t, cond, info.limit, positions, pairs, by)
                _fire(p, s, t, "DELETE", pairs if changed is not None else None, fired)
            elif isinstance(tree, exp.Update):
                sets = [(c, resolved(e, lambda name: _source(p, name, s))) for c, e in _assignments_to(tree, t)]
                res = p.data.update_where(t, cond, sets, info.limit,
                                          ignore=info.ignore, scan_order=p.profile.UPDATE_IGNORE_CLASHES_IN_SCAN_ORDER,
                                          positions=positions, pairs=pairs, order=by)
                changed = None if res is None else res[0]
                _fire(p, s, t, "UPDATE", pairs if res is not None else None, fired)
                if res is not None and res[1]:
                    if p.profile.UPDATE_IGNORE_DUP_WARNING:
                        out = replace(out, warnings=out.warnings | {p.profile.UPDATE_IGNORE_DUP_WARNING})
            elif info.kind is Kind.UPDATE and w.columns is not None:
                p.data.changed_columns(t, w.columns)  # a routine's body statement: the text is the CALL's
                continue
            else:
                p.data.forget(w.table)
                continue
            matched = res[2] if isinstance(tree, exp.Update) and res is not None else changed
            untouched.append((matched if p.profile.MULTI_UPDATE_STMT_CACHE_WHEN == "unmatched" else changed) == 0)
            if changed == 0 and out.row_format:  # nothing changed: no row events for the table
                stmt_cache = tuple(x for x in out.stmt_cache if not (x.rows and x.table == t.name))
                trx = tuple(x for x in out.trx if not (x.rows and x.table == t.name))
                out = replace(out, stmt_cache=stmt_cache, trx=trx, logged=bool(stmt_cache or trx))
        elif info.kind is Kind.UPDATE and w.columns is not None and p.data.parses_left > 0:
            p.data.changed_columns(t, w.columns)  # the parse budget is spent: the columns it sets are unknown
        else:
            p.data.forget(w.table)  # DELETE, LOAD, or the parse budget is spent
    if (p.profile.MULTI_UPDATE_STMT_CACHE_WHEN and info.kind is Kind.UPDATE and info.multi_table
            and not out.row_format and len(untouched) == len(info.writes) and all(untouched) and out.trx):
        out = replace(out, trx=(), stmt_cache=out.stmt_cache + tuple(replace(x, nontrans=True) for x in out.trx))
    return out


_EVENTS = {Kind.INSERT: frozenset({"INSERT"}), Kind.REPLACE: frozenset({"INSERT", "DELETE"}),
           Kind.LOAD: frozenset({"INSERT", "DELETE"}), Kind.UPDATE: frozenset({"UPDATE"}),
           Kind.DELETE: frozenset({"DELETE"})}  # the trigger events a statement may fire


def _selected(p: Predictor, tree: exp.Expression, t: Table, s: SessionState) -> list[int] | None:
    """Positions of ``t``'s rows a multi-table DELETE / UPDATE selects (predictor/query.py), or None."""
    using = tree.args.get("using")
    frm = using[0] if isinstance(using, list) and using else tree.this
    if not isinstance(frm, exp.Table):
        return None
    aliases = _aliases(frm, t)
    if len(aliases) != 1:
        return None  # a self-join: which side a row is on is not followed

    def sources(name: str) -> Source | None:
        return p.data.source(t, positions=True) if name.lower() == t.name.lower() else _source(p, name, s)

    first = frm.copy()
    first.set("joins", None)
    where = tree.args.get("where")
    rows = matching_rows(first, frm.args.get("joins") or (), where.this if where is not None else None, sources)
    key = f"{aliases[0]}.{POSITION}"
    if rows is None or not all(isinstance(r.get(key), int) for r in rows):
        return None
    return [r[key] for r in rows]  # type: ignore[misc]


def _aliases(frm: object, t: Table) -> list[str]:
    """The names ``t`` goes by in a FROM table and its joins (one per occurrence; several in a self-join)."""
    if not isinstance(frm, exp.Table):
        return []
    tables = [frm, *(j.this for j in frm.args.get("joins") or ())]
    return [x.alias_or_name.lower() for x in tables if isinstance(x, exp.Table) and x.name.lower() == t.name.lower()]


def _assignments_to(tree: exp.Update, t: Table) -> list[tuple[str, exp.Expression]]:
    """The SET items of an UPDATE that assign ``t``'s columns (a multi-table UPDATE names their table)."""
    own = set(_aliases(tree.this, t))
    names = {c.name.lower() for c in t.columns}
    return [(e.this.name, e.expression) for e in tree.expressions if isinstance(e, exp.EQ) and
            isinstance(e.this, exp.Column) and (e.this.table.lower() in own if e.this.table else
                                                e.this.name.lower() in names)]


def _write_rows(p: Predictor, sql: str, info: StatementInfo, s: SessionState, out: _Outcome,
                fired: dict[str, Changed | None]) -> _Outcome:
    """INSERT / REPLACE into one table whose rows are tracked: evaluate the rows the statement writes."""
    t = lookup(info.writes[0].table, p.catalog, s)
    if t is None or t.temporary:
        return out
    trans = p.profile.engine(t.engine).transactional
    p.journal(s, t)
    if p.data.tracked(t) is None:
        return out
    plain = info.kind is Kind.INSERT and info.on_duplicate is None and not info.select_source
    fast = literal_rows(sql, t) if plain else UNSURE  # INSERT ... VALUES without a parse (literals.py)
    assignments: list[tuple[str, exp.Expression]] = []
    if isinstance(fast, Unsure):
        if not p.data.may_parse():
            p.data.forget(t.name)
            return out
        tree = _parsed(p, sql)
        rows = _statement_rows(p, tree, t, s) if isinstance(tree, exp.Insert) else None
        if rows is None or not isinstance(tree, exp.Insert):
            p.data.forget(t.name)
            return out
        conflict = tree.args.get("conflict")
        if conflict is not None:
            assignments = [(e.this.name, e.expression) for e in conflict.expressions if isinstance(e, exp.EQ)]
        mode = (Mode.REPLACE if info.kind is Kind.REPLACE or tree.args.get("replace") else
                Mode.UPSERT if conflict is not None else Mode.IGNORE if info.ignore else Mode.INSERT)
    elif fast is None:
        p.data.forget(t.name)
        return out
    else:
        rows, mode = fast, Mode.IGNORE if info.ignore else Mode.INSERT
    pairs: list[Pair] | None = [] if t.triggers and mode in (Mode.INSERT, Mode.IGNORE) else None
    res = p.data.write(t, rows, mode, commit=not trans, assignments=assignments,
                       has_delete_trigger=any(tr.event.upper() == "DELETE" for tr in t.triggers), pairs=pairs)
    if res is None:
        return out
    if res.dup_at is None:
        _fire(p, s, t, "INSERT", pairs, fired)
    if res.dup_at is not None:
        if trans or res.dup_at == 0:
            return replace(out, error=1062, logged=False, stmt_cache=(), trx=(), row_writes=())
        # a non-transactional table keeps the rows before the duplicate: logged, with the error
        return replace(out, error=1062, warnings=out.warnings | {ER_WARNING_NOT_COMPLETE_ROLLBACK})
    warnings = out.warnings | {1062} if res.ignored else out.warnings
    changed = {"write": res.written, "update": res.updated, "delete": res.deleted}

    written = info.writes[0].columns
    # ON DUPLICATE KEY UPDATE's after image: the INSERT's columns and the assigned ones (both servers, MINIMAL;
    # fixtures/workloads/warehouse_app.sql and ledger_app.sql)
    update_cols = (None if written is None else tuple(dict.fromkeys((*written, *(info.on_duplicate or ())))))\
        if mode is Mode.UPSERT else written

    def pieces(cache: tuple[Piece, ...]) -> tuple[Piece, ...]:
        """The target's row pieces as the rows went (the decision saw only the statement)."""
        own = {x.type: x for x in cache if x.rows and x.table == t.name}
        if not own:
            return cache  # not logged as rows, or rows of a self-logging / unreplicated engine
        add: list[Piece] = []
        for typ, op, cols in (("delete", Op.DELETE, None), ("write", Op.INSERT, written),
                              ("update", Op.UPDATE, update_cols)):
            if changed[typ]:
                if typ in own:
                    add.append(own[typ])
                else:
                    before, after = images(t, op, cols, s.row_image, p.profile)
                    add.append(Piece(-1, True, not trans, t.name, before, after, typ))
        return tuple(x for x in cache if not (x.rows and x.table == t.name)) + tuple(add)

    stmt_cache, trx = pieces(out.stmt_cache), pieces(out.trx)
    logged = bool(stmt_cache or trx) if out.row_format else out.logged
    return replace(out, warnings=warnings, stmt_cache=stmt_cache, trx=trx, logged=logged)


def _statement_rows(p: Predictor, tree: exp.Insert, t: Table, s: SessionState) -> list[Row] | None:
    """The rows an INSERT / REPLACE writes, by target column, or None when they cannot be evaluated."""
    if isinstance(tree.expression, exp.Values):
        return values_rows(tree, t)
    got = select_rows(tree.expression, lambda name: _source(p, name, s))
    if got is None:
        return None
    target = tree.this
    if isinstance(target, exp.Schema) and target.expressions:
        cols = [str(c.name).lower() for c in target.expressions]
    else:
        cols = [c.name.lower() for c in t.columns]
    _, values = got
    if any(len(v) != len(cols) for v in values):
        return None
    return [dict(zip(cols, v, strict=True)) for v in values]


def _source(p: Predictor, name: str, s: SessionState, depth: int = 0) -> Source | None:
    """The rows of a table or view the data model follows (for a SELECT), else None."""
    t = lookup(name, p.catalog, s)
    if t is not None:
        return None if t.temporary else p.data.source(t)
    view = p.catalog.view(name)
    text = view.select.text if view is not None and view.select is not None else None
    if text is None or depth > 8:
        return None
    tree = parse(text)
    got = select_rows(tree, lambda inner: _source(p, inner, s, depth + 1)) if isinstance(tree, exp.Expression) else None
    if got is None:
        return None
    names, rows = got
    return Source(names, [dict(zip(names, r, strict=True)) for r in rows])


def _decide_dml(p: Predictor, seq: int, info: StatementInfo, s: SessionState) -> _Outcome:
    ctx = p.context(seq, info, s)
    row_writes = tuple((u.table.name, u.op, u.top, u.table.temporary) for u in ctx.access.writes)

    def outcome(error: int | None = None, stmt: tuple[Piece, ...] = (), trx: tuple[Piece, ...] = (),
                logged: bool = True, temp: bool = False) -> _Outcome:
        return _Outcome(error, frozenset(ctx.warnings), frozenset(ctx.unsafe), stmt, trx,
                        ctx.writes_trans, ctx.writes_nontrans, temp, logged and error is None,
                        row_writes if error is None else (), ctx.row_format)

    if ctx.access.missing:
        return outcome(ER_NO_SUCH_TABLE)
    if p.profile.SELF_SUBQUERY_ERROR and SELF_SUBQUERY in info.extra:
        return outcome(p.profile.SELF_SUBQUERY_ERROR)
    if not ctx.access.writes:
        return outcome(logged=False)  # a SELECT/DO that writes nothing is not logged
    if info.kind in (Kind.UPDATE, Kind.DELETE) and info.limit == 0:
        return outcome(logged=False)  # a LIMIT 0 change is not even run, nor logged (both servers)
    ctx.unsafe = classify(ctx)
    if not s.log_bin:
        return outcome(logged=False)
    decide(ctx)  # the "impossible to log" errors come first, the GTID check last (decide_logging_format)
    if ctx.error is not None:
        return outcome(ctx.error)
    combined = (ctx.writes_trans and ctx.writes_nontrans) or (s.in_trx and (
        (ctx.writes_nontrans and s.trx_has_trans_write) or (ctx.writes_trans and s.trx_modified_nontrans)))
    if combined and p.profile.COMBINED_ENGINES_WARNING and not s.trx_engines_warned:
        ctx.warnings.add(p.profile.COMBINED_ENGINES_WARNING)  # once per transaction (seen on 9.7)
    err = gtid_consistency(ctx)
    if err is not None:
        return outcome(err)
    stmt_cache: list[Piece] = []
    trx: list[Piece] = []
    temp = False
    if ctx.row_format:
        for u in ctx.access.writes:
            t = u.table
            eng = p.profile.engine(t.engine)
            if t.temporary or not eng.replicated or eng.self_logging:
                continue  # a self-logging engine (NDB) writes its own rows through the injector
            if not _changes_rows(p, info, t, u.op, s):
                continue
            if p.profile.engine(t.engine).name == "blackhole" and u.op is not Op.INSERT:
                if p.profile.BLACKHOLE_ROW_WARNING:
                    ctx.warnings.add(p.profile.BLACKHOLE_ROW_WARNING)
                continue
            before, after = images(t, u.op, u.columns, s.row_image, p.profile)
            piece = Piece(seq, True, not ctx.trans(t), t.name, before, after, _ROW_TYPE[u.op])
            (trx if ctx.trans(t) else stmt_cache).append(piece)
    elif _statement_logged(ctx) and not all(p.profile.engine(u.table.engine).self_logging
                                            for u in ctx.access.writes):
        piece = Piece(seq, False, any(not ctx.trans(u.table) for u in ctx.access.writes))
        to_trx = (ctx.writes_trans or "MIXED_STATEMENT" in ctx.unsafe
                  or (bool(s.trx_cache) and not s.binlog_direct)
                  or any(ctx.trans(u.table) for u in ctx.access.writes))
        (trx if to_trx else stmt_cache).append(piece)
        temp = to_trx and any(u.table.temporary and not ctx.trans(u.table) for u in ctx.access.writes)
    return outcome(stmt=tuple(stmt_cache), trx=tuple(trx), temp=temp)


def _statement_logged(ctx: Context) -> bool:
    """In statement format: temporary tables created while not logging make the statement unlogged."""
    tables = ctx.access.written_tables()
    if tables and all(t.temporary for t in tables):
        return all(t.logged_create for t in tables)
    return True


# ---- transactions --------------------------------------------------------------------------------

def handle_begin(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    s.in_trx = True
    s.explicit = True


def handle_commit(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.commit(s)
    if info.chain:
        s.in_trx, s.explicit = True, True


def handle_rollback(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if s.trx_modified_nontrans:
        b.warnings.add(ER_WARNING_NOT_COMPLETE_ROLLBACK)
    p.rollback(s)
    if info.chain:
        s.in_trx, s.explicit = True, True


def handle_savepoint(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    from predictor.session import Savepoint

    name = info.savepoint or ""
    s.savepoints = [sp for sp in s.savepoints if sp.name.lower() != name.lower()]
    if s.multi_stmt_mode and s.log_bin and (s.trx_cache or not p.profile.SAVEPOINT_NEEDS_CACHE):
        s.trx_cache.append(Piece(b.seq, False, False))
    if s.multi_stmt_mode:
        s.in_trx = True
    s.savepoints.append(Savepoint(name, len(s.trx_cache)))


def handle_rollback_to(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = (info.savepoint or "").lower()
    idx = next((i for i, sp in enumerate(s.savepoints) if sp.name.lower() == name), None)
    if idx is None:
        b.error = 1305  # SAVEPOINT does not exist
        return
    sp = s.savepoints[idx]
    del s.savepoints[idx + 1:]
    restore(sp.undo, p.data, p.rows)
    sp.undo = {}
    if p.cannot_rollback(s) or s.trx_keep_log:
        s.trx_cache.append(Piece(b.seq, False, True))
    else:
        del s.trx_cache[sp.cache_len:]
    if s.trx_modified_nontrans:
        b.warnings.add(ER_WARNING_NOT_COMPLETE_ROLLBACK)


def handle_release(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = (info.savepoint or "").lower()
    idx = next((i for i, sp in enumerate(s.savepoints) if sp.name.lower() == name), None)
    if idx is None:
        b.error = 1305
        return
    del s.savepoints[idx:]


def handle_lock(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    s.locked = True


def handle_unlock(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if s.locked and not s.explicit and s.in_trx:
        p.commit(s)
    s.locked = False


# ---- SET -----------------------------------------------------------------------------------------

_TRACKED = frozenset({"binlog_format", "binlog_row_image", "transaction_isolation", "autocommit", "sql_log_bin",
                      "binlog_direct_non_transactional_updates"})


def handle_set(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    pending: dict[str, str] = {}
    for a in info.assignments:
        if a.scope in ("USER", "LOCAL"):
            continue
        raw = a.name.lower()
        name = canonical_var(raw)
        if name == "transaction_isolation" and raw.split(".")[-1] not in p.profile.ISOLATION_VARIABLES:
            b.error = ER_UNKNOWN_SYSTEM_VARIABLE
            return
        if a.scope == "GLOBAL" or name not in _TRACKED:
            continue
        value = normalize_value(name, a.value)
        if name == "binlog_format":
            if s.in_trx and (s.trx_cache or s.trx_has_trans_write or s.trx_modified_nontrans):
                b.error = p.profile.BINLOG_FORMAT_IN_TRX_ERROR
                return
            if (p.profile.BINLOG_FORMAT_WITH_TEMP_ERROR and s.temp_tables and s.binlog_format != "STATEMENT"
                    and value != s.binlog_format):
                b.error = p.profile.BINLOG_FORMAT_WITH_TEMP_ERROR
                return
            if p.profile.SET_BINLOG_FORMAT_WARNING:
                b.warnings.add(p.profile.SET_BINLOG_FORMAT_WARNING)
        pending[name] = value
    for name, value in pending.items():
        if name == "autocommit" and value == "ON" and not s.autocommit:
            s.vars[name] = value
            p.implicit_commit(s)
            continue
        s.vars[name] = value


def handle_set_transaction(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    a = info.assignments[0] if info.assignments else None
    if a is None:
        return
    text = a.value.upper()
    level = None
    for lv in ("READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"):
        if lv in text:
            level = lv.replace(" ", "-")
    if level is None or a.scope == "GLOBAL":
        return
    if a.scope == "SESSION":
        s.vars["transaction_isolation"] = level
    else:
        s.next_isolation = level


# ---- DDL -----------------------------------------------------------------------------------------

def _log_direct(p: Predictor, b: Builder, s: SessionState) -> None:
    if s.log_bin:
        p.binlog.flush([Piece(b.seq, False, True)], Cache.DIRECT)


def _temp_ddl_logged(p: Predictor, s: SessionState) -> bool:
    """Is a CREATE TEMPORARY TABLE written (as a statement) under the session's format?"""
    fmt = s.binlog_format
    if fmt == "STATEMENT":
        return True
    return fmt == "MIXED" and not p.profile.TEMP_TABLES_NEVER_ROW


def _log_temp_ddl(p: Predictor, b: Builder, s: SessionState) -> None:
    if not s.log_bin:
        return
    if s.multi_stmt_mode and s.in_trx:
        s.trx_cache.append(Piece(b.seq, False, True))
        s.trx_keep_log = True
    else:
        p.binlog.flush([Piece(b.seq, False, True)], Cache.DIRECT)


def _gtid_temp_error(p: Predictor, s: SessionState) -> bool:
    return p.profile.enforce_gtid and s.in_trx and s.binlog_format == "STATEMENT"


def handle_create_table(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = info.name or ""
    engine = info.engine or (p.profile.DEFAULT_TMP_ENGINE if info.temporary else p.profile.DEFAULT_ENGINE)
    if info.kind is Kind.CREATE_TABLE_LIKE:
        src = lookup(info.like or "", p.catalog, s)
        if src is None:
            b.error = ER_NO_SUCH_TABLE
            return
        table = replace(src, name=name, temporary=info.temporary, triggers=())
    else:
        d = info.table_def or Table(name, engine)
        table = replace(d, engine=engine)
    if info.temporary:
        if _gtid_temp_error(p, s):
            b.error = p.profile.GTID_TEMP_IN_TRX_ERROR
            return
        if s.temp_table(name) is not None:
            if info.if_not_exists:
                b.warnings.add(ER_TABLE_EXISTS)
            else:
                b.error = ER_TABLE_EXISTS
            return
        logged = _temp_ddl_logged(p, s)
        s.temp_tables[name.lower()] = replace(table, temporary=True, logged_create=logged)
        if logged:
            _log_temp_ddl(p, b, s)
        return
    p.implicit_commit(s)
    if p.catalog.table(name) is not None or p.catalog.view(name) is not None:
        if info.if_not_exists:
            b.warnings.add(ER_TABLE_EXISTS)
            _log_direct(p, b, s)
        else:
            b.error = ER_TABLE_EXISTS
        return
    p.catalog.put_table(table)
    p.rows[name.lower()] = 0
    p.data.create(table)
    _log_direct(p, b, s)


def handle_create_select(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = info.name or ""
    engine = info.engine or (p.profile.DEFAULT_TMP_ENGINE if info.temporary else p.profile.DEFAULT_ENGINE)
    if not info.temporary:
        p.implicit_commit(s)
    exists = s.temp_table(name) if info.temporary else p.catalog.table(name)
    if exists is not None:
        if info.if_not_exists:
            b.warnings.add(ER_TABLE_EXISTS)
            if not info.temporary:
                _log_direct(p, b, s)
        else:
            b.error = ER_TABLE_EXISTS
        return
    src_cols: list[Column] = []
    sources: list[Table] = []
    for r in info.reads:
        t = lookup(r, p.catalog, s)
        if t is None:
            b.error = ER_NO_SUCH_TABLE
            return
        sources.append(t)
    for out_name in info.select.columns if info.select else ():
        if out_name == "*":
            for t in sources:
                src_cols.extend(Column(c.name, c.type, c.nullable) for c in t.columns
                                if all(c.name.lower() != x.name.lower() for x in src_cols))
        elif all(out_name.lower() != x.name.lower() for x in src_cols):
            col = next((c for t in sources for c in t.columns if c.name.lower() == out_name.lower()), None)
            src_cols.append(Column(out_name, col.type if col else "VARCHAR", col.nullable if col else True))
    d = info.table_def or Table(name, engine)
    cols = tuple(d.columns) + tuple(c for c in src_cols if d.column(c.name) is None)
    table = replace(d, engine=engine, columns=cols, temporary=info.temporary)
    if p.profile.enforce_gtid and not info.temporary and not p.profile.engine(engine).transactional:
        b.error = 1786  # ER_GTID_UNSAFE_CREATE_SELECT: only atomic (transactional) targets get one GTID
        return
    filled = _fill_created(p, b.sql, table, info, s)
    if filled == DUPLICATE_FILL:
        b.error = 1062  # a duplicate key while filling: the table is dropped again, nothing is logged
        return
    ctx = Context(b.seq, info, resolve(info, p.catalog, s), s, p.catalog, p.profile)
    b.unsafe = classify(ctx)
    ctx.unsafe = set(b.unsafe)
    fmt = s.binlog_format
    row = fmt == "ROW" or (fmt == "MIXED" and (bool(ctx.unsafe) or s.sticky_row))
    if fmt == "STATEMENT" and ctx.unsafe:
        b.warnings.add(1592)
    if info.temporary:
        logged = not row and _temp_ddl_logged(p, s)
        s.temp_tables[name.lower()] = replace(table, logged_create=logged)
        if row:
            _stick_to_row(p, s)
        if logged:
            _log_temp_ddl(p, b, s)
        return
    p.catalog.put_table(table)
    src_empty = filled == 0 or (all(p.rows.get(r.lower()) == 0 for r in info.reads) and bool(info.reads)
                                and not (info.select and ONE_ROW in info.select.extra))
    p.rows[name.lower()] = 0 if src_empty else None
    if not s.log_bin:
        return
    if not row:
        p.binlog.flush([Piece(b.seq, False, True)], Cache.DIRECT)
        return
    # row format: CREATE TABLE (without the SELECT) and the rows, through the transaction cache, flushed as
    # one group at the end of the statement (R-log-create-select-row-format; seen so on MariaDB 10.11)
    pieces = [Piece(b.seq, False, True)]
    if not src_empty:
        before, after = images(table, Op.INSERT, None, s.row_image, p.profile)
        pieces.append(Piece(b.seq, True, False, table.name, before, after, "write"))
    p.binlog.flush(pieces, Cache.TRX)


DUPLICATE_FILL = -1


def _fill_created(p: Predictor, sql: str, table: Table, info: StatementInfo, s: SessionState) -> int | None:
    """Evaluate the rows CREATE ... SELECT puts into ``table`` (matched by column name): how many it writes,
    None when that cannot be said, DUPLICATE_FILL when a duplicate key fails the statement. A base table's rows are
    then tracked when they could be evaluated."""
    tree = _parsed(p, sql)
    got = select_rows(tree.expression, lambda name: _source(p, name, s)) \
        if isinstance(tree, exp.Create) and tree.expression is not None else None
    scratch = DataModel()
    scratch.create(table)
    res = None
    if got is not None:
        names, values = got
        mode = Mode.REPLACE if info.replace else Mode.IGNORE if info.ignore else Mode.INSERT
        res = scratch.write(table, [dict(zip(names, v, strict=True)) for v in values], mode, commit=False)
        if res is not None and res.dup_at is not None:
            return DUPLICATE_FILL
    if not table.temporary:
        p.data.tables[table.name.lower()] = scratch.tables[table.name.lower()]
        if res is None:
            p.data.forget(table.name)
    return None if res is None else res.written


def handle_drop_table(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    temps = [n for n in info.targets if s.temp_table(n) is not None]
    bases = [n for n in info.targets if s.temp_table(n) is None]
    if info.temporary and bases:
        if not info.if_exists:
            b.error = ER_BAD_TABLE
            return
        b.warnings.add(ER_BAD_TABLE)
    if temps and _gtid_temp_error(p, s):
        b.error = p.profile.GTID_TEMP_IN_TRX_ERROR
        return
    logged_temp = False
    for n in temps:
        t = s.temp_tables.pop(n.lower())
        logged_temp = logged_temp or t.logged_create
    if info.temporary:
        if logged_temp:
            _log_temp_ddl(p, b, s)
        return
    missing = [n for n in bases if p.catalog.table(n) is None]
    if missing and not info.if_exists:
        for n in bases:
            if p.catalog.table(n) is not None:
                p.catalog.drop_table(n)
        b.error = ER_BAD_TABLE
        return
    if missing:
        b.warnings.add(ER_BAD_TABLE)
    if bases:
        p.implicit_commit(s)
        for n in bases:
            p.catalog.drop_table(n)
            p.rows.pop(n.lower(), None)
        _log_direct(p, b, s)
    elif logged_temp:
        _log_temp_ddl(p, b, s)


def handle_alter(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = info.targets[0] if info.targets else ""
    tmp = s.temp_table(name)
    t = tmp or p.catalog.table(name)
    if t is None:
        b.error = ER_NO_SUCH_TABLE
        return
    gone = {d.lower() for d in info.dropped_columns}
    cols = tuple(c for c in t.columns if c.name.lower() not in gone) + info.added_columns
    keys = tuple(k for k in t.keys if not (info.drops_primary_key and k.kind is KeyKind.PRIMARY)
                 and not any(c.lower() in gone for c in k.columns)) + info.added_keys
    pk = {c.lower() for k in keys if k.kind is KeyKind.PRIMARY for c in k.columns}
    cols = tuple(replace(c, nullable=False) if c.name.lower() in pk else c for c in cols)
    new = replace(t, engine=info.engine or t.engine, columns=cols, keys=keys)
    if tmp is not None:
        s.temp_tables[name.lower()] = new
        if tmp.logged_create:
            _log_temp_ddl(p, b, s)
        return
    p.implicit_commit(s)
    if not p.data.rekey(t, new):
        b.error = 1062  # the rows clash on a new unique key: the ALTER fails, nothing is logged
        return
    p.catalog.put_table(new)
    _log_direct(p, b, s)


def handle_truncate(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    for n in info.targets:
        tmp = s.temp_table(n)
        if tmp is not None:
            if tmp.logged_create:
                _log_temp_ddl(p, b, s)
            return
        if p.catalog.table(n) is None:
            b.error = ER_NO_SUCH_TABLE
            return
    p.implicit_commit(s)
    for n in info.targets:
        p.rows[n.lower()] = 0
        t = p.catalog.table(n)
        if t is not None:
            p.data.clear(t)
    _log_direct(p, b, s)


def handle_rename(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    pairs = list(zip(info.targets[::2], info.targets[1::2], strict=False))
    for old, _ in pairs:
        if p.catalog.table(old) is None and s.temp_table(old) is None:
            b.error = ER_NO_SUCH_TABLE
            return
    p.implicit_commit(s)
    for old, new in pairs:
        t = p.catalog.drop_table(old)
        if t is not None:
            p.catalog.put_table(replace(t, name=new))
            p.rows[new.lower()] = p.rows.pop(old.lower(), None)
    _log_direct(p, b, s)


def handle_create_trigger(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    table = p.catalog.table(info.targets[0] if info.targets else "")
    if table is None:
        b.error = ER_NO_SUCH_TABLE
        return
    if p.catalog.trigger_table(info.name or "") is not None:
        b.error = ER_TRG_ALREADY_EXISTS
        return
    trig = Trigger(info.name or "", table.name, info.timing or "", info.event or "", info.body, b.sql)
    for body in info.body:  # rows a trigger changes are not evaluated: what it writes becomes unknown (fire)
        for w in body.writes:
            target = p.catalog.table(w.table)
            keyed = {c.lower() for k in target.unique_keys for c in k.columns} if target is not None else None
            if body.kind is Kind.UPDATE and w.columns is not None and keyed is not None and not body.multi_table \
                    and not keyed & {c.lower() for c in w.columns}:
                p.data.trigger_updates(table.name, trig.event, w.table, w.columns)
            else:
                p.data.never_track(w.table)
    p.catalog.put_table(table.with_trigger(trig))
    _log_direct(p, b, s)


def handle_drop_trigger(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    name = info.targets[0] if info.targets else ""
    table = p.catalog.trigger_table(name)
    if table is None:
        if not info.if_exists:
            b.error = ER_TRG_DOES_NOT_EXIST
            return
        b.warnings.add(ER_TRG_DOES_NOT_EXIST)
    else:
        p.catalog.put_table(table.without_trigger(name))
    _log_direct(p, b, s)


def handle_create_routine(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    kind = info.routine_kind or "PROCEDURE"
    if p.catalog.routine(kind, info.name or "") is not None:
        b.error = ER_SP_ALREADY_EXISTS
        return
    p.catalog.put_routine(Routine(info.name or "", kind, info.body, info.signature or Signature(), b.sql))
    _log_direct(p, b, s)


def handle_drop_routine(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    kind = info.routine_kind or "PROCEDURE"
    name = info.targets[0] if info.targets else ""
    if p.catalog.drop_routine(kind, name) is None:
        if not info.if_exists:
            b.error = ER_SP_DOES_NOT_EXIST
            return
        b.warnings.add(ER_SP_DOES_NOT_EXIST)
    _log_direct(p, b, s)


def handle_create_view(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    name = info.name or ""
    if (p.catalog.view(name) is not None and not info.replace) or p.catalog.table(name) is not None:
        b.error = ER_TABLE_EXISTS
        return
    if info.select is not None and info.select.sysvars:
        b.error = ER_VIEW_SELECT_VARIABLE  # a view's SELECT may not contain a variable
        return
    if info.select is not None:
        for r in info.select.reads:
            if lookup(r, p.catalog, s) is None and p.catalog.view(r) is None:
                b.error = ER_NO_SUCH_TABLE
                return
    p.catalog.put_view(View(name, info.select))
    _log_direct(p, b, s)


def handle_drop_view(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    missing = [n for n in info.targets if p.catalog.drop_view(n) is None]
    if missing:
        if not info.if_exists:
            b.error = ER_UNKNOWN_VIEW if p.profile.is_mariadb else ER_BAD_TABLE
            return
        b.warnings.add(ER_UNKNOWN_VIEW if p.profile.is_mariadb else ER_BAD_TABLE)
    _log_direct(p, b, s)


def handle_ddl_other(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    _log_direct(p, b, s)


def handle_sequence(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if not p.profile.is_mariadb:
        b.unknown, b.reason = True, "CREATE SEQUENCE is MariaDB-only"
        return
    p.implicit_commit(s)
    name = info.name or ""
    if p.catalog.table(name) is not None:
        if info.if_not_exists:
            b.warnings.add(ER_TABLE_EXISTS)
            _log_direct(p, b, s)
        else:
            b.error = ER_TABLE_EXISTS
        return
    p.catalog.put_table(Table(name, "sequence_table", sequence=True))
    _log_direct(p, b, s)


def handle_flush(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    if "local" not in info.extra:
        _log_direct(p, b, s)


def handle_call(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    routine = p.catalog.routine("PROCEDURE", info.name or "")
    if routine is None:
        b.error = ER_SP_DOES_NOT_EXIST
        return
    try:
        _unroll(p, b, routine, s, b.sql, None, depth=0)
    finally:
        s.force_row = False


def _unroll(p: Predictor, b: Builder, routine: Routine, s: SessionState, call: str, outer: Bindings | None,
            depth: int) -> None:
    """CALL is unrolled: each statement of the body is decided and logged on its own, under the CALL, with
    the CALL's arguments in its text where the data model follows what it writes (predictor/routines.py);
    a counted loop's statements once per pass (predictor/loops.py)."""
    body = routine.body
    bound: dict[str, Bindings] = {}  # computed on first need: "" -> the CALL's bindings

    def bindings() -> Bindings:
        if "" not in bound:
            bound[""] = (call_bindings(call, routine.signature, outer) if p.data.may_parse() else None) or {}
        return bound[""]

    i = 0
    while i < len(body) and b.error is None:
        loop = body[i].loop
        j = i + 1
        while loop is not None and j < len(body) and body[j].loop == loop:
            j += 1
        if loop is None:
            _run(p, b, routine, s, body[i:j], bindings, depth)
        else:
            base = bindings()
            passes = loop.passes(base)
            for counter in passes if passes is not None else [None]:
                values = base if counter is None else {**base, loop.var: exp.Literal.number(counter)}
                if not _run(p, b, routine, s, body[i:j], _constant(values), depth):
                    break
        i = j


def _constant(values: Bindings) -> Callable[[], Bindings]:
    return lambda: values


def _run(p: Predictor, b: Builder, routine: Routine, s: SessionState, statements: tuple[StatementInfo, ...],
         bindings: Callable[[], Bindings], depth: int) -> bool:
    """Decide and log body statements under the CALL's builder; False when one failed (the CALL ends)."""
    for sub in statements:
        text = None
        if sub.text is not None and _follows(p, sub):
            values = bindings()
            text = bind(sub.text, values) if values or not routine.signature.params else None
        if sub.kind is Kind.CALL and depth < 8:
            r = p.catalog.routine("PROCEDURE", sub.name or "")
            if r is not None:
                _unroll(p, b, r, s, text or "", bindings(), depth + 1)
                if b.error is not None:
                    return False  # an error in a called procedure ends its callers too
            continue
        sb = Builder(b.seq, b.session, text or b.sql)
        p.binlog.builders[b.seq] = sb
        HANDLERS.get(sub.kind, handle_noop)(p, sb, sub, s)
        if sb.error == ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE:
            if s.binlog_format != "STATEMENT":
                # the GTID check fails after the statement went to row: its unsafe reasons are never reported
                sb.unsafe.clear()
            elif sb.unsafe:
                b.unsafe_noted = True  # in STATEMENT format the CALL reports them, 1592, logged or not (9.7)
        if sb.row_events and s.binlog_format == "MIXED":
            s.force_row = True  # within one CALL, MIXED stays in row format once it switched
        _merge(b, sb)
        p.binlog.builders[b.seq] = b
        if sb.error is not None:
            b.error = sb.error
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


ER_BINLOG_ROW_INJECTION_AND_STMT_ENGINE = 1664


def handle_binlog(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    """BINLOG '...': the injected rows events are applied and logged as rows, or refused (reference §1)."""
    tree = parse(b.sql)
    try:
        events = injected_rows(str(tree.this.this)) if isinstance(tree, BinlogEvent) else None
    except InjectionError as e:
        events, b.reason = None, str(e)
    if events is None:
        b.unknown = True
        b.reason = b.reason or "BINLOG statement without a string"
        return
    if not events:
        return  # a format description only: applied, nothing written
    tables: list[tuple[Table, InjectedRows]] = []
    for ev in events:
        t = lookup(ev.table, p.catalog, s)
        if t is None:
            b.error = ER_NO_SUCH_TABLE
            return
        tables.append((t, ev))
    if p.profile.ROW_INJECTION_GTID_ERROR and p.profile.opt_on("gtid_mode"):
        b.error = p.profile.ROW_INJECTION_GTID_ERROR
        return
    if any(not p.profile.engine(t.engine).caps(s.isolation)[0] for t, _ in tables):
        b.error = ER_BINLOG_ROW_INJECTION_AND_STMT_ENGINE
        return
    if s.binlog_format == "STATEMENT" and p.profile.ROW_INJECTION_STMT_MODE_ERROR:
        b.error = p.profile.ROW_INJECTION_STMT_MODE_ERROR
        return
    stmt_cache: list[Piece] = []
    trx: list[Piece] = []
    op = {"write": Op.INSERT, "update": Op.UPDATE, "delete": Op.DELETE}
    for t, ev in tables:
        p.data.forget(t.name)
        trans = p.profile.engine(t.engine).transactional
        cols = tuple(t.columns[i].name for i in (ev.after or ev.before) if i < len(t.columns))
        before, after = images(t, op[ev.type], cols, s.row_image, p.profile)
        (trx if trans else stmt_cache).append(Piece(b.seq, True, not trans, t.name, before, after, ev.type))
    writes = tuple((t.name, op[ev.type], True, t.temporary) for t, ev in tables)
    out = _Outcome(None, frozenset(), frozenset(), tuple(stmt_cache), tuple(trx), bool(trx), bool(stmt_cache),
                   False, s.log_bin, writes, True)
    _apply(p, b, info, s, out)


def handle_xa(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    kind = info.xa or ""
    if kind == "START":
        p.implicit_commit(s)
        s.in_trx, s.explicit, s.xa_state = True, True, "ACTIVE"
    elif kind == "END":
        s.xa_state = "IDLE"
    elif kind == "PREPARE":
        if s.trx_cache:
            p.binlog.flush([Piece(b.seq, False, False), *s.trx_cache], Cache.TRX)
            s.trx_cache = []
        s.xa_state = "PREPARED"
    elif kind == "COMMIT":
        if s.xa_state == "PREPARED":
            _log_direct(p, b, s)
        else:
            p.binlog.flush(s.trx_cache, Cache.TRX)
        s.reset_trx()
        s.xa_state = None
    elif kind == "ROLLBACK":
        if s.xa_state == "PREPARED":
            _log_direct(p, b, s)
        s.reset_trx()
        s.xa_state = None


def handle_noop(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    """Statements that write nothing to the binlog (SELECT without writes, USE, SHOW, ...)."""
    if info.kind in (Kind.SELECT, Kind.DO) and (info.functions or info.reads):
        # what resolving finds depends on the catalog and the session's temporary tables only
        key = (id(info), p.catalog.version) if p.cached and not s.temp_tables else None
        found = p.noop_memo.get(key) if key is not None else None
        if found is None:
            ctx = p.context(b.seq, info, s)
            found = (bool(ctx.access.writes), bool(ctx.access.missing))
            if key is not None:
                if len(p.noop_memo) > 50_000:
                    p.noop_memo.clear()
                p.noop_memo[key] = found
                p.memo_infos[id(info)] = info
        writes, missing = found
        if writes:
            handle_dml(p, b, info, s)
        elif missing and info.kind is Kind.SELECT:
            b.error = ER_NO_SUCH_TABLE


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
    Kind.SET: handle_set,
    Kind.SET_TRANSACTION: handle_set_transaction,
    Kind.LOCK_TABLES: handle_lock,
    Kind.UNLOCK_TABLES: handle_unlock,
    Kind.FLUSH: handle_flush,
    Kind.NOOP: handle_noop,
}
"""Which handler runs for each statement kind."""
