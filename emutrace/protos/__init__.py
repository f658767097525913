"""Library-call prototypes for emutrace, in ltrace 0.7.3's ``ltrace.conf`` syntax.

API
---
    from emutrace.protos import load_prototypes, parse_conf, Prototype, ConfError
    db = load_prototypes(extra_files=["my.conf"])   # built-in *.conf, then -F files; later wins
    p = db.get("strlen")       # Prototype or None
    p.name, p.ret, p.params, p.variadic, p.split
    parse_conf(text, filename) -> dict[str, Prototype]   # raises ConfError("file:line: msg")

``load_prototypes`` reads the built-in files of this package in the order
``libc.conf``, ``libm.conf``, ``libstdcxx.conf`` (and then any other ``*.conf``
found here, alphabetically, except ``compat-ltrace.conf``), then each of
``extra_files``.  A prototype defined again later replaces the earlier one;
typedefs are shared by all files loaded into one database (a later file may
redefine a typedef name, a file may not redefine its own).
``load_prototypes(ltrace_compat=True)`` also loads ``compat-ltrace.conf`` (after
the built-ins, before ``extra_files``), which puts back ltrace 0.7.3's own
prototypes where ours decode more (``open``'s flags and optional mode).

The model is in types.py, the parser (and the file syntax) in parser.py, the database in
database.py; this module re-exports their public names.
"""
from __future__ import annotations

from emutrace.protos.database import PrototypeDB, builtin_conf_files, load_prototypes
from emutrace.protos.parser import ConfError, parse_conf
from emutrace.protos.types import (FLOATING, INTEGRAL, PRIM_SIZES, SIGNED, UNSIGNED, ArgRef, Array, Const, EltRef, Expr,
                                   FormatPack, Pointer, Prim, Prototype, Struct, Type, Zero, default_prototype)

__all__ = [
    "ConfError", "Prototype", "Type", "Prim", "Pointer", "Array", "Struct",
    "Expr", "Const", "ArgRef", "EltRef", "Zero", "FormatPack",
    "PrototypeDB", "parse_conf", "load_prototypes", "builtin_conf_files",
    "default_prototype", "PRIM_SIZES", "SIGNED", "UNSIGNED", "INTEGRAL", "FLOATING",
]
