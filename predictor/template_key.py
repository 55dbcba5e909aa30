"""template_key(sql): the cheap first-level analysis key, for plain DML (predictor/PERFORMANCE.md).

``template_text`` defines it: the statement as written with every string turned into ``''`` and every
number fingerprint() masks turned into ``?`` (numbers after LIMIT, OFFSET or a comma in a statement with
LIMIT/OFFSET are kept). It is finer than the fingerprint, and ``fingerprint(template_text(s)) ==
fingerprint(s)``.

``template_key`` gives the same partition without building that text: the statement's bytes with every
digit turned into ``0`` (one C-level translate; a template's statements mostly share it), followed by the
digits the text keeps (in identifiers such as ``t3``, after LIMIT, in ``0x1F``), whose positions are
worked out once per such shape. Two statements with one key have one template text, hence one fingerprint
and one analysis (tests/predictor/test_template_key.py); the key is finer (a number's length is in it).

Only ASCII statements made of code and plain '...' strings get a key; anything with comments, other
quotes, escapes or doubled quotes gets None and takes the fingerprint path. No regular expressions.
"""

from __future__ import annotations

from predictor.fingerprint import _DML_HEADS, _PUNCTUATION, _is_number

__all__ = ["template_key", "template_text"]

# Byte classes of the number scan: boundaries (whitespace, the punctuation fingerprint() splits on) become
# " ", digits and "." become "0", every other byte is part of a word ("a").
_BOUNDARY = _PUNCTUATION + " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
_CLASSES = bytes(
    ord(" ") if chr(i) in _BOUNDARY else ord("0") if chr(i) in "0123456789." else ord("a") for i in range(256)
)
_ZEROED = bytes(ord("0") if chr(i).isdigit() and i < 128 else i for i in range(256))  # every digit -> "0"
# Statement heads that are DML for certain when followed by whitespace or "(" (upper-cased first 6 bytes ->
# head length); anything else goes through the general head test.
_QUICK_HEADS = {"SELECT": 6, "INSERT": 6, "UPDATE": 6, "DELETE": 6, "REPLAC": 7}
_AFTER_HEAD = frozenset(" \t\n\r(")

_PLANS: dict[bytes, slice | tuple[slice, ...]] = {}  # zeroed code -> the digits the key keeps (one slice or more)
_PLANS_LIMIT = 100_000


def template_key(sql: str) -> bytes | None:
    """A key such that two statements with one key have one ``template_text``; None when only
    fingerprint() will do. A few C-level string calls and a dictionary lookup."""
    code = _code(sql)
    if code is None:
        return None
    raw = code.encode("ascii")
    shape = raw.translate(_ZEROED)
    plan = _PLANS.get(shape)
    if plan is None:
        spans = _kept_digits(code)
        plan = slice(*spans[0]) if len(spans) == 1 else tuple(slice(a, b) for a, b in spans)
        if len(_PLANS) >= _PLANS_LIMIT:
            _PLANS.clear()
        _PLANS[shape] = plan
    if not plan:
        return shape
    if type(plan) is slice:
        return shape + b"\x00" + raw[plan]
    return shape + b"\x00" + b"".join([raw[x] for x in plan])


def template_text(sql: str) -> str | None:
    """The statement with strings as ``''`` and masked numbers as ``?`` (see the module); None as
    template_key."""
    code = _code(sql)
    if code is None:
        return None
    out: list[str] = []
    last = 0
    for start, end in _masked_numbers(code):
        out.append(code[last:start])
        out.append("?")
        last = end
    out.append(code[last:])
    return "".join(out)


def _code(sql: str) -> str | None:
    """Plain DML with its strings as ``''``, or None."""
    size = _QUICK_HEADS.get(sql[:6].upper())
    if size is None or sql[size : size + 1] not in _AFTER_HEAD or (size == 7 and sql[6:7] not in ("E", "e")):
        head = sql.lstrip()[:8].upper().split(None, 1)
        if not head or (head[0] not in _DML_HEADS and head[0][:1] != "("):
            return None
    if (not sql.isascii() or '"' in sql or "`" in sql or "#" in sql or "\\" in sql or "--" in sql
            or "/*" in sql or "''" in sql):
        return None
    if "'" not in sql:
        return sql
    parts = sql.split("'")
    if len(parts) % 2 == 0:  # unterminated string
        return None
    return "''".join(parts[0::2])


def _masked_numbers(code: str) -> list[tuple[int, int]]:
    """Spans of the words fingerprint() masks as numbers."""
    classes = code.encode("ascii").translate(_CLASSES)
    find = classes.find
    pos = find(b" 0")  # a word starting with a digit or "." after a boundary
    spans: list[tuple[int, int]] = []
    if pos < 0:
        return spans
    low = code.lower()
    limit = "limit" in low or "offset" in low
    while pos >= 0:
        start = pos + 1
        end = find(b" ", start)
        if end < 0:
            end = len(code)
        word = code[start:end]
        if _is_number(word) and not (limit and _maybe_limit_number(code, start)):
            spans.append((start, end))
        pos = find(b" 0", end)
    return spans


def _kept_digits(code: str) -> tuple[tuple[int, int], ...]:
    """Spans of the digits of ``code`` the key must keep: every digit but those of masked numbers made of
    digits and dots only (whether such a word is a number depends on where its digits are, not on which
    they are; ``0x1F`` or ``1e5`` keep theirs: the key is then finer, never coarser)."""
    masked = bytearray(len(code))
    for start, end in _masked_numbers(code):
        if code[start:end].replace(".", "").isdigit():
            masked[start:end] = b"\x01" * (end - start)
    spans: list[tuple[int, int]] = []
    start = -1
    for i, c in enumerate(code):
        keep = c.isdigit() and not masked[i]
        if keep and start < 0:
            start = i
        elif not keep and start >= 0:
            spans.append((start, i))
            start = -1
    if start >= 0:
        spans.append((start, len(code)))
    return tuple(spans)


def _maybe_limit_number(code: str, start: int) -> bool:
    """Whether the number at ``start`` may be one fingerprint() keeps (after LIMIT, OFFSET, or
    `LIMIT n ,`). Errs on the side of keeping: a kept number only makes the key finer."""
    prev = code[:start].rstrip()
    return prev[-1:] == "," or prev[-6:].lower().endswith(("limit", "offset"))
