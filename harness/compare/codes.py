"""Outcomes and stable mismatch codes of the comparison (stable: CI and dashboards key on them)."""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    AGREE = "agree"
    MISMATCH = "mismatch"
    EXCLUDED = "excluded"  # not scored: counts in neither agree nor total


class Code(StrEnum):
    """Why a statement-dimension differs. Words describe the observation relative to the prediction."""

    MISSING_PREDICTION = "MISSING_PREDICTION"  # observed statement without a predicted record
    MISSING_OBSERVATION = "MISSING_OBSERVATION"  # predicted statement without an observed record
    UNKNOWN_PREDICTION = "UNKNOWN_PREDICTION"  # the predictor said UNKNOWN
    UNKNOWN_OBSERVATION = "UNKNOWN_OBSERVATION"  # the harness could not classify what the server did
    UNEXPECTED_ERROR = "UNEXPECTED_ERROR"  # the server failed, the prediction said it would not
    MISSING_ERROR = "MISSING_ERROR"  # an error was predicted, the server succeeded
    ERROR_MISMATCH = "ERROR_MISMATCH"  # both failed, with different codes
    WARNING_MISMATCH = "WARNING_MISMATCH"
    UNSAFE_MISMATCH = "UNSAFE_MISMATCH"
    FORMAT_MISMATCH = "FORMAT_MISMATCH"
    CACHE_MISMATCH = "CACHE_MISMATCH"
    GROUP_ORDER = "GROUP_ORDER"
    ROW_EVENT_MISSING = "ROW_EVENT_MISSING"  # a predicted (table, type) has no observed row event
    ROW_EVENT_UNEXPECTED = "ROW_EVENT_UNEXPECTED"  # an observed (table, type) was not predicted
    ROW_IMAGE_MISSING_COLUMN = "ROW_IMAGE_MISSING_COLUMN"  # a predicted image column is absent
    ROW_IMAGE_EXTRA_COLUMN = "ROW_IMAGE_EXTRA_COLUMN"  # an observed image column was not predicted
    ROW_IMAGE_MISMATCH = "ROW_IMAGE_MISMATCH"  # same columns, different order or repetition
