"""The one record schema shared by predicted and observed statements.

The predictor writes these, the harness writes these from what the server did, and the comparison joins
the two by ``seq``. Keep it frozen and JSON-round-trippable: it is the project's contract.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any


class Format(str, Enum):
    STATEMENT = "STATEMENT"  # only query events
    ROW = "ROW"  # at least one row event
    NONE = "NONE"  # nothing written
    UNKNOWN = "UNKNOWN"  # cannot say (see ``reason``)


class Cache(str, Enum):
    TRX = "trx"
    STMT = "stmt"
    DIRECT = "direct"
    NONE = "none"
    MIXED = "mixed"  # row events went to both caches


class RowType(str, Enum):
    WRITE = "write"
    UPDATE = "update"
    DELETE = "delete"


@dataclass(frozen=True, order=True)
class RowEvent:
    """One (table, type) of row events of a statement, with the columns of its images."""

    table: str
    type: RowType
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table, "type": self.type.value, "before": list(self.before),
                "after": list(self.after)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RowEvent:
        return cls(str(d["table"]), RowType(d["type"]), tuple(d.get("before") or ()),
                   tuple(d.get("after") or ()))


@dataclass(frozen=True)
class StatementRecord:
    """What one workload statement did (or will do) to the binary log.

    ``warnings`` and ``unsafe`` are sorted and distinct; ``row_events`` is sorted by (table, type).
    ``group`` counts binlog groups (GTID unit / BEGIN..COMMIT / lone DDL) since the workload began.
    ``warnings_unread`` (observed only): the server reported warnings rplay did not read, because SHOW
    WARNINGS would have reset ROW_COUNT() for the session's next statement, which reads it; ``warnings``
    and ``unsafe`` are then not known (the comparison excludes them).
    """

    seq: int
    session: str
    sql: str
    error: int | None = None
    warnings: tuple[int, ...] = ()
    unsafe: tuple[str, ...] = ()
    format: Format = Format.NONE
    cache: Cache = Cache.NONE
    group: int | None = None
    row_events: tuple[RowEvent, ...] = ()
    reason: str | None = None
    warnings_unread: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", tuple(sorted(set(self.warnings))))
        object.__setattr__(self, "unsafe", tuple(sorted(set(self.unsafe))))
        object.__setattr__(self, "row_events", tuple(sorted(self.row_events)))

    @property
    def unsafe_observable(self) -> bool:
        """A server reports unsafe reasons (note 1592) only for statements it logs as statements."""
        return self.format is Format.STATEMENT or 1592 in self.warnings

    @property
    def reported_unsafe(self) -> tuple[str, ...]:
        """The unsafe reasons a server shows for this record (empty when it does not report them)."""
        return self.unsafe if self.unsafe_observable else ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seq": self.seq,
            "session": self.session,
            "sql": self.sql,
            "error": self.error,
            "warnings": list(self.warnings),
            "unsafe": list(self.unsafe),
            "format": self.format.value,
            "cache": self.cache.value,
            "group": self.group,
            "row_events": [e.to_dict() for e in self.row_events],
            "reason": self.reason,
        }
        if self.warnings_unread:
            out["warnings_unread"] = True  # (absent otherwise: the usual record keeps its form)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> StatementRecord:
        return cls(
            seq=int(d["seq"]),
            session=str(d.get("session", "default")),
            sql=str(d.get("sql", "")),
            error=None if d.get("error") is None else int(d["error"]),
            warnings=tuple(int(w) for w in d.get("warnings") or ()),
            unsafe=tuple(str(u) for u in d.get("unsafe") or ()),
            format=Format(d.get("format", "NONE")),
            cache=Cache(d.get("cache", "none")),
            group=None if d.get("group") is None else int(d["group"]),
            row_events=tuple(RowEvent.from_dict(e) for e in d.get("row_events") or ()),
            reason=d.get("reason"),
            warnings_unread=bool(d.get("warnings_unread")),
        )

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))


DIMENSIONS: tuple[str, ...] = ("error", "warnings", "unsafe", "format", "cache", "group", "row_events")
"""The statement dimensions that predicted and observed records are scored on."""


def write_jsonl(path: Path | str, records: Iterable[StatementRecord]) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(r.dumps())
            f.write("\n")
            n += 1
    return n


def iter_jsonl(path: Path | str) -> Iterator[StatementRecord]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield StatementRecord.from_dict(json.loads(line))


def read_jsonl(path: Path | str) -> list[StatementRecord]:
    return list(iter_jsonl(path))


__all__ = ["DIMENSIONS", "Cache", "Format", "RowEvent", "RowType", "StatementRecord", "field",
           "iter_jsonl", "read_jsonl", "write_jsonl"]
