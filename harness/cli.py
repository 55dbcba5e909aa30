"""The one CLI, ``rplay``. Each subcommand lives in ``harness/commands/<name>.py`` with ``register()``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from predictor.exceptions import RplayError, UsageError

COMMANDS: tuple[str, ...] = ("predict", "run", "compare", "check", "matrix", "demo", "images")
"""Subcommand modules under ``harness.commands``, in help order."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"rplay: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rplay", description="Predict, observe and compare MySQL/MariaDB binary logging.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"harness.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"harness.commands.{name}":
                continue  # not built yet
            raise
        mod.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        rc: int = args.func(args)
        return rc
    except UsageError as e:
        print(f"rplay: error: {e}", file=sys.stderr)
        return 2
    except RplayError as e:
        print(f"rplay: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rplay: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
