"""Process controls (strace's prctl.c): prctl and arch_prctl."""
from __future__ import annotations

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import MASK64, hexval, is_error, pointer, read_u32, read_u64


def _c_arch_prctl(f, st, mem):
    code, addr = st.args[0] & 0xffffffff, st.args[1]
    a = st.a
    a.now(_x.format_enum("arch_prctl_code", code))
    if code in (0x1003, 0x1004):                  # ARCH_GET_FS / ARCH_GET_GS
        a.later(lambda ret, m: hexval(addr) if is_error(ret) else f.scalar_ptr(m, addr, "ptr_out"))
    elif code == 0x1022 or code == 0x1021 or code == 0x1024:     # ARCH_GET_XCOMP_*
        def xcomp(ret, m):
            v = None if is_error(ret) else read_u64(m, addr)
            if v is None:
                return hexval(addr)
            return f"[{hexval(v)} /* {_x.format_flags('xfeature_masks', v)} */]"
        a.later(xcomp)
    elif code in (0x1023, 0x1025):                # ARCH_REQ_XCOMP_*
        a.now(f"{hexval(addr)} /* {_x.format_enum('xfeatures', addr & 0xffffffff)} */")
    elif code == 0x1011:                          # ARCH_GET_CPUID
        pass
    else:
        a.now(hexval(addr))


def _c_prctl(f, st, mem):
    opt, a2, a3, a4, a5 = st.args[:5]
    opt &= 0xffffffff
    a = st.a
    a.now(_x.format_enum("prctl_options", opt))
    name = _x.lookup("prctl_options", opt)
    u = lambda v: str(v & 0xffffffffffffffff)
    if name is None:
        for v in (a2, a3, a4, a5):
            a.now(hexval(v))
        return
    if name in ("PR_GET_DUMPABLE",):
        st.aux = lambda ret, m: _x.lookup("pr_dumpable", ret)
    elif name == "PR_GET_SECUREBITS":
        st.ret_kind = "hex"
        st.aux = lambda ret, m: _x.format_flags("secbits", ret & 0xffffffff) if ret else None
    elif name in ("PR_SET_PDEATHSIG",):
        a.now(_x.signal_name(s32(a2)))
    elif name == "PR_GET_PDEATHSIG":
        def sig(ret, m):
            v = None if is_error(ret) else read_u32(m, a2)
            return pointer(a2) if v is None else f"[{_x.signal_name(s32(v))}]"
        a.later(sig)
    elif name == "PR_SET_NAME":
        a.now(f.cstr(mem, a2, 15))
    elif name == "PR_GET_NAME":
        def nm(ret, m):
            if is_error(ret):
                return pointer(a2)
            return f.cstr(m, a2, 15)
        a.later(nm)
    elif name == "PR_SET_DUMPABLE":
        a.now(_x.format_enum("pr_dumpable", a2 & 0xffffffff))
    elif name in ("PR_CAPBSET_READ", "PR_CAPBSET_DROP"):
        a.now(_x.format_enum("capabilities", a2 & 0xffffffff))
    elif name == "PR_SET_SECCOMP":
        mode = a2 & 0xffffffff
        a.now(_x.format_enum("seccomp_mode", mode))
        if mode == 2:
            a.now(hexval(a3))
    elif name == "PR_SET_SECUREBITS":
        a.now(_x.format_flags("secbits", a2 & 0xffffffff))
    elif name == "PR_SET_UNALIGN":
        a.now(_x.format_flags("pr_unalign_flags", a2 & 0xffffffff))
    elif name == "PR_SET_MM":
        a.now(_x.format_enum("pr_set_mm", a2 & 0xffffffff)); a.now(hexval(a3)); a.now(hexval(a4)); a.now(hexval(a5))
    elif name == "PR_SET_PTRACER":
        a.now("PR_SET_PTRACER_ANY" if a2 == MASK64 else str(s32(a2)))
    elif name == "PR_CAP_AMBIENT":
        a.now(_x.format_enum("pr_cap_ambient", a2 & 0xffffffff))
        a.now(_x.format_enum("capabilities", a3 & 0xffffffff) if a2 in (1, 2, 3) else u(a3))
        a.now(u(a4)); a.now(u(a5))
    elif name == "PR_GET_TID_ADDRESS":
        a.later(lambda ret, m: pointer(a2) if is_error(ret) else f.scalar_ptr(m, a2, "ptr_out"))
    elif name == "PR_SET_VMA":
        a.now(_x.format_enum("pr_set_vma", a2 & 0xffffffff)); a.now(hexval(a3)); a.now(u(a4))
        a.now(f.cstr(mem, a5, 80))
    elif name in ("PR_SET_CHILD_SUBREAPER", "PR_SET_KEEPCAPS", "PR_SET_TIMERSLACK",
                  "PR_SET_FPEMU", "PR_SET_FPEXC", "PR_SET_TIMING", "PR_SET_ENDIAN", "PR_SET_TSC",
                  "PR_SET_IO_FLUSHER", "PR_SET_FP_MODE"):
        a.now(u(a2))
    elif name in ("PR_GET_KEEPCAPS", "PR_GET_SECCOMP", "PR_GET_TIMERSLACK", "PR_GET_NO_NEW_PRIVS",
                  "PR_GET_THP_DISABLE", "PR_GET_TIMING", "PR_GET_IO_FLUSHER", "PR_GET_FP_MODE",
                  "PR_TASK_PERF_EVENTS_DISABLE", "PR_TASK_PERF_EVENTS_ENABLE", "PR_MCE_KILL_GET"):
        pass
    elif name in ("PR_GET_CHILD_SUBREAPER", "PR_GET_FPEMU", "PR_GET_FPEXC", "PR_GET_ENDIAN",
                  "PR_GET_TSC", "PR_GET_UNALIGN"):
        a.later(lambda ret, m: pointer(a2) if is_error(ret) else f.scalar_ptr(m, a2, "int_out"))
    else:
        for v in (a2, a3, a4, a5):
            a.now(u(v))


CALLS = {"prctl": _c_prctl, "arch_prctl": _c_arch_prctl}
