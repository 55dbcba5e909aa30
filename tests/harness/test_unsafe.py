"""Unsafe note texts (MariaDB errmsg-utf8.txt, MySQL 8/9 messages) map to binlog-rules.md §2 reason names."""

from __future__ import annotations

import pytest

from harness.unsafe import reason_for

PREFIX = "Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT. "

TEXTS = [
    ("LIMIT",
     "The statement is unsafe because it uses a LIMIT clause. This is unsafe because the set of "
     "rows included cannot be predicted"),
    ("SYSTEM_TABLE",
     "The statement is unsafe because it uses the general log, slow query log, or "
     "performance_schema table(s). This is unsafe because system tables may differ on slaves"),
    ("AUTOINC_COLUMNS",
     "Statement is unsafe because it invokes a trigger or a stored function that inserts into "
     "an AUTO_INCREMENT column. Inserted values cannot be logged correctly"),
    ("UDF",
     "Statement is unsafe because it uses a UDF which may not return the same value on the slave"),
    ("SYSTEM_VARIABLE",
     "Statement is unsafe because it uses a system variable that may have a different value on "
     "the replica."),
    ("SYSTEM_FUNCTION",
     "Statement is unsafe because it uses a system function that may return a different value "
     "on the slave"),
    ("NONTRANS_AFTER_TRANS",
     "Statement is unsafe because it accesses a non-transactional table after accessing a "
     "transactional table within the same transaction"),
    ("MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE",
     "Mixing self-logging and non-self-logging engines in a statement is unsafe"),
    ("MIXED_STATEMENT",
     "Statement accesses nontransactional table as well as transactional or temporary table, "
     "and writes to any of them"),
    ("INSERT_IGNORE_SELECT",
     "INSERT IGNORE... SELECT is unsafe because the order in which rows are retrieved by the "
     "SELECT determines which (if any) rows are ignored. This order cannot be predicted and may "
     "differ on source and the replica."),
    ("INSERT_SELECT_UPDATE",
     "INSERT... SELECT... ON DUPLICATE KEY UPDATE is unsafe because the order in which rows are "
     "retrieved by the SELECT determines which (if any) rows are updated."),
    ("REPLACE_SELECT",
     "REPLACE... SELECT is unsafe because the order in which rows are retrieved by the SELECT "
     "determines which (if any) rows are replaced."),
    ("CREATE_IGNORE_SELECT",
     "CREATE... IGNORE SELECT is unsafe because the order in which rows are retrieved"),
    ("CREATE_REPLACE_SELECT",
     "CREATE... REPLACE SELECT is unsafe because the order in which rows are retrieved"),
    ("UPDATE_IGNORE",
     "UPDATE IGNORE is unsafe because the order in which rows are updated determines which (if "
     "any) rows are ignored."),
    ("WRITE_AUTOINC_SELECT",
     "Statements writing to a table with an auto-increment column after selecting from another "
     "table are unsafe because the order in which rows are retrieved"),
    ("CREATE_SELECT_AUTOINC",
     "CREATE TABLE... SELECT...  on a table with an auto-increment column is unsafe because the "
     "order"),
    ("CREATE_SELECT_AUTOINC",
     "CREATE TABLE... SELECT... on a table with an auto-increment column is unsafe"),
    ("INSERT_TWO_KEYS",
     "INSERT... ON DUPLICATE KEY UPDATE  on a table with more than one UNIQUE KEY is unsafe"),
    ("AUTOINC_NOT_FIRST",
     "INSERT into autoincrement field which is not the first part in the composed primary key "
     "is unsafe."),
    ("FULLTEXT_PLUGIN",
     "Statement is unsafe because it uses a fulltext parser plugin which may not return the "
     "same value on the replica."),
    ("SKIP_LOCKED",
     "SKIP LOCKED makes this statement unsafe"),
    ("NOWAIT",
     "Statement is unsafe because it uses NOWAIT."),
    ("XA",
     "Statement is unsafe because it is being used inside a XA transaction."),
    ("UNKNOWN",
     "Something the harness has never seen"),
]


@pytest.mark.parametrize(("reason", "text"), TEXTS, ids=[f"{r}-{i}" for i, (r, _) in enumerate(TEXTS)])
def test_reason_for_note_text(reason: str, text: str) -> None:
    assert reason_for(PREFIX + text) == reason
