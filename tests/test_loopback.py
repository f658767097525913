"""The guest's own loopback network (syscalls/inet.py): TCP and UDP over 127.0.0.0/8 and ::1
between guest processes and threads, compared with native runs; nothing else is reachable
without --net, and with --net the guest's loopback stays the guest's."""
import shutil
import socket
import threading

import pytest

from conftest import STILL_DIR, built, emutrace, native, runs_like_native

ASYNCIO = """
import asyncio
async def handle(r, w):
    data = await r.readline()
    w.write(b"echo: " + data)
    await w.drain()
    w.close()
    await w.wait_closed()
async def main():
    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    for i in range(3):
        r, w = await asyncio.open_connection("127.0.0.1", port)
        w.write(b"hello %d\\n" % i)
        await w.drain()
        print((await r.read()).decode(), end="")
        w.close()
        await w.wait_closed()
    srv.close()
    await srv.wait_closed()
    print("ephemeral", 32768 <= port <= 60999)
asyncio.run(main())
"""

BAD_INPUT = r"""
import ctypes, errno, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
def r(v):
    return "ok" if v >= 0 else errno.errorcode[ctypes.get_errno()]
def sin(port=0, ip=b"\x7f\0\0\x01", fam=socket.AF_INET):
    return ctypes.create_string_buffer(struct.pack("<H", fam) + struct.pack(">H", port) + ip + bytes(8), 16)
out = []
for name, args in [("seqpacket", (socket.AF_INET, socket.SOCK_SEQPACKET, 0)), ("tcp/udp", (socket.AF_INET, socket.SOCK_STREAM, 17)),
                   ("type 99", (socket.AF_INET, 99, 0)), ("udp/tcp v6", (socket.AF_INET6, socket.SOCK_DGRAM, 6))]:
    out.append(f"socket {name}: {r(libc.socket(*args))}")
t = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
u = libc.socket(socket.AF_INET, socket.SOCK_DGRAM, 0)
a = sin()
out.append(f"bind wild pointer: {r(libc.bind(t, ctypes.c_void_p(16), 16))}")
out.append(f"bind short length: {r(libc.bind(t, a, 4))}")
out.append(f"bind bad fd: {r(libc.bind(999, a, 16))}, not a socket: {r(libc.bind(0, a, 16))}")
out.append(f"bind v6 address on v4: {r(libc.bind(t, ctypes.create_string_buffer(struct.pack('<H', 10) + bytes(26), 28), 28))}")
out.append(f"listen udp: {r(libc.listen(u, 1))}, accept unlistened: {r(libc.accept(t, None, None))}")
out.append(f"accept4 bad flags: {r(libc.accept4(t, None, None, 0x7))}")
out.append(f"shutdown how 7: {r(libc.shutdown(t, 7))}, unconnected: {r(libc.shutdown(t, 1))}")
one = ctypes.c_int(1)
out.append(f"setsockopt optlen 2: {r(libc.setsockopt(t, 1, 2, ctypes.byref(one), 2))}")
ln = ctypes.c_int(4)
out.append(f"getsockopt wild optval: {r(libc.getsockopt(t, 1, 3, ctypes.c_void_p(16), ctypes.byref(ln)))}")
out.append(f"getsockopt wild optlen: {r(libc.getsockopt(t, 1, 3, ctypes.byref(one), ctypes.c_void_p(16)))}")
out.append(f"sendto short addrlen: {r(libc.sendto(u, b'x', 1, 0, a, 3))}")
out.append(f"sendto wild buffer: {r(libc.sendto(u, ctypes.c_void_p(16), 10, 0, sin(9), 16))}")
big = ctypes.create_string_buffer(70000)
out.append(f"udp datagram too big: {r(libc.sendto(u, big, 70000, 0, sin(9), 16))}")
out.append(f"getpeername unconnected: {r(libc.getpeername(t, a, ctypes.byref(ln)))}")
out.append(f"recv unconnected tcp: {r(libc.recv(t, big, 10, 0x40))}, send: {r(libc.send(t, b'x', 1, 0x4000))}")
out.append(f"connect port 0: {r(libc.connect(t, sin(0), 16))}")
print("\n".join(out))
"""

NAMES = """
import socket
print(socket.getaddrinfo("localhost", 80, socket.AF_INET, socket.SOCK_STREAM)[0][4])
try:
    socket.getaddrinfo("www.example.com", 80)
except socket.gaierror as e:
    print("gaierror", e.errno)
"""


def test_c_server_and_client_like_native():
    e = runs_like_native(built("inetloop", "pie"), "--timeout", "120")
    assert b"child got 18 bytes: reply to 30 bytes" in e.stdout
    assert b"udp to a closed port: POLLERR=1, recv ECONNREFUSED" in e.stdout


def test_loopback_traffic_is_the_same_every_run():
    prog = built("inetloop", "pie")
    runs = [emutrace(["--strace", "-f", "--timeout", "120", prog], cwd=STILL_DIR) for _ in range(2)]
    assert runs[0].returncode == 0
    assert runs[0].stderr == runs[1].stderr and runs[0].stdout == runs[1].stdout
    assert b"htons(32768)" in runs[0].stderr              # ephemeral ports in sequence


def test_other_addresses_are_unreachable_without_net():
    prog = built("inetloop", "pie")
    e = emutrace(["--no-trace", prog, "192.0.2.99", "80"])
    assert e.stdout == (b"connect 192.0.2.99: ENETUNREACH\nsendto 192.0.2.99: ENETUNREACH\n"
                        b"bind 192.0.2.99: EADDRNOTAVAIL\n")


def test_python_asyncio_tcp_like_native():
    n = native(["/usr/bin/python3", "-c", ASYNCIO])
    e = emutrace(["--no-trace", "--timeout", "120", "/usr/bin/python3", "-c", ASYNCIO])
    assert e.stdout == n.stdout == b"echo: hello 0\necho: hello 1\necho: hello 2\nephemeral True\n", \
        e.stderr[-2000:]


def test_localhost_resolves_and_other_names_fail_at_once():
    e = emutrace(["--no-trace", "--timeout", "60", "/usr/bin/python3", "-c", NAMES])
    # -3 is EAI_AGAIN: the nameserver in the guest's resolv.conf is not on the guest's network
    assert e.stdout == b"('127.0.0.1', 80)\ngaierror -3\n", e.stderr[-2000:]


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server not installed")
def test_redis_server_daemon_and_cli(tmp_path):
    script = ('redis-server --daemonize yes --port {port} --save "" --appendonly no --dir {d} '
              '--logfile {d}/redis.log && sleep 0.5 && redis-cli -p {port} set k hello && '
              'redis-cli -p {port} get k && redis-cli -p {port} shutdown nosave; echo rc=$?')
    with socket.socket() as s:                 # a free host port for the native run
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    n = native(["/bin/sh", "-c", script.format(port=port, d=tmp_path)])
    e = emutrace(["--no-trace", "--timeout", "200", "/bin/sh", "-c", script.format(port=6379, d="/tmp")])
    assert e.stdout == n.stdout == b"OK\nhello\nrc=0\n", e.stderr[-2000:]


def test_with_net_the_guest_loopback_stays_the_guests():
    """A host server on 127.0.0.1:P is not reachable from the guest, and the guest can listen on
    P itself: its loopback is its own even with --net."""
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(1)
    port = host.getsockname()[1]
    code = ("import socket\n"
            f"c = socket.socket()\nprint(c.connect_ex(('127.0.0.1', {port})))\n"
            f"s = socket.socket(); s.bind(('127.0.0.1', {port})); s.listen(1)\n"
            f"c = socket.create_connection(('127.0.0.1', {port})); a, _ = s.accept()\n"
            "c.sendall(b'inside'); print(a.recv(10).decode())\n")
    try:
        e = emutrace(["--no-trace", "--net", "--timeout", "60", "/usr/bin/python3", "-c", code])
    finally:
        host.close()
    assert e.stdout == b"111\ninside\n", e.stderr[-2000:]


def test_bad_input_gets_linux_errnos_like_native():
    """Bad types and protocols, wild pointers, short lengths, bad fds, wrong families and states."""
    n = native(["/usr/bin/python3", "-c", BAD_INPUT])
    e = emutrace(["--no-trace", "--timeout", "120", "/usr/bin/python3", "-c", BAD_INPUT])
    assert n.returncode == 0 and b"bind wild pointer: EFAULT" in n.stdout
    assert e.stdout == n.stdout, e.stderr[-2000:]
