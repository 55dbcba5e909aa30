"""Calls of stored functions that write run on the data model once each (predictor/function_runs.py). What the
servers log for them is in fixtures/seeds/003_logging_rules/function_sequence.sql; here: which calls can be run,
and the counter rows the model holds afterwards."""

from __future__ import annotations

import pytest
from sqlglot import exp

from predictor import function_runs
from predictor.evaluate import UNKNOWN, Known, Row, value
from predictor.parse import parse
from predictor.predict import Analyzer, Predictor
from predictor.profiles import get_profile
from predictor.workload import parse_workload

SCHEMA = """CREATE TABLE seq (name VARCHAR(8) PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
CREATE TABLE doc (id INT AUTO_INCREMENT PRIMARY KEY, no VARCHAR(20) NOT NULL UNIQUE) ENGINE=InnoDB;
INSERT INTO seq VALUES ('a', 0), ('b', 10);
DELIMITER //
CREATE FUNCTION nxt(p VARCHAR(8)) RETURNS INT DETERMINISTIC MODIFIES SQL DATA
BEGIN
  DECLARE r INT;
  UPDATE seq SET v = v + 1 WHERE name = p;
  SELECT v INTO r FROM seq WHERE name = p;
  RETURN r;
END//
DELIMITER ;
"""


def _writer(name: str) -> str | None:
    return "CREATE FUNCTION nxt ..." if name.lower() == "nxt" else None


@pytest.mark.parametrize(("title", "sql", "runs"), [
    ("one VALUES row", "INSERT INTO doc (no) VALUES (CONCAT('D', nxt('a')))", 1),
    ("two VALUES rows, in order", "INSERT INTO doc (no) VALUES (nxt('a')), (nxt('b'))", 2),
    ("SET of a user variable", "SET @n = nxt('a')", 1),
    ("SELECT without a table", "SELECT nxt('a'), nxt('a')", 2),
    ("DO", "DO nxt('a')", 1),
    ("no call", "INSERT INTO doc (no) VALUES ('x')", 0),
    ("once per row of a table", "INSERT INTO doc (no) SELECT nxt('a') FROM seq", None),
    ("under a condition", "SET @n = IF(@x, nxt('a'), 0)", None),
    ("an argument from a column", "UPDATE doc SET no = nxt(no)", None),
    ("a call inside another's arguments", "SET @n = nxt(nxt('a'))", None),
    ("in the ON DUPLICATE KEY UPDATE part", "INSERT INTO doc (no) VALUES ('x') ON DUPLICATE KEY UPDATE no = nxt('a')",
     None),
])
def test_calls_run_once(title: str, sql: str, runs: int | None) -> None:
    tree = parse(sql)
    assert isinstance(tree, exp.Expression), title
    found = function_runs.calls(tree, _writer)
    assert (None if found is None else len(found)) == runs, title


def test_put_replaces_calls_in_order() -> None:
    tree = parse("INSERT INTO doc (no) VALUES (nxt('a')), (nxt('b'))")
    assert isinstance(tree, exp.Expression)
    out = function_runs.put(tree, _writer, [7, 11])
    assert not list(out.find_all(exp.Anonymous))
    assert [value(x, {}) for x in out.find_all(Known)] == [7, 11]
    assert len(list(tree.find_all(exp.Anonymous))) == 2  # the parsed tree is left as it was


def _model(text: str) -> tuple[dict[str, object], list[Row] | None]:
    """The counters and documents the model holds after ``text`` (None: documents not followed)."""
    pred = Predictor(get_profile("mariadb-10.11"), {"binlog_format": "ROW"})
    analyze = Analyzer(True)
    for st in parse_workload(SCHEMA + text, "t.sql").statements:
        pred.step(st.seq, st.session, st.sql, analyze(st.sql))
    seq = pred.data.tables["seq"]
    doc = pred.data.tables["doc"]
    counters = {str(r["name"]): r["v"] for r in seq.live()} if seq.tracked else {}
    return counters, doc.live() if doc.tracked else None


@pytest.mark.parametrize(("title", "text", "counters", "docs"), [
    ("each call bumps its counter", "INSERT INTO doc (no) VALUES (CONCAT('D', nxt('a'))), (nxt('b'));",
     {"a": 1, "b": 11}, ["d1", "11"]),
    ("a failed statement takes its bump back",
     "INSERT INTO doc (no) VALUES ('1');\nINSERT INTO doc (no) VALUES (nxt('a'));", {"a": 0, "b": 10}, ["1"]),
    ("ROLLBACK takes it back",
     "START TRANSACTION;\nINSERT INTO doc (no) VALUES (nxt('a'));\nROLLBACK;", {"a": 0, "b": 10}, []),
    ("SET @n: the variable holds the result",
     "SET @n = nxt('b');\nINSERT INTO doc (no) VALUES (@n);", {"a": 0, "b": 11}, ["11"]),
])
def test_counters_after_calls(title: str, text: str, counters: dict[str, object], docs: list[str]) -> None:
    got, rows = _model(text)
    assert got == counters, title
    assert rows is not None and [r["no"] for r in rows] == docs, title


def test_a_call_per_row_forgets_the_counter_column() -> None:
    got, _ = _model("INSERT INTO doc (no) SELECT nxt('a') FROM seq;")
    assert got == {"a": UNKNOWN, "b": UNKNOWN}
