"""What the predictor knows of the schema: tables, columns, keys, triggers, routines and views.

Built from the workload's own DDL as it is predicted (and optionally from a schema dump workload run
first). Temporary tables live in the session (``SessionState.temp_tables``) and shadow base tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING

from predictor.routines import Signature

if TYPE_CHECKING:
    from predictor.analyze import StatementInfo

BLOB_TYPES = frozenset({
    "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT",
})


class Generated(str, Enum):
    NO = "no"
    VIRTUAL = "virtual"
    STORED = "stored"


@dataclass(frozen=True)
class Column:
    name: str
    type: str = "INT"
    nullable: bool = True
    has_default: bool = False
    auto_increment: bool = False
    generated: Generated = Generated.NO
    deps: tuple[str, ...] = ()  # columns a generated column's expression reads
    default_now: bool = False  # DEFAULT CURRENT_TIMESTAMP / NOW(): the server writes it on INSERT
    on_update_now: bool = False  # ON UPDATE CURRENT_TIMESTAMP: the server writes it on UPDATE
    literal_default: tuple[object, ...] = ()  # (value,) when the DEFAULT is a literal, as evaluate.literal reads it
    length: int | None = None  # CHAR(n) / VARCHAR(n): n
    scale: int | None = None  # DECIMAL(p, s): s (DECIMAL(p) and DECIMAL: 0)
    expression: str | None = None  # a generated column's expression, as SQL (the data model computes it)
    choices: tuple[str, ...] | None = None  # ENUM('a', 'b'): its values, as the data model holds strings

    def is_blob(self, json_is_blob: bool) -> bool:
        t = self.type.upper()
        return t in BLOB_TYPES or (json_is_blob and t == "JSON")


class KeyKind(str, Enum):
    PRIMARY = "primary"
    UNIQUE = "unique"
    PLAIN = "plain"
    FULLTEXT = "fulltext"


@dataclass(frozen=True)
class Key:
    kind: KeyKind
    columns: tuple[str, ...]
    prefix: bool = False  # some key part is a prefix, e.g. b(10)
    btree: bool = False  # USING BTREE: a MEMORY table's keys are HASH keys otherwise (predictor/ranges.py)


@dataclass(frozen=True)
class ForeignKey:
    """FOREIGN KEY ... REFERENCES parent: what a change of the child or the parent locks (MySQL)."""

    parent: str  # lower case
    on_delete: str = "RESTRICT"  # RESTRICT | NO ACTION | CASCADE | SET NULL | SET DEFAULT
    on_update: str = "RESTRICT"
    columns: tuple[str, ...] = ()  # the child's columns, lower case
    parent_columns: tuple[str, ...] = ()  # the parent's, lower case
    name: str = ""  # the constraint's name, lower case (InnoDB's own, t_ibfk_N, when not given); "" not known

    def child_event(self, event: str) -> str | None:
        """What a parent's UPDATE / DELETE does to the referencing rows: "UPDATE" (CASCADE of an update, SET
        NULL), "DELETE" (CASCADE of a delete), or None (RESTRICT, NO ACTION: the rows are only checked)."""
        action = (self.on_update if event == "UPDATE" else self.on_delete).upper()
        return event if action == "CASCADE" else "UPDATE" if action == "SET NULL" else None


@dataclass(frozen=True)
class Trigger:
    name: str
    table: str
    timing: str  # BEFORE | AFTER
    event: str  # INSERT | UPDATE | DELETE
    body: tuple[StatementInfo, ...] = ()
    text: str = ""  # the CREATE TRIGGER statement: its body runs row by row (predictor/triggers.py)


@dataclass(frozen=True)
class Table:
    name: str
    engine: str
    columns: tuple[Column, ...] = ()
    keys: tuple[Key, ...] = ()
    temporary: bool = False
    triggers: tuple[Trigger, ...] = ()
    sequence: bool = False
    logged_create: bool = True  # temporary tables: was the CREATE written to the binlog?
    owner: str = ""  # temporary tables: the session that created it
    foreign_keys: tuple[ForeignKey, ...] = ()
    checks: tuple[str, ...] = ()  # CHECK constraints' conditions, as SQL (predictor/strict.py)

    def column(self, name: str) -> Column | None:
        low = name.lower()
        for c in self.columns:
            if c.name.lower() == low:
                return c
        return None

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def ordered(self, names: set[str] | frozenset[str]) -> tuple[str, ...]:
        """``names`` (any case) as the table's column names, in table order."""
        low = {n.lower() for n in names}
        return tuple(c.name for c in self.columns if c.name.lower() in low)

    @property
    def stamps(self) -> tuple[str, ...]:
        """The ON UPDATE CURRENT_TIMESTAMP columns (lower case): an UPDATE that changes the row sets them."""
        return tuple(c.name.lower() for c in self.columns if c.on_update_now)

    @property
    def auto_increment(self) -> Column | None:
        for c in self.columns:
            if c.auto_increment:
                return c
        return None

    @cached_property
    def ident(self) -> str:
        """Whose rows these are in the data model: the lower-case name, qualified by the session for a
        temporary table (it hides a base table of that name, and other sessions' tables of that name)."""
        low = self.name.lower()
        return f"{low}\x00{self.owner.lower()}" if self.temporary else low

    @cached_property
    def unique_keys(self) -> tuple[Key, ...]:
        # cached in the instance __dict__ (the fields are frozen, so it cannot go stale; eq/hash ignore it)
        return tuple(k for k in self.keys if k.kind in (KeyKind.PRIMARY, KeyKind.UNIQUE))

    @cached_property
    def generated(self) -> tuple[Column, ...]:
        """Generated columns whose value the data model computes from the rest of the row, in table order."""
        return tuple(c for c in self.columns if c.generated is not Generated.NO and c.expression is not None)

    def with_generated(self, columns: Iterable[str]) -> tuple[str, ...]:
        """``columns`` (lower case) and the generated columns computed from them, directly or not: what a
        change of ``columns`` the data model does not follow leaves unknown (dental_group_app's
        ``active_slot AS (IF(status IN ('cancelled', 'no_show'), NULL, 1))``)."""
        out = {c.lower() for c in columns}
        grew = True
        while grew:
            grew = False
            for c in self.columns:
                if c.generated is not Generated.NO and c.name.lower() not in out \
                        and (c.expression is None or any(d.lower() in out for d in c.deps)):
                    out.add(c.name.lower())
                    grew = True
        return tuple(sorted(out))

    @cached_property
    def checks_values(self) -> bool:
        """Whether an INSERT's values alone can fail it: CHECK constraints or JSON columns, and no BEFORE INSERT
        trigger that may change them (predictor/rows.py, _checked_unfollowed)."""
        return bool(self.checks or any(c.type.upper() == "JSON" for c in self.columns)) and not any(
            tr.timing.upper() == "BEFORE" and tr.event.upper() == "INSERT" for tr in self.triggers)

    @cached_property
    def unique_key_columns(self) -> frozenset[str]:
        """Lower-cased names of the columns of every unique key."""
        return frozenset(c.lower() for k in self.unique_keys for c in k.columns)

    def with_trigger(self, trig: Trigger) -> Table:
        return replace(self, triggers=(*self.triggers, trig))

    def without_trigger(self, name: str) -> Table:
        return replace(self, triggers=tuple(t for t in self.triggers if t.name.lower() != name.lower()))


@dataclass(frozen=True)
class Routine:
    name: str
    kind: str  # FUNCTION | PROCEDURE
    body: tuple[StatementInfo, ...] = ()
    signature: Signature = field(default_factory=Signature)
    text: str = ""  # the CREATE statement: a function that only RETURNs an expression is inlined (routines.py)


@dataclass(frozen=True)
class View:
    name: str
    select: StatementInfo | None = None
    check: bool = False  # WITH CHECK OPTION: a row written through it must be one it shows (predictor/views.py)
    updatable: bool = True  # rows can be written through it (analyze._updatable)


EVERY = "*"  # a column list that names every column (an INSERT without one; predictor/fresh.py)


def note_columns(named: dict[str, bool], st: StatementInfo, columns: tuple[str, ...] | None) -> None:
    """Add the columns ``st`` names writing a table to ``named``: column -> only ever a clock reading
    (``EVERY``: every column, an INSERT without a column list)."""
    for c in (EVERY,) if columns is None else columns:
        low = c.lower()
        named[low] = named.get(low, True) and low in st.clock_columns
    for c in st.on_duplicate or ():
        low = c.lower()
        named[low] = named.get(low, True) and low in st.clock_columns


@dataclass
class Catalog:
    """Base (non-temporary) objects of the workload database, keyed by lower-case name."""

    tables: dict[str, Table] = field(default_factory=dict)
    routines: dict[str, Routine] = field(default_factory=dict)
    views: dict[str, View] = field(default_factory=dict)
    version: int = 0  # bumped on every change: keys cached decisions
    columns_unsure: bool = False  # a statement the predictor could not read may have changed some table's columns
    _hidden: tuple[int, frozenset[str]] = (-1, frozenset())
    _written: tuple[int, dict[str, dict[str, bool]]] = (-1, {})

    def table(self, name: str) -> Table | None:
        return self.tables.get(name.lower())

    def put_table(self, t: Table) -> None:
        self.tables[t.name.lower()] = t
        self.version += 1

    def children(self, name: str) -> list[tuple[Table, ForeignKey]]:
        """The tables whose foreign keys reference ``name``, with those keys."""
        low = name.lower()
        return [(t, fk) for t in self.tables.values() for fk in t.foreign_keys if fk.parent == low]

    def drop_table(self, name: str) -> Table | None:
        self.version += 1
        return self.tables.pop(name.lower(), None)

    def put_routine(self, r: Routine) -> None:
        self.routines[f"{r.kind}:{r.name.lower()}"] = r
        self.version += 1

    def hidden_user_vars(self) -> frozenset[str]:
        """User variables a trigger or stored function body assigns (not followed: they run unseen)."""
        if self._hidden[0] != self.version:
            bodies = [tr.body for t in self.tables.values() for tr in t.triggers]
            bodies += [r.body for key, r in self.routines.items() if key.startswith("FUNCTION:")]
            self._hidden = (self.version, frozenset(v for body in bodies for st in body for v in st.user_vars))
        return self._hidden[1]

    def written_columns(self, table: str) -> dict[str, bool]:
        """Lower-cased columns of ``table`` a trigger or stored routine body names when it inserts or updates
        (``EVERY``: every column), called or not, each with whether it is only ever given clock readings
        (predictor/fresh.py)."""
        if self._written[0] != self.version:
            named: dict[str, dict[str, bool]] = {}
            bodies = [tr.body for t in self.tables.values() for tr in t.triggers]
            bodies += [r.body for r in self.routines.values()]
            for st in (st for body in bodies for st in body):
                for w in st.writes:
                    if w.op.value != "delete":
                        note_columns(named.setdefault(w.table.lower(), {}), st, w.columns)
            self._written = (self.version, named)
        return self._written[1].get(table.lower(), {}) | self._written[1].get("", {})

    def has_functions(self) -> bool:
        return any(k.startswith("FUNCTION:") for k in self.routines)

    def routine(self, kind: str, name: str) -> Routine | None:
        return self.routines.get(f"{kind}:{name.lower()}")

    def drop_routine(self, kind: str, name: str) -> Routine | None:
        self.version += 1
        return self.routines.pop(f"{kind}:{name.lower()}", None)

    def put_view(self, v: View) -> None:
        self.views[v.name.lower()] = v
        self.version += 1

    def view(self, name: str) -> View | None:
        return self.views.get(name.lower())

    def drop_view(self, name: str) -> View | None:
        self.version += 1
        return self.views.pop(name.lower(), None)

    def trigger_table(self, trigger_name: str) -> Table | None:
        for t in self.tables.values():
            if any(tr.name.lower() == trigger_name.lower() for tr in t.triggers):
                return t
        return None
