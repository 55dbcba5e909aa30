"""A one-line progress display on stderr, shown only on a terminal and redrawn at most 10 times a second."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``update(done, total)`` redraws ``label done/total (pct) elapsed``; ``close()`` erases the line."""

    def __init__(self, label: str, stream: TextIO | None = None, *, enabled: bool | None = None,
                 interval: float = 0.1) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.interval = interval
        self.started: float | None = None  # set by the first update: elapsed time of this phase
        self._last = float("-inf")  # the first update always draws
        self._drawn = False

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.started is None:
            self.started = now
        if now - self._last < self.interval and done < total:
            return
        self._last = now
        pct = f" ({100 * done // total}%)" if total else ""
        self.stream.write(f"\r{self.label} {done}/{total}{pct} {now - self.started:.1f}s\x1b[K")
        self.stream.flush()
        self._drawn = True

    def note(self, text: str) -> None:
        """Show a phase name (``starting pair``, ``decoding binlog``...)."""
        if not self.enabled:
            return
        self.stream.write(f"\r{text}\x1b[K")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self.enabled and self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
