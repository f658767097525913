"""Library calls logged by guest code, not by a Python callback per call.

A Python hook costs ~0.5 µs before it does anything and a few µs with register reads; a few
instructions in guest memory cost ~0.1 µs. So, once ld.so has bound the program (at its entry),
each traced PLT entry whose prototype guest code can capture whole (integer words; C strings,
wide strings and length-bounded buffers copied at the call; a returned C string and one
pointer-free output argument copied at the return) is patched with a `jmp` to its own
trampoline, and each traced -fno-plt GOT slot is pointed at one. A trampoline:

- appends a call record (site tag, the six argument registers, the return slot and return
  address, the bytes of each string argument) to the running thread's ring buffer;
- pushes (return slot, return address, what to copy at the return) on the thread's shadow
  stack in guest memory and puts the return trampoline's address in the return slot;
- jumps on to the function (through the GOT slot: lazy binding keeps working).

The return trampoline pops the shadow stack (entries whose slot lies below the stack pointer
belong to frames left by longjmp), appends a return record (slot, return address, rax, the
returned string's and the output argument's bytes) and jumps to the real return address,
borrowing registers through the control page (never the stack) so that the caller finds
registers and stack as a native return leaves them. Python reads the ring in bulk — at every system call, at the
end of every time slice, before every Python hook that reports something, and when it fills —
and turns the records into the same Call and Return events as the hooked path, in order.

A return address replaced on the stack is foreign to an unwinder, so the unwinder's entry
points (_Unwind_RaiseException, _Unwind_ForcedUnwind, _Unwind_Backtrace, _Unwind_Resume...)
carry a Python hook that first writes every replaced return address of the thread back and
hands those frames to the hooked path: C++ exceptions, thread cancellation and backtrace()
see the real stack. setjmp's family, which saves its return address and returns again at each
longjmp, returns through a stub of that return address instead (RETURNS_TWICE). Other functions
that read their own return address or return twice (dlsym, dlopen, vfork, getcontext...) are
never logged here: they keep the hooked path.
`--hook-returns` turns all of this off.

Per thread: a ring (RING_SIZE bytes) and a shadow stack, whose pointers live in a control page
the trampolines address absolutely; the scheduler swaps them when it switches threads. A
thread stopped in the middle of a trampoline is stepped out of it before anything else runs,
so records are never half-written when Python looks at them.

In Unicorn every guest load and store, every translated block (each conditional branch ends
one) and every indirect jump costs a helper call, so the trampolines check nothing they need
not: the ring and the shadow stack each end in a guard page (PROT_NONE, as large as the largest
record; shadow entries are 64 bytes, so none straddles a page's end), and a store that runs into
one faults. The session hands the fault to fault_fixup, which gives back the registers the
trampoline borrowed (kept in the control page), empties the ring or doubles the shadow stack,
and starts the trampoline over from its first instruction. For that to be clean every
trampoline writes the ring's pointer, the shadow stack's top and the return slot only after
its last store that can fault (the common call, _plain_trampoline, publishes its record before
its shadow entry: the fix-up takes the record back). The shadow stack's base holds a sentinel entry whose slot lies
above every stack address, so the return trampoline's search ends there (the return address
was lost) without a bounds check of its own.

The package, uftrace's shape: the record side writes the ring (assemble.py: the trampolines and
their copies; ring.py: rings, shadow stacks, flushes and the fault fix-up), the replay side reads
it back (replay.py: decode; render.py: the lines), over one record format (format.py) and the
sites' layouts (sites.py); log.py joins them in GuestLog, one per engine.
"""
from emutrace.guestlog.format import (CTRL_WORDS, FIXED, HEAD, IN_CSTR, IN_WSTR, LOG_TOP, OUT_MAX, OUTLEN_32,
                                      OUTLEN_WIDE, RET_CSTR, RET_OUTLEN, RET_PAIR, RET_SIZE, RET_TAG, RET_WSTR,
                                      RING_SIZE, SHADOW_ENTRY, SHADOW_SIZE, TRAMPOLINE_GAP, area_size)
from emutrace.guestlog.sites import (HOOKED_ONLY, RETURNS_TWICE, UNWINDERS, FastSite, Shape, _outlen_kind, capture_plan,
                                     output_of, shape_of, string_at_return)
from emutrace.guestlog.render import _leaf_renderer, _left_renderer
from emutrace.guestlog.assemble import free_near, patch_jmps
from emutrace.guestlog.ring import QUIET_SYSCALLS, QUIET_WRITES, ThreadLog
from emutrace.guestlog.replay import _Captured
from emutrace.guestlog.log import GuestLog

__all__ = ["CTRL_WORDS", "FIXED", "HEAD", "IN_CSTR", "IN_WSTR", "LOG_TOP", "OUT_MAX", "OUTLEN_32", "OUTLEN_WIDE",
           "RET_CSTR", "RET_OUTLEN", "RET_PAIR", "RET_SIZE", "RET_TAG", "RET_WSTR", "RING_SIZE", "SHADOW_ENTRY",
           "SHADOW_SIZE", "TRAMPOLINE_GAP", "area_size", "HOOKED_ONLY", "RETURNS_TWICE", "UNWINDERS", "FastSite",
           "Shape", "_outlen_kind", "capture_plan", "output_of", "shape_of", "string_at_return",
           "_leaf_renderer", "_left_renderer", "free_near", "patch_jmps", "QUIET_SYSCALLS", "QUIET_WRITES",
           "ThreadLog", "_Captured", "GuestLog"]
