"""Sockets. AF_INET and AF_INET6 sockets are the guest's own loopback network (inet.py); by
default nothing else is reachable and no host socket is ever opened. With --net, a connection
or datagram to a non-loopback address passes through to a host socket (the Linux sockaddr
layouts are decoded here and host families chosen by name); a blocking operation waits on the
host socket, holding up the other guest threads as a read of the host's stdin does. Network
traffic is by nature not deterministic. AF_NETLINK sockets exist only to carry mqueue
notifications (netlink.py): what they would ask of the kernel's netlink families is EACCES.
Other families (AF_PACKET...) fail with EACCES, as a seccomp or firewall denial would.

AF_UNIX sockets are local IPC, and programs use them without meaning the network (glibc's NSS
probes nscd's socket; libraries use socketpair; Python's multiprocessing managers listen on
one): they exist inside the sandbox. A stream socket bound and listening at a path is found by
a connect() to that path from any emulated process; a connect() to anything else looks the
path up in the guest's VFS — ENOENT when nothing is there, ECONNREFUSED otherwise (the sandbox
never connects to a host socket); socketpair() gives two connected endpoints.
"""
from __future__ import annotations

import struct
import weakref
import time as _t

from emutrace.kernel import errno as E
from emutrace.kernel import inet, netlink
from emutrace.kernel.datagrams import DatagramQueue
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import OpenFile, Pipe, WouldBlock
from emutrace.kernel.rw import TRANSFER_PIECE, _cut, blocking
from emutrace.kernel.vfs import StatInfo, VfsError
from emutrace.linux.fcntl import O_NONBLOCK, O_RDWR, S_IFSOCK
from emutrace.linux.net import (AF_INET, AF_INET6, AF_UNIX, SOCK_MAX, SOCK_RAW, IPPROTO_TCP, MSG_DONTWAIT, MSG_NOSIGNAL, MSG_PEEK, MSG_TRUNC, SHUT_RD,
                                SHUT_WR, SOCK_CLOEXEC, SOCK_DGRAM, SOCK_NONBLOCK, SOCK_SEQPACKET, SOCK_STREAM, SOCK_TYPE_MASK,
                                SOL_SOCKET, SO_ACCEPTCONN, SO_DOMAIN, SO_ERROR, SO_TYPE)



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
        self.name = b""               # sun_path as bind() was given it (what getsockname returns)
        self._peer = None             # the other end when connected (weak: either may close first)
        self.backlog = []             # server ends of connections not yet accepted
        self.backlog_max = 0          # listen()'s backlog
        self.registry = None          # the kernel's listener table while listening

    def connect_pair(self, other: "UnixSocket", limits=None) -> None:
        if self.stype == SOCK_STREAM:
            self.rx, other.rx = Pipe(limits), Pipe(limits)
        else:                                       # messages keep their bounds
            ends = self.stype == SOCK_SEQPACKET
            self.rx, other.rx = DatagramQueue(limits, ends=ends), DatagramQueue(limits, ends=ends)
        self.tx, other.tx = other.rx, self.rx
        self._peer, other._peer = weakref.ref(other), weakref.ref(self)
        for p in (self.rx, self.tx):
            p.readers += 1
            p.writers += 1

    @property
    def peer_name(self) -> bytes:
        """The peer's name now (Linux reads the peer's address at each getpeername and recv: a
        socketpair end bound after the pair was made shows its name)."""
        peer = self._peer() if self._peer is not None else None
        return peer.name if peer is not None else b""

    def read(self, n):
        if self.rx is None:
            raise VfsError(E.ENOTCONN)
        return self.rx.take(n)

    def recv(self, n: int, flags: int):
        """(up to n bytes, the whole message's length: more than n for a cut datagram)."""
        if self.rx is None:
            raise VfsError(E.ENOTCONN)
        if isinstance(self.rx, DatagramQueue):
            return self.rx.take_message(n, peek=bool(flags & MSG_PEEK))
        if flags & MSG_PEEK and self.rx.buf:
            data = bytes(self.rx.buf[:n])
        else:
            data = self.rx.take(n)
        return data, len(data)

    def write(self, data):
        if self.tx is None:
            raise VfsError(E.ENOTCONN)
        if self.stype == SOCK_DGRAM and self.tx.readers == 0:
            self.tx.writers -= 1                    # Linux's unix_dgram_sendmsg forgets a dead peer
            self.tx = None
            raise VfsError(E.ECONNREFUSED)
        return self.tx.put(data)

    def ready(self):
        if self.listening:
            return 1 if self.backlog else 0
        at_end = self.rx is not None and (self.rx.at_end() if isinstance(self.rx, DatagramQueue)
                                          else self.rx.writers == 0)
        r = 1 if self.rx is not None and (self.rx.buf or at_end) else 0
        w = 4 if self.tx is not None and self.tx.room() > 0 else 0
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
        if self.registry is not None and self.registry.get(self.bound) is self:
            del self.registry[self.bound]
        for pending in self.backlog:          # connections never accepted: their clients see EOF
            pending.close()
        self.backlog = []
        if self.rx is not None:
            self.rx.readers -= 1
        if self.tx is not None:
            self.tx.writers -= 1


def _sock(proc, fd):
    f = proc.fds.get(s32(fd))
    if isinstance(f, inet.LoopSocket) and f.host is not None:
        f.host.flags = f.flags                # --net took it to the host: O_NONBLOCK follows
        return f.host
    if not isinstance(f, (UnixSocket, InetSocket, inet.LoopSocket, netlink.NetlinkSocket)):
        raise VfsError(E.ENOTSOCK)
    return f


def _net(proc) -> bool:
    return proc.kernel.net


def _new(proc, domain, stype, protocol=0):
    kind = stype & SOCK_TYPE_MASK
    flags = O_NONBLOCK if stype & SOCK_NONBLOCK else 0
    if domain in (AF_INET, AF_INET6):             # the guest's own loopback; --net reaches beyond
        sock = inet.new_socket(proc, domain, kind, protocol, flags)
        return (None, sock) if isinstance(sock, int) else (sock, 0)
    if domain == netlink.AF_NETLINK:
        sock = netlink.new_socket(proc, kind, protocol, flags)
        return (None, sock) if isinstance(sock, int) else (sock, 0)
    if domain != AF_UNIX:
        return None, -E.EACCES
    # Linux's unix_create: a protocol other than 0/PF_UNIX is refused, SOCK_RAW is taken as
    # SOCK_DGRAM (for compatibility, and SO_TYPE then says SOCK_DGRAM), any other type is refused
    if kind >= SOCK_MAX:
        return None, -E.EINVAL                      # (__sock_create's check, before the family's)
    if protocol not in (0, AF_UNIX):
        return None, -E.EPROTONOSUPPORT
    if kind == SOCK_RAW:
        kind = SOCK_DGRAM
    if kind not in (SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET):
        return None, -E.ESOCKTNOSUPPORT
    return UnixSocket(kind, flags, proc.kernel.vfs.new_ino()), 0


def sys_socket(proc, domain, stype, protocol, *_):
    if stype & ~(SOCK_TYPE_MASK | SOCK_NONBLOCK | SOCK_CLOEXEC):
        return -E.EINVAL
    sock, err = _new(proc, domain, stype, s32(protocol))
    if sock is None:
        return err
    return proc.fds.install(sock, cloexec=bool(stype & SOCK_CLOEXEC))


def sys_socketpair(proc, domain, stype, protocol, sv, *_):
    if domain != AF_UNIX:
        return -E.EOPNOTSUPP if domain in (AF_INET, AF_INET6) else -E.EACCES
    a, err = _new(proc, domain, stype)
    if a is None:
        return err
    b, _ = _new(proc, domain, stype)
    a.connect_pair(b, proc.kernel.limits)
    cloexec = bool(stype & SOCK_CLOEXEC)
    fa = proc.fds.install(a, cloexec=cloexec)
    fb = proc.fds.install(b, cloexec=cloexec)
    proc.aspace.write(sv, struct.pack("<ii", fa, fb))
    return 0


def _unix_path(proc, addr, length) -> str:
    if length < 2 or length > 110:
        raise VfsError(E.EINVAL)
    raw = proc.aspace.read(addr, length)
    family = struct.unpack_from("<H", raw)[0]
    if family != AF_UNIX:
        raise VfsError(E.EAFNOSUPPORT)
    path = raw[2:]
    if not path or path[0] == 0:
        raise VfsError(E.ECONNREFUSED)      # the abstract namespace: nothing listens here
    return path.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def _deadline(proc):
    return proc.kernel.wall_deadline


def sys_connect(proc, fd, addr, length, *_):
    sock = _sock(proc, fd)
    if isinstance(sock, netlink.NetlinkSocket):
        return -E.EACCES                      # the kernel's netlink families are not in the sandbox
    if isinstance(sock, inet.LoopSocket):
        if s32(length) < 0:
            return -E.EINVAL
        raw = proc.aspace.read(addr, min(length, 128))
        done = inet.connect(proc, sock, raw, _net(proc))
        if done != "host":
            return done
        host = InetSocket(sock.family, sock.stype, 0, sock.flags, sock.ino)
        inet.become_host(sock, host)
        sock = host
    if isinstance(sock, InetSocket):
        family, target = decode_inet(proc.aspace.read(addr, min(length, 128)))
        err = sock.sock.connect_ex(target)
        if err == 0:
            return 0
        name = E.from_host(OSError(err, ""))
        if name in (E.EINPROGRESS, E.EAGAIN, E.EALREADY):
            if sock.nonblocking:
                return -E.EINPROGRESS
            sock._wait(True, _deadline(proc))
            err = sock.sock.getsockopt(*_host_opt("SOL_SOCKET", "SO_ERROR"))
            return -E.from_host(OSError(err, "")) if err else 0
        return -name
    path = _unix_path(proc, addr, length)
    canon, node = proc.kernel.vfs.resolve(path, proc.cwd)      # ENOENT when nothing is there
    listener = _listeners(proc).get(canon)
    if listener is None or sock.stype == SOCK_DGRAM or listener.stype != sock.stype:
        return -E.ECONNREFUSED                        # never a host socket; no emulated listener here
    if sock.rx is not None:
        return -E.EISCONN

    def enqueue():
        # Linux: the accept queue is full past listen()'s backlog (capped by somaxconn);
        # a blocking connect waits for the server to accept, a non-blocking one gets EAGAIN
        if len(listener.backlog) > min(listener.backlog_max, proc.kernel.limits.max["unix_backlog"]):
            raise WouldBlock()
        server_end = UnixSocket(sock.stype, 0, proc.kernel.vfs.new_ino())
        sock.connect_pair(server_end, proc.kernel.limits)
        # Linux: the accepted socket has the listener's address, and each end knows the other's
        server_end.name = listener.name
        listener.backlog.append(server_end)
        return 0
    return blocking(proc, sock, enqueue)


def _listeners(proc) -> dict:
    """Listening AF_UNIX sockets by canonical path, shared by every emulated process."""
    table = proc.kernel.unix_listeners
    if table is None:
        table = proc.kernel.unix_listeners = {}
    return table


def _host_opt(level: str, name: str):
    import socket as hs     # deferred: only --net host sockets and address conversion need the host's socket module
    return getattr(hs, level), getattr(hs, name)


def sys_bind(proc, fd, addr, length, *_):
    sock = _sock(proc, fd)
    if isinstance(sock, netlink.NetlinkSocket):
        return -E.EACCES
    if isinstance(sock, inet.LoopSocket):
        if s32(length) < 0:
            return -E.EINVAL
        return inet.bind(proc, sock, proc.aspace.read(addr, min(length, 128)))
    if isinstance(sock, InetSocket):
        _, target = decode_inet(proc.aspace.read(addr, min(length, 128)))
        try:
            sock.sock.bind(target)
        except OSError as e:
            raise _host_error(e) from None
        return 0
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
    sock.name = path.encode("utf-8", "surrogateescape")
    return 0


def sys_listen(proc, fd, backlog, *_):
    sock = _sock(proc, fd)
    if isinstance(sock, netlink.NetlinkSocket):
        return -E.EOPNOTSUPP
    if isinstance(sock, inet.LoopSocket):
        return inet.listen(proc, sock, s32(backlog))
    if isinstance(sock, InetSocket):
        try:
            sock.sock.listen(max(1, s32(backlog)))
        except OSError as e:
            raise _host_error(e) from None
        return 0
    if not sock.bound or sock.stype == SOCK_DGRAM:
        return -E.EINVAL
    sock.listening = True
    sock.backlog_max = max(0, s32(backlog))
    sock.registry = _listeners(proc)
    sock.registry[sock.bound] = sock
    return 0


def sys_accept(proc, fd, addr=0, alen=0, *_):
    return sys_accept4(proc, fd, addr, alen, 0)     # (accept has no flags: r10 holds anything)


def sys_accept4(proc, fd, addr=0, alen=0, flags=0, *_):
    sock = _sock(proc, fd)
    if flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC):
        return -E.EINVAL
    if isinstance(sock, netlink.NetlinkSocket):
        return -E.EOPNOTSUPP
    if isinstance(sock, inet.LoopSocket):
        conn = inet.accept(proc, sock, flags & SOCK_NONBLOCK)
        if isinstance(conn, int):
            return conn
        _put_addr(proc, addr, alen, inet.sockname(conn, peer=True))
        return proc.fds.install(conn, cloexec=bool(flags & SOCK_CLOEXEC))
    if isinstance(sock, InetSocket):
        conn, peer = sock._io(sock.sock.accept, False, _deadline(proc))
        new = InetSocket(sock.family, sock.stype, 0, O_NONBLOCK if flags & SOCK_NONBLOCK else 0,
                         proc.kernel.vfs.new_ino(), sock=conn)
        _put_addr(proc, addr, alen, encode_inet(sock.family, peer))
        return proc.fds.install(new, cloexec=bool(flags & SOCK_CLOEXEC))
    if not sock.listening:
        return -E.EINVAL

    def take():
        if not sock.backlog:
            raise WouldBlock()
        return sock.backlog.pop(0)
    conn = blocking(proc, sock, take)           # EAGAIN when non-blocking; else the scheduler waits
    if isinstance(conn, int):
        return conn
    if flags & SOCK_NONBLOCK:
        conn.flags |= O_NONBLOCK
    _put_addr(proc, addr, alen, _unix_addr(conn.peer_name))
    return proc.fds.install(conn, cloexec=bool(flags & SOCK_CLOEXEC))


def _unix_addr(name: bytes) -> bytes:
    """A struct sockaddr_un as Linux returns it: the family, then a bound path and its NUL."""
    return struct.pack("<H", AF_UNIX) + name + (b"\0" if name else b"")


def _put_addr(proc, addr, alen, raw: bytes) -> None:
    if not addr or not alen:
        return
    room = struct.unpack("<I", proc.aspace.read(alen, 4))[0]
    proc.aspace.write(addr, raw[:room])
    proc.aspace.write_u32(alen, len(raw))


def _send(proc, sock, data, flags, target=None):
    if isinstance(sock, netlink.NetlinkSocket):
        return -E.EACCES                      # no request reaches a netlink family
    if isinstance(sock, inet.LoopSocket):
        sent = inet.send(proc, sock, data, flags, target, _net(proc))
        if sent != "host":
            return sent
        host = InetSocket(sock.family, sock.stype, 0, sock.flags, sock.ino)   # --net: a datagram beyond lo
        inet.become_host(sock, host)
        sock, target = host, decode_inet(target)[1]
    try:
        if isinstance(sock, InetSocket) and target is not None:
            return sock._io(lambda: sock.sock.sendto(data, target), True, _deadline(proc))
        if isinstance(sock, UnixSocket) and not flags & MSG_DONTWAIT:
            return blocking(proc, sock, lambda: sock.write(data))   # waits for the peer to read
        return sock.write(data)
    except WouldBlock:
        return -E.EAGAIN
    except VfsError as e:
        if e.errno == E.EPIPE and not flags & MSG_NOSIGNAL:
            proc.queue_signal({"si_signo": 13, "si_code": 0, "si_pid": proc.pid, "si_uid": proc.kernel.world.uid})
        raise


def _target(proc, sock, addr, alen):
    if isinstance(sock, inet.LoopSocket) and addr and alen:
        return proc.aspace.read(addr, min(alen, 128))         # raw: inet decodes it for its family
    if isinstance(sock, InetSocket) and addr and alen:
        return decode_inet(proc.aspace.read(addr, min(alen, 128)))[1]
    return None


def _recv(proc, sock, n, flags):
    """(data, peer sockaddr bytes or b"", the whole datagram's length: len(data) for a stream)."""
    if isinstance(sock, inet.LoopSocket):
        got = inet.recv(proc, sock, n, flags)
        if isinstance(got, int):
            if got == -E.EAGAIN:
                raise WouldBlock()
            raise VfsError(-got)
        return got
    if isinstance(sock, InetSocket):
        def once():
            data, peer = sock.sock.recvfrom(n)
            return data, (encode_inet(sock.family, peer) if peer else b""), len(data)
        if flags & MSG_DONTWAIT:
            try:
                return once()
            except BlockingIOError:
                raise WouldBlock() from None
        return sock._io(once, False, _deadline(proc))
    op = (lambda: sock.recv(n, flags))
    if flags & MSG_DONTWAIT:
        data, full = op()
    else:
        got = blocking(proc, sock, op)             # a blocking socket waits for its peer
        if isinstance(got, int):
            raise WouldBlock()
        data, full = got
    if isinstance(sock, netlink.NetlinkSocket):
        return data, netlink.KERNEL_ADDRESS, full
    # Linux's unix_copy_addr: the sender's name if it has one, else no address (length 0)
    return data, (_unix_addr(sock.peer_name) if sock.peer_name else b""), full


def _discards(sock, flags) -> bool:
    """TCP's MSG_TRUNC: the bytes are taken from the stream and thrown away, not copied."""
    return bool(flags & MSG_TRUNC) and isinstance(sock, inet.LoopSocket) and sock.stype == SOCK_STREAM


def sys_sendto(proc, fd, buf, length, flags, addr, alen):
    sock = _sock(proc, fd)
    return _send(proc, sock, proc.aspace.read(buf, min(length, TRANSFER_PIECE)), flags,
                 _target(proc, sock, addr, alen))


def sys_recvfrom(proc, fd, buf, length, flags, addr, alen):
    sock = _sock(proc, fd)
    try:
        data, peer, full = _recv(proc, sock, min(length, TRANSFER_PIECE), flags)
    except WouldBlock:
        return -E.EAGAIN
    if not _discards(sock, flags):
        proc.aspace.write(buf, data)
    _put_addr(proc, addr, alen, peer)
    return full if flags & MSG_TRUNC else len(data)


def _msg(proc, msg):
    name, namelen, iov, iovlen = struct.unpack("<QI4xQQ", proc.aspace.read(msg, 32))
    out = []
    for i in range(min(iovlen, 1024)):
        base, n = struct.unpack("<QQ", proc.aspace.read(iov + 16 * i, 16))
        out.append((base, n))
    return name, namelen, out


def sys_sendmsg(proc, fd, msg, flags, *_):
    sock = _sock(proc, fd)
    name, namelen, iov = _msg(proc, msg)
    data = b"".join(proc.aspace.read(b, n) for b, n in _cut(iov, TRANSFER_PIECE))   # (a short send)
    return _send(proc, sock, data, flags, _target(proc, sock, name, namelen))


def sys_recvmsg(proc, fd, msg, flags, *_):
    sock = _sock(proc, fd)
    name, namelen, iov = _msg(proc, msg)
    try:
        data, peer, full = _recv(proc, sock, sum(n for _, n in iov), flags)
    except WouldBlock:
        return -E.EAGAIN
    off = 0
    for base, n in iov if not _discards(sock, flags) else ():
        chunk = data[off:off + n]
        proc.aspace.write(base, chunk)
        off += len(chunk)
    if name and namelen:
        proc.aspace.write(name, peer[:namelen])
        proc.aspace.write_u32(msg + 8, len(peer))
    proc.aspace.write(msg + 40, struct.pack("<Q", 0))      # msg_controllen: no ancillary data
    # msg_flags is always written: MSG_TRUNC when a datagram was longer than the buffers
    proc.aspace.write_u32(msg + 48, MSG_TRUNC if full > len(data) else 0)
    return full if flags & MSG_TRUNC else len(data)


def sys_sendmmsg(proc, fd, vec, vlen, flags, *_):
    _sock(proc, fd)                             # ENOTSOCK before anything is sent
    sent = 0
    for i in range(min(vlen, 1024)):
        hdr = vec + 64 * i                      # struct mmsghdr: msghdr (56) + msg_len (4) + pad
        n = sys_sendmsg(proc, fd, hdr, flags)
        if n < 0:
            return n if sent == 0 else sent
        proc.aspace.write_u32(hdr + 56, n)
        sent += 1
    return sent


def sys_recvmmsg(proc, fd, vec, vlen, flags, timeout, *_):
    _sock(proc, fd)
    got = 0
    for i in range(min(vlen, 1024)):
        hdr = vec + 64 * i
        n = sys_recvmsg(proc, fd, hdr, flags if got == 0 else flags | MSG_DONTWAIT)
        if n < 0:
            return n if got == 0 else got
        proc.aspace.write_u32(hdr + 56, n)
        got += 1
    return got


def sys_shutdown(proc, fd, how, *_):
    sock = _sock(proc, fd)
    if how not in (SHUT_RD, SHUT_WR, 2):
        return -E.EINVAL
    if isinstance(sock, netlink.NetlinkSocket):
        return -E.EOPNOTSUPP
    if isinstance(sock, inet.LoopSocket):
        sock.shutdown(how)
        return 0
    if isinstance(sock, InetSocket):
        try:
            sock.sock.shutdown(how)
        except OSError as e:
            raise _host_error(e) from None
        return 0
    sock.shutdown(how)
    return 0


def _sockname(proc, fd, addr, alen, peer: bool):
    sock = _sock(proc, fd)
    if isinstance(sock, netlink.NetlinkSocket):
        _put_addr(proc, addr, alen, netlink.KERNEL_ADDRESS)    # never bound: port id 0, no groups
        return 0
    if isinstance(sock, inet.LoopSocket):
        raw = inet.sockname(sock, peer)
        if isinstance(raw, int):
            return raw
        _put_addr(proc, addr, alen, raw)
        return 0
    if isinstance(sock, InetSocket):
        try:
            where = sock.sock.getpeername() if peer else sock.sock.getsockname()
        except OSError as e:
            raise _host_error(e) from None
        _put_addr(proc, addr, alen, encode_inet(sock.family, where))
        return 0
    if peer and sock.rx is None:
        return -E.ENOTCONN
    _put_addr(proc, addr, alen, _unix_addr(sock.peer_name if peer else sock.name))
    return 0


def sys_getsockname(proc, fd, addr, alen, *_):
    return _sockname(proc, fd, addr, alen, peer=False)


def sys_getpeername(proc, fd, addr, alen, *_):
    return _sockname(proc, fd, addr, alen, peer=True)


def sys_setsockopt(proc, fd, level, name, val, length, *_):
    sock = _sock(proc, fd)
    if isinstance(sock, inet.LoopSocket):
        if s32(length) < 0:
            return -E.EINVAL
        return inet.setsockopt(sock, level, name, proc.aspace.read(val, min(length, 64)))
    host = _HOST_OPTS.get((level, name))
    if isinstance(sock, InetSocket) and host is not None and length >= 4:
        value = struct.unpack("<i", proc.aspace.read(val, 4))[0]
        try:
            sock.sock.setsockopt(*_host_opt(*host), value)
        except (OSError, AttributeError):
            pass                                     # an option this host lacks changes nothing
    return 0


def sys_getsockopt(proc, fd, level, name, val, lenp, *_):
    sock = _sock(proc, fd)
    if isinstance(sock, inet.LoopSocket):
        room = struct.unpack("<i", proc.aspace.read(lenp, 4))[0]
        if room < 0:
            return -E.EINVAL
        value = struct.pack("<i", inet.getsockopt(sock, level, name))[:room]
        proc.aspace.write(val, value)
        proc.aspace.write_u32(lenp, len(value))
        return 0
    if isinstance(sock, netlink.NetlinkSocket):
        value = sock.option(level, name)
    elif isinstance(sock, InetSocket) and level == SOL_SOCKET and name == SO_ERROR:
        err = sock.sock.getsockopt(*_host_opt("SOL_SOCKET", "SO_ERROR"))
        value = E.from_host(OSError(err, "")) if err else 0
    elif isinstance(sock, InetSocket):
        value = {SO_TYPE: sock.stype, SO_DOMAIN: sock.family}.get(name, 0) if level == SOL_SOCKET else 0
    else:
        value = {SO_TYPE: sock.stype, SO_DOMAIN: AF_UNIX, SO_ERROR: 0,
                 SO_ACCEPTCONN: int(sock.listening)}.get(name, 0) if level == SOL_SOCKET else 0
    proc.aspace.write(val, struct.pack("<i", value))
    proc.aspace.write_u32(lenp, 4)
    return 0


# ---------------------------------------------------------------- --net: host sockets

_HOST_FAMILY = {AF_INET: "AF_INET", AF_INET6: "AF_INET6"}
_HOST_TYPE = {SOCK_STREAM: "SOCK_STREAM", SOCK_DGRAM: "SOCK_DGRAM"}
# (level, option) in Linux numbers → the host constant's name
_HOST_OPTS = {(SOL_SOCKET, 2): ("SOL_SOCKET", "SO_REUSEADDR"), (SOL_SOCKET, 6): ("SOL_SOCKET", "SO_BROADCAST"),
              (SOL_SOCKET, 7): ("SOL_SOCKET", "SO_SNDBUF"), (SOL_SOCKET, 8): ("SOL_SOCKET", "SO_RCVBUF"),
              (SOL_SOCKET, 9): ("SOL_SOCKET", "SO_KEEPALIVE"), (SOL_SOCKET, 15): ("SOL_SOCKET", "SO_REUSEPORT"),
              (IPPROTO_TCP, 1): ("IPPROTO_TCP", "TCP_NODELAY")}
WAIT_SLICE = 0.05


def decode_inet(raw: bytes):
    """(family, (host, port)) from a Linux sockaddr_in / sockaddr_in6."""
    import socket as hs     # deferred: only --net host sockets and address conversion need the host's socket module
    family = struct.unpack_from("<H", raw)[0]
    if family == AF_INET and len(raw) >= 8:
        port = struct.unpack_from(">H", raw, 2)[0]
        return family, (hs.inet_ntop(hs.AF_INET, raw[4:8]), port)
    if family == AF_INET6 and len(raw) >= 24:
        port = struct.unpack_from(">H", raw, 2)[0]
        return family, (hs.inet_ntop(hs.AF_INET6, raw[8:24]), port)
    raise VfsError(E.EAFNOSUPPORT)


def encode_inet(family: int, addr) -> bytes:
    import socket as hs     # deferred: only --net host sockets and address conversion need the host's socket module
    host, port = addr[0], addr[1]
    if family == AF_INET6:
        return struct.pack("<H", AF_INET6) + struct.pack(">H", port) + b"\0" * 4 + \
            hs.inet_pton(hs.AF_INET6, host.split("%")[0]) + b"\0" * 4
    return struct.pack("<H", AF_INET) + struct.pack(">H", port) + hs.inet_pton(hs.AF_INET, host) + b"\0" * 8


def _host_error(exc: OSError) -> VfsError:
    return VfsError(E.from_host(exc), str(exc))


class InetSocket(OpenFile):
    kind = "socket"
    seekable = False

    def __init__(self, family: int, stype: int, proto: int, flags: int, ino: int, sock=None):
        import socket as hs     # deferred: only --net host sockets and address conversion need the host's socket module
        super().__init__(f"socket:[{ino}]", O_RDWR | flags, None)
        self.family, self.stype, self.ino = family, stype, ino
        try:
            self.sock = sock or hs.socket(getattr(hs, _HOST_FAMILY[family]), getattr(hs, _HOST_TYPE[stype]), proto)
        except OSError as e:
            raise _host_error(e) from None
        self.sock.setblocking(False)

    @property
    def nonblocking(self) -> bool:
        return bool(self.flags & O_NONBLOCK)

    def _wait(self, write: bool, deadline) -> None:
        """Block on the host socket (guest blocking mode) until ready, or the run's deadline."""
        import select     # deferred: only --net host sockets wait on the host
        while True:
            r, w, x = select.select([] if write else [self.sock], [self.sock] if write else [], [self.sock], WAIT_SLICE)
            if r or w or x:
                return
            if deadline and _t.monotonic() > deadline:
                raise VfsError(E.ETIMEDOUT)

    def _io(self, fn, write: bool, deadline=None):
        while True:
            try:
                return fn()
            except BlockingIOError:
                if self.nonblocking:
                    raise WouldBlock() from None
                self._wait(write, deadline)
            except OSError as e:
                raise _host_error(e) from None

    def read(self, n):
        return self._io(lambda: self.sock.recv(n), False)

    def write(self, data):
        return self._io(lambda: self.sock.send(data), True)

    def ready(self):
        import select     # deferred: only --net host sockets wait on the host
        try:
            r, w, _ = select.select([self.sock], [self.sock], [], 0)
        except (OSError, ValueError):
            return 1 | 4
        return (1 if r else 0) | (4 if w else 0)

    def stat(self):
        return StatInfo(mode=S_IFSOCK | 0o777, ino=self.ino, dev=0x8, blksize=4096)

    def close(self):
        self.sock.close()
