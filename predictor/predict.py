"""Entry point of the predictor: a workload and a profile in, one StatementRecord per statement out."""

from __future__ import annotations

from collections.abc import Mapping

from predictor.analyze import StatementInfo, analyze
from predictor.engine import Predictor
from predictor.engines import Engine
from predictor.fingerprint import fingerprint
from predictor.profiles import Profile, get_profile, profile_for_version
from predictor.records import StatementRecord
from predictor.workload import Workload

__all__ = ["Analyzer", "predict_workload", "profile_for_version"]


class Analyzer:
    """Static analysis cached by statement fingerprint (literals normalised): a workload drawn from a few
    templates is parsed once per template."""

    def __init__(self) -> None:
        self._by_text: dict[str, StatementInfo] = {}
        self._by_fp: dict[str, StatementInfo] = {}

    def __call__(self, sql: str) -> StatementInfo:
        info = self._by_text.get(sql)
        if info is not None:
            return info
        fp = fingerprint(sql)
        info = self._by_fp.get(fp)
        if info is None:
            info = analyze(sql)
            self._by_fp[fp] = info
        if len(self._by_text) < 100_000:
            self._by_text[sql] = info
        return info


def predict_workload(
    workload: Workload,
    profile: str | Profile,
    session_vars: Mapping[str, str] | None = None,
    server_opts: Mapping[str, str] | None = None,
    engines: Mapping[str, Engine] | None = None,
    analyzer: Analyzer | None = None,
) -> list[StatementRecord]:
    """Predict every statement of ``workload`` on server profile ``profile`` (e.g. ``mariadb-10.11``).

    ``session_vars`` are applied to every session at its start (``--set``); ``server_opts`` override the
    profile's server options (``--server-opt``); ``engines`` adds user engine profiles. Replica-only
    statements are not part of the primary's binlog and are predicted with format NONE.
    """
    prof = profile if isinstance(profile, Profile) else get_profile(profile, server_opts, engines)
    pred = Predictor(prof, session_vars)
    analyze_sql = analyzer or Analyzer()
    replica_only: list[StatementRecord] = []
    for st in workload.statements:
        if st.replica_only:
            replica_only.append(StatementRecord(st.seq, st.session, st.sql))
            continue
        pred.step(st.seq, st.session, st.sql, analyze_sql(st.sql))
    pred.finish()
    records = [b.record() for b in pred.binlog.builders.values()] + replica_only
    records.sort(key=lambda r: r.seq)
    return records
