"""Replay records what a real MariaDB said per statement: errors, warnings, unsafe reasons, sessions."""

from __future__ import annotations

import pytest

from harness.backends.local import LocalPair
from harness.connect import query
from harness.execution import Execution
from harness.replay import ReplayOptions, replay, session_set_sql, translate_var
from predictor.workload import parse_workload

pytestmark = pytest.mark.server

SETUP = """
CREATE TABLE i (a INT PRIMARY KEY AUTO_INCREMENT, b INT, UNIQUE KEY (b)) ENGINE=InnoDB;
CREATE TABLE m (a BIGINT, b VARCHAR(64)) ENGINE=MyISAM;
CREATE TABLE bh (a INT) ENGINE=BLACKHOLE;
INSERT INTO m VALUES (1, 'x'), (2, 'y');
INSERT INTO i (b) VALUES (1);
"""


def run(pair: LocalPair, body: str, **session_vars: str) -> list[Execution]:
    opts = ReplayOptions(session_vars={"binlog_format": "STATEMENT", **session_vars})
    result = replay(parse_workload(SETUP + body), pair, opts)
    assert result.error is None
    return result.executions


# (seed document, statement, expected error, expected warning codes, expected unsafe reasons)
CASES = [
    ("003 unsafe LIMIT", "DELETE FROM m LIMIT 1", None, (1592,), ("LIMIT",)),
    ("003 unsafe system function", "INSERT INTO m VALUES (UUID_SHORT(), 'z')", None, (1592,),
     ("SYSTEM_FUNCTION",)),
    ("003 unsafe system variable", "INSERT INTO m VALUES (1, @@hostname)", None, (1592,),
     ("SYSTEM_VARIABLE",)),
    ("003 INSERT IGNORE SELECT", "INSERT IGNORE INTO i (b) SELECT a FROM m", None, (1062, 1592),
     ("INSERT_IGNORE_SELECT", "WRITE_AUTOINC_SELECT")),
    ("003 REPLACE SELECT", "REPLACE INTO m SELECT * FROM m", None, (1592,), ("REPLACE_SELECT",)),
    ("003 UPDATE IGNORE", "UPDATE IGNORE i SET b = 2", None, (1592,), ("UPDATE_IGNORE",)),
    ("003 ON DUPLICATE KEY two keys", "INSERT INTO i (a, b) VALUES (1, 1) ON DUPLICATE KEY UPDATE b = 3",
     None, (1592,), ("INSERT_TWO_KEYS",)),
    ("003 CREATE SELECT autoinc", "CREATE TABLE c (a INT AUTO_INCREMENT PRIMARY KEY) SELECT 5 AS b", None,
     (1592,), ("CREATE_SELECT_AUTOINC",)),
    ("003 missing table", "INSERT INTO nosuch VALUES (1)", 1146, (), ()),
    ("003 duplicate key error", "INSERT INTO i (a, b) VALUES (1, 9)", 1062, (), ()),
    ("003 warning without binlog", "SELECT 1/0", None, (1365,), ()),
    ("002 two engines, none self-logging", "UPDATE m JOIN bh ON m.a = bh.a SET m.b = 'q'", None, (), ()),
    ("003 safe statement", "INSERT INTO m VALUES (3, 'z')", None, (), ()),
]


@pytest.mark.parametrize(("doc", "sql", "error", "warnings", "unsafe"), CASES, ids=[c[0] for c in CASES])
def test_statement_outcome(pair: LocalPair, doc: str, sql: str, error: int | None,
                           warnings: tuple[int, ...], unsafe: tuple[str, ...]) -> None:
    last = run(pair, sql + ";\n")[-1]
    assert last.sql == sql
    assert last.error == error
    assert last.warning_codes == warnings
    assert tuple(sorted(last.unsafe)) == unsafe
    if error is not None:
        assert last.error_message and any(m.code == error for m in last.messages)


def test_000_innodb_read_committed_is_row_only(pair: LocalPair) -> None:
    """WL#3303: a row-only engine under STATEMENT fails with 1665 (also checks the tx_isolation rename)."""
    last = run(pair, "INSERT INTO i (b) VALUES (5);\n", transaction_isolation="READ-COMMITTED")[-1]
    assert last.error == 1665
    assert "READ COMMITTED" in (last.error_message or "")


def test_001_nontrans_after_trans_note(pair: LocalPair) -> None:
    ex = run(pair, "BEGIN;\nINSERT INTO i (b) VALUES (5);\nUPDATE m SET a = 10;\nCOMMIT;\n")
    update = ex[-2]
    assert update.unsafe == ("NONTRANS_AFTER_TRANS",)
    assert update.warning_codes == (1592,)


def test_004_replica_only_statement_runs_on_replica(pair: LocalPair) -> None:
    body = ("CREATE TABLE r (a INT PRIMARY KEY, b INT);\n"
            "-- replica\nALTER TABLE r ADD COLUMN extra INT DEFAULT 7;\n"
            "INSERT INTO r VALUES (1, 2);\n")
    opts = ReplayOptions(session_vars={"binlog_format": "ROW", "binlog_row_image": "MINIMAL"})
    result = replay(parse_workload(body), pair, opts)
    assert result.error is None
    assert [e.replica_only for e in result.executions] == [False, True, False]
    assert all(e.error is None for e in result.executions)
    assert len(query(pair.primary, "SHOW COLUMNS FROM rplay.r")) == 2
    assert len(query(pair.replica, "SHOW COLUMNS FROM rplay.r")) == 3


def test_warnings_are_not_carried_over(pair: LocalPair) -> None:
    """SHOW WARNINGS keeps the previous list after SET; replay must not attribute it again."""
    ex = run(pair, "DELETE FROM m LIMIT 1;\nSET @x = 1;\nSELECT 1;\n")
    assert ex[-3].warning_codes == (1592,)
    assert ex[-2].messages == () and ex[-1].messages == ()


def test_row_count_read_next_keeps_its_value(pair: LocalPair) -> None:
    """SHOW WARNINGS resets ROW_COUNT(): when the session's next statement reads it, the warnings are left
    unread and the application sees the count it would see without rplay."""
    ex = run(pair, "INSERT IGNORE INTO i (b) VALUES (1), (7), (8);\nSET @n = ROW_COUNT();\n"
                   "INSERT INTO m VALUES (@n, 'rows');\nINSERT IGNORE INTO i (b) VALUES (1);\n"
                   "INSERT INTO m VALUES (ROW_COUNT(), 'after');\n")
    first = ex[-5]
    assert first.warnings_unread and first.messages == ()
    assert ex[-2].warnings_unread
    assert query(pair.primary, "SELECT a FROM rplay.m WHERE b = 'rows'")[0][0] == 2
    assert query(pair.primary, "SELECT a FROM rplay.m WHERE b = 'after'")[0][0] == 0


def test_warnings_read_when_row_count_is_not(pair: LocalPair) -> None:
    ex = run(pair, "INSERT IGNORE INTO i (b) VALUES (1);\nSET @n = 1;\n")
    assert not ex[-2].warnings_unread
    assert ex[-2].warning_codes == (1062,)


def test_sessions_have_own_connection_ids(pair: LocalPair) -> None:
    body = "SELECT 1;\n-- connection con1\nSELECT 2;\n-- connection default\nSELECT 3;\n"
    ex = run(pair, body)
    default_ids = {e.thread_id for e in ex if e.session == "default"}
    con1_ids = {e.thread_id for e in ex if e.session == "con1"}
    assert len(default_ids) == 1 and len(con1_ids) == 1 and default_ids != con1_ids


def test_statement_error_does_not_stop_the_run(pair: LocalPair) -> None:
    ex = run(pair, "INSERT INTO nosuch VALUES (1);\nINSERT INTO m VALUES (9, 'after');\n")
    assert ex[-2].error == 1146 and ex[-1].error is None
    assert query(pair.primary, "SELECT COUNT(*) FROM rplay.m WHERE a = 9")[0][0] == 1


@pytest.mark.parametrize(("sql", "trx", "stmt"), [
    ("INSERT INTO i (b) VALUES (50)", 1, 0),
    ("INSERT INTO m VALUES (50, 'n')", 0, 1),
    ("SELECT 1", 0, 0),
])
def test_cache_counters(pair: LocalPair, sql: str, trx: int, stmt: int) -> None:
    opts = ReplayOptions(session_vars={"binlog_format": "STATEMENT"}, cache_stats=True)
    last = replay(parse_workload(SETUP + sql + ";\n"), pair, opts).executions[-1]
    assert (last.trx_cache_use, last.stmt_cache_use) == (trx, stmt)


def test_session_vars_translation(pair: LocalPair) -> None:
    assert translate_var("transaction_isolation", pair.primary) == "tx_isolation"  # MariaDB 10.11
    sql = session_set_sql(pair.primary, {"transaction_isolation": "read committed", "binlog_format": "ROW"})
    assert sql is not None
    assert "tx_isolation = 'READ-COMMITTED'" in sql and "binlog_format = 'ROW'" in sql


def test_bad_set_is_a_usage_error(pair: LocalPair) -> None:
    from predictor.exceptions import UsageError

    with pytest.raises(UsageError, match="no_such_variable"):
        replay(parse_workload("SELECT 1;\n"), pair, ReplayOptions(session_vars={"no_such_variable": "1"}))


def test_result_sets_and_multi_result_calls(pair: LocalPair) -> None:
    """Result sets and CALLs (several results) go through pymysql's reader; the session stays usable."""
    body = ("CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; SELECT 1/0; END;\n"
            "CALL p();\nSELECT * FROM m;\nINSERT INTO m VALUES (5, 'after');\nSELECT * FROM nosuch;\n"
            "SELECT a FROM m WHERE a = 5;\n")
    ex = run(pair, body)[-6:]
    assert [e.error for e in ex] == [None, None, None, None, 1146, None]
    assert ex[1].warning_codes == (1365,)
    assert ex[2].messages == () and ex[3].messages == ()
    assert query(pair.primary, "SELECT COUNT(*) FROM rplay.m WHERE a = 5")[0][0] == 1


def test_long_statement(pair: LocalPair) -> None:
    values = ", ".join(f"({i}, '{'v' * 60}')" for i in range(60000))  # about 4.4 MB in one packet
    last = run(pair, f"INSERT INTO m VALUES {values};\n")[-1]
    assert last.error is None
    assert query(pair.primary, "SELECT COUNT(*) FROM rplay.m")[0][0] == 60002
