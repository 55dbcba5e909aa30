"""Expression classes for MySQL/MariaDB statements sqlglot has no node for.

Only statements with no fitting sqlglot class get one here; the rest reuse sqlglot's classes with
extra args (see `predictor.dialect` for the full table). Each class is a plain `exp.Expression`, so
`find_all`, `walk` and `args` work as for any sqlglot node.
"""

from __future__ import annotations

from typing import ClassVar

from sqlglot import exp


class Call(exp.Expression):
    """CALL p(args): `this` is the routine's exp.Table (db-qualified if written), `expressions` the args."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expressions": False}


class Do(exp.Expression):
    """DO expr, ...: evaluates expressions and discards results."""

    arg_types: ClassVar[dict[str, bool]] = {"expressions": True}


class Savepoint(exp.Expression):
    """SAVEPOINT name: `this` is the exp.Identifier."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class ReleaseSavepoint(exp.Expression):
    """RELEASE SAVEPOINT name: `this` is the exp.Identifier."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class TableLock(exp.Expression):
    """One `t [AS a] READ [LOCAL] | [LOW_PRIORITY] WRITE` item: `this` exp.Table, `kind` upper str."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "kind": True}


class LockTables(exp.Expression):
    """LOCK TABLE[S] items: `expressions` is a list of TableLock."""

    arg_types: ClassVar[dict[str, bool]] = {"expressions": True}


class UnlockTables(exp.Expression):
    """UNLOCK TABLE[S]."""

    arg_types: ClassVar[dict[str, bool]] = {}


class Xa(exp.Expression):
    """XA statement: `kind` (START, END, PREPARE, COMMIT, ROLLBACK, RECOVER; BEGIN is stored as START),
    `this` the xid (exp.Literal/exp.Tuple of gtrid[, bqual[, formatID]]; None for RECOVER),
    `one_phase` for XA COMMIT ... ONE PHASE, `modifier` (JOIN, RESUME, SUSPEND, FOR MIGRATE, CONVERT XID)."""

    arg_types: ClassVar[dict[str, bool]] = {
        "kind": True,
        "this": False,
        "one_phase": False,
        "modifier": False,
    }


class Flush(exp.Expression):
    """FLUSH [NO_WRITE_TO_BINLOG | LOCAL] options: `expressions` are exp.Var option words
    (e.g. LOGS, BINARY LOGS, TABLES) or, for FLUSH TABLES t1, t2, `tables` the exp.Table list;
    `local` is True when the statement is not written to the binlog."""

    arg_types: ClassVar[dict[str, bool]] = {"expressions": False, "tables": False, "local": False}


class TableMaintenance(exp.Expression):
    """OPTIMIZE / REPAIR / CHECK / CHECKSUM TABLE t, ...: `kind` upper str, `expressions` exp.Table list,
    `local` for NO_WRITE_TO_BINLOG / LOCAL. (ANALYZE TABLE uses sqlglot's exp.Analyze.)"""

    arg_types: ClassVar[dict[str, bool]] = {"kind": True, "expressions": True, "local": False}


class RenameTables(exp.Expression):
    """RENAME TABLE a TO b, ...: `expressions` is a list of exp.Tuple(expressions=[from, to])."""

    arg_types: ClassVar[dict[str, bool]] = {"expressions": True}


class Definer(exp.Expression):
    """DEFINER = user: `this` the user text as written ('u'@'h', u@h or CURRENT_USER)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class CreateTrigger(exp.Expression):
    """CREATE [DEFINER=..] TRIGGER [IF NOT EXISTS] name {BEFORE|AFTER} {INSERT|UPDATE|DELETE}
    ON t FOR EACH ROW [{FOLLOWS|PRECEDES} other] body.
    `this` the trigger exp.Table, `timing` BEFORE/AFTER, `event` INSERT/UPDATE/DELETE, `table` exp.Table,
    `body` one routine statement (often a Block), `definer`, `exists`, `replace`, `order`."""

    arg_types: ClassVar[dict[str, bool]] = {
        "this": True,
        "timing": True,
        "event": True,
        "table": True,
        "body": True,
        "definer": False,
        "exists": False,
        "replace": False,
        "order": False,
    }


class RoutineParam(exp.Expression):
    """A routine parameter: `this` exp.Identifier, `kind` exp.DataType, `mode` IN/OUT/INOUT (procedures)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "kind": True, "mode": False}


class CreateRoutine(exp.Expression):
    """CREATE [DEFINER=..] {FUNCTION|PROCEDURE} [IF NOT EXISTS] name (params) [RETURNS type]
    [characteristics] body.
    `kind` FUNCTION/PROCEDURE, `this` exp.Table, `params` RoutineParam list, `returns` exp.DataType,
    `characteristics` exp.Var list (e.g. DETERMINISTIC, NOT DETERMINISTIC, READS SQL DATA,
    SQL SECURITY INVOKER), `deterministic` bool, `body` one routine statement, `definer`, `exists`,
    `replace`, `aggregate` (MariaDB AGGREGATE FUNCTION)."""

    arg_types: ClassVar[dict[str, bool]] = {
        "kind": True,
        "this": True,
        "params": False,
        "returns": False,
        "characteristics": False,
        "deterministic": False,
        "body": True,
        "definer": False,
        "exists": False,
        "replace": False,
        "aggregate": False,
    }


class DeclareHandler(exp.Expression):
    """DECLARE {CONTINUE|EXIT|UNDO} HANDLER FOR conditions stmt: `action` upper str, `conditions` list of
    exp.Var/exp.Literal (SQLEXCEPTION, NOT FOUND, SQLSTATE '..', error numbers, names), `body` statement."""

    arg_types: ClassVar[dict[str, bool]] = {"action": True, "conditions": True, "body": True}


class DeclareCursor(exp.Expression):
    """DECLARE name CURSOR FOR select: `this` exp.Identifier, `expression` the query."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expression": True}


class DeclareCondition(exp.Expression):
    """DECLARE name CONDITION FOR {SQLSTATE '..' | number}: `this` identifier, `expression` the value."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expression": True}


class CursorOp(exp.Expression):
    """OPEN c / CLOSE c / FETCH [[NEXT] FROM] c INTO vars: `kind` OPEN/CLOSE/FETCH, `this` identifier,
    `expressions` the target variables for FETCH."""

    arg_types: ClassVar[dict[str, bool]] = {"kind": True, "this": True, "expressions": False}


class Signal(exp.Expression):
    """SIGNAL / RESIGNAL [SQLSTATE [VALUE] '..' | name] [SET item = value, ...]: `kind` SIGNAL/RESIGNAL,
    `this` the condition, `expressions` exp.EQ items."""

    arg_types: ClassVar[dict[str, bool]] = {"kind": True, "this": False, "expressions": False}


class GetDiagnostics(exp.Expression):
    """GET [CURRENT | STACKED] DIAGNOSTICS [CONDITION n] v = ITEM, ...: `kind` CURRENT/STACKED, `this` the
    condition number (None: statement information), `expressions` exp.EQ(target, exp.Var item). The values
    are not followed: the targets become unknown (routines.assignments)."""

    arg_types: ClassVar[dict[str, bool]] = {"kind": True, "this": False, "expressions": True}


class BinlogEvent(exp.Expression):
    """BINLOG 'base64 events': a row injection (what mysqlbinlog output replays); `this` the exp.Literal."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class Known(exp.Expression):
    """A value the data model computed already (a subquery's result, an aggregate over a group, a user variable)
    put back into a tree (predictor/evaluate.py)."""

    # this: (value,), a tuple so that NULL is not a missing argument; text: what it replaced (``@v``), for
    # the column name of a SELECT item and the SQL text (RplayGenerator.known_sql)
    arg_types: ClassVar[dict[str, bool]] = {"this": True, "text": False}


class PerRow(exp.Expression):
    """A correlated subquery (``NOT EXISTS (SELECT 1 FROM d WHERE d.order_id = o.id)``): evaluated for each row
    of the outer query, its outer columns put in (predictor/query.py, resolved)."""

    # this: (evaluate,), a callable from the outer row to the value; expression: the subquery it stands for
    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expression": True}


class Prepare(exp.Expression):
    """PREPARE name FROM 'text' | @var: `this` the name (an Identifier), `expression` the text (a string
    Literal or the user variable, an exp.Parameter)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expression": True}


class ExecutePrepared(exp.Expression):
    """EXECUTE name [USING @a, ...]: `this` the name, `expressions` the user variables bound to its `?`."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expressions": False}


class Deallocate(exp.Expression):
    """{DEALLOCATE | DROP} PREPARE name."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}
