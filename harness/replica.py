"""After a replay: did the replica apply everything, and does it hold the same data as the primary?

Waits (bounded) for the replica, records its errors, compares every table of the workload database by row
count and CHECKSUM TABLE, lists a bounded number of differing primary keys, and names the first workload
statement that wrote each diverged table (tables from ``predictor.analyze``, our sqlglot dialect).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import pymysql
from pymysql.connections import Connection

from harness.backends.base import Pair, Server
from harness.connect import DATABASE, connect, describe, error_message, is_gone
from harness.wait import ReplicaCaughtUp, replica_status
from predictor.analyze import Kind, analyze
from predictor.exceptions import ReplicaError, ServerGoneError
from predictor.workload import Statement, Workload

MAX_KEYS = 20
"""Differing keys listed per table."""
MAX_ROWS_COMPARED = 200_000
"""Tables larger than this are compared by count and checksum only."""


@dataclass(frozen=True)
class TableDiff:
    table: str
    primary_rows: int | None
    replica_rows: int | None
    differing_keys: tuple[str, ...] = ()
    first_writer_seq: int | None = None
    first_writer_sql: str | None = None


@dataclass(frozen=True)
class ReplicaReport:
    caught_up: bool
    errors: tuple[str, ...] = ()
    diverged: tuple[TableDiff, ...] = ()
    tables_compared: int = 0
    waited: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["errors"] = list(self.errors)
        d["diverged"] = [{**asdict(t), "differing_keys": list(t.differing_keys)} for t in self.diverged]
        return d


# ---------------------------------------------------------------------------------------------------------
# which statement wrote a table

_CREATES = frozenset({Kind.CREATE_TABLE, Kind.CREATE_TABLE_SELECT, Kind.CREATE_TABLE_LIKE})


def written_tables(sql: str) -> set[str]:
    """Tables a statement writes rows to (DML, LOAD DATA, CREATE ... SELECT, TRUNCATE); empty for reads, other
    DDL and text that does not parse."""
    info = analyze(sql)
    if info.kind is Kind.TRUNCATE:
        return {t.lower() for t in info.targets}
    return {w.table.lower() for w in info.writes}


def _created_table(sql: str) -> str | None:
    """The table a CREATE TABLE (plain, ... SELECT, ... LIKE) makes."""
    info = analyze(sql)
    return info.targets[0].lower() if info.kind in _CREATES and info.targets else None


class _Bodies:
    """What the triggers and procedures created so far write: a statement writes its own tables, those its
    triggers write and, for CALL, those the procedure's body writes (transitively)."""

    def __init__(self) -> None:
        self.triggers: dict[str, set[str]] = {}  # table -> tables its triggers' bodies write
        self.procedures: dict[str, tuple[set[str], list[str]]] = {}  # name -> (tables written, procedures called)

    def learn(self, sql: str) -> None:
        info = analyze(sql)
        if info.kind is Kind.CREATE_TRIGGER and info.targets:
            self.triggers.setdefault(info.targets[0].lower(), set()).update(
                w.table.lower() for b in info.body for w in b.writes)
        elif info.kind is Kind.CREATE_ROUTINE and info.routine_kind == "PROCEDURE" and info.name:
            self.procedures[info.name.lower()] = ({w.table.lower() for b in info.body for w in b.writes},
                                                  [b.name.lower() for b in info.body if b.kind is Kind.CALL and b.name])

    def written(self, sql: str) -> set[str]:
        info = analyze(sql)
        todo = written_tables(sql)
        calls = [info.name.lower()] if info.kind is Kind.CALL and info.name else []
        seen_calls: set[str] = set()
        while calls:
            name = calls.pop()
            if name in seen_calls or name not in self.procedures:
                continue
            seen_calls.add(name)
            tables, nested = self.procedures[name]
            todo |= tables
            calls += nested
        out: set[str] = set()
        while todo:
            t = todo.pop()
            if t not in out:
                out.add(t)
                todo |= self.triggers.get(t, set()) - out
        return out


def first_writers(statements: Sequence[Statement], tables: Iterable[str]) -> dict[str, Statement]:
    """For each table, the first primary statement that wrote rows to it, through its triggers and the
    procedures it CALLs too (falls back to its CREATE)."""
    wanted = {t.lower() for t in tables}
    found: dict[str, Statement] = {}
    creates: dict[str, Statement] = {}
    bodies = _Bodies()
    for st in statements:
        if not wanted - found.keys():
            break
        if st.replica_only:
            continue
        bodies.learn(st.sql)
        for t in bodies.written(st.sql) & wanted:
            found.setdefault(t, st)
        created = _created_table(st.sql)
        if created in wanted:
            creates.setdefault(created, st)
    return {t: found.get(t) or creates[t] for t in wanted if t in found or t in creates}


# ---------------------------------------------------------------------------------------------------------
# table comparison


def _rows(conn: Connection[Any], sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    with conn.cursor() as cur:
        cur.execute(sql, args or None)
        return list(cur.fetchall())


def _tables(conn: Connection[Any], database: str) -> list[str]:
    rows = _rows(conn, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s "
                       "AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", (database,))
    return [str(r[0]) for r in rows]


def _columns(conn: Connection[Any], database: str, table: str) -> tuple[list[str], list[str], list[str]]:
    """(all columns, primary-key columns, column types) in ordinal order."""
    defs = _rows(conn, "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE "
                       "TABLE_SCHEMA = %s AND TABLE_NAME = %s ORDER BY ORDINAL_POSITION", (database, table))
    cols = [str(r[0]) for r in defs]
    pk = [str(r[0]) for r in _rows(conn, "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE "
                                         "TABLE_SCHEMA = %s AND TABLE_NAME = %s AND INDEX_NAME = 'PRIMARY' "
                                         "ORDER BY SEQ_IN_INDEX", (database, table))]
    return cols, pk, [str(r[1]).lower() for r in defs]


def _count_and_checksum(conn: Connection[Any], database: str, table: str) -> tuple[int, Any]:
    q = f"`{database}`.`{table}`"
    count = int(_rows(conn, f"SELECT COUNT(*) FROM {q}")[0][0])
    checksum = _rows(conn, f"CHECKSUM TABLE {q}")[0][1]
    return count, checksum


def _differing_keys(pconn: Connection[Any], rconn: Connection[Any], database: str, table: str,
                    limit: int = MAX_KEYS) -> tuple[str, ...] | None:
    """Keys of the rows that differ (compared on the columns both sides have); None when the comparison
    cannot tell the tables equal (different columns, or more rows than MAX_ROWS_COMPARED)."""
    pcols, pk, ptypes = _columns(pconn, database, table)
    rcols, _, rtypes = _columns(rconn, database, table)
    common = [c for c in pcols if c in rcols]
    if not common:
        return None
    key = [c for c in pk if c in common] or common
    sel = ", ".join(f"`{c}`" for c in common)
    q = f"SELECT {sel} FROM `{database}`.`{table}` LIMIT {MAX_ROWS_COMPARED}"
    idx = [common.index(c) for c in key]

    def keyed(rows: list[tuple[Any, ...]]) -> Counter[tuple[tuple[Any, ...], tuple[Any, ...]]]:
        return Counter((tuple(r[i] for i in idx), r) for r in rows)

    prows, rrows = _rows(pconn, q), _rows(rconn, q)
    p, r = keyed(prows), keyed(rrows)
    diff = sorted({k for k, _ in (p - r) + (r - p)}, key=repr)
    names = ",".join(key)
    keys = tuple(f"{names}=" + ",".join("NULL" if v is None else str(v) for v in k) for k in diff[:limit])
    complete = (pcols, ptypes) == (rcols, rtypes) and max(len(prows), len(rrows)) < MAX_ROWS_COMPARED
    return keys if keys or complete else None


def compare_tables(primary: Server, replica: Server, database: str = DATABASE) -> tuple[int, list[TableDiff]]:
    """(tables compared, differing tables) of ``database``."""
    pconn = connect(primary, timeout=10.0, read_timeout=300.0)
    try:
        rconn = connect(replica, timeout=10.0, read_timeout=300.0)
        try:
            ptables, rtables = _tables(pconn, database), _tables(rconn, database)
            diffs: list[TableDiff] = []
            for t in sorted(set(ptables) | set(rtables)):
                if t not in rtables or t not in ptables:
                    pc = _count_and_checksum(pconn, database, t)[0] if t in ptables else None
                    rc = _count_and_checksum(rconn, database, t)[0] if t in rtables else None
                    diffs.append(TableDiff(t, pc, rc))
                    continue
                pc, pcs = _count_and_checksum(pconn, database, t)
                rc, rcs = _count_and_checksum(rconn, database, t)
                if pc != rc or pcs != rcs:
                    keys = _differing_keys(pconn, rconn, database, t)
                    if keys == () and pc == rc:
                        # every row equal: MariaDB's CHECKSUM TABLE differs now and then on a table with a
                        # generated column (seen with a STORED CONCAT(...) column on 10.11)
                        continue
                    diffs.append(TableDiff(t, pc, rc, keys or ()))
            return len(set(ptables) | set(rtables)), diffs
        finally:
            rconn.close()
    finally:
        pconn.close()


def check_replica(pair: Pair, workload: Workload, timeout: float = 30.0,
                  database: str = DATABASE) -> ReplicaReport:
    """Wait for the replica (at most ``timeout``), then compare the workload database table by table."""
    started = time.monotonic()
    caught_up = True
    errors: list[str] = []
    try:
        ReplicaCaughtUp(pair.primary, pair.replica).wait(timeout)
    except (ReplicaError, ServerGoneError) as e:  # ReplicaTimeout is a ReplicaError
        caught_up = False
        errors.append(e.message)
    waited = time.monotonic() - started
    try:
        st = replica_status(pair.replica)
    except ServerGoneError as e:
        return ReplicaReport(False, (*errors, e.message), waited=waited)
    if st is not None:
        errors.extend(x for x in st.errors if x not in " ".join(errors))
    try:
        n, diffs = compare_tables(pair.primary, pair.replica, database)
    except pymysql.err.MySQLError as e:
        if not is_gone(e):
            raise ReplicaError(f"cannot compare tables: {error_message(e)}", server=describe(pair.replica)) \
                from None
        return ReplicaReport(caught_up, (*errors, f"compare failed: {error_message(e)}"), waited=waited)
    writers = first_writers(workload.statements, [d.table for d in diffs])
    diverged = tuple(
        TableDiff(d.table, d.primary_rows, d.replica_rows, d.differing_keys,
                  writers[d.table.lower()].seq if d.table.lower() in writers else None,
                  writers[d.table.lower()].sql if d.table.lower() in writers else None)
        for d in diffs)
    return ReplicaReport(caught_up, tuple(errors), diverged, n, waited)


__all__ = ["ReplicaReport", "TableDiff", "check_replica", "compare_tables", "first_writers", "written_tables"]
