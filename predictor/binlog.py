"""The predicted binary log: groups in the order they reach the file, and per-statement builders that
become StatementRecords once every transaction has ended."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from predictor.records import Cache as RCache
from predictor.records import Format, RowEvent, RowType, StatementRecord
from predictor.session import Cache, Piece

ColumnOrder = Callable[[str], tuple[str, ...] | None]  # a table's column names in table order (None: unknown)


@dataclass(slots=True)
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
    unsafe_noted: bool = False  # the 1592 note stands although nothing was logged (a CALL's failed statement)
    steps: dict[tuple[str, str], int] = field(default_factory=dict)  # Piece.step of each row event's first piece

    def written(self, piece: Piece, cache: Cache, group: int, order: ColumnOrder | None = None) -> None:
        if self.group is None:
            self.group = group
        if cache not in self.caches:
            self.caches.append(cache)
        if piece.rows:
            self.row_caches.add(cache)
            # one statement's pieces of a table: its trigger statements, in IF branches of which only one may
            # run, write it with other columns; the first is kept. Those of two statements of a CALL's body
            # that a COMMIT writes together have the columns of both (images_twice.sql, call_images_commit.sql)
            key = (piece.table, piece.type)
            event = RowEvent(piece.table, RowType(piece.type), piece.before, piece.after)
            if key not in self.row_events:
                self.row_events[key] = event
                self.steps[key] = piece.step
            elif piece.step != self.steps.get(key, 0):
                self.add_event(event, order)
                self.steps[key] = piece.step
        else:
            self.wrote_query = True

    def add_event(self, e: RowEvent, order: ColumnOrder | None) -> None:
        """A CALL's statement's row event: one (table, type) two of its statements write with other columns
        has the columns of both, in table order, as the harness reads them."""
        key = (e.table, e.type.value)
        old = self.row_events.get(key)
        if old is None:
            self.row_events[key] = e
        elif (old.before, old.after) != (e.before, e.after):
            names = order(e.table) if order is not None else None
            self.row_events[key] = RowEvent(e.table, e.type, _union(old.before, e.before, names),
                                            _union(old.after, e.after, names))

    def record(self, shapes: dict[tuple[object, ...], StatementRecord] | None = None) -> StatementRecord:
        """The statement's record. With ``shapes``, a record that differs from an earlier one only in
        seq, session, sql and group is copied from it instead of built (and sorted) again."""
        if self.unknown or shapes is None:
            return self._build()
        key = (self.error, tuple(self.warnings), tuple(self.unsafe), self.group is None, tuple(self.caches),
               tuple(self.row_events.values()), self.reason, self.unsafe_noted)
        shape = shapes.get(key)
        if shape is None:
            rec = self._build()
            if len(shapes) < 10_000:
                shapes[key] = rec
            return rec
        return copy_record(shape, self.seq, self.session, self.sql, self.group)

    def _build(self) -> StatementRecord:
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
        if 1592 in warnings and (self.group is None or fmt is not Format.STATEMENT) and not self.unsafe_noted:
            warnings.discard(1592)  # the unsafe note is only issued when the statement is logged as one
        return StatementRecord(self.seq, self.session, self.sql, self.error, tuple(warnings),
                               tuple(self.unsafe), fmt, cache, self.group, tuple(self.row_events.values()),
                               self.reason)


_new = object.__new__
_set = object.__setattr__


def copy_record(shape: StatementRecord, seq: int, session: str, sql: str, group: int | None) -> StatementRecord:
    """``shape`` with another seq, session, sql and group: its fields are already normalised (sorted,
    distinct), so the frozen dataclass's __init__/__post_init__ are skipped (a third of the cost of a
    template workload's statement otherwise)."""
    rec: StatementRecord = _new(StatementRecord)
    fields = shape.__dict__.copy()
    fields["seq"], fields["session"], fields["sql"], fields["group"] = seq, session, sql, group
    _set(rec, "__dict__", fields)
    return rec


def _union(a: tuple[str, ...], b: tuple[str, ...], names: tuple[str, ...] | None) -> tuple[str, ...]:
    """The columns of two images of one table, in table order (``names``; unknown: ``a``'s, then ``b``'s)."""
    if set(b) <= set(a):
        return a
    both = set(a) | set(b)
    if names is not None and both <= set(names):
        return tuple(c for c in names if c in both)
    return a + tuple(c for c in b if c not in a)


class Binlog:
    """Counts groups as they are flushed and tells each piece's statement where it landed. ``order`` gives a
    table's column names in table order (for a statement's two images of one table)."""

    def __init__(self, cached: bool = True, order: ColumnOrder | None = None) -> None:
        self.order = order
        self.groups = 0
        self.builders: dict[int, Builder] = {}  # statements that may still be written to
        self.done: list[StatementRecord] = []  # records of statements that no longer can
        # record shapes: statements of one template in one state differ only in seq, sql and group
        self.shapes: dict[tuple[object, ...], StatementRecord] | None = {} if cached else None

    def finalize(self, seq: int) -> None:
        """Statement ``seq`` can receive no more pieces: turn its builder into its record now, so a long
        workload keeps one small record per statement instead of a builder and its five containers."""
        b = self.builders.pop(seq, None)
        if b is not None:
            self.done.append(b.record(self.shapes))

    def records(self) -> list[StatementRecord]:
        """Every statement's record (finalized ones first, then the rest in builder order)."""
        return self.done + [b.record(self.shapes) for b in self.builders.values()]

    def flush(self, pieces: list[Piece], cache: Cache) -> int | None:
        return self.flush_together([(pieces, cache)])

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
                    b.written(p, cache, g, self.order)
        return g

    def write_together(self, b: Builder, parts: list[tuple[tuple[Piece, ...], Cache]]) -> None:
        """write() of several caches as one group (MariaDB: both caches of one commit)."""
        g = self.groups
        self.groups += 1
        for pieces, cache in parts:
            for p in pieces:
                b.written(p, cache, g, self.order)

    def write(self, b: Builder, pieces: tuple[Piece, ...], cache: Cache) -> None:
        """flush() of pieces that all belong to statement ``b`` (whatever their seq says)."""
        self.write_together(b, [(pieces, cache)])
