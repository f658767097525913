"""The subcommands, one module each: `emutrace NAME ARGS...` runs emutrace.cmds.NAME.main(ARGS)
and leaves with the status it returns.

A subcommand's module is imported only when it runs, so `emutrace diff` never loads the
emulator.
"""
from __future__ import annotations

import importlib
from typing import Callable, List

NAMES = ("diff", "sysroot", "report", "batch")


def load(name: str) -> Callable[[List[str]], int]:
    """The main() of subcommand `name` (one of NAMES)."""
    return importlib.import_module(f"{__name__}.{name}").main
