"""A real primary/replica pair in containers, per image: it starts, replicates, resets and cleans up."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from docker_support import TARGETS, leaked

from harness.backends.base import Flavor, Pair
from harness.backends.docker import DockerBackend, leftover_containers
from harness.connect import DATABASE, query
from harness.wait import ReplicaCaughtUp
from predictor.exceptions import ServerStartError, UsageError

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

    files = sorted(f for f in p.binlog_dir().iterdir() if not f.name.endswith(".index"))
    assert files, "no binlog file on the host"
    out = subprocess.run([*p.binlog_tool(), "--base64-output=decode-rows", "-vv", str(files[-1])],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "### INSERT INTO `rplay`.`t`" in out.stdout
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


@pytest.mark.parametrize("target", TARGETS)
def test_failed_start_reports_log_tail_and_leaks_nothing(target: str, built_images: object) -> None:
    with pytest.raises(ServerStartError) as info:
        DockerBackend(target, timeout=30).start_pair({"rplay_no_such_option": "1"})
    assert "rplay" in info.value.log_tail and "no-such-option" in info.value.log_tail.replace("_", "-")
    assert leftover_containers() == []


@pytest.mark.parametrize("target", ["no such image!", "UPPER/case:tag"])
def test_bad_target_is_a_usage_error(target: str, docker_engine: None) -> None:
    with pytest.raises(UsageError):
        DockerBackend(target).start_pair({})


def test_unpullable_image_is_a_usage_error(docker_engine: None) -> None:
    with pytest.raises(UsageError, match="cannot be pulled"):
        DockerBackend("rplay-test/does-not-exist:1").start_pair({})


SCRIPT = textwrap.dedent("""
    import sys, time
    from harness.backends.docker import DockerBackend
    pair = DockerBackend(sys.argv[1]).start_pair({})
    print("ready", flush=True)
    time.sleep(300)
""")


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_signal_removes_running_pair(signame: str, built_images: object) -> None:
    import signal

    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, "mariadb-11.8"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2],
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "ready", proc.stderr.read() if proc.stderr else ""
        assert len(leftover_containers()) == 2
        proc.send_signal(getattr(signal, signame))
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    containers, dirs = leaked()
    assert containers == [] and dirs == []
