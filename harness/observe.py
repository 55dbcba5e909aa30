"""Observed records: decode the primary's binlog and attribute every event to the statement behind it.

``observe(executions, primary)`` reads the binlog files of ``primary`` (index order), splits them into groups
and units (``harness.binlog.groups``) and matches units to statements session by session, in order, by text
(``harness.binlog.match``). The rules for ``cache`` and ``group`` are in ``harness/binlog/README.md``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from harness.backends.base import Server
from harness.binlog.bodies import Bodies
from harness.binlog.decoder import read_dir
from harness.binlog.events import Event, RowsKind, TableMap
from harness.binlog.groups import Group, GroupEnd, Unit, UnitKind, split_groups
from harness.binlog.match import Statement, score_rows, score_text, starts_with, template
from harness.execution import Execution
from predictor.analyze import Kind
from predictor.exceptions import BinlogError, ServerError
from predictor.predict import Analyzer
from predictor.records import Cache, Format, RowEvent, RowType, StatementRecord

ColumnNames = Callable[[set[tuple[str, str]]], Mapping[tuple[str, str], tuple[str, ...]]]
"""Looks up column names (table order) of (schema, table) pairs, for Table_maps without names."""

_ROW_TYPE = {RowsKind.WRITE: RowType.WRITE, RowsKind.UPDATE: RowType.UPDATE, RowsKind.DELETE: RowType.DELETE}


_TRX_ONLY = ("savepoint", "rollback")  # SAVEPOINT and ROLLBACK TO always go to the transaction cache
_TRX_BOUNDARIES = frozenset({
    Kind.BEGIN, Kind.COMMIT, Kind.ROLLBACK, Kind.CREATE_TABLE, Kind.CREATE_TABLE_LIKE, Kind.CREATE_TABLE_SELECT,
    Kind.DROP_TABLE, Kind.ALTER_TABLE, Kind.TRUNCATE, Kind.RENAME_TABLE, Kind.CREATE_TRIGGER, Kind.DROP_TRIGGER,
    Kind.CREATE_ROUTINE, Kind.DROP_ROUTINE, Kind.CREATE_VIEW, Kind.DROP_VIEW, Kind.LOCK_TABLES,
})  # end (or start) a transaction: a later group holds nothing from before them


class GroupKind(StrEnum):
    DIRECT = "direct"
    TRX = "trx"
    STMT = "stmt"
    AMBIGUOUS = "ambiguous"  # COMMIT-ended: statement cache or a non-transactional transaction cache


@dataclass(frozen=True)
class ObservedEvent:
    event: Event
    group: int | None
    seq: int | None

    def to_dict(self) -> dict[str, object]:
        return {"seq": self.seq, "group": self.group, **self.event.to_dict()}


@dataclass(frozen=True)
class Observation:
    records: list[StatementRecord]
    events: list[ObservedEvent]

    def write_events(self, path: Path | str) -> int:
        """Write DIR/events.jsonl (``path`` is the directory or the file)."""
        p = Path(path)
        if p.is_dir():
            p = p / "events.jsonl"
        with open(p, "w", encoding="utf-8") as f:
            for e in self.events:
                f.write(json.dumps(e.to_dict(), separators=(",", ":")))
                f.write("\n")
        return len(self.events)


class _Session:
    def __init__(self, name: str) -> None:
        self.name = name
        self.items: list[tuple[Execution, Statement]] = []
        self.trx_from = 0  # first statement that may still appear in a transaction-cache group
        self.stmt_from = 0  # first statement that may still appear in a statement-cache group


class _Attribution:
    def __init__(self, executions: Sequence[Execution]) -> None:
        self.sessions: dict[str, _Session] = {}
        self.by_thread: dict[int, _Session] = {}
        for ex in executions:
            if ex.replica_only:
                continue
            s = self.sessions.setdefault(ex.session, _Session(ex.session))
            s.items.append((ex, Statement(ex.sql)))
            self.by_thread.setdefault(ex.thread_id, s)
        self.units_of: dict[int, list[tuple[Unit, GroupKind]]] = {}  # seq -> units
        self.matched: set[int] = set()
        # stored functions and tables with triggers the workload creates: statements using them may write
        # events whose text is not theirs (the function's / trigger's inner statement)
        self.functions: set[str] = set()
        self.stored_texts: dict[int, set[str]] = {}  # seq -> texts of units given to it by ``fallback``
        self.trigger_tables: set[str] = set()
        self.analyze = Analyzer()
        self._row_kinds: dict[int, frozenset[RowsKind] | None] = {}
        self._undone: dict[tuple[str, int], bool] = {}
        for s in self.sessions.values():
            for _, st in s.items:
                if st.object is not None and st.object[0] == "function":
                    self.functions.add(st.object[1])
                elif st.object is not None and st.object[0] == "trigger":
                    info = self.analyze(st.sql)
                    if info.kind is Kind.CREATE_TRIGGER and info.targets:
                        self.trigger_tables.add(info.targets[0].split(".")[-1].casefold())
        self.bodies = Bodies(self.analyze, (st.sql for s in self.sessions.values() for _, st in s.items
                                            if st.object is not None and st.object[0] in ("function", "procedure")))

    def undone(self, s: _Session, k: int) -> bool:
        """Whether statement ``k`` ran between a SAVEPOINT and a ROLLBACK TO it in one transaction: what it
        wrote was taken back out of the transaction cache (in a group that holds no ROLLBACK TO event)."""
        got = self._undone.get((s.name, k))
        if got is None:
            got = self._undone[(s.name, k)] = self._find_undone(s, k)
        return got

    def _find_undone(self, s: _Session, k: int) -> bool:
        saved: set[str] = set()
        for i in range(k - 1, -1, -1):
            info = self.analyze(s.items[i][1].sql)
            if info.kind in _TRX_BOUNDARIES:
                break
            if info.kind is Kind.SAVEPOINT and info.savepoint and s.items[i][0].error is None:
                saved.add(info.savepoint.casefold())
        if not saved:
            return False
        for j in range(k + 1, len(s.items)):
            info = self.analyze(s.items[j][1].sql)
            if info.kind in _TRX_BOUNDARIES:
                return False
            if info.kind is Kind.ROLLBACK_TO and (info.savepoint or "").casefold() in saved \
                    and s.items[j][0].error is None:
                return True
        return False

    def invoker(self, st: Statement) -> bool:
        """Runs stored code: a CALL, a call of a workload function, a DML on a table with a trigger."""
        if st.is_call or st.calls & self.functions:
            return True
        return st.may_write and st.first[:1] != ("create",) and bool(st.words & self.trigger_tables)

    def fallback(self, s: _Session, start: int, pointer: int | None, text: str | None,
                 stop: int | None = None, kept: bool = True) -> int | None:
        """The statement executing when a unit whose text matches no statement was written.

        Stored code logs its own statements (a CALL's body, one by one, with NAME_CONST for locals) and a
        function's / trigger's inner statement may be the Annotate_rows text: such a unit belongs to the
        invoking statement, the current one (``pointer``, the last matched in the group) if it is a CALL,
        else the next invoker from the frontier, else the current one if it invokes anything. A text the
        candidate already got from stored code means a later invocation: the next candidate takes it.
        ``kept`` False: the group holds no ROLLBACK TO event, so a statement a ROLLBACK TO SAVEPOINT undid
        wrote nothing in it (a CALL that failed, then the retried CALL: airline_booking_app).
        """
        order: list[int] = []
        if pointer is not None and s.items[pointer][1].is_call:
            order.append(pointer)
        current = stop - 1 if stop else None  # fenced: the statement running when the group was written
        if pointer is None and current is not None and current >= start and self.invoker(s.items[current][1]):
            order.append(current)
        first = start if pointer is None else pointer + 1
        order += [k for k in range(first, len(s.items) if stop is None else stop)
                  if self.invoker(s.items[k][1]) and k not in order]
        if pointer is not None and not order and self.invoker(s.items[pointer][1]):
            order.append(pointer)
        if not kept:
            order = [k for k in order if not self.undone(s, k)]
        if text is not None:
            # only a statement whose stored code writes the text's table that way (bodies.py)
            fits = [k for k in order if self.bodies.may_have_written(s.items[k][1].sql, text) is not False]
            order = fits or order
        if not order:
            return None
        key = template(text) if text is not None else None
        for k in order:
            if key is None or key not in self.stored_texts.get(s.items[k][0].seq, set()):
                return k
        return order[0]

    def note_stored(self, s: _Session, k: int, text: str | None) -> None:
        if text is not None:
            self.stored_texts.setdefault(s.items[k][0].seq, set()).add(template(text))

    @staticmethod
    def pre_kind(g: Group) -> GroupKind:
        if g.standalone:
            return GroupKind.DIRECT
        if g.end in (GroupEnd.XID, GroupEnd.ROLLBACK, GroupEnd.XA_PREPARE) or g.transactional:
            return GroupKind.TRX
        return GroupKind.AMBIGUOUS

    def _score(self, u: Unit, st: Statement, prev: Unit | None, prev_seq: int | None, seq: int) -> float:
        if u.text is not None:
            return score_text(u.text, st)
        if u.kind is UnitKind.ROWS:
            if prev is not None and prev.kind is UnitKind.QUERY and prev_seq == seq and \
                    starts_with(prev.text or "", "create"):
                return 3.0  # rows of CREATE ... SELECT follow its CREATE TABLE (no Rows_query text)
            sc = score_rows({t.table.casefold() for t in u.tables.values()}, st)
            allowed = self.row_kinds(seq, st)
            if sc > 0 and allowed is not None and not {r.kind for r in u.rows} <= allowed:
                sc -= 0.5  # an INSERT writes no update rows: these belong to a later statement (shape 11)
            return sc
        return 0.0

    def trx_floor(self, s: _Session, stop: int) -> int:
        """The first statement of the transaction that the statement at ``stop - 1`` ends or runs in: a
        group written then holds nothing from before the last BEGIN / COMMIT / ROLLBACK / implicit commit."""
        for k in range(stop - 2, -1, -1):
            info = self.analyze(s.items[k][0].sql)
            if info.kind in _TRX_BOUNDARIES and not info.temporary:
                return k + 1
        return 0

    def row_kinds(self, seq: int, st: Statement) -> frozenset[RowsKind] | None:
        """The row events the statement itself can write (None: any, e.g. it runs a trigger or routine)."""
        if seq not in self._row_kinds:
            kinds: frozenset[RowsKind] | None = None
            if not self.invoker(st):
                info = self.analyze(st.sql)
                if info.kind is Kind.INSERT and info.on_duplicate is None:
                    kinds = frozenset({RowsKind.WRITE})
                elif info.kind is Kind.UPDATE:
                    kinds = frozenset({RowsKind.UPDATE})
                elif info.kind is Kind.DELETE:
                    kinds = frozenset({RowsKind.DELETE})
            self._row_kinds[seq] = kinds
        return self._row_kinds[seq]

    def _best(self, s: _Session, start: int, u: Unit, prev: Unit | None, prev_seq: int | None,
              in_group: frozenset[int] = frozenset(), stop: int | None = None,
              given: frozenset[tuple[int, str]] = frozenset(), kept: bool = True) -> tuple[float, int] | None:
        best: tuple[float, int] | None = None
        if stop is not None and u.text is not None and start <= stop - 1:
            # the statement running when the group was written, if the text is exactly its own and it has
            # none yet: an earlier statement of the same text that wrote nothing (its rows matched none) must
            # not take it (an autocommitted statement's group holds only its own events)
            ex, st = s.items[stop - 1]
            if ex.seq not in self.matched and not st.is_call and score_text(u.text, st) >= 3.0:
                return 3.0, stop - 1
        for k in range(start, len(s.items) if stop is None else stop):
            ex, st = s.items[k]
            sc = self._score(u, st, prev, prev_seq, ex.seq)
            if sc <= 0 or (not kept and self.undone(s, k)):
                continue
            # prefer a statement not yet seen (repeated identical texts); rows without text only avoid
            # statements already given units of this group (a multi-table UPDATE's T rows come at COMMIT,
            # without Annotate_rows, after its N rows went to an earlier statement-cache group)
            seen = ex.seq in self.matched if u.text is not None else ex.seq in in_group
            # fenced, a statement's rows in one cache end with one STMT_END_F: textless rows right after
            # another rows unit are a new statement's unless a CALL wrote both (one per body statement)
            again = stop is not None and prev is not None and prev.kind is UnitKind.ROWS and \
                u.text is None and not st.is_call
            if seen and (ex.seq != prev_seq or again):
                sc -= 0.1
            elif u.text is not None and (ex.seq, u.text) in given:
                sc -= 0.1  # a statement writes its text once: the same text again is the next like it
            if ex.error is not None and u.kind is UnitKind.QUERY and not u.error_code:
                # a failed statement usually writes nothing: a text logged without an error is rather a later
                # statement of the same text that succeeded (a retried CREATE TEMPORARY TABLE that MySQL
                # first refused with 3748), unless there is none
                sc -= 0.05
            if best is None or sc > best[0]:
                best = (sc, k)
                if sc >= 3.0:
                    break  # an exact, unmatched text: nothing later can score higher (earliest wins ties)
        threshold = 2.0 if u.text is not None else 1.0
        return best if best is not None and best[0] >= threshold - 0.1 else None

    def _start(self, s: _Session, kind: GroupKind) -> int:
        if kind is GroupKind.TRX:
            return s.trx_from
        if kind is GroupKind.STMT:
            return s.stmt_from
        return min(s.trx_from, s.stmt_from)

    def group(self, g: Group, flush: Execution | None = None) -> dict[int, int | None]:
        """Attribute the units of ``g``; returns unit id -> seq."""
        kind = self.pre_kind(g)
        out: dict[int, int | None] = {}
        session = self.by_thread.get(g.thread_id) if g.thread_id is not None else None
        stop: int | None = None
        if flush is not None and not flush.replica_only and (
                g.thread_id is None if session is None else session.name == flush.session):
            # the statement running when the group was written: its session, and nothing after it
            session = self.sessions.get(flush.session, session)
            if session is not None:
                stop = next((k + 1 for k in range(len(session.items) - 1, -1, -1)
                             if session.items[k][0].seq <= flush.seq), 0)
                if kind is not GroupKind.DIRECT:
                    floor = self.trx_floor(session, stop)
                    session.trx_from = max(session.trx_from, floor)
                    session.stmt_from = max(session.stmt_from, floor)
        if g.thread_id is not None and session is None:
            # a thread outside the workload: harness setup, or MariaDB's delayed-insert handler
            return self.delayed(g) or {id(u): None for u in g.units}
        pointer: int | None = None
        prev: Unit | None = None
        prev_seq: int | None = None
        matched_idx: list[int] = []
        given: set[tuple[int, str]] = set()  # (seq, text) of the units given so far in this group
        # an XID-ended group without a ROLLBACK TO: what a ROLLBACK TO SAVEPOINT undid was cut out of it (a
        # statement-cache group, or one that logs the ROLLBACK TO, keeps every statement's events)
        kept = kind is not GroupKind.TRX or any(u.text is not None and starts_with(u.text, "rollback")
                                                 for u in g.units)
        stored_idx: set[int] = set()  # CALLs given body units (an autocommit CALL writes more groups)
        for u in g.units:
            if session is None:
                # no thread id in the group (MariaDB row-only transaction): the best session by text, then seq
                cands: list[tuple[float, int, _Session, int]] = []
                for s in self.sessions.values():
                    r = self._best(s, self._start(s, kind), u, prev, prev_seq, kept=kept)
                    if r is not None:
                        cands.append((r[0], -s.items[r[1]][0].seq, s, r[1]))
                if not cands:
                    for s in self.sessions.values():
                        fk = self.fallback(s, self._start(s, kind), None, u.text)
                        if fk is not None:
                            cands.append((0.0, -s.items[fk][0].seq, s, fk))
                if not cands:
                    out[id(u)] = None
                    continue
                sc, _, session, k = max(cands, key=lambda c: (c[0], c[1]))
                if sc == 0.0:
                    self.note_stored(session, k, u.text)
                    if session.items[k][1].is_call:
                        stored_idx.add(k)
            else:
                start = self._start(session, kind) if pointer is None else pointer
                in_group = frozenset(session.items[k][0].seq for k in matched_idx)
                r = self._best(session, start, u, prev, prev_seq, in_group, stop, frozenset(given), kept)
                fk = self.fallback(session, start, pointer, u.text, stop, kept) if r is None else r[1]
                if fk is None:
                    out[id(u)] = None
                    prev, prev_seq = u, None
                    continue
                k = fk
                if r is None:
                    self.note_stored(session, k, u.text)
                    if session.items[k][1].is_call:
                        stored_idx.add(k)
            pointer = k
            seq = session.items[k][0].seq
            out[id(u)] = seq
            if u.text is not None:
                given.add((seq, u.text))
            matched_idx.append(k)
            prev, prev_seq = u, seq
        if session is not None and matched_idx:
            final = self.final_kind(g, kind, [session.items[k][0] for k in sorted(set(matched_idx))],
                                    [u for u in g.units if out.get(id(u)) is not None])
            last = max(matched_idx) + (0 if max(matched_idx) in stored_idx else 1)
            if final is GroupKind.STMT:
                session.stmt_from = max(session.stmt_from, last)
            else:
                session.trx_from = max(session.trx_from, last)
                session.stmt_from = max(session.stmt_from, last)
            for u in g.units:
                useq = out.get(id(u))
                if useq is not None:
                    self.units_of.setdefault(useq, []).append((u, final))
                    self.matched.add(useq)
        return out

    def delayed(self, g: Group) -> dict[int, int | None] | None:
        """A group MariaDB's delayed-insert thread wrote (its own thread id) for the first INSERT DELAYED
        without events whose text, or whose table for rows without text, matches every unit."""
        for s in self.sessions.values():
            for ex, st in s.items:
                if ex.seq in self.matched:
                    continue
                info = self.analyze(ex.sql)
                if not info.delayed:
                    continue
                tables = {w.table.casefold() for w in info.writes}
                if g.units and all(score_text(u.text, st) >= 2.5 if u.text is not None else
                                   {t.table.casefold() for t in u.tables.values()} <= tables for u in g.units):
                    self.matched.add(ex.seq)
                    self.units_of.setdefault(ex.seq, []).extend((u, GroupKind.STMT) for u in g.units)
                    return {id(u): ex.seq for u in g.units}
        return None

    @staticmethod
    def final_kind(g: Group, kind: GroupKind, stmts: list[Execution], units: list[Unit]) -> GroupKind:
        """Resolve a COMMIT-ended group: statement cache or transaction cache (README "cache")."""
        if kind is not GroupKind.AMBIGUOUS:
            return kind
        if len(stmts) > 1:
            return GroupKind.TRX  # the statement cache holds one statement
        if any(u.kind is UnitKind.QUERY and starts_with(u.text or "", *_TRX_ONLY) for u in units):
            return GroupKind.TRX
        ex = stmts[0]
        if ex.stmt_cache_use is not None:
            return GroupKind.STMT if ex.stmt_cache_use > 0 else GroupKind.TRX
        if starts_with(ex.sql, "create"):
            return GroupKind.TRX  # CREATE ... SELECT goes through the transaction cache
        return GroupKind.STMT


class _Fences:
    """Which statement was running when a group was written, from each execution's ``binlog_end``."""

    def __init__(self, executions: Sequence[Execution]) -> None:
        self.ends = [(ex.binlog_end, ex) for ex in executions if ex.binlog_end is not None and not ex.replica_only]

    def flush(self, evs: Sequence[Event], g: Group) -> Execution | None:
        if not self.ends or not g.events:
            return None
        last = evs[g.events[-1]]
        end = (last.file, last.end_pos)
        lo, hi = 0, len(self.ends)
        while lo < hi:  # the first execution whose binlog end is at or after the group's end
            mid = (lo + hi) // 2
            if self.ends[mid][0] < end:
                lo = mid + 1
            else:
                hi = mid
        return self.ends[lo][1] if lo < len(self.ends) else None


def information_schema_columns(server: Server) -> ColumnNames:
    """Column names from the primary's information_schema (tables dropped since are not found)."""

    def lookup(tables: set[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, ...]]:
        import pymysql

        if not tables:
            return {}
        try:
            conn = pymysql.connect(host=server.host, port=server.port, user=server.user,
                                   password=server.password, connect_timeout=10)
        except pymysql.err.Error as e:
            raise ServerError(f"cannot read column names: {e}", server=f"{server.host}:{server.port}") from e
        out: dict[tuple[str, str], list[str]] = {}
        try:
            with conn.cursor() as cur:
                cond = " OR ".join(["(TABLE_SCHEMA=%s AND TABLE_NAME=%s)"] * len(tables))
                args = [x for t in sorted(tables) for x in t]
                cur.execute("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS"
                            f" WHERE {cond} ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION", args)
                for schema, table, col in cur.fetchall():
                    out.setdefault((str(schema), str(table)), []).append(str(col))
        finally:
            conn.close()
        return {k: tuple(v) for k, v in out.items()}

    return lookup


def _names(tm: TableMap, cols: tuple[int, ...], fallback: Mapping[tuple[str, str], tuple[str, ...]]
           ) -> tuple[str, ...]:
    names = tm.column_names
    if names is None:
        known = fallback.get((tm.schema, tm.table))
        if known is not None and len(known) == len(tm.column_types):
            names = known
    if names is None:
        return tuple(f"@{i + 1}" for i in cols)  # the numbering mariadb-binlog prints
    return tuple(names[i] for i in cols)


def observe(executions: Sequence[Execution], primary: Server, *, start: tuple[str, int] | None = None,
            columns: ColumnNames | None = None) -> Observation:
    """Records for ``executions`` from ``primary``'s binlog.

    ``start`` = (file name, position) where the workload's binlog begins (default: the first file's start);
    groups are counted from there. ``columns`` resolves names for Table_maps without them
    (binlog_row_metadata=FULL makes it unnecessary); default: the primary's information_schema.
    """
    try:
        events = list(read_dir(primary.binlog_dir()))
    except BinlogError as e:
        e.server = e.server or f"{primary.flavor.value} {primary.host}:{primary.port}"
        raise
    return observe_events(executions, events, start=start,
                          columns=columns or information_schema_columns(primary))


def observe_events(executions: Sequence[Execution], events: Sequence[Event], *,
                   start: tuple[str, int] | None = None, columns: ColumnNames | None = None) -> Observation:
    """``observe`` on already decoded events (for tests and offline use)."""
    if start is not None:
        files = [e.file for e in events]
        if start[0] not in files:
            raise BinlogError(f"start {start[0]}:{start[1]} is not in the binlog")
        first = files.index(start[0])
        events = [e for k, e in enumerate(events) if k >= first and (e.file != start[0] or e.pos >= start[1])]
    evs, groups, group_of = split_groups(events)
    att = _Attribution(executions)
    fences = _Fences(executions)
    seq_of_event: list[int | None] = [None] * len(evs)
    for g in groups:
        out = att.group(g, fences.flush(evs, g))
        for u in g.units:
            seq = out.get(id(u))
            for i in u.events:
                seq_of_event[i] = seq

    # column names for Table_maps without them
    need = {(tm.schema, tm.table) for units in att.units_of.values() for u, _ in units
            for tm in u.tables.values() if tm.column_names is None}
    fallback = columns(need) if (need and columns is not None) else {}

    records: list[StatementRecord] = []
    for ex in executions:
        units = att.units_of.get(ex.seq, [])
        records.append(_record(ex, units, evs, fallback))
    observed = [ObservedEvent(e, group_of[i], seq_of_event[i]) for i, e in enumerate(evs)]
    return Observation(records, observed)


def _record(ex: Execution, units: list[tuple[Unit, GroupKind]], evs: list[Event],
            fallback: Mapping[tuple[str, str], tuple[str, ...]]) -> StatementRecord:
    def record(**kw: object) -> StatementRecord:
        return StatementRecord(seq=ex.seq, session=ex.session, sql=ex.sql, error=ex.error,
                               warnings=ex.warning_codes, unsafe=ex.unsafe, warnings_unread=ex.warnings_unread,
                               **kw)  # type: ignore[arg-type]

    if ex.replica_only:
        return record(reason="ran on the replica only")
    content = [(u, k) for u, k in units if u.events]
    if not content:
        return record()
    has_rows = any(u.rows for u, _ in content)
    fmt = Format.ROW if has_rows else Format.STATEMENT
    group = min(u.group for u, _ in content)
    kinds = {k for u, k in content}
    row_kinds = {k for u, k in content if u.rows}
    if GroupKind.TRX in row_kinds and GroupKind.STMT in row_kinds:
        cache = Cache.MIXED
    elif has_rows and (ex.trx_cache_use or 0) > 0 and (ex.stmt_cache_use or 0) > 0:
        cache = Cache.MIXED  # autocommit: both caches flushed at the statement's end into one group
    else:
        first = min(content, key=lambda c: c[0].group)[1]
        cache = {GroupKind.DIRECT: Cache.DIRECT, GroupKind.TRX: Cache.TRX, GroupKind.STMT: Cache.STMT,
                 GroupKind.AMBIGUOUS: Cache.STMT}[first]
        if GroupKind.TRX in kinds and GroupKind.STMT in kinds:
            cache = Cache.MIXED
    agg: dict[tuple[str, RowType], tuple[set[int], set[int], TableMap]] = {}
    for u, _ in content:
        for r in u.rows:
            tm = u.tables.get(r.table_id)
            if tm is None:  # the Table_map came in an earlier unit of the group
                tm = next((x.tables[r.table_id] for x, _ in content if r.table_id in x.tables), None)
            if tm is None:
                raise BinlogError(f"no Table_map for rows of table id {r.table_id} at {r.file}:{r.pos}",
                                  statement=ex.sql)
            key = (r.table, _ROW_TYPE[r.kind])
            b, a, _ = agg.setdefault(key, (set(), set(), tm))
            b.update(r.before)
            a.update(r.after)
    row_events = tuple(RowEvent(table, rt, _names(tm, tuple(sorted(b)), fallback),
                                _names(tm, tuple(sorted(a)), fallback))
                       for (table, rt), (b, a, tm) in agg.items())
    return record(format=fmt, cache=cache, group=group, row_events=row_events)
