"""The one piece of data the predictor simulates: the rows of small tables, as far as it knows them.

Duplicate keys decide whether a statement is logged at all (1062), whether INSERT ... ON DUPLICATE KEY
UPDATE and REPLACE write, update or delete rows, and with them every later binlog group number. The
predictor therefore keeps the rows that INSERT/REPLACE ... VALUES and ... SELECT put into a table, with the
values it can evaluate (``predictor.evaluate``; the rest are ``UNKNOWN``), as long as it knows all of them.
A table stops being tracked when a statement changes it in a way we do not evaluate (an UPDATE of a key
column, a DELETE whose WHERE we cannot evaluate, LOAD DATA, a key value we cannot compute) or once it holds
more than ``MAX_TRACKED`` rows (parsing every INSERT of a big workload would cost more than it tells).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum
from functools import cmp_to_key
from typing import NamedTuple

from sqlglot import exp

from predictor.catalog import Generated, Table
from predictor.codes import ER_DUP_ENTRY
from predictor.evaluate import UNKNOWN, CannotEvaluate, Row, Value, comparable, opaque, truth, value
from predictor.moments import CLOCK, HORIZON, Moment, compare, same_second, stored
from predictor.parse import parse_expression
from predictor.query import Source, filtered
from predictor.strict import CHECK_FAILED, INVALID_JSON, issues
from predictor.values import Cased, JsonText, Recased, decimal_of, exact_text

Pair = tuple[Row | None, Row | None]
"""One row a statement wrote, as its triggers see it: (OLD, NEW), None where the event has no such row."""

MAX_TRACKED = 400
PARSE_BUDGET = 150
"""Statements the model may parse (beyond plain INSERT ... VALUES, read without a parse) in one workload, to
start with; each statement unlike the ones before (its analysis is new: literals aside) adds
PARSES_PER_ANALYSIS (Predictor.step; one was too few for a CALL's body statements: insurance_claims_app ran out
at statement 300 of 431). A conformance workload of a few hundred distinct statements (and CALLs that parse their
bodies) is followed to its end; a 100k-statement load test of 50 templates would spend more parsing than
predicting, so once the budget is spent, changes that need a parse just stop the tracking of their table."""
PARSES_PER_ANALYSIS = 2  # added to the budget per new analysis (see PARSE_BUDGET)
PARSES_PER_CALL = 1000
"""What a workload's CALL may parse, its body's statements, the passes of its loops and the procedures it calls
(predictor/calls.py), instead of the budget: loan_servicing_app's loan boarding loops over payments, each a CALL
looping over fees and installments, spent the whole budget by statement 79 of 399 when CALLs drew on it. A
CALL is what the prediction is for, so it is followed whatever the workload's size; a load of 100k CALLs is
slower to predict for it (the template benchmark has none)."""

_INT_TYPES = frozenset({"INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "MEDIUMINT", "BIT", "YEAR",
                        "UINT", "UBIGINT", "USMALLINT", "UTINYINT", "UMEDIUMINT"})  # U...: UNSIGNED
_CLOCK_TYPES = frozenset({"DATETIME", "TIMESTAMP", "TIMESTAMPTZ"})  # hold a clock reading as it is (DATE: its day;
# TIMESTAMPTZ: sqlglot's name for MySQL's TIMESTAMP)


class Refused(Exception):
    """An UPDATE fails whatever the scan order: it moves a unique key onto one the table keeps (1062), or
    strict mode refuses a value it assigns (1048, 1406). Raised before any row is changed; the caller decides
    what the failure leaves (a transactional table: nothing; a non-transactional one: nothing when ``first``,
    the first row scanned is refused)."""

    def __init__(self, code: int, first: bool) -> None:
        super().__init__(code)
        self.code, self.first = code, first


class Mode(Enum):
    """What a duplicate key does to the row being written."""

    INSERT = "insert"  # error 1062
    IGNORE = "ignore"  # skipped, warning 1062
    REPLACE = "replace"  # the old row is replaced (updated in place or deleted)
    UPSERT = "upsert"  # ON DUPLICATE KEY UPDATE


@dataclass(frozen=True)
class WriteOutcome:
    """What the rows did: ``dup_at`` is the row where a duplicate stopped the statement (None: none)."""

    dup_at: int | None
    rows: int
    written: int = 0
    updated: int = 0
    deleted: int = 0
    ignored: int = 0
    first_id: int | None = None  # the first auto-increment value generated for a written row (LAST_INSERT_ID)
    removed: tuple[Row, ...] = ()  # the rows a REPLACE deleted (not updated in place)


@dataclass
class TableData:
    columns: tuple[str, ...]  # lower case, table order
    keys: tuple[tuple[str, ...], ...]  # unique keys, table order (PRIMARY first)
    auto: str | None
    rows: list[Row | None] = field(default_factory=list)  # None: a deleted row
    index: list[dict[tuple[Value, ...], int]] = field(default_factory=list)
    next_auto: int = 1
    tracked: bool = True

    def __post_init__(self) -> None:
        if not self.index:
            self.index = [{} for _ in self.keys]

    def copy(self) -> TableData:
        """A copy to write into (rows are replaced, never changed in place, so the lists suffice)."""
        return TableData(self.columns, self.keys, self.auto, list(self.rows), [dict(i) for i in self.index],
                         self.next_auto, self.tracked)

    def live(self) -> list[Row]:
        return [r for r in self.rows if r is not None]

    def size(self) -> int:
        return len(self.rows)

    def compact(self) -> None:
        """Drop the deleted rows' places (positions change: only between statements, as ``tracked`` does it)."""
        rows = self.live()
        self.rows, self.index = [], [{} for _ in self.keys]
        for r in rows:
            self.add(r)

    def key_of(self, k: int, row: Row) -> tuple[Value, ...] | None:
        """The key tuple, None when a part is NULL (never a duplicate); raises when a part is unknown."""
        tup = tuple(row.get(c, UNKNOWN) for c in self.keys[k])
        if any(opaque(v) for v in tup):
            raise CannotEvaluate("unknown key value")
        return None if any(v is None for v in tup) else tup

    def known_key(self, k: int, row: Row) -> tuple[Value, ...] | None:
        """The key tuple, None when a part is NULL or unknown (such a row is not in the index)."""
        tup = tuple(row.get(c, UNKNOWN) for c in self.keys[k])
        return None if any(v is None or opaque(v) for v in tup) else tup

    def conflict(self, row: Row, unknown_clashes: bool = True,
                 keys: Sequence[int] | None = None) -> tuple[int, int] | None:
        """(key number, row position) of the first unique key (of ``keys``, default all) ``row`` duplicates. A
        key with an unknown part raises CannotEvaluate, or, ``unknown_clashes`` False (a plain INSERT), is taken
        to clash with nothing: the assumption the predictor makes for every INSERT into a table it does not
        follow."""
        for k in range(len(self.keys)) if keys is None else keys:
            tup = self.key_of(k, row) if unknown_clashes else self.known_key(k, row)
            if tup is not None and tup in self.index[k]:
                return k, self.index[k][tup]
        return None

    def add(self, row: Row) -> None:
        self.rows.append(None)
        self.put(len(self.rows) - 1, row)

    def put(self, pos: int, row: Row) -> None:
        """``row`` at ``pos`` (empty, or removed first), indexed by its known keys."""
        self.rows[pos] = row
        for k in range(len(self.keys)):
            tup = self.known_key(k, row)
            if tup is not None:
                self.index[k][tup] = pos

    def remove(self, pos: int) -> None:
        row = self.rows[pos]
        if row is None:
            return
        for k in range(len(self.keys)):
            tup = self.known_key(k, row)
            if tup is not None and self.index[k].get(tup) == pos:
                del self.index[k][tup]
        self.rows[pos] = None

    def set_unknown(self, columns: Sequence[str], positions: set[int] | None = None) -> None:
        """``columns`` of the rows at ``positions`` (None: all rows) are no longer known; a row whose key
        becomes unknown leaves that key's index (a plain INSERT then takes it to clash with nothing)."""
        unknown = dict.fromkeys((c.lower() for c in columns), UNKNOWN)
        keyed = [k for k, key in enumerate(self.keys) if not unknown.keys().isdisjoint(key)]
        rows = list(self.rows)  # new rows: copies share them
        for i, r in enumerate(rows):
            if r is None or (positions is not None and i not in positions):
                continue
            for k in keyed:
                tup = self.known_key(k, r)
                if tup is not None and self.index[k].get(tup) == i:
                    del self.index[k][tup]
            rows[i] = r | unknown
        self.rows = rows


def _partly_updated(t: Table, d: TableData, where: exp.Expression,
                    assignments: Sequence[tuple[str, exp.Expression]]) -> None:
    """An UPDATE whose WHERE cannot be said of some rows: the rows it surely selects get their new values,
    the rows it may select get unknown ones (the columns it sets, and those that follow them: generated,
    ON UPDATE CURRENT_TIMESTAMP), the others stay (crowdfunding_platform_app's expired holds: the holds
    past their expiry are expired, whatever the holds whose expiry is not known). A value a column cannot
    take leaves those rows unknown. What the table's triggers do is the caller's (rows.with_key_checks:
    data.fire), as when no row is decided."""
    cols = {c.lower() for c, _ in assignments}
    if any(c in cols for k in d.keys for c in k):
        d.tracked = False
        return
    maybe: set[int] = set()
    d.rows = list(d.rows)  # copies (a savepoint's, a rollback's) share the old list
    for i, r, sure in _selects(d, where):
        if not sure:
            maybe.add(i)
            continue
        new = _assigned_row(t, r, assignments)
        if issues(t, [{c: new[c] for c in cols}], [new]):
            maybe.add(i)
        else:
            d.rows[i] = new
    stamps = set(t.stamps)
    d.set_unknown(t.with_generated(cols | stamps), maybe)


def _selects(d: TableData, where: exp.Expression) -> Iterator[tuple[int, Row, bool]]:
    """The rows ``where`` selects (True) or may select (False: it cannot be evaluated on them), with their
    positions; the rows it surely does not select are left out."""
    for i, r in enumerate(d.rows):
        if r is None:
            continue
        try:
            if truth(where, r):
                yield i, r, True
        except CannotEvaluate:
            yield i, r, False


def _maybe(d: TableData, where: exp.Expression) -> set[int]:
    """Positions of the rows ``where`` selects or may select."""
    return {i for i, _, _ in _selects(d, where)}


POSITION = "#pos"  # a row's place in TableData.rows, in rows given to a multi-table DELETE / UPDATE


class Updated(NamedTuple):
    """What an UPDATE did to a table's rows."""

    changed: int
    ignored: int  # skipped by IGNORE (a duplicate key)
    matched: int
    warnings: frozenset[int]  # stored with a warning (non-strict mode) or a note (a DECIMAL rounded)
    insert_id: Value = None  # ``SET c = LAST_INSERT_ID(x)``: x of the last row matched (None: no such SET or row)


@dataclass
class DataModel:
    tables: dict[str, TableData] = field(default_factory=dict)
    parses_left: int = PARSE_BUDGET
    untrackable: set[str] = field(default_factory=set)  # tables a trigger inserts into or deletes from
    fed: dict[str, list[tuple[str, str, tuple[str, ...] | None, frozenset[str]]]] = field(default_factory=dict)
    """table -> (event, table, non-key columns) of the UPDATEs its triggers run, columns None for their
    INSERTs and DELETEs (see ``fire``)."""
    named: dict[str, dict[str, bool]] = field(default_factory=dict)
    """table -> the columns statements named writing it while it was not followed, each with whether it was
    only ever given clock readings (predictor/fresh.py)."""
    noted: dict[str, set[int]] = field(default_factory=dict)  # table -> ids of the analyses in ``named``
    unfollowed: set[int] = field(default_factory=set)  # ids of analyses noted with none of their tables followed

    def watching(self, name: str) -> bool:
        """Whether ``name``'s rows are (still) tracked: a dictionary lookup, for the hot path. ``name``, here
        and in ``forget``: a base table's name or a table's ``ident`` (temporary tables)."""
        d = self.tables.get(name.lower())
        return d is not None and d.tracked

    def never_track(self, name: str) -> None:
        self.untrackable.add(name.lower())
        self.forget(name)

    def trigger_updates(self, table: str, event: str, target: str, columns: Sequence[str] | None,
                        idle: frozenset[str] = frozenset()) -> None:
        """A trigger on ``table`` for ``event`` (INSERT / UPDATE / DELETE) sets these non-key columns of
        ``target`` (None: inserts or deletes its rows): when it fires and is not followed row by row
        (predictor/triggers.py), those values (the whole table) become unknown. ``idle``: an UPDATE
        trigger's body does nothing while one of these columns keeps its value (triggers.idle_unless)."""
        self.fed.setdefault(table.lower(), []).append(
            (event.upper(), target, tuple(columns) if columns is not None else None, idle))

    def fire(self, table: str, events: frozenset[str], kept: Callable[[str], bool] | None = None,
             changing: frozenset[str] | None = None) -> None:
        """``table`` was written with ``events``: what its triggers update is unknown now (conditions in
        trigger bodies and the rows they match are not evaluated). ``kept``: only the targets it accepts
        (a failed statement's changes to transactional tables are undone). ``changing``: the columns an
        UPDATE may change (None: any); a trigger idle unless another one changes does nothing."""
        for event, target, columns, idle in self.fed.get(table.lower(), ()):
            if changing is not None and event == "UPDATE" and idle - changing:
                continue
            if event in events and (kept is None or kept(target)):
                d = self.tables.get(target.lower())
                if d is not None and d.tracked:
                    if columns is None:
                        d.tracked = False
                    else:
                        d.set_unknown(columns)

    def may_parse(self) -> bool:
        """Spend one parse of the budget (False: none left)."""
        if self.parses_left <= 0:
            return False
        self.parses_left -= 1
        return True

    def create(self, t: Table, rows: Sequence[Row] = ()) -> None:
        d = TableData(tuple(c.name.lower() for c in t.columns),
                      tuple(tuple(c.lower() for c in k.columns) for k in t.unique_keys),
                      t.auto_increment.name.lower() if t.auto_increment else None)
        self.tables[t.ident] = d
        self.named.pop(t.ident, None)
        self.noted.pop(t.ident, None)
        self.unfollowed.clear()
        if t.ident in self.untrackable:
            d.tracked = False
            return
        try:
            for r in rows:
                d.add(_fill(t, d, dict(r)))
        except CannotEvaluate:
            d.tracked = False

    def forget(self, name: str) -> None:
        """Stop following ``name``'s rows (they are not known any more)."""
        d = self.tables.get(name.lower())
        if d is not None:
            d.tracked = False

    def clear(self, t: Table) -> None:
        if t.ident in self.tables:
            self.create(t)

    def tracked(self, t: Table) -> TableData | None:
        d = self.tables.get(t.ident)
        if d is None or not d.tracked or len(d.keys) != len(t.unique_keys) or len(d.columns) != len(t.columns):
            return None
        if d.size() > MAX_TRACKED:
            if len(d.live()) > MAX_TRACKED:
                d.tracked = False
                return None
            d.compact()  # deleted rows do not count (loan_servicing_app's schedules rebuilt by a modification)
        return d

    def source(self, t: Table, positions: bool = False) -> Source | None:
        """``t``'s rows for a SELECT; InnoDB-like tables in primary-key order, others in insertion order.
        ``positions``: each row also holds ``#pos``, its place for ``delete_where`` / ``update_where``."""
        d = self.tracked(t)
        if d is None:
            return None
        rows = [r | {POSITION: i} for i, r in enumerate(d.rows) if r is not None] if positions else d.live()
        if d.keys and t.keys and t.keys[0].kind.value == "primary":
            try:
                rows = sorted(rows, key=lambda r: tuple(r[c] for c in d.keys[0]))
            except (TypeError, KeyError):
                pass
        return Source(d.columns, rows, d.keys)

    def write(self, t: Table, rows: Sequence[Row], mode: Mode, commit: bool,
              assignments: Sequence[tuple[str, exp.Expression]] = (), replace_deletes: bool = False,
              pairs: list[Pair] | None = None, counted: bool = True) -> WriteOutcome | None:
        """Write ``rows`` (see ``_written``); then InnoDB's auto-increment reservation: ``counted`` rows (VALUES)
        reserve one value each, written or not; rows not counted in advance (INSERT ... SELECT) reserve
        intervals of 1, 2, 4, ... as the written ones need them (both servers: 30 rows, the next id is 32;
        fixtures/seeds/003_logging_rules/auto_increment_bulk.sql)."""
        start = self.next_auto(t)
        out = self._written(t, rows, mode, commit, assignments, replace_deletes, pairs)
        if out is not None and start is not None:
            self.reserve(t, start, rows, out, counted)
        return out

    def next_auto(self, t: Table) -> int | None:
        """The auto-increment value tracked ``t`` gives next (None: not followed, or no such column)."""
        d = self.tracked(t)
        return d.next_auto if d is not None and d.auto is not None else None

    def reserve(self, t: Table, start: int, rows: Sequence[Row], out: WriteOutcome, counted: bool) -> None:
        """InnoDB's auto-increment values a statement reserved from ``start`` (see ``write``)."""
        d = self.tracked(t)
        if d is None or d.auto is None or t.engine.lower() != "innodb" \
                or any(r.get(d.auto) not in (None, 0) for r in rows):
            return
        if counted:
            d.next_auto = max(d.next_auto, start + len(rows))
        elif out.dup_at is None and out.written > 1:
            d.next_auto = max(d.next_auto, start + (1 << out.written.bit_length()) - 1)

    def _written(self, t: Table, rows: Sequence[Row], mode: Mode, commit: bool,
                 assignments: Sequence[tuple[str, exp.Expression]], replace_deletes: bool,
                 pairs: list[Pair] | None) -> WriteOutcome | None:
        """Write ``rows`` (column -> value, missing columns take their defaults) into tracked ``t``.

        ``commit`` False: a statement stopped by a duplicate is undone (transactional tables); True: the
        rows before the duplicate stay. None when the outcome cannot be evaluated (``t`` is then no longer
        tracked). ``pairs`` (INSERT, INSERT IGNORE, ON DUPLICATE KEY UPDATE) gets (None, row) per row written
        and (old, new) per row an ON DUPLICATE KEY UPDATE updated, for its triggers.
        ``replace_deletes``: REPLACE deletes the row it clashes with, never updates it in place.
        """
        d = self.tracked(t)
        if d is None:
            return None
        if mode in (Mode.INSERT, Mode.IGNORE):  # rows are only appended: undo by dropping them again
            n0 = len(d.rows)
            try:
                out = _write(t, d, rows, mode, assignments, replace_deletes)
            except CannotEvaluate:
                d.tracked = False
                return None
            if pairs is not None:
                pairs.extend((None, r) for r in d.rows[n0:] if r is not None)
            if out.dup_at is not None and not commit:
                for i in range(len(d.rows) - 1, n0 - 1, -1):
                    d.remove(i)
                del d.rows[n0:]  # next_auto stays: InnoDB does not give back auto-increment values
            return out
        work = d.copy()
        trace: list[Pair] | None = [] if pairs is not None and mode is Mode.UPSERT else None
        try:
            out = _write(t, work, rows, mode, assignments, replace_deletes, trace)
        except CannotEvaluate:
            d.tracked = False
            return None
        if pairs is not None and trace is not None:
            pairs.extend(trace)
        if out.dup_at is None or commit:
            self.tables[t.ident] = work
        elif t.auto_increment is not None:
            d.next_auto = work.next_auto  # InnoDB does not give back auto-increment values
        return out

    def set_new(self, t: Table, row: Row, column: str, v: Value) -> Row | None:
        """A BEFORE trigger's ``SET NEW.column = v`` on a row the statement wrote into tracked ``t``: the row as
        stored now; None when it cannot be followed (the table untracked, the row not found). Raises Refused
        (1062) when the row's new key clashes: the server checks keys after the BEFORE triggers."""
        d = self.tracked(t)
        name = column.lower()
        if d is None or t.column(name) is None:
            return None
        at = next((i for i in range(len(d.rows) - 1, -1, -1) if d.rows[i] is row), None)
        if at is None:
            return None
        new = {**row, name: _coerce(t, name, Cased(str(v), v.exact) if isinstance(v, Recased) else v)}  # stored
        if not any(name in k for k in d.keys):
            d.rows[at] = new
            return new
        d.remove(at)
        clash = d.conflict(new, unknown_clashes=False) is not None
        d.put(at, row if clash else new)
        if clash:
            raise Refused(ER_DUP_ENTRY, False)
        return new

    def changed_columns(self, t: Table, columns: Sequence[str], where: exp.Expression | None = None) -> None:
        """An UPDATE wrote ``columns`` of some rows: their values are no longer known, in the rows ``where``
        may select (all rows when None, or when it cannot be evaluated on keys)."""
        d = self.tracked(t)
        if d is None:
            return
        low = {c.lower() for c in columns}
        if any(c in low for k in d.keys for c in k):
            d.tracked = False
        else:  # (a generated key column computed from them is unknown in those rows: dental_group_app's slots)
            d.set_unknown(t.with_generated(low), _maybe(d, where) if where is not None else None)

    def selected(self, t: Table, where: exp.Expression | None, limit: int | None = None,
                 positions: Sequence[int] | None = None, order: Sequence[exp.Ordered] = ()) -> list[Row] | None:
        """The rows a DELETE / UPDATE would take (as delete_where), without changing anything; None: not known."""
        d = self.tracked(t)
        if d is None:
            return None
        try:
            hit = self._matching(t, d, where, limit, order) if positions is None else sorted(set(positions))
        except CannotEvaluate:
            return None
        return [r for i in hit if (r := d.rows[i]) is not None]

    def delete_where(self, t: Table, where: exp.Expression | None, limit: int | None = None,
                     positions: Sequence[int] | None = None, pairs: list[Pair] | None = None,
                     order: Sequence[exp.Ordered] = ()) -> int | None:
        """A single-table DELETE: remove the rows its WHERE selects (or the rows at ``positions``, which a
        multi-table DELETE selected); the number removed, or None (and the table is no longer tracked) when
        the WHERE cannot be evaluated. ``pairs`` gets (row, None) per row removed, for its triggers."""
        d = self.tracked(t)
        if d is None:
            return None
        try:
            doomed = self._matching(t, d, where, limit, order) if positions is None else sorted(set(positions))
        except CannotEvaluate:
            d.tracked = False
            return None
        for i in doomed:
            if pairs is not None:
                pairs.append((d.rows[i], None))
            d.remove(i)
        return len(doomed)

    def update_where(self, t: Table, where: exp.Expression | None, assignments: Sequence[tuple[str, exp.Expression]],
                     limit: int | None = None, ignore: bool = False, scan_order: bool = True,
                     positions: Sequence[int] | None = None, pairs: list[Pair] | None = None,
                     order: Sequence[exp.Ordered] = (), joined: Mapping[int, Row] | None = None,
                     strict: bool = True) -> Updated | None:
        """A single-table UPDATE: the rows its WHERE selects (or the rows at ``positions``, which a
        multi-table UPDATE selected) get the assigned values; returns (rows changed, rows skipped by IGNORE,
        rows matched), None when that cannot be said (changed columns then become unknown).

        A moved key is followed for one matched row, for several when the keys they move to are known and
        clash with nothing (``_moves_apart``: then the scan order does not matter), and for UPDATE IGNORE row by
        row in scan order when
        ``scan_order`` (MySQL; MariaDB: Profile.UPDATE_IGNORE_CLASHES_IN_SCAN_ORDER); ``ignore`` skips (warning
        1062) a row whose new key is taken at that moment. Otherwise a moved key stops the tracking, as does a
        clash without IGNORE (the statement fails). ``pairs`` gets (old, new) per row matched and not skipped,
        changed or not: UPDATE triggers fire for each."""
        d = self.tracked(t)
        if d is None:
            return None
        cols = [c.lower() for c, _ in assignments]
        try:
            hit = self._matching(t, d, where, limit, order) if positions is None else sorted(set(positions))
        except CannotEvaluate:
            if where is not None and limit is None and positions is None and joined is None:
                _partly_updated(t, d, where, assignments)
            else:  # (ORDER BY RAND() LIMIT n: some of the rows the WHERE selects, those it does not stay)
                self.changed_columns(t, [*cols, *t.stamps], where if positions is None and joined is None else None)
            return None
        keys = {c for k in d.keys for c in k}
        moved = [c.lower() for c, e in assignments if not _keeps(e, c)]  # SET v = v + 0 changes nothing
        news = [(i, old, _assigned_row(t, old, assignments, (joined or {}).get(i)))
                for i in hit if (old := d.rows[i]) is not None]
        warnings: frozenset[int] = frozenset()
        insert_id: Value = None
        for c, e in assignments:
            if _sets_insert_id(e) and news:
                insert_id = news[-1][2][c.lower()]
        if not ignore:
            found = issues(t, [{c: new[c] for c in cols} for _, _, new in news], [new for _, _, new in news])
            # a non-strict session stores the nearest value (a NULL: the implicit default) with a warning
            bad = next((i for i in found if not i.note and (strict or i.code in (CHECK_FAILED, INVALID_JSON))), None)
            if bad is not None:
                raise Refused(bad.code, bad.row == 0)
            for issue in found:  # stored with a warning: the nearest value
                news[issue.row][2][issue.column] = issue.stored
            warnings = frozenset(i.warning for i in found if i.warning is not None)
            if _certain_clash(d, news, moved):
                raise Refused(ER_DUP_ENTRY, False)
        if len(hit) > 1 and not (ignore and scan_order) and not _moves_apart(d, news, moved):
            d.tracked = False  # keys of several rows moved, and may clash in an order that is not modelled
            return None
        changed = ignored = 0
        for i, old, new in news:
            if any(new[c] != old[c] for c in keys):
                d.remove(i)
                clash = d.conflict(new, unknown_clashes=False)
                if clash is not None and not ignore:
                    d.tracked = False  # 1062: the statement fails (not modelled)
                    return None
                if clash is not None:
                    d.rows[i] = None
                    d.add(old)  # skipped: the old row stays (at the end of the scan order: seen already)
                    ignored += 1
                    continue
                d.add(new)
                changed += 1
                if pairs is not None:
                    pairs.append((old, new))
                continue
            if _differs(old, new, moved):
                changed += 1
            d.rows[i] = new
            if pairs is not None:
                pairs.append((old, new))
        return Updated(changed, ignored, len(hit), warnings, insert_id)

    @staticmethod
    def _matching(t: Table, d: TableData, where: exp.Expression | None, limit: int | None,
                  order: Sequence[exp.Ordered] = ()) -> list[int]:
        """Positions of the rows a WHERE (and ORDER BY ... LIMIT, else LIMIT in scan order) selects; raises
        CannotEvaluate."""
        scan = [i for i, r in enumerate(d.rows) if r is not None]
        if d.keys and t.keys and t.keys[0].kind.value == "primary":
            try:
                scan.sort(key=lambda i: tuple(d.rows[i][c] for c in d.keys[0]))  # type: ignore[index]
            except TypeError:
                if limit is not None:
                    raise CannotEvaluate("scan order of unknown keys") from None
        if where is not None:
            chosen = {id(r) for r in filtered([d.rows[i] for i in scan], where, d.keys)}  # type: ignore[misc]
            scan = [i for i in scan if id(d.rows[i]) in chosen]
        hit = scan
        if limit is not None and limit < 0 and hit:
            raise CannotEvaluate("a LIMIT that is not known")
        if limit is None or limit < 0 or len(hit) <= limit:
            return hit
        if order:
            return _first_ordered(hit, d, order, limit)
        return hit[:limit]

    def rekey(self, old: Table, new: Table, renames: Mapping[str, str] | None = None) -> bool:
        """ALTER TABLE changed columns or keys: carry the rows over (``renames``: old -> new column name);
        False when they now clash (1062)."""
        d = self.tracked(old)
        if d is None:
            self.forget(new.ident)
            return True
        back = {n: o for o, n in (renames or {}).items()}
        rows = [{c: r.get(back.get(c, c), UNKNOWN) for c in (x.name.lower() for x in new.columns)
                 if back.get(c, c) in r} for r in d.live()]
        self.create(new)
        nd = self.tables[new.ident]
        # only a key the ALTER adds can clash: the rows already lived together under the others (with unknown
        # values in them, which an INSERT takes to clash with nothing)
        kept = {tuple(renames.get(c, c) for c in k) for k in d.keys} if renames else set(d.keys)
        fresh = [i for i, k in enumerate(nd.keys) if k not in kept]
        try:
            for r in rows:
                full = _fill(new, nd, r)
                if nd.conflict(full, keys=fresh) is not None:
                    del self.tables[new.ident]
                    self.tables[old.ident] = d
                    return False
                nd.add(full)
        except CannotEvaluate:
            nd.tracked = False
        return True


def _first_ordered(hit: list[int], d: TableData, order: Sequence[exp.Ordered], limit: int) -> list[int]:
    """The first ``limit`` of ``hit`` by ORDER BY; CannotEvaluate when the cut falls between equal keys (then
    which rows the server takes depends on its plan) or a key is not known."""
    raw = {i: [value(o.this, row) for o in order] for i in hit if (row := d.rows[i]) is not None}
    if any(isinstance(v, Moment) for vs in raw.values() for v in vs):
        cmp = _ordered_cmp(order)
        ranked = sorted(raw, key=lambda i: cmp_to_key(cmp)(raw[i]))
        if limit == 0:
            return []
        # every row kept must come before every row left (the comparison is only partly transitive)
        if any(cmp(raw[k], raw[m]) != -1 for k in ranked[:limit] for m in ranked[limit:]):
            raise CannotEvaluate("LIMIT cuts between ORDER BY keys that may be equal")
        return ranked[:limit]

    def key(i: int) -> tuple[tuple[int, object], ...]:
        out: list[tuple[int, object]] = []
        for o, v in zip(order, raw[i], strict=True):
            if opaque(v):  # (clock readings took the path above)
                raise CannotEvaluate("ORDER BY an unknown value")
            desc = bool(o.args.get("desc"))
            rank = (0 if v is None else 1) * (-1 if desc else 1)  # NULLs first ascending, last descending
            out.append((rank, _Desc(v) if desc and v is not None else v))
        return tuple(out)

    try:
        keyed = sorted(((key(i), i) for i in raw), key=lambda x: x[0])
    except TypeError:
        raise CannotEvaluate("ORDER BY across types") from None
    if limit == 0:
        return []
    if keyed[limit - 1][0] == keyed[limit][0]:
        raise CannotEvaluate("LIMIT cuts between equal ORDER BY keys")
    return [i for _, i in keyed[:limit]]  # in ORDER BY order: the order the rows are changed in


def _clock_cmp(a: Moment, b: Moment) -> tuple[int, bool] | None:
    """How two stored clock readings compare: (sign, sure); sure False means "a <= b" (sign -1) or "a >= b"
    (sign 1) but maybe equal (the same offset from NOW(), read by two statements maybe in the same second:
    the next ORDER BY key decides). None: cannot be said. The clock does not go back, and a replay lasts less
    than HORIZON (moments.stored)."""
    if a.date or b.date or a.now is None or b.now is None or a.reading is None or b.reading is None \
            or a.now[1] != b.now[1]:
        told = compare(a, b, "<")
        if told:
            return -1, True
        return (1, True) if compare(b, a, "<") else None
    oa, ob = a.now[0], b.now[0]
    if a.reading == b.reading:
        return (oa > ob) - (oa < ob), True
    if a.reading > b.reading:
        flipped = _clock_cmp(b, a)
        return None if flipped is None else (-flipped[0], flipped[1])
    if ob > oa:  # b read later, at a later offset
        return -1, True
    if ob == oa:
        return -1, False
    return (1, True) if oa - ob > HORIZON else None


def _ordered_cmp(order: Sequence[exp.Ordered]) -> Callable[[list[Value], list[Value]], int]:
    """A comparison of two rows' ORDER BY values that knows clock readings; raises CannotEvaluate where the
    order cannot be said."""
    def cmp(xs: list[Value], ys: list[Value]) -> int:
        leaning = 0  # a clock said "<=" or ">=": a later key must agree, else the order is open
        for o, x, y in zip(order, xs, ys, strict=True):
            desc = -1 if o.args.get("desc") else 1
            if x is UNKNOWN or y is UNKNOWN:
                raise CannotEvaluate("ORDER BY an unknown value")
            if x is None or y is None:
                sign, sure = ((x is not None) - (y is not None)) * desc, True
            elif isinstance(x, Moment) and isinstance(y, Moment):
                told = _clock_cmp(x, y)
                if told is None:
                    raise CannotEvaluate("ORDER BY clock readings that may come in either order")
                sign, sure = told[0] * desc, told[1]
            elif isinstance(x, Moment) or isinstance(y, Moment) or not comparable(x, y):
                raise CannotEvaluate("ORDER BY across types")
            else:
                sign, sure = ((x > y) - (x < y)) * desc, True  # type: ignore[operator]
            if not sure:
                if leaning and leaning != sign:
                    raise CannotEvaluate("ORDER BY clock readings that may come in either order")
                leaning = sign
                continue
            if sign:
                if leaning and sign != leaning:
                    raise CannotEvaluate("ORDER BY clock readings that may come in either order")
                return sign
        if leaning:
            raise CannotEvaluate("ORDER BY clock readings that may be equal")
        return 0

    return cmp


class _Desc:
    """Reverses the order of a value (ORDER BY ... DESC)."""

    def __init__(self, v: object) -> None:
        self.v = v

    def __lt__(self, other: _Desc) -> bool:
        return bool(other.v < self.v)  # type: ignore[operator]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.v == other.v

    def __hash__(self) -> int:
        return hash(self.v)


def _coerce(t: Table, name: str, v: Value) -> Value:
    col = t.column(name)
    if col is None or v is None or v is UNKNOWN:
        return v
    base = col.type.upper().split("(")[0]
    if isinstance(v, Moment):
        return v.as_date() if base == "DATE" else stored(v) if base in _CLOCK_TYPES else UNKNOWN
    if base in _INT_TYPES and isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            return UNKNOWN
    if base in _INT_TYPES and isinstance(v, Decimal):
        return int(v.to_integral_value(ROUND_HALF_UP))  # 2.5 -> 3, -2.5 -> -3
    if isinstance(v, float):
        return _coerce_double(col.scale, base, v)

    if base not in _INT_TYPES and isinstance(v, int) and base in ("CHAR", "VARCHAR", "TEXT", "BINARY", "VARBINARY"):
        return str(v)
    return v


def _coerce_double(scale: int | None, base: str, v: float) -> Value:
    """A DOUBLE stored: into an integer column rounded half to even (rint), into a DECIMAL by its shortest
    digits rounded half up, into a DOUBLE as it is; other columns are not followed."""
    if base in _INT_TYPES:
        return round(v)
    if scale is not None:
        return decimal_of(v).quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP)
    return v if base in ("DOUBLE", "REAL") else UNKNOWN


SKIPPED = "#skipped"  # a row's key: INSERT IGNORE skips it (a CHECK refused it; predictor/rows.py, _ignoring)


def _fill(t: Table, d: TableData, row: Row) -> Row:
    """The full row: given values coerced to column types, auto-increment assigned, defaults elsewhere."""
    out: Row = {}
    for c in t.columns:
        name = c.name.lower()
        if c.generated is not Generated.NO:
            out[name] = UNKNOWN  # its expression is not evaluated (the catalog keeps only what it reads)
        elif name in row:
            out[name] = _coerce(t, name, row[name])
        elif c.auto_increment:
            out[name] = None
        elif c.nullable and not c.has_default:
            out[name] = None
        elif c.literal_default:
            out[name] = _coerce(t, name, c.literal_default[0])
        elif c.default_now:
            out[name] = _coerce(t, name, CLOCK["NOW"])
        else:
            out[name] = UNKNOWN
    if t.generated:
        _generate(t, out)
    if d.auto is not None:
        v = out.get(d.auto)
        if v is None or v == 0:
            if any(k[0] != d.auto and d.auto in k for k in d.keys):
                raise CannotEvaluate("auto-increment on a second key part (MyISAM per-group numbering)")
            out[d.auto] = d.next_auto
            d.next_auto += 1
        elif isinstance(v, int):
            d.next_auto = max(d.next_auto, v + 1)
        else:
            raise CannotEvaluate("unknown auto-increment value")
    return out


def _generate(t: Table, row: Row) -> None:
    """Compute ``row``'s generated columns (``balance AS (amount - amount_paid) STORED``) in place, unknown
    where the expression cannot be evaluated: a WHERE or a procedure reads them like any column."""
    for c in t.generated:
        e = parse_expression(c.expression or "")
        try:
            row[c.name.lower()] = UNKNOWN if e is None else _coerce(t, c.name, value(e, row))
        except CannotEvaluate:
            row[c.name.lower()] = UNKNOWN


def _write(t: Table, d: TableData, rows: Sequence[Row], mode: Mode,
           assignments: Sequence[tuple[str, exp.Expression]], replace_deletes: bool,
           trace: list[Pair] | None = None) -> WriteOutcome:
    written = updated = deleted = ignored = 0
    first_id: int | None = None
    removed: tuple[Row, ...] = ()
    own = t.name.lower()
    for i, given in enumerate(rows):
        row = _fill(t, d, given)
        if SKIPPED in given:
            continue  # INSERT IGNORE: a CHECK refused it after its auto-increment value was taken
        hit = d.conflict(row, unknown_clashes=mode not in (Mode.INSERT, Mode.IGNORE))
        if hit is None:
            d.add(row)
            written += 1
            if trace is not None:
                trace.append((None, row))
            if first_id is None and d.auto is not None and given.get(d.auto) in (None, 0):
                generated = row[d.auto]
                first_id = generated if isinstance(generated, int) else None
            continue
        took = row.get(d.auto) if d.auto is not None and given.get(d.auto) in (None, 0) else None
        if mode in (Mode.IGNORE, Mode.UPSERT) and isinstance(took, int):
            d.next_auto = took  # a row not written gives its value back to the next one (both servers)
        if mode is Mode.IGNORE:
            ignored += 1
            continue
        if mode is Mode.INSERT:
            return WriteOutcome(i, len(rows), written, updated, deleted, ignored)
        if mode is Mode.UPSERT:
            _, pos = hit
            old = d.rows[pos]
            assert old is not None
            new = dict(old)
            for col, e in assignments:  # left to right: ``a = a + 1, b = a`` reads the new ``a``
                v = new[col.lower()] = _coerce(t, col, _assigned(e, new, row, own))
                if _sets_insert_id(e) and isinstance(v, int):
                    first_id = v  # ``id = LAST_INSERT_ID(id)``: the statement gives the row's id after all
            if t.generated:
                _generate(t, new)
            if any(new[c] != old[c] for k in d.keys for c in k):
                raise CannotEvaluate("ON DUPLICATE KEY UPDATE changes a key")
            if _differs(old, new, [col.lower() for col, _ in assignments]):
                updated += 1
            d.rows[pos] = new
            if trace is not None:
                trace.append((old, new))  # its UPDATE triggers run, changed or not (both servers)
            continue
        # REPLACE: the last unique key is updated in place (no DELETE trigger); any other key is deleted
        while hit is not None:
            k, pos = hit
            if k == len(d.keys) - 1 and not replace_deletes:
                old = d.rows[pos]
                assert old is not None
                if _differs(old, row) or t.engine.lower() != "innodb":
                    updated += 1  # only InnoDB says "record is the same" (others log it: replace_same_row.sql)
                d.remove(pos)
                d.add(row)
                break
            gone = d.rows[pos]
            removed += (gone,) if gone is not None else ()
            d.remove(pos)
            deleted += 1
            hit = d.conflict(row)
        else:
            d.add(row)
            written += 1
    return WriteOutcome(None, len(rows), written, updated, deleted, ignored, first_id, removed)


def _sets_insert_id(e: exp.Expression) -> bool:
    return isinstance(e, exp.Anonymous) and e.name.upper() == "LAST_INSERT_ID" and len(e.expressions) == 1


def _assigned(e: exp.Expression, old: Row, new: Row, own: str) -> Value:
    """An ON DUPLICATE KEY UPDATE value: columns are the old row's, VALUES(c) / alias.c the new row's;
    LAST_INSERT_ID(x) is x."""
    if _sets_insert_id(e):
        return _assigned(e.expressions[0], old, new, own)
    if isinstance(e, exp.Column) and e.table and e.table.lower() != own:
        return new.get(e.name.lower(), UNKNOWN)
    if isinstance(e, exp.Anonymous) and e.name.upper() == "VALUES" and len(e.expressions) == 1:
        return new.get(e.expressions[0].name.lower(), UNKNOWN)
    try:  # VALUES(c) anywhere in it (IF(status = 'x', status, VALUES(status))) is the new row's
        return value(e.transform(lambda x: _inline(x, old, new, own)), old, new)
    except CannotEvaluate:
        return UNKNOWN


def _inline(x: exp.Expression, old: Row, new: Row, own: str) -> exp.Expression:
    """The new row's ``alias.c`` and ``VALUES(c)`` as literals (other functions are left to ``value``)."""
    values = isinstance(x, exp.Anonymous) and x.name.upper() == "VALUES" and len(x.expressions) == 1
    if values or (isinstance(x, exp.Column) and x.table and x.table.lower() != own):
        v = _assigned(x, old, new, own)
        if isinstance(v, int | Decimal):
            return exp.Literal.number(str(v) if isinstance(v, Decimal) else v)
        if isinstance(v, str):
            return exp.Literal.string(v)
        if v is None:
            return exp.Null()
        raise CannotEvaluate("unknown value")
    return x


def _assigned_row(t: Table, old: Row, assignments: Sequence[tuple[str, exp.Expression]],
                  joined: Row | None = None) -> Row:
    """``old`` with an UPDATE's assignments applied (unknown where they cannot be evaluated); ``joined``: the
    row of a multi-table UPDATE's join it was matched with (``alias.column`` keys), for ``SET a.x = b.y``."""
    new = dict(old)
    scope = {**old, **joined} if joined else new
    for c, e in assignments:
        if _keeps(e, c) and not (joined and isinstance(e, exp.Column) and e.table):
            continue  # (SET p.x = s.x in a join is the other table's x)
        try:
            got = _coerce(t, c, value(e, scope))
        except CannotEvaluate:
            got = UNKNOWN
        new[c.lower()] = scope[c.lower()] = got  # the assignments after it read the new value (left to right)
    if t.generated:
        _generate(t, new)
    stamps = t.stamps
    if stamps:  # ON UPDATE CURRENT_TIMESTAMP: set when the row changes, unless the UPDATE sets it
        own = {c.lower() for c, _ in assignments}
        changed = [_changes(old.get(c), new[c]) for c in own]
        sure = [c for c in own if not (opaque(new[c]) or opaque(old.get(c)))]
        # the clock when a known column surely changes, whatever the unknown ones do
        known = any(_changes(old.get(c), new[c]) for c in sure) or len(sure) == len(own)
        for c in stamps:
            if c not in own and any(changed):
                new[c] = _coerce(t, c, CLOCK["NOW"]) if known else UNKNOWN
    return new


def _moves_apart(d: TableData, news: Sequence[tuple[int, Row, Row]], moved: Sequence[str]) -> bool:
    """Whether the unique keys the rows of a multi-row UPDATE move to differ from each other and from every
    key the table holds before the statement: then no order of the scan can clash. An unknown new key is
    taken to clash with nothing, as for a plain INSERT (TableData.conflict)."""
    for k in _assigned_keys(d, moved):
        seen: set[tuple[Value, ...]] = set()
        for _, old, new in news:
            tup, was = d.known_key(k, new), d.known_key(k, old)
            if tup is None or tup == was:
                continue
            if tup in d.index[k] or tup in seen:
                return False
            seen.add(tup)
    return True


def _assigned_keys(d: TableData, moved: Sequence[str]) -> list[int]:
    """The unique keys (by number) an UPDATE assigning ``moved`` may change."""
    return [k for k, cols in enumerate(d.keys) if any(c in moved for c in cols)]


def _certain_clash(d: TableData, news: Sequence[tuple[int, Row, Row]], moved: Sequence[str]) -> bool:
    """Whether a key the UPDATE moves a row to is held by a row it does not match, or is where another
    matched row moves too: then it fails (1062) in any scan order."""
    matched = {i for i, _, _ in news}
    for k in _assigned_keys(d, moved):
        seen: set[tuple[Value, ...]] = set()
        for _, old, new in news:
            try:
                tup, was = d.key_of(k, new), d.key_of(k, old)
            except CannotEvaluate:
                continue
            if tup is None or tup == was:
                continue
            holder = d.index[k].get(tup)
            if (holder is not None and holder not in matched) or tup in seen:
                return True
            seen.add(tup)
    return False


def _keeps(e: exp.Expression, column: str) -> bool:
    """``SET col = col`` (or ``col + 0``, ``col - 0``, ``col * 1``): the old value stays, known or not."""
    if isinstance(e, exp.Add | exp.Sub | exp.Mul):
        unit = "1" if isinstance(e, exp.Mul) else "0"
        if isinstance(e.expression, exp.Literal) and not e.expression.is_string and e.expression.this == unit:
            e = e.this
    return isinstance(e, exp.Column) and e.name.lower() == column.lower()


def _differs(old: Row, new: Row, columns: Sequence[str] | None = None) -> bool:
    """Whether writing ``new`` (its ``columns``, default all) over ``old`` changes the row (an unknown value
    counts as a change; clock readings: moments.same_second)."""
    cols = new.keys() if columns is None else columns
    return any(_changes(old.get(c), new.get(c)) for c in cols)


def _changes(old: Value, new: Value) -> bool:
    if isinstance(new, Cased) and isinstance(old, str):
        a, b = exact_text(old), new.exact
        if a is not None and b is not None:
            return a != b  # both exact texts known: the bytes decide (SET name = 'Alice' over 'alice')
    if isinstance(new, Recased) or (isinstance(new, JsonText) and new is not old):
        return True  # equal under the collation, its bytes may still differ: counted as a change
    if isinstance(old, Moment) and isinstance(new, Moment):
        return not same_second(old, new)
    return opaque(new) or opaque(old) or old != new


def upsert_assignments(tree: exp.Insert) -> list[tuple[str, exp.Expression]] | None:
    """An INSERT's ON DUPLICATE KEY UPDATE assignments (column, value); [] without the clause, None when one
    is not a plain ``column = value``."""
    conflict = tree.args.get("conflict")
    if conflict is None:
        return []
    out = [(e.this.name, e.expression) for e in conflict.expressions
           if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column)]
    return out if len(out) == len(conflict.expressions) else None


def values_rows(tree: exp.Insert, t: Table) -> list[Row] | None:
    """The rows of INSERT/REPLACE ... VALUES or ... SET, by column; None if the column list does not fit."""
    target = tree.this
    if isinstance(target, exp.Schema) and target.expressions:
        cols = [str(c.name).lower() for c in target.expressions]
    else:
        cols = [c.name.lower() for c in t.columns]
    src = tree.expression
    if not isinstance(src, exp.Values):
        return None
    out: list[Row] = []
    for tup in src.expressions:
        vals = tup.expressions if isinstance(tup, exp.Tuple) else [tup]
        if len(vals) != len(cols):
            return None
        row: Row = {}
        for c, v in zip(cols, vals, strict=True):
            if isinstance(v, exp.Var) and v.name.upper() == "DEFAULT":
                continue
            try:
                row[c] = value(v, {})
            except CannotEvaluate:
                row[c] = UNKNOWN
        out.append(row)
    return out
