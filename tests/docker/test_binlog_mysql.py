"""The decoder agrees, event by event, with MySQL 9.7's own ``mysqlbinlog --base64-output=decode-rows -vv``.

The MySQL counterpart of ``tests/harness/test_binlog_agreement.py``: a ``docker:mysql-9.7`` pair runs one
workload (DDL, transactions with a savepoint, XA, InnoDB + MyISAM, 30 column types incl. JSON, BLOB, DECIMAL,
DATETIME(6), BIT, ENUM/SET, GEOMETRY, VECTOR, partial JSON updates, a temporary table, a rotate) under every
binlog format / row image / value option / compression, and ``mysqlbinlog`` inside the container reads the
same files. Compared per event: position, end position, event type, query text, thread id and error code,
GTID text (tagged too), Rows_query text, Table_map names and ids, row event table id and STMT_END_F, row count,
the column sets of its ### @N lines and each column's metadata. 100% agreement is required.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pymysql
import pytest

from harness.backends.base import Pair, Server
from harness.backends.docker import DockerBackend
from harness.binlog.decoder import binlog_files, read_dir, read_file
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
    TransactionPayload,
    Unknown,
    UserVar,
    Xid,
)
from harness.connect import DATABASE, connect

pytestmark = pytest.mark.docker

_HEADER = re.compile(
    r"^#\d{6}\s+\d+:\d\d:\d\d server id (\d+)\s+end_log_pos (\d+)(?: CRC32 0x[0-9a-f]+)?\s+(.*)$")
_COL = re.compile(r"^###\s+@(\d+)=.*/\* .*meta=(\d+) nullable")
_GAVE_UP = re.compile(r"^###\s+@(\d+)=!! Don't know how to handle column type=\d+ meta=(\d+)")
"""mysqlbinlog -vv cannot print GEOMETRY values: it prints this for the column and drops the rest of the event."""
_GTID_NEXT = re.compile(r"SET @@SESSION\.GTID_NEXT= '([^']*)'/\*!\*/;")
_KINDS = (("Start:", "FormatDescription"), ("Previous-GTIDs", "Unknown"), ("GTID", "Gtid"),
          ("Anonymous_GTID", "Gtid"), ("Query", "Query"), ("Xid =", "Xid"), ("Rows_query", "RowsQuery"),
          ("Table_map", "TableMap"), ("Write_rows", "Rows"), ("Update_rows", "Rows"), ("Delete_rows", "Rows"),
          ("Transaction_Payload", "TransactionPayload"), ("Intvar", "Intvar"), ("Rand", "Rand"),
          ("User_var", "UserVar"), ("Rotate to", "Rotate"), ("Stop", "Stop"), ("XA PREPARE", "Unknown"))


@dataclass
class ToolEvent:
    """One event as mysqlbinlog printed it."""

    pos: int
    end_pos: int
    desc: str
    body: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        for prefix, name in _KINDS:
            if self.desc.startswith(prefix):
                return name
        return "Unknown"


def tool_events(server: Server, path: Path) -> list[ToolEvent]:
    out = subprocess.run([*server.binlog_tool(), "--base64-output=decode-rows", "-vv", str(path)],
                         capture_output=True, text=True, check=True, errors="replace", timeout=120).stdout
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
    return events


def _query_text(body: list[str]) -> str:
    blocks = "\n".join(body).split("/*!*/;")
    skip = ("DELIMITER", "# End", "ROLLBACK", "SET @@SESSION.GTID_NEXT")
    texts = [b.strip() for b in blocks if b.strip() and not b.strip().startswith(skip)]
    return texts[-1] if texts else ""


_ROW_HEAD = re.compile(r"^### (INSERT INTO|UPDATE|DELETE FROM) (`.*`)\.(`.*`)$")
_KIND = {"INSERT INTO": "write", "UPDATE": "update", "DELETE FROM": "delete"}

RunKey = tuple[str, str, str]  # schema, table, kind


@dataclass
class Run:
    """Rows of one (table, kind) since the last printed block of ### lines."""

    rows: int = 0
    before: set[int] = field(default_factory=set)
    after: set[int] = field(default_factory=set)
    meta: dict[int, int] = field(default_factory=dict)
    gave_up: bool = False  # mysqlbinlog stopped at a GEOMETRY value: what it printed is a prefix


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
            c = _COL.match(line) or _GAVE_UP.match(line)
            if c and section is not None and run is not None:
                run.gave_up = run.gave_up or "!! Don't know" in line
                section.add(int(c.group(1)) - 1)
                run.meta[int(c.group(1)) - 1] = int(c.group(2))
    return runs


def _prefix_agrees(ours: dict[RunKey, Run], theirs: dict[RunKey, Run]) -> bool:
    """Where mysqlbinlog gave up (GEOMETRY), what it did print must be a part of what we decoded."""
    if ours.keys() != theirs.keys():
        return False
    for key, t in theirs.items():
        o = ours[key]
        if not t.gave_up:
            if o != t:
                return False
        elif not (t.rows <= o.rows and t.before <= o.before and t.after <= o.after
                  and all(o.meta.get(c) == m for c, m in t.meta.items())):
            return False
    return True


@dataclass
class Tally:
    """Events compared; ``partly`` = row events mysqlbinlog printed only in part (GEOMETRY)."""

    events: int = 0
    partly: int = 0


def compare(ours: list[Event], theirs: list[ToolEvent], tally: Tally | None = None) -> list[str]:
    """Every disagreement as text (agreement is an empty list); counts go to ``tally``."""
    tally = tally if tally is not None else Tally()
    if [e.pos for e in ours] != [t.pos for t in theirs]:
        return [f"positions differ: ours {[e.pos for e in ours]} tool {[t.pos for t in theirs]}"]
    tally.events += len(ours)
    bad: list[str] = []
    run: dict[RunKey, Run] = {}
    maps: dict[int, TableMap] = {}
    for e, t in zip(ours, theirs, strict=True):
        where = f"{e.file}:{e.pos} {type(e).__name__}"
        if isinstance(e, TableMap):
            maps[e.table_id] = e
        if type(e).__name__ != t.kind:
            bad.append(f"{where}: type vs tool {t.kind} ({t.desc})")
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
            text = "\n".join(line[2:] for line in t.body if line.startswith("# "))
            if text != e.text:
                bad.append(f"{where}: rows_query {e.text!r} vs {text!r}")
        elif isinstance(e, Gtid):
            g = _GTID_NEXT.search("\n".join(t.body))
            if g is None or g.group(1) != e.gtid:
                bad.append(f"{where}: gtid {e.gtid} vs {g.group(1) if g else t.body}")
        elif isinstance(e, TableMap):
            exp = f"Table_map: `{e.schema}`.`{e.table}` mapped to number {e.table_id}"
            if t.desc != exp:
                bad.append(f"{where}: {exp!r} vs {t.desc!r}")
        elif isinstance(e, Rows):
            if f"table id {e.table_id} " not in t.desc or ("STMT_END_F" in t.desc) != e.stmt_end:
                bad.append(f"{where}: table id {e.table_id} stmt_end={e.stmt_end} vs {t.desc}")
            r = run.setdefault((e.schema, e.table, e.kind.value), Run())
            r.rows += e.rows
            r.before.update(e.before)
            r.after.update(e.after)
            r.meta.update({c: maps[e.table_id].column_meta[c] for c in (*e.before, *e.after)})
            theirs_run = tool_runs(t.body)
            if theirs_run or e.stmt_end:  # the tool prints rows per event or per statement: both work
                if any(r.gave_up for r in theirs_run.values()):
                    tally.partly += 1
                if not _prefix_agrees(run, theirs_run):
                    bad.append(f"{where}: rows/columns/metadata {run} vs tool {theirs_run}")
                run = {}
        elif isinstance(e, TransactionPayload):
            exp = (f"Transaction_Payload\t\tpayload_size={e.payload_size}\tcompression_type={e.compression}"
                   f"\tuncompressed_size={e.uncompressed_size}")
            if t.desc != exp.strip():
                bad.append(f"{where}: {exp!r} vs {t.desc!r}")
        elif isinstance(e, Xid):
            if t.desc != f"Xid = {e.xid}":
                bad.append(f"{where}: xid {e.xid} vs {t.desc}")
        elif isinstance(e, Rotate):
            if not t.desc.startswith(f"Rotate to {e.next_file}  pos: {e.next_pos}"):
                bad.append(f"{where}: rotate {e.next_file}:{e.next_pos} vs {t.desc}")
        elif not isinstance(e, FormatDescription | Unknown | Intvar | Rand | UserVar | Stop):
            bad.append(f"{where}: unchecked")
    return bad


TYPES_TABLE = """CREATE TABLE types (
  id INT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT, f FLOAT, d DOUBLE,
  dec1 DECIMAL(5,2), dec2 DECIMAL(30,10), dt DATE, tm TIME(2), dtm DATETIME(6), ts TIMESTAMP(3) NULL,
  y YEAR, c CHAR(10), cl CHAR(100) CHARACTER SET utf8mb4, v VARCHAR(300), vb VARBINARY(10), bn BINARY(4),
  tb TINYBLOB, tx TEXT, mt MEDIUMTEXT, lb LONGBLOB, e ENUM('a','b','c'), st SET('x','y','z'),
  b1 BIT(1), b17 BIT(17), j JSON, vec VECTOR(3)
) ENGINE=InnoDB"""

ROW_VALUES = ("(1, -1, 65535, -8388608, 9223372036854775807, 1.5, -2.25, 123.45,"
              " -12345678901234567890.0123456789,"
              " '2024-02-29', '-838:59:58.99', '2024-01-01 10:11:12.123456', '2024-01-01 00:00:01.5', 2024,"
              " 'char', REPEAT('é', 100), REPEAT('v', 300), 'vb', 'bn', 'tb', 'text', REPEAT('m', 70000),"
              " REPEAT('L', 100000), 'b', 'x,z', 1, 65535, '{\"k\": [1, 2]}',"
              " STRING_TO_VECTOR('[1, 2, 3]'))")
NULL_ROW = "(2" + ", NULL" * 28 + ")"
SEQ = "(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {n}) SELECT i FROM s) q"
DOC = "'{\"a\": 1, \"b\": [1, 2, 3], \"c\": \"" + "x" * 200 + "\"}'"

WORKLOAD: tuple[str, ...] = (
    "SET SESSION cte_max_recursion_depth = 10000",
    TYPES_TABLE,
    "CREATE TABLE n (a INT PRIMARY KEY, b VARCHAR(20), c TEXT) ENGINE=MyISAM",
    "CREATE TABLE nopk (a INT, b INT) ENGINE=InnoDB",
    "CREATE TABLE js (id INT PRIMARY KEY, doc JSON, note VARCHAR(10), big BLOB) ENGINE=InnoDB",
    "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB",
    "CREATE TABLE geo (id INT PRIMARY KEY, note VARCHAR(10), g GEOMETRY) ENGINE=InnoDB",
    f"INSERT INTO types VALUES {ROW_VALUES}, {NULL_ROW}",
    "UPDATE types SET v = 'changed', tx = NULL WHERE id = 1",
    "UPDATE types SET ti = 5",
    f"INSERT INTO n SELECT i, CONCAT('r', i), REPEAT('z', i % 300) FROM {SEQ.format(n=3000)}",
    "UPDATE n SET b = 'upd' WHERE a % 3 = 0",
    f"INSERT INTO nopk SELECT i, i FROM {SEQ.format(n=50)}",
    "UPDATE nopk SET b = b + 1 WHERE a < 10",
    "DELETE FROM nopk WHERE a > 40",
    f"INSERT INTO js VALUES (1, {DOC}, 'one', 'blob1'), (2, {DOC}, 'two', 'blob2'), (3, NULL, 'three', NULL)",
    "UPDATE js SET doc = JSON_SET(doc, '$.a', 42) WHERE id = 1",
    "UPDATE js SET doc = JSON_REPLACE(doc, '$.c', 'short'), note = 'changed'",
    "UPDATE js SET doc = JSON_REMOVE(doc, '$.b[0]') WHERE id = 2",
    "UPDATE js SET doc = '{\"whole\": \"new\"}', big = 'b' WHERE id = 2",
    "UPDATE js SET doc = JSON_SET(doc, '$.n', 1) WHERE id = 3",
    "UPDATE js SET note = 'plain'",
    "INSERT INTO geo VALUES (1, 'a', POINT(1, 2)), (2, 'b', NULL), (3, 'c', ST_GeomFromText('LINESTRING(0 0, 1 1)'))",
    "UPDATE geo SET note = 'moved', g = POINT(5, 5) WHERE id < 3",
    "DELETE FROM geo WHERE id = 3",
    "SET @v = 'uservar'",
    "INSERT INTO n (a, b) VALUES (100000, @v)",
    "INSERT INTO n (a, b) VALUES (100001, LEFT(UUID(), 20))",
    "INSERT INTO nopk VALUES (FLOOR(RAND() * 0), 1)",
    "INSERT INTO nopk VALUES (2001, CRC32(UUID()) * 0)",
    "INSERT INTO ai (v) VALUES (1), (2)",
    "INSERT INTO ai (v) VALUES (LAST_INSERT_ID())",
    "BEGIN",
    "INSERT INTO nopk VALUES (1000, 1)",
    "UPDATE types SET ti = 6 WHERE id = 1",
    "SAVEPOINT sp",
    "INSERT INTO nopk VALUES (1001, 1)",
    "ROLLBACK TO SAVEPOINT sp",
    "COMMIT",
    "BEGIN",
    "INSERT INTO n (a) VALUES (100002)",
    "COMMIT",
    "SET GTID_NEXT = 'AUTOMATIC:tagged'",
    "INSERT INTO nopk VALUES (2000, 2)",
    "SET GTID_NEXT = 'AUTOMATIC'",
    "XA START 'x1'",
    "INSERT INTO nopk VALUES (3000, 3)",
    "XA END 'x1'",
    "XA PREPARE 'x1'",
    "XA COMMIT 'x1'",
    "FLUSH BINARY LOGS",
    "CREATE TABLE cs ENGINE=InnoDB SELECT a, b FROM n WHERE a < 10",
    "CREATE TEMPORARY TABLE tmp (a INT) ENGINE=InnoDB",
    "INSERT INTO tmp VALUES (1)",
    "DROP TEMPORARY TABLE tmp",
    "DELETE FROM types WHERE id = 2",
    "DELETE FROM n",
    "DROP TABLE cs, nopk",
)

CONFIGS: dict[str, dict[str, str]] = {
    "row-full": {"binlog_format": "ROW"},
    "row-minimal": {"binlog_format": "ROW", "binlog_row_image": "MINIMAL"},
    "row-noblob": {"binlog_format": "ROW", "binlog_row_image": "NOBLOB"},
    "row-partial-json-minimal": {"binlog_format": "ROW", "binlog_row_image": "MINIMAL",
                                 "binlog_row_value_options": "PARTIAL_JSON"},
    "row-partial-json-full": {"binlog_format": "ROW", "binlog_row_value_options": "PARTIAL_JSON"},
    "row-compressed": {"binlog_format": "ROW", "binlog_row_image": "NOBLOB",
                       "binlog_row_value_options": "PARTIAL_JSON", "binlog_transaction_compression": "ON"},
    "mixed": {"binlog_format": "MIXED"},
    "statement": {"binlog_format": "STATEMENT"},
    "mixed-compressed": {"binlog_format": "MIXED", "binlog_transaction_compression": "ON"},
    "statement-compressed": {"binlog_format": "STATEMENT", "binlog_transaction_compression": "ON"},
}


def run_workload(server: Server, statements: Sequence[str]) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """Run the statements in one session: (statement, error code) of those that failed, and the rows
    each statement affected."""
    failed: list[tuple[str, int]] = []
    affected: dict[str, int] = {}
    conn = connect(server, database=DATABASE)
    try:
        with conn.cursor() as cur:
            for sql in statements:
                try:
                    affected[sql] = cur.execute(sql)
                except pymysql.err.MySQLError as e:
                    failed.append((sql, int(e.args[0])))
    finally:
        conn.close()
    return failed, affected


@pytest.mark.parametrize("config", list(CONFIGS))
def test_decoder_agrees_with_mysqlbinlog(config: str, built_images: object) -> None:
    with DockerBackend("mysql-9.7").start_pair(CONFIGS[config]) as pair:
        p = pair.primary
        failed, affected = run_workload(p, WORKLOAD)
        assert failed == []
        files = binlog_files(p.binlog_dir())
        assert len(files) == 2  # FLUSH BINARY LOGS: a Rotate and a second file are decoded too
        tally = Tally()
        ours_all: list[Event] = []
        for f in files:
            ours = list(read_file(f))
            theirs = tool_events(p, f)
            assert len(theirs) > 3
            bad = compare(ours, theirs, tally)
            assert bad == [], "\n".join(bad)
            ours_all += ours
        print(f"\n{config}: {tally.events} events compared, 100% equal "
              f"({tally.partly} row events with GEOMETRY only partly printed by mysqlbinlog)")
    rows = [e for e in ours_all if isinstance(e, Rows)]
    if config.startswith("row"):
        assert sum(e.rows for e in rows) > 3000
        # mysqlbinlog cannot print GEOMETRY: the row counts of `geo` are checked against the server instead
        geo = {k: sum(e.rows for e in rows if e.table == "geo" and e.kind.value == k)
               for k in ("write", "update", "delete")}
        assert geo == {"write": affected[WORKLOAD[WORKLOAD.index("DELETE FROM geo WHERE id = 3") - 2]],
                       "update": 2, "delete": 1}
    if "partial-json" in config or config == "row-compressed":
        assert any(e.type_code == 39 for e in rows)  # PARTIAL_UPDATE_ROWS really written and read
    # MySQL compresses only transactions of row events: never under STATEMENT, the row-logged ones in MIXED
    payloads = [e for e in ours_all if isinstance(e, TransactionPayload)]
    assert bool(payloads) == (config in ("row-compressed", "mixed-compressed"))
    assert any(isinstance(e, Gtid) and ":tagged:" in e.gtid for e in ours_all)


# ---------------------------------------------------------------------------------------------------------
# MySQL 9.7 facts the predictor relies on (docker/README.md, "MySQL 9.7 facts for the predictor")

FACT_SETUP = (
    "CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
    "CREATE TABLE t2 (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
    "CREATE TABLE m (id INT PRIMARY KEY, v INT) ENGINE=MyISAM",
    "CREATE TABLE daily (day DATE, kind VARCHAR(20), n INT, PRIMARY KEY (day, kind)) ENGINE=InnoDB",
    "INSERT INTO t VALUES (1, 1), (2, 2)",
    "INSERT INTO m VALUES (1, 1), (2, 2)",
)
OK: tuple[int | None, tuple[int, ...]] = (None, ())
ERR_1785 = (1785, (6414, 1785))  # SHOW WARNINGS lists the deprecation warning, then the error


@dataclass(frozen=True)
class Fact:
    """Statements run in one fresh session under ``fmt``: per statement (error, SHOW WARNINGS codes), and the
    binlog they wrote in short form (G GTID, B BEGIN, C COMMIT, X XID, P payload, Q(text), kind(table))."""

    name: str
    fmt: str
    statements: tuple[str, ...]
    outcomes: tuple[tuple[int | None, tuple[int, ...]], ...]
    binlog: str
    session: tuple[str, ...] = ()


FACTS = (
    Fact("6414+1785: N after T in a transaction", "ROW",
         ("BEGIN", "INSERT INTO t VALUES (3, 3)", "INSERT INTO m VALUES (3, 3)", "COMMIT"),
         (OK, OK, ERR_1785, OK), "G B write(t) X"),
    Fact("6414 alone: T after N in a transaction; N group first", "STATEMENT",
         ("BEGIN", "INSERT INTO m VALUES (3, 3)", "INSERT INTO t VALUES (3, 3)", "COMMIT"),
         (OK, OK, (None, (6414,)), OK),
         "G B Q(INSERT INTO m VALUES (3, 3)) C G B Q(INSERT INTO t VALUES (3, 3)) X"),
    Fact("6414+1785: multi-table update T+N in autocommit", "MIXED",
         ("UPDATE t, m SET t.v = 9, m.v = 9 WHERE t.id = m.id",), (ERR_1785,), ""),
    Fact("no 6414 when one engine is only read", "ROW",
         ("INSERT INTO m SELECT id + 10, v FROM t", "INSERT INTO t SELECT id + 10, v FROM m"), (OK, OK),
         "G B write(m) C G B write(t) X"),
    Fact("1287: VALUES() in ON DUPLICATE KEY UPDATE", "ROW",
         ("INSERT INTO daily SELECT CURDATE(), 'k', COUNT(*) FROM t ON DUPLICATE KEY UPDATE n = VALUES(n)",
          "INSERT INTO daily VALUES (CURDATE(), 'k', 6) AS new ON DUPLICATE KEY UPDATE n = new.n",
          "SELECT SQL_CALC_FOUND_ROWS * FROM t LIMIT 1", "SELECT 1 && 1",
          "CREATE TABLE dw (a INT(11)) ENGINE=InnoDB"),
         ((None, (1287,)), OK, (None, (1287,)), (None, (1287,)), (None, (1681,))),
         "G B write(daily) X G B update(daily) X G Q(CREATE TABLE dw (a INT(11)) ENGINE=InnoDB)"),
    Fact("CREATE ... SELECT in ROW: CREATE + rows, transaction cache", "ROW",
         ("CREATE TABLE cs ENGINE=InnoDB SELECT * FROM t", "CREATE TABLE cm ENGINE=MyISAM SELECT * FROM t"),
         (OK, (1786, (1786,))), "G B Q(CREATE TABLE `cs` () write(cs) X"),
    Fact("CREATE ... SELECT in MIXED: one statement, own group", "MIXED",
         ("CREATE TABLE cs ENGINE=InnoDB SELECT * FROM t",), (OK,),
         "G Q(CREATE TABLE cs ENGINE=InnoDB SELECT * FROM t)"),
    Fact("SAVEPOINT is written, ROLLBACK TO is not", "ROW",
         ("BEGIN", "INSERT INTO t VALUES (3, 3)", "SAVEPOINT s1", "INSERT INTO t VALUES (4, 4)",
          "ROLLBACK TO SAVEPOINT s1", "COMMIT"),
         (OK,) * 6, "G B write(t) Q(SAVEPOINT `s1`) X"),
    Fact("temporary tables in ROW: not logged", "ROW",
         ("CREATE TEMPORARY TABLE tmp (a INT) ENGINE=InnoDB", "INSERT INTO tmp VALUES (1)",
          "DROP TEMPORARY TABLE tmp", "CREATE TEMPORARY TABLE tmp3 (a INT)", "DROP TABLE tmp3, t2"),
         (OK,) * 5, "G Q(DROP TABLE `t2` /* generated by server */)"),
    Fact("temporary tables in STATEMENT: logged, DROP rewritten", "STATEMENT",
         ("CREATE TEMPORARY TABLE tmp3 (a INT)", "DROP TABLE tmp3, t2", "BEGIN",
          "CREATE TEMPORARY TABLE tmp6 (a INT)", "COMMIT"),
         (OK, OK, OK, (3748, (3748,)), OK),
         "G Q(CREATE TEMPORARY TABLE tmp3 (a INT)) G Q(DROP TABLE `t2` /* generated by server */) "
         "G Q(DROP TEMPORARY TABLE `tmp3` /* generated by server */)"),
    Fact("compression: only row transactions of transactional tables", "ROW",
         ("INSERT INTO m VALUES (5, 5)", "INSERT INTO t VALUES (5, 5)", "SET SESSION binlog_format = 'STATEMENT'",
          "INSERT INTO t VALUES (6, 6)"),
         (OK, OK, (None, (1287,)), OK),
         "G B write(m) C G P B write(t) X G B Q(INSERT INTO t VALUES (6, 6)) X",
         session=("SET SESSION binlog_transaction_compression = ON",)),
)


def _short(events: Sequence[Event]) -> str:
    out: list[str] = []
    for e in events:
        if isinstance(e, Gtid):
            out.append("G")
        elif isinstance(e, TransactionPayload):
            out.append("P")
        elif isinstance(e, Xid):
            out.append("X")
        elif isinstance(e, Query):
            text = e.text.strip()
            out.append({"BEGIN": "B", "COMMIT": "C"}.get(text, f"Q({text.splitlines()[0][:60]})"))
        elif isinstance(e, Rows):
            out.append(f"{e.kind.value}({e.table})")
    return " ".join(out)


@pytest.fixture(scope="module")
def shared_pair(built_images: object) -> Iterator[Pair]:
    with DockerBackend("mysql-9.7").start_pair({}) as pair:
        yield pair


@pytest.mark.parametrize("fact", FACTS, ids=[f.name for f in FACTS])
def test_mysql_facts(fact: Fact, shared_pair: Pair) -> None:
    p = shared_pair.primary
    shared_pair.reset()
    conn = connect(p, database=DATABASE)
    try:
        with conn.cursor() as cur:
            cur.execute(f"SET SESSION binlog_format = '{fact.fmt}'")
            for sql in (*fact.session, *FACT_SETUP):
                cur.execute(sql)
            start = len(list(read_dir(p.binlog_dir())))
            outcomes: list[tuple[int | None, tuple[int, ...]]] = []
            for sql in fact.statements:
                error: int | None = None
                try:
                    cur.execute(sql)
                except pymysql.err.MySQLError as e:
                    error = int(e.args[0])
                cur.execute("SHOW WARNINGS")
                outcomes.append((error, tuple(int(r[1]) for r in cur.fetchall())))
    finally:
        conn.close()  # in STATEMENT an open temporary table would be dropped (and logged) here
    assert tuple(outcomes) == fact.outcomes
    assert _short(list(read_dir(p.binlog_dir()))[start:]) == fact.binlog.strip()
