"""ltrace's filter expressions (`-e`), and glob/regex name patterns shared by -l, -x and --ftrace.

A chain is `[+-]symbol[@library]` rules joined by `+` and `-`: `malloc+free`, `-strlen`,
`*@libc.so*`, `/^str/@MAIN`. Patterns are globs, or regular expressions between slashes.
The library names the module whose calls are traced (the one making the call); `MAIN` is the
program. A chain that starts with `-` starts from "everything from MAIN"; otherwise from nothing.
With no -e at all, every call the program makes is traced (`*@MAIN`).
"""
from __future__ import annotations

import fnmatch
import re
from typing import List, Optional

from emutrace.record import record


class FilterError(ValueError):
    pass


def compile_pattern(text: str):
    """A predicate for one pattern: a glob, or /regex/."""
    if len(text) >= 2 and text.startswith("/") and text.endswith("/"):
        try:
            rx = re.compile(text[1:-1])
        except re.error as e:
            raise FilterError(f"bad regular expression {text}: {e}") from None
        return rx.search
    if not text:
        return lambda s: True
    return lambda s, pat=text: fnmatch.fnmatchcase(s, pat)


@record
class Rule:
    add: bool
    symbol: object
    library: object
    library_text: str


def _split_chain(expr: str) -> List[str]:
    """Split on + and - that start a rule, but not inside /regex/."""
    parts, cur, in_rx = [], "", False
    for ch in expr:
        if ch == "/":
            in_rx = not in_rx
        if ch in "+-" and not in_rx and cur:
            parts.append(cur)
            cur = ch
        else:
            cur += ch
    if cur:
        parts.append(cur)
    return parts


def parse_chain(expr: str) -> List[Rule]:
    if not expr:
        raise FilterError("empty filter expression")
    rules = []
    for part in _split_chain(expr):
        add = True
        if part[0] in "+-":
            add = part[0] == "+"
            part = part[1:]
        sym, at, lib = part.partition("@")
        lib_text = lib if at else "MAIN"
        rules.append(Rule(add, compile_pattern(sym or "*"), compile_pattern(lib_text), lib_text))
    return rules


class CallFilter:
    """Decides which (caller module, symbol) pairs are traced."""

    def __init__(self, exprs: List[str], libs: Optional[List[str]] = None):
        self.chains = [parse_chain(e) for e in exprs] or [parse_chain("*@MAIN")]
        self.definer = [compile_pattern(p if any(c in p for c in "*?[/") else f"*{p}*") for p in (libs or [])]

    @staticmethod
    def _libname(caller: str, is_main: bool) -> List[str]:
        return ["MAIN", caller] if is_main else [caller]

    def traces_module(self, name: str, is_main: bool) -> bool:
        """Whether calls made by this module are hooked at all."""
        names = self._libname(name, is_main)
        return any(r.add and any(r.library(n) for n in names) for ch in self.chains for r in ch)

    def matches(self, symbol: str, caller: str, is_main: bool, definer) -> bool:
        """definer None means not known yet: the -l test waits until it is."""
        if self.definer and definer is not None and not any(p(definer) for p in self.definer):
            return False
        names = self._libname(caller, is_main)
        for chain in self.chains:
            on = not chain[0].add and is_main     # a leading '-' starts from everything in MAIN
            for r in chain:
                if any(r.library(n) for n in names) and r.symbol(symbol):
                    on = r.add
            if on:
                return True
        return False
