"""parse(sql): one statement into a sqlglot tree, or an Unparsed value saying why not.

The predictor must keep going on SQL it does not understand, so this never raises: anything that does
not parse, or parses only into an opaque exp.Command, comes back as Unparsed(reason).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, TokenError

from predictor import nodes
from predictor.dialect import RplayMySQL

__all__ = ["Parsed", "Unparsed", "parse", "parse_many"]

_DIALECT = RplayMySQL()

# sqlglot logs a warning for each Command fallback; we report those as Unparsed instead.
logging.getLogger("sqlglot").setLevel(logging.ERROR)


@dataclass(frozen=True, slots=True)
class Unparsed:
    """SQL the dialect cannot turn into a tree; `reason` is one human-readable line."""

    reason: str

    def __bool__(self) -> bool:
        return False


Parsed = exp.Expr | Unparsed

# Top-level node classes that are statements; anything else (sqlglot's expression fallback turns
# `SELEC x` into an Alias) is not a statement.
_STATEMENT_BASES: tuple[type[exp.Expr], ...] = (
    exp.Query,
    exp.DML,
    exp.DDL,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Set,
    exp.Use,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.LoadData,
    exp.Show,
    exp.Describe,
    exp.Block,
    exp.Kill,
    exp.Grant,
    exp.Revoke,
    exp.Analyze,
    exp.Comment,
    nodes.Call,
    nodes.Do,
    nodes.Savepoint,
    nodes.ReleaseSavepoint,
    nodes.LockTables,
    nodes.UnlockTables,
    nodes.Xa,
    nodes.Flush,
    nodes.TableMaintenance,
    nodes.RenameTables,
    nodes.CreateTrigger,
    nodes.CreateRoutine,
    nodes.BinlogEvent,
    nodes.Prepare,
    nodes.ExecutePrepared,
    nodes.Deallocate,
)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "no detail"


def _error_reason(error: ParseError) -> str:
    if error.errors:
        first = error.errors[0]
        description = first.get("description") or "parse error"
        highlight = first.get("highlight") or ""
        where = f" at line {first.get('line')} col {first.get('col')}"
        near = f": {highlight!r}" if highlight else ""
        return f"sqlglot: {description}{where}{near}"
    return f"sqlglot: {_first_line(str(error))}"


def _command_reason(command: exp.Command, sql: str) -> str:
    head = " ".join(sql.split()[:3])
    return f"unsupported statement: {head}" if head else f"unsupported statement: {command.name}"


def parse_many(sql: str) -> list[Parsed]:
    """Every statement in `sql` (separated by `;`); one Unparsed if any of it fails to parse."""
    try:
        trees = _DIALECT.parse(sql, error_level=ErrorLevel.IMMEDIATE)
    except ParseError as error:
        return [Unparsed(_error_reason(error))]
    except TokenError as error:
        return [Unparsed(f"sqlglot: {_first_line(str(error))}")]
    except RecursionError:
        return [Unparsed("sqlglot: statement nested too deeply")]
    except Exception as error:  # a sqlglot bug must not stop a workload
        return [Unparsed(f"sqlglot: internal error {type(error).__name__}: {_first_line(str(error))}")]
    result: list[Parsed] = []
    for tree in trees:
        if tree is None:
            continue
        if isinstance(tree, exp.Command):
            result.append(Unparsed(_command_reason(tree, tree.sql() if tree.name else sql)))
        elif not isinstance(tree, _STATEMENT_BASES):
            result.append(Unparsed(f"sqlglot: not a statement: {_first_line(sql)[:60]}"))
        else:
            commands = [node for node in tree.find_all(exp.Command)]
            if commands:
                result.append(Unparsed(_command_reason(commands[0], f"{commands[0].name}")))
            else:
                result.append(tree)
    return result


def parse(sql: str) -> Parsed:
    """The one statement in `sql` (a trailing `;` is fine). Never raises."""
    results = parse_many(sql)
    if not results:
        return Unparsed("empty statement")
    if len(results) > 1:
        return Unparsed(f"expected one statement, got {len(results)}")
    return results[0]


@lru_cache(maxsize=1024)
def parse_expression(sql: str) -> exp.Expression | None:
    """An expression given as SQL text (a condition, a DEFAULT), parsed as ``SELECT <sql>``; None when it is
    not one. The tree is shared: transform a copy."""
    tree = parse(f"SELECT {sql}")
    return tree.expressions[0] if isinstance(tree, exp.Select) and len(tree.expressions) == 1 else None
