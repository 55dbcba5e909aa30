"""Primary/replica pairs in Docker containers (testcontainers), for servers this machine cannot run natively.

``DockerBackend("mysql-9.7")`` uses our offline-built images (``harness.images``),
``DockerBackend("mysql:8.4")`` any image a user can pull (its server binary runs directly, without the image's
entrypoint).

Every container uses host networking and its server binds 127.0.0.1 on its own free port. A server's files
(data dir, binlogs, error log) live in a host temp dir that is bind-mounted at the *same path* inside the
container, so a path under ``binlog_dir()`` means the same file on both sides and ``binlog_tool()``
(``docker exec <id> mysqlbinlog``) takes host paths unchanged.

Fast: each image's data dir is initialised once into a cache (``~/.cache/rplay/datadirs``) and copied per
server; both servers start in parallel. Leak-free: containers and temp dirs go on ``close()``, on any
start failure, at exit and on SIGTERM; a start interrupted by Ctrl-C waits for its threads, then cleans up.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")  # its reaper image cannot be pulled here

import docker.errors
from testcontainers.core.container import DockerContainer
from testcontainers.core.docker_client import DockerClient as TcClient

import docker
from harness import images
from harness.backends.base import Flavor
from harness.backends.pair import PairBase, Registry, free_port, start_with_retries
from harness.connect import query
from harness.wait import PortOpen, SqlPing
from predictor.exceptions import ImageBuildError, RplayError, ServerStartError, UsageError

USER = "rplay"
LABEL = "org.rplay.pair"
"""Every container we start carries this label (its value: the pair id), so leftovers are easy to find."""
SESSION_LABEL = "org.rplay.session"
"""Value from ``RPLAY_DOCKER_SESSION``: lets a test run find its own containers among other users'."""

INIT_OPTS = frozenset({"innodb_page_size", "lower_case_table_names", "innodb_data_file_path",
                       "innodb_log_file_size", "innodb_undo_tablespaces"})
"""Server options fixed when a data dir is initialised: they become part of the template's key."""

MARIADB_PLUGINS = ("ha_blackhole", "ha_archive", "ha_federatedx")
IMAGE_REF = re.compile(r"^[a-z0-9][a-z0-9._/:@-]*$")

PROBE_SCRIPT = r"""
for b in mariadbd mysqld mariadb-install-db mysql_install_db mariadb-binlog mysqlbinlog; do
  p=$(command -v $b 2>/dev/null) && echo "bin $b $p"
done
srv=$(command -v mariadbd 2>/dev/null || command -v mysqld 2>/dev/null)
[ -n "$srv" ] && echo "version $($srv --version 2>/dev/null | grep -m 1 ' Ver ')"
for d in /usr/lib/mysql/plugin /usr/lib64/mysql/plugin /usr/lib/x86_64-linux-gnu/mariadb19/plugin; do
  [ -d $d ] && for f in $d/*.so; do echo "plugin $(basename $f .so)"; done
done
exit 0
"""


# ---------------------------------------------------------------------------------------------------------
# images


@dataclass(frozen=True)
class ImageInfo:
    """What a server image holds, found once by a short probe container."""

    ref: str
    image_id: str
    flavor: Flavor
    server: str  # absolute path of mysqld / mariadbd inside the image
    install_db: str | None  # mariadb-install-db (MariaDB only)
    binlog_tool: str
    version_text: str
    plugins: frozenset[str] = field(default_factory=frozenset)


_probe_cache: dict[str, ImageInfo] = {}
_probe_lock = threading.Lock()


_clients: list[Any] = []


def _client() -> Any:
    """One shared docker SDK client (through testcontainers, which sets it up like its containers)."""
    with _probe_lock:
        if _clients:
            return _clients[0]
        try:
            client = TcClient().client
            client.ping()
        except Exception as e:  # docker raises several unrelated types for "no engine"
            raise ServerStartError(f"no Docker engine answers ({e}); start it with docker/start-dockerd.sh") \
                from None
        _clients.append(client)
        return client


def _flavor_from_name(ref: str) -> Flavor | None:
    name = ref.rsplit("/", 1)[-1].split(":")[0].split("@")[0].lower()
    if "mariadb" in name:
        return Flavor.MARIADB
    if "mysql" in name or "percona" in name:
        return Flavor.MYSQL
    return None


def _ensure_local(ref: str) -> str:
    """The image id of ``ref``, pulled first when it is not here."""
    client = _client()
    try:
        return str(client.images.get(ref).id)
    except docker.errors.ImageNotFound:
        pass
    except docker.errors.APIError as e:
        raise UsageError(f"docker image {ref!r}: {e.explanation or e}") from None
    try:
        return str(client.images.pull(ref).id)
    except docker.errors.APIError as e:
        raise UsageError(f"docker image {ref!r} is not here and cannot be pulled: {e.explanation or e}") \
            from None


def _run_to_end(ref: str, argv: list[str], *, volumes: list[tuple[str, str, str]] | None = None,
                user: str | None = None, timeout: float = 300.0, label: str = "probe") -> tuple[int, str]:
    """Run a one-shot container (no network) and return its exit code and output."""
    labels = {LABEL: label, SESSION_LABEL: os.environ.get("RPLAY_DOCKER_SESSION", "")}
    kw: dict[str, Any] = {"entrypoint": argv[:1], "network_mode": "none", "labels": labels}
    if user:
        kw["user"] = user
    c = DockerContainer(ref, volumes=volumes, **kw)
    c.with_command(argv[1:])
    try:
        c.start()
        wrapped = c.get_wrapped_container()
        try:
            result = wrapped.wait(timeout=timeout)
        except Exception:
            return -1, _decode(wrapped.logs()) + f"\n(timed out after {timeout:.0f}s)"
        return int(result.get("StatusCode", -1)), _decode(wrapped.logs())
    finally:
        with contextlib.suppress(Exception):
            c.stop()


def _decode(b: bytes) -> str:
    return b.decode(errors="replace")


def probe_image(ref: str) -> ImageInfo:
    """Find the server binaries and flavour inside image ``ref`` (cached per image id)."""
    image_id = _ensure_local(ref)
    with _probe_lock:
        if image_id in _probe_cache:
            return _probe_cache[image_id]
    key = hashlib.sha256((PROBE_SCRIPT + image_id).encode()).hexdigest()[:32]
    cached = _datadir_cache().parent / "probes" / f"{key}.txt"
    try:
        out = cached.read_text()
    except OSError:
        code, out = _run_to_end(ref, ["sh", "-c", PROBE_SCRIPT])
        if code != 0:
            raise UsageError(f"docker image {ref!r}: cannot inspect it (exit {code}): {out[-500:]}") from None
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(out)
        tmp.replace(cached)
    info = _parse_probe(ref, image_id, out)
    with _probe_lock:
        _probe_cache[image_id] = info
    return info


def _parse_probe(ref: str, image_id: str, out: str) -> ImageInfo:
    bins: dict[str, str] = {}
    version = ""
    plugins: set[str] = set()
    for line in out.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "bin":
            name, _, path = rest.partition(" ")
            bins[name] = path
        elif kind == "version":
            version = rest
        elif kind == "plugin":
            plugins.add(rest)
    if "mariadbd" in bins or "mariadb" in version.lower():
        flavor: Flavor | None = Flavor.MARIADB
    else:
        flavor = Flavor.MYSQL if "mysqld" in bins else _flavor_from_name(ref)
    if flavor is None:
        raise UsageError(f"docker image {ref!r} holds no mysqld or mariadbd")
    if flavor is Flavor.MARIADB:
        server = bins.get("mariadbd") or bins.get("mysqld")
        install_db = bins.get("mariadb-install-db") or bins.get("mysql_install_db")
        tool = bins.get("mariadb-binlog") or bins.get("mysqlbinlog")
    else:
        server, install_db, tool = bins.get("mysqld"), None, bins.get("mysqlbinlog")
    if server is None:
        raise UsageError(f"docker image {ref!r} holds no {flavor.value} server binary")
    if flavor is Flavor.MARIADB and install_db is None:
        raise UsageError(f"docker image {ref!r} holds no mariadb-install-db")
    return ImageInfo(ref, image_id, flavor, server, install_db, tool or "mysqlbinlog", version,
                     frozenset(plugins))


def resolve_image(target: str) -> str:
    """``mysql-9.7`` → our image tag (built if needed); anything else is taken as an image reference."""
    defs = images.load_definitions()
    spec = defs.find(target)
    if spec is not None:
        try:
            images.build_image(spec, defs=defs)
        except ImageBuildError:
            raise
        return spec.tag
    if not IMAGE_REF.match(target):
        known = ", ".join(s.name for s in defs.images)
        raise UsageError(f"bad docker target {target!r}: use one of {known} or an image reference "
                         "IMAGE[:TAG]")
    return target


# ---------------------------------------------------------------------------------------------------------
# template data dirs


def _datadir_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    d = Path(base) / "rplay" / "datadirs"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _init_opts(server_opts: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in sorted(server_opts.items()) if k in INIT_OPTS}


def _prune_templates(cache: Path) -> None:
    """Drop templates of images that no longer exist (each rebuild makes a new image id)."""
    try:
        ids = {str(i.id).removeprefix("sha256:")[:12] for i in _client().images.list()}
    except Exception:
        return
    for d in cache.iterdir():
        if d.is_dir() and not d.name.startswith("tmp") and d.name.split("-")[0] not in ids:
            shutil.rmtree(d, ignore_errors=True)


def template_datadir(info: ImageInfo, server_opts: Mapping[str, str]) -> Path:
    """An initialised data dir for this image (made once, then reused by every server)."""
    opts = _init_opts(server_opts)
    key = info.image_id.removeprefix("sha256:")[:12] + "-" + \
        hashlib.sha256(json.dumps(opts).encode()).hexdigest()[:8]
    cache = _datadir_cache()
    final = cache / key
    if (final / "data").is_dir():
        return final / "data"
    with images.file_lock(f"datadir-{key}"):
        if (final / "data").is_dir():
            return final / "data"
        _prune_templates(cache)
        tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=cache))
        try:
            data = tmp / "data"
            extra = [f"--{k.replace('_', '-')}={v}" for k, v in opts.items()]
            user = None if os.geteuid() == 0 else f"{os.geteuid()}:{os.getegid()}"
            as_root = ["--user=root"] if user is None else []
            if info.flavor is Flavor.MARIADB:
                assert info.install_db is not None
                argv = [info.install_db, "--no-defaults", f"--datadir={data}", *as_root,
                        "--auth-root-authentication-method=normal", "--skip-test-db", *extra]
            else:
                data.mkdir()
                argv = [info.server, "--no-defaults", "--initialize-insecure", f"--datadir={data}", *as_root,
                        *extra]
            code, out = _run_to_end(info.ref, argv, volumes=[(str(tmp), str(tmp), "rw")], user=user,
                                    label="template")
            if code != 0:
                raise ServerStartError(f"initialising a data dir in {info.ref} failed (exit {code})",
                                       log_tail="\n".join(out.splitlines()[-30:]))
            tmp.rename(final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return final / "data"


# ---------------------------------------------------------------------------------------------------------
# cleanup registry


_lock = threading.RLock()
_registry = Registry()
_prev_term: Any = None
_handlers_installed = False


def _cleanup_all() -> None:
    _registry.close_all()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _cleanup_all()
    prev = _prev_term
    if callable(prev):
        prev(signum, frame)
        return
    if prev == signal.SIG_IGN:
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_handlers() -> None:
    """atexit and SIGTERM clean up live pairs; Ctrl-C arrives as KeyboardInterrupt and unwinds normally."""
    global _handlers_installed, _prev_term
    with _lock:
        if _handlers_installed:
            return
        _handlers_installed = True
        atexit.register(_cleanup_all)
        if threading.current_thread() is threading.main_thread():
            prev = signal.getsignal(signal.SIGTERM)
            if prev is not _on_sigterm:
                _prev_term = prev
                signal.signal(signal.SIGTERM, _on_sigterm)


# ---------------------------------------------------------------------------------------------------------
# servers


class DockerServer:
    """One server in one container; its files live under ``root`` (same path on host and in container)."""

    host = "127.0.0.1"
    user = USER

    def __init__(self, role: str, info: ImageInfo, root: Path, port: int, server_id: int,
                 pair_id: str) -> None:
        self.role = role
        self.info = info
        self.flavor = info.flavor
        self.root = root
        self.port = port
        self.password = secrets.token_urlsafe(18)
        self.server_id = server_id
        self.pair_id = pair_id
        self.container: DockerContainer | None = None
        self.container_id = ""
        self._version: str | None = None
        self._abandoned = threading.Event()

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def error_log(self) -> Path:
        return self.root / "error.log"

    @property
    def version(self) -> str:
        if self._version is None:
            self._version = str(query(self, "SELECT VERSION()")[0][0])
        return self._version

    def binlog_dir(self) -> Path:
        return self.root / "binlog"

    def binlog_tool(self) -> list[str]:
        if not self.container_id:
            raise ServerStartError(f"{self.role} container is not running", server=self.describe())
        return ["docker", "exec", self.container_id, self.info.binlog_tool]

    def describe(self) -> str:
        return f"{self.role} {self.info.ref} 127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 40) -> str:
        text = ""
        with contextlib.suppress(OSError):
            text = self.error_log.read_text(errors="replace")
        if self.container is not None:
            with contextlib.suppress(Exception):
                out = _decode(self.container.get_wrapped_container().logs())
                text = (text + "\n" + out) if out.strip() else text
        return "\n".join(text.strip().splitlines()[-lines:])

    def is_alive(self) -> bool:
        if self.container is None:
            return False
        try:
            wrapped = self.container.get_wrapped_container()
            wrapped.reload()
            return str(wrapped.status) in ("created", "running")
        except Exception:
            return False

    def argv(self, server_opts: Mapping[str, str]) -> list[str]:
        d = self.root
        a = ["--no-defaults", f"--datadir={self.datadir}", f"--port={self.port}", "--bind-address=127.0.0.1",
             f"--socket={d / 'mysqld.sock'}", f"--server-id={self.server_id}",
             f"--log-bin={self.binlog_dir() / 'binlog'}", f"--log-error={self.error_log}",
             f"--pid-file={d / 'mysqld.pid'}", f"--tmpdir={d / 'tmp'}", f"--init-file={d / 'init.sql'}",
             f"--relay-log={d / 'relay' / 'relay'}", "--skip-name-resolve", "--binlog-row-metadata=FULL",
             "--innodb-flush-log-at-trx-commit=0", "--sync-binlog=0", "--innodb-buffer-pool-size=64M"]
        if os.geteuid() == 0:
            a.append("--user=root")
        if self.flavor is Flavor.MARIADB:
            a += ["--innodb-doublewrite=0", "--binlog-annotate-row-events=ON", "--skip-slave-start"]
            a += [f"--plugin-load-add={p}" for p in MARIADB_PLUGINS if p in self.info.plugins]
        else:
            a += ["--innodb-doublewrite=OFF", "--binlog-rows-query-log-events=ON", "--mysqlx=OFF",
                  "--skip-replica-start", "--gtid-mode=ON", "--enforce-gtid-consistency=ON"]
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
                f"GRANT ALL PRIVILEGES ON *.* TO '{USER}'@'127.0.0.1' WITH GRANT OPTION;\n")

    def prepare(self, template: Path) -> None:
        self.root.mkdir(parents=True)
        shutil.copytree(template, self.datadir, symlinks=True)
        (self.datadir / "auto.cnf").unlink(missing_ok=True)  # MySQL: a new server_uuid per server
        for sub in ("binlog", "tmp", "relay"):
            (self.root / sub).mkdir()
        (self.root / "init.sql").write_text(self.init_sql())

    def start(self, template: Path, server_opts: Mapping[str, str]) -> None:
        """Copy the template, then create and start the container (does not wait for readiness)."""
        self.prepare(template)
        user = None if os.geteuid() == 0 else f"{os.geteuid()}:{os.getegid()}"
        labels = {LABEL: self.pair_id, SESSION_LABEL: os.environ.get("RPLAY_DOCKER_SESSION", "")}
        kw: dict[str, Any] = {"entrypoint": [self.info.server], "network_mode": "host",
                              "name": f"rplay-{self.pair_id}-{self.role}", "labels": labels}
        if user:
            kw["user"] = user
        c = DockerContainer(self.info.ref, **kw)
        c.with_command(self.argv(server_opts))
        c.with_volume_mapping(str(self.root), str(self.root), "rw")
        self.container = c
        try:
            c.start()
        except docker.errors.APIError as e:
            raise ServerStartError(f"cannot start the {self.role} container: {e.explanation or e}",
                                   log_tail=self.log_tail(), server=self.describe()) from None
        self.container_id = c.get_container_id()
        if self._abandoned.is_set():  # the pair was closed while we were starting
            self.remove()

    def remove(self) -> None:
        """Kill and delete the container (never raises: it runs during cleanup)."""
        self._abandoned.set()
        c = self.container
        if c is not None and c._container is not None:
            with contextlib.suppress(Exception):
                c.get_wrapped_container().remove(force=True, v=True)
        self.container_id = ""
        if c is not None:
            with contextlib.suppress(Exception):
                c.get_docker_client().client.close()


# ---------------------------------------------------------------------------------------------------------
# pairs


class DockerPair(PairBase):
    """A primary and a replica container; ``close()`` (idempotent) removes both and their files."""

    def __init__(self, root: Path, primary: DockerServer, replica: DockerServer, timeout: float) -> None:
        super().__init__(root, primary, replica, timeout, _registry)
        self.servers = (primary, replica)

    def _stop_servers(self) -> None:
        threads = [threading.Thread(target=s.remove, name=f"rplay-rm-{s.role}") for s in self.servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


class DockerBackend:
    """``docker:mysql-9.7`` / ``docker:mariadb-11.8`` / ``docker:mariadb-10.11`` / ``docker:IMAGE[:TAG]``."""

    def __init__(self, target: str, timeout: float = 60.0) -> None:
        self.target = target
        self.timeout = timeout
        self._info: ImageInfo | None = None

    @property
    def info(self) -> ImageInfo:
        if self._info is None:
            self._info = probe_image(resolve_image(self.target))
        return self._info

    @property
    def flavor(self) -> Flavor:
        return self.info.flavor

    def start_pair(self, server_opts: Mapping[str, str] | None = None) -> DockerPair:
        return start_with_retries(self._start, server_opts)

    def _start(self, server_opts: Mapping[str, str]) -> DockerPair:
        info = self.info
        template = template_datadir(info, server_opts)
        _install_handlers()
        base = os.environ.get("RPLAY_TMPDIR") or None
        root = _registry.make_root("rplay-docker-", base)
        pair_id = root.name.removeprefix("rplay-docker-").lower().replace("_", "")
        servers = [DockerServer(role, info, root / role, free_port(), sid, pair_id)
                   for role, sid in (("primary", 1), ("replica", 2))]
        pair = DockerPair(root, servers[0], servers[1], self.timeout)
        try:
            with pair.building(), ThreadPoolExecutor(max_workers=2, thread_name_prefix="rplay-docker") as pool:
                futures = [pool.submit(s.start, template, server_opts) for s in servers]
                errors = [f.exception() for f in futures]
            for err in errors:
                if err is not None:
                    raise err
            deadline = time.monotonic() + self.timeout
            for s in servers:
                PortOpen(s).wait(max(0.5, deadline - time.monotonic()))
            for s in servers:
                SqlPing(s).wait(max(0.5, deadline - time.monotonic()))
            pair.reset()
        except BaseException:
            pair.close()
            raise
        return pair


def leftover_containers(session: str | None = None) -> list[str]:
    """Names of our containers (of one ``RPLAY_DOCKER_SESSION`` when given); none once every pair closed."""
    label = LABEL if session is None else f"{SESSION_LABEL}={session}"
    try:
        return [str(c.name) for c in _client().containers.list(all=True, filters={"label": label})]
    except RplayError:
        return []


__all__ = ["DockerBackend", "DockerPair", "DockerServer", "ImageInfo", "leftover_containers", "probe_image",
           "resolve_image", "template_datadir"]
