"""A throwaway standalone Spark master + worker on 127.0.0.1, always stopped and removed."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyspark


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"spark daemon exited {proc.returncode}: {log.read_text()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise TimeoutError(f"port {port} not open after {timeout}s: {log.read_text()[-2000:]}")


def _wait_worker_registered(log: Path, proc: subprocess.Popen[bytes], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited {proc.returncode}: {log.read_text()[-2000:]}")
        if "Successfully registered with master" in log.read_text(errors="replace"):
            return
        time.sleep(0.3)
    raise TimeoutError(f"worker did not register: {log.read_text()[-2000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


@contextmanager
def standalone_cluster(cores: int = 2, memory: str = "1g") -> Iterator[str]:
    """Yield ``spark://127.0.0.1:PORT`` of a fresh master with one worker; both die on exit."""
    spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
    work = Path(tempfile.mkdtemp(prefix="rplay-spark-cluster-"))
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(work),
           "SPARK_WORKER_DIR": str(work / "worker"), "PYSPARK_PYTHON": sys.executable,
           "SPARK_HOME": str(Path(pyspark.__file__).parent)}
    port, ui, wport, wui = free_port(), free_port(), free_port(), free_port()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        mlog = work / "master.log"
        with open(mlog, "wb") as out:
            procs.append(subprocess.Popen(
                [str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                 "--port", str(port), "--webui-port", str(ui)],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        _wait_port(port, procs[0], mlog)
        url = f"spark://127.0.0.1:{port}"
        wlog = work / "worker.log"
        with open(wlog, "wb") as out:
            procs.append(subprocess.Popen(
                [str(spark_class), "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                 "--port", str(wport), "--webui-port", str(wui), "--cores", str(cores), "--memory", memory,
                 "--work-dir", str(work / "worker"), url],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        _wait_worker_registered(wlog, procs[1])
        yield url
    finally:
        for p in reversed(procs):
            _stop(p)
        shutil.rmtree(work, ignore_errors=True)
