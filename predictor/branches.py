"""IF branches in procedure and trigger bodies: at CALL time a body statement whose branch condition is known
false (the CALL's arguments, a DEFAULT, a cursor row bound in) is not run (``excluded``); an UPDATE trigger's
statement in a branch no row can take, given the columns the UPDATE leaves alone, writes nothing (``never_taken``).

Every branch of a body is analysed (predictor/analyze.py); each statement keeps the conditions that lead
to it, ``IF c THEN a; ELSEIF d THEN b; ELSE e; END IF`` giving ``a`` (c holds), ``b`` (c fails, d holds)
and ``e`` (both fail). A condition that cannot be evaluated (a variable the body assigns, a column) does
not exclude anything: the statements of every branch run. (Measured in session 14: taking the ELSE branch of
such an IF instead lost 2.6 points on insurance_claims_app and changed none of the other held-out workloads.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from sqlglot import exp

from predictor.dialect import RplayMySQL
from predictor.evaluate import CannotEvaluate, known, value
from predictor.parse import parse_expression
from predictor.query import Sources, resolved
from predictor.routines import Bindings, substitute


@dataclass(frozen=True)
class Guard:
    condition: str  # SQL of an IF's condition
    holds: bool  # the statement is in its THEN branch (else in what follows ELSE / ELSEIF)
    at: int = -1  # which IF of the body: its condition is decided once, when the CALL enters it
    loops: int = 0  # the counted loops around the IF (decided again in each pass of those)


Decided = dict[int, bool | None]  # Guard.at -> the truth of its condition where the CALL entered the IF


def excluded(guards: tuple[Guard, ...], bindings: Bindings) -> bool:
    """Whether one of ``guards`` is known to send the CALL elsewhere."""
    return taken(guards, bindings) is False


def taken(guards: tuple[Guard, ...], bindings: Bindings, decided: Decided | None = None,
          row_count: int | None = None, sources: Sources | None = None) -> bool | None:
    """Whether the CALL surely reaches a statement behind ``guards`` (True), surely not (False), or either.
    ``decided`` keeps each IF's truth from its first statement on: ``IF v IS NULL THEN ... SET v = 1; COMMIT;
    END IF`` runs the COMMIT, though ``v IS NULL`` no longer holds there. ``row_count``: ROW_COUNT() where
    the CALL enters an IF (what the statement before it changed), None when not known."""
    out: bool | None = True
    for g in guards:
        if decided is None:
            truth = holds(g.condition, bindings, row_count, sources)
        elif g.at in decided:
            truth = decided[g.at]
        else:
            truth = decided[g.at] = holds(g.condition, bindings, row_count, sources)
        if truth is None:
            out = None
        elif truth != g.holds:
            return False
    return out


def holds(condition: str, bindings: Bindings, row_count: int | None = None,
          sources: Sources | None = None) -> bool | None:
    """An IF (or a loop's test) condition's truth for ``bindings``; None when the values do not decide it.
    ``sources``: the data model's tables, for a subquery (``IF EXISTS (SELECT 1 FROM repayments WHERE
    payment_ref = p_ref) THEN SIGNAL``: loan_servicing_app's duplicate payment)."""
    cond = parse_expression(condition)
    if cond is None:
        return None
    if row_count is not None:
        cond = cond.transform(lambda x: known(row_count, "ROW_COUNT()") if isinstance(x, exp.Anonymous)
                              and x.name.upper() == "ROW_COUNT" and not x.expressions else x)
    try:
        bound = substitute(cond, bindings)
        v = value(resolved(bound, sources) if sources is not None else bound, {})
    except CannotEvaluate:
        return None
    if v is not None and not isinstance(v, int | str | Decimal):
        return None  # a clock reading, an unknown: not decided
    return _true(v)


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



# ---- an UPDATE trigger's branches that no row can take ---------------------------------------------------

_FALSY = frozenset({"F", "FN"})  # false, or false or NULL: an IF does not take its THEN branch


def never_taken(guards: tuple[Guard, ...], unchanged: frozenset[str]) -> bool:
    """Whether an UPDATE trigger's statement is in a branch no row takes, the statement leaving the columns
    ``unchanged`` as they were (NEW.c is OLD.c): ``IF NOT (NEW.a <=> OLD.a)`` or ``IF NEW.a <> OLD.a`` when
    ``a`` is not assigned. Decided on the condition's shape alone, without rows."""
    for g in guards:
        cond = parse_expression(g.condition)
        truth = by_shape(cond, unchanged) if cond is not None else None
        if truth is not None and truth != g.holds:
            return True
    return False


def by_shape(cond: exp.Expression, unchanged: frozenset[str]) -> bool | None:
    """An UPDATE trigger's IF condition decided on its shape, NEW.c being OLD.c for the columns ``unchanged``:
    True (it holds), False (false or NULL: the THEN branch is not taken), None (the rows would say)."""
    v = _shape(cond.copy().transform(lambda n: _old(n, unchanged)))
    return True if v == "T" else False if v in _FALSY else None


def _old(n: exp.Expression, unchanged: frozenset[str]) -> exp.Expression:
    if isinstance(n, exp.Column) and n.table.lower() == "new" and n.name.lower() in unchanged:
        return exp.column(n.name, table="OLD")
    return n


def _contradicts(conjuncts: Iterable[object]) -> bool:
    """``x = 'A' AND x <> 'A'`` (or ``x = 'A' AND x = 'B'``) among the conjuncts: false or NULL whatever x is
    (blood_bank_app's ``NEW.status = 'AVAILABLE' AND OLD.status <> 'AVAILABLE'`` when status is unchanged)."""
    equal: dict[str, str] = {}
    unequal: set[tuple[str, str]] = set()
    for c in (x.unnest() for x in conjuncts if isinstance(x, exp.Expression)):
        if isinstance(c, exp.EQ | exp.NEQ) and isinstance(c.expression, exp.Literal):
            side, lit = c.this.sql(dialect=RplayMySQL).lower(), c.expression.sql(dialect=RplayMySQL).lower()
            if isinstance(c, exp.NEQ):
                unequal.add((side, lit))
            elif equal.setdefault(side, lit) != lit:
                return True
    return any(equal.get(side) == lit for side, lit in unequal)


def _same(a: exp.Expression, b: exp.Expression) -> bool:
    return a.sql(dialect=RplayMySQL).lower() == b.sql(dialect=RplayMySQL).lower()


def _shape(e: exp.Expression) -> str:
    """T (true), F (false), FN (false or NULL), TN (true or NULL) or ? for a condition, by its shape."""
    if isinstance(e, exp.Paren):
        return _shape(e.this)
    if isinstance(e, exp.Not):
        return {"T": "F", "F": "T", "TN": "FN", "FN": "TN"}.get(_shape(e.this), "?")
    if isinstance(e, exp.And):
        sides = (_shape(e.this), _shape(e.expression))
        if any(s in _FALSY for s in sides) or _contradicts(e.flatten()):
            return "FN"
        return "T" if sides == ("T", "T") else "?"
    if isinstance(e, exp.Or):
        sides = (_shape(e.this), _shape(e.expression))
        return "T" if "T" in sides else "FN" if all(s in _FALSY for s in sides) else "?"
    if isinstance(e, exp.NullSafeEQ) and _same(e.this, e.expression):
        return "T"
    if isinstance(e, exp.NullSafeNEQ) and _same(e.this, e.expression):
        return "F"
    if isinstance(e, exp.NEQ | exp.LT | exp.GT) and _same(e.this, e.expression):
        return "FN"
    if isinstance(e, exp.EQ | exp.LTE | exp.GTE) and _same(e.this, e.expression):
        return "TN"
    return "?"
