"""Entry point of the predictor: a workload and a profile in, one StatementRecord per statement out."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from predictor.analyze import StatementInfo, analyze
from predictor.engine import Predictor
from predictor.engines import Engine
from predictor.fingerprint import fingerprint
from predictor.moments import RUN_AT, SAME_SECOND_SPAN
from predictor.profiles import Profile, get_profile, profile_for_version
from predictor.records import StatementRecord
from predictor.template_key import template_key
from predictor.workload import Workload

__all__ = ["Analyzer", "predict_workload", "profile_for_version"]


class Analyzer:
    """Static analysis cached by statement template: a workload drawn from a few templates is parsed once
    per template. Three levels, cheapest first: ``template_key`` (plain DML, a few string calls) or the
    exact text (anything else), then ``fingerprint`` (the full scanner), which decides what is analysed.
    ``cached=False`` analyses every statement afresh (for tests that check the caches change nothing)."""

    TEXT_LIMIT = 100_000
    KEY_LIMIT = 100_000

    def __init__(self, cached: bool = True) -> None:
        self.cached = cached
        self._by_text: dict[str, StatementInfo] = {}
        self._by_key: dict[bytes, StatementInfo] = {}
        self._by_fp: dict[str, StatementInfo] = {}

    def __call__(self, sql: str) -> StatementInfo:
        if not self.cached:
            return analyze(sql)
        key = template_key(sql)
        if key is not None:
            info = self._by_key.get(key)
            if info is not None:
                return info
        else:
            info = self._by_text.get(sql)
            if info is not None:
                return info
        fp = fingerprint(sql)
        info = self._by_fp.get(fp)
        if info is None:
            info = analyze(sql)
            self._by_fp[fp] = info
        if key is not None:
            if len(self._by_key) < self.KEY_LIMIT:
                self._by_key[key] = info
        elif len(self._by_text) < self.TEXT_LIMIT:
            self._by_text[sql] = info
        return info


@contextmanager
def _older_objects_frozen() -> Iterator[None]:
    """Keep the objects that existed before the prediction (the workload, loaded modules) out of full
    garbage collections while it runs (gc.freeze, undone at the end). A full collection scans every tracked
    object; with a workload and a growing record list that was ~10% of a template workload's time.
    Collections still run over everything the prediction creates. Skipped when objects are frozen
    already: unfreezing would release someone else's."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def predict_workload(
    workload: Workload,
    profile: str | Profile,
    session_vars: Mapping[str, str] | None = None,
    server_opts: Mapping[str, str] | None = None,
    engines: Mapping[str, Engine] | None = None,
    analyzer: Analyzer | None = None,
    cached: bool = True,
    strict: bool | None = None,
    run_at: float | None = None,
) -> list[StatementRecord]:
    """Predict every statement of ``workload`` on server profile ``profile`` (e.g. ``mariadb-10.11``).

    ``session_vars`` are applied to every session at its start (``--set``); ``server_opts`` override the
    profile's server options (``--server-opt``); ``engines`` adds user engine profiles. Replica-only
    statements are not part of the primary's binlog and are predicted with format NONE.

    ``cached=False`` switches off every cache (analysis per template, memoised decisions, record shapes):
    each statement is analysed, decided and recorded from scratch. The records must be identical either
    way (tests/predictor/test_caches.py checks it); it exists for that check and for debugging a rule.

    An exception the predictor raises on a statement (a bug) makes that statement UNKNOWN with the error as
    its reason, and the rest is still predicted; ``strict`` (default: environment ``RPLAY_STRICT=1``, which
    the test suite sets) raises it instead.

    ``run_at``: when the run starts (seconds since the epoch), if known: date literals are compared with
    the clock as of then (predictor/moments.py); else the run may come up to a year after today.
    """
    if strict is None:
        strict = os.environ.get("RPLAY_STRICT") == "1"
    prof = profile if isinstance(profile, Profile) else get_profile(profile, server_opts, engines)
    pred = Predictor(prof, session_vars, cached=cached)
    analyze_sql = analyzer or Analyzer(cached)
    replica_only: list[StatementRecord] = []
    step = pred.step
    token = RUN_AT.set(run_at)
    span = SAME_SECOND_SPAN.set(prof.SAME_SECOND_STATEMENTS)
    try:
        with _older_objects_frozen():
            for st in workload.statements:
                if st.replica_only:
                    replica_only.append(StatementRecord(st.seq, st.session, st.sql))
                    continue
                sql = st.sql
                try:
                    step(st.seq, st.session, sql, analyze_sql(sql))
                except Exception as e:  # a predictor bug must not cost the workload: the statement is UNKNOWN
                    if strict:
                        raise
                    pred.fail(st.seq, st.session, sql, e)
            pred.finish()
            records = pred.binlog.records() + replica_only
    finally:
        RUN_AT.reset(token)
        SAME_SECOND_SPAN.reset(span)
    records.sort(key=lambda r: r.seq)
    return records
