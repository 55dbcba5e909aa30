"""Helpers shared by the docker tests (imported by name: tests/docker is on sys.path under pytest)."""

from __future__ import annotations

import glob
import os
import subprocess
import tempfile

TARGETS = ("mysql-9.7", "mariadb-11.8")


def engine_error() -> str | None:
    try:
        r = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True,
                           text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as e:
        return str(e)
    return None if r.returncode == 0 else (r.stderr.strip() or "docker info failed")


def leaked() -> tuple[list[str], list[str]]:
    """Containers carrying the rplay label, and rplay temp dirs, that exist right now."""
    r = subprocess.run(["docker", "ps", "-a", "--filter", "label=org.rplay.pair", "--format", "{{.Names}}"],
                       capture_output=True, text=True, timeout=30)
    containers = r.stdout.split()
    tmp = tempfile.gettempdir()
    dirs = glob.glob(os.path.join(tmp, "rplay-docker-*")) + glob.glob("/var/tmp/rplay-rootfs-*")
    return containers, dirs
