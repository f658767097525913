"""The guest log's record format: the control page, the call and return records, the shadow
stack's entries, where emutrace's pages go. What the trampolines write (assemble.py), the ring's
runtime reads (ring.py) and decode reads back (replay.py)."""
import struct

from emutrace.machine.abi import (HEAD, IN_CSTR, IN_WSTR, OUTLEN_32, OUTLEN_WIDE, RET_CSTR, RET_OUTLEN, RET_PAIR,
                                  RET_SIZE, RET_TAG, RET_WSTR, RPTR, SHTOP)

# control page: the running thread's pointers, then where the trampolines keep the registers
# they borrow (never the stack: what they left below the stack pointer would show up in the
# program's uninitialized variables)
REND, SHEND, SHBASE = 8, 24, 32      # (RPTR 0 and SHTOP 16: abi.py's, which C reads too)
CTRL_WORDS = 5
S_RAX, S_R10, S_RBX, S_RCX, S_RSI, S_RDI, S_JMP, S_RDX = 64, 72, 80, 88, 96, 104, 112, 120
S2_RCX, S2_RDX = 128, 136          # the return trampoline's copies keep rcx and rdx here
S_OUTP, S_OUTN = 144, 152          # ... and the output argument's address and size
S_INP, S_KIND = 160, 168           # ... and the string shown at the return's, and the return kind
S_STUB = 176                       # a returns-twice site's trampoline keeps its return stub here
# the call and return records (HEAD, RET_SIZE, RET_TAG) and the return record's "captured" word
# (RET_CSTR, RET_WSTR, RET_OUTLEN and its OUTLEN_* flags, RET_PAIR, IN_CSTR, IN_WSTR): abi.py's
SHADOW_ENTRY = 64                  # shadow stack entry: return slot, return address, return kind
                                   # | output size << 8, output argument's address, (unused),
                                   # string shown at the return's address, (unused x2): a power of
                                   # two, so that no entry straddles a page's end (the guard's)
OUT_MAX = 512                      # the largest output argument copied at the return
_KIND_MASK = 15                    # (the return kind without those flags)
_NO_FRAME = 1 << 64                # above every stack address: no frame open
RING_SIZE = 1 << 20                # (a full ring ends the time slice by a fault: a larger ring fills
                                   # less often; at 256 KiB freshcalls paid ~1,800 instructions per
                                   # 8 calls for it)
SHADOW_SIZE = 64 << 10             # 1023 open calls per thread; doubled when full
SHADOW_GUARD = 4096                # (past the shadow stack: a push there faults)
# Where emutrace's pages go: away from where the program's own mmaps land (top-down from below
# the stack), so the program sees the same addresses however it is traced. Rings and the
# control page lie far below everything; trampolines must be within a rel32 jump of their
# module, so they go 1 GiB below it.
LOG_TOP = 0x100000000000
TRAMPOLINE_GAP = 1 << 30


STUB_SIZE = 256                    # bytes of code per return stub (194 used)
STUBS_MAX = 2047                   # distinct return addresses of such calls (the table ends in 0)
FIXED = -1                         # a capture of a fixed number of bytes, not bounded by an argument
_Q = struct.Struct("<Q")
_HEADW = struct.Struct("<9Q")      # tag, rdi..r9, slot, return address
_RETW = struct.Struct("<5Q")


def area_size(cap: int) -> int:
    """Bytes a capture of `cap` bytes takes in a record: copied a qword at a time, the last store
    may reach 7 bytes past `cap`."""
    return (cap + 7 + 7) & ~7

