"""A DML decision as the memo keeps it, and an autocommitted statement's replayable result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from predictor.analyze import Op
from predictor.records import StatementRecord
from predictor.session import Piece

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Outcome:
    """A DML decision that depends only on the key it is memoised under (see ``memo_key``)."""

    error: int | None
    warnings: frozenset[int]
    unsafe: frozenset[str]
    stmt_cache: tuple[Piece, ...]
    trx: tuple[Piece, ...]
    writes_trans: bool
    writes_nontrans: bool
    nontrans_temp: bool
    logged: bool
    row_writes: tuple[tuple[str, Op, bool, bool], ...]  # (Table.ident, op, top, temporary) for row counts
    row_format: bool = False
    engines: frozenset[str] = frozenset()  # the engines it writes, where the profile warns of combining them


@dataclass(frozen=True)
class Replay:
    """An autocommitted statement's memoised outcome and the record it produced, which used ``groups``
    binlog groups starting at its own group (see Predictor._step_autocommit_dml)."""

    out: Outcome
    record: StatementRecord
    groups: int
    counts: bool  # update_row_counts can change a row count
