"""What each watched system call adds to the behaviour report: SYSCALLS maps a call's name to
(at entry, at exit) handlers, each given the collector (c), the process and the call's words;
the entry handler reads what the call will consume (a path, the bytes written), the exit handler
records the facts with their event ids (c.event, c.marks). ReportCollector (collector.py) runs
them from the kernel's intercept; a handler that raises is noted in the report's errors."""
from __future__ import annotations

import posixpath
from typing import List, Optional

from emutrace.kernel import errno as E
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import S_IFMT, S_IFREG
from emutrace.decode.xlat import signal_name
from emutrace.machine.words import s32

from emutrace.report import extract, rules
from emutrace.linux.fcntl import AT_FDCWD

MAX_REFS = 32                 # event ids kept per file, socket or process

def _path_at(proc, dirfd: int, addr: int) -> Optional[str]:
    raw = extract.guest_string(proc.aspace, addr, 4096)
    if raw is None:
        return None
    path = raw.decode("utf-8", "surrogateescape")
    if not path.startswith("/"):
        dirfd = s32(dirfd)
        if dirfd == AT_FDCWD:
            base = proc.cwd
        else:
            f = proc.fds.fds.get(dirfd)
            base = getattr(f, "path", None) or proc.cwd
        path = posixpath.join(base, path)
    return posixpath.normpath(path).replace("//", "/")


def _fd_file(proc, fd: int):
    return proc.fds.fds.get(s32(fd)) if proc.fds is not None else None


def _result(ret: int, err: Optional[str]):
    return err if err is not None else ret


def _open_flags_ops(flags: int, existed: bool) -> List[str]:
    acc = flags & rules.O_ACCMODE
    ops = []
    if acc in (0, rules.O_RDWR):
        ops.append("open-read")
    if acc in (rules.O_WRONLY, rules.O_RDWR):
        ops.append("open-write")
    if flags & rules.O_CREAT and not existed:
        ops.append("create")
    if flags & rules.O_TRUNC and acc != 0:
        ops.append("truncate")
    if flags & rules.O_APPEND:
        ops.append("append")
    return ops


def _exists(proc, path: str) -> bool:
    try:
        proc.kernel.vfs.lookup(path, "/", follow=False)
        return True
    except VfsError:
        return False


def _open_enter(c, proc, args, dirfd=None, flags=None):
    return None


def _open_common(c, proc, path, flags, ret, err, existed):
    if path is None:
        return
    ops = _open_flags_ops(flags, existed) if err is None else ["open-failed"]
    eid = c.event(proc, "syscall", "open", path=path, flags=flags, result=_result(ret, err))
    for op in ops:
        c.file(path, op, eid)
    if err is not None:
        c.file(path, "", eid)
        return
    writes = any(op in ("open-write", "create", "truncate", "append") for op in ops)
    _classify_path(c, proc, path, eid, writes=writes, reads="open-read" in ops)


def _classify_path(c, proc, path: str, eid: int, writes: bool, reads: bool) -> None:
    if writes:
        kind = rules.persistence_kind(path)
        if kind is not None:
            c.mark("persistence", eid, mechanism=kind, path=path)
    if reads and rules.matches(path, rules.PRIVILEGED_FILES):
        c.mark("privileged-read", eid, path=path)
    if reads and rules.matches(path, rules.TRACER_FILES):
        c.mark("tracer-check", eid, path=path)


def _e_openat(c, proc, args):
    path = _path_at(proc, args[0], args[1])
    return (path, args[2], path is not None and _exists(proc, path))


def _e_open(c, proc, args):
    path = _path_at(proc, AT_FDCWD, args[0])
    return (path, args[1], path is not None and _exists(proc, path))


def _e_creat(c, proc, args):
    path = _path_at(proc, AT_FDCWD, args[0])
    return (path, rules.O_WRONLY | rules.O_CREAT | rules.O_TRUNC, path is not None and _exists(proc, path))


def _e_openat2(c, proc, args):
    path = _path_at(proc, args[0], args[1])
    raw = extract.guest_bytes(proc.aspace, args[2], 8) or bytes(8)
    return (path, int.from_bytes(raw, "little"), path is not None and _exists(proc, path))


def _l_open(c, proc, args, info, ret, err):
    path, flags, existed = info
    if err is None:                  # the file's canonical path, as reads and writes name it
        path = getattr(_fd_file(proc, ret), "path", None) or path
    _open_common(c, proc, path, flags, ret, err, existed)


def _l_read(c, proc, args, info, ret, err):
    if err is not None or ret <= 0:
        return
    f = _fd_file(proc, args[0])
    path = getattr(f, "path", None)
    if path is None or getattr(f, "kind", "") == "socket":
        return
    entry = c.files.get(path) or c.file(path, "")
    if entry["bytes_read"] == 0:
        eid = c.event(proc, "syscall", "read", path=path, fd=s32(args[0]), result=ret)
        c.file(path, "read", eid)
        if rules.matches(path, rules.TRACER_FILES):
            c.mark("tracer-check", eid, path=path)
    entry["bytes_read"] += ret


def _e_write(c, proc, args):
    f = _fd_file(proc, args[0])
    if getattr(f, "kind", "") == "socket":
        return ("socket", extract.guest_bytes(proc.aspace, args[1], min(args[2], 512)))
    return None


def _l_write(c, proc, args, info, ret, err):
    if err is not None or ret <= 0:
        return
    if info is not None:                    # a write to a socket is a send
        _sent(c, proc, s32(args[0]), None, info[1] or b"", ret)
        return
    f = _fd_file(proc, args[0])
    path = getattr(f, "path", None)
    if path is None:
        return
    entry = c.files.get(path) or c.file(path, "")
    if entry["bytes_written"] == 0:
        eid = c.event(proc, "syscall", "write", path=path, fd=s32(args[0]), result=ret)
        c.file(path, "write", eid)
    entry["bytes_written"] += ret


def _e_writev(c, proc, args):
    f = _fd_file(proc, args[0])
    if getattr(f, "kind", "") != "socket":
        return None
    return ("socket", _iov_bytes(proc, args[1], args[2]))


def _iov_bytes(proc, iov: int, count: int, limit: int = 512) -> bytes:
    out = b""
    for i in range(min(count, 64)):
        raw = extract.guest_bytes(proc.aspace, iov + 16 * i, 16)
        if raw is None:
            break
        base, n = int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")
        out += extract.guest_bytes(proc.aspace, base, min(n, limit - len(out))) or b""
        if len(out) >= limit:
            break
    return out


def _e_path1(c, proc, args):
    return _path_at(proc, AT_FDCWD, args[0])


def _e_path_at1(c, proc, args):
    return _path_at(proc, args[0], args[1])


def _snapshot_drop(c, proc, path: Optional[str]) -> None:
    """An overlay file about to be deleted or replaced: what it held is still a dropped file."""
    if path is None:
        return
    try:
        node = proc.kernel.vfs.lookup(path, "/", follow=False)
    except VfsError:
        return
    if node.ov is None or node.stat.mode & S_IFMT != S_IFREG:
        return
    data = node.ov.data.image(proc.kernel.vfs.limits.max["disk"])
    if data is None:                          # sparse and larger than the quota
        c.deleted_drops[path] = {"path": path, "size": len(node.ov.data), "mode": node.stat.mode & 0o7777,
                                 "sha256": node.ov.data.page_digest(), "deleted": True, "sparse": True,
                                 "_data": None}
        return
    c.deleted_drops[path] = {"path": path, "size": len(data), "sha256": extract.sha256(data),
                             "mode": node.stat.mode & 0o7777, "deleted": True, "_data": data}


def _e_unlink(c, proc, args):
    path = _path_at(proc, AT_FDCWD, args[0])
    _snapshot_drop(c, proc, path)
    return path


def _e_unlinkat(c, proc, args):
    path = _path_at(proc, args[0], args[1])
    if not args[2] & rules.AT_REMOVEDIR:
        _snapshot_drop(c, proc, path)
    return path


def _l_delete(c, proc, args, path, ret, err):
    if path is None:
        return
    eid = c.event(proc, "syscall", "delete", path=path, result=_result(ret, err))
    c.file(path, "delete" if err is None else "delete-failed", eid)
    if err is not None:
        c.deleted_drops.pop(path, None)
    exe = proc.exe
    if path in (exe, (c.target or {}).get("path")) and err is None:
        c.mark("self-delete", eid, path=path, pid=proc.pid)


def _e_rename(c, proc, args):
    return (_path_at(proc, AT_FDCWD, args[0]), _path_at(proc, AT_FDCWD, args[1]))


def _e_renameat(c, proc, args):
    return (_path_at(proc, args[0], args[1]), _path_at(proc, args[2], args[3]))


def _l_rename(c, proc, args, info, ret, err):
    old, new = info
    if old is None or new is None:
        return
    eid = c.event(proc, "syscall", "rename", path=old, to=new, result=_result(ret, err))
    if err is not None:
        c.file(old, "rename-failed", eid)
        return
    c.file(old, "renamed-from", eid)["renamed_to"] = new
    c.file(new, "renamed-to", eid)["renamed_from"] = old
    c.renamed[new] = c.renamed.pop(old, old)
    _classify_path(c, proc, new, eid, writes=True, reads=False)
    if old in (proc.exe, (c.target or {}).get("path")):
        c.mark("self-delete", eid, path=old, pid=proc.pid, renamed_to=new)


def _e_link(c, proc, args):
    return (_path_at(proc, AT_FDCWD, args[0]), _path_at(proc, AT_FDCWD, args[1]))


def _e_linkat(c, proc, args):
    return (_path_at(proc, args[0], args[1]), _path_at(proc, args[2], args[3]))


def _e_symlink(c, proc, args):
    raw = extract.guest_string(proc.aspace, args[0], 4096)
    return (extract.text(raw or b"", 4096), _path_at(proc, AT_FDCWD, args[1]))


def _e_symlinkat(c, proc, args):
    raw = extract.guest_string(proc.aspace, args[0], 4096)
    return (extract.text(raw or b"", 4096), _path_at(proc, args[1], args[2]))


def _linker(op):
    def leave(c, proc, args, info, ret, err):
        src, dst = info
        if dst is None:
            return
        eid = c.event(proc, "syscall", op, path=dst, target=src, result=_result(ret, err))
        c.file(dst, op if err is None else op + "-failed", eid)["link_target"] = src
        if err is None:
            _classify_path(c, proc, dst, eid, writes=True, reads=False)
    return leave


def _l_path_op(op):
    def leave(c, proc, args, path, ret, err):
        if path is None:
            return
        eid = c.event(proc, "syscall", op, path=path, result=_result(ret, err))
        c.file(path, op if err is None else op + "-failed", eid)
        if err is None and op in ("chmod", "truncate"):
            _classify_path(c, proc, path, eid, writes=True, reads=False)
    return leave


def _e_fd_path(c, proc, args):
    return getattr(_fd_file(proc, args[0]), "path", None)


# -- processes ------------------------------------------------------------------------------

def _strings_at(proc, addr: int, limit: int = 256) -> List[str]:
    if not addr:
        return []
    try:
        ptrs = proc.aspace.read_ptr_array(addr, limit)
    except Exception:           # noqa: BLE001 (a bad array: the attempt fails with EFAULT)
        return []
    return [extract.text(extract.guest_string(proc.aspace, p, 4096) or b"", 4096) for p in ptrs]


def _exec_attempt(c, proc, path, argv_addr, envp_addr):
    attempt = {"path": path, "argv": _strings_at(proc, argv_addr), "env": _strings_at(proc, envp_addr),
               "result": None}
    attempt["event"] = c.event(proc, "syscall", "execve", path=path, argv=attempt["argv"])
    c.execs.setdefault(proc.pid, []).append(attempt)
    if path is not None:
        c.file(path, "exec", attempt["event"])
    return attempt


def _e_execve(c, proc, args):
    return _exec_attempt(c, proc, _path_at(proc, AT_FDCWD, args[0]), args[1], args[2])


def _e_execveat(c, proc, args):
    return _exec_attempt(c, proc, _path_at(proc, args[0], args[1]), args[2], args[3])


def _l_execve(c, proc, args, attempt, ret, err):
    c._exec_pending.pop(proc.pid, None)
    attempt["result"] = _result(ret, err)


def _l_prctl(c, proc, args, info, ret, err):
    option = s32(args[0])
    if option == rules.PR_SET_NAME:
        name = extract.text(extract.guest_string(proc.aspace, args[1], 16) or b"")
        eid = c.event(proc, "syscall", "prctl", option="PR_SET_NAME", value=name, result=_result(ret, err))
        c.mark("set-name", eid, name=name, pid=proc.pid)
    elif option == rules.PR_SET_MM:
        eid = c.event(proc, "syscall", "prctl", option="PR_SET_MM", value=args[1], result=_result(ret, err))
        c.mark("set-mm", eid, pid=proc.pid)
    elif option == rules.PR_SET_DUMPABLE and args[1] == 0:
        eid = c.event(proc, "syscall", "prctl", option="PR_SET_DUMPABLE", value=0, result=_result(ret, err))
        c.mark("not-dumpable", eid, pid=proc.pid)


PTRACE_REQUESTS = {0: "PTRACE_TRACEME", 16: "PTRACE_ATTACH", 0x4206: "PTRACE_SEIZE", 17: "PTRACE_DETACH"}


def _l_ptrace(c, proc, args, info, ret, err):
    req = PTRACE_REQUESTS.get(args[0], str(args[0]))
    eid = c.event(proc, "syscall", "ptrace", request=req, pid_arg=s32(args[1]), result=_result(ret, err))
    c.mark("traceme" if args[0] == rules.PTRACE_TRACEME else "ptrace", eid, request=req)


def _l_setid(name):
    nargs = rules.SETID_CALLS[name]

    def leave(c, proc, args, info, ret, err):
        values = [s32(a) for a in args[:nargs]]
        eid = c.event(proc, "syscall", name, args=values, result=_result(ret, err))
        c.mark("setid", eid, call=name, args=values, result=_result(ret, err))
    return leave


def _l_kill(name, pid_i, sig_i):
    def leave(c, proc, args, info, ret, err):
        signo = s32(args[sig_i])
        if signo == 0:
            return                           # a probe: is the process there?
        eid = c.event(proc, "syscall", name, target=s32(args[pid_i]), signo=signo, result=_result(ret, err))
        c.signals.append({"pid": proc.pid, "what": "sent", "to": s32(args[pid_i]), "signo": signo,
                          "signal": signal_name(signo), "call": name, "result": _result(ret, err), "event": eid})
    return leave


def _l_sigaction(c, proc, args, info, ret, err):
    if err is not None or not args[1]:
        return
    raw = extract.guest_bytes(proc.aspace, args[1], 8)
    handler = int.from_bytes(raw, "little") if raw else 0
    if handler in (0, 1):                    # SIG_DFL, SIG_IGN
        return
    signo = s32(args[0])
    if any(s["what"] == "handled" and s["signo"] == signo and s["pid"] == proc.pid for s in c.signals):
        return
    eid = c.event(proc, "syscall", "rt_sigaction", signo=signo, handler=handler)
    c.signals.append({"pid": proc.pid, "what": "handled", "signo": signo, "signal": signal_name(signo),
                      "event": eid})


# -- memory ---------------------------------------------------------------------------------

def _e_mprotect(c, proc, args):
    start, size = args[0], args[1]
    return [(v.start, v.end, v.prot, v.name) for v in proc.aspace.overlapping(start, start + max(size, 1))]


def _l_mprotect(c, proc, args, before, ret, err):
    prot = args[2]
    if err is not None or not prot & rules.PROT_EXEC:
        return
    was_writable = [b for b in before or () if b[2] & rules.PROT_WRITE and not b[2] & rules.PROT_EXEC]
    if prot & rules.PROT_WRITE:
        eid = c.event(proc, "syscall", "mprotect", address=args[0], size=args[1], prot="PROT_READ|PROT_WRITE|PROT_EXEC")
        c.mark("rwx", eid, address=args[0], size=args[1], call="mprotect")
    elif was_writable:
        eid = c.event(proc, "syscall", "mprotect", address=args[0], size=args[1], prot="PROT_EXEC",
                      mapping=was_writable[0][3] or "[anonymous]")
        c.mark("made-executable", eid, address=args[0], size=args[1],
               mapping=was_writable[0][3] or "[anonymous]")


def _l_mmap(c, proc, args, info, ret, err):
    prot = args[2]
    if err is not None or prot & (rules.PROT_WRITE | rules.PROT_EXEC) != rules.PROT_WRITE | rules.PROT_EXEC:
        return
    eid = c.event(proc, "syscall", "mmap", address=ret, size=args[1], prot="PROT_READ|PROT_WRITE|PROT_EXEC",
                  anonymous=bool(args[3] & rules.MAP_ANONYMOUS))
    c.mark("rwx", eid, address=ret, size=args[1], call="mmap")


# -- network --------------------------------------------------------------------------------

# what the sandbox answers when it refuses a network operation: no socket of that family
# (EACCES, EPERM) or no route beyond the guest's own loopback (ENETUNREACH)
DENIED = ("EACCES", "EPERM", "ENETUNREACH")


def _l_socket(c, proc, args, info, ret, err):
    family = rules.FAMILY.get(args[0], str(args[0]))
    stype = rules.SOCK_TYPE.get(args[1] & rules.SOCK_TYPE_MASK, str(args[1] & rules.SOCK_TYPE_MASK))
    eid = c.event(proc, "syscall", "socket", family=family, type=stype, result=_result(ret, err))
    sock = {"pid": proc.pid, "fd": ret if err is None else -1, "family": family, "type": stype,
            "protocol": s32(args[2]), "result": _result(ret, err), "denied": err in ("EACCES", "EPERM"),
            "peers": [], "bound": None, "bytes_sent": 0, "preview": "", "events": [eid]}
    c.sockets.append(sock)
    c._socks[(proc.pid, sock["fd"])] = sock
    if sock["denied"]:
        c.mark("net-denied", eid, family=family, type=stype)


def _socket_of(c, proc, fd: int) -> dict:
    sock = c._socks.get((proc.pid, fd))
    if sock is None:
        f = _fd_file(proc, fd)
        sock = {"pid": proc.pid, "fd": fd, "family": "AF_UNIX" if type(f).__name__ == "UnixSocket" else "?",
                "type": "?", "protocol": 0, "result": fd, "denied": False, "peers": [], "bound": None,
                "bytes_sent": 0, "preview": "", "events": [], "inherited": True}
        c.sockets.append(sock)
        c._socks[(proc.pid, fd)] = sock
    return sock


def _e_sockaddr(c, proc, args, addr_i=1, len_i=2):
    addr, n = args[addr_i], args[len_i] & 0xFFFFFFFF
    raw = extract.guest_bytes(proc.aspace, addr, min(n, 128)) if addr else None
    return extract.sockaddr(raw) if raw else None


def _l_connect(c, proc, args, peer, ret, err):
    fd = s32(args[0])
    sock = _socket_of(c, proc, fd)
    eid = c.event(proc, "syscall", "connect", fd=fd, peer=peer, result=_result(ret, err))
    sock["events"].append(eid)
    entry = dict(peer or {}, result=_result(ret, err), event=eid)
    entry["denied"] = err in DENIED or sock["denied"]
    sock["peers"].append(entry)
    if entry["denied"]:
        sock["denied"] = True               # the sandbox refused what this socket tried
        c.mark("net-denied", eid, peer=peer)


def _l_bind(c, proc, args, addr, ret, err):
    fd = s32(args[0])
    sock = _socket_of(c, proc, fd)
    eid = c.event(proc, "syscall", "bind", fd=fd, address=addr, result=_result(ret, err))
    sock["bound"] = dict(addr or {}, result=_result(ret, err))
    sock["events"].append(eid)
    if err in ("EACCES", "EPERM"):
        sock["denied"] = True               # (a netlink socket: the kernel's families are not in the sandbox)


def _e_sendto(c, proc, args):
    data = extract.guest_bytes(proc.aspace, args[1], min(args[2], 512)) or b""
    return (data, _e_sockaddr(c, proc, args, 4, 5))


def _l_sendto(c, proc, args, info, ret, err):
    data, peer = info
    _sent(c, proc, s32(args[0]), peer, data, ret if err is None else 0, err)


def _e_sendmsg(c, proc, args):
    raw = extract.guest_bytes(proc.aspace, args[1], 56)
    if raw is None:
        return (b"", None)
    name, namelen = int.from_bytes(raw[0:8], "little"), int.from_bytes(raw[8:12], "little")
    iov, iovlen = int.from_bytes(raw[16:24], "little"), int.from_bytes(raw[24:32], "little")
    peer = None
    if name:
        sa = extract.guest_bytes(proc.aspace, name, min(namelen, 128))
        peer = extract.sockaddr(sa) if sa else None
    return (_iov_bytes(proc, iov, iovlen), peer)


def _sent(c, proc, fd: int, peer, data: bytes, n: int, err: Optional[str] = None) -> None:
    sock = _socket_of(c, proc, fd)
    eid = c.event(proc, "syscall", "send", fd=fd, peer=peer, size=len(data),
                  result=err if err is not None else n)
    if len(sock["events"]) < MAX_REFS:
        sock["events"].append(eid)
    if peer is not None and not any(p.get("address") == peer.get("address") and p.get("port") == peer.get("port")
                                    and p.get("path") == peer.get("path") for p in sock["peers"]):
        denied = err in DENIED or sock["denied"]
        sock["peers"].append(dict(peer, result=err if err is not None else 0, event=eid, denied=denied))
        if denied:
            sock["denied"] = True
    sock["bytes_sent"] += n
    if not sock["preview"] and data:          # what it tried to send, sent or not
        sock["preview"] = extract.preview(data)
    port = (peer or {}).get("port")
    if port == rules.DNS_PORT or (peer is None and any(p.get("port") == rules.DNS_PORT for p in sock["peers"])):
        for q in extract.dns_questions(data):
            c.dns.append(dict(q, source="query", pid=proc.pid, server=(peer or {}).get("address"), event=eid))


# -- timing ---------------------------------------------------------------------------------
# A clock read, a sleep, and a clock read again in one thread is how a program checks whether
# its sleep really lasted (sandboxes that skip sleeps fail it): per thread, the last step seen.

def _l_clock(c, proc, args, info, ret, err):
    _clock_read(c, proc, "syscall", _result(ret, err))


def _clock_read(c, proc, kind: str, result) -> None:
    """A clock read, by a system call (kind "syscall") or a call of the vDSO (kind "call", marked
    vdso, no result: with emutrace's vDSO clock_gettime, gettimeofday and time make no system call,
    as on Linux, so the sleep check must hear of them there)."""
    key = id(proc.thread)
    state = c.clock_steps.get(key)
    now = c.world.elapsed_ns
    if state is not None and state[0] == "slept":
        c.clock_steps.pop(key, None)
        if len(c.marks.get("sleep-check", ())) >= MAX_REFS:
            return
        detail = {"vdso": True} if result is None else {"result": result}
        eid = c.event(proc, kind, "clock-read-after-sleep", first_read_ns=state[1], **detail)
        c.mark("sleep-check", state[2])
        c.mark("sleep-check", eid, pid=proc.pid, first_read_ns=state[1], read_ns=now)
        return
    if state is not None or len(c.clock_steps) < 4096:
        c.clock_steps[key] = ("read", now)


def _l_sleep(c, proc, args, info, ret, err):
    key = id(proc.thread)
    state = c.clock_steps.pop(key, None)
    if state is not None and state[0] == "read" and len(c.marks.get("sleep-check", ())) < MAX_REFS:
        eid = c.event(proc, "syscall", "sleep-after-clock-read", first_read_ns=state[1], result=_result(ret, err))
        c.clock_steps[key] = ("slept", state[1], eid)


SYSCALLS = {
    "open": (_e_open, _l_open), "openat": (_e_openat, _l_open), "creat": (_e_creat, _l_open),
    "openat2": (_e_openat2, _l_open),
    "read": (None, _l_read), "pread64": (None, _l_read), "readv": (None, _l_read), "preadv": (None, _l_read),
    "preadv2": (None, _l_read),
    "write": (_e_write, _l_write), "pwrite64": (None, _l_write), "writev": (_e_writev, _l_write),
    "pwritev": (None, _l_write), "pwritev2": (None, _l_write),
    "unlink": (_e_unlink, _l_delete), "unlinkat": (_e_unlinkat, _l_delete), "rmdir": (_e_path1, _l_delete),
    "rename": (_e_rename, _l_rename), "renameat": (_e_renameat, _l_rename), "renameat2": (_e_renameat, _l_rename),
    "link": (_e_link, _linker("link")), "linkat": (_e_linkat, _linker("link")),
    "symlink": (_e_symlink, _linker("symlink")), "symlinkat": (_e_symlinkat, _linker("symlink")),
    "chmod": (_e_path1, _l_path_op("chmod")), "fchmodat": (_e_path_at1, _l_path_op("chmod")),
    "fchmod": (_e_fd_path, _l_path_op("chmod")),
    "chown": (_e_path1, _l_path_op("chown")), "lchown": (_e_path1, _l_path_op("chown")),
    "fchownat": (_e_path_at1, _l_path_op("chown")), "fchown": (_e_fd_path, _l_path_op("chown")),
    "mkdir": (_e_path1, _l_path_op("mkdir")), "mkdirat": (_e_path_at1, _l_path_op("mkdir")),
    "truncate": (_e_path1, _l_path_op("truncate")), "ftruncate": (_e_fd_path, _l_path_op("truncate")),
    "execve": (_e_execve, _l_execve), "execveat": (_e_execveat, _l_execve),
    "prctl": (None, _l_prctl), "ptrace": (None, _l_ptrace),
    "kill": (None, _l_kill("kill", 0, 1)), "tkill": (None, _l_kill("tkill", 0, 1)),
    "tgkill": (None, _l_kill("tgkill", 1, 2)), "rt_sigqueueinfo": (None, _l_kill("rt_sigqueueinfo", 0, 1)),
    "rt_sigaction": (None, _l_sigaction),
    "mprotect": (_e_mprotect, _l_mprotect), "pkey_mprotect": (_e_mprotect, _l_mprotect), "mmap": (None, _l_mmap),
    "clock_gettime": (None, _l_clock), "gettimeofday": (None, _l_clock), "time": (None, _l_clock),
    "nanosleep": (None, _l_sleep), "clock_nanosleep": (None, _l_sleep),
    "socket": (None, _l_socket), "connect": (_e_sockaddr, _l_connect), "bind": (_e_sockaddr, _l_bind),
    "sendto": (_e_sendto, _l_sendto), "sendmsg": (_e_sendmsg, _l_sendto),
    **{name: (None, _l_setid(name)) for name in rules.SETID_CALLS},
    # (calls whose errno may be a sandbox limit: handled by the exit path's limit check)
    **{name: (None, None) for name in ("fork", "vfork", "clone", "clone3", "brk", "mremap")},
}


def _errno_name(ret: int) -> Optional[str]:
    if -4096 < ret < 0:
        return E.NAME.get(-ret, str(-ret))
    return None
