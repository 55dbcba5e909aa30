"""A lean COM_QUERY for replay's hot path, on a pymysql connection's own socket.

Why: pymysql spends most of its per-statement CPU building result objects; replay only needs the OK
packet's warning count or the ERR packet's code and message. ``send_query`` writes the packet and parses
those two packets itself; anything else (result sets, LOAD DATA LOCAL, more results) is handed back to
pymysql's own reader from the packet already read, so behaviour is pymysql's. Falls back to
``conn.query`` when the connection lacks the private attributes this relies on (checked once).
"""

from __future__ import annotations

import struct
from typing import Any

from pymysql import err
from pymysql.connections import MAX_PACKET_LEN, Connection, MySQLResult
from pymysql.constants import CR, SERVER_STATUS
from pymysql.protocol import MysqlPacket

_COM_QUERY = 3
_MORE_RESULTS = SERVER_STATUS.SERVER_MORE_RESULTS_EXISTS
_HEADER = struct.Struct("<HBB")


def _lenenc(data: bytes, pos: int) -> int:
    """Position after the length-encoded integer at ``pos``."""
    c = data[pos]
    if c < 0xFB:
        return pos + 1
    if c == 0xFC:
        return pos + 3
    if c == 0xFD:
        return pos + 4
    return pos + 9


_supported: bool | None = None


def supported(conn: Connection[Any]) -> bool:
    """Whether this pymysql has the connection internals used here (checked on the first connection)."""
    global _supported
    if _supported is None:
        _supported = all(hasattr(conn, a) for a in ("_sock", "_rfile", "_next_seq_id", "_result",
                                                    "_read_timeout", "_current_timeout", "_force_close"))
    return _supported


def _lost(conn: Connection[Any], detail: str) -> err.OperationalError:
    conn._force_close()
    return err.OperationalError(CR.CR_SERVER_LOST, f"Lost connection to server during query{detail}")


def _read(conn: Connection[Any], n: int) -> bytes:
    try:
        data: bytes = conn._rfile.read(n)
    except OSError as e:
        raise _lost(conn, f" ({e})") from None
    if len(data) < n:
        raise _lost(conn, "")
    return data


def send_query(conn: Connection[Any], sql: bytes) -> int:
    """Run one statement; return its warning count (max over all results). Raises pymysql errors."""
    if not supported(conn):
        conn.query(sql)
        return _drain(conn)
    if conn._sock is None:
        raise err.InterfaceError(0, "")
    if len(sql) + 1 >= MAX_PACKET_LEN or conn._result is not None:
        conn.query(sql)
        return _drain(conn)
    if conn._current_timeout != conn._read_timeout:
        conn._sock.settimeout(conn._read_timeout)
        conn._current_timeout = conn._read_timeout
    n = len(sql) + 1
    try:
        conn._sock.sendall(bytes((n & 0xFF, (n >> 8) & 0xFF, n >> 16, 0, _COM_QUERY)) + sql)
    except OSError as e:
        raise _lost(conn, f" ({e})") from None
    header = _read(conn, 4)
    low, high, seq = _HEADER.unpack(header)
    size = low + (high << 16)
    if seq != 1 or size >= MAX_PACKET_LEN:
        if seq == 0:  # MariaDB's error packet on shutdown
            raise _lost(conn, "")
        raise _lost(conn, f" (unexpected packet {seq})")
    payload = _read(conn, size)
    conn._next_seq_id = 2
    first = payload[0]
    if first == 0xFF:
        packet = MysqlPacket(payload, conn.encoding)
        packet.raise_for_error()
    if first == 0x00 and size >= 7:
        pos = _lenenc(payload, _lenenc(payload, 1))
        status, warnings = struct.unpack_from("<HH", payload, pos)
        conn.server_status = status
        if not status & _MORE_RESULTS:
            return int(warnings)
    # result set, LOAD DATA LOCAL request, or more results to come: pymysql's reader from here
    result = MySQLResult(conn)
    packet = MysqlPacket(payload, conn.encoding)
    try:
        if packet.is_ok_packet():
            result._read_ok_packet(packet)
        elif packet.is_load_local_packet():
            result._read_load_local_packet(packet)
        else:
            result._read_result_packet(packet)
    finally:
        result.connection = None
    conn._result = result
    return _drain(conn)


def _drain(conn: Connection[Any]) -> int:
    """Read every remaining result of the statement; the largest warning count seen."""
    result = conn._result
    warnings = result.warning_count if result is not None else 0
    while result is not None and result.has_next:
        conn.next_result()
        result = conn._result
        warnings = max(warnings, result.warning_count if result is not None else 0)
    conn._result = None
    return warnings
