"""Processes (strace's clone.c, exit.c, wait.c, execve.c, personality.c, ptrace.c,
kcmp.c): clone and clone3, wait statuses, argv and envp, ptrace requests."""
from __future__ import annotations

import struct

from emutrace.machine.words import s32, s64
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import (hexval, is_error, pointer, read_bytes, read_u32, read_u64, nonzero_tail,
                                           written_u32)


def personality_text(v: int) -> str:
    v &= 0xffffffff
    if v == 0xffffffff:
        return "0xffffffff"
    return _x.format_flags("personality", v)


def format_wait_status(s: int) -> str:
    """{WIFEXITED(s) && WEXITSTATUS(s) == 0}, as strace prints a wait status."""
    s &= 0xffffffff
    low = s & 0x7f
    if (s & 0xff) == 0x7f:                                   # stopped
        text = f"{{WIFSTOPPED(s) && WSTOPSIG(s) == {_x.signal_name((s >> 8) & 0xff)}}}"
        event = s >> 16
        if event:
            text += "|" + _x.format_enum("ptrace_events", event) + "<<16"
        return text
    if s == 0xffff:
        return "{WIFCONTINUED(s)}"
    if low == 0:                                             # exited
        text = f"{{WIFEXITED(s) && WEXITSTATUS(s) == {(s >> 8) & 0xff}}}"
        rest = s & ~0xffff
    else:                                                    # killed
        text = f"{{WIFSIGNALED(s) && WTERMSIG(s) == {_x.signal_name(low)}"
        text += " && WCOREDUMP(s)}" if s & 0x80 else "}"
        rest = s & ~0xffff
    if rest:
        text += f" | {hexval(rest)}"
    return text


def wstatus(f, mem, addr, ret):
    text, v = written_u32(mem, addr, addr, is_error(ret) or ret == 0)
    return text if text is not None else f"[{format_wait_status(v)}]"


def _pointer_array(mem, addr: int, most: int):
    """The pointers of a NULL-terminated array (argv, envp), at most `most` of them, and how it
    ends: "null" (the terminator), "more" (more than `most`) or "unreadable"."""
    pointers = []
    for k in range(most + 1):
        p = read_u64(mem, addr + 8 * k)
        if p is None:
            return pointers, "unreadable"
        if p == 0:
            return pointers, "null"
        if k == most:
            break
        pointers.append(p)
    return pointers, "more"


def argv(f, mem, addr: int) -> str:
    """strace's printargv: the strings, at most the string limit of them unless -v; an array
    that stops being readable ends with '... /* the address */'."""
    if addr == 0:
        return "NULL"
    most = (1 << 16) + 1 if f.verbose else f.string_limit
    pointers, end = _pointer_array(mem, addr, most)
    if end == "unreadable" and not pointers:
        return hexval(addr)
    items = [f.cstr(mem, p) for p in pointers]
    if end == "unreadable":
        items.append(f"... /* {hexval(addr + 8 * len(pointers))} */")
    return "[" + ", ".join(items) + (", ...]" if end == "more" else "]")


def envp(f, mem, addr: int) -> str:
    """strace's printargc: the address and how many variables (-v: every one, as argv)."""
    if addr == 0:
        return "NULL"
    if f.verbose:
        return argv(f, mem, addr)
    pointers, end = _pointer_array(mem, addr, (1 << 16) + 1)
    if end == "unreadable" and not pointers:
        return hexval(addr)
    n = len(pointers)
    tail = ", unterminated" if end == "unreadable" else ""
    return f"{hexval(addr)} /* {n} var{'s' if n != 1 else ''}{tail} */"


def _clone_flags_text(flags: int) -> str:
    sig = flags & 0xff
    rest = flags & ~0xff
    parts = []
    if rest:
        parts.append(_x.format_flags("clone_flags", rest))
    if sig:
        name = _x.signal_name(sig)
        parts.append(name)
    return "|".join(parts) if parts else "0"


def _c_clone(f, st, mem):
    flags, stack, ptid, ctid, tls = st.args[:5]
    a = st.a
    a.now(f"child_stack={pointer(stack)}")
    a.now(f"flags={_clone_flags_text(flags)}")

    def rest(ret, m):
        out = ""
        if flags & (0x100000 | 0x1000):          # CLONE_PARENT_SETTID | CLONE_PIDFD
            v = None if is_error(ret) else read_u32(m, ptid)
            out += f", parent_tid={pointer(ptid) if v is None else f'[{s32(v)}]'}"
        if flags & 0x80000:                       # CLONE_SETTLS
            out += f", tls={pointer(tls)}"
        if flags & (0x1000000 | 0x200000):       # CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID
            out += f", child_tidptr={pointer(ctid)}"
        return out
    a.tail(rest)


def _clone3_text(f, b, mem, size, addr=None):
    (flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls) = \
        struct.unpack_from("<8Q", b)
    parts = [f"flags={_x.format_flags('clone3_flags', flags)}"]
    if flags & 0x1000:
        parts.append(f"pidfd={pointer(pidfd)}")
    if flags & (0x1000000 | 0x200000):
        parts.append(f"child_tid={pointer(child_tid)}")
    if flags & 0x100000:
        parts.append(f"parent_tid={pointer(parent_tid)}")
    if exit_signal == 0 or exit_signal >= 0x7fffffff:
        parts.append(f"exit_signal={exit_signal}")
    else:                                       # (a constant of the signals under -X)
        style, name = _x.STYLE.xlat, _x.signal_name(exit_signal)
        parts.append(f"exit_signal={name if style == 'abbrev' or not name.startswith('SIG') else exit_signal if style == 'raw' else f'{exit_signal} /* {name} */'}")
    parts.append(f"stack={pointer(stack)}")
    parts.append(f"stack_size={hexval(stack_size)}")
    if flags & 0x80000:
        parts.append(f"tls={pointer(tls)}")
    if size >= 80 and len(b) >= 80:
        set_tid, set_tid_size = struct.unpack_from("<QQ", b, 64)
        if set_tid or set_tid_size:
            n = min(set_tid_size, 32)
            data = read_bytes(mem, set_tid, 4 * n) if set_tid and n else None
            if data is not None:
                tids = "[" + ", ".join(str(x) for x in struct.unpack("<%di" % n, data)) + "]"
            else:
                tids = pointer(set_tid)
            parts.append(f"set_tid={tids}")
            parts.append(f"set_tid_size={set_tid_size}")
    if size >= 88 and len(b) >= 88:
        cgroup = struct.unpack_from("<Q", b, 80)[0]
        if cgroup or flags & 0x200000000:
            parts.append(f"cgroup={cgroup}")
    if addr is not None:
        tail = _clone3_tail(f, mem, addr, size)
        if tail:
            parts.append(tail)
    return "{" + ", ".join(parts) + "}"


_CLONE_ARGS_SIZE = 88           # sizeof(struct clone_args) strace knows (to cgroup)


def _clone3_tail(f, mem, addr: int, size: int) -> str:
    """The bytes of a bigger clone_args than strace knows (common.nonzero_tail)."""
    return nonzero_tail(f, mem, addr, _CLONE_ARGS_SIZE, size)


def _c_clone3(f, st, mem):
    addr, size = st.args[0], st.args[1]
    a = st.a
    if addr == 0 or size < 64:
        a.now(pointer(addr))
        a.now(str(size))
        return
    n = min(size, 88)
    b = read_bytes(mem, addr, n)
    if b is None:
        a.now(hexval(addr))
        a.now(str(size))
        return
    flags = struct.unpack_from("<Q", b)[0]
    a.now(_clone3_text(f, b, mem, size, addr))
    pidfd, _child_tid, parent_tid = struct.unpack_from("<QQQ", b, 8)

    def rest(ret, m):
        out = ""
        if not is_error(ret):
            parts = []
            if flags & 0x1000:
                v = read_u32(m, pidfd) if pidfd else None
                parts.append(f"pidfd={pointer(pidfd) if v is None else f'[{s32(v)}]'}")
            if flags & 0x100000:
                v = read_u32(m, parent_tid) if parent_tid else None
                parts.append(f"parent_tid={pointer(parent_tid) if v is None else f'[{s32(v)}]'}")
            tail = _clone3_tail(f, m, addr, size)       # (read again at exit, as strace does)
            if tail:
                parts.append(tail)
            if parts:
                out = " => {" + ", ".join(parts) + "}"
        return out + f", {size}"
    a.tail(rest)


def _d_clone_args(f, b, mem):
    return _clone3_text(f, b, mem, len(b))


def _c_ptrace(f, st, mem):
    req = st.args[0]
    a = st.a
    a.now(_x.format_enum("ptrace_cmds", req))
    if req == 0:                                   # PTRACE_TRACEME
        return
    a.now(str(s32(st.args[1])))
    if req in (16, 8):                              # PTRACE_ATTACH, PTRACE_KILL
        return
    addr, data = st.args[2], st.args[3]
    if req in (1, 2, 3):                           # PEEK*: the word is stored at data
        a.now(pointer(addr))
        a.later(lambda ret, m: pointer(data) if is_error(ret) else f.scalar_ptr(m, data, "ptr_out"))
    elif req in (7, 9, 17, 24, 31, 32, 33):        # CONT, SINGLESTEP, DETACH, SYSCALL...: signal
        a.now(pointer(addr))
        a.now(_x.signal_name(s32(data)))
    elif req in (0x4207, 0x4208):                  # INTERRUPT, LISTEN
        a.now(pointer(addr)); a.now(pointer(data))
    else:
        a.now(pointer(addr)); a.now(hexval(data))


def _c_kcmp(f, st, mem):
    a = st.a
    a.now(str(s32(st.args[0]))); a.now(str(s32(st.args[1])))
    typ = st.args[2] & 0xffffffff
    a.now(_x.format_enum("kcmp_types", typ))
    if typ == 0:                                   # KCMP_FILE
        a.now(f.fd(st.args[3])); a.now(f.fd(st.args[4]))
    elif typ == 7:                                 # KCMP_EPOLL_TFD: struct kcmp_epoll_slot
        a.now(f.fd(st.args[3]))
        slot = st.args[4]
        d = read_bytes(mem, slot, 12) if slot else None
        if d is None:
            a.now(pointer(slot))
        else:
            efd, tfd, toff = struct.unpack("<iiI", d)
            a.now(f"{{efd={efd}, tfd={tfd}, toff={toff}}}")
    elif _x.lookup("kcmp_types", typ) is None:
        a.now(hexval(st.args[3])); a.now(hexval(st.args[4]))


def _k_wstatus(f, st, mem, v, param, i, base):
    st.a.later(lambda ret, m, v=v: wstatus(f, m, v, ret))


def _c_pidfd_getfd(f, st, mem):
    """strace's printfd_pid: the target descriptor is one of the pidfd's process, decorated from
    that process's table under -y; a plain number when the first argument is no pidfd."""
    pidfd, target = s32(st.args[0]), s32(st.args[1])
    st.a.now(f.fd(st.args[0]))
    pid = f.pidfd_pid(pidfd) if f.pidfd_pid is not None and f.fd_paths and pidfd >= 0 else None
    if pid is None:
        st.a.now(str(target))
    else:
        f.fd_owner = pid
        try:
            st.a.now(f.fd(st.args[1]))
        finally:
            f.fd_owner = None
    st.a.now(hexval(st.args[2] & 0xffffffff))


def _c_process_vm_readv(f, st, mem):
    """The local iovec at exit: its data as read, or only its addresses when the call failed
    (strace's IOV_DECODE_ADDR); the remote one always by address."""
    pid, local, lcnt, remote, rcnt, flags = st.args
    a = st.a
    a.now(str(s32(pid)))
    a.later(lambda ret, m: f.iovec(m, local, lcnt, -1, contents=False) if is_error(ret)
            else f.iovec(m, local, lcnt, ret))
    a.later(lambda ret, m: str(lcnt))
    a.later(lambda ret, m: f.iovec(m, remote, rcnt, -1, contents=False))
    a.later(lambda ret, m: str(rcnt))
    a.later(lambda ret, m: str(flags))


CALLS = {"pidfd_getfd": _c_pidfd_getfd, "process_vm_readv": _c_process_vm_readv, "clone": _c_clone, "clone3": _c_clone3, "ptrace": _c_ptrace, "kcmp": _c_kcmp}
STRUCTS = {"clone_args": (64, _d_clone_args)}
AT_ENTRY = {
    "argv": lambda f, st, mem, v, param, n: argv(f, mem, v),
    "envp": lambda f, st, mem, v, param, n: envp(f, mem, v),
    "personality": lambda f, st, mem, v, param, n: personality_text(v),
}
BY_HAND = {"wstatus": _k_wstatus}
# strace's printwaitn: the rusage only when a child was reaped, its address otherwise
AT_EXIT = {"wait_rusage": lambda f, m, v, param, n, base, ret: f.struct("rusage", m, v) if s64(ret) > 0
           else pointer(v)}
