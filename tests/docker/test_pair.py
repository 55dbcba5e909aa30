"""A real primary/replica pair in containers, per image: it starts, replicates, resets and cleans up."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator

import pytest
from docker_support import TARGETS

from harness.backends.base import Flavor, Pair
from harness.backends.docker import DockerBackend
from harness.connect import DATABASE, query
from harness.wait import ReplicaCaughtUp

pytestmark = pytest.mark.docker

EXPECTED = {
    # target: (flavor, version prefix, variables the backend sets or keeps, with their expected values)
    "mysql-9.7": (Flavor.MYSQL, "9.7.", {
        "gtid_mode": "ON", "enforce_gtid_consistency": "ON", "binlog_rows_query_log_events": "1",
        "binlog_row_metadata": "FULL", "bind_address": "127.0.0.1", "log_bin": "1", "sync_binlog": "0",
    }),
    "mariadb-11.8": (Flavor.MARIADB, "11.8.", {
        "binlog_annotate_row_events": "1", "binlog_row_metadata": "FULL", "bind_address": "127.0.0.1",
        "log_bin": "1", "sync_binlog": "0",
    }),
}


@pytest.fixture(scope="module", params=TARGETS)
def shared_pair(request: pytest.FixtureRequest, built_images: object) -> Iterator[Pair]:
    with DockerBackend(request.param).start_pair({}) as pair:
        pair.target = request.param  # type: ignore[attr-defined]
        yield pair


def _scalar(server: object, sql: str) -> object:
    return query(server, sql, database=DATABASE)[0][0]  # type: ignore[arg-type]


def test_pair_identity_and_options(shared_pair: Pair) -> None:
    flavor, prefix, variables = EXPECTED[shared_pair.target]  # type: ignore[attr-defined]
    for server in (shared_pair.primary, shared_pair.replica):
        assert server.flavor is flavor
        assert server.version.startswith(prefix)
        assert server.host == "127.0.0.1"
        for name, want in variables.items():
            assert str(_scalar(server, f"SELECT @@GLOBAL.{name}")) == want, name
    assert shared_pair.primary.port != shared_pair.replica.port


def test_replication_and_binlog_on_host(shared_pair: Pair) -> None:
    p, r = shared_pair.primary, shared_pair.replica
    query(p, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB", database=DATABASE)
    query(p, "INSERT INTO t VALUES (1, 'one'), (2, 'two')", database=DATABASE)
    ReplicaCaughtUp(p, r).wait(15)
    assert query(r, "SELECT id, v FROM t ORDER BY id", database=DATABASE) == [(1, "one"), (2, "two")]

    # MariaDB 11.x also keeps binlog.NNNNNN.idx (GTID index) and a #binlog_cache_files dir there
    files = sorted(f for f in p.binlog_dir().iterdir() if re.fullmatch(r"binlog\.\d+", f.name))
    assert files, "no binlog file on the host"
    out = subprocess.run([*p.binlog_tool(), "--base64-output=decode-rows", "-vv", str(files[-1])],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    row_event = "### INSERT INTO `rplay`.`t`" in out.stdout  # default binlog_format: ROW on MySQL
    statement = "INSERT INTO t VALUES (1, 'one'), (2, 'two')" in out.stdout  # MIXED on MariaDB
    assert row_event if p.flavor is Flavor.MYSQL else statement
    assert "CREATE TABLE t" in out.stdout


def test_reset_makes_the_pair_new(shared_pair: Pair) -> None:
    p, r = shared_pair.primary, shared_pair.replica
    query(p, "CREATE TABLE IF NOT EXISTS junk (id INT PRIMARY KEY)", database=DATABASE)
    query(p, "CREATE DATABASE other", database=DATABASE)
    ReplicaCaughtUp(p, r).wait(15)
    shared_pair.reset()
    for server in (p, r):
        dbs = {row[0] for row in query(server, "SHOW DATABASES")}
        assert "other" not in dbs and DATABASE in dbs
        assert query(server, "SHOW TABLES", database=DATABASE) == []
    assert len(query(p, "SHOW BINARY LOGS")) == 1
    # and it still replicates
    query(p, "CREATE TABLE after_reset (id INT PRIMARY KEY)", database=DATABASE)
    query(p, "INSERT INTO after_reset VALUES (7)", database=DATABASE)
    ReplicaCaughtUp(p, r).wait(15)
    assert query(r, "SELECT id FROM after_reset", database=DATABASE) == [(7,)]
