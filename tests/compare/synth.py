"""Synthetic run directories for the comparison's tests (the comparison does not judge servers)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

from predictor.records import Cache, Format, RowEvent, RowType, StatementRecord, write_jsonl

SQLS = (
    "INSERT INTO t1 VALUES ({n}, 'x{n}')",
    "UPDATE t1 SET b = 'y{n}' WHERE a = {n}",
    "DELETE FROM t2 WHERE a > {n} LIMIT 2",
    "INSERT INTO t3 SELECT * FROM t1 WHERE a < {n}",
    "SELECT '<script>alert({n})</script>' FROM dual WHERE 1 < 2 & 3",
)
TABLES = ("t1", "t2", "t3")
COLUMNS = ("a", "b", "c", "d")


def _events(rng: random.Random) -> tuple[RowEvent, ...]:
    out = []
    for t in rng.sample(TABLES, rng.randint(0, 2)):
        ty = rng.choice(list(RowType))
        cols = tuple(sorted(rng.sample(COLUMNS, rng.randint(1, 4))))
        before = cols if ty is not RowType.WRITE else ()
        after = cols if ty is not RowType.DELETE else ()
        out.append(RowEvent(t, ty, before, after))
    return tuple(out)


def predicted_record(rng: random.Random, seq: int) -> StatementRecord:
    fmt = rng.choice([Format.STATEMENT, Format.ROW, Format.ROW, Format.NONE])
    unsafe = tuple(rng.sample(["LIMIT", "SYSTEM_FUNCTION", "MIXED_STATEMENT"], rng.randint(0, 1)))
    warnings = (1592,) if unsafe and fmt is Format.STATEMENT else ()
    return StatementRecord(
        seq=seq, session=rng.choice(["default", "c2"]), sql=rng.choice(SQLS).format(n=rng.randint(1, 50)),
        error=rng.choice([None, None, None, 1062]), warnings=warnings, unsafe=unsafe, format=fmt,
        cache=rng.choice(list(Cache)), group=seq // 2 if fmt is not Format.NONE else None,
        row_events=_events(rng) if fmt is Format.ROW else ())


def perturb(rng: random.Random, p: StatementRecord) -> StatementRecord | None:
    """The observed twin of ``p``: mostly equal, sometimes different on one or more dimensions."""
    r = rng.random()
    if r < 0.03:
        return None
    o = p
    if o.format is Format.UNKNOWN:
        o = replace(o, format=Format.ROW)
    if rng.random() < 0.08:
        o = replace(o, error=rng.choice([None, 1062, 1213]))
    if rng.random() < 0.08:
        o = replace(o, warnings=tuple(rng.sample([1592, 1105, 1665], rng.randint(0, 2))))
    if rng.random() < 0.08:
        o = replace(o, unsafe=tuple(rng.sample(["LIMIT", "SYSTEM_VARIABLE"], rng.randint(0, 2))))
    if rng.random() < 0.08:
        o = replace(o, format=rng.choice([Format.STATEMENT, Format.ROW, Format.NONE]))
    if rng.random() < 0.05:
        o = replace(o, cache=rng.choice(list(Cache)))
    if rng.random() < 0.05:
        o = replace(o, group=None if o.group else 7)
    if rng.random() < 0.1:
        ev = list(o.row_events)
        k = rng.randint(0, 4)
        if k == 0 and ev:
            ev.pop()
        elif k == 1:
            ev.append(RowEvent("t9", RowType.WRITE, (), ("a",)))
        elif k == 2 and ev and ev[0].after:
            ev[0] = replace(ev[0], after=ev[0].after[:-1])
        elif k == 3 and ev:
            ev[0] = replace(ev[0], after=(*ev[0].after, "zz"))
        elif k == 4 and ev and len(ev[0].after) > 1:
            ev[0] = replace(ev[0], after=tuple(reversed(ev[0].after)))
        o = replace(o, row_events=tuple(ev))
    if o.seq % 23 == 5:  # warnings not read (ROW_COUNT() had to stay): excluded by every engine alike
        o = replace(o, warnings=(), warnings_unread=True)
    return o


def make_records(seed: int, n: int) -> tuple[list[StatementRecord], list[StatementRecord]]:
    rng = random.Random(seed)
    pred = [predicted_record(rng, seq) for seq in range(1, n + 1)]
    for i in rng.sample(range(n), max(1, n // 30)):
        pred[i] = replace(pred[i], format=Format.UNKNOWN, reason="cannot say")
    obs = [o for p in pred if (o := perturb(rng, p)) is not None]
    obs.append(StatementRecord(n + 1, "default", "COMMIT", format=Format.NONE))  # observed only
    return pred, obs


def write_run(d: Path, pred: list[StatementRecord], obs: list[StatementRecord], *, server: str,
              binlog_format: str, row_image: str, binlog_bytes: int | None = 1000,
              replica: dict[str, object] | None = None) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    write_jsonl(d / "predicted.jsonl", pred)
    write_jsonl(d / "observed.jsonl", obs)
    (d / "events.jsonl").write_text("", encoding="utf-8")
    meta = {"workload": "synthetic", "workload_title": "synthetic <b>title</b>", "server": server,
            "server_version": "10.11.14-MariaDB", "profile": "mariadb-10.11", "session_vars": {},
            "server_opts": {}, "binlog_format": binlog_format, "binlog_row_image": row_image,
            "transaction_isolation": "REPEATABLE-READ", "timings": {}, "binlog_bytes": binlog_bytes}
    (d / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    (d / "replica.json").write_text(json.dumps(replica or {"caught_up": True, "errors": [], "diverged": []}),
                                    encoding="utf-8")
    return d


def make_matrix(root: Path, n: int = 200) -> list[Path]:
    """Four runs over two servers, two formats and two row images, one with a diverged table."""
    dirs = []
    cells = [("local:mariadb", "MIXED", "FULL"), ("local:mariadb", "ROW", "MINIMAL"),
             ("docker:mysql-9.7", "MIXED", "FULL"), ("docker:mysql-9.7", "STATEMENT", "NOBLOB")]
    for i, (server, fmt, image) in enumerate(cells):
        pred, obs = make_records(100 + i, n)
        replica = None
        if i == 1:
            replica = {"caught_up": True, "errors": ["Error 1032 <b>"], "diverged": [{
                "table": "t1", "primary_rows": 3, "replica_rows": 2, "differing_keys": ["(1)"],
                "first_writer_seq": 4,
                "first_writer_sql": "INSERT INTO t1 VALUES (1, '<script>x</script>')"}]}
        dirs.append(write_run(root / f"cell{i}", pred, obs, server=server, binlog_format=fmt, row_image=image,
                              binlog_bytes=1000 * (i + 1), replica=replica))
    return dirs
