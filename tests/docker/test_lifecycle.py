"""Containers come and go cleanly: failed starts report the server's log, bad targets are usage errors,
and a signal to a process holding a pair removes the pair (checked with ``docker ps -a``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from docker_support import SESSION, TARGETS, leaked

from harness.backends.docker import DockerBackend, leftover_containers
from predictor.exceptions import ServerStartError, UsageError

pytestmark = pytest.mark.docker


@pytest.mark.parametrize("target", TARGETS)
def test_failed_start_reports_log_tail_and_leaks_nothing(target: str, built_images: object) -> None:
    with pytest.raises(ServerStartError) as info:
        DockerBackend(target, timeout=30).start_pair({"rplay_no_such_option": "1"})
    assert "rplay" in info.value.log_tail and "no-such-option" in info.value.log_tail.replace("_", "-")
    assert leftover_containers(SESSION) == []


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
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, "mariadb-11.8"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2],
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "ready", proc.stderr.read() if proc.stderr else ""
        assert len(leftover_containers(SESSION)) == 2
        proc.send_signal(getattr(signal, signame))
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    containers, dirs = leaked()
    assert containers == [] and dirs == []


def test_any_image_reference_works(built_images: object) -> None:
    """An image given by reference (as a user's mysql:8.4 would be), with a name that does not reveal its
    flavour: the backend finds the server inside and starts a pair with it."""
    subprocess.run(["docker", "tag", "rplay/mariadb:11.8", "rplay-test/neutral:1"], check=True)
    try:
        backend = DockerBackend("rplay-test/neutral:1")
        with backend.start_pair({}) as pair:
            assert pair.primary.flavor.value == "mariadb"
            assert pair.replica.version.startswith("11.8.")
            assert pair.primary.binlog_tool()[-1].endswith("mariadb-binlog")
    finally:
        subprocess.run(["docker", "rmi", "rplay-test/neutral:1"], capture_output=True)


@pytest.mark.parametrize("delay", [0.5, 1.5, 3.0])
def test_ctrl_c_during_start_leaks_nothing(delay: float, built_images: object) -> None:
    """Ctrl-C at any moment of a start (copying, creating containers, waiting) leaves nothing behind."""
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, "mysql-9.7"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, cwd=root,
                            env={**os.environ, "PYTHONPATH": str(root)})
    try:
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    containers, dirs = leaked()
    assert containers == [] and dirs == [], proc.stderr.read() if proc.stderr else ""
