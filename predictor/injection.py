"""What a ``BINLOG '...'`` statement injects: the row events inside its base64 text.

mysqlbinlog / mariadb-binlog print row events this way; the server applies them and, being a row
injection, logs them as rows (or refuses: 1664, 1666, MySQL 1782 under GTID_MODE=ON). The predictor only
needs each rows event's table and the columns in its images, so this reads event headers, Table_map
names and the column bitmaps, nothing else.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from predictor.exceptions import RplayError

_HEADER = 19
_TABLE_MAP = 19
_FORMAT_DESCRIPTION = 15
_ROWS = {20: "write", 21: "update", 22: "delete",  # v0
         23: "write", 24: "update", 25: "delete",  # v1 (MariaDB)
         30: "write", 31: "update", 32: "delete"}  # v2 (MySQL)
_ROWS_V2 = frozenset({30, 31, 32})
_COMPRESSED_ROWS = frozenset({166, 167, 168, 169, 170, 171})  # MariaDB compressed rows events


class InjectionError(RplayError):
    """The BINLOG statement's text is not base64 binlog events we can read."""


@dataclass(frozen=True)
class InjectedRows:
    """One rows event: its table (schema, name) and the column positions of its images."""

    schema: str
    table: str
    type: str  # write | update | delete
    before: tuple[int, ...]
    after: tuple[int, ...]


def decode_text(text: str) -> bytes:
    """The events of a BINLOG statement's text: base64 chunks, possibly several, split by whitespace."""
    out = bytearray()
    pending = ""
    for token in text.split():
        pending += token
        if len(pending) % 4 == 0:
            try:
                out += base64.b64decode(pending, validate=True)
            except binascii.Error as e:
                raise InjectionError(f"BINLOG text is not base64: {e}") from None
            pending = ""
    if pending:
        raise InjectionError("BINLOG text ends in an incomplete base64 chunk")
    return bytes(out)


def injected_rows(text: str) -> list[InjectedRows]:
    """The rows events a BINLOG statement carries, in order (none for a format description only)."""
    data = decode_text(text)
    maps: dict[int, tuple[str, str]] = {}
    out: list[InjectedRows] = []
    pos = 0
    while pos < len(data):
        if len(data) - pos < _HEADER:
            raise InjectionError(f"truncated event header at byte {pos}")
        kind = data[pos + 4]
        size = int.from_bytes(data[pos + 9:pos + 13], "little")
        if size < _HEADER or pos + size > len(data):
            raise InjectionError(f"event at byte {pos} claims {size} bytes")
        body = data[pos + _HEADER:pos + size]
        if kind == _TABLE_MAP:
            table_id = int.from_bytes(body[0:6], "little")
            maps[table_id] = _table_names(body)
        elif kind in _ROWS:
            out.append(_rows(body, kind, maps))
        elif kind in _COMPRESSED_ROWS:
            raise InjectionError("compressed rows events are not read")
        pos += size
    return out


def _table_names(body: bytes) -> tuple[str, str]:
    p = 8  # table id (6), flags (2)
    db_len = body[p]
    schema = body[p + 1:p + 1 + db_len].decode("utf-8", "replace")
    p += 1 + db_len + 1
    t_len = body[p]
    table = body[p + 1:p + 1 + t_len].decode("utf-8", "replace")
    return schema, table


def _packed_int(body: bytes, p: int) -> tuple[int, int]:
    first = body[p]
    if first < 251:
        return first, p + 1
    width = {252: 2, 253: 3, 254: 8}.get(first)
    if width is None:
        raise InjectionError("bad packed integer in a rows event")
    return int.from_bytes(body[p + 1:p + 1 + width], "little"), p + 1 + width


def _bits(bitmap: bytes, n: int) -> tuple[int, ...]:
    return tuple(i for i in range(n) if bitmap[i // 8] >> (i % 8) & 1)


def _rows(body: bytes, kind: int, maps: dict[int, tuple[str, str]]) -> InjectedRows:
    table_id = int.from_bytes(body[0:6], "little")
    if table_id not in maps:
        raise InjectionError(f"rows event for table id {table_id} without its Table_map")
    p = 8
    if kind in _ROWS_V2:
        p += int.from_bytes(body[p:p + 2], "little")  # extra data, its length includes these 2 bytes
    ncols, p = _packed_int(body, p)
    width = (ncols + 7) // 8
    first = _bits(body[p:p + width], ncols)
    second = _bits(body[p + width:p + 2 * width], ncols) if _ROWS[kind] == "update" else ()
    schema, table = maps[table_id]
    typ = _ROWS[kind]
    if typ == "write":
        return InjectedRows(schema, table, typ, (), first)
    if typ == "delete":
        return InjectedRows(schema, table, typ, first, ())
    return InjectedRows(schema, table, typ, first, second)
