"""Record -> verdict rules, table-driven, without Spark."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.compare.codes import Code, Outcome
from harness.compare.verdict import score, score_dimension, unsafe_key
from predictor.records import DIMENSIONS, Cache, Format, RowEvent, RowType, StatementRecord

BASE = StatementRecord(1, "default", "UPDATE t SET b = 1 WHERE a = 1", format=Format.ROW, cache=Cache.TRX,
                       group=1, row_events=(RowEvent("t", RowType.UPDATE, ("a", "b"), ("a", "b")),))
W = RowEvent("t", RowType.WRITE, (), ("a",))

CASES = [
    # (id, predicted changes, observed changes, dimension, outcome, code)
    ("agree", {}, {}, "format", Outcome.AGREE, None),
    ("format", {}, {"format": Format.STATEMENT}, "format", Outcome.MISMATCH, Code.FORMAT_MISMATCH),
    ("unexpected error", {}, {"error": 1062}, "error", Outcome.MISMATCH, Code.UNEXPECTED_ERROR),
    ("missing error", {"error": 1062}, {}, "error", Outcome.MISMATCH, Code.MISSING_ERROR),
    ("error mismatch", {"error": 1062}, {"error": 1213}, "error", Outcome.MISMATCH, Code.ERROR_MISMATCH),
    ("same error", {"error": 1062}, {"error": 1062}, "error", Outcome.AGREE, None),
    ("warnings set", {"warnings": (1592, 1105)}, {"warnings": (1105, 1592, 1592)}, "warnings", Outcome.AGREE,
     None),
    ("warnings", {}, {"warnings": (1105,)}, "warnings", Outcome.MISMATCH, Code.WARNING_MISMATCH),
    ("cache", {}, {"cache": Cache.STMT}, "cache", Outcome.MISMATCH, Code.CACHE_MISMATCH),
    ("group", {}, {"group": 2}, "group", Outcome.MISMATCH, Code.GROUP_ORDER),
    ("group none", {"group": None}, {"group": None}, "group", Outcome.AGREE, None),
    # unsafe is scored only when observable: STATEMENT format or a 1592 note
    ("unsafe row excluded", {"unsafe": ("LIMIT",)}, {}, "unsafe", Outcome.EXCLUDED, None),
    ("unsafe stmt agree", {"unsafe": ("LIMIT",), "format": Format.STATEMENT},
     {"unsafe": ("LIMIT",), "format": Format.STATEMENT}, "unsafe", Outcome.AGREE, None),
    ("unsafe stmt differ", {"unsafe": ("LIMIT",)}, {"format": Format.STATEMENT}, "unsafe", Outcome.MISMATCH,
     Code.UNSAFE_MISMATCH),
    ("unsafe via 1592", {}, {"warnings": (1592,), "unsafe": ("SYSTEM_FUNCTION",)}, "unsafe",
     Outcome.MISMATCH, Code.UNSAFE_MISMATCH),
    # warnings not read (ROW_COUNT() had to stay): warnings and unsafe are not known
    ("warnings unread", {"warnings": (1592,)}, {"warnings_unread": True}, "warnings", Outcome.EXCLUDED, None),
    ("unsafe unread", {"unsafe": ("LIMIT",), "format": Format.STATEMENT},
     {"warnings_unread": True, "format": Format.STATEMENT}, "unsafe", Outcome.EXCLUDED, None),
    ("unread keeps the rest", {}, {"warnings_unread": True, "group": 2}, "group", Outcome.MISMATCH,
     Code.GROUP_ORDER),
    # row events
    ("events missing", {}, {"row_events": ()}, "row_events", Outcome.MISMATCH, Code.ROW_EVENT_MISSING),
    ("events unexpected", {}, {"row_events": (*BASE.row_events, W)}, "row_events", Outcome.MISMATCH,
     Code.ROW_EVENT_UNEXPECTED),
    ("image missing column", {}, {"row_events": (RowEvent("t", RowType.UPDATE, ("a",), ("a", "b")),)},
     "row_events", Outcome.MISMATCH, Code.ROW_IMAGE_MISSING_COLUMN),
    ("image extra column", {}, {"row_events": (RowEvent("t", RowType.UPDATE, ("a", "b", "c"), ("a", "b")),)},
     "row_events", Outcome.MISMATCH, Code.ROW_IMAGE_EXTRA_COLUMN),
    ("image order", {}, {"row_events": (RowEvent("t", RowType.UPDATE, ("b", "a"), ("a", "b")),)},
     "row_events", Outcome.MISMATCH, Code.ROW_IMAGE_MISMATCH),
    ("events as sets", {"row_events": (W, W, *BASE.row_events)}, {"row_events": (*BASE.row_events, W)},
     "row_events", Outcome.AGREE, None),
    # UNKNOWN prediction is a mismatch everywhere, unsafe included
    ("unknown format", {"format": Format.UNKNOWN}, {}, "format", Outcome.MISMATCH, Code.UNKNOWN_PREDICTION),
    ("unknown unsafe", {"format": Format.UNKNOWN}, {}, "unsafe", Outcome.MISMATCH, Code.UNKNOWN_PREDICTION),
    ("unknown observed", {}, {"format": Format.UNKNOWN}, "error", Outcome.MISMATCH, Code.UNKNOWN_OBSERVATION),
]


@pytest.mark.parametrize(("pchanges", "ochanges", "dim", "outcome", "code"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_dimension(pchanges: dict[str, object], ochanges: dict[str, object], dim: str, outcome: Outcome,
                   code: Code | None) -> None:
    v = score_dimension(dim, replace(BASE, **pchanges), replace(BASE, **ochanges))  # type: ignore[arg-type]
    assert (v.outcome, v.code) == (outcome, code)


@pytest.mark.parametrize(("pred", "obs", "code"), [
    (BASE, None, Code.MISSING_OBSERVATION),
    (None, BASE, Code.MISSING_PREDICTION),
    (replace(BASE, format=Format.UNKNOWN), BASE, Code.UNKNOWN_PREDICTION),
])
def test_whole_record_codes_hit_every_dimension(pred: StatementRecord | None, obs: StatementRecord | None,
                                                code: Code) -> None:
    verdicts = score(pred, obs)
    assert [v.dimension for v in verdicts] == list(DIMENSIONS)
    assert {(v.outcome, v.code) for v in verdicts} == {(Outcome.MISMATCH, code)}


def test_values_are_json_text() -> None:
    p = replace(BASE, warnings=(1592,), error=None)
    o = replace(BASE, warnings=(1105, 1592), error=1062)
    by = {v.dimension: v for v in score(p, o)}
    assert (by["warnings"].predicted, by["warnings"].observed) == ("[1592]", "[1105,1592]")
    assert (by["error"].predicted, by["error"].observed) == ("null", "1062")
    assert by["format"].predicted == '"ROW"'
    assert by["row_events"].observed == '[{"table":"t","type":"update","before":["a","b"],"after":["a","b"]}]'
    assert score(p, None)[0].observed == "null"


def test_unsafe_key_is_sorted_union() -> None:
    assert unsafe_key(replace(BASE, unsafe=("LIMIT",)), replace(BASE, unsafe=("SYSTEM_FUNCTION", "LIMIT"))) \
        == "LIMIT,SYSTEM_FUNCTION"
    assert unsafe_key(BASE, None) == ""
