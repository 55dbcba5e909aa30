"""Shared command-line option parsing (``--set`` / ``--server-opt`` VAR=VALUE lists)."""

from __future__ import annotations

import argparse

from predictor.exceptions import UsageError


def parse_vars(items: list[str] | None, flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{flag} expects VAR=VALUE, got {item!r}")
        out[name.strip().lower().replace("-", "_")] = value.strip()
    return out


def add_var_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", dest="set_vars", action="append", metavar="VAR=VALUE",
                   help="session variable applied to every session at its start (repeatable)")
    p.add_argument("--server-opt", dest="server_opts", action="append", metavar="VAR=VALUE",
                   help="server option (repeatable)")
