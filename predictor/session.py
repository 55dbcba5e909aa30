"""Per-connection state the server keeps and the binlog decisions depend on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from predictor.catalog import Table
from predictor.evaluate import Fresh
from predictor.undo import Undo

ISOLATION_ALIASES = {"tx_isolation": "transaction_isolation"}
CANONICAL_VARS = ("binlog_format", "binlog_row_image", "transaction_isolation",
                  "binlog_direct_non_transactional_updates", "autocommit", "sql_log_bin")


def canonical_var(name: str) -> str:
    n = name.strip().lower().replace("-", "_")
    for prefix in ("@@session.", "@@local.", "@@", "session.", "local."):
        if n.startswith(prefix):
            n = n[len(prefix):]
    return ISOLATION_ALIASES.get(n, n)


def normalize_value(name: str, value: str) -> str:
    v = value.strip().strip("'\"`").upper()
    if name in ("autocommit", "sql_log_bin", "binlog_direct_non_transactional_updates", "foreign_key_checks"):
        return "ON" if v in ("1", "ON", "TRUE", "YES") else "OFF"
    if name == "transaction_isolation":
        return v.replace("_", "-").replace(" ", "-")
    if name == "binlog_format":
        return {"STMT": "STATEMENT", "0": "MIXED", "1": "STATEMENT", "2": "ROW"}.get(v, v)
    if name == "binlog_row_image":
        return {"0": "MINIMAL", "1": "NOBLOB", "2": "FULL"}.get(v, v)
    return v


class Cache(str, Enum):
    TRX = "trx"
    STMT = "stmt"
    DIRECT = "direct"


@dataclass(frozen=True)
class Piece:
    """One logged unit of a statement: a query event, or the row events of one (table, type)."""

    seq: int
    rows: bool
    nontrans: bool  # it changes something a ROLLBACK does not undo
    table: str = ""
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    type: str = ""
    event: str = ""  # the trigger event whose statement wrote these rows (resolve.Use.event)
    step: int = 0  # which run of a CALL's body statement wrote it (0: the statement itself; calls.py)

    def at(self, seq: int) -> Piece:
        """The same piece for another statement (memoised decisions are reused across statements)."""
        return Piece(seq, self.rows, self.nontrans, self.table, self.before, self.after, self.type, self.event,
                     self.step)


@dataclass
class Savepoint:
    name: str
    cache_len: int
    undo: Undo = field(default_factory=dict)  # tables as they were when the savepoint was set (undo.py)


@dataclass
class SessionState:
    name: str
    vars: dict[str, str]
    user_vars: dict[str, object] = field(default_factory=dict)  # @v -> its value (predictor/variables.py)
    read_vars: set[str] = field(default_factory=set)  # never-set variables a statement compared (ranges._null_read)
    last_insert_id: object = 0  # LAST_INSERT_ID(): 0 before any insert; evaluate.UNKNOWN when not known
    connection: Fresh = field(default_factory=Fresh)  # CONNECTION_ID(): the session's own, equal to no other
    read_insert_id: object = 0  # LAST_INSERT_ID() as the running statement reads it (its value when it began)
    row_count: int | None = None  # ROW_COUNT() as the running statement sees it (the one before); None: unknown
    rows_changed: int | None = None  # what the running statement changed, when the data model followed it
    in_trx: bool = False  # a multi-statement transaction is open (BEGIN, or autocommit=0 after a statement)
    explicit: bool = False  # opened with BEGIN / START TRANSACTION
    trx_cache: list[Piece] = field(default_factory=list)
    trx_has_trans_write: bool = False  # trans_has_updated_trans_table()
    trx_modified_nontrans: bool = False  # transaction.all.modified_non_trans_table
    trx_keep_log: bool = False  # OPTION_KEEP_LOG: temporary tables created/dropped in the transaction
    trx_nontrans_temp: bool = False
    trx_temp_created: bool = False  # a temporary table was created in the open transaction (MySQL's 1751)
    trx_temp_dropped: bool = False  # one was dropped (1752)
    trx_engines_warned: bool = False  # MySQL 9.7's 6414 (engines combined) was given in this transaction
    trx_engines: frozenset[str] = frozenset()  # the engines this transaction wrote (for the 6414), when warned of
    savepoints: list[Savepoint] = field(default_factory=list)
    temp_tables: dict[str, Table] = field(default_factory=dict)
    next_isolation: str | None = None
    xa_state: str | None = None
    locked: bool = False
    force_row: bool = False  # MIXED inside a CALL after a sub-statement went to row
    sticky_row: bool = False  # MIXED with temporary tables after a row-logged statement (MariaDB)
    trx_undo: Undo = field(default_factory=dict)  # tables as they were before the open transaction (undo.py)
    statements: dict[str, str | None] = field(default_factory=dict)
    """PREPARE name -> the statement's text (None: prepared from a value the model does not know)."""
    prepared: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    """(routine, body statement) this connection has prepared -> the tables the statement uses (calls.py)."""

    @classmethod
    def start(cls, name: str, defaults: Mapping[str, str], overrides: Mapping[str, str]) -> SessionState:
        vars_ = {k: normalize_value(k, v) for k, v in defaults.items()}
        for k, v in overrides.items():
            c = canonical_var(k)
            vars_[c] = normalize_value(c, v)
        return cls(name, vars_)

    @property
    def binlog_format(self) -> str:
        return self.vars.get("binlog_format", "MIXED")

    @property
    def row_image(self) -> str:
        return self.vars.get("binlog_row_image", "FULL")

    @property
    def isolation(self) -> str:
        return self.next_isolation or self.vars.get("transaction_isolation", "REPEATABLE-READ")

    @property
    def autocommit(self) -> bool:
        return self.vars.get("autocommit", "ON") == "ON"

    @property
    def log_bin(self) -> bool:
        return self.vars.get("sql_log_bin", "ON") == "ON"

    @property
    def binlog_direct(self) -> bool:
        return self.vars.get("binlog_direct_non_transactional_updates", "OFF") == "ON"

    def strict(self, transactional: bool, row: int) -> bool:
        """Whether sql_mode refuses a bad value in row ``row`` of a statement on such a table (STRICT_ALL_TABLES,
        or STRICT_TRANS_TABLES for a transactional table or the first row; the default of both servers)."""
        mode = self.vars.get("sql_mode")
        if mode is None or "@@" in mode:
            mode = "STRICT_TRANS_TABLES"
        return "STRICT_ALL_TABLES" in mode or ("STRICT_TRANS_TABLES" in mode and (transactional or row == 0))

    def next_statement(self) -> None:
        """A statement starts: ROW_COUNT() is now what the one before changed; LAST_INSERT_ID() reads the
        value it starts with, whatever the statement itself generates."""
        self.read_insert_id = self.last_insert_id
        self.row_count = self.rows_changed
        self.rows_changed = None

    @property
    def multi_stmt_mode(self) -> bool:
        """in_multi_stmt_transaction_mode(): BEGIN was issued or autocommit is off."""
        return self.explicit or self.vars.get("autocommit", "ON") != "ON"

    def reset_trx(self) -> None:
        self.in_trx = False
        self.explicit = False
        self.trx_has_trans_write = False
        self.trx_modified_nontrans = False
        self.trx_keep_log = False
        self.trx_nontrans_temp = False
        self.trx_temp_created = self.trx_temp_dropped = False
        self.trx_engines_warned = False
        self.trx_engines = frozenset()
        self.next_isolation = None
        # fresh containers only when there is something to drop (this runs after every autocommitted statement)
        if self.trx_cache:
            self.trx_cache = []
        if self.savepoints:
            self.savepoints = []
        if self.trx_undo:
            self.trx_undo = {}

    def undo_layers(self) -> tuple[Undo, ...]:
        """Where the open transaction keeps tables' rows for ROLLBACK, then for each ROLLBACK TO SAVEPOINT."""
        return (self.trx_undo, *(sp.undo for sp in self.savepoints))

    def temp_table(self, name: str) -> Table | None:
        return self.temp_tables.get(name.lower())

    def ident(self, name: str) -> str:
        """The data model's key of the table ``name`` means in this session (catalog.Table.ident)."""
        t = self.temp_tables.get(name.lower())
        return t.ident if t is not None else name.lower()
