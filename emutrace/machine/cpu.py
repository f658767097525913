"""The CPU: one Unicorn x86-64 engine, a fixed CPUID model, and cheap register access.

The stock binding's reg_read costs ~2 µs (it builds ctypes objects each call); hot paths here
call the C library directly with preallocated buffers instead.
"""
from __future__ import annotations

import ctypes
import os
import struct
import weakref

from unicorn import Uc, UcError, UC_ARCH_X86, UC_MODE_64, UC_HOOK_INSN
from unicorn import unicorn_const as UCC
from unicorn import x86_const as X
from unicorn.unicorn_py3.unicorn import uclib

from emutrace.machine import gil, interrupt
from emutrace.machine.layout import FXSAVE
from emutrace.machine.blockcount import PyBlockCounter
from emutrace.machine.native import native
from emutrace.machine import enginehooks
from emutrace.machine.workcount import PyInsnCounter, capstone_functions

# General-purpose registers in the order the syscall ABI and the signal frame use them
REG = {
    "rax": X.UC_X86_REG_RAX, "rbx": X.UC_X86_REG_RBX, "rcx": X.UC_X86_REG_RCX, "rdx": X.UC_X86_REG_RDX,
    "rsi": X.UC_X86_REG_RSI, "rdi": X.UC_X86_REG_RDI, "rbp": X.UC_X86_REG_RBP, "rsp": X.UC_X86_REG_RSP,
    "r8": X.UC_X86_REG_R8, "r9": X.UC_X86_REG_R9, "r10": X.UC_X86_REG_R10, "r11": X.UC_X86_REG_R11,
    "r12": X.UC_X86_REG_R12, "r13": X.UC_X86_REG_R13, "r14": X.UC_X86_REG_R14, "r15": X.UC_X86_REG_R15,
    "rip": X.UC_X86_REG_RIP, "eflags": X.UC_X86_REG_EFLAGS,
    "fs_base": X.UC_X86_REG_FS_BASE, "gs_base": X.UC_X86_REG_GS_BASE,
}
GPRS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
        "r12", "r13", "r14", "r15", "rip", "eflags", "fs_base", "gs_base")
SYSCALL_ARGS = ("rax", "rdi", "rsi", "rdx", "r10", "r8", "r9")
_REG_C = {name: ctypes.c_int(i) for name, i in REG.items()}      # prebuilt C arguments
CALL_ARGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9", "rsp")

# ---------------------------------------------------------------- CPUID
# One fixed model on every host: an Intel family-6 part with SSE up to SSE4.2 and POPCNT, no
# AVX/AVX-512/XSAVE/PCLMUL/RDRAND (instructions Unicorn lacks or gets wrong; glibc's IFUNCs
# then choose the SSE2/SSSE3/SSE4 string functions). Cache geometry comes from leaf 4 so
# glibc's memcpy thresholds are sane.
_EDX1 = sum(1 << b for b in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 19, 23, 24, 25, 26))
_ECX1 = sum(1 << b for b in (0, 9, 13, 19, 20, 23))      # SSE3 SSSE3 CX16 SSE4.1 SSE4.2 POPCNT
_BRAND = b"emutrace virtual x86-64 CPU".ljust(48, b"\0")


def _brand(i):
    chunk = _BRAND[16 * i:16 * i + 16]
    return struct.unpack("<4I", chunk)


def _cache(type_, level, ways, line, sets, sharing=0):
    eax = type_ | (level << 5) | (1 << 8) | (sharing << 14)
    ebx = ((ways - 1) << 22) | (line - 1)
    return eax, ebx, sets - 1, 0


CPUID_LEAVES = {
    (0, 0): (0xD, 0x756E6547, 0x6C65746E, 0x49656E69),            # "GenuineIntel", max leaf 0xD
    (1, 0): (0x000306A9, 0x00010800, _ECX1, _EDX1),
    (2, 0): (0x0000FF01, 0, 0, 0),                                 # "use leaf 4"
    (4, 0): _cache(1, 1, 8, 64, 64),                               # L1d 32 KiB
    (4, 1): _cache(2, 1, 8, 64, 64),                               # L1i 32 KiB
    (4, 2): _cache(3, 2, 4, 64, 1024),                             # L2 256 KiB
    (4, 3): _cache(3, 3, 16, 64, 8192),                            # L3 8 MiB
    (7, 0): (0, 1 << 9, 0, 0),                                     # ERMS only
    (0x80000000, 0): (0x80000008, 0, 0, 0),
    (0x80000001, 0): (0, 0, 1, (1 << 11) | (1 << 20) | (1 << 29)),  # LAHF; SYSCALL NX LM
    (0x80000002, 0): _brand(0), (0x80000003, 0): _brand(1), (0x80000004, 0): _brand(2),
    (0x80000006, 0): (0, 0, 0x01006040, 0),
    (0x80000008, 0): (0x00003027, 0, 0, 0),
}
CPU_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush "
             "mmx fxsr sse sse2 syscall nx lm pni ssse3 cx16 sse4_1 sse4_2 popcnt lahf_lm erms")


def cpuid(leaf: int, sub: int):
    if leaf in (4, 7, 0xD):
        return CPUID_LEAVES.get((leaf, sub), (0, 0, 0, 0))
    return CPUID_LEAVES.get((leaf, 0), (0, 0, 0, 0))


# The Unicorn library without the binding's ctypes prototypes: these function objects convert and
# check nothing (~0.4 µs a call saved), so every argument is passed as an exact ctypes value. They
# keep the GIL (PyDLL): the calls are short and releasing it costs more than they do.
_RAW = ctypes.PyDLL(uclib._name, handle=uclib._handle)
for _fn in ("uc_reg_read", "uc_reg_write", "uc_reg_read_batch", "uc_reg_write_batch", "uc_mem_write",
            "uc_mem_read"):
    getattr(_RAW, _fn).restype = ctypes.c_int
_SC_N, _CA_N = ctypes.c_int(len(SYSCALL_ARGS)), ctypes.c_int(len(CALL_ARGS))
_RAW.uc_emu_start.argtypes = (ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t)
_RAW.uc_emu_start.restype = ctypes.c_int


HOOK_ADD = enginehooks.HOOK_ADD      # (uc_hook_add through its fixed parameters only)


# What one engine costs the host, charged to --max-mem with the address space on it
# (memory.MemoryBudget). Unicorn reserves a 1 GiB translation buffer per engine and fills it
# with translated code as it goes, so a run of many engines could hold many GiB beyond the
# guest's own memory. emutrace sets it: 32 MiB for an engine that runs a program (python3's
# and a JVM's start-ups translate well under that; a full buffer is flushed and refilled, which
# costs time, never correctness), 8 MiB for a forked child's until it execs (most exec at
# once; one that does not runs its parent's code, retranslating it as it goes). Beyond the
# buffer an engine holds ~3 MiB (measured: ten idle engines grow a process by 30 MiB).
TCG_BUFFER = 32 << 20
FORK_TCG_BUFFER = 8 << 20
ENGINE_BASE_COST = 4 << 20
# For bench/ only (the counter's cost: bench/counter_workload.py): "1": the compiled counter is
# made but not hooked, so nothing counts (no clock, no slices, no --max-insns): never for a real
# run; "empty": a block hook that does nothing is registered instead of the counter's (Unicorn's
# own cost of a block hook, apart from the counter's).
_BENCH_COUNTER_HOOK = {"1": 0, "empty": 2}.get(os.environ.get("EMUTRACE_BENCH_NO_COUNTER", ""), 1)


# The x87/SSE registers of fp_state (XMM0-15, ST0-7, then the control registers) and of
# set_fp_state (FPCW, MXCSR, XMM0-15, ST0-7), each in a 16-byte slot of one buffer: one C call
# each way. Made once, on first use.
_FP_CTRL = 24
_FP_READ = ([X.UC_X86_REG_XMM0 + i for i in range(16)] + [X.UC_X86_REG_FP0 + i for i in range(8)]
            + [X.UC_X86_REG_FPCW, X.UC_X86_REG_FPSW, X.UC_X86_REG_FPTAG, X.UC_X86_REG_MXCSR])
_FP_WRITE = ([X.UC_X86_REG_FPCW, X.UC_X86_REG_MXCSR] + [X.UC_X86_REG_XMM0 + i for i in range(16)]
             + [X.UC_X86_REG_FP0 + i for i in range(8)])
_FP = []
_FRESH_FP: list = []        # (fp_state, FPSW, FPTAG) of a just-made engine (Machine.renew)


class _FpBatch:
    def __init__(self):
        self.n, self.wn = ctypes.c_int(len(_FP_READ)), ctypes.c_int(len(_FP_WRITE))
        self.ids = (ctypes.c_int * len(_FP_READ))(*_FP_READ)
        self.vals = ctypes.create_string_buffer(16 * len(_FP_READ))
        self.ptrs = (ctypes.c_void_p * len(_FP_READ))(*[ctypes.addressof(self.vals) + 16 * i
                                                        for i in range(len(_FP_READ))])
        self.wids = (ctypes.c_int * len(_FP_WRITE))(*_FP_WRITE)
        self.wvals = ctypes.create_string_buffer(16 * len(_FP_WRITE))
        self.wptrs = (ctypes.c_void_p * len(_FP_WRITE))(*[ctypes.addressof(self.wvals) + 16 * i
                                                          for i in range(len(_FP_WRITE))])


def _fp_batch() -> _FpBatch:
    if not _FP:
        _FP.append(_FpBatch())
    return _FP[0]


def _address(fn) -> int:
    """The address of a function of the loaded Unicorn library (for emutrace.machine._native)."""
    return ctypes.cast(fn, ctypes.c_void_p).value


class Machine:
    """A Unicorn engine with emutrace's CPU model and fast register access."""

    # emutrace's own code in this engine's guest memory ((lo, hi), ...: the guest log's
    # trampolines, see add_own_code). Non-empty, it also says that the guest-log phases
    # (machine/phases.py: guest_log_flush, thread_switch, guest_code_fault) concern this engine,
    # which the kernel and the scheduler test before firing them
    own_code: tuple = ()
    # set by the kernel's scheduler: the thread whose registers the engine holds (None: the
    # process's only thread, never switched)
    loaded = None
    # the compiled syscall hook, whose answer_with/remember/forget let the kernel have calls whose
    # answer it already gave answered in C (None: the pure path, or no hook yet)
    syscall_answers = None

    def __init__(self, tcg_buffer: int = TCG_BUFFER):
        # (on the instance too: Kernel.on_syscall reads it at every call, and CPython 3.11 looks
        # a class attribute up through an instance the slow, generic way)
        self.own_code: list = []
        self.uc = Uc(UC_ARCH_X86, UC_MODE_64)
        self.uc.ctl_set_tcg_buffer_size(tcg_buffer)        # (before anything starts the engine)
        self.host_cost = ENGINE_BASE_COST + tcg_buffer
        self._h = self.uc._uch
        self._hc = ctypes.c_void_p(self._h.value if isinstance(self._h, ctypes.c_void_p) else self._h)
        self._buf = ctypes.c_uint64(0)
        self._bufref = ctypes.byref(self._buf)
        # every hook of this engine, by handle, whoever adds it (reset_engine deletes them all)
        self.engine_hooks = enginehooks.of(self.uc)
        self._rbuf = ctypes.create_string_buffer(4096)
        self._own_hooks()
        # batch read of the syscall registers: one C call
        n = len(SYSCALL_ARGS)
        self._sc_ids = (ctypes.c_int * n)(*[REG[r] for r in SYSCALL_ARGS])
        # (values land in one byte buffer unpacked by one struct call: turning a ctypes array into
        # Python ints element by element costs more than the C call that filled it)
        self._sc_vals = ctypes.create_string_buffer(8 * n)
        self._sc_ptrs = (ctypes.c_void_p * n)(*[ctypes.addressof(self._sc_vals) + 8 * i for i in range(n)])
        self._sc_unpack = struct.Struct(f"<{n}Q").unpack_from
        n = len(CALL_ARGS)
        self._ca_ids = (ctypes.c_int * n)(*[REG[r] for r in CALL_ARGS])
        self._ca_vals = ctypes.create_string_buffer(8 * n)
        self._ca_ptrs = (ctypes.c_void_p * n)(*[ctypes.addressof(self._ca_vals) + 8 * i for i in range(n)])
        self._ca_unpack = struct.Struct(f"<{n}Q").unpack_from
        self.reset_fpu()
        # (made here, not on first use through __getattr__: a class with __getattr__ pays for it
        # at every attribute access, and the syscall path reads a machine's attributes often)
        self._hot()
        if native is not None:
            # raw guest memory without ctypes (~2-3 µs a call, most of a simple system call's
            # cost): the compiled module's functions replace read, read_fast and write
            gm = native.GuestMemory(_address(uclib.uc_mem_read), _address(uclib.uc_mem_write), self._hc.value,
                                    self.uc, UcError, UCC.UC_ERR_READ_UNMAPPED, UCC.UC_ERR_WRITE_UNMAPPED)
            self.read = self.read_fast = self.read_small = gm.read
            self.write = gm.write
        self.counter = self._insn_counter()
        if not _FRESH_FP:               # (what renew gives a reused engine back)
            _FRESH_FP.extend((self.fp_state(), self.uc.reg_read(X.UC_X86_REG_FPSW),
                              self.uc.reg_read(X.UC_X86_REG_FPTAG)))

    def _own_hooks(self) -> None:
        """The hooks every engine has from birth (the instruction counter's follow)."""
        self.engine_hooks.add_binding(UC_HOOK_INSN, self._on_cpuid, None, 1, 0, X.UC_X86_INS_CPUID)

    def reset_engine(self) -> None:
        """Give the engine back as Machine() made it, for another process: every hook of the old
        one deleted and every callback and compiled object it held let go (enginehooks.py), a
        fresh instruction counter, the CPU's TLB, no mapping (the host memory under them is the
        address space's), no own code, cleared registers and the FPU as Linux starts a process. Never
        from inside this engine's emu_start. Unicorn drops every translation of the engine
        with its code and block hooks (enginehooks.py), so nothing of the old process's code runs."""
        self.engine_hooks.reset()
        for begin, end, _perms in list(self.uc.mem_regions()):
            self.uc.mem_unmap(begin, end - begin + 1)     # (the host memory is the caller's)
        self.own_code = []
        self.loaded = None
        self.syscall_answers = None
        try:
            self.uc.ctl_set_tlb_mode(UCC.UC_TLB_CPU)
        except (UcError, AttributeError):
            pass                        # (a Unicorn without the virtual TLB never left this mode)
        self.uc.ctl_flush_tb()
        self._buf.value = 0
        for r in GPRS:                  # (not set_reg: the old counter must not settle on rip)
            _RAW.uc_reg_write(self._hc, _REG_C[r], self._bufref)
        self.reset_fpu()
        self._own_hooks()
        self.counter = self._insn_counter()

    def renew(self) -> "Machine":
        """reset_engine() for a reused engine (emutrace/machine/reuse.py), as a new Machine object
        (whatever a tracer keeps per Machine starts afresh; this one is left closed): the same,
        but the instruction counter's block hook (and its system-call sync) stays, with the
        counter started over (renew), and the mappings stay: deleting either would drop every
        translation, and keeping those is the point. (The caller flushes the CPU's TLB.)"""
        counter = self.counter
        keep = counter.keep if hasattr(counter, "keep") else (counter.handle,)
        self.engine_hooks.reset_but(keep, counter if hasattr(counter, "keep") else None)
        fresh = object.__new__(Machine)
        fresh.__dict__.update(self.__dict__)
        self.__dict__.clear()
        self.closed = True
        fresh.own_code = []
        fresh.loaded = None
        fresh.syscall_answers = None
        if hasattr(counter, "read") and not hasattr(counter, "keep"):
            counter.read = fresh.read
        counter.renew()
        fresh._buf.value = 0
        for r in GPRS:
            _RAW.uc_reg_write(fresh._hc, _REG_C[r], fresh._bufref)
        # the x87/SSE registers as a new engine has them (XMM, ST, status and tag words too:
        # the old process's values must not show through)
        image, sw, tag = _FRESH_FP
        fresh.set_fp_state(image)
        fresh.uc.reg_write(X.UC_X86_REG_FPSW, sw)
        fresh.uc.reg_write(X.UC_X86_REG_FPTAG, tag)
        fresh._own_hooks()
        return fresh

    def _insn_counter(self):
        """The engine's count of retired instructions (emutrace/machine/workcount.py), hooked
        before any code is translated: one block hook, the engine's only one on a default run, so
        that Unicorn calls it directly from translated code."""
        counter_type = getattr(native, "InsnCounter", None)     # (None: pure, or a build before it)
        found = capstone_functions() if counter_type is not None else None
        if found is not None:
            cs_open, cs_malloc, cs_iter, arch, mode, cs_close, cs_free = found
            # (cs_close, cs_free: the counter frees its capstone handle, ~90 KB, when it is
            # freed, which close() does with the engine: each fork and exec kept it otherwise)
            add = self.engine_hooks.hook_add_address
            counter = counter_type(add, _address(uclib.uc_emu_stop),
                                   _address(uclib.uc_mem_read), self._hc.value, UCC.UC_HOOK_BLOCK,
                                   cs_open, cs_malloc, cs_iter, arch, mode, cs_close, cs_free,
                                   _BENCH_COUNTER_HOOK)
            self.engine_hooks.attach(counter)       # the engine keeps a pointer to it
            # (before the kernel's syscall hook: the blocks of a batch are counted while their
            # code is still mapped as it ran)
            counter.sync_at_syscall(add, UCC.UC_HOOK_INSN, X.UC_X86_INS_SYSCALL)
            return counter
        h = self._h
        counter = PyInsnCounter(self.read, lambda: uclib.uc_emu_stop(h))
        counter.handle = self.hook_block(counter.on_block)
        return counter

    def close(self) -> None:
        """Free the engine now (uc_close: its translation buffer, its TLB, its hooks) and drop
        every object that hangs on it. Never from inside this engine's emu_start (a hook of its
        own): the kernel closes retired engines between slices (syscalls/engines.py).

        Not left to the collector: an engine sits in reference cycles (its hooks' callbacks hold
        the Machine) some of which pass through compiled objects that the collector cannot see
        through (the TLB fill), so without this every exited process kept its engine to the end
        of the run (~5.5 MB a fork or exec: docs/processes.md). Afterwards every attribute is
        gone, so a stray use raises AttributeError instead of touching freed memory."""
        uc = self.__dict__.get("uc")
        if uc is None:
            return
        unwatch = getattr(self.__dict__.get("counter"), "unwatch", None)
        if unwatch is not None:
            unwatch()                           # (the debugger's positions stop reading this engine)
        finalizer = getattr(uc, "_Uc__finalizer", None)     # the binding's one uc_close, once
        if finalizer is not None:
            finalizer()
        else:                                   # (a binding without it: close by hand)
            uclib.uc_close(uc._uch)
        uc._uch = None
        for table in ("_callbacks", "_mmio_callbacks"):
            getattr(uc, table, {}).clear()
        uc._hook_exception = None
        # (after uc_close, which calls no hook, and before anything can make an engine at the same
        # address: its records of hooks go, and the compiled objects it held)
        self.engine_hooks.forget()
        self.__dict__.clear()
        self.closed = True

    closed = False              # True once close() freed the engine

    def dispose(self) -> None:
        """Forget everything this engine holds, for a run thrown away inside the process (the
        debugger's replays, emutrace/gdb/listen.py): the compiled hook objects hold references
        Python's collector cannot see, so an engine in a cycle with them would live as long as
        the process. The Machine is unusable afterwards; the engine is freed with its last user."""
        hooks = self.__dict__.get("engine_hooks")
        if hooks is not None:
            hooks.forget()
        self.__dict__.clear()

    def emu_start(self, begin: int, until: int, timeout: int = 0, count: int = 0) -> None:
        """uc.emu_start (its arguments, its errors: UcError, or the exception a hook kept for
        it), holding the GIL while the guest runs where gil.keep_while_running said so."""
        uc = self.uc
        before = interrupt.enter(self._hc.value if interrupt.COMPILED else uc)   # (a signal stops this engine)
        try:
            if not gil.kept_while_running():
                uc.emu_start(begin, until, timeout, count)
                return
            uc._hook_exception = None
            status = _RAW.uc_emu_start(self._hc, begin, until, timeout, count)     # (PyDLL: GIL kept)
            if status != UCC.UC_ERR_OK:
                raise UcError(status)
            if uc._hook_exception is not None:
                raise uc._hook_exception
        finally:
            interrupt.leave(before)
            # the block last entered ran up to rip: the count is made exact before anything
            # moves rip (workcount.py)
            self.counter.settle(self.reg("rip"))

    # -- registers: C calls without the binding's argument conversions (see _RAW) ---------
    def reg(self, name: str) -> int:
        _RAW.uc_reg_read(self._hc, _REG_C[name], self._bufref)
        return self._buf.value

    def set_reg(self, name: str, value: int) -> None:
        if name == "rip":
            # a hook that moves rip ends the block it ran in there (Unicorn leaves the block);
            # after a stop this changes nothing (emu_start settled it)
            self.counter.settle(self.reg("rip"))
        self._buf.value = value & 0xFFFFFFFFFFFFFFFF
        _RAW.uc_reg_write(self._hc, _REG_C[name], self._bufref)

    def syscall_regs(self):
        """(rax, rdi, rsi, rdx, r10, r8, r9) in one C call."""
        _RAW.uc_reg_read_batch(self._hc, self._sc_ids, self._sc_ptrs, _SC_N)
        return self._sc_unpack(self._sc_vals)

    def call_regs(self):
        """(rdi, rsi, rdx, rcx, r8, r9, rsp) in one C call."""
        _RAW.uc_reg_read_batch(self._hc, self._ca_ids, self._ca_ptrs, _CA_N)
        return self._ca_unpack(self._ca_vals)

    def xmm(self, i: int) -> bytes:
        v = self.uc.reg_read(X.UC_X86_REG_XMM0 + i)
        return int(v).to_bytes(16, "little")

    def set_xmm(self, i: int, data: bytes) -> None:
        self.uc.reg_write(X.UC_X86_REG_XMM0 + i, int.from_bytes(data, "little"))

    def save_gprs(self) -> dict:
        return {r: self.reg(r) for r in GPRS}

    def load_gprs(self, regs: dict) -> None:
        for r, v in regs.items():
            self.set_reg(r, v)

    def reset_fpu(self) -> None:
        # as Linux starts a process: x87 control word 0x037F, MXCSR 0x1F80
        self.uc.reg_write(X.UC_X86_REG_FPCW, 0x037F)
        self.uc.reg_write(X.UC_X86_REG_MXCSR, 0x1F80)

    def fp_state(self) -> bytes:
        """FXSAVE-format image of the x87/SSE state (for signal frames and fork): one batch read
        (28 registers through the binding cost ~1 ms a fork and a signal, docs/processes.md)."""
        fp = _fp_batch()
        ctypes.memset(fp.vals, 0, len(fp.vals))        # (registers narrower than their 16-byte slot)
        _RAW.uc_reg_read_batch(self._hc, fp.ids, fp.ptrs, fp.n)
        raw = fp.vals.raw
        cwd, swd, ftw, mxcsr = (struct.unpack_from("<Q", raw, (_FP_CTRL + k) * 16)[0] for k in range(4))
        xmm = b"".join(raw[16 * i:16 * i + 16] for i in range(16))
        st = b"".join(struct.pack("<QH6x", *struct.unpack_from("<QH", raw, 16 * (16 + i))) for i in range(8))
        return FXSAVE.pack(cwd=cwd & 0xFFFF, swd=swd & 0xFFFF, ftw=ftw & 0xFFFF, mxcsr=mxcsr & 0xFFFFFFFF,
                           mxcsr_mask=0xFFFF, st_space=st, xmm_space=xmm)

    def set_fp_state(self, image: bytes) -> None:
        """The x87/SSE state of an FXSAVE image, in one batch write (in the order the single
        writes had: control word, MXCSR, XMM0-15, ST0-7)."""
        f = FXSAVE.unpack(image)
        fp = _fp_batch()
        vals = bytearray(len(fp.wvals))
        struct.pack_into("<QQ", vals, 0, f["cwd"], 0)
        struct.pack_into("<QQ", vals, 16, f["mxcsr"] & 0xFFFF, 0)
        vals[32:32 + 256] = f["xmm_space"][:256]
        for i in range(8):
            mant, exp = struct.unpack_from("<QH", f["st_space"], 16 * i)
            struct.pack_into("<QH6x", vals, 32 + 256 + 16 * i, mant, exp)
        ctypes.memmove(fp.wvals, bytes(vals), len(vals))
        _RAW.uc_reg_write_batch(self._hc, fp.wids, fp.wptrs, fp.wn)

    def hold(self, thread) -> None:
        """The scheduler loaded thread's registers into this engine (its `loaded`)."""
        self.loaded = thread

    # -- emutrace's own guest code ---------------------------------------------
    def add_own_code(self, lo: int, hi: int) -> None:
        """[lo, hi) holds guest code of emutrace's (a trampoline): never stopped inside, and not
        counted as the guest's work (tracing does not move the guest's clock: docs/time.md)."""
        self.own_code.append((lo, hi))
        self.counter.skip(lo, hi)

    def in_own_code(self, addr: int) -> bool:
        for lo, hi in self.own_code:
            if lo <= addr < hi:
                return True
        return False

    # -- hooks on exact addresses, without the binding's per-call wrappers ----
    _CODE_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_void_p)

    def hook_code(self, fn, begin: int, end: int):
        """fn(address) on each instruction in [begin, end]. Called straight from Unicorn's C code:
        the stock binding adds two Python frames and argument conversions per call, which is most
        of a hot hook's cost. An exception stops emulation and is raised by emu_start, as the
        binding's own hooks do."""
        guarded = self._guarded(fn)
        return self._add_hook(self._CODE_CB(lambda _h, address, _size, _user: guarded(address)),
                              UCC.UC_HOOK_CODE, begin, end)

    def hook_block(self, fn):
        """fn(address, size) at the start of each basic block executed (--coverage), straight
        from Unicorn's C code as hook_code; a native callback can take its place."""
        guarded = self._guarded(fn)
        return self._add_hook(self._CODE_CB(lambda _h, address, size, _user: guarded(address, size)),
                              UCC.UC_HOOK_BLOCK, 1, 0)

    def count_blocks(self, first):
        """A block counter for this engine (--coverage): first(address, size) at each block's
        first execution, drain() for the counts (emutrace/machine/blockcount.py). With the
        compiled event path it is a C block hook (BlockCounter: a hash table of addresses, no
        Python per executed block); otherwise a Python block hook (hook_block)."""
        counter_type = getattr(native, "BlockCounter", None)    # (None: pure, or a build before it)
        if counter_type is not None:
            counter = counter_type(self.engine_hooks.hook_add_address, _address(uclib.uc_emu_stop),
                                   self._hc.value, UCC.UC_HOOK_BLOCK, self._guarded_weakly(first))
            self.engine_hooks.attach(counter)   # the engine keeps a pointer to it
            return counter
        counter = PyBlockCounter(first)
        counter.handle = self.hook_block(counter.on_block)
        return counter

    _SYSCALL_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)

    def hook_syscall(self, fn):
        """fn(rax, rdi, rsi, rdx, r10, r8, r9) at each `syscall` instruction, the registers read
        in one C call (passed as arguments: no tuple per call); what fn returns (an int) is written into rax, None leaves rax as
        it is. With the compiled event path the hook is a C function that reads the registers,
        calls fn and writes rax (no Python frame of emutrace's between Unicorn and fn); otherwise
        a ctypes callback straight from Unicorn's C code (as hook_code) does the same in Python."""
        if native is not None:
            hook = native.SyscallHook(self.engine_hooks.hook_add_address, _address(uclib.uc_reg_read_batch),
                                      _address(uclib.uc_reg_write), _address(uclib.uc_emu_stop), self._hc.value,
                                      UCC.UC_HOOK_INSN, X.UC_X86_INS_SYSCALL, [REG[r] for r in SYSCALL_ARGS],
                                      fn, self._stop_with)
            self.engine_hooks.attach(hook)  # the engine keeps a pointer to it
            self.syscall_answers = hook
            return hook.handle
        guarded = self._guarded(fn)
        regs, set_reg = self.syscall_regs, self.set_reg

        def on_syscall(_h, _user):
            ret = guarded(*regs())
            if ret is not None:
                set_reg("rax", ret)
        return self._add_hook(self._SYSCALL_CB(on_syscall), UCC.UC_HOOK_INSN, 1, 0,
                              ctypes.c_int(X.UC_X86_INS_SYSCALL))

    _INSN_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

    def hook_insn_answer(self, insn: int, fn):
        """fn() answers each instruction `insn` (RDTSC, RDTSCP: it sets the result registers)
        in place of Unicorn, straight from Unicorn's C code (as hook_code)."""
        guarded = self._guarded(fn)

        def answer(_h, _user):
            guarded()
            return 1                    # the answer is fn's: Unicorn computes none
        return self._add_hook(self._INSN_CB(answer), UCC.UC_HOOK_INSN, 1, 0, ctypes.c_int(insn))

    def watch_positions(self, positions) -> None:
        """This engine counts toward the run's positions (workcount.new_positions: the debugger's,
        docs/time.md), from its next instruction: an instruction hook in C (compiled) or Python."""
        if hasattr(self.counter, "on_insn"):
            ref = weakref.ref(self)

            def rip():
                m = ref()
                try:
                    return None if m is None else m.reg("rip")
                except Exception:           # (the engine is closed)
                    return None
            self.counter.rip = rip
            self.counter.watch(positions)
            self.hook_code(self.counter.on_insn, 1, 0)
        else:
            # compiled: blocks counted as ever, single instructions hooked only where a stop falls
            # (_positions.h), which drops translations, adds and removes hooks (through the
            # engine's registry: enginehooks.py) and moves rip itself
            remove_cache = (UCC.UC_CTL_IO_WRITE << 30) | (2 << 26) | UCC.UC_CTL_TB_REMOVE_CACHE
            self.counter.watch(positions, self.engine_hooks.hook_add_address, UCC.UC_HOOK_CODE,
                               self.engine_hooks.hook_del_address, _address(uclib.uc_ctl),
                               _address(uclib.uc_reg_read), _address(uclib.uc_reg_write), REG["rip"], remove_cache)
            return
        self.uc.ctl_flush_tb()          # (code translated before the hook would not call it)

    def count_every_insn(self, positions, on: bool) -> bool:
        """The debugger's positions checked at every instruction of this engine (on: while it
        has watchpoints, whose stop falls after any store) or where a stop falls only (off).
        True when the caller must drop the translations (AddressSpace.drop_code)."""
        if not hasattr(positions, "fine_all"):
            return False
        positions.fine_all(self.counter, on)
        return True

    def answer_tsc_natively(self) -> bool:
        """RDTSC and RDTSCP answered in C by the instruction counter (tsc_base + total * rate,
        kept by the World: docs/time.md); False on the pure path (hook_insn_answer then)."""
        answer = getattr(self.counter, "answer_tsc", None)
        if answer is None:
            return False
        answer(self.engine_hooks.hook_add_address, _address(uclib.uc_reg_write), UCC.UC_HOOK_INSN,
               X.UC_X86_INS_RDTSC, X.UC_X86_INS_RDTSCP, REG["rax"], REG["rdx"], REG["rcx"])
        return True

    def _guarded(self, fn):
        """fn, with an exception stopping emulation and kept for emu_start to raise; returns what
        fn returns (None after an exception)."""
        stop_with = self._stop_with

        def guarded(*args):
            try:
                return fn(*args)
            except BaseException as e:
                stop_with(e)
        return guarded

    @property
    def _stop_with(self):
        """stop_with(e): a hook raised e, so emulation stops and emu_start raises e (the first
        one, if several). A closure over the engine, not a bound method: the hooks that hold it
        live as long as the Machine, which a reference back to it would keep alive in a cycle."""
        uc, h = self.uc, self._h

        def stop_with(e: BaseException) -> None:
            if uc._hook_exception is None:
                uc._hook_exception = e
            uclib.uc_emu_stop(h)
        return stop_with

    def _guarded_weakly(self, fn):
        """_guarded for a hook object that may outlive the engine (a block counter is drained
        after its process ended): it holds the engine weakly, so it does not keep it alive."""
        engine = weakref.ref(self.uc)

        def guarded(*args):
            try:
                fn(*args)
            except BaseException as e:
                uc = engine()
                if uc is not None:
                    if uc._hook_exception is None:
                        uc._hook_exception = e
                    uclib.uc_emu_stop(uc._uch)
        return guarded

    def _add_hook(self, cb, htype: int, begin: int, end: int, *extra) -> int:
        return self.engine_hooks.add(cb, htype, begin, end, *extra)

    def hook_add(self, htype: int, fn, user_data=None, begin: int = 1, end: int = 0, aux1: int = 0) -> int:
        """fn as the binding's hook_add calls it (uc, ..., user_data), filed with the engine's
        other hooks (enginehooks.py): what the layers above use in place of uc.hook_add."""
        return self.engine_hooks.add_binding(htype, fn, user_data, begin, end, aux1)

    def hook_del(self, handle: int) -> None:
        """Remove a hook of this engine, whoever added it."""
        self.engine_hooks.delete(handle)

    def read_fast(self, addr: int, size: int) -> bytes:
        """Raw guest memory (no permission check), through one preallocated buffer."""
        if size > len(self._rbuf):
            self._rbuf = ctypes.create_string_buffer(max(size, 2 * len(self._rbuf)))
        if _RAW.uc_mem_read(self._hc, ctypes.c_uint64(addr), self._rbuf, ctypes.c_size_t(size)) != UCC.UC_ERR_OK:
            raise UcError(UCC.UC_ERR_READ_UNMAPPED)
        return self._rbuf[:size]          # (not .raw[:size]: .raw copies the whole buffer first)

    # -- the library-call hot path: C calls without the binding's argument checks (_RAW) ----
    def _hot(self):
        batch, mem_read = _RAW.uc_reg_read_batch, _RAW.uc_mem_read
        h = self._hc
        ids, ptrs, vals, n, unpack = self._ca_ids, self._ca_ptrs, self._ca_vals, _CA_N, self._ca_unpack
        rr_ids = (ctypes.c_int * 2)(REG["rax"], REG["rsp"])
        rr_vals = ctypes.create_string_buffer(16)
        unpack2 = struct.Struct("<2Q").unpack_from
        rr_ptrs = (ctypes.c_void_p * 2)(ctypes.addressof(rr_vals), ctypes.addressof(rr_vals) + 8)
        two = ctypes.c_int(2)
        buf = ctypes.create_string_buffer(4096)
        u64, ok = ctypes.c_uint64, UCC.UC_ERR_OK
        unpack_u64 = struct.Struct("<Q").unpack_from

        def call_words():
            """[rdi, rsi, rdx, rcx, r8, r9, rsp] in one C call."""
            batch(h, ids, ptrs, n)
            return unpack(vals)

        def rax_rsp():
            """[rax, rsp] in one C call."""
            batch(h, rr_ids, rr_ptrs, two)
            return unpack2(rr_vals)

        def read_small(addr: int, size: int) -> bytes:
            """Raw guest memory, at most 4096 bytes (no permission check)."""
            if mem_read(h, u64(addr), buf, u64(size)) != ok:
                raise UcError(UCC.UC_ERR_READ_UNMAPPED)
            return buf[:size]

        def read_u64(addr: int) -> int:
            if mem_read(h, u64(addr), buf, u64(8)) != ok:
                raise UcError(UCC.UC_ERR_READ_UNMAPPED)
            return unpack_u64(buf)[0]

        self.call_words, self.rax_rsp, self.read_small, self.read_u64 = call_words, rax_rsp, read_small, read_u64

    # -- memory ------------------------------------------------------------
    def read(self, addr: int, size: int) -> bytes:
        return bytes(self.uc.mem_read(addr, size))

    def write(self, addr: int, data: bytes) -> None:
        data = bytes(data)
        if _RAW.uc_mem_write(self._hc, ctypes.c_uint64(addr), data, ctypes.c_size_t(len(data))) != UCC.UC_ERR_OK:
            raise UcError(UCC.UC_ERR_WRITE_UNMAPPED)

    # -- CPUID -------------------------------------------------------------
    def _on_cpuid(self, uc, _ud):
        leaf = self.reg("rax") & 0xFFFFFFFF
        sub = self.reg("rcx") & 0xFFFFFFFF
        a, b, c, d = cpuid(leaf, sub)
        self.set_reg("rax", a)
        self.set_reg("rbx", b)
        self.set_reg("rcx", c)
        self.set_reg("rdx", d)
        return 1        # skip the instruction: the answer is ours, never the host's


__all__ = ["Machine", "UcError", "UCC", "REG", "cpuid", "CPU_FLAGS"]
