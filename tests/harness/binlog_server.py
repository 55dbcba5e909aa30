"""A throwaway local MariaDB for the binlog tests and benchmark (until harness.backends.local is used).

It implements the ``Server`` protocol of ``harness.backends.base`` so ``observe`` can read it back.
Everything it makes (process, temp dir) is removed on close, also on error.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import pymysql

from harness.backends.base import Flavor
from harness.execution import Execution, Level, ServerMessage


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LocalMariaDB:
    """``mariadbd --no-defaults`` on 127.0.0.1 with its binlog in a temp dir."""

    role = "primary"
    flavor = Flavor.MARIADB
    host = "127.0.0.1"
    user = "root"
    password = ""

    def __init__(self, opts: Sequence[str] = ()) -> None:
        self.opts = list(opts)
        self.port = _free_port()
        self.tmp = Path(tempfile.mkdtemp(prefix="rplay-binlog-test-"))
        self.datadir = self.tmp / "data"
        self.proc: subprocess.Popen[bytes] | None = None

    # -- Server protocol
    @property
    def version(self) -> str:
        with self.connect() as c, c.cursor() as cur:
            cur.execute("SELECT VERSION()")
            row = cur.fetchone()
            return str(row[0]) if row else ""

    def binlog_dir(self) -> Path:
        return self.tmp / "binlog"

    def binlog_tool(self) -> list[str]:
        return ["mariadb-binlog"]

    def log_tail(self, lines: int = 40) -> str:
        p = self.tmp / "error.log"
        return "\n".join(p.read_text(errors="replace").splitlines()[-lines:]) if p.exists() else ""

    def is_alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # -- lifecycle
    def start(self) -> LocalMariaDB:
        try:
            self.binlog_dir().mkdir()
            for attempt in (1, 2):  # install-db rarely fails on a busy machine: retry once, then tell why
                shutil.rmtree(self.datadir, ignore_errors=True)
                r = subprocess.run(
                    ["mariadb-install-db", "--no-defaults", f"--datadir={self.datadir}",
                     "--auth-root-authentication-method=normal", "--skip-test-db", "--user=root"],
                    capture_output=True, text=True, timeout=120)
                if r.returncode == 0:
                    break
                if attempt == 2:
                    raise RuntimeError(f"mariadb-install-db failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
            self.proc = subprocess.Popen(
                ["mariadbd", "--no-defaults", f"--datadir={self.datadir}", f"--port={self.port}",
                 f"--socket={self.tmp}/sock", "--bind-address=127.0.0.1", "--server-id=1",
                 f"--log-bin={self.binlog_dir()}/binlog", "--user=root", f"--log-error={self.tmp}/error.log",
                 "--skip-name-resolve", "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=48M",
                 "--innodb-flush-log-at-trx-commit=0", "--sync-binlog=0", *self.opts],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            deadline = time.monotonic() + 60
            while True:
                try:
                    self.connect().close()
                    break
                except pymysql.err.OperationalError:
                    if not self.is_alive() or time.monotonic() > deadline:
                        raise RuntimeError("mariadbd did not start:\n" + self.log_tail()) from None
                    time.sleep(0.1)
            with self.connect() as c, c.cursor() as cur:
                cur.execute("CREATE DATABASE IF NOT EXISTS test")
                cur.execute("RESET MASTER")
        except BaseException:
            self.close()
            raise
        return self

    def connect(self, db: str | None = None) -> pymysql.connections.Connection:  # type: ignore[type-arg]
        return pymysql.connect(host=self.host, port=self.port, user=self.user, password=self.password,
                               database=db, autocommit=True, connect_timeout=5)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> LocalMariaDB:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def run_statements(server: LocalMariaDB, statements: Sequence[tuple[str, str]], *,
                   cache_stats: bool = True, db: str = "test") -> list[Execution]:
    """Run (session, sql) pairs in order, one connection per session, and record Executions.

    A small stand-in for ``harness.replay`` on a single server: errors are recorded, never raised.
    """
    conns: dict[str, pymysql.connections.Connection] = {}  # type: ignore[type-arg]
    out: list[Execution] = []
    try:
        for seq, (session, sql) in enumerate(statements):
            conn = conns.get(session)
            if conn is None:
                conn = conns[session] = server.connect(db)
            with conn.cursor() as cur:
                before = _cache_use(cur) if cache_stats else (0, 0)
                error: int | None = None
                try:
                    cur.execute(sql)
                except pymysql.err.MySQLError as e:
                    error = int(e.args[0])
                cur.execute("SHOW WARNINGS")
                msgs = tuple(ServerMessage(Level(str(lv)), int(code), str(msg))
                             for lv, code, msg in cur.fetchall())
                after = _cache_use(cur) if cache_stats else (0, 0)
            out.append(Execution(seq, session, sql, conn.thread_id(), error=error, messages=msgs,
                                 trx_cache_use=after[0] - before[0] if cache_stats else None,
                                 stmt_cache_use=after[1] - before[1] if cache_stats else None))
    finally:
        for c in conns.values():
            c.close()
    return out


def _cache_use(cur: pymysql.cursors.Cursor) -> tuple[int, int]:
    cur.execute("SHOW SESSION STATUS WHERE Variable_name IN ('Binlog_cache_use', 'Binlog_stmt_cache_use')")
    d = {str(k): int(v) for k, v in cur.fetchall()}
    return d["Binlog_cache_use"], d["Binlog_stmt_cache_use"]
