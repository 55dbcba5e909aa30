"""Typed binlog events: the subset of the MySQL/MariaDB binary log format rplay needs.

Every event knows where it is (file, pos, end_pos) so it can be compared with ``mariadb-binlog`` output
and written to ``events.jsonl``. Row events carry counts and column sets, never row values.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum, IntEnum, StrEnum
from typing import Any


class EventType(IntEnum):
    """Event type codes (MySQL ``binlog_event.h`` and MariaDB ``log_event.h``)."""

    START_V3 = 1
    QUERY = 2
    STOP = 3
    ROTATE = 4
    INTVAR = 5
    RAND = 13
    USER_VAR = 14
    FORMAT_DESCRIPTION = 15
    XID = 16
    BEGIN_LOAD_QUERY = 17
    EXECUTE_LOAD_QUERY = 18
    TABLE_MAP = 19
    WRITE_ROWS_V0 = 20
    UPDATE_ROWS_V0 = 21
    DELETE_ROWS_V0 = 22
    WRITE_ROWS_V1 = 23
    UPDATE_ROWS_V1 = 24
    DELETE_ROWS_V1 = 25
    INCIDENT = 26
    HEARTBEAT = 27
    IGNORABLE = 28
    ROWS_QUERY = 29
    WRITE_ROWS = 30
    UPDATE_ROWS = 31
    DELETE_ROWS = 32
    GTID = 33
    ANONYMOUS_GTID = 34
    PREVIOUS_GTIDS = 35
    TRANSACTION_CONTEXT = 36
    VIEW_CHANGE = 37
    XA_PREPARE = 38
    PARTIAL_UPDATE_ROWS = 39
    TRANSACTION_PAYLOAD = 40
    HEARTBEAT_V2 = 41
    GTID_TAGGED = 42
    ANNOTATE_ROWS = 160
    BINLOG_CHECKPOINT = 161
    MARIADB_GTID = 162
    GTID_LIST = 163
    START_ENCRYPTION = 164
    QUERY_COMPRESSED = 165
    WRITE_ROWS_COMPRESSED_V1 = 166
    UPDATE_ROWS_COMPRESSED_V1 = 167
    DELETE_ROWS_COMPRESSED_V1 = 168
    WRITE_ROWS_COMPRESSED = 169
    UPDATE_ROWS_COMPRESSED = 170
    DELETE_ROWS_COMPRESSED = 171


class RowsKind(StrEnum):
    WRITE = "write"
    UPDATE = "update"
    DELETE = "delete"


class QueryKind(StrEnum):
    """What a Query event is for group structure: a boundary (BEGIN/COMMIT/ROLLBACK) or content."""

    BEGIN = "BEGIN"
    COMMIT = "COMMIT"
    ROLLBACK = "ROLLBACK"
    CONTENT = "CONTENT"


@dataclass(frozen=True, slots=True)
class Event:
    """Common header. ``end_pos`` is the header's log_pos (the next event's position)."""

    file: str
    pos: int
    end_pos: int
    type_code: int
    timestamp: int
    server_id: int

    @property
    def name(self) -> str:
        try:
            return EventType(self.type_code).name
        except ValueError:
            return f"UNKNOWN_{self.type_code}"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"event": type(self).__name__}
        for f in fields(self):
            v = getattr(self, f.name)
            d[f.name] = v.value if isinstance(v, Enum) else list(v) if isinstance(v, tuple) else v
        return d


@dataclass(frozen=True, slots=True)
class FormatDescription(Event):
    binlog_version: int
    server_version: str
    checksum: bool


@dataclass(frozen=True, slots=True)
class Rotate(Event):
    next_file: str
    next_pos: int


@dataclass(frozen=True, slots=True)
class Stop(Event):
    pass


@dataclass(frozen=True, slots=True)
class Gtid(Event):
    """MySQL GTID/anonymous/tagged GTID or MariaDB GTID; MariaDB's ``flags`` say standalone (DDL) or not.

    ``gtid`` is the text ``mysqlbinlog`` / ``mariadb-binlog`` print: ``UUID:N``, ``UUID:TAG:N`` (MySQL 8.4+
    tagged), ``ANONYMOUS``, or ``DOMAIN-SERVER-SEQ``."""

    gtid: str
    flags: int
    standalone: bool

    # MariaDB Gtid_log_event flags2
    FL_STANDALONE = 1
    FL_GROUP_COMMIT_ID = 2
    FL_TRANSACTIONAL = 4
    FL_ALLOW_PARALLEL = 8
    FL_WAITED = 16
    FL_DDL = 32
    FL_PREPARED_XA = 64
    FL_COMPLETED_XA = 128


@dataclass(frozen=True, slots=True)
class Query(Event):
    thread_id: int
    exec_time: int
    error_code: int
    schema: str
    text: str

    @property
    def kind(self) -> QueryKind:
        return query_kind(self.text)


@dataclass(frozen=True, slots=True)
class Xid(Event):
    xid: int


@dataclass(frozen=True, slots=True)
class RowsQuery(Event):
    """MariaDB Annotate_rows or MySQL Rows_query: the text of the statement behind the next row events."""

    text: str


@dataclass(frozen=True, slots=True)
class TableMap(Event):
    table_id: int
    schema: str
    table: str
    column_types: tuple[int, ...]
    column_meta: tuple[int, ...]
    column_names: tuple[str, ...] | None  # only with binlog_row_metadata=FULL


@dataclass(frozen=True, slots=True)
class Rows(Event):
    """Write/Update/Delete rows (v0/v1/v2, MySQL partial update, MariaDB compressed)."""

    kind: RowsKind
    table_id: int
    schema: str
    table: str
    flags: int
    before: tuple[int, ...]  # 0-based column ordinals in the before image (empty for write)
    after: tuple[int, ...]  # 0-based column ordinals in the after image (empty for delete)
    rows: int
    compressed: bool = False

    STMT_END_F = 1

    @property
    def stmt_end(self) -> bool:
        return bool(self.flags & self.STMT_END_F)


@dataclass(frozen=True, slots=True)
class TransactionPayload(Event):
    """MySQL binlog_transaction_compression=ON: a whole transaction's events, compressed. The decoder
    yields the inner events right after it, each at the payload's end position (as ``mysqlbinlog`` shows)."""

    compression: str  # ZSTD or NONE
    payload_size: int
    uncompressed_size: int


@dataclass(frozen=True, slots=True)
class Intvar(Event):
    kind: int  # 1 LAST_INSERT_ID, 2 INSERT_ID
    value: int


@dataclass(frozen=True, slots=True)
class Rand(Event):
    seed1: int
    seed2: int


@dataclass(frozen=True, slots=True)
class UserVar(Event):
    var: str
    is_null: bool


@dataclass(frozen=True, slots=True)
class Unknown(Event):
    pass


def query_kind(text: str) -> QueryKind:
    """Classify a Query event text; only exact boundary texts count (``ROLLBACK TO x`` is content)."""
    t = text.strip().rstrip(";").strip().upper()
    if t in ("BEGIN", "START TRANSACTION") or t.startswith("XA START"):
        return QueryKind.BEGIN
    if t == "COMMIT" or t.startswith("XA END") or t.startswith("XA COMMIT"):
        return QueryKind.COMMIT
    if t == "ROLLBACK" or t.startswith("XA ROLLBACK"):
        return QueryKind.ROLLBACK
    return QueryKind.CONTENT


ROWS_KIND: dict[int, RowsKind] = {
    EventType.WRITE_ROWS_V0: RowsKind.WRITE, EventType.UPDATE_ROWS_V0: RowsKind.UPDATE,
    EventType.DELETE_ROWS_V0: RowsKind.DELETE,
    EventType.WRITE_ROWS_V1: RowsKind.WRITE, EventType.UPDATE_ROWS_V1: RowsKind.UPDATE,
    EventType.DELETE_ROWS_V1: RowsKind.DELETE,
    EventType.WRITE_ROWS: RowsKind.WRITE, EventType.UPDATE_ROWS: RowsKind.UPDATE,
    EventType.DELETE_ROWS: RowsKind.DELETE, EventType.PARTIAL_UPDATE_ROWS: RowsKind.UPDATE,
    EventType.WRITE_ROWS_COMPRESSED_V1: RowsKind.WRITE, EventType.UPDATE_ROWS_COMPRESSED_V1: RowsKind.UPDATE,
    EventType.DELETE_ROWS_COMPRESSED_V1: RowsKind.DELETE,
    EventType.WRITE_ROWS_COMPRESSED: RowsKind.WRITE, EventType.UPDATE_ROWS_COMPRESSED: RowsKind.UPDATE,
    EventType.DELETE_ROWS_COMPRESSED: RowsKind.DELETE,
}
