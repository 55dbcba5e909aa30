"""Row-image columns per (table, event type) for FULL / MINIMAL / NOBLOB / FULL_NODUP (binlog-rules.md §5,
seed 004), with the profile differences (MariaDB: no PKE -> full images; MySQL: unique keys in MINIMAL)."""

from __future__ import annotations

from predictor.analyze import Op
from predictor.catalog import Column, Generated, KeyKind, Table
from predictor.profiles import Profile


def pke(table: Table, profile: Profile) -> tuple[str, ...] | None:
    """Primary key, else the first unique key whose columns are all NOT NULL; None when neither exists."""
    for k in table.keys:
        if k.kind is KeyKind.PRIMARY:
            return k.columns
    for k in table.keys:
        if k.kind is not KeyKind.UNIQUE:
            continue
        cols = [table.column(c) for c in k.columns]
        if any(c is None or c.nullable for c in cols):
            continue
        if profile.FLAVOR == "mysql" and (k.prefix or any(c and c.generated is Generated.VIRTUAL for c in cols)):
            continue
        return k.columns
    return None


def _generated_for(table: Table, written: set[str], op: Op, profile: Profile, multi: bool = False) -> set[str]:
    """The generated columns a row change writes (Profile.GENERATED_WRITTEN); ``multi``: a multi-table UPDATE's
    (Profile.MULTI_UPDATE_WRITES_GENERATED)."""
    indexed = {c.lower() for k in table.keys for c in k.columns}
    out: set[str] = set()
    for c in table.columns:
        name = c.name.lower()
        if c.generated is Generated.NO:
            continue
        if multi and profile.MULTI_UPDATE_WRITES_GENERATED:
            out.add(name)
        elif c.generated is Generated.VIRTUAL and name in indexed:
            out.add(name)  # its index entry is rewritten with the row, whatever the change
        elif profile.GENERATED_WRITTEN == "stored":
            if c.generated is Generated.STORED:
                out.add(name)
        elif op is Op.INSERT or _depends(c, written):
            out.add(name)
    return out


def _depends(c: Column, written: set[str]) -> bool:
    return not c.deps or any(d.lower() in written for d in c.deps)


def images(table: Table, op: Op, columns: tuple[str, ...] | None, mode: str,
           profile: Profile, multi: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(before, after) column names in table order; ``multi``: the rows a multi-table UPDATE changes."""
    all_cols = {c.name.lower() for c in table.columns}
    mode = mode.upper()
    written = all_cols if columns is None else {c.lower() for c in columns}
    if op is Op.INSERT and table.auto_increment is not None:
        written = written | {table.auto_increment.name.lower()}
    # columns the server fills from the clock are written too (MINIMAL after images, seen on MariaDB 10.11)
    if op is Op.INSERT:
        written = written | {c.name.lower() for c in table.columns if c.default_now}
    elif op is Op.UPDATE:
        written = written | set(table.stamps)
    key = pke(table, profile)
    full_before = all_cols if op is not Op.INSERT else set()
    full_after = all_cols if op is not Op.DELETE else set()
    if mode == "FULL" or (key is None and profile.NO_PKE_FULL_IMAGES):
        return table.ordered(full_before), table.ordered(full_after)
    if mode == "FULL_NODUP":
        after = all_cols if op is Op.INSERT else (written | _generated_for(table, written, op, profile, multi))
        return table.ordered(full_before), table.ordered(after if op is not Op.DELETE else set())
    key_cols = {c.lower() for c in key} if key is not None else all_cols
    json_blob = not profile.NOBLOB_KEEPS_JSON
    non_blob = {c.name.lower() for c in table.columns if not c.is_blob(json_blob)}
    gen = _generated_for(table, written, op, profile, multi)
    if mode == "NOBLOB":
        before = key_cols | non_blob
        after = written | non_blob | gen
        if profile.NOBLOB_AFTER_HAS_PKE and op is not Op.INSERT:
            after = after | key_cols
    else:  # MINIMAL
        before = key_cols
        after = written | gen
        if profile.MINIMAL_AFTER_UNIQUE_KEYS:
            after = after | {c.lower() for k in table.unique_keys for c in k.columns}
    if op is Op.INSERT:
        return (), table.ordered(after)
    if op is Op.DELETE:
        return table.ordered(before), ()
    return table.ordered(before), table.ordered(after)


def upsert_images(table: Table, inserted: tuple[str, ...] | None, assigned: tuple[str, ...], mode: str,
                  profile: Profile, deferred_row: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(before, after) of the update event REPLACE or INSERT ... ON DUPLICATE KEY UPDATE (``assigned``: its
    columns) writes for a duplicate. Written are the INSERT's columns with its auto-increment and clock
    columns, and the assigned ones. MySQL's MINIMAL and NOBLOB after image is the whole row
    (Profile.UPSERT_AFTER_FULL); MariaDB's FULL / NOBLOB one is the written columns when MIXED went to
    row only after the duplicate-key rule (``deferred_row``, Profile.IODUP_TWO_KEYS_DEFERRED): the columns
    were marked for a statement (fixtures/seeds/004_wl5092/images_10_upsert.sql)."""
    all_cols = {c.name.lower() for c in table.columns}
    written = all_cols if inserted is None else {c.lower() for c in (*inserted, *assigned)} | {
        c.name.lower() for c in table.columns if c.auto_increment or c.default_now}
    before, after = images(table, Op.UPDATE, tuple(written), mode, profile)
    if mode.upper() != "FULL" and profile.UPSERT_AFTER_FULL:
        after = table.ordered(all_cols)
    elif mode.upper() != "MINIMAL" and deferred_row:
        after = table.ordered(written)
    return before, after
