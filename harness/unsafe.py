"""Map the text of an unsafe-statement note (1592) to the unsafe reason names of binlog-rules.md §2.

Note 1592 reads "Unsafe statement written to the binary log using statement format since
BINLOG_FORMAT = STATEMENT. <reason text>"; the reason text is the server's message for the reason's own
error code. Phrases below are taken from MariaDB's errmsg-utf8.txt and MySQL's messages_to_clients.txt;
they avoid the words that differ between the two (slave/replica, master/source). Order matters: the more
specific phrase comes first.
"""

from __future__ import annotations

UNSAFE_NOTE = 1592

REASON_PHRASES: tuple[tuple[str, str], ...] = (
    ("INSERT_IGNORE_SELECT", "insert ignore... select is unsafe"),
    ("INSERT_SELECT_UPDATE", "insert... select... on duplicate key update is unsafe"),
    ("REPLACE_SELECT", "replace... select is unsafe"),
    ("CREATE_IGNORE_SELECT", "create... ignore select is unsafe"),
    ("CREATE_REPLACE_SELECT", "create... replace select is unsafe"),
    ("CREATE_SELECT_AUTOINC", "create table... select... on a table with an auto-increment column"),
    ("UPDATE_IGNORE", "update ignore is unsafe"),
    ("INSERT_TWO_KEYS", "more than one unique key"),
    ("AUTOINC_NOT_FIRST", "not the first part in the composed primary key"),
    ("WRITE_AUTOINC_SELECT", "writing to a table with an auto-increment column after selecting"),
    ("DEFAULT_EXPRESSION_IN_SUBSTATEMENT", "column with a default expression"),
    ("AUTOINC_COLUMNS", "inserts into an auto_increment column"),
    ("LIMIT", "uses a limit clause"),
    ("INSERT_DELAYED", "uses insert delayed"),
    ("SYSTEM_TABLE", "general log, slow query log, or performance_schema"),
    ("UDF", "uses a udf"),
    ("SYSTEM_VARIABLE", "uses a system variable"),
    ("SYSTEM_FUNCTION", "uses a system function"),
    ("NONTRANS_AFTER_TRANS", "non-transactional table after accessing a transactional table"),
    ("MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE", "self-logging and non-self-logging engines"),
    ("MIXED_STATEMENT", "accesses nontransactional table as well as transactional or temporary table"),
    ("FULLTEXT_PLUGIN", "fulltext parser plugin"),
    ("SKIP_LOCKED", "skip locked"),
    ("NOWAIT", "nowait"),
    ("XA", "xa transaction"),
    ("ACL_TABLE_READ_IN_DML_DDL", "acl table"),
    ("CREATE_SELECT_WITH_GIPK", "invisible primary key"),
    ("AUTOINC_LOCK_MODE", "innodb_autoinc_lock_mode"),
)

UNKNOWN_REASON = "UNKNOWN"


def reason_for(message: str) -> str:
    """The reason name an unsafe note's text names, or ``UNKNOWN``."""
    text = " ".join(message.lower().split())  # MariaDB has a double space in two texts
    for name, phrase in REASON_PHRASES:
        if phrase in text:
            return name
    return UNKNOWN_REASON
