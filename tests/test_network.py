"""--net: Internet sockets pass through to the host (loopback servers started by the test);
without it they are denied."""
import http.server
import socket
import threading

from conftest import built, emutrace


def one_shot_server(reply=b"pong\n"):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
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
    e = emutrace(["--no-trace", "--net", "--timeout", "60", built("sock", "pie"), str(port)])
    t.join(10)
    assert b"connect 127.0.0.1:%d: ok" % port in e.stdout, e.stdout + e.stderr
    assert got == [b"hello from sock\n"]


def test_without_net_sockets_are_denied():
    e = emutrace(["--no-trace", built("sock", "pie"), "9"])
    assert b"socket: EACCES" in e.stdout


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

    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        code = ("import urllib.request; print(urllib.request.urlopen("
                f"'http://127.0.0.1:{srv.server_address[1]}/x', timeout=20).read().decode(), end='')")
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
    srv.bind(("127.0.0.1", 0))
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
            f"s = socket.create_connection(('127.0.0.1', {srv.getsockname()[1]}))\n"
            "s.sendall(b'hi')\n"
            "select.select([s], [], [])\n"            # no timeout: waits until the data is there
            "print(s.recv(100).decode(), end='')\n"
            "s.settimeout(20)\n"                      # poll with a timeout, as urllib does
            "print(s.recv(100).decode(), end='')\n")
    e = emutrace(["--no-trace", "--net", "--timeout", "60", "/usr/bin/python3", "-c", code])
    t.join(10)
    assert e.stdout == b"first\nsecond\n", e.stderr[-2000:]
