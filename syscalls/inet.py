"""Internet sockets inside the sandbox: a loopback network private to the guest.

An AF_INET or AF_INET6 socket is a LoopSocket. Everything it can reach without --net lives in
this module: the guest's lo interface with 127.0.0.0/8 and ::1, one TCP and one UDP port space
shared by every emulated process and thread, and connections that are two in-memory pipes. No
host socket is opened and no host port is taken, so a sandboxed server never collides with a
host's, and the bytes, ports and orders are the same on every run (ephemeral ports are handed
out in sequence; everything waits through the deterministic scheduler).

Any other destination is a network the sandbox does not have: connect/sendto get ENETUNREACH,
and bind to an address that is not the guest's gets EADDRNOTAVAIL. Name lookups therefore end
quickly and the same way every run: `localhost` comes from the guest's /etc/hosts, and a query
to a nameserver that is not on loopback fails at once (a loopback nameserver port nobody binds
answers with "port unreachable", ECONNREFUSED), as on a machine without DNS.

With --net, a connect or sendto to a non-loopback address hands the socket to a host socket
(net.InetSocket) from then on; loopback addresses and every bind stay inside the guest.

The side that closes a connection first keeps its port in TIME_WAIT for 60 s of virtual time
(timewait.py): a bind to it then needs SO_REUSEADDR on both sockets, as on Linux.

Addresses are kept as 16-byte IPv6 addresses; IPv4 ones as v4-mapped (::ffff:a.b.c.d), which is
how a dual-stack IPv6 socket sees IPv4 peers on Linux too.
"""
from __future__ import annotations

import struct
from collections import deque
from typing import Optional

from emutrace.kernel import errno as E
from emutrace.kernel.files import OpenFile, Pipe, WouldBlock
from emutrace.kernel.rw import blocking, raise_sigpipe
from emutrace.kernel.timewait import TimeWaits
from emutrace.kernel.wait import Block, Wait
from emutrace.kernel.vfs import StatInfo, VfsError
from emutrace.linux.fcntl import O_NONBLOCK, O_RDWR, S_IFSOCK
from emutrace.linux.net import (AF_INET, AF_INET6, AF_UNSPEC, IPPROTO_IP, IPPROTO_IPV6, IPPROTO_TCP, IPPROTO_UDP, MSG_DONTWAIT,
                                MSG_NOSIGNAL, MSG_PEEK, MSG_TRUNC, SHUT_RD, SHUT_RDWR, SHUT_WR, SOCK_DGRAM, SOCK_STREAM, SOL_SOCKET,
                                SO_ACCEPTCONN, SO_DOMAIN, SO_ERROR, SO_PROTOCOL, SO_RCVBUF, SO_REUSEADDR, SO_REUSEPORT, SO_SNDBUF,
                                SO_TYPE)
from emutrace.linux.poll import POLLERR, POLLHUP, POLLIN, POLLOUT, POLLRDHUP

IPV6_V6ONLY = 26

# Linux's defaults: net.ipv4.ip_local_port_range, net.core.somaxconn, socket buffer sizes
EPHEMERAL_FIRST, EPHEMERAL_LAST = 32768, 60999
SOMAXCONN = 4096
UDP_RCVBUF = 212992
UDP_MAX_PAYLOAD = 65507
# what getsockopt reports for an option never set, by socket type: (level, name) → value
DEFAULT_OPTS = {
    SOCK_STREAM: {(SOL_SOCKET, SO_SNDBUF): 16384, (SOL_SOCKET, SO_RCVBUF): 131072},
    SOCK_DGRAM: {(SOL_SOCKET, SO_SNDBUF): 212992, (SOL_SOCKET, SO_RCVBUF): 212992},
}
_PROTO = {SOCK_STREAM: IPPROTO_TCP, SOCK_DGRAM: IPPROTO_UDP}

ANY6 = bytes(16)
MAPPED = bytes(10) + b"\xff\xff"
ANY4 = MAPPED + bytes(4)
LOOP4 = MAPPED + bytes((127, 0, 0, 1))
LOOP6 = bytes(15) + b"\x01"

# connection states (TCP); a UDP socket is NEW or CONNECTED (has a default peer)
NEW, LISTEN, CONNECTING, CONNECTED, CLOSED = "new", "listen", "connecting", "connected", "closed"


def is_v4(ip: bytes) -> bool:
    return ip[:12] == MAPPED


def is_loopback(ip: bytes) -> bool:
    return ip == LOOP6 or (is_v4(ip) and ip[12] == 127)


def is_wildcard(ip: bytes) -> bool:
    return ip in (ANY6, ANY4)


# ---------------------------------------------------------------- sockaddr in and out

def decode_sockaddr(sock: "LoopSocket", raw: bytes):
    """(ip16, port) from a Linux sockaddr_in/_in6 given to a socket of sock's family."""
    if len(raw) < 2:
        raise VfsError(E.EINVAL)
    family = struct.unpack_from("<H", raw)[0]
    if sock.family == AF_INET:
        if len(raw) < 16:
            raise VfsError(E.EINVAL)
        if family != AF_INET:
            raise VfsError(E.EAFNOSUPPORT)
        return MAPPED + raw[4:8], struct.unpack_from(">H", raw, 2)[0]
    if len(raw) < 24:
        raise VfsError(E.EINVAL)
    if family != AF_INET6:
        raise VfsError(E.EAFNOSUPPORT)
    return raw[8:24], struct.unpack_from(">H", raw, 2)[0]


def encode_sockaddr(family: int, ip: bytes, port: int) -> bytes:
    if family == AF_INET:
        return struct.pack("<H", AF_INET) + struct.pack(">H", port) + ip[12:16] + bytes(8)
    return struct.pack("<H", AF_INET6) + struct.pack(">H", port) + bytes(4) + ip + bytes(4)


def text_address(ip: bytes, port: int) -> str:
    if is_v4(ip):
        return "%d.%d.%d.%d:%d" % (*ip[12:16], port)
    return "[%s]:%d" % (":".join("%x" % w for w in struct.unpack(">8H", ip)), port)


# ---------------------------------------------------------------- the guest's lo interface

class LoopNet:
    """Every bound loopback socket, by protocol and port, shared by all emulated processes."""

    def __init__(self, clock):
        self.bound = {}                   # (stype, port) → [LoopSocket]
        self.next_port = EPHEMERAL_FIRST
        self.time_waits = TimeWaits(clock)     # TCP: closed connections whose ports still wait

    @staticmethod
    def of(kernel) -> "LoopNet":
        """The kernel's loopback network, made when its first Internet socket is."""
        if kernel.loopnet is None:
            kernel.loopnet = LoopNet(kernel.world.monotonic_ns)
        return kernel.loopnet

    def users(self, stype: int, port: int) -> list:
        return self.bound.get((stype, port), [])

    def conflicts(self, sock: "LoopSocket", ip: bytes, port: int) -> bool:
        """Would binding sock to ip:port clash with a socket already bound there? (Linux:
        overlapping addresses clash unless both set SO_REUSEPORT, or both set SO_REUSEADDR and,
        for TCP, neither listens.)"""
        for other in self.users(sock.stype, port):
            if other is sock or not (other.covers(ip) or sock_covers(sock, ip, other.local[0])):
                continue
            if sock.opt(SOL_SOCKET, SO_REUSEPORT) and other.opt(SOL_SOCKET, SO_REUSEPORT):
                continue
            if sock.opt(SOL_SOCKET, SO_REUSEADDR) and other.opt(SOL_SOCKET, SO_REUSEADDR) and \
                    (sock.stype == SOCK_DGRAM or other.state != LISTEN):
                continue
            return True
        return sock.stype == SOCK_STREAM and self.time_wait_conflicts(sock, ip, port)

    def time_wait_conflicts(self, sock: "LoopSocket", ip: bytes, port: int) -> bool:
        for tw in self.time_waits.at(port):
            if not sock_covers(sock, ip, tw.ip):
                continue
            if sock.opt(SOL_SOCKET, SO_REUSEADDR) and tw.reuseaddr:
                continue
            if sock.opt(SOL_SOCKET, SO_REUSEPORT) and tw.reuseport:
                continue
            return True
        return False

    def bind(self, sock: "LoopSocket", ip: bytes, port: int, connecting: bool = False) -> None:
        if port == 0:
            port = self.ephemeral(sock, ip, connecting)
        elif self.conflicts(sock, ip, port):
            raise VfsError(E.EADDRINUSE)
        sock.local = (ip, port)
        self.bound.setdefault((sock.stype, port), []).append(sock)

    def ephemeral(self, sock: "LoopSocket", ip: bytes, connecting: bool = False) -> int:
        """The next free port in sequence; one in TIME_WAIT only for a connect, and only when
        nothing else is free (Linux's tcp_tw_reuse on loopback)."""
        span = EPHEMERAL_LAST - EPHEMERAL_FIRST + 1
        for allow_time_wait in (False, True) if connecting else (False,):
            for _ in range(span):
                port = self.next_port
                self.next_port = EPHEMERAL_FIRST + (port + 1 - EPHEMERAL_FIRST) % span
                if not self.users(sock.stype, port) and (
                        allow_time_wait or sock.stype != SOCK_STREAM or not self.time_waits.at(port)):
                    return port
        raise VfsError(E.EADDRINUSE if sock.stype == SOCK_DGRAM else E.EAGAIN)

    def unbind(self, sock: "LoopSocket") -> None:
        if sock.local is None:
            return
        users = self.bound.get((sock.stype, sock.local[1]))
        if users and sock in users:
            users.remove(sock)
            if not users:
                del self.bound[(sock.stype, sock.local[1])]

    def find(self, stype: int, ip: bytes, port: int, want=None) -> Optional["LoopSocket"]:
        """The socket that receives what is sent to ip:port: an exact binding before a wildcard."""
        best = None
        for s in self.users(stype, port):
            if (want is None or s.state == want) and s.covers(ip):
                if s.local[0] == ip:
                    return s
                best = best or s
        return best


def sock_covers(sock: "LoopSocket", bound_ip: bytes, ip: bytes) -> bool:
    """Does a binding to bound_ip by sock receive traffic for ip?"""
    if bound_ip == ip:
        return True
    if bound_ip == ANY6:
        return not is_v4(ip) or not sock.opt(IPPROTO_IPV6, IPV6_V6ONLY)
    return bound_ip == ANY4 and is_v4(ip)


# ---------------------------------------------------------------- the socket

class LoopSocket(OpenFile):
    kind = "socket"
    seekable = False

    def __init__(self, kernel, family: int, stype: int, proto: int, flags: int, ino: int):
        super().__init__(f"socket:[{ino}]", O_RDWR | flags, None)
        self.kernel, self.family, self.stype, self.ino = kernel, family, stype, ino
        self.proto = proto or _PROTO[stype]
        self.net = LoopNet.of(kernel)
        self.state = NEW
        self.local = None                 # (ip16, port) once bound
        self.peer = None                  # (ip16, port) once connected
        self.opts = {}                    # (level, name) → int, as set by setsockopt
        self.error = 0                    # SO_ERROR: reported once, by the next call that looks
        self.host = None                  # --net: the host socket this one became
        # TCP
        self.rx: Optional[Pipe] = None    # what this end reads
        self.tx: Optional[Pipe] = None    # what the peer reads
        self.peer_sock: Optional[LoopSocket] = None
        self.reset = False                # the peer answered with RST
        self.backlog = []                 # LISTEN: established, not yet accepted
        self.backlog_max = 0
        self.syn_queue = []               # LISTEN: clients waiting for room in the backlog
        self.listener = None              # CONNECTING: the listener whose syn_queue holds us
        self.connect_waiting = False      # a blocking connect sleeps until the handshake ends
        self.fin_sent = False             # this end has sent its FIN (close, shutdown SHUT_WR)
        self.closes_first = False         # ... before the peer's: it is the one that will TIME_WAIT
        self.time_wait = None             # its timewait.TimeWait once closed
        # UDP
        self.dgrams = deque()             # (payload, ip16, port)
        self.dgram_bytes = 0

    @property
    def sock(self):
        """The host socket under --net (the scheduler waits on those in real time), else None."""
        return self.host.sock if self.host is not None else None

    # -- options ------------------------------------------------------------------------
    def opt(self, level: int, name: int) -> int:
        return self.opts.get((level, name), DEFAULT_OPTS[self.stype].get((level, name), 0))

    def covers(self, ip: bytes) -> bool:
        return self.local is not None and sock_covers(self, self.local[0], ip)

    def source_for(self, dest: bytes) -> bytes:
        """The local address Linux picks for a connection to dest over lo."""
        if self.local is not None and not is_wildcard(self.local[0]):
            return self.local[0]
        return LOOP4 if is_v4(dest) else LOOP6

    def autobind(self, dest: bytes) -> None:
        if self.local is None:
            self.net.bind(self, self.source_for(dest), 0, connecting=True)
        elif is_wildcard(self.local[0]):
            self.local = (self.source_for(dest), self.local[1])

    # -- TCP connection -----------------------------------------------------------------
    def establish(self, server_end: "LoopSocket") -> None:
        """Join this connecting client to a fresh server end and queue that end for accept."""
        limits = self.kernel.limits           # both directions count against the "buffers" bound
        self.rx, server_end.rx = Pipe(limits), Pipe(limits)
        self.tx, server_end.tx = server_end.rx, self.rx
        for p in (self.rx, self.tx):
            p.readers += 1
            p.writers += 1
        self.peer_sock, server_end.peer_sock = server_end, self
        self.state = server_end.state = CONNECTED
        server_end.local, server_end.peer = self.peer, self.local
        self.listener = None

    def take_error(self) -> int:
        err, self.error = self.error, 0
        return err

    def read(self, n: int) -> bytes:
        if self.host is not None:
            return self.host.read(n)
        return self.recv(n, 0)[0]

    def write(self, data: bytes) -> int:
        if self.host is not None:
            self.host.flags = self.flags
            return self.host.write(data)
        return self.send_stream(data)

    def recv(self, n: int, flags: int):
        """(data, sender ip16, sender port); WouldBlock when nothing is there yet."""
        if self.stype == SOCK_DGRAM:
            return self.recv_dgram(n, flags)
        if self.error:
            raise VfsError(self.take_error())
        if self.state != CONNECTED:
            raise VfsError(E.ENOTCONN)
        if self.rx is None:                       # shut down for reading: end of file
            return b"", None, 0
        if self.rx.buf and flags & MSG_PEEK:
            return bytes(self.rx.buf[:n]), None, 0
        return self.rx.take(n), None, 0

    def send_stream(self, data: bytes) -> int:
        if self.error:
            raise VfsError(self.take_error())
        if self.state == CONNECTING:
            raise WouldBlock()                    # Linux waits for the handshake to end
        if self.state != CONNECTED:
            raise VfsError(E.EPIPE)               # sk_stream_wait_connect: not connected, not connecting
        if self.tx is None or self.tx.writers == 0 or self.reset:
            raise VfsError(E.EPIPE)
        if self.tx.readers == 0:
            # the peer is gone: Linux sends these bytes, the peer answers RST, and the next
            # call reports it: EPIPE after the peer's FIN (CLOSE_WAIT), else ECONNRESET
            self.reset = True
            self.error = E.EPIPE if self.rx is None or self.rx.writers == 0 else E.ECONNRESET
            return len(data)
        return self.tx.put(data)

    def shutdown(self, how: int) -> None:
        if self.stype == SOCK_DGRAM:
            if self.state != CONNECTED:
                raise VfsError(E.ENOTCONN)
            return
        if self.state == LISTEN and how in (SHUT_RD, SHUT_RDWR):
            self.stop_listening()
            return
        if self.state != CONNECTED:
            raise VfsError(E.ENOTCONN)
        if how in (SHUT_RD, SHUT_RDWR) and self.rx is not None:
            self.rx.readers -= 1
            self.rx = None
        if how in (SHUT_WR, SHUT_RDWR) and self.tx is not None and self.tx.writers:
            self.tx.writers -= 1               # the peer reads end of file after what was sent
            self.send_fin()

    def send_fin(self) -> None:
        """Our FIN: the first of the two makes this end the active closer; the second ends the
        active closer's FIN_WAIT_2, so its TIME_WAIT starts again from now."""
        if self.fin_sent:
            return
        self.fin_sent = True
        peer = self.peer_sock
        self.closes_first = peer is None or not peer.fin_sent
        if peer is not None and peer.time_wait is not None:
            self.net.time_waits.restart(peer.time_wait)

    # -- UDP ----------------------------------------------------------------------------
    def recv_dgram(self, n: int, flags: int):
        if self.error:
            raise VfsError(self.take_error())
        if not self.dgrams:
            raise WouldBlock()
        data, ip, port = self.dgrams[0]
        if not flags & MSG_PEEK:
            self.dgrams.popleft()
            self.dgram_bytes -= len(data)
        return data, ip, port, len(data)

    def deliver(self, data: bytes, ip: bytes, port: int) -> None:
        if self.dgram_bytes + len(data) > UDP_RCVBUF:
            return                                 # a full receive buffer drops, as UDP does
        self.dgrams.append((data, ip, port))
        self.dgram_bytes += len(data)

    # -- readiness, identity, end -------------------------------------------------------
    def ready(self) -> int:
        if self.host is not None:
            return self.host.ready()
        err = POLLERR if self.error else 0
        if self.stype == SOCK_DGRAM:
            return (POLLIN if self.dgrams or self.error else 0) | POLLOUT | err
        if self.state == LISTEN:
            return POLLIN if self.backlog else 0
        if self.state == CONNECTING:
            return 0
        if self.state != CONNECTED:
            return POLLOUT | POLLHUP | (POLLIN | err if self.error else 0)
        peer_done = self.rx is None or self.rx.writers == 0
        mask = err
        if self.rx is None or self.rx.buf or peer_done or self.error:
            mask |= POLLIN
        if peer_done:
            mask |= POLLRDHUP
        if self.tx is None or self.tx.readers == 0 or len(self.tx.buf) < Pipe.CAPACITY:
            mask |= POLLOUT
        wr_done = self.tx is None or self.tx.writers == 0
        if self.reset or (peer_done and wr_done):
            mask |= POLLHUP
        return mask

    def stat(self):
        return StatInfo(mode=S_IFSOCK | 0o777, ino=self.ino, dev=0x8, blksize=4096)

    def stop_listening(self) -> None:
        """A listener going away resets what it never accepted and refuses who still waits."""
        for conn in self.backlog:
            peer = conn.peer_sock
            conn.close()
            if peer is not None:
                peer.reset, peer.error = True, E.ECONNRESET
        for client in self.syn_queue:
            client.state, client.error, client.listener = CLOSED, E.ECONNREFUSED, None
        self.backlog, self.syn_queue = [], []
        self.state = CLOSED

    def close(self) -> None:
        if self.host is not None:
            self.host.close()
        if self.state == LISTEN:
            self.stop_listening()
        if self.state == CONNECTING and self.listener is not None:
            self.listener.syn_queue.remove(self)
        if self.state == CONNECTED and self.peer_sock is not None:
            peer = self.peer_sock
            resets = self.rx is not None and bool(self.rx.buf)
            if resets:
                peer.reset, peer.error = True, E.ECONNRESET   # unread data: Linux sends RST
            if self.rx is not None:
                self.rx.readers -= 1
            if self.tx is not None and self.tx.writers:
                self.tx.writers -= 1
            self.rx = None
            self.send_fin()
            if self.closes_first and not resets and not self.reset and self.local is not None:
                self.time_wait = self.net.time_waits.start(
                    self.local[0], self.local[1], bool(self.opt(SOL_SOCKET, SO_REUSEADDR)),
                    bool(self.opt(SOL_SOCKET, SO_REUSEPORT)))
        self.state = CLOSED
        self.net.unbind(self)


# ---------------------------------------------------------------- the calls (net.py dispatches)

def new_socket(proc, family: int, stype: int, proto: int, flags: int):
    """A LoopSocket, or -errno for a type or protocol Linux's inet families do not offer."""
    if stype not in _PROTO:
        return -E.ESOCKTNOSUPPORT if stype in (3, 5) else -E.EINVAL
    if proto not in (0, _PROTO[stype]):
        return -E.EPROTONOSUPPORT
    return LoopSocket(proc.kernel, family, stype, proto, flags, proc.kernel.vfs.new_ino())


def bind(proc, sock: LoopSocket, raw: bytes) -> int:
    ip, port = decode_sockaddr(sock, raw)
    if sock.local is not None:
        return -E.EINVAL
    if not (is_loopback(ip) or is_wildcard(ip)):
        return -E.EADDRNOTAVAIL                    # the guest has no other interface
    if sock.family == AF_INET6 and ip == ANY4 and sock.opt(IPPROTO_IPV6, IPV6_V6ONLY):
        return -E.EADDRNOTAVAIL
    sock.net.bind(sock, ip, port)
    return 0


def listen(proc, sock: LoopSocket, backlog: int) -> int:
    if sock.stype != SOCK_STREAM:
        return -E.EOPNOTSUPP
    if sock.state not in (NEW, LISTEN):
        return -E.EINVAL
    if sock.local is None:
        sock.net.bind(sock, ANY4 if sock.family == AF_INET else ANY6, 0)
    elif sock.state == NEW and sock.net.find(SOCK_STREAM, sock.local[0], sock.local[1], want=LISTEN) \
            not in (None, sock) and not sock.opt(SOL_SOCKET, SO_REUSEPORT):
        return -E.EADDRINUSE
    sock.backlog_max = min(max(backlog, 0), SOMAXCONN)
    sock.state = LISTEN
    while sock.syn_queue and len(sock.backlog) <= sock.backlog_max:
        admit(sock)
    return 0


def admit(listener: LoopSocket) -> None:
    """Move the first waiting client into the accept queue: its handshake completes now."""
    client = listener.syn_queue.pop(0)
    server_end = LoopSocket(listener.kernel, listener.family, SOCK_STREAM, listener.proto, 0,
                            listener.kernel.vfs.new_ino())
    server_end.opts = dict(listener.opts)
    client.establish(server_end)
    listener.backlog.append(server_end)


def connect(proc, sock: LoopSocket, raw: bytes, net_allowed: bool):
    """0, -errno, or the string "host" when --net must take this connection to the host."""
    if len(raw) >= 2 and struct.unpack_from("<H", raw)[0] == AF_UNSPEC:
        if sock.stype == SOCK_DGRAM:
            sock.peer, sock.state = None, NEW      # dissolve the association
        return 0
    if sock.stype == SOCK_STREAM and sock.state == CONNECTING:
        if sock.connect_waiting:
            return wait_connected(proc, sock)
        return -E.EALREADY
    if sock.stype == SOCK_STREAM and sock.state == CONNECTED:
        if sock.connect_waiting:
            sock.connect_waiting = False
            return 0
        return -E.EISCONN
    if sock.stype == SOCK_STREAM and sock.state == LISTEN:
        return -E.EISCONN
    ip, port = decode_sockaddr(sock, raw)
    if is_wildcard(ip):
        ip = LOOP4 if is_v4(ip) else LOOP6        # Linux takes "any" as the local host
    if not is_loopback(ip):
        return "host" if net_allowed else -E.ENETUNREACH
    if sock.family == AF_INET6 and is_v4(ip) and sock.opt(IPPROTO_IPV6, IPV6_V6ONLY):
        return -E.ENETUNREACH
    if sock.stype == SOCK_DGRAM:
        sock.autobind(ip)
        sock.peer, sock.state = (ip, port), CONNECTED
        return 0
    if sock.error and sock.state == CLOSED:
        sock.error = 0                             # a new attempt after a refused one
    sock.autobind(ip)
    sock.peer = (ip, port)
    listener = sock.net.find(SOCK_STREAM, ip, port, want=LISTEN) if port else None
    if listener is None:                           # RST: nothing listens there
        sock.peer = None
        if sock.flags & O_NONBLOCK:
            sock.state, sock.error = CLOSED, E.ECONNREFUSED
            return -E.EINPROGRESS
        sock.state = CLOSED
        return -E.ECONNREFUSED
    sock.state, sock.listener = CONNECTING, listener
    listener.syn_queue.append(sock)
    if len(listener.backlog) <= listener.backlog_max:
        admit(listener)
    if sock.flags & O_NONBLOCK:
        return -E.EINPROGRESS                      # Linux's answer on lo too, even when done at once
    if sock.state == CONNECTED:
        return 0
    sock.connect_waiting = True
    return wait_connected(proc, sock)


def wait_connected(proc, sock: LoopSocket) -> int:
    if sock.state == CONNECTING:
        raise Block(Wait("io", f"connect to {text_address(*sock.peer)}", proc.thread,
                         ready=lambda: sock.state != CONNECTING, restart="sys"))
    sock.connect_waiting = False
    if sock.state == CONNECTED:
        return 0
    return -(sock.take_error() or E.ECONNREFUSED)


def accept(proc, sock: LoopSocket, flags: int):
    """The accepted LoopSocket, or -errno."""
    if sock.stype != SOCK_STREAM:
        return -E.EOPNOTSUPP
    if sock.state != LISTEN:
        return -E.EINVAL

    def take():
        if not sock.backlog:
            raise WouldBlock()
        conn = sock.backlog.pop(0)
        if sock.syn_queue:
            admit(sock)
        return conn
    conn = blocking(proc, sock, take)
    if isinstance(conn, int):
        return conn
    if flags & O_NONBLOCK:
        conn.flags |= O_NONBLOCK
    return conn


def send(proc, sock: LoopSocket, data: bytes, flags: int, raw_target: Optional[bytes], net_allowed: bool):
    """Bytes sent, -errno, or "host" when --net must carry this datagram."""
    try:
        if sock.stype == SOCK_STREAM:                 # (TCP ignores a destination address)
            op = (lambda: sock.send_stream(data))
            if flags & MSG_DONTWAIT:
                try:
                    return op()
                except WouldBlock:
                    return -E.EAGAIN
            return blocking(proc, sock, op)
        return send_dgram(proc, sock, data, raw_target, net_allowed)
    except VfsError as e:
        if e.errno == E.EPIPE and not flags & MSG_NOSIGNAL:
            raise_sigpipe(proc)
        raise


def send_dgram(proc, sock: LoopSocket, data: bytes, raw_target, net_allowed: bool):
    if sock.error:
        return -sock.take_error()
    if raw_target is None:
        if sock.peer is None:
            return -E.EDESTADDRREQ
        ip, port = sock.peer
    else:
        ip, port = decode_sockaddr(sock, raw_target)
        if is_wildcard(ip):
            ip = LOOP4 if is_v4(ip) else LOOP6
        if not is_loopback(ip):
            return "host" if net_allowed else -E.ENETUNREACH
        if port == 0:
            return -E.EINVAL
    if len(data) > UDP_MAX_PAYLOAD:
        return -E.EMSGSIZE
    if sock.local is None:                        # Linux binds an unbound sender to the wildcard
        sock.net.bind(sock, ANY4 if sock.family == AF_INET else ANY6, 0)
    source = (sock.source_for(ip), sock.local[1])
    target = sock.net.find(SOCK_DGRAM, ip, port)
    if target is None or (target.peer is not None and target.peer != source):
        if sock.peer is not None:                 # ICMP port unreachable reaches connected sockets
            sock.error = E.ECONNREFUSED
        return len(data)
    target.deliver(data, *source)
    return len(data)


def recv(proc, sock: LoopSocket, n: int, flags: int):
    """(data, sender sockaddr bytes, full datagram length) or -errno."""
    def op():
        got = sock.recv(n, flags)
        return got if len(got) == 4 else (*got, len(got[0]))
    if flags & MSG_DONTWAIT or sock.flags & O_NONBLOCK:
        try:
            got = op()
        except WouldBlock:
            return -E.EAGAIN
    else:
        got = blocking(proc, sock, op)
        if isinstance(got, int):
            return got
    data, ip, port, full = got
    sender = encode_sockaddr(sock.family, ip, port) if ip is not None else b""
    return data[:n], sender, full


def sockname(sock: LoopSocket, peer: bool):
    """The sockaddr bytes, or -errno."""
    if peer:
        if sock.peer is None or (sock.stype == SOCK_STREAM and sock.state != CONNECTED):
            return -E.ENOTCONN
        return encode_sockaddr(sock.family, *sock.peer)
    ip, port = sock.local or ((ANY4 if sock.family == AF_INET else ANY6), 0)
    return encode_sockaddr(sock.family, ip, port)


def setsockopt(sock: LoopSocket, level: int, name: int, value: bytes) -> int:
    if len(value) < 4:
        return -E.EINVAL
    v = struct.unpack_from("<i", value)[0]
    if (level, name) == (IPPROTO_IPV6, IPV6_V6ONLY):
        if sock.family != AF_INET6:
            return -E.ENOPROTOOPT
        if sock.local is not None:
            return -E.EINVAL
        v = int(bool(v))
    if (level, name) in ((SOL_SOCKET, SO_SNDBUF), (SOL_SOCKET, SO_RCVBUF)):
        v = max(v * 2, 2304 if name == SO_SNDBUF else 2292)   # Linux doubles what it is given
    sock.opts[(level, name)] = v
    return 0


def getsockopt(sock: LoopSocket, level: int, name: int) -> int:
    if level == SOL_SOCKET:
        computed = {SO_TYPE: sock.stype, SO_DOMAIN: sock.family, SO_PROTOCOL: sock.proto,
                    SO_ACCEPTCONN: int(sock.state == LISTEN)}
        if name == SO_ERROR:
            return sock.take_error()
        if name in computed:
            return computed[name]
    return sock.opt(level, name)


def become_host(sock: LoopSocket, host_socket) -> None:
    """--net: from now on this socket is the host socket (a connection beyond lo)."""
    sock.net.unbind(sock)
    sock.host = host_socket
    host_socket.flags = sock.flags
