"""``rplay matrix``: TOML errors, and a tiny matrix on a real local MariaDB pair, with resume."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.cli import main
from harness.matrix import DONE, load_matrix, run_matrix
from tests.conftest import mariadb_available

WORKLOAD = """\
-- title: matrix smoke
CREATE TABLE t (a INT PRIMARY KEY, b INT, c TEXT) ENGINE=InnoDB;
INSERT INTO t VALUES (1, 1, 'x'), (2, 2, 'y');
UPDATE t SET b = b + 1 WHERE a = 1;
DELETE FROM t WHERE a = 2 LIMIT 1;
"""


def _toml(tmp_path: Path, body: str) -> Path:
    (tmp_path / "w").mkdir(exist_ok=True)
    (tmp_path / "w" / "smoke.sql").write_text(WORKLOAD, encoding="utf-8")
    p = tmp_path / "m.toml"
    p.write_text(body, encoding="utf-8")
    return p


TINY = """
workloads = ["w/*.sql"]
servers = ["local:mariadb"]
binlog_format = ["ROW", "STATEMENT"]
binlog_row_image = ["MINIMAL"]
isolation = ["REPEATABLE-READ"]
timeout = 20
"""


@pytest.mark.parametrize(("body", "message"), [
    ("workloads = [", "not valid TOML"),
    ('workloads = ["w/*.sql"]\nservers = []\nbinlog_format = ["ROW"]\nbinlog_row_image = ["FULL"]',
     "'servers' must be a non-empty list"),
    ('workloads = ["nope/*.sql"]\nservers = ["local:mariadb"]\nbinlog_format = ["ROW"]\n'
     'binlog_row_image = ["FULL"]', "matches no file"),
    ('workloads = ["w"]\nservers = ["mars:db"]\nbinlog_format = ["ROW"]\nbinlog_row_image = ["FULL"]',
     "bad --server"),
    (TINY + "\ncolour = 1", "unknown keys colour"),
])
def test_bad_matrix_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, message: str) -> None:
    rc = main(["matrix", str(_toml(tmp_path, body)), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and "Traceback" not in err


def test_cell_product(tmp_path: Path) -> None:
    m = load_matrix(_toml(tmp_path, TINY.replace('["MINIMAL"]', '["MINIMAL", "FULL"]')))
    names = [c.name for c in m.cells()]
    assert len(names) == len(set(names)) == 4
    assert names[0] == "local-mariadb__smoke__ROW__MINIMAL__REPEATABLE-READ"


def _mariadbd() -> set[str]:
    out = subprocess.run(["ps", "-eo", "pid,comm"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.split()[-1] == "mariadbd"}


@pytest.mark.server
def test_tiny_matrix_runs_and_resumes(tmp_path: Path) -> None:
    if not mariadb_available():
        pytest.skip("no local MariaDB")
    before = _mariadbd()
    m = load_matrix(_toml(tmp_path, TINY))
    out = tmp_path / "out"
    first = run_matrix(m, out)
    assert not first.failed, first.failed
    assert len(first.ran) == 2 and not first.skipped
    for name in first.ran:
        d = out / "cells" / name
        run = json.loads((d / "run.json").read_text())
        fmt = name.split("__")[2]
        assert run["binlog_format"] == fmt and run["binlog_row_image"] == "MINIMAL"
        assert run["transaction_isolation"] == "REPEATABLE-READ"
        assert (d / DONE).exists() and (d / "observed.jsonl").stat().st_size > 0
    stmt = out / "cells" / "local-mariadb__smoke__STATEMENT__MINIMAL__REPEATABLE-READ"
    obs = [json.loads(x) for x in (stmt / "observed.jsonl").read_text().splitlines()]
    assert {o["format"] for o in obs if o["sql"].startswith("INSERT")} == {"STATEMENT"}

    again = run_matrix(m, out)
    assert again.ran == () and len(again.skipped) == 2

    (stmt / DONE).unlink()
    third = run_matrix(m, out)
    assert third.ran == (stmt.name,) and len(third.skipped) == 1
    assert _mariadbd() == before  # every pair was closed


@pytest.mark.server
@pytest.mark.spark
def test_matrix_cli_compares(tmp_path: Path) -> None:
    if not mariadb_available():
        pytest.skip("no local MariaDB")
    toml = _toml(tmp_path, TINY.replace('["ROW", "STATEMENT"]', '["ROW"]'))
    out = tmp_path / "out"
    rc = main(["matrix", str(toml), "--out", str(out), "--spark-master", "local[2]"])
    summary = json.loads((out / "report" / "summary.json").read_text())
    assert summary["statements"] == 4 and len(summary["runs"]) == 1
    assert rc == (1 if summary["mismatches"] else 0)
    assert (out / "report" / "report.html").exists()
