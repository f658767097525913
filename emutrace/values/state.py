"""One traced call's state (CallState), ltrace's defaults and its ") = " rule (close_call)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from emutrace.machine.abi import FORMAT_READ_LIMIT, result_at
from emutrace.protos import Prototype, Struct, Type


if TYPE_CHECKING:
    from emutrace.values.formatter import CallFormatter

DEFAULT_ALIGN = 50          # ltrace -a
LEAF_COLUMN = DEFAULT_ALIGN - 2     # close_call's column at the default -a: where a leaf line's
                                    # head (text + ")") is padded to (guestlog, printflog, C's Site)
DEFAULT_STRING_LIMIT = 32   # ltrace -s
DEFAULT_ARRAY_LIMIT = 4     # ltrace -A
_M64 = (1 << 64) - 1
_CHUNK = 256                    # bytes of a zero-ended array read at a time (a power of two)


def close_call(line: str, ret: str, align: int = DEFAULT_ALIGN) -> str:
    """``line`` is what is already on the output line (everything up to the
    last argument); returns it with ``") "``, padding to column ``align - 1``
    and ``"= " + ret``, as ltrace's output_right does."""
    return result_at(line + ")", ret, align - 2)


class _Val:
    __slots__ = ("type", "data", "addr")

    def __init__(self, t: Type, data: Optional[bytes], addr: Optional[int] = None):
        self.type = t
        self.data = data
        self.addr = addr


class CallState:
    """One call being traced.  ``text`` after enter; ``right``, ``args``,
    ``ret`` and ``finished`` after exit."""

    def __init__(self, name: str, display_name: str, proto: Prototype, known: bool):
        self.name = name
        self.display_name = display_name
        self.proto = proto
        self.known = known
        self.text = ""
        self.right = ""
        self.args: List[str] = []
        self.ret = ""
        self.finished = False
        self._vals: List[_Val] = []
        self._split = 0
        self._left_args: List[str] = []
        self._retval: Optional[_Val] = None

    @property
    def left_args(self) -> List[str]:
        """The arguments shown at entry (those in ``text``)."""
        return self._left_args

    # output helpers
    def line(self, align: int = DEFAULT_ALIGN, prefix: str = "") -> str:
        """The whole call on one line, as ltrace prints it."""
        return close_call(prefix + self.text + self.right, self.ret, align)

    def unfinished_line(self, prefix: str = "") -> str:
        return prefix + self.text + " <unfinished ...>"

    def resumed_line(self, align: int = DEFAULT_ALIGN, prefix: str = "") -> str:
        return close_call(prefix + "<... %s resumed> " % self.display_name + self.right, self.ret, align)

    def __repr__(self):
        return "CallState(%r, text=%r, right=%r, ret=%r)" % (self.name, self.text, self.right, self.ret)


class _Ctx:
    def __init__(self, f: "CallFormatter", mem, st: CallState):
        self.f = f
        self.mem = mem
        self.st = st
        self.structs: List[Tuple[Struct, bytes, Optional[int]]] = []
        self.ptrs: List[Tuple[Any, int]] = []
