"""Statement fingerprints: literals become ``?``, shapes stay."""

from __future__ import annotations

import pytest

from harness.compare.fingerprint import fingerprint


@pytest.mark.parametrize(("a", "b"), [
    ("INSERT INTO t VALUES (1, 'a')", "insert into t values (22,'bb')"),
    ("INSERT INTO t VALUES (1, 'a'), (2, 'b')", "INSERT INTO t VALUES (3, 'c')"),
    ("UPDATE t SET a = -1 WHERE id IN (1, 2, 3)", "UPDATE t SET a = 5 WHERE id IN (7)"),
    ("SELECT 'it''s' FROM t -- comment", "SELECT \"x\" FROM t"),
    ("DELETE FROM t WHERE b = x'1F'", "DELETE FROM t WHERE b = 0x20"),
])
def test_same_shape(a: str, b: str) -> None:
    assert fingerprint(a) == fingerprint(b)


@pytest.mark.parametrize(("a", "b"), [
    ("INSERT INTO t1 VALUES (1)", "INSERT INTO t2 VALUES (1)"),
    ("UPDATE t SET a = a - 1", "UPDATE t SET a = a + 1"),
    ("SELECT `a` FROM t", "SELECT `b` FROM t"),
    ("DELETE FROM t LIMIT 1", "DELETE FROM t"),
])
def test_different_shape(a: str, b: str) -> None:
    assert fingerprint(a) != fingerprint(b)


def test_literals_are_gone_and_bad_sql_falls_back() -> None:
    assert fingerprint("INSERT INTO t VALUES (12345, 'secret')") == "INSERT INTO t VALUES ( ?+ )"
    assert fingerprint("SELECT 'unterminated") == "SELECT 'unterminated"
