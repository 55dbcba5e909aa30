"""Trigger bodies run on the tracked rows (predictor/triggers.py), and the rows DELETE / UPDATE ... ORDER BY
... LIMIT picks (predictor/data.py). What the servers log for these is in
fixtures/seeds/003_logging_rules/trigger_conditions.sql; here: the rows the model holds afterwards."""

from __future__ import annotations

import pytest

from predictor.evaluate import UNKNOWN, Row
from predictor.predict import Analyzer, Predictor
from predictor.profiles import get_profile
from predictor.triggers import new_columns
from predictor.workload import parse_workload

SCHEMA = """CREATE TABLE slot (id INT PRIMARY KEY, who INT) ENGINE=InnoDB;
CREATE TABLE tally (k VARCHAR(10) PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
INSERT INTO slot VALUES (1, NULL), (2, NULL), (3, 7);
INSERT INTO tally VALUES ('booked', 0), ('freed', 0);
"""

COUNTING = """DELIMITER //
CREATE TRIGGER slot_upd AFTER UPDATE ON slot FOR EACH ROW
BEGIN
  IF NEW.who IS NOT NULL AND OLD.who IS NULL THEN
    UPDATE tally SET v = v + 1 WHERE k = 'booked';
  ELSEIF NEW.who IS NULL AND OLD.who IS NOT NULL THEN
    UPDATE tally SET v = v + 10 WHERE k = 'freed';
  END IF;
END//
DELIMITER ;
"""


def _rows(text: str, table: str) -> list[Row] | None:
    """The rows the model tracks for ``table`` after ``text`` (None: not tracked)."""
    pred = Predictor(get_profile("mariadb-10.11"), {"binlog_format": "ROW"})
    analyze = Analyzer(True)
    for st in parse_workload(text, "t.sql").statements:
        pred.step(st.seq, st.session, st.sql, analyze(st.sql))
    d = pred.data.tables.get(table)
    return d.live() if d is not None and d.tracked else None


@pytest.mark.parametrize(("title", "statements", "booked", "freed"), [
    ("one slot booked", "UPDATE slot SET who = 5 WHERE id = 1;", 1, 0),
    ("every row fires the trigger", "UPDATE slot SET who = 5;", 2, 0),
    ("a matched row that does not change fires it too, its IF is false",
     "UPDATE slot SET who = 5 WHERE id = 1;\nUPDATE slot SET who = 5 WHERE id = 1;", 1, 0),
    ("ELSEIF branch", "UPDATE slot SET who = NULL WHERE id = 3;", 0, 10),
    ("no row matched: nothing fires", "UPDATE slot SET who = 5 WHERE id = 99;", 0, 0),
])
def test_update_trigger_counts(title: str, statements: str, booked: int, freed: int) -> None:
    rows = _rows(SCHEMA + COUNTING + statements + "\n", "tally")
    assert rows is not None, title
    assert {r["k"]: r["v"] for r in rows} == {"booked": booked, "freed": freed}, title


def test_condition_on_an_unknown_value_falls_back_to_unknown_columns() -> None:
    # who comes from a function: the IF cannot be decided, so what the trigger updates becomes unknown
    rows = _rows(SCHEMA + COUNTING + "UPDATE slot SET who = RAND() WHERE id = 1;\n", "tally")
    assert rows is not None
    assert {r["k"]: r["v"] for r in rows} == {"booked": UNKNOWN, "freed": UNKNOWN}


def test_delete_trigger_sees_old_row() -> None:
    trigger = """DELIMITER //
CREATE TRIGGER slot_del AFTER DELETE ON slot FOR EACH ROW
  IF OLD.who IS NOT NULL THEN UPDATE tally SET v = v + OLD.who WHERE k = 'freed'; END IF//
DELIMITER ;
"""
    rows = _rows(SCHEMA + trigger + "DELETE FROM slot;\n", "tally")
    assert rows is not None
    assert {r["k"]: r["v"] for r in rows} == {"booked": 0, "freed": 7}


def test_new_columns_of_a_before_trigger() -> None:
    text = """CREATE TRIGGER bi BEFORE INSERT ON t FOR EACH ROW
BEGIN
  IF NEW.due IS NULL THEN SET NEW.due = NOW(); ELSE SET NEW.Note = 'given'; END IF;
  SET @seen = OLD.k + NEW.qty;
END"""
    assert set(new_columns(text)) == {"due", "note", "qty"}  # read only, NEW.qty is still settable, hence written


ORDERED = """CREATE TABLE q (id INT PRIMARY KEY, prio INT, at VARCHAR(20)) ENGINE=InnoDB;
INSERT INTO q VALUES (1, 5, 'b'), (2, 1, 'a'), (3, 9, 'c'), (4, NULL, 'd'), (5, 5, 'e');
"""


@pytest.mark.parametrize(("title", "statement", "left"), [
    ("ORDER BY ascending: NULL first", "DELETE FROM q ORDER BY prio LIMIT 2;", [1, 3, 5]),
    ("ORDER BY descending", "DELETE FROM q ORDER BY prio DESC LIMIT 1;", [1, 2, 4, 5]),
    ("ORDER BY a string column", "DELETE FROM q WHERE id > 1 ORDER BY at LIMIT 1;", [1, 3, 4, 5]),
    ("two keys break the tie", "DELETE FROM q WHERE prio = 5 ORDER BY prio, at DESC LIMIT 1;", [1, 2, 3, 4]),
    ("LIMIT larger than the match", "DELETE FROM q WHERE prio > 4 ORDER BY at LIMIT 10;", [2, 4]),
])
def test_order_by_limit_picks_rows(title: str, statement: str, left: list[int]) -> None:
    rows = _rows(ORDERED + statement + "\n", "q")
    assert rows is not None, title
    assert sorted(int(str(r["id"])) for r in rows) == left, title


def test_limit_cutting_between_equal_keys_stops_tracking() -> None:
    # prio 5 twice: which one goes depends on the server's plan
    assert _rows(ORDERED + "DELETE FROM q WHERE prio >= 5 ORDER BY prio LIMIT 1;\n", "q") is None


def test_update_ignore_of_one_row_onto_a_taken_key_is_skipped_on_mariadb() -> None:
    text = """CREATE TABLE c (id INT PRIMARY KEY, code VARCHAR(9) NULL, UNIQUE KEY (code)) ENGINE=InnoDB;
INSERT INTO c VALUES (1, 'A'), (2, NULL);
UPDATE IGNORE c SET code = 'A' WHERE id = 2;
UPDATE c SET code = 'B' WHERE id = 2;
"""
    rows = _rows(text, "c")
    assert rows is not None
    assert sorted((r["id"], r["code"]) for r in rows) == [(1, "a"), (2, "b")]
