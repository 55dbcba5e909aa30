"""BEGIN, COMMIT, ROLLBACK [TO SAVEPOINT], SAVEPOINT, XA, LOCK TABLES and SET: the session state and the
groups they write."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from predictor.analyze import StatementInfo
from predictor.binlog import Builder
from predictor.catalog import Table
from predictor.codes import ER_UNKNOWN_SYSTEM_VARIABLE, ER_WARNING_NOT_COMPLETE_ROLLBACK
from predictor.decide import ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE
from predictor.dml import handle_dml, refuses_row_locks, stick_if_unsafe
from predictor.evaluate import UNKNOWN
from predictor.resolve import lookup
from predictor.rows import table_source
from predictor.session import Cache, Piece, SessionState, canonical_var, normalize_value
from predictor.undo import restore
from predictor.variables import run_set

if TYPE_CHECKING:
    from predictor.engine import Predictor


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
    created, dropped = p.profile.TEMP_TABLE_ROLLBACK_WARNINGS
    if s.trx_temp_created and created:
        b.warnings.add(created)
    if s.trx_temp_dropped and dropped:
        b.warnings.add(dropped)
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
        p.noted(s.trx_cache[sp.cache_len:])
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
    warn = p.profile.COMBINED_ENGINES_WARNING
    if warn or p.profile.enforce_gtid:
        written = _lock_written(p, s, info.targets)
        engines = {p.profile.engine(t.engine) for t in written if not t.temporary}
        if warn and not info.reads and len({e.name for e in engines}) > 1:
            b.warnings.add(warn)  # all WRITE locks: a READ one in the list keeps it quiet (seen on 9.7)
        if p.profile.enforce_gtid and len({e.transactional for e in engines}) > 1:
            b.error = ER_GTID_UNSAFE_NON_TRANSACTIONAL_TABLE  # nothing is locked
            return
    s.locked = True


def _lock_written(p: Predictor, s: SessionState, names: Iterable[str], depth: int = 0) -> list[Table]:
    """The tables locked for WRITE and those their triggers write, as MySQL 9.7 counts them for LOCK TABLES
    (fixtures/seeds/003_logging_rules/lock_engines.sql)."""
    out: list[Table] = []
    for name in names:
        t = lookup(name, p.catalog, s)
        if t is None or t in out:
            continue
        out.append(t)
        if depth < 8:
            inner = [w.table for tr in t.triggers for x in tr.body for w in x.writes]
            out += [x for x in _lock_written(p, s, inner, depth + 1) if x not in out]
    return out


def handle_unlock(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if s.locked and not s.explicit and s.in_trx:
        p.commit(s)
    s.locked = False


_TRACKED = frozenset({"binlog_format", "binlog_row_image", "transaction_isolation", "autocommit", "sql_log_bin",
                      "binlog_direct_non_transactional_updates", "sql_mode",
                      "foreign_key_checks"})


def handle_set(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if info.for_update and refuses_row_locks(p, b, info, s):
        return
    if info.functions and p.catalog.has_functions() and p.functions_write(info.functions):
        handle_dml(p, b, info, s)  # ``SET @n = fn_next('LOT')``: logged as the function's writes are
    else:
        stick_if_unsafe(p, b, info, s)
    if any(a.scope == "USER" for a in info.assignments):
        if p.data.may_parse():
            run_set(b.sql, s, lambda name: table_source(p, name, s), p.results(b.sql))
        else:
            s.user_vars.update((a.name.lower(), UNKNOWN) for a in info.assignments if a.scope == "USER")
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
        if name == "sql_mode" and p.profile.SQL_MODE_MERGED_WARNING and _unmerged(value):
            b.warnings.add(p.profile.SQL_MODE_MERGED_WARNING)
        pending[name] = value
    for name, value in pending.items():
        if name == "autocommit" and value == "ON" and not s.autocommit:
            s.vars[name] = value
            p.implicit_commit(s)
            continue
        s.vars[name] = value


_MERGED = ("NO_ZERO_DATE", "NO_ZERO_IN_DATE", "ERROR_FOR_DIVISION_BY_ZERO")


def _unmerged(mode: str) -> bool:
    """Strict mode without the three modes MySQL will merge into it, or one of them without strict mode."""
    if "@@" in mode:
        return False  # built from the current mode: not known
    modes = set(mode.replace(" ", "").split(","))
    strict = bool(modes & {"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "TRADITIONAL"})
    merged = modes >= set(_MERGED) or "TRADITIONAL" in modes
    return (strict and not merged) or (not strict and bool(modes & set(_MERGED)))


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


def log_direct(p: Predictor, b: Builder, s: SessionState) -> None:
    if s.log_bin:
        p.binlog.flush([Piece(b.seq, False, True)], Cache.DIRECT)


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
            log_direct(p, b, s)
        else:
            p.binlog.flush(s.trx_cache, Cache.TRX)
        s.reset_trx()
        s.xa_state = None
    elif kind == "ROLLBACK":
        if s.xa_state == "PREPARED":
            log_direct(p, b, s)
        s.reset_trx()
        s.xa_state = None
