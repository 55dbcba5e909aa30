"""DML statements: decide format, errors and row images (memoised per key), then apply the outcome to the
session and the predicted binlog."""

from __future__ import annotations

from typing import TYPE_CHECKING

from predictor.analyze import ONE_ROW, SELF_SUBQUERY, Kind, Op, StatementInfo
from predictor.binlog import Builder
from predictor.catalog import Table
from predictor.codes import (
    ER_BAD_FIELD,
    ER_BINLOG_ROW_INJECTION_AND_STMT_ENGINE,
    ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG,
    ER_DELAYED_NOT_SUPPORTED,
    ER_NO_SUCH_TABLE,
)
from predictor.context import Context
from predictor.decide import ER_STMT_MODE_AND_ROW_ENGINE, decide, gtid_consistency
from predictor.images import images
from predictor.injection import InjectedRows, InjectionError, injected_rows
from predictor.memo import memo_key
from predictor.nodes import BinlogEvent
from predictor.outcome import Outcome
from predictor.parse import parse
from predictor.resolve import lookup
from predictor.rows import table_source, with_key_checks
from predictor.session import Cache, Piece, SessionState
from predictor.unsafe import classify, read_unsafe
from predictor.values import UNKNOWN
from predictor.variables import ER_SP_FETCH_NO_DATA, ER_TOO_MANY_ROWS, run_select_into

if TYPE_CHECKING:
    from predictor.engine import Predictor


_ROW_TYPE = {Op.INSERT: "write", Op.UPDATE: "update", Op.DELETE: "delete"}


def _changes_rows(p: Predictor, info: StatementInfo, t: Table, op: Op, s: SessionState) -> bool:
    """Whether the statement changes at least one row of ``t`` (known-empty tables change none)."""
    if op is Op.INSERT:
        if info.select_source and info.reads and ONE_ROW not in info.extra:
            srcs = [lookup(r, p.catalog, s) for r in info.reads]
            return not all(x is not None and p.rows.get(x.ident) == 0 for x in srcs)
        return True
    return p.rows.get(t.ident) != 0


def update_row_counts(p: Predictor, info: StatementInfo, s: SessionState,
                      writes: tuple[tuple[str, Op, bool, bool], ...]) -> None:
    """``writes``: (Table.ident, op, top, temporary) of each written table."""
    for key, op, top, _ in writes:
        if op is Op.INSERT:
            cur = p.rows.get(key)
            if info.values_rows and cur is not None:
                p.rows[key] = cur + info.values_rows
            elif not (info.select_source and cur == 0 and not _source_has_rows(p, info, s)):
                p.rows[key] = None
        elif op is Op.DELETE and top and not info.multi_table and info.limit is None and "where" not in info.extra:
            p.rows[key] = 0


def counts_change(info: StatementInfo, writes: tuple[tuple[str, Op, bool, bool], ...]) -> bool:
    """Whether update_row_counts(info, writes) can do anything (it only touches INSERTs and full DELETEs)."""
    return any(op is Op.INSERT or (
        op is Op.DELETE and top and not info.multi_table and info.limit is None and "where" not in info.extra)
        for _, op, top, _ in writes)


def _source_has_rows(p: Predictor, info: StatementInfo, s: SessionState) -> bool:
    """Whether an INSERT ... SELECT's source may give rows: a SELECT of no table (``SELECT 1, 'a'``, a WITH
    RECURSIVE number generator: recursive_cte.sql) gives one or more."""
    return ONE_ROW in info.extra or not info.reads or any(p.rows.get(s.ident(r)) != 0 for r in info.reads)


def _select_into(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    """SELECT ... INTO @v / @v := ...: the variables it assigns, as far as the data model follows the rows
    (predictor/variables.py); a SELECT ... INTO that finds no row leaves them as they were (1329)."""
    before = {name: s.user_vars.get(name) for name in info.user_vars if name in s.user_vars}
    for name in info.user_vars:
        s.user_vars[name] = UNKNOWN
    if not info.reads or not p.data.may_parse():
        return
    code = run_select_into(b.sql, s, lambda name: table_source(p, name, s), p.results(b.sql))
    if code == ER_SP_FETCH_NO_DATA:
        b.warnings.add(code)
        for name in info.user_vars:
            if name in before:
                s.user_vars[name] = before[name]
            else:
                del s.user_vars[name]  # never set: NULL, as far as this statement goes (still unknown to bind)
    elif code == ER_TOO_MANY_ROWS:
        b.error = code


_DELAYED_ENGINES = frozenset({"myisam", "memory", "archive", "blackhole"})


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
    p.data.forget(t.ident)
    p.rows[t.ident] = None
    before, after = images(t, Op.INSERT, info.writes[0].columns, p.profile.global_var("binlog_row_image").upper(),
                          p.profile)
    p.binlog.flush([Piece(b.seq, True, True, t.name, before, after, "write")], Cache.STMT)
    return True


def handle_dml(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if info.delayed and _handle_delayed(p, b, info, s):
        return
    if p.cached:
        key = memo_key(p, info, s)
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
    checked = out if out.error is not None else with_key_checks(p, b.sql, info, s, out)
    if checked is out and p.cached and not info.delayed:
        p.applied = (info, out)
    if info.delayed and p.profile.DELAYED_WARNING:
        b.warnings.add(p.profile.DELAYED_WARNING)
    apply_outcome(p, b, info, s, checked)


def apply_outcome(p: Predictor, b: Builder, info: StatementInfo, s: SessionState, out: Outcome) -> None:
    b.error = out.error
    if out.row_format and s.temp_tables:
        stick_to_row(p, s)
    if out.warnings:
        b.warnings |= out.warnings
    if out.unsafe:
        b.unsafe |= out.unsafe
    if s.multi_stmt_mode and p.profile.COMBINED_ENGINES_WARNING in out.warnings:
        s.trx_engines_warned = True
    if s.multi_stmt_mode and out.engines and not s.trx_engines_warned:
        s.trx_engines |= out.engines
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
        update_row_counts(p, info, s, out.row_writes)
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


def _unknown_column(p: Predictor, info: StatementInfo, s: SessionState) -> bool:
    """A single-table INSERT / REPLACE / UPDATE naming a column its table does not have (1054)."""
    if p.catalog.columns_unsure or info.multi_table or len(info.writes) != 1 \
            or info.kind not in (Kind.INSERT, Kind.REPLACE, Kind.UPDATE):
        return False
    w = info.writes[0]
    t = lookup(w.table, p.catalog, s)
    if t is None or not w.columns:
        return False
    names = {c.name.lower() for c in t.columns}
    return any(c.lower() not in names for c in w.columns)


def _updated_as_read(p: Predictor, info: StatementInfo, t: Table, s: SessionState) -> bool:
    """Whether a multi-table UPDATE changes ``t``'s rows as it reads them, as a single-table UPDATE does; not
    when another table comes first in the join, which one its WHERE pins by a unique key to a constant does:
    ``t``'s rows are then changed afterwards, every generated column written (MySQL 9.7: blood_bank_app's
    donors joined to the collection it names; loan_servicing_app's schedule joined to loans and products, and
    a join whose order the optimizer picks, are changed as read; multi_update_generated.sql)."""
    pinned: dict[str, set[str]] = {}
    for name, column in info.pinned:
        pinned.setdefault(name, set()).add(column)

    def constant(name: str) -> bool:
        table = lookup(name, p.catalog, s)
        have = pinned.get(name.lower(), set())
        return table is not None and any({c.lower() for c in k.columns} <= have for k in table.unique_keys)

    me = t.name.lower()
    return constant(me) or not any(constant(n) for n in info.joined if n.lower() != me)


def stick_to_row(p: Predictor, s: SessionState) -> None:
    if p.profile.MIXED_ROW_STICKY_WITH_TEMP_TABLES and s.binlog_format == "MIXED":
        s.sticky_row = True


def stick_if_unsafe(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    """A SELECT / SET / DO that writes nothing but is unsafe (``SELECT ... LIMIT 1``: unsafe.read_unsafe)
    went to row format: with temporary tables, MariaDB's session stays there."""
    if p.profile.MIXED_ROW_STICKY_WITH_TEMP_TABLES and s.binlog_format == "MIXED" and s.temp_tables \
            and not s.sticky_row and (info.reads or info.functions or info.sysvars) \
            and read_unsafe(p.context(b.seq, info, s)):
        s.sticky_row = True


def _used_by_statement(p: Predictor, info: StatementInfo, ctx: Context) -> bool:
    """Whether a trigger or function the statement runs writes a table the statement itself reads or writes:
    the server refuses it (1442) when the body runs, which the prediction takes to happen when the write is
    not under an IF or a loop of the body (and a row changes: assumed)."""
    own = {r.lower() for r in info.reads} | {u.table.name.lower() for u in ctx.access.writes if u.top}
    if any(u.top and p.data.watching(u.table.ident) for u in ctx.access.writes):
        return False  # the rows are followed: the trigger bodies run on them say (triggers.py)
    return any(not u.top and not u.idle and not u.guarded and not u.table.temporary and u.table.name.lower() in own
               for u in ctx.access.writes)


def _decide_dml(p: Predictor, seq: int, info: StatementInfo, s: SessionState) -> Outcome:
    ctx = p.context(seq, info, s)
    row_writes = tuple((u.table.ident, u.op, u.top, u.table.temporary) for u in ctx.access.writes if not u.idle)

    def outcome(error: int | None = None, stmt: tuple[Piece, ...] = (), trx: tuple[Piece, ...] = (),
                logged: bool = True, temp: bool = False) -> Outcome:
        return Outcome(error, frozenset(ctx.warnings), frozenset(ctx.unsafe), stmt, trx,
                        ctx.writes_trans, ctx.writes_nontrans, temp, logged and error is None,
                        row_writes if error is None else (), ctx.row_format,
                        ctx.written_engines if p.profile.COMBINED_ENGINES_WARNING and error is None else frozenset())

    if ctx.access.missing:
        return outcome(ER_NO_SUCH_TABLE)
    if _unknown_column(p, info, s):
        return outcome(ER_BAD_FIELD)
    if p.profile.SELF_SUBQUERY_ERROR and SELF_SUBQUERY in info.extra:
        return outcome(p.profile.SELF_SUBQUERY_ERROR)
    if not ctx.access.writes:
        return outcome(logged=False)  # a SELECT/DO that writes nothing is not logged
    if _used_by_statement(p, info, ctx):
        if p.profile.ROUTINE_ERROR_NOTE:
            ctx.warnings.add(p.profile.ROUTINE_ERROR_NOTE)
        return outcome(ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG)
    if info.kind in (Kind.UPDATE, Kind.DELETE) and info.limit == 0:
        return outcome(logged=False)  # a LIMIT 0 change is not even run, nor logged (both servers)
    ctx.unsafe = classify(ctx)
    if not s.log_bin:
        return outcome(logged=False)
    decide(ctx)  # the "impossible to log" errors come first, the GTID check last (decide_logging_format)
    if ctx.error is not None:
        return outcome(ctx.error)
    warn = p.profile.COMBINED_ENGINES_WARNING
    if warn and not s.trx_engines_warned and len(
            ctx.written_engines | (s.trx_engines if s.in_trx else frozenset())) > 1:
        # any two engines, MyISAM and MEMORY too, in the statement or its transaction; once per transaction
        # (seen on 9.7: fixtures/seeds/003_logging_rules/engines_combined.sql)
        ctx.warnings.add(warn)
    err = gtid_consistency(ctx)
    if err is not None:
        if info.select_source and info.kind in (Kind.INSERT, Kind.REPLACE) and warn:
            # seen on 9.7: an INSERT ... SELECT refused 1785 has no 6414, an INSERT ... VALUES has
            # (gtid_engines_warning.sql; event_ticketing_venue_app's refund requests)
            ctx.warnings.discard(warn)
        return outcome(err)
    stmt_cache: list[Piece] = []
    trx: list[Piece] = []
    temp = False
    if ctx.row_format:
        for u in ctx.access.writes:
            t = u.table
            eng = p.profile.engine(t.engine)
            if u.idle or t.temporary or not eng.replicated or eng.self_logging:
                continue  # a self-logging engine (NDB) writes its own rows through the injector
            if not _changes_rows(p, info, t, u.op, s):
                continue
            if p.profile.engine(t.engine).name == "blackhole" and u.op is not Op.INSERT:
                if p.profile.BLACKHOLE_ROW_WARNING:
                    ctx.warnings.add(p.profile.BLACKHOLE_ROW_WARNING)
                continue
            before, after = images(t, u.op, u.columns, s.row_image, p.profile,
                                   multi=u.top and info.multi_table and u.op is Op.UPDATE
                                   and not _updated_as_read(p, info, t, s))
            piece = Piece(seq, True, not ctx.trans(t), t.name, before, after, _ROW_TYPE[u.op], u.event)
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
        p.data.forget(t.ident)
        trans = p.profile.engine(t.engine).transactional
        cols = tuple(t.columns[i].name for i in (ev.after or ev.before) if i < len(t.columns))
        before, after = images(t, op[ev.type], cols, s.row_image, p.profile)
        (trx if trans else stmt_cache).append(Piece(b.seq, True, not trans, t.name, before, after, ev.type))
    writes = tuple((t.ident, op[ev.type], True, t.temporary) for t, ev in tables)
    out = Outcome(None, frozenset(), frozenset(), tuple(stmt_cache), tuple(trx), bool(trx), bool(stmt_cache),
                   False, s.log_bin, writes, True)
    apply_outcome(p, b, info, s, out)


def refuses_row_locks(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> bool:
    """SELECT ... FOR UPDATE write-locks the InnoDB rows it reads: in STATEMENT format below REPEATABLE READ
    the server refuses it as it refuses a write (1665 with InnoDB's warning), on both servers, in a
    procedure too; LOCK IN SHARE MODE / FOR SHARE do not (crowdfunding_platform_app's refund procedure in the
    READ COMMITTED webhook worker; select_for_update_rc.sql)."""
    if s.binlog_format != "STATEMENT":
        return False
    for name in info.reads:
        t = lookup(name, p.catalog, s)
        if t is not None and not t.temporary and p.profile.engine(t.engine).row_only_below_rr and not (
                p.profile.engine(t.engine).caps(s.isolation)[1]):
            b.error = ER_STMT_MODE_AND_ROW_ENGINE
            b.warnings.add(p.profile.INNODB_ROW_ONLY_WARNING)
            return True
    return False


def handle_noop(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    """Statements that write nothing to the binlog (SELECT without writes, USE, SHOW, ...)."""
    if info.for_update and refuses_row_locks(p, b, info, s):
        return
    if info.kind is Kind.SELECT and info.user_vars:
        _select_into(p, b, info, s)
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
        else:
            stick_if_unsafe(p, b, info, s)
