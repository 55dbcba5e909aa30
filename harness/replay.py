"""Replay a workload on a pair: one connection per session, statements in workload order.

Per statement an ``Execution`` records what the server said: the error, the warnings (read with SHOW
WARNINGS only when the statement reported some, because SHOW WARNINGS keeps the previous list after
statements that touch no table), the unsafe reasons behind each 1592 note, the session's CONNECTION_ID()
and, optionally, the Binlog_cache_use / Binlog_stmt_cache_use deltas. A failing statement never stops the
replay; a lost connection does, and the executions so far are kept on the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pymysql
from pymysql.connections import Connection

from harness.backends.base import Flavor, Pair, Server
from harness.binlog.match import Statement as Shape
from harness.connect import DATABASE, connect, describe, error_code, error_message, is_gone, quote_literal
from harness.execution import Execution, Level, ServerMessage
from harness.topology import version_tuple
from harness.unsafe import UNSAFE_NOTE, reason_for
from harness.wait import ReplicaCaughtUp
from harness.wire import send_query
from predictor.exceptions import ReplicaError, ServerGoneError, UsageError
from predictor.workload import Statement, Workload

DEFAULT_LOCK_WAITS: Mapping[str, str] = {"lock_wait_timeout": "10", "innodb_lock_wait_timeout": "10"}
"""Sessions wait for each other's locks only this long (a sequential replay cannot release a lock the
waiting statement needs, so a wait is always a deadlock of the workload). ``--set`` overrides them."""

_ISOLATION_VARS = {"transaction_isolation", "tx_isolation"}
_READ_ONLY_VARS = {"transaction_read_only", "tx_read_only"}


@dataclass(frozen=True)
class ReplayOptions:
    session_vars: Mapping[str, str] = field(default_factory=dict)
    cache_stats: bool = False
    """Measure Binlog_cache_use / Binlog_stmt_cache_use deltas (one SHOW GLOBAL STATUS per statement)."""
    fences: bool | None = None
    """Read the primary's binlog end after each statement (one SHOW MASTER/BINARY LOG STATUS): tells
    ``observe`` which statement was running when each group was written, so concurrent sessions' groups
    without a thread id (MariaDB row-only transactions) are attributed exactly, and so are the groups an
    autocommit CALL writes (one per body statement, texts alike across CALLs). None: only when the workload
    has more than one session or a CALL (else a single session's groups are its own by text; the extra query
    costs ~1.5x replay)."""
    replica_timeout: float = 30.0
    """How long a ``-- replica`` statement waits for the replica to catch up first."""
    statement_timeout: float = 600.0
    """A statement still running after this long ends the replay (as a lost connection)."""
    database: str = DATABASE


@dataclass
class ReplayResult:
    executions: list[Execution]
    error: ServerGoneError | None = None
    elapsed: float = 0.0


def translate_var(name: str, server: Server) -> str:
    """Use the isolation / read-only variable name the server knows (MariaDB < 11.1: ``tx_*``)."""
    old_names = server.flavor is Flavor.MARIADB and version_tuple(server.version) < (11, 1)
    if name in _ISOLATION_VARS:
        return "tx_isolation" if old_names else "transaction_isolation"
    if name in _READ_ONLY_VARS:
        return "tx_read_only" if old_names else "transaction_read_only"
    return name


def session_set_sql(server: Server, session_vars: Mapping[str, str]) -> str | None:
    """One ``SET SESSION`` for the ``--set`` variables (plus the lock-wait defaults)."""
    merged = {**DEFAULT_LOCK_WAITS, **session_vars}
    parts = []
    for name, value in merged.items():
        var = translate_var(name, server)
        if var in _ISOLATION_VARS:
            value = value.strip("'\"").replace(" ", "-").replace("_", "-").upper()
        parts.append(f"SESSION {var} = {quote_literal(value)}")
    return "SET " + ", ".join(parts) if parts else None


def open_session(server: Server, options: ReplayOptions) -> tuple[Connection[Any], int]:
    """A workload session on ``server``: default schema, ``--set`` applied; returns it and CONNECTION_ID()."""
    try:
        conn = connect(server, database=options.database, timeout=10.0,
                       read_timeout=options.statement_timeout)
    except pymysql.err.MySQLError as e:
        raise ServerGoneError(f"cannot open a session on the {server.role}: {error_message(e)}",
                              server=describe(server)) from None
    sql = session_set_sql(server, options.session_vars)
    try:
        with conn.cursor() as cur:
            if sql:
                try:
                    cur.execute(sql)
                except pymysql.err.MySQLError as e:
                    if is_gone(e):
                        raise
                    raise UsageError(f"--set rejected by the server: {error_message(e)}", statement=sql,
                                     server=describe(server)) from None
            cur.execute("SELECT CONNECTION_ID()")
            row = cur.fetchone()
    except pymysql.err.MySQLError as e:
        conn.close()
        raise ServerGoneError(f"lost the new session on the {server.role}: {error_message(e)}",
                              server=describe(server)) from None
    except BaseException:
        conn.close()
        raise
    return conn, int(row[0]) if row else 0


def effective_session(server: Server, options: ReplayOptions) -> dict[str, str]:
    """binlog_format / binlog_row_image / isolation a workload session starts with (also validates --set)."""
    conn, _ = open_session(server, options)
    try:
        iso = translate_var("transaction_isolation", server)
        with conn.cursor() as cur:
            cur.execute(f"SELECT @@session.binlog_format, @@session.binlog_row_image, @@session.{iso}")
            row = cur.fetchone() or ("", "", "")
    finally:
        conn.close()
    return {"binlog_format": str(row[0]), "binlog_row_image": str(row[1]),
            "transaction_isolation": str(row[2])}


def _binlog_end(conn: Connection[Any], server: Server) -> tuple[str, int] | None:
    with conn.cursor() as cur:
        cur.execute("SHOW MASTER STATUS" if server.flavor is Flavor.MARIADB else "SHOW BINARY LOG STATUS")
        row = cur.fetchone()
    return (str(row[0]), int(row[1])) if row else None


def _status_counters(conn: Connection[Any]) -> tuple[int, int]:
    with conn.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE 'Binlog%cache_use'")  # LIKE filters before computing values
        values = {str(k): int(v) for k, v in cur.fetchall()}
    return values.get("Binlog_cache_use", 0), values.get("Binlog_stmt_cache_use", 0)


class Replayer:
    """Executes statements one by one; owns every connection it opens (``close()`` ends them)."""

    def __init__(self, pair: Pair, options: ReplayOptions) -> None:
        self.pair = pair
        self.options = options
        self._sessions: dict[tuple[str, str], tuple[Connection[Any], int]] = {}
        self._monitor: Connection[Any] | None = None
        self._counters: tuple[int, int] = (0, 0)
        self.lost: Execution | None = None
        """The statement whose connection was lost, recorded with the client error (2013...)."""

    def close(self) -> None:
        conns = [c for c, _ in self._sessions.values()]
        if self._monitor is not None:
            conns.append(self._monitor)
        for c in conns:
            try:
                c.close()
            except Exception:  # already dead: nothing to release
                pass
        self._sessions.clear()
        self._monitor = None

    def __enter__(self) -> Replayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _session(self, stmt: Statement) -> tuple[Server, Connection[Any], int]:
        server = self.pair.replica if stmt.replica_only else self.pair.primary
        key = (server.role, stmt.session)
        sess = self._sessions.get(key)
        if sess is None:
            sess = self._sessions[key] = open_session(server, self.options)
        return server, sess[0], sess[1]

    def _start_monitor(self) -> None:
        if self._monitor is None:
            try:
                self._monitor = connect(self.pair.primary, timeout=10.0, read_timeout=60.0)
                if self.options.cache_stats:
                    self._counters = _status_counters(self._monitor)
            except pymysql.err.MySQLError as e:
                raise ServerGoneError(f"cannot open the binlog monitor session: {error_message(e)}",
                                      server=describe(self.pair.primary)) from None

    def _gone(self, server: Server, stmt: Statement, e: BaseException) -> ServerGoneError:
        state = "alive" if server.is_alive() else "dead"
        return ServerGoneError(f"lost the {server.role} at statement {stmt.seq} (session {stmt.session}, "
                               f"server {state}): {error_message(e)}", statement=stmt.sql,
                               server=describe(server))

    def execute(self, stmt: Statement, keep_row_count: bool = False) -> Execution:
        """Run one statement; raises ServerGoneError (and sets ``lost``) when the connection is lost.
        ``keep_row_count``: the session's next statement reads ROW_COUNT(), which SHOW WARNINGS would reset:
        the statement's warnings are then left unread (``Execution.warnings_unread``)."""
        if stmt.replica_only:
            try:
                ReplicaCaughtUp(self.pair.primary, self.pair.replica).wait(self.options.replica_timeout)
            except ReplicaError:
                pass  # the replica check reports it; the statement still runs
        elif self.options.cache_stats or self.options.fences:
            self._start_monitor()
        server, conn, tid = self._session(stmt)
        error: int | None = None
        error_text: str | None = None
        warning_count = 0
        started = time.perf_counter()
        try:
            warning_count = send_query(conn, stmt.sql.encode("utf-8"))
        except pymysql.err.MySQLError as e:
            if is_gone(e):
                self.lost = Execution(stmt.seq, stmt.session, stmt.sql, tid, stmt.replica_only, error_code(e),
                                      error_message(e), elapsed=time.perf_counter() - started)
                raise self._gone(server, stmt, e) from None
            error, error_text = error_code(e), error_message(e)
        elapsed = time.perf_counter() - started
        messages: tuple[ServerMessage, ...] = ()
        unread = bool(warning_count) and error is None and keep_row_count
        try:
            if (warning_count or error is not None) and not unread:
                messages = self._warnings(conn)
            trx_delta = stmt_delta = None
            end: tuple[str, int] | None = None
            if self._monitor is not None and not stmt.replica_only:
                if self.options.cache_stats:
                    before = self._counters
                    self._counters = _status_counters(self._monitor)
                    trx_delta = self._counters[0] - before[0]
                    stmt_delta = self._counters[1] - before[1]
                if self.options.fences:
                    end = _binlog_end(self._monitor, self.pair.primary)
        except pymysql.err.MySQLError as e:
            if not is_gone(e):
                raise
            self.lost = Execution(stmt.seq, stmt.session, stmt.sql, tid, stmt.replica_only, error, error_text,
                                  elapsed=elapsed)
            raise self._gone(server, stmt, e) from None
        unsafe = tuple(reason_for(m.message) for m in messages if m.code == UNSAFE_NOTE) if messages else ()
        return Execution(stmt.seq, stmt.session, stmt.sql, tid, stmt.replica_only, error, error_text,
                         messages, unsafe, trx_delta, stmt_delta, elapsed, end, unread)

    @staticmethod
    def _warnings(conn: Connection[Any]) -> tuple[ServerMessage, ...]:
        with conn.cursor() as cur:
            cur.execute("SHOW WARNINGS")
            rows = cur.fetchall()
        out = []
        for level, code, message in rows:
            try:
                lvl = Level(str(level))
            except ValueError:
                lvl = Level.WARNING
            out.append(ServerMessage(lvl, int(code), str(message)))
        return tuple(out)


def replay(workload: Workload, pair: Pair, options: ReplayOptions | None = None,
           on_progress: Callable[[int, int], None] | None = None) -> ReplayResult:
    """Run every statement of ``workload``; a lost server ends the replay with ``result.error`` set."""
    opts = options or ReplayOptions()
    if opts.fences is None:
        sessions = {s.session for s in workload.statements if not s.replica_only}
        calls = any(Shape(s.sql).is_call for s in workload.statements if not s.replica_only)
        opts = replace(opts, fences=len(sessions) > 1 or calls)
    result = ReplayResult([])
    started = time.perf_counter()
    total = len(workload.statements)
    keep = row_count_readers(workload.statements)
    with Replayer(pair, opts) as r:
        try:
            for i, stmt in enumerate(workload.statements, start=1):
                result.executions.append(r.execute(stmt, stmt.seq in keep))
                if on_progress is not None:
                    on_progress(i, total)
        except ServerGoneError as e:
            if r.lost is not None:
                result.executions.append(r.lost)
            result.error = e
    result.elapsed = time.perf_counter() - started
    return result


def row_count_readers(statements: Sequence[Statement]) -> frozenset[int]:
    """The statements whose session's next statement reads ROW_COUNT(): their warnings are not read, since
    SHOW WARNINGS would reset it (``SET @n = ROW_COUNT()`` after an INSERT IGNORE that warned)."""
    out: set[int] = set()
    last: dict[str, int] = {}
    for st in statements:
        if st.replica_only:
            continue
        before = last.get(st.session)
        if before is not None and "row_count" in Shape(st.sql).calls:
            out.add(before)
        last[st.session] = st.seq
    return frozenset(out)


__all__ = ["ReplayOptions", "ReplayResult", "Replayer", "effective_session", "open_session", "replay",
           "row_count_readers", "session_set_sql", "translate_var"]
