"""``rplay run`` predicts against the run's own start: a date literal days from today is decided (run.json
``started_at``), where a prediction made for "some day within a year" cannot say."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from harness.backends.local import LocalPair
from harness.run import run_workload
from predictor.predict import predict_workload
from predictor.records import Format, read_jsonl
from predictor.workload import parse_workload

pytestmark = pytest.mark.server


def _workload(days: int) -> str:
    """Bundles expiring on literal days around today: the UPDATEs touch none, the DELETE the expired one."""
    soon, gone = date.today() + timedelta(days=days), date.today() - timedelta(days=days)
    return f"""CREATE TABLE bundle (id INT PRIMARY KEY, expires DATE NOT NULL, used INT NOT NULL) ENGINE=InnoDB;
INSERT INTO bundle VALUES (1, '{soon}', 0), (2, '{gone}', 0);
UPDATE bundle SET used = used + 1 WHERE expires > CURDATE() AND id = 2;
UPDATE bundle SET used = used + 1 WHERE expires < CURDATE() AND id = 1;
DELETE FROM bundle WHERE expires < NOW();
"""


def test_run_predicts_date_literals_against_its_start(pair: LocalPair, tmp_path: Path) -> None:
    w = parse_workload(_workload(9), "clock.sql")
    out = tmp_path / "run"
    before = datetime.now().astimezone()
    result = run_workload(w, pair, {"binlog_format": "ROW"}, {}, out, reset=False)
    started = datetime.fromisoformat(json.loads((out / "run.json").read_text())["started_at"])
    assert before.timestamp() - 1 <= started.timestamp() <= datetime.now().timestamp()
    observed = [r.format for r in result.observed[2:]]
    assert observed == [Format.NONE, Format.NONE, Format.ROW]  # the real server's answer
    assert [r.format for r in read_jsonl(out / "predicted.jsonl")[2:]] == observed
    # without the start, a literal nine days away is within the certify-now, run-within-a-year margin
    guessed = predict_workload(w, "mariadb-10.11", {"binlog_format": "ROW"})
    assert [r.format for r in guessed[2:]] != observed
