"""SQL text back from RplayMySQL trees, for the flags sqlglot's MySQL generator drops.

CALL substitutes its arguments into a routine body statement and hands the text to the data model
(predictor/routines.py); a REPLACE that came back as INSERT would be a different statement.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import ClassVar

from sqlglot import exp
from sqlglot.generators.mysql import MySQLGenerator

from predictor import nodes
from predictor.evaluate import UNKNOWN_NAME, Fresh
from predictor.moments import RUN_AT, Moment, calendar_day
from predictor.values import double_sql


def _with_flags(sql: str, verb: str, flags: list[str]) -> str:
    """``verb`` followed by ``flags``, when ``sql`` starts with ``verb`` (a WITH prefix is left alone)."""
    if not flags or not sql.upper().startswith(verb + " "):
        return sql
    return " ".join([verb, *flags]) + sql[len(verb):]


class RplayGenerator(MySQLGenerator):
    TRANSFORMS: ClassVar[dict[type[exp.Expr], Callable[..., str]]] = {
        **MySQLGenerator.TRANSFORMS, nodes.Call: lambda self, e: self.call_sql(e),
        nodes.Known: lambda self, e: self.known_sql(e),
        nodes.GetDiagnostics: lambda self, e: self.getdiagnostics_sql(e),
        nodes.PerRow: lambda self, e: self.sql(e, "expression")}
    SUPPORTS_SELECT_INTO = True  # MySQL's SELECT ... INTO @v / local: not a CREATE TABLE ... AS SELECT

    def into_sql(self, expression: exp.Into) -> str:
        if expression.args.get("temporary") or expression.args.get("unlogged"):
            return super().into_sql(expression)
        targets = [expression.this, *(expression.expressions or ())] if expression.this is not None \
            else list(expression.expressions or ())
        return f"{self.seg('INTO')} {', '.join(self.sql(t) for t in targets)}"

    def insert_sql(self, expression: exp.Insert) -> str:
        sql = super().insert_sql(expression)
        if expression.args.get("replace") and sql.upper().startswith("INSERT "):
            sql = "REPLACE" + sql[len("INSERT"):]
        verb = sql.split(" ", 1)[0].upper()
        priority = expression.args.get("priority")
        return _with_flags(sql, verb, [str(priority).upper()] if priority else [])

    def update_sql(self, expression: exp.Update) -> str:
        flags = [str(expression.args["priority"]).upper()] if expression.args.get("priority") else []
        if expression.args.get("ignore"):
            flags.append("IGNORE")
        return _with_flags(super().update_sql(expression), "UPDATE", flags)

    def delete_sql(self, expression: exp.Delete) -> str:
        flags = [str(expression.args["priority"]).upper()] if expression.args.get("priority") else []
        flags += [word for word in ("quick", "ignore") if expression.args.get(word)]
        return _with_flags(super().delete_sql(expression), "DELETE", [f.upper() for f in flags])

    def known_sql(self, expression: nodes.Known) -> str:
        """A value the data model put into a tree (predictor.evaluate.Known): the text it replaced, else
        a literal."""
        text = expression.args.get("text")
        if text:
            return str(text)
        (v,) = expression.this
        if v is None:
            return "NULL"
        if isinstance(v, int | Decimal):
            return str(v) if isinstance(v, Decimal) else str(int(v))
        if isinstance(v, float):
            return double_sql(v)
        if isinstance(v, Moment) and v.date and RUN_AT.get() is not None and (day := calendar_day(v)) is not None:
            return self.sql(exp.Literal.string(day.isoformat()))  # a date whole days / months from today, by the
            # bets of predictor/moments.py, when the run's day is known (loan_servicing_app's schedule from a first
            # due date a procedure read); without it the text would be compared as a day the run may not be on
        if isinstance(v, Moment) and v.day is not None and v.now is None and not v.date:
            # a time of day so many days / months from today (``TIMESTAMP(CURDATE(), '08:00:00') + INTERVAL 90
            # MINUTE`` in a procedure's local: dental_group_app's booking end): said as it was made, so it reads
            # back as the same reading
            seconds, months = v.day
            return f"CAST((CURDATE() + INTERVAL {months} MONTH + INTERVAL {int(seconds)} SECOND) AS DATETIME)"
        if isinstance(v, Fresh):
            return v.said()
        if not isinstance(v, str):  # a clock reading: no SQL text says it, so statements see it unknown
            return f"{UNKNOWN_NAME}()"
        return self.sql(exp.Literal.string(str(v)))

    def getdiagnostics_sql(self, expression: nodes.GetDiagnostics) -> str:
        condition = expression.this
        head = f"GET {expression.args['kind']} DIAGNOSTICS"
        head += f" CONDITION {self.sql(condition)}" if isinstance(condition, exp.Expression) else ""
        return f"{head} {self.expressions(expression, flat=True)}"

    def prepare_sql(self, expression: nodes.Prepare) -> str:
        return f"PREPARE {self.sql(expression, 'this')} FROM {self.sql(expression, 'expression')}"

    def executeprepared_sql(self, expression: nodes.ExecutePrepared) -> str:
        using = self.expressions(expression, flat=True)
        return f"EXECUTE {self.sql(expression, 'this')}" + (f" USING {using}" if using else "")

    def deallocate_sql(self, expression: nodes.Deallocate) -> str:
        return f"DEALLOCATE PREPARE {self.sql(expression, 'this')}"

    def call_sql(self, expression: nodes.Call) -> str:
        return f"CALL {self.sql(expression, 'this')}({self.expressions(expression, flat=True)})"
