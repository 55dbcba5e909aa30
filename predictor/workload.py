"""Workload files: statements, sessions, replica-only statements, fixture headers and expectations.

Format (see README "Workload files"):
- statements end with the delimiter (``;`` by default) at the end of a line; ``DELIMITER xx`` changes it;
- ``-- connection NAME`` switches session (first session is ``default``);
- ``-- replica`` makes the next statement run on the replica only;
- ``-- expect[QUALIFIERS]: k=v ...`` is an expectation for the next statement;
- header lines ``-- title:``, ``-- seed:``, ``-- config:``, ``-- servers:`` describe a fixture case;
  ``-- clock: run`` has ``rplay check`` predict as ``rplay run`` does, against the time it starts (a fixture
  whose statements bind dates computed from today; see predictor/moments.py, RUN_AT);
- other ``--`` lines and ``#`` lines are comments.

Expectation keys (all optional, checked against the record of the next statement):
``format=ROW|STATEMENT|NONE``, ``unsafe=LIMIT,SYSTEM_FUNCTION|none``, ``error=1665|none``,
``warnings=1592,1105|none``, ``cache=trx|stmt|direct|none|mixed``, ``group=N|none``,
``before=a,b`` / ``after=a,b`` (every row event of the statement has exactly these image columns; ``-`` = empty),
``row=TABLE:TYPE:BEFORE:AFTER`` (repeatable; columns comma-separated, may be empty; when present the statement's
row events must be exactly this set). Qualifiers in ``expect[...]`` restrict the line to configs
(``binlog_format=ROW``) and/or profiles (``mysql-9.7``; a prefix such as ``mariadb`` matches every MariaDB profile).
Config variables use canonical names: ``binlog_format``, ``binlog_row_image``, ``transaction_isolation``,
``binlog_direct_non_transactional_updates``, ``autocommit``, ``sql_log_bin``.

Splitting only looks at line ends and comment lines; it never classifies SQL (that is sqlglot's job).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from predictor.exceptions import WorkloadError


@dataclass(frozen=True)
class Expectation:
    """``-- expect[qualifiers]: key=value ...``: qualifiers are ``VAR=VALUE`` (config) or a profile name."""

    values: tuple[tuple[str, str], ...]
    qualifiers: tuple[str, ...] = ()
    line: int = 0

    def applies(self, config: dict[str, str], profile: str) -> bool:
        for q in self.qualifiers:
            if "=" in q:
                k, v = q.split("=", 1)
                if config.get(k.strip().lower(), "").upper() != v.strip().upper():
                    return False
            elif q.lower() != profile.lower() and not profile.lower().startswith(q.lower()):
                return False
        return True


@dataclass(frozen=True)
class Statement:
    seq: int
    session: str
    sql: str
    line: int
    replica_only: bool = False
    expectations: tuple[Expectation, ...] = ()


@dataclass(frozen=True)
class Headers:
    title: str = ""
    seed: str = ""
    configs: tuple[tuple[tuple[str, str], ...], ...] = ()
    servers: tuple[str, ...] = ()
    clock_run: bool = False  # ``-- clock: run``: predicted against the time the check starts

    @property
    def predict_only(self) -> bool:
        return "predict-only" in self.servers


@dataclass(frozen=True)
class Workload:
    name: str
    statements: tuple[Statement, ...]
    headers: Headers = field(default_factory=Headers)

    @property
    def sessions(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for s in self.statements:
            seen.setdefault(s.session, None)
        return tuple(seen)


def parse_assignments(text: str) -> tuple[tuple[str, str], ...]:
    """``a=1 b=X`` -> (("a","1"),("b","X")); names lower-cased."""
    out: list[tuple[str, str]] = []
    for tok in text.split():
        if "=" not in tok:
            raise WorkloadError(f"expected VAR=VALUE, got {tok!r}")
        k, v = tok.split("=", 1)
        out.append((k.strip().lower(), v.strip()))
    return tuple(out)


def _parse_expect(body: str, lineno: int) -> Expectation:
    head, _, rest = body.partition(":")
    quals: tuple[str, ...] = ()
    head = head.strip()
    if head.startswith("expect[") and head.endswith("]"):
        quals = tuple(head[len("expect["):-1].split())
    return Expectation(parse_assignments(rest), quals, lineno)


def parse_workload(text: str, name: str = "<workload>") -> Workload:
    delimiter = ";"
    session = "default"
    replica_next = False
    pending_expect: list[Expectation] = []
    buf: list[str] = []
    start_line = 0
    stmts: list[Statement] = []
    title = seed = ""
    configs: list[tuple[tuple[str, str], ...]] = []
    servers: list[str] = []
    clock_run = False

    def flush(sql: str, lineno: int) -> None:
        nonlocal replica_next, pending_expect
        sql = sql.strip()
        if not sql:
            return
        stmts.append(Statement(len(stmts), session, sql, lineno, replica_next, tuple(pending_expect)))
        replica_next = False
        pending_expect = []

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        stripped = line.strip()
        if not buf:
            if not stripped or stripped.startswith("#"):
                continue
            if stripped.startswith("--"):
                body = stripped[2:].strip()
                low = body.lower()
                if low.startswith("connection "):
                    session = body.split(None, 1)[1].strip()
                elif low == "replica":
                    replica_next = True
                elif low.startswith("expect"):
                    try:
                        pending_expect.append(_parse_expect(body, lineno))
                    except WorkloadError as e:
                        raise WorkloadError(f"{name}:{lineno}: bad expectation: {e.message}") from None
                elif low.startswith("title:"):
                    title = body[6:].strip()
                elif low.startswith("seed:"):
                    seed = body[5:].strip()
                elif low.startswith("config:"):
                    try:
                        configs.append(parse_assignments(body[7:]))
                    except WorkloadError as e:
                        raise WorkloadError(f"{name}:{lineno}: bad config: {e.message}") from None
                elif low.startswith("servers:"):
                    servers.extend(s.strip() for s in body[8:].replace(",", " ").split())
                elif low.startswith("clock:"):
                    if body[6:].strip().lower() != "run":
                        raise WorkloadError(f"{name}:{lineno}: clock: expects 'run'")
                    clock_run = True
                continue
            if stripped.upper().startswith("DELIMITER ") or stripped.upper() == "DELIMITER":
                parts = stripped.split()
                if len(parts) != 2:
                    raise WorkloadError(f"{name}:{lineno}: DELIMITER needs one argument")
                delimiter = parts[1]
                continue
            start_line = lineno
        buf.append(line)
        if line.endswith(delimiter):
            joined = "\n".join(buf)
            flush(joined[: len(joined) - len(delimiter)], start_line)
            buf = []
    if buf:
        flush("\n".join(buf), start_line)
    return Workload(name, tuple(stmts), Headers(title, seed, tuple(configs), tuple(servers), clock_run))


def load_workload(path: Path | str) -> Workload:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise WorkloadError(f"cannot read workload {p}: {e}") from None
    return parse_workload(text, str(p))
