"""Values the evaluator and the functions it computes share: the unknown value, a re-cased string."""

from __future__ import annotations

from decimal import Decimal


class _Unknown:
    """A value the model does not know (a function result, a column an UPDATE changed)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


class Cased(str):
    """A case-folded string (as all strings are held: predictor/evaluate.py) that still knows the ``exact``
    text the server holds: a digest needs the bytes (``SHA2(email, 256)``: coworking_spaces_app's card UIDs).
    Wherever the model rebuilds a string the exact text is lost (a plain ``str``), and digests of it are not
    computed."""

    __slots__ = ("exact",)
    exact: str | None

    def __new__(cls, folded: str, exact: str | None = None) -> Cased:
        self = super().__new__(cls, folded)
        self.exact = exact
        return self


class Recased(Cased):
    """A string LOWER() / UPPER() made: it compares equal to its argument under the default collations, yet
    its bytes may differ: writing it over a row may change the row even when it compares equal
    (``SET v = UPPER(v)``), unless both exact texts are known (data._changes)."""

    __slots__ = ()


def folded(text: str) -> str:
    """A string literal as the model holds it: case-folded, right-trimmed, with its exact text when it has
    letters and no trailing spaces (the exact text of one with trailing spaces depends on the column type)."""
    f = text.casefold().rstrip(" ")
    return Cased(f, text) if f.upper() != f and not text.endswith(" ") else f  # no letters: f is exact


def exact_text(v: object) -> str | None:
    """The exact text the server has for string ``v``, when the model knows it: a Cased string's, or a plain
    string without letters (case folding did not change it)."""
    if isinstance(v, Cased):
        return v.exact
    if isinstance(v, str) and not isinstance(v, JsonText) and v.upper() == v:
        return v
    return None


class JsonText(str):
    """A document JSON_OBJECT / JSON_ARRAY made, printed as MariaDB prints it (``{"a": 1, "b": null}``; MySQL
    orders an object's keys, which its comparisons do not see). ``partial``: a value in it is not known (a
    clock reading): the document is not NULL, but what it holds is not known. Its strings are case-folded,
    as all the model holds, so writing it counts as a change (data._changes), as a Recased string does."""

    __slots__ = ("partial",)
    partial: bool

    def __new__(cls, text: str, partial: bool = False) -> JsonText:
        self = super().__new__(cls, text)
        self.partial = partial
        return self


def real(v: object) -> bool:
    """A number, exact (an integer, a DECIMAL) or a DOUBLE (a float); not a flag."""
    return isinstance(v, int | Decimal | float) and not isinstance(v, bool)


def decimal_of(v: int | Decimal | float) -> Decimal:
    """A number as a DECIMAL: a DOUBLE by its shortest digits, as the servers' double2decimal reads it."""
    return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)


def double_sql(v: float) -> str:
    """A DOUBLE's literal: with an exponent, so that it reads back as a DOUBLE, not a DECIMAL (``16.0e0``)."""
    text = repr(v)
    return text if "e" in text else f"{text}e0"
