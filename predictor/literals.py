"""Key values of a plain ``INSERT ... VALUES`` without parsing it: what data.py's duplicate-key check needs
from a statement of a small tracked table, for a fraction of a sqlglot parse.

``literal_rows(sql, table)`` answers only when it is sure of giving what the sqlglot path in data.py
gives: ``INSERT [IGNORE] INTO name [(columns)] VALUES (...), (...)`` in ASCII with plain '...' strings
(no comments, other quotes, escapes or doubled quotes), identifiers that are not keywords, key values
that are integers, strings or NULL, other values that are literals or a few argument-less functions.
Anything else is ``UNSURE`` and the caller parses. A hand-written scanner, no regular expressions.
"""

from __future__ import annotations

from decimal import Decimal
from enum import Enum

from predictor.catalog import Table
from predictor.evaluate import UNKNOWN, Fresh, exact
from predictor.fingerprint import _KEYWORDS
from predictor.moments import CLOCK
from predictor.values import folded


class Unsure(Enum):
    UNSURE = "unsure"


UNSURE = Unsure.UNSURE
Rows = list[dict[str, object]]

_NOT_PLAIN = ('"', "`", "\\", "#", "--", "/*", "''")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPACE = frozenset(" \t\n\r")
_AFTER_VALUES = frozenset(" \t\n\r(")
# argument-less functions a non-key value may call (sqlglot parses each of them)
# (LAST_INSERT_ID() and CONNECTION_ID() are not here: the parse puts in the session's values, variables.py)
_FUNCTIONS = frozenset({"UUID()", "NOW()", "RAND()", "UUID_SHORT()", "SYSDATE()", "CURDATE()", "CURTIME()",
                        "UNIX_TIMESTAMP()", "USER()", "VERSION()"})


def literal_rows(sql: str, table: Table) -> Rows | Unsure | None:
    """Each row's values by column, as ``predictor.data.values_rows`` gives them after a parse (strings
    case-folded and right-trimmed as the default collations compare them, functions UNKNOWN); None when the
    rows cannot be evaluated; UNSURE when only a parse can say."""
    found = _plain_insert(sql)
    if found is None:
        return UNSURE
    columns, tuples = found
    cols = [c.lower() for c in columns] if columns is not None else [c.name.lower() for c in table.columns]
    key_cols = {c.lower() for k in table.unique_keys for c in k.columns}
    out: Rows = []
    for values in tuples:
        if len(values) != len(cols):
            return None
        row: dict[str, object] = {}
        for c, text in zip(cols, values, strict=True):
            if c not in key_cols:
                if not _plain_value(text):
                    return UNSURE
                row[c] = _other_value(text)
                continue
            v = _key_value(text)
            if v is UNSURE:
                return UNSURE
            row[c] = v
        out.append(row)
    return out


def _key_value(text: str) -> object:
    if len(text) >= 2 and text[0] == "'" and text[-1] == "'" and "'" not in text[1:-1]:
        return folded(text[1:-1])
    if text.isdigit():
        return int(text)
    if text[:1] == "-" and text[1:].isdigit():
        return -int(text[1:])
    if text.upper() == "NULL":
        return None
    return UNSURE


def _other_value(text: str) -> object:
    """A plain non-key value as ``predictor.evaluate.value`` reads it (clock functions: a Moment, UUID(): a
    Fresh value, others UNKNOWN)."""
    v = _key_value(text)
    if v is not UNSURE:
        return v
    number = text[1:] if text[:1] == "-" else text
    if "." in number and number.replace(".", "", 1).isdigit():
        v = exact(number)  # a DECIMAL, as evaluate.literal reads it
        return -v if text[:1] == "-" and isinstance(v, Decimal) else v
    if not text.endswith("()"):
        return UNKNOWN
    name = text[:-2].upper()
    return Fresh() if name in ("UUID", "UUID_SHORT") else CLOCK.get(name, UNKNOWN)


def _plain_value(text: str) -> bool:
    """A value sqlglot surely parses on its own: a literal, NULL or a known argument-less function."""
    if _key_value(text) is not UNSURE:
        return True
    number = text[1:] if text[:1] == "-" else text
    whole, dot, fraction = number.partition(".")
    if dot and whole.isdigit() and fraction.isdigit():
        return True
    return text.upper() in _FUNCTIONS


def _name(word: str) -> bool:
    return bool(word) and (word[0].isalpha() or word[0] == "_") and all(c in _WORD for c in word) and (
        word.upper() not in _KEYWORDS)


def _skip(sql: str, i: int) -> int:
    n = len(sql)
    while i < n and sql[i] in _SPACE:
        i += 1
    return i


def _word_at(sql: str, i: int, word: str) -> int:
    """Index after ``word`` (case-insensitive, followed by whitespace) at ``i``, else -1."""
    end = i + len(word)
    if sql[i:end].upper() == word and end < len(sql) and sql[end] in _SPACE:
        return _skip(sql, end)
    return -1


def _plain_insert(sql: str) -> tuple[list[str] | None, list[list[str]]] | None:
    """(the column list or None, each row's value texts) of a plain INSERT ... VALUES, else None."""
    if not sql.isascii():
        return None
    for special in _NOT_PLAIN:
        if special in sql:
            return None
    i = _word_at(sql, _skip(sql, 0), "INSERT")
    if i < 0:
        return None
    after_ignore = _word_at(sql, i, "IGNORE")
    i = _word_at(sql, after_ignore if after_ignore >= 0 else i, "INTO")
    if i < 0:
        return None
    n = len(sql)
    start = i
    while i < n and (sql[i] in _WORD or sql[i] == "."):
        i += 1
    if not all(_name(part) for part in sql[start:i].split(".")):
        return None
    i = _skip(sql, i)
    columns: list[str] | None = None
    if sql[i : i + 1] == "(":
        close = sql.find(")", i)
        if close < 0:
            return None
        columns = [c.strip() for c in sql[i + 1 : close].split(",")]
        if not all(_name(c) for c in columns):
            return None
        i = _skip(sql, close + 1)
    if sql[i : i + 6].upper() != "VALUES" or sql[i + 6 : i + 7] not in _AFTER_VALUES:
        return None
    i += 6
    tuples: list[list[str]] = []
    while True:
        i = _skip(sql, i)
        if sql[i : i + 1] != "(":
            return None
        values, i = _tuple(sql, i + 1)
        if values is None:
            return None
        tuples.append(values)
        i = _skip(sql, i)
        if i < n and sql[i] == ",":
            i += 1
            continue
        if sql[i:].strip() in ("", ";"):
            return columns, tuples
        return None


def _tuple(sql: str, i: int) -> tuple[list[str] | None, int]:
    """The top-level comma-separated texts from ``i`` to the closing parenthesis, and the index after it."""
    n = len(sql)
    values: list[str] = []
    depth = 0
    start = i
    while i < n:
        c = sql[i]
        if c == "'":
            end = sql.find("'", i + 1)
            if end < 0:
                return None, i
            i = end + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                text = sql[start:i].strip()
                if not text:
                    return None, i
                values.append(text)
                return values, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            text = sql[start:i].strip()
            if not text:
                return None, i
            values.append(text)
            start = i + 1
        i += 1
    return None, i
