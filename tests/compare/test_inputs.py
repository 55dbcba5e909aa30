"""Bad input gets a CompareError with file and line, and the CLI exits 2 without a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.compare.inputs import load_runs, parse_jsonl, stage
from predictor.exceptions import CompareError
from tests.compare.synth import make_matrix, make_records, write_run


def test_finds_runs_below_a_directory(tmp_path: Path) -> None:
    make_matrix(tmp_path / "m", n=5)
    runs = load_runs([tmp_path / "m"])
    assert [r.run for r in runs] == ["cell0", "cell1", "cell2", "cell3"]
    assert runs[0].server == "local:mariadb" and runs[3].binlog_row_image == "NOBLOB"


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "malformed record"),
    ('{"seq": 1, "format": "SIDEWAYS"}', "malformed record"),
    ('{"session": "x"}', "malformed record"),
    ("[1, 2]", "not a JSON object"),
])
def test_malformed_jsonl(tmp_path: Path, line: str, message: str) -> None:
    pred, obs = make_records(1, 3)
    d = write_run(tmp_path / "r", pred, obs, server="s", binlog_format="ROW", row_image="FULL")
    with open(d / "observed.jsonl", "a", encoding="utf-8") as f:
        f.write(line + "\n")
    with pytest.raises(CompareError, match=message) as e:
        stage(load_runs([d]), tmp_path / "stage")
    assert "observed.jsonl:5" in str(e.value)


def test_duplicate_seq(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text('{"seq": 1}\n{"seq": 1}\n', encoding="utf-8")
    with pytest.raises(CompareError, match="duplicate seq 1"):
        parse_jsonl(p)


def test_bad_parquet(tmp_path: Path) -> None:
    pred, obs = make_records(1, 3)
    d = write_run(tmp_path / "r", pred, obs, server="s", binlog_format="ROW", row_image="FULL")
    (d / "predicted.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(CompareError, match="not a readable Parquet file"):
        stage(load_runs([d]), tmp_path / "stage")


@pytest.mark.parametrize("setup", ["missing", "empty", "no_run_json", "no_observed", "bad_run_json"])
def test_cli_exits_2_with_a_clear_message(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          setup: str) -> None:
    pred, obs = make_records(1, 3)
    d = tmp_path / "run"
    if setup != "missing":
        d.mkdir()
    if setup in ("no_run_json", "no_observed", "bad_run_json"):
        write_run(d, pred, obs, server="s", binlog_format="ROW", row_image="FULL")
        {"no_run_json": lambda: (d / "run.json").unlink(),
         "no_observed": lambda: (d / "observed.jsonl").unlink(),
         "bad_run_json": lambda: (d / "run.json").write_text("{", encoding="utf-8")}[setup]()
    rc = main(["compare", str(d), "--out", str(tmp_path / "rep")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "CompareError" in err and "Traceback" not in err
    assert str(d) in err
