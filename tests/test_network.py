"""--net: Internet sockets beyond the guest's own loopback pass through to the host (servers
started by the test on the host's non-loopback address); without it they are unreachable."""
import http.server
import socket
import threading

import pytest

from conftest import built, emutrace


def host_address() -> str:
    """This host's own non-loopback IPv4 address (the guest's 127.0.0.1 is the guest's)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.connect(("192.0.2.1", 9))          # no packet is sent; the route picks the source
            addr = u.getsockname()[0]
    except OSError:
        addr = "127.0.0.1"
    if addr.startswith("127."):
        pytest.skip("this host has no non-loopback IPv4 address")
    return addr


def one_shot_server(reply=b"pong\n"):
    srv = socket.socket()
    srv.bind((host_address(), 0))
    srv.listen(1)
    got = []

    def serve():
        srv.settimeout(60)
        c, _ = srv.accept()
        got.append(c.recv(100))
        c.sendall(reply)
        c.close()
        srv.close()
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return srv.getsockname()[1], got, t


def test_tcp_client_reaches_a_loopback_server_with_net():
    port, got, t = one_shot_server()
    addr = host_address()
    e = emutrace(["--no-trace", "--net", "--timeout", "60", built("sock", "pie"), str(port), addr])
    t.join(10)
    assert b"connect %s:%d: ok" % (addr.encode(), port) in e.stdout, e.stdout + e.stderr
    assert got == [b"hello from sock\n"]


def test_without_net_other_networks_are_unreachable():
    e = emutrace(["--no-trace", built("sock", "pie"), "9", "192.0.2.1"])
    assert e.stdout.startswith(b"socket: ok\nconnect 192.0.2.1:9: ENETUNREACH\n"), e.stdout


def test_python_http_client_with_net():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"hello over http\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer((host_address(), 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        code = ("import urllib.request; print(urllib.request.urlopen("
                f"'http://{srv.server_address[0]}:{srv.server_address[1]}/x', timeout=20).read().decode(), end='')")
        e = emutrace(["--no-trace", "--net", "--timeout", "120", "/usr/bin/python3", "-c", code])
        assert e.stdout == b"hello over http\n", e.stderr[-2000:]
    finally:
        srv.shutdown()


UNIX_FORK = """
import os, socket, tempfile
p = tempfile.mktemp()
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)
if os.fork() == 0:
    c = socket.socket(socket.AF_UNIX); c.connect(p); c.sendall(b"hi from the child"); c.close(); os._exit(0)
conn, _ = s.accept()
print(conn.recv(100), os.wait()[1])
try:
    socket.socket(socket.AF_UNIX).connect(p + ".missing")
except OSError as e:
    print(type(e).__name__)
"""


def test_unix_socket_between_processes_like_native():
    from conftest import native
    n = native(["/usr/bin/python3", "-c", UNIX_FORK])
    e = emutrace(["--no-trace", "/usr/bin/python3", "-c", UNIX_FORK])
    assert e.stdout == n.stdout == b"b'hi from the child' 0\nFileNotFoundError\n", e.stderr[-2000:]


def test_multiprocessing_manager():
    code = ("from multiprocessing import Manager\nwith Manager() as m:\n"
            "    d = m.dict(); d['a'] = 1; l = m.list([1, 2]); l.append(3); print(dict(d), list(l))")
    e = emutrace(["--no-trace", "--timeout", "120", "/usr/bin/python3", "-c", code])
    assert e.stdout == b"{'a': 1} [1, 2, 3]\n", e.stderr[-2000:]


def test_waits_for_the_network_in_real_time():
    """A guest waiting in poll/select on a host socket while nothing else can run waits for the
    network in real time: the virtual clock must not jump past a socket timeout (or find a
    deadlock, with no timeout at all) while the server is still answering."""
    import time
    srv = socket.socket()
    srv.bind((host_address(), 0))
    srv.listen(1)

    def serve():
        srv.settimeout(60)
        c, _ = srv.accept()
        c.recv(100)
        time.sleep(0.7)                      # slower than the guest's first wait
        c.sendall(b"first\n")
        time.sleep(0.7)
        c.sendall(b"second\n")
        c.close()
        srv.close()
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    code = ("import socket, select\n"
            f"s = socket.create_connection({srv.getsockname()!r})\n"
            "s.sendall(b'hi')\n"
            "select.select([s], [], [])\n"            # no timeout: waits until the data is there
            "print(s.recv(100).decode(), end='')\n"
            "s.settimeout(20)\n"                      # poll with a timeout, as urllib does
            "print(s.recv(100).decode(), end='')\n")
    e = emutrace(["--no-trace", "--net", "--timeout", "60", "/usr/bin/python3", "-c", code])
    t.join(10)
    assert e.stdout == b"first\nsecond\n", e.stderr[-2000:]
