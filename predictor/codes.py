"""Server error and warning codes the handlers give (the numbers are the servers'; names as in their sources)."""

from __future__ import annotations

from sqlglot import exp

from predictor import nodes

ER_PARSE_ERROR = 1064
ER_BAD_NULL = 1048
ER_BAD_FIELD = 1054
ER_NON_UNIQ_ERROR = 1052  # also the warning of an ambiguous GROUP BY name (predictor/engine.py)
ER_DUP_ENTRY = 1062
ER_TABLE_EXISTS = 1050
ER_BAD_TABLE = 1051
ER_NO_SUCH_TABLE = 1146
ER_TRUNCATE_ILLEGAL_FK = 1701  # TRUNCATE of a table another table's foreign key references
ER_SP_DOES_NOT_EXIST = 1305
ER_TRG_DOES_NOT_EXIST = 1360
ER_TRG_ALREADY_EXISTS = 1359
ER_SP_ALREADY_EXISTS = 1304
ER_BINLOG_UNSAFE_ROUTINE = 1418  # a function neither DETERMINISTIC, NO SQL nor READS SQL DATA, binlog on
ER_UNKNOWN_VIEW = 4092
ER_UNKNOWN_SYSTEM_VARIABLE = 1193
ER_WARNING_NOT_COMPLETE_ROLLBACK = 1196
ER_VIEW_SELECT_VARIABLE = 1351
ER_DATA_TOO_LONG = 1406
ER_DELAYED_NOT_SUPPORTED = 1616
ER_BINLOG_ROW_INJECTION_AND_STMT_ENGINE = 1664
ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG = 1442
ER_SIGNAL_EXCEPTION = 1644  # SIGNAL SQLSTATE '45000' without MYSQL_ERRNO


def signal_code(n: nodes.Signal) -> int | None:
    """The error a SIGNAL raises: its MYSQL_ERRNO, else 1644; None for a warning or no-data SQLSTATE
    ('01...', '02...': the statement goes on)."""
    state = n.this
    if isinstance(state, exp.Literal) and str(state.this)[:2] in ("01", "02"):
        return None
    for item in n.expressions or ():
        if isinstance(item, exp.EQ) and item.this.name.upper() == "MYSQL_ERRNO":
            v = item.expression
            if isinstance(v, exp.Literal) and v.is_int:
                return int(v.this)
    return ER_SIGNAL_EXCEPTION
ER_UNKNOWN_STMT_HANDLER = 1243  # EXECUTE / DEALLOCATE PREPARE of a name the session has not prepared
