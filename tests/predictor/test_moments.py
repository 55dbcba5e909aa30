"""Clock readings (predictor/moments.py): comparisons are decided only when the ranges cannot overlap."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest
from sqlglot import exp

from predictor.evaluate import UNKNOWN, CannotEvaluate, truth, value
from predictor.moments import (
    CLOCK,
    HORIZON,
    PREDICTED_AT,
    RUN_AT,
    SAME_SECOND_SPAN,
    Moment,
    compare,
    same_second,
    shift,
)
from predictor.parse import parse
from predictor.profiles import get_profile

NOW = CLOCK["NOW"]
DAY = 86400.0


def _where(sql: str) -> exp.Expression:
    tree = parse(f"SELECT 1 FROM t WHERE {sql}")
    assert isinstance(tree, exp.Select)
    where = tree.args["where"]
    assert isinstance(where, exp.Where)
    return where.this


@pytest.mark.parametrize(("a", "op", "b", "expected"), [
    (Moment(0, 10), "<", Moment(11, 20), True),
    (Moment(0, 10), "<", Moment(10, 20), None),  # the same instant possible
    (Moment(11, 20), "<", Moment(0, 10), False),
    (Moment(10, 20), "<", Moment(0, 10), False),  # at best equal: never less
    (Moment(10, 20), "<=", Moment(0, 10), None),  # ... but may be equal
    (Moment(0, 10), ">", Moment(11, 20), False),
    (Moment(0, 10), ">=", Moment(-5, 0), True),
    (Moment(0, 10), "=", Moment(11, 20), False),
    (Moment(0, 10), "=", Moment(5, 20), None),
    (Moment(0, 10), "<>", Moment(11, 20), True),
])
def test_compare_is_decided_only_when_ranges_leave_no_doubt(a: Moment, op: str, b: Moment,
                                                              expected: bool | None) -> None:
    assert compare(a, b, op) is expected


def _range(m: Moment | None) -> tuple[float, float] | None:
    return None if m is None else (m.lo, m.hi)


def test_months_and_years_are_ranges_of_their_shortest_and_longest_length() -> None:
    assert _range(shift(NOW, -1, "YEAR")) == (-366 * DAY, HORIZON - 365 * DAY)
    assert _range(shift(NOW, 2, "MONTH")) == (56 * DAY, HORIZON + 62 * DAY)
    assert shift(NOW, 1, "fortnight") is None


TODAY = CLOCK["CURDATE"]


def _at(m: Moment, count: int, unit: str) -> Moment:
    out = shift(m, count, unit)
    assert out is not None
    return out


@pytest.mark.parametrize(("a", "op", "b", "expected"), [
    (TODAY, "=", TODAY, True),  # the bet: a replay does not cross midnight
    (TODAY, "<", _at(TODAY, 1, "DAY"), True),
    (_at(TODAY, 2, "DAY"), ">", _at(TODAY, 1, "DAY"), True),
    (_at(TODAY, 7, "DAY"), "=", _at(TODAY, 1, "WEEK"), True),
    (NOW.as_date(), "=", TODAY, True),  # NOW() stored in a DATE column is today
    (_at(NOW, 1, "DAY").as_date(), "=", _at(TODAY, 1, "DAY"), True),
    (_at(NOW, 3, "HOUR").as_date(), "=", TODAY, None),  # may be tomorrow already
    (_at(TODAY, 1, "MONTH"), ">", _at(TODAY, 26, "DAY"), True),  # months differ: the ranges decide
    (_at(TODAY, 1, "MONTH"), "<", _at(TODAY, 30, "DAY"), None),
    (NOW, "=", NOW, None),  # two NOW() readings: not decided for comparisons
])
def test_dates_a_known_number_of_days_from_today_compare_exactly(a: Moment, op: str, b: Moment,
                                                                  expected: bool | None) -> None:
    assert compare(a, b, op) is expected


def test_a_date_is_not_a_datetime() -> None:
    assert TODAY.date and not NOW.date
    assert _at(TODAY, 1, "DAY").date and not _at(TODAY, 1, "HOUR").date


@pytest.mark.parametrize(("condition", "row_made", "expected"), [
    ("made < NOW() - INTERVAL 1 YEAR", NOW, False),
    ("made < DATE_SUB(NOW(), INTERVAL 1 DAY)", NOW, False),
    ("made > CURRENT_TIMESTAMP - INTERVAL 7 DAY", NOW, True),
    ("made >= CURDATE() - INTERVAL 1 MONTH", NOW, True),
    ("made < NOW() + INTERVAL 1 YEAR", NOW, True),
    ("made < NOW()", NOW, None),  # written in the same second, perhaps
    ("made < NOW() - INTERVAL 1 HOUR", NOW, None),  # the run may last longer than an hour
    ("made = '2020-01-01'", NOW, False),  # a date literal: placed by the prediction's day (2026-11-21 here)
    ("made > '2025-11-01 08:00:00'", NOW, True),
    ("made < '2030-01-01'", NOW, True),
    ("made < '2027-06-01'", NOW, None),  # the run may come within a year of the prediction
    ("made > '2026-11-20'", NOW, None),  # ... or start two days before it, by its clock
    ("made > '2026-13-45'", NOW, None),  # not a date: not compared with the clock
    ("made < NOW() - INTERVAL 1 DAY", None, False),  # NULL compares to nothing
])
def test_where_conditions_over_rows_written_in_this_run(condition: str, row_made: object,
                                                         expected: bool | None) -> None:
    row = {"made": row_made}
    token = PREDICTED_AT.set(datetime(2026, 11, 21, 12).timestamp())
    try:
        if expected is None:
            with pytest.raises(CannotEvaluate):
                truth(_where(condition), row)
        else:
            assert truth(_where(condition), row) is expected
    finally:
        PREDICTED_AT.reset(token)


@pytest.mark.parametrize(("condition", "expected"), [
    ("'2026-12-01' > NOW()", True),  # ten days after a known start: decided
    ("'2026-11-21' = CURDATE()", True),  # a date against a date from today: by the calendar of the run's day
    ("'2026-11-21 08:00:00' < NOW()", None),  # a time of day: the server's time zone may move it
    ("'2026-11-23' > NOW() + INTERVAL 6 HOUR", None),  # a run lasts up to HORIZON; the zone adds a day
    ("'2026-11-10' < CURDATE() - INTERVAL 1 WEEK", True),
])
def test_date_literals_against_a_known_run_start(condition: str, expected: bool | None) -> None:
    token = RUN_AT.set(datetime(2026, 11, 21, 12).timestamp())
    try:
        if expected is None:
            with pytest.raises(CannotEvaluate):
                truth(_where(condition), {})
        else:
            assert truth(_where(condition), {}) is expected
    finally:
        RUN_AT.reset(token)


@pytest.mark.parametrize(("condition", "expected"), [
    ("ends <= '2026-11-21'", True),  # a period that ends CURDATE(), on the run's day
    ("ends < '2026-11-21'", False),
    ("ends = '2026-11-22'", False),
])
def test_a_date_literal_against_a_date_from_today_on_a_known_day(condition: str, expected: bool) -> None:
    token = RUN_AT.set(datetime(2026, 11, 21, 12).timestamp())
    try:
        assert truth(_where(condition), {"ends": CLOCK["CURDATE"]}) is expected
    finally:
        RUN_AT.reset(token)


def test_now_with_a_precision_is_still_the_clock() -> None:
    assert value(_where("made = NOW(6)").expression, {}) == NOW


def test_a_clock_reading_written_over_one_of_the_same_run_is_the_same_second() -> None:
    from predictor.predict import predict_workload
    from predictor.workload import parse_workload

    w = parse_workload("""CREATE TABLE r (k CHAR(3) PRIMARY KEY, at DATETIME) ENGINE=InnoDB;
INSERT INTO r VALUES ('EUR', NOW());
INSERT INTO r VALUES ('EUR', NOW()) ON DUPLICATE KEY UPDATE at = NOW();
INSERT INTO r VALUES ('EUR', NOW()) ON DUPLICATE KEY UPDATE at = NOW() + INTERVAL 1 DAY;
""")
    recs = predict_workload(w, "mariadb-10.11", {"binlog_format": "ROW"})
    assert [r.format.value for r in recs[2:]] == ["NONE", "ROW"]


@pytest.mark.parametrize(("expression", "expected"), [
    ("DATE_FORMAT(NOW(), '%y%m%d')", "261121"),  # the day of the prediction: the run does not cross midnight
    ("CONCAT('DWN-', DATE_FORMAT(CURDATE() + INTERVAL 10 DAY, '%Y-%m-%d'))", "dwn-2026-12-01"),
    ("DATE_FORMAT(CURDATE() + INTERVAL 1 MONTH, '%Y%m')", "202612"),
    ("DATE_FORMAT(NOW() - INTERVAL 3 HOUR, '%y%m%d')", UNKNOWN),  # may be yesterday already
    ("DATE_FORMAT(NOW(), '%H:%i')", UNKNOWN),  # a time of day: not known
])
def test_a_day_only_format_of_the_clock_is_the_prediction_day(expression: str, expected: object) -> None:
    token = PREDICTED_AT.set(datetime(2026, 11, 21, 12).timestamp())
    try:
        tree = parse(f"SELECT {expression}")
        assert isinstance(tree, exp.Select)
        assert value(tree.expressions[0], {}) == expected
    finally:
        PREDICTED_AT.reset(token)


@pytest.mark.parametrize(("expression", "expected"), [
    ("'2024-01-31' + INTERVAL 1 MONTH", "2024-02-29"),  # months clamp to the month's last day
    ("'2024-02-29' + INTERVAL 1 YEAR", "2025-02-28"),
    ("'2024-05-14' - INTERVAL 1 YEAR + INTERVAL 14 DAY", "2023-05-28"),
    ("'2024-12-15' + INTERVAL 1 MONTH", "2025-01-15"),
    ("'2024-05-14' + INTERVAL 2 HOUR", "2024-05-14 02:00:00"),  # a date shifted by hours is a datetime
    ("'2024-05-14 10:00:00' - INTERVAL 90 MINUTE", "2024-05-14 08:30:00"),
    ("DATE_ADD('2024-05-14', INTERVAL 3 DAY)", "2024-05-17"),
    ("'not a date' + INTERVAL 1 DAY", UNKNOWN),
])
def test_a_date_literal_shifted_by_an_interval_is_exact(expression: str, expected: object) -> None:
    tree = parse(f"SELECT {expression}")
    assert isinstance(tree, exp.Select)
    assert value(tree.expressions[0], {}) == expected


def test_dates_made_from_one_literal_compare_exactly() -> None:
    row = {"p": "2026-11-01"}
    assert truth(_where("p + INTERVAL 14 DAY - INTERVAL 1 YEAR > p + INTERVAL 1 MONTH + INTERVAL 14 DAY"), row) is False
    assert truth(_where("p + INTERVAL 13 MONTH - INTERVAL 1 DAY > p + INTERVAL 1 MONTH"), row) is True


@pytest.mark.parametrize(("a", "op", "b", "expected"), [
    (CLOCK["NOW"], "<", CLOCK["CURDATE"], False),  # NOW() is in [CURDATE(), CURDATE() + 1 DAY)
    (CLOCK["NOW"], ">=", shift(CLOCK["CURDATE"], -1, "DAY"), True),
    (CLOCK["CURDATE"], ">", CLOCK["NOW"], False),
    (shift(CLOCK["NOW"], -1, "DAY"), "<", CLOCK["CURDATE"], True),
    (CLOCK["NOW"], "<", shift(CLOCK["CURDATE"], 10, "HOUR"), None),  # the time of day is not known
    (CLOCK["NOW"], "=", shift(CLOCK["CURDATE"], 2, "DAY"), False),
])
def test_now_against_a_date_from_today(a: Moment | None, op: str, b: Moment | None, expected: bool | None) -> None:
    assert a is not None and b is not None
    assert compare(a, b, op) is expected


@pytest.mark.parametrize(("expression", "expected"), [
    ("TIMESTAMPDIFF(MINUTE, TIMESTAMP(CURDATE() + INTERVAL 4 DAY, '09:00:00'), "
     "TIMESTAMP(CURDATE() + INTERVAL 4 DAY, '11:30:00'))", 150),
    ("TIMESTAMPDIFF(HOUR, '2026-01-01 08:00:00', '2026-01-01 10:59:00')", 2),
    ("TIMESTAMPDIFF(MINUTE, '2026-01-01 10:00:00', '2026-01-01 09:59:30')", 0),  # truncated towards zero
    ("TIMESTAMPDIFF(MINUTE, NOW(), CURDATE())", UNKNOWN),
    ("TIMESTAMPDIFF(MONTH, '2026-01-31', '2026-03-01')", UNKNOWN),  # a unit of no fixed length
])
def test_timestampdiff(expression: str, expected: object) -> None:
    tree = parse(f"SELECT {expression}")
    assert isinstance(tree, exp.Select)
    assert value(tree.expressions[0], {}) == expected


def test_readings_far_apart_are_bet_to_be_different_seconds() -> None:
    """NOW() stored by statement 87 and NOW() written over it by statement 249: the same second on a server
    the harness replays 650 statements a second on, a later one where it replays 200 (profiles'
    SAME_SECOND_STATEMENTS; coworking_spaces_app's settings on MySQL 9.7)."""
    now = CLOCK["NOW"]
    assert isinstance(now, Moment)
    early, near, far = (replace(now, reading=n) for n in (87, 222, 249))
    assert same_second(early, far)  # no pace known: always the same second
    token = SAME_SECOND_SPAN.set(get_profile("mysql-9.7").SAME_SECOND_STATEMENTS)
    try:
        assert same_second(early, near)
        assert not same_second(early, far)
    finally:
        SAME_SECOND_SPAN.reset(token)
    token = SAME_SECOND_SPAN.set(get_profile("mariadb-10.11").SAME_SECOND_STATEMENTS)
    try:
        assert same_second(early, far)
    finally:
        SAME_SECOND_SPAN.reset(token)
