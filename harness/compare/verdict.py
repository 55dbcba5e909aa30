"""Record -> verdict: the plain-Python source of truth of the comparison's scoring rules.

Scoring rules (decided by the project):

- Predicted and observed records are joined by run and ``seq``. Every dimension of
  ``predictor.records.DIMENSIONS`` gets one verdict per statement: AGREE, MISMATCH (with a stable ``Code``)
  or EXCLUDED (counted in neither agree nor total).
- A statement with only one side is a mismatch on every dimension: MISSING_OBSERVATION (predicted, not
  observed) or MISSING_PREDICTION (observed, not predicted).
- A predicted format UNKNOWN is a mismatch on every dimension (UNKNOWN_PREDICTION), ``unsafe`` included: not
  knowing is never agreement. An observed format UNKNOWN likewise gives UNKNOWN_OBSERVATION.
- ``unsafe`` is scored only when observable: the observed format is STATEMENT or the observed warnings hold
  1592. Servers do not report unsafe reasons for statements they log as rows, so otherwise it is EXCLUDED.
- ``warnings`` and ``unsafe`` are EXCLUDED for an observed record whose warnings were not read
  (``warnings_unread``: SHOW WARNINGS would have reset ROW_COUNT() for the session's next statement).
- ``error`` compares codes (None = success); ``warnings`` and ``unsafe`` compare sets; ``format`` and
  ``cache`` compare values; ``group`` compares the binlog group index.
- ``row_events`` compares the sets of (table, type, before, after). When they differ the code says the first
  of: a predicted (table, type) not observed (ROW_EVENT_MISSING), an observed (table, type) not predicted
  (ROW_EVENT_UNEXPECTED), a predicted image column absent (ROW_IMAGE_MISSING_COLUMN), an observed image column
  not predicted (ROW_IMAGE_EXTRA_COLUMN), otherwise ROW_IMAGE_MISMATCH (order or repetition).

``harness.compare.columnar`` restates these rules as Spark column expressions for speed; a test proves both
give the same verdicts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.compare.codes import Code, Outcome
from predictor.records import DIMENSIONS, Format, RowEvent, StatementRecord

UNSAFE_NOTE = 1592
"""ER_BINLOG_UNSAFE_STATEMENT: the note that carries unsafe reasons."""


@dataclass(frozen=True)
class Verdict:
    """One statement-dimension. ``predicted``/``observed`` are the dimension's values as JSON text."""

    dimension: str
    outcome: Outcome
    code: Code | None
    predicted: str
    observed: str


def dimension_value(record: StatementRecord | None, dimension: str) -> Any:
    """The JSON-able value a dimension compares (None for an absent record)."""
    if record is None:
        return None
    if dimension == "error":
        return record.error
    if dimension == "warnings":
        return list(record.warnings)
    if dimension == "unsafe":
        return list(record.unsafe)
    if dimension == "format":
        return record.format.value
    if dimension == "cache":
        return record.cache.value
    if dimension == "group":
        return record.group
    if dimension == "row_events":
        return [e.to_dict() for e in record.row_events]
    raise ValueError(f"unknown dimension {dimension!r}")


def as_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def unsafe_observable(observed: StatementRecord) -> bool:
    return observed.format is Format.STATEMENT or UNSAFE_NOTE in observed.warnings


def _error_code(pred: int | None, obs: int | None) -> Code | None:
    if pred == obs:
        return None
    if pred is None:
        return Code.UNEXPECTED_ERROR
    if obs is None:
        return Code.MISSING_ERROR
    return Code.ERROR_MISMATCH


def _image_columns(events: tuple[RowEvent, ...]) -> set[tuple[str, str, str, str]]:
    cols: set[tuple[str, str, str, str]] = set()
    for e in events:
        cols.update((e.table, e.type.value, "before", c) for c in e.before)
        cols.update((e.table, e.type.value, "after", c) for c in e.after)
    return cols


def row_events_code(pred: tuple[RowEvent, ...], obs: tuple[RowEvent, ...]) -> Code | None:
    if set(pred) == set(obs):
        return None
    pkeys = {(e.table, e.type) for e in pred}
    okeys = {(e.table, e.type) for e in obs}
    if pkeys - okeys:
        return Code.ROW_EVENT_MISSING
    if okeys - pkeys:
        return Code.ROW_EVENT_UNEXPECTED
    pcols, ocols = _image_columns(pred), _image_columns(obs)
    if pcols - ocols:
        return Code.ROW_IMAGE_MISSING_COLUMN
    if ocols - pcols:
        return Code.ROW_IMAGE_EXTRA_COLUMN
    return Code.ROW_IMAGE_MISMATCH


def _whole_record_code(pred: StatementRecord | None, obs: StatementRecord | None) -> Code | None:
    if pred is None:
        return Code.MISSING_PREDICTION
    if obs is None:
        return Code.MISSING_OBSERVATION
    if pred.format is Format.UNKNOWN:
        return Code.UNKNOWN_PREDICTION
    if obs.format is Format.UNKNOWN:
        return Code.UNKNOWN_OBSERVATION
    return None


def dimension_code(dimension: str, pred: StatementRecord, obs: StatementRecord) -> Code | None:
    """The mismatch code of one dimension of two known records, or None when they agree."""
    if dimension == "error":
        return _error_code(pred.error, obs.error)
    if dimension == "warnings":
        return None if set(pred.warnings) == set(obs.warnings) else Code.WARNING_MISMATCH
    if dimension == "unsafe":
        return None if set(pred.unsafe) == set(obs.unsafe) else Code.UNSAFE_MISMATCH
    if dimension == "format":
        return None if pred.format is obs.format else Code.FORMAT_MISMATCH
    if dimension == "cache":
        return None if pred.cache is obs.cache else Code.CACHE_MISMATCH
    if dimension == "group":
        return None if pred.group == obs.group else Code.GROUP_ORDER
    if dimension == "row_events":
        return row_events_code(pred.row_events, obs.row_events)
    raise ValueError(f"unknown dimension {dimension!r}")


_READ_FROM_WARNINGS = ("warnings", "unsafe")


def score_dimension(dimension: str, pred: StatementRecord | None, obs: StatementRecord | None) -> Verdict:
    p, o = as_json(dimension_value(pred, dimension)), as_json(dimension_value(obs, dimension))
    code = _whole_record_code(pred, obs)
    if code is None:
        assert pred is not None and obs is not None
        if dimension == "unsafe" and not unsafe_observable(obs):
            return Verdict(dimension, Outcome.EXCLUDED, None, p, o)
        if dimension in _READ_FROM_WARNINGS and obs.warnings_unread:
            return Verdict(dimension, Outcome.EXCLUDED, None, p, o)  # not read: ROW_COUNT() had to stay
        code = dimension_code(dimension, pred, obs)
    outcome = Outcome.AGREE if code is None else Outcome.MISMATCH
    return Verdict(dimension, outcome, code, p, o)


def score(pred: StatementRecord | None, obs: StatementRecord | None) -> tuple[Verdict, ...]:
    """Verdicts of every dimension, in ``DIMENSIONS`` order."""
    if pred is None and obs is None:
        raise ValueError("score needs at least one record")
    return tuple(score_dimension(d, pred, obs) for d in DIMENSIONS)


def unsafe_key(pred: StatementRecord | None, obs: StatementRecord | None) -> str:
    """The aggregation key "unsafe reason": sorted union of both sides' reasons, comma-joined."""
    reasons: set[str] = set()
    for r in (pred, obs):
        if r is not None:
            reasons.update(r.unsafe)
    return ",".join(sorted(reasons))
