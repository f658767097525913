"""The audit of every host call the engine makes, kept as a test.

emutrace promises Linux, macOS, Windows and arm64 hosts. Each name the engine takes from a host
module (os, select, socket, signal, mmap, ctypes, resource, ...) is listed in HOST_API with what
it means for portability:

- PORTABLE: CPython offers it with the same meaning on every supported host;
- GUARDED: some hosts lack it or it means something else there; every use must sit behind a
  check (try/except, hasattr/getattr, os.name or sys.platform) that leads to a fallback or a
  clear refusal, and the note says which.

A name the engine starts to use that is not listed fails `test_every_host_name_is_audited`, so
a new host dependency is looked at once, here, before it lands. The other tests check the
guards mechanically (every GUARDED use is inside a guard), that host errors are translated by
name and never by number, that no host /proc, /sys or /dev path is read by the engine, and the
fallbacks themselves, by taking the host feature away.
"""
from __future__ import annotations

import ast
import errno as host_errno
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENGINE_DIRS = ("emutrace", "loader", "syscalls")
HOST_MODULES = {"os", "select", "socket", "fcntl", "signal", "mmap", "ctypes", "resource", "termios",
                "pty", "tty", "pwd", "grp", "msvcrt", "winreg", "shutil", "platform", "tempfile",
                "subprocess", "multiprocessing", "threading", "selectors", "_thread"}

PORTABLE, GUARDED = "portable", "guarded"

# name -> (class, note). Notes on GUARDED names say what the guard is and what happens without it.
HOST_API = {
    # -- files and directories of --root (a host directory) and of --rw grants
    "os": (PORTABLE, "the module itself"),
    "os.path": (PORTABLE, "host paths only; guest paths use posixpath"),
    "os.sep": (PORTABLE, "host path separator, used only to turn host cwd into a guest path"),
    "os.name": (PORTABLE, "tells Windows apart (stat modes, tty detection)"),
    "os.environ": (PORTABLE, "EMUTRACE_* settings and --inherit-env"),
    "os.PathLike": (PORTABLE, ""), "os.fspath": (PORTABLE, ""), "os.getcwd": (PORTABLE, ""),
    "os.open": (PORTABLE, "flags combined with getattr(os, 'O_DIRECTORY'/'O_BINARY', 0)"),
    "os.O_RDONLY": (PORTABLE, ""), "os.O_WRONLY": (PORTABLE, ""), "os.O_CREAT": (PORTABLE, ""),
    "os.O_RDWR": (PORTABLE, ""), "os.O_TRUNC": (PORTABLE, ""), "os.O_EXCL": (PORTABLE, ""),
    "os.O_APPEND": (PORTABLE, ""),
    "os.close": (PORTABLE, ""), "os.read": (PORTABLE, ""), "os.write": (PORTABLE, ""),
    "os.lseek": (PORTABLE, "errors mapped by name (ESPIPE)"), "os.fdopen": (PORTABLE, ""),
    "os.stat": (PORTABLE, "Windows reports only file/dir modes: stat_from_host normalizes"),
    "os.lstat": (PORTABLE, ""), "os.fstat": (PORTABLE, ""), "os.stat_result": (PORTABLE, ""),
    "os.scandir": (PORTABLE, "the listing used where getdents64 cannot be read"),
    "os.listdir": (PORTABLE, ""), "os.walk": (PORTABLE, ""), "os.readlink": (PORTABLE, ""),
    "os.mkdir": (PORTABLE, ""), "os.makedirs": (PORTABLE, ""), "os.rmdir": (PORTABLE, ""),
    "os.unlink": (PORTABLE, ""), "os.replace": (PORTABLE, ""), "os.utime": (PORTABLE, ""),
    "os.chmod": (PORTABLE, "Windows keeps only the read-only bit; the overlay keeps the mode"),
    "os.symlink": (PORTABLE, "Windows without the symlink right: OSError (winerror 1314) -> EPERM"),
    "os.link": (PORTABLE, "a file system without hard links: OSError -> its Linux errno by name"),
    "os.isatty": (PORTABLE, "inside try: OSError -> not a tty"),
    "os.strerror": (PORTABLE, ""), "os.getpid": (PORTABLE, ""), "os._exit": (PORTABLE, ""),
    "os.dup": (PORTABLE, "a root file mapped MAP_SHARED keeps its own descriptor"),
    "ctypes.memset": (PORTABLE, "clears released guest pages where madvise cannot"),
    "os.SEEK_SET": (PORTABLE, ""), "os.SEEK_CUR": (PORTABLE, ""), "os.SEEK_END": (PORTABLE, ""),
    "os.pread": (GUARDED, "hasattr(os, 'pread'): Windows reads at the offset with lseek and restores it"),
    "os.preadv": (GUARDED, "mm: hasattr(os, 'preadv') (absent on Windows and older macOS): a private file mapping is then filled from a pread copy"),
    "os.getuid": (GUARDED, "hasattr: Windows has no uids; -1 there (host files then show as the guest's own)"),
    "os.getgid": (GUARDED, "hasattr, as os.getuid"),
    "os.supports_fd": (PORTABLE, "asks whether utime takes an fd on this host, else the path"),
    "os.supports_follow_symlinks": (PORTABLE, "asks whether utime can leave a link alone, else skips it"),
    "os.cpu_count": (PORTABLE, "batch --jobs default"),
    "os.sched_getaffinity": (GUARDED, "hasattr: Linux only; else os.cpu_count()"),
    "os.killpg": (GUARDED, "batch: try, AttributeError (Windows) -> Popen.kill of the job"),
    "shutil.rmtree": (PORTABLE, ""), "tempfile.mkdtemp": (PORTABLE, ""),
    "subprocess": (PORTABLE, "batch jobs are emutrace processes"), "subprocess.Popen": (PORTABLE, ""),
    "subprocess.DEVNULL": (PORTABLE, ""), "subprocess.TimeoutExpired": (PORTABLE, ""),
    "os.kill": (GUARDED, "die_by_signal: hasattr(os, 'kill'); else exit 128+N"),
    "os.madvise": (GUARDED, "released guest pages: hasattr(os, 'madvise') / try; else the pages stay"),
    "os.sysconf": (GUARDED, "try: hosts without it use a fixed page size"),
    "tempfile": (PORTABLE, ""), "tempfile.mkstemp": (PORTABLE, ""),
    "shutil": (PORTABLE, ""), "shutil.get_terminal_size": (PORTABLE, "falls back to 80x24 itself"),
    "platform": (PORTABLE, ""), "platform.machine": (PORTABLE, "picks the host getdents64 number"),
    # -- host memory behind guest memory
    "mmap": (PORTABLE, "anonymous mmap(-1, n) exists on every host (Windows: a paging-file map)"),
    "mmap.mmap": (PORTABLE, ""),
    "mmap.PAGESIZE": (PORTABLE, ""), "mmap.ALLOCATIONGRANULARITY": (PORTABLE, ""),
    "mmap.ACCESS_READ": (PORTABLE, "every host (Windows maps files with ACCESS_* only)"),
    "mmap.MADV_DONTNEED": (GUARDED, "getattr/hasattr: POSIX hosts only; elsewhere pages stay"),
    "mmap.MADV_FREE": (GUARDED, "getattr/hasattr: Linux/BSD only"),
    "mmap.MAP_PRIVATE": (GUARDED, "POSIX only: Windows maps with ACCESS_* instead"),
    "mmap.MAP_SHARED": (GUARDED, "POSIX only"), "mmap.MAP_ANONYMOUS": (GUARDED, "POSIX only"),
    "mmap.PROT_READ": (GUARDED, "POSIX only"), "mmap.PROT_WRITE": (GUARDED, "POSIX only"),
    # -- the engine's C library (unicorn's, loaded by the binding) and the host C library
    "ctypes": (PORTABLE, "calls into the libunicorn the binding loaded"),
    "ctypes.CDLL": (GUARDED, "CDLL(None) (the host libc) only on Linux, inside try: OSError -> scandir"),
    # (the stop of 2026-12-03: the capstone library for the instruction counter, inherited
    # descriptors, the interrupt's fallback, the gdb server)
    "fcntl": (GUARDED, "hostfds.inherited: import in try, ImportError (Windows) -> no descriptors passed"),
    "fcntl.fcntl": (GUARDED, "after the guarded import of fcntl"),
    "fcntl.F_GETFD": (GUARDED, "after the guarded import of fcntl"),
    "fcntl.FD_CLOEXEC": (GUARDED, "after the guarded import of fcntl"),
    "fcntl.F_GETFL": (GUARDED, "after the guarded import of fcntl"),
    "os.O_ACCMODE": (GUARDED, "hasattr(os, 'O_ACCMODE'), else the low two bits"),
    "os.major": (GUARDED, "hasattr(os, 'major'): a host without device numbers passes no memory devices"),
    "os.minor": (GUARDED, "with os.major"),
    "os.devnull": (PORTABLE, "the null device's name on every host (the debugger mutes replays)"),
    "os.dup2": (PORTABLE, "on every host CPython supports (the debugger's stdio)"),
    "os.pipe": (PORTABLE, "on every host (the interrupt's wake-up fd)"),
    "os.set_blocking": (PORTABLE, "on every host since 3.12, POSIX before; the interrupt's fallback only"),
    "signal.SIG_IGN": (PORTABLE, "on every host"),
    "signal.set_wakeup_fd": (PORTABLE, "on every host (sockets on Windows)"),
    "socket.SOCK_STREAM": (PORTABLE, "the gdb server's TCP listener"),
    "socket.IPPROTO_TCP": (PORTABLE, "the gdb server's TCP listener"),
    "socket.TCP_NODELAY": (PORTABLE, "the gdb server's TCP listener"),
    "ctypes.PyDLL": (PORTABLE, "a second handle on the binding's own libunicorn"),
    "ctypes.CFUNCTYPE": (PORTABLE, "callbacks for uc_hook_add (cdecl on every 64-bit host)"),
    "ctypes.POINTER": (PORTABLE, ""), "ctypes.addressof": (PORTABLE, ""), "ctypes.byref": (PORTABLE, ""),
    "ctypes.cast": (PORTABLE, ""), "ctypes.create_string_buffer": (PORTABLE, ""),
    "ctypes.memmove": (PORTABLE, ""), "ctypes.string_at": (PORTABLE, ""), "ctypes.sizeof": (PORTABLE, ""),
    "ctypes.c_bool": (PORTABLE, ""), "ctypes.c_char": (PORTABLE, ""), "ctypes.c_int": (PORTABLE, ""),
    "ctypes.c_uint32": (PORTABLE, ""), "ctypes.c_uint64": (PORTABLE, ""), "ctypes.c_int64": (PORTABLE, ""),
    "ctypes.c_size_t": (PORTABLE, ""), "ctypes.c_void_p": (PORTABLE, ""), "ctypes.c_char_p": (PORTABLE, ""),
    "ctypes.c_ubyte": (PORTABLE, ""), "ctypes.c_uint8": (PORTABLE, ""), "ctypes.c_int32": (PORTABLE, ""),
    # -- --net sockets (real host sockets, only when asked for)
    "socket": (PORTABLE, ""), "socket.socket": (PORTABLE, ""),
    "socket.AF_INET": (PORTABLE, ""), "socket.AF_INET6": (PORTABLE, ""),
    "socket.inet_ntop": (PORTABLE, ""), "socket.inet_pton": (PORTABLE, ""),
    "select": (PORTABLE, ""),
    "select.select": (PORTABLE, "on sockets only, which Windows' select also takes"),
    "select.epoll": (GUARDED, "Linux only: never used by the engine (guest epoll is emulated)"),
    # -- the Python API's background runs
    "threading": (PORTABLE, ""), "threading.Thread": (PORTABLE, ""), "threading.Event": (PORTABLE, ""),
    "threading.Lock": (PORTABLE, ""),
    # -- how emutrace itself ends (die by the guest's signal)
    "signal": (PORTABLE, ""), "signal.signal": (PORTABLE, ""), "signal.SIG_DFL": (PORTABLE, ""),
    "signal.getsignal": (PORTABLE, "interrupt: the handler a run replaces, given back when it ends (every host)"),
    "signal.SIGTERM": (PORTABLE, "batch: a terminated batch stops and can resume (Windows has SIGTERM)"),
    "signal.SIGKILL": (GUARDED, "batch: inside the same try as os.killpg; Windows lacks it"),
    "signal.pthread_sigmask": (GUARDED, "hasattr(hostsig, 'pthread_sigmask'): absent on Windows"),
    "signal.SIG_UNBLOCK": (GUARDED, "with pthread_sigmask only"),
    # -- the gdb server's checkpoints (emutrace/gdb/checkpoints.py): forked processes where the
    #    host forks; elsewhere going back replays from the start (the same answers, slower)
    "os.fork": (GUARDED, "try: AttributeError on Windows (and OSError when the host cannot): no checkpoint"),
    "os.waitpid": (GUARDED, "try (ChildProcessError, AttributeError): reaps the session's processes"),
    "os.WNOHANG": (GUARDED, "inside the same try"),
    "socket.AF_UNIX": (GUARDED, "try: AttributeError where the host has no Unix sockets: no checkpoint"),
    "socket.socketpair": (PORTABLE, "on every host since Python 3.5 (with AF_UNIX: guarded)"),
    "socket.send_fds": (GUARDED, "try: AttributeError without SCM_RIGHTS (Windows): an OSError, no hand-over"),
    "socket.recv_fds": (GUARDED, "the same"),
    "signal.SIGINT": (PORTABLE, "on every host"),
    "signal.SIG_IGN": (PORTABLE, "on every host"),
    "signal.default_int_handler": (PORTABLE, "on every host"),
    "threading.active_count": (PORTABLE, "on every host"),
    "resource": (GUARDED, "try: ImportError on Windows; only turns core dumps off"),
    "resource.setrlimit": (GUARDED, "inside the same try"), "resource.RLIMIT_CORE": (GUARDED, "same"),
}

GUARD_CALLS = {"hasattr", "getattr"}
GUARD_NAMES = {"os.name", "sys.platform"}


def _engine_files():
    for d in ENGINE_DIRS:
        yield from sorted((ROOT / d).rglob("*.py"))


class _Uses(ast.NodeVisitor):
    """Host names used in one file, each with whether it sits inside a guard."""

    def __init__(self):
        self.alias = {}         # local name -> host module
        self.uses = []          # (name, lineno, guarded)
        self.stack = []

    def _guarded(self):
        for node in self.stack:
            if isinstance(node, ast.Try) and node.handlers:
                return True
            if isinstance(node, (ast.If, ast.IfExp)):
                src = ast.unparse(node.test)
                if any(f"{g}(" in src for g in GUARD_CALLS) or any(g in src for g in GUARD_NAMES):
                    return True
        return False

    def generic_visit(self, node):
        self.stack.append(node)
        super().generic_visit(node)
        self.stack.pop()

    def visit_Import(self, node):
        for a in node.names:
            if a.name.split(".")[0] in HOST_MODULES:
                self.alias[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                self.uses.append((a.name, node.lineno, self._guarded()))

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module and node.module.split(".")[0] in HOST_MODULES:
            for a in node.names:
                self.uses.append((f"{node.module}.{a.name}", node.lineno, self._guarded()))

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.alias:
            self.uses.append((f"{self.alias[node.value.id]}.{node.attr}", node.lineno, self._guarded()))
        self.generic_visit(node)


def _scan():
    out = []
    for path in _engine_files():
        v = _Uses()
        v.visit(ast.parse(path.read_text(), str(path)))
        out += [(str(path.relative_to(ROOT)), name, line, guarded) for name, line, guarded in v.uses]
    return out


USES = _scan()


def test_the_scan_sees_the_engine():
    names = {u[1] for u in USES}
    assert {"os.lstat", "mmap.mmap", "ctypes.CFUNCTYPE"} <= names


def test_every_host_name_is_audited():
    missing = sorted({f"{name} ({where}:{line})" for where, name, line, _ in USES if name not in HOST_API
                      and not name.startswith("os.path.")})
    assert not missing, ("host names the engine uses that HOST_API does not audit yet "
                         "(say whether every host has them, and what guards them): " + ", ".join(missing))


def test_guarded_names_are_used_only_behind_a_guard():
    bare = [f"{name} at {where}:{line}" for where, name, line, guarded in USES
            if HOST_API.get(name, (PORTABLE,))[0] == GUARDED and not guarded]
    assert not bare, "host-specific names used without a guard: " + ", ".join(bare)


def test_host_errors_are_translated_by_name_not_number():
    """`e.errno == 29` means ESPIPE on Linux only: compare with the host errno module's name."""
    bad = []
    for path in _engine_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(s, ast.Attribute) and s.attr in ("errno", "winerror") for s in sides):
                    consts = [c for s in sides for c in ast.walk(s) if isinstance(c, ast.Constant)
                              and isinstance(c.value, int) and c.value not in (0,)]
                    if consts:
                        bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "host errno compared with a number: " + ", ".join(bad)


HOST_PATH_CALLS = {"open", "os.open", "os.stat", "os.lstat", "os.readlink", "os.listdir", "os.scandir"}


def test_the_engine_reads_no_host_proc_sys_or_dev():
    """/proc, /sys and /dev of the host are not inputs: the guest's are synthesized."""
    bad = []
    for path in _engine_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in HOST_PATH_CALLS and node.args:
                a = node.args[0]
                text = a.value if isinstance(a, ast.Constant) else (
                    a.values[0].value if isinstance(a, ast.JoinedStr) and a.values
                    and isinstance(a.values[0], ast.Constant) else None)
                if isinstance(text, str) and text.startswith(("/proc", "/sys", "/dev")):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "host /proc, /sys or /dev read by the engine: " + ", ".join(bad)


def test_no_variadic_call_without_a_fixed_prototype():
    """uc_hook_add is variadic (unicorn.h: 7 fixed parameters, then the hook type's extras).
    ctypes passes arguments past `argtypes` the variadic way (ffi_prep_cif_var), which Apple's
    arm64 ABI needs (variadic arguments on the stack) - but only when argtypes names exactly the
    fixed parameters. So the engine calls it through its own prototype, never a bare one."""
    from emutrace.machine import cpu
    fn = cpu.HOOK_ADD
    assert fn.argtypes is not None and len(fn.argtypes) == 7
    assert fn.restype is not None


# ---------------------------------------------------------------- the fallbacks themselves

def test_directory_listing_without_the_host_libc(monkeypatch, tmp_path):
    """Where CDLL(None) fails (Windows, a static host Python), listings come from scandir."""
    import ctypes
    from emutrace.kernel import hosttree

    (tmp_path / "a").write_text("x")
    (tmp_path / "sub").mkdir()

    def no_libc(*_a, **_k):
        raise OSError("no host C library")
    monkeypatch.setattr(ctypes, "CDLL", no_libc)
    names = sorted(n for n, _t, _i in hosttree.DirTree(str(tmp_path)).listdir(str(tmp_path)))
    assert names == ["a", "sub"]


def test_a_windows_symlink_refusal_is_eperm():
    """os.symlink without the Windows symlink right raises winerror 1314 (its errno is EINVAL):
    Linux's answer for a file system that cannot make the link is EPERM."""
    from emutrace.kernel import errno as E
    e = OSError(host_errno.EINVAL, "A required privilege is not held by the client")
    e.winerror = 1314
    assert E.from_host(e) == E.EPERM
    assert E.from_host(OSError(host_errno.ENOENT, "x")) == E.ENOENT


def test_lseek_on_a_host_pipe_is_espipe_by_name():
    if not hasattr(os, "pipe"):
        pytest.skip("host has no pipes")
    from emutrace.kernel import files
    r, w = os.pipe()
    try:
        f = files.HostStream("pipe:[1]", 0, r)
        from emutrace.kernel.vfs import VfsError
        from emutrace.kernel import errno as E
        with pytest.raises(VfsError) as exc:
            f.seek(0, 1)
        assert exc.value.errno == E.ESPIPE
    finally:
        os.close(r)
        os.close(w)


def test_case_insensitive_host_tree_keeps_linux_names_exact(monkeypatch, tmp_path):
    """macOS and Windows file systems fold case: /etc/Passwd would open /etc/passwd. A guest
    sees a case-sensitive Linux tree, so on such a host a name must match an entry exactly."""
    from emutrace.kernel import hosttree
    (tmp_path / "passwd").write_text("root")
    tree = hosttree.DirTree(str(tmp_path))
    real_lstat, real_stat = os.lstat, os.stat

    def folding(fn):
        def call(p, *a, **k):
            d, n = os.path.split(p)
            try:
                entries = os.listdir(d)
            except OSError:
                entries = []
            for e in entries:
                if e.lower() == n.lower():
                    return fn(os.path.join(d, e), *a, **k)
            return fn(p, *a, **k)
        return call
    monkeypatch.setattr(hosttree.os, "lstat", folding(real_lstat))
    monkeypatch.setattr(hosttree.os, "stat", folding(real_stat))
    tree.case_insensitive = True
    assert tree.lstat(tree.join("/passwd")).size == 4
    with pytest.raises(FileNotFoundError):
        tree.lstat(tree.join("/Passwd"))
    with pytest.raises(FileNotFoundError):
        tree.stat(tree.join("/PASSWD"))


def test_a_case_sensitive_host_is_detected_as_such(tmp_path):
    from emutrace.kernel import hosttree
    (tmp_path / "Makefile").write_text("")
    assert hosttree.DirTree(str(tmp_path)).case_insensitive is False
