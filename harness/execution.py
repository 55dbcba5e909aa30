"""What replay saw for one statement, before the binlog is read back.

``replay`` produces these; ``observe`` joins them with decoded binlog events into StatementRecords.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Level(str, Enum):
    NOTE = "Note"
    WARNING = "Warning"
    ERROR = "Error"


@dataclass(frozen=True)
class ServerMessage:
    level: Level
    code: int
    message: str


@dataclass(frozen=True)
class Execution:
    """One statement as executed. ``thread_id`` is the session's CONNECTION_ID() on the server it ran on.

    ``unsafe`` holds the reason names behind each 1592 note. ``trx_cache_use``/``stmt_cache_use`` are the
    deltas of Binlog_cache_use / Binlog_stmt_cache_use across the statement, or None when not measured.
    ``binlog_end`` is the primary's binlog (file, position) right after the statement returned: every group
    ending at or before it was written by then (``observe`` uses it as a fence), None when not measured.
    ``warnings_unread``: the statement reported warnings that were not read, because SHOW WARNINGS would have
    reset ROW_COUNT() for the session's next statement, which reads it (``messages`` is then empty).
    """

    seq: int
    session: str
    sql: str
    thread_id: int
    replica_only: bool = False
    error: int | None = None
    error_message: str | None = None
    messages: tuple[ServerMessage, ...] = ()
    unsafe: tuple[str, ...] = ()
    trx_cache_use: int | None = None
    stmt_cache_use: int | None = None
    elapsed: float = 0.0
    binlog_end: tuple[str, int] | None = None
    warnings_unread: bool = False

    @property
    def warning_codes(self) -> tuple[int, ...]:
        """Sorted distinct warning/note codes other than the error's own (the record's ``warnings``)."""
        return tuple(sorted({m.code for m in self.messages if m.code != self.error}))
