"""Resolve a statement's tables against the catalog and the session, expanding views, triggers and
stored functions, so the rules see every table the server will open and every sub-statement it runs."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from predictor.analyze import CONDITION, Kind, Op, StatementInfo, Write
from predictor.branches import never_taken
from predictor.catalog import Catalog, Table
from predictor.session import SessionState
from predictor.triggers import new_columns, update_sets


@dataclass(frozen=True)
class Use:
    """A table the statement (or one of its sub-statements) writes."""

    table: Table
    op: Op
    columns: tuple[str, ...] | None
    top: bool  # written by the statement itself, not a trigger or function
    idle: bool = False  # a trigger's statement in a branch no row takes: locked, never written (branches.py)
    guarded: bool = False  # a sub-statement under an IF (or a loop): it may not run
    cascaded: bool = False  # a trigger of a child row a foreign key's cascade changes would write it (idle)
    event: str = ""  # the statement's trigger event that writes it (an upsert runs INSERT and UPDATE triggers)


@dataclass
class Access:
    writes: list[Use] = field(default_factory=list)
    reads: list[Table] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    sysvars: set[str] = field(default_factory=set)
    missing: list[str] = field(default_factory=list)
    sub_statements: list[StatementInfo] = field(default_factory=list)  # trigger/function bodies run
    sub_autoinc_write: bool = False
    autoinc_hidden: bool = False  # MariaDB: its first foreign-key child is a stub (_prelocked_children)
    body_select: bool = False  # a trigger or function body reads a table it does not write (predictor/unsafe.py)
    stored_functions: list[str] = field(default_factory=list)
    set_null_cascades: bool = False  # ON DELETE SET NULL opens the child's UPDATE triggers (MySQL)

    def tables(self) -> list[Table]:
        seen: dict[str, Table] = {}
        for u in self.writes:
            seen.setdefault(u.table.name.lower() + ("#t" if u.table.temporary else ""), u.table)
        for t in self.reads:
            seen.setdefault(t.name.lower() + ("#t" if t.temporary else ""), t)
        return list(seen.values())

    def written_tables(self) -> list[Table]:
        seen: dict[str, Table] = {}
        for u in self.writes:
            seen.setdefault(u.table.name.lower() + ("#t" if u.table.temporary else ""), u.table)
        return list(seen.values())


_TRIGGER_EVENTS = {Op.INSERT: ("INSERT",), Op.UPDATE: ("UPDATE",), Op.DELETE: ("DELETE",)}


SYSTEM_SCHEMAS = {"mysql": "myisam", "information_schema": "memory", "performance_schema": "performance_schema",
                  "sys": "memory"}
SYSTEM_LOG_TABLES = {"general_log", "slow_log"}


def lookup(name: str, catalog: Catalog, session: SessionState) -> Table | None:
    """A table by name; ``db.name`` in a system schema is a read-only table the catalog does not hold."""
    if "." in name:
        db, _, bare = name.partition(".")
        engine = SYSTEM_SCHEMAS.get(db.lower())
        if engine is not None:
            if bare.lower() in SYSTEM_LOG_TABLES:
                engine = "csv"
            return Table(bare, engine)
        name = bare
    low = name.lower()
    t = session.temp_tables.get(low)
    return t if t is not None else catalog.tables.get(low)


def resolve(info: StatementInfo, catalog: Catalog, session: SessionState, depth: int = 0,
            set_null_cascades: bool = False, joined_triggers: bool = False) -> Access:
    acc = Access(set_null_cascades=set_null_cascades)
    _resolve_into(acc, info, catalog, session, top=True, depth=depth)
    if joined_triggers and info.joined and depth < 8:
        _joined_triggers(acc, info, catalog, session, depth)
    return acc


def _joined_triggers(acc: Access, info: StatementInfo, catalog: Catalog, session: SessionState, depth: int) -> None:
    """MySQL opens every table of a multi-table UPDATE for writing, the ones it only reads too: their UPDATE
    triggers are opened, never run; what they would write is locked (idle) and their unsafe reasons are the
    statement's (fixtures/seeds/003_logging_rules/multi_update_triggers.sql)."""
    written = {u.table.name.lower() for u in acc.writes if u.top}
    for name in dict.fromkeys(n.lower() for n in info.joined):
        t = lookup(name, catalog, session)
        if t is None or name in written:
            continue
        _opened(acc, t, "UPDATE", catalog, session, depth, cascaded=False)


def _resolve_write(acc: Access, w: Write, info: StatementInfo, catalog: Catalog, session: SessionState,
                   top: bool, depth: int) -> None:
    name = w.table
    if not name and info.multi_table:
        # unqualified SET column in a multi-table UPDATE: the table that has the column
        for r in info.reads:
            t = lookup(r, catalog, session)
            if t and w.columns and all(t.column(c) for c in w.columns):
                name = t.name
                break
    t = lookup(name, catalog, session)
    if t is None:
        if catalog.view(name) is not None:
            v = catalog.view(name)
            base = v.select.reads if v and v.select else ()
            t = lookup(base[0], catalog, session) if base else None
        if t is None:
            acc.missing.append(name)
            return
    acc.writes.append(Use(t, w.op, with_trigger_columns(t, w), top))
    if info.kind is Kind.CREATE_TABLE_SELECT:
        return
    events = list(_TRIGGER_EVENTS.get(w.op, ()))
    if info.kind in (Kind.REPLACE,) or (info.kind is Kind.LOAD and info.replace):
        events.append("DELETE")
    if info.on_duplicate:
        events.append("UPDATE")
    # an UPDATE's trigger statements in branches no row takes (NEW.c is OLD.c for the columns it leaves alone)
    unchanged = frozenset(c.name.lower() for c in t.columns) - update_sets(t, w.columns) \
        if w.op is Op.UPDATE and w.columns else frozenset()
    for trig in t.triggers:
        if trig.event in events and depth < 8:
            acc.body_select = acc.body_select or _reads_only(trig.body, catalog, session)
            for s in _statements(trig.body):
                n = len(acc.writes)
                acc.sub_statements.append(s)
                _resolve_into(acc, s, catalog, session, top=False, depth=depth + 1)
                if top:
                    acc.writes[n:] = [replace(u, event=trig.event.upper()) for u in acc.writes[n:]]
                if unchanged and s.guards and trig.event == "UPDATE" and never_taken(s.guards, unchanged):
                    # never run, yet its tables are locked with the statement's (unsafe rules, decide)
                    acc.writes[n:] = [replace(u, idle=True, cascaded=True) for u in acc.writes[n:]]
                elif s.guards or s.loops:
                    acc.writes[n:] = [replace(u, guarded=True) for u in acc.writes[n:]]
    if depth < 8 and not acc.set_null_cascades:
        if top and len(info.writes) == 1 and not info.multi_table and not any(trig.event in events
                                                                              for trig in t.triggers):
            acc.autoinc_hidden = acc.autoinc_hidden or _stub_first(t, frozenset(events), catalog)
        _prelocked_children(acc, t, frozenset(events), catalog, session, depth, {t.name.lower()})
    elif depth < 8 and ("DELETE" in events or w.op is Op.UPDATE):
        _cascade_triggers(acc, t, "UPDATE" if w.op is Op.UPDATE else "DELETE", catalog, session, depth)


def _cascade_triggers(acc: Access, t: Table, event: str, catalog: Catalog, session: SessionState,
                      depth: int) -> None:
    """The triggers of the child rows a foreign key's cascade changes. InnoDB runs none of them, yet the server
    opens them with the statement: what they would write is locked, never written (idle), and their unsafe
    reasons are the statement's (fixtures/seeds/003_logging_rules/fk_cascade_unsafe.sql)."""
    for child, fk in catalog.children(t.name):
        fired = fk.child_event(event)
        if fired is None:
            continue
        # ON DELETE SET NULL: MySQL opens the child's UPDATE triggers, MariaDB its DELETE ones, the parent's
        # event (freight_forwarding_app's containers and their packages; fk_set_null_triggers.sql)
        _opened(acc, child, fired if acc.set_null_cascades else event, catalog, session, depth, cascaded=True)


def _stub_first(t: Table, events: frozenset[str], catalog: Catalog) -> bool:
    """MariaDB: whether the first table the statement's foreign keys lock is a child they only check (RESTRICT,
    NO ACTION). InnoDB lists a parent's foreign keys by constraint name; such a child is not opened, and
    the server then does not see the auto-increment tables the cascades' triggers would write (no
    AUTOINC_COLUMNS; seen on 10.11: pharmacy_chain_app's stores and insurers, fk_stub_first.sql). Only for a
    single-table statement on a table without triggers for its events (their tables are locked first)."""
    keys = [fk for _, fk in catalog.children(t.name)]
    if not keys or any(not fk.name for fk in keys):
        return False
    first = min(keys, key=lambda fk: fk.name)
    return not any(e in events and first.child_event(e) is not None for e in ("DELETE", "UPDATE"))


def _prelocked_children(acc: Access, t: Table, events: frozenset[str], catalog: Catalog,
                        session: SessionState, depth: int, seen: set[str]) -> None:
    """MariaDB (prepare_fk_prelocking_list): a child whose foreign key changes its rows when the parent's rows
    are deleted or updated, as the statement's events (``REPLACE``: INSERT and DELETE) say, is opened with
    the statement with those events: its triggers for each of them, and its own such children, down the
    chain (a currency's SET NULL accounts, their CASCADE ledger rows and its INSERT trigger's UUID():
    crowdfunding_platform_app; fk_prelocked_events.sql)."""
    for child, fk in catalog.children(t.name):
        if child.name.lower() in seen or not any(
                e in events and fk.child_event(e) is not None for e in ("DELETE", "UPDATE")):
            continue
        seen.add(child.name.lower())
        for event in sorted(events):
            _opened(acc, child, event, catalog, session, depth, cascaded=True)
        if depth < 8:
            _prelocked_children(acc, child, events, catalog, session, depth + 1, seen)


def _opened(acc: Access, t: Table, event: str, catalog: Catalog, session: SessionState, depth: int,
            cascaded: bool) -> None:
    """``t``'s ``event`` triggers, opened with the statement but never run: what they would write is locked
    (idle), their unsafe reasons are the statement's. ``cascaded``: a foreign key's child (not counted as an
    auto-increment write of the statement: unsafe.write_autoinc_select)."""
    for trig in t.triggers:
        if trig.event != event:
            continue
        for s in _statements(trig.body):
            n = len(acc.writes)
            acc.sub_statements.append(s)
            _resolve_into(acc, s, catalog, session, top=False, depth=depth + 1)
            acc.writes[n:] = [replace(u, idle=True, cascaded=cascaded) for u in acc.writes[n:]]


def with_trigger_columns(t: Table, w: Write) -> tuple[str, ...] | None:
    """The columns a write sets, and those its BEFORE triggers set through NEW.c."""
    if w.columns is None or not t.triggers:
        return w.columns
    event = {Op.INSERT: "INSERT", Op.UPDATE: "UPDATE"}.get(w.op)
    added = [c for trig in t.triggers if trig.timing.upper() == "BEFORE" and trig.event.upper() == event
             for c in new_columns(trig.text)]
    if not added:
        return w.columns
    have = {c.lower() for c in w.columns}
    return (*w.columns, *(c for c in dict.fromkeys(added) if c not in have and t.column(c) is not None))


def _resolve_into(acc: Access, info: StatementInfo, catalog: Catalog, session: SessionState, top: bool,
                  depth: int) -> None:
    for w in info.writes:
        if info.kind is Kind.CREATE_TABLE_SELECT:
            continue
        _resolve_write(acc, w, info, catalog, session, top, depth)
        if not top:  # a trigger or function writing (any op) a table with an auto-increment column
            t = lookup(w.table, catalog, session)
            if t is not None and t.auto_increment is not None:
                acc.sub_autoinc_write = True
    written = {w.table.lower() for w in info.writes}
    for r in info.reads:
        if r.lower() in written and info.kind in (Kind.INSERT, Kind.REPLACE, Kind.LOAD):
            # INSERT ... SELECT from the same table reads it too
            pass
        t = lookup(r, catalog, session)
        if t is not None:
            if all(x is not t for x in acc.reads):
                acc.reads.append(t)
            continue
        v = catalog.view(r)
        if v is not None and v.select is not None and depth < 8:
            acc.functions.update(v.select.functions)
            acc.sysvars.update(v.select.sysvars)
            acc.sub_statements.append(v.select)
            _resolve_into(acc, v.select, catalog, session, top=False, depth=depth + 1)
            continue
        if r.lower() not in written and not _is_alias_like(r, info):
            acc.missing.append(r)
    acc.functions.update(info.functions)
    acc.sysvars.update(info.sysvars)
    for f in info.functions:
        routine = catalog.routine("FUNCTION", f)
        if routine is not None and depth < 8:
            acc.stored_functions.append(routine.name)
            acc.body_select = acc.body_select or _reads_only(routine.body, catalog, session)
            for s in _statements(routine.body):
                acc.sub_statements.append(s)
                _resolve_into(acc, s, catalog, session, top=False, depth=depth + 1)


def _statements(body: tuple[StatementInfo, ...]) -> tuple[StatementInfo, ...]:
    """A trigger's or function's statements, without its IFs' tests (only a CALL decides them: calls.py)."""
    return tuple(s for s in body if CONDITION not in s.extra)


def _reads_only(body: tuple[StatementInfo, ...], catalog: Catalog, session: SessionState) -> bool:
    """Whether a routine or trigger body reads a table it does not also write: the server locks the tables
    of one body together, the strongest use winning, so only such a table is read-locked. A multi-table
    UPDATE's joined tables are write-locked in a body, as parsed (both servers; body_multi_update_locks.sql)."""
    written = {w.table.lower() for s in body for w in s.writes}
    written |= {r.lower() for s in body if s.kind is Kind.UPDATE and s.multi_table for r in s.reads}
    return any(r.lower() not in written and lookup(r, catalog, session) is not None for s in body for r in s.reads)


def _is_alias_like(name: str, info: StatementInfo) -> bool:
    # DUAL, derived-table and CTE names, NEW/OLD in triggers
    return name.lower() in ("dual", "new", "old") or info.kind is Kind.NOOP
