"""Which workload statement's stored code could have written a unit whose text is no statement's own.

A CALL logs its body statements one by one (with NAME_CONST for locals), and a loop in the body logs the
same text again; the next statement that runs stored code must not take those units just because the CALL
already got that text once (event_ticketing_venue_app: a checkout's ticket INSERT, once per seat). A unit
``INSERT INTO tickets ...`` can only be a body statement of a routine that writes ``tickets`` with an
INSERT, itself or through the procedures and functions it calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from predictor.analyze import Kind, StatementInfo

Signature = tuple[Kind, str]  # (statement kind, table written)


class Bodies:
    """The (kind, table) signatures each workload routine may write, through the routines it calls."""

    def __init__(self, analyze: Callable[[str], StatementInfo], creates: Iterable[str]) -> None:
        self.analyze = analyze
        self.routines: dict[str, StatementInfo] = {}
        for sql in creates:
            info = analyze(sql)
            if info.kind is Kind.CREATE_ROUTINE and info.name:
                self.routines[_key(info.name)] = info
        self._writes: dict[str, frozenset[Signature]] = {}

    def writes(self, name: str, seen: frozenset[str] = frozenset()) -> frozenset[Signature]:
        key = _key(name)
        if key in self._writes:
            return self._writes[key]
        info = self.routines.get(key)
        if info is None or key in seen:
            return frozenset()
        out: set[Signature] = set()
        for x in info.body:
            out.update((x.kind, _key(w.table)) for w in x.writes)
            for called in ([x.name] if x.kind is Kind.CALL and x.name else []) + list(x.functions):
                out |= self.writes(called, seen | {key})
        self._writes[key] = frozenset(out)
        return self._writes[key]

    def may_have_written(self, sql: str, text: str) -> bool | None:
        """Whether the stored code statement ``sql`` runs may have written ``text``; None: cannot say (a text
        that writes no table). A statement that runs only triggers did not: their rows are annotated with
        the statement's own text."""
        unit = self.analyze(text)
        if not unit.writes:
            return None
        info = self.analyze(sql)
        names = [n for n in ([info.name] if info.kind is Kind.CALL and info.name else []) + list(info.functions)
                 if _key(n) in self.routines]
        want = {(unit.kind, _key(w.table)) for w in unit.writes}
        return any(want & self.writes(n) for n in names)


def _key(name: str) -> str:
    return name.split(".")[-1].strip("`").casefold()
