"""A small Itanium C++ ABI demangler in pure Python, for ``-C``.

    from emutrace.demangle import demangle
    demangle("_ZNSo3putEc")             # 'std::ostream::put(char)'
    demangle("_ZNSo3putEc", verbose=True)  # 'std::basic_ostream<char, std::char_traits<char> >::put(char)'
    demangle("strlen")                  # None (not a mangled name)

The output follows libiberty's ``cplus_demangle(name, DMGL_ANSI | DMGL_PARAMS)``,
which is what ltrace prints with ``-C`` (``verbose=True`` gives ``c++filt``'s
default form).  It handles nested and local names, ``St``/``Sa``/``Ss``/...
abbreviations, substitutions, templates and template parameters, function
parameter types, cv/ref qualifiers, pointers to functions, arrays and members,
operators, constructors/destructors, ABI tags, lambdas and unnamed types,
special names (vtable, typeinfo, thunks, guard variables), literals and
``[clone .xxx]`` suffixes.  Expressions in template arguments (``X...E``)
are handled for the simple cases only.  Whatever it cannot parse gives None,
and the caller keeps the mangled name.

The model (nodes.py: the parsed name's tree and the ABI's tables) is below the grammar
(parser.py), which is below this entry point.
"""

from __future__ import annotations

from typing import Optional

from emutrace.demangle.nodes import DemangleError
from emutrace.demangle.parser import _P

__all__ = ["demangle", "DemangleError"]


def _clone_suffix(rest: str) -> Optional[str]:
    """'.constprop.0.isra.0' -> ' [clone .constprop.0] [clone .isra.0]'"""
    out = ""
    i = 0
    n = len(rest)
    while i < n:
        if rest[i] != ".":
            return None
        j = i + 1
        if j < n and (rest[j].isalpha() or rest[j] == "_"):
            while j < n and (rest[j].isalnum() or rest[j] == "_"):
                j += 1
            while j + 1 < n and rest[j] == "." and rest[j + 1].isdigit():
                j += 1
                while j < n and rest[j].isdigit():
                    j += 1
        elif j < n and rest[j].isdigit():
            while j < n and rest[j].isdigit():
                j += 1
        else:
            return None
        out += " [clone %s]" % rest[i:j]
        i = j
    return out


def demangle(name: str, verbose: bool = False) -> Optional[str]:
    """The demangled form of an Itanium-mangled ``name``, or None."""
    if not name.startswith("_Z"):
        return None
    at = name.find("@")
    if at > 0:
        name = name[:at]
    p = _P(name, verbose)
    p.i = 2
    try:
        out = p.encoding()
        if p.i < len(name):
            suffix = _clone_suffix(name[p.i:])
            if suffix is None:
                return None
            out += suffix
        return out
    except (DemangleError, RecursionError, ValueError, IndexError):
        return None
