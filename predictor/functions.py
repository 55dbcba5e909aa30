"""The few SQL functions whose values the data model computes: the string and NULL-handling functions
applications build keys and flags with (``LOWER(CONCAT(first, '.', last, '@corp'))``, ``COALESCE(x, 0)``,
``LPAD(id, 6, '0')``, ``LEFT(code, 3)``, ``REPEAT('x', n)``).

Strings are held case-folded and right-trimmed (predictor/evaluate.py), so LOWER / UPPER return their
argument as a ``Recased`` string (it compares equal, but writing it may change the row: ``SET v = UPPER(v)``),
a string built from one is Recased too, and REPLACE is only computed when what it searches for has no
letters. Anything else: ``None`` (not one of these), and the caller's usual rules apply.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from sqlglot import exp

from predictor.moments import Moment, calendar_day
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


_MAX_BUILT = 100_000  # longer built strings are not followed (cost, not meaning)


def _count(v: Value) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.lstrip("-").isdigit():
        return int(v)
    return None


def _repeat(e: exp.Expression, ev: Eval) -> Value:
    v, n = ev(e.this), ev(e.args["times"]) if e.args.get("times") is not None else None
    if v is None or n is None:
        return None
    text, times = _text(v), _count(n)
    if text is None or times is None or len(text) * max(times, 0) > _MAX_BUILT:
        return UNKNOWN
    return _like([v], (text * max(times, 0)).rstrip(" "))


def _pad(e: exp.Expression, ev: Eval) -> Value:
    v, n = ev(e.this), ev(e.expression)
    fill = ev(e.args["fill_pattern"]) if e.args.get("fill_pattern") is not None else " "
    if v is None or n is None or fill is None:
        return None
    text, width, pad = _text(v), _count(n), _text(fill)
    if text is None or width is None or pad is None or width > _MAX_BUILT:
        return UNKNOWN
    if width < 0:
        return None
    if len(text) >= width:
        return _like([v], text[:width].rstrip(" "))
    if not pad:
        return None
    filler = (pad * (width - len(text)))[: width - len(text)]
    out = filler + text if e.args.get("is_left") else text + filler
    return _like([v, fill], out.rstrip(" "))


def _left_right(e: exp.Expression, ev: Eval) -> Value:
    v, n = ev(e.this), ev(e.expression)
    if v is None or n is None:
        return None
    text, count = _text(v), _count(n)
    if text is None or count is None:
        return UNKNOWN
    if count <= 0:
        return ""
    return _like([v], (text[:count] if isinstance(e, exp.Left) else text[-count:]).rstrip(" "))


def _substring(e: exp.Expression, ev: Eval) -> Value:
    v, p = ev(e.this), ev(e.args["start"]) if e.args.get("start") is not None else None
    length = ev(e.args["length"]) if e.args.get("length") is not None else len(str(v or ""))
    if v is None or p is None or length is None:
        return None
    text, start, count = _text(v), _count(p), _count(length)
    if text is None or start is None or count is None:
        return UNKNOWN
    if start == 0 or count <= 0 or abs(start) > len(text):
        return ""
    begin = start - 1 if start > 0 else len(text) + start
    return _like([v], text[begin:begin + count].rstrip(" "))


_DAY_CODES = {"%Y": "%Y", "%y": "%y", "%m": "%m", "%d": "%d"}  # the same in MySQL and Python


def _date_format(e: exp.Expression, ev: Eval) -> Value:
    """DATE_FORMAT(clock reading, day-only format): the day's text (predictor/moments.py, calendar_day)."""
    inner = e.this.this if isinstance(e.this, exp.TsOrDsToTimestamp) else e.this
    fmt = e.args.get("format")
    v = ev(inner)
    if v is None:
        return None
    day = calendar_day(v) if isinstance(v, Moment) else _day(v)
    if day is None or not isinstance(fmt, exp.Literal) or not fmt.is_string:
        return UNKNOWN
    text = str(fmt.this)
    codes = [text[i:i + 2] for i in range(len(text) - 1) if text[i] == "%"]
    if any(c not in _DAY_CODES for c in codes) or text.count("%") != len(codes):
        return UNKNOWN
    return day.strftime(text).casefold()


def _day(v: Value) -> date | None:
    """The day a date literal names (``'2026-10-01'``, ``'2026-10-01 08:00:00'``), else None."""
    if not isinstance(v, str) or len(v) not in (10, 19):
        return None
    try:
        return date.fromisoformat(v[:10])
    except ValueError:
        return None


def _last_day(e: exp.Expression, ev: Eval) -> Value:
    """LAST_DAY(date): the month's last day, as a date literal."""
    v = ev(e.this)
    if v is None:
        return None
    day = calendar_day(v) if isinstance(v, Moment) else _day(v)
    if day is None:
        return UNKNOWN
    following = date(day.year + day.month // 12, day.month % 12 + 1, 1)
    return (following - timedelta(days=1)).isoformat()


def _round(e: exp.Expression, ev: Eval) -> Value:
    """ROUND(x[, d]) of an exact number: half away from zero, as MySQL rounds DECIMAL and integers."""
    v = ev(e.this)
    places = ev(e.args["decimals"]) if isinstance(e.args.get("decimals"), exp.Expression) else 0
    if v is None or places is None:
        return None
    if not isinstance(places, int) or isinstance(places, bool) or isinstance(v, bool) \
            or not isinstance(v, int | Decimal):
        return UNKNOWN
    if isinstance(v, int) and places >= 0:
        return v
    out = Decimal(v).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return (int(out) if isinstance(v, int) else Decimal(int(out))) if places < 0 else out


def _extreme(e: exp.Expression, ev: Eval) -> Value:
    """GREATEST / LEAST of exact numbers (NULL when an argument is)."""
    args = [ev(x) for x in (e.this, *e.expressions)]
    if any(v is None for v in args):
        return None
    if not all(isinstance(v, int | Decimal) and not isinstance(v, bool) for v in args):
        return UNKNOWN
    return (max if isinstance(e, exp.Greatest) else min)(args)  # type: ignore[type-var]


def _datediff(e: exp.Expression, ev: Eval) -> Value:
    """DATEDIFF(a, b): the days from b to a, for dates the data model knows the day of."""
    a, b = ev(e.this), ev(e.expression)
    if a is None or b is None:
        return None
    days = [calendar_day(v) if isinstance(v, Moment) else _day(v) for v in (a, b)]
    if days[0] is None or days[1] is None:
        return UNKNOWN
    return (days[0] - days[1]).days


_FUNCTIONS: dict[type[exp.Expression], Callable[[exp.Expression, Eval], Value]] = {
    exp.Concat: _concat, exp.ConcatWs: _concat_ws, exp.Replace: _replace, exp.Coalesce: _coalesce, exp.Trim: _trim,
    exp.Lower: _recase, exp.Upper: _recase, exp.Repeat: _repeat, exp.Pad: _pad, exp.Left: _left_right,
    exp.Right: _left_right, exp.Substring: _substring, exp.TimeToStr: _date_format,
    exp.LastDay: _last_day, exp.Round: _round, exp.Greatest: _extreme, exp.Least: _extreme,
    exp.DateDiff: _datediff,
}
