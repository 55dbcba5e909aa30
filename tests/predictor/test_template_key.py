"""template_key(): the cheap first-level analysis key. Statements sharing a key share a template_text(),
and fingerprint() of that text is the statement's own fingerprint, so they share an analysis."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from harness import check as C
from predictor.fingerprint import fingerprint
from predictor.template_key import template_key, template_text
from predictor.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
FILES = C.workload_files([ROOT / "fixtures" / "seeds"]) + sorted((ROOT / "fixtures" / "workloads").glob("*.sql"))

TRICKY = [
    "UPDATE t SET a = 1, b = 'x' WHERE id = 10",
    "update t set a=2,b='yy' where id=11",
    "UPDATE t SET a = 1.5e3, b = '' WHERE id = 12;",
    "DELETE FROM t WHERE a = 1 LIMIT 5",
    "DELETE FROM t WHERE a = 1 limit 0",
    "SELECT * FROM t LIMIT 1, 10",
    "SELECT * FROM t LIMIT 10 OFFSET 5",
    "SELECT * FROM t WHERE id IN (1, 2, 3) LIMIT 2",
    "select -1, a - 1, a-1, a--1, .5, 5., 1e5, 1e-5, 0x1F, 0b11, X'0A', b'01', n'x' from t",
    "SELECT a FROM t WHERE id = ?",
    "SELECT a FROM t1 WHERE t1.c2 = 3",
    "SELECT a FROM 1t WHERE x = 1",
    "SELECT @1, @@x, @a := 5 FROM t",
    "INSERT INTO t VALUES (1, 'a;b', 'c -- d', '# e', '/* f */')",
    "SELECT 'unterminated",
    "(SELECT a FROM t WHERE b = 1) UNION (SELECT a FROM u WHERE b = 2)",
    "WITH c AS (SELECT 1 AS x) SELECT x FROM c WHERE x > 2",
    "REPLACE INTO kv VALUES ('a', 1)",
    "SELECT*FROM t WHERE a=1",
    "INSERT(a) VALUES (1)",
    "  SELECT a FROM t WHERE b = 1",
    "DO SLEEP(1)",
    "TABLE t LIMIT 3",
    "SELECT a FROM t WHERE b = 1\tAND c = 2\nAND d = 3",
    "SELECT 1 FROM t LIMIT ?, 5",
    "SELECT 'x' 'y' FROM t",
    "SELECT 3,4 FROM t LIMIT 1,2",
]


def _statements() -> list[str]:
    out = list(TRICKY)
    for f in FILES:
        out.extend(st.sql for st in load_workload(f).statements)
    rnd = random.Random(3)
    for sql in list(out):  # the same statements with other numbers
        out.append("".join(str(rnd.randint(0, 99)) if c.isdigit() and rnd.random() < 0.5 else c for c in sql))
    return out


def test_one_key_means_one_template_text_and_the_statements_own_fingerprint() -> None:
    texts: dict[bytes, tuple[str, str]] = {}
    keyed = 0
    for sql in _statements():
        key = template_key(sql)
        text = template_text(sql)
        assert (key is None) == (text is None), sql
        if key is None or text is None:
            continue
        keyed += 1
        assert fingerprint(text) == fingerprint(sql), sql
        first = texts.setdefault(key, (text, sql))
        assert first[0] == text, (first[1], sql)
    assert keyed > 400
    assert len(texts) < keyed  # the variants with other numbers do share keys


def test_digits_that_decide_stay_in_the_key() -> None:
    # in an identifier, after LIMIT, in a hex or binary literal (whether 0b12 is a number depends on them)
    for a, b in [("SELECT a FROM t1 WHERE id = 5", "SELECT a FROM t2 WHERE id = 5"),
                 ("DELETE FROM t WHERE a = 1 LIMIT 1", "DELETE FROM t WHERE a = 1 LIMIT 2"),
                 ("SELECT 0b11 FROM t", "SELECT 0b12 FROM t"), ("SELECT 0x1F FROM t", "SELECT 0x2F FROM t")]:
        assert template_key(a) != template_key(b), (a, b)
    assert template_text("SELECT 0b12 FROM t") == "SELECT 0b12 FROM t"
    assert template_text("DELETE FROM t3 WHERE a = 1.5 LIMIT 2") == "DELETE FROM t3 WHERE a = ? LIMIT 2"


@pytest.mark.parametrize("sql", [
    "INSERT INTO t1 (id, a, b) VALUES (12345, 67890, 'v67890')",
    "UPDATE m3 SET b = 'y1234' WHERE id = 5678 LIMIT 1",
    "DELETE FROM t2 WHERE id = 715832",
    "select a from t where id = 3",
])
def test_plain_dml_gets_a_key(sql: str) -> None:
    assert template_key(sql) is not None


@pytest.mark.parametrize("sql", [
    "SET SESSION binlog_format = 'ROW'", "CREATE TABLE t (a VARCHAR(10))", "CALL p(1)", "BEGIN",
    "SELECT `a` FROM t", 'SELECT "a" FROM t', "SELECT a FROM t -- c", "SELECT a FROM t # c",
    "SELECT /* c */ a FROM t", "SELECT 'it''s'", "SELECT 'a\\'b'", "SELECT 'é'", "SELECT 'open",
])
def test_everything_else_is_left_to_fingerprint(sql: str) -> None:
    assert template_key(sql) is None


@pytest.mark.parametrize(("a", "b"), [
    ("DELETE FROM t LIMIT 0", "DELETE FROM t LIMIT 5"),
    ("SELECT * FROM t LIMIT 1, 10", "SELECT * FROM t LIMIT 2, 10"),
    ("SELECT * FROM t1", "SELECT * FROM t2"),
    ("INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1), (2)"),
    ("UPDATE t SET a = NULL", "UPDATE t SET a = 1"),
    ("SELECT a FROM t WHERE id = ?", "SELECT a FROM t WHERE id = b"),
])
def test_decisive_differences_survive(a: str, b: str) -> None:
    assert template_key(a) != template_key(b)


def test_literals_share_a_key() -> None:
    # numbers of one length (a number's length is in the key: see predictor/template_key.py), any strings
    assert template_key("UPDATE t SET a = 1, b = 'x' WHERE id = 10 LIMIT 1") == template_key(
        "UPDATE t SET a = 2, b = 'yy' WHERE id = 57 LIMIT 1")
    assert template_text("UPDATE t SET a = 1, b = 'x' WHERE id = 10") == template_text(
        "UPDATE t SET a = 22, b = 'yy' WHERE id = 0.5")
