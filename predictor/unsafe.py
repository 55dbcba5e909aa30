"""Unsafe classification (binlog-rules.md §2): one small rule per reason, applied in ``UNSAFE_RULES`` order.

Static rules look only at a statement's own facts and also run on every sub-statement (trigger, stored
function, view body), which is how unsafeness propagates (``sp_head::propagate_attributes``). Profiles
drop the reasons they do not know (``Profile.UNSAFE_REASONS``).
"""

from __future__ import annotations

from collections.abc import Callable

from predictor.analyze import SELF_READ, Kind, StatementInfo
from predictor.catalog import Table
from predictor.context import Context
from predictor.profiles import Profile

StaticRule = Callable[[StatementInfo, Profile], bool]
Rule = Callable[[Context], bool]

_INSERTS = (Kind.INSERT, Kind.REPLACE)
_READS_WITH_LIMIT = (Kind.SELECT, Kind.SET, Kind.NOOP)


def limit(info: StatementInfo, profile: Profile) -> bool:
    if info.kind not in (Kind.UPDATE, Kind.DELETE, Kind.INSERT, Kind.REPLACE, Kind.CREATE_TABLE_SELECT):
        return False
    nested = info.nested_limit  # a subquery's LIMIT too: the parser marks the statement (dental_group_app)
    return limited(info, profile) or (nested is not None and not (profile.LIMIT_ZERO_SAFE and nested == 0))


def limited(info: StatementInfo, profile: Profile) -> bool:
    """A LIMIT the unsafe rule counts, whatever the statement (a body's SELECT ... LIMIT too: calls.py)."""
    return info.limit is not None and not (profile.LIMIT_ZERO_SAFE and 0 <= info.limit <= 0)


def insert_ignore_select(info: StatementInfo, profile: Profile) -> bool:
    return info.kind is Kind.INSERT and info.ignore and info.select_source


def insert_select_update(info: StatementInfo, profile: Profile) -> bool:
    return info.kind is Kind.INSERT and info.select_source and info.on_duplicate is not None


def replace_select(info: StatementInfo, profile: Profile) -> bool:
    return info.kind is Kind.REPLACE and info.select_source


def create_ignore_select(info: StatementInfo, profile: Profile) -> bool:
    return info.kind is Kind.CREATE_TABLE_SELECT and info.ignore


def create_replace_select(info: StatementInfo, profile: Profile) -> bool:
    return info.kind is Kind.CREATE_TABLE_SELECT and info.replace


def update_ignore(info: StatementInfo, profile: Profile) -> bool:
    return info.kind is Kind.UPDATE and info.ignore and not info.multi_table


def skip_locked(info: StatementInfo, profile: Profile) -> bool:
    return info.skip_locked and bool(info.writes)


def nowait(info: StatementInfo, profile: Profile) -> bool:
    return info.nowait and bool(info.writes)


def system_function(info: StatementInfo, profile: Profile) -> bool:
    return any(f in profile.UNSAFE_FUNCTIONS or info.kind.name in profile.UNSAFE_FUNCTIONS_IN.get(f, ())
               for f in info.functions)


def system_variable(info: StatementInfo, profile: Profile) -> bool:
    return any(v.split(".")[-1] not in profile.SAFE_SYSVARS for v in info.sysvars)


STATIC_RULES: tuple[tuple[str, StaticRule], ...] = (
    ("LIMIT", limit),
    ("SYSTEM_VARIABLE", system_variable),
    ("SYSTEM_FUNCTION", system_function),
    ("INSERT_IGNORE_SELECT", insert_ignore_select),
    ("INSERT_SELECT_UPDATE", insert_select_update),
    ("REPLACE_SELECT", replace_select),
    ("CREATE_IGNORE_SELECT", create_ignore_select),
    ("CREATE_REPLACE_SELECT", create_replace_select),
    ("UPDATE_IGNORE", update_ignore),
    ("SKIP_LOCKED", skip_locked),
    ("NOWAIT", nowait),
)


def _top_targets(ctx: Context) -> list[Table]:
    return [u.table for u in ctx.access.writes if u.top]


def autoinc_columns(ctx: Context) -> bool:
    """A trigger or function writes a table with an auto-increment column (on MariaDB not when the first
    foreign-key child is only checked: resolve._stub_first); on MySQL 9.7 an ON DELETE CASCADE / SET NULL may
    write one too (cascade_rows.sql)."""
    if ctx.access.sub_autoinc_write and not ctx.access.autoinc_hidden:
        return True
    return ctx.profile.FOREIGN_KEY_TABLES_LOCKED and any(t.auto_increment is not None for t in _cascade_targets(ctx))


def write_autoinc_select(ctx: Context) -> bool:
    """A table with an auto-increment column (the statement's, or one a trigger writes: the server looks at
    every table it locks) is written while another table is read (INSERT ... SELECT,
    or an UPDATE/DELETE with a subquery: seen on MariaDB 10.11), or while a trigger or function it runs
    reads a table that body does not write (fixtures/seeds/003_logging_rules/unsafe_24_write_autoinc_select.sql)."""
    if ctx.info.kind not in (*_INSERTS, Kind.UPDATE, Kind.DELETE, Kind.SET, Kind.SELECT, Kind.DO):
        return False  # (SET / SELECT / DO write through the functions they call: function_write_autoinc_select.sql)
    updated = _cascade_targets(ctx, updated_only=True) if ctx.profile.FOREIGN_KEY_TABLES_LOCKED else []
    if updated and any(t.auto_increment is not None for t in updated + [u.table for u in ctx.access.writes]):
        return True  # a child row the cascade updates has its own foreign keys checked: the parents are read
    if ctx.profile.FOREIGN_KEY_TABLES_LOCKED and any(u.table.auto_increment is not None for u in ctx.access.writes
                                                     if u.cascaded) and _foreign_key_reads(ctx):
        return True  # what a cascade's triggers would write is locked with the checked children (fk_stub_first.sql)
    if not any(u.table.auto_increment is not None for u in ctx.access.writes if not u.cascaded):
        return False
    # a table read-locked only: one a trigger or function also writes is write-locked (seen on MariaDB 10.11)
    targets = {t.name.lower() for t in _top_targets(ctx)}
    written = targets | {u.table.name.lower() for u in ctx.access.writes}
    # a trigger's or function's multi-table UPDATE write-locks every table it joins (body_multi_update_locks.sql)
    written |= {r.lower() for s in ctx.access.sub_statements
                if s.kind is Kind.UPDATE and s.multi_table for r in s.reads}
    # the statement reading its own target (INSERT ... SELECT FROM it, a subquery over it) opens it twice
    self_read = SELF_READ in ctx.info.extra or (
        ctx.info.kind in _INSERTS and ctx.info.select_source and any(r.lower() in targets for r in ctx.info.reads))
    return ctx.access.body_select or self_read or any(r.name.lower() not in written for r in ctx.access.reads) or (
        ctx.profile.FOREIGN_KEY_TABLES_LOCKED and _foreign_key_reads(ctx))


def _foreign_key_reads(ctx: Context) -> bool:
    """Whether the foreign keys of what the statement changes read-lock another table (MySQL)."""
    kind = ctx.info.kind
    for t in _top_targets(ctx):
        if kind in (*_INSERTS, Kind.UPDATE) and t.foreign_keys:
            return True  # the parents are checked
        if kind is Kind.UPDATE and any(fk.on_update in ("RESTRICT", "NO ACTION")
                                       for _, fk in ctx.catalog.children(t.name)):
            return True  # the children are checked for rows still pointing at it
        if kind in (Kind.DELETE, Kind.REPLACE) and _deletes_check(ctx, t.name, 0):
            return True  # checked, or changed by a cascade that checks in turn (cascade_rows.sql)
    return False


def _deletes_check(ctx: Context, name: str, depth: int) -> bool:
    """Whether deleting rows of ``name`` read-locks a table: a child its foreign key only checks (RESTRICT /
    NO ACTION), one SET NULL updates (its other parents are checked), or one the cascade deletes whose own
    children are checked in turn. A child the cascade deletes is written, not read (blood_bank_app's invoice
    lines; fk_delete_cascade_reads.sql)."""
    for child, fk in ctx.catalog.children(name):
        action = fk.on_delete.upper()
        if action != "CASCADE" or depth > 8:
            return True
        if child.name.lower() != name.lower() and _deletes_check(ctx, child.name, depth + 1):
            return True
    return False


def _cascade_targets(ctx: Context, updated_only: bool = False) -> list[Table]:
    """The tables an ON DELETE CASCADE / SET NULL of a DELETE or REPLACE, or an ON UPDATE CASCADE / SET NULL
    of an UPDATE, may write (MySQL 9.7 opens them with the statement, as it does a trigger's;
    fk_cascade_unsafe.sql). ``updated_only``: those whose rows it updates (not deletes)."""
    kind = ctx.info.kind
    if kind not in (Kind.DELETE, Kind.REPLACE, Kind.UPDATE):
        return []
    event = "UPDATE" if kind is Kind.UPDATE else "DELETE"
    return [child for t in _top_targets(ctx) for child, fk in ctx.catalog.children(t.name)
            if (got := fk.child_event(event)) is not None and (got == "UPDATE" or not updated_only)]


def create_select_autoinc(ctx: Context) -> bool:
    d = ctx.info.table_def
    return ctx.info.kind is Kind.CREATE_TABLE_SELECT and d is not None and d.auto_increment is not None


def insert_two_keys(ctx: Context) -> bool:
    """INSERT ... VALUES ... ON DUPLICATE KEY UPDATE on a table with two unique keys; an INSERT ... SELECT is
    INSERT_SELECT_UPDATE alone on all three servers (upsert_select_keys.sql)."""
    if ctx.info.kind is not Kind.INSERT or ctx.info.on_duplicate is None or ctx.info.select_source:
        return False
    tables = [u.table for u in ctx.access.writes if not u.cascaded] if ctx.profile.TWO_KEYS_IN_TRIGGER_TABLES \
        else _top_targets(ctx)
    return any(len(t.unique_keys) > 1 for t in tables)


def autoinc_not_first(ctx: Context) -> bool:
    if ctx.info.kind not in (*_INSERTS, Kind.LOAD):
        return False
    for t in _top_targets(ctx):
        ai = t.auto_increment
        if ai is None:
            continue
        in_keys = [k for k in t.keys if ai.name.lower() in (c.lower() for c in k.columns)]
        if in_keys and all(k.columns[0].lower() != ai.name.lower() for k in in_keys):
            return True
    return False


def nontrans_after_trans(ctx: Context) -> bool:
    s = ctx.session
    return (s.in_trx and s.trx_has_trans_write and not s.binlog_direct and ctx.writes_nontrans
            and not ctx.writes_trans)


def multiple_engines_self_logging(ctx: Context) -> bool:
    tables = ctx.access.tables()
    engines = {ctx.profile.engine(t.engine).name for t in tables}
    return len(engines) > 1 and any(ctx.profile.engine(t.engine).self_logging for t in tables)


# binlog_unsafe_map (sql_lex.cc): bit index = 4*direct + 2*trx_cache_not_empty + isolation_below_rr
_RT, _RN, _RTT, _RTN, _WT, _WN, _WTT, _WTN = range(8)
_ANY = 0xFF
_ON, _OFF, _NOT_EMPTY = 0xF0, 0x0F, 0xCC
_MIXED_CASES: tuple[tuple[int, int, int], ...] = (
    (_WT, _WN, _ANY), (_WT, _RN, _ANY), (_WN, _WTT, _ANY), (_WTT, _RN, _ANY),
    (_WT, _WTN, _ON), (_WT, _RTN, _ON), (_WTT, _WTN, _ON), (_WTT, _RTN, _ON),
    (_WN, _RT, _NOT_EMPTY), (_WN, _RTT, _NOT_EMPTY), (_WTN, _RT, _ON & _NOT_EMPTY),
    (_WTN, _RTT, _ON & _NOT_EMPTY), (_WTN, _RN, _OFF & _NOT_EMPTY),
)


def accessed_flags(ctx: Context) -> set[int]:
    flags: set[int] = set()
    for u in ctx.access.writes:
        tr, tmp = ctx.trans(u.table), u.table.temporary
        flags.add((_WTT if tr else _WTN) if tmp else (_WT if tr else _WN))
    reads = list(ctx.access.reads) + [u.table for u in ctx.access.writes]
    if ctx.info.kind is Kind.CREATE_TABLE_SELECT and not ctx.info.temporary:
        reads = list(ctx.access.reads)
    for t in reads:
        tr, tmp = ctx.trans(t), t.temporary
        flags.add((_RTT if tr else _RTN) if tmp else (_RT if tr else _RN))
    return flags


def mixed_statement(ctx: Context) -> bool:
    s = ctx.session
    flags = accessed_flags(ctx)
    below_rr = s.isolation.upper() in ("READ-COMMITTED", "READ-UNCOMMITTED")
    if s.multi_stmt_mode:
        bit = 4 * s.binlog_direct + 2 * bool(s.trx_cache) + below_rr
        for a, b, cond in _MIXED_CASES:
            if a in flags and b in flags and cond & (1 << bit):
                return True
        return False
    # Seen on MariaDB 10.11: in autocommit, writing an N-table while reading a T-table below
    # REPEATABLE READ is MIXED_STATEMENT too.
    return ctx.profile.MIXED_READ_COMMITTED_UNSAFE and below_rr and _WN in flags and _RT in flags


def system_table(ctx: Context) -> bool:
    names = {t.name.lower() for t in ctx.access.tables() if t.engine == "csv"}
    return bool(names & {"general_log", "slow_log"})


RULES: tuple[tuple[str, Rule], ...] = (
    ("SYSTEM_TABLE", system_table),
    ("AUTOINC_COLUMNS", autoinc_columns),
    ("NONTRANS_AFTER_TRANS", nontrans_after_trans),
    ("MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE", multiple_engines_self_logging),
    ("MIXED_STATEMENT", mixed_statement),
    ("WRITE_AUTOINC_SELECT", write_autoinc_select),
    ("CREATE_SELECT_AUTOINC", create_select_autoinc),
    ("INSERT_TWO_KEYS", insert_two_keys),
    ("AUTOINC_NOT_FIRST", autoinc_not_first),
)


def static_reasons(info: StatementInfo, profile: Profile) -> set[str]:
    return {name for name, rule in STATIC_RULES if rule(info, profile)}


RUN_TIME_REASONS = frozenset({"INSERT_IGNORE_SELECT", "INSERT_SELECT_UPDATE", "REPLACE_SELECT",
                              "CREATE_IGNORE_SELECT", "CREATE_REPLACE_SELECT", "UPDATE_IGNORE"})
"""Decided when the statement is prepared to run, not when it is parsed: a trigger's or stored function's
never reach the statement that fires it, on either server (key_select_in_triggers.sql;
crowdfunding_platform_app's campaign trigger with INSERT IGNORE ... SELECT into the outbox)."""


def sub_reasons(info: StatementInfo, profile: Profile) -> set[str]:
    """The reasons a trigger's or stored function's statement gives the statement that runs it."""
    return static_reasons(info, profile) - RUN_TIME_REASONS


def read_unsafe(ctx: Context) -> bool:
    """Whether a statement that writes nothing is still unsafe where the server decides its format: MIXED
    goes to row for it though it logs nothing, for the rest of a CALL (predictor/calls.py) and, on MariaDB,
    while the session has temporary tables (Profile.MIXED_ROW_STICKY_WITH_TEMP_TABLES). Its LIMIT (in a
    subquery too), unsafe functions and system variables count, and those of the stored functions it calls
    (``SET v = fn_fx(...)`` whose SELECT has a LIMIT: freight_forwarding_app's invoices). MariaDB decides
    only a statement that opens a table or calls a stored function (Profile.BODY_LIMIT_READS_TABLE);
    fixtures/seeds/003_logging_rules/read_unsafe.sql."""
    info, p = ctx.info, ctx.profile
    if p.BODY_LIMIT_READS_TABLE and not (ctx.access.reads or ctx.access.stored_functions):
        return False
    if limited(info, p) or system_function(info, p) or system_variable(info, p):
        return True
    for sub in ctx.access.sub_statements:
        if limited(sub, p) or sub_reasons(sub, p) or not p.SUBSTATEMENT_UNSAFE_FUNCTIONS.isdisjoint(sub.functions):
            return True
    return any(f in p.UNSAFE_FUNCTIONS for f in ctx.access.functions) or any(
        v not in p.SAFE_SYSVARS for v in ctx.access.sysvars)


def classify(ctx: Context) -> set[str]:
    """Every unsafe reason of the statement, including those of its sub-statements."""
    reasons = static_reasons(ctx.info, ctx.profile)
    p = ctx.profile
    for sub in ctx.access.sub_statements:
        reasons |= sub_reasons(sub, p)
        if any(f in p.SUBSTATEMENT_UNSAFE_FUNCTIONS for f in sub.functions):
            reasons.add("SYSTEM_FUNCTION")
        if sub.kind in _READS_WITH_LIMIT and sub.limit is not None and ctx.access.writes and not (
                p.LIMIT_ZERO_SAFE and sub.limit == 0):
            # a view with LIMIT read by a writing statement; a body's SELECT, SET v = (SELECT ... LIMIT 1),
            # RETURN (SELECT ... LIMIT 1) (crowdfunding_platform_app's fn_fx_rate; body_set_limit.sql)
            reasons.add("LIMIT")
    # functions and variables reached through views and stored functions
    if any(f in ctx.profile.UNSAFE_FUNCTIONS for f in ctx.access.functions):
        reasons.add("SYSTEM_FUNCTION")
    if any(v not in ctx.profile.SAFE_SYSVARS for v in ctx.access.sysvars):
        reasons.add("SYSTEM_VARIABLE")
    # the dynamic conditions below are evaluated in the server's order: NONTRANS_AFTER_TRANS only
    # when the statement is not already MIXED_STATEMENT-unsafe
    for name, rule in RULES:
        if name == "NONTRANS_AFTER_TRANS" and mixed_statement(ctx):
            continue
        if rule(ctx):
            reasons.add(name)
    reasons &= ctx.profile.UNSAFE_REASONS
    if ctx.profile.IODUP_TWO_KEYS_DEFERRED and "INSERT_TWO_KEYS" in reasons and len(reasons) > 1:
        # MariaDB decides it after the others, only for a statement not already unsafe
        # (reconsider_logging_format_for_iodup; upsert_two_keys_trigger_mariadb.sql)
        reasons.discard("INSERT_TWO_KEYS")
    return reasons
