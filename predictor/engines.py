"""Storage-engine logging capabilities as data (binlog-rules.md §3), plus user engine profiles from TOML.

A user engine profile describes an engine no server here has (NDB's self-logging, a statement-only engine) so
the 1661-1667 errors can be predicted::

    [engine.ndbcluster]
    row_capable = true
    stmt_capable = false
    transactional = true
    self_logging = true
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from predictor.exceptions import ProfileError


@dataclass(frozen=True)
class Engine:
    """What an engine lets the binlog do. ``row_only_below_rr``: InnoDB drops statement capability under
    READ COMMITTED / READ UNCOMMITTED (and raises 1665 itself when asked to log a statement)."""

    name: str
    row_capable: bool = True
    stmt_capable: bool = True
    transactional: bool = False
    self_logging: bool = False
    row_only_below_rr: bool = False
    replicated: bool = True

    def caps(self, isolation: str) -> tuple[bool, bool]:
        """(row_capable, stmt_capable) under ``isolation``."""
        stmt = self.stmt_capable and not (self.row_only_below_rr and isolation_below_rr(isolation))
        return self.row_capable, stmt


def isolation_below_rr(isolation: str) -> bool:
    return isolation.upper().replace("_", "-") in ("READ-COMMITTED", "READ-UNCOMMITTED")


INNODB = Engine("innodb", transactional=True, row_only_below_rr=True)
MYISAM = Engine("myisam")
MEMORY = Engine("memory")
CSV = Engine("csv")
ARCHIVE = Engine("archive")
BLACKHOLE = Engine("blackhole")
FEDERATED = Engine("federated")
MERGE = Engine("mrg_myisam")
EXAMPLE = Engine("example", row_capable=False)
PERFORMANCE_SCHEMA = Engine("performance_schema", row_capable=False, stmt_capable=False, replicated=False)
ARIA = Engine("aria")
FEDERATEDX = Engine("federatedx")
CONNECT = Engine("connect")
SPIDER = Engine("spider")
SEQUENCE_ENGINE = Engine("sequence")
SEQUENCE_TABLE = Engine("sequence_table", stmt_capable=False)
NDB = Engine("ndbcluster", stmt_capable=False, transactional=True, self_logging=True)

ENGINE_ALIASES: Mapping[str, str] = {
    "heap": "memory", "merge": "mrg_myisam", "mrg_myisam": "mrg_myisam", "ndb": "ndbcluster",
    "federated": "federated", "maria": "aria",
}


def canonical_engine(name: str) -> str:
    n = name.strip().strip("`'\"").lower()
    return ENGINE_ALIASES.get(n, n)


def load_engine_profiles(path: Path | str) -> dict[str, Engine]:
    """Read a user engine profile file (``[engine.NAME]`` tables)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ProfileError(f"cannot read engine profile {p}: {e}") from None
    engines = data.get("engine")
    if not isinstance(engines, dict) or not engines:
        raise ProfileError(f"engine profile {p} has no [engine.NAME] table")
    out: dict[str, Engine] = {}
    allowed = {"row_capable", "stmt_capable", "transactional", "self_logging", "row_only_below_rr", "replicated"}
    for name, spec in engines.items():
        if not isinstance(spec, dict):
            raise ProfileError(f"engine profile {p}: [engine.{name}] must be a table")
        unknown = set(spec) - allowed
        if unknown:
            raise ProfileError(f"engine profile {p}: [engine.{name}] has unknown keys {sorted(unknown)}")
        if not all(isinstance(v, bool) for v in spec.values()):
            raise ProfileError(f"engine profile {p}: [engine.{name}] values must be true/false")
        out[canonical_engine(name)] = Engine(canonical_engine(name), **spec)
    return out
