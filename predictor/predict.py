"""Entry point of the predictor: a workload and a profile in, one StatementRecord per statement out."""

from __future__ import annotations

from collections.abc import Mapping

from predictor.records import Format, StatementRecord
from predictor.workload import Workload


def predict_workload(
    workload: Workload,
    profile: str,
    session_vars: Mapping[str, str] | None = None,
    server_opts: Mapping[str, str] | None = None,
) -> list[StatementRecord]:
    """Predict every statement of ``workload`` on server profile ``profile`` (e.g. ``mariadb-10.11``).

    ``session_vars`` are applied to every session at its start (``--set``); ``server_opts`` override the
    profile's server options (``--server-opt``). Replica-only statements are not part of the primary's
    binlog and are predicted with format NONE.
    """
    # Placeholder until the rule engine lands: every statement UNKNOWN.
    return [
        StatementRecord(s.seq, s.session, s.sql, format=Format.UNKNOWN, reason="predictor not implemented")
        for s in workload.statements
    ]


def profile_for_version(version: str) -> str:
    """The profile name matching a server's ``SELECT VERSION()`` string."""
    v = version.lower()
    nums = v.split("-")[0].split(".")
    major_minor = ".".join(nums[:2])
    if "mariadb" in v:
        return "mariadb-11.8" if tuple(int(x) for x in nums[:2]) >= (11, 0) else "mariadb-10.11"
    if major_minor.startswith("8.0"):
        return "mysql-8.0"
    if major_minor.startswith("8."):
        return "mysql-8.4"
    return "mysql-9.7"
