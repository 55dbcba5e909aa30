"""Predicted vs observed: the PySpark comparison and its reports (see DECISIONS.md)."""

from harness.compare.codes import Code, Outcome
from harness.compare.job import Engine
from harness.compare.run import compare
from harness.compare.verdict import Verdict, score

__all__ = ["Code", "Engine", "Outcome", "Verdict", "compare", "score"]
