"""Counted loops of procedure bodies (predictor/loops.py): which loops are counted, and their passes."""

from __future__ import annotations

import pytest
from sqlglot import exp

from predictor.analyze import analyze
from predictor.loops import MAX_PASSES, Conditional, CursorLoop, Loop
from predictor.predict import predict_workload
from predictor.workload import parse_workload


def _loops(body: str) -> list[Loop | CursorLoop | Conditional | None]:
    info = analyze(f"CREATE PROCEDURE p(IN n INT)\nBEGIN\n{body}\nEND")
    return [s.loops[-1] if s.loops else None for s in info.body if s.kind.name == "INSERT"]


N3 = {"n": exp.Literal.number(3)}


@pytest.mark.parametrize(("title", "body", "passes"), [
    ("WHILE i < n from 0", "DECLARE i INT DEFAULT 0; WHILE i < n DO INSERT INTO t VALUES (i); SET i = i + 1; "
                           "END WHILE;", [0, 1, 2]),
    ("WHILE i <= n from 1", "DECLARE i INT DEFAULT 1; WHILE i <= n DO INSERT INTO t VALUES (i); SET i = i + 1; "
                            "END WHILE;", [1, 2, 3]),
    ("bound on the left", "DECLARE i INT DEFAULT 0; WHILE n > i DO INSERT INTO t VALUES (i); SET i = 1 + i; "
                          "END WHILE;", [0, 1, 2]),
    ("step 2", "DECLARE i INT DEFAULT 0; WHILE i < n DO INSERT INTO t VALUES (i); SET i = i + 2; END WHILE;",
     [0, 2]),
    ("REPEAT runs before its test", "DECLARE i INT DEFAULT 5; REPEAT INSERT INTO t VALUES (i); SET i = i + 1; "
                                    "UNTIL i >= n END REPEAT;", [5]),
    ("REPEAT to the bound", "DECLARE i INT DEFAULT 0; REPEAT INSERT INTO t VALUES (i); SET i = i + 1; "
                            "UNTIL i >= n END REPEAT;", [0, 1, 2]),
    ("a SET right before the loop starts it", "DECLARE i INT DEFAULT 0; SET i = 1; WHILE i < n DO "
                                              "INSERT INTO t VALUES (i); SET i = i + 1; END WHILE;", [1, 2]),
    ("bound never reached", "DECLARE i INT DEFAULT 7; WHILE i < n DO INSERT INTO t VALUES (i); SET i = i + 1; "
                            "END WHILE;", []),
])
def test_counted_loop_passes(title: str, body: str, passes: list[int]) -> None:
    (loop,) = _loops(body)
    assert loop is not None, title
    assert loop.passes(N3) == passes, title


@pytest.mark.parametrize(("title", "body"), [
    ("the counter is assigned elsewhere too", "DECLARE i INT DEFAULT 0; SET i = 1; SET @x = 0; "
                                              "WHILE i < n DO INSERT INTO t VALUES (i); SET i = i + 1; END WHILE;"),
    ("the step is not last", "DECLARE i INT DEFAULT 0; WHILE i < n DO SET i = i + 1; INSERT INTO t VALUES (i); "
                             "END WHILE;"),
    ("a LEAVE can cut it short", "DECLARE i INT DEFAULT 0; l: WHILE i < n DO INSERT INTO t VALUES (i); "
                                 "IF i > 1 THEN LEAVE l; END IF; SET i = i + 1; END WHILE l;"),
    ("a downward step", "DECLARE i INT DEFAULT 9; WHILE i > n DO INSERT INTO t VALUES (i); SET i = i + -1; "
                        "END WHILE;"),
    ("not a local variable", "WHILE @i < n DO INSERT INTO t VALUES (1); SET @i = @i + 1; END WHILE;"),
    ("LOOP without a test", "l: LOOP INSERT INTO t VALUES (1); LEAVE l; END LOOP l;"),
])
def test_loops_that_are_not_counted_run_pass_by_pass(title: str, body: str) -> None:
    (loop,) = _loops(body)
    assert isinstance(loop, Conditional), title  # calls.py runs them while their test says to go on


def test_a_loop_with_iterate_is_not_followed() -> None:
    body = "DECLARE i INT DEFAULT 0; l: WHILE i < n DO SET i = i + 1; IF i = 2 THEN ITERATE l; END IF; " \
           "INSERT INTO t VALUES (i); END WHILE l;"
    assert _loops(body) == [None]


def test_unknown_or_huge_bounds_are_one_pass() -> None:
    (loop,) = _loops("DECLARE i INT DEFAULT 0; WHILE i < n DO INSERT INTO t VALUES (i); SET i = i + 1; END WHILE;")
    assert loop is not None
    assert loop.passes({"n": exp.Anonymous(this="RPLAY_UNKNOWN")}) is None
    assert loop.passes({}) is None
    assert loop.passes({"n": exp.Literal.number(MAX_PASSES + 1)}) is None
    assert loop.passes({"n": exp.Literal.number(MAX_PASSES)}) == list(range(MAX_PASSES))


WORKLOAD = """CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
DELIMITER //
CREATE PROCEDURE fill(IN n INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  WHILE i < n DO
    INSERT INTO t VALUES (i, i * 10);
    SET i = i + 1;
  END WHILE;
END//
DELIMITER ;
CALL fill(4);
INSERT INTO t VALUES (3, 0);
UPDATE t SET v = 20 WHERE id = 2;
INSERT INTO t VALUES (4, 0);
"""


def test_each_pass_is_a_group_and_the_counter_reaches_the_rows() -> None:
    recs = predict_workload(parse_workload(WORKLOAD), "mariadb-10.11", {"binlog_format": "ROW"})
    call, dup, same, after = recs[2], recs[3], recs[4], recs[5]
    assert call.group == 2
    assert dup.error == 1062  # key 3 came from the fourth pass
    assert same.format == "NONE"  # row 2 holds 2 * 10 already
    assert after.group == 2 + 4  # four autocommitted passes


NESTED = """CREATE TABLE seat (r INT, s INT, PRIMARY KEY (r, s)) ENGINE=InnoDB;
DELIMITER //
CREATE PROCEDURE grid(IN rows_ INT, IN seats INT)
BEGIN
  DECLARE r INT DEFAULT 0;
  DECLARE s INT DEFAULT 1;
  WHILE r < rows_ DO
    SET s = 1;
    WHILE s <= seats DO
      INSERT INTO seat VALUES (r, s);
      SET s = s + 1;
    END WHILE;
    SET r = r + 1;
  END WHILE;
END//
DELIMITER ;
CALL grid(3, 2);
INSERT INTO seat VALUES (2, 2);
INSERT INTO seat VALUES (2, 3);
"""


def test_nested_loops_run_every_inner_pass_of_every_outer_pass() -> None:
    """The inner loop restarts from the SET right before it: 3 x 2 rows, each its own group."""
    recs = predict_workload(parse_workload(NESTED), "mariadb-10.11", {"binlog_format": "ROW"})
    call, dup, fresh = recs[2], recs[3], recs[4]
    assert (call.group, call.error) == (2, None)
    assert dup.error == 1062  # (2, 2): written by the last inner pass of the last outer pass
    assert fresh.group == 2 + 3 * 2


CURSOR = """DECLARE done INT DEFAULT 0; DECLARE v INT; DECLARE k VARCHAR(9);
DECLARE c CURSOR FOR SELECT id, kind FROM src WHERE id > n;
DECLARE CONTINUE HANDLER FOR {handler} SET done = 1;
OPEN c;
{loop}
CLOSE c;"""


@pytest.mark.parametrize(("title", "handler", "loop", "is_cursor"), [
    ("LOOP ... LEAVE", "NOT FOUND", "l: LOOP FETCH c INTO v, k; IF done THEN LEAVE l; END IF; "
                                    "INSERT INTO t VALUES (v); END LOOP;", True),
    ("REPEAT ... UNTIL done", "SQLSTATE '02000'", "REPEAT FETCH c INTO v, k; IF NOT done THEN "
                                                  "INSERT INTO t VALUES (v); END IF; UNTIL done END REPEAT;", True),
    ("no NOT FOUND handler", "SQLEXCEPTION", "l: LOOP FETCH c INTO v, k; IF done THEN LEAVE l; END IF; "
                                             "INSERT INTO t VALUES (v); END LOOP;", False),
    ("FETCH is not first", "NOT FOUND", "l: LOOP INSERT INTO t VALUES (v); FETCH c INTO v, k; "
                                        "IF done THEN LEAVE l; END IF; END LOOP;", False),
])
def test_cursor_loops(title: str, handler: str, loop: str, is_cursor: bool) -> None:
    info = analyze(f"CREATE PROCEDURE p(IN n INT)\nBEGIN\n{CURSOR.format(handler=handler, loop=loop)}\nEND")
    (insert,) = [s for s in info.body if s.kind.name == "INSERT"]
    got = insert.loops[-1] if insert.loops else None
    assert isinstance(got, CursorLoop) is is_cursor, title
    if isinstance(got, CursorLoop):
        assert got.targets == ("v", "k")
        rows = {"SELECT id, kind FROM src WHERE id > 1": [[2, "a"], [3, None]]}
        passes = got.each({"n": exp.Literal.number(1)}, rows.get)
        assert passes is not None and [(b["v"].sql(), b["k"].sql()) for b in passes] == [("2", "'a'"), ("3", "NULL")]
        assert got.each({"n": exp.Literal.number(9)}, rows.get) is None  # rows not followed: one pass


def test_a_cursor_loop_runs_once_per_row_and_takes_the_branch_each_row_says() -> None:
    text = """CREATE TABLE src (id INT PRIMARY KEY, kind VARCHAR(9)) ENGINE=InnoDB;
CREATE TABLE a (id INT PRIMARY KEY) ENGINE=InnoDB;
CREATE TABLE b (id INT PRIMARY KEY) ENGINE=InnoDB;
INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'a');
DELIMITER //
CREATE PROCEDURE p(IN n INT)
BEGIN
  DECLARE done INT DEFAULT 0; DECLARE v INT; DECLARE k VARCHAR(9);
  DECLARE c CURSOR FOR SELECT id, kind FROM src WHERE id >= n ORDER BY id;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  OPEN c;
  l: LOOP
    FETCH c INTO v, k;
    IF done = 1 THEN LEAVE l; END IF;
    IF k = 'a' THEN INSERT INTO a VALUES (v); ELSE INSERT INTO b VALUES (v); END IF;
  END LOOP;
END//
DELIMITER ;
CALL p(1);
CALL p(3);
CALL p(9);
INSERT INTO a VALUES (100);
"""
    recs = predict_workload(parse_workload(text), "mariadb-10.11", {"binlog_format": "STATEMENT"})
    # CALL p(1): three rows, three INSERTs (a, b, a): groups 5, 6, 7; CALL p(3): one (a, 3 again: 1062)
    assert [(r.group, r.error) for r in recs[5:9]] == [(5, None), (None, 1062), (None, None), (8, None)]
