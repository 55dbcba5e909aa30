"""BINLOG '...' statements: reading the injected rows events, and bad text as UNKNOWN with a reason."""

from __future__ import annotations

import pytest

from predictor.injection import InjectedRows, InjectionError, injected_rows
from predictor.predict import predict_workload
from predictor.records import Format
from predictor.workload import parse_workload

# MariaDB 10.11's own output for INSERT INTO rplay.r VALUES (42) (fixtures/seeds/003_logging_rules)
FORMAT_DESCRIPTION = """
lwgBaw8BAAAA/AAAAAABAAABAAQAMTAuMTEuMTktTWFyaWFEQi0wK2RlYjEydTEtbG9nAAAAAAAA
AAAAAAAAAAAAAAAAAACXCAFrEzgNAAgAEgAEBAQEEgAA5AAEGggAAAAICAgCAAAACgoKAAAAAAAA
CgoKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAEEwQADQgICAoKCgFZkN7X
"""
TABLE_MAP_AND_WRITE = """
lwgBaxMBAAAANAAAANMBAAAAAH0CAAAAAAEABXJwbGF5AAFyAAEDAAEBAQAEAgFhGcjpLA==
lwgBaxcBAAAAJgAAAPkBAAAAAH0CAAAAAAEAAQH+KgAAAOzv330=
"""

CASES = [
    ("format description only", FORMAT_DESCRIPTION, []),
    ("table map and one write", TABLE_MAP_AND_WRITE, [InjectedRows("rplay", "r", "write", (), (0,))]),
]


@pytest.mark.parametrize(("text", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_injected_rows(text: str, want: list[InjectedRows]) -> None:
    assert injected_rows(text) == want


@pytest.mark.parametrize("text", ["not base64 at all!", "lwgB", TABLE_MAP_AND_WRITE.split()[1]])
def test_unreadable_text_is_an_injection_error(text: str) -> None:
    with pytest.raises(InjectionError):
        injected_rows(text)


def test_unreadable_binlog_statement_is_unknown_and_the_run_goes_on() -> None:
    w = parse_workload("CREATE TABLE r (a INT) ENGINE=InnoDB;\nBINLOG 'zz!!';\nINSERT INTO r VALUES (1);\n")
    recs = predict_workload(w, "mariadb-10.11", {"binlog_format": "ROW"})
    assert recs[1].format is Format.UNKNOWN and recs[1].reason and "base64" in recs[1].reason
    assert recs[2].format is Format.ROW and recs[2].group == 1


@pytest.mark.parametrize(("profile", "fmt", "error", "group"), [
    ("mariadb-10.11", "STATEMENT", None, 1),  # MariaDB switches the injection to rows silently
    ("mysql-9.7", "ROW", 1782, None),  # gtid_mode=ON refuses it first
])
def test_row_injection_outcome(profile: str, fmt: str, error: int | None, group: int | None) -> None:
    w = parse_workload(f"CREATE TABLE r (a INT) ENGINE=InnoDB;\nBINLOG '{TABLE_MAP_AND_WRITE}';\n")
    rec = predict_workload(w, profile, {"binlog_format": fmt})[1]
    assert (rec.error, rec.group) == (error, group)
