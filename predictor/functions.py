"""The few SQL functions whose values the data model computes: the string and NULL-handling functions
applications build keys and flags with (``LOWER(CONCAT(first, '.', last, '@corp'))``, ``COALESCE(x, 0)``).

Strings are held case-folded and right-trimmed (predictor/evaluate.py), so LOWER / UPPER return their
argument as a ``Recased`` string (it compares equal, but writing it may change the row: ``SET v = UPPER(v)``),
a string built from one is Recased too, and REPLACE is only computed when what it searches for has no
letters. Anything else: ``None`` (not one of these), and the caller's usual rules apply.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from predictor.values import UNKNOWN, Recased

Value = object  # as predictor.evaluate.Value
Eval = Callable[[exp.Expression], Value]
_NOT_COMPUTED = object()


def computed(e: exp.Expression, ev: Eval) -> object:
    """``e``'s value when it is one of these functions (UNKNOWN when an argument is), else _NOT_COMPUTED."""
    fn = _FUNCTIONS.get(type(e))
    return _NOT_COMPUTED if fn is None else fn(e, ev)


def is_computed(v: object) -> bool:
    return v is not _NOT_COMPUTED


def _text(v: Value) -> str | None:
    return v if isinstance(v, str) else str(v) if isinstance(v, int) and not isinstance(v, bool) else None


def _like(sources: list[Value], v: Value) -> Value:
    """``v`` Recased when it was built from a Recased string."""
    return Recased(v) if isinstance(v, str) and any(isinstance(x, Recased) for x in sources) else v


def _concat(e: exp.Expression, ev: Eval) -> Value:
    parts = [ev(x) for x in e.expressions]
    if any(v is None for v in parts):
        return None
    texts = [_text(v) for v in parts]
    return _like(parts, "".join(t for t in texts if t is not None)) if all(t is not None for t in texts) \
        else UNKNOWN


def _concat_ws(e: exp.Expression, ev: Eval) -> Value:
    sep, *parts = [ev(x) for x in e.expressions]
    if sep is None:
        return None
    texts = [_text(v) for v in parts if v is not None]  # CONCAT_WS skips NULLs
    s = _text(sep)
    return _like([sep, *parts], s.join(t for t in texts if t is not None)) \
        if s is not None and all(t is not None for t in texts) else UNKNOWN


def _replace(e: exp.Expression, ev: Eval) -> Value:
    search = e.expression  # a literal as written: values are right-trimmed, and ' ' would be ''
    s, new = ev(e.this), ev(e.args["replacement"]) if e.args.get("replacement") else ""
    old = search.this if isinstance(search, exp.Literal) and search.is_string else ev(search)
    if s is None or old is None or new is None:
        return None
    sources = [s, new]
    s, old, new = _text(s), _text(old), _text(new)
    if s is None or old is None or new is None or any(c.isalpha() for c in old) or not old:
        return UNKNOWN
    return _like(sources, s.replace(old, new).rstrip(" "))


def _coalesce(e: exp.Expression, ev: Eval) -> Value:
    for x in (e.this, *(e.expressions or [])):
        v = ev(x)
        if v is not None:
            return v
    return None


def _trim(e: exp.Expression, ev: Eval) -> Value:
    if e.args.get("expression") is not None or e.args.get("position") not in (None, "BOTH", "LEADING"):
        return UNKNOWN
    v = ev(e.this)
    return _like([v], v.strip(" ")) if isinstance(v, str) else v if v is None else UNKNOWN


def _recase(e: exp.Expression, ev: Eval) -> Value:
    v = ev(e.this)
    if v is None or v is UNKNOWN:
        return v
    text = _text(v)
    return UNKNOWN if text is None else Recased(text)


_FUNCTIONS: dict[type[exp.Expression], Callable[[exp.Expression, Eval], Value]] = {
    exp.Concat: _concat, exp.ConcatWs: _concat_ws, exp.Replace: _replace, exp.Coalesce: _coalesce, exp.Trim: _trim,
    exp.Lower: _recase, exp.Upper: _recase,
}
