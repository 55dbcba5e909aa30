"""MySQL 9.7 rules found by running the corpus on docker:mysql-9.7 (each case was observed on 9.7.4).

Table-driven: a workload, a binlog_format, and per statement (error, warnings, format, group). The MariaDB
rows are controls: the same workload keeps its MariaDB behaviour.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from predictor.engines import load_engine_profiles
from predictor.predict import predict_workload
from predictor.records import Format
from predictor.workload import parse_workload

ENGINES = Path(__file__).resolve().parents[2] / "fixtures" / "engines"
HEAD = "CREATE TABLE t (a INT) ENGINE=InnoDB;\nCREATE TABLE n (a INT) ENGINE=MyISAM;\n"
S, R, N = Format.STATEMENT, Format.ROW, Format.NONE

# 6414 ("combining the storage engines ... is deprecated") is given once per transaction, also with 1785
ONCE = HEAD + """BEGIN;
INSERT INTO n VALUES (1);
INSERT INTO t VALUES (1);
INSERT INTO t VALUES (2);
UPDATE t SET a = (SELECT SUM(a) FROM n);
INSERT INTO n VALUES (3);
COMMIT;
BEGIN;
INSERT INTO t VALUES (1);
INSERT INTO n VALUES (1);
INSERT INTO n VALUES (2);
COMMIT;
UPDATE t, n SET t.a = 1, n.a = 2;
UPDATE t, n SET t.a = 1, n.a = 2;
"""
# ROLLBACK (and ROLLBACK TO) are logged only when the transaction cache holds what they cannot undo
ROLLBACK = HEAD + """BEGIN;
INSERT INTO n VALUES (1);
INSERT INTO t VALUES (1);
ROLLBACK;
BEGIN;
INSERT INTO n VALUES (2);
SAVEPOINT s;
INSERT INTO t VALUES (2);
ROLLBACK TO SAVEPOINT s;
INSERT INTO t VALUES (3);
COMMIT;
"""
# an error in a nested CALL ends the outer procedure too; the CALL reports the failed statement's 1592
NESTED = HEAD + """CREATE PROCEDURE inner_p() INSERT INTO n VALUES (2);
DELIMITER //
CREATE PROCEDURE outer_p()
BEGIN
  INSERT INTO t VALUES (1);
  CALL inner_p();
  UPDATE t SET a = a + 1;
END//
DELIMITER ;
BEGIN;
CALL outer_p();
COMMIT;
"""

CASES = [
    # (title, workload, profile, binlog_format, {statement index: (error, warnings, format, group)})
    ("6414 once per transaction", ONCE, "mysql-9.7", "STATEMENT", {
        3: (None, (), S, 2), 4: (None, (6414,), S, 3), 5: (None, (), S, 3), 6: (None, (1592,), S, 3),
        7: (1785, (), N, None), 10: (None, (), S, 4), 11: (1785, (6414,), N, None), 12: (1785, (), N, None),
        14: (1785, (6414,), N, None), 15: (1785, (6414,), N, None)}),
    ("6414 once per transaction, row", ONCE, "mysql-9.7", "ROW", {
        4: (None, (6414,), R, 3), 5: (None, (), R, 3), 6: (None, (), R, 3), 7: (1785, (), N, None)}),
    ("rollback of a cache without non-transactional changes", ROLLBACK, "mysql-9.7", "STATEMENT", {
        3: (None, (), S, 2), 4: (None, (6414,), N, None), 5: (None, (1196,), N, None),
        9: (None, (6414,), N, None), 10: (None, (1196,), N, None), 11: (None, (), S, 4)}),
    ("rollback control: MariaDB logs it", ROLLBACK, "mariadb-10.11", "STATEMENT", {
        3: (None, (), S, 2), 4: (None, (), S, 3), 5: (None, (1196,), N, None)}),
    ("nested CALL error, statement", NESTED, "mysql-9.7", "STATEMENT", {5: (1785, (1592, 6414), S, 4)}),
    ("nested CALL error, mixed", NESTED, "mysql-9.7", "MIXED", {5: (1785, (6414,), S, 4)}),
    ("nested CALL error, row", NESTED, "mysql-9.7", "ROW", {5: (1785, (6414,), R, 4)}),
]


@pytest.mark.parametrize(("title", "workload", "profile", "fmt", "want"), CASES, ids=[c[0] for c in CASES])
def test_mysql97_rule(title: str, workload: str, profile: str, fmt: str,
                      want: dict[int, tuple[int | None, tuple[int, ...], Format, int | None]]) -> None:
    recs = predict_workload(parse_workload(workload), profile, {"binlog_format": fmt})
    got = {i: (recs[i].error, tuple(sorted(recs[i].warnings)), recs[i].format, recs[i].group) for i in want}
    assert got == want


def test_nested_call_error_stops_the_outer_procedure() -> None:
    recs = predict_workload(parse_workload(NESTED), "mysql-9.7", {"binlog_format": "ROW"})
    assert [(e.table, e.type.value) for e in recs[5].row_events] == [("t", "write")]  # no UPDATE t rows
    mixed = predict_workload(parse_workload(NESTED), "mysql-9.7", {"binlog_format": "MIXED"})[5]
    assert mixed.reported_unsafe == ()  # MIXED reports no unsafe reason for the statement that failed


def test_logging_errors_come_before_the_gtid_check() -> None:
    """decide_logging_format raises 1661..1667 first; enforce_gtid_consistency's 1785 only without them."""
    w = parse_workload(
        "CREATE TABLE my (id INT PRIMARY KEY, x INT) ENGINE=MyISAM;\n"
        "CREATE TABLE ndb (id INT PRIMARY KEY, x INT, y INT) ENGINE=NDBCLUSTER;\n"
        "CREATE TABLE i (id INT PRIMARY KEY, x INT) ENGINE=InnoDB;\n"
        "UPDATE my, ndb SET ndb.x = my.x, my.x = ndb.y WHERE my.id = ndb.id;\n"
        "UPDATE my, i SET i.x = my.x, my.x = i.x WHERE my.id = i.id;\n")
    engines = load_engine_profiles(ENGINES / "ndb.toml")
    recs = predict_workload(w, "mysql-9.7", {"binlog_format": "ROW"}, engines=engines)
    assert (recs[3].error, recs[4].error) == (1667, 1785)
