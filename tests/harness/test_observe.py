"""observe(): every statement gets the format, cache, group and row images the real binlog shows.

Workloads run on a real local MariaDB; expectations are written as ``FORMAT cache group`` (+ row events
``table:type:before:after``) per statement. Statements not listed must be ``NONE none None``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from binlog_server import LocalMariaDB, run_statements

from harness.observe import observe
from predictor.records import StatementRecord

pytestmark = pytest.mark.server

T = "CREATE TABLE t (a INT PRIMARY KEY, b INT, c TEXT) ENGINE=InnoDB"
N = "CREATE TABLE n (a INT PRIMARY KEY, b INT, c TEXT) ENGINE=MyISAM"
MULTI = "UPDATE t, n SET t.b = t.b + 10, n.b = n.b + 10 WHERE t.a = n.a"


def show(r: StatementRecord) -> str:
    s = f"{r.format.value} {r.cache.value} {r.group}"
    for e in sorted(r.row_events, key=lambda e: (e.table, e.type.value)):  # the order rows come in varies
        s += f" {e.table}:{e.type.value}:{','.join(e.before)}:{','.join(e.after)}"
    return s


@dataclass(frozen=True)
class Case:
    name: str
    opts: tuple[str, ...]
    statements: tuple[str, ...]  # "sql" or "session> sql"
    expect: dict[int, str]
    errors: dict[int, int | None] | None = None
    cache_stats: bool = True


CASES = [
    Case("001 statement: T autocommit trx, N autocommit stmt, N flushed before its transaction",
         ("--binlog-format=STATEMENT",),
         (T, N, "INSERT INTO t VALUES (1, 1, 'x')", "INSERT INTO n VALUES (1, 1, 'x')", "BEGIN",
          "INSERT INTO t VALUES (2, 2, 'y')", "INSERT INTO n VALUES (2, 2, 'y')", "COMMIT"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 2: "STATEMENT trx 2", 3: "STATEMENT stmt 3",
          5: "STATEMENT trx 4", 6: "STATEMENT trx 4"}),  # direct=OFF: N after T joins the trx cache
    Case("001 statement, binlog_direct_non_transactional_updates=ON: N after T goes to the stmt cache",
         ("--binlog-format=STATEMENT", "--binlog-direct-non-transactional-updates=ON"),
         (T, N, "BEGIN", "INSERT INTO t VALUES (2, 2, 'y')", "INSERT INTO n VALUES (2, 2, 'y')", "COMMIT"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 3: "STATEMENT trx 3", 4: "STATEMENT stmt 2"}),
    Case("001 row: N rows in the statement cache, T rows at commit; FULL images with names",
         ("--binlog-format=ROW", "--binlog-row-metadata=FULL"),
         (T, N, "BEGIN", "INSERT INTO t VALUES (1, 1, 'x')", "UPDATE n SET b = 5",
          "INSERT INTO n VALUES (1, 1, 'x')",
          "UPDATE t SET b = 3 WHERE a = 1", "COMMIT", "DELETE FROM n"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 3: "ROW trx 3 t:write::a,b,c",
          5: "ROW stmt 2 n:write::a,b,c", 6: "ROW trx 3 t:update:a,b,c:a,b,c",
          8: "ROW stmt 4 n:delete:a,b,c:"}),
    Case("004 MINIMAL images: PK before, written columns after", ("--binlog-format=ROW",
         "--binlog-row-image=MINIMAL", "--binlog-row-metadata=FULL"),
         (T, "INSERT INTO t (a, b) VALUES (1, 1), (2, 2)", "UPDATE t SET b = 9", "DELETE FROM t WHERE a = 1"),
         {0: "STATEMENT direct 0", 1: "ROW trx 1 t:write::a,b", 2: "ROW trx 2 t:update:a:b",
          3: "ROW trx 3 t:delete:a:"}),
    Case("004 NOBLOB images, names from information_schema (no FULL metadata)", ("--binlog-format=ROW",
         "--binlog-row-image=NOBLOB"),
         (T, "INSERT INTO t VALUES (1, 1, 'x')", "UPDATE t SET b = 9"),
         {0: "STATEMENT direct 0", 1: "ROW trx 1 t:write::a,b,c", 2: "ROW trx 2 t:update:a,b:a,b"}),
    Case("001 BEGIN...ROLLBACK with MyISAM and InnoDB: N change kept in a rollback group",
         ("--binlog-format=STATEMENT", "--binlog-direct-non-transactional-updates=OFF"),
         (T, N, "BEGIN", "INSERT INTO t VALUES (1, 1, 'x')", "INSERT INTO n VALUES (1, 1, 'x')", "ROLLBACK"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 3: "STATEMENT trx 2", 4: "STATEMENT trx 2"}),
    Case("003 CREATE...SELECT in row format: CREATE TABLE text + rows, trx cache; DROP rewrites",
         ("--binlog-format=ROW", "--binlog-row-metadata=FULL"),
         (N, "INSERT INTO n VALUES (1, 1, 'x'), (2, 2, 'y')",
          "CREATE TABLE cs ENGINE=InnoDB SELECT a, b FROM n",
          "CREATE TABLE d1 (a INT)", "DROP TABLE cs, d1", "DROP TABLE IF EXISTS n"),
         {0: "STATEMENT direct 0", 1: "ROW stmt 1 n:write::a,b,c", 2: "ROW trx 2 cs:write::a,b",
          3: "STATEMENT direct 3", 4: "STATEMENT direct 4", 5: "STATEMENT direct 5"}),
    Case("003 savepoints go through the transaction cache; a DDL commits the open transaction first",
         ("--binlog-format=STATEMENT",),
         (T, "BEGIN", "INSERT INTO t VALUES (1, 1, 'x')", "SAVEPOINT sp1", "INSERT INTO t VALUES (2, 2, 'y')",
          "ROLLBACK TO SAVEPOINT sp1", "INSERT INTO t VALUES (3, 3, 'z')", "CREATE TABLE other (a INT)",
          "COMMIT"),
         # MariaDB truncates the cache at ROLLBACK TO when only transactional changes follow the savepoint
         {0: "STATEMENT direct 0", 2: "STATEMENT trx 1", 3: "STATEMENT trx 1", 6: "STATEMENT trx 1",
          7: "STATEMENT direct 2"}),
    Case("001 two sessions: con2's N change is logged before con1's transaction",
         ("--binlog-format=ROW", "--binlog-row-metadata=FULL"),
         (T, N, "con1> BEGIN", "con1> INSERT INTO t VALUES (1, 1, 'x')",
          "con2> INSERT INTO n VALUES (1, 1, 'x')",
          "con1> UPDATE n SET b = b + 10", "con2> INSERT INTO t VALUES (2, 2, 'y')",
          "con2> UPDATE n SET b = b * 10", "con1> COMMIT"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 3: "ROW trx 6 t:write::a,b,c",
          4: "ROW stmt 2 n:write::a,b,c", 5: "ROW stmt 3 n:update:a,b,c:a,b,c", 6: "ROW trx 4 t:write::a,b,c",
          7: "ROW stmt 5 n:update:a,b,c:a,b,c"}),
    Case("repeated identical statements each get their own group",
         ("--binlog-format=STATEMENT",),
         (T, N, "REPLACE INTO n VALUES (1, 1, NULL)", "REPLACE INTO n VALUES (1, 1, NULL)",
          "UPDATE t SET b = 1",
          "BEGIN", "UPDATE n SET b = 1", "UPDATE n SET b = 1", "COMMIT", "UPDATE n SET b = 1"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 2: "STATEMENT stmt 2", 3: "STATEMENT stmt 3",
          4: "STATEMENT trx 4", 6: "STATEMENT stmt 5", 7: "STATEMENT stmt 6", 9: "STATEMENT stmt 7"}),
    Case("a failed N statement is logged with its error code",
         ("--binlog-format=STATEMENT",),
         (N, "INSERT INTO n VALUES (1, 1, 'x')", "INSERT INTO n VALUES (2, 2, 'x'), (1, 1, 'x')"),
         {0: "STATEMENT direct 0", 1: "STATEMENT stmt 1", 2: "STATEMENT stmt 2"}, errors={2: 1062}),
    Case("mixed: a trigger on T writes N, rows in both caches; savepoints kept around N changes",
         ("--binlog-format=ROW", "--binlog-row-metadata=FULL"),
         (T, N, "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW INSERT INTO n VALUES (NEW.a, NEW.b, NEW.c)",
          "INSERT INTO t VALUES (1, 1, 'x')", "BEGIN", "INSERT INTO t VALUES (2, 1, 'x')", "SAVEPOINT sp1",
          "INSERT INTO t VALUES (3, 2, 'y')", "ROLLBACK TO SAVEPOINT sp1", "COMMIT"),
         # autocommit: both caches go into one group (the counters tell it was mixed); in a transaction
         # the N rows are flushed at once, the T rows at COMMIT (their Table_map has no Annotate_rows)
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 2: "STATEMENT direct 2",
          3: "ROW mixed 3 n:write::a,b,c t:write::a,b,c", 5: "ROW mixed 4 n:write::a,b,c t:write::a,b,c",
          6: "STATEMENT trx 6", 7: "ROW mixed 5 n:write::a,b,c t:write::a,b,c", 8: "STATEMENT trx 6"}),
    Case("without cache counters: COMMIT-ended single statement = stmt, CREATE...SELECT = trx",
         ("--binlog-format=ROW", "--binlog-row-metadata=FULL"),
         (N, "INSERT INTO n VALUES (1, 1, 'x')", "CREATE TABLE c2 ENGINE=MyISAM SELECT * FROM n",
          "INSERT INTO n VALUES (2, 2, 'x')"),
         {0: "STATEMENT direct 0", 1: "ROW stmt 1 n:write::a,b,c", 2: "ROW trx 2 c2:write::a,b,c",
          3: "ROW stmt 3 n:write::a,b,c"}, cache_stats=False),
    # stored code (harness/binlog/README.md "Attribution"): texts the server rewrites, and units whose text
    # is a stored routine's / trigger's statement, go to the workload statement that ran them
    Case("003 rewritten texts: CREATE DEFINER= FUNCTION/PROCEDURE, ALGORITHM= VIEW, SELECT `db`.`f`(), "
         "CALL body",
         ("--binlog-format=STATEMENT",),
         ("CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
          "CREATE FUNCTION f() RETURNS INT DETERMINISTIC MODIFIES SQL DATA BEGIN UPDATE t SET b = b + 1; "
          "RETURN 1; END",
          "CREATE PROCEDURE p() UPDATE t SET b = b + 2", "CREATE VIEW v AS SELECT a FROM t",
          "INSERT INTO t VALUES (1, 0)", "SELECT f()", "CALL p()", "SELECT a FROM v"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 2: "STATEMENT direct 2", 3: "STATEMENT direct 3",
          4: "STATEMENT trx 4", 5: "STATEMENT trx 5", 6: "STATEMENT trx 6"}),
    Case("003 CALL unrolling: an autocommit CALL writes one group per body statement; the same body in a "
         "transaction goes to the second CALL", ("--binlog-format=MIXED", "--binlog-row-metadata=FULL"),
         ("CREATE TABLE t (a INT) ENGINE=InnoDB", "CREATE TABLE n (a INT) ENGINE=MyISAM",
          "CREATE PROCEDURE inner_p() INSERT INTO n VALUES (2)",
          "CREATE PROCEDURE outer_p() BEGIN INSERT INTO t VALUES (1); CALL inner_p(); "
          "UPDATE t SET a = a + 1; END", "CALL outer_p()", "BEGIN", "CALL outer_p()", "COMMIT"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 2: "STATEMENT direct 2", 3: "STATEMENT direct 3",
          4: "STATEMENT mixed 4", 6: "ROW mixed 7 n:write::a t:update:a:a"}),
    Case("003 a function's / trigger's / procedure's INSERT is the Annotate_rows text of the invoker's rows",
         ("--binlog-format=ROW", "--binlog-row-metadata=FULL"),
         ("CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB",
          "CREATE TABLE t (a INT) ENGINE=InnoDB", "CREATE TABLE t2 (a INT) ENGINE=InnoDB",
          "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW INSERT INTO ai (v) VALUES (NEW.a)",
          "CREATE FUNCTION f() RETURNS INT DETERMINISTIC MODIFIES SQL DATA "
          "BEGIN INSERT INTO ai (v) VALUES (0); RETURN 1; END",
          "CREATE PROCEDURE p() INSERT INTO ai (v) VALUES (7)",
          "INSERT INTO t VALUES (1)", "INSERT INTO t2 VALUES (f())", "CALL p()",
          "INSERT INTO ai (v) VALUES (9)"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 2: "STATEMENT direct 2", 3: "STATEMENT direct 3",
          4: "STATEMENT direct 4", 5: "STATEMENT direct 5", 6: "ROW trx 6 ai:write::id,v t:write::a",
          7: "ROW trx 7 ai:write::id,v t2:write::a", 8: "ROW trx 8 ai:write::id,v",
          9: "ROW trx 9 ai:write::id,v"}),
    Case("003 a CALL's loop writes its body text once per pass: the statements after it in the transaction "
         "(one with a trigger, a CALL of another procedure) do not take the repeats",
         ("--binlog-format=ROW", "--binlog-row-metadata=FULL"),
         ("CREATE TABLE tk (id INT AUTO_INCREMENT PRIMARY KEY, o INT) ENGINE=InnoDB",
          "CREATE TABLE pay (id INT AUTO_INCREMENT PRIMARY KEY, o INT) ENGINE=InnoDB",
          "CREATE TABLE aud (id INT AUTO_INCREMENT PRIMARY KEY, o INT) ENGINE=InnoDB",
          "CREATE TRIGGER pay_ai AFTER INSERT ON pay FOR EACH ROW INSERT INTO aud (o) VALUES (NEW.o)",
          "CREATE PROCEDURE seats(IN p_o INT, IN p_n INT) BEGIN DECLARE i INT DEFAULT 0; "
          "WHILE i < p_n DO INSERT INTO tk (o) VALUES (p_o); SET i = i + 1; END WHILE; END",
          "CREATE PROCEDURE points(IN p_o INT) INSERT INTO aud (o) VALUES (p_o)",
          "BEGIN", "CALL seats(1, 3)", "INSERT INTO pay (o) VALUES (1)", "CALL points(1)", "COMMIT"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 2: "STATEMENT direct 2", 3: "STATEMENT direct 3",
          4: "STATEMENT direct 4", 5: "STATEMENT direct 5", 7: "ROW trx 6 tk:write::id,o",
          8: "ROW trx 6 aud:write::id,o pay:write::id,o", 9: "ROW trx 6 aud:write::id,o"}),
    Case("001 shape 10: a multi-table UPDATE's T rows come at COMMIT without Annotate_rows",
         ("--binlog-format=MIXED", "--binlog-row-metadata=FULL"),
         ("CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
          "CREATE TABLE n (a INT PRIMARY KEY, b INT) ENGINE=MyISAM",
          "INSERT INTO t VALUES (1, 0)", "INSERT INTO n VALUES (1, 0)",
          "BEGIN", "INSERT INTO n VALUES (37, 0)", MULTI, "COMMIT",
          "BEGIN", "INSERT INTO n VALUES (39, 0)", MULTI, "ROLLBACK"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 2: "STATEMENT trx 2", 3: "STATEMENT stmt 3",
          5: "STATEMENT stmt 4", 6: "ROW mixed 5 n:update:a,b:a,b t:update:a,b:a,b", 9: "STATEMENT stmt 7",
          10: "ROW stmt 8 n:update:a,b:a,b"}),
    Case("mixed: a row-logged statement a ROLLBACK TO SAVEPOINT undid does not take the rows of a later one "
         "of the same text (MariaDB's row-only group has no thread id)",
         ("--binlog-format=MIXED", "--binlog-row-metadata=FULL"),
         ("CREATE TABLE u (id INT AUTO_INCREMENT PRIMARY KEY, ref VARCHAR(40)) ENGINE=InnoDB",
          "BEGIN", "INSERT INTO u (ref) VALUES ('kept')", "SAVEPOINT sp1", "INSERT INTO u (ref) VALUES (UUID())",
          "ROLLBACK TO SAVEPOINT sp1", "COMMIT", "INSERT INTO u (ref) VALUES (UUID())"),
         {0: "STATEMENT direct 0", 2: "STATEMENT trx 1", 3: "STATEMENT trx 1",
          7: "ROW trx 2 u:write::id,ref"}),
    Case("a statement that failed wrote nothing: the same text run again after a session change takes the "
         "query logged without an error (a child row refused 1452, then inserted with foreign_key_checks=0)",
         ("--binlog-format=STATEMENT",),
         ("CREATE TABLE p (id INT PRIMARY KEY) ENGINE=InnoDB",
          "CREATE TABLE c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES p (id)) ENGINE=InnoDB",
          "INSERT INTO c VALUES (1, 9)", "SET foreign_key_checks = 0", "INSERT INTO c VALUES (1, 9)",
          "SET foreign_key_checks = 1"),
         {0: "STATEMENT direct 0", 1: "STATEMENT direct 1", 4: "STATEMENT trx 2"}, errors={2: 1452}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_observe(case: Case, tmp_path: Path) -> None:
    stmts = []
    for s in case.statements:
        session, sep, sql = s.partition("> ")
        stmts.append((session, sql) if sep and session.startswith("con") else ("default", s))
    with LocalMariaDB(case.opts) as server:
        executions = run_statements(server, stmts, cache_stats=case.cache_stats)
        errors = case.errors or {}
        assert {e.seq: e.error for e in executions if e.error} == {k: v for k, v in errors.items() if v}
        obs = observe(executions, server)
    got = {r.seq: show(r) for r in obs.records}
    want = {k: case.expect.get(k, "NONE none None") for k in got}
    assert got == want
    assert [r.error for r in obs.records] == [e.error for e in executions]
    # every content event of the workload is attributed; boundaries and file events are not
    n = obs.write_events(tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert len(lines) == n == len(obs.events)
    content = [d for d in lines if d["event"] in ("Query", "RowsQuery", "TableMap", "Rows")
               and d.get("text", "").upper() not in ("BEGIN", "COMMIT", "ROLLBACK")]
    assert content and all(d["seq"] is not None for d in content)
