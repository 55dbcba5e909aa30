"""The value the data model does not know: shared by the evaluator and the functions it computes."""

from __future__ import annotations


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
