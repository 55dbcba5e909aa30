"""decide_logging_format: the "impossible to log" errors, the unsafe note and the row/statement choice,
checked in the server's own order (binlog-rules.md §1, seed 000's table, seed 003's errors)."""

from __future__ import annotations

from predictor.context import Context

ER_MULTIPLE_ENGINES_SELF_LOGGING = 1667
ER_ROW_ENGINE_AND_STMT_ENGINE = 1661
ER_ROW_MODE_AND_STMT_ENGINE = 1662
ER_UNSAFE_AND_STMT_ENGINE = 1663
ER_STMT_MODE_AND_ROW_ENGINE = 1665
ER_UNSAFE_STATEMENT = 1592
ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE = 1785


def gtid_consistency(ctx: Context) -> int | None:
    """MySQL with enforce_gtid_consistency: a non-transactional write in the same statement or
    transaction as a transactional one cannot be given one GTID."""
    if not ctx.profile.enforce_gtid:
        return None
    nontrans = [u for u in ctx.access.writes if not ctx.trans(u.table)]
    if not nontrans:
        return None
    if all(u.table.temporary for u in nontrans) and ctx.row_format:  # after decide(): MIXED may have gone to row
        return None
    if ctx.writes_trans or (ctx.session.in_trx and ctx.session.trx_has_trans_write):
        return ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE
    return None


def decide(ctx: Context) -> None:
    """Set ``ctx.error``/``ctx.warnings``/``ctx.row_format`` for a statement that writes tables."""
    p, s = ctx.profile, ctx.session
    fmt = s.binlog_format
    written = ctx.access.written_tables()
    engines = {p.engine(t.engine).name for t in written}
    caps = [ctx.caps(t) for t in written]
    row_all = all(r for r, _ in caps)
    stmt_all = all(st for _, st in caps)
    # InnoDB below REPEATABLE READ refuses statement logging while locking (MariaDB and MySQL alike)
    innodb_rc = [t for t in written if p.engine(t.engine).row_only_below_rr and not t.temporary
                 and not ctx.caps(t)[1]]

    if len(engines) > 1 and any(p.engine(t.engine).self_logging for t in written):
        ctx.error = ER_MULTIPLE_ENGINES_SELF_LOGGING
        return
    if fmt == "STATEMENT" and innodb_rc:
        ctx.error = ER_STMT_MODE_AND_ROW_ENGINE
        ctx.warnings.add(p.INNODB_ROW_ONLY_WARNING)
        return
    if not row_all and not stmt_all:
        ctx.error = ER_ROW_ENGINE_AND_STMT_ENGINE
        return
    if not row_all:  # a statement-only engine is written
        if fmt == "ROW":
            ctx.error = ER_ROW_MODE_AND_STMT_ENGINE
            return
        if ctx.unsafe and (fmt == "MIXED" or p.UNSAFE_AND_STMT_ENGINE_ANY_FORMAT):
            ctx.error = ER_UNSAFE_AND_STMT_ENGINE
            return
        ctx.row_format = False
        if fmt == "STATEMENT" and ctx.unsafe:
            ctx.warnings.add(ER_UNSAFE_STATEMENT)
        return
    if fmt == "STATEMENT":
        if not stmt_all:
            only_temp = all(t.temporary for t, (_, st) in zip(written, caps, strict=True) if not st)
            if p.is_mariadb and only_temp:
                ctx.row_format = True
                return
            ctx.error = ER_STMT_MODE_AND_ROW_ENGINE
            return
        ctx.row_format = False
        if ctx.unsafe:
            ctx.warnings.add(ER_UNSAFE_STATEMENT)
        return
    if fmt == "ROW":
        ctx.row_format = True
        return
    # MIXED
    touches_temp = any(t.temporary for t in ctx.access.tables())
    ctx.row_format = (bool(ctx.unsafe) or not stmt_all or (p.TEMP_TABLES_NEVER_ROW and touches_temp)
                      or s.force_row or s.sticky_row)
    if not ctx.row_format and p.is_mariadb:
        # a temporary table whose CREATE was not logged forces row format (so nothing is logged for it)
        if any(t.temporary and not t.logged_create for t in ctx.access.tables()):
            ctx.row_format = True
