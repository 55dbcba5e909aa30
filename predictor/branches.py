"""IF branches in procedure bodies: at CALL time a body statement whose branch condition is known false
(the CALL's arguments, a DEFAULT, a cursor row bound in) is not run.

Every branch of a body is analysed (predictor/analyze.py); each statement keeps the conditions that lead
to it, ``IF c THEN a; ELSEIF d THEN b; ELSE e; END IF`` giving ``a`` (c holds), ``b`` (c fails, d holds)
and ``e`` (both fail). A condition that cannot be evaluated (a variable the body assigns, a column) does
not exclude anything: the statement runs, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from sqlglot import exp

from predictor.evaluate import CannotEvaluate, value
from predictor.parse import parse
from predictor.routines import Bindings, substitute


@dataclass(frozen=True)
class Guard:
    condition: str  # SQL of an IF's condition
    holds: bool  # the statement is in its THEN branch (else in what follows ELSE / ELSEIF)


def excluded(guards: tuple[Guard, ...], bindings: Bindings) -> bool:
    """Whether one of ``guards`` is known to send the CALL elsewhere."""
    for g in guards:
        cond = _condition(g.condition)
        if cond is None:
            continue
        try:
            v = value(substitute(cond, bindings), {})
        except CannotEvaluate:
            continue
        if v is not None and not isinstance(v, int | str):
            continue  # a clock reading, an unknown: not decided
        if _true(v) != g.holds:
            return True
    return False


def _true(v: object) -> bool:
    """SQL truth of a value: NULL and 0 are false (IF takes the ELSE branch)."""
    if v is None:
        return False
    if isinstance(v, str):
        try:
            return float(v) != 0
        except ValueError:
            return False
    return v != 0


@lru_cache(maxsize=1024)
def _condition(sql: str) -> exp.Expression | None:
    tree = parse(f"SELECT {sql}")
    return tree.expressions[0] if isinstance(tree, exp.Select) and len(tree.expressions) == 1 else None
