"""Bad binlog input ends in a BinlogError that says where, never a traceback from struct or zlib."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from harness.binlog.decoder import binlog_files, read_dir, read_file
from harness.binlog.events import Query
from predictor.exceptions import BinlogError


def _event(tc: int, body: bytes, pos: int, crc: bool = True) -> bytes:
    size = 19 + len(body) + (4 if crc else 0)
    head = struct.pack("<IBIIIH", 0, tc, 1, size, pos + size, 0)
    raw = head + body
    return raw + struct.pack("<I", zlib.crc32(raw)) if crc else raw


def _fde(pos: int = 4) -> bytes:
    body = struct.pack("<H", 4) + b"10.11.0-MariaDB".ljust(50, b"\0") + struct.pack("<I", 0) + bytes([19])
    body += bytes([0] * 170) + bytes([1])  # post-header lengths, then checksum algorithm CRC32
    return _event(15, body, pos)


def _query(text: str, pos: int) -> bytes:
    body = struct.pack("<IIBHH", 7, 0, 4, 0, 0) + b"test\0" + text.encode()
    return _event(2, body, pos)


def _binlog(tmp: Path, *events: bytes) -> Path:
    data = b"\xfebin"
    for e in events:
        data += e
    p = tmp / "binlog.000001"
    p.write_bytes(data)
    (tmp / "binlog.index").write_text("/var/lib/mysql/binlog.000001\n")
    return p


def test_synthetic_query_decodes(tmp_path: Path) -> None:
    fde = _fde()
    p = _binlog(tmp_path, fde, _query("INSERT INTO t VALUES (1)", 4 + len(fde)))
    evs = list(read_dir(tmp_path))  # the index holds a server-side path: the file is found by name
    assert [type(e).__name__ for e in evs] == ["FormatDescription", "Query"]
    q = evs[1]
    assert isinstance(q, Query) and (q.thread_id, q.schema, q.text) == (7, "test", "INSERT INTO t VALUES (1)")
    assert binlog_files(tmp_path) == [p]


@pytest.mark.parametrize(("name", "mutate", "message"), [
    ("bad magic", lambda b: b"\x00bin" + b[4:], "not a binlog file"),
    ("bad checksum", lambda b: b[:-1] + bytes([b[-1] ^ 0xFF]), "checksum mismatch"),
    ("rows without table map", None, "without a Table_map"),
])
def test_bad_binlog_is_a_binlog_error(tmp_path: Path, name: str, mutate: object, message: str) -> None:
    fde = _fde()
    if mutate is None:  # a Write_rows event for a table id never mapped
        body = (42).to_bytes(6, "little") + b"\x01\x00" + bytes([1, 1]) + b"\x00\x01\x00\x00\x00"
        p = _binlog(tmp_path, fde, _event(23, body, 4 + len(fde)))
    else:
        p = _binlog(tmp_path, fde, _query("SELECT 1", 4 + len(fde)))
        p.write_bytes(mutate(p.read_bytes()))  # type: ignore[operator]
    with pytest.raises(BinlogError, match=message):
        list(read_file(p))


def test_truncated_last_event_is_not_decoded(tmp_path: Path) -> None:
    fde = _fde()
    p = _binlog(tmp_path, fde, _query("SELECT 1", 4 + len(fde)))
    p.write_bytes(p.read_bytes()[:-3])  # the server is still writing it
    assert [type(e).__name__ for e in read_file(p)] == ["FormatDescription"]


def test_missing_index_or_file(tmp_path: Path) -> None:
    with pytest.raises(BinlogError, match="index"):
        binlog_files(tmp_path)
    (tmp_path / "binlog.index").write_text("./binlog.000009\n")
    with pytest.raises(BinlogError, match="missing"):
        binlog_files(tmp_path)
