"""ROLLBACK [TO SAVEPOINT] puts back the rows a transaction changed in the tables the data model follows.

Before an open transaction first changes a transactional table, the table's rows and known row count are
saved: once for the transaction, and once for each savepoint set since. ROLLBACK restores the
transaction's copies, ROLLBACK TO SAVEPOINT the savepoint's. AUTO_INCREMENT counters are not rolled back
(InnoDB keeps them).

If another session changes a saved table meanwhile, the copy would undo that session's work too. Before the
other session's change, the copy becomes the rows this transaction changed so far (their positions and what
they held: rows are replaced in ``TableData``, never changed in place, so a position whose row is not the
copy's own object was changed); after it, each change of this transaction diffs against a fresh copy taken
before it, up to the next change by someone else. ROLLBACK then puts back only this transaction's rows: row
locks keep two open transactions off each other's rows (event_ticketing_venue_app: a mobile checkout rolled
back while a web checkout committed orders). A table whose positions were reset meanwhile (TRUNCATE, a
re-created table) or that stopped being followed is forgotten instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass, replace

from predictor.data import DataModel, TableData
from predictor.evaluate import Row


@dataclass(frozen=True)
class Saved:
    data: TableData | None  # None: not followed then
    count: int | None  # the known row count then (None: unknown)
    stale: bool = False
    own: Mapping[int, Row | None] | None = None
    """Row mode (another session changed the table meanwhile): position -> the row there before this
    transaction changed it (None: it appended there)."""
    since: TableData | None = None  # row mode: the table before this transaction's changes since then


def _changes(base: TableData, now: TableData) -> dict[int, Row | None] | None:
    """Positions whose rows changed from ``base`` to ``now`` -> their rows in ``base``; None when the
    positions do not line up any more."""
    old, new = base.rows, now.rows
    if len(new) < len(old) or base.columns != now.columns:
        return None
    out: dict[int, Row | None] = {p: old[p] for p in range(len(old)) if new[p] is not old[p]}
    out.update((p, None) for p in range(len(old), len(new)) if new[p] is not None)
    return out


def _settled(saved: Saved, data: DataModel, low: str) -> Saved:
    """``saved`` in row mode, with this transaction's changes up to now (before someone else's)."""
    if saved.stale or (saved.own is not None and saved.since is None):
        return saved  # (row mode: no change of this transaction's since the last diff)
    base = saved.since if saved.own is not None else saved.data
    current = data.tables.get(low)
    diff = _changes(base, current) if base is not None and current is not None and current.tracked else None
    if diff is None:
        return Saved(None, None, stale=True)
    return Saved(None, None, own={**diff, **(saved.own or {})})  # the older row wins: before the transaction


Undo = dict[str, Saved]  # lower-case table name -> what it was


def journal(layers: Iterable[Undo], others: Iterable[Undo], data: DataModel,
            counts: MutableMapping[str, int | None], name: str) -> None:
    """Before a transaction changes table ``name``: save it in each of its ``layers`` that lacks it (row
    mode: copy it to diff against), and turn other sessions' copies of it into row mode."""
    low = name.lower()
    saved: Saved | None = None
    current = data.tables.get(low)
    for layer in layers:
        had = layer.get(low)
        if had is None:
            if saved is None:
                saved = Saved(current.copy() if current is not None else None, counts.get(low))
            layer[low] = saved
        elif had.own is not None and had.since is None and not had.stale:
            layer[low] = replace(had, since=current.copy() if current is not None else None)
    for layer in others:
        if low in layer:
            layer[low] = _settled(layer[low], data, low)


def restore(undo: Undo, data: DataModel, counts: MutableMapping[str, int | None]) -> None:
    """Put the saved tables back (ROLLBACK, ROLLBACK TO SAVEPOINT)."""
    for low, saved in undo.items():
        current = data.tables.get(low)
        if saved.own is not None:
            saved = _settled(saved, data, low)
        if saved.own is not None and current is not None and current.tracked:
            for pos, row in saved.own.items():
                current.remove(pos)
                if row is not None:
                    current.put(pos, row)
            counts[low] = len(current.live())
            continue
        if saved.stale or saved.data is None:
            data.forget(low)
            counts[low] = None
            continue
        back = saved.data.copy()
        if current is not None:
            back.next_auto = max(back.next_auto, current.next_auto)
        data.tables[low] = back
        counts[low] = saved.count
