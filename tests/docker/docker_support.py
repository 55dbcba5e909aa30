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


SESSION = os.environ.setdefault("RPLAY_DOCKER_SESSION", f"pytest-{os.getpid()}")
"""Containers started by this test run (and its subprocesses) carry this label value."""


def leaked() -> tuple[list[str], list[str]]:
    """Containers and pair temp dirs of this test run that exist right now."""
    r = subprocess.run(["docker", "ps", "-a", "--filter", f"label=org.rplay.session={SESSION}",
                        "--format", "{{.Names}}"], capture_output=True, text=True, timeout=30)
    tmp = os.environ.get("RPLAY_TMPDIR") or tempfile.gettempdir()  # conftest gives each run its own
    return r.stdout.split(), glob.glob(os.path.join(tmp, "rplay-docker-*"))
