"""DDL: tables (temporary ones in the session), triggers, routines and views in the catalog; logged
directly after an implicit commit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from sqlglot import exp

from predictor import nodes
from predictor.analyze import CHECK_OPTION, DEPRECATED_SYNTAX, NOT_UPDATABLE, ONE_ROW, Kind, Op, StatementInfo
from predictor.binlog import Builder
from predictor.catalog import Column, KeyKind, Routine, Table, Trigger, View
from predictor.codes import (
    ER_BAD_FIELD,
    ER_BAD_TABLE,
    ER_BINLOG_UNSAFE_ROUTINE,
    ER_NO_SUCH_TABLE,
    ER_SP_ALREADY_EXISTS,
    ER_SP_DOES_NOT_EXIST,
    ER_TABLE_EXISTS,
    ER_TRG_ALREADY_EXISTS,
    ER_TRG_DOES_NOT_EXIST,
    ER_TRUNCATE_ILLEGAL_FK,
    ER_UNKNOWN_VIEW,
    ER_VIEW_SELECT_VARIABLE,
)
from predictor.context import Context
from predictor.data import DataModel, Mode
from predictor.dml import stick_to_row
from predictor.images import images
from predictor.parse import parse
from predictor.query import select_rows
from predictor.resolve import lookup, resolve
from predictor.routines import Signature
from predictor.rows import checks_foreign_keys, parsed, table_source
from predictor.session import Cache, Piece, SessionState
from predictor.transactions import log_direct
from predictor.triggers import idle_unless
from predictor.unsafe import classify

if TYPE_CHECKING:
    from predictor.engine import Predictor


def _temp_ddl_logged(p: Predictor, s: SessionState) -> bool:
    """Is a CREATE TEMPORARY TABLE written (as a statement) under the session's format?"""
    fmt = s.binlog_format
    if fmt == "STATEMENT":
        return True
    # MIXED: not in row format, as a CALL is once one of its statements went to row (dental_group_app's
    # nightly aging table, temp_table_in_row_call.sql) or a MariaDB session with temporary tables after one
    return fmt == "MIXED" and not p.profile.TEMP_TABLES_NEVER_ROW and not (s.force_row or s.sticky_row)


def _log_temp_ddl(p: Predictor, b: Builder, s: SessionState, filled_nontrans: bool = False) -> None:
    """In a transaction (autocommit off is enough: the DDL opens it) the transaction cache keeps it, except a
    CREATE ... SELECT filling a non-transactional table: the statement cache (MariaDB 10.11 and 11.8:
    temp_table_autocommit_off.sql)."""
    if not s.log_bin:
        return
    if s.multi_stmt_mode and filled_nontrans:
        p.binlog.flush([Piece(b.seq, False, True)], Cache.STMT)
    elif s.multi_stmt_mode:
        s.trx_cache.append(Piece(b.seq, False, True))
        s.trx_keep_log = True
        s.in_trx = True
    else:
        p.binlog.flush([Piece(b.seq, False, True)], Cache.DIRECT)


def _temp_created(s: SessionState) -> bool:
    """A temporary table was created: with autocommit off or after BEGIN it opens the transaction, whose
    ROLLBACK then warns on MySQL (1751); whether that was so."""
    if s.multi_stmt_mode:
        s.in_trx = s.trx_temp_created = True
    return s.multi_stmt_mode


def _unprepare(p: Predictor, gone: Callable[[tuple[str, str], frozenset[str]], bool]) -> None:
    """Routine statements that every session prepares again (calls._prepared): ``gone(key, tables)``."""
    for other in p.sessions.values():
        other.prepared = {k: v for k, v in other.prepared.items() if not gone(k, v)}


def _gtid_temp_error(p: Predictor, s: SessionState) -> bool:
    """MySQL's is_ddl_gtid_compatible: in_multi_stmt_transaction_mode(), so autocommit=0 before any statement too."""
    return p.profile.enforce_gtid and s.multi_stmt_mode and s.binlog_format == "STATEMENT"


def _warn_deprecated(p: Predictor, b: Builder, info: StatementInfo) -> None:
    if p.profile.DEPRECATED_SYNTAX_WARNING and DEPRECATED_SYNTAX in info.extra:
        b.warnings.add(p.profile.DEPRECATED_SYNTAX_WARNING)


def handle_create_table(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = info.name or ""
    _warn_deprecated(p, b, info)
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
        _temp_created(s)
        table = replace(table, temporary=True, logged_create=logged, owner=s.name)
        s.temp_tables[name.lower()] = table
        p.rows[table.ident] = 0
        p.data.create(table)
        if logged:
            _log_temp_ddl(p, b, s)
        return
    p.implicit_commit(s)
    if p.catalog.table(name) is not None or p.catalog.view(name) is not None:
        _name_taken(p, b, info, s)
        return
    p.catalog.put_table(table)
    p.rows[name.lower()] = 0
    p.data.create(table)
    log_direct(p, b, s)


def handle_create_select(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = info.name or ""
    engine = info.engine or (p.profile.DEFAULT_TMP_ENGINE if info.temporary else p.profile.DEFAULT_ENGINE)
    if not info.temporary:
        p.implicit_commit(s)
    if info.temporary and _gtid_temp_error(p, s):
        b.error = p.profile.GTID_TEMP_IN_TRX_ERROR
        return
    exists = s.temp_table(name) if info.temporary else p.catalog.table(name)
    if exists is not None:
        if info.if_not_exists:
            b.warnings.add(ER_TABLE_EXISTS)  # and nothing logged, in every format (both servers:
            # fixtures/seeds/003_logging_rules/create_select_exists.sql)
        else:
            b.error = ER_TABLE_EXISTS
        return
    src_cols: list[Column] = []
    sources: list[Table] = []
    for r in info.reads:
        t = lookup(r, p.catalog, s)
        if t is None and p.catalog.view(r) is None:
            b.error = ER_NO_SUCH_TABLE
            return
        if t is not None:
            sources.append(t)  # a view's columns: their types are not looked up
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
    table = replace(d, engine=engine, columns=cols, temporary=info.temporary,
                    owner=s.name if info.temporary else "")
    if p.profile.enforce_gtid and not info.temporary and not p.profile.engine(engine).transactional:
        b.error = 1786  # ER_GTID_UNSAFE_CREATE_SELECT: only atomic (transactional) targets get one GTID
        return
    filled = _fill_created(p, b.sql, table, info, s)
    if filled == DUPLICATE_FILL:
        b.error = 1062  # a duplicate key while filling: the table is dropped again, nothing is logged
        return
    access = resolve(info, p.catalog, s, set_null_cascades=p.profile.FOREIGN_KEY_TABLES_LOCKED,
                     joined_triggers=p.profile.MULTI_UPDATE_OPENS_JOINED)
    ctx = Context(b.seq, info, access, s, p.catalog, p.profile)
    b.unsafe = classify(ctx)
    ctx.unsafe = set(b.unsafe)
    fmt = s.binlog_format
    row = fmt == "ROW" or (fmt == "MIXED" and (bool(ctx.unsafe) or s.sticky_row))
    if fmt == "STATEMENT" and ctx.unsafe:
        b.warnings.add(1592)
    src_empty = filled == 0 or (all(p.rows.get(s.ident(r)) == 0 for r in info.reads) and bool(info.reads)
                                and not (info.select and ONE_ROW in info.select.extra))
    p.rows[table.ident] = 0 if src_empty else None
    if info.temporary:
        logged = not row and _temp_ddl_logged(p, s)
        s.temp_tables[name.lower()] = replace(table, logged_create=logged)
        if _temp_created(s) and p.profile.COMBINED_ENGINES_WARNING and not s.trx_engines_warned:
            s.trx_engines |= {p.profile.engine(engine).name}  # its rows are written with the table's engine
        if row:
            stick_to_row(p, s)
        if logged:
            _log_temp_ddl(p, b, s, filled_nontrans=not p.profile.engine(engine).transactional)
        return
    p.catalog.put_table(table)
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
    None when that cannot be said, DUPLICATE_FILL when a duplicate key fails the statement. The table's rows are then
    tracked when they could be evaluated (temporary tables' too)."""
    tree = parsed(p, sql, s)
    got = select_rows(tree.expression, lambda name: table_source(p, name, s)) \
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
    p.data.tables[table.ident] = scratch.tables[table.ident]
    if res is None:
        p.data.forget(table.ident)
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
    s.trx_temp_dropped = s.trx_temp_dropped or (bool(temps) and s.multi_stmt_mode)
    for n in temps:
        t = s.temp_tables.pop(n.lower())
        p.rows.pop(t.ident, None)
        p.data.tables.pop(t.ident, None)
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
        log_direct(p, b, s)
    elif logged_temp:
        _log_temp_ddl(p, b, s)


def handle_alter(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = info.targets[0] if info.targets else ""
    tmp = s.temp_table(name)
    t = tmp or p.catalog.table(name)
    if t is None:
        b.error = ER_NO_SUCH_TABLE
        return
    _warn_deprecated(p, b, info)
    _unprepare(p, lambda key, tables: t.name.lower() in tables)  # a table they use changed
    gone = {d.lower() for d in info.dropped_columns}
    renames: dict[str, str] = {}
    current = list(t.columns)
    for was, now in info.changed_columns:
        at = next((i for i, c in enumerate(current) if c.name.lower() == was.lower()), None)
        if at is None:
            b.error = ER_BAD_FIELD
            return
        current[at] = replace(current[at], name=now) if isinstance(now, str) else now
        if current[at].name.lower() != was.lower():
            renames[was.lower()] = current[at].name.lower()
    cols = _placed(tuple(c for c in current if c.name.lower() not in gone) + info.added_columns,
                   info.moved_columns)
    if cols is None:
        b.error = ER_BAD_FIELD  # AFTER a column the table does not have
        return
    keys = tuple(replace(k, columns=tuple(renames.get(c.lower(), c) for c in k.columns)) for k in t.keys
                 if not (info.drops_primary_key and k.kind is KeyKind.PRIMARY)
                 and not any(c.lower() in gone for c in k.columns)) + info.added_keys
    pk = {c.lower() for k in keys if k.kind is KeyKind.PRIMARY for c in k.columns}
    cols = tuple(replace(c, nullable=False) if c.name.lower() in pk else c for c in cols)
    new = replace(t, engine=info.engine or t.engine, columns=cols, keys=keys)
    if tmp is not None:
        if not p.data.rekey(t, new, renames):
            b.error = 1062
            return
        s.temp_tables[name.lower()] = new
        if tmp.logged_create:
            _log_temp_ddl(p, b, s)
        return
    p.implicit_commit(s)
    if not p.data.rekey(t, new, renames):
        b.error = 1062  # the rows clash on a new unique key: the ALTER fails, nothing is logged
        return
    p.catalog.put_table(new)
    log_direct(p, b, s)


def _placed(cols: tuple[Column, ...], moves: tuple[tuple[str, str], ...]) -> tuple[Column, ...] | None:
    """``cols`` with each FIRST / AFTER applied in order: row images list columns in table order."""
    out = list(cols)
    for name, after in moves:
        at = next((i for i, c in enumerate(out) if c.name.lower() == name.lower()), None)
        if at is None:
            continue
        col = out.pop(at)
        anchor = 0 if not after else next((i + 1 for i, c in enumerate(out) if c.name.lower() == after.lower()),
                                          None)
        if anchor is None:
            return None
        out.insert(anchor, col)
    return tuple(out)


def handle_truncate(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    for n in info.targets:
        tmp = s.temp_table(n)
        if tmp is not None:
            p.rows[tmp.ident] = 0
            p.data.clear(tmp)
            # a temporary table's TRUNCATE is not logged when the statement goes in row format (MariaDB: MIXED
            # sticks to row while temporary tables exist; seen in the demo, temporary_table_rows.sql)
            if tmp.logged_create and not (s.binlog_format == "ROW" or s.sticky_row or s.force_row):
                _log_temp_ddl(p, b, s)
            return
        if p.catalog.table(n) is None:
            b.error = ER_NO_SUCH_TABLE
            return
    p.implicit_commit(s)
    for n in info.targets:
        t = p.catalog.table(n)
        if t is not None and checks_foreign_keys(p, t, s) and any(
                c.name.lower() != t.name.lower() for c, _ in p.catalog.children(t.name)):
            # another table's foreign key references it, rows or not (blood_bank_app's product_types)
            b.error = ER_TRUNCATE_ILLEGAL_FK
            return
    for n in info.targets:
        p.rows[n.lower()] = 0
        t = p.catalog.table(n)
        if t is not None:
            p.data.clear(t)
    log_direct(p, b, s)


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
    log_direct(p, b, s)


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
    idle = idle_unless(b.sql) if trig.event.upper() == "UPDATE" else frozenset()
    for body in info.body:  # rows a trigger changes are not evaluated: what it writes becomes unknown (fire)
        for w in body.writes:
            target = p.catalog.table(w.table)
            keyed = {c.lower() for k in target.unique_keys for c in k.columns} if target is not None else None
            # a multi-table UPDATE too: the columns it sets in its target become unknown when it fires
            # (freight_forwarding_app's customs hold puts the shipment joined to the declaration on hold)
            if body.kind is Kind.UPDATE and w.columns is not None and keyed is not None \
                    and not keyed & {c.lower() for c in w.columns}:
                # (with the generated columns computed from them)
                changed = target.with_generated(w.columns) if target is not None else ()
                p.data.trigger_updates(table.name, trig.event, w.table, changed, idle)
            elif body.kind in (Kind.INSERT, Kind.DELETE) and not body.multi_table:
                p.data.trigger_updates(table.name, trig.event, w.table, None, idle)  # rows come and go: forgotten
            else:
                p.data.never_track(w.table)
    p.catalog.put_table(table.with_trigger(trig))
    log_direct(p, b, s)


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
    log_direct(p, b, s)


def handle_create_routine(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    kind = info.routine_kind or "PROCEDURE"
    if kind == "FUNCTION" and p.profile.opt_on("log_bin") and not p.profile.opt_on(
            "log_bin_trust_function_creators") and not _declared_safe(b.sql):
        b.error = ER_BINLOG_UNSAFE_ROUTINE  # both servers, root too (trigger_calls_function.sql)
        return
    if p.catalog.routine(kind, info.name or "") is not None:
        b.error = ER_SP_ALREADY_EXISTS
        return
    p.catalog.put_routine(Routine(info.name or "", kind, info.body, info.signature or Signature(), b.sql))
    _unprepare(p, lambda key, tables: key[0] == (info.name or "").lower())  # a new version of the routine
    log_direct(p, b, s)


def _declared_safe(sql: str) -> bool:
    """Whether a CREATE FUNCTION declares DETERMINISTIC, NO SQL or READS SQL DATA."""
    tree = parse(sql)
    if not isinstance(tree, nodes.CreateRoutine):
        return True  # (not read: not refused)
    access = {str(c.name).upper() for c in tree.args.get("characteristics") or () if isinstance(c, exp.Var)}
    return bool(tree.args.get("deterministic")) or bool(access & {"NO SQL", "READS SQL DATA"})


def handle_drop_routine(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    kind = info.routine_kind or "PROCEDURE"
    name = info.targets[0] if info.targets else ""
    if p.catalog.drop_routine(kind, name) is None:
        if not info.if_exists:
            b.error = ER_SP_DOES_NOT_EXIST
            return
        b.warnings.add(ER_SP_DOES_NOT_EXIST)
    log_direct(p, b, s)


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
    p.catalog.put_view(View(name, info.select, CHECK_OPTION in info.extra, NOT_UPDATABLE not in info.extra))
    log_direct(p, b, s)


def handle_drop_view(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    missing = [n for n in info.targets if p.catalog.drop_view(n) is None]
    if missing:
        if not info.if_exists:
            b.error = ER_UNKNOWN_VIEW if p.profile.is_mariadb else ER_BAD_TABLE
            return
        b.warnings.add(ER_UNKNOWN_VIEW if p.profile.is_mariadb else ER_BAD_TABLE)
    log_direct(p, b, s)


def handle_ddl_other(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    log_direct(p, b, s)


def _name_taken(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    """CREATE of a name already taken: IF NOT EXISTS makes it a note (logged on MySQL), else error 1050."""
    if info.if_not_exists:
        b.warnings.add(ER_TABLE_EXISTS)
        if p.profile.CREATE_EXISTING_LOGGED:
            log_direct(p, b, s)
    else:
        b.error = ER_TABLE_EXISTS


def handle_sequence(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if not p.profile.is_mariadb:
        b.unknown, b.reason = True, "CREATE SEQUENCE is MariaDB-only"
        return
    p.implicit_commit(s)
    name = info.name or ""
    if p.catalog.table(name) is not None:
        _name_taken(p, b, info, s)
        return
    p.catalog.put_table(Table(name, "sequence_table", sequence=True))
    log_direct(p, b, s)


def handle_flush(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    p.implicit_commit(s)
    if "local" not in info.extra:
        log_direct(p, b, s)
