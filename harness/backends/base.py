"""The backend contract: a backend starts a primary/replica ``Pair`` of ``Server``s on 127.0.0.1.

Local processes and docker containers both implement it, so replay, binlog read-back and the replica
check never know which one they talk to.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol, runtime_checkable


class Flavor(str, Enum):
    MARIADB = "mariadb"
    MYSQL = "mysql"


@dataclass(frozen=True)
class ServerSpec:
    """A parsed ``--server`` value: ``local:mariadb``, ``local:mysql``, ``docker:mysql-9.7``, ``docker:IMAGE``."""

    kind: str  # "local" | "docker"
    target: str  # "mariadb" | "mysql" | profile-like name | image reference

    @classmethod
    def parse(cls, text: str) -> ServerSpec:
        from predictor.exceptions import UsageError

        kind, sep, target = text.partition(":")
        if not sep or kind not in ("local", "docker") or not target:
            raise UsageError(f"bad --server {text!r}: expected local:mariadb, local:mysql, docker:NAME")
        return cls(kind, target)

    def __str__(self) -> str:
        return f"{self.kind}:{self.target}"


@runtime_checkable
class Server(Protocol):
    """One running server, reachable on 127.0.0.1:port."""

    role: str  # "primary" | "replica"
    flavor: Flavor
    host: str
    port: int
    user: str
    password: str

    @property
    def version(self) -> str:
        """The server's ``SELECT VERSION()``, e.g. ``10.11.14-MariaDB-0+deb12u2-log``."""
        ...

    def binlog_dir(self) -> Path:
        """A host directory holding this server's binary logs (bind-mounted for containers)."""
        ...

    def binlog_tool(self) -> list[str]:
        """argv prefix that runs this server's own mysqlbinlog/mariadb-binlog on a file of binlog_dir()."""
        ...

    def log_tail(self, lines: int = 40) -> str:
        """The end of the server's error log, for error reports."""
        ...

    def is_alive(self) -> bool: ...


class Pair(Protocol):
    """A primary with one replica attached and replicating. Closing it removes everything it made."""

    primary: Server
    replica: Server
    root: Path  # the pair's own directory, removed when it closes

    def reset(self) -> None:
        """Make the pair as new (no user tables, fresh binlog, replica in sync) without restarting."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Pair: ...

    def __exit__(self, *exc: object) -> None: ...


class Backend(Protocol):
    def start_pair(self, server_opts: Mapping[str, str]) -> Pair:
        """Start primary and replica with ``server_opts`` (``--server-opt``) and wire replication."""
        ...
