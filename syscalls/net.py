"""Sockets. The sandbox has no network: an Internet (or any non-local) socket fails with EACCES,
as a seccomp or firewall denial would, and no host socket is ever opened.

AF_UNIX sockets are local IPC, and programs use them without meaning the network (glibc's NSS
probes nscd's socket; libraries use socketpair): they exist inside the sandbox. A connect()
looks the path up in the guest's VFS — ENOENT when nothing is there, ECONNREFUSED when a host
socket is (the sandbox never connects to one); socketpair() gives two connected endpoints.
"""
from __future__ import annotations

import struct

from . import errno as E
from .dispatch import s32, syscall
from .files import O_CLOEXEC, O_NONBLOCK, O_RDWR, OpenFile, Pipe, WouldBlock
from .vfs import S_IFSOCK, StatInfo, VfsError

AF_UNIX = 1
SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET = 1, 2, 5
SOCK_TYPE_MASK, SOCK_NONBLOCK, SOCK_CLOEXEC = 0xF, 0o4000, 0o2000000
SOL_SOCKET, SO_TYPE, SO_ERROR, SO_DOMAIN, SO_ACCEPTCONN = 1, 3, 4, 39, 30
SHUT_RD, SHUT_WR = 0, 1
MSG_DONTWAIT, MSG_PEEK, MSG_NOSIGNAL = 0x40, 0x2, 0x4000


class UnixSocket(OpenFile):
    kind = "socket"
    seekable = False

    def __init__(self, stype: int, flags: int, ino: int):
        super().__init__(f"socket:[{ino}]", O_RDWR | flags, None)
        self.stype = stype
        self.ino = ino
        self.rx: Pipe = None          # what this end reads
        self.tx: Pipe = None          # what the peer reads
        self.listening = False
        self.bound = ""

    def connect_pair(self, other: "UnixSocket") -> None:
        self.rx, other.rx = Pipe(), Pipe()
        self.tx, other.tx = other.rx, self.rx
        for p in (self.rx, self.tx):
            p.readers += 1
            p.writers += 1

    def read(self, n):
        if self.rx is None:
            raise VfsError(E.ENOTCONN)
        return self.rx.take(n)

    def write(self, data):
        if self.tx is None:
            raise VfsError(E.ENOTCONN)
        return self.tx.put(data)

    def ready(self):
        r = 1 if self.rx is not None and (self.rx.buf or self.rx.writers == 0) else 0
        w = 4 if self.tx is not None and len(self.tx.buf) < Pipe.CAPACITY else 0
        return r | w

    def stat(self):
        return StatInfo(mode=S_IFSOCK | 0o777, ino=self.ino, dev=0x8, blksize=4096)

    def shutdown(self, how: int) -> None:
        if how in (SHUT_RD, 2) and self.rx is not None and self.rx.readers:
            self.rx.readers -= 1
            self.rx = None if how == 2 else self.rx
        if how in (SHUT_WR, 2) and self.tx is not None and self.tx.writers:
            self.tx.writers -= 1

    def close(self):
        if self.rx is not None:
            self.rx.readers -= 1
            self.rx.writers -= 0
        if self.tx is not None:
            self.tx.writers -= 1


def _sock(proc, fd) -> UnixSocket:
    f = proc.fds.get(s32(fd))
    if not isinstance(f, UnixSocket):
        raise VfsError(E.ENOTSOCK)
    return f


def _new(proc, domain, stype):
    kind = stype & SOCK_TYPE_MASK
    if domain != AF_UNIX:
        return None, -E.EACCES
    if kind not in (SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET):
        return None, -E.EINVAL
    flags = O_NONBLOCK if stype & SOCK_NONBLOCK else 0
    return UnixSocket(kind, flags, proc.kernel.vfs.new_ino()), 0


@syscall("socket")
def sys_socket(proc, domain, stype, protocol, *_):
    sock, err = _new(proc, domain, stype)
    if sock is None:
        return err
    return proc.fds.install(sock, cloexec=bool(stype & SOCK_CLOEXEC))


@syscall("socketpair")
def sys_socketpair(proc, domain, stype, protocol, sv, *_):
    a, err = _new(proc, domain, stype)
    if a is None:
        return err
    b, _ = _new(proc, domain, stype)
    a.connect_pair(b)
    cloexec = bool(stype & SOCK_CLOEXEC)
    fa = proc.fds.install(a, cloexec=cloexec)
    fb = proc.fds.install(b, cloexec=cloexec)
    proc.mem.write(sv, struct.pack("<ii", fa, fb))
    return 0


def _unix_path(proc, addr, length) -> str:
    if length < 2 or length > 110:
        raise VfsError(E.EINVAL)
    raw = proc.mem.read(addr, length)
    family = struct.unpack_from("<H", raw)[0]
    if family != AF_UNIX:
        raise VfsError(E.EAFNOSUPPORT)
    path = raw[2:]
    if not path or path[0] == 0:
        raise VfsError(E.ECONNREFUSED)      # the abstract namespace: nothing listens here
    return path.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


@syscall("connect")
def sys_connect(proc, fd, addr, length, *_):
    sock = _sock(proc, fd)
    path = _unix_path(proc, addr, length)
    base = proc.cwd
    node = proc.kernel.vfs.lookup(path, base)     # ENOENT when nothing is there
    if node.stat.type != S_IFSOCK:
        return -E.ECONNREFUSED
    del sock
    return -E.ECONNREFUSED                        # never a host socket; no emulated listener here


@syscall("bind")
def sys_bind(proc, fd, addr, length, *_):
    sock = _sock(proc, fd)
    path = _unix_path(proc, addr, length)
    if sock.bound:
        return -E.EINVAL
    p, node = proc.kernel.vfs.resolve(path, proc.cwd, follow=False, must_exist=False)
    if node is not None:
        return -E.EADDRINUSE
    ov = proc.kernel.vfs.create_file(p, 0o777 & ~proc.umask)
    if ov.ov is not None:
        ov.ov.stat.mode = S_IFSOCK | (ov.ov.stat.mode & 0o7777)
    sock.bound = p
    return 0


@syscall("listen")
def sys_listen(proc, fd, backlog, *_):
    sock = _sock(proc, fd)
    if not sock.bound or sock.stype == SOCK_DGRAM:
        return -E.EINVAL
    sock.listening = True
    return 0


@syscall("accept", "accept4")
def sys_accept(proc, fd, *_):
    sock = _sock(proc, fd)
    if not sock.listening:
        return -E.EINVAL
    return -E.EAGAIN if sock.flags & O_NONBLOCK else -E.EDEADLK


def _send(proc, sock, data, flags):
    try:
        return sock.write(data)
    except WouldBlock:
        return -E.EAGAIN
    except VfsError as e:
        if e.errno == E.EPIPE and not flags & MSG_NOSIGNAL:
            proc.queue_signal({"si_signo": 13, "si_code": 0, "si_pid": proc.pid, "si_uid": proc.kernel.world.uid})
        raise


@syscall("sendto")
def sys_sendto(proc, fd, buf, length, flags, addr, alen):
    sock = _sock(proc, fd)
    return _send(proc, sock, proc.mem.read(buf, length), flags)


@syscall("recvfrom")
def sys_recvfrom(proc, fd, buf, length, flags, addr, alen):
    sock = _sock(proc, fd)
    try:
        data = sock.read(min(length, 1 << 24))
    except WouldBlock:
        return -E.EAGAIN
    proc.mem.write(buf, data)
    if addr and alen:
        proc.mem.write_u32(alen, 0)
    return len(data)


def _msg_iov(proc, msg):
    _name, _namelen, iov, iovlen = struct.unpack("<QI4xQQ", proc.mem.read(msg, 32))
    out = []
    for i in range(min(iovlen, 1024)):
        base, n = struct.unpack("<QQ", proc.mem.read(iov + 16 * i, 16))
        out.append((base, n))
    return out


@syscall("sendmsg")
def sys_sendmsg(proc, fd, msg, flags, *_):
    sock = _sock(proc, fd)
    data = b"".join(proc.mem.read(b, n) for b, n in _msg_iov(proc, msg))
    return _send(proc, sock, data, flags)


@syscall("recvmsg")
def sys_recvmsg(proc, fd, msg, flags, *_):
    sock = _sock(proc, fd)
    iov = _msg_iov(proc, msg)
    try:
        data = sock.read(sum(n for _, n in iov))
    except WouldBlock:
        return -E.EAGAIN
    off = 0
    for base, n in iov:
        chunk = data[off:off + n]
        proc.mem.write(base, chunk)
        off += len(chunk)
    proc.mem.write(msg + 40, struct.pack("<Q", 0))      # msg_controllen: no ancillary data
    return len(data)


@syscall("shutdown")
def sys_shutdown(proc, fd, how, *_):
    _sock(proc, fd).shutdown(how)
    return 0


@syscall("getsockname", "getpeername")
def sys_getsockname(proc, fd, addr, alen, *_):
    sock = _sock(proc, fd)
    name = sock.bound.encode()
    raw = struct.pack("<H", AF_UNIX) + name + (b"\0" if name else b"")
    room = struct.unpack("<I", proc.mem.read(alen, 4))[0]
    proc.mem.write(addr, raw[:room])
    proc.mem.write_u32(alen, len(raw))
    return 0


@syscall("setsockopt")
def sys_setsockopt(proc, fd, level, name, val, length, *_):
    _sock(proc, fd)
    return 0


@syscall("getsockopt")
def sys_getsockopt(proc, fd, level, name, val, lenp, *_):
    sock = _sock(proc, fd)
    value = {SO_TYPE: sock.stype, SO_DOMAIN: AF_UNIX, SO_ERROR: 0,
             SO_ACCEPTCONN: int(sock.listening)}.get(name, 0) if level == SOL_SOCKET else 0
    proc.mem.write(val, struct.pack("<i", value))
    proc.mem.write_u32(lenp, 4)
    return 0


@syscall("sendmmsg", "recvmmsg")
def sys_mmsg(proc, fd, *_):
    _sock(proc, fd)
    return -E.EOPNOTSUPP
