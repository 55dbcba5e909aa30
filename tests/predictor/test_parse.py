"""Table-driven parse tests: each case in parse_cases/*.sql is a `-- title:` line, the SQL, and
`-- expect: path = value` (or `path ~ substring`) lines checked against the parsed tree.

A path walks the tree from the top node: an arg name, a list index, or one of
`class` (node class name), `name` (exp .name), `len` (list length), `kinds` (comma-joined class names
of a list). Values compare as text: true/false for bools, none for a missing arg, lists comma-joined.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlglot import exp

from predictor.parse import Unparsed, parse

CASES_DIR = Path(__file__).parent / "parse_cases"


@dataclass(frozen=True)
class Expectation:
    path: str
    op: str  # "=" exact, "~" contains
    value: str


@dataclass(frozen=True)
class Case:
    title: str
    sql: str
    expectations: tuple[Expectation, ...]
    source: str


def _expectation(text: str, source: str) -> Expectation:
    for op in ("~", "="):
        path, sep, value = text.partition(f" {op} ")
        if sep:
            return Expectation(path.strip(), op, value.strip())
    raise ValueError(f"{source}: bad expectation {text!r} (want 'path = value' or 'path ~ text')")


def _file_cases(file: Path) -> list[Case]:
    """Split one fixture file at its `-- title:` lines."""
    cases: list[Case] = []
    title: str | None = None
    sql: list[str] = []
    expects: list[Expectation] = []
    start = 0
    lines = [*file.read_text().splitlines(), "-- title: <end>"]
    for number, line in enumerate(lines, 1):
        if line.startswith("-- title:"):
            if title is not None:
                cases.append(Case(title, "\n".join(sql).strip(), tuple(expects), f"{file.name}:{start}"))
            title, sql, expects, start = line.removeprefix("-- title:").strip(), [], [], number
        elif line.startswith("-- expect:"):
            expects.append(_expectation(line.removeprefix("-- expect:").strip(), f"{file.name}:{number}"))
        elif title is not None:
            sql.append(line)
    return cases


def load_cases() -> list[Case]:
    return [case for file in sorted(CASES_DIR.glob("*.sql")) for case in _file_cases(file)]


def _text(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, exp.DataType):
        return value.this.value if isinstance(value.this, exp.DType) else str(value.this)
    if isinstance(value, exp.Expr):
        return value.name
    if isinstance(value, list):
        return ",".join(_text(v) for v in value)
    if hasattr(value, "value"):  # enums such as exp.DType
        return str(value.value)
    return str(value)


def resolve(node: object, path: str) -> object:
    current: object = node
    for step in path.split("."):
        if step == "class":
            current = type(current).__name__
        elif isinstance(current, list):
            if step == "len":
                current = len(current)
            elif step == "kinds":
                current = ",".join(type(item).__name__ for item in current)
            else:
                current = current[int(step)]
        elif isinstance(current, exp.Expr):
            if step == "name":
                current = current.name
            elif step == "len" and current.args.get("expressions") is not None:
                current = len(current.expressions)
            else:
                current = current.args.get(step)
        elif isinstance(current, Unparsed) and step == "reason":
            current = current.reason
        elif current is None:
            raise AssertionError(f"path {path!r}: nothing at {step!r}")
        else:
            raise AssertionError(f"path {path!r}: cannot step into {type(current).__name__} with {step!r}")
    return current


CASES = load_cases()


def test_fixture_files_have_cases() -> None:
    assert len(CASES) > 80
    assert all(case.expectations for case in CASES), [c.title for c in CASES if not c.expectations]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.source} {c.title}" for c in CASES])
def test_parse_case(case: Case) -> None:
    tree = parse(case.sql)
    if not any(e.path == "class" and e.value == "Unparsed" for e in case.expectations):
        assert not isinstance(tree, Unparsed), f"{case.title}: {tree.reason}"
    for expectation in case.expectations:
        got = _text(resolve(tree, expectation.path))
        if expectation.op == "=":
            assert got == expectation.value, (
                f"{case.source} {expectation.path}: {got!r} != {expectation.value!r}"
            )
        else:
            assert expectation.value in got, (
                f"{case.source} {expectation.path}: {expectation.value!r} not in {got!r}"
            )


def test_no_command_nodes_anywhere() -> None:
    """Every parsed fixture is a real tree: no exp.Command hidden inside a body."""
    for case in CASES:
        tree = parse(case.sql)
        if not isinstance(tree, Unparsed):
            assert tree.find(exp.Command) is None, case.title


@pytest.mark.parametrize(
    "sql",
    [
        "",
        "   ",
        ";",
        "\x00",
        "SELECT 'unterminated",
        "CREATE TRIGGER",
        "BEGIN NOT ATOMIC",
        "((((",
        "XA",
        "CALL",
    ],
)
def test_parse_never_raises(sql: str) -> None:
    result = parse(sql)
    assert isinstance(result, Unparsed)
    assert result.reason and "\n" not in result.reason
