"""IF branches of procedure and trigger bodies (predictor/branches.py)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from predictor.branches import Guard, excluded, never_taken


@pytest.mark.parametrize(("title", "guards", "bindings", "out"), [
    ("THEN branch, condition true", (Guard("k = 'a'", True),), {"k": exp.Literal.string("a")}, False),
    ("THEN branch, condition false", (Guard("k = 'a'", True),), {"k": exp.Literal.string("b")}, True),
    ("ELSE branch, condition true", (Guard("k = 'a'", False),), {"k": exp.Literal.string("a")}, True),
    ("NULL takes the ELSE branch", (Guard("k = 'a'", True),), {"k": exp.Null()}, True),
    ("ELSEIF: first fails, second holds", (Guard("k = 1", False), Guard("k = 2", True)),
     {"k": exp.Literal.number(2)}, False),
    ("an unknown variable decides nothing", (Guard("k = 1", True),), {}, False),
    ("a column decides nothing", (Guard("t.c = 1", True),), {"k": exp.Literal.number(1)}, False),
])
def test_excluded(title: str, guards: tuple[Guard, ...], bindings: dict[str, exp.Expression], out: bool) -> None:
    assert excluded(guards, bindings) is out, title


@pytest.mark.parametrize(("title", "guards", "out"), [
    ("route unchanged: NOT (NEW <=> OLD) is false", (Guard("NOT (NEW.route_id <=> OLD.route_id)", True),), True),
    ("route unchanged: NEW <> OLD is false or NULL", (Guard("NEW.route_id <> OLD.route_id", True),), True),
    ("route unchanged, ELSE branch of NEW <=> OLD", (Guard("NEW.route_id <=> OLD.route_id", False),), True),
    ("route unchanged, ELSE branch of NEW <> OLD runs", (Guard("NEW.route_id <> OLD.route_id", False),), False),
    ("status assigned: undecided", (Guard("NEW.status <> OLD.status", True),), False),
    ("AND with a falsy side", (Guard("NEW.status = 'x' AND NEW.route_id <> OLD.route_id", True),), True),
    ("OR with an undecided side", (Guard("NEW.status = 'x' OR NEW.route_id <> OLD.route_id", True),), False),
])
def test_never_taken(title: str, guards: tuple[Guard, ...], out: bool) -> None:
    assert never_taken(guards, frozenset({"route_id", "id"})) is out, title
