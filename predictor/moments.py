"""Clock values: what NOW(), CURDATE() and their INTERVAL arithmetic are, as far as a prediction can say.

A replay runs for minutes, so every clock reading of a workload lies in one short window: NOW() is a
``Moment`` somewhere in [0, HORIZON] seconds after the run began, CURDATE() up to a day earlier. Two
moments compare only when their ranges do not overlap: ``made < NOW() - INTERVAL 1 YEAR`` is surely false
for a row written by the same run, ``made < NOW()`` cannot be said (the same second).

A date literal (``'2023-08-31'``, ``'2024-01-15 10:00:00'``) is a moment too, placed by the day the
prediction is made: the run starts between two days before it (clocks and time zones) and a year after it
(a workload certified now and run later), so ``valid_to >= CURDATE()`` is false for a promotion that ended
in 2023 and ``'2031-01-01' > NOW()`` holds; a literal within a year of the prediction's day is decided
only against readings that far away. When the run's start is known (``RUN_AT``: ``rplay run`` predicts just
before it replays, ``rplay predict --at``), a literal is placed against it, give or take ``CLOCK_MARGIN``
(the server's time zone): ``expires_on > CURDATE()`` holds for a bundle that expires in ten days, and a date
literal compared with a date so many days from today goes by the calendar of the run's day (the second bet).

One bet is made where a yes/no is needed and no comparison can decide: whether writing a clock reading over
an equal-looking one (``ON DUPLICATE KEY UPDATE fetched = NOW()`` over a row inserted with NOW()) changes
the row. A replay runs a small workload within a second or two, so ``same_second`` says yes, it is the
same value, and row format logs nothing for it (seen on MariaDB 10.11 with ledger_app), unless the two
readings were taken so many statements apart (``SAME_SECOND_SPAN``: the profile's
``SAME_SECOND_STATEMENTS``) that a second has more likely than not gone by between them
(coworking_spaces_app's settings rewritten 161 statements after they were made: a second later on MySQL
9.7, the same second on MariaDB 10.11; parking_permits_app's handheld synced again 135 statements later:
the same second on both). A workload that sleeps between the two gets a row event the prediction did not
expect.

A second bet is made for dates: every CURDATE() of a replay is the same day (a run does not cross
midnight), so a reading's ``day`` (its exact offset from today, in days and months: ``CURDATE() + INTERVAL 1
DAY``, ``NOW() - INTERVAL 1 MONTH`` stored in a DATE column) decides equality and order between dates:
``stat_date = CURDATE()`` holds for a row written with CURDATE(), a unique key (device, CURDATE()) clashes
with itself, ``check_out > check_in`` holds for ``CURDATE() + INTERVAL 2 DAY`` over ``CURDATE()``
(hotel_app, fleet_app).

A third bet orders two readings taken by known statements (``stored``): a replayed statement takes less than
``STEP`` seconds (the harness replays a 400-statement workload in under two seconds), so a seat hold written
with ``NOW() + INTERVAL 15 MINUTE`` is still ``> NOW()`` for a CALL ten statements later
(event_ticketing_venue_app, sp_checkout). A workload that sleeps longer than that between the two is
mispredicted.
"""

from __future__ import annotations

import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

HORIZON = 6 * 3600.0  # seconds: a replay lasts less than this
STEP = 10.0  # seconds: a replayed statement takes less than this (the third bet in the module's text)
_DAY = 86400.0


Offset = tuple[int, int]  # (seconds, months) from the reading of the local clock


@dataclass(frozen=True, slots=True, eq=False)
class Moment:
    """A clock reading: somewhere in [lo, hi] seconds after the run began. ``now``: its exact offset from
    NOW() (local time); ``day``: its exact offset from CURDATE() (see the module): a date, or a time of
    day made from one (``CURDATE() + INTERVAL 15 HOUR``: two bookings of that slot are the same value)."""

    lo: float
    hi: float
    now: Offset | None = None
    day: Offset | None = None
    date: bool = False  # a DATE value (CURDATE(), a date + INTERVAL n DAY), else a DATETIME
    reading: int | None = None  # stored by the workload's statement number ``reading`` (see ``stored``)

    def shifted(self, lo: float, hi: float) -> Moment:
        return Moment(self.lo + lo, self.hi + hi, date=self.date)

    def as_date(self) -> Moment:
        """Stored in a DATE column: midnight of its day, up to a day earlier."""
        if self.day is not None:
            if self.date:
                return self
            seconds, months = self.day  # a time of day from today's midnight: the day's part stays
            return Moment(self.lo - _DAY, self.hi, day=(int(seconds - seconds % _DAY), months), date=True)
        whole = self.now is not None and self.now[0] % _DAY == 0
        return Moment(self.lo - _DAY, self.hi, day=self.now if whole else None, date=True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Moment):
            return NotImplemented
        if self.day is not None or other.day is not None:
            return self.day == other.day
        return (self.lo, self.hi, self.now) == (other.lo, other.hi, other.now)

    def __hash__(self) -> int:
        return hash(self.day) if self.day is not None else hash((self.lo, self.hi, self.now))


_NOW = Moment(0.0, HORIZON, now=(0, 0))
_TODAY = _NOW.as_date()
# the clock functions, by upper-case name; UTC is up to 14 hours either side of the server's time zone
CLOCK: dict[str, Moment] = {
    "NOW": _NOW, "CURRENT_TIMESTAMP": _NOW, "LOCALTIME": _NOW, "LOCALTIMESTAMP": _NOW, "SYSDATE": _NOW,
    "CURDATE": _TODAY, "CURRENT_DATE": _TODAY,
    "UTC_TIMESTAMP": _NOW.shifted(-14 * 3600, 14 * 3600), "UTC_DATE": _TODAY.shifted(-14 * 3600, 14 * 3600),
}

# INTERVAL units in seconds, (shortest, longest): months and years vary
UNITS: dict[str, tuple[float, float]] = {
    "SECOND": (1, 1), "MINUTE": (60, 60), "HOUR": (3600, 3600), "DAY": (_DAY, _DAY),
    "WEEK": (7 * _DAY, 7 * _DAY), "MONTH": (28 * _DAY, 31 * _DAY), "QUARTER": (89 * _DAY, 92 * _DAY),
    "YEAR": (365 * _DAY, 366 * _DAY),
}


_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}


def shift(m: Moment, count: int, unit: str) -> Moment | None:
    """``m + INTERVAL count unit`` (count may be negative); None for a unit we do not know."""
    name = unit.upper().removesuffix("S")
    span = UNITS.get(name)
    if span is None:
        return None
    a, b = count * span[0], count * span[1]
    out = m.shifted(min(a, b), max(a, b))
    months = count * _MONTHS.get(name, 0)
    seconds = 0 if months else int(count * span[0])
    now = (m.now[0] + seconds, m.now[1] + months) if m.now is not None else None
    day = (m.day[0] + seconds, m.day[1] + months) if m.day is not None else None
    return Moment(out.lo, out.hi, now=now, day=day, date=m.date and (months != 0 or seconds % _DAY == 0),
                  reading=m.reading)


def compare(a: Moment, b: Moment, op: str) -> bool | None:
    """``a op b`` for op in < <= > >= = <>, or None when the ranges leave it open."""
    told = _by_day(a.day, b.day, op) if a.day is not None and b.day is not None else None
    if told is None:
        told = _by_reading(a, b, op)
    if told is None:
        told = _now_and_day(a, b, op)
    if told is not None:
        return told
    if op in (">", ">="):
        a, b, op = b, a, "<" if op == ">" else "<="
    # two readings of the run's clock (NOW() + offsets) are less than HORIZON apart, never exactly: the
    # bounds of their ranges are open (``expires_at > NOW()`` six hours after ``NOW() + INTERVAL 6 HOUR``)
    readings = a.now is not None and b.now is not None
    if op == "<":
        return True if a.hi < b.lo or (readings and a.hi == b.lo) else False if a.lo >= b.hi else None
    if op == "<=":
        return True if a.hi <= b.lo else False if a.lo > b.hi or (readings and a.lo == b.hi) else None
    apart = a.hi < b.lo or b.hi < a.lo
    if op == "=":
        return False if apart else None
    return True if apart else None


def before(a: Moment, b: Moment) -> bool | None:
    """Whether reading ``a`` comes before ``b`` (False when they are the same value); None when not known.
    ORDER BY (query._Key) and GREATEST / LEAST (functions._extreme_reading) order readings with it."""
    if a == b or compare(b, a, "<"):
        return False
    return True if compare(a, b, "<") else None


def _by_reading(a: Moment, b: Moment, op: str) -> bool | None:
    """Two readings of the run's clock by the statements that took them: the later statement's NOW() is up
    to STEP seconds a statement later than the earlier one's (the third bet in the module's text)."""
    if a.now is None or b.now is None or a.reading is None or b.reading is None or a.now[1] or b.now[1]:
        return None
    drift = (a.reading - b.reading) * STEP  # NOW() at a's statement minus NOW() at b's: between 0 and this
    base = a.now[0] - b.now[0]
    lo, hi = base + min(0.0, drift), base + max(0.0, drift)  # a - b
    if op == "<":
        return True if hi < 0 else False if lo >= 0 else None
    if op == "<=":
        return True if hi <= 0 else False if lo > 0 else None
    if op == ">":
        return True if lo > 0 else False if hi <= 0 else None
    if op == ">=":
        return True if lo >= 0 else False if hi < 0 else None
    if lo > 0 or hi < 0:
        return op == "<>"
    return (op == "=") if lo == hi == 0 else None


def _now_and_day(a: Moment, b: Moment, op: str) -> bool | None:
    """A reading of NOW() and a date (or time of day) so many days from today: the run does not cross
    midnight, so NOW() is in [CURDATE(), CURDATE() + 1 DAY) and ``a - b`` is known to within a day (a fee
    posted NOW() is not before CURDATE(): dental_group_app's rollup of yesterday's ledger)."""
    if b.now is not None and a.day is not None:
        return _now_and_day(b, a, _FLIPPED[op]) if a.now is None and b.day is None else None
    if a.now is None or b.day is None or a.day is not None or b.now is not None or a.now[1] or b.day[1]:
        return None
    lo = a.now[0] - b.day[0]
    hi = lo + _DAY  # a - b is in [lo, hi)
    if op == "<":
        return True if hi <= 0 else False if lo >= 0 else None
    if op == "<=":
        return True if hi <= 0 else False if lo > 0 else None
    if op == ">":
        return True if lo > 0 else False if hi <= 0 else None
    if op == ">=":
        return True if lo >= 0 else False if hi <= 0 else None
    if lo > 0 or hi <= 0:
        return op == "<>"
    return None


_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>"}


def _by_day(a: Offset, b: Offset, op: str) -> bool | None:
    """Two dates by their offsets from today: equal or not always; ordered when the months agree."""
    if op in ("=", "<>"):
        return (a == b) == (op == "=")
    if a[1] != b[1]:
        return None
    x, y = a[0], b[0]
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}.get(op)


class _Reading(threading.local):
    """The number of the statement being predicted in this thread (predictor/engine.py sets ``seq`` for every
    statement: a plain attribute of a thread-local, several times cheaper than a ContextVar's set): stored
    moments carry it."""

    seq: int | None = None


READING = _Reading()


def stored(m: Moment) -> Moment:
    """``m`` as a row keeps it: stamped with the statement that read the clock. The clock does not go back,
    so of two rows holding NOW() at the same offset, the one written by the later statement holds the later
    (or the same) value: ``ORDER BY created_at, id`` orders such rows as ``id`` does when ids grew with the
    statements (predictor/data.py, ``_first_ordered``)."""
    n = READING.seq
    return m if n is None or m.reading is not None or m.now is None else replace(m, reading=n)


RUN_EARLIER = 2 * _DAY  # the run may start this long before the prediction's day (clocks, time zones)
RUN_LATER = 366 * _DAY  # ... or this long after it
CLOCK_MARGIN = _DAY  # a known start: the server's time zone may place a literal up to this far from ours
PREDICTED_AT: ContextVar[float | None] = ContextVar("PREDICTED_AT", default=None)
"""The wall-clock time the prediction places the run near (seconds since the epoch); None: now. Tests set it."""
RUN_AT: ContextVar[float | None] = ContextVar("RUN_AT", default=None)
"""When the run starts, if known (seconds since the epoch): literals are placed against it (see the module)."""
SAME_SECOND_SPAN: ContextVar[int | None] = ContextVar("SAME_SECOND_SPAN", default=None)
"""Readings taken this many statements apart or more are bet to be different seconds (None: never)."""


def _anchor() -> float:
    """The wall-clock time the run starts at, or near."""
    at = RUN_AT.get()
    if at is None:
        at = PREDICTED_AT.get()
    return time.time() if at is None else at

_FORMATS = {10: "%Y-%m-%d", 19: "%Y-%m-%d %H:%M:%S"}


def from_literal(text: str, against: Moment | None = None) -> Moment | None:
    """A date or datetime literal (fractional seconds too) as a moment relative to the run's start (see the
    module), else None. A date compared with a date so many days from today (``against``), when the run's
    day is known (RUN_AT), is a date so many days from today too: ``current_period_end <= '2026-11-22'``
    on the run's day holds for a period that ends ``CURDATE()``."""
    if against is not None and against.day is not None and len(text) == 10 and RUN_AT.get() is not None:
        try:
            return on_day(date.fromisoformat(text))
        except ValueError:
            return None
    form = _FORMATS.get(len(text))
    if form is None and 20 < len(text) <= 26 and text[19] == "." and text[20:].isdigit():
        form = "%Y-%m-%d %H:%M:%S.%f"
    if form is None or not text[:4].isdigit():
        return None
    try:
        at = datetime.strptime(text, form).timestamp()  # local time, as the server reads it
    except ValueError:
        return None
    later, earlier = (CLOCK_MARGIN, CLOCK_MARGIN) if RUN_AT.get() is not None else (RUN_LATER, RUN_EARLIER)
    offset = at - _anchor()
    return Moment(offset - later, offset + earlier, date=len(text) == 10)


def shift_literal(text: str, count: int, unit: str) -> str | None:
    """``'2024-05-14' + INTERVAL 1 MONTH``: a date or datetime literal shifted exactly, as the server does it
    (a string; months clamp to the month's last day; a date shifted by a unit under a day becomes a datetime),
    else None."""
    form = _FORMATS.get(len(text))
    name = unit.upper().removesuffix("S")
    if form is None or name not in UNITS or not text[:4].isdigit():
        return None
    try:
        at = datetime.strptime(text, form)
    except ValueError:
        return None
    months = count * _MONTHS.get(name, 0)
    if months:
        index = at.year * 12 + at.month - 1 + months
        year, month = divmod(index, 12)
        if not 1 <= year <= 9999:
            return None
        last = (date(year + (month + 1) // 12, (month + 1) % 12 + 1, 1) - timedelta(days=1)).day
        shifted = at.replace(year=year, month=month + 1, day=min(at.day, last))
    else:
        try:
            shifted = at + timedelta(seconds=count * UNITS[name][0])
        except OverflowError:
            return None
    whole_days = months != 0 or (count * UNITS[name][0]) % _DAY == 0
    if len(text) == 10 and whole_days:
        return shifted.strftime(_FORMATS[10])
    return shifted.strftime(_FORMATS[19])


def calendar_day(m: Moment) -> date | None:
    """The day a reading falls on, by the bets of the module (the run is on the prediction's day and does
    not cross midnight): known for a date a whole number of days / months from today, else None. Two
    readings of one day give the same text (``DATE_FORMAT(NOW(), '%y%m%d')`` in an invoice number)."""
    offset = m.day if m.day is not None else m.now
    if offset is None or offset[0] % _DAY:
        return None
    today = datetime.fromtimestamp(_anchor()).date()
    months = today.month - 1 + offset[1]
    year, month = today.year + months // 12, months % 12 + 1
    last = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    return date(year, month, min(today.day, last)) + timedelta(days=int(offset[0] // _DAY))


def on_day(day: date) -> Moment:
    """Calendar ``day`` as a date so many days from today (CURDATE() shifted), by the bets of the module: a
    date computed from a reading (``LAST_DAY(CURDATE()) + INTERVAL 1 DAY``) stays one, so it is ordered
    against other readings (``NOW() + INTERVAL 40 DAY``) as the run will see them."""
    today = datetime.fromtimestamp(_anchor()).date()
    shifted = shift(_TODAY, (day - today).days, "DAY")
    assert shifted is not None  # DAY is a known unit
    return shifted


def same_second(a: Moment, b: Moment) -> bool:
    """Whether two readings are most likely the same stored value (see the module docstring)."""
    if a != b:
        return False
    span = SAME_SECOND_SPAN.get()
    return span is None or a.reading is None or b.reading is None or abs(a.reading - b.reading) < span
