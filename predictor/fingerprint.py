"""fingerprint(sql): one key per statement template, far cheaper than parsing.

The predictor caches its static analysis per fingerprint, so statements that differ only in literal
values must share one, and anything that can change a binlog decision must not be normalised away:

- DML (SELECT, INSERT, REPLACE, UPDATE, DELETE, WITH, VALUES, TABLE, DO): string, number, hex and bit
  literals become `?`; NULL / TRUE / FALSE stay (they are keywords). The numbers after LIMIT and OFFSET
  stay (MariaDB logs `LIMIT 0` as safe). IN-lists and VALUES rows keep one `?` per literal, so a
  3-row INSERT and a 4-row INSERT differ.
- every other statement (SET, CREATE, CALL, XA, ...) keeps its literals: a SET value, a column default
  or a VARCHAR length is part of what the predictor reads.
- whitespace collapses, operators and punctuation are spaced uniformly, keywords are upper-cased;
  unquoted identifiers keep their case (table names are case-sensitive on Linux), `backquoted`
  identifiers are kept verbatim, comments are dropped except executable ones (`/*! */`, `/*M! */`)
  and optimiser hints (`/*+ */`), which are kept verbatim.

It is a single left-to-right scan with str.find / str.replace / str.split (C loops), no regular
expressions and no tokenizer objects.

``predictor/template_key.py`` has a cheaper first-level key for plain DML, finer than the fingerprint.
"""

from __future__ import annotations

from predictor.dialect import RplayTokenizer

__all__ = ["fingerprint"]

# Keywords are upper-cased; every other word keeps its case.
_KEYWORDS: frozenset[str] = frozenset(
    word for key, token_type in RplayTokenizer.KEYWORDS.items() for word in key.split() if word.isidentifier()
) | frozenset(
    "LOW_PRIORITY DELAYED HIGH_PRIORITY QUICK CALL DO XA SAVEPOINT RELEASE LOCK UNLOCK TABLES READ WRITE "
    "FLUSH OPTIMIZE REPAIR CHECK CHECKSUM RENAME LOCAL INFILE DATA CONCURRENT NO_WRITE_TO_BINLOG "
    "DUPLICATE KEY SKIP LOCKED NOWAIT SHARE MODE CONSISTENT SNAPSHOT WORK CHAIN CHAIN ONE PHASE "
    "SESSION GLOBAL PERSIST ISOLATION LEVEL COMMITTED UNCOMMITTED REPEATABLE SERIALIZABLE ENGINE "
    "DEFINER TRIGGER PROCEDURE FUNCTION RETURNS DETERMINISTIC SQL SECURITY INVOKER ELSEIF LEAVE "
    "ITERATE REPEAT UNTIL LOOP WHILE HANDLER CONTINUE EXIT CURSOR OPEN CLOSE FETCH SIGNAL RESIGNAL "
    "SQLSTATE SQLEXCEPTION SQLWARNING FOUND ATOMIC FOLLOWS PRECEDES EACH ROW".split()
)

# First words of statements whose literals are values a template varies.
_DML_HEADS = frozenset(
    {"SELECT", "INSERT", "REPLACE", "UPDATE", "DELETE", "WITH", "VALUES", "TABLE", "DO", "("}
)

_PUNCTUATION = "(),;=<>+-*/%!|&^~:{}[]?"
_PADDED = tuple((c, f" {c} ") for c in _PUNCTUATION)


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_LIMIT_WORDS = frozenset({"LIMIT", "OFFSET"})


def _is_number(word: str) -> bool:
    """A numeric literal as it appears after padding: 12, 1.5, .5, 1e5, 0x1F, 0b101."""
    if word.isdigit():
        return True
    head = word[:2]
    if head in ("0x", "0X") and len(word) > 2:
        return all(c in _HEX_DIGITS for c in word[2:])
    if head in ("0b", "0B") and len(word) > 2:
        return word[2:].strip("01") == ""
    mantissa, _, exponent = word.replace("E", "e").partition("e")
    if exponent and not exponent.isdigit():
        return False
    whole, dot, fraction = mantissa.partition(".")
    return (
        (whole.isdigit() or (not whole and dot != ""))
        and (not fraction or fraction.isdigit())
        and (whole != "" or fraction != "")
    )


_DIGITS = frozenset("0123456789.")
# word -> its output form, for words that are not numbers (keywords upper-cased, the rest as written).
_WORD_FORMS: dict[str, str] = {}
_WORD_FORMS_LIMIT = 100_000


def _word_form(word: str) -> str:
    if word[0] in _DIGITS and _is_number(word):
        return "?"
    upper = word.upper()
    form = upper if upper in _KEYWORDS else word
    if len(_WORD_FORMS) >= _WORD_FORMS_LIMIT:
        _WORD_FORMS.clear()
    _WORD_FORMS[word] = form
    return form


_SLOT = "\x01"  # stands for a quoted item or kept comment while the unquoted text is split
_WORD_FORMS[_SLOT] = _SLOT


def _forms(text: str, slots: list[str], normalise: bool) -> list[str]:
    """Output tokens for the unquoted text, with each _SLOT replaced by the next item of `slots`."""
    for c, padded in _PADDED:
        if c in text:
            text = text.replace(c, padded)
    words = text.split()
    forms_get = _WORD_FORMS.get
    # Numbers come out as "?"; put them back where they must stay.
    forms = [
        forms_get(w) or ("?" if w.isdigit() or w.replace(".", "", 1).isdigit() else _word_form(w))
        for w in words
    ]
    if "?" in forms:
        if not normalise:
            forms = [w if f == "?" else f for f, w in zip(forms, words, strict=True)]
        elif "LIMIT" in forms or "OFFSET" in forms:
            for i, form in enumerate(forms):
                if form == "?" and _limit_context(forms, i):
                    forms[i] = words[i]
    if normalise and "-" in forms:
        forms = _fold_signs(forms)
    if slots:
        if normalise and ("x" in forms or "b" in forms or "n" in forms):
            _upper_prefixes(forms)
        items = iter(slots)
        forms = [next(items) if f == _SLOT else f for f in forms]
    return forms


# After these, a `-` is a sign, not a subtraction: `a = -5` and `a = 5` share a template.
_SIGN_CONTEXT = frozenset("(,=<>+-*/%") | frozenset({"<", ">", "!"})


def _fold_signs(forms: list[str]) -> list[str]:
    """Drop unary minus signs in front of normalised numbers."""
    drop: list[int] = []
    last = len(forms) - 1
    i = forms.index("-")
    while True:
        if i < last and forms[i + 1] == "?":
            prev = forms[i - 1] if i else "("
            if prev in _SIGN_CONTEXT or prev in _KEYWORDS:
                drop.append(i)
        try:
            i = forms.index("-", i + 1)
        except ValueError:
            break
    for i in reversed(drop):
        del forms[i]
    return forms


def _upper_prefixes(forms: list[str]) -> None:
    """X'..', b'..', n'..': the one-letter prefix before a string literal is case-insensitive."""
    for i in range(1, len(forms)):
        if forms[i] == _SLOT and forms[i - 1] in ("x", "b", "n"):
            forms[i - 1] = forms[i - 1].upper()


def _limit_context(forms: list[str], i: int) -> bool:
    """The number at forms[i] follows LIMIT / OFFSET, or `LIMIT n ,`."""
    prev = forms[i - 1] if i else ""
    if prev in _LIMIT_WORDS:
        return True
    return prev == "," and i >= 3 and forms[i - 3] == "LIMIT"


def _first_word(sql: str) -> str:
    """The statement's first word, upper-cased, skipping leading comments; "" if none."""
    pos = 0
    n = len(sql)
    while pos < n:
        c = sql[pos]
        if c.isspace():
            pos += 1
        elif sql.startswith("/*", pos) and not sql.startswith(("/*!", "/*M!", "/*+"), pos):
            end = sql.find("*/", pos + 2)
            pos = n if end < 0 else end + 2
        elif c == "#" or (
            sql.startswith("--", pos) and sql[pos + 2 : pos + 3] in ("", " ", "\t", "\n", "\r")
        ):
            end = sql.find("\n", pos)
            pos = n if end < 0 else end + 1
        elif c == "(":
            return "("
        else:
            head = sql[pos : pos + 8].upper()
            for word in _DML_HEADS:
                if head.startswith(word) and not (head[len(word) : len(word) + 1].isalnum()):
                    return word
            return head
    return ""


def _quote_end(sql: str, start: int, quote: str) -> int:
    """Index just past the closing quote of the literal opening at `start` (doubled quotes and, except
    in backquotes, backslash escapes stay inside); len(sql) when unterminated."""
    i = start + 1
    n = len(sql)
    backslash = quote != "`"
    while True:
        j = sql.find(quote, i)
        if j < 0:
            return n
        if backslash:
            k = j - 1
            while k >= i and sql[k] == "\\":
                k -= 1
            if (j - 1 - k) % 2:  # odd number of backslashes: the quote is escaped
                i = j + 1
                continue
        if j + 1 < n and sql[j + 1] == quote:
            i = j + 2
            continue
        return j + 1


_SPECIALS = ("'", '"', "`", "#", "--", "/*")


def fingerprint(sql: str) -> str:
    """The statement's template key (see module docstring)."""
    head = sql.lstrip()[:8].upper().split(None, 1)
    word = head[0] if head else ""
    if word in _DML_HEADS or word[:1] == "(":
        normalise = True
    elif word.isalpha():
        normalise = False
    else:  # leading comment, or punctuation glued to the first word
        normalise = _first_word(sql) in _DML_HEADS
    slots: list[str] = []
    n = len(sql)
    nexts = [sql.find(s) for s in _SPECIALS]
    if max(nexts) < 0:
        forms = _forms(sql, [], normalise)
    elif nexts[0] >= 0 and max(nexts[1:]) < 0 and "\\" not in sql and "''" not in sql:
        # Only plain '...' strings: split on the quote, odd parts are the strings' contents.
        parts = sql.split("'")
        if len(parts) % 2 == 0:  # unterminated string: not a statement a template repeats
            return sql
        slots = ["?"] * (len(parts) // 2) if normalise else [f"'{p}'" for p in parts[1::2]]
        forms = _forms(f" {_SLOT} ".join(parts[0::2]), slots, normalise)
    else:
        pieces: list[str] = []
        active = [index for index in range(6) if nexts[index] >= 0]
        pos = 0
        while pos < n:
            # nexts: next position of each special sequence at or after pos (-1: none), refreshed lazily.
            best = n
            kind = -1
            for index in active:
                at = nexts[index]
                if 0 <= at < pos:
                    at = nexts[index] = sql.find(_SPECIALS[index], pos)
                if 0 <= at < best:
                    best, kind = at, index
            if kind < 0:
                pieces.append(sql[pos:])
                break
            pieces.append(sql[pos:best])
            if kind <= 2:  # ' " `
                end = _quote_end(sql, best, _SPECIALS[kind])
                slots.append("?" if normalise and kind < 2 else sql[best:end])
                pieces.append(_SLOT)
                pos = end
            elif kind == 3:  # '#' to end of line
                end = sql.find("\n", best)
                pos = n if end < 0 else end + 1
            elif kind == 4:  # '-- ' comment needs whitespace (or the end) after the dashes
                after = sql[best + 2 : best + 3]
                if after == "" or after.isspace():
                    end = sql.find("\n", best)
                    pos = n if end < 0 else end + 1
                else:
                    pieces.append("-")
                    pos = best + 1
            else:  # /* */
                end = sql.find("*/", best + 2)
                end = n if end < 0 else end + 2
                if sql.startswith(("/*!", "/*+", "/*M!"), best):
                    slots.append(sql[best:end])
                    pieces.append(_SLOT)
                pos = end
        forms = _forms(" ".join(pieces), slots, normalise)
    while forms and forms[-1] == ";":
        forms.pop()
    return " ".join(forms)
