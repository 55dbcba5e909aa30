"""The few SQL functions whose values the data model computes: the string and NULL-handling functions
applications build keys and flags with (``LOWER(CONCAT(first, '.', last, '@corp'))``, ``COALESCE(x, 0)``).

Strings are held case-folded and right-trimmed (predictor/evaluate.py), so LOWER / UPPER are not computed
(their result compares equal but is another value: ``SET v = UPPER(v)`` changes the row) and REPLACE is
only computed when what it searches for has no letters. Anything else: ``None`` (not one
of these), and the caller's usual rules apply.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from predictor.values import UNKNOWN

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


def _concat(e: exp.Expression, ev: Eval) -> Value:
    parts = [ev(x) for x in e.expressions]
    if any(v is None for v in parts):
        return None
    texts = [_text(v) for v in parts]
    return "".join(t for t in texts if t is not None) if all(t is not None for t in texts) else UNKNOWN


def _concat_ws(e: exp.Expression, ev: Eval) -> Value:
    sep, *parts = [ev(x) for x in e.expressions]
    if sep is None:
        return None
    texts = [_text(v) for v in parts if v is not None]  # CONCAT_WS skips NULLs
    s = _text(sep)
    return s.join(t for t in texts if t is not None) if s is not None and all(t is not None for t in texts) \
        else UNKNOWN


def _replace(e: exp.Expression, ev: Eval) -> Value:
    s, old, new = ev(e.this), ev(e.expression), ev(e.args["replacement"]) if e.args.get("replacement") else ""
    if s is None or old is None or new is None:
        return None
    s, old, new = _text(s), _text(old), _text(new)
    if s is None or old is None or new is None or any(c.isalpha() for c in old) or not old:
        return UNKNOWN
    return s.replace(old, new).rstrip(" ")


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
    return v.strip(" ") if isinstance(v, str) else v if v is None else UNKNOWN


_FUNCTIONS: dict[type[exp.Expression], Callable[[exp.Expression, Eval], Value]] = {
    exp.Concat: _concat, exp.ConcatWs: _concat_ws, exp.Replace: _replace, exp.Coalesce: _coalesce, exp.Trim: _trim,
}
