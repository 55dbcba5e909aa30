"""Counting rows in a row event without building values.

A row image is a null bitmap over the present columns followed by the non-null values. Fixed-size columns
are skipped by arithmetic; variable ones (VARCHAR, CHAR, BLOB/TEXT/JSON/GEOMETRY) by their length prefix.
For each (table, present-columns) an ``ImagePlan`` caches, per null-bitmap pattern, the sequence of skips,
so a row costs one dict lookup plus one step per non-null variable column.
"""

from __future__ import annotations

from predictor.exceptions import BinlogError

# MySQL column type codes (mysql_com.h enum_field_types)
DECIMAL, TINY, SHORT, LONG, FLOAT, DOUBLE, NULL, TIMESTAMP, LONGLONG, INT24 = range(10)
DATE, TIME, DATETIME, YEAR, NEWDATE, VARCHAR, BIT, TIMESTAMP2, DATETIME2, TIME2 = range(10, 20)
VECTOR, BOOL, JSON, NEWDECIMAL, ENUM, SET = 242, 244, 245, 246, 247, 248
TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, BLOB, VAR_STRING, STRING, GEOMETRY = 249, 250, 251, 252, 253, 254, 255

_META_BYTES: dict[int, int] = {
    FLOAT: 1, DOUBLE: 1, BLOB: 1, TINY_BLOB: 1, MEDIUM_BLOB: 1, LONG_BLOB: 1, GEOMETRY: 1, JSON: 1,
    VECTOR: 1, TIMESTAMP2: 1, DATETIME2: 1, TIME2: 1,
    VARCHAR: 2, VAR_STRING: 2, STRING: 2, NEWDECIMAL: 2, BIT: 2, ENUM: 2, SET: 2,
}
_BIG_ENDIAN_META = frozenset((STRING, NEWDECIMAL, ENUM, SET))
_FIXED: dict[int, int] = {
    TINY: 1, SHORT: 2, INT24: 3, LONG: 4, LONGLONG: 8, NULL: 0, TIMESTAMP: 4, DATE: 3, NEWDATE: 3,
    TIME: 3, DATETIME: 8, YEAR: 1, BOOL: 1,
}
_DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)
TYPE_NAMES: dict[int, str] = {
    DECIMAL: "DECIMAL", TINY: "TINY", SHORT: "SHORT", LONG: "LONG", FLOAT: "FLOAT", DOUBLE: "DOUBLE",
    NULL: "NULL", TIMESTAMP: "TIMESTAMP", LONGLONG: "LONGLONG", INT24: "INT24", DATE: "DATE", TIME: "TIME",
    DATETIME: "DATETIME", YEAR: "YEAR", NEWDATE: "NEWDATE", VARCHAR: "VARCHAR", BIT: "BIT",
    TIMESTAMP2: "TIMESTAMP2", DATETIME2: "DATETIME2", TIME2: "TIME2", VECTOR: "VECTOR", BOOL: "BOOL",
    JSON: "JSON", NEWDECIMAL: "NEWDECIMAL", ENUM: "ENUM", SET: "SET", BLOB: "BLOB", VAR_STRING: "VAR_STRING",
    STRING: "STRING", GEOMETRY: "GEOMETRY",
}


def read_metadata(types: bytes, meta: bytes) -> tuple[int, ...]:
    """Per-column metadata ints from a Table_map's metadata block (byte order as the server reads it)."""
    out: list[int] = []
    p = 0
    for t in types:
        n = _META_BYTES.get(t, 0)
        if n == 0:
            out.append(0)
        elif n == 1:
            out.append(meta[p])
        elif t in _BIG_ENDIAN_META:
            out.append(meta[p] << 8 | meta[p + 1])
        else:
            out.append(meta[p] | meta[p + 1] << 8)
        p += n
    if p != len(meta):
        raise BinlogError(f"table map metadata is {len(meta)} bytes, column types need {p}")
    return tuple(out)


def column_size(t: int, meta: int) -> tuple[int, int]:
    """(fixed size, 0) or (0, length-prefix bytes) of one column value."""
    if t in _FIXED:
        return _FIXED[t], 0
    if t == FLOAT or t == DOUBLE:
        return (meta or (4 if t == FLOAT else 8)), 0
    if t == TIMESTAMP2:
        return 4 + (meta + 1) // 2, 0
    if t == DATETIME2:
        return 5 + (meta + 1) // 2, 0
    if t == TIME2:
        return 3 + (meta + 1) // 2, 0
    if t == NEWDECIMAL:
        prec, scale = meta >> 8, meta & 0xFF
        intg = prec - scale
        return (intg // 9) * 4 + _DIG2BYTES[intg % 9] + (scale // 9) * 4 + _DIG2BYTES[scale % 9], 0
    if t == BIT:
        return (meta >> 8) + (1 if meta & 0xFF else 0), 0
    if t == VARCHAR or t == VAR_STRING:
        return 0, (1 if meta < 256 else 2)
    if t in (BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, GEOMETRY, JSON, VECTOR):
        if not 1 <= meta <= 4:
            raise BinlogError(f"blob-like column type {t} with length bytes {meta}")
        return 0, meta
    if t in (STRING, ENUM, SET):
        b0, b1 = meta >> 8, meta & 0xFF
        if (b0 & 0x30) != 0x30:
            max_len = b1 | (((b0 & 0x30) ^ 0x30) << 4)
            real = b0 | 0x30
        else:
            max_len, real = b1, b0
        if real in (ENUM, SET):
            return b1, 0
        return 0, (1 if max_len < 256 else 2)
    raise BinlogError(f"cannot size column type {TYPE_NAMES.get(t, t)} (meta {meta})")


class ImagePlan:
    """How to skip one row image of a table for one present-columns bitmap."""

    __slots__ = ("cols", "null_bytes", "patterns")

    def __init__(self, sizes: list[tuple[int, int]]) -> None:
        self.cols = sizes  # per present column: (fixed, prefix)
        self.null_bytes = (len(sizes) + 7) // 8
        self.patterns: dict[bytes, tuple[int, tuple[tuple[int, int], ...], int]] = {}

    def _compile(self, nulls: bytes) -> tuple[int, tuple[tuple[int, int], ...], int]:
        """Steps for one null pattern: (total fixed if no var, ((skip, prefix), ...), tail skip)."""
        steps: list[tuple[int, int]] = []
        skip = 0
        for i, (fixed, prefix) in enumerate(self.cols):
            if nulls[i >> 3] & (1 << (i & 7)):
                continue
            if prefix:
                steps.append((skip, prefix))
                skip = 0
            else:
                skip += fixed
        r = (skip, tuple(steps), skip)
        self.patterns[nulls] = r
        return r

    def skip(self, buf: bytes, p: int) -> int:
        """Position after the image that starts at ``p``."""
        nb = self.null_bytes
        nulls = buf[p:p + nb]
        p += nb
        r = self.patterns.get(nulls) or self._compile(nulls)
        steps = r[1]
        if not steps:
            return p + r[0]
        for skip, prefix in steps:
            p += skip
            if prefix == 1:
                p += 1 + buf[p]
            elif prefix == 2:
                p += 2 + (buf[p] | buf[p + 1] << 8)
            elif prefix == 3:
                p += 3 + (buf[p] | buf[p + 1] << 8 | buf[p + 2] << 16)
            else:
                p += 4 + int.from_bytes(buf[p:p + 4], "little")
        return p + r[2]


def plan_for(types: tuple[int, ...], meta: tuple[int, ...], present: tuple[int, ...]) -> ImagePlan:
    return ImagePlan([column_size(types[i], meta[i]) for i in present])
