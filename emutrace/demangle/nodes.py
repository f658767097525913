"""The demangler's model: the parsed name as a tree of nodes (names, qualifiers, pointers,
functions, arrays, member pointers, packs), each printing itself as libiberty prints it, and the
ABI's fixed tables (builtin types, operators, std:: abbreviations).
"""
from __future__ import annotations

from typing import List, Optional


class DemangleError(Exception):
    pass


_BUILTIN = {
    "v": "void", "w": "wchar_t", "b": "bool", "c": "char", "a": "signed char",
    "h": "unsigned char", "s": "short", "t": "unsigned short", "i": "int",
    "j": "unsigned int", "l": "long", "m": "unsigned long", "x": "long long",
    "y": "unsigned long long", "n": "__int128", "o": "unsigned __int128",
    "f": "float", "d": "double", "e": "long double", "g": "__float128", "z": "...",
}
_BUILTIN_D = {
    "d": "decimal64", "e": "decimal128", "f": "decimal32", "h": "half",
    "i": "char32_t", "s": "char16_t", "u": "char8_t", "a": "auto",
    "c": "decltype(auto)", "n": "decltype(nullptr)",
}

_OPERATORS = {
    "nw": ("new", 3), "na": ("new[]", 3), "dl": ("delete", 1), "da": ("delete[]", 1),
    "ps": ("+", 1), "ng": ("-", 1), "ad": ("&", 1), "de": ("*", 1), "co": ("~", 1),
    "pl": ("+", 2), "mi": ("-", 2), "ml": ("*", 2), "dv": ("/", 2), "rm": ("%", 2),
    "an": ("&", 2), "or": ("|", 2), "eo": ("^", 2), "aS": ("=", 2), "pL": ("+=", 2),
    "mI": ("-=", 2), "mL": ("*=", 2), "dV": ("/=", 2), "rM": ("%=", 2), "aN": ("&=", 2),
    "oR": ("|=", 2), "eO": ("^=", 2), "ls": ("<<", 2), "rs": (">>", 2), "lS": ("<<=", 2),
    "rS": (">>=", 2), "eq": ("==", 2), "ne": ("!=", 2), "lt": ("<", 2), "gt": (">", 2),
    "le": ("<=", 2), "ge": (">=", 2), "ss": ("<=>", 2), "nt": ("!", 1), "aa": ("&&", 2),
    "oo": ("||", 2), "pp": ("++", 1), "mm": ("--", 1), "cm": (",", 2), "pm": ("->*", 2),
    "pt": ("->", 2), "cl": ("()", 2), "ix": ("[]", 2), "qu": ("?", 3), "st": ("sizeof ", 1),
    "sz": ("sizeof ", 1), "at": ("alignof ", 1), "az": ("alignof ", 1), "dt": (".", 2),
}

# St abbreviations: code -> (simple, full, last name for ctors/dtors)
_STD_SUBS = {
    "t": ("std", "std", None),
    "a": ("std::allocator", "std::allocator", "allocator"),
    "b": ("std::basic_string", "std::basic_string", "basic_string"),
    "s": ("std::string", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
          "basic_string"),
    "i": ("std::istream", "std::basic_istream<char, std::char_traits<char> >", "basic_istream"),
    "o": ("std::ostream", "std::basic_ostream<char, std::char_traits<char> >", "basic_ostream"),
    "d": ("std::iostream", "std::basic_iostream<char, std::char_traits<char> >", "basic_iostream"),
}


# ---------------------------------------------------------------------------
# type nodes

class Node:
    def decl(self, inner: str = "") -> str:
        raise NotImplementedError

    def __str__(self):
        return self.decl("")


class Name(Node):
    """A (possibly qualified, possibly templated) name or a builtin type."""

    def __init__(self, text: str, last: Optional[str] = None, is_template: bool = False,
                 targs: Optional[List[Node]] = None):
        self.text = text
        self.last = last if last is not None else text
        self.is_template = is_template
        self.targs = targs

    def decl(self, inner=""):
        if inner.startswith("("):
            return self.text + " " + inner
        return self.text + inner


class Qual(Node):
    def __init__(self, inner: Node, quals: str):
        self.inner = inner
        self.quals = quals  # " const", " volatile", " restrict" (joined)

    def decl(self, inner=""):
        if isinstance(self.inner, Func):
            return self.inner.decl(inner, extra=self.quals)
        return self.inner.decl(self.quals + inner)


class Ptr(Node):
    def __init__(self, inner: Node, sym: str):
        self.inner = inner
        self.sym = sym

    def decl(self, inner=""):
        return self.inner.decl(self.sym + inner)


class Func(Node):
    def __init__(self, ret: Optional[Node], params: List[Node], quals: str = "", ref: str = ""):
        self.ret = ret
        self.params = params
        self.quals = quals
        self.ref = ref

    def param_str(self) -> str:
        if len(self.params) == 1 and isinstance(self.params[0], Name) and self.params[0].text == "void":
            return "()"
        return "(" + ", ".join(str(p) for p in self.params) + ")"

    def decl(self, inner="", extra=""):
        tail = self.param_str() + self.quals + extra + self.ref
        if inner:
            d = "(" + inner.strip() + ")" + tail
            if self.ret is None:
                return d
            if _nests(self.ret):
                return self.ret.decl(d)
            return self.ret.decl("") + " " + d
        ret = self.ret.decl("") if self.ret is not None else ""
        return "%s %s" % (ret, tail) if ret else tail


def _nests(t: Node) -> bool:
    """Does a declarator applied to ``t`` end up inside a function or array
    declarator (pointer to function returning ...)?"""
    while isinstance(t, (Ptr, Qual)):
        if isinstance(t, Qual) and isinstance(t.inner, Func):
            return True
        t = t.inner
    return isinstance(t, (Func, ArrayT, MemPtr)) and not isinstance(t, Name)


class ArrayT(Node):
    def __init__(self, inner: Node, dim: str):
        self.inner = inner
        self.dim = dim

    def decl(self, inner=""):
        base = self.inner.decl("")
        if inner:
            return "%s (%s) [%s]" % (base, inner.strip(), self.dim)
        return "%s [%s]" % (base, self.dim)


class MemPtr(Node):
    def __init__(self, cls: Node, member: Node):
        self.cls = cls
        self.member = member

    def decl(self, inner=""):
        if isinstance(self.member, Func) or (isinstance(self.member, Qual) and isinstance(self.member.inner, Func)):
            return self.member.decl(str(self.cls) + "::*" + inner)
        return self.member.decl(" " + str(self.cls) + "::*" + inner)


class Pack(Node):
    def __init__(self, inner: Node):
        self.inner = inner

    def decl(self, inner=""):
        if isinstance(self.inner, ArgPack):
            return self.inner.decl(inner)
        return self.inner.decl(inner) + "..."


class ArgPack(Node):
    def __init__(self, items: List[Node]):
        self.items = items

    def decl(self, inner=""):
        return ", ".join(str(i) for i in self.items)


def _join_targs(args: List[Node], name: str = "") -> str:
    s = ", ".join(str(a) for a in args if not (isinstance(a, ArgPack) and not a.items))
    # libiberty adds a space between '>' '>'; after an empty trailing pack the
    # last character it saw was the removed ", ", so no space then
    empty_tail = len(args) > 1 and isinstance(args[-1], ArgPack) and not args[-1].items
    if s.endswith(">") and not empty_tail:
        s += " "
    pre = " " if name.endswith("<") else ""
    return pre + "<" + s + ">"
