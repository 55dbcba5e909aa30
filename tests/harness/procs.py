"""Process-list helpers for the leak checks of the harness tests."""

from __future__ import annotations

from pathlib import Path


def server_pids_under(path: Path) -> list[int]:
    """PIDs of processes whose command line mentions ``path`` (servers keep their dirs in argv)."""
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(path) in cmd:
            out.append(int(p.name))
    return out
