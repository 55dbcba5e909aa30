"""One rooted exception hierarchy for rplay, with context attached (like httpx's ``_exceptions``).

Every error a user can cause or meet ends as an ``RplayError``; the CLI prints ``str(err)`` and exits 2,
never a traceback.
"""

from __future__ import annotations


class RplayError(Exception):
    """Root of every rplay error. ``statement`` and ``server`` say where it happened, when known."""

    def __init__(self, message: str, *, statement: str | None = None, server: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.statement = statement
        self.server = server

    def __str__(self) -> str:
        parts = [self.message]
        if self.server:
            parts.append(f"[server: {self.server}]")
        if self.statement:
            s = self.statement if len(self.statement) <= 200 else self.statement[:197] + "..."
            parts.append(f"[statement: {s}]")
        return " ".join(parts)


class UsageError(RplayError):
    """Bad command-line input: unknown profile, malformed --set, missing file."""


class WorkloadError(RplayError):
    """A workload file that cannot be read at all (a bad statement is UNKNOWN, not this)."""


class ProfileError(UsageError):
    """Unknown server profile or a bad engine profile file."""


class ServerError(RplayError):
    """Something went wrong with a real server."""


class ServerStartError(ServerError):
    """A server did not start; ``log_tail`` holds the end of its error log."""

    def __init__(self, message: str, *, log_tail: str = "", server: str | None = None) -> None:
        super().__init__(message + (f"\n--- log tail ---\n{log_tail}" if log_tail else ""), server=server)
        self.log_tail = log_tail


class ServerGoneError(ServerError):
    """The server died or the connection was lost mid-run."""


class ReplicaError(ServerError):
    """The replica stopped with an error."""


class ReplicaTimeout(ReplicaError):
    """The replica did not catch up within the timeout."""


class BinlogError(RplayError):
    """A binary log could not be read or decoded."""


class ImageBuildError(RplayError):
    """A container image could not be built."""


class CompareError(RplayError):
    """The comparison's input is missing or malformed."""
