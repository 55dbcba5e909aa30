"""Wire a replica to a primary and make a pair as new, for both flavours, from ``Server`` objects only.

Backend-neutral: local processes and containers (host networking) both reach the primary at
127.0.0.1:port, so the same SQL serves both.

MariaDB replicates by binlog file/position (``MASTER_USE_GTID=no``) from the primary's fresh first binlog;
MySQL 8.4+/9.x uses GTID auto-positioning (``SOURCE_AUTO_POSITION=1``, ``GET_SOURCE_PUBLIC_KEY=1`` for
caching_sha2_password over plain TCP).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pymysql
from pymysql.connections import Connection

from harness.backends.base import Flavor, Server
from harness.connect import DATABASE, SYSTEM_DATABASES, connect, dict_rows, execute_all
from harness.wait import ReplicaRunning


def _sql_str(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def version_tuple(version: str) -> tuple[int, int]:
    nums = version.split("-")[0].split(".")
    try:
        return int(nums[0]), int(nums[1]) if len(nums) > 1 else 0
    except ValueError:
        return 0, 0


def reset_binlog_sql(server: Server) -> str:
    """Throw away every binary log (and, on MySQL, the executed GTIDs)."""
    if server.flavor is Flavor.MYSQL and version_tuple(server.version) >= (8, 4):
        return "RESET BINARY LOGS AND GTIDS"
    return "RESET MASTER"


def fast_reset_binlog_sql(conn: Connection[Any], server: Server) -> list[str]:
    """``reset_binlog_sql`` without MariaDB's wait for the binlog checkpoint.

    MariaDB's RESET MASTER waits until InnoDB has made the binlog's transactions durable; with
    innodb_flush_log_at_trx_commit=0 that is the next once-a-second log flush. FLUSH ENGINE LOGS only
    flushes when the setting is non-zero, so it is raised for that moment and then restored.
    """
    if server.flavor is not Flavor.MARIADB:
        return [reset_binlog_sql(server)]
    rows = dict_rows(conn, "SELECT @@global.innodb_flush_log_at_trx_commit AS v")
    prev = int(rows[0]["v"]) if rows else 1
    if prev == 1:
        return ["FLUSH ENGINE LOGS", "RESET MASTER"]
    return ["SET GLOBAL innodb_flush_log_at_trx_commit = 1", "FLUSH ENGINE LOGS", "RESET MASTER",
            f"SET GLOBAL innodb_flush_log_at_trx_commit = {prev}"]


def stop_replica_sql(replica: Server) -> str:
    return "STOP SLAVE" if replica.flavor is Flavor.MARIADB else "STOP REPLICA"


def start_replica_sql(replica: Server) -> str:
    return "START SLAVE" if replica.flavor is Flavor.MARIADB else "START REPLICA"


def change_source_sql(primary: Server, replica: Server, log_file: str = "", log_pos: int = 4,
                      *, use_gtid: bool = False) -> list[str]:
    """Statements, run on the replica, that forget any old source and point it at ``primary``."""
    host = _sql_str(primary.host)
    user = _sql_str(primary.user)
    password = _sql_str(primary.password)
    if replica.flavor is Flavor.MARIADB:
        stmts = ["STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL gtid_slave_pos = ''"]
        if use_gtid:
            position = "MASTER_USE_GTID=slave_pos"
        else:
            position = (f"MASTER_LOG_FILE={_sql_str(log_file)}, MASTER_LOG_POS={int(log_pos)}, "
                        "MASTER_USE_GTID=no")
        stmts.append(f"CHANGE MASTER TO MASTER_HOST={host}, MASTER_PORT={primary.port}, MASTER_USER={user}, "
                     f"MASTER_PASSWORD={password}, MASTER_CONNECT_RETRY=1, {position}")
        return stmts
    return [
        "STOP REPLICA",
        "RESET REPLICA ALL",
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST={host}, SOURCE_PORT={primary.port}, SOURCE_USER={user}, "
        f"SOURCE_PASSWORD={password}, SOURCE_CONNECT_RETRY=1, SOURCE_AUTO_POSITION=1, "
        "GET_SOURCE_PUBLIC_KEY=1",
    ]


def _recreate_databases_sql(conn: Connection[Any], server: Server, database: str) -> list[str]:
    """Statements dropping every user database and creating an empty ``database``, not binlogged."""
    rows = dict_rows(conn, "SHOW DATABASES")
    names = [str(next(iter(r.values()))) for r in rows]
    stmts = ["SET SESSION sql_log_bin = 0"]
    if server.flavor is Flavor.MARIADB:
        stmts.append("SET SESSION foreign_key_checks = 0")
    stmts += [f"DROP DATABASE IF EXISTS `{n}`" for n in names if n.lower() not in SYSTEM_DATABASES]
    stmts += [f"CREATE DATABASE `{database}`", "SET SESSION sql_log_bin = 1"]
    return stmts


def _kill_user_sessions(conn: Connection[Any], server: Server) -> None:
    """End sessions left by a previous workload (their temporary tables and locks go with them)."""
    own = conn.thread_id()
    rows = dict_rows(conn, "SHOW PROCESSLIST")
    with conn.cursor() as cur:
        for r in rows:
            if r.get("User") == server.user and int(r["Id"]) != own and \
                    str(r.get("Command")) not in ("Binlog Dump", "Binlog Dump GTID"):
                with contextlib.suppress(pymysql.err.MySQLError):
                    cur.execute(f"KILL {int(r['Id'])}")  # it may have ended by itself meanwhile


def attach_replica(primary: Server, replica: Server, *, timeout: float = 10.0) -> None:
    """Point a fresh replica at a fresh primary's current binlog position and start it (no reset)."""
    pconn = connect(primary, timeout=5.0, read_timeout=60.0)
    try:
        status = dict_rows(pconn, "SHOW MASTER STATUS" if primary.flavor is Flavor.MARIADB
                           else "SHOW BINARY LOG STATUS")
    finally:
        pconn.close()
    log_file = str(status[0]["File"]) if status else ""
    log_pos = int(status[0]["Position"]) if status else 4
    rconn = connect(replica, timeout=5.0, read_timeout=60.0)
    try:
        stmts = [*change_source_sql(primary, replica, log_file, log_pos), start_replica_sql(replica)]
        execute_all(rconn, stmts)
        ReplicaRunning(replica).wait_on(rconn, timeout)
    finally:
        rconn.close()


def reset_pair(primary: Server, replica: Server, *, database: str = DATABASE, timeout: float = 10.0) -> None:
    """Make the pair as new: no user databases but an empty ``database`` on both, a fresh primary binlog,
    the replica re-pointed at its start and both replication threads running. Two connections in all."""
    pconn = connect(primary, timeout=5.0, read_timeout=60.0)
    try:
        rconn = connect(replica, timeout=5.0, read_timeout=60.0)
        try:
            execute_all(rconn, [stop_replica_sql(replica)])
            _kill_user_sessions(pconn, primary)
            _kill_user_sessions(rconn, replica)
            execute_all(pconn, _recreate_databases_sql(pconn, primary, database))
            execute_all(rconn, _recreate_databases_sql(rconn, replica, database))
            execute_all(pconn, fast_reset_binlog_sql(pconn, primary))
            status = dict_rows(pconn, "SHOW MASTER STATUS" if primary.flavor is Flavor.MARIADB
                               else "SHOW BINARY LOG STATUS")
            log_file = str(status[0]["File"]) if status else ""
            log_pos = int(status[0]["Position"]) if status else 4
            stmts = change_source_sql(primary, replica, log_file, log_pos)
            stmts[2:2] = fast_reset_binlog_sql(rconn, replica)
            stmts.append(start_replica_sql(replica))
            execute_all(rconn, stmts)
            ReplicaRunning(replica).wait_on(rconn, timeout)
        finally:
            rconn.close()
    finally:
        pconn.close()


__all__ = ["attach_replica", "change_source_sql", "fast_reset_binlog_sql", "reset_binlog_sql", "reset_pair",
           "start_replica_sql", "stop_replica_sql", "version_tuple"]
