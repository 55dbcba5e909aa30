"""SELECT evaluation for the data model (predictor/query.py), three-valued conditions (predictor/evaluate.py)
and rows put back by ROLLBACK (predictor/undo.py)."""

from __future__ import annotations

import hashlib
from decimal import Decimal

import pytest
from sqlglot import exp

from predictor.evaluate import UNKNOWN, CannotEvaluate, truth
from predictor.parse import parse
from predictor.predict import predict_workload
from predictor.query import Source, matching_rows, resolved, select_rows
from predictor.values import exact_text, folded
from predictor.workload import parse_workload

TABLES = {
    "item": Source(("id", "grp", "v"), [{"id": 1, "grp": 1, "v": 5}, {"id": 2, "grp": 1, "v": 7},
                                         {"id": 3, "grp": 2, "v": None}, {"id": 4, "grp": 3, "v": 1}]),
    "grp": Source(("id", "name"), [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 9, "name": "z"}]),
    "vague": Source(("id", "v"), [{"id": 1, "v": UNKNOWN}]),
    "partly": Source(("id", "v"), [{"id": 1, "v": 5}, {"id": 2, "v": UNKNOWN}]),
    "price": Source(("id", "amount", "sku"), [{"id": 1, "amount": Decimal("1200.00"), "sku": "b-2"},
                                             {"id": 2, "amount": Decimal("960.00"), "sku": "a-10"},
                                             {"id": 3, "amount": 45, "sku": "a_1"}]),
}


def _source(name: str) -> Source | None:
    return TABLES.get(name.lower())


@pytest.mark.parametrize(("sql", "rows"), [
    ("SELECT id FROM item WHERE v > 4", [[1], [2]]),
    ("SELECT i.id, g.name FROM item i JOIN grp g ON g.id = i.grp WHERE i.v > 5", [[2, "a"]]),
    ("SELECT g.id, i.id FROM grp g LEFT JOIN item i ON i.grp = g.id WHERE g.id = 9", [[9, None]]),
    ("SELECT grp, COUNT(*), SUM(v), MAX(v) FROM item GROUP BY grp", [[1, 2, 12, 7], [2, 1, None, None],
                                                                     [3, 1, 1, 1]]),
    ("SELECT grp FROM item GROUP BY grp HAVING COUNT(*) > 1", [[1]]),
    ("SELECT COUNT(*), SUM(v) FROM item WHERE id > 100", [[0, None]]),
    ("SELECT COUNT(v) FROM item", [[3]]),
    ("SELECT id FROM grp WHERE id IN (SELECT grp FROM item)", [[1], [2]]),
    ("SELECT id FROM grp WHERE id NOT IN (SELECT grp FROM item)", [[9]]),
    ("SELECT id FROM item WHERE v NOT IN (SELECT v FROM item WHERE id = 3)", []),  # NOT IN (NULL): never true
    ("SELECT id FROM item WHERE v = (SELECT MAX(v) FROM item)", [[2]]),
    ("SELECT id FROM grp WHERE EXISTS (SELECT 1 FROM item WHERE v > 6)", [[1], [2], [9]]),
    ("SELECT id FROM item WHERE v BETWEEN 2 AND 6", [[1]]),
    ("SELECT id FROM item WHERE v > 6 OR v IS NULL", [[2], [3]]),
    ("SELECT DISTINCT grp FROM item WHERE grp < 3", [[1], [2]]),
    ("SELECT id FROM vague WHERE id = 2 AND v > 1", []),  # FALSE AND unknown is FALSE
    ("SELECT id FROM item WHERE v <=> NULL", [[3]]),  # NULL-safe: NULL <=> NULL is TRUE
    ("SELECT id FROM item WHERE NOT (v <=> 5)", [[2], [3], [4]]),  # and NULL <=> 5 is FALSE, not NULL
    ("SELECT id FROM item ORDER BY v LIMIT 1", [[3]]),  # NULL sorts first
    ("SELECT id FROM item ORDER BY v DESC LIMIT 2", [[2], [1]]),
    ("SELECT id FROM item ORDER BY grp, id DESC LIMIT 1, 2", [[1], [3]]),
    ("SELECT id FROM item LIMIT 10", [[1], [2], [3], [4]]),  # no order needed: every row is kept
    # DECIMALs compare as numbers, not as their text ('960.00' > '1200.00'), with integers too
    ("SELECT id FROM price WHERE amount > 1000", [[1]]),
    ("SELECT id FROM price WHERE amount BETWEEN 45 AND 960.0", [[2], [3]]),
    ("SELECT SUM(amount), MAX(amount) FROM price", [[Decimal("2205.00"), Decimal("1200.00")]]),
    # AVG: 4 more digits of scale than its argument (div_precision_increment), NULLs skipped
    ("SELECT AVG(amount) FROM price", [[Decimal("735.000000")]]),
    ("SELECT AVG(v) FROM item", [[Decimal("4.3333")]]),
    ("SELECT id FROM price ORDER BY amount DESC LIMIT 1", [[1]]),
    ("SELECT id FROM price WHERE amount * 2 = 1920", [[2]]),
    # correlated subqueries, once per outer row: item 4's group 3 is not in grp; group 9 has no item (g.id is
    # grp's id, not item's own id column)
    ("SELECT id FROM item WHERE grp IN (SELECT id FROM grp WHERE grp.id = item.grp)", [[1], [2], [3]]),
    ("SELECT g.id FROM grp g WHERE NOT EXISTS (SELECT 1 FROM item i WHERE i.grp = g.id)", [[9]]),
    ("SELECT g.name, (SELECT COUNT(*) FROM item i WHERE i.grp = g.id) FROM grp g", [["a", 2], ["b", 1], ["z", 0]]),
    # ROW_NUMBER() numbers the rows in the window's order, per partition
    ("SELECT id, ROW_NUMBER() OVER (ORDER BY id DESC) FROM item", [[4, 1], [3, 2], [2, 3], [1, 4]]),
    ("SELECT id, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY id) FROM item ORDER BY id",
     [[1, 1], [2, 2], [3, 1], [4, 1]]),
    # grouped or DISTINCT rows sorted after: by an aggregate, a select item's name (before a column's) or place
    ("SELECT grp, SUM(v) FROM item GROUP BY grp ORDER BY SUM(v) DESC LIMIT 1", [[1, 12]]),
    ("SELECT grp, COUNT(*) AS v FROM item GROUP BY grp ORDER BY v, grp DESC", [[3, 1], [2, 1], [1, 2]]),
    ("SELECT i.grp, MAX(i.id) FROM item i GROUP BY i.grp ORDER BY i.grp DESC", [[3, 4], [2, 3], [1, 2]]),
    ("SELECT DISTINCT grp FROM item ORDER BY 1 DESC LIMIT 2", [[3], [2]]),
    # MOD / % take the dividend's sign; FROM DUAL is one row of no columns
    ("SELECT id FROM item WHERE MOD(id, 2) = 0 AND id % 4 <> 0", [[2]]),
    ("SELECT MOD(-7, 3), -7 % 3, MOD(7, 0) FROM DUAL", [[-1, -1, None]]),
    ("SELECT 3 FROM DUAL WHERE 3 % 2 = 1", [[3]]),
    ("SELECT FROM_UNIXTIME(1715680800), FROM_UNIXTIME(NULL) FROM DUAL", [["2024-05-14 10:00:00", None]]),
    # GREATEST / LEAST of dates of one form: as the days order (a billing period's clipped end)
    ("SELECT LEAST('2024-01-31', '2023-12-31'), GREATEST('2024-01-01', '2024-01-15', NULL) FROM DUAL",
     [["2023-12-31", None]]),
    # a window over grouped rows numbers the groups (items 1 and 2 are one group)
    ("SELECT grp, ROW_NUMBER() OVER (ORDER BY grp DESC) FROM item GROUP BY grp", [[3, 1], [2, 2], [1, 3]]),
])
def test_select_rows(sql: str, rows: list[list[object]]) -> None:
    tree = parse(sql)
    assert isinstance(tree, exp.Expression)
    got = select_rows(tree, _source)
    assert got is not None, sql
    assert got[1] == rows, sql


@pytest.mark.parametrize("sql", [
    "SELECT id FROM vague WHERE v > 1",  # an unknown value decides
    "SELECT id FROM item ORDER BY grp LIMIT 1",  # ids 1 and 2 tie: which comes first is the server's
    "SELECT id FROM item LIMIT 2",  # which two rows, without ORDER BY, is the server's
    "SELECT id FROM price ORDER BY sku LIMIT 1",  # '_' and '-' sort differently by collation
    "SELECT id FROM nowhere",
    "SELECT id, ROW_NUMBER() OVER (ORDER BY grp) FROM item",  # items 1 and 2 tie: their numbers are the server's
    "SELECT id, RANK() OVER (ORDER BY id) FROM item",
    "SELECT grp, COUNT(*) FROM item GROUP BY grp ORDER BY COUNT(*) LIMIT 1",  # groups 2 and 3 tie
    "SELECT DISTINCT grp FROM item ORDER BY v",  # not a value of the DISTINCT rows
    "SELECT id FROM item WHERE LEAST('2024-01-31', '2024-01-31 10:00:00') > '2024-01-01'",  # date and datetime
])
def test_what_cannot_be_evaluated_is_none(sql: str) -> None:
    tree = parse(sql)
    assert isinstance(tree, exp.Expression)
    assert select_rows(tree, _source) is None


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT STDDEV(v) FROM item", [[UNKNOWN]]),  # one row, whatever its value
    ("SELECT id, @nobody_set_this FROM item WHERE id <= 2", [[1, UNKNOWN], [2, UNKNOWN]]),
])
def test_a_value_that_cannot_be_computed_is_unknown_in_rows_that_are_known(sql: str, expected: object) -> None:
    """As an INSERT's VALUES row keeps an unknown value: an INSERT ... SELECT still writes rows it can count
    (parking_permits_app's permit numbered by a function whose counter was not followed)."""
    tree = parse(sql)
    assert isinstance(tree, exp.Expression)
    got = select_rows(tree, _source)
    assert got is not None and got[1] == expected


def test_three_valued_not() -> None:
    cond = parse("SELECT 1 FROM item WHERE NOT (v > 4)")
    assert isinstance(cond, exp.Select)
    where = cond.args["where"].this
    assert [truth(where, r) for r in TABLES["item"].rows] == [False, False, False, True]  # NOT NULL is NULL
    with pytest.raises(CannotEvaluate):
        truth(where, {"v": UNKNOWN})


def test_multi_table_rows_keep_their_positions() -> None:
    tree = parse("DELETE i FROM item i JOIN grp g ON g.id = i.grp WHERE g.name = 'a'")
    assert isinstance(tree, exp.Delete)
    item = TABLES["item"]
    positioned = Source(item.columns, [r | {"#pos": k} for k, r in enumerate(item.rows)])
    first = tree.this.copy()
    first.set("joins", None)
    rows = matching_rows(first, tree.this.args["joins"], tree.args["where"].this,
                         lambda n: positioned if n == "item" else _source(n))
    assert rows is not None
    assert sorted(r["i.#pos"] for r in rows) == [0, 1]


def test_resolved_leaves_what_it_cannot_evaluate() -> None:
    cond = parse("SELECT 1 FROM item WHERE id IN (SELECT id FROM nowhere)")
    assert isinstance(cond, exp.Select)
    where = cond.args["where"].this
    assert resolved(where, _source).sql() == where.sql()


UNDO = """CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO t (id) VALUES (1), (2);
BEGIN;
UPDATE t SET v = 5 WHERE id = 1;
SAVEPOINT a;
DELETE FROM t WHERE id = 2;
ROLLBACK TO SAVEPOINT a;
UPDATE t SET v = 0 WHERE id = 2;
ROLLBACK;
UPDATE t SET v = 0 WHERE id = 1;
-- connection other
BEGIN;
UPDATE t SET v = 7 WHERE id = 1;
-- connection default
UPDATE t SET v = 3 WHERE id = 2;
-- connection other
ROLLBACK;
UPDATE t SET v = 0 WHERE id = 2;
"""


def test_rollback_puts_rows_back() -> None:
    recs = predict_workload(parse_workload(UNDO), "mariadb-10.11", {"binlog_format": "ROW"})
    by_sql = [(r.sql, r.format) for r in recs]
    assert by_sql[7] == ("UPDATE t SET v = 0 WHERE id = 2", "NONE")  # row 2 is back, v = 0 (the DEFAULT)
    assert by_sql[9] == ("UPDATE t SET v = 0 WHERE id = 1", "NONE")  # v = 5 was rolled back
    # the other session's copy of t went stale when default set row 2 to 3: its ROLLBACK must not put v = 0
    # back (that would predict no change here); it forgets t's rows instead
    assert by_sql[14] == ("UPDATE t SET v = 0 WHERE id = 2", "ROW")


@pytest.mark.parametrize(("sql", "fresh"), [
    ("SELECT UPPER(SUBSTRING(REPLACE(UUID(), '-', ''), 1, 8))", True),  # 8 hex digits: as unique as the UUID
    ("SELECT LEFT(UUID(), 3)", False),  # three: they may clash
    ("SELECT CONCAT('AMS-', RIGHT(UUID(), 12))", True),
])
def test_a_long_enough_cut_of_a_uuid_stays_unique(sql: str, fresh: bool) -> None:
    from predictor.evaluate import Fresh

    got = select_rows(parse(sql), _source)  # type: ignore[arg-type]
    assert got is not None
    assert isinstance(got[1][0][0], Fresh) is fresh


def test_a_uuid_in_json_set_leaves_the_document_known_to_exist() -> None:
    got = select_rows(parse("SELECT JSON_SET('{\"a\": 1}', '$.ref', UUID()) IS NULL"), _source)  # type: ignore[arg-type]
    assert got is not None and got[1] == [[0]]


def test_exact_text_reaches_digests_through_string_functions() -> None:
    """Strings are held case-folded, but a literal's exact text is kept beside it (values.Cased) through
    TRIM, LOWER/UPPER, LEFT, LPAD, CONCAT and HEX: coworking_spaces_app's card UIDs are digests of e-mails."""
    email = folded("Viktor@BlueOtter.de")
    src = Source(("id", "email"), [{"id": 7919, "email": email}])
    tree = parse("SELECT SHA2(email, 256), CONCAT('04C3', UPPER(LEFT(SHA2(LOWER(TRIM(email)), 256), 8))),"
                 " LPAD(HEX(id), 8, '0'), MD5(CONCAT(email, '#', id)), HEX('Ab') FROM member")
    assert isinstance(tree, exp.Expression)
    got = select_rows(tree, lambda name: src if name == "member" else None)
    assert got is not None
    sha, uid, hexed, md5, ab = got[1][0]
    assert sha == hashlib.sha256(b"Viktor@BlueOtter.de").hexdigest()
    assert exact_text(uid) == "04C3" + hashlib.sha256(b"viktor@blueotter.de").hexdigest()[:8].upper()
    assert exact_text(hexed) == "00001EEF"
    assert md5 == hashlib.md5(b"Viktor@BlueOtter.de#7919").hexdigest()
    assert exact_text(ab) == "4162"


def test_text_whose_exact_form_is_lost_is_not_digested() -> None:
    """A plain string with letters (its exact text not known) has no digest; a literal has."""
    src = Source(("id", "email"), [{"id": 1, "email": "plain@example.com"}])  # a str: exact text unknown
    tree = parse("SELECT SHA2(email, 256), SHA2('plain@example.com', 256) FROM member")
    assert isinstance(tree, exp.Expression)
    got = select_rows(tree, lambda name: src if name == "member" else None)
    assert got is not None
    assert got[1][0][0] is UNKNOWN
    assert got[1][0][1] == hashlib.sha256(b"plain@example.com").hexdigest()


def test_quote_gives_a_literal_of_the_exact_text() -> None:
    """QUOTE() escapes backslash and quote and keeps the letters' case; NULL is the word NULL."""
    tree = parse("SELECT QUOTE('O''Reilly'), QUOTE('a\\\\b'), QUOTE(NULL), QUOTE(42) FROM DUAL")
    assert isinstance(tree, exp.Expression)
    got = select_rows(tree, _source)
    assert got is not None
    o_reilly, backslash, null, number = got[1][0]
    assert exact_text(o_reilly) == "'O\\'Reilly'"
    assert exact_text(backslash) == "'a\\\\b'"
    assert (null, number) == ("NULL", "'42'")


@pytest.mark.parametrize(("sql", "rows"), [
    # item 1 is surely among the subquery's rows, whatever row 2 of partly gives
    ("SELECT id FROM item WHERE id = 1 AND id IN (SELECT id FROM partly WHERE v > 4)", [[1]]),
    ("SELECT id FROM item WHERE id = 1 AND id NOT IN (SELECT id FROM partly WHERE v > 4)", []),
    ("SELECT id FROM item WHERE id = 3 AND id IN (SELECT id FROM partly WHERE v > 4)", None),  # row 2 may be 3
    # an aggregate over the subquery's rows would change without the rows left out: not evaluated
    ("SELECT id FROM item WHERE id = 1 AND id IN (SELECT MAX(id) FROM partly WHERE v > 4)", None),
])
def test_in_over_rows_partly_known(sql: str, rows: list[list[object]] | None) -> None:
    tree = parse(sql)
    assert isinstance(tree, exp.Expression)
    got = select_rows(tree, _source)
    assert (None if got is None else got[1]) == rows, sql
