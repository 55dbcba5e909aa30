"""Retention statements on tables the data model stopped following.

``DELETE FROM audit_log WHERE logged_at < NOW() - INTERVAL 90 DAY`` deletes nothing in a replay: every row
of ``audit_log`` was written by the run itself, minutes ago. The model often no longer follows such a
table's rows (its triggers fill it, an INSERT ... SELECT it cannot evaluate, too many rows), yet it can still
say this much: a column nobody names when writing the table holds its default, a clock reading of this run
(DEFAULT CURRENT_TIMESTAMP) or NULL; the rows held when following stopped have their own values. When the
WHERE is false on every such row, nothing matches and row format logs nothing (crm_app, school_app, iot_app,
vet_clinic_app: MariaDB 10.11 and MySQL 9.7).

"Naming" is counted conservatively: any column list of a statement that wrote the table after following
stopped (``DataModel.named``), and any column list in a trigger or stored routine body that writes it,
called or not (``Catalog.written_columns``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from predictor.analyze import Op, StatementInfo
from predictor.catalog import EVERY, Column, Generated, note_columns
from predictor.evaluate import UNKNOWN, Row, Value, falsified
from predictor.moments import HORIZON, Moment
from predictor.query import resolved
from predictor.resolve import lookup
from predictor.session import SessionState

if TYPE_CHECKING:
    from predictor.engine import Predictor

CLOCKS = frozenset({"NOW", "CURRENT_TIMESTAMP", "CURDATE", "CURRENT_DATE", "SYSDATE", "UTC_TIMESTAMP",
                    "LOCALTIME", "LOCALTIMESTAMP", "UTC_DATE"})
_READING = Moment(0.0, HORIZON)  # some clock reading of this run


def note_writes(p: Predictor, info: StatementInfo, s: SessionState) -> None:
    """Remember the columns a statement names for each table it writes that is not followed (any more); an
    analysis noted once for a table is not noted again (the hot path of a big workload)."""
    tables, noted = p.data.tables, p.data.noted
    key = id(info)
    names = info.write_names if not s.temp_tables else tuple(s.ident(w.table) if w.table else "" for w in info.writes)
    for w, ident in zip(info.writes, names, strict=True):
        if ident:
            d = tables.get(ident)
            if d is None or d.tracked:
                continue
        seen = noted.get(ident)
        if seen is None:
            seen = noted[ident] = set()
        elif key in seen:
            continue
        seen.add(key)
        if w.op is Op.DELETE:
            continue
        p.memo_infos[key] = info  # keep the analysis alive while its id is noted
        note_columns(p.data.named.setdefault(ident, {}), info, w.columns)


def note_unfollowed(p: Predictor, info: StatementInfo, s: SessionState) -> None:
    """``note_writes`` for a statement none of whose tables is followed: once per analysis (the hot path of a
    big workload; ``DataModel.create`` forgets these when a table is followed again)."""
    if not s.temp_tables:  # else the names mean the session's own tables
        p.data.unfollowed.add(id(info))
        p.memo_infos[id(info)] = info
    note_writes(p, info, s)


def matches_nothing(p: Predictor, sql: str, info: StatementInfo, s: SessionState) -> bool:
    """A single-table UPDATE / DELETE of a table not followed, whose WHERE (reading the clock) is false on every
    row the table can hold."""
    if len(info.writes) != 1 or info.multi_table or not CLOCKS.intersection(info.functions):
        return False
    t = lookup(info.writes[0].table, p.catalog, s)
    d = p.data.tables.get(t.ident) if t is not None else None
    if t is None or d is None or d.tracked or d.columns != tuple(c.name.lower() for c in t.columns):
        return False
    named = p.data.named.get(t.ident, {}) | p.data.named.get("", {})
    for c, clock in p.catalog.written_columns(t.name).items():
        named[c] = named.get(c, True) and clock
    if EVERY in named or not p.data.may_parse():
        return False
    from predictor.rows import parsed, table_source  # rows.py calls this module

    tree = parsed(p, sql, s)
    where = tree.args.get("where") if isinstance(tree, exp.Update | exp.Delete) else None
    if where is None:
        return False
    cond = resolved(where.this, lambda name: table_source(p, name, s))
    fresh = {c.name.lower(): _reading(c) for c in t.columns}
    rows: list[Row] = []
    for r in d.live():  # as they were when following stopped; a column given clock readings since: either
        rows.append({c: UNKNOWN if named.get(c) is False else v for c, v in r.items()})
        rows.append({c: UNKNOWN if named.get(c) is False else fresh[c] if named.get(c) else v for c, v in r.items()})
    strict = s.strict(p.profile.engine(t.engine).transactional, 0)
    for clocked in (True, False):  # a row written since, with what a statement gave a column or its default
        rows.append({c.name.lower(): _written(c, named, clocked, strict) for c in t.columns})
    return all(falsified(cond, row) for row in rows)


def _reading(c: Column) -> Value:
    return _READING.as_date() if c.type.upper() == "DATE" else _READING


def _written(c: Column, named: dict[str, bool], clocked: bool, strict: bool = False) -> Value:
    """What a row written since following stopped holds in ``c``: a column statements only gave clock readings
    holds one (``clocked``) or its default; a NOT NULL column without one always holds a reading in a strict
    session (a write not naming it fails: dental_group_app's MyISAM SMS log)."""
    low = c.name.lower()
    if low in named and not named[low]:
        return UNKNOWN
    required = strict and not c.nullable and not c.has_default and not c.auto_increment \
        and c.generated is Generated.NO
    if (low in named and (clocked or required)) or c.default_now:
        return _reading(c)
    if c.nullable and not c.has_default and not c.auto_increment and c.generated is Generated.NO:
        return None
    return UNKNOWN
