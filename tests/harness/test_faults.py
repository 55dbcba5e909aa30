"""Faults: a primary killed mid-run, and ``rplay run`` leaving nothing behind on success, failure, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procs import server_pids_under

from harness.backends.local import LocalBackend, LocalServer
from harness.progress import Progress
from harness.run import run_workload
from predictor.exceptions import ServerGoneError
from predictor.records import read_jsonl
from predictor.workload import parse_workload

pytestmark = pytest.mark.server

REPO = Path(__file__).resolve().parents[2]


class KillPrimaryAt(Progress):
    """A progress sink that SIGKILLs the primary once ``n`` statements are done."""

    def __init__(self, server: LocalServer, n: int) -> None:
        super().__init__("test", enabled=False)
        self.server, self.n = server, n

    def update(self, done: int, total: int) -> None:
        if done == self.n and self.server.proc is not None:
            self.server.proc.kill()
            self.server.proc.wait()


def test_killed_primary_ends_run_with_records_written(mariadb_backend: LocalBackend, tmp_path: Path) -> None:
    text = "CREATE TABLE t (a INT);\n" + "".join(f"INSERT INTO t VALUES ({i});\n" for i in range(30))
    out = tmp_path / "run"
    with mariadb_backend.start_pair({}) as pair:
        primary = pair.servers[0]
        with pytest.raises(ServerGoneError, match="lost the primary at statement 10"):
            run_workload(parse_workload(text, "kill.sql"), pair, {}, {}, out, reset=False,
                         progress=KillPrimaryAt(primary, 10))
    records = read_jsonl(out / "observed.jsonl")
    assert [r.seq for r in records] == list(range(11))
    assert records[-1].error in (2006, 2013)
    info = json.loads((out / "run.json").read_text())
    assert "lost the primary" in info["error"] and info["executed"] == 11
    assert (out / "predicted.jsonl").exists() and (out / "events.jsonl").exists()


def rplay(args: list[str], tmp: Path, **kw: object) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "harness.cli", "run", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)  # type: ignore[call-overload]


def assert_nothing_left(tmp: Path) -> None:
    assert list(tmp.iterdir()) == []
    assert server_pids_under(tmp) == []


@pytest.fixture
def private_tmp(tmp_path: Path) -> Path:
    d = tmp_path / "tmp"
    d.mkdir()
    return d


def test_cli_success_leaves_nothing(mariadb_backend: LocalBackend, private_tmp: Path, tmp_path: Path) -> None:
    wl = tmp_path / "w.sql"
    wl.write_text("-- title: tiny\nCREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\n")
    out = tmp_path / "out"
    p = rplay([str(wl), "--out", str(out), "--set", "binlog_format=ROW"], private_tmp)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    info = json.loads((out / "run.json").read_text())
    assert info["workload_title"] == "tiny" and info["binlog_format"] == "ROW"
    assert set(info["timings"]) == {"pair_ready", "replay", "decode", "replica_check"}
    assert {f.name for f in out.iterdir()} >= {"observed.jsonl", "predicted.jsonl", "events.jsonl",
                                               "replica.json", "run.json"}
    assert_nothing_left(private_tmp)


def test_cli_failed_start_reports_log_tail(mariadb_backend: LocalBackend, private_tmp: Path,
                                           tmp_path: Path) -> None:
    wl = tmp_path / "w.sql"
    wl.write_text("SELECT 1;\n")
    p = rplay([str(wl), "--out", str(tmp_path / "out"), "--server-opt", "no_such_option=1"], private_tmp)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 2
    assert "ServerStartError" in err and "log tail" in err and "no-such-option" in err
    assert "Traceback" not in err
    assert_nothing_left(private_tmp)


def test_cli_bad_workload_path_is_clear(private_tmp: Path, tmp_path: Path) -> None:
    p = rplay([str(tmp_path / "missing.sql"), "--out", str(tmp_path / "out")], private_tmp)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and "cannot read workload" in err and "Traceback" not in err


@pytest.mark.parametrize(("sig", "rc"), [(signal.SIGINT, 130), (signal.SIGTERM, -signal.SIGTERM)])
def test_cli_signal_mid_run_leaves_nothing(mariadb_backend: LocalBackend, private_tmp: Path, tmp_path: Path,
                                           sig: signal.Signals, rc: int) -> None:
    wl = tmp_path / "w.sql"
    wl.write_text("CREATE TABLE t (a INT);\nSELECT SLEEP(60);\n")
    signal_mid_run(rplay([str(wl), "--out", str(tmp_path / "out")], private_tmp), private_tmp, sig, rc)


def signal_mid_run(p: subprocess.Popen[str], private_tmp: Path, sig: signal.Signals, rc: int) -> None:
    """Send ``sig`` once both servers run and the replay started; the process ends with ``rc``, leaving
    nothing under ``private_tmp``."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        binlogs = list(private_tmp.glob("rplay-pair-*/primary/binlog/binlog.000001"))
        if binlogs and binlogs[0].stat().st_size > 400 and len(server_pids_under(private_tmp)) >= 2:
            break
        time.sleep(0.1)
    else:
        p.kill()
        pytest.fail("rplay did not start a pair")
    time.sleep(0.5)
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == rc, err
    assert_nothing_left(private_tmp)


@pytest.mark.parametrize(("sig", "rc"), [(signal.SIGINT, 130), (signal.SIGTERM, -signal.SIGTERM)])
def test_check_signal_mid_run_leaves_nothing(mariadb_backend: LocalBackend, private_tmp: Path, tmp_path: Path,
                                             sig: signal.Signals, rc: int) -> None:
    """``rplay check --server`` keeps its run directories under the pair's own (without --out), so a SIGTERM,
    which kills the process once the pairs are stopped, leaves no ``rplay-check-*`` directory behind."""
    wl = tmp_path / "w.sql"
    wl.write_text("-- title: slow\nCREATE TABLE t (a INT);\nSELECT SLEEP(60);\n")
    env = {**os.environ, "TMPDIR": str(private_tmp), "PYTHONPATH": str(REPO)}
    p = subprocess.Popen([sys.executable, "-m", "harness.cli", "check", str(wl), "--server", "local:mariadb"],
                         cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    signal_mid_run(p, private_tmp, sig, rc)
