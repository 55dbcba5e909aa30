"""Readiness checks as small wait strategies with timeouts (after testcontainers' ``wait_strategies``).

Each strategy polls one condition until it holds or its timeout passes, then raises a clear error
(ServerStartError / ReplicaError / ReplicaTimeout) naming what it waited for. Nothing here ever hangs:
every SQL call carries a read timeout too.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import pymysql
from pymysql.connections import Connection

from harness.backends.base import Flavor, Server
from harness.connect import connect, describe, dict_rows, error_message
from predictor.exceptions import ReplicaError, ReplicaTimeout, ServerGoneError, ServerStartError

T = TypeVar("T")

POLL_INTERVAL = 0.02


def poll(check: Callable[[], T | None], timeout: float, on_timeout: Callable[[], Exception],
         interval: float = POLL_INTERVAL) -> T:
    """Call ``check`` until it returns non-None; raise ``on_timeout()`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    delay = interval
    while True:
        result = check()
        if result is not None:
            return result
        if time.monotonic() >= deadline:
            raise on_timeout()
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, 0.25)


def _tail(server: Server) -> str:
    try:
        return server.log_tail()
    except Exception:  # a missing log must not hide the real error
        return ""


def _exited(server: Server) -> ServerStartError:
    return ServerStartError(f"{server.role} exited during start-up", log_tail=_tail(server),
                            server=describe(server))


@dataclass(frozen=True)
class PortOpen:
    """The server accepts TCP connections on 127.0.0.1:port (fails fast if its process died)."""

    server: Server

    def wait(self, timeout: float) -> None:
        def check() -> bool | None:
            if not self.server.is_alive():
                raise _exited(self.server)
            try:
                with socket.create_connection((self.server.host, self.server.port), timeout=0.2):
                    return True
            except OSError:
                return None

        poll(check, timeout, lambda: ServerStartError(
            f"{self.server.role} did not open port {self.server.port} within {timeout:.0f}s",
            log_tail=_tail(self.server), server=describe(self.server)))


@dataclass(frozen=True)
class SqlPing:
    """The server answers ``SELECT 1`` with the harness's credentials."""

    server: Server

    def wait(self, timeout: float) -> None:
        last: list[str] = [""]

        def check() -> bool | None:
            if not self.server.is_alive():
                raise _exited(self.server)
            try:
                conn = connect(self.server, timeout=1.0, read_timeout=2.0)
            except pymysql.err.MySQLError as e:
                last[0] = error_message(e)
                return None
            try:
                with conn.cursor() as cur:
                    cur.execute("SELECT 1")
                return True
            finally:
                conn.close()

        poll(check, timeout, lambda: ServerStartError(
            f"{self.server.role} did not answer SQL within {timeout:.0f}s (last error: {last[0]})",
            log_tail=_tail(self.server), server=describe(self.server)))


@dataclass(frozen=True)
class ReplicaStatus:
    """The fields of SHOW REPLICA STATUS the harness uses, under one name for both flavours."""

    io_running: str
    sql_running: str
    io_errno: int
    io_error: str
    sql_errno: int
    sql_error: str
    source_file: str
    exec_pos: int

    @property
    def errors(self) -> tuple[str, ...]:
        out = []
        if self.sql_errno:
            out.append(f"Last_SQL_Error {self.sql_errno}: {self.sql_error}")
        if self.io_errno:
            out.append(f"Last_IO_Error {self.io_errno}: {self.io_error}")
        return tuple(out)

    @property
    def running(self) -> bool:
        return self.io_running == "Yes" and self.sql_running == "Yes"

    @property
    def stopped_by_error(self) -> bool:
        return ((self.sql_running == "No" and self.sql_errno != 0)
                or (self.io_running == "No" and self.io_errno != 0))


def _pick(row: dict[str, Any], *names: str) -> Any:
    for n in names:
        if n in row:
            return row[n]
    return None


def _status_from_conn(conn: Connection[Any], flavor: Flavor) -> ReplicaStatus | None:
    rows = dict_rows(conn, "SHOW SLAVE STATUS" if flavor is Flavor.MARIADB else "SHOW REPLICA STATUS")
    if not rows:
        return None
    r = rows[0]
    return ReplicaStatus(
        io_running=str(_pick(r, "Slave_IO_Running", "Replica_IO_Running") or ""),
        sql_running=str(_pick(r, "Slave_SQL_Running", "Replica_SQL_Running") or ""),
        io_errno=int(_pick(r, "Last_IO_Errno") or 0),
        io_error=str(_pick(r, "Last_IO_Error") or ""),
        sql_errno=int(_pick(r, "Last_SQL_Errno") or 0),
        sql_error=str(_pick(r, "Last_SQL_Error") or ""),
        source_file=str(_pick(r, "Relay_Master_Log_File", "Relay_Source_Log_File") or ""),
        exec_pos=int(_pick(r, "Exec_Master_Log_Pos", "Exec_Source_Log_Pos") or 0),
    )


def _open(server: Server, timeout: float = 5.0) -> Connection[Any]:
    try:
        return connect(server, timeout=timeout, read_timeout=timeout)
    except pymysql.err.MySQLError as e:
        raise ServerGoneError(f"cannot reach {server.role}: {error_message(e)}",
                              server=describe(server)) from None


def replica_status(replica: Server, timeout: float = 5.0) -> ReplicaStatus | None:
    """The replica's status, or None when no replication is configured."""
    conn = _open(replica, timeout)
    try:
        return _status_from_conn(conn, replica.flavor)
    finally:
        conn.close()


@dataclass(frozen=True)
class ReplicaRunning:
    """Both replication threads report Yes."""

    replica: Server

    def wait(self, timeout: float) -> ReplicaStatus:
        conn = _open(self.replica)
        try:
            return self.wait_on(conn, timeout)
        finally:
            conn.close()

    def wait_on(self, conn: Connection[Any], timeout: float) -> ReplicaStatus:
        """Like ``wait`` on an open replica connection."""
        last: list[ReplicaStatus | None] = [None]

        def check() -> ReplicaStatus | None:
            st = _status_from_conn(conn, self.replica.flavor)
            last[0] = st
            if st is not None and st.stopped_by_error:
                raise ReplicaError("replica stopped: " + "; ".join(st.errors), server=describe(self.replica))
            return st if st is not None and st.running else None

        def fail() -> Exception:
            st = last[0]
            state = "not configured" if st is None else f"IO={st.io_running} SQL={st.sql_running}"
            return ReplicaTimeout(f"replica threads not running within {timeout:.1f}s ({state})",
                                  server=describe(self.replica))

        return poll(check, timeout, fail)


def source_position(primary: Server) -> tuple[str, int, str]:
    """The primary's (binlog file, position, gtid_executed/gtid_binlog_pos)."""
    conn = _open(primary)
    try:
        if primary.flavor is Flavor.MARIADB:
            rows = dict_rows(conn, "SHOW MASTER STATUS")
            gtid = dict_rows(conn, "SELECT @@gtid_binlog_pos AS g")[0]["g"]
        else:
            rows = dict_rows(conn, "SHOW BINARY LOG STATUS")
            gtid = dict_rows(conn, "SELECT @@gtid_executed AS g")[0]["g"]
    finally:
        conn.close()
    if not rows:
        return "", 0, str(gtid or "")
    return str(rows[0]["File"]), int(rows[0]["Position"]), str(gtid or "")


def _mysql_gtid_applied(conn: Connection[Any], gtid_set: str) -> bool:
    with conn.cursor() as cur:
        cur.execute("SELECT GTID_SUBSET(%s, @@gtid_executed)", (gtid_set,))
        row = cur.fetchone()
    return bool(row and row[0])


@dataclass(frozen=True)
class ReplicaCaughtUp:
    """The replica applied everything the primary had logged when the wait began.

    Raises ReplicaError at once if a replication thread stopped with an error (it will never catch up),
    ReplicaTimeout when still behind after ``timeout``.
    """

    primary: Server
    replica: Server

    def wait(self, timeout: float) -> ReplicaStatus:
        file, pos, gtid = source_position(self.primary)
        conn = _open(self.replica)
        try:
            return self._wait(conn, timeout, file, pos, gtid)
        finally:
            conn.close()

    def _wait(self, conn: Connection[Any], timeout: float, file: str, pos: int, gtid: str) -> ReplicaStatus:
        last: list[ReplicaStatus | None] = [None]

        def check() -> ReplicaStatus | None:
            st = _status_from_conn(conn, self.replica.flavor)
            last[0] = st
            if st is None:
                raise ReplicaError("replica has no replication configured", server=describe(self.replica))
            if st.stopped_by_error:
                raise ReplicaError("replica stopped: " + "; ".join(st.errors), server=describe(self.replica))
            if self.primary.flavor is Flavor.MYSQL:
                return st if _mysql_gtid_applied(conn, gtid) else None
            if (st.source_file, st.exec_pos) >= (file, pos):
                return st
            return None

        def fail() -> Exception:
            st = last[0]
            where = "" if st is None else f" (applied {st.source_file}:{st.exec_pos}, IO={st.io_running} " \
                                          f"SQL={st.sql_running})"
            return ReplicaTimeout(f"replica did not catch up with {file}:{pos} within {timeout:.1f}s{where}",
                                  server=describe(self.replica))

        return poll(check, timeout, fail)
