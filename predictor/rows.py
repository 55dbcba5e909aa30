"""What the tracked rows decide for a DML statement: duplicate keys, which rows a WHERE or a join selects,
what REPLACE / ON DUPLICATE KEY UPDATE and the statement's triggers change (predictor/data.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from sqlglot import exp

from predictor import fresh, ranges, triggers, views
from predictor.analyze import SELF_READ, SETS_INSERT_ID, Kind, Op, StatementInfo
from predictor.catalog import ForeignKey, Table
from predictor.codes import ER_BAD_NULL, ER_WARNING_NOT_COMPLETE_ROLLBACK
from predictor.data import SKIPPED, Mode, Pair, Refused, WriteOutcome, upsert_assignments, values_rows
from predictor.evaluate import UNKNOWN, UNKNOWN_NAME, CannotEvaluate, Row, value
from predictor.foreign import ER_NO_REFERENCED_ROW, ER_ROW_IS_REFERENCED, missing_parent, referenced
from predictor.images import images, upsert_images
from predictor.joined import Selected, assignments_to, selected
from predictor.literals import UNSURE, Unsure, literal_rows
from predictor.outcome import Outcome
from predictor.parse import Parsed, parse
from predictor.query import Source, resolved, select_rows
from predictor.resolve import lookup, with_trigger_columns
from predictor.routines import inline_functions
from predictor.session import Piece, SessionState
from predictor.strict import CHECK_FAILED, INVALID_JSON, Issue, issues, time_dropped
from predictor.triggers import Changed
from predictor.undo import Saved, Undo, restore
from predictor.variables import bind

if TYPE_CHECKING:
    from predictor.engine import Predictor


def with_key_checks(p: Predictor, sql: str, info: StatementInfo, s: SessionState, out: Outcome) -> Outcome:
    """What the rows of tracked tables decide: duplicate keys (1062, partial inserts, IGNORE'd rows) and the
    writes, updates and deletes of REPLACE and ON DUPLICATE KEY UPDATE."""
    if not s.temp_tables and not p.data.fed and _plain(p, info, s) and (
            info.kind is Kind.INSERT or info.kind is Kind.REPLACE or ("@" not in sql and "NULL" not in sql
                                                                     and "null" not in sql)):
        tables = p.data.tables
        for name in info.write_names:
            d = tables.get(name)
            if d is not None and d.tracked:
                break
        else:  # nothing it writes is followed, and nothing about the statement asks the data model
            if id(info) not in p.data.unfollowed:
                fresh.note_unfollowed(p, info, s)
            return out
    if SETS_INSERT_ID in info.extra:
        s.last_insert_id = UNKNOWN  # unless the data model follows the row (_key_checks)
    prior = s.last_insert_id
    kind = info.kind
    if p.catalog.views and out.error is None and info.write_names and info.write_names[0] in p.catalog.views:
        code = views.not_updatable(p, info) if len(info.writes) == 1 else None
        if code is None and (kind is Kind.UPDATE or kind is Kind.INSERT):
            code = views.check_option(p, sql, info, s)
        if code is not None:
            return _failed(out, code)
    if kind is Kind.UPDATE or kind is Kind.DELETE:
        if not info.multi_table and ranges.nothing_to_do(p, sql, info, s):
            return replace(out, logged=False, stmt_cache=(), trx=(), row_writes=())
        if out.row_format and fresh.matches_nothing(p, sql, info, s):  # a retention statement: no row is old
            return replace(_without_rows(out, lambda name: True), row_writes=())
    elif _may_generate_id(p, info, s):
        s.last_insert_id = UNKNOWN  # unless _write_rows follows the rows the statement wrote
    fired: dict[str, Changed | None] = {}
    if not _watched(p, info, s):  # nothing it writes is tracked (the common case of a big workload)
        if (kind is Kind.INSERT or kind is Kind.REPLACE) and len(info.writes) == 1 and out.error is None:
            out = _checked_unfollowed(p, sql, info, s, out, prior)
        if s.temp_tables or id(info) not in p.data.unfollowed:
            fresh.note_unfollowed(p, info, s)
    else:
        saved = _before_triggers(p, info, s)
        try:
            out = _key_checks(p, sql, info, s, out, fired, prior)
        except triggers.Signalled as sig:  # a trigger's SIGNAL: the statement fails, its changes are undone
            restore(saved, p.data, p.rows)
            if sig.before and sig.row == 0 and kind in (Kind.INSERT, Kind.REPLACE):
                _give_back_auto_increment(p, info, s, saved)
            s.last_insert_id = prior
            s.rows_changed = None
            return _failed(out, _code(p, sig.code), p.profile.ROUTINE_ERROR_NOTE if sig.raised_in_body else None)
        fresh.note_writes(p, info, s)  # a table its rows stopped being followed in, or one that was not
    if fired and all(c is not None for c in fired.values()) and all(
            w.table.lower() in fired or not _has_triggers(p, w.table, s) for w in info.writes):
        out = _idle_triggers(p, s, info, out, fired)
    ran = p.ran
    if out.row_format and ran is not None and ran.sql == sql and ran.changed is not None:
        own = {w.table.lower() for w in info.writes}
        for name, u in ran.changed.upserts.items():  # a function's counter upsert that found its row: an update
            if name not in own:
                out = _upserted_rows(p, s, out, name, u)
    if p.data.fed:  # then what the triggers the statement fires update, and were not run, is unknown
        events = _EVENTS.get(info.kind, frozenset())
        if info.kind is Kind.INSERT and info.on_duplicate is not None:
            events = events | {"UPDATE"}
        for w in info.writes:
            if fired.get(w.table.lower()) is None:
                # a failed statement on a transactional table is undone with what its triggers did to such
                # tables: only the non-transactional ones keep their changes
                undone = out.error is not None and _transactional(p, w.table, s)
                p.data.fire(w.table, events, (lambda name: not _transactional(p, name, s)) if undone else None,
                            _changing(p, info, w.table, w.columns, s))
    return out


def _changing(p: Predictor, info: StatementInfo, table: str, columns: Sequence[str] | None,
              s: SessionState) -> frozenset[str] | None:
    """The columns of ``table`` an UPDATE may change: those it sets, those its BEFORE UPDATE triggers may
    set, ON UPDATE CURRENT_TIMESTAMP and generated ones; None for another statement (any column)."""
    t = lookup(table, p.catalog, s)
    if info.kind is not Kind.UPDATE or columns is None or t is None:
        return None
    return triggers.update_sets(t, columns)


def _plain(p: Predictor, info: StatementInfo, s: SessionState) -> bool:
    """Whether no check of with_key_checks but the rows of followed tables applies to the statement: no view,
    no CHECK / JSON column, no auto-increment, no clock-reading retention WHERE (the hot path of a big
    workload). Per analysis and catalog version; only asked when the session has no temporary tables."""
    key = (id(info), p.catalog.version)
    known = p.plain.get(key)
    if known is None:
        known = p.plain[key] = _plain_now(p, info, s)
        p.memo_infos[id(info)] = info  # keep the info alive while its id is part of a key
    return known


def _plain_now(p: Predictor, info: StatementInfo, s: SessionState) -> bool:
    if not info.writes or SETS_INSERT_ID in info.extra or any(w.table.lower() in p.catalog.views for w in info.writes):
        return False
    if info.kind is Kind.UPDATE or info.kind is Kind.DELETE:
        return bool(info.multi_table) or not fresh.CLOCKS.intersection(info.functions)
    if info.kind is not Kind.INSERT and info.kind is not Kind.REPLACE:
        return False
    found = [lookup(w.table, p.catalog, s) for w in info.writes]
    return all(t is not None and t.auto_increment is None and not t.checks_values
               and not (t.foreign_keys and info.kind is Kind.INSERT) for t in found)


def _give_back_auto_increment(p: Predictor, info: StatementInfo, s: SessionState, saved: Undo) -> None:
    """A BEFORE INSERT trigger's SIGNAL on the first row: the row was never written, so its table's
    auto-increment value was never taken (both servers take it when the row is written; insurance_claims_app:
    the next claim got the id the refused one would have had)."""
    t = lookup(info.writes[0].table, p.catalog, s)
    kept = saved.get(t.ident) if t is not None else None
    now = p.data.tables.get(t.ident) if t is not None else None
    if kept is not None and kept.data is not None and now is not None:
        now.next_auto = kept.data.next_auto


def _transactional(p: Predictor, name: str, s: SessionState) -> bool:
    t = lookup(name, p.catalog, s)
    return t is not None and p.profile.engine(t.engine).transactional


def _before_triggers(p: Predictor, info: StatementInfo, s: SessionState) -> Undo:
    """The tables a statement and the triggers it fires may change, as they are (a SIGNAL puts them back)."""
    names: set[str] = set()
    for w in info.writes:
        t = lookup(w.table, p.catalog, s)
        if t is None or not t.triggers:
            continue
        names.add(t.ident)
        for tr in t.triggers:
            names.update(x.ident for body in tr.body for bw in body.writes
                         if (x := lookup(bw.table, p.catalog, s)) is not None)
    return {n: Saved(d.copy() if (d := p.data.tables.get(n)) is not None else None, p.rows.get(n)) for n in names}


def _may_generate_id(p: Predictor, info: StatementInfo, s: SessionState) -> bool:
    """Whether the statement may change LAST_INSERT_ID(): an INSERT into a table with an auto-increment."""
    if info.kind not in (Kind.INSERT, Kind.REPLACE, Kind.LOAD) or s.last_insert_id is UNKNOWN:
        return False
    key = (id(info), p.catalog.version)
    known = p.id_writers.get(key) if not s.temp_tables else None
    if known is None:
        known = any((t := lookup(w.table, p.catalog, s)) is None or t.auto_increment is not None for w in info.writes)
        if not s.temp_tables:  # the names then mean the same tables in every session
            p.id_writers[key] = known
            p.memo_infos[id(info)] = info  # keep the info alive while its id is part of a key
    return known


def _watched(p: Predictor, info: StatementInfo, s: SessionState) -> bool:
    """Whether a table the statement writes is tracked: DataModel.watching, inlined for the hot path."""
    tables = p.data.tables
    if s.temp_tables:
        return any((d := tables.get(s.ident(w.table))) is not None and d.tracked for w in info.writes)
    for name in info.write_names:
        d = tables.get(name)
        if d is not None and d.tracked:
            return True
        if p.catalog.views and name in p.catalog.views and any(p.data.watching(b) for b in views.bases(p, name)):
            return True  # a write through a view: its base table's rows
    return False


def _has_triggers(p: Predictor, name: str, s: SessionState) -> bool:
    t = lookup(name, p.catalog, s)
    return t is not None and bool(t.triggers)


def parsed(p: Predictor, sql: str, s: SessionState) -> Parsed:
    """The statement the data model evaluates: its calls of stored functions that only RETURN an integer
    expression are inlined (predictor/routines.py), the session's known user variables and LAST_INSERT_ID()
    put in (predictor/variables.py)."""
    tree = parse(sql)
    if not isinstance(tree, exp.Expression):
        return tree
    tree = _inlined(p, bind(tree, s, p.catalog.hidden_user_vars()))
    ran = p.results(sql)  # the calls of functions that write: what they returned (engine.run_functions)
    return ran(tree) if ran is not None else tree


def _inlined(p: Predictor, tree: exp.Expression) -> exp.Expression:
    """``tree`` with its calls of stored functions that only compute inlined (predictor/routines.py)."""
    return inline_functions(tree, p.function_text) if p.catalog.has_functions() else tree


def _fire(p: Predictor, s: SessionState, info: StatementInfo, t: Table, event: str, pairs: list[Pair] | None,
          fired: dict[str, Changed | None], dup_fails: bool = False) -> None:
    """Run ``t``'s ``event`` triggers on the rows the statement wrote (predictor/triggers.py)."""
    if pairs is None or not any(tr.event.upper() == event for tr in t.triggers):
        return
    used = frozenset(r.lower() for r in info.reads) | frozenset(info.write_names)
    progress = [0]
    w = next((w for w in info.writes if w.table.lower() == t.name.lower()), None)
    changing = _changing(p, info, t.name, w.columns, s) if w is not None and event == "UPDATE" else None
    got = fired[t.name.lower()] = triggers.run(
        p.data, t, event, pairs, lambda name: lookup(name, p.catalog, s), lambda x: p.journal(s, x),
        lambda body: _bound_body(p, s, body), dup_fails, used, writer=p.writing_function, progress=progress,
        changing=changing)
    if got is None:
        _forget_set_new(p, t, event, pairs[progress[0]:])


def _forget_set_new(p: Predictor, t: Table, event: str, pairs: list[Pair]) -> None:
    """The triggers were not followed: the columns a BEFORE trigger's ``SET NEW.c`` gives the rows written are
    unknown (telecom_mvno_app's CDRs take their sub_id from the subscriber a trigger looks up)."""
    columns = {c for tr in t.triggers if tr.event.upper() == event and tr.timing.upper() == "BEFORE"
               for c in triggers.set_new_columns(tr.text)}
    d = p.data.tables.get(t.ident)
    if not columns or d is None or not d.tracked:
        return
    if any(c in columns for k in d.keys for c in k):
        d.tracked = False  # a key the trigger may have changed: the index would not say
        return
    written = {id(new) for _, new in pairs if new is not None}
    d.set_unknown(sorted(columns), {i for i, r in enumerate(d.rows) if r is not None and id(r) in written})


def _bound_body(p: Predictor, s: SessionState, body: exp.Expression) -> exp.Expression:
    """A trigger body with the session's known user variables put in, and its calls of stored functions
    that only compute inlined (``SET NEW.copay = fn_copay(...)``: pharmacy_chain_app)."""
    return _inlined(p, bind(body, s))


def _fire_upsert(p: Predictor, s: SessionState, info: StatementInfo, t: Table, pairs: list[Pair] | None,
                 fired: dict[str, Changed | None]) -> list[str] | None:
    """ON DUPLICATE KEY UPDATE: row by row, the INSERT triggers of a row written, the UPDATE triggers of a row
    it updated (changed or not, but on MariaDB 11.8 changed: odku_triggers.sql). Returns the trigger events
    run, first run first."""
    if pairs is None:
        return None
    order: list[str] = []
    total: Changed | None = Changed({w.table.lower(): 0 for tr in t.triggers if tr.event.upper() in ("INSERT", "UPDATE")
                                     for body in tr.body for w in body.writes})
    for pair in pairs:
        if pair[0] is not None and pair[0] == pair[1] and not p.profile.UPSERT_KEPT_ROW_FIRES_UPDATE:
            continue
        event = "INSERT" if pair[0] is None else "UPDATE"
        if event not in order:
            order.append(event)
        _fire(p, s, info, t, event, [pair], fired)
        got = fired.pop(t.name.lower(), Changed())
        if got is None or total is None:
            total = None
        else:
            triggers.merge(total, got)
    if any(tr.event.upper() in ("INSERT", "UPDATE") for tr in t.triggers):
        fired[t.name.lower()] = total
    return order


def _in_firing_order(out: Outcome, order: list[str]) -> Outcome:
    """An upsert's trigger rows as its triggers ran: those of an event no row fired dropped, the rest in the
    order their events first fired. Rows of one table with other columns go to another event, and the
    statement's record keeps the first (a MINIMAL image: odku_triggers.sql)."""
    def ordered(pieces: tuple[Piece, ...]) -> tuple[Piece, ...]:
        kept = [x for x in pieces if not x.event or x.event in order]
        first = sorted((x for x in kept if x.event), key=lambda x: order.index(x.event))
        at = iter(first)
        return tuple(x if not x.event else next(at) for x in kept)

    return replace(out, stmt_cache=ordered(out.stmt_cache), trx=ordered(out.trx))


def _idle_triggers(p: Predictor, s: SessionState, info: StatementInfo, out: Outcome,
                   fired: dict[str, Changed | None]) -> Outcome:
    """Row format: a table the statement's triggers changed no row of has no row events; one their ON
    DUPLICATE KEY UPDATE changed rows of has update events (``_upserted_rows``)."""
    if not out.row_format:
        return out
    total = Changed()
    for changed in fired.values():
        if changed is not None:
            triggers.merge(total, changed)
    own = {w.table.lower() for w in info.writes}
    for name, u in total.upserts.items():
        if name not in own:
            out = _upserted_rows(p, s, out, name, u)
    idle = {k for k, n in total.items() if n == 0 and k not in own}
    if not idle:
        return out
    return _without_rows(out, lambda name: name.lower() in idle)


def _upserted_rows(p: Predictor, s: SessionState, out: Outcome, name: str, u: triggers.Upsert) -> Outcome:
    """A trigger's INSERT ... ON DUPLICATE KEY UPDATE into ``name``: its write event only if it wrote rows,
    an update event (after it, as the binlog has them) if it changed some, with an upsert's images."""
    t = lookup(name, p.catalog, s)
    if t is None:
        return out

    def pieces(cache: tuple[Piece, ...]) -> tuple[Piece, ...]:
        mine = next((x for x in cache if x.rows and x.type == "write" and x.table.lower() == name), None)
        if mine is None:
            return cache
        add: list[Piece] = []
        if u.written:
            before, after = _upsert_write(p, t, u.columns, u.assigned, s.row_image, False, True)
            add.append(replace(mine, before=before, after=after))
        if u.updated:
            before, after = upsert_images(t, u.columns, u.assigned, s.row_image, p.profile, False)
            add.append(replace(mine, before=before, after=after, type="update"))
        at = cache.index(mine)
        return cache[:at] + tuple(add) + cache[at + 1:]

    return replace(out, stmt_cache=pieces(out.stmt_cache), trx=pieces(out.trx))


def _without_rows(out: Outcome, dropped: Callable[[str], bool]) -> Outcome:
    """``out`` without the row events of the tables ``dropped`` accepts (they changed no row)."""
    stmt_cache = tuple(x for x in out.stmt_cache if not (x.rows and dropped(x.table)))
    trx = tuple(x for x in out.trx if not (x.rows and dropped(x.table)))
    return replace(out, stmt_cache=stmt_cache, trx=trx, logged=bool(stmt_cache or trx))


def _key_checks(p: Predictor, sql: str, info: StatementInfo, s: SessionState, out: Outcome,
                fired: dict[str, Changed | None], prior: object) -> Outcome:
    if info.kind in (Kind.INSERT, Kind.REPLACE) and len(info.writes) == 1:
        return _write_rows(p, sql, info, s, out, fired, prior)
    untouched: list[bool] = []  # per written table: no row changed (or matched: MULTI_UPDATE_STMT_CACHE_WHEN)
    multi = info.multi_table
    for w in info.writes:
        t = lookup(w.table, p.catalog, s)
        shown: exp.Expression | None = None  # a view's WHERE: the rows the statement can reach
        if t is None:
            through = _through_view(p, w.table, s, info)
            if through is None:
                continue
            t, shown = through
        p.journal(s, t)
        if info.kind in (Kind.DELETE, Kind.UPDATE) and p.data.tracked(t) is not None and p.data.may_parse():
            tree = parsed(p, sql, s)
            multi = multi or (p.profile.SEMI_JOIN_UPDATE_IS_MULTI and _semi_join(tree)) or (
                p.profile.SELF_READ_UPDATE_IS_MULTI and info.kind is Kind.UPDATE and SELF_READ in info.extra)
            where = tree.args.get("where") if isinstance(tree, (exp.Delete, exp.Update)) else None
            if shown is not None:
                where = exp.Where(this=exp.and_(shown.copy(), where.this) if where is not None else shown.copy())
            cond = resolved(where.this, lambda name: table_source(p, name, s)) if where is not None else None
            chosen = _selected(p, tree, t, s) if info.multi_table and isinstance(tree, exp.Expression) else None
            positions, joined = chosen if chosen is not None else (None, None)
            if info.multi_table and positions is None:
                # a join the model cannot follow: the rows its own conditions do not rule out may be changed
                own = _own_conditions(tree, t, where.this if where is not None else None) \
                    if isinstance(tree, exp.Expression) else None
                unknown_rows = exp.Anonymous(this=UNKNOWN_NAME)
                cond = exp.And(this=own, expression=unknown_rows) if own is not None else unknown_rows
            pairs: list[Pair] | None = [] if t.triggers else None
            order = tree.args.get("order") if isinstance(tree, (exp.Delete, exp.Update)) else None
            # LIMIT p_batch (a parameter, a user variable): the bound value
            limit = info.limit if info.limit != -1 or not isinstance(tree, exp.Expression) else _limit(tree)
            by = order.expressions if isinstance(order, exp.Order) else ()
            if isinstance(tree, exp.Delete):
                if checks_foreign_keys(p, t, s) and p.catalog.children(t.name):
                    doomed = p.data.selected(t, cond, limit, positions, by)
                    refused, cascaded = referenced(p.data, p.catalog, t, doomed, lambda c: p.journal(s, c)) \
                        if doomed else (False, [])
                    if refused and len(info.writes) == 1:
                        if pairs is not None:  # BEFORE DELETE triggers run first: their SIGNAL wins (1644)
                            saved = _before_triggers(p, info, s)
                            p.data.delete_where(t, cond, limit, positions, pairs, by)
                            _fire(p, s, info, t, "DELETE", pairs, fired)
                            restore(saved, p.data, p.rows)
                        return _failed(out, ER_ROW_IS_REFERENCED)
                    if cascaded and p.profile.FK_CASCADES_LOGGED and out.row_format:
                        out = _cascade_pieces(p, s, out, t, cascaded)
                changed = p.data.delete_where(t, cond, limit, positions, pairs, by)
                _fire(p, s, info, t, "DELETE", pairs if changed is not None else None, fired)
            elif isinstance(tree, exp.Update):
                sets = [(c, resolved(e, lambda name: table_source(p, name, s))) for c, e in assignments_to(tree, t)]
                try:
                    res = p.data.update_where(t, cond, sets, limit, ignore=info.ignore,
                                              scan_order=p.profile.UPDATE_IGNORE_CLASHES_IN_SCAN_ORDER,
                                              positions=positions, pairs=pairs, order=by, joined=joined,
                                              strict=s.strict(p.profile.engine(t.engine).transactional, 0))
                except Refused as refused:
                    if len(info.writes) == 1 and (refused.first or p.profile.engine(t.engine).transactional):
                        return _failed(out, _code(p, refused.code), _note(p, refused.code))
                    p.data.forget(t.ident)  # rows before the refused one stay changed: which ones is not followed
                    continue
                changed = None if res is None else res[0]
                if SETS_INSERT_ID in info.extra and len(info.writes) == 1 and res is not None \
                        and res.insert_id is not None:
                    s.last_insert_id = res.insert_id
                _fire(p, s, info, t, "UPDATE", pairs if res is not None else None, fired, not info.ignore)
                ran = fired.get(t.name.lower())
                if changed == 0 and ran is not None and ran.reworked:
                    changed = ran.reworked  # a BEFORE trigger changed what the SET left as it was (a version)
                if res is not None and res.warnings:
                    out = replace(out, warnings=out.warnings | res.warnings)
                if res is not None and res[1]:
                    if p.profile.UPDATE_IGNORE_DUP_WARNING:
                        out = replace(out, warnings=out.warnings | {p.profile.UPDATE_IGNORE_DUP_WARNING})
            elif info.kind is Kind.UPDATE and w.columns is not None:
                p.data.changed_columns(t, w.columns)  # a routine's body statement: the text is the CALL's
                continue
            else:
                p.data.forget(t.ident)
                continue
            if len(info.writes) == 1:
                s.rows_changed = changed  # ROW_COUNT(): changed rows, not matched ones
            matched = res[2] if isinstance(tree, exp.Update) and res is not None else changed
            # (10.11 counts a table with a CHECK constraint or an ON UPDATE column once it changed a row:
            # multi_update_unchanged_checked.sql)
            by_match = p.profile.MULTI_UPDATE_STMT_CACHE_WHEN == "unmatched" and not t.checks and not t.stamps
            untouched.append((matched if by_match else changed) == 0)
            if changed == 0 and out.row_format:  # nothing changed: no row events for the table
                out = _without_rows(out, t.name.__eq__)
        elif info.kind is Kind.UPDATE and w.columns is not None and p.data.parses_left > 0:
            p.data.changed_columns(t, w.columns)  # the parse budget is spent: the columns it sets are unknown
        else:
            p.data.forget(t.ident)  # DELETE, LOAD, or the parse budget is spent
    if (p.profile.MULTI_UPDATE_STMT_CACHE_WHEN and info.kind is Kind.UPDATE and multi
            and not out.row_format and len(untouched) == len(info.writes) and all(untouched) and out.trx
            and not (s.trx_cache and not s.binlog_direct)):
        # (a statement counted non-transactional joins a transaction cache that holds something already,
        # as dml's statement pieces do: mes_factory_app's op2 session)
        out = replace(out, trx=(), stmt_cache=out.stmt_cache + tuple(replace(x, nontrans=True) for x in out.trx))
    return out


def _own_conditions(tree: exp.Expression, t: Table, where: exp.Expression | None) -> exp.Expression | None:
    """The conjuncts of a multi-table statement's WHERE on ``t``'s columns alone, as conditions on its rows
    (``c.rating_error = 'UNKNOWN_SUBSCRIBER' AND c.sub_id IS NULL`` of ``UPDATE cdrs c JOIN subscribers s``);
    None when there are none or ``t`` appears twice."""
    names = [x.alias_or_name.lower() for x in tree.find_all(exp.Table) if x.name.lower() == t.name.lower()]
    if where is None or len(names) != 1:
        return None
    alias = names[0]
    own = [c for c in (where.flatten() if isinstance(where, exp.And) else [where])
           if isinstance(c, exp.Expression) and not c.find(exp.Query)
           and (cols := list(c.find_all(exp.Column))) and all(x.table.lower() == alias for x in cols)]
    out: exp.Expression | None = None
    for c in own:
        bare = c.copy().transform(lambda n: exp.column(n.name) if isinstance(n, exp.Column) else n)
        out = bare if out is None else exp.And(this=out, expression=bare)
    return out


def _affected(res: WriteOutcome, mode: Mode) -> int | None:
    """ROW_COUNT() after a write: rows inserted, 2 per row ON DUPLICATE KEY UPDATE changed (0 when it kept its
    values); a REPLACE that replaced a row is not followed (in place or deleted and written)."""
    if mode is Mode.UPSERT:
        return res.written + 2 * res.updated
    if mode is Mode.REPLACE and res.written != res.rows:
        return None
    return res.written


def _limit(tree: exp.Expression) -> int:
    """A LIMIT that was not a constant in the text (a procedure's parameter, a user variable), as its bound
    value; -1 when it is not known."""
    limit = tree.args.get("limit")
    e = limit.expression if isinstance(limit, exp.Limit) else limit
    try:
        v = value(e, {}) if isinstance(e, exp.Expression) else None
    except CannotEvaluate:
        return -1
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else -1


def _cascade_pieces(p: Predictor, s: SessionState, out: Outcome, t: Table,
                    children: list[tuple[Table, ForeignKey]]) -> Outcome:
    """MySQL 9: the rows ON DELETE CASCADE deletes, and those SET NULL updates, logged next to the parent's
    (same cache; cascade_rows.sql)."""
    trx = any(x.rows and x.table == t.name for x in out.trx)
    add = []
    for child, fk in children:
        op, kind = (Op.DELETE, "delete") if fk.on_delete.upper() == "CASCADE" else (Op.UPDATE, "update")
        before, after = images(child, op, fk.columns if op is Op.UPDATE else None, s.row_image, p.profile)
        add.append(Piece(-1, True, not p.profile.engine(child.engine).transactional, child.name, before, after,
                         kind))
    return replace(out, trx=out.trx + tuple(add)) if trx else replace(out, stmt_cache=out.stmt_cache + tuple(add))


def checks_foreign_keys(p: Predictor, t: Table, s: SessionState) -> bool:
    """InnoDB enforces foreign keys, unless the session turned foreign_key_checks off."""
    return p.profile.engine(t.engine).name == "innodb" and s.vars.get("foreign_key_checks", "ON") == "ON"


def _failed(out: Outcome, code: int, note: int | None = None) -> Outcome:
    """The statement fails with ``code`` (and MariaDB's ``note``, if any): nothing of it is logged."""
    return replace(out, error=code, logged=False, stmt_cache=(), trx=(), row_writes=(),
                   warnings=out.warnings | {note} if note else out.warnings)


def _code(p: Predictor, code: int) -> int:
    """The error a refused row gets: a failed CHECK's, or a JSON column's, depends on the server."""
    return (p.profile.CHECK_VIOLATION_ERROR if code == CHECK_FAILED else
            p.profile.INVALID_JSON_ERROR if code == INVALID_JSON else code)


def _note(p: Predictor, code: int) -> int | None:
    """MariaDB's warning next to a refused JSON value."""
    return p.profile.INVALID_JSON_NOTE if code == INVALID_JSON else None


def _semi_join(tree: Parsed) -> bool:
    """A single-table UPDATE that MariaDB 11 runs as a multi-table one: an ``IN (SELECT ...)`` / ``EXISTS``
    among the top-level ANDs of its WHERE, and no ORDER BY / LIMIT (MDEV-7487)."""
    if not isinstance(tree, exp.Update) or tree.args.get("order") or tree.args.get("limit"):
        return False
    where = tree.args.get("where")
    conds = where.this.flatten() if where is not None and isinstance(where.this, exp.And) else \
        [where.this] if where is not None else []
    return any(isinstance(c, exp.Exists) or (isinstance(c, exp.In) and c.args.get("query") is not None)
               for c in conds)


_EVENTS = {Kind.INSERT: frozenset({"INSERT"}), Kind.REPLACE: frozenset({"INSERT", "DELETE"}),
           Kind.LOAD: frozenset({"INSERT", "DELETE"}), Kind.UPDATE: frozenset({"UPDATE"}),
           Kind.DELETE: frozenset({"DELETE"})}  # the trigger events a statement may fire


def _selected(p: Predictor, tree: exp.Expression, t: Table, s: SessionState) -> Selected | None:
    """Positions of ``t``'s rows a multi-table DELETE / UPDATE selects (predictor/joined.py)."""
    return selected(tree, t, p.data.source(t, positions=True), lambda name: table_source(p, name, s))


def _through_view(p: Predictor, name: str, s: SessionState,
                  info: StatementInfo | None = None) -> tuple[Table, exp.Expression | None] | None:
    """The base table and WHERE of a write through view ``name`` (views.merged); a view whose writes are not
    followed (nor, given ``info``, an UPDATE through a join view: _through_join_view) stops the following
    of its base tables' rows."""
    if p.catalog.view(name) is None:
        return None
    got = views.merged(p, name, s)
    if got is None and not (info is not None and _through_join_view(p, info, s)):
        for base in views.bases(p, name):
            if (t := lookup(base, p.catalog, s)) is not None:
                p.data.forget(t.ident)
    return got


def _through_join_view(p: Predictor, info: StatementInfo, s: SessionState) -> bool:
    """An UPDATE through a join view: the columns it sets become unknown in the one base table they belong
    to (views.written_columns); False when that cannot be said."""
    w = info.writes[0] if len(info.writes) == 1 else None
    if info.kind is not Kind.UPDATE or w is None or not w.columns or p.catalog.view(w.table) is None:
        return False
    got = views.written_columns(p, w.table, w.columns, s)
    if got is None:
        return False
    p.data.changed_columns(got[0], got[1])
    return True


def _write_rows(p: Predictor, sql: str, info: StatementInfo, s: SessionState, out: Outcome,
                fired: dict[str, Changed | None], prior: object) -> Outcome:
    """INSERT / REPLACE into one table whose rows are tracked: evaluate the rows the statement writes."""
    t = lookup(info.writes[0].table, p.catalog, s)
    if t is None:
        through = _through_view(p, info.writes[0].table, s)
        if through is None or info.writes[0].columns is None:
            if through is not None:
                p.data.forget(through[0].ident)
            return out
        t = through[0]
    trans = p.profile.engine(t.engine).transactional
    p.journal(s, t)
    if p.data.tracked(t) is None:
        return _unfollowed_parents(p, sql, info, s, t, out, prior)
    got = _inserted(p, sql, info, s, t)
    if got is None:
        p.data.forget(t.ident)
        return out
    rows, mode, assignments = got
    if time_dropped(t, rows):
        out = replace(out, warnings=out.warnings | {p.profile.TIME_DROPPED_NOTE})
    if mode is Mode.IGNORE:
        rows, noted = _ignoring(p, t, rows)
        out = replace(out, warnings=out.warnings | noted)
    found = issues(t, rows) if mode is not Mode.IGNORE else []
    bad = _refusal(found, s, trans)
    if bad is not None and not trans and bad.row > 0:
        p.data.forget(t.ident)  # the rows before the bad one stay: how many the server wrote is not followed
        return out
    if bad is not None:
        s.last_insert_id = prior
        note = p.profile.BAD_NULL_NOTE if (bad.code, bad.row) == (ER_BAD_NULL, 0) and s.strict(trans, 0) and not any(
            tr.timing.upper() == "BEFORE" for tr in t.triggers) else _note(p, bad.code)
        return _failed(out, _code(p, bad.code), note)
    if found:  # all stored with a warning: the rows hold the stored values
        out = replace(out, warnings=out.warnings | {i.warning for i in found if i.warning is not None})
        rows = [dict(r) for r in rows]
        for i in found:
            rows[i.row][i.column] = i.stored
    if mode is Mode.INSERT and checks_foreign_keys(p, t, s) and missing_parent(p.data, p.catalog, t, rows):
        s.last_insert_id = prior
        return _failed(out, ER_NO_REFERENCED_ROW)
    # the upsert's rows, in order, also without triggers: its write images depend on them (_upsert_write)
    pairs: list[Pair] | None = [] if (t.triggers and mode in (Mode.INSERT, Mode.IGNORE)) or mode is Mode.UPSERT \
        else None
    checked = (mode is Mode.REPLACE and p.profile.REPLACE_DELETE_CHECKS_CHILDREN and p.catalog.children(t.name)
               and checks_foreign_keys(p, t, s))
    before = p.data.tables[t.ident].copy() if checked else None
    if pairs is not None and len(rows) > 1 and _sets_new_keys(t):
        events: list[str] = []
        res = _write_each(p, s, info, t, rows, mode, fired, assignments, pairs, events)
        if res is not None and res.dup_at is None and mode is Mode.UPSERT:
            out = _in_firing_order(out, events)
    else:
        # REPLACE updates the clashing row in place only when no DELETE trigger and no foreign key needs to
        # see a delete: a referenced table gets a delete and a write (both servers: property_rental_app)
        deletes = any(tr.event.upper() == "DELETE" for tr in t.triggers) or bool(p.catalog.children(t.name))
        res = p.data.write(t, rows, mode, commit=not trans, assignments=assignments, replace_deletes=deletes,
                           pairs=pairs, counted=not info.select_source)
        if res is not None and res.dup_at is None and mode is Mode.UPSERT and t.triggers:
            order = _fire_upsert(p, s, info, t, pairs, fired)
            if order is not None:
                out = _in_firing_order(out, order)
        elif res is not None and res.dup_at is None:
            _fire(p, s, info, t, "INSERT", pairs, fired, mode is Mode.INSERT)
    if res is None:
        return out
    refused, cascaded = referenced(p.data, p.catalog, t, res.removed, lambda c: p.journal(s, c)) \
        if res.removed else (False, [])
    if refused and before is not None:
        p.data.tables[t.ident] = before  # a child still references a row the REPLACE deleted
        s.last_insert_id = prior
        return _failed(out, ER_ROW_IS_REFERENCED)
    if cascaded and p.profile.FK_CASCADES_LOGGED and out.row_format:
        out = _cascade_pieces(p, s, out, t, cascaded)
    if res.dup_at is None:
        s.last_insert_id = res.first_id if res.first_id is not None else prior
        s.rows_changed = _affected(res, mode)
    if res.dup_at is not None:
        if trans or res.dup_at == 0:
            return _failed(out, 1062)
        # a non-transactional table keeps the rows before the duplicate: logged, with the error
        return replace(out, error=1062, warnings=out.warnings | {ER_WARNING_NOT_COMPLETE_ROLLBACK})
    warnings = out.warnings | {1062} if res.ignored else out.warnings
    changed = {"write": res.written, "update": res.updated, "delete": res.deleted}

    written = with_trigger_columns(t, info.writes[0])
    assigned = (info.on_duplicate or ()) if mode is Mode.UPSERT else ()
    # MIXED went to row only for the two unique keys, at the end (not sticky from an earlier row statement)
    deferred = (p.profile.IODUP_TWO_KEYS_DEFERRED and s.binlog_format == "MIXED" and out.unsafe == {"INSERT_TWO_KEYS"}
                and not (s.sticky_row or s.force_row) and p.profile.engine(t.engine).caps(s.isolation)[1])

    def pieces(cache: tuple[Piece, ...]) -> tuple[Piece, ...]:
        """The target's row pieces as the rows went (the decision saw only the statement)."""
        own = {x.type: x for x in cache if x.rows and x.table == t.name}
        if not own:
            return cache  # not logged as rows, or rows of a self-logging / unreplicated engine
        add: list[Piece] = []
        for typ, op, cols in (("delete", Op.DELETE, None), ("write", Op.INSERT, written), ("update", Op.UPDATE, None)):
            if not changed[typ]:
                continue
            if op is Op.UPDATE:
                before, after = upsert_images(t, written, assigned, s.row_image, p.profile, deferred)
            elif op is Op.INSERT and mode in (Mode.UPSERT, Mode.REPLACE):
                dup_first = _dup_before_write(pairs or []) if mode is Mode.UPSERT else bool(
                    changed["delete"] or changed["update"])
                before, after = _upsert_write(p, t, written, assigned, "MINIMAL" if deferred else s.row_image,
                                              dup_first, mode is Mode.UPSERT)
            elif typ in own and not deferred:
                add.append(own[typ])
                continue
            else:  # deferred to row: a FULL / NOBLOB write event has the written columns only
                before, after = images(t, op, cols, "MINIMAL" if deferred else s.row_image, p.profile)
            add.append(Piece(-1, True, not trans, t.name, before, after, typ))
        return tuple(x for x in cache if not (x.rows and x.table == t.name)) + tuple(add)

    stmt_cache, trx = pieces(out.stmt_cache), pieces(out.trx)
    logged = bool(stmt_cache or trx) if out.row_format else out.logged
    return replace(out, warnings=warnings, stmt_cache=stmt_cache, trx=trx, logged=logged)


def _upsert_write(p: Predictor, t: Table, written: tuple[str, ...] | None, assigned: tuple[str, ...], image: str,
                  dup_first: bool, upsert: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The write event of INSERT ... ON DUPLICATE KEY UPDATE or REPLACE: an upsert's rows were marked for the
    assigned columns too, duplicate or not (MINIMAL after image: written and assigned columns, both servers),
    and for its ON UPDATE CURRENT_TIMESTAMP columns (``upsert``: not REPLACE's;
    fixtures/seeds/004_wl5092/upsert_on_update_stamp.sql). On MySQL a row written after a duplicate
    (``dup_first``; changed or not) has the whole row, in NOBLOB too (Profile.UPSERT_AFTER_FULL;
    fixtures/seeds/004_wl5092/upsert_write_image.sql)."""
    stamps = t.stamps if upsert else ()
    cols = None if written is None else (*written, *assigned, *stamps)
    before, after = images(t, Op.INSERT, cols, image, p.profile)
    if image.upper() != "FULL" and p.profile.UPSERT_AFTER_FULL and dup_first:
        after = t.ordered({c.name.lower() for c in t.columns})
    return before, after


def _dup_before_write(pairs: list[Pair]) -> bool:
    """Whether an upsert wrote a row after one that met a duplicate (``pairs``: (None, new) per row written,
    (old, new) per row updated, in order)."""
    dup = next((i for i, (old, _) in enumerate(pairs) if old is not None), None)
    return dup is not None and any(old is None for old, _ in pairs[dup + 1:])


def _unfollowed_parents(p: Predictor, sql: str, info: StatementInfo, s: SessionState, t: Table, out: Outcome,
                        prior: object) -> Outcome:
    """INSERT ... VALUES into a table whose rows are not followed: a row whose foreign key names a parent
    that surely does not exist still fails with 1452 (game_backend_app: a bot's account id)."""
    if not (t.foreign_keys and info.kind is Kind.INSERT and not info.ignore and info.on_duplicate is None
            and not info.select_source and checks_foreign_keys(p, t, s)) or not any(
                p.data.tables.get(fk.parent) is not None and p.data.tables[fk.parent].tracked for fk in t.foreign_keys):
        return out
    got = _inserted(p, sql, info, s, t)
    if got is None or not missing_parent(p.data, p.catalog, t, got[0]):
        return out
    s.last_insert_id = prior
    return _failed(out, ER_NO_REFERENCED_ROW)


def _inserted(p: Predictor, sql: str, info: StatementInfo, s: SessionState,
              t: Table) -> tuple[list[Row], Mode, list[tuple[str, exp.Expression]]] | None:
    """The rows an INSERT / REPLACE writes, how duplicates are met, the ON DUPLICATE KEY UPDATE assignments;
    None when the rows cannot be said."""
    plain = info.kind is Kind.INSERT and info.on_duplicate is None and not info.select_source
    fast = literal_rows(sql, t) if plain else UNSURE  # INSERT ... VALUES without a parse (literals.py)
    if fast is None:
        return None
    if not isinstance(fast, Unsure):
        return fast, Mode.IGNORE if info.ignore else Mode.INSERT, []
    if not p.data.may_parse():
        return None
    tree = parsed(p, sql, s)
    rows = _statement_rows(p, tree, t, s) if isinstance(tree, exp.Insert) else None
    if rows is None or not isinstance(tree, exp.Insert):
        return None
    conflict = tree.args.get("conflict")
    assignments = upsert_assignments(tree)
    if assignments is None:
        return None
    mode = (Mode.REPLACE if info.kind is Kind.REPLACE or tree.args.get("replace") else
            Mode.UPSERT if conflict is not None else Mode.IGNORE if info.ignore else Mode.INSERT)
    return rows, mode, assignments


def _checked_unfollowed(p: Predictor, sql: str, info: StatementInfo, s: SessionState, out: Outcome,
                        prior: object) -> Outcome:
    """An INSERT into a table whose rows are not followed: the values it gives still meet the table's CHECK
    constraints or not (and its JSON columns take them or not), whatever the rows already there. Only for
    tables with such constraints, or a NULL in the text (the hot path of big workloads stays as it was), and
    no BEFORE INSERT trigger (it may change the values)."""
    t = lookup(info.writes[0].table, p.catalog, s)
    if t is None:
        return out
    if not (t.checks_values or "NULL" in sql or "null" in sql):
        return _unfollowed_parents(p, sql, info, s, t, out, prior)
    got = _inserted(p, sql, info, s, t)
    if got is None or got[1] is Mode.IGNORE:
        return out
    trans = p.profile.engine(t.engine).transactional
    bad = _refusal(issues(t, got[0]), s, trans)
    if bad is None or (not trans and bad.row > 0):
        return out
    s.last_insert_id = prior
    return _failed(out, _code(p, bad.code), _note(p, bad.code))


def _ignoring(p: Predictor, t: Table, rows: list[Row]) -> tuple[list[Row], frozenset[int]]:
    """INSERT IGNORE's rows and warnings: a row a CHECK constraint makes false is skipped (``data.SKIPPED``),
    with the CHECK's error as a warning, after it took its auto-increment value (both servers:
    insert_ignore_check.sql, vet_clinic_app's weight 0.00 pet); a value the column cannot hold is stored as a
    non-strict session stores it, with its warning."""
    found = issues(t, rows)
    if not found:
        return rows, frozenset()
    skipped = {i.row for i in found if i.code == CHECK_FAILED}
    kept = [dict(r) for r in rows]
    for i in found:
        if i.warning is not None and i.row not in skipped:
            kept[i.row][i.column] = i.stored
    for n in skipped:
        kept[n][SKIPPED] = True
    noted = {i.warning for i in found if i.warning is not None and i.row not in skipped}
    if skipped:
        noted.add(p.profile.CHECK_VIOLATION_ERROR)
    return kept, frozenset(noted)


def _refusal(found: Sequence[Issue], s: SessionState, trans: bool) -> Issue | None:
    """The first value problem that fails the statement (not one a non-strict session stores with a warning)."""
    return next((i for i in found if not i.note and (i.warning is None or s.strict(trans, i.row))), None)


def _sets_new_keys(t: Table) -> bool:
    """Whether a BEFORE INSERT trigger names a unique key's column of NEW (it may set it: keys are checked
    after it, row by row)."""
    keys = {c.lower() for k in t.unique_keys for c in k.columns}
    return any(tr.timing.upper() == "BEFORE" and tr.event.upper() == "INSERT"
               and keys & set(triggers.new_columns(tr.text)) for tr in t.triggers)


def _write_each(p: Predictor, s: SessionState, info: StatementInfo, t: Table, rows: list[Row], mode: Mode,
                fired: dict[str, Changed | None], assignments: Sequence[tuple[str, exp.Expression]],
                trace: list[Pair], events: list[str]) -> WriteOutcome | None:
    """A multi-row INSERT whose BEFORE trigger may set a key: each row is written, then its triggers run, as
    the server does (a ``booking_ref`` the trigger fills with UUID() is not a duplicate of the next row's
    default; vet_clinic_app). An ON DUPLICATE KEY UPDATE updates the rows it meets (``assignments``) and runs
    their UPDATE triggers; ``trace`` gets every row's pair, in order, ``events`` the trigger events run."""
    trans = p.profile.engine(t.engine).transactional
    written = updated = ignored = 0
    first_id: int | None = None
    total: Changed | None = Changed()
    start = p.data.next_auto(t)
    for i, row in enumerate(rows):
        pairs: list[Pair] = []
        res = p.data.write(t, [row], mode, commit=not trans, assignments=assignments, pairs=pairs, counted=False)
        if res is None:
            return None
        if res.dup_at is not None:
            return WriteOutcome(i, len(rows), written, updated, 0, ignored)
        written, updated, ignored = written + res.written, updated + res.updated, ignored + res.ignored
        first_id = first_id if first_id is not None else res.first_id
        trace.extend(pairs)
        if mode is Mode.UPSERT:
            events += [e for e in _fire_upsert(p, s, info, t, pairs, fired) or () if e not in events]
        else:
            _fire(p, s, info, t, "INSERT", pairs, fired, mode is Mode.INSERT)
        got = fired.get(t.name.lower())
        if got is None or total is None:
            total = None
        else:
            triggers.merge(total, got)
    fired[t.name.lower()] = total
    out = WriteOutcome(None, len(rows), written, updated, 0, ignored, first_id)
    if start is not None:  # the statement's auto-increment reservation, not the rows' one by one
        p.data.reserve(t, start, rows, out, counted=not info.select_source)
    return out


def _statement_rows(p: Predictor, tree: exp.Insert, t: Table, s: SessionState) -> list[Row] | None:
    """The rows an INSERT / REPLACE writes, by target column, or None when they cannot be evaluated."""
    if isinstance(tree.expression, exp.Values):
        if any(isinstance(n, exp.Subquery) for n in tree.expression.walk()):
            # VALUES (CONCAT((SELECT din FROM collections WHERE id = 3), '-CRYO')): the subquery's value
            tree = tree.copy()
            tree.set("expression", resolved(tree.expression, lambda name: table_source(p, name, s), per_row=False))
        return values_rows(tree, t)
    got = select_rows(tree.expression, lambda name: table_source(p, name, s))
    if got is None:
        return None
    target = tree.this
    if isinstance(target, exp.Schema) and target.expressions:
        cols = [str(c.name).lower() for c in target.expressions]
    else:
        cols = [c.name.lower() for c in t.columns]
    _, values = got
    if any(len(v) != len(cols) for v in values):
        return None
    return [dict(zip(cols, v, strict=True)) for v in values]


def table_source(p: Predictor, name: str, s: SessionState, depth: int = 0) -> Source | None:
    """The rows of a table or view the data model follows (for a SELECT), else None."""
    t = lookup(name, p.catalog, s)
    if t is not None:
        return p.data.source(t)
    view = p.catalog.view(name)
    text = view.select.text if view is not None and view.select is not None else None
    if text is None or depth > 8:
        return None
    tree = parse(text)
    if not isinstance(tree, exp.Expression):
        return None
    got = select_rows(tree, lambda inner: table_source(p, inner, s, depth + 1))
    if got is None:
        return None
    names, rows = got
    return Source(names, [dict(zip(names, r, strict=True)) for r in rows])
