"""Process system calls: exit, ids, limits, uname, arch_prctl, execve, and friends."""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.binfmt import ExecError
from emutrace.kernel.dispatch import s32
from emutrace.kernel.fs import base_dir, guest_path
from emutrace.kernel.task import ProcessExit
from emutrace.kernel.layouts import RLIMIT, RUSAGE, SYSINFO, UTSNAME
from emutrace.linux.prctl import (ARCH_GET_FS, ARCH_GET_GS, ARCH_SET_FS, ARCH_SET_GS, PR_CAPBSET_READ, PR_GET_DUMPABLE, PR_GET_NAME,
                                  PR_GET_NO_NEW_PRIVS, PR_GET_PDEATHSIG, PR_GET_SECCOMP, PR_SET_DUMPABLE, PR_SET_NAME, PR_SET_NO_NEW_PRIVS,
                                  PR_SET_PDEATHSIG, PR_SET_SECCOMP, PR_SET_VMA)
from emutrace.linux.resource import RLIMIT_NOFILE, RLIM_INFINITY

RLIMIT_NLIMITS = 16


def sys_exit(proc, status, *_):
    if len(proc.threads) > 1:
        return proc.kernel.life.exit_thread(proc, status & 0xFF)
    raise ProcessExit(status & 0xFF)


def sys_exit_group(proc, status, *_):
    raise ProcessExit(status & 0xFF)


def sys_getpid(proc, *_):
    return proc.pid


def sys_gettid(proc, *_):
    return proc.thread.tid


def sys_getppid(proc, *_):
    return proc.ppid


def sys_getuid(proc, *_):
    return proc.kernel.world.uid


def sys_getgid(proc, *_):
    return proc.kernel.world.gid


def sys_getresuid(proc, r, e, s, *_):
    for a in (r, e, s):
        proc.aspace.write_u32(a, proc.kernel.world.uid)
    return 0


def sys_getresgid(proc, r, e, s, *_):
    for a in (r, e, s):
        proc.aspace.write_u32(a, proc.kernel.world.gid)
    return 0


def sys_setid(proc, *args):
    # changing identity needs privilege; succeed only when nothing would change
    world = proc.kernel.world
    mine = (world.uid, world.gid, 0xFFFFFFFF)
    if world.uid == 0 or all((a & 0xFFFFFFFF) in mine for a in args[:3] if a is not None):
        return 0
    return -E.EPERM


def sys_setugid(proc, ident, *_):
    """setuid/setgid: (uid_t)-1 names no id (make_kuid gives INVALID_UID): EINVAL, before any
    privilege check (setreuid/setresuid take -1 as "unchanged" instead)."""
    if ident & 0xFFFFFFFF == 0xFFFFFFFF:
        return -E.EINVAL
    return sys_setid(proc, ident)


def sys_getgroups(proc, size, lst, *_):
    size = s32(size)                    # (an int: the register's upper half is not looked at)
    if size < 0:
        return -E.EINVAL
    if size == 0:                       # the count alone, whatever the pointer
        return 1
    proc.aspace.write_u32(lst, proc.kernel.world.gid)
    return 1


def sys_setgroups(proc, *_):
    return -E.EPERM if proc.kernel.world.uid else 0


def sys_getpgrp(proc, *_):
    return proc.pgid


def _process(proc, pid):
    pid = s32(pid)
    if pid == 0 or pid == proc.pid:
        return proc
    p = proc.kernel.process(pid)
    return p if p is not None and not getattr(p, "reaped", False) else None


def sys_getpgid(proc, pid, *_):
    p = _process(proc, pid)
    return p.pgid if p is not None else -E.ESRCH


def sys_getsid(proc, pid, *_):
    p = _process(proc, pid)
    return p.sid if p is not None else -E.ESRCH


def sys_setpgid(proc, pid, pgid, *_):
    pgid = s32(pgid)
    if pgid < 0:
        return -E.EINVAL
    p = _process(proc, pid)
    if p is None or (p is not proc and p.parent is not proc):
        return -E.ESRCH
    if p.sid == p.pid and p.pgid == p.pid and pgid not in (0, p.pid):
        return -E.EPERM                  # a session leader stays where it is
    p.pgid = pgid or p.pid
    return 0


def sys_setsid(proc, *_):
    if proc.pgid == proc.pid:
        return -E.EPERM                  # already a process group leader
    proc.pgid = proc.sid = proc.pid
    return proc.pid


def sys_uname(proc, buf, *_):
    w = proc.kernel.world
    proc.aspace.write(buf, UTSNAME.pack(sysname=b"Linux", nodename=w.hostname.encode(),
                                     release=w.kernel_release.encode(), version=w.kernel_version.encode(),
                                     machine=b"x86_64", domainname=b"(none)"))
    return 0


def sys_sethostname(proc, *_):
    return -E.EPERM


def sys_arch_prctl(proc, code, addr, *_):
    m = proc.machine
    if code == ARCH_SET_FS:
        m.set_reg("fs_base", addr)
        return 0
    if code == ARCH_SET_GS:
        m.set_reg("gs_base", addr)
        return 0
    if code == ARCH_GET_FS:
        proc.aspace.write_u64(addr, m.reg("fs_base"))
        return 0
    if code == ARCH_GET_GS:
        proc.aspace.write_u64(addr, m.reg("gs_base"))
        return 0
    return -E.EINVAL


def sys_set_tid_address(proc, addr, *_):
    proc.thread.clear_child_tid = addr
    return proc.thread.tid


def sys_set_robust_list(proc, head, length, *_):
    if length != 24:
        return -E.EINVAL
    proc.thread.robust_list, proc.thread.robust_len = head, length
    return 0


def sys_get_robust_list(proc, pid, head_ptr, len_ptr, *_):
    if pid and pid != proc.pid and pid != proc.thread.tid:
        t = next((t for t in proc.threads if t.tid == pid), None)
        if t is None:
            return -E.ESRCH
    else:
        t = proc.thread
    proc.aspace.write_u64(head_ptr, t.robust_list)
    proc.aspace.write_u64(len_ptr, 24)
    return 0


RSEQ_FLAG_UNREGISTER, RSEQ_SIG_MIN_LEN = 1, 32


def sys_rseq(proc, area, length, flags, sig, *_):
    """Registration only: the area gets cpu_id_start = cpu_id = 0 (the one emulated CPU), which
    is what glibc's sched_getcpu reads. Critical sections are not aborted on preemption; glibc
    registers rseq but runs no critical sections of its own."""
    t = proc.thread
    if flags & ~RSEQ_FLAG_UNREGISTER or length < RSEQ_SIG_MIN_LEN or area & 31:
        return -E.EINVAL
    if flags & RSEQ_FLAG_UNREGISTER:
        if getattr(t, "rseq_area", 0) != area:
            return -E.EINVAL
        t.rseq_area = 0
        return 0
    if getattr(t, "rseq_area", 0):
        return -E.EBUSY if t.rseq_area == area else -E.EINVAL
    proc.aspace.write(area, (0).to_bytes(4, "little") * 2)     # cpu_id_start, cpu_id
    t.rseq_area = area
    return 0


def _rlimit_get(proc, res):
    return proc.rlimits.get(res, [RLIM_INFINITY, RLIM_INFINITY])


def sys_prlimit64(proc, pid, res, new, old, *_):
    if pid and pid != proc.pid:
        return -E.ESRCH
    if res >= RLIMIT_NLIMITS:
        return -E.EINVAL
    cur = _rlimit_get(proc, res)
    if new:
        lim = RLIMIT.unpack(proc.aspace.read(new, 16))
        if lim["rlim_cur"] > lim["rlim_max"]:
            return -E.EINVAL
        if lim["rlim_max"] > cur[1] and proc.kernel.world.uid != 0:
            return -E.EPERM
    if old:
        proc.aspace.write(old, RLIMIT.pack(rlim_cur=cur[0], rlim_max=cur[1]))
    if new:
        proc.rlimits[res] = [lim["rlim_cur"], lim["rlim_max"]]
        if res == RLIMIT_NOFILE:            # every call that installs an fd sees it
            proc.fds.limit = min(lim["rlim_cur"], 1 << 20)
    return 0


def sys_getrlimit(proc, res, old, *_):
    return sys_prlimit64(proc, 0, res, 0, old)


def sys_setrlimit(proc, res, new, *_):
    return sys_prlimit64(proc, 0, res, new, 0)


def sys_getrusage(proc, who, buf, *_):
    ns = proc.kernel.world.elapsed_ns if s32(who) != -1 else 0
    proc.aspace.write(buf, RUSAGE.pack(ru_utime_sec=ns // 10**9, ru_utime_usec=ns % 10**9 // 1000,
                                    ru_maxrss=proc.aspace.guest_mapped() // 1024))
    return 0


def sys_sysinfo(proc, buf, *_):
    w = proc.kernel.world
    total = proc.aspace.max_mem
    proc.aspace.write(buf, SYSINFO.pack(uptime=w.monotonic_ns() // 10**9, loads=(0, 0, 0), totalram=total,
                                     freeram=max(0, total - proc.aspace.guest_mapped()), procs=1, mem_unit=1))
    return 0


def sys_sched_getaffinity(proc, pid, size, mask, *_):
    if size < 8 or size & 7:
        return -E.EINVAL
    proc.aspace.write(mask, struct.pack("<Q", 1))       # one CPU: the emulated one
    return 8


def sys_sched_setaffinity(proc, *_):
    return 0


def sys_sched_yield(proc, *_):
    proc.kernel.sched.yield_thread(proc)
    return 0


def sys_sched_rr_get_interval(proc, pid, tp, *_):
    """Every guest thread runs a normal policy (schedpolicy.py refuses real-time ones), whose round-robin
    interval Linux's fair class reports as 0 (SCHED_RR's would be 100 ms)."""
    pid = s32(pid)
    if pid < 0:
        return -E.EINVAL
    if pid and proc.kernel.sched.find_thread(pid) is None:
        return -E.ESRCH
    proc.aspace.write(tp, bytes(16))
    return 0


def sys_prio_max(proc, policy, *_):
    return 99 if policy in (1, 2) else 0


def sys_prio_min(proc, policy, *_):
    return 1 if policy in (1, 2) else 0


def sys_getpriority(proc, *_):
    return 20        # the kernel returns 20 - nice


def sys_setpriority(proc, which, who, prio, *_):
    return 0 if s32(prio) >= 0 else -E.EACCES




def sys_prctl(proc, option, a2, *_):
    if option == PR_SET_NAME:
        proc.comm = proc.aspace.read_cstr(a2, 16)[:15].decode("utf-8", "replace")
        return 0
    if option == PR_GET_NAME:
        name = (proc.comm if proc.comm is not None else proc.exe.rsplit("/", 1)[-1])[:15].encode()
        proc.aspace.write(a2, name + b"\0")
        return 0
    if option in (PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_VMA):
        return 0
    if option == PR_GET_PDEATHSIG:
        proc.aspace.write_u32(a2, 0)
        return 0
    if option == PR_GET_DUMPABLE:
        return 1
    if option in (PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP):
        return 0
    if option == PR_CAPBSET_READ:
        return 0
    return -E.EINVAL


def sys_capget(proc, hdr, data, *_):
    if data:
        proc.aspace.write(data, bytes(24))
    return 0


def sys_capset(proc, *_):
    return -E.EPERM


def sys_personality(proc, persona, *_):
    return 0        # PER_LINUX; changing it is accepted and ignored


def sys_getcpu(proc, cpu, node, *_):
    if cpu:
        proc.aspace.write_u32(cpu, 0)
    if node:
        proc.aspace.write_u32(node, 0)
    return 0


def sys_execve(proc, path, argv, envp, *_):
    return _execve(proc, -100, path, argv, envp, 0)


def sys_execveat(proc, dirfd, path, argv, envp, flags, *_):
    return _execve(proc, dirfd, path, argv, envp, flags)


def _execve(proc, dirfd, path_addr, argv_addr, envp_addr, flags):
    binfmt = proc.kernel.hooks.binfmt
    if binfmt is None:
        return -E.ENOEXEC           # no binary format registered: nothing can be executed
    path = guest_path(proc, path_addr)
    read = lambda addr: proc.aspace.read_cstr(addr, 1 << 17).decode("utf-8", "surrogateescape")
    argv = [read(a) for a in proc.aspace.read_ptr_array(argv_addr)] if argv_addr else []
    envp = [read(a) for a in proc.aspace.read_ptr_array(envp_addr)] if envp_addr else []
    base = proc.cwd if path.startswith("/") else base_dir(proc, dirfd)
    try:
        binfmt(proc, path, argv, envp, base)
    except ExecError as e:
        return -e.errno
    return 0            # (as strace shows it; the new image starts with its own registers)


def sys_wait4(proc, pid, status, options, rusage, *_):
    return proc.kernel.life.wait_child(proc, s32(pid), status, options, rusage)


def sys_waitid(proc, idtype, id_, infop, options, rusage, *_):
    return proc.kernel.life.waitid_child(proc, idtype, s32(id_), infop, options)


def sys_ptrace(proc, *_):
    return -E.EPERM


def sys_kcmp(proc, *_):
    return -E.EPERM



def sys_privileged(proc, *_):
    return -E.EPERM
