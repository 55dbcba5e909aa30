"""Predictor behaviour that needs no server: workload splitting, UNKNOWN handling, the CLI, row images."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from predictor.analyze import Op, analyze
from predictor.images import images, pke
from predictor.predict import predict_workload
from predictor.profiles import get_profile
from predictor.records import Format
from predictor.workload import parse_workload

WORKLOAD = """\
-- title: smoke
CREATE TABLE t (id INT PRIMARY KEY, a INT) ENGINE=InnoDB;
INSERT INTO t VALUES (1, 1);
THIS IS NOT SQL AT ALL;
-- connection other
DELIMITER //
CREATE PROCEDURE p()
BEGIN
  UPDATE t SET a = a + 1 LIMIT 1;
END//
DELIMITER ;
-- replica
CREATE TABLE only_on_replica (x INT);
CALL p();
"""


def test_workload_format_sessions_delimiter_replica() -> None:
    w = parse_workload(WORKLOAD)
    assert [s.session for s in w.statements] == ["default"] * 3 + ["other"] * 3
    assert w.statements[3].sql.startswith("CREATE PROCEDURE p()")
    assert w.statements[3].sql.rstrip().endswith("END")
    assert [s.replica_only for s in w.statements] == [False] * 4 + [True, False]


def test_unknown_statement_does_not_stop_the_run() -> None:
    recs = predict_workload(parse_workload(WORKLOAD), "mariadb-10.11", {"binlog_format": "STATEMENT"})
    assert recs[2].format is Format.UNKNOWN and recs[2].reason
    assert recs[1].format is Format.STATEMENT and recs[1].group == 1
    call = recs[5]
    assert call.unsafe == ("LIMIT",) and call.warnings == (1592,) and call.format is Format.STATEMENT
    assert recs[4].format is Format.NONE  # replica-only


@pytest.mark.parametrize("binlog_format", ["STATEMENT", "ROW"])
def test_a_predictor_error_makes_one_statement_unknown(monkeypatch: pytest.MonkeyPatch, binlog_format: str) -> None:
    """A bug raised on one statement (here: injected into the INSERT's handler) costs that statement only,
    unless strict (the test suite's default, RPLAY_STRICT=1) asks for the exception."""
    from predictor import engine

    real = engine.Predictor.dispatch

    def failing(self: engine.Predictor, b: engine.Builder, info: object, s: object) -> None:
        if b.sql.startswith("INSERT"):
            raise ValueError("injected")
        real(self, b, info, s)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.Predictor, "dispatch", failing)
    w = parse_workload(WORKLOAD)
    with pytest.raises(ValueError, match="injected"):
        predict_workload(w, "mariadb-10.11", {"binlog_format": binlog_format})
    recs = predict_workload(w, "mariadb-10.11", {"binlog_format": binlog_format}, strict=False)
    assert [r.seq for r in recs] == list(range(len(w.statements)))
    assert recs[1].format is Format.UNKNOWN and recs[1].reason == "predictor error: ValueError: injected"
    assert recs[0].format is Format.STATEMENT and recs[5].format is not Format.UNKNOWN  # the rest goes on


def test_call_is_unrolled_into_row_events_in_row_format() -> None:
    recs = predict_workload(parse_workload(WORKLOAD), "mysql-9.7", {"binlog_format": "ROW"})
    call = recs[5]
    assert call.format is Format.ROW
    assert [(e.table, e.type.value) for e in call.row_events] == [("t", "update")]


def _table(ddl: str):  # type: ignore[no-untyped-def]
    info = analyze(ddl)
    assert info.table_def is not None
    return info.table_def


IMAGE_CASES = [
    # (title, ddl, profile, op, written, mode, before, after)
    ("pk minimal update", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b BLOB)", "mariadb-10.11", Op.UPDATE,
     ("a",), "MINIMAL", ("id",), ("a",)),
    ("pk noblob update", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b BLOB)", "mariadb-10.11", Op.UPDATE,
     ("a",), "NOBLOB", ("id", "a"), ("id", "a")),
    ("blob in pke keeps it", "CREATE TABLE t (b BLOB, a INT, PRIMARY KEY (b(10)))", "mariadb-10.11",
     Op.DELETE, None, "NOBLOB", ("b", "a"), ()),
    ("not-null unique is the pke", "CREATE TABLE t (u INT NOT NULL, v INT, UNIQUE KEY (u))", "mariadb-10.11",
     Op.UPDATE, ("v",), "MINIMAL", ("u",), ("v",)),
    ("mariadb no pke: full images", "CREATE TABLE t (x INT, y INT, UNIQUE KEY (x))", "mariadb-10.11",
     Op.UPDATE, ("y",), "MINIMAL", ("x", "y"), ("x", "y")),
    ("mysql no pke: all columns before", "CREATE TABLE t (x INT, y INT)", "mysql-9.7", Op.UPDATE,
     ("y",), "MINIMAL", ("x", "y"), ("y",)),
    ("mysql 8.0 minimal after has unique keys",
     "CREATE TABLE t (id INT PRIMARY KEY, u INT, a INT, UNIQUE KEY (u))",
     "mysql-8.0", Op.UPDATE, ("a",), "MINIMAL", ("id",), ("id", "u", "a")),
    ("mysql 9.7 minimal after is the written columns (seen on 9.7.4)",
     "CREATE TABLE t (id INT PRIMARY KEY, u INT, a INT, UNIQUE KEY (u))",
     "mysql-9.7", Op.UPDATE, ("a",), "MINIMAL", ("id",), ("a",)),
    ("minimal insert adds auto-increment", "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b INT)",
     "mariadb-10.11", Op.INSERT, ("a",), "MINIMAL", (), ("id", "a")),
    ("full delete", "CREATE TABLE t (id INT PRIMARY KEY, a INT)", "mysql-9.7", Op.DELETE, None, "FULL",
     ("id", "a"), ()),
]


@pytest.mark.parametrize("case", IMAGE_CASES, ids=[c[0] for c in IMAGE_CASES])
def test_row_images(case: tuple) -> None:  # type: ignore[type-arg]
    _, ddl, prof, op, written, mode, before, after = case
    got = images(_table(ddl), op, written, mode, get_profile(prof))
    assert got == (before, after)


def test_pke_skips_nullable_unique_keys() -> None:
    t = _table("CREATE TABLE t (a INT, b INT NOT NULL, UNIQUE KEY (a), UNIQUE KEY (b))")
    assert pke(t, get_profile("mariadb-10.11")) == ("b",)


def test_cli_predict_writes_one_json_object_per_statement(tmp_path: Path) -> None:
    wl = tmp_path / "w.sql"
    wl.write_text(WORKLOAD)
    out = subprocess.run([sys.executable, "-m", "harness.cli", "predict", str(wl), "--server", "mysql-9.7",
                          "--set", "binlog_format=ROW"], capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["seq"] for r in rows] == list(range(6))
    assert rows[2]["format"] == "UNKNOWN"


EXPIRING = """CREATE TABLE bundle (id INT PRIMARY KEY, expires DATE) ENGINE=InnoDB;
INSERT INTO bundle VALUES (1, '2026-12-01');
DELETE FROM bundle WHERE expires < CURDATE();
"""


@pytest.mark.parametrize(("at", "deleted"), [
    ("2026-11-21T12:00:00", False),  # expires in ten days
    ("2026-12-05 08:00:00+00:00", True),  # expired four days ago
])
def test_cli_predict_at_places_date_literals_against_the_run_start(tmp_path: Path, at: str, deleted: bool) -> None:
    wl = tmp_path / "w.sql"
    wl.write_text(EXPIRING)
    out = subprocess.run([sys.executable, "-m", "harness.cli", "predict", str(wl), "--set", "binlog_format=ROW",
                          "--at", at], capture_output=True, text=True, check=True)
    delete = json.loads(out.stdout.splitlines()[2])
    assert delete["format"] == ("ROW" if deleted else "NONE")


@pytest.mark.parametrize("argv", [["--server", "oracle-23"], ["--set", "novalue"], ["--at", "next tuesday"]])
def test_cli_predict_bad_input_is_a_clear_error(tmp_path: Path, argv: list[str]) -> None:
    wl = tmp_path / "w.sql"
    wl.write_text("SELECT 1;\n")
    out = subprocess.run([sys.executable, "-m", "harness.cli", "predict", str(wl), *argv],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and "error" in out.stderr
