"""Server profiles as data: one class per server flavour/version, overriding only what differs.

Like sqlglot's ``Dialect`` subclasses: upper-case class attributes are the facts, documented where they are
declared. Facts come from binlog-rules.md and from runs on real servers (fixtures/seeds keeps the cases that
show them); where a real server disagreed with a document, the profile follows the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import ClassVar

from predictor import engines as E
from predictor import reserved
from predictor.engines import Engine
from predictor.exceptions import ProfileError

_UNSAFE_FUNCTIONS_MYSQL = frozenset({
    "CURRENT_USER", "FOUND_ROWS", "GET_LOCK", "IS_FREE_LOCK", "IS_USED_LOCK", "LOAD_FILE", "SOURCE_POS_WAIT",
    "MASTER_POS_WAIT", "RELEASE_LOCK", "RELEASE_ALL_LOCKS", "ROW_COUNT", "SESSION_USER", "SLEEP", "SYSDATE",
    "SYSTEM_USER", "USER", "UUID", "UUID_SHORT", "VERSION", "RAND", "RANDOM_BYTES", "AES_ENCRYPT", "AES_DECRYPT",
    "UUID_TO_BIN", "BIN_TO_UUID",
})

_SAFE_SYSVARS = frozenset({
    "auto_increment_increment", "auto_increment_offset", "character_set_client", "character_set_connection",
    "character_set_database", "character_set_server", "collation_connection", "collation_database",
    "collation_server", "pseudo_thread_id", "sql_auto_is_null", "foreign_key_checks", "unique_checks",
    "timestamp", "last_insert_id", "insert_id", "rand_seed1", "rand_seed2", "lc_time_names", "time_zone",
    "sql_mode", "identity",
})

_BASE_ENGINES: dict[str, Engine] = {e.name: e for e in (
    E.INNODB, E.MYISAM, E.MEMORY, E.CSV, E.ARCHIVE, E.BLACKHOLE, E.FEDERATED, E.MERGE, E.EXAMPLE,
    E.PERFORMANCE_SCHEMA,
)}


class EmptyTable(str, Enum):
    """Which UPDATE / DELETE on an empty table of Profile.EMPTY_ESTIMATE_ENGINES is dropped before it runs."""

    HASH_KEY = "hash_key"  # its WHERE gives every column of a non-unique HASH key (a MEMORY table's default)
    INDEX_RANGE = "index_range"  # its WHERE compares the first column of an index with a value
    ANY_WHERE = "any_where"  # it has a WHERE


class Profile:
    """Base facts shared by every MySQL-family server; subclasses override what differs."""

    NAME: ClassVar[str] = "generic"
    FLAVOR: ClassVar[str] = "mysql"
    VERSION: ClassVar[tuple[int, int]] = (0, 0)

    ENGINES: ClassVar[Mapping[str, Engine]] = MappingProxyType(_BASE_ENGINES)
    """Engines this server knows, by canonical lower-case name."""
    DEFAULT_ENGINE: ClassVar[str] = "innodb"
    DEFAULT_TMP_ENGINE: ClassVar[str] = "innodb"

    SESSION_DEFAULTS: ClassVar[Mapping[str, str]] = MappingProxyType({
        "binlog_format": "ROW",
        "binlog_row_image": "FULL",
        "transaction_isolation": "REPEATABLE-READ",
        "binlog_direct_non_transactional_updates": "OFF",
        "autocommit": "ON",
        "sql_log_bin": "ON",
    })
    """Session variables at connect, by canonical name."""

    SERVER_DEFAULTS: ClassVar[Mapping[str, str]] = MappingProxyType({
        "gtid_mode": "OFF",
        "enforce_gtid_consistency": "OFF",
        "log_bin": "ON",
        "log_bin_trust_function_creators": "OFF",
    })
    """Server options that change logging decisions (``--server-opt`` overrides them)."""

    ISOLATION_VARIABLES: ClassVar[frozenset[str]] = frozenset({"transaction_isolation", "tx_isolation"})
    """Names this server accepts for the session isolation variable."""

    ROW_IMAGES: ClassVar[frozenset[str]] = frozenset({"FULL", "MINIMAL", "NOBLOB"})

    UNSAFE_FUNCTIONS: ClassVar[frozenset[str]] = _UNSAFE_FUNCTIONS_MYSQL
    """Built-in functions whose result may differ on the replica (SYSTEM_FUNCTION)."""
    SUBSTATEMENT_UNSAFE_FUNCTIONS: ClassVar[frozenset[str]] = frozenset()
    """Functions that are safe in a statement but unsafe inside a trigger, stored function or view."""
    MISSING_FUNCTIONS: ClassVar[frozenset[str]] = frozenset()
    """Functions the server does not have: a statement calling one fails with 1305 (MySQL 9.7 here: MD5,
    SHA1 / SHA; fixtures/seeds/003_logging_rules/missing_functions.sql)."""
    DEPRECATED_SYNTAX_WARNING: ClassVar[int | None] = None
    """MySQL 9.7: the warning (1681) a CREATE TABLE with a deprecated column type gets (analyze.DEPRECATED_SYNTAX)."""
    FOREIGN_KEY_TABLES_LOCKED: ClassVar[bool] = False
    """MySQL 9.7 opens the tables a statement's foreign keys check with it: the parents of an inserted or
    updated child, the RESTRICT / NO ACTION children of an updated or deleted parent are read-locked, so a
    change of an auto-increment table is WRITE_AUTOINC_SELECT (fixtures/seeds/003_logging_rules/unsafe_25_*)."""
    MULTI_UPDATE_OPENS_JOINED: ClassVar[bool] = False
    """MySQL opens every table of a multi-table UPDATE for writing, those it only reads too: their UPDATE
    triggers' unsafe reasons are the statement's (seen on 9.7: fixtures/seeds/003_logging_rules/
    multi_update_triggers.sql; MariaDB opens only the updated tables)."""
    UNSAFE_FUNCTIONS_IN: ClassVar[Mapping[str, frozenset[str]]] = MappingProxyType({})
    """Functions unsafe only in statements of these kinds (``Kind`` names)."""
    SAFE_SYSVARS: ClassVar[frozenset[str]] = _SAFE_SYSVARS
    """System variables the binlog carries: reading them is safe."""
    UNSAFE_REASONS: ClassVar[frozenset[str]] = frozenset({
        "LIMIT", "SYSTEM_TABLE", "AUTOINC_COLUMNS", "UDF", "SYSTEM_VARIABLE", "SYSTEM_FUNCTION",
        "NONTRANS_AFTER_TRANS", "MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE", "MIXED_STATEMENT",
        "INSERT_IGNORE_SELECT", "INSERT_SELECT_UPDATE", "WRITE_AUTOINC_SELECT", "REPLACE_SELECT",
        "CREATE_IGNORE_SELECT", "CREATE_REPLACE_SELECT", "CREATE_SELECT_AUTOINC", "UPDATE_IGNORE",
        "INSERT_TWO_KEYS", "AUTOINC_NOT_FIRST", "FULLTEXT_PLUGIN", "SKIP_LOCKED", "NOWAIT", "XA",
        "ACL_TABLE_READ_IN_DML_DDL", "CREATE_SELECT_WITH_GIPK",
    })
    """Unsafe reasons this server knows (names as in binlog-rules.md §2)."""

    RESERVED_WORDS: ClassVar[frozenset[str]] = reserved.MYSQL_97
    """Unquoted names that fail with 1064 (predictor/reserved.py, measured on each server)."""
    LIMIT_ZERO_SAFE: ClassVar[bool] = False
    """MariaDB: a DML with a constant LIMIT <= 0 is not unsafe."""
    BODY_LIMIT_READS_TABLE: ClassVar[bool] = False
    """In MIXED, a procedure body's SELECT / SET with a LIMIT switches the rest of the CALL to rows; on MariaDB
    only when it reads a table (``SET v = (SELECT 5 LIMIT 1)`` does not; MySQL 9.7: it does) —
    fixtures/seeds/003_logging_rules/set_limit.sql."""
    BODY_UNSAFE_EXPRESSION_ROW: ClassVar[bool] = True
    """In MIXED, a procedure body's IF condition, SET of a local variable or DECLARE ... DEFAULT with an unsafe
    function (``IF ROW_COUNT() = 1``, ``SET v = UUID()``) switches the rest of the CALL to rows (MySQL 9.7;
    MariaDB: not) — fixtures/seeds/003_logging_rules/body_unsafe_expression.sql."""
    UNSAFE_AND_STMT_ENGINE_ANY_FORMAT: ClassVar[bool] = False
    """MariaDB: 1663 for a statement-only engine and an unsafe statement in every binlog_format."""
    UPSERT_KEPT_ROW_FIRES_UPDATE: ClassVar[bool] = True
    """ON DUPLICATE KEY UPDATE that leaves a row as it was still runs its AFTER UPDATE triggers (MySQL 9.7,
    MariaDB 10.11; not 11.8) — fixtures/seeds/003_logging_rules/odku_triggers.sql."""
    IODUP_TWO_KEYS_DEFERRED: ClassVar[bool] = False
    """MariaDB: INSERT..ON DUPLICATE KEY UPDATE on >1 unique key is decided in reconsider_logging_format."""
    TEMP_TABLES_NEVER_ROW: ClassVar[bool] = True
    """MySQL 8.0.4+: in MIXED, touching a temporary table switches to row, so temp tables are never logged."""
    MIXED_ROW_STICKY_WITH_TEMP_TABLES: ClassVar[bool] = False
    """MariaDB: in MIXED, a session with temporary tables keeps the row format of its last row-logged
    statement until they are all dropped (THD::reset_current_stmt_binlog_format_row; seen on 10.11 with
    fixtures/workloads/warehouse_app.sql)."""
    MIXED_READ_COMMITTED_UNSAFE: ClassVar[bool] = False
    """MariaDB (seen on 10.11): an autocommit statement writing a non-transactional table while reading a
    transactional one under isolation < REPEATABLE READ is MIXED_STATEMENT-unsafe."""

    NO_PKE_FULL_IMAGES: ClassVar[bool] = False
    """MariaDB: a table without a PKE logs full before and after images in every binlog_row_image."""
    MINIMAL_AFTER_UNIQUE_KEYS: ClassVar[bool] = True
    """MySQL (transaction_write_set_extraction): MINIMAL after images also carry unique-key columns."""
    UPSERT_AFTER_FULL: ClassVar[bool] = True
    """MySQL: a duplicate marks the whole row, so the update event of REPLACE / ON DUPLICATE KEY UPDATE, and an
    upsert's rows written after a duplicate, have the whole row as MINIMAL and NOBLOB after image (seen on 9.7,
    fixtures/seeds/004_wl5092/upsert_images.sql, upsert_write_image.sql)."""
    MULTI_UPDATE_WRITES_GENERATED: ClassVar[bool] = False
    """MySQL 9.7: a multi-table UPDATE's MINIMAL after image has every generated column of the rows it changes,
    stored or virtual, whatever it sets (a single-table UPDATE only those it recomputes; blood_bank_app's
    donors, fixtures/seeds/004_wl5092/multi_update_generated.sql)."""
    GENERATED_WRITTEN: ClassVar[str] = "computed"
    """Which generated columns a row change writes (MINIMAL after images): ``computed``, those whose base
    columns it writes (all of them on INSERT), or ``stored``, every STORED one. An indexed VIRTUAL column is
    written by every change on both servers (fixtures/seeds/004_wl5092/images_9_generated_columns.sql)."""
    NOBLOB_AFTER_HAS_PKE: ClassVar[bool] = False
    """MariaDB: NOBLOB after images also carry the PKE columns, blobs included (seen on 10.11)."""
    NOBLOB_KEEPS_JSON: ClassVar[bool] = True
    """MySQL keeps JSON/GEOMETRY columns in NOBLOB images; MariaDB's JSON is a LONGTEXT (a blob)."""

    BLACKHOLE_ROW_WARNING: ClassVar[int | None] = 1870
    """Warning for UPDATE/DELETE on BLACKHOLE in ROW format."""
    FIRST_NULL_READ_LOGGED: ClassVar[bool] = False
    """MariaDB: the first statement of a session that compares an index with a never-set user variable is
    run and logged all the same (the next ones are not; fixtures/seeds/003_logging_rules/impossible_where.sql)."""
    EMPTY_ESTIMATE_ENGINES: ClassVar[frozenset[str]] = frozenset({"memory", "heap"})
    """Engines whose estimate of 0 rows for an empty table the optimizer takes as exact: an UPDATE / DELETE
    on one that is empty may not run, nor be logged (predictor/ranges.py; EMPTY_TABLE_SKIPS says which)."""
    EMPTY_TABLE_SKIPS: ClassVar[EmptyTable] = EmptyTable.HASH_KEY
    """MySQL: the WHERE gives every column of a non-unique HASH key (a unique one is estimated at one row
    without asking the engine; fixtures/seeds/003_logging_rules/empty_range.sql)."""
    CHECK_VIOLATION_ERROR: ClassVar[int] = 3819
    """A row that makes a CHECK constraint false (MariaDB: 4025, ER_CONSTRAINT_FAILED)."""
    REPLACE_DELETE_CHECKS_CHILDREN: ClassVar[bool] = False
    """MariaDB: a row REPLACE deletes (its clash is on a key other than the last) is refused, 1451, while a
    child references it; MySQL 9.7 deletes it and logs Delete_rows + Write_rows, which its replica then
    refuses (seen with vet_clinic_app; fixtures/seeds/003_logging_rules/replace_parent_row.sql)."""
    INVALID_JSON_ERROR: ClassVar[int] = 3140
    """A string that is not JSON written to a JSON column, in any sql_mode (MariaDB: its JSON is a LONGTEXT
    with CHECK (json_valid(c)), so 4025; fixtures/seeds/003_logging_rules/json_invalid.sql)."""
    INVALID_JSON_NOTE: ClassVar[int | None] = None
    """MariaDB: the warning next to it (4038, "Syntax error in JSON text")."""
    TIME_DROPPED_NOTE: ClassVar[int] = 1292
    """The note a DATETIME (NOW()) written into a DATE column gets, in any sql_mode (MariaDB: 1265, "Data
    truncated"; fixtures/seeds/003_logging_rules/clock_dates.sql)."""
    ROUTINE_ERROR_NOTE: ClassVar[int | None] = None
    """MariaDB: the note (4094, "At line N in db.proc") next to an error a CALLed procedure's statement raised
    (fixtures/seeds/003_logging_rules/cursor_loops.sql)."""
    ROUTINE_EVERY_STEP_CLEARS_WARNINGS: ClassVar[bool] = False
    """Which body statements clear the warnings a CALL reports so far (an unsafe statement's 1592 stays):
    MySQL (True) every statement and IF test; MariaDB only a statement that opens tables, SET and IF tests
    excepted (fixtures/seeds/003_logging_rules/procedure_row_count.sql: an INSERT IGNORE's 1062, then COMMIT;
    routine_warnings.sql)."""
    BAD_NULL_NOTE: ClassVar[int | None] = None
    """MariaDB: a second error (1105 "Unknown error") next to an INSERT's 1048 on its first row, unless the
    table has a BEFORE trigger (then NOT NULL is checked after the triggers: fixtures session_values.sql)."""
    CREATE_EXISTING_LOGGED: ClassVar[bool] = True
    """CREATE TABLE IF NOT EXISTS of a table that exists (note 1050) is still logged; MariaDB logs nothing
    (fixtures/seeds/003_logging_rules/create_select_exists.sql). ... SELECT is never logged then."""
    TWO_KEYS_IN_TRIGGER_TABLES: ClassVar[bool] = False
    """MySQL 9.7: INSERT ... ON DUPLICATE KEY UPDATE is INSERT_TWO_KEYS-unsafe when a table its triggers write
    has more than one unique key, not only its own table (fixtures/seeds/003_logging_rules/
    upsert_two_keys_elsewhere.sql); a foreign key's parent does not count."""
    FK_CASCADES_LOGGED: ClassVar[bool] = False
    """MySQL 9: the child rows an ON DELETE CASCADE deletes are logged as row events of the DELETE (foreign
    keys moved from InnoDB to the SQL layer; fixtures/seeds/003_logging_rules/foreign_keys.sql)."""
    SQL_MODE_MERGED_WARNING: ClassVar[int | None] = None
    """MySQL: the warning (3135) a SET sql_mode gets when strict mode and NO_ZERO_DATE, NO_ZERO_IN_DATE,
    ERROR_FOR_DIVISION_BY_ZERO are not set together (fixtures/seeds/003_logging_rules/value_conversions.sql)."""
    SET_BINLOG_FORMAT_WARNING: ClassVar[int | None] = None
    """Deprecation warning a ``SET binlog_format`` statement gets."""
    MULTI_UPDATE_STMT_CACHE_WHEN: ClassVar[str | None] = None
    """"unmatched" / "unchanged": a multi-table UPDATE that matches (changes) no row is logged, as a
    statement, through the statement cache: the server counts a table as transactional only once it
    found (updated) one of its rows. None: the transaction cache, as for any InnoDB change."""
    SEMI_JOIN_UPDATE_IS_MULTI: ClassVar[bool] = False
    """A single-table UPDATE whose WHERE has an IN-subquery runs as a multi-table UPDATE (semi-join, MariaDB
    11.1+, MDEV-7487), with MULTI_UPDATE_STMT_CACHE_WHEN's cache rule."""
    SELF_READ_UPDATE_IS_MULTI: ClassVar[bool] = False
    """A single-table UPDATE whose subquery reads the table it changes (through a derived table too) runs as a
    multi-table UPDATE, with MULTI_UPDATE_STMT_CACHE_WHEN's cache rule (MariaDB: how it allows what MySQL
    refuses with 1093; fixtures/seeds/003_logging_rules/self_read_derived.sql)."""
    SELF_SUBQUERY_ERROR: ClassVar[int | None] = None
    """Error for a single-table UPDATE / DELETE whose subquery reads the table it changes (None: allowed,
    MariaDB since 10.3)."""
    BINLOG_FORMAT_IN_TRX_ERROR: ClassVar[int] = 1560
    """Error when binlog_format is changed inside a transaction."""
    BINLOG_FORMAT_WITH_TEMP_ERROR: ClassVar[int | None] = 3745
    """Error when binlog_format is changed while the session has open temporary tables (None: allowed)."""
    DEPRECATED_FUNCTIONS: ClassVar[frozenset[str]] = frozenset()
    """Functions whose every use (also inside a routine, trigger or view definition) warns 1287."""
    DEPRECATED_OUTSIDE_ROUTINES: ClassVar[frozenset[str]] = frozenset()
    """Functions that warn 1287 in a statement's own text, and in a routine's body when a connection other than
    the creating one first parses the routine (its first CALL there)."""
    COMBINED_ENGINES_WARNING: ClassVar[int | None] = None
    """Warning when a statement or transaction updates a transactional and a non-transactional table (9.7:
    6414, "Combining the storage engines MyISAM and InnoDB is deprecated")."""
    GTID_TEMP_IN_TRX_ERROR: ClassVar[int] = 1787
    """Error for CREATE/DROP TEMPORARY TABLE inside a transaction under enforce_gtid_consistency."""
    TEMP_TABLE_ROLLBACK_WARNINGS: ClassVar[tuple[int | None, int | None]] = (None, None)
    """What ROLLBACK warns when the transaction created / dropped a temporary table (MariaDB: nothing)."""
    SAVEPOINT_NEEDS_CACHE: ClassVar[bool] = True
    """A SAVEPOINT is written only when the transaction cache already holds something (MySQL 9.7, MariaDB
    10.11 and 11.8: fixtures/seeds/003_logging_rules/savepoints.sql)."""
    DEPRECATED_AT_RUN: ClassVar[frozenset[str]] = frozenset()
    """Functions that warn 1287 each time they are executed."""
    INNODB_ROW_ONLY_WARNING: ClassVar[int] = 1015
    """The handler warning InnoDB adds to 1665 under READ COMMITTED (MySQL 9.7: 1015; MariaDB: 1030)."""
    GTID_CONSISTENCY_ERRORS: ClassVar[bool] = True
    """Whether enforce_gtid_consistency exists (MySQL) and raises 1785/1787."""
    DELAYED_WARNING: ClassVar[int | None] = 3005
    """MySQL ignores DELAYED (a plain INSERT) with warning 3005; MariaDB runs it (no warning)."""
    DELAYED_THREAD: ClassVar[bool] = False
    """MariaDB: INSERT DELAYED hands its rows to a server thread that logs them under the *global*
    binlog_format (rows unless it is STATEMENT, when the insert runs as a plain one), in its own group."""
    ROW_INJECTION_STMT_MODE_ERROR: ClassVar[int | None] = 1666
    """A row injection (BINLOG statement) under binlog_format=STATEMENT; MariaDB switches to rows silently."""
    ROW_INJECTION_GTID_ERROR: ClassVar[int | None] = 1782
    """MySQL with gtid_mode=ON refuses a BINLOG statement's rows before any logging decision (1782, GTID_NEXT
    cannot be ANONYMOUS), so 1664/1666 are not reached; seen on 9.7."""
    UPDATE_IGNORE_CLASHES_IN_SCAN_ORDER: ClassVar[bool] = True
    """MySQL: UPDATE IGNORE moving a unique key updates row by row in scan order and skips (warning 1062) a row
    whose new key is still taken; MariaDB 10.11 gave no 1062 for the same statement (unsafe_22)."""
    UPDATE_IGNORE_DUP_WARNING: ClassVar[int | None] = 1062
    """The note UPDATE IGNORE gives for a row it skipped because its new key was taken; MariaDB skips the row
    without one (fixtures/seeds/003_logging_rules/data_dependent_keys.sql)."""
    ONE_GROUP_PER_COMMIT: ClassVar[bool] = False
    """MariaDB: the statement cache and the transaction cache flushed by the same autocommit statement end are
    written as one event group (seed 001 shape 5.a in ROW: the next statement's group is one higher, not two);
    MySQL writes (and numbers) each cache as its own group."""
    ROLLBACK_LOGS_UNDOABLE_CACHE_ONLY: ClassVar[bool] = True
    """MySQL: ROLLBACK writes the transaction cache only when the cache itself holds a change that cannot be
    undone (``trx_cache.cannot_rollback()``); non-transactional changes that went through the statement cache
    do not count (seen on 9.7). MariaDB: whenever the transaction changed a non-transactional table."""
    SAME_SECOND_STATEMENTS: ClassVar[int | None] = 300
    """Two clock readings taken this many statements apart or more are bet to be different seconds
    (moments.same_second; None: always the same second). The harness replays about 650 statements a second
    on MariaDB 10.11 here (330 to 900 for the workloads of fixtures/workloads), so after half that many a
    second has more likely than not gone by."""

    def __init__(self, server_opts: Mapping[str, str] | None = None,
                 engines: Mapping[str, Engine] | None = None) -> None:
        opts = dict(self.SERVER_DEFAULTS)
        opts.update({k.lower().replace("-", "_"): v for k, v in (server_opts or {}).items()})
        self.server_opts: dict[str, str] = opts
        self.engines: dict[str, Engine] = dict(self.ENGINES)
        self.engines.update(engines or {})
        # engine() per name as written (hot path); self.engines is not changed after construction
        self._engine_by_name: dict[str | None, Engine] = {}

    @property
    def name(self) -> str:
        return self.NAME

    @property
    def is_mariadb(self) -> bool:
        return self.FLAVOR == "mariadb"

    def engine(self, name: str | None) -> Engine:
        eng = self._engine_by_name.get(name)
        if eng is None:
            eng = self._find_engine(name)
            self._engine_by_name[name] = eng
        return eng

    def _find_engine(self, name: str | None) -> Engine:
        n = E.canonical_engine(name or self.DEFAULT_ENGINE)
        eng = self.engines.get(n)
        if eng is None:
            # Unknown engines fall back to the default engine, as the server does with a 1266 note.
            return self.engines[self.DEFAULT_ENGINE]
        return eng

    def knows_engine(self, name: str) -> bool:
        return E.canonical_engine(name) in self.engines

    def global_var(self, name: str) -> str:
        """A global variable's value: a server option, else the session default (which copies it)."""
        return self.server_opts.get(name) or self.SESSION_DEFAULTS.get(name, "")

    def opt_on(self, name: str) -> bool:
        return self.server_opts.get(name, "OFF").upper() in ("ON", "1", "TRUE", "YES")

    @property
    def enforce_gtid(self) -> bool:
        return self.GTID_CONSISTENCY_ERRORS and self.opt_on("enforce_gtid_consistency")


class MySQL80(Profile):
    NAME = "mysql-8.0"
    VERSION = (8, 0)
    RESERVED_WORDS = reserved.MYSQL_80
    SET_BINLOG_FORMAT_WARNING = 1287
    SQL_MODE_MERGED_WARNING = 3135
    FK_CASCADES_LOGGED = True
    TWO_KEYS_IN_TRIGGER_TABLES = True
    MULTI_UPDATE_WRITES_GENERATED = True
    ROUTINE_EVERY_STEP_CLEARS_WARNINGS = True
    MULTI_UPDATE_OPENS_JOINED = True
    SELF_SUBQUERY_ERROR = 1093
    """Seen on 9.7.4: DELETE FROM t WHERE v > (SELECT MAX(v) FROM t) is refused, nothing logged
    (fixtures/seeds/003_logging_rules/loops_subqueries_and_savepoints.sql); documented since 5.x."""
    SAME_SECOND_STATEMENTS = 150
    """MySQL 9.7 in a container here replays 150 to 320 statements a second (250 for most workloads of
    fixtures/workloads, a pair reused by ``rplay matrix``), so two readings 125 to 150 statements apart are a
    coin flip: coworking_spaces_app's settings rewritten 161 statements after they were made got a new NOW(),
    parking_permits_app's handheld synced again 135 statements later did not."""
    TEMP_TABLE_ROLLBACK_WARNINGS = (1751, 1752)
    """Seen on 9.7.4: ROLLBACK of a transaction that created a temporary table warns 1751, also in MIXED where
    the CREATE was not logged (temp_table_autocommit_off.sql); 1752 for a dropped one, from the source
    (Transaction_ctx::push_unsafe_rollback_warnings, 8.0 on)."""


class MySQL84(MySQL80):
    NAME = "mysql-8.4"
    VERSION = (8, 4)
    RESERVED_WORDS = reserved.MYSQL_84
    MINIMAL_AFTER_UNIQUE_KEYS = False
    """transaction_write_set_extraction is gone since 8.3: MINIMAL after images hold the written columns."""


class MySQL97(MySQL84):
    NAME = "mysql-9.7"
    RESERVED_WORDS = reserved.MYSQL_97
    FOREIGN_KEY_TABLES_LOCKED = True
    DEPRECATED_SYNTAX_WARNING = 1681
    MISSING_FUNCTIONS = frozenset({"MD5", "SHA"})
    VERSION = (9, 7)
    SERVER_DEFAULTS = MappingProxyType({
        "gtid_mode": "ON",
        "enforce_gtid_consistency": "ON",
        "log_bin": "ON",
    })
    """Seen on Debian's 9.7 build: GTIDs and their consistency checks are on by default."""
    DEPRECATED_FUNCTIONS = frozenset({"FOUND_ROWS", "SQL_CALC_FOUND_ROWS", ":="})
    """Seen on 9.7.4: FOUND_ROWS() warns 1287 wherever it is parsed, routine definitions included; so does
    SELECT SQL_CALC_FOUND_ROWS (fixtures/workloads/library_app.sql), and a user variable set inside an
    expression, ``SELECT @v := id`` (analyze.USER_VARIABLE_ASSIGNMENT; crowdfunding_platform_app)."""
    DEPRECATED_OUTSIDE_ROUTINES = frozenset({"VALUES"})
    """Seen on 9.7.4: VALUES(col) in ON DUPLICATE KEY UPDATE warns 1287 in a statement, not in a CREATE
    PROCEDURE's body nor when the procedure runs in the session that created it
    (fixtures/workloads/warehouse_app.sql); another session's first CALL, which parses the procedure into its
    cache, warns (routine_parse_warning.sql; loan_servicing_app's nightly batch)."""
    COMBINED_ENGINES_WARNING = 6414
    GTID_TEMP_IN_TRX_ERROR = 3748
    DEPRECATED_AT_RUN = frozenset({"MASTER_POS_WAIT"})
    """Seen on 9.7.4: MASTER_POS_WAIT() warns 1287 when it runs (also inside a called routine or trigger)."""


class MariaDB1011(Profile):
    NAME = "mariadb-10.11"
    FLAVOR = "mariadb"
    VERSION = (10, 11)
    RESERVED_WORDS = reserved.MARIADB_1011
    CREATE_EXISTING_LOGGED = False
    MULTI_UPDATE_STMT_CACHE_WHEN = "unmatched"
    """Seen on 10.11.19 (fixtures/workloads/clinic_app.sql: no row matched); a matched but unchanged row keeps
    it in the transaction cache (fixtures/seeds/003_logging_rules/loops_subqueries_and_savepoints.sql), unless
    the table has a CHECK constraint or an ON UPDATE CURRENT_TIMESTAMP column: then "unchanged"
    (multi_update_unchanged_checked.sql)."""
    SELF_READ_UPDATE_IS_MULTI = True
    ENGINES = MappingProxyType({**_BASE_ENGINES, **{e.name: e for e in (
        E.ARIA, E.FEDERATEDX, E.CONNECT, E.SPIDER, E.SEQUENCE_ENGINE, E.SEQUENCE_TABLE)}})
    SESSION_DEFAULTS = MappingProxyType({**Profile.SESSION_DEFAULTS, "binlog_format": "MIXED"})
    SERVER_DEFAULTS = MappingProxyType({"log_bin": "ON"})
    ISOLATION_VARIABLES = frozenset({"tx_isolation"})
    UNSAFE_FUNCTIONS = _UNSAFE_FUNCTIONS_MYSQL - {"RAND", "RANDOM_BYTES", "AES_ENCRYPT", "AES_DECRYPT",
                                                  "VERSION", "UUID_TO_BIN", "BIN_TO_UUID",
                                                  "SOURCE_POS_WAIT", "RELEASE_ALL_LOCKS"}
    """CURRENT_USER() is unsafe on 10.11 and 11.8 too, in a statement as in stored code (seen:
    fixtures/seeds/003_logging_rules/current_user_unsafe.sql, blood_bank_app's audit rows)."""
    UNSAFE_REASONS = Profile.UNSAFE_REASONS - {"FULLTEXT_PLUGIN", "NOWAIT", "XA",
                                               "ACL_TABLE_READ_IN_DML_DDL", "CREATE_SELECT_WITH_GIPK"}
    UNSAFE_FUNCTIONS_IN = MappingProxyType({"RAND": frozenset({"UPDATE", "DELETE", "REPLACE", "SELECT", "SET", "DO",
                                                               "NOOP"})})
    """Seen on 10.11: RAND() is unsafe in UPDATE, DELETE and REPLACE, safe in INSERT (its seed is logged);
    fixtures/seeds/003_logging_rules/unsafe_07_rand.sql, found on fixtures/workloads/fleet_app.sql. A SELECT
    reading a table with it goes to row too (Create_func_rand: unsafe unless SQLCOM_INSERT; read_unsafe.sql)."""
    SUBSTATEMENT_UNSAFE_FUNCTIONS = frozenset({"RAND"})
    """Seen on 10.11: RAND()'s seed is logged for the statement, not for the stored code it runs."""
    LIMIT_ZERO_SAFE = True
    BODY_LIMIT_READS_TABLE = True
    BODY_UNSAFE_EXPRESSION_ROW = False
    UNSAFE_AND_STMT_ENGINE_ANY_FORMAT = True
    IODUP_TWO_KEYS_DEFERRED = True
    TEMP_TABLES_NEVER_ROW = False
    MIXED_ROW_STICKY_WITH_TEMP_TABLES = True
    MIXED_READ_COMMITTED_UNSAFE = True
    NO_PKE_FULL_IMAGES = True
    MINIMAL_AFTER_UNIQUE_KEYS = False
    UPSERT_AFTER_FULL = False
    GENERATED_WRITTEN = "stored"
    NOBLOB_KEEPS_JSON = False
    NOBLOB_AFTER_HAS_PKE = True
    BLACKHOLE_ROW_WARNING = 1105
    BAD_NULL_NOTE = 1105
    ROUTINE_ERROR_NOTE = 4094
    CHECK_VIOLATION_ERROR = 4025
    INVALID_JSON_ERROR = 4025
    REPLACE_DELETE_CHECKS_CHILDREN = True
    INVALID_JSON_NOTE: ClassVar[int | None] = 4038
    TIME_DROPPED_NOTE = 1265
    FIRST_NULL_READ_LOGGED = True
    EMPTY_ESTIMATE_ENGINES = frozenset({"memory", "heap", "myisam"})
    EMPTY_TABLE_SKIPS = EmptyTable.INDEX_RANGE
    """The WHERE compares the first column of any index with a value, unique or not."""
    INNODB_ROW_ONLY_WARNING = 1030
    BINLOG_FORMAT_WITH_TEMP_ERROR = None
    GTID_CONSISTENCY_ERRORS = False
    ONE_GROUP_PER_COMMIT = True
    UPDATE_IGNORE_CLASHES_IN_SCAN_ORDER = False
    UPDATE_IGNORE_DUP_WARNING = None
    ROW_INJECTION_STMT_MODE_ERROR = None
    ROW_INJECTION_GTID_ERROR = None
    DELAYED_WARNING = None
    DELAYED_THREAD = True
    ROLLBACK_LOGS_UNDOABLE_CACHE_ONLY = False


class MariaDB118(MariaDB1011):
    NAME = "mariadb-11.8"
    VERSION = (11, 8)
    RESERVED_WORDS = reserved.MARIADB_118
    UPSERT_KEPT_ROW_FIRES_UPDATE = False
    MULTI_UPDATE_STMT_CACHE_WHEN = "unchanged"
    """Seen on 11.8: a matched row that keeps its values does not make the table transactional either
    (fixtures/seeds/003_logging_rules/loops_subqueries_and_savepoints.sql)."""
    SEMI_JOIN_UPDATE_IS_MULTI = True  # seen on 11.8 (fixtures/seeds/003_logging_rules/temporary_table_rows.sql)
    ISOLATION_VARIABLES = frozenset({"tx_isolation", "transaction_isolation"})
    ROW_IMAGES = frozenset({"FULL", "MINIMAL", "NOBLOB", "FULL_NODUP"})
    INVALID_JSON_NOTE = None
    """Seen on 11.8: the CHECK fails without the JSON syntax warning (json_invalid.sql)."""
    EMPTY_TABLE_SKIPS = EmptyTable.ANY_WHERE
    """Seen on 11.8: any WHERE, on indexed columns or not (empty_range.sql)."""


PROFILES: Mapping[str, type[Profile]] = MappingProxyType({
    cls.NAME: cls for cls in (MariaDB1011, MariaDB118, MySQL80, MySQL84, MySQL97)
})


def get_profile(name: str, server_opts: Mapping[str, str] | None = None,
                engines: Mapping[str, Engine] | None = None) -> Profile:
    cls = PROFILES.get(name.lower())
    if cls is None:
        raise ProfileError(f"unknown server profile {name!r}; known: {', '.join(sorted(PROFILES))}")
    return cls(server_opts, engines)


def profile_for_version(version: str) -> str:
    """The profile name for a server's ``SELECT VERSION()`` string (nearest known version)."""
    v = version.lower()
    try:
        nums = tuple(int(x) for x in v.split("-")[0].split(".")[:2])
    except ValueError:
        nums = (0, 0)
    if "mariadb" in v:
        return "mariadb-11.8" if nums >= (11, 0) else "mariadb-10.11"
    if nums < (8, 1):
        return "mysql-8.0"
    if nums < (9, 0):
        return "mysql-8.4"
    return "mysql-9.7"
