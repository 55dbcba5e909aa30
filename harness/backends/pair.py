"""What local and docker pairs share: a registry of live pairs for exit/signal cleanup, and the pair's
lifecycle (reset through ``topology``, an idempotent ``close`` that always removes the pair's directory)."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import TypeVar

from harness.backends.base import Server
from harness.topology import reset_pair
from predictor.exceptions import ServerError, ServerStartError

P = TypeVar("P")


def free_port() -> int:
    """A loopback port free right now (start_with_retries covers one taken before the server binds it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_with_retries(start: Callable[[Mapping[str, str]], P], server_opts: Mapping[str, str] | None) -> P:
    """``start(opts)``, again (up to three tries) when a free port was taken before the server bound it."""
    opts = dict(server_opts or {})
    for attempt in range(3):
        try:
            return start(opts)
        except ServerStartError as e:
            if attempt == 2 or "already in use" not in str(e):
                raise
    raise AssertionError("unreachable")


@contextlib.contextmanager
def ctrl_c_deferred() -> Iterator[None]:
    """Hold Ctrl-C until the block is done, then raise it: a second Ctrl-C while containers or server
    processes are being removed must not leave them behind (seen: a container stopped but not removed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        got.append(signum)

    try:
        prev = signal.signal(signal.SIGINT, hold)
    except ValueError:  # not the main interpreter
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, prev)
    if got:
        raise KeyboardInterrupt


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM for a few statements that must happen together (a directory made and
    registered for cleanup); a signal that arrives meanwhile is delivered when the block ends."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # no sigmask on this platform
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


class Registry:
    """Pairs not yet closed, and directories made for pairs not yet built, so atexit and signal handlers
    can remove them."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._live: set[PairBase] = set()
        self._roots: set[Path] = set()
        self._making: threading.Thread | None = None  # the thread between mkdtemp and registering its root
        self._close_pending = False

    def make_root(self, prefix: str, base: str | None = None) -> Path:
        """A new temp directory for a pair: removed by close_all until the pair that owns it registers
        (a signal between the two would otherwise leave it behind).

        Blocking the signals is not enough: another thread that does not block them takes the signal and
        the handler still runs here, in the main thread, between any two bytecodes (a CI failure). So a
        close_all the handler calls meanwhile is deferred to the end of this block."""
        with signals_held(), self.lock:
            self._making = threading.current_thread()
            try:
                root = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
                self._roots.add(root)
            finally:
                self._making = None
                pending, self._close_pending = self._close_pending, False
                if pending:
                    self.close_all()
        return root

    def add(self, pair: PairBase) -> None:
        with self.lock:
            self._live.add(pair)
            self._roots.discard(pair.root)

    def discard(self, pair: PairBase) -> None:
        with self.lock:
            self._live.discard(pair)

    def close_all(self) -> None:
        with self.lock:
            if self._making is threading.current_thread():  # a handler interrupting make_root: see there
                self._close_pending = True
                return
            pairs = list(self._live)
            roots = list(self._roots)
            self._roots.clear()
        for p in pairs:
            p.close()
        for r in roots:
            shutil.rmtree(r, ignore_errors=True)


BUILD_STEP_WAIT = 120.0
"""How long close() waits for a start step another thread is taking (a template copied, a container run)."""


class PairBase:
    """A primary and a replica; subclasses say how their servers stop (``_stop_servers``)."""

    def __init__(self, root: Path, primary: Server, replica: Server, timeout: float, registry: Registry) -> None:
        self.root = root
        self.primary: Server = primary  # typed as the Protocol: Pair's attributes are invariant
        self.replica: Server = replica
        self.timeout = timeout
        self._registry = registry
        self._closed = False
        self._close_lock = threading.Lock()
        self._build = threading.RLock()  # held by a step that writes into root while the pair is started
        registry.add(self)

    @contextlib.contextmanager
    def building(self) -> Iterator[None]:
        """One step of starting the pair (a data dir copied, a server spawned): close() waits for it, so a
        step another thread is taking when a signal closes every pair does not write the root again after
        it was removed (a leak seen when SIGTERM stopped ``rplay demo --workers 3``); a step after close()
        raises ServerError."""
        with self._build:
            if self._closed:
                raise ServerError("the pair was closed while it was being started")
            yield

    def reset(self) -> None:
        reset_pair(self.primary, self.replica, timeout=self.timeout)

    def _stop_servers(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        with ctrl_c_deferred():
            waited = self._build.acquire(timeout=BUILD_STEP_WAIT)  # (same thread: re-entered at once)
            try:
                self._stop_servers()
            finally:
                shutil.rmtree(self.root, ignore_errors=True)
                self._registry.discard(self)
                if waited:
                    self._build.release()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> PairBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
