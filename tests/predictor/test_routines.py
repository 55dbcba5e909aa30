"""CALL's arguments in a procedure's body statements (predictor/routines.py), and the regenerated text they
start from (predictor/generator.py)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from predictor.analyze import Kind, analyze, analyze_tree
from predictor.dialect import RplayMySQL
from predictor.evaluate import UNKNOWN, value
from predictor.localvars import assign
from predictor.parse import parse
from predictor.predict import predict_workload
from predictor.routines import bind, call_bindings, inline_functions
from predictor.session import SessionState
from predictor.workload import parse_workload

PROC = """CREATE PROCEDURE p(IN k INT, OUT o INT, INOUT io INT, IN moved INT)
BEGIN
  DECLARE twice INT DEFAULT 2;
  DECLARE seen, later INT;
  SET later = 5;
  INSERT INTO t VALUES (k, k * twice, seen, later, io, o);
  UPDATE t SET moved = moved + 1 WHERE id = k;
  SELECT COUNT(*) INTO o FROM t;
END"""


@pytest.mark.parametrize(("reached", "later"), [(True, "5"), (False, "RPLAY_UNKNOWN()")])
def test_a_local_takes_its_value_where_the_call_sets_it(reached: bool, later: str) -> None:
    info = analyze(PROC)
    sig = info.signature
    assert sig is not None
    # parameters too (o gets its value from the SELECT ... INTO); a loop or FETCH would exclude one
    assert sig.sequential == {"twice", "seen", "later", "k", "o", "io", "moved"}
    values = dict(call_bindings("CALL p(7, @out, 3 + 4, 9)", sig) or {})
    set_later = next(x.text for x in info.body if x.kind is Kind.SET)
    insert = next(x.text for x in info.body if x.kind is Kind.INSERT)
    assert set_later is not None and insert is not None
    # reached=False: an IF the values do not decide may skip the SET, so the value is unknown from there on
    assert assign(set_later, sig.sequential, values, SessionState("s", {}), lambda name: None, reached) is None
    # the OUT parameter o is still NULL where the INSERT runs: the SELECT ... INTO o comes after it
    assert bind(insert, values) == f"INSERT INTO t VALUES (7, 7 * 2, NULL, {later}, 3 + 4, NULL)"


@pytest.mark.parametrize("sql", [
    "REPLACE INTO t SET a = 1",
    "REPLACE LOW_PRIORITY INTO t VALUES (1)",
    "REPLACE INTO t SELECT * FROM u",
    "INSERT DELAYED IGNORE INTO t VALUES (1)",
    "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE b = VALUES(b)",
    "UPDATE LOW_PRIORITY IGNORE t SET a = 1 WHERE b > 2 ORDER BY a LIMIT 2",
    "DELETE QUICK IGNORE FROM t WHERE a = 1 LIMIT 3",
    "CALL q(a + 1, @x)",
    "CALL db.q()",
])
def test_regenerated_text_reads_back_as_the_same_statement(sql: str) -> None:
    tree = parse(sql)
    assert not isinstance(tree, str)
    text = tree.sql(dialect=RplayMySQL)
    assert analyze(text) == analyze_tree(tree), text
    assert text.split()[0] == sql.split()[0]


def test_body_statements_keep_their_text_and_the_routine_its_signature() -> None:
    info = analyze(PROC)
    sig = info.signature
    assert sig is not None
    assert sig.params == (("k", "IN"), ("o", "OUT"), ("io", "INOUT"), ("moved", "IN"))
    assert dict(sig.variables) == {"twice": "2", "seen": None, "later": None}
    assert {"later", "o"} <= sig.assigned and "twice" not in sig.assigned
    texts = {b.kind: b.text for b in info.body if b.text is not None}
    assert texts[Kind.INSERT] == "INSERT INTO t VALUES (k, k * twice, seen, later, io, o)"


def test_call_binds_constants_and_leaves_the_rest_unknown() -> None:
    sig = analyze(PROC).signature
    assert sig is not None
    b = call_bindings("CALL p(7, @out, 3 + 4, 9)", sig)
    assert b is not None
    insert = next(x.text for x in analyze(PROC).body if x.kind is Kind.INSERT)
    assert insert is not None
    # k and io are constants, twice its DEFAULT, seen NULL; later is NULL until its SET runs (localvars.py);
    # o, an OUT parameter, is NULL until its SELECT ... INTO runs
    assert bind(insert, b) == "INSERT INTO t VALUES (7, 7 * 2, NULL, NULL, 3 + 4, NULL)"
    update = next(x.text for x in analyze(PROC).body if x.kind is Kind.UPDATE)
    assert update is not None
    # the column a SET assigns stays a column even when a parameter has its name
    assert bind(update, b) == "UPDATE t SET moved = 9 + 1 WHERE id = 7"
    assert call_bindings("CALL p(1)", sig) is None  # wrong arity: nothing is bound


def test_rows_a_procedure_writes_decide_later_duplicates() -> None:
    w = parse_workload("""CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
DELIMITER //
CREATE PROCEDURE put(IN k INT)
BEGIN
  INSERT INTO t VALUES (k, 0);
END//
DELIMITER ;
CALL put(1);
INSERT INTO t VALUES (2, 0);
INSERT INTO t VALUES (1, 0);
CALL put(2);
CALL put(3);
""")
    recs = predict_workload(w, "mariadb-10.11", {"binlog_format": "ROW"})
    assert [r.error for r in recs[2:]] == [None, None, 1062, 1062, None]


FUNCTIONS = {
    "fee": "CREATE FUNCTION fee(amt BIGINT) RETURNS BIGINT DETERMINISTIC BEGIN RETURN amt DIV 100; END",
    "twice": "CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN fee(x) + x * 2",
    "label": "CREATE FUNCTION label(x INT) RETURNS VARCHAR(3) DETERMINISTIC RETURN CONCAT('n', x)",
}


@pytest.mark.parametrize(("expr", "expected"), [
    ("fee(250)", 2),
    ("fee(-250)", -2),  # DIV truncates toward zero
    ("fee(0 - 99)", 0),
    ("twice(49)", 98),  # nested: fee(49) + 98
    ("10 DIV 0", None),  # NULL
])
def test_inlined_functions_evaluate(expr: str, expected: object) -> None:
    tree = parse(f"SELECT {expr}")
    assert isinstance(tree, exp.Select)
    inlined = inline_functions(tree.expressions[0], FUNCTIONS.get)
    assert value(inlined, {}) == expected


def test_functions_not_inlined_stay_calls() -> None:
    tree = parse("SELECT nosuch(2) + stamp('2025-01-01')")
    assert isinstance(tree, exp.Select)
    inlined = inline_functions(tree.expressions[0], {**FUNCTIONS, **ODD_TYPES}.get)
    assert {f.name for f in inlined.find_all(exp.Anonymous)} == {"nosuch", "stamp"}  # DATETIME(6): not inlined
    assert value(inlined, {}) is UNKNOWN


ODD_TYPES = {"stamp": "CREATE FUNCTION stamp(d DATETIME(6)) RETURNS DATETIME(6) DETERMINISTIC RETURN d"}


@pytest.mark.parametrize(("expr", "expected"), [
    ("label(1)", "n1"),  # VARCHAR(3): a string that fits is the value
    ("label(1000)", UNKNOWN),  # 'n1000' does not fit VARCHAR(3): truncated or refused, not followed
    ("day_of('2025-03-07 10:30:00')", "2025-03-07"),  # a DATE parameter holds the day
    ("stamp_of('2025-03-07')", "2025-03-07 00:00:00"),  # a DATETIME holds a day as its midnight
    ("stamp_of(NULL)", None),
    ("checked_days('RBC')", "2025-03-07 00:00:00"),  # the SIGNAL's IF is false: the RETURN is the value
    ("checked_days('XXX')", UNKNOWN),  # the SIGNAL's IF holds: the call fails, no value
])
def test_string_and_date_types_convert(expr: str, expected: object) -> None:
    functions = {**FUNCTIONS, "day_of": "CREATE FUNCTION day_of(d DATE) RETURNS VARCHAR(10) DETERMINISTIC RETURN d",
                 "stamp_of": "CREATE FUNCTION stamp_of(d DATETIME) RETURNS DATETIME DETERMINISTIC RETURN d",
                 "checked_days": "CREATE FUNCTION checked_days(c VARCHAR(4)) RETURNS DATETIME DETERMINISTIC BEGIN "
                                 "IF c <> 'RBC' THEN SIGNAL SQLSTATE '45000'; END IF; RETURN '2025-03-07'; END"}
    tree = parse(f"SELECT {expr}")
    assert isinstance(tree, exp.Select)
    assert value(inline_functions(tree.expressions[0], functions.get), {}) == expected
