"""ROLLBACK [TO SAVEPOINT] puts back the rows a transaction changed in the tables the data model follows.

Before an open transaction first changes a transactional table, the table's rows and known row count are
saved: once for the transaction, and once for each savepoint set since. ROLLBACK restores the
transaction's copies, ROLLBACK TO SAVEPOINT the savepoint's. If another session changes a saved table
meanwhile the copy is stale: rolling back then forgets the table (rows unknown) rather than undo the other
session's work. AUTO_INCREMENT counters are not rolled back (InnoDB keeps them).
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass

from predictor.data import DataModel, TableData


@dataclass(frozen=True)
class Saved:
    data: TableData | None  # None: not followed then
    count: int | None  # the known row count then (None: unknown)
    stale: bool = False


Undo = dict[str, Saved]  # lower-case table name -> what it was


def journal(layers: Iterable[Undo], others: Iterable[Undo], data: DataModel,
            counts: MutableMapping[str, int | None], name: str) -> None:
    """Before a transaction changes table ``name``: save it in each of its ``layers`` that lacks it, and
    make other sessions' copies of it stale."""
    low = name.lower()
    saved: Saved | None = None
    for layer in layers:
        if low not in layer:
            if saved is None:
                current = data.tables.get(low)
                saved = Saved(current.copy() if current is not None else None, counts.get(low))
            layer[low] = saved
    for layer in others:
        if low in layer and not layer[low].stale:
            layer[low] = Saved(None, None, stale=True)


def restore(undo: Undo, data: DataModel, counts: MutableMapping[str, int | None]) -> None:
    """Put the saved tables back (ROLLBACK, ROLLBACK TO SAVEPOINT)."""
    for low, saved in undo.items():
        current = data.tables.get(low)
        if saved.stale or saved.data is None:
            data.forget(low)
            counts[low] = None
            continue
        back = saved.data.copy()
        if current is not None:
            back.next_auto = max(back.next_auto, current.next_auto)
        data.tables[low] = back
        counts[low] = saved.count
