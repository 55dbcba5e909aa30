"""literal_rows(): the key values of a plain INSERT ... VALUES without a parse. Whenever it answers, the
answer is the one data.py's sqlglot path gives; it answers for the plain statements a workload repeats."""

from __future__ import annotations

import random

import pytest
from sqlglot import exp

from predictor import data
from predictor.analyze import analyze
from predictor.catalog import Table
from predictor.evaluate import UNKNOWN, Fresh
from predictor.literals import _FUNCTIONS, UNSURE, literal_rows
from predictor.moments import CLOCK
from predictor.parse import parse

TABLE_SQL = "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), c INT, UNIQUE KEY (b, c))"


def _table() -> Table:
    t = analyze(TABLE_SQL).table_def
    assert t is not None
    return t


def _parsed(sql: str, t: Table, monkeypatch: pytest.MonkeyPatch) -> object:
    tree = parse(sql)
    return _same(data.values_rows(tree, t)) if isinstance(tree, exp.Insert) else None


def _same(rows: object) -> object:
    """Rows with each UUID() value (a Fresh: equal only to itself) as one marker, to compare two answers."""
    if not isinstance(rows, list):
        return rows
    return [{c: "FRESH" if isinstance(v, Fresh) else v for c, v in r.items()} for r in rows]


PLAIN = [
    "INSERT INTO t VALUES (1, 2, 'x', 3)",
    "insert into t values (-5, 007, 'Ab  ', NULL)",
    "INSERT IGNORE INTO t (id, b, c) VALUES (1, 'q', 2), (2, 'Q ', 2),(3,NULL,-1)",
    "INSERT INTO t (id, a) VALUES (10, UUID())",
    "INSERT INTO t (id, a, b) VALUES (10, 1.50, 'a,b (c)')",
    "INSERT INTO db1.t VALUES(1, 2, 'x', 3);",
    "INSERT INTO t (id, a) VALUES (1, 2, 3)",  # arity: not evaluable (None) on both paths
    "INSERT INTO t\n  (id, a)\nVALUES\n  (1, NOW())",
]
NOT_PLAIN = [
    "INSERT INTO t VALUES (1, 2, 'it''s', 3)",
    "INSERT INTO t VALUES (1, 2, 'a\\'b', 3)",
    "INSERT INTO t VALUES (1 + 1, 2, 'x', 3)",
    "INSERT INTO t VALUES (0x1F, 2, 'x', 3)",
    "INSERT INTO t (id, b) VALUES (1.5, 'x')",
    "INSERT INTO t VALUES (- 1, 2, 'x', 3)",
    "INSERT INTO t SET id = 1, b = 'x'",
    "INSERT INTO t VALUES (1, 2, 'x', 3) ON DUPLICATE KEY UPDATE a = 1",
    "INSERT INTO `t` VALUES (1, 2, 'x', 3)",
    "INSERT INTO t VALUES (1, 2, \"x\", 3)",
    "INSERT INTO t /* c */ VALUES (1, 2, 'x', 3)",
    "INSERT INTO t (id, key) VALUES (1, 2)",
    "INSERT INTO t VALUES (1, (SELECT 1), 'x', 3)",
    "INSERT INTO t VALUES (1, 2, 'x', 3), ",
    "INSERT INTO t VALUES (1, 2, 'x'",
    "INSERT INTO t VALUES (1, 2, 'x', 3) garbage",
    "INSERT INTO t VALUES (1, 2, N'x', 3)",
    "INSERT LOW_PRIORITY INTO t VALUES (1, 2, 'x', 3)",
    "REPLACE INTO t VALUES (1, 2, 'x', 3)",
    "INSERT INTO t VALUES (1, 2, _utf8'x', 3)",
    "INSERT INTO t (id, b) SELECT 1, 'x'",
    "INSERT INTO t VALUES (1, 2, 'é', 3)",
]


@pytest.mark.parametrize("sql", PLAIN)
def test_plain_inserts_are_answered_as_parsing_would(sql: str, monkeypatch: pytest.MonkeyPatch) -> None:
    t = _table()
    fast = literal_rows(sql, t)
    assert fast is not UNSURE
    assert _same(fast) == _parsed(sql, t, monkeypatch)


@pytest.mark.parametrize("sql", NOT_PLAIN)
def test_anything_else_is_left_to_the_parser(sql: str, monkeypatch: pytest.MonkeyPatch) -> None:
    t = _table()
    assert literal_rows(sql, t) is UNSURE
    _parsed(sql, t, monkeypatch)  # and the parser path still answers


def test_generated_inserts_agree_with_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(5)
    plain = ["1", "-2", "0", "007", "'x'", "'X  '", "' a,b'", "NULL", "null", "1.5", "-0.25", "UUID()", "now()"]
    other = ["''", "1+1", "0x10", "'it''s'", "(1)", "DEFAULT", "-'x'", "CURRENT_TIMESTAMP", "RAND(1)"]
    t = _table()
    answered = 0
    for _ in range(400):
        cols = rnd.choice([None, ["id", "b", "c"], ["id", "a"], ["b", "c", "id", "a"]])
        width = len(cols) if cols else 4
        width += rnd.random() < 0.05  # now and then a row of the wrong arity
        rows = [[rnd.choice(plain if rnd.random() < 0.95 else other) for _ in range(width)]
                for _ in range(rnd.randint(1, 3))]
        head = rnd.choice(["INSERT INTO t", "insert ignore into t", "INSERT INTO t "])
        col_list = f" ({', '.join(cols)})" if cols else ""
        sql = f"{head}{col_list} VALUES " + ", ".join(f"({', '.join(r)})" for r in rows)
        fast = literal_rows(sql, t)
        if fast is not UNSURE:
            answered += 1
            assert _same(fast) == _parsed(sql, t, monkeypatch), sql
    assert answered > 60


@pytest.mark.parametrize("function", sorted(_FUNCTIONS))
def test_every_function_a_plain_value_may_call_parses(function: str, monkeypatch: pytest.MonkeyPatch) -> None:
    t = _table()
    sql = f"INSERT INTO t (id, a) VALUES (7, {function.lower()})"
    name = function.removesuffix("()")
    # a clock reading is a Moment (moments.py), a UUID a Fresh value
    expected = "FRESH" if name in ("UUID", "UUID_SHORT") else CLOCK.get(name, UNKNOWN)
    assert _same(literal_rows(sql, t)) == [{"id": 7, "a": expected}] == _parsed(sql, t, monkeypatch)
