"""Checking fixture expectations against statement records, as plain functions.

A fixture statement carries ``-- expect[...]: key=value`` lines (see ``predictor/workload.py``). For one
configuration and one server profile, the applicable lines are resolved into one value per key (a line with
more qualifiers overrides the same key of a line with fewer; on a tie the later line wins), and each key is
checked against a record: the prediction, the observation, or both. ``compare_records`` scores a prediction
against an observation on every dimension of ``predictor.records.DIMENSIONS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from predictor.exceptions import WorkloadError
from predictor.records import DIMENSIONS, Cache, Format, RowEvent, RowType, StatementRecord
from predictor.workload import Expectation, Statement, Workload

KEYS: frozenset[str] = frozenset(
    {"format", "unsafe", "error", "warnings", "cache", "group", "before", "after", "row"}
)
"""Every expectation key a fixture may use."""

CONFIG_VARS: frozenset[str] = frozenset(
    {"binlog_format", "binlog_row_image", "transaction_isolation", "binlog_direct_non_transactional_updates",
     "autocommit", "sql_log_bin"}
)
"""Canonical configuration variable names accepted in ``-- config:`` lines and qualifiers."""

CONFIG_VALUES: Mapping[str, frozenset[str]] = {
    "binlog_format": frozenset({"STATEMENT", "ROW", "MIXED"}),
    "binlog_row_image": frozenset({"MINIMAL", "NOBLOB", "FULL"}),
    "transaction_isolation": frozenset({"READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ",
                                        "SERIALIZABLE"}),
    "binlog_direct_non_transactional_updates": frozenset({"ON", "OFF", "0", "1"}),
    "autocommit": frozenset({"ON", "OFF", "0", "1"}),
    "sql_log_bin": frozenset({"ON", "OFF", "0", "1"}),
}

NO_ROWS: frozenset[str] = frozenset({"none", "-"})
"""``row=none``: an explicit empty set of row events (overrides a less qualified line's ``row=``)."""

PROFILES: tuple[str, ...] = ("mariadb-10.11", "mariadb-11.8", "mysql-9.7")
"""Server profiles a fixture's ``-- servers:`` header may name (besides ``predict-only``)."""


class Source(StrEnum):
    """What a checked value was compared with."""

    PREDICTED = "predicted"  # expectation vs prediction
    OBSERVED = "observed"  # expectation vs the real server
    COMPARED = "predicted-vs-observed"  # prediction vs the real server


@dataclass(frozen=True)
class Mismatch:
    """One key or dimension whose expected value differs from what a record holds."""

    key: str
    expected: str
    got: str


@dataclass(frozen=True)
class Failure:
    """A mismatch located in a fixture: file:line, statement, configuration and what was compared."""

    file: str
    line: int
    sql: str
    config: str
    source: Source
    mismatch: Mismatch

    def __str__(self) -> str:
        sql = " ".join(self.sql.split())
        if len(sql) > 80:
            sql = sql[:77] + "..."
        m = self.mismatch
        return (f"{self.file}:{self.line}: [{self.config or 'default'}] {self.source.value} {m.key}: "
                f"expected {m.expected}, got {m.got}  -- {sql}")


@dataclass(frozen=True)
class Tally:
    """Counts of checked keys/dimensions and the failures among them."""

    passed: int = 0
    failures: tuple[Failure, ...] = ()

    @property
    def failed(self) -> int:
        return len(self.failures)

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.passed + other.passed, self.failures + other.failures)


# --- values -------------------------------------------------------------------------------------------------

def _bare_table(name: str) -> str:
    """``\\`db\\`.\\`t\\``` / ``db.t`` / ``t`` -> ``t`` (fixtures name tables without their database)."""
    return name.replace("`", "").rsplit(".", 1)[-1].lower()


def _cols(text: str) -> tuple[str, ...]:
    text = text.strip()
    if text in ("", "-"):
        return ()
    return tuple(sorted(c.strip().lower() for c in text.split(",") if c.strip()))


def _fmt_cols(cols: Iterable[str]) -> str:
    cs = sorted(cols)
    return ",".join(cs) if cs else "-"


def parse_row(text: str) -> RowEvent:
    """``TABLE:TYPE:BEFORE:AFTER`` -> RowEvent with bare table name and sorted columns."""
    parts = text.split(":")
    if len(parts) != 4:
        raise WorkloadError(f"row={text!r}: expected TABLE:TYPE:BEFORE:AFTER")
    table, typ, before, after = parts
    try:
        rtype = RowType(typ.strip().lower())
    except ValueError:
        raise WorkloadError(f"row={text!r}: type must be write, update or delete") from None
    return RowEvent(_bare_table(table), rtype, _cols(before), _cols(after))


def _norm_row(e: RowEvent) -> RowEvent:
    return RowEvent(_bare_table(e.table), e.type, tuple(sorted(c.lower() for c in e.before)),
                    tuple(sorted(c.lower() for c in e.after)))


def _fmt_row(e: RowEvent) -> str:
    return f"{e.table}:{e.type.value}:{','.join(e.before)}:{','.join(e.after)}"


def _fmt_rows(rows: Iterable[RowEvent]) -> str:
    rs = sorted(rows)
    return " ".join(_fmt_row(r) for r in rs) if rs else "(no row events)"


def _int_set(text: str) -> tuple[int, ...]:
    if text.strip().lower() == "none":
        return ()
    return tuple(sorted({int(x) for x in text.split(",") if x.strip()}))


def validate_value(key: str, value: str) -> str | None:
    """Why ``key=value`` is not a valid expectation, or None when it is."""
    if key not in KEYS:
        return f"unknown expectation key {key!r} (known: {', '.join(sorted(KEYS))})"
    v = value.strip()
    try:
        if key == "format":
            if v.upper() not in ("ROW", "STATEMENT", "NONE"):
                return f"format={v}: expected ROW, STATEMENT or NONE"
        elif key == "cache":
            Cache(v.lower())
        elif key in ("error", "group"):
            if v.lower() != "none":
                int(v)
        elif key == "warnings":
            _int_set(v)
        elif key == "unsafe":
            if not v:
                return "unsafe= needs reason names or none"
        elif key == "row" and v.lower() not in NO_ROWS:
            parse_row(v)
    except (ValueError, WorkloadError) as e:
        return f"{key}={v}: {e}"
    return None


def validate_config(config: Sequence[tuple[str, str]]) -> list[str]:
    """Problems with one ``-- config:`` line (unknown variable or value)."""
    out: list[str] = []
    for k, v in config:
        if k not in CONFIG_VARS:
            out.append(f"unknown config variable {k!r}")
        elif v.upper() not in CONFIG_VALUES[k]:
            out.append(f"bad value {k}={v}")
    return out


# --- resolving and checking ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Resolved:
    """The expectation of one statement for one configuration and profile: key -> (value, line)."""

    values: Mapping[str, tuple[str, int]]
    rows: tuple[RowEvent, ...] | None  # None: no row= key applied
    rows_line: int = 0

    def __bool__(self) -> bool:
        return bool(self.values) or self.rows is not None


def resolve(expectations: Sequence[Expectation], config: Mapping[str, str], profile: str) -> Resolved:
    """Merge the applicable expectation lines; more qualifiers win, then the later line."""
    ranked = sorted((e for e in expectations if e.applies(dict(config), profile)),
                    key=lambda e: (len(e.qualifiers), e.line))
    values: dict[str, tuple[str, int]] = {}
    rows: tuple[RowEvent, ...] | None = None
    rows_line = 0
    for e in ranked:
        row_values = [v for k, v in e.values if k == "row"]
        if row_values:  # ``row=none`` (or ``row=-``): the statement has no row events at all
            line_rows = [parse_row(v) for v in row_values if v.strip().lower() not in NO_ROWS]
            rows, rows_line = tuple(sorted(line_rows)), e.line
        for k, v in e.values:
            if k != "row":
                values[k] = (v, e.line)
    return Resolved(values, rows, rows_line)


def check_key(key: str, expected: str, rec: StatementRecord) -> Mismatch | None:
    """Compare one expectation key with a record; None when it holds."""
    exp = expected.strip()
    if key == "format":
        return None if rec.format.value == exp.upper() else Mismatch(key, exp.upper(), rec.format.value)
    if key == "cache":
        return None if rec.cache.value == exp.lower() else Mismatch(key, exp.lower(), rec.cache.value)
    if key == "error":
        want = None if exp.lower() == "none" else int(exp)
        return None if rec.error == want else Mismatch(key, exp, str(rec.error or "none"))
    if key == "group":
        wantg = None if exp.lower() == "none" else int(exp)
        got_g = "none" if rec.group is None else str(rec.group)
        return None if rec.group == wantg else Mismatch(key, exp, got_g)
    if key == "warnings":
        want_w = _int_set(exp)
        got_w = tuple(sorted(set(rec.warnings)))
        return None if want_w == got_w else Mismatch(key, ",".join(map(str, want_w)) or "none",
                                                   ",".join(map(str, got_w)) or "none")
    if key == "unsafe":
        want_u = () if exp.lower() == "none" else tuple(sorted({u.strip().upper() for u in exp.split(",")}))
        # expectations describe what the server reports: reasons behind 1592 notes (see README)
        got_u = tuple(sorted({u.upper() for u in rec.reported_unsafe}))
        if want_u == got_u:
            return None
        return Mismatch(key, ",".join(want_u) or "none", ",".join(got_u) or "none")
    if key in ("before", "after"):
        want_c = _cols(exp)
        if not rec.row_events:
            return Mismatch(key, _fmt_cols(want_c), "(no row events)")
        for e in rec.row_events:
            got_c = tuple(sorted(c.lower() for c in (e.before if key == "before" else e.after)))
            if got_c != want_c:
                return Mismatch(key, _fmt_cols(want_c), f"{_fmt_cols(got_c)} ({_bare_table(e.table)})")
        return None
    raise WorkloadError(f"unknown expectation key {key!r}")


def check_rows(expected: Sequence[RowEvent], rec: StatementRecord) -> Mismatch | None:
    want = sorted(_norm_row(e) for e in expected)
    got = sorted({_norm_row(e) for e in rec.row_events})
    return None if want == got else Mismatch("row", _fmt_rows(want), _fmt_rows(got))


def check_statement(res: Resolved, rec: StatementRecord) -> tuple[int, list[tuple[int, Mismatch]]]:
    """Check every resolved key: (number passed, [(line, mismatch)])."""
    passed = 0
    bad: list[tuple[int, Mismatch]] = []
    for key, (value, line) in sorted(res.values.items()):
        m = check_key(key, value, rec)
        if m is None:
            passed += 1
        else:
            bad.append((line, m))
    if res.rows is not None:
        m = check_rows(res.rows, rec)
        if m is None:
            passed += 1
        else:
            bad.append((res.rows_line, m))
    return passed, bad


def dimension_value(dim: str, rec: StatementRecord) -> str:
    """A record's value on one scored dimension, as text."""
    if dim == "error":
        return str(rec.error or "none")
    if dim == "warnings":
        return ",".join(map(str, rec.warnings)) or "none"
    if dim == "unsafe":
        return ",".join(u.upper() for u in rec.unsafe) or "none"
    if dim == "format":
        return rec.format.value
    if dim == "cache":
        return rec.cache.value
    if dim == "group":
        return "none" if rec.group is None else str(rec.group)
    if dim == "row_events":
        return _fmt_rows({_norm_row(e) for e in rec.row_events})
    raise WorkloadError(f"unknown dimension {dim!r}")


def compare_records(predicted: StatementRecord, observed: StatementRecord,
                    dims: Sequence[str] = DIMENSIONS) -> tuple[int, list[Mismatch]]:
    """Score a prediction against an observation: (dimensions equal, mismatches)."""
    passed = 0
    bad: list[Mismatch] = []
    for d in dims:
        if d == "unsafe" and not observed.unsafe_observable:
            continue  # the server does not report unsafe reasons for statements it logs as rows
        p, o = dimension_value(d, predicted), dimension_value(d, observed)
        if p == o:
            passed += 1
        else:
            bad.append(Mismatch(d, o, p))  # expected = what the server did, got = what was predicted
    return passed, bad


# --- whole workloads ----------------------------------------------------------------------------------------

def config_label(config: Sequence[tuple[str, str]]) -> str:
    return " ".join(f"{k}={v}" for k, v in config)


def check_workload_records(workload: Workload, config: Sequence[tuple[str, str]], profile: str,
                           records: Sequence[StatementRecord], source: Source) -> Tally:
    """Check every statement's applicable expectations against ``records`` (joined by ``seq``)."""
    by_seq = {r.seq: r for r in records}
    label = config_label(config)
    passed = 0
    failures: list[Failure] = []
    cfg = dict(config)
    for st in workload.statements:
        res = resolve(st.expectations, cfg, profile)
        if not res:
            continue
        rec = by_seq.get(st.seq) or StatementRecord(st.seq, st.session, st.sql, format=Format.UNKNOWN,
                                                    reason="no record")
        ok, bad = check_statement(res, rec)
        passed += ok
        failures.extend(Failure(workload.name, line, st.sql, label, source, m) for line, m in bad)
    return Tally(passed, tuple(failures))


def compare_workload_records(workload: Workload, config: Sequence[tuple[str, str]],
                             predicted: Sequence[StatementRecord],
                             observed: Sequence[StatementRecord]) -> Tally:
    """Score every non-replica statement's prediction against the observation."""
    obs = {r.seq: r for r in observed}
    label = config_label(config)
    passed = 0
    failures: list[Failure] = []
    stmts: dict[int, Statement] = {s.seq: s for s in workload.statements}
    for p in predicted:
        st = stmts.get(p.seq)
        if st is None or st.replica_only or p.seq not in obs:
            continue
        ok, bad = compare_records(p, obs[p.seq])
        passed += ok
        failures.extend(Failure(workload.name, st.line, st.sql, label, Source.COMPARED, m) for m in bad)
    return Tally(passed, tuple(failures))


def engine_files(path: Path | str) -> tuple[str, ...]:
    """The ``-- engines: a.toml b.toml`` header of a workload file (not part of ``Headers``)."""
    out: list[str] = []
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        s = raw.strip()
        if s.lower().startswith("-- engines:"):
            out.extend(x for x in s[len("-- engines:"):].replace(",", " ").split() if x)
    return tuple(out)


def workload_files(paths: Iterable[Path | str]) -> list[Path]:
    """``.sql`` files under ``paths`` (directories recursed), sorted; a missing path is an error."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(x for x in p.rglob("*.sql") if x.is_file()))
        elif p.is_file():
            out.append(p)
        else:
            raise WorkloadError(f"no such workload file or directory: {p}")
    return out


def lint_workload(workload: Workload) -> list[tuple[int, str]]:
    """Problems in a fixture's headers and expectation lines: (line, message); empty when it is valid."""
    out: list[tuple[int, str]] = []
    for cfg in workload.headers.configs:
        out.extend((0, f"config: {m}") for m in validate_config(cfg))
    for s in workload.headers.servers:
        if s != "predict-only" and s not in PROFILES:
            out.append((0, f"servers: unknown profile {s!r}"))
    for st in workload.statements:
        for e in st.expectations:
            for q in e.qualifiers:
                if "=" in q:
                    k, v = q.split("=", 1)
                    out.extend((e.line, f"qualifier: {m}") for m in validate_config(((k.lower(), v),)))
                elif not any(p.startswith(q.lower()) for p in PROFILES):
                    out.append((e.line, f"qualifier: unknown profile {q!r}"))
            for k, v in e.values:
                msg = validate_value(k, v)
                if msg:
                    out.append((e.line, msg))
    return out
