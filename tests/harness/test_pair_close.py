"""A pair's close() runs to the end when Ctrl-C arrives during it, then raises the Ctrl-C.

No server is judged here: the servers are stand-ins whose removal takes a while, so that the signal lands
while they are being removed (the way a stopped but not removed container was left behind once).
"""

from __future__ import annotations

import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import cast

import pytest

from harness.backends.base import Server
from harness.backends.pair import PairBase, Registry
from predictor.exceptions import ServerError


class SlowPair(PairBase):
    def __init__(self, root: Path, registry: Registry) -> None:
        super().__init__(root, cast(Server, None), cast(Server, None), 1.0, registry)
        self.removed: list[str] = []

    def _stop_servers(self) -> None:
        for role in ("primary", "replica"):
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)  # Ctrl-C, twice, as they go
            self.removed.append(role)


class QuietPair(SlowPair):
    def _stop_servers(self) -> None:
        self.removed.append("both")


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
    pair = QuietPair(tmp_path, Registry())
    pair.close()
    pair.close()  # idempotent
    assert pair.removed == ["both"]


def test_a_root_made_for_a_pair_is_removed_at_exit_until_the_pair_owns_it(tmp_path: Path) -> None:
    registry = Registry()
    orphan = registry.make_root("rplay-test-", str(tmp_path))  # a signal came before its pair was built
    owned = registry.make_root("rplay-test-", str(tmp_path))
    pair = QuietPair(owned, registry)
    assert orphan.is_dir() and owned.is_dir()
    registry.close_all()  # what atexit and the SIGTERM handler run
    assert not orphan.exists() and not owned.exists()
    assert pair.removed == ["both"]


def test_sigterm_while_a_root_is_made_is_delivered_after_it_is_registered(tmp_path: Path) -> None:
    registry = Registry()
    seen: list[bool] = []

    def on_term(signum: int, frame: object) -> None:
        seen.append(any(p.name.startswith("rplay-test-") for p in tmp_path.iterdir()))
        registry.close_all()

    prev = signal.signal(signal.SIGTERM, on_term)
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp_then_term(*args: object, **kw: object) -> str:
        made = real_mkdtemp(*args, **kw)  # type: ignore[call-overload]
        # to the main thread: a signal to the process may be taken by another thread (see the next test)
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)
        return str(made)

    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(tempfile, "mkdtemp", mkdtemp_then_term)
            registry.make_root("rplay-test-", str(tmp_path))
    finally:
        signal.signal(signal.SIGTERM, prev)
    assert seen == [True]  # the handler ran once the directory existed ...
    assert list(tmp_path.iterdir()) == []  # ... and removed it


def test_a_handler_running_while_a_root_is_made_closes_it_once_registered(tmp_path: Path) -> None:
    """What happens when a thread that does not block SIGTERM took the signal: the handler runs in the main
    thread between making the directory and registering it (a CI failure), and its close_all is deferred."""
    registry = Registry()
    real_mkdtemp = tempfile.mkdtemp
    made: list[Path] = []

    def mkdtemp_then_handler(*args: object, **kw: object) -> str:
        made.append(Path(real_mkdtemp(*args, **kw)))  # type: ignore[call-overload]
        registry.close_all()  # what the SIGTERM handler calls
        assert made[0].is_dir()  # not yet: the root is not registered
        return str(made[0])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tempfile, "mkdtemp", mkdtemp_then_handler)
        root = registry.make_root("rplay-test-", str(tmp_path))
    assert root == made[0]
    assert not root.exists() and list(tmp_path.iterdir()) == []
    registry.close_all()  # nothing left pending
    assert list(tmp_path.iterdir()) == []


def test_close_all_waits_for_a_start_step_another_thread_is_taking(tmp_path: Path) -> None:
    """A signal closes every pair while a worker thread copies a data dir into one: close() waits for that
    step, then removes the root, and the worker's next step fails; nothing is left behind."""
    registry = Registry()
    root = registry.make_root("rplay-test-", str(tmp_path))
    pair = QuietPair(root, registry)
    in_step, outcome = threading.Event(), []

    def start() -> None:
        try:
            with pair.building():
                in_step.set()
                time.sleep(0.3)  # still copying when the signal's close_all runs
                (root / "primary").mkdir()
                (root / "primary" / "ibdata1").write_text("x")
            with pair.building():
                (root / "replica").mkdir()
        except ServerError as e:
            outcome.append(str(e))

    worker = threading.Thread(target=start)
    worker.start()
    assert in_step.wait(5)
    registry.close_all()
    worker.join(5)
    assert outcome == ["the pair was closed while it was being started"]
    assert not root.exists() and list(tmp_path.iterdir()) == []
    assert pair.removed == ["both"]
