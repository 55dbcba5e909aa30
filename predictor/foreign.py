"""Foreign keys an InnoDB table enforces on the rows the data model follows: a child row whose parent row is
not there fails the INSERT (1452), deleting a parent row a child still references fails the DELETE (1451,
ON DELETE RESTRICT / NO ACTION). Nothing is logged for either.

Only what the rows show is said: a key part that is NULL or unknown, a parent or child table the model does
not follow, or a self-referencing key says nothing (no error). Cascades (ON DELETE CASCADE / SET NULL) are
done by InnoDB and are not in MariaDB's binlog; MySQL 9 logs the cascaded rows (Profile.FK_CASCADES_LOGGED).
The data model does them on the child's rows when it knows which rows reference the deleted ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from predictor.catalog import Catalog, ForeignKey, Table
from predictor.data import DataModel, TableData
from predictor.evaluate import Row, Value, opaque

ER_NO_REFERENCED_ROW = 1452
ER_ROW_IS_REFERENCED = 1451

_RESTRICT = frozenset({"RESTRICT", "NO ACTION"})


def missing_parent(data: DataModel, catalog: Catalog, t: Table, rows: Sequence[Row]) -> bool:
    """Whether one of ``rows`` (written into ``t``) references a parent row that surely does not exist."""
    for fk in t.foreign_keys:
        parent = catalog.table(fk.parent)
        if parent is None or fk.parent == t.name.lower() or len(fk.columns) != len(fk.parent_columns):
            continue
        src = data.source(parent)
        if src is None:
            continue
        for row in rows:
            want = tuple(row.get(c) for c in fk.columns)
            if any(v is None or opaque(v) or not isinstance(v, int | str) for v in want):
                continue
            if _none_match(src.rows, fk.parent_columns, want):
                return True
    return False


def referenced(data: DataModel, catalog: Catalog, t: Table, doomed: Sequence[Row],
               journal: Callable[[Table], None] | None = None,
               depth: int = 0) -> tuple[bool, list[tuple[Table, ForeignKey]]]:
    """Whether deleting ``doomed`` (rows of ``t``) is refused by a child that references one of them
    (RESTRICT), and the children (with their key) an ON DELETE CASCADE / SET NULL surely changes rows of.
    Otherwise the cascades are done on the children's rows (``journal`` first keeps them for a ROLLBACK),
    and the rows a CASCADE deletes cascade to their own children in turn (an insurer's plans, then the
    patients' plan: pharmacy_chain_app); a child that may hold such rows without the model knowing which,
    whose emptied key its own children reference, stops being followed. When a grandchild refuses (RESTRICT
    under a CASCADE: telecom_mvno_app's topups under subscribers under accounts), the cascades are undone
    and the delete is refused."""
    cascading: list[tuple[Table, ForeignKey, list[tuple[Value, ...]], bool, bool]] = []
    for child, fk in catalog.children(t.name):
        if child.name.lower() == t.name.lower() or len(fk.columns) != len(fk.parent_columns):
            continue
        src = data.source(child)
        if src is None:
            continue
        keys = [tuple(r.get(c) for c in fk.parent_columns) for r in doomed]
        hit = any(not _none_match(src.rows, fk.columns, k) for k in keys
                  if not any(v is None or opaque(v) for v in k))
        if fk.on_delete.upper() in _RESTRICT:
            if hit:
                return True, []
            continue
        cascading.append((child, fk, keys, hit, any(_unsure(src.rows, fk.columns, k) for k in keys)))
    cascaded: list[tuple[Table, ForeignKey]] = []
    saved: list[tuple[str, TableData]] = []  # the children as they were before this call's cascades
    for child, fk, keys, hit, unsure in cascading:
        if hit and fk.on_delete.upper() in _DONE:
            cascaded.append((child, fk))
        if not hit and not unsure:
            continue
        deeper = _passed_on(catalog, child, fk)
        if unsure or journal is None or fk.on_delete.upper() not in _DONE or (
                deeper and (fk.on_delete.upper() != "CASCADE" or depth >= _MAX_DEPTH)):
            data.forget(child.ident)
            continue
        journal(child)
        if child.ident in data.tables and all(child.ident != k for k, _ in saved):
            saved.append((child.ident, data.tables[child.ident].copy()))
        gone = _cascade(data, child, fk, keys)
        if deeper and gone:
            refused, more = referenced(data, catalog, child, gone, journal, depth + 1)
            if refused:
                # a grandchild refuses (1451): the whole statement fails, the cascades done so far undone
                for ident, copy in saved:
                    data.tables[ident] = copy
                return True, []
            cascaded += more
    return False, cascaded


_MAX_DEPTH = 15  # InnoDB's limit on nested foreign key cascades


_DONE = frozenset({"CASCADE", "SET NULL"})


def _passed_on(catalog: Catalog, child: Table, fk: ForeignKey) -> bool:
    """Whether the cascade goes on to the child's own children: rows it deletes, key columns it empties."""
    emptied = set(fk.columns) if fk.on_delete.upper() == "SET NULL" else None
    return any(emptied is None or emptied & set(g.parent_columns) for _, g in catalog.children(child.name))


def _cascade(data: DataModel, child: Table, fk: ForeignKey, keys: Sequence[tuple[Value, ...]]) -> list[Row]:
    """What InnoDB does to the child rows that reference deleted parent rows: ON DELETE CASCADE deletes
    them (returned), SET NULL empties their key columns (no trigger fires, no ON UPDATE timestamp moves)."""
    d = data.tracked(child)
    if d is None:
        return []
    gone = set(keys)
    deleted: list[Row] = []
    for pos, r in enumerate(d.rows):
        if r is not None and tuple(r.get(c) for c in fk.columns) in gone:
            d.remove(pos)
            if fk.on_delete.upper() == "SET NULL":
                d.put(pos, r | dict.fromkeys(fk.columns, None))  # a new row: undo copies share the old one
            else:
                deleted.append(r)
    return deleted


def _none_match(rows: Sequence[Row], columns: tuple[str, ...], want: tuple[Value, ...]) -> bool:
    """Whether surely no row holds ``want`` in ``columns`` (a row with an unknown part may)."""
    for r in rows:
        got = tuple(r.get(c) for c in columns)
        if got == want:
            return False
        if any(opaque(v) for v in got) or any(_kind(a) is not _kind(b) for a, b in zip(got, want, strict=True)
                                             if a is not None):
            return False
    return True


def _kind(v: Value) -> type:
    """Values of one kind compare (strings of any make: predictor/values.py)."""
    return str if isinstance(v, str) else type(v)


def _unsure(rows: Sequence[Row], columns: tuple[str, ...], key: tuple[Value, ...]) -> bool:
    return any(opaque(v) for v in key) or any(any(opaque(r.get(c)) for c in columns) for r in rows)

