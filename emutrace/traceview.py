"""The memory view the trace decoders read a process through (library calls, functions, system
calls), one per process, kept here: the tracer's own, not an attribute on the kernel's Process.
"""
from __future__ import annotations

from bisect import bisect_right
from weakref import WeakKeyDictionary

from emutrace.machine.guestaccess import MemView
from emutrace.machine.native import native
from emutrace.linux.mman import PROT_READ

# process → its view; weak, so an ended process is freed with its view. A view is made again
# when the process's address space is replaced (execve).
_VIEWS: "WeakKeyDictionary[object, TraceMem]" = WeakKeyDictionary()


def mem_view(proc) -> "TraceMem":
    mv = _VIEWS.get(proc)
    if mv is None or mv.aspace is not proc.aspace:
        mv = _VIEWS[proc] = _VIEW(proc.aspace, proc.machine)
    return mv


class TraceMem(MemView):
    """The memory view of the call decoders: MemView with a C string read in one piece when it
    lies within one mapping (the common case); the same answers as MemView."""
    __slots__ = ("raw_read",)

    def __init__(self, aspace, machine=None):
        super().__init__(aspace)
        # the machine's unchecked small read when it is the engine behind this address space
        fast = machine is not None and aspace.raw_read == machine.read_fast
        self.raw_read = machine.read_small if fast else aspace.raw_read

    def read(self, addr: int, size: int):
        """MemView.read: bytes within one readable mapping read at once (AddressSpace.find and
        check written out), anything else through AddressSpace.peek."""
        a = self.aspace
        if 0 < size <= 4096:
            i = bisect_right(a._starts, addr) - 1
            if i >= 0:
                v = a.vmas[i]
                if v.start <= addr and addr + size <= v.end and v.prot & PROT_READ:
                    return self.raw_read(addr, size)
        return a.peek(addr, size)

    def cstring(self, addr: int, limit: int):
        if not addr:
            return None
        a = self.aspace
        want = limit + 1
        v = a.find(addr)
        if v is not None and v.prot & PROT_READ and addr + want <= v.end and want <= 4096:
            chunk = self.raw_read(addr, want)
            nul = chunk.find(b"\0")
            if nul >= 0:
                return chunk[:nul], True
            return chunk[:limit], False
        return a.cstring(addr, limit)


class CompiledTraceMem(TraceMem):
    """TraceMem with its read made by the compiled module (_strace.c's MappedReader): the same
    answers, without a Python frame per read (the compiled strace rows read through it)."""
    __slots__ = ("read",)

    def __init__(self, aspace, machine=None):
        super().__init__(aspace, machine)
        self.read = native.MappedReader(aspace, self.raw_read, PROT_READ).read


# the view mem_view makes: the compiled one when the compiled module has it (not EMUTRACE_PURE=1)
_VIEW = CompiledTraceMem if getattr(native, "MappedReader", None) is not None else TraceMem
