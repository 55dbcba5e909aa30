"""The one object every rule reads: the statement, its resolved tables, the session, the profile."""

from __future__ import annotations

from dataclasses import dataclass, field

from predictor.analyze import StatementInfo
from predictor.catalog import Catalog, Table
from predictor.profiles import Profile
from predictor.resolve import Access
from predictor.session import SessionState


@dataclass
class Context:
    seq: int
    info: StatementInfo
    access: Access
    session: SessionState
    catalog: Catalog
    profile: Profile
    unsafe: set[str] = field(default_factory=set)
    error: int | None = None
    warnings: set[int] = field(default_factory=set)
    row_format: bool = False  # the statement is logged as rows

    def trans(self, t: Table) -> bool:
        return self.profile.engine(t.engine).transactional

    def caps(self, t: Table) -> tuple[bool, bool]:
        return self.profile.engine(t.engine).caps(self.session.isolation)

    @property
    def writes_nontrans(self) -> bool:
        return any(not self.trans(u.table) and not u.table.temporary for u in self.access.writes)

    @property
    def written_engines(self) -> frozenset[str]:
        """The storage engines of the base tables the statement writes (MySQL 9.7's 6414 counts them)."""
        return frozenset(self.profile.engine(u.table.engine).name for u in self.access.writes if not u.table.temporary)

    @property
    def writes_trans(self) -> bool:
        return any(self.trans(u.table) and not u.table.temporary for u in self.access.writes)

    @property
    def is_write(self) -> bool:
        return bool(self.access.writes)
