"""The few SQL functions whose values the data model computes: the string and NULL-handling functions
applications build keys and flags with (``LOWER(CONCAT(first, '.', last, '@corp'))``, ``COALESCE(x, 0)``,
``LPAD(id, 6, '0')``, ``LEFT(code, 3)``, ``REPEAT('x', n)``), and digests of literals (``SHA2(X'..', 256)``:
a retried upload hashes to the same key).

Strings are held case-folded and right-trimmed (predictor/evaluate.py), so LOWER / UPPER return their
argument as a ``Recased`` string (it compares equal, but writing it may change the row: ``SET v = UPPER(v)``),
a string built from one is Recased too, and REPLACE is only computed when what it searches for has no
letters. Anything else: ``None`` (not one of these), and the caller's usual rules apply.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, InvalidOperation

from sqlglot import exp, jsonpath
from sqlglot.errors import ParseError, TokenError

from predictor.moments import Moment, before, calendar_day, from_literal, on_day, shift
from predictor.values import UNKNOWN, Cased, JsonText, Recased, decimal_of, exact_text, real

Value = object  # as predictor.evaluate.Value
Eval = Callable[[exp.Expression], Value]
_NOT_COMPUTED = object()


def computed(e: exp.Expression, ev: Eval) -> object:
    """``e``'s value when it is one of these functions (UNKNOWN when an argument is), else _NOT_COMPUTED."""
    fn = _NAMED.get(e.name.upper()) if isinstance(e, exp.Anonymous) else _FUNCTIONS.get(type(e))
    return _NOT_COMPUTED if fn is None else fn(e, ev)


def is_computed(v: object) -> bool:
    return v is not _NOT_COMPUTED


def _text(v: Value) -> str | None:
    """A value as string functions read it: an exact DECIMAL with its scale (``CONCAT(lane, ':', 8200.00)``:
    freight_forwarding_app's rate-cache keys); a DOUBLE's text is not followed."""
    if isinstance(v, Decimal):
        return format(v, "f")
    return v if isinstance(v, str) else str(v) if isinstance(v, int) and not isinstance(v, bool) else None


def _like(sources: list[Value], v: Value, exact: str | None = None) -> Value:
    """``v`` Recased when it was built from a Recased string; Cased when its ``exact`` text is known."""
    if not isinstance(v, str):
        return v
    if exact is not None and exact.endswith(" "):
        exact = None  # held right-trimmed: the exact text of a trailing space depends on where it is stored
    if any(isinstance(x, Recased) for x in sources):
        return Recased(v, exact)
    return Cased(v, exact) if exact is not None and v.upper() != v else v


def _exact_piece(v: Value) -> str | None:
    """A string function's argument as the server's exact text, when known (numbers: their text)."""
    return exact_text(v) if isinstance(v, str) else _text(v)


def _piece(x: exp.Expression, ev: Eval) -> Value:
    """A CONCAT argument: a string literal keeps its trailing spaces inside the result (values are held
    right-trimmed: ``CONCAT('purged ', n)`` is 'purged 5', not 'purged5')."""
    if isinstance(x, exp.Literal) and x.is_string:
        text = str(x.this)
        return Cased(text.casefold(), text) if text.upper() != text.casefold() else text
    return ev(x)


def _concat(e: exp.Expression, ev: Eval) -> Value:
    parts = [_piece(x, ev) for x in e.expressions]
    if any(v is None for v in parts):
        return None
    texts = [_text(v) for v in parts]
    if not all(t is not None for t in texts):
        return UNKNOWN
    exacts = [_exact_piece(v) for v in parts]
    exact = "".join(x for x in exacts if x is not None) if all(x is not None for x in exacts) else None
    return _like(parts, "".join(t for t in texts if t is not None).rstrip(" "), exact)


def _concat_ws(e: exp.Expression, ev: Eval) -> Value:
    sep, *parts = [_piece(x, ev) for x in e.expressions]
    if sep is None:
        return None
    texts = [_text(v) for v in parts if v is not None]  # CONCAT_WS skips NULLs
    s = _text(sep)
    return _like([sep, *parts], s.join(t for t in texts if t is not None).rstrip(" ")) \
        if s is not None and all(t is not None for t in texts) else UNKNOWN


def _replace(e: exp.Expression, ev: Eval) -> Value:
    search = e.expression  # a literal as written: values are right-trimmed, and ' ' would be ''
    s, new = ev(e.this), ev(e.args["replacement"]) if e.args.get("replacement") else ""
    old = search.this if isinstance(search, exp.Literal) and search.is_string else ev(search)
    if s is None or old is None or new is None:
        return None
    sources = [s, new]
    s, old, new = _text(s), _text(old), _text(new)
    if s is None or old is None or new is None or not old:
        return UNKNOWN
    # REPLACE is case-sensitive and the model holds text case-folded: a bet that the text has the case of the
    # string searched for (``REPLACE(b.booking_no, 'BKG', 'SHP')``: freight_forwarding_app's shipment numbers)
    return _like(sources, s.replace(old.casefold(), new.casefold()).rstrip(" "))


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
    if not isinstance(v, str):
        return v if v is None else UNKNOWN
    exact = exact_text(v)
    return _like([v], v.strip(" "), None if exact is None else exact.strip(" "))


def _recase(e: exp.Expression, ev: Eval) -> Value:
    v = ev(e.this)
    if v is None or v is UNKNOWN:
        return v
    text = _text(v)
    if text is None:
        return UNKNOWN
    exact = _exact_piece(v)
    if exact is not None and exact.isascii():  # the servers' ASCII case mapping is Python's
        return Recased(text, exact.upper() if isinstance(e, exp.Upper) else exact.lower())
    return Recased(text)


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
        return _cut(v, text, lambda s: s[:width])
    if not pad:
        return None
    filler = (pad * (width - len(text)))[: width - len(text)]
    out = filler + text if e.args.get("is_left") else text + filler
    ex, fx = _exact_piece(v), _exact_piece(fill)
    exact = None
    if ex is not None and fx is not None and len(ex) == len(text) and len(fx) == len(pad):
        fill_exact = (fx * (width - len(ex)))[: width - len(ex)]
        exact = fill_exact + ex if e.args.get("is_left") else ex + fill_exact
    return _like([v, fill], out.rstrip(" "), exact)


def _cut(v: Value, text: str, part: Callable[[str], str]) -> Value:
    """``part`` of string ``v`` (held as ``text``), with its exact text when ``v``'s is known in ASCII (the
    folded text then has the same length)."""
    exact = exact_text(v) if isinstance(v, str) else text
    same = exact is not None and exact.isascii() and len(exact) == len(text)
    return _like([v], part(text).rstrip(" "), part(exact) if same and exact is not None else None)


def _left_right(e: exp.Expression, ev: Eval) -> Value:
    v, n = ev(e.this), ev(e.expression)
    if v is None or n is None:
        return None
    text, count = _text(v), _count(n)
    if text is None or count is None:
        return UNKNOWN
    if count <= 0:
        return ""
    return _cut(v, text, (lambda s: s[:count]) if isinstance(e, exp.Left) else (lambda s: s[-count:]))


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
    return _cut(v, text, lambda s: s[begin:begin + count])


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


def _date_part(e: exp.Expression, ev: Eval) -> Value:
    """YEAR / MONTH / DAY of a date (a literal, or a clock reading whose day is known)."""
    arg = e.this.this if isinstance(e.this, exp.TsOrDsToDate) else e.this
    v = ev(arg)
    if v is None:
        return None
    day = calendar_day(v) if isinstance(v, Moment) else _day(v)
    if day is None:
        return UNKNOWN
    return day.year if isinstance(e, exp.Year) else day.month if isinstance(e, exp.Month) else day.day


def _to_date(e: exp.Expression, ev: Eval) -> Value:
    """DATE(x), or x passed to a DATE parameter: a date or datetime literal's day, a clock reading's."""
    v = ev(e.this)
    if v is None:
        return None
    if isinstance(v, Moment):
        return v.as_date()
    day = _day(v)
    return UNKNOWN if day is None else day.isoformat()


def _stamp(v: Value) -> Value:
    """A date or datetime literal as a DATETIME's text (``'2030-06-01'`` is ``'2030-06-01 00:00:00'``)."""
    if not isinstance(v, str) or len(v) not in (10, 19):
        return UNKNOWN
    try:
        return datetime.fromisoformat(v).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return UNKNOWN


_DAY_TYPES = (exp.DataType.Type.DATE,)
_STAMP_TYPES = (exp.DataType.Type.DATETIME, exp.DataType.Type.TIMESTAMP)
_WHOLE_TYPES = (exp.DataType.Type.BIGINT, exp.DataType.Type.UBIGINT)
_DOUBLE_TYPES = (exp.DataType.Type.DOUBLE,)


def _cast(e: exp.Expression, ev: Eval) -> Value:
    """CAST(x AS DATE) (and ``DATE 'x'``), AS DATETIME, AS SIGNED / UNSIGNED of a number (rounded: a DECIMAL
    half up, a DOUBLE half to even), AS DOUBLE and AS DECIMAL(p, s) of a number, AS JSON of a document's
    text (how a procedure's JSON value is bound: routines.as_expression); other types are not followed."""
    to = e.args.get("to")
    kind = to.this if isinstance(to, exp.DataType) else None
    if kind in _DAY_TYPES:
        return _to_date(e, ev)
    if kind is exp.DataType.Type.DECIMAL and isinstance(to, exp.DataType):
        return _as_decimal(_number_text(ev(e.this)), to)
    if kind is exp.DataType.Type.JSON:
        v = ev(e.this)
        doc = _json_arg(v) if v is not None else None
        return v if v is None or isinstance(v, JsonText) else UNKNOWN if doc is _NOT_COMPUTED else JsonText(
            _json_text(doc))
    if kind not in _STAMP_TYPES and kind not in _WHOLE_TYPES and kind not in _DOUBLE_TYPES:
        return UNKNOWN
    v = ev(e.this)
    if v is None or (isinstance(v, Moment) and kind in _STAMP_TYPES):
        return v
    if kind in _STAMP_TYPES:
        return _stamp(v)
    v = _number_text(v, whole=kind in _WHOLE_TYPES)
    if not real(v):
        return UNKNOWN
    assert isinstance(v, int | Decimal | float)
    if kind in _DOUBLE_TYPES:
        return float(v)
    if isinstance(v, float):
        v = round(v) if math.isfinite(v) and abs(v) < 2.0 ** 63 else UNKNOWN  # rint
    elif isinstance(v, Decimal):
        v = int(v.to_integral_value(ROUND_HALF_UP))
    if isinstance(v, int) and not isinstance(v, bool) and (v >= 0 or kind is exp.DataType.Type.BIGINT):
        return v
    return UNKNOWN


_NUMBER_TEXT = re.compile(r"\s*[+-]?\d+(\.\d+)?")
_WHOLE_TEXT = re.compile(r"\s*[+-]?\d+")


def _number_text(v: Value, whole: bool = False) -> Value:
    """A string that is a plain decimal number (``'12.50'``; a whole one for an integer: ``'22'``) as that
    number, which CAST reads without a warning (dental_group_app's legacy balances and chart numbers); other
    values as they are."""
    if not isinstance(v, str) or not (_WHOLE_TEXT if whole else _NUMBER_TEXT).fullmatch(v):
        return v
    return Decimal(v.strip())


def _as_decimal(v: Value, to: exp.DataType) -> Value:
    """A number as a DECIMAL(p, s): a DOUBLE by its shortest digits (double2decimal), rounded half up to s;
    one too wide for p is not followed (the server caps it with a warning)."""
    if v is None:
        return None
    if not real(v):
        return UNKNOWN
    assert isinstance(v, int | Decimal | float)
    sizes = [int(p.this.this) for p in to.expressions if isinstance(p.this, exp.Literal) and p.this.is_int]
    if len(sizes) != len(to.expressions):
        return UNKNOWN
    precision, scale = (sizes[0] if sizes else 10), (sizes[1] if len(sizes) > 1 else 0)
    try:
        out = decimal_of(v).quantize(Decimal(1).scaleb(-scale), ROUND_HALF_UP)
    except InvalidOperation:  # more digits than Python's context holds (28)
        return UNKNOWN
    return out if len(out.as_tuple().digits) <= max(precision, 1) else UNKNOWN


def _timestamp(e: exp.Expression, ev: Eval) -> Value:
    """TIMESTAMP(d) and TIMESTAMP(d, t): a day (and time of day) as a DATETIME (sqlglot reads the second
    argument as a zone); a clock reading stays one (``TIMESTAMP(CURDATE() + INTERVAL 1 DAY, '09:30:00')``:
    dental_group_app's bookings)."""
    v = ev(e.this)
    extra = e.args.get("zone")
    if v is None or (isinstance(v, Moment) and extra is None):
        return v
    return _add_time(v, ev(extra)) if extra is not None else _stamp(v)


def _addtime(e: exp.Expression, ev: Eval) -> Value:
    """ADDTIME(dt, 'hh:mm:ss'): as TIMESTAMP(dt, t)."""
    args = e.expressions
    return _add_time(ev(args[0]), ev(args[1])) if len(args) == 2 else UNKNOWN


def _add_time(v: Value, t: Value) -> Value:
    """A date or datetime (a literal's text or a clock reading) plus a time of day given as literal text."""
    if v is None or t is None:
        return None
    try:
        at = time.fromisoformat(t) if isinstance(t, str) else None
    except ValueError:
        at = None
    if at is None:
        return UNKNOWN
    seconds = at.hour * 3600 + at.minute * 60 + at.second
    if isinstance(v, Moment):
        got = shift(v, seconds, "SECOND")
        return UNKNOWN if got is None else replace(got, date=False)
    stamp = _stamp(v)
    if not isinstance(stamp, str):
        return stamp
    return (datetime.fromisoformat(stamp) + timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S")


def _from_unixtime(e: exp.Expression, ev: Eval) -> Value:
    """FROM_UNIXTIME(n) of a whole number of seconds: the DATETIME's text in UTC, the zone of the servers rplay
    starts (a session with another time_zone reads another hour). A format argument is not followed."""
    if any(e.args.get(k) is not None for k in ("format", "zone", "scale")):
        return UNKNOWN
    v = ev(e.this)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 32536771200:
        return UNKNOWN
    return datetime.fromtimestamp(v, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")


def _json_path(e: exp.Expression, ev: Eval) -> Value:
    """JSON_EXTRACT(doc, '$.a.b[0]') / doc->>'$.a' / JSON_VALUE of a document the model holds (a string
    written as a literal): the scalar at the path (a string, a number; NULL when the path is absent).
    JSON_EXTRACT gives a string quoted, as JSON (JSON_UNQUOTE takes the quotes off: evaluate.py); an object or
    array is not computed (the servers print them differently). A path may be computed
    (``CONCAT('$.marks[', i, '].plate')`` in a loop: parking_permits_app)."""
    if e.expressions:
        return UNKNOWN
    node = _json_at(e.this, e.args.get("path") if isinstance(e, exp.JSONValue) else e.expression, ev)
    if node is None or node is UNKNOWN:
        return node
    if isinstance(node, bool) or isinstance(node, dict | list):
        return UNKNOWN
    if isinstance(node, float):
        return Decimal(str(node))
    if isinstance(node, str) and isinstance(e, exp.JSONExtract):
        return json.dumps(node)
    return node


def _json_at(doc_arg: exp.Expression, path_arg: object, ev: Eval) -> object:
    """The JSON value at a path of a document the model holds: None when the document is NULL or the path
    absent, UNKNOWN when either cannot be read."""
    path = path_arg
    if isinstance(path, exp.Expression) and not isinstance(path, exp.JSONPath):
        text = ev(path)
        if text is None:
            return None
        try:
            path = jsonpath.parse(text) if isinstance(text, str) else None
        except (ParseError, TokenError):
            path = None
    if not isinstance(path, exp.JSONPath):
        return UNKNOWN
    doc = ev(doc_arg)
    if doc is None:
        return None
    if not isinstance(doc, str) or (isinstance(doc, JsonText) and doc.partial):
        return UNKNOWN
    try:
        node: object = json.loads(doc)
    except ValueError:
        return UNKNOWN
    for part in path.expressions:
        if isinstance(part, exp.JSONPathRoot):
            continue
        if isinstance(part, exp.JSONPathKey) and isinstance(node, dict) and isinstance(part.this, str):
            node = node.get(part.this.casefold())
        elif isinstance(part, exp.JSONPathSubscript) and isinstance(node, list) and isinstance(part.this, int):
            node = node[part.this] if 0 <= part.this < len(node) else None
        else:
            return UNKNOWN
        if node is None:
            return None
    return node


def _json_length(e: exp.Expression, ev: Eval) -> Value:
    """JSON_LENGTH(doc[, path]): an array's elements, an object's keys, 1 for a scalar; NULL for no path."""
    args = e.expressions
    if not 1 <= len(args) <= 2:
        return UNKNOWN
    node = _json_at(args[0], args[1] if len(args) == 2 else exp.JSONPath(expressions=[exp.JSONPathRoot()]), ev)
    if node is None or node is UNKNOWN:
        return node
    return len(node) if isinstance(node, dict | list) else 1


def _length(e: exp.Expression, ev: Eval) -> Value:
    """CHAR_LENGTH, or LENGTH (bytes) of an ASCII string. The model's strings are case-folded and right-trimmed
    (evaluate.py): a letter whose case folding changes its length (ß) is not measured; trailing spaces are
    not counted (PAD SPACE collations compare without them too)."""
    v = ev(e.this)
    if v is None:
        return None
    text = _text(v)
    if text is None or (e.args.get("binary") and not text.isascii()) or any(c.casefold() != c.lower() for c in text):
        return UNKNOWN
    return len(text)


def _last_day(e: exp.Expression, ev: Eval) -> Value:
    """LAST_DAY(date): the month's last day, as a date literal, or as a clock reading for one (the day of
    ``LAST_DAY(CURDATE())`` moves with the run's day: predictor/moments.py, on_day)."""
    v = ev(e.this)
    if v is None:
        return None
    day = calendar_day(v) if isinstance(v, Moment) else _day(v)
    if day is None:
        return UNKNOWN
    following = date(day.year + day.month // 12, day.month % 12 + 1, 1)
    last = following - timedelta(days=1)
    return on_day(last) if isinstance(v, Moment) else last.isoformat()


def _round(e: exp.Expression, ev: Eval) -> Value:
    """ROUND(x[, d]) of an exact number: half away from zero, as MySQL rounds DECIMAL and integers; of a
    DOUBLE: rint(x * 10^d) / 10^d, half to even (my_double_round)."""
    v = ev(e.this)
    places = ev(e.args["decimals"]) if isinstance(e.args.get("decimals"), exp.Expression) else 0
    if v is None or places is None:
        return None
    if isinstance(v, float) and isinstance(places, int) and not isinstance(places, bool) and abs(places) < 16:
        scale = 10.0 ** abs(places)
        return round(v / scale) * scale if places < 0 else round(v * scale) / scale
    if not isinstance(places, int) or isinstance(places, bool) or isinstance(v, bool) \
            or not isinstance(v, int | Decimal):
        return UNKNOWN
    if isinstance(v, int) and places >= 0:
        return v
    out = Decimal(v).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return (int(out) if isinstance(v, int) else Decimal(int(out))) if places < 0 else out


def _whole(e: exp.Expression, ev: Eval) -> Value:
    """CEIL / FLOOR of an exact number (an integer), of a DOUBLE (a DOUBLE), ABS."""
    v = ev(e.this)
    if v is None:
        return None
    if isinstance(v, float):
        return abs(v) if isinstance(e, exp.Abs) else float(math.ceil(v) if isinstance(e, exp.Ceil) else math.floor(v))
    if isinstance(v, bool) or not isinstance(v, int | Decimal):
        return UNKNOWN
    if isinstance(e, exp.Abs):
        return abs(v)
    return int(Decimal(v).to_integral_value(rounding=ROUND_CEILING if isinstance(e, exp.Ceil) else ROUND_FLOOR))


def _extreme(e: exp.Expression, ev: Eval) -> Value:
    """GREATEST / LEAST of exact numbers, or of date literals of one form (``LEAST(v_end, sa.end_date)``: their
    text orders as the days do); NULL when an argument is."""
    args = [ev(x) for x in (e.this, *e.expressions)]
    if any(v is None for v in args):
        return None
    pick = max if isinstance(e, exp.Greatest) else min
    if all(isinstance(v, str) and _day(v) is not None and len(v) == len(str(args[0])) for v in args):
        return pick(str(v) for v in args)
    if all(isinstance(v, Moment) for v in args):
        return _extreme_reading(args, isinstance(e, exp.Greatest))
    if any(isinstance(v, Moment) for v in args) and all(isinstance(v, Moment | str) for v in args):
        return _extreme_mixed(args, isinstance(e, exp.Greatest))
    if not all(real(v) for v in args):
        return UNKNOWN
    if any(isinstance(v, float) for v in args):
        return float(pick(float(v) for v in args))  # type: ignore[arg-type]  # compared and returned as DOUBLE
    return pick(args)  # type: ignore[type-var]


def _extreme_mixed(args: list[Value], greatest: bool) -> Value:
    """GREATEST / LEAST of clock readings and date literals (``GREATEST(v_next, v_last + INTERVAL 56 DAY)``
    with ``v_next`` starting at '2000-01-01 00:00:00': blood_bank_app's eligibility): the literals placed on
    the clock (moments.from_literal); the one picked is returned as it was."""
    against = next(v for v in args if isinstance(v, Moment))
    placed: list[Value] = [v if isinstance(v, Moment) else from_literal(v, against) if isinstance(v, str)
                           else None for v in args]
    if any(m is None for m in placed):
        return UNKNOWN
    best = _extreme_reading(placed, greatest)
    return UNKNOWN if best is UNKNOWN else args[placed.index(best)]


def _extreme_reading(readings: list[Value], greatest: bool) -> Value:
    """GREATEST / LEAST of clock readings whose order is known (``GREATEST(last_sync_at, NEW.synced_at)`` of a
    row written by an earlier statement: predictor/moments.py); else UNKNOWN."""
    best = readings[0]
    for v in readings[1:]:
        assert isinstance(best, Moment) and isinstance(v, Moment)
        later = before(best, v)
        if later is None:
            return UNKNOWN
        if v != best and later == greatest:
            best = v
    return best


_UNIT_SECONDS = {"SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400, "WEEK": 604800}


def _timestampdiff(e: exp.Expression, ev: Eval) -> Value:
    """TIMESTAMPDIFF(unit, a, b) for units of a fixed length: two literals, or two readings whose offsets
    from today (or from one statement's NOW()) are known (``TIMESTAMPDIFF(MINUTE, p_start, p_end)`` of a room
    booked ``TIMESTAMP(CURDATE() + INTERVAL 4 DAY, '09:00:00')``: coworking_spaces_app's credit cost)."""
    end, start = ev(e.this), ev(e.expression)
    if end is None or start is None:
        return None
    unit = e.args.get("unit")
    size = _UNIT_SECONDS.get(unit.name.upper() if isinstance(unit, exp.Expression) else "")
    if size is None:
        return UNKNOWN
    seconds: float | None = None
    if isinstance(end, Moment) and isinstance(start, Moment):
        if end.day is not None and start.day is not None and end.day[1] == start.day[1]:
            seconds = end.day[0] - start.day[0]
        elif end.now is not None and start.now is not None and end.now[1] == start.now[1] \
                and end.reading == start.reading and end.reading is not None:
            seconds = end.now[0] - start.now[0]
    elif isinstance(end, str) and isinstance(start, str):
        a, b = _stamp(start), _stamp(end)
        if isinstance(a, str) and isinstance(b, str):
            seconds = (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()
    return UNKNOWN if seconds is None else int(seconds / size)


def _datediff(e: exp.Expression, ev: Eval) -> Value:
    """DATEDIFF(a, b): the days from b to a, for dates the data model knows the day of."""
    a, b = ev(e.this), ev(e.expression)
    if a is None or b is None:
        return None
    days = [calendar_day(v) if isinstance(v, Moment) else _day(v) for v in (a, b)]
    if days[0] is None or days[1] is None:
        return UNKNOWN
    return (days[0] - days[1]).days


_DIGESTS: dict[type[exp.Expression], str] = {exp.MD5: "md5", exp.SHA: "sha1"}
_SHA2_SIZES = {0: "sha256", 224: "sha224", 256: "sha256", 384: "sha384", 512: "sha512"}


def _exact(x: exp.Expression, ev: Eval) -> object:
    """``x`` as the exact text the server has (None: NULL), when case folding cannot have changed it: string
    literals as written, CONCATs of them, integers and decimals, strings without letters; else
    _NOT_COMPUTED."""
    if isinstance(x, exp.Paren):
        return _exact(x.this, ev)
    if isinstance(x, exp.Literal) and x.is_string:
        return str(x.this)
    if isinstance(x, exp.Null):
        return None
    if isinstance(x, exp.Concat):
        parts = [_exact(a, ev) for a in x.expressions]
        if any(p is _NOT_COMPUTED for p in parts):
            return _NOT_COMPUTED
        return None if any(p is None for p in parts) else "".join(map(str, parts))
    v = ev(x)
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    if isinstance(v, Decimal) and v.is_finite():
        return format(v, "f")
    if isinstance(v, str):
        text = exact_text(v)
        return _NOT_COMPUTED if text is None else text
    return _NOT_COMPUTED


def _quote(e: exp.Expression, ev: Eval) -> Value:
    """QUOTE(): a string literal of its argument's exact text (backslash, quote, NUL and Ctrl-Z escaped), the
    word NULL for NULL (a report's SQL built with CONCAT and prepared: crowdfunding_platform_app)."""
    if len(e.expressions) != 1:
        return UNKNOWN
    v = ev(e.expressions[0])
    if v is None:
        return "NULL"
    text = _exact_piece(v) if isinstance(v, str | int | Decimal) and not isinstance(v, bool) else None
    if text is None:
        return UNKNOWN
    for c, esc in (("\\", "\\\\"), ("'", "\\'"), ("\0", "\\0"), ("\x1a", "\\Z")):
        text = text.replace(c, esc)
    quoted = f"'{text}'"
    return Cased(quoted.casefold(), quoted) if quoted.upper() != quoted.casefold() else quoted


def _hex(e: exp.Expression, ev: Eval) -> Value:
    """HEX of an integer (a negative one as its 64-bit two's complement) or of a string whose exact text is
    known: upper-case hex digits."""
    v = ev(e.this)
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        digits = format(v & 0xFFFFFFFFFFFFFFFF, "X")
    elif isinstance(v, str) and (text := exact_text(v)) is not None:
        digits = text.encode("utf-8").hex().upper()
    else:
        return UNKNOWN
    return Cased(digits.casefold(), digits) if digits.upper() != digits.casefold() else digits


def _digest(e: exp.Expression, ev: Eval) -> Value:
    """MD5 / SHA1 / SHA2 of a literal (a string as utf8mb4 bytes, or X'...'), or of a CONCAT of literals and
    values without letters (``SHA2(CONCAT('PIN', p_batch, i), 256)`` in a loop): the lower-case hex digest
    the server returns. Other arguments are not computed: the model holds strings case-folded, and a digest
    needs the exact bytes."""
    arg = e.this
    if isinstance(arg, exp.HexString):
        try:
            data = bytes.fromhex(str(arg.this))
        except ValueError:
            return UNKNOWN
    else:
        text = _exact(arg, ev)
        if text is _NOT_COMPUTED:
            return UNKNOWN
        if text is None:
            return None
        data = str(text).encode("utf-8")
    if isinstance(e, exp.SHA2):
        size = ev(e.args["length"]) if e.args.get("length") is not None else 256
        name = _SHA2_SIZES.get(size) if isinstance(size, int) else None
        if name is None:
            return None if isinstance(size, int) else UNKNOWN  # SHA2(x, 100): NULL
    else:
        name = _DIGESTS[type(e)]
    digest = hashlib.new(name, data).hexdigest()
    return Cased(digest, digest)  # lower-case hex: its exact text too


_RAND_MAX = 0x3FFFFFFF


def _double_of(e: exp.Expression, ev: Eval) -> Value:
    """POW / EXP / SQRT / LN / LOG of numbers: a DOUBLE, from the same C library the server calls; NULL
    where the server returns NULL (a negative square root, the log of a non-positive number)."""
    args = [ev(x) for x in (e.this, e.args.get("expression")) if isinstance(x, exp.Expression)]
    if any(v is None for v in args):
        return None
    if not all(real(v) for v in args):
        return UNKNOWN
    x = [float(v) for v in args]  # type: ignore[arg-type]
    try:
        if isinstance(e, exp.Pow):
            out = math.pow(x[0], x[1])
        elif isinstance(e, exp.Exp):
            out = math.exp(x[0])
        elif isinstance(e, exp.Sqrt):
            return math.sqrt(x[0]) if x[0] >= 0 else None
        elif any(v <= 0 for v in x):
            return None  # LN(0), LOG(-1): NULL and a warning in MySQL 8+ (not followed further)
        elif isinstance(e, exp.Ln):
            out = math.log(x[0])
        else:  # LOG(b, x), LOG2(x), LOG10(x): ln(x) / ln(b), as the server divides
            out = math.log(x[1]) / math.log(x[0]) if len(x) == 2 else UNKNOWN  # type: ignore[assignment]
    except (OverflowError, ValueError, ZeroDivisionError):
        return UNKNOWN
    return out if isinstance(out, float) and math.isfinite(out) else UNKNOWN


def _rand(e: exp.Expression, ev: Eval) -> Value:
    """RAND(seed) with a seed that reads the row: re-seeded for each row, so its value is the seed's first
    (my_rnd, the same on both servers: RAND(1) = 0.40540353712197724). A constant seed starts one sequence
    for the statement (its value depends on the rows before): not computed, nor RAND() without one."""
    seed = e.this
    if not isinstance(seed, exp.Expression) or not any(isinstance(n, exp.Column) for n in seed.walk()):
        return UNKNOWN
    v = ev(seed)
    if not isinstance(v, int) or isinstance(v, bool):
        return UNKNOWN
    tmp = v & 0xFFFFFFFF
    seed1 = ((tmp * 0x10001 + 55555555) & 0xFFFFFFFF) % _RAND_MAX
    seed2 = ((tmp * 0x10000001) & 0xFFFFFFFF) % _RAND_MAX
    return Decimal((seed1 * 3 + seed2) % _RAND_MAX / float(_RAND_MAX))


_REGEX_ESCAPES = frozenset("dDsSwW.^$*+?()[]{}|\\-/")


def _regexp(e: exp.Expression, ev: Eval) -> Value:
    """``s REGEXP 'pattern'``: 1 or 0, for a literal pattern made of what ICU (MySQL), PCRE (MariaDB) and
    Python's re read alike (no POSIX classes, no ``(?`` groups, escapes of classes and metacharacters only);
    case-insensitive, as on a _ci collation (values are held case-folded: evaluate.py)."""
    pattern = e.args.get("expression")
    if not isinstance(pattern, exp.Literal) or not pattern.is_string:
        return UNKNOWN
    text = str(pattern.this)
    if "[:" in text or "(?" in text or any(
            c == "\\" and (k + 1 >= len(text) or text[k + 1] not in _REGEX_ESCAPES) for k, c in enumerate(text)):
        return UNKNOWN
    subject = ev(e.this)
    if subject is None:
        return None
    got = _text(subject)
    if got is None:
        return UNKNOWN
    try:
        return 1 if re.search(text, got, re.IGNORECASE) else 0
    except re.error:
        return UNKNOWN


def _json_doc(e: exp.Expression, ev: Eval) -> Value:
    """JSON_OBJECT(k, v, ...) / JSON_ARRAY(v, ...): the document (values.JsonText). Never NULL: a trigger's
    ``IF NEW.payload IS NULL`` is decided (telecom_mvno_app's top-ups)."""
    partial = False

    def item(x: exp.Expression) -> str:
        nonlocal partial
        if isinstance(x, exp.JSONObject) or (isinstance(x, exp.Anonymous) and x.name.upper() == "JSON_ARRAY"):
            doc = _json_doc(x, ev)
            if isinstance(doc, JsonText):
                partial = partial or doc.partial
                return str(doc)
            partial = True
            return "null"
        v = ev(x)
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | Decimal):
            return str(v)
        if isinstance(v, str) and not isinstance(v, JsonText):
            return json.dumps(str(v), ensure_ascii=False)
        partial = True  # a clock reading, a double, an unknown value
        return "null"

    if isinstance(e, exp.JSONObject):
        if e.args.get("null_handling") or e.args.get("unique_keys") or e.args.get("return_type"):
            return UNKNOWN
        pairs = [x for x in e.expressions if isinstance(x, exp.JSONKeyValue)]
        if len(pairs) != len(e.expressions):
            return UNKNOWN
        keys = [ev(x.this) for x in pairs]
        if not all(isinstance(k, str) for k in keys):
            return UNKNOWN
        body = ", ".join(f"{json.dumps(str(k), ensure_ascii=False)}: {item(x.expression)}"
                         for k, x in zip(keys, pairs, strict=True))
        return JsonText("{" + body + "}", partial)
    return JsonText("[" + ", ".join(item(x) for x in e.expressions) + "]", partial)


def _json_text(obj: object) -> str:
    """A document as MariaDB prints one (``{"a": 1, "b": [1, 2]}``)."""
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


def _json_arg(v: Value) -> object:
    """A JSON argument's document; _NOT_COMPUTED when it is not one the model can read."""
    if not isinstance(v, str) or (isinstance(v, JsonText) and v.partial):
        return _NOT_COMPUTED
    try:
        return json.loads(v)
    except ValueError:
        return _NOT_COMPUTED


def _lettered(obj: object) -> bool:
    """Whether a document holds a string with letters (case-folded by the model: its case is not known)."""
    if isinstance(obj, str):
        return obj.upper() != obj.lower()
    if isinstance(obj, dict):
        return any(_lettered(v) for v in obj.values())
    if isinstance(obj, list):
        return any(_lettered(v) for v in obj)
    return False


def _json_result(old: Value, before: object, after: object, given: object) -> Value:
    """A JSON function's result over ``old`` (its text): ``old`` itself when the document is the same and
    ``old`` is printed as MariaDB prints it (so neither server sees a change: MySQL compares documents,
    MariaDB text) and what was given has no letters whose case the model lost; else the new document
    (values.JsonText: written, a change)."""
    if after == before and isinstance(old, str) and old == _json_text(before) and not _lettered(given):
        return old
    return JsonText(_json_text(after))


def _merge_patch(target: object, patch: object) -> object:
    """RFC 7396, as JSON_MERGE_PATCH: a null in the patch removes the key."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = _merge_patch(out.get(k), v)
    return out


def _json_merge_patch(e: exp.Expression, ev: Eval) -> Value:
    """JSON_MERGE_PATCH(doc, patch, ...): an UPDATE that patches in what a document already holds changes
    nothing (event_ticketing_venue_app: the gold customers' newsletter flag)."""
    if len(e.expressions) < 2:
        return UNKNOWN
    values = [ev(x) for x in e.expressions]
    if any(v is None for v in values):
        return None
    docs = [_json_arg(v) for v in values]
    if any(d is _NOT_COMPUTED for d in docs):
        return UNKNOWN
    after = docs[0]
    for d in docs[1:]:
        after = _merge_patch(after, d)
    return _json_result(values[0], docs[0], after, docs[1:])


def _json_set(e: exp.Expression, ev: Eval) -> Value:
    """JSON_SET(doc, '$.key', value, ...) on top-level keys of an object; other paths are not computed."""
    old = ev(e.this)
    if old is None:
        return None
    before = _json_arg(old)
    args = list(e.expressions)
    if not isinstance(before, dict) or len(args) % 2:
        return UNKNOWN
    after = dict(before)
    given: list[object] = []
    partial = False
    for path, x in zip(args[::2], args[1::2], strict=True):
        where = path.this if isinstance(path, exp.Literal) and path.is_string else None
        key = str(where)[2:] if where is not None and str(where).startswith("$.") else None
        if key is None or not key.isidentifier():
            return UNKNOWN
        v = ev(x)
        if isinstance(v, JsonText):
            v = _json_arg(v)
        if v is UNKNOWN or v is _NOT_COMPUTED:
            return UNKNOWN
        if isinstance(v, Moment | float | Decimal) or not isinstance(v, str | int | dict | list | None):
            # printed differently by the servers, or not known (a UUID): the document is not NULL, not compared
            partial, v = True, None
        after[key] = int(v) if isinstance(v, bool) else v
        given.append(after[key])
    return JsonText(_json_text(after), partial=True) if partial else _json_result(old, before, after, given)


def _json_remove(e: exp.Expression, ev: Eval) -> Value:
    """JSON_REMOVE(doc, '$.key', ...) of top-level keys of an object (a key it lacks: the document as it is);
    other paths are not computed (coworking_spaces_app's print job requeued without its error)."""
    old = ev(e.this)
    if old is None:
        return None
    before = _json_arg(old)
    if not isinstance(before, dict):
        return UNKNOWN
    after = dict(before)
    for path in e.expressions:
        where = path.this if isinstance(path, exp.Literal) and path.is_string else None
        key = str(where)[2:] if where is not None and str(where).startswith("$.") else None
        if key is None or not key.isidentifier():
            return UNKNOWN
        after.pop(key, None)
    return _json_result(old, before, after, ())


def _json_search(e: exp.Expression, ev: Eval) -> Value:
    """JSON_SEARCH(doc, 'one' | 'all', str): NULL when no string of the document matches (``%`` and ``_``
    as in LIKE), else its path; several matches are a document that is not NULL but whose text is not
    known (the servers order an object's keys differently). clinical_trials_edc_app's site activation
    checklist: ``JSON_SEARCH(checklist, 'one', 'pending') IS NOT NULL``."""
    if len(e.expressions) != 3:
        return UNKNOWN
    doc, mode, search = (ev(x) for x in e.expressions)
    if doc is None or mode is None or search is None:
        return None
    tree = _json_arg(doc)
    if tree is _NOT_COMPUTED or not isinstance(search, str) or not isinstance(mode, str) or mode not in (
            "one", "all"):
        return UNKNOWN
    pattern = re.compile("".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in search), re.S)
    found: list[str] = []

    def walk(node: object, path: str) -> None:
        if isinstance(node, str) and pattern.fullmatch(node):
            found.append(path)
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{path}.{k}" if str(k).isidentifier() else f'{path}."{k}"')
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]")

    walk(tree, "$")
    if not found:
        return None
    return JsonText(json.dumps(found[0])) if len(found) == 1 else JsonText('"$"', partial=True)


def _substring_index(e: exp.Expression, ev: Eval) -> Value:
    """SUBSTRING_INDEX(s, delim, n): before the n-th delimiter from the left (n > 0), after the n-th from the
    right (n < 0); a delimiter with letters is matched as written, a bet (REPLACE's; the model holds text
    case-folded). freight_forwarding_app reads EDI segments with it."""
    s, delim, n = ev(e.this), ev(e.args["delimiter"]), ev(e.args["count"])
    if s is None or delim is None or n is None:
        return None
    node = e.args["delimiter"]
    # a literal delimiter as written: the model holds text without trailing spaces, and ' ' is one
    raw = str(node.this) if isinstance(node, exp.Literal) and node.is_string else None
    text, sep, count = _text(s), raw if raw else _text(delim), _count(n)
    if text is None or sep is None or count is None:
        return UNKNOWN
    if count == 0 or not sep:
        return ""
    parts = text.split(sep.casefold())
    got = sep.casefold().join(parts[:count] if count > 0 else parts[count:])
    return _like([s], got.rstrip(" "))


_STR_TO_DATE_FIELDS = {"%Y": "year", "%m": "month", "%-m": "month", "%d": "day", "%-d": "day", "%H": "hour",
                       "%-H": "hour", "%M": "minute", "%S": "second"}
"""The format's fields as sqlglot holds them (Python's codes: MySQL's %i is %M, %s is %S, %c is %-m, %e is %-d)."""


def _str_to_date(e: exp.Expression, ev: Eval) -> Value:
    """STR_TO_DATE(s, format) for a literal format of numeric fields (%Y %m %d %H %i %s ...): a DATE's text,
    or a DATETIME's when the format has a time of day; other formats are not followed."""
    fmt = e.args.get("format")
    v = ev(e.this)
    if v is None:
        return None
    text = _text(v)
    if text is None or not isinstance(fmt, exp.Literal) or not fmt.is_string:
        return UNKNOWN
    pattern, fields, raw, i = "", [], str(fmt.this), 0
    while i < len(raw):
        code = raw[i:i + 3] if raw[i:i + 2] == "%-" else raw[i:i + 2]
        if raw[i] == "%":
            if code not in _STR_TO_DATE_FIELDS:
                return UNKNOWN
            fields.append(_STR_TO_DATE_FIELDS[code])
            pattern += r"(\d{4})" if code == "%Y" else r"(\d{1,2})"
            i += len(code)
        else:
            pattern += re.escape(raw[i])
            i += 1
    m = re.fullmatch(pattern, text.strip())
    if m is None or not {"year", "month", "day"} <= set(fields):
        return UNKNOWN
    got = dict.fromkeys(("hour", "minute", "second"), 0) | {f: int(x) for f, x in zip(fields, m.groups(), strict=True)}
    try:
        at = datetime(got["year"], got["month"], got["day"], got["hour"], got["minute"], got["second"])
    except ValueError:
        return UNKNOWN
    timed = any(f in fields for f in ("hour", "minute", "second"))
    return at.strftime("%Y-%m-%d %H:%M:%S" if timed else "%Y-%m-%d")


def _elt(e: exp.Expression, ev: Eval) -> Value:
    """ELT(n, s1, s2, ...): the n-th string, NULL when there is none (blood_bank_app's component codes)."""
    n, items = e.this, e.expressions
    k = ev(n)
    if k is None:
        return None
    index = _count(k)
    if index is None:
        return UNKNOWN
    return ev(items[index - 1]) if 1 <= index <= len(items) else None


def _find_in_set(e: exp.Expression, ev: Eval) -> Value:
    """FIND_IN_SET(s, 'a,b,c'): the position of s in the list, 0 when not there; compared as the default
    (_ci) collations do, as the model holds text (clinical_trials_edc_app's ``WHERE FIND_IN_SET(query_id,
    @to_close)`` over a GROUP_CONCAT)."""
    if len(e.expressions) != 2:
        return UNKNOWN
    needle, haystack = (ev(x) for x in e.expressions)
    if needle is None or haystack is None:
        return None
    s, items = _text(needle), _text(haystack)
    if s is None or items is None or "," in s:
        return UNKNOWN  # (a string with a comma is never found: not followed)
    names = items.split(",") if items else []
    return names.index(s) + 1 if s in names else 0


def joined(values: Sequence[Value], separator: str) -> Value:
    """Known values joined as GROUP_CONCAT does (predictor/query.py), with their exact text when known."""
    texts = [_text(v) for v in values]
    if not all(t is not None for t in texts):
        return UNKNOWN
    exacts = [_exact_piece(v) for v in values]
    exact = separator.join(x for x in exacts if x is not None) if all(x is not None for x in exacts) else None
    return _like(list(values), separator.casefold().join(t for t in texts if t is not None).rstrip(" "), exact)


_NAMED: dict[str, Callable[[exp.Expression, Eval], Value]] = {"JSON_MERGE_PATCH": _json_merge_patch,
                                                              "JSON_LENGTH": _json_length, "ADDTIME": _addtime,
                                                              "QUOTE": _quote, "JSON_SEARCH": _json_search,
                                                              "FIND_IN_SET": _find_in_set}


_FUNCTIONS: dict[type[exp.Expression], Callable[[exp.Expression, Eval], Value]] = {
    exp.Rand: _rand, exp.Pow: _double_of, exp.Exp: _double_of, exp.Sqrt: _double_of, exp.Ln: _double_of,
    exp.Log: _double_of,
    exp.Concat: _concat, exp.ConcatWs: _concat_ws, exp.Replace: _replace, exp.Coalesce: _coalesce, exp.Trim: _trim,
    exp.Lower: _recase, exp.Upper: _recase, exp.Repeat: _repeat, exp.Pad: _pad, exp.Left: _left_right,
    exp.Right: _left_right, exp.Substring: _substring, exp.TimeToStr: _date_format, exp.Length: _length,
    exp.LastDay: _last_day, exp.Round: _round, exp.Ceil: _whole, exp.Floor: _whole, exp.Abs: _whole,
    exp.Greatest: _extreme, exp.Least: _extreme,
    exp.DateDiff: _datediff, exp.TimestampDiff: _timestampdiff, exp.Year: _date_part, exp.Month: _date_part,
    exp.Day: _date_part,
    exp.TsOrDsToDate: _to_date, exp.Cast: _cast, exp.Timestamp: _timestamp,
    exp.JSONExtract: _json_path, exp.JSONExtractScalar: _json_path,
    exp.JSONValue: _json_path, exp.Hex: _hex, exp.MD5: _digest, exp.SHA: _digest, exp.SHA2: _digest,
    exp.UnixToTime: _from_unixtime, exp.RegexpLike: _regexp, exp.JSONObject: _json_doc, exp.JSONSet: _json_set,
    exp.JSONRemove: _json_remove,
    exp.Elt: _elt, exp.SubstringIndex: _substring_index, exp.StrToDate: _str_to_date, exp.StrToTime: _str_to_date,
}
