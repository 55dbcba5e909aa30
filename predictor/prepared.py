"""PREPARE / EXECUTE / DEALLOCATE PREPARE: a session keeps its prepared statements' texts, and EXECUTE runs the
statement with the USING values in place of its ``?`` — the servers log that statement, so it is predicted as
if it had been sent (fixtures/seeds/003_logging_rules/prepared_statements.sql)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from sqlglot import exp

from predictor.analyze import Kind, StatementInfo, analyze
from predictor.binlog import Builder
from predictor.codes import ER_UNKNOWN_STMT_HANDLER
from predictor.dialect import RplayMySQL
from predictor.evaluate import UNKNOWN
from predictor.parse import Unparsed, parse
from predictor.routines import as_expression
from predictor.session import SessionState
from predictor.values import exact_text

if TYPE_CHECKING:
    from predictor.engine import Predictor

_NESTED = (Kind.PREPARE, Kind.EXECUTE, Kind.DEALLOCATE)


def handle_prepare(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    kind, source = info.source or ("", "")
    text: str | None = source if kind == "TEXT" else None
    if kind == "VAR":
        v = s.user_vars.get(source)
        # its exact text when known, else case-folded (keywords and names read the same, literals may not)
        text = (exact_text(v) or str(v)) if isinstance(v, str) else None
    s.statements[(info.name or "").lower()] = text


def handle_deallocate(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    if s.statements.pop((info.name or "").lower(), "") == "":
        b.error = ER_UNKNOWN_STMT_HANDLER


def handle_execute(p: Predictor, b: Builder, info: StatementInfo, s: SessionState) -> None:
    name = (info.name or "").lower()
    if name not in s.statements:
        b.error = ER_UNKNOWN_STMT_HANDLER
        return
    text = s.statements[name]
    sql = bound(text, tuple(s.user_vars.get(v, UNKNOWN) for v in info.using)) if text is not None else None
    run = _analyzed(sql) if sql is not None else None
    if run is None or run.kind is Kind.UNKNOWN or run.kind in _NESTED:
        b.unknown = True
        b.reason = "EXECUTE of a prepared statement the model cannot read" + (
            f": {run.unknown_reason}" if run is not None and run.unknown_reason else
            "" if text is not None else " (prepared from a value it does not know)")
        return
    assert sql is not None
    said, b.sql = b.sql, sql  # the statement the server runs and logs
    try:
        p.dispatch(b, run, s)
    finally:
        b.sql = said


def bound(text: str, values: tuple[object, ...]) -> str | None:
    """``text`` with its ``?`` replaced by ``values`` in order; None when it does not parse or the counts
    differ (the server refuses the EXECUTE: not modelled)."""
    tree = parse(text)
    if isinstance(tree, Unparsed):
        return None
    marks = list(tree.find_all(exp.Placeholder))
    if len(marks) != len(values):
        return None
    if not marks:
        return text
    for mark, v in zip(marks, values, strict=True):
        mark.replace(as_expression(v))
    return tree.sql(dialect=RplayMySQL)


@lru_cache(maxsize=1024)
def _analyzed(sql: str) -> StatementInfo:
    return analyze(sql)
