"""The one piece of data the predictor simulates: the unique-key values of small tables.

Duplicate-key errors (1062) decide whether a statement is logged at all, and with them every later binlog
group number. The predictor therefore remembers the key values that INSERT ... VALUES with literal keys put
into a table, as long as it knows all of them: a table stops being tracked when a statement changes its keys
in a way we do not evaluate (UPDATE of a key column, DELETE with a WHERE, INSERT ... SELECT, LOAD DATA,
non-literal key values) or once it holds more than ``MAX_TRACKED`` keys (parsing every INSERT of a big
workload would cost more than it tells).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from predictor.catalog import Table
from predictor.literals import Unsure, literal_rows
from predictor.parse import parse

MAX_TRACKED = 200

Value = object
Row = dict[str, Value]


@dataclass
class Keys:
    """Known unique-key tuples of one table, one set per unique key (table order)."""

    sets: list[set[tuple[Value, ...]]]
    next_auto: int = 1
    tracked: bool = True

    def size(self) -> int:
        return max((len(s) for s in self.sets), default=0)


@dataclass(frozen=True)
class InsertOutcome:
    """What the duplicate check found: the row where it stopped (None: none), and the rows it skipped."""

    dup_at: int | None
    ignored: int
    rows: int


@dataclass
class DataModel:
    tables: dict[str, Keys] = field(default_factory=dict)

    def create(self, t: Table) -> None:
        self.tables[t.name.lower()] = Keys([set() for _ in t.unique_keys])

    def forget(self, name: str) -> None:
        k = self.tables.get(name.lower())
        if k is not None:
            k.tracked = False

    def clear(self, t: Table) -> None:
        if t.name.lower() in self.tables:
            self.create(t)

    def tracked(self, t: Table) -> Keys | None:
        k = self.tables.get(t.name.lower())
        if k is None or not k.tracked or not t.unique_keys or len(k.sets) != len(t.unique_keys):
            return None
        if k.size() > MAX_TRACKED:
            k.tracked = False
            return None
        return k

    def insert(self, t: Table, sql: str, ignore: bool, commit: bool) -> InsertOutcome | None:
        """Check an INSERT ... VALUES against the known keys; None when it cannot be evaluated (the table
        is then no longer tracked). ``commit`` keeps the inserted keys (False: the statement is undone)."""
        keys = self.tracked(t)
        if keys is None:
            return None
        rows = _literal_rows(sql, t)
        if rows is None:
            keys.tracked = False
            return None
        added: list[list[tuple[Value, ...]]] = [[] for _ in keys.sets]
        dup_at: int | None = None
        ignored = 0
        auto = t.auto_increment
        next_auto = keys.next_auto
        for i, row in enumerate(rows):
            if auto is not None:
                v = row.get(auto.name.lower())
                if v is None or v == 0:
                    row[auto.name.lower()] = next_auto
                    next_auto += 1
                elif isinstance(v, int):
                    next_auto = max(next_auto, v + 1)
            tuples = [tuple(row.get(c.lower()) for c in k.columns) for k in t.unique_keys]
            clash = any(None not in tup and (tup in s or tup in a)
                        for tup, s, a in zip(tuples, keys.sets, added, strict=True))
            if clash:
                if ignore:
                    ignored += 1
                    continue
                dup_at = i
                break
            for tup, a in zip(tuples, added, strict=True):
                if None not in tup:
                    a.append(tup)
        if commit or dup_at is None:
            for s, a in zip(keys.sets, added, strict=True):
                s.update(a)
            keys.next_auto = next_auto
        return InsertOutcome(dup_at, ignored, len(rows))


def _literal(e: exp.Expression) -> Value | None:
    if isinstance(e, exp.Literal):
        if e.is_string:
            return str(e.this).casefold().rstrip(" ")  # default collations: case- and pad-insensitive
        try:
            return int(e.this)
        except ValueError:
            return str(e.this)
    if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
        v = _literal(e.this)
        return -v if isinstance(v, int) else v
    if isinstance(e, exp.Null):
        return None
    raise ValueError("not a literal")


def _literal_rows(sql: str, t: Table) -> list[Row] | None:
    fast = literal_rows(sql, t)  # a plain INSERT ... VALUES without parsing (predictor/literals.py)
    if not isinstance(fast, Unsure):
        return fast
    tree = parse(sql)
    if not isinstance(tree, exp.Insert) or not isinstance(tree.expression, exp.Values):
        return None
    target = tree.this
    if isinstance(target, exp.Schema) and target.expressions:
        cols = [str(c.name).lower() for c in target.expressions]
    else:
        cols = [c.name.lower() for c in t.columns]
    key_cols = {c.lower() for k in t.unique_keys for c in k.columns}
    out: list[Row] = []
    for tup in tree.expression.expressions:
        values = tup.expressions if isinstance(tup, exp.Tuple) else [tup]
        if len(values) != len(cols):
            return None
        row: Row = {}
        for c, v in zip(cols, values, strict=True):
            if c not in key_cols:
                continue
            try:
                row[c] = _literal(v)
            except ValueError:
                return None
        out.append(row)
    return out
