"""Static facts of one statement, read off its sqlglot tree: what it writes and reads, the functions and
variables it uses, its flags. No catalog, no session: the result is cached per statement fingerprint.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property

from sqlglot import exp

from predictor import nodes, reserved
from predictor.branches import Guard
from predictor.catalog import Column, ForeignKey, Generated, Key, KeyKind, Table
from predictor.codes import signal_code
from predictor.dialect import RplayMySQL
from predictor.evaluate import CannotEvaluate, clock_reading, literal
from predictor.loops import AnyLoop, conditional_loop, counted_loop, cursor_loop
from predictor.parse import Unparsed, parse
from predictor.query import output_name
from predictor.routines import Signature, if_chain, signature
from predictor.variables import assigned


class Kind(str, Enum):
    INSERT = "INSERT"
    REPLACE = "REPLACE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    LOAD = "LOAD"
    SELECT = "SELECT"
    DO = "DO"
    CALL = "CALL"
    CREATE_TABLE = "CREATE_TABLE"
    CREATE_TABLE_SELECT = "CREATE_TABLE_SELECT"
    CREATE_TABLE_LIKE = "CREATE_TABLE_LIKE"
    DROP_TABLE = "DROP_TABLE"
    ALTER_TABLE = "ALTER_TABLE"
    TRUNCATE = "TRUNCATE"
    RENAME_TABLE = "RENAME_TABLE"
    CREATE_TRIGGER = "CREATE_TRIGGER"
    DROP_TRIGGER = "DROP_TRIGGER"
    CREATE_ROUTINE = "CREATE_ROUTINE"
    DROP_ROUTINE = "DROP_ROUTINE"
    CREATE_VIEW = "CREATE_VIEW"
    DROP_VIEW = "DROP_VIEW"
    CREATE_SEQUENCE = "CREATE_SEQUENCE"
    DDL_OTHER = "DDL_OTHER"  # logged directly, no catalog effect we track (indexes, databases, ANALYZE...)
    BEGIN = "BEGIN"
    COMMIT = "COMMIT"
    ROLLBACK = "ROLLBACK"
    SAVEPOINT = "SAVEPOINT"
    ROLLBACK_TO = "ROLLBACK_TO"
    RELEASE_SAVEPOINT = "RELEASE_SAVEPOINT"
    XA = "XA"
    SET = "SET"
    SET_TRANSACTION = "SET_TRANSACTION"
    LOCK_TABLES = "LOCK_TABLES"
    UNLOCK_TABLES = "UNLOCK_TABLES"
    FLUSH = "FLUSH"
    BINLOG = "BINLOG"  # BINLOG '...': a row injection
    PREPARE = "PREPARE"  # PREPARE / EXECUTE / DEALLOCATE PREPARE (predictor/prepared.py)
    EXECUTE = "EXECUTE"
    DEALLOCATE = "DEALLOCATE"
    NOOP = "NOOP"  # not logged, no state we track (USE, SHOW, CHECK, DECLARE...)
    UNKNOWN = "UNKNOWN"


DML_KINDS = frozenset({Kind.INSERT, Kind.REPLACE, Kind.UPDATE, Kind.DELETE, Kind.LOAD})


class Op(str, Enum):
    INSERT = "insert"
    UPDATE = "update"
    DELETE = "delete"


@dataclass(frozen=True)
class Write:
    """A table the statement writes; ``columns`` None means every column (INSERT without a list)."""

    table: str
    op: Op
    columns: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Assignment:
    scope: str  # SESSION | GLOBAL | USER | LOCAL
    name: str
    value: str


@dataclass(frozen=True)
class StatementInfo:
    kind: Kind
    writes: tuple[Write, ...] = ()
    reads: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    sysvars: tuple[str, ...] = ()
    limit: int | None = None  # None: no LIMIT; -1: a LIMIT that is not a constant
    nested_limit: int | None = None  # an UPDATE's / DELETE's subquery's LIMIT (unsafe.limit counts it too)
    ignore: bool = False
    replace: bool = False
    on_duplicate: tuple[str, ...] | None = None  # ON DUPLICATE KEY UPDATE columns
    select_source: bool = False
    delayed: bool = False
    temporary: bool = False
    if_exists: bool = False
    if_not_exists: bool = False
    skip_locked: bool = False
    nowait: bool = False
    for_update: bool = False  # SELECT ... FOR UPDATE (a subquery's too): it write-locks what it reads
    multi_table: bool = False
    values_rows: int = 0  # VALUES tuples of an INSERT/REPLACE
    table_def: Table | None = None  # CREATE TABLE / ALTER target definition pieces
    engine: str | None = None  # ENGINE= of CREATE/ALTER
    like: str | None = None
    targets: tuple[str, ...] = ()  # DROP/TRUNCATE/RENAME/ALTER/trigger table/routine or view name; LOCK TABLES:
    #   the tables locked for WRITE (those locked for READ are its ``reads``)
    assignments: tuple[Assignment, ...] = ()
    savepoint: str | None = None
    name: str | None = None
    routine_kind: str | None = None  # FUNCTION | PROCEDURE
    timing: str | None = None
    event: str | None = None
    body: tuple[StatementInfo, ...] = ()
    signature: Signature | None = None  # a routine's parameters and variables
    text: str | None = None  # a body statement's SQL, for CALL to substitute its arguments into
    user_vars: tuple[str, ...] = ()  # user variables it assigns (predictor/variables.py)
    loops: tuple[AnyLoop, ...] = ()  # the loops a body statement is in, outermost first (loops.py)
    guards: tuple[Guard, ...] = ()  # the IF conditions that lead to a body statement (predictor/branches.py)
    select: StatementInfo | None = None  # view body / CREATE ... SELECT source facts
    xa: str | None = None
    chain: bool = False
    added_columns: tuple[Column, ...] = ()
    dropped_columns: tuple[str, ...] = ()
    changed_columns: tuple[tuple[str, Column | str], ...] = ()  # ALTER ... MODIFY / CHANGE (old name, new
    #   definition) and RENAME COLUMN (old name, new name)
    added_keys: tuple[Key, ...] = ()  # ALTER TABLE ... ADD PRIMARY KEY / UNIQUE / INDEX
    moved_columns: tuple[tuple[str, str], ...] = ()  # ADD / MODIFY / CHANGE ... FIRST or AFTER: (column, the
    #   column it now follows, "" for FIRST), in the ALTER's order
    drops_primary_key: bool = False
    unknown_reason: str | None = None
    source: tuple[str, str] | None = None  # PREPARE: ("TEXT", its statement) or ("VAR", the user variable)
    using: tuple[str, ...] = ()  # EXECUTE ... USING: the user variables, in order
    reserved_names: frozenset[str] = frozenset()  # unquoted names some server reserves (predictor/reserved.py)
    signal: int | None = None  # a body's SIGNAL: the error it raises (predictor/calls.py)
    leaves: int | None = None  # a body's LEAVE: the position of the unrolled loop it ends, or RETURNS (calls.py)
    handler: int | None = None  # a body statement of the handler declared at this place among the body's
    #   handlers (routines.Handler.position)
    catchers: tuple[int, ...] = ()  # the handlers of the nested BEGIN ... END blocks a body statement is in,
    #   outermost first (routines.Handler.position; they catch its errors before the body's own handlers)
    clock_columns: tuple[str, ...] = ()  # written columns it only ever sets to a clock reading (NOW(), CURDATE():
    #   lower case; predictor/fresh.py)
    extra: tuple[str, ...] = field(default=())
    columns: tuple[str, ...] = ()  # a SELECT's output column names ("*" for a star)
    joined: tuple[str, ...] = ()  # a multi-table UPDATE's tables (not those of its subqueries or derived tables)
    pinned: tuple[tuple[str, str], ...] = ()  # a multi-table UPDATE's (table, column) its WHERE sets to a constant
    group_aliases: tuple[tuple[str, tuple[str, ...]], ...] = ()  # GROUP BY names that are select aliases of
    #   another expression, with the tables of their SELECT: a column of those too is ambiguous (warning 1052)

    @property
    def is_dml(self) -> bool:
        return self.kind in DML_KINDS

    @cached_property
    def write_names(self) -> tuple[str, ...]:
        """The written tables' names, lower case (the data model's keys of base tables; hot path)."""
        return tuple(w.table.lower() for w in self.writes)


def analyze(sql: str) -> StatementInfo:
    tree = parse(sql)
    if isinstance(tree, Unparsed):
        return StatementInfo(Kind.UNKNOWN, unknown_reason=tree.reason)
    try:
        info = analyze_tree(tree)  # type: ignore[arg-type]
    except Exception as e:  # a shape we did not expect: UNKNOWN, never a traceback
        return StatementInfo(Kind.UNKNOWN, unknown_reason=f"cannot analyse {type(tree).__name__}: {e}")
    words = _reserved_names(tree)  # type: ignore[arg-type]
    info = replace(info, reserved_names=words) if words else info
    aliases = _group_aliases(tree)  # type: ignore[arg-type]
    return replace(info, group_aliases=aliases) if aliases else info


def _group_aliases(tree: exp.Expression) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """GROUP BY names that alias another select expression (``CONCAT('K-', kind) AS kind ... GROUP BY kind``),
    each with its SELECT's tables (see StatementInfo.group_aliases)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for group in tree.find_all(exp.Group):
        q = group.parent
        if not isinstance(q, exp.Select):
            continue
        aliases = {e.alias.lower(): e.this for e in q.expressions if isinstance(e, exp.Alias)}
        for k in group.expressions:
            e = aliases.get(k.name.lower()) if isinstance(k, exp.Column) and not k.table else None
            if e is not None and not (isinstance(e, exp.Column) and e.name.lower() == k.name.lower()):
                frm = q.args.get("from_") or q.args.get("from")
                tables = [frm, *(q.args.get("joins") or ())]
                out.append((k.name.lower(), tuple(t.this.name.lower() for t in tables
                                                  if t is not None and isinstance(t.this, exp.Table))))
    return tuple(out)


_NAMED = (exp.Table, exp.Column, exp.ColumnDef, exp.TableAlias, exp.Alias, exp.Schema)
_NILADIC = frozenset({"CURRENT_ROLE", "CURRENT_USER", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
                      "LOCALTIME", "LOCALTIMESTAMP", "UTC_DATE", "UTC_TIME", "UTC_TIMESTAMP", "DEFAULT", "NULL",
                      "TRUE", "FALSE", "MAXVALUE"})
"""Words a column reference may be in valid SQL: functions without parentheses, DEFAULT, constants."""


def _reserved_names(tree: exp.Expression) -> frozenset[str]:
    """Unquoted table, column, alias and routine names (bodies included) that some profile reserves."""
    out = set()
    for ident in tree.find_all(exp.Identifier):
        if ident.quoted or not isinstance(ident.parent, _NAMED):
            continue
        word = ident.name.upper()
        if word == "DUAL" and isinstance(ident.parent, exp.Table) and not ident.parent.args.get("db"):
            continue  # FROM DUAL: the dummy table, not a name
        if word in reserved.ANY and not (isinstance(ident.parent, exp.Column) and word in _NILADIC):
            out.add(word)
    return frozenset(out)


def _name(node: exp.Expression | None) -> str:
    if node is None:
        return ""
    if isinstance(node, exp.Schema):
        node = node.this
    if isinstance(node, exp.Table | exp.Identifier | exp.Column):
        return str(node.name)
    if isinstance(node, exp.Var | exp.Literal):
        return str(node.this)
    return str(node.name) if hasattr(node, "name") else str(node)


def _target_table(node: exp.Expression | None) -> str:
    return _name(node)


def _tables(node: exp.Expression | None) -> list[str]:
    """The tables ``node`` names (not its CTEs: ``WITH spend AS (...) SELECT ... FROM spend``)."""
    if node is None:
        return []
    ctes = {c.alias.lower() for c in node.find_all(exp.CTE)} if node.find(exp.With) else set()
    out: list[str] = []
    for t in node.find_all(exp.Table):
        n = f"{t.db}.{t.name}" if t.db else str(t.name)
        if t.name and n not in out and (t.db or t.name.lower() not in ctes):
            out.append(n)
    return out


def _function_name(f: exp.Func) -> str:
    if isinstance(f, exp.Anonymous):
        return str(f.name).upper()
    return str(f.sql_name()).upper()


_FUNC_ALIASES = {"CURRENTVERSION": "VERSION", "CURRENT_VERSION": "VERSION", "CURRENTUSER": "CURRENT_USER",
                 "CURRENT_USER": "CURRENT_USER", "UUID": "UUID", "RAND": "RAND"}


def _expression_facts(node: exp.Expression | None) -> tuple[list[str], list[str]]:
    """(functions, system variables) used anywhere under ``node``; the SELECT modifier SQL_CALC_FOUND_ROWS
    counts as a function (MySQL deprecates it with FOUND_ROWS())."""
    funcs: list[str] = []
    sysvars: list[str] = []
    if node is None:
        return funcs, sysvars
    for n in node.walk():
        if isinstance(n, exp.Func) and not isinstance(n, exp.Anonymous) and type(n).__name__ in (
                "Count", "Sum", "Max", "Min", "Avg"):
            continue
        if isinstance(n, exp.Func):
            name = _FUNC_ALIASES.get(_function_name(n), _function_name(n))
            if name not in funcs:
                funcs.append(name)
        elif isinstance(n, exp.Select) and n.args.get("operation_modifiers"):
            for m in n.args["operation_modifiers"]:
                if isinstance(m, exp.Var) and m.name.upper() == "SQL_CALC_FOUND_ROWS" and m.name.upper() not in funcs:
                    funcs.append("SQL_CALC_FOUND_ROWS")
        elif isinstance(n, exp.SessionParameter):
            v = _name(n.this).lower()
            if v not in sysvars:
                sysvars.append(v)
        elif isinstance(n, exp.PropertyEQ) and isinstance(n.this, exp.Parameter) and not isinstance(
                n.parent, exp.SetItem) and USER_VARIABLE_ASSIGNMENT not in funcs:
            funcs.append(USER_VARIABLE_ASSIGNMENT)
    return funcs, sysvars


USER_VARIABLE_ASSIGNMENT = ":="
"""``SELECT @v := expr``: a user variable set inside an expression counts as a function (MySQL deprecates it)."""


def _nested_limit(tree: exp.Expression) -> int | None:
    """The LIMIT of a statement's first subquery that has one (``SET memo = (SELECT ... LIMIT 1)``)."""
    return next((n for n in (_limit_value(q) for q in tree.find_all(exp.Select) if q is not tree)
                 if n is not None), None)


def _any_limit(tree: exp.Expression) -> int | None:
    """The LIMIT of a query, else of its first subquery that has one: the parser marks the statement
    unsafe for any of them (unsafe.read_unsafe)."""
    return next((n for n in (_limit_value(q) for q in tree.find_all(exp.Select)) if n is not None), None)


def _limit_value(node: exp.Expression | None) -> int | None:
    if node is None:
        return None
    lim = node.args.get("limit")
    if lim is None:
        return None
    e = lim.expression if isinstance(lim, exp.Limit) else lim
    if isinstance(e, exp.Literal) and not e.is_string:
        try:
            return int(e.this)
        except ValueError:
            return -1
    return -1


def _columns_of_schema(node: exp.Expression) -> tuple[str, ...] | None:
    if isinstance(node, exp.Schema) and node.expressions:
        return tuple(_name(c) for c in node.expressions)
    return None


def _set_columns(assignments: list[exp.Expression]) -> list[tuple[str | None, str]]:
    out: list[tuple[str | None, str]] = []
    for a in assignments:
        if isinstance(a, exp.EQ):
            col = a.this
            if isinstance(col, exp.Column):
                out.append((str(col.table) or None, str(col.name)))
            else:
                out.append((None, _name(col)))
    return out


def _clocks(columns: Sequence[str], values: Sequence[Sequence[exp.Expression]],
            into: dict[str, bool] | None = None) -> dict[str, bool]:
    """Per column: whether every value given to it is a clock reading (``values``: rows for ``columns``)."""
    clocks = {} if into is None else into
    for row in values:
        for c, v in zip(columns, row, strict=False):
            clocks[c.lower()] = clocks.get(c.lower(), True) and clock_reading(v) is not None
    return clocks


def _assigned_clocks(assignments: Sequence[exp.Expression], into: dict[str, bool] | None = None) -> dict[str, bool]:
    pairs = [(_set_columns([a])[0][1], a.expression) for a in assignments if isinstance(a, exp.EQ)]
    return _clocks([c for c, _ in pairs], [[v for _, v in pairs]], into)


def _common(tree: exp.Expression, writes: list[Write], **kw: object) -> StatementInfo:
    funcs, sysvars = _expression_facts(tree)
    written = {w.table.lower() for w in writes}
    reads = [t for t in _tables(tree) if t.lower() not in written or kw.get("self_read")]
    kw.pop("self_read", None)
    return StatementInfo(writes=tuple(writes), reads=tuple(reads), functions=tuple(funcs),
                         sysvars=tuple(sysvars), **kw)  # type: ignore[arg-type]


def _insert(tree: exp.Insert) -> StatementInfo:
    target = tree.this
    table = _target_table(target)
    cols = _columns_of_schema(target)
    source = tree.expression
    conflict = tree.args.get("conflict")
    odku: tuple[str, ...] | None = None
    if conflict is not None:
        odku = tuple(c for _, c in _set_columns(list(conflict.args.get("expressions") or [])))
    priority = str(tree.args.get("priority") or "").upper()
    rows = len(source.expressions) if isinstance(source, exp.Values) else 0
    select_source = source is not None and not isinstance(source, exp.Values)
    reads_self = select_source and table.lower() in {t.lower() for t in _tables(source)}
    kind = Kind.REPLACE if tree.args.get("replace") else Kind.INSERT
    writes = [Write(table, Op.INSERT, cols)]
    sel = _select(source) if select_source and source is not None else None
    clocks = _clocks(cols or (), [t.expressions for t in source.expressions]) if isinstance(source, exp.Values) \
        else {}
    if isinstance(source, exp.Select) and cols and len(cols) == len(source.expressions):
        # INSERT ... SELECT ..., NOW(): a column it gives a reading (dental_group_app's SMS log: fresh.py)
        clocks = _clocks(cols, [[e.this if isinstance(e, exp.Alias) else e for e in source.expressions]])
    if conflict is not None:
        _assigned_clocks(list(conflict.args.get("expressions") or []), clocks)
    return _common(tree, writes, kind=kind, ignore=bool(tree.args.get("ignore")),
                   clock_columns=tuple(c for c, yes in clocks.items() if yes),
                   replace=kind is Kind.REPLACE, on_duplicate=odku, select_source=select_source,
                   delayed=priority == "DELAYED", values_rows=rows, self_read=reads_self,
                   limit=sel.limit if sel else None, skip_locked=bool(sel and sel.skip_locked),
                   nowait=bool(sel and sel.nowait), extra=sel.extra if sel else ())


def _pinned(tree: exp.Update, joins: list[exp.Expression]) -> tuple[tuple[str, str], ...]:
    """(table, column) pairs a multi-table UPDATE's WHERE sets equal to a constant (``co.id = @c``): a table
    whose unique key they cover is read first, as a constant (dml.py, Profile.MULTI_UPDATE_WRITES_GENERATED)."""
    where = tree.args.get("where")
    if not isinstance(where, exp.Where):
        return ()
    names = {str(t.alias_or_name).lower(): str(t.name).lower()
             for t in (tree.this, *(j.this for j in joins)) if isinstance(t, exp.Table)}
    out: list[tuple[str, str]] = []
    for c in where.this.flatten() if isinstance(where.this, exp.And) else [where.this]:
        c = c.unnest()
        if not isinstance(c, exp.EQ):
            continue
        for col, other in ((c.this, c.expression), (c.expression, c.this)):
            if isinstance(col, exp.Column) and col.table.lower() in names and not other.find(exp.Column):
                out.append((names[col.table.lower()], col.name.lower()))
    return tuple(out)


def _update(tree: exp.Update) -> StatementInfo:
    target = tree.this
    tables = _tables(target) if target is not None else []
    for j in tree.args.get("joins") or []:
        tables += _tables(j)
    multi = len(tables) > 1
    assigned = _set_columns(list(tree.expressions))
    per_table: dict[str, list[str]] = {}
    aliases: dict[str, str] = {}
    if target is not None:
        for t in target.find_all(exp.Table):
            aliases[str(t.alias_or_name).lower()] = str(t.name)
            aliases[str(t.name).lower()] = str(t.name)
    for tbl, col in assigned:
        name = aliases.get((tbl or "").lower(), tables[0] if tables else "") if tbl else (tables[0] if tables else "")
        if multi and not tbl:
            name = ""  # resolved against the catalog at prediction time
        per_table.setdefault(name, []).append(col)
    writes = [Write(t, Op.UPDATE, tuple(c)) for t, c in per_table.items()]
    limit = _limit_value(tree)
    joins = [*((target.args.get("joins") or ()) if target is not None else ()), *(tree.args.get("joins") or ())]
    joined = tuple(str(t.name) for t in (target, *(j.this for j in joins)) if isinstance(t, exp.Table)) \
        if multi else ()
    info = _common(tree, writes, kind=Kind.UPDATE, ignore=bool(tree.args.get("ignore")), limit=limit,
                   nested_limit=_nested_limit(tree), multi_table=multi, self_read=True, joined=joined,
                   pinned=_pinned(tree, joins) if multi else (),
                   clock_columns=tuple(c for c, yes in _assigned_clocks(list(tree.expressions)).items() if yes))
    if any(isinstance(e, exp.EQ) and isinstance(e.expression, exp.Anonymous) and e.expression.expressions
           and e.expression.name.upper() == "LAST_INSERT_ID" for e in tree.expressions):
        info = replace(info, extra=(*info.extra, SETS_INSERT_ID))
    if multi:
        return info
    extra: tuple[str, ...] = (SELF_SUBQUERY,) if _subquery_reads(tree, tables) else ()
    extra += (SELF_READ,) if _subquery_reads(tree, tables, derived=True) else ()
    return replace(info, extra=(*info.extra, *extra)) if extra else info


def _delete(tree: exp.Delete) -> StatementInfo:
    targets = [str(t.name) for t in tree.args.get("tables") or []]
    alias_map: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        if t.alias:
            alias_map[str(t.alias).lower()] = str(t.name)
    targets = [alias_map.get(t.lower(), t) for t in targets]
    if not targets:
        targets = [_target_table(tree.this)]
    multi = len(_tables(tree)) > 1 and bool(tree.args.get("tables"))
    writes = [Write(t, Op.DELETE, None) for t in targets]
    funcs, sysvars = _expression_facts(tree)
    aliases = set(alias_map)
    reads = tuple(t for t in _tables(tree) if t.lower() not in aliases)
    extra: tuple[str, ...] = ("where",) if tree.args.get("where") is not None else ()
    if not multi and _subquery_reads(tree, targets):
        extra += (SELF_SUBQUERY,)
    if not multi and _subquery_reads(tree, targets, derived=True):
        extra += (SELF_READ,)
    return StatementInfo(Kind.DELETE, writes=tuple(writes), reads=reads, functions=tuple(funcs),
                         sysvars=tuple(sysvars), ignore=bool(tree.args.get("ignore")),
                         limit=_limit_value(tree), nested_limit=_nested_limit(tree), multi_table=multi, extra=extra)


CHECK_OPTION = "check option"  # StatementInfo.extra of CREATE VIEW ... WITH CHECK OPTION (predictor/views.py)
NOT_UPDATABLE = "not updatable"  # StatementInfo.extra of CREATE VIEW whose rows cannot be written (_updatable)
SELF_SUBQUERY = "self subquery"  # StatementInfo.extra: a subquery reads the table the statement changes
SELF_READ = "self read"  # StatementInfo.extra: so does a derived table in a subquery (it opens the table too)
CONDITION = "condition"  # StatementInfo.extra of a body's IF condition: no statement of its own
SETS_INSERT_ID = "sets insert id"  # StatementInfo.extra of an UPDATE ... SET c = LAST_INSERT_ID(x)


def _subquery_reads(tree: exp.Expression, targets: list[str], derived: bool = False) -> bool:
    """Whether a subquery reads one of ``targets``: not through a derived table, which is materialised first
    (MySQL's 1093 is not raised), unless ``derived`` (the table is opened for reading all the same:
    WRITE_AUTOINC_SELECT on both servers; unsafe_24_write_autoinc_select.sql)."""
    names = {t.lower() for t in targets}
    for sel in tree.find_all(exp.Select):
        for t in sel.find_all(exp.Table):
            if t.name.lower() not in names:
                continue
            inner = t.find_ancestor(exp.Select)
            holder = inner.parent if inner is not None else None
            if derived or not (isinstance(holder, exp.Subquery) and isinstance(holder.parent, exp.From | exp.Join)):
                return True
    return False


def _load(tree: exp.Expression) -> StatementInfo:
    table = _target_table(tree.this)
    cols_node = tree.args.get("columns")
    cols = tuple(_name(c) for c in cols_node) if isinstance(cols_node, list) and cols_node else None
    dup = str(tree.args.get("duplicates") or "").upper()
    return _common(tree, [Write(table, Op.INSERT, cols)], kind=Kind.LOAD, ignore=dup == "IGNORE",
                   replace=dup == "REPLACE")


def _column_def(cd: exp.ColumnDef) -> tuple[Column, list[Key]]:
    kind = cd.args.get("kind")
    type_name = "INT"
    if isinstance(kind, exp.DataType):
        type_name = str(kind.this.name if hasattr(kind.this, "name") else kind.this).upper()
        type_name = type_name.replace("DTYPE.", "")
    nullable = True
    has_default = default_now = on_update_now = False
    literal_default: tuple[object, ...] = ()
    auto = False
    generated = Generated.NO
    deps: tuple[str, ...] = ()
    expression: str | None = None
    keys: list[Key] = []
    name = _name(cd.this)
    for c in cd.args.get("constraints") or []:
        k = c.args.get("kind") if isinstance(c, exp.ColumnConstraint) else c
        if isinstance(k, exp.NotNullColumnConstraint):
            nullable = bool(k.args.get("allow_null"))
        elif isinstance(k, exp.DefaultColumnConstraint):
            has_default = True
            default_now = clock_reading(k.this) is not None
            if isinstance(k.this, exp.Literal | exp.Null | exp.Neg):
                with contextlib.suppress(CannotEvaluate):
                    literal_default = (literal(k.this),)
        elif isinstance(k, exp.OnUpdateColumnConstraint):
            on_update_now = clock_reading(k.this) is not None
        elif isinstance(k, exp.AutoIncrementColumnConstraint):
            auto = True
        elif isinstance(k, exp.PrimaryKeyColumnConstraint):
            keys.append(Key(KeyKind.PRIMARY, (name,)))
            nullable = False
        elif isinstance(k, exp.UniqueColumnConstraint):
            keys.append(Key(KeyKind.UNIQUE, (name,)))
        elif isinstance(k, exp.ComputedColumnConstraint | exp.GeneratedAsIdentityColumnConstraint):
            persisted = bool(k.args.get("persisted"))
            generated = Generated.STORED if persisted else Generated.VIRTUAL
            deps = tuple(dict.fromkeys(str(c.name) for c in k.find_all(exp.Column)))
            if isinstance(k, exp.ComputedColumnConstraint) and isinstance(k.this, exp.Expression):
                expression = k.this.sql(dialect=RplayMySQL)
    if type_name in ("SERIAL",):
        auto, nullable = True, False
        keys.append(Key(KeyKind.UNIQUE, (name,)))
    length = None
    if isinstance(kind, exp.DataType) and type_name in ("CHAR", "VARCHAR") and kind.expressions:
        size = kind.expressions[0].this
        length = int(size.this) if isinstance(size, exp.Literal) and size.is_int else None
    scale = None
    if isinstance(kind, exp.DataType) and type_name in ("DECIMAL", "UDECIMAL"):
        digits = kind.expressions[1].this if len(kind.expressions) > 1 else None
        scale = int(digits.this) if isinstance(digits, exp.Literal) and digits.is_int else 0
    choices = None
    if isinstance(kind, exp.DataType) and kind.this is exp.DataType.Type.ENUM:
        choices = tuple(str(x.this).casefold().rstrip(" ") for x in kind.expressions if isinstance(x, exp.Literal))
    return Column(name, type_name, nullable, has_default, auto, generated, deps, default_now, on_update_now,
                  literal_default, length, scale, expression, choices), keys


def _key_columns(node: exp.Expression) -> tuple[tuple[str, ...], bool]:
    cols: list[str] = []
    prefix = False
    for e in node.find_all(exp.Column, exp.Identifier, exp.ColumnPrefix, exp.Ordered):
        if isinstance(e, exp.ColumnPrefix):
            prefix = True
    items = node.expressions if node.expressions else []
    if not items and isinstance(node.this, exp.Schema):
        items = node.this.expressions
    for it in items:
        if isinstance(it, exp.Ordered):
            it = it.this
        if isinstance(it, exp.ColumnPrefix):
            prefix = True
            it = it.this
        cols.append(_name(it))
    return tuple(c for c in cols if c), prefix


def _btree(node: exp.Expression) -> bool:
    """``USING BTREE`` on a key, written before or after its columns."""
    using = [node.args.get("index_type")] + [n.args.get("using") for n in node.find_all(
        exp.IndexConstraintOption, exp.IndexParameters)]
    return any((u.name if isinstance(u, exp.Expression) else str(u)).upper() == "BTREE" for u in using if u)


def _table_constraint(node: exp.Expression) -> Key | None:
    if isinstance(node, exp.PrimaryKey):
        cols, prefix = _key_columns(node)
        return Key(KeyKind.PRIMARY, cols, prefix, _btree(node))
    if isinstance(node, exp.UniqueColumnConstraint):
        cols, prefix = _key_columns(node)
        return Key(KeyKind.UNIQUE, cols, prefix, _btree(node))
    if isinstance(node, exp.IndexColumnConstraint):
        cols, prefix = _key_columns(node)
        kind = str(node.args.get("kind") or "").upper()
        return Key(KeyKind.FULLTEXT if kind == "FULLTEXT" else (KeyKind.UNIQUE if kind == "UNIQUE"
                   else KeyKind.PLAIN), cols, prefix, _btree(node))
    if isinstance(node, exp.Constraint):
        for e in node.expressions:
            k = _table_constraint(e)
            if k:
                return k
    return None


def _table_def(name: str, schema: exp.Expression | None, engine: str | None, temporary: bool) -> Table:
    columns: list[Column] = []
    keys: list[Key] = []
    fks: list[ForeignKey] = []
    if isinstance(schema, exp.Schema):
        for e in schema.expressions:
            if isinstance(e, exp.ColumnDef):
                col, ks = _column_def(e)
                columns.append(col)
                keys.extend(ks)
            else:
                k = _table_constraint(e)
                if k is not None and k.columns:
                    keys.append(k)
                named = e.name if isinstance(e, exp.Constraint) else ""
                for f in e.find_all(exp.ForeignKey):  # unnamed: InnoDB names them t_ibfk_1, t_ibfk_2, ...
                    fks.append(replace(_foreign_key(f), name=(named or f"{name}_ibfk_{len(fks) + 1}").lower()))
    pk_cols = {c.lower() for k in keys if k.kind is KeyKind.PRIMARY for c in k.columns}
    columns = [replace(c, nullable=False) if c.name.lower() in pk_cols else c for c in columns]
    checks = tuple(c.this.sql(dialect=RplayMySQL) for c in schema.find_all(exp.CheckColumnConstraint)
                   if isinstance(c.this, exp.Expression)) if isinstance(schema, exp.Schema) else ()
    return Table(name, engine or "", tuple(columns), tuple(keys), temporary,
                 foreign_keys=tuple(f for f in fks if f.parent), checks=checks)


def _foreign_key(node: exp.ForeignKey) -> ForeignKey:
    ref = node.args.get("reference")
    target = ref.this.this if isinstance(ref, exp.Reference) and isinstance(ref.this, exp.Schema) else None
    actions = {"DELETE": "RESTRICT", "UPDATE": "RESTRICT"}
    for option in (ref.args.get("options") or []) if isinstance(ref, exp.Reference) else []:
        words = str(option).upper().split()
        if len(words) > 2 and words[0] == "ON" and words[1] in actions:
            actions[words[1]] = " ".join(words[2:])
    parent_cols = ref.this.expressions if isinstance(ref, exp.Reference) and isinstance(ref.this, exp.Schema) else []
    return ForeignKey(_name(target).lower() if isinstance(target, exp.Table) else "",
                      actions["DELETE"], actions["UPDATE"], tuple(_name(c).lower() for c in node.expressions),
                      tuple(_name(c).lower() for c in parent_cols))


def _properties(tree: exp.Expression) -> tuple[str | None, bool, str | None]:
    engine: str | None = None
    temporary = False
    like: str | None = None
    props = tree.args.get("properties")
    items = list(props.expressions) if props is not None else []
    items += list(tree.args.get("options") or [])
    for p in items:
        if isinstance(p, exp.EngineProperty):
            engine = _name(p.this)
        elif isinstance(p, exp.TemporaryProperty):
            temporary = True
        elif isinstance(p, exp.LikeProperty):
            like = _name(p.this)
    return engine, temporary, like


def _create(tree: exp.Create) -> StatementInfo:
    kind = str(tree.args.get("kind") or "").upper()
    name = _name(tree.this)
    exists = bool(tree.args.get("exists"))
    if kind == "TABLE":
        engine, temporary, like = _properties(tree)
        table = _table_def(name, tree.this, engine, temporary)
        if like:
            return StatementInfo(Kind.CREATE_TABLE_LIKE, temporary=temporary, if_not_exists=exists, like=like,
                                 targets=(name,), reads=(like,), name=name)
        select = tree.expression
        if select is not None:
            sel = _select(select)
            dup = str(tree.args.get("duplicates") or "").upper()
            return StatementInfo(Kind.CREATE_TABLE_SELECT, writes=(Write(name, Op.INSERT, None),),
                                 reads=sel.reads, functions=sel.functions, sysvars=sel.sysvars,
                                 temporary=temporary, if_not_exists=exists, table_def=table, engine=engine,
                                 ignore=dup == "IGNORE", replace=dup == "REPLACE", select=sel,
                                 targets=(name,), name=name, select_source=True, limit=sel.limit)
        return StatementInfo(Kind.CREATE_TABLE, temporary=temporary, if_not_exists=exists, table_def=table,
                             engine=engine, targets=(name,), name=name,
                             extra=_deprecated_syntax(tree.this.expressions if isinstance(tree.this, exp.Schema)
                                                      else ()))
    if kind == "VIEW":
        view_sel = _select(tree.expression) if tree.expression is not None else None
        if view_sel is not None and not isinstance(tree.this, exp.Schema):  # no column list: names from the SELECT
            view_sel = replace(view_sel, text=_text(tree.expression))  # the data model reads views' rows
        extra = ((CHECK_OPTION,) if tree.args.get("check_option") else ()) + (
            () if _updatable(tree.expression) else (NOT_UPDATABLE,))
        return StatementInfo(Kind.CREATE_VIEW, name=name, select=view_sel, targets=(name,),
                             replace=bool(tree.args.get("replace")), extra=extra)
    if kind == "SEQUENCE":
        return StatementInfo(Kind.CREATE_SEQUENCE, name=name, targets=(name,), if_not_exists=exists,
                             temporary=_properties(tree)[1])
    return StatementInfo(Kind.DDL_OTHER, name=name, extra=(f"CREATE {kind}",))


def _select(tree: exp.Expression) -> StatementInfo:
    funcs, sysvars = _expression_facts(tree)
    skip = nowait = False
    update = _for_update(tree)
    for lock in tree.find_all(exp.Lock):
        w = lock.args.get("wait")  # the dialect: SKIP LOCKED -> wait=False, NOWAIT -> wait=True
        if w is False:
            skip = True
        elif w is True:
            nowait = True
    cols: list[str] = []
    if isinstance(tree, exp.Select):
        for e in tree.expressions:
            if isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)):
                cols.append("*")
            else:
                cols.append(output_name(e))
    return StatementInfo(Kind.SELECT, reads=tuple(_tables(tree)), functions=tuple(funcs),
                         sysvars=tuple(sysvars), limit=_any_limit(tree), skip_locked=skip, nowait=nowait,
                         columns=tuple(cols), extra=(ONE_ROW,) if _one_row(tree) else (), for_update=update)


def _for_update(tree: exp.Expression) -> bool:
    return any(lock.args.get("update") for lock in tree.find_all(exp.Lock))


DEPRECATED_SYNTAX = "deprecated syntax"  # StatementInfo.extra of a CREATE TABLE with a column type MySQL deprecates
_INTEGERS = frozenset({exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.MEDIUMINT,
                       exp.DataType.Type.INT, exp.DataType.Type.BIGINT, exp.DataType.Type.UTINYINT,
                       exp.DataType.Type.USMALLINT, exp.DataType.Type.UMEDIUMINT, exp.DataType.Type.UINT,
                       exp.DataType.Type.UBIGINT})
_UNSIGNED_FRACTIONS = frozenset({exp.DataType.Type.UDECIMAL, exp.DataType.Type.UDOUBLE})
_FLOATS = frozenset({exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE})


def _updatable(q: object) -> bool:
    """Whether a view's rows can be written through it: not with aggregates, window functions, DISTINCT,
    GROUP BY, HAVING, a UNION or no table (both servers: 1288 for UPDATE / DELETE, 1471 for INSERT;
    fixtures/seeds/003_logging_rules/view_not_updatable.sql)."""
    if isinstance(q, exp.Subquery):
        q = q.this
    if not isinstance(q, exp.Select) or not (q.args.get("from_") or q.args.get("from")):
        return False
    if q.args.get("group") or q.args.get("having") or q.args.get("distinct"):
        return False
    return not any(x.find(exp.AggFunc, exp.Window) for x in q.expressions)


def _deprecated_syntax(columns: Iterable[exp.Expression]) -> tuple[str, ...]:
    """(DEPRECATED_SYNTAX,) when a column type is one MySQL 9.7 warns about (1681) in CREATE or ALTER TABLE:
    an integer display width (TINYINT(1) included), UNSIGNED on DECIMAL / FLOAT / DOUBLE, FLOAT(M,D) /
    DOUBLE(M,D) (fixtures/seeds/003_logging_rules/ddl_warnings.sql)."""
    for col in columns:
        t = col.args.get("kind") if isinstance(col, exp.ColumnDef) else None
        if not isinstance(t, exp.DataType):
            continue
        params = len(t.expressions or ())
        if (t.this in _INTEGERS and params) or t.this in _UNSIGNED_FRACTIONS or (t.this in _FLOATS and params == 2):
            return (DEPRECATED_SYNTAX,)
    return ()


ONE_ROW = "one row"  # StatementInfo.extra of a SELECT that returns a row even from empty tables


def _one_row(tree: exp.Expression) -> bool:
    """SELECT COUNT(*) FROM t: an aggregate without GROUP BY, HAVING or LIMIT returns one row, rows or not."""
    return isinstance(tree, exp.Select) and not any(tree.args.get(a) for a in ("group", "having", "limit")) \
        and any(isinstance(e.unalias(), exp.AggFunc) or any(e.find_all(exp.AggFunc)) for e in tree.expressions)


def _drop(tree: exp.Drop) -> StatementInfo:
    kind = str(tree.args.get("kind") or "").upper()
    names = [str(t.name) for t in tree.args.get("tables") or []] or [_name(tree.this)]
    exists = bool(tree.args.get("exists"))
    if kind == "TABLE":
        return StatementInfo(Kind.DROP_TABLE, targets=tuple(names), if_exists=exists,
                             temporary=bool(tree.args.get("temporary")))
    if kind == "VIEW":
        return StatementInfo(Kind.DROP_VIEW, targets=tuple(names), if_exists=exists)
    if kind == "TRIGGER":
        return StatementInfo(Kind.DROP_TRIGGER, targets=tuple(names), if_exists=exists)
    if kind in ("FUNCTION", "PROCEDURE"):
        return StatementInfo(Kind.DROP_ROUTINE, targets=tuple(names), if_exists=exists, routine_kind=kind)
    if kind == "SEQUENCE":
        return StatementInfo(Kind.DROP_TABLE, targets=tuple(names), if_exists=exists,
                             temporary=bool(tree.args.get("temporary")))
    return StatementInfo(Kind.DDL_OTHER, targets=tuple(names), extra=(f"DROP {kind}",))


def _alter(tree: exp.Alter) -> StatementInfo:
    engine, _, _ = _properties(tree)
    added: list[Column] = []
    dropped: list[str] = []
    changed: list[tuple[str, Column | str]] = []
    keys: list[Key] = []
    moved: list[tuple[str, str]] = []
    drop_pk = False
    for a in tree.args.get("actions") or []:
        where = _position(a.this if isinstance(a, exp.ModifyColumn) else a)
        if where is not None:
            moved.append(where)
        if isinstance(a, exp.ColumnDef):
            col, col_keys = _column_def(a)
            added.append(col)
            keys.extend(col_keys)
        elif isinstance(a, exp.AddConstraint):
            keys.extend(k for k in (_table_constraint(e) for e in a.expressions) if k is not None and k.columns)
        elif isinstance(a, exp.DropPrimaryKey):
            drop_pk = True
        elif isinstance(a, exp.EngineProperty):
            engine = _name(a.this)
        elif isinstance(a, exp.Drop) and str(a.args.get("kind") or "COLUMN").upper() == "COLUMN":
            dropped.append(_name(a.this))
        elif isinstance(a, exp.ModifyColumn) and isinstance(a.this, exp.ColumnDef):
            col, col_keys = _column_def(a.this)
            frm = a.args.get("rename_from")
            changed.append((frm.name if isinstance(frm, exp.Identifier) else col.name, col))
            keys.extend(col_keys)
        elif isinstance(a, exp.RenameColumn) and isinstance(a.args.get("to"), exp.Column):
            changed.append((a.this.name, a.args["to"].name))
    return StatementInfo(Kind.ALTER_TABLE, targets=(_name(tree.this),), engine=engine,
                         added_columns=tuple(added), dropped_columns=tuple(dropped), added_keys=tuple(keys),
                         changed_columns=tuple(changed), moved_columns=tuple(moved),
                         drops_primary_key=drop_pk, extra=_deprecated_syntax(tree.args.get("actions") or ()))


def _position(a: object) -> tuple[str, str] | None:
    """(column, the column it follows or "" for FIRST) of a column definition placed by FIRST / AFTER."""
    if not isinstance(a, exp.ColumnDef):
        return None
    pos = a.args.get("position")
    if not isinstance(pos, exp.ColumnPosition):
        return None
    after = pos.this.name if str(pos.args.get("position") or "").upper() == "AFTER" and pos.this else ""
    return a.name, after


def _assignments(tree: exp.Set) -> StatementInfo:
    out: list[Assignment] = []
    funcs, sysvars, reads = [], [], []
    for item in tree.expressions:
        if not isinstance(item, exp.SetItem):
            continue
        kind = str(item.args.get("kind") or "").upper()
        if kind == "TRANSACTION":
            text = " ".join(e.sql() if isinstance(e, exp.Expression) else str(e) for e in item.expressions)
            scope = "GLOBAL" if item.args.get("global_") else "SESSION" if item.args.get("session") else "NEXT"
            return StatementInfo(Kind.SET_TRANSACTION, assignments=(Assignment(scope, "transaction", text),))
        eq = item.this
        if not isinstance(eq, exp.EQ):
            continue
        target = eq.this
        scope = kind or "SESSION"
        if isinstance(target, exp.SessionParameter):
            name = _name(target.this).lower()
            k = str(target.args.get("kind") or "").upper()
            if k:
                scope = k
        elif isinstance(target, exp.Parameter) or (isinstance(target, exp.Column) and str(target.name).startswith("@")):
            name = _name(target).lstrip("@").lower()
            scope = "USER"
        else:
            name = _name(target).lower()
        if name.startswith("@"):
            scope, name = "USER", name.lstrip("@")
        value = eq.expression
        reads += [t for t in _tables(value) if t not in reads]  # SET x = (SELECT ...): in a body, read-locked
        f, s = _expression_facts(value)
        funcs += f
        sysvars += s
        if isinstance(value, exp.Literal | exp.Var | exp.Identifier | exp.Column):
            text = str(value.this if not isinstance(value, exp.Column) else value.name)
        elif isinstance(value, exp.Boolean):
            text = "ON" if value.this else "OFF"
        else:
            text = value.sql() if isinstance(value, exp.Expression) else str(value)
        out.append(Assignment(scope, name, text))
    return StatementInfo(Kind.SET, assignments=tuple(out), functions=tuple(funcs), sysvars=tuple(sysvars),
                         reads=tuple(reads), limit=_any_limit(tree), for_update=_for_update(tree))


def _body_statements(node: exp.Expression | None) -> tuple[StatementInfo, ...]:
    """Statements of a routine/trigger body in textual order (every branch: conditions are not evaluated)."""
    if node is None:
        return ()
    out: list[StatementInfo] = []
    control = (exp.Block, exp.IfBlock, exp.WhileBlock, exp.RepeatBlock, exp.LoopBlock, exp.CaseStatement)
    loops = 0
    handlers = 0
    handler: int | None = None
    scope: list[int] = []  # the handlers of the nested blocks being visited (StatementInfo.catchers)
    ifs = 0
    unrolled: dict[int, AnyLoop] = {}  # id(loop node) -> the loop as the CALL unrolls it

    def visit(n: exp.Expression, counted: tuple[AnyLoop, ...], before: exp.Expression | None = None,
              guards: tuple[Guard, ...] = ()) -> None:
        nonlocal loops, handlers, handler, ifs
        if isinstance(n, exp.CaseStatement):  # as the IF ... ELSEIF chain it means: its WHENs guard their branches
            chain = if_chain(n, need_else=False)
            if chain is not None:
                n = chain
        if isinstance(n, exp.IfBlock):
            cond = n.this.sql(dialect=RplayMySQL) if isinstance(n.this, exp.Expression) else None
            test = _common(n.this, [], kind=Kind.NOOP) if isinstance(n.this, exp.Expression) else None
            if test is not None:  # evaluated where a CALL reaches it (calls.py)
                out.append(replace(test, loops=counted, guards=guards, extra=(CONDITION,), limit=_any_limit(n.this)))
            ifs += 1
            at = ifs
            for key, holds in (("true", True), ("false", False)):
                branch = n.args.get(key)
                if isinstance(branch, exp.Expression):
                    visit(branch, counted, None,
                          (*guards, Guard(cond, holds, at, len(counted))) if cond else guards)
            return
        if isinstance(n, control):
            if isinstance(n, exp.WhileBlock | exp.RepeatBlock | exp.LoopBlock):
                loops += 1
                loop = counted_loop(n, node, loops, before) or cursor_loop(n, node, loops) \
                    or conditional_loop(n, loops)
                counted = (*counted, loop) if loop is not None else counted
                if loop is not None:
                    unrolled[id(n)] = loop
            prev: exp.Expression | None = None
            outer = len(scope)
            for child in _children(n):
                visit(child, counted, prev, guards)
                prev = child
            del scope[outer:]  # a block's handlers end with it
            return
        if isinstance(n, exp.Leave):
            target = _left_loop(n)
            loop = unrolled.get(id(target)) if target is not None else None
            if loop is not None:  # LEAVE of a loop the CALL unrolls: it ends the passes (calls.py)
                out.append(StatementInfo(Kind.NOOP, leaves=loop.position, loops=counted, guards=guards))
            elif target is None and _label(node) == n.name.lower():  # LEAVE of the body's own label: RETURN
                out.append(StatementInfo(Kind.NOOP, leaves=RETURNS, loops=counted, guards=guards))
            return
        if isinstance(n, exp.Return | exp.Declare | exp.Leave | exp.Iterate | nodes.DeclareCursor |
                      nodes.DeclareCondition | nodes.CursorOp | nodes.Signal | nodes.GetDiagnostics):
            # a cursor's SELECT (OPEN runs it), RETURN (SELECT ...), DEFAULT (SELECT ...): its LIMIT counts
            info = _common(n, [], kind=Kind.NOOP, limit=_any_limit(n))  # (unsafe.limited)
            if isinstance(n, nodes.Signal) and str(n.args.get("kind")).upper() == "SIGNAL":
                info = replace(info, signal=signal_code(n))
            if not (info.functions or info.sysvars or info.reads or info.signal):
                return
        elif isinstance(n, nodes.DeclareHandler):
            b = n.args.get("body")
            handlers += 1
            if isinstance(b, exp.Expression):  # runs only on an error or NOT FOUND: never on a CALL's way
                handler = handlers - 1
                visit(b, counted, None, (*guards, HANDLER))
                handler = None
            if isinstance(n.parent, exp.Block) and n.parent is not node:
                scope.append(handlers - 1)
            return
        else:
            info = analyze_tree(n)
            if info.kind is Kind.SET and assigned(n):  # SET @v = ...: the session's variable, after the body
                info = replace(info, user_vars=assigned(n), text=_text(n))
            elif info.kind in _TEXT_KINDS or (info.kind in _ASSIGNING and _assigns_local(n)):
                info = replace(info, text=_text(n))
        if handler is not None:
            info = replace(info, handler=handler)
        if scope:
            info = replace(info, catchers=tuple(scope))
        out.append(replace(info, loops=counted, guards=guards) if counted or guards else info)

    visit(node, ())
    return tuple(out)


RETURNS = -1  # StatementInfo.leaves of a LEAVE of the body's own label (``proc: BEGIN ... LEAVE proc``): the CALL ends


def _label(block: exp.Expression) -> str | None:
    own = block.args.get("label") if isinstance(block, exp.Block) else None
    return None if own is None else str(own.name if isinstance(own, exp.Expression) else own).lower()


def _left_loop(leave: exp.Expression) -> exp.Expression | None:
    """The loop a ``LEAVE label`` ends (None: a block's label, or no such loop)."""
    label = leave.name.lower()
    at = leave.find_ancestor(exp.WhileBlock, exp.RepeatBlock, exp.LoopBlock)
    while at is not None:
        own = at.args.get("label")
        if own is not None and str(own.name if isinstance(own, exp.Expression) else own).lower() == label:
            return at
        at = at.find_ancestor(exp.WhileBlock, exp.RepeatBlock, exp.LoopBlock)
    return None


# body statements whose rows the data model follows once CALL's arguments are in (predictor/routines.py)
_TEXT_KINDS = frozenset({Kind.INSERT, Kind.REPLACE, Kind.UPDATE, Kind.DELETE, Kind.CREATE_TABLE_SELECT, Kind.CALL})
_ASSIGNING = frozenset({Kind.SET, Kind.SELECT})  # SET v = ... / SELECT ... INTO v: CALL follows the value
HANDLER = Guard("FALSE", True)  # a handler's statements: not on a CALL's way (calls.py runs EXIT handlers)


def _assigns_local(n: exp.Expression) -> bool:
    """``SET v = ...`` or ``SELECT ... INTO v``: a local variable gets a value (predictor/calls.py follows it)."""
    if isinstance(n, exp.Select):
        into = n.args.get("into")
        return isinstance(into, exp.Into) and not into.args.get("unlogged") and not into.args.get("temporary")
    return isinstance(n, exp.Set) and any(
        isinstance(i, exp.SetItem) and isinstance(i.this, exp.EQ) and isinstance(i.this.this, exp.Column)
        and not i.this.this.table for i in n.expressions)


def _text(n: exp.Expression) -> str | None:
    """The statement regenerated, if it reads back as the same statement (else the data model skips it)."""
    try:
        text = n.sql(dialect=RplayMySQL)
    except Exception:  # a generator gap only costs the data model this statement
        return None
    return text if analyze(text) == analyze_tree(n) else None


def _children(n: exp.Expression) -> list[exp.Expression]:
    out: list[exp.Expression] = []
    for key in ("this", "true", "false", "body", "expressions", "ifs", "default", "until"):
        v = n.args.get(key)
        if key in ("this", "until") and not isinstance(n, exp.Block):
            # conditions: their functions still count
            if isinstance(v, exp.Expression) and not isinstance(v, exp.Block):
                continue
        if isinstance(v, list):
            out += [x for x in v if isinstance(x, exp.Expression)]
        elif isinstance(v, exp.Expression):
            out.append(v)
    flat: list[exp.Expression] = []
    for x in out:
        if isinstance(x, exp.If):
            flat += [y for y in (x.args.get("true"),) if isinstance(y, exp.Expression)]
        else:
            flat.append(x)
    return flat


def _prepared(tree: nodes.Prepare | nodes.ExecutePrepared | nodes.Deallocate) -> StatementInfo:
    name = _name(tree.this)
    if isinstance(tree, nodes.Deallocate):
        return StatementInfo(Kind.DEALLOCATE, name=name)
    if isinstance(tree, nodes.ExecutePrepared):
        using = tuple(_name(v.this).lower() if isinstance(v, exp.Parameter) else "" for v in tree.expressions)
        return StatementInfo(Kind.EXECUTE, name=name, using=using)
    src = tree.expression
    if isinstance(src, exp.Literal) and src.is_string:
        return StatementInfo(Kind.PREPARE, name=name, source=("TEXT", str(src.this)))
    if isinstance(src, exp.Parameter):
        return StatementInfo(Kind.PREPARE, name=name, source=("VAR", (_name(src.this) or "").lower()))
    return StatementInfo(Kind.PREPARE, name=name)


def analyze_tree(tree: exp.Expression) -> StatementInfo:
    info = _analyze_tree(tree)
    names = assigned(tree) if info.kind is not Kind.SET else ()
    return replace(info, user_vars=names) if names else info


def _analyze_tree(tree: exp.Expression) -> StatementInfo:
    if isinstance(tree, exp.Insert):
        return _insert(tree)
    if isinstance(tree, exp.Update):
        return _update(tree)
    if isinstance(tree, exp.Delete):
        return _delete(tree)
    if isinstance(tree, exp.LoadData):
        return _load(tree)
    if isinstance(tree, exp.Select | exp.Union | exp.Intersect | exp.Except):
        return _select(tree)
    if isinstance(tree, exp.Create):
        return _create(tree)
    if isinstance(tree, exp.Drop):
        return _drop(tree)
    if isinstance(tree, exp.Alter):
        return _alter(tree)
    if isinstance(tree, exp.TruncateTable):
        return StatementInfo(Kind.TRUNCATE, targets=tuple(str(t.name) for t in tree.expressions))
    if isinstance(tree, exp.Set):
        return _assignments(tree)
    if isinstance(tree, exp.Transaction):
        return StatementInfo(Kind.BEGIN)
    if isinstance(tree, exp.Commit):
        return StatementInfo(Kind.COMMIT, chain=bool(tree.args.get("chain")))
    if isinstance(tree, exp.Rollback):
        sp = tree.args.get("savepoint")
        if sp is not None:
            return StatementInfo(Kind.ROLLBACK_TO, savepoint=_name(sp))
        return StatementInfo(Kind.ROLLBACK, chain=bool(tree.args.get("chain")))
    if isinstance(tree, nodes.Prepare | nodes.ExecutePrepared | nodes.Deallocate):
        return _prepared(tree)
    if isinstance(tree, nodes.BinlogEvent):
        return StatementInfo(Kind.BINLOG)  # the events are read at prediction time (literals are not cached)
    if isinstance(tree, nodes.Savepoint):
        return StatementInfo(Kind.SAVEPOINT, savepoint=_name(tree.this))
    if isinstance(tree, nodes.ReleaseSavepoint):
        return StatementInfo(Kind.RELEASE_SAVEPOINT, savepoint=_name(tree.this))
    if isinstance(tree, nodes.Call):
        funcs, sysvars = _expression_facts(exp.Tuple(expressions=list(tree.expressions)))
        return StatementInfo(Kind.CALL, name=_name(tree.this), functions=tuple(funcs), sysvars=tuple(sysvars))
    if isinstance(tree, nodes.Do):
        return _common(tree, [], kind=Kind.DO)
    if isinstance(tree, nodes.Xa):
        return StatementInfo(Kind.XA, xa=str(tree.args.get("kind") or "").upper())
    if isinstance(tree, nodes.LockTables):
        locks = [(_name(i.this), "WRITE" in str(i.args.get("kind") or "").upper()) for i in tree.expressions]
        return StatementInfo(Kind.LOCK_TABLES, targets=tuple(n for n, w in locks if w),
                             reads=tuple(n for n, w in locks if not w))
    if isinstance(tree, nodes.UnlockTables):
        return StatementInfo(Kind.UNLOCK_TABLES)
    if isinstance(tree, nodes.CreateTrigger):
        return StatementInfo(Kind.CREATE_TRIGGER, name=_name(tree.this), targets=(_name(tree.args["table"]),),
                             timing=str(tree.args.get("timing")).upper(),
                             event=str(tree.args.get("event")).upper(),
                             body=_body_statements(tree.args.get("body")))
    if isinstance(tree, nodes.CreateRoutine):
        return StatementInfo(Kind.CREATE_ROUTINE, name=_name(tree.this),
                             routine_kind=str(tree.args.get("kind")).upper(),
                             body=_body_statements(tree.args.get("body")), signature=signature(tree))
    if isinstance(tree, nodes.RenameTables):
        pairs = [tuple(_name(x) for x in t.expressions) for t in tree.expressions]
        return StatementInfo(Kind.RENAME_TABLE, targets=tuple(x for p in pairs for x in p))
    if isinstance(tree, nodes.Flush):
        return StatementInfo(Kind.FLUSH, extra=("local",) if tree.args.get("local") else ())
    if isinstance(tree, nodes.TableMaintenance):
        kind = str(tree.args.get("kind") or "").upper()
        if kind in ("CHECK", "CHECKSUM") or tree.args.get("local"):
            return StatementInfo(Kind.NOOP)
        return StatementInfo(Kind.DDL_OTHER, targets=tuple(_name(t) for t in tree.expressions), extra=(kind,))
    if isinstance(tree, exp.Analyze):
        return StatementInfo(Kind.DDL_OTHER, extra=("ANALYZE",))
    if isinstance(tree, exp.Use | exp.Show | exp.Describe):
        return StatementInfo(Kind.NOOP)
    if isinstance(tree, exp.Block):
        return StatementInfo(Kind.UNKNOWN, unknown_reason="compound statement outside a routine")
    return StatementInfo(Kind.UNKNOWN, unknown_reason=f"unsupported statement ({type(tree).__name__})")
