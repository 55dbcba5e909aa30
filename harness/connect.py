"""Open pymysql connections to a ``Server`` and classify pymysql errors.

Every module that talks SQL to a server goes through here, so connection options (autocommit like the
``mariadb`` client, timeouts, 127.0.0.1 only) stay the same everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pymysql
import pymysql.cursors

from harness.backends.base import Flavor, Server
from predictor.exceptions import ServerGoneError

DATABASE = "rplay"
"""The one database every workload runs in (created by ``Pair.reset``, default schema of every session)."""

SYSTEM_DATABASES = frozenset({"mysql", "information_schema", "performance_schema", "sys"})

CLIENT_GONE_CODES = frozenset({0, 2003, 2006, 2013, 2055})
"""pymysql/libmysql client error codes meaning the connection is dead (0: already closed)."""


def connect(server: Server, *, database: str | None = None, timeout: float = 10.0,
            read_timeout: float | None = None) -> pymysql.connections.Connection[Any]:
    """A connection with autocommit on (what the ``mariadb`` client does)."""
    return pymysql.connect(
        host=server.host, port=server.port, user=server.user, password=server.password,
        database=database, autocommit=True, connect_timeout=max(1, int(timeout)),
        read_timeout=read_timeout, write_timeout=read_timeout, charset="utf8mb4",
        # loopback only: no TLS for MariaDB (MySQL keeps pymysql's default so caching_sha2 full auth works)
        ssl_disabled=True if server.flavor is Flavor.MARIADB else None,
    )


def error_code(e: BaseException) -> int:
    args: tuple[Any, ...] = e.args
    if args and isinstance(args[0], int):
        return args[0]
    return 0


def error_message(e: BaseException) -> str:
    args: tuple[Any, ...] = e.args
    if len(args) >= 2:
        return str(args[1])
    return str(e)


def is_gone(e: BaseException) -> bool:
    """True when ``e`` says the connection (or the server) is gone rather than the statement failed."""
    if isinstance(e, (pymysql.err.InterfaceError, ConnectionError, OSError)):
        return True
    return isinstance(e, pymysql.err.OperationalError) and error_code(e) in CLIENT_GONE_CODES


def query(server: Server, sql: str, *, database: str | None = None,
          timeout: float = 10.0) -> list[tuple[Any, ...]]:
    """Run one statement on a short-lived connection and return its rows."""
    try:
        conn = connect(server, database=database, timeout=timeout, read_timeout=timeout)
    except pymysql.err.MySQLError as e:
        raise ServerGoneError(f"cannot connect to {server.role}: {error_message(e)}",
                              server=describe(server)) from None
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def dict_rows(conn: pymysql.connections.Connection[Any], sql: str) -> list[dict[str, Any]]:
    with conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def execute_all(conn: pymysql.connections.Connection[Any], statements: Sequence[str]) -> None:
    with conn.cursor() as cur:
        for s in statements:
            cur.execute(s)


def describe(server: Server) -> str:
    return f"{server.role} {server.flavor.value} 127.0.0.1:{server.port}"


def quote_literal(value: str) -> str:
    """``value`` as a SQL literal: numbers stay bare, everything else is a quoted string."""
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        v = v[1:-1]
    if v.upper() == "DEFAULT":
        return "DEFAULT"
    try:
        float(v)
        return v
    except ValueError:
        pass
    return "'" + v.replace("\\", "\\\\").replace("'", "''") + "'"
