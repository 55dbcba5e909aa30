"""Finding run directories and reading what the comparison needs from them.

A run directory holds ``predicted`` and ``observed`` records (``.jsonl`` or ``.parquet``), ``run.json`` and
optionally ``replica.json``. JSONL is validated here, record by record, and staged as Parquet so Spark reads
one format; Parquet inputs are read in place (only their schema is checked).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from predictor.exceptions import CompareError
from predictor.records import StatementRecord

SIDES: tuple[str, ...] = ("predicted", "observed")

ROW_EVENT_TYPE = pa.struct([
    pa.field("table", pa.string()), pa.field("type", pa.string()),
    pa.field("before", pa.list_(pa.string())), pa.field("after", pa.list_(pa.string())),
])
RECORD_SCHEMA = pa.schema([
    pa.field("seq", pa.int64()), pa.field("session", pa.string()), pa.field("sql", pa.string()),
    pa.field("error", pa.int64()), pa.field("warnings", pa.list_(pa.int64())),
    pa.field("unsafe", pa.list_(pa.string())), pa.field("format", pa.string()),
    pa.field("cache", pa.string()), pa.field("group", pa.int64()),
    pa.field("row_events", pa.list_(ROW_EVENT_TYPE)), pa.field("reason", pa.string()),
    pa.field("warnings_unread", pa.bool_()),
])
OPTIONAL_COLUMNS = frozenset({"warnings_unread"})
"""Columns a Parquet file of records may lack (older files): read as null (False)."""
"""StatementRecord as an Arrow/Parquet table: the Parquet form of predicted/observed records."""


@dataclass(frozen=True)
class Divergence:
    table: str
    primary_rows: int | None
    replica_rows: int | None
    differing_keys: tuple[str, ...]
    first_writer_seq: int | None
    first_writer_sql: str | None


@dataclass(frozen=True)
class ReplicaInfo:
    caught_up: bool
    errors: tuple[str, ...]
    diverged: tuple[Divergence, ...]


@dataclass(frozen=True)
class RunInfo:
    """One run directory. ``run`` is its id in every output (its path relative to the inputs' root)."""

    run: str
    path: Path
    files: Mapping[str, Path]  # side -> records file
    meta: Mapping[str, Any] = field(default_factory=dict)  # run.json as written
    replica: ReplicaInfo | None = None

    def _text(self, key: str, default: str = "") -> str:
        v = self.meta.get(key)
        return default if v is None else str(v)

    @property
    def server(self) -> str:
        return self._text("server") or self._text("server_version", "unknown")

    @property
    def server_version(self) -> str:
        return self._text("server_version")

    @property
    def workload(self) -> str:
        return self._text("workload")

    @property
    def binlog_format(self) -> str:
        return self._text("binlog_format").upper()

    @property
    def binlog_row_image(self) -> str:
        return self._text("binlog_row_image").upper()

    @property
    def binlog_bytes(self) -> int | None:
        v = self.meta.get("binlog_bytes")
        return int(v) if isinstance(v, int | float) else None


def _records_file(d: Path, side: str) -> Path | None:
    for ext in (".parquet", ".jsonl"):
        p = d / f"{side}{ext}"
        if p.exists():
            return p
    return None


def _is_run_dir(d: Path) -> bool:
    return any(_records_file(d, s) is not None for s in SIDES)


def find_run_dirs(paths: Sequence[Path | str]) -> list[Path]:
    """Run directories named directly, or found below a directory that contains them (sorted, distinct)."""
    if not paths:
        raise CompareError("no run directory given")
    found: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.is_dir():
            raise CompareError(f"run directory not found: {p}")
        if _is_run_dir(p):
            found.append(p.resolve())
            continue
        below = sorted(Path(root).resolve() for root, _dirs, _files in os.walk(p) if _is_run_dir(Path(root)))
        if not below:
            raise CompareError(f"{p} is not a run directory and contains none (no predicted.jsonl/.parquet)")
        found.extend(below)
    return sorted(set(found))


def _run_ids(dirs: Sequence[Path]) -> list[str]:
    names = [d.name for d in dirs]
    if len(set(names)) == len(names):
        return names
    root = Path(os.path.commonpath([str(d) for d in dirs]))
    return [str(d.relative_to(root)) or d.name for d in dirs]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CompareError(f"{path}: not readable JSON: {e}") from None


def _opt_int(v: Any) -> int | None:
    return int(v) if isinstance(v, int | float) else None


def read_replica(path: Path) -> ReplicaInfo | None:
    if not path.exists():
        return None
    d = _read_json(path)
    if not isinstance(d, dict):
        raise CompareError(f"{path}: expected a JSON object")
    diverged: list[Divergence] = []
    for t in d.get("diverged") or ():
        if not isinstance(t, dict):
            raise CompareError(f"{path}: diverged entries must be objects")
        diverged.append(Divergence(
            str(t.get("table", "?")), _opt_int(t.get("primary_rows")), _opt_int(t.get("replica_rows")),
            tuple(str(k) for k in t.get("differing_keys") or ()), _opt_int(t.get("first_writer_seq")),
            None if t.get("first_writer_sql") is None else str(t["first_writer_sql"])))
    return ReplicaInfo(bool(d.get("caught_up", False)), tuple(str(e) for e in d.get("errors") or ()),
                       tuple(diverged))


def load_runs(paths: Sequence[Path | str]) -> list[RunInfo]:
    """Every run below ``paths``, with run.json and replica.json read and the record files located."""
    dirs = find_run_dirs(paths)
    runs: list[RunInfo] = []
    for run_id, d in zip(_run_ids(dirs), dirs, strict=True):
        files: dict[str, Path] = {}
        for side in SIDES:
            f = _records_file(d, side)
            if f is None:
                raise CompareError(f"{d}: missing {side}.jsonl (or {side}.parquet)")
            files[side] = f
        meta_path = d / "run.json"
        if not meta_path.exists():
            raise CompareError(f"{d}: missing run.json")
        meta = _read_json(meta_path)
        if not isinstance(meta, dict):
            raise CompareError(f"{meta_path}: expected a JSON object")
        runs.append(RunInfo(run_id, d, files, meta, read_replica(d / "replica.json")))
    return runs


def parse_jsonl(path: Path) -> list[StatementRecord]:
    """Every record of a JSONL file; a bad line is a CompareError naming file and line."""
    out: list[StatementRecord] = []
    seen: set[int] = set()
    try:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    d = json.loads(line)
                    if not isinstance(d, dict):
                        raise ValueError("not a JSON object")
                    rec = StatementRecord.from_dict(d)
                except (ValueError, KeyError, TypeError) as e:
                    raise CompareError(f"{path}:{lineno}: malformed record: {e}") from None
                if rec.seq in seen:
                    raise CompareError(f"{path}:{lineno}: duplicate seq {rec.seq}")
                seen.add(rec.seq)
                out.append(rec)
    except (OSError, UnicodeDecodeError) as e:
        raise CompareError(f"{path}: cannot read: {e}") from None
    return out


def records_table(records: Iterable[StatementRecord]) -> pa.Table:
    return pa.Table.from_pylist([r.to_dict() for r in records], schema=RECORD_SCHEMA)


def table_records(table: pa.Table) -> list[StatementRecord]:
    return [StatementRecord.from_dict(d) for d in table.to_pylist()]


def check_parquet(path: Path) -> None:
    """The file is Parquet and has every record column with a compatible type."""
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException) as e:
        raise CompareError(f"{path}: not a readable Parquet file: {e}") from None
    for f in RECORD_SCHEMA:
        if f.name not in schema.names and f.name in OPTIONAL_COLUMNS:
            continue
        if f.name not in schema.names:
            raise CompareError(f"{path}: Parquet file lacks column {f.name!r}")
        have = schema.field(f.name).type
        if have != f.type and not (pa.types.is_integer(have) and pa.types.is_integer(f.type)):
            if not (pa.types.is_list(have) and pa.types.is_list(f.type)) and not (
                    pa.types.is_large_string(have) and pa.types.is_string(f.type)):
                raise CompareError(f"{path}: column {f.name!r} has type {have}, expected {f.type}")


@dataclass(frozen=True)
class Part:
    """Two Parquet files a Spark task joins: one run's files read in place (``run`` set), or a staged chunk
    holding many runs' records (``run`` None: both files carry a ``run`` column)."""

    predicted: Path
    observed: Path
    run: str | None
    predicted_rows: int
    observed_rows: int

    @property
    def rows(self) -> int:
        return self.predicted_rows + self.observed_rows


STAGE_CHUNK_ROWS = 200_000
"""JSONL runs are staged together into files of about this many records, so many small runs cost a few
tasks instead of one each (a Spark task costs ~0.1 s here, more than scoring a small run)."""


def _parquet_side(path: Path) -> pa.Table:
    check_parquet(path)
    have = set(pq.read_schema(path).names)
    table = pq.read_table(path, columns=[n for n in RECORD_SCHEMA.names if n in have])
    for f in RECORD_SCHEMA:
        if f.name not in table.column_names:  # an optional column an older file lacks
            table = table.append_column(f, pa.nulls(table.num_rows, f.type))
    return table.select(RECORD_SCHEMA.names).cast(RECORD_SCHEMA)


def stage(runs: Sequence[RunInfo], staging: Path, chunk_rows: int = STAGE_CHUNK_ROWS) -> list[Part]:
    """The Parquet parts to join: runs whose two sides are Parquet are read in place (schema checked); every
    other run is validated and written, with a ``run`` column, into shared chunk files under ``staging``."""
    parts: list[Part] = []
    pending: dict[str, list[pa.Table]] = {s: [] for s in SIDES}
    pending_rows = 0

    def flush() -> None:
        nonlocal pending_rows
        if not pending["predicted"]:
            return
        pending_rows = 0
        n = len(parts)
        paths, rows = {}, {}
        for side in SIDES:
            dst = staging / side / f"chunk{n:06d}.parquet"
            dst.parent.mkdir(parents=True, exist_ok=True)
            table = pa.concat_tables(pending[side])
            pq.write_table(table, dst)
            paths[side], rows[side] = dst, table.num_rows
            pending[side] = []
        parts.append(Part(paths["predicted"], paths["observed"], None, rows["predicted"], rows["observed"]))

    for r in runs:
        src = r.files
        if all(src[s].suffix == ".parquet" for s in SIDES):
            for s in SIDES:
                check_parquet(src[s])
            n = {s: int(pq.ParquetFile(src[s]).metadata.num_rows) for s in SIDES}
            parts.append(Part(src["predicted"], src["observed"], r.run, n["predicted"], n["observed"]))
            continue
        for side in SIDES:
            f = src[side]
            table = _parquet_side(f) if f.suffix == ".parquet" else records_table(parse_jsonl(f))
            pending[side].append(table.append_column("run", pa.repeat(pa.scalar(r.run), table.num_rows)))
            pending_rows += table.num_rows
        if pending_rows >= chunk_rows:
            flush()
    flush()
    return parts
