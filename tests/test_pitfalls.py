"""Where other emulators get Linux wrong (shared/pitfalls.md): each case run natively and under
emutrace must print the same."""
import pytest

from conftest import emutrace, native

CASES = {
    "mremap_grows_a_mapping_grown_in_place_before": """
import mmap
P = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
a = mmap.mmap(-1, 4096, flags=P)
b = mmap.mmap(-1, 4096, flags=P)   # placed below a (top-down)
b[:5] = b"hello"
a.close()                          # the pages above b are free: b grows in place
b.resize(8192)
b[4096:4101] = b"world"
b.resize(3 * 4096)                 # the range spans what were two mappings (apt's cache does this)
b[8192:8194] = b"!!"
print(b[:5], b[4096:4101], b[8192:8194], len(b))
""",    "rlimit_nofile_gives_emfile": """
import os, resource, errno
resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))
fds = []
try:
    while True:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    print("stopped with", errno.errorcode[e.errno], "after", len(fds) > 5)
""",
    "rlimit_as_makes_allocations_fail": """
import resource
resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))
try:
    b = bytearray(600 << 20)
    print("allocated")
except MemoryError:
    print("MemoryError")
""",
    "lseek_on_pipe_is_espipe": """
import os, errno
r, w = os.pipe2(os.O_CLOEXEC)
try:
    os.lseek(r, 0, 0)
except OSError as e:
    print(errno.errorcode[e.errno])
print(os.isatty(r), os.get_blocking(r))
""",
    "nonblocking_recv_is_eagain": """
import socket
a, b = socket.socketpair()
b.setblocking(False)
try:
    b.recv(10)
except BlockingIOError as e:
    print("EAGAIN", e.errno)
""",
    "lstat_does_not_follow_and_times_are_integers": """
import os, tempfile, stat
d = tempfile.mkdtemp()
os.symlink("/nonexistent-target", d + "/l")
st = os.lstat(d + "/l")
print(stat.S_ISLNK(st.st_mode), isinstance(st.st_mtime_ns, int))
try:
    os.stat(d + "/l")
except FileNotFoundError:
    print("ENOENT when followed")
""",
    "missing_xattr_is_enodata": """
import os, errno
try:
    os.getxattr("/etc/passwd", "user.nothing")
except OSError as e:
    print(errno.errorcode[e.errno])
""",
    "missing_path_is_enoent": """
import os
try:
    os.open("/nonexistent/file", os.O_RDONLY)
except FileNotFoundError as e:
    print("ENOENT", e.errno)
""",
    "tcgets_on_a_file_is_enotty": """
import os, termios, errno
fd = os.open("/etc/passwd", os.O_RDONLY)
try:
    termios.tcgetattr(fd)
except termios.error as e:
    print(errno.errorcode[e.args[0]])
""",
    "utimensat_link_statvfs": """
import os, tempfile
d = tempfile.mkdtemp()
p = d + "/f"
open(p, "w").write("x")
os.utime(p, ns=(1_000_000_000, 2_000_000_000))
print(os.stat(p).st_mtime_ns)
os.link(p, d + "/g")
print(os.stat(p).st_nlink, open(d + "/g").read())
print(os.statvfs("/").f_bsize > 0)
""",
    "long_double_formatting": """
import ctypes
libc = ctypes.CDLL(None)
buf = ctypes.create_string_buffer(64)
libc.snprintf(buf, 64, b"%.6Lf", ctypes.c_longdouble(3.25))
print(buf.value.decode())
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pitfall(name):
    code = CASES[name]
    n = native(["/usr/bin/python3", "-c", code])
    e = emutrace(["--no-trace", "/usr/bin/python3", "-c", code])
    assert n.stdout and e.stdout == n.stdout, (n.stdout, e.stdout, e.stderr[-2000:])
