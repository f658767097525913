"""Synthesized /proc and /dev: generated from emutrace's own state, never the host's."""
from __future__ import annotations

from typing import Callable, Optional

from emutrace.machine.cpu import CPU_FLAGS

from emutrace.kernel.vfs import SynthNode, Vfs
from emutrace.linux.fcntl import DT_DIR, DT_LNK, DT_REG, S_IFCHR, S_IFDIR, S_IFLNK, S_IFREG

DEVICES = ("null", "zero", "full", "random", "urandom")
# the list a Linux 6.1 kernel as distributions build it prints
FILESYSTEMS = "".join(f"{'nodev' if nodev else ''}\t{name}\n" for nodev, name in (
    (1, "sysfs"), (1, "tmpfs"), (1, "proc"), (1, "cgroup"), (1, "cgroup2"), (1, "cpuset"), (1,
    "devtmpfs"), (1, "binfmt_misc"), (1, "debugfs"), (1, "tracefs"), (1, "securityfs"), (1,
    "sockfs"), (1, "bpf"), (1, "pipefs"), (1, "ramfs"), (1, "hugetlbfs"), (1, "devpts"), (0,
    "ext3"), (0, "ext2"), (0, "ext4"), (0, "squashfs"), (1, "autofs"), (0, "fuseblk"), (1, "fuse"),
    (1, "fusectl"), (1, "overlay"), (0, "xfs"), (0, "erofs"), (1, "mqueue"), (0, "btrfs"), (1,
    "pstore")))


def _file(fn: Callable[[], str]) -> SynthNode:
    return SynthNode(S_IFREG | 0o444, content=lambda: fn().encode())


def _link(fn: Callable[[], str]) -> SynthNode:
    return SynthNode(S_IFLNK | 0o777, target=fn)


def _dir(fn: Callable[[], list]) -> SynthNode:
    return SynthNode(S_IFDIR | 0o555, children=fn)


def cpuinfo() -> str:
    return ("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 58\n"
            "model name\t: emutrace virtual x86-64 CPU\nstepping\t: 9\ncpu MHz\t\t: 1000.000\n"
            "cache size\t: 8192 KB\nphysical id\t: 0\nsiblings\t: 1\ncore id\t\t: 0\ncpu cores\t: 1\n"
            f"fpu\t\t: yes\nflags\t\t: {CPU_FLAGS}\nbogomips\t: 2000.00\nclflush size\t: 64\n"
            "cache_alignment\t: 64\naddress sizes\t: 39 bits physical, 48 bits virtual\n\n")


def install(vfs: Vfs, kernel) -> None:
    """Add /dev and /proc to the VFS; `kernel.current` names the process asking."""

    def cur():
        return kernel.current

    # ---- /dev
    def dev(rest: str) -> Optional[SynthNode]:
        if rest == "":
            return _dir(lambda: [(d, 2) for d in DEVICES] + [("fd", DT_LNK), ("stdin", DT_LNK),
                                                             ("stdout", DT_LNK), ("stderr", DT_LNK), ("shm", DT_DIR)])
        if rest in DEVICES:
            return SynthNode(S_IFCHR | 0o666, device=rest)
        if rest == "fd":
            return _link(lambda: "/proc/self/fd")
        if rest in ("stdin", "stdout", "stderr"):
            n = ("stdin", "stdout", "stderr").index(rest)
            return _link(lambda: f"/proc/self/fd/{n}")
        return None

    vfs.add_synth_tree("/dev", dev)
    vfs.add_tmpfs("/dev/shm")       # POSIX shared memory and named semaphores (shm_open, sem_open)

    # ---- /proc
    def proc_entry(rest: str) -> Optional[SynthNode]:
        p = cur()
        if rest == "":
            return _dir(lambda: [("self", DT_LNK), ("thread-self", DT_LNK), (str(cur().pid), DT_DIR),
                                 ("cpuinfo", DT_REG), ("meminfo", DT_REG), ("uptime", DT_REG),
                                 ("version", DT_REG), ("filesystems", DT_REG), ("mounts", DT_LNK),
                                 ("stat", DT_REG), ("loadavg", DT_REG), ("sys", DT_DIR)])
        head, _, tail = rest.partition("/")
        if head == "self":
            return _link(lambda: str(cur().pid)) if not tail else proc_entry(f"{cur().pid}/{tail}")
        if head == "thread-self":
            return _link(lambda: f"{cur().pid}/task/{cur().thread.tid}")
        if head == "mounts":
            return _link(lambda: "self/mounts")
        static = {
            "cpuinfo": cpuinfo,
            "meminfo": lambda: f"MemTotal:       {kernel.max_mem // 1024} kB\nMemFree:        "
                               f"{max(0, kernel.max_mem - cur().aspace.guest_mapped()) // 1024} kB\n"
                               f"MemAvailable:   {max(0, kernel.max_mem - cur().aspace.guest_mapped()) // 1024} kB\n",
            "uptime": lambda: f"{kernel.world.monotonic_ns() / 1e9:.2f} 0.00\n",
            "version": lambda: f"Linux version {kernel.world.kernel_release} (emutrace) {kernel.world.kernel_version}\n",
            "filesystems": lambda: FILESYSTEMS,
            "stat": lambda: "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\nbtime "
                            f"{kernel.world.clock_start}\nprocesses 1\n",
            "loadavg": lambda: "0.00 0.00 0.00 1/1 1\n",
        }
        if head in static and not tail:
            return _file(static[head])
        if head == "sys":
            return sysctl(tail)
        if head.isdigit() and p is not None and int(head) in kernel.pids():
            return pid_entry(kernel.process(int(head)), tail)
        return None

    def sysctl(rest: str) -> Optional[SynthNode]:
        w = kernel.world
        files = {
            "kernel/hostname": lambda: w.hostname + "\n", "kernel/osrelease": lambda: w.kernel_release + "\n",
            "kernel/ostype": lambda: "Linux\n", "kernel/version": lambda: w.kernel_version + "\n",
            "kernel/pid_max": lambda: "4194304\n", "kernel/ngroups_max": lambda: "65536\n",
            "kernel/random/boot_id": lambda: "00000000-0000-4000-8000-000000000000\n",
            "vm/overcommit_memory": lambda: "0\n", "vm/max_map_count": lambda: "65530\n",
            "fs/pipe-max-size": lambda: f"{kernel.limits.max['pipe_size']}\n",
        }
        if rest in files:
            return _file(files[rest])
        dirs = {}
        for k in files:
            parts = k.split("/")
            for i in range(len(parts)):
                d = "/".join(parts[:i])
                dirs.setdefault(d, set()).add((parts[i], DT_REG if i == len(parts) - 1 else DT_DIR))
        if rest in dirs:
            return _dir(lambda: sorted(dirs[rest]))
        return None

    def pid_entry(p, rest: str) -> Optional[SynthNode]:
        if p is None:
            return None
        if rest == "":
            return _dir(lambda: [("exe", DT_LNK), ("cwd", DT_LNK), ("root", DT_LNK), ("fd", DT_DIR),
                                 ("maps", DT_REG), ("cmdline", DT_REG), ("comm", DT_REG), ("status", DT_REG),
                                 ("stat", DT_REG), ("environ", DT_REG), ("mounts", DT_REG), ("task", DT_DIR)])
        head, _, tail = rest.partition("/")
        if head == "exe" and not tail:
            return _link(lambda: p.exe)
        if head == "cwd" and not tail:
            return _link(lambda: p.cwd)
        if head == "root" and not tail:
            return _link(lambda: "/")            # the guest's root is its whole world
        if head == "maps" and not tail:
            return _file(lambda: p.aspace.maps_text())
        if head == "cmdline" and not tail:
            return SynthNode(S_IFREG | 0o444, content=lambda: b"".join(a.encode() + b"\0" for a in p.argv))
        if head == "comm" and not tail:
            return _file(lambda: getattr(p, "comm", p.exe.rsplit("/", 1)[-1])[:15] + "\n")
        if head == "environ" and not tail:
            return SynthNode(S_IFREG | 0o400, content=lambda: b"")
        if head == "mounts" and not tail:
            return _file(lambda: "/ / ext4 ro,relatime 0 0\nproc /proc proc rw 0 0\n"
                                 "tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0\n")
        if head == "status" and not tail:
            w = kernel.world
            return _file(lambda: f"Name:\t{p.exe.rsplit('/', 1)[-1][:15]}\nState:\t{_STATE_NAMES[_state(p)]}\nTgid:\t{p.pid}\n"
                                 f"Pid:\t{p.pid}\nPPid:\t{p.ppid}\nTracerPid:\t0\nUid:\t{w.uid}\t{w.uid}\t{w.uid}\t{w.uid}\n"
                                 f"Gid:\t{w.gid}\t{w.gid}\t{w.gid}\t{w.gid}\nThreads:\t{len(p.threads)}\n"
                                 f"VmRSS:\t{p.aspace.guest_mapped() // 1024} kB\n")
        if head == "stat" and not tail:
            return _file(lambda: f"{p.pid} ({p.exe.rsplit('/', 1)[-1][:15]}) {_state(p)} {p.ppid} {p.pid} {p.pid} 0 -1 "
                                 + " ".join(["0"] * 44) + "\n")
        if head == "task":
            if not tail:
                return _dir(lambda: [(str(t.tid), DT_DIR) for t in p.threads])
            tid, _, sub = tail.partition("/")
            if tid.isdigit() and any(t.tid == int(tid) for t in p.threads):
                return pid_entry(p, sub)
            return None
        if head == "fd":
            if not tail:
                return _dir(lambda: [(str(fd), DT_LNK) for fd in sorted(p.fds.fds)])
            if tail.isdigit() and int(tail) in p.fds.fds:
                fd = int(tail)
                return SynthNode(S_IFLNK | 0o777, target=lambda: kernel.vfs.fd_link(p.fds.fds[fd]),
                                 opened=lambda: p.fds.fds.get(fd))
        return None

    vfs.add_synth_tree("/proc", proc_entry)


_STATE_NAMES = {"R": "R (running)", "T": "T (stopped)", "Z": "Z (zombie)"}


def _state(p) -> str:
    """/proc/PID/stat's state letter: a zombie, stopped by a signal (jobctl.py), or running
    (a process that waits counts as running: the clock is virtual)."""
    return "Z" if p.exit is not None else "T" if p.stopped else "R"
