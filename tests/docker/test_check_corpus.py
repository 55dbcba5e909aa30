"""``rplay check fixtures/seeds --server docker:mysql-9.7``: every expectation and prediction of the corpus
holds on the real MySQL 9.7 server (issue 5), as a user runs the command; exit code 0."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.cli import main as cli_main

pytestmark = pytest.mark.docker

SEEDS = Path(__file__).resolve().parents[2] / "fixtures" / "seeds"

FAILURE = re.compile(r"^(?P<file>\S+?):(?P<line>\d+): \[(?P<config>[^\]]*)\] (?P<source>\S+) ")
CLOSING = re.compile(r"^(?P<passed>\d+) passed, (?P<failed>\d+) failed$")


def test_corpus_holds_on_mysql_97(built_images: object, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["check", str(SEEDS), "--server", "docker:mysql-9.7"])
    out = capsys.readouterr().out.splitlines()
    closing = CLOSING.fullmatch(out[-1])
    assert closing is not None, out[-5:]
    failures = [m.group(0) + m.string[m.end():][:160] for m in map(FAILURE.match, out[:-1]) if m is not None]
    assert len(failures) == int(closing["failed"])  # every failure is one line of the documented form
    assert failures == [], f"{len(failures)} failures on docker:mysql-9.7:\n" + "\n".join(failures[:60])
    assert code == 0
    assert int(closing["passed"]) > 25_000  # the whole corpus ran, on the server too
