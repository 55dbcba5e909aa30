"""Primary/replica pairs of local server processes, built from binaries on PATH or ``--basedir``.

Fast by construction: the system tables are initialised once per process into a template data dir, each
server gets a copy; both servers start in parallel with relaxed durability. Leak-free by construction:
every pair lives in one temp dir, ``close()`` SIGKILLs both processes and removes it, and live pairs are
also closed on atexit, SIGTERM and SIGINT (handlers clean up, then re-raise). Servers run in their own
session (a terminal Ctrl-C reaches only rplay, which then cleans up) and, when started from the main
thread, die with it (PR_SET_PDEATHSIG) even if rplay itself is SIGKILLed.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

from harness.backends.base import Flavor
from harness.backends.pair import PairBase, Registry, free_port, start_with_retries
from harness.connect import DATABASE, query
from harness.topology import attach_replica
from harness.wait import PortOpen, SqlPing
from predictor.exceptions import ServerStartError, UsageError

USER = "rplay"
REDO_LOG_SIZE = "4M"  # template and servers must agree, or the server rebuilds its redo log at start
MARIADB_PLUGINS = ("ha_blackhole", "ha_archive", "ha_federatedx")
EXTRA_PATH = "/usr/sbin:/usr/local/sbin:/usr/local/mysql/bin"
PLUGIN_DIRS = ("/usr/lib/mysql/plugin", "/usr/lib64/mysql/plugin", "/usr/local/mysql/lib/plugin")


# ---------------------------------------------------------------------------------------------------------
# binaries


def _find(names: tuple[str, ...], basedir: Path | None) -> str | None:
    for name in names:
        if basedir is not None:
            for sub in ("bin", "sbin", "libexec", "scripts", "."):
                p = basedir / sub / name
                if p.is_file() and os.access(p, os.X_OK):
                    return str(p)
        else:
            found = shutil.which(name) or shutil.which(name, path=EXTRA_PATH)
            if found:
                return found
    return None


class Binaries:
    """The server, initialiser and binlog decoder of one flavour, checked to really be that flavour."""

    def __init__(self, flavor: Flavor, basedir: Path | None) -> None:
        self.flavor = flavor
        self.basedir = basedir
        where = f"under {basedir}" if basedir else "on PATH"
        if flavor is Flavor.MARIADB:
            server = _find(("mariadbd", "mysqld"), basedir)
            self.install_db = _find(("mariadb-install-db", "mysql_install_db"), basedir)
            self.binlog = _find(("mariadb-binlog", "mysqlbinlog"), basedir)
        else:
            server = _find(("mysqld",), basedir)
            self.install_db = None
            self.binlog = _find(("mysqlbinlog",), basedir)
        if server is None:
            raise UsageError(f"no {flavor.value} server binary found {where} (install it or pass --basedir)")
        self.server = server
        try:
            out = subprocess.run([server, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError) as e:
            raise UsageError(f"cannot run {server}: {e}") from None
        self.version_text = out.strip()
        is_mariadb = "mariadb" in out.lower()
        if is_mariadb != (flavor is Flavor.MARIADB):
            raise UsageError(f"{server} is not {flavor.value} ({self.version_text}); pass --basedir")
        if flavor is Flavor.MARIADB and self.install_db is None:
            raise UsageError(f"mariadb-install-db not found {where}")

    def plugin_dir(self) -> Path | None:
        candidates = [self.basedir / "lib" / "plugin", self.basedir / "lib" / "mysql" / "plugin"] \
            if self.basedir else [Path(p) for p in PLUGIN_DIRS]
        return next((p for p in candidates if p.is_dir()), None)


# ---------------------------------------------------------------------------------------------------------
# cleanup registry


_lock = threading.RLock()
_registry = Registry()
_templates: dict[tuple[Flavor, str], Path] = {}
_prev_handlers: dict[int, Any] = {}
_handlers_installed = False


def _cleanup_all() -> None:
    _registry.close_all()
    with _lock:
        dirs = list(_templates.values())
        _templates.clear()
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _cleanup_all()
    prev = _prev_handlers.get(signum, signal.SIG_DFL)
    if callable(prev):
        prev(signum, frame)  # SIGINT's default raises KeyboardInterrupt
        return
    if prev == signal.SIG_IGN:
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_handlers() -> None:
    global _handlers_installed
    with _lock:
        if _handlers_installed:
            return
        _handlers_installed = True
        atexit.register(_cleanup_all)
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGINT):
            prev = signal.getsignal(sig)
            if prev is _on_signal:
                continue
            _prev_handlers[sig] = prev
            signal.signal(sig, _on_signal)


def _die_with_parent() -> Callable[[], None] | None:
    """preexec_fn making the child SIGKILLed when the starting thread ends (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return None

    def preexec() -> None:
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return preexec


# ---------------------------------------------------------------------------------------------------------
# servers


class LocalServer:
    """One server process, its data dir, binlog dir and error log under the pair's temp dir."""

    host = "127.0.0.1"
    user = USER

    def __init__(self, role: str, flavor: Flavor, root: Path, port: int, password: str, server_id: int,
                 binaries: Binaries) -> None:
        self.role = role
        self.flavor = flavor
        self.root = root
        self.port = port
        self.password = password
        self.server_id = server_id
        self.binaries = binaries
        self.proc: subprocess.Popen[bytes] | None = None
        self._version: str | None = None

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def error_log(self) -> Path:
        return self.root / "error.log"

    @property
    def pid(self) -> int:
        return self.proc.pid if self.proc else 0

    @property
    def version(self) -> str:
        if self._version is None:
            self._version = str(query(self, "SELECT VERSION()")[0][0])
        return self._version

    def binlog_dir(self) -> Path:
        return self.root / "binlog"

    def binlog_tool(self) -> list[str]:
        if self.binaries.binlog is None:
            raise UsageError(f"no binlog decoder (mariadb-binlog/mysqlbinlog) found for {self.flavor.value}")
        return [self.binaries.binlog]

    def log_tail(self, lines: int = 40) -> str:
        text = ""
        for p in (self.error_log, self.root / "stdout.log"):
            with contextlib.suppress(OSError):
                text += p.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def is_alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def argv(self, server_opts: Mapping[str, str]) -> list[str]:
        b = self.binaries
        d = self.root
        a = [b.server, "--no-defaults", f"--datadir={self.datadir}", f"--port={self.port}",
             f"--socket={d / 'mysqld.sock'}", "--bind-address=127.0.0.1", f"--server-id={self.server_id}",
             f"--log-bin={self.binlog_dir() / 'binlog'}", f"--log-error={self.error_log}",
             f"--pid-file={d / 'mysqld.pid'}", f"--tmpdir={d / 'tmp'}", f"--init-file={d / 'init.sql'}",
             f"--relay-log={d / 'relay' / 'relay'}", "--skip-name-resolve",
             "--innodb-flush-log-at-trx-commit=0", "--sync-binlog=0", "--innodb-buffer-pool-size=64M",
             "--binlog-row-metadata=FULL"]
        if os.geteuid() == 0:
            a.append("--user=root")
        if b.basedir:
            a.append(f"--basedir={b.basedir}")
        plugin_dir = b.plugin_dir()
        if self.flavor is Flavor.MARIADB:
            a += ["--innodb-doublewrite=0", "--binlog-annotate-row-events=ON",
                  f"--innodb-log-file-size={REDO_LOG_SIZE}", "--skip-slave-start"]
            if plugin_dir is not None:
                if b.basedir:
                    a.append(f"--plugin-dir={plugin_dir}")
                a += [f"--plugin-load-add={p}" for p in MARIADB_PLUGINS if (plugin_dir / f"{p}.so").exists()]
        else:
            a += ["--innodb-doublewrite=OFF", "--binlog-rows-query-log-events=ON", "--mysqlx=OFF",
                  "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--skip-replica-start",
                  f"--secure-file-priv={d / 'files'}"]
            if b.basedir and plugin_dir is not None:
                a.append(f"--plugin-dir={plugin_dir}")
        a += [f"--{k.replace('_', '-')}={v}" for k, v in server_opts.items()]
        return a

    def init_sql(self) -> str:
        pw = self.password.replace("'", "''")
        if self.flavor is Flavor.MARIADB:
            create = f"CREATE OR REPLACE USER '{USER}'@'127.0.0.1' IDENTIFIED BY '{pw}';\n"
        else:
            create = (f"DROP USER IF EXISTS '{USER}'@'127.0.0.1';\n"
                      f"CREATE USER '{USER}'@'127.0.0.1' IDENTIFIED BY '{pw}';\n")
        return ("SET SESSION sql_log_bin=0;\n" + create +
                f"GRANT ALL PRIVILEGES ON *.* TO '{USER}'@'127.0.0.1' WITH GRANT OPTION;\n"
                f"CREATE DATABASE IF NOT EXISTS `{DATABASE}`;\n")

    def prepare(self, template: Path) -> None:
        self.root.mkdir(parents=True)
        shutil.copytree(template, self.datadir, symlinks=True)
        for sub in ("binlog", "tmp", "relay", "files"):
            (self.root / sub).mkdir()
        (self.root / "init.sql").write_text(self.init_sql())

    def spawn(self, server_opts: Mapping[str, str]) -> None:
        out = open(self.root / "stdout.log", "wb")  # the child keeps its own copy
        try:
            self.proc = subprocess.Popen(self.argv(server_opts), stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         preexec_fn=_die_with_parent())
        finally:
            out.close()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)


def _make_template(b: Binaries) -> Path:
    root = Path(tempfile.mkdtemp(prefix="rplay-template-"))
    data = root / "data"
    if b.flavor is Flavor.MARIADB:
        assert b.install_db is not None
        argv = [b.install_db, "--no-defaults", f"--datadir={data}",
                "--auth-root-authentication-method=normal", "--skip-test-db",
                f"--innodb-log-file-size={REDO_LOG_SIZE}"]
        if b.basedir:
            argv.append(f"--basedir={b.basedir}")
    else:
        argv = [b.server, "--no-defaults", "--initialize-insecure", f"--datadir={data}"]
        if b.basedir:
            argv.append(f"--basedir={b.basedir}")
    if os.geteuid() == 0:
        argv.append("--user=root")
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=300, start_new_session=True)
    except (OSError, subprocess.SubprocessError) as e:
        shutil.rmtree(root, ignore_errors=True)
        raise ServerStartError(f"cannot initialise a {b.flavor.value} data dir: {e}") from None
    if r.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        tail = "\n".join((r.stdout + r.stderr).splitlines()[-30:])
        raise ServerStartError(f"{argv[0]} failed with exit code {r.returncode}", log_tail=tail)
    return data


def template_for(b: Binaries) -> Path:
    """The per-process template data dir for these binaries (made on first use)."""
    _install_handlers()
    key = (b.flavor, str(b.basedir or ""))
    with _lock:
        if key not in _templates:
            _templates[key] = _make_template(b).parent
        return _templates[key] / "data"


# ---------------------------------------------------------------------------------------------------------
# pairs


class LocalPair(PairBase):
    """A primary and a replica process; ``close()`` (idempotent) removes every trace."""

    def __init__(self, root: Path, primary: LocalServer, replica: LocalServer, timeout: float) -> None:
        super().__init__(root, primary, replica, timeout, _registry)
        self.servers = (primary, replica)

    def _stop_servers(self) -> None:
        for s in self.servers:
            s.kill()


class LocalBackend:
    """``local:mariadb`` / ``local:mysql``: pairs of server processes on this machine."""

    def __init__(self, flavor: Flavor = Flavor.MARIADB, basedir: Path | str | None = None,
                 timeout: float = 30.0) -> None:
        self.flavor = flavor
        self.basedir = Path(basedir).resolve() if basedir else None
        if self.basedir is not None and not self.basedir.is_dir():
            raise UsageError(f"--basedir {self.basedir} is not a directory")
        self.timeout = timeout
        self._binaries: Binaries | None = None

    @property
    def binaries(self) -> Binaries:
        if self._binaries is None:
            self._binaries = Binaries(self.flavor, self.basedir)
        return self._binaries

    def start_pair(self, server_opts: Mapping[str, str] | None = None) -> LocalPair:
        return start_with_retries(self._start, server_opts)

    def _start(self, server_opts: Mapping[str, str]) -> LocalPair:
        b = self.binaries
        template = template_for(b)
        root = _registry.make_root("rplay-pair-")
        servers = [LocalServer(role, self.flavor, root / role, free_port(), secrets.token_urlsafe(18),
                               sid, b) for role, sid in (("primary", 1), ("replica", 2))]
        pair = LocalPair(root, servers[0], servers[1], self.timeout)
        try:
            for s in servers:  # the primary boots while the replica's data dir is copied
                with pair.building():
                    s.prepare(template)
                    s.spawn(server_opts)
            deadline = time.monotonic() + self.timeout
            for s in servers:
                PortOpen(s).wait(max(0.5, deadline - time.monotonic()))
            for s in servers:
                SqlPing(s).wait(max(0.5, deadline - time.monotonic()))
            attach_replica(pair.primary, pair.replica, timeout=max(0.5, deadline - time.monotonic()))
        except BaseException:
            pair.close()
            raise
        return pair


__all__ = ["Binaries", "LocalBackend", "LocalPair", "LocalServer", "template_for"]
