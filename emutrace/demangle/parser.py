"""The Itanium C++ ABI's mangling grammar, one method per production (_P): it reads a mangled
name into the node tree of nodes.py, with its substitutions and template arguments.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from emutrace.demangle.nodes import (_BUILTIN, _BUILTIN_D, _OPERATORS, _STD_SUBS, ArgPack, ArrayT, DemangleError, Func,
                                     MemPtr, Name, Node, Pack, Ptr, Qual, _join_targs)


class _P:
    def __init__(self, s: str, verbose: bool):
        self.s = s
        self.i = 0
        self.verbose = verbose
        self.subs: List[Node] = []
        self.tparams: Optional[List[Node]] = None
        self.depth = 0

    # low level
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def startswith(self, t: str) -> bool:
        return self.s.startswith(t, self.i)

    def take(self, t: str) -> bool:
        if self.s.startswith(t, self.i):
            self.i += len(t)
            return True
        return False

    def expect(self, t: str):
        if not self.take(t):
            raise DemangleError("expected %r at %d" % (t, self.i))

    def number(self) -> int:
        neg = self.take("n")
        j = self.i
        while self.i < len(self.s) and self.s[self.i].isdigit():
            self.i += 1
        if j == self.i:
            raise DemangleError("number expected")
        v = int(self.s[j:self.i])
        return -v if neg else v

    def seq_id(self) -> int:
        """base-36 <seq-id> followed by '_'; S_ is 0, S0_ is 1..."""
        if self.take("_"):
            return 0
        j = self.i
        while self.i < len(self.s) and (self.s[self.i].isdigit() or self.s[self.i].isupper()):
            self.i += 1
        if j == self.i:
            raise DemangleError("seq-id expected")
        v = int(self.s[j:self.i], 36)
        self.expect("_")
        return v + 1

    def add_sub(self, n: Node):
        self.subs.append(n)

    # <encoding>
    def encoding(self) -> str:
        c = self.peek()
        if c == "T" or (c == "G" and self.peek(1) in "VRTA"):
            return self.special_name()
        name, is_tmpl, quals, ref, tparams, kind = self.name_info()
        if self.i >= len(self.s) or self.peek() in "E.":
            return name
        saved = self.tparams
        if tparams is not None:
            self.tparams = tparams
        ret = None
        if is_tmpl and kind not in ("ctor", "dtor", "conv"):
            ret = self.type_()
        params = self.bare_function_type()
        f = Func(None, params, quals, ref)
        s = name + f.param_str() + quals + ref
        if ret is not None:
            r = ret.decl("")
            s = r + " " + s if not (isinstance(ret, Func) or isinstance(ret, (Ptr, Qual)) and "(" in r) \
                else self._ret_func(ret, name + f.param_str() + quals + ref)
        self.tparams = saved if tparams is None else self.tparams
        return s

    def _ret_func(self, ret: Node, inner: str) -> str:
        # a function returning a function pointer: ret(*name(params))(ret params)
        return ret.decl(inner)

    def bare_function_type(self) -> List[Node]:
        params = []
        while self.i < len(self.s) and self.peek() not in "E.":
            params.append(self.type_())
        if not params:
            raise DemangleError("no parameters")
        return params

    def special_name(self) -> str:
        if self.take("TV"):
            return "vtable for " + str(self.type_())
        if self.take("TT"):
            return "VTT for " + str(self.type_())
        if self.take("TI"):
            return "typeinfo for " + str(self.type_())
        if self.take("TS"):
            return "typeinfo name for " + str(self.type_())
        if self.take("TF"):
            return "typeinfo fn for " + str(self.type_())
        if self.take("TW"):
            return "TLS wrapper function for " + self.name_info()[0]
        if self.take("TH"):
            return "TLS init function for " + self.name_info()[0]
        if self.take("Th"):
            self.call_offset_body("h")
            return "non-virtual thunk to " + self.encoding()
        if self.take("Tv"):
            self.call_offset_body("v")
            return "virtual thunk to " + self.encoding()
        if self.take("Tc"):
            self.call_offset()
            self.call_offset()
            return "covariant return thunk to " + self.encoding()
        if self.take("TC"):
            t1 = self.type_()
            self.number()
            self.expect("_")
            t2 = self.type_()
            return "construction vtable for %s-in-%s" % (t2, t1)
        if self.take("GV"):
            return "guard variable for " + self.name_info()[0]
        if self.take("GR"):
            n = self.name_info()[0]
            k = 0
            if not self.take("_"):
                k = self.seq_id()
            return "reference temporary #%d for %s" % (k, n)
        if self.take("GTt"):
            return "transaction clone for " + self.encoding()
        if self.take("GTn"):
            return "non-transaction clone for " + self.encoding()
        if self.take("GA"):
            return "hidden alias for " + self.encoding()
        raise DemangleError("special name")

    def call_offset(self):
        c = self.peek()
        self.i += 1
        self.call_offset_body(c)

    def call_offset_body(self, c: str):
        if c == "h":
            self.number()
            self.expect("_")
        elif c == "v":
            self.number()
            self.expect("_")
            self.number()
            self.expect("_")
        else:
            raise DemangleError("call offset")

    # <name>: returns (text, is_template, cv quals, ref qual, template args, kind)
    def name_info(self):
        c = self.peek()
        if c == "N":
            return self.nested_name()
        if c == "Z":
            return self.local_name()
        if self.startswith("St"):
            self.i += 2
            text, kind, last = self.unqualified_name()
            node = Name("std::" + text, last)
            if self.peek() == "I":
                self.add_sub(node)
                args = self.template_args()
                return "std::" + text + _join_targs(args, text), True, "", "", args, kind
            return "std::" + text, False, "", "", None, kind
        if c == "S":
            sub, _ = self.substitution()
            if self.peek() == "I":
                args = self.template_args()
                return str(sub) + _join_targs(args), True, "", "", args, "name"
            return str(sub), False, "", "", None, "name"
        text, kind, last = self.unqualified_name()
        if self.peek() == "I":
            self.add_sub(Name(text, last))
            args = self.template_args()
            return text + _join_targs(args, text), True, "", "", args, kind
        return text, False, "", "", None, kind

    def cv_quals(self) -> str:
        q = ""
        while True:
            if self.take("r"):
                q = " restrict" + q if False else q + " restrict"
            elif self.take("V"):
                q += " volatile"
            elif self.take("K"):
                q += " const"
            else:
                break
        # libiberty prints them in the order const volatile restrict
        order = [" const", " volatile", " restrict"]
        return "".join(x for x in order if x in q)

    def nested_name(self):
        self.expect("N")
        quals = self.cv_quals()
        ref = ""
        if self.take("R"):
            ref = " &"
        elif self.take("O"):
            ref = " &&"
        parts: Optional[Node] = None
        text = ""
        last = ""
        is_tmpl = False
        targs = None
        kind = "name"
        while True:
            c = self.peek()
            if c == "E":
                self.i += 1
                break
            if c == "":
                raise DemangleError("unterminated nested name")
            if c == "I":
                if parts is None:
                    raise DemangleError("template args without a name")
                targs = self.template_args()
                text = text + _join_targs(targs, text)
                is_tmpl = True
                parts = Name(text, last)
                if self.peek() != "E":
                    self.add_sub(parts)
                continue
            is_tmpl = False
            if c == "S" and self.peek(1) != "t" or (c == "S" and parts is not None):
                sub, sub_last = self.substitution(prefix=True)
                text = str(sub)
                last = sub_last or (sub.last if isinstance(sub, Name) else text)
                parts = sub
                continue
            if self.startswith("St") and parts is None:
                self.i += 2
                n, kind, l2 = self.unqualified_name()
                text = "std::" + n
                last = l2
            elif c == "T":
                tp = self.template_param()
                text = str(tp)
                last = text
            elif c == "D" and self.peek(1) in "tT":
                t = self.decltype()
                text = str(t)
                last = text
            else:
                if c in "CD" and parts is not None and self.peek(1) in "0123456789I":
                    name, kind = self.ctor_dtor(last)
                else:
                    name, kind, l2 = self.unqualified_name(enclosing=last)
                    last = l2
                    if kind == "ctor":
                        pass
                text = (text + "::" + name) if parts is not None else name
                if kind in ("ctor", "dtor"):
                    pass
            parts = Name(text, last)
            if self.peek() != "E":
                self.add_sub(parts)
        return text, is_tmpl, quals, ref, targs, kind

    def ctor_dtor(self, last: str) -> Tuple[str, str]:
        base = last
        if "<" in base:
            base = base[:base.index("<")]
        if self.take("C"):
            self.take("I")
            if self.peek() in "12345":
                self.i += 1
                return base, "ctor"
            raise DemangleError("ctor")
        self.expect("D")
        if self.peek() in "0125":
            self.i += 1
            return "~" + base, "dtor"
        raise DemangleError("dtor")

    def local_name(self):
        self.expect("Z")
        saved_t = self.tparams
        enc = self.encoding()
        self.tparams = saved_t
        self.expect("E")
        if self.take("s"):
            self.discriminator()
            return enc + "::string literal", False, "", "", None, "name"
        if self.take("d"):
            if self.peek() != "_":
                self.number()
            self.expect("_")
        text, is_tmpl, quals, ref, targs, kind = self.name_info()
        self.discriminator()
        return enc + "::" + text, is_tmpl, quals, ref, targs, kind

    def discriminator(self):
        if self.peek() == "_":
            if self.peek(1) == "_":
                self.i += 2
                self.number()
                self.expect("_")
            elif self.peek(1).isdigit():
                self.i += 2

    def source_name(self) -> str:
        n = self.number()
        if n <= 0 or self.i + n > len(self.s):
            raise DemangleError("bad source name")
        t = self.s[self.i:self.i + n]
        self.i += n
        if t.startswith("_GLOBAL_") and len(t) > 9 and t[8] in "._$" and t[9] == "N":
            return "(anonymous namespace)"
        return t

    def abi_tags(self, text: str) -> str:
        while self.peek() == "B":
            self.i += 1
            text += "[abi:" + self.source_name() + "]"
        return text

    def unqualified_name(self, enclosing: str = "") -> Tuple[str, str, str]:
        """(text, kind, last-name-for-ctors)"""
        c = self.peek()
        if c.isdigit():
            n = self.source_name()
            return self.abi_tags(n), "name", n
        if c == "L":
            self.i += 1
            n = self.source_name()
            self.discriminator()
            return self.abi_tags(n), "name", n
        if c == "U":
            if self.take("Ut"):
                k = 1
                if self.peek() != "_":
                    k = self.number() + 2
                self.expect("_")
                t = "{unnamed type#%d}" % k
                return t, "name", t
            if self.take("Ul"):
                params = []
                while self.peek() != "E":
                    params.append(self.type_())
                self.expect("E")
                k = 1
                if self.peek() != "_":
                    k = self.number() + 2
                self.expect("_")
                ps = "" if (len(params) == 1 and str(params[0]) == "void") else ", ".join(str(p) for p in params)
                t = "{lambda(%s)#%d}" % (ps, k)
                return t, "name", t
            raise DemangleError("U name")
        if c in "CD" and self.peek(1) in "0123456789" and enclosing:
            n, kind = self.ctor_dtor(enclosing)
            return n, kind, enclosing
        if c == "D" and self.peek(1) == "C":
            self.i += 2
            names = []
            while self.peek() != "E":
                names.append(self.source_name())
            self.expect("E")
            t = "[" + ", ".join(names) + "]"
            return t, "name", t
        # operators
        two = self.s[self.i:self.i + 2]
        if two == "cv":
            self.i += 2
            t = self.type_()
            return "operator " + str(t), "conv", "operator"
        if two == "li":
            self.i += 2
            return "operator\"\" " + self.source_name(), "name", "operator"
        if len(two) == 2 and two[0] == "v" and two[1].isdigit():
            self.i += 2
            return "operator " + self.source_name(), "name", "operator"
        if two in _OPERATORS:
            self.i += 2
            op = _OPERATORS[two][0]
            name = "operator" + (" " if op[0].isalpha() else "") + op
            return self.abi_tags(name), "op", name
        raise DemangleError("unqualified name at %d" % self.i)

    def substitution(self, prefix: bool = False) -> Tuple[Node, Optional[str]]:
        self.expect("S")
        c = self.peek()
        if c in _STD_SUBS and c != "_" and not c.isdigit() and not c.isupper():
            self.i += 1
            simple, full, last = _STD_SUBS[c]
            use_full = self.verbose
            if prefix and self.peek() in "CD":
                use_full = True
            return Name(full if use_full else simple, last), last
        k = self.seq_id()
        if k >= len(self.subs):
            raise DemangleError("bad substitution")
        n = self.subs[k]
        return n, (n.last if isinstance(n, Name) else None)

    def template_param(self) -> Node:
        self.expect("T")
        k = 0 if self.take("_") else None
        if k is None:
            k = self.number() + 1
            self.expect("_")
        if self.tparams is None or k >= len(self.tparams):
            raise DemangleError("template parameter out of range")
        return self.tparams[k]

    def template_args(self) -> List[Node]:
        self.expect("I")
        args: List[Node] = []
        while not self.take("E"):
            if self.i >= len(self.s):
                raise DemangleError("unterminated template args")
            args.append(self.template_arg())
        return args

    def template_arg(self) -> Node:
        c = self.peek()
        if c == "L":
            return self.expr_primary()
        if c == "X":
            self.i += 1
            e = self.expression()
            self.expect("E")
            return Name(e)
        if c == "J":
            self.i += 1
            items = []
            while not self.take("E"):
                items.append(self.template_arg())
            return ArgPack(items)
        return self.type_()

    def expr_primary(self) -> Node:
        self.expect("L")
        if self.startswith("_Z"):
            self.i += 2
            e = self.encoding()
            self.expect("E")
            return Name(e)
        t = self.type_()
        ts = str(t)
        j = self.i
        while self.i < len(self.s) and self.s[self.i] != "E":
            self.i += 1
        lit = self.s[j:self.i]
        self.expect("E")
        neg = lit.startswith("n")
        if neg:
            lit = "-" + lit[1:]
        if ts == "bool":
            return Name("true" if lit == "1" else "false" if lit == "0" else "(bool)" + lit)
        suffix = {"int": "", "unsigned int": "u", "long": "l", "unsigned long": "ul",
                  "long long": "ll", "unsigned long long": "ull"}
        if ts in suffix:
            return Name(lit + suffix[ts])
        if ts == "decltype(nullptr)" and lit == "":
            return Name("nullptr")
        return Name("(%s)%s" % (ts, lit))

    def expression(self) -> str:
        c = self.peek()
        if c == "L":
            return str(self.expr_primary())
        if c == "T":
            return str(self.template_param())
        if self.take("sr"):
            t = self.type_()
            n, _, _ = self.unqualified_name()
            if self.peek() == "I":
                n += _join_targs(self.template_args())
            return str(t) + "::" + n
        if self.take("fp"):
            self.cv_quals()
            if self.peek() != "_":
                k = self.number() + 2
            else:
                k = 1
            self.expect("_")
            return "{parm#%d}" % k
        two = self.s[self.i:self.i + 2]
        if two in ("st", "at"):
            self.i += 2
            op = "sizeof" if two == "st" else "alignof"
            return "%s (%s)" % (op, self.type_())
        if two in ("sz", "az"):
            self.i += 2
            op = "sizeof" if two == "sz" else "alignof"
            return "%s (%s)" % (op, self.expression())
        if two in _OPERATORS:
            self.i += 2
            op, arity = _OPERATORS[two]
            if arity == 1:
                return "%s(%s)" % (op, self.expression())
            if arity == 2:
                a = self.expression()
                b = self.expression()
                return "(%s)%s(%s)" % (a, op, b)
        raise DemangleError("expression")

    def decltype(self) -> Node:
        self.expect("D")
        if not (self.take("t") or self.take("T")):
            raise DemangleError("decltype")
        e = self.expression()
        self.expect("E")
        return Name("decltype (%s)" % e)

    # <type>
    def type_(self) -> Node:
        self.depth += 1
        if self.depth > 200:
            raise DemangleError("too deep")
        try:
            return self._type()
        finally:
            self.depth -= 1

    def _type(self) -> Node:
        c = self.peek()
        if c in _BUILTIN:
            self.i += 1
            return Name(_BUILTIN[c])
        if c == "u":
            self.i += 1
            return Name(self.source_name())
        if c in "rVK":
            q = self.cv_quals()
            inner = self.type_()
            t = Qual(inner, q)
            self.add_sub(t)
            return t
        if c == "P":
            self.i += 1
            t = Ptr(self.type_(), "*")
            self.add_sub(t)
            return t
        if c == "R":
            self.i += 1
            t = Ptr(self.type_(), "&")
            self.add_sub(t)
            return t
        if c == "O":
            self.i += 1
            t = Ptr(self.type_(), "&&")
            self.add_sub(t)
            return t
        if c == "C":
            self.i += 1
            t = Name(str(self.type_()) + " _Complex")
            self.add_sub(t)
            return t
        if c == "G":
            self.i += 1
            t = Name(str(self.type_()) + " _Imaginary")
            self.add_sub(t)
            return t
        if c == "F":
            t = self.function_type()
            self.add_sub(t)
            return t
        if c == "A":
            self.i += 1
            if self.peek().isdigit():
                dim = str(self.number())
            elif self.peek() == "_":
                dim = ""
            else:
                dim = self.expression()
            self.expect("_")
            t = ArrayT(self.type_(), dim)
            self.add_sub(t)
            return t
        if c == "M":
            self.i += 1
            cls = self.type_()
            mem = self.type_()
            t = MemPtr(cls, mem)
            self.add_sub(t)
            return t
        if c == "T":
            t = self.template_param()
            self.add_sub(t)
            if self.peek() == "I":
                args = self.template_args()
                t = Name(str(t) + _join_targs(args))
                self.add_sub(t)
            return t
        if c == "D":
            c1 = self.peek(1)
            if c1 in _BUILTIN_D:
                self.i += 2
                return Name(_BUILTIN_D[c1])
            if c1 == "p":
                self.i += 2
                t = Pack(self.type_())
                self.add_sub(t)
                return t
            if c1 in "tT":
                t = self.decltype()
                self.add_sub(t)
                return t
            if c1 == "F":
                self.i += 2
                n = self.number()
                x = "x" if self.take("x") else ""
                self.expect("_")
                return Name("_Float%d%s" % (n, x))
            if c1 == "v":
                self.i += 2
                if self.peek() == "_":
                    self.i += 1
                    dim = self.expression()
                else:
                    dim = str(self.number())
                self.expect("_")
                t = Name("%s __vector(%s)" % (self.type_(), dim))
                self.add_sub(t)
                return t
            raise DemangleError("D type")
        if c == "S":
            if self.peek(1) == "t":
                name, is_tmpl, _, _, targs, _ = self.name_info()
                t = Name(name)
                self.add_sub(t)
                return t
            sub, last = self.substitution()
            if self.peek() == "I":
                args = self.template_args()
                t = Name(str(sub) + _join_targs(args), last)
                self.add_sub(t)
                return t
            return sub
        if c == "N" or c == "Z" or c.isdigit():
            saved = self.tparams
            name, is_tmpl, _, _, targs, _ = self.name_info()
            self.tparams = saved
            t = Name(name)
            self.add_sub(t)
            return t
        raise DemangleError("type at %d (%r)" % (self.i, c))

    def function_type(self) -> Node:
        self.expect("F")
        self.take("Y")
        ret = self.type_()
        params = []
        ref = ""
        while True:
            if self.take("E"):
                break
            if self.startswith("RE"):
                self.i += 2
                ref = " &"
                break
            if self.startswith("OE"):
                self.i += 2
                ref = " &&"
                break
            if self.i >= len(self.s):
                raise DemangleError("unterminated function type")
            params.append(self.type_())
        return Func(ret, params or [Name("void")], "", ref)
