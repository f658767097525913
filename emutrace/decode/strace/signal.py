"""Signals (strace's signal.c, sigaltstack.c, sigev_thread.c): handlers, stacks, siginfo,
sigevent, and the calls that return from or restart after a signal."""
from __future__ import annotations

import struct
from typing import Dict

from emutrace.kernel import errno as _errno
from emutrace.kernel import table as _table
from emutrace.kernel.layouts import SIGINFO
from emutrace.machine.words import s32, s64
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import MASK64, clock_ticks, hexval, pointer, read_u64
from emutrace.decode.strace.fields import StructText, decoders, flags


def _sa_handler(h: int) -> str:
    name = _x.lookup("sa_handler", h)
    return name if name else hexval(h)


# the kernel's struct sigaction (not glibc's), in strace's order; the restorer with SA_RESTORER
SIGACTION = StructText("sigaction", 32, [
    ("sa_handler", 0, "Q", _sa_handler), ("sa_mask", 24, "Q", _x.format_sigset),
    ("sa_flags", 8, "Q", flags("sa_flags", 0xffffffff)),
    ("sa_restorer", 16, "Q", pointer, lambda values: values["sa_flags"] & 0x04000000)])


STACK_T = StructText("stack_t", 24, [("ss_sp", 0, "Q", pointer),
                                     ("ss_flags", 8, "I", flags("sigaltstack_flags")), ("ss_size", 16, "Q")])


def _d_siginfo(f, b, mem):
    if not any(b[:4]):
        return "{}"                 # (strace's printsiginfo: no signal, nothing to show)
    return format_siginfo(siginfo_from_bytes(b))


SIGEVENT_SIZE = 32    # what strace reads: value, signo, notify and the union's two pointers


def _d_sigevent(f, b, mem):
    value, signo, notify, tid = struct.unpack_from("<Qiii", b)
    # as strace: the value only when not 0, the signal by name only when the event sends one
    text = f"{{sigev_value={{sival_int={s32(value)}, sival_ptr={pointer(value)}}}, " if value else "{"
    sig = _x.signal_name(signo) if notify in (0, 2, 4) else str(signo & 0xffffffff)   # SIGNAL, THREAD, THREAD_ID; else PRINT_FIELD_U
    text += f"sigev_signo={sig}, sigev_notify={_x.format_enum('sigev_notify', notify)}"
    if notify == 4:
        text += f", sigev_notify_thread_id={tid}"
    if notify == 2:                                      # SIGEV_THREAD: the union's function and attributes
        fn, attrs = struct.unpack_from("<QQ", b, 16)
        text += f", sigev_notify_function={pointer(fn)}, sigev_notify_attributes={pointer(attrs)}"
    return text + "}"


def siginfo_from_bytes(b: bytes) -> Dict[str, int]:
    """The fields of a 128-byte siginfo_t (union members overlap; see layouts.SIGINFO)."""
    d = SIGINFO.unpack(b)
    d["si_band"] = struct.unpack_from("<q", b, 16)[0]
    d["si_fd"] = struct.unpack_from("<i", b, 24)[0]
    d["si_syscall"] = struct.unpack_from("<i", b, 24)[0]
    d["si_arch"] = struct.unpack_from("<I", b, 28)[0]
    return d


_CODE_SETS = {11: "segv_codes", 7: "bus_codes", 4: "ill_codes", 8: "fpe_codes", 5: "trap_codes",
              17: "cld_codes", 29: "poll_codes", 31: "sys_codes"}


_FAULT_SIGNALS = frozenset({4, 5, 7, 8, 11})


def format_siginfo(si: Dict[str, int]) -> str:
    """{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} from a dict with the keys of
    layouts.SIGINFO (si_band, si_fd, si_arch, si_syscall, si_int, si_ptr accepted too)."""
    signo = si.get("si_signo", 0)
    code = s32(si.get("si_code", 0))
    err = si.get("si_errno", 0) & 0xffffffff        # (PRINT_FIELD_ERR_U: its name, or unsigned)
    parts = [f"si_signo={_x.signal_name(signo)}"]
    name = None
    if code <= 0 or code == 0x80:
        name = _x.lookup("siginfo_codes", code)
    elif signo in _CODE_SETS:
        name = _x.lookup(_CODE_SETS[signo], code)
    parts.append(f"si_code={name if name else hexval(code & 0xffffffff)}")
    if err:
        parts.append(f"si_errno={_errno.NAME.get(err, str(err))}")
    pid = si.get("si_pid", 0)
    uid = si.get("si_uid", 0) & 0xffffffff
    uid = "-1" if uid == 0xffffffff else uid          # (PRINT_FIELD_ID)
    value = si.get("si_value", si.get("si_ptr", 0)) & MASK64
    sival = f"si_int={si.get('si_int', s32(value))}, si_ptr={pointer(value)}"
    if code <= 0:
        if code == -2:            # SI_TIMER
            parts.append(f"si_timerid={hexval(si.get('si_timerid', 0) & 0xffffffff)}, "
                         f"si_overrun={si.get('si_overrun', 0)}, {sival}")
        elif code == -5:          # SI_SIGIO
            parts.append(f"si_band={si.get('si_band', s64(si.get('si_addr', 0)))}, "
                         f"si_fd={si.get('si_fd', si.get('si_status', 0))}")
        elif code in (-1, -3, -4):  # SI_QUEUE, SI_MESGQ, SI_ASYNCIO
            parts.append(f"si_pid={pid}, si_uid={uid}, {sival}")
        else:
            parts.append(f"si_pid={pid}, si_uid={uid}")
    elif signo in _FAULT_SIGNALS:
        parts.append(f"si_addr={pointer(si.get('si_addr', 0))}")
    elif code == 0x80:
        pass
    elif signo == 17:
        status = si.get("si_status", 0)
        st = str(status) if code == 1 else _x.signal_name(status)
        parts.append(f"si_pid={pid}, si_uid={uid}, si_status={st}, "
                     f"si_utime={clock_ticks(si.get('si_utime', 0))}, si_stime={clock_ticks(si.get('si_stime', 0))}")
    elif signo == 29:
        parts.append(f"si_band={si.get('si_band', s64(si.get('si_addr', 0)))}, "
                     f"si_fd={si.get('si_fd', si.get('si_status', 0))}")
    elif signo == 31:
        nr = si.get("si_syscall", si.get("si_status", 0))
        row = _table.BY_NR.get(nr)
        call = f"__NR_{row.name}" if row else str(nr)
        parts.append(f"si_call_addr={pointer(si.get('si_call_addr', si.get('si_addr', 0)))}, "
                     f"si_syscall={call}, si_arch={_x.format_enum('audit_arch', si.get('si_arch', 0xc000003e))}")
    else:
        parts.append(f"si_pid={pid}, si_uid={uid}")
    return "{" + ", ".join(parts) + "}"


def _c_rt_sigreturn(f, st, mem):
    sp = st.saved.get("sp")
    if sp:
        mask = read_u64(mem, sp + 296)
        if mask is not None:
            st.a.now(f"{{mask={_x.format_sigset(mask)}}}")
            return
        st.a.now(hexval(sp))


def _c_restart_syscall(f, st, mem):
    prev = f.last_name.get(st.tid)
    st.a.now(f"<... resuming interrupted {prev or 'system call'} ...>")


CALLS = {"rt_sigreturn": _c_rt_sigreturn, "restart_syscall": _c_restart_syscall}
STRUCTS = {"siginfo": (SIGINFO.size, _d_siginfo), "sigevent": (SIGEVENT_SIZE, _d_sigevent),
           **decoders(SIGACTION, STACK_T)}
