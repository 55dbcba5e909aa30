"""Small workloads, one per seed document, replayed with ``run_workload`` on docker:mysql-9.7 and
docker:mariadb-11.8; the observed records must show what these servers really do (see docker/README.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from docker_support import TARGETS

from harness.backends.docker import DockerBackend
from harness.run import run_workload
from predictor.records import Cache, Format, StatementRecord
from predictor.workload import load_workload

pytestmark = pytest.mark.docker

WORKLOADS = Path(__file__).resolve().parent / "workloads"
ANY = "any"


@dataclass(frozen=True)
class Want:
    """The parts of one observed record a case checks (``rows``: (table, type, before, after) tuples)."""

    format: Format
    cache: Cache = Cache.NONE
    error: int | None = None
    warnings: tuple[int, ...] = ()
    unsafe: tuple[str, ...] = ()
    rows: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] | None = None


DEPRECATED_BINLOG_FORMAT = 1287  # MySQL 9.7 warns on every SET binlog_format

CASES: list[tuple[str, str, int, Want]] = [
    # (target, workload, seq, expected record)
    # 000 WL#3303: unsafe + STATEMENT logs as statement with note 1592; unsafe + MIXED switches to row
    ("mysql-9.7", "seed000_decision_table", 1, Want(Format.NONE, warnings=(DEPRECATED_BINLOG_FORMAT,))),
    ("mariadb-11.8", "seed000_decision_table", 1, Want(Format.NONE)),
    (ANY, "seed000_decision_table", 2, Want(Format.STATEMENT, Cache.TRX)),
    (ANY, "seed000_decision_table", 3, Want(Format.STATEMENT, Cache.TRX, warnings=(1592,),
                                            unsafe=("LIMIT",))),
    (ANY, "seed000_decision_table", 5, Want(Format.ROW, Cache.TRX, rows=(("t", "update", ("id", "v"),
                                                                           ("id", "v")),))),
    (ANY, "seed000_decision_table", 6, Want(Format.STATEMENT, Cache.TRX)),
    (ANY, "seed000_decision_table", 8, Want(Format.ROW, Cache.TRX, rows=(("t", "write", (), ("id", "v")),))),
    # 001 WL#2687: an N-statement alone goes to the statement cache; N after T inside a transaction:
    # MySQL 9.7 refuses it (GTID consistency, error 1785); MariaDB (MIXED) logs it as rows, statement cache
    ("mysql-9.7", "seed001_caches", 2, Want(Format.ROW, Cache.STMT, rows=(("nt", "write", (), ("a",)),))),
    ("mariadb-11.8", "seed001_caches", 2, Want(Format.STATEMENT, Cache.STMT)),
    ("mysql-9.7", "seed001_caches", 5, Want(Format.ROW, Cache.TRX)),
    ("mariadb-11.8", "seed001_caches", 5, Want(Format.STATEMENT, Cache.TRX)),
    ("mysql-9.7", "seed001_caches", 6, Want(Format.NONE, error=1785, warnings=(6414,))),
    ("mariadb-11.8", "seed001_caches", 6, Want(Format.ROW, Cache.STMT, rows=(("nt", "write", (), ("a",)),))),
    # 002 WL#3931: no self-logging engine on either server: ENGINE=NDBCLUSTER is unknown (1286)
    (ANY, "seed002_self_logging", 0, Want(Format.NONE, error=1286)),
    (ANY, "seed002_self_logging", 1, Want(Format.STATEMENT, Cache.DIRECT)),
    # 003 rules: UUID() is unsafe; CREATE ... SELECT is one direct statement; temporary tables in ROW
    # log nothing
    (ANY, "seed003_logging_rules", 2, Want(Format.STATEMENT, Cache.TRX, warnings=(1592,),
                                           unsafe=("SYSTEM_FUNCTION",))),
    (ANY, "seed003_logging_rules", 4, Want(Format.ROW, Cache.TRX, rows=(("t", "write", (), ("id", "v")),))),
    (ANY, "seed003_logging_rules", 5, Want(Format.STATEMENT, Cache.DIRECT)),
    (ANY, "seed003_logging_rules", 7, Want(Format.NONE)),
    (ANY, "seed003_logging_rules", 8, Want(Format.NONE)),
    # 004 WL#5092 MINIMAL: before = PK, after = written columns (MySQL 9.7 adds no unique-key columns);
    # without a key MySQL logs all columns before and the written ones after, MariaDB all columns in both
    (ANY, "seed004_row_images", 4, Want(Format.ROW, Cache.TRX, rows=(("k", "write", (), ("id", "u", "v")),))),
    (ANY, "seed004_row_images", 5, Want(Format.ROW, Cache.TRX, rows=(("k", "update", ("id",), ("v",)),))),
    ("mysql-9.7", "seed004_row_images", 7, Want(Format.ROW, Cache.TRX,
                                                rows=(("nk", "update", ("a", "b"), ("b",)),))),
    ("mariadb-11.8", "seed004_row_images", 7, Want(Format.ROW, Cache.TRX,
                                                   rows=(("nk", "update", ("a", "b"), ("a", "b")),))),
    (ANY, "seed004_row_images", 8, Want(Format.ROW, Cache.TRX, rows=(("k", "delete", ("id",), ()),))),
]


DIVERGES = {"seed003_logging_rules": {"t"}}
"""Tables the replica check must find different: UUID() logged as a statement differs on the replica."""

EXPANDED = [(t, w, s, want) for target, w, s, want in CASES
            for t in (TARGETS if target == ANY else (target,))]

Observations = dict[str, list[StatementRecord]]


@pytest.fixture(scope="session")
def observe(built_images: object, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Observations]:
    """``observe(target)``: every workload run once on one pair of ``target`` (reset between workloads),
    the pair closed at once; the records are kept for the session."""
    cache: dict[str, Observations | BaseException] = {}

    def run_all(target: str) -> Observations:
        out: Observations = {}
        with DockerBackend(target).start_pair({}) as pair:
            for wl in sorted(WORKLOADS.glob("*.sql")):
                out_dir = tmp_path_factory.mktemp(f"{target}-{wl.stem}")
                res = run_workload(load_workload(wl), pair, {}, {}, out_dir)
                assert res.error is None, res.error
                assert res.replica is not None and res.replica.caught_up, res.replica
                diverged = {d.table for d in res.replica.diverged}
                assert diverged == DIVERGES.get(wl.stem, set()), (wl.stem, res.replica.diverged)
                out[wl.stem] = list(res.observed)
        return out

    def get(target: str) -> Observations:
        if target not in cache:
            try:
                cache[target] = run_all(target)
            except Exception as e:  # fail every case of this target once, without re-running
                cache[target] = e
        got = cache[target]
        if isinstance(got, BaseException):
            raise got
        return got

    return get


def test_every_seed_document_has_a_workload() -> None:
    seeds = sorted(p.name[:7] for p in WORKLOADS.glob("seed*.sql"))
    assert seeds == ["seed000", "seed001", "seed002", "seed003", "seed004"]


@pytest.mark.parametrize("target, workload, seq, want", EXPANDED,
                         ids=[f"{t}-{w}-{s}" for t, w, s, _ in EXPANDED])
def test_observed_record(observe: Callable[[str], Observations], target: str, workload: str, seq: int,
                         want: Want) -> None:
    rec = observe(target)[workload][seq]
    assert rec.seq == seq
    got = Want(rec.format, rec.cache, rec.error, tuple(rec.warnings), tuple(rec.unsafe),
               None if want.rows is None else
               tuple((e.table, e.type.value, tuple(e.before), tuple(e.after)) for e in rec.row_events))
    assert got == want, rec.sql
