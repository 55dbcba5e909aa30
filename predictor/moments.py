"""Clock values: what NOW(), CURDATE() and their INTERVAL arithmetic are, as far as a prediction can say.

A replay runs for minutes, so every clock reading of a workload lies in one short window: NOW() is a
``Moment`` somewhere in [0, HORIZON] seconds after the run began, CURDATE() up to a day earlier. Two
moments compare only when their ranges do not overlap: ``made < NOW() - INTERVAL 1 YEAR`` is surely false
for a row written by the same run, ``made < NOW()`` cannot be said (the same second). Date literals are
not compared with moments: the prediction does not know the day of the run.

One bet is made where a yes/no is needed and no comparison can decide: whether writing a clock reading over
an equal-looking one (``ON DUPLICATE KEY UPDATE fetched = NOW()`` over a row inserted with NOW()) changes
the row. A replay runs a small workload within a second or two, so ``same_second`` says yes, it is the
same value, and row format logs nothing for it (seen on MariaDB 10.11 with ledger_app). A workload that
sleeps between the two gets a row event the prediction did not expect.
"""

from __future__ import annotations

from dataclasses import dataclass

HORIZON = 6 * 3600.0  # seconds: a replay lasts less than this
_DAY = 86400.0


@dataclass(frozen=True, slots=True)
class Moment:
    """A clock reading: somewhere in [lo, hi] seconds after the run began."""

    lo: float
    hi: float

    def shifted(self, lo: float, hi: float) -> Moment:
        return Moment(self.lo + lo, self.hi + hi)

    def as_date(self) -> Moment:
        """Stored in a DATE column: midnight of its day, up to a day earlier."""
        return Moment(self.lo - _DAY, self.hi)


_NOW = Moment(0.0, HORIZON)
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


def shift(m: Moment, count: int, unit: str) -> Moment | None:
    """``m + INTERVAL count unit`` (count may be negative); None for a unit we do not know."""
    span = UNITS.get(unit.upper().removesuffix("S"))
    if span is None:
        return None
    a, b = count * span[0], count * span[1]
    return m.shifted(min(a, b), max(a, b))


def compare(a: Moment, b: Moment, op: str) -> bool | None:
    """``a op b`` for op in < <= > >= = <>, or None when the ranges leave it open."""
    if op in (">", ">="):
        a, b, op = b, a, "<" if op == ">" else "<="
    if op == "<":
        return True if a.hi < b.lo else False if a.lo >= b.hi else None
    if op == "<=":
        return True if a.hi <= b.lo else False if a.lo > b.hi else None
    apart = a.hi < b.lo or b.hi < a.lo
    if op == "=":
        return False if apart else None
    return True if apart else None


def same_second(a: Moment, b: Moment) -> bool:
    """Whether two readings are most likely the same stored value (see the module docstring)."""
    return a == b
