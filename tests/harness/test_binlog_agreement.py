"""The decoder agrees, event by event, with ``mariadb-binlog --base64-output=decode-rows -vv``.

Compared per event: position, end position, event type, query text and thread id/error code, GTID text,
table map names and ids, row event table, row count, the column sets of its ### @N lines and each column's
metadata. 100% agreement is required on binlogs made under every format / row image / compression.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from binlog_server import LocalMariaDB, run_statements

from harness.binlog.decoder import binlog_files, read_file
from harness.binlog.events import (
    Event,
    FormatDescription,
    Gtid,
    Intvar,
    Query,
    Rand,
    Rotate,
    Rows,
    RowsQuery,
    Stop,
    TableMap,
    Unknown,
    UserVar,
    Xid,
)

pytestmark = pytest.mark.server

_HEADER = re.compile(
    r"^#\d{6}\s+\d+:\d\d:\d\d server id (\d+)\s+end_log_pos (\d+)(?: CRC32 0x[0-9a-f]+)?\s+(.*)$")
_COL = re.compile(r"^###\s+@(\d+)=.*/\* .*meta=(\d+) nullable")


@dataclass
class ToolEvent:
    """One event as mariadb-binlog printed it."""

    pos: int
    end_pos: int
    desc: str
    body: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        d = self.desc
        for prefix, name in (("Start:", "FormatDescription"), ("Gtid list", "Unknown"),
                             ("Binlog checkpoint", "Unknown"), ("GTID ", "Gtid"), ("Query", "Query"),
                             ("Xid =", "Xid"), ("Annotate_rows", "RowsQuery"), ("Table_map", "TableMap"),
                             ("Write_rows", "Rows"), ("Update_rows", "Rows"), ("Delete_rows", "Rows"),
                             ("Write_compressed_rows", "Rows"), ("Update_compressed_rows", "Rows"),
                             ("Delete_compressed_rows", "Rows"), ("Intvar", "Intvar"), ("Rand", "Rand"),
                             ("User_var", "UserVar"), ("Rotate to", "Rotate"), ("Stop", "Stop")):
            if d.startswith(prefix):
                return name
        return "Unknown"


def tool_events(path: Path) -> list[ToolEvent]:
    out = subprocess.run(["mariadb-binlog", "--base64-output=decode-rows", "-vv", str(path)],
                         capture_output=True, text=True, check=True, errors="replace").stdout
    positions: list[int] = []
    events: list[ToolEvent] = []
    for line in out.splitlines():
        if line.startswith("# at "):
            positions.append(int(line[5:]))
            continue
        m = _HEADER.match(line)
        if m:
            events.append(ToolEvent(positions.pop(0), int(m.group(2)), m.group(3).strip()))
            continue
        if events:
            events[-1].body.append(line)
    assert not positions or positions == [events[-1].end_pos] if events else True
    return events


def _query_text(body: list[str]) -> str:
    blocks = "\n".join(body).split("/*!*/;")
    skip = ("DELIMITER", "# End", "ROLLBACK")
    texts = [b.strip() for b in blocks if b.strip() and not b.strip().startswith(skip)]
    return texts[-1] if texts else ""


_ROW_HEAD = re.compile(r"^### (INSERT INTO|UPDATE|DELETE FROM) (`.*`)\.(`.*`)$")
_KIND = {"INSERT INTO": "write", "UPDATE": "update", "DELETE FROM": "delete"}

RunKey = tuple[str, str, str]  # schema, table, kind


@dataclass
class Run:
    """Rows of one (table, kind) in a statement's run of row events (mariadb-binlog prints them at
    the event flagged STMT_END_F, so agreement is checked per run)."""

    rows: int = 0
    before: set[int] = field(default_factory=set)
    after: set[int] = field(default_factory=set)
    meta: dict[int, int] = field(default_factory=dict)


def tool_runs(body: list[str]) -> dict[RunKey, Run]:
    runs: dict[RunKey, Run] = {}
    run: Run | None = None
    section: set[int] | None = None
    for line in body:
        m = _ROW_HEAD.match(line)
        if m:
            key = (m.group(2).strip("`"), m.group(3).strip("`"), _KIND[m.group(1)])
            run = runs.setdefault(key, Run())
            run.rows += 1
            section = None
        elif line.startswith("### WHERE") and run is not None:
            section = run.before
        elif line.startswith("### SET") and run is not None:
            section = run.after
        else:
            c = _COL.match(line)
            if c and section is not None and run is not None:
                section.add(int(c.group(1)) - 1)
                run.meta[int(c.group(1)) - 1] = int(c.group(2))
    return runs


def compare(ours: list[Event], theirs: list[ToolEvent]) -> list[str]:
    """Every disagreement, as text (empty = full agreement)."""
    bad: list[str] = []
    if [e.pos for e in ours] != [t.pos for t in theirs]:
        return [f"positions differ: ours {[e.pos for e in ours]} tool {[t.pos for t in theirs]}"]
    run: dict[RunKey, Run] = {}
    maps: dict[int, TableMap] = {}
    for e, t in zip(ours, theirs, strict=True):
        where = f"{e.file}:{e.pos}"
        if isinstance(e, TableMap):
            maps[e.table_id] = e
        if type(e).__name__ != t.kind:
            bad.append(f"{where}: type {type(e).__name__} vs tool {t.kind} ({t.desc})")
            continue
        if e.end_pos != t.end_pos:
            bad.append(f"{where}: end_pos {e.end_pos} vs {t.end_pos}")
        if isinstance(e, Query):
            m = re.search(r"thread_id=(\d+)\s+exec_time=\d+\s+error_code=(\d+)", t.desc)
            if not m or (int(m.group(1)), int(m.group(2))) != (e.thread_id, e.error_code):
                bad.append(f"{where}: thread/error {e.thread_id}/{e.error_code} vs {t.desc}")
            if _query_text(t.body) != e.text.strip():
                bad.append(f"{where}: query {e.text!r} vs {_query_text(t.body)!r}")
        elif isinstance(e, RowsQuery):
            text = "\n".join(line[4:] for line in t.body if line.startswith("#Q> "))
            if text != e.text:
                bad.append(f"{where}: annotate {e.text!r} vs {text!r}")
        elif isinstance(e, Gtid):
            flags = set(t.desc.split()[2:])
            if not t.desc.startswith(f"GTID {e.gtid}") or ("ddl" in flags) != bool(e.flags & Gtid.FL_DDL) \
                    or ("trans" in flags) != bool(e.flags & Gtid.FL_TRANSACTIONAL):
                bad.append(f"{where}: gtid {e.gtid} flags={e.flags} vs {t.desc}")
        elif isinstance(e, TableMap):
            exp = f"Table_map: `{e.schema}`.`{e.table}` mapped to number {e.table_id}"
            if t.desc != exp:
                bad.append(f"{where}: {exp!r} vs {t.desc!r}")
        elif isinstance(e, Rows):
            if f"table id {e.table_id}" not in t.desc or ("STMT_END_F" in t.desc) != e.stmt_end:
                bad.append(f"{where}: table id {e.table_id} stmt_end={e.stmt_end} vs {t.desc}")
            r = run.setdefault((e.schema, e.table, e.kind.value), Run())
            r.rows += e.rows
            r.before.update(e.before)
            r.after.update(e.after)
            r.meta.update({c: maps[e.table_id].column_meta[c] for c in (*e.before, *e.after)})
            theirs_run = tool_runs(t.body)
            if not e.stmt_end:
                if theirs_run:
                    bad.append(f"{where}: tool printed rows before the statement's last row event")
                continue
            if run != theirs_run:
                bad.append(f"{where}: rows/columns/metadata {run} vs tool {theirs_run}")
            run = {}
        elif isinstance(e, Xid):
            if t.desc != f"Xid = {e.xid}":
                bad.append(f"{where}: xid {e.xid} vs {t.desc}")
        elif isinstance(e, Rotate):
            if not t.desc.startswith(f"Rotate to {e.next_file}  pos: {e.next_pos}"):
                bad.append(f"{where}: rotate {e.next_file}:{e.next_pos} vs {t.desc}")
        elif not isinstance(e, FormatDescription | Unknown | Intvar | Rand | UserVar | Stop):
            bad.append(f"{where}: unchecked {type(e).__name__}")
    return bad


TYPES_TABLE = """CREATE TABLE types (
  id INT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT, f FLOAT, d DOUBLE,
  dec1 DECIMAL(5,2), dec2 DECIMAL(30,10), dt DATE, tm TIME(2), dtm DATETIME(6), ts TIMESTAMP(3) NULL,
  y YEAR, c CHAR(10), cl CHAR(100) CHARACTER SET utf8mb4, v VARCHAR(300), vb VARBINARY(10), bn BINARY(4),
  tb TINYBLOB, tx TEXT, mt MEDIUMTEXT, lb LONGBLOB, e ENUM('a','b','c'), st SET('x','y','z'),
  b1 BIT(1), b17 BIT(17), j JSON, g GEOMETRY, ip INET6, u UUID
) ENGINE=InnoDB"""

ROW_VALUES = ("(1, -1, 65535, -8388608, 9223372036854775807, 1.5, -2.25, 123.45,"
              " -12345678901234567890.0123456789,"
              " '2024-02-29', '-838:59:59.99', '2024-01-01 10:11:12.123456', '2024-01-01 00:00:01.5', 2024,"
              " 'char', REPEAT('é', 100), REPEAT('v', 300), 'vb', 'bn', 'tb', 'text', REPEAT('m', 70000),"
              " REPEAT('L', 100000), 'b', 'x,z', 1, 65535, '{\"k\": [1, 2]}', POINT(1, 2), '::1',"
              " '123e4567-e89b-12d3-a456-426655440000')")
NULL_ROW = "(2" + ", NULL" * 30 + ")"

WORKLOAD = [
    TYPES_TABLE,
    "CREATE TABLE n (a INT PRIMARY KEY, b VARCHAR(20), c TEXT) ENGINE=MyISAM",
    "CREATE TABLE nopk (a INT, b INT) ENGINE=InnoDB",
    f"INSERT INTO types VALUES {ROW_VALUES}, {NULL_ROW}",
    "UPDATE types SET v = 'changed', tx = NULL WHERE id = 1",
    "UPDATE types SET ti = 5",
    "INSERT INTO n SELECT seq, CONCAT('r', seq), REPEAT('z', seq % 300) FROM seq_1_to_3000",
    "UPDATE n SET b = 'upd' WHERE a % 3 = 0",
    "INSERT INTO nopk SELECT seq, seq FROM seq_1_to_50",
    "UPDATE nopk SET b = b + 1 WHERE a < 10",
    "DELETE FROM nopk WHERE a > 40",
    "SET @v = 'uservar'",
    "INSERT INTO n (a, b) VALUES (100000, @v)",
    "INSERT INTO n (a, b) VALUES (100001, UUID())",
    "BEGIN",
    "INSERT INTO nopk VALUES (1000, 1)",
    "INSERT INTO n (a) VALUES (100002)",
    "COMMIT",
    "FLUSH BINARY LOGS",
    "CREATE TABLE cs ENGINE=InnoDB SELECT a, b FROM n WHERE a < 10",
    "DELETE FROM types WHERE id = 2",
    "DELETE FROM n",
    "DROP TABLE cs, nopk",
]

CONFIGS = {
    "row-full-meta": ["--binlog-format=ROW", "--binlog-row-metadata=FULL"],
    "row-minimal": ["--binlog-format=ROW", "--binlog-row-image=MINIMAL"],
    "row-noblob-compressed": ["--binlog-format=ROW", "--binlog-row-image=NOBLOB", "--log-bin-compress=ON",
                              "--log-bin-compress-min-len=10"],
    "mixed": ["--binlog-format=MIXED"],
    "statement": ["--binlog-format=STATEMENT"],
}


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_decoder_agrees_with_mariadb_binlog(config: str) -> None:
    with LocalMariaDB(CONFIGS[config]) as server:
        run_statements(server, [("default", s) for s in WORKLOAD])
        files = binlog_files(server.binlog_dir())
        assert len(files) == 2  # FLUSH BINARY LOGS: a Rotate and a second file are decoded too
        total_rows = 0
        for f in files:
            ours = list(read_file(f))
            theirs = tool_events(f)
            assert len(theirs) > 3
            assert compare(ours, theirs) == []
            total_rows += sum(e.rows for e in ours if isinstance(e, Rows))
        if config.startswith("row"):
            assert total_rows > 3000
        if config == "row-noblob-compressed":
            assert any(e.compressed for f in files for e in read_file(f) if isinstance(e, Rows))
