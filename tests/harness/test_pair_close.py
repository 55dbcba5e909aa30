"""A pair's close() runs to the end when Ctrl-C arrives during it, then raises the Ctrl-C.

No server is judged here: the servers are stand-ins whose removal takes a while, so that the signal lands
while they are being removed (the way a stopped but not removed container was left behind once).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import cast

import pytest

from harness.backends.base import Server
from harness.backends.pair import PairBase, Registry


class SlowPair(PairBase):
    def __init__(self, root: Path, registry: Registry) -> None:
        super().__init__(root, cast(Server, None), cast(Server, None), 1.0, registry)
        self.removed: list[str] = []

    def _stop_servers(self) -> None:
        for role in ("primary", "replica"):
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, twice, while the servers go
            self.removed.append(role)


def test_ctrl_c_during_close_removes_everything_then_interrupts(tmp_path: Path) -> None:
    root = tmp_path / "pair"
    root.mkdir()
    registry = Registry()
    pair = SlowPair(root, registry)
    before = signal.getsignal(signal.SIGINT)  # the local backend may have installed its own
    with pytest.raises(KeyboardInterrupt):
        pair.close()
    assert pair.removed == ["primary", "replica"]
    assert not root.exists()
    assert signal.getsignal(signal.SIGINT) is before
    registry.close_all()  # nothing left to close: the pair left the registry
    assert pair.removed == ["primary", "replica"]


def test_close_without_ctrl_c_raises_nothing(tmp_path: Path) -> None:
    class QuietPair(SlowPair):
        def _stop_servers(self) -> None:
            self.removed.append("both")

    pair = QuietPair(tmp_path, Registry())
    pair.close()
    pair.close()  # idempotent
    assert pair.removed == ["both"]
