"""The predictor's caches (analysis per template key and fingerprint, memoised DML decisions, replayed
autocommitted statements, record shapes) change no prediction: every record is the same with
``cached=False``, on the seed corpus, the example workloads and a generated workload that repeats
templates across state changes (sessions, transactions, formats, duplicate keys, temporary tables).
"""

from __future__ import annotations

import functools
import gc
import random
from pathlib import Path

import pytest

from harness import check as C
from predictor.analyze import StatementInfo
from predictor.engines import load_engine_profiles
from predictor.predict import Analyzer, predict_workload
from predictor.records import StatementRecord
from predictor.workload import Workload, load_workload, parse_workload

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "fixtures" / "engines"
FILES = C.workload_files([ROOT / "fixtures" / "seeds"]) + sorted((ROOT / "fixtures" / "workloads").glob("*.sql"))


def _differences(a: list[StatementRecord], b: list[StatementRecord]) -> list[str]:
    assert len(a) == len(b)
    return [f"seq {x.seq}: cached {x} != uncached {y}" for x, y in zip(a, b, strict=True) if x != y]


def _check(w: Workload, profile: str, config: dict[str, str], engines: dict[str, object] | None = None,
           analyzer: Analyzer | None = None) -> None:
    kwargs = {"engines": engines} if engines else {}
    cached = predict_workload(w, profile, config, **kwargs)  # type: ignore[arg-type]
    uncached = predict_workload(w, profile, config, cached=False, analyzer=analyzer,
                                **kwargs)  # type: ignore[arg-type]
    diff = _differences(cached, uncached)
    assert not diff, "\n".join(diff[:5])


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_fixture_records_same_with_and_without_caches(path: Path) -> None:
    w = load_workload(path)
    engines: dict[str, object] = {}
    for name in C.engine_files(path):
        engines.update(load_engine_profiles(ENGINES / Path(name).name))
    profiles = [s for s in w.headers.servers if s != "predict-only"] or ["mariadb-10.11"]
    for prof in profiles:
        for cfg in w.headers.configs or ((),):
            _check(w, prof, dict(cfg), engines)


TEMPLATES = [
    "INSERT INTO t{k} (id, a, b) VALUES ({i}, {j}, 'v{j}')",
    "INSERT INTO s{k} (id, a) VALUES ({d}, {j})",
    "INSERT IGNORE INTO s{k} (id, a) VALUES ({d}, {j}), ({d2}, 1)",
    "INSERT INTO s{k} (id, a) VALUES ({d}, {j}) ON DUPLICATE KEY UPDATE a = a + 1",
    "UPDATE t{k} SET a = a + {j} WHERE id = {i}",
    "UPDATE s{k} SET id = id + 1000 WHERE id = {d}",
    "DELETE FROM t{k} WHERE id = {i}",
    "DELETE FROM s{k}",
    "INSERT INTO m{k} VALUES ({i}, {j}, 'x')",
    "UPDATE m{k} SET b = 'y{j}' WHERE id = {i} LIMIT 1",
    "SELECT a, b FROM t{k} WHERE id = {i}",
    "SELECT a FROM nosuch WHERE id = {i}",
    "REPLACE INTO m{k} (id, a) VALUES ({i}, {j})",
    "INSERT INTO t{k} (id, a) SELECT id + {i}, a FROM m{k} WHERE a > {j}",
    "UPDATE t{k} SET a = RAND() WHERE id = {i}",
    "INSERT INTO t{k} (id, a, b) VALUES ({i}, {j}, UUID())",
    "INSERT INTO tmp (id) VALUES ({i})",
    "UPDATE t{k} SET a = {j} LIMIT 0",
    "insert into  t{k} (id,a) values ({i},-{j})",
]
STATE = [
    "BEGIN", "COMMIT", "ROLLBACK", "SET autocommit = 0", "SET autocommit = 1",
    "SET SESSION binlog_format = 'STATEMENT'", "SET SESSION binlog_format = 'ROW'",
    "SET SESSION binlog_format = 'MIXED'", "SET SESSION binlog_row_image = 'MINIMAL'",
    "SET SESSION binlog_row_image = 'FULL'", "SET sql_log_bin = 0", "SET sql_log_bin = 1",
    "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY) ENGINE=MyISAM", "DROP TEMPORARY TABLE IF EXISTS tmp",
    "SAVEPOINT sp", "ROLLBACK TO SAVEPOINT sp", "TRUNCATE TABLE s1",
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
    "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", "LOCK TABLES t1 WRITE", "UNLOCK TABLES",
]


def mixed_workload(n: int, seed: int) -> Workload:
    """Template statements on three connections, with a state change every ~15 statements."""
    rnd = random.Random(seed)
    lines = []
    for k in range(3):
        lines.append(f"CREATE TABLE t{k} (id INT PRIMARY KEY, a INT, b VARCHAR(40)) ENGINE=InnoDB;")
        lines.append(f"CREATE TABLE m{k} (id INT PRIMARY KEY, a INT, b VARCHAR(40)) ENGINE=MyISAM;")
        lines.append(f"CREATE TABLE s{k} (id INT PRIMARY KEY, a INT) ENGINE=InnoDB;")
    conn = "default"
    for _ in range(n):
        if rnd.random() < 0.05:
            conn = rnd.choice(["default", "c1", "c2"])
            lines.append(f"-- connection {conn}")
        if rnd.random() < 0.07:
            lines.append(rnd.choice(STATE) + ";")
            continue
        tpl = rnd.choice(TEMPLATES)
        lines.append(tpl.format(k=rnd.randrange(3), i=rnd.randint(1, 10**6), j=rnd.randint(1, 10**6),
                                d=rnd.randint(1, 40), d2=rnd.randint(1, 40)) + ";")
    return parse_workload("\n".join(lines))


class _Uncached(Analyzer):
    """Every distinct text analysed afresh, once for all configurations (parsing is the slow part)."""

    def __init__(self, w: Workload) -> None:
        super().__init__(cached=False)
        fresh = Analyzer(cached=False)
        self.infos = {st.sql: fresh(st.sql) for st in w.statements}

    def __call__(self, sql: str) -> StatementInfo:
        return self.infos[sql]


@functools.cache
def _mixed() -> tuple[Workload, _Uncached]:
    w = mixed_workload(3000, seed=7)
    return w, _Uncached(w)


@pytest.mark.parametrize("profile", ["mariadb-10.11", "mysql-9.7", "mariadb-11.8"])
@pytest.mark.parametrize("fmt", ["MIXED", "STATEMENT", "ROW"])
def test_mixed_template_workload_same_with_and_without_caches(profile: str, fmt: str) -> None:
    w, uncached = _mixed()
    _check(w, profile, {"binlog_format": fmt}, analyzer=uncached)


def _frozen(obj: object) -> bool:
    """A frozen object sits in the permanent generation, which gc.get_objects() does not list."""
    return not any(o is obj for o in gc.get_objects())


def test_prediction_leaves_the_garbage_collector_as_it_found_it() -> None:
    w, _ = _mixed()
    assert gc.get_freeze_count() == 0
    predict_workload(w, "mariadb-10.11")
    assert gc.get_freeze_count() == 0
    # Someone else's frozen objects stay frozen. (Counting them is not a test:
    # a frozen object can still die by reference count while we predict.)
    theirs = ["frozen by the caller"]
    gc.freeze()
    try:
        assert _frozen(theirs)
        predict_workload(w, "mariadb-10.11")
        assert _frozen(theirs)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert not _frozen(theirs)
