"""Local pairs: start, reset, close and failures, against real MariaDB processes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from procs import server_pids_under

from harness.backends import open_backend
from harness.backends.base import ServerSpec
from harness.backends.local import LocalBackend, LocalPair
from harness.connect import query
from harness.wait import replica_status
from predictor.exceptions import ServerStartError, UsageError

pytestmark = pytest.mark.server


def test_pair_is_replicating_after_start(session_pair: LocalPair) -> None:
    p, r = session_pair.primary, session_pair.replica
    assert p.host == r.host == "127.0.0.1" and p.port != r.port and p.password != r.password
    st = replica_status(r)
    assert st is not None and st.running
    ids = {query(s, "SELECT @@server_id")[0][0] for s in (p, r)}
    assert len(ids) == 2
    assert query(p, "SELECT @@log_bin, @@binlog_annotate_row_events, @@sync_binlog")[0] == (1, 1, 0)
    engines = {row[0] for row in query(p, "SELECT ENGINE FROM information_schema.ENGINES WHERE SUPPORT "
                                          "IN ('YES', 'DEFAULT')")}
    assert {"BLACKHOLE", "ARCHIVE"} <= engines


def test_reset_gives_a_fresh_binlog_and_empty_database(pair: LocalPair) -> None:
    query(pair.primary, "CREATE TABLE rplay.t (a INT)")
    query(pair.primary, "CREATE DATABASE other")
    started = time.monotonic()
    pair.reset()
    elapsed = time.monotonic() - started
    assert elapsed < 10, "sanity bound only; benchmarks/harness_bench.py measures it"
    for s in (pair.primary, pair.replica):
        dbs = {r[0] for r in query(s, "SHOW DATABASES")}
        assert "other" not in dbs and "rplay" in dbs
        assert query(s, "SHOW TABLES FROM rplay") == []
    logs = query(pair.primary, "SHOW BINARY LOGS")
    assert [r[0] for r in logs] == ["binlog.000001"]
    kinds = {r[2] for r in query(pair.primary, "SHOW BINLOG EVENTS")}
    assert kinds <= {"Format_desc", "Gtid_list", "Binlog_checkpoint"}
    query(pair.primary, "CREATE TABLE rplay.after_reset (a INT)")
    from harness.wait import ReplicaCaughtUp

    ReplicaCaughtUp(pair.primary, pair.replica).wait(10)
    assert query(pair.replica, "SHOW TABLES FROM rplay") == [("after_reset",)]


def test_start_and_close_leave_nothing(mariadb_backend: LocalBackend) -> None:
    started = time.monotonic()
    pair = mariadb_backend.start_pair({"binlog_format": "ROW"})
    ready = time.monotonic() - started
    root = pair.root
    try:
        assert ready < 15, "sanity bound only; benchmarks/harness_bench.py measures it"
        assert query(pair.primary, "SELECT @@global.binlog_format")[0][0] == "ROW"
        assert server_pids_under(root)
    finally:
        pair.close()
    assert not root.exists()
    assert server_pids_under(root) == []
    pair.close()  # idempotent


def test_bad_server_option_reports_log_tail(mariadb_backend: LocalBackend, tmp_path: Path) -> None:
    with pytest.raises(ServerStartError) as info:
        mariadb_backend.start_pair({"no_such_option": "1"})
    assert "no-such-option" in info.value.log_tail or "no_such_option" in info.value.log_tail
    assert "log tail" in str(info.value)


def test_bad_specs_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        open_backend(ServerSpec.parse("local:oracle"))
    with pytest.raises(UsageError):
        ServerSpec.parse("mariadb")
    with pytest.raises(UsageError):
        LocalBackend(basedir="/nonexistent/dir")
