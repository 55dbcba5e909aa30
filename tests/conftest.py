"""Shared fixtures: one real local MariaDB primary/replica pair per test session, reset between tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.backends.base import Flavor
from harness.backends.local import LocalBackend, LocalPair
from predictor.exceptions import UsageError

# a predictor exception fails the test instead of becoming an UNKNOWN record (predict_workload)
os.environ.setdefault("RPLAY_STRICT", "1")


def mariadb_available() -> bool:
    return shutil.which("mariadbd") is not None or shutil.which("mariadbd", path="/usr/sbin") is not None


@pytest.fixture(scope="session")
def mariadb_backend() -> LocalBackend:
    if not mariadb_available():
        pytest.skip("no local MariaDB server (apt-get install mariadb-server)")
    backend = LocalBackend(Flavor.MARIADB)
    try:
        _ = backend.binaries
    except UsageError as e:
        pytest.skip(str(e))
    return backend


@pytest.fixture(scope="session")
def session_pair(mariadb_backend: LocalBackend) -> Iterator[LocalPair]:
    with mariadb_backend.start_pair({}) as pair:
        yield pair


@pytest.fixture
def pair(session_pair: LocalPair) -> LocalPair:
    """The session's pair, made as new (empty ``rplay`` database, fresh binlog, replica in sync)."""
    if not all(s.is_alive() for s in session_pair.servers):
        pytest.fail("the shared pair died in an earlier test")
    session_pair.reset()
    return session_pair


@pytest.fixture
def workload_file(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write workload text to a file and return its path."""
    def make(text: str, name: str = "workload.sql") -> Path:
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return p
    return make
