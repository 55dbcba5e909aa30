"""A decoder for the subset of binlog files rplay needs, in pure Python (struct + bytes indexing).

Chosen by measurement over parsing ``mariadb-binlog -vv`` text and over python-mysql-replication (see
``README.md`` and ``benchmarks/binlog_bench.py``): it reads a whole file, walks the event headers, and counts
rows by skipping values (``rows.ImagePlan``) instead of building them.
"""

from __future__ import annotations

import dataclasses
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

from harness.binlog import rows as rowfmt
from harness.binlog.events import (
    ROWS_KIND,
    Event,
    EventType,
    FormatDescription,
    Gtid,
    Intvar,
    Query,
    Rand,
    Rotate,
    Rows,
    RowsKind,
    RowsQuery,
    Stop,
    TableMap,
    TransactionPayload,
    Unknown,
    UserVar,
    Xid,
)
from predictor.exceptions import BinlogError

MAGIC = b"\xfebin"
HEADER = struct.Struct("<IBIIIH")
HEADER_LEN = 19
_QUERY_POST = struct.Struct("<IIBHH")
_V2_ROWS = frozenset((EventType.WRITE_ROWS, EventType.UPDATE_ROWS, EventType.DELETE_ROWS,
                      EventType.PARTIAL_UPDATE_ROWS, EventType.WRITE_ROWS_COMPRESSED,
                      EventType.UPDATE_ROWS_COMPRESSED, EventType.DELETE_ROWS_COMPRESSED))
_COMPRESSED_ROWS = frozenset(range(166, 172))
OPT_COLUMN_NAME = 4  # Table_map optional metadata field with the column names
_PAYLOAD_COMPRESSION = {0: "ZSTD", 255: "NONE"}
_GTID_TAGGED_TAG = 3  # field ids of the serialized Gtid_tagged_log_event message


def packed_int(buf: bytes, p: int) -> tuple[int, int]:
    """A length-encoded integer at ``p``: (value, next position)."""
    b = buf[p]
    if b < 251:
        return b, p + 1
    if b == 252:
        return buf[p + 1] | buf[p + 2] << 8, p + 3
    if b == 253:
        return buf[p + 1] | buf[p + 2] << 8 | buf[p + 3] << 16, p + 4
    if b == 254:
        return int.from_bytes(buf[p + 1:p + 9], "little"), p + 9
    raise BinlogError(f"bad length-encoded integer 0x{b:02x}")


def bitmap_columns(buf: bytes, p: int, n: int) -> tuple[int, ...]:
    """0-based indices of the set bits in an ``n``-bit little-endian bitmap at ``p``."""
    return tuple(i for i in range(n) if buf[p + (i >> 3)] & (1 << (i & 7)))


def varlen_uint(buf: bytes, p: int) -> tuple[int, int]:
    """MySQL 8.4+ ``mysql::serialization`` unsigned integer at ``p``: (value, next position).

    The first byte's count of trailing one bits, plus one, is the byte length (9 when it is 0xFF); the
    little-endian bytes shifted right by that length are the value."""
    b = buf[p]
    if b == 0xFF:
        return int.from_bytes(buf[p + 1:p + 9], "little"), p + 9
    n = 1
    while b & 1:
        b >>= 1
        n += 1
    return int.from_bytes(buf[p:p + n], "little") >> n, p + n


def varlen_int(buf: bytes, p: int) -> tuple[int, int]:
    """Signed ``mysql::serialization`` integer: the sign is the lowest bit of the unsigned value."""
    u, p = varlen_uint(buf, p)
    return (-(u >> 1) - 1 if u & 1 else u >> 1), p


def gtid_tagged(buf: bytes, b: int, end: int) -> tuple[int, str]:
    """(flags, ``UUID:TAG:GNO`` text) of a GTID_TAGGED event body: a format version, the message size,
    the last non-ignorable field id, then (field id, value) pairs: 0 flags, 1 UUID (16 varlen bytes),
    2 gno (signed), 3 tag (length + text), then commit-order fields rplay does not need."""
    _version, q = varlen_uint(buf, b)
    _size, q = varlen_uint(buf, q)
    _last, q = varlen_uint(buf, q)
    flags, gno, tag, uuid = 0, 0, "", b""
    while q < end:
        fid, q = varlen_uint(buf, q)
        if fid == 0:
            flags, q = varlen_uint(buf, q)
        elif fid == 1:
            raw = bytearray()
            for _ in range(16):
                v, q = varlen_uint(buf, q)
                raw.append(v)
            uuid = bytes(raw)
        elif fid == 2:
            gno, q = varlen_int(buf, q)
        elif fid == _GTID_TAGGED_TAG:
            n, q = varlen_uint(buf, q)
            tag = buf[q:q + n].decode("ascii", "replace")
            q += n
            break
        else:
            raise BinlogError(f"GTID_TAGGED: unexpected field {fid} before the tag")
    if len(uuid) != 16:
        raise BinlogError("GTID_TAGGED without a UUID")
    u = uuid.hex()
    text = f"{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}"
    return flags, f"{text}:{tag}:{gno}" if tag else f"{text}:{gno}"


def inflate_zstd(data: bytes, size: int) -> bytes:
    """A zstd frame (MySQL binlog_transaction_compression); needs the ``zstandard`` package."""
    try:
        import zstandard
    except ImportError:
        raise BinlogError("a compressed transaction payload (binlog_transaction_compression=ON) needs the "
                          "zstandard package: pip install zstandard") from None
    try:
        return bytes(zstandard.ZstdDecompressor().decompress(data, max_output_size=size))
    except zstandard.ZstdError as e:
        raise BinlogError(f"compressed transaction payload does not inflate: {e}") from None


def uncompress(buf: bytes, p: int, end: int) -> bytes:
    """MariaDB's binlog compression: a header byte 0x80|lenlen, big-endian length, a zlib stream."""
    lenlen = buf[p] & 0x07
    size = int.from_bytes(buf[p + 1:p + 1 + lenlen], "big")
    out = zlib.decompress(buf[p + 1 + lenlen:end])
    if len(out) != size:
        raise BinlogError(f"compressed event: {len(out)} bytes inflated, header says {size}")
    return out


class _FileDecoder:
    """Decodes one binlog file; table maps live per file (servers re-emit them per statement)."""

    def __init__(self, path: Path, verify_checksums: bool) -> None:
        self.path = path
        self.name = path.name
        self.verify = verify_checksums
        self.checksum = False
        self.table_id_len = 6
        self.tables: dict[int, TableMap] = {}
        self.plans: dict[tuple[int, tuple[int, ...]], rowfmt.ImagePlan] = {}

    def events(self) -> Iterator[Event]:
        try:
            buf = self.path.read_bytes()
        except OSError as e:
            raise BinlogError(f"cannot read binlog {self.path}: {e}") from e
        if buf[:4] != MAGIC:
            raise BinlogError(f"{self.path} is not a binlog file (bad magic)")
        p, n = 4, len(buf)
        unpack = HEADER.unpack_from
        while p + HEADER_LEN <= n:
            ts, tc, sid, size, log_pos, _flags = unpack(buf, p)
            end = p + size
            if size < HEADER_LEN or end > n:
                break  # a partly written last event (server still writing): stop here
            body_end = end
            if tc == EventType.FORMAT_DESCRIPTION:
                ev: Event = self._fde(buf, p, end, ts, sid, log_pos)
                body_end = end - 4 if self.checksum else end
            else:
                if self.checksum:
                    body_end = end - 4
                    crc = int.from_bytes(buf[body_end:end], "little")
                    if self.verify and zlib.crc32(buf[p:body_end]) != crc:
                        raise BinlogError(f"checksum mismatch in {self.name} at {p}")
                try:
                    if tc == EventType.TRANSACTION_PAYLOAD:
                        yield from self._payload(buf, p, body_end, ts, sid, log_pos)
                        p = end
                        continue
                    ev = self._event(buf, p, body_end, tc, ts, sid, log_pos)
                except BinlogError as e:
                    raise BinlogError(f"{self.name} at {p}: {e.message}") from e
                except (IndexError, struct.error, ValueError, zlib.error) as e:
                    raise BinlogError(f"{self.name} at {p}: cannot decode event type {tc}: {e!r}") from e
            yield ev
            p = end

    def _payload(self, buf: bytes, p: int, end: int, ts: int, sid: int, log_pos: int) -> list[Event]:
        """A Transaction_payload event, then its inner events (header + body, no checksum, log_pos 0:
        the payload's CRC covers them), each placed at the payload's end position like ``mysqlbinlog``."""
        q = p + HEADER_LEN
        ctype, size, usize = 0, 0, 0
        while True:
            ftype, q = packed_int(buf, q)
            if ftype == 0:  # end of the header fields; the payload follows
                break
            flen, q = packed_int(buf, q)
            value, _ = packed_int(buf, q)
            if ftype == 1:
                size = value
            elif ftype == 2:
                ctype = value
            elif ftype == 3:
                usize = value
            q += flen
        compression = _PAYLOAD_COMPRESSION.get(ctype)
        if compression is None:
            raise BinlogError(f"transaction payload with unknown compression type {ctype}")
        data = buf[q:end]
        if len(data) != size:
            raise BinlogError(f"transaction payload is {len(data)} bytes, its header says {size}")
        if compression == "ZSTD":
            data = inflate_zstd(data, usize)
        if len(data) != usize:
            raise BinlogError(f"transaction payload inflates to {len(data)} bytes, its header says {usize}")
        out: list[Event] = [TransactionPayload(self.name, p, log_pos, int(EventType.TRANSACTION_PAYLOAD), ts,
                                               sid, compression, size, usize)]
        r, n = 0, len(data)
        while r < n:
            its, itc, isid, isize, _ilog_pos, _iflags = HEADER.unpack_from(data, r)
            iend = r + isize
            if isize < HEADER_LEN or iend > n:
                raise BinlogError(f"transaction payload: inner event at {r} overruns the payload")
            if itc == EventType.TRANSACTION_PAYLOAD:
                raise BinlogError("transaction payload inside a transaction payload")
            # header fields are read from the inner event; its place is the payload's end
            ev = self._event(data, r, iend, itc, its, isid, log_pos)
            out.append(_moved(ev, log_pos))
            r = iend
        return out

    def _fde(self, buf: bytes, p: int, end: int, ts: int, sid: int, log_pos: int) -> FormatDescription:
        b = p + HEADER_LEN
        version = buf[b + 2:b + 52].split(b"\0", 1)[0].decode("ascii", "replace")
        # Servers since MySQL 5.6.1 / MariaDB 5.3 end the FDE with the checksum algorithm (+ its CRC).
        alg = buf[end - 5]
        self.checksum = alg == 1
        post_lens = buf[b + 57:end - 5]
        if len(post_lens) >= EventType.TABLE_MAP:
            self.table_id_len = 4 if post_lens[EventType.TABLE_MAP - 1] == 6 else 6
        return FormatDescription(self.name, p, log_pos, int(EventType.FORMAT_DESCRIPTION), ts, sid,
                                 buf[b] | buf[b + 1] << 8, version, self.checksum)

    def _event(self, buf: bytes, p: int, end: int, tc: int, ts: int, sid: int, log_pos: int) -> Event:
        b = p + HEADER_LEN
        name = self.name
        if tc in ROWS_KIND:
            return self._rows(buf, p, b, end, tc, ts, sid, log_pos)
        if tc == EventType.TABLE_MAP:
            return self._table_map(buf, p, b, end, ts, sid, log_pos)
        if tc == EventType.QUERY or tc == EventType.QUERY_COMPRESSED:
            thread_id, exec_time, db_len, err, status_len = _QUERY_POST.unpack_from(buf, b)
            q = b + 13 + status_len
            schema = buf[q:q + db_len].decode("utf-8", "replace")
            q += db_len + 1
            raw = uncompress(buf, q, end) if tc == EventType.QUERY_COMPRESSED else buf[q:end]
            return Query(name, p, log_pos, tc, ts, sid, thread_id, exec_time, err, schema,
                         raw.decode("utf-8", "replace"))
        if tc == EventType.XID:
            return Xid(name, p, log_pos, tc, ts, sid, int.from_bytes(buf[b:b + 8], "little"))
        if tc == EventType.MARIADB_GTID:
            seq = int.from_bytes(buf[b:b + 8], "little")
            domain = int.from_bytes(buf[b + 8:b + 12], "little")
            flags = buf[b + 12]
            return Gtid(name, p, log_pos, tc, ts, sid, f"{domain}-{sid}-{seq}", flags,
                        bool(flags & Gtid.FL_STANDALONE))
        if tc == EventType.GTID or tc == EventType.ANONYMOUS_GTID:
            flags = buf[b]
            u = buf[b + 1:b + 17].hex()
            gno = int.from_bytes(buf[b + 17:b + 25], "little")
            gtid = f"{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}:{gno}"
            if tc == EventType.ANONYMOUS_GTID:
                gtid = "ANONYMOUS"
            return Gtid(name, p, log_pos, tc, ts, sid, gtid, flags, False)
        if tc == EventType.GTID_TAGGED:
            flags, text = gtid_tagged(buf, b, end)
            return Gtid(name, p, log_pos, tc, ts, sid, text, flags, False)
        if tc == EventType.ANNOTATE_ROWS:
            return RowsQuery(name, p, log_pos, tc, ts, sid, buf[b:end].decode("utf-8", "replace"))
        if tc == EventType.ROWS_QUERY:
            # one length byte (truncated at 255, ignored by the server too), then the full text
            return RowsQuery(name, p, log_pos, tc, ts, sid, buf[b + 1:end].decode("utf-8", "replace"))
        if tc == EventType.ROTATE:
            pos = int.from_bytes(buf[b:b + 8], "little")
            return Rotate(name, p, log_pos, tc, ts, sid, buf[b + 8:end].decode("utf-8", "replace"), pos)
        if tc == EventType.STOP:
            return Stop(name, p, log_pos, tc, ts, sid)
        if tc == EventType.INTVAR:
            return Intvar(name, p, log_pos, tc, ts, sid, buf[b], int.from_bytes(buf[b + 1:b + 9], "little"))
        if tc == EventType.RAND:
            return Rand(name, p, log_pos, tc, ts, sid, int.from_bytes(buf[b:b + 8], "little"),
                        int.from_bytes(buf[b + 8:b + 16], "little"))
        if tc == EventType.USER_VAR:
            nlen = int.from_bytes(buf[b:b + 4], "little")
            var = buf[b + 4:b + 4 + nlen].decode("utf-8", "replace")
            return UserVar(name, p, log_pos, tc, ts, sid, var, bool(buf[b + 4 + nlen]))
        return Unknown(name, p, log_pos, tc, ts, sid)

    def _table_map(self, buf: bytes, p: int, b: int, end: int, ts: int, sid: int, log_pos: int) -> TableMap:
        tl = self.table_id_len
        table_id = int.from_bytes(buf[b:b + tl], "little")
        q = b + tl + 2
        dl = buf[q]
        schema = buf[q + 1:q + 1 + dl].decode("utf-8", "replace")
        q += dl + 2
        tlen = buf[q]
        table = buf[q + 1:q + 1 + tlen].decode("utf-8", "replace")
        q += tlen + 2
        ncols, q = packed_int(buf, q)
        types = buf[q:q + ncols]
        q += ncols
        mlen, q = packed_int(buf, q)
        meta = rowfmt.read_metadata(types, buf[q:q + mlen])
        q += mlen + (ncols + 7) // 8
        names: tuple[str, ...] | None = None
        while q < end:  # optional metadata (binlog_row_metadata=MINIMAL/FULL): type, length, value
            ftype = buf[q]
            flen, q = packed_int(buf, q + 1)
            if ftype == OPT_COLUMN_NAME:
                out: list[str] = []
                r, stop = q, q + flen
                while r < stop:
                    ln, r = packed_int(buf, r)
                    out.append(buf[r:r + ln].decode("utf-8", "replace"))
                    r += ln
                names = tuple(out)
            q += flen
        tm = TableMap(self.name, p, log_pos, int(EventType.TABLE_MAP), ts, sid, table_id, schema, table,
                      tuple(types), meta, names)
        old = self.tables.get(table_id)
        if old is None or old.column_types != tm.column_types or old.column_meta != tm.column_meta:
            self.plans = {k: v for k, v in self.plans.items() if k[0] != table_id}
        self.tables[table_id] = tm
        return tm

    def _plan(self, tm: TableMap, present: tuple[int, ...]) -> rowfmt.ImagePlan:
        key = (tm.table_id, present)
        plan = self.plans.get(key)
        if plan is None:
            plan = self.plans[key] = rowfmt.plan_for(tm.column_types, tm.column_meta, present)
        return plan

    def _rows(self, buf: bytes, p: int, b: int, end: int, tc: int, ts: int, sid: int, log_pos: int) -> Rows:
        tl = self.table_id_len
        table_id = int.from_bytes(buf[b:b + tl], "little")
        flags = buf[b + tl] | buf[b + tl + 1] << 8
        q = b + tl + 2
        if tc in _V2_ROWS:
            q += buf[q] | buf[q + 1] << 8  # extra data length includes its own 2 bytes
        tm = self.tables.get(table_id)
        if tm is None:
            raise BinlogError(f"row event for table id {table_id} without a Table_map")
        kind = ROWS_KIND[tc]
        width, q = packed_int(buf, q)
        nbytes = (width + 7) // 8
        cols1 = bitmap_columns(buf, q, width)
        q += nbytes
        cols2: tuple[int, ...] = ()
        if kind is RowsKind.UPDATE:
            cols2 = bitmap_columns(buf, q, width)
            q += nbytes
        compressed = tc in _COMPRESSED_ROWS
        if compressed:
            data, q, stop = uncompress(buf, q, end), 0, 0
            stop = len(data)
        else:
            data, stop = buf, end
        count = self._count(data, q, stop, tm, kind, cols1, cols2, tc == EventType.PARTIAL_UPDATE_ROWS)
        before, after = (cols1, cols2) if kind is RowsKind.UPDATE else \
            ((), cols1) if kind is RowsKind.WRITE else (cols1, ())
        return Rows(self.name, p, log_pos, tc, ts, sid, kind, table_id, tm.schema, tm.table, flags,
                    before, after, count, compressed)

    def _count(self, buf: bytes, q: int, stop: int, tm: TableMap, kind: RowsKind, cols1: tuple[int, ...],
               cols2: tuple[int, ...], partial: bool) -> int:
        plan1 = self._plan(tm, cols1)
        count = 0
        if kind is not RowsKind.UPDATE:
            skip = plan1.skip
            while q < stop:
                q = skip(buf, q)
                count += 1
        elif not partial:
            skip1, skip2 = plan1.skip, self._plan(tm, cols2).skip
            while q < stop:
                q = skip2(buf, skip1(buf, q))
                count += 1
        else:
            json_cols = tuple(i for i in cols2 if tm.column_types[i] == rowfmt.JSON)
            plan2 = self._plan(tm, cols2)
            while q < stop:
                q = plan1.skip(buf, q)
                q = self._partial_after(buf, q, tm, cols2, json_cols, plan2)
                count += 1
        if q != stop:
            raise BinlogError(f"rows of `{tm.schema}`.`{tm.table}` overrun the event by {q - stop} bytes")
        return count

    def _partial_after(self, buf: bytes, q: int, tm: TableMap, cols: tuple[int, ...],
                       json_cols: tuple[int, ...], plan: rowfmt.ImagePlan) -> int:
        """MySQL PARTIAL_UPDATE_ROWS after image: value_options, partial-JSON bits, then the image
        where a partial JSON value is a diff vector with a 4-byte length. UNVERIFIED against MySQL."""
        options, q = packed_int(buf, q)
        partial: set[int] = set()
        if options & 1 and json_cols:
            partial = {c for k, c in enumerate(json_cols) if buf[q + (k >> 3)] & (1 << (k & 7))}
            q += (len(json_cols) + 7) // 8
        if not partial:
            return plan.skip(buf, q)
        nb = plan.null_bytes
        nulls = buf[q:q + nb]
        q += nb
        for k, c in enumerate(cols):
            if nulls[k >> 3] & (1 << (k & 7)):
                continue
            fixed, prefix = plan.cols[k]
            if c in partial:
                q += 4 + int.from_bytes(buf[q:q + 4], "little")
            elif prefix:
                q += prefix + int.from_bytes(buf[q:q + prefix], "little")
            else:
                q += fixed
        return q


def _moved(ev: Event, pos: int) -> Event:
    """``ev`` placed at ``pos`` (start and end): where an event inside a transaction payload is."""
    return dataclasses.replace(ev, pos=pos, end_pos=pos)


def read_file(path: Path | str, *, verify_checksums: bool = True) -> Iterator[Event]:
    """Decode the events of one binlog file in order."""
    return _FileDecoder(Path(path), verify_checksums).events()


def binlog_files(directory: Path | str) -> list[Path]:
    """The binlog files of ``directory`` in order, from its ``*.index`` file (the server's own list)."""
    d = Path(directory)
    indexes = sorted(d.glob("*.index"))
    if len(indexes) != 1:
        raise BinlogError(f"expected one binlog index file in {d}, found {len(indexes)}")
    files: list[Path] = []
    for line in indexes[0].read_text().splitlines():
        line = line.strip()
        if line:
            files.append(d / Path(line).name)  # the index may hold server-side (container) paths
    missing = [f for f in files if not f.exists()]
    if missing:
        raise BinlogError(f"binlog files listed in {indexes[0]} are missing: {[str(m) for m in missing]}")
    return files


def read_dir(directory: Path | str, *, verify_checksums: bool = True) -> Iterator[Event]:
    """Decode every binlog file of ``directory`` in index order."""
    for f in binlog_files(directory):
        yield from read_file(f, verify_checksums=verify_checksums)
