"""fingerprint(): one key per statement template; literals that change binlog decisions survive."""

from __future__ import annotations

import pytest

from predictor.fingerprint import fingerprint

# Each group: statements from one template, which must share a fingerprint.
SAME: list[tuple[str, list[str]]] = [
    (
        "literals and spacing",
        [
            "UPDATE t SET a = 1, b = 'x' WHERE id = 10",
            "update t set a=2,b='yy' where id=11",
            'UPDATE  t\n\tSET a = -0, b = "q"  WHERE id = 0x1F',
            "UPDATE t SET a = 1.5e3, b = '' WHERE id = 12;",
        ],
    ),
    (
        "strings with quotes, escapes, semicolons and comment markers",
        [
            "INSERT INTO t (a, b) VALUES (1, 'plain')",
            "INSERT INTO t (a, b) VALUES (2, 'it''s')",
            "INSERT INTO t (a, b) VALUES (3, 'back\\'slash\\\\')",
            "INSERT INTO t (a, b) VALUES (4, 'semi;colon -- not a comment /* nor this */ # nor this')",
            'INSERT INTO t (a, b) VALUES (5, "dq \\" and \'single\'")',
        ],
    ),
    (
        "comments dropped",
        [
            "SELECT a FROM t WHERE id = 1",
            "/* leading */ SELECT a FROM t WHERE id = 2 -- trailing",
            "SELECT a /* inline */ FROM t # hash comment\nWHERE id = 3",
        ],
    ),
    (
        "hex, bit and introducer literals",
        ["SELECT X'0A', b'01', 0b11 FROM t", "SELECT x'FFFF', B'1', 0b0 FROM t"],
    ),
    (
        "REPLACE and glued or commented heads",
        [
            "REPLACE INTO kv VALUES ('a', 1)",
            "replace into kv values ('bb', 22)",
            "/* c */REPLACE INTO kv VALUES ('', 0)",
        ],
    ),
    ("SELECT glued to a star", ["SELECT*FROM t WHERE a = 1", "SELECT * FROM t WHERE a = 2"]),
    ("parenthesised query", ["(SELECT a FROM t WHERE b = 1)", "( SELECT a FROM t WHERE b = 'x' )"]),
    (
        "same LIMIT, different values",
        ["DELETE FROM t WHERE a = 1 LIMIT 5", "DELETE FROM t WHERE a = 99 LIMIT 5"],
    ),
    (
        "IN-list of the same length",
        ["SELECT * FROM t WHERE id IN (1, 2, 3)", "SELECT * FROM t WHERE id IN (7,8,'9')"],
    ),
]

# Pairs that must not share a fingerprint.
DIFFERENT: list[tuple[str, str, str]] = [
    ("LIMIT 0 is safe on MariaDB", "DELETE FROM t LIMIT 0", "DELETE FROM t LIMIT 5"),
    ("LIMIT offset kept", "SELECT * FROM t LIMIT 1, 10", "SELECT * FROM t LIMIT 2, 10"),
    ("LIMIT OFFSET kept", "SELECT * FROM t LIMIT 10 OFFSET 0", "SELECT * FROM t LIMIT 10 OFFSET 5"),
    ("table name case is significant", "INSERT INTO t VALUES (1)", "INSERT INTO T VALUES (1)"),
    ("backquoted identifiers kept", "SELECT `a b` FROM t", "SELECT `a c` FROM t"),
    ("IN-list length", "SELECT * FROM t WHERE id IN (1, 2)", "SELECT * FROM t WHERE id IN (1, 2, 3)"),
    ("VALUES row count", "INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1), (2)"),
    ("NULL is not a literal placeholder", "UPDATE t SET a = NULL", "UPDATE t SET a = 1"),
    ("TRUE kept", "UPDATE t SET a = TRUE", "UPDATE t SET a = FALSE"),
    ("SET values kept", "SET SESSION binlog_format = 'ROW'", "SET SESSION binlog_format = 'STATEMENT'"),
    ("SET numbers kept", "SET @@session.sql_log_bin = 0", "SET @@session.sql_log_bin = 1"),
    ("DDL literals kept", "CREATE TABLE t (a VARCHAR(10))", "CREATE TABLE t (a VARCHAR(20))"),
    ("executable comments kept", "/*!40101 SET x = 1 */", "/*!40101 SET x = 2 */"),
    ("optimizer hints kept", "SELECT /*+ NO_ICP(t) */ a FROM t", "SELECT a FROM t"),
    ("identifiers with digits kept", "SELECT * FROM t1", "SELECT * FROM t2"),
    ("placeholder differs from a name", "SELECT a FROM t WHERE id = ?", "SELECT a FROM t WHERE id = b"),
    ("hash inside backquotes is not a comment", "SELECT `a#b` FROM t", "SELECT `a` FROM t"),
]

EXACT: list[tuple[str, str]] = [
    (
        "update accounts set balance=balance-42.50 where id=7 and note='x' limit 1",
        "UPDATE accounts SET balance = balance - ? WHERE id = ? AND note = ? LIMIT 1",
    ),
    ("INSERT INTO `My Table` VALUES (1, NULL, 'a');", "INSERT INTO `My Table` VALUES ( ? , NULL , ? )"),
    (
        "select * from t where a in (1,2) for update skip locked",
        "SELECT * FROM t WHERE a IN ( ? , ? ) FOR UPDATE SKIP LOCKED",
    ),
    ("SET SESSION binlog_format = 'ROW'", "SET SESSION binlog_format = 'ROW'"),
    ("CALL p(1, 'a')", "CALL p ( 1 , 'a' )"),
    ("SELECT a--1 FROM t", "SELECT a - ? FROM t"),
    ("SELECT -1, a - 1 FROM t WHERE b = -2", "SELECT ? , a - ? FROM t WHERE b = ?"),
]


@pytest.mark.parametrize(("title", "group"), SAME, ids=[t for t, _ in SAME])
def test_same_template_same_fingerprint(title: str, group: list[str]) -> None:
    prints = {fingerprint(sql) for sql in group}
    assert len(prints) == 1, f"{title}: {prints}"


@pytest.mark.parametrize(("title", "a", "b"), DIFFERENT, ids=[t for t, _, _ in DIFFERENT])
def test_decisive_differences_survive(title: str, a: str, b: str) -> None:
    assert fingerprint(a) != fingerprint(b), title


@pytest.mark.parametrize(("sql", "expected"), EXACT)
def test_exact_fingerprint(sql: str, expected: str) -> None:
    assert fingerprint(sql) == expected


def test_limit_numbers_stay_literal() -> None:
    assert fingerprint("DELETE FROM t WHERE a = 3 LIMIT 0").endswith("LIMIT 0")
    assert fingerprint("SELECT * FROM t LIMIT 3, 4") == "SELECT * FROM t LIMIT 3 , 4"


@pytest.mark.parametrize("sql", ["", "   ", ";", "'", "`", "/*", "SELECT 'open", "x\\", "--", "#"])
def test_degenerate_input_does_not_raise(sql: str) -> None:
    assert isinstance(fingerprint(sql), str)
