"""strace's system call sets, as `-e trace=SET` and `-e inject=SET` read them (strace 6.1's
qualify_syscall): a comma-separated list whose items are

    NAME          a system call of the x86-64 table
    NUMBER        its number, in decimal (leading zeros allowed)
    %CLASS        a class (%file, %net = %network, %%stat, ...); the seven oldest classes are
                  also accepted without the % (file, desc, memory, process, signal, network, ipc)
    /REGEX        every name the extended regular expression matches anywhere (/ alone: all)
    all           every system call
    ?ITEM         ITEM, or nothing when it names nothing (instead of an error)

An item that names nothing is rejected with strace's words: "invalid system call 'ITEM'", or
"regcomp: REGEX: Invalid regular expression" for a regular expression that does not compile.
"""
from __future__ import annotations

import re
from typing import Dict, FrozenSet

from emutrace.kernel.table import BY_NAME, BY_NR, CLASSES

CLASS_ALIASES: Dict[str, str] = {"%net": "%network"}
# the classes strace still accepts without their % (its oldest ones)
BARE_CLASSES = frozenset({"file", "desc", "memory", "process", "signal", "network", "ipc"})
ALL: FrozenSet[str] = frozenset(BY_NAME)


class SyscallSetError(ValueError):
    """An item strace rejects; the message is strace's (without its "strace: ")."""


def _class(name: str) -> FrozenSet[str]:
    name = CLASS_ALIASES.get(name, name)
    if name not in CLASSES:
        return frozenset()
    return frozenset(n for n, row in BY_NAME.items() if name in row.classes)


def _regex(pattern: str) -> FrozenSet[str]:
    try:
        rx = re.compile(pattern)
    except re.error:
        raise SyscallSetError(f"regcomp: {pattern}: Invalid regular expression") from None
    return frozenset(n for n in BY_NAME if rx.search(n))


def _number(text: str) -> FrozenSet[str]:
    row = BY_NR.get(int(text))
    return frozenset({row.name}) if row is not None else frozenset()


def _resolve(item: str) -> FrozenSet[str]:
    if item == "all":
        return ALL
    if item.startswith("/"):
        return _regex(item[1:])
    if item.isdigit() and item.isascii():
        return _number(item)
    if item.startswith("%"):
        return _class(item)
    if item in BY_NAME:
        return frozenset({item})
    if item in BARE_CLASSES:
        return _class("%" + item)
    return frozenset()


def syscalls_of_item(item: str) -> FrozenSet[str]:
    """The system call names one item of a set names. Raises SyscallSetError."""
    optional = item.startswith("?")
    body = item[1:] if optional else item
    names = _resolve(body)
    if not names and not optional:
        raise SyscallSetError(f"invalid system call '{body}'")
    return names


def syscalls_of(text: str) -> FrozenSet[str]:
    """The names a whole set (without its leading !) names; `none` and the empty set: none."""
    if text == "none":
        return frozenset()
    out: set = set()
    for item in text.split(","):
        if item:                                # (strace's tokenizer skips empty items)
            out |= syscalls_of_item(item)
    return frozenset(out)
