"""Binlog groups and content units: the structure ``observe`` attributes to statements.

A group is a GTID unit / BEGIN..COMMIT|XID|ROLLBACK / a lone DDL query. Inside a group, a *unit* is what one
statement wrote: a content Query event (with the Intvar/Rand/User_var events before it), or row events
(an Annotate_rows/Rows_query text, Table_maps, Rows up to the one flagged STMT_END_F).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from harness.binlog.events import (
    Event,
    EventType,
    Gtid,
    Intvar,
    Query,
    QueryKind,
    Rand,
    Rows,
    RowsQuery,
    TableMap,
    UserVar,
    Xid,
)

_OUTSIDE = frozenset((EventType.FORMAT_DESCRIPTION, EventType.ROTATE, EventType.STOP, EventType.GTID_LIST,
                      EventType.BINLOG_CHECKPOINT, EventType.PREVIOUS_GTIDS, EventType.START_ENCRYPTION,
                      EventType.HEARTBEAT, EventType.HEARTBEAT_V2, EventType.START_V3,
                      EventType.TRANSACTION_PAYLOAD))  # its inner events follow it


class GroupEnd(StrEnum):
    XID = "XID"
    COMMIT = "COMMIT"
    ROLLBACK = "ROLLBACK"
    XA_PREPARE = "XA_PREPARE"
    NONE = "NONE"  # a lone statement (standalone GTID / DDL without BEGIN)
    OPEN = "OPEN"  # the binlog ended inside the group


class UnitKind(StrEnum):
    QUERY = "query"
    ROWS = "rows"


@dataclass
class Unit:
    """What one statement wrote inside one group."""

    kind: UnitKind
    group: int
    events: list[int] = field(default_factory=list)  # indices into the event list
    text: str | None = None  # Query text or Annotate_rows/Rows_query text
    rows: list[Rows] = field(default_factory=list)
    tables: dict[int, TableMap] = field(default_factory=dict)
    closed: bool = False
    error_code: int = 0  # a Query's: the error the statement was logged with (a partial non-transactional write)


@dataclass
class Group:
    index: int
    events: list[int] = field(default_factory=list)  # every event of the group, boundaries included
    gtid: Gtid | None = None
    began: bool = False  # BEGIN seen (or implied by a MariaDB non-standalone GTID)
    end: GroupEnd = GroupEnd.OPEN
    thread_id: int | None = None
    units: list[Unit] = field(default_factory=list)

    @property
    def standalone(self) -> bool:
        return not self.began

    @property
    def transactional(self) -> bool:
        """MariaDB's GTID flag: a transactional engine took part (such groups end with XID)."""
        return self.gtid is not None and self.gtid.type_code == EventType.MARIADB_GTID and \
            bool(self.gtid.flags & Gtid.FL_TRANSACTIONAL)


def split_groups(events: Iterable[Event]) -> tuple[list[Event], list[Group], list[int | None]]:
    """Events as a list, their groups in binlog order, and each event's group index (None outside)."""
    evs: list[Event] = []
    groups: list[Group] = []
    of: list[int | None] = []
    cur: Group | None = None
    unit: Unit | None = None
    pending: list[int] = []  # Intvar/Rand/User_var waiting for their Query

    def close(end: GroupEnd) -> None:
        nonlocal cur, unit
        if cur is not None:
            cur.end = end
        cur, unit = None, None
        pending.clear()

    def open_group(gtid: Gtid | None, began: bool) -> Group:
        g = Group(len(groups), gtid=gtid, began=began)
        groups.append(g)
        return g

    for i, ev in enumerate(events):
        evs.append(ev)
        tc = ev.type_code
        if tc in _OUTSIDE:
            of.append(None)
            continue
        if isinstance(ev, Gtid):
            if cur is not None:
                close(GroupEnd.OPEN)
            mariadb = tc == EventType.MARIADB_GTID
            cur = open_group(ev, mariadb and not ev.standalone)
            cur.events.append(i)
            of.append(cur.index)
            continue
        if isinstance(ev, Query):
            kind = ev.kind
            if kind is QueryKind.BEGIN and (cur is None or not cur.began):
                if cur is None:
                    cur = open_group(None, True)
                cur.began = True
                cur.events.append(i)
                cur.thread_id = ev.thread_id
                of.append(cur.index)
                continue
            if kind in (QueryKind.COMMIT, QueryKind.ROLLBACK) and cur is not None and cur.began:
                cur.events.append(i)
                of.append(cur.index)
                if cur.thread_id is None:
                    cur.thread_id = ev.thread_id
                close(GroupEnd.COMMIT if kind is QueryKind.COMMIT else GroupEnd.ROLLBACK)
                continue
        if isinstance(ev, Xid) or tc == EventType.XA_PREPARE:
            if cur is None:
                cur = open_group(None, False)
            cur.events.append(i)
            of.append(cur.index)
            close(GroupEnd.XID if isinstance(ev, Xid) else GroupEnd.XA_PREPARE)
            continue
        # content
        if cur is None:
            cur = open_group(None, False)
        cur.events.append(i)
        of.append(cur.index)
        if isinstance(ev, Query):
            if cur.thread_id is None:
                cur.thread_id = ev.thread_id
            u = Unit(UnitKind.QUERY, cur.index, [*pending, i], ev.text, closed=True, error_code=ev.error_code)
            pending.clear()
            cur.units.append(u)
            unit = None
            if not cur.began:
                close(GroupEnd.NONE)
        elif isinstance(ev, Intvar | Rand | UserVar):
            pending.append(i)
        elif isinstance(ev, RowsQuery):
            unit = Unit(UnitKind.ROWS, cur.index, [i], ev.text)
            cur.units.append(unit)
        elif isinstance(ev, TableMap | Rows):
            if unit is None or unit.closed:
                unit = Unit(UnitKind.ROWS, cur.index)
                cur.units.append(unit)
            unit.events.append(i)
            if isinstance(ev, TableMap):
                unit.tables[ev.table_id] = ev
            else:
                unit.rows.append(ev)
                if ev.stmt_end:
                    unit.closed = True
        else:  # other content (LOAD DATA blocks, incidents, unknown): the current or a new unit
            if unit is None:
                unit = Unit(UnitKind.QUERY, cur.index)
                cur.units.append(unit)
            unit.events.append(i)
    return evs, groups, of
