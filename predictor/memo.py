"""The keys DML decisions are memoised under: what a decision reads besides the statement itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from predictor.analyze import StatementInfo
from predictor.resolve import resolve
from predictor.session import SessionState

if TYPE_CHECKING:
    from predictor.engine import Predictor


def memo_key(p: Predictor, info: StatementInfo, s: SessionState) -> tuple[object, ...]:
    """Everything _decide_dml reads besides the statement itself: catalog version, the session's
    variables and transaction flags, its temporary tables (whole definitions) and which tables the
    statement, its triggers and functions write or read are known to be empty."""
    return (id(info), p.catalog.version, *session_part(s), *emptiness(p, info, s))


def session_part(s: SessionState) -> tuple[object, ...]:
    get = s.vars.get
    return (get("binlog_format"), get("binlog_row_image"), get("transaction_isolation"), s.next_isolation,
            get("autocommit"), get("sql_log_bin"), get("binlog_direct_non_transactional_updates"), get("sql_mode"),
            get("foreign_key_checks"),
            s.explicit, s.in_trx, s.trx_has_trans_write, s.trx_modified_nontrans, s.trx_engines_warned, s.trx_engines,
            bool(s.trx_cache), s.force_row, s.sticky_row, tuple(s.temp_tables.items()) if s.temp_tables else ())


def trx_clean(s: SessionState) -> bool:
    """The transaction fields of session_part are what reset_trx() leaves."""
    return not (s.explicit or s.in_trx or s.trx_has_trans_write or s.trx_modified_nontrans or s.trx_cache
                or s.trx_engines_warned or s.trx_engines or s.next_isolation is not None)


def emptiness(p: Predictor, info: StatementInfo, s: SessionState) -> tuple[bool, ...]:
    version = p.catalog.version
    known = p.memo_names.get(id(info)) if not s.temp_tables else None
    if known is None or known[0] != version:
        access = resolve(info, p.catalog, s)
        known = (version, tuple(dict.fromkeys(
            [s.ident(w.table) for w in info.writes] + [s.ident(r) for r in info.reads]
            + [u.table.ident for u in access.writes] + [t.ident for t in access.reads])))
        if not s.temp_tables:  # the names then mean the same tables in every session
            p.memo_names[id(info)] = known
        p.memo_infos[id(info)] = info  # keep the info alive while its id is part of a key
    names = known[1]
    if not names:
        return ()
    rows = p.rows
    if len(names) == 1:
        return (rows.get(names[0]) == 0,)
    return tuple([rows.get(n) == 0 for n in names])
