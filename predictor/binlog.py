"""The predicted binary log: groups in the order they reach the file, and per-statement builders that
become StatementRecords once every transaction has ended."""

from __future__ import annotations

from dataclasses import dataclass, field

from predictor.records import Cache as RCache
from predictor.records import Format, RowEvent, RowType, StatementRecord
from predictor.session import Cache, Piece


@dataclass
class Builder:
    seq: int
    session: str
    sql: str
    error: int | None = None
    warnings: set[int] = field(default_factory=set)
    unsafe: set[str] = field(default_factory=set)
    reason: str | None = None
    group: int | None = None
    wrote_query: bool = False
    row_events: dict[tuple[str, str], RowEvent] = field(default_factory=dict)
    caches: list[Cache] = field(default_factory=list)
    row_caches: set[Cache] = field(default_factory=set)
    unknown: bool = False

    def written(self, piece: Piece, cache: Cache, group: int) -> None:
        if self.group is None:
            self.group = group
        if cache not in self.caches:
            self.caches.append(cache)
        if piece.rows:
            self.row_caches.add(cache)
            key = (piece.table, piece.type)
            if key not in self.row_events:
                self.row_events[key] = RowEvent(piece.table, RowType(piece.type), piece.before, piece.after)
        else:
            self.wrote_query = True

    def record(self) -> StatementRecord:
        if self.unknown:
            return StatementRecord(self.seq, self.session, self.sql, format=Format.UNKNOWN,
                                   reason=self.reason or "unknown")
        if self.group is None:
            fmt, cache = Format.NONE, RCache.NONE
        else:
            fmt = Format.ROW if self.row_events else Format.STATEMENT
            if {Cache.TRX, Cache.STMT} <= set(self.caches):
                cache = RCache.MIXED
            else:
                cache = RCache(self.caches[0].value)
        warnings = {w for w in self.warnings if w != self.error}
        if 1592 in warnings and (self.group is None or fmt is not Format.STATEMENT):
            warnings.discard(1592)  # the unsafe note is only issued when the statement is logged as one
        return StatementRecord(self.seq, self.session, self.sql, self.error, tuple(warnings),
                               tuple(self.unsafe), fmt, cache, self.group, tuple(self.row_events.values()),
                               self.reason)


class Binlog:
    """Counts groups as they are flushed and tells each piece's statement where it landed."""

    def __init__(self) -> None:
        self.groups = 0
        self.builders: dict[int, Builder] = {}

    def flush(self, pieces: list[Piece], cache: Cache) -> int | None:
        if not pieces:
            return None
        g = self.groups
        self.groups += 1
        for p in pieces:
            b = self.builders.get(p.seq)
            if b is not None:
                b.written(p, cache, g)
        return g

    def flush_together(self, parts: list[tuple[list[Piece], Cache]]) -> int | None:
        """Several caches written as one group (MariaDB: both caches of one commit)."""
        if not any(pieces for pieces, _ in parts):
            return None
        g = self.groups
        self.groups += 1
        for pieces, cache in parts:
            for p in pieces:
                b = self.builders.get(p.seq)
                if b is not None:
                    b.written(p, cache, g)
        return g
