"""`emutrace sysroot`: pack a program and what it needs into a tar archive for --root.

emutrace sysroot [--add PATH]... [--from DIR] [--no-run] [--timeout S] PROGRAM OUT.tar [-- ARGS...]
    Packs PROGRAM, its interpreter and the closure of its libraries (the builtin linker's
    search rules: RPATH/RUNPATH with $ORIGIN, then the default directories), the start-up files
    that exist (/etc/ld.so.cache, /etc/localtime, /etc/passwd, /etc/group, /etc/nsswitch.conf),
    and every file the program opens when it runs once under emutrace (with ARGS; sandboxed,
    as any run), into a tar archive for `emutrace --root OUT.tar`. Paths stay as they are on the
    host and every symlink on the way to a file is kept as a symlink, so the archive runs the
    same command line anywhere, macOS and Windows included. OUT ending in .gz/.tgz, .xz or .bz2
    is compressed. --from DIR packs from another root than /.
"""
from __future__ import annotations

import os
import posixpath
import stat as _st
import sys
import tarfile
from typing import Dict, List, Optional, Tuple

from emutrace.kernel.world import DEFAULT_ENV
from emutrace.loader.elf import ElfError, parse_elf
from emutrace.loader.linker import search_paths
from emutrace.errors import EmutraceError
from emutrace.linux.fcntl import AT_FDCWD

SYSROOT_USAGE = ("usage: emutrace sysroot [--add PATH]... [--from DIR] [--no-run] [--timeout S] "
                 "PROGRAM OUT.tar [-- ARGS...]")
SYSROOT_HELP = SYSROOT_USAGE + """

Packs PROGRAM, its interpreter, the closure of its libraries, the start-up files that exist
(/etc/ld.so.cache, /etc/localtime, /etc/passwd, ...) and every file the program opens when it
runs once under emutrace (with ARGS, sandboxed) into a tar archive for `emutrace --root OUT.tar`.
Paths and symlinks stay as they are, so the archive runs the same command line on any host.
OUT ending in .gz/.tgz, .xz or .bz2 is compressed.

Options:
  --add PATH    also pack PATH (a file or a directory; repeatable)
  --from DIR    pack from another root than /
  --no-run      do not run the program: only its libraries and the start-up files
  --timeout S   the wall-time limit of that run (default 60)
  -h, --help    this help

Examples:
  emutrace sysroot /usr/bin/sort sort-root.tar.gz -- /etc/passwd
  emutrace --root sort-root.tar.gz sort /etc/passwd     # the same run, on any host
  emutrace sysroot --add /usr/share/zoneinfo --no-run ./prog prog-root.tar

Exit status: 0 written; 125 usage, or a file that cannot be read or written; 126 and 127 the
program cannot be run or was not found (as `emutrace PROGRAM`)."""
STARTUP_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf")
SYNTHESIZED = ("/proc", "/dev", "/sys")       # the guest's are emutrace's own, never the host's
MAX_LINKS = 40


def _fail(message: str, status: int) -> int:
    sys.stderr.write(f"emutrace: {message}\n")
    sys.stderr.flush()
    return status


class SysrootError(Exception):
    def __init__(self, message: str, status: int = 125):
        super().__init__(message)
        self.status = status


class Packer:
    """Collects guest paths from a source root (a host directory) with every symlink on the way,
    and writes them to a tar archive."""

    def __init__(self, source: str = "/"):
        self.source = os.path.abspath(source)
        # guest path → ("dir",) | ("link", target) | ("file", host path)
        self.entries: Dict[str, tuple] = {}

    def host(self, gpath: str) -> str:
        rest = gpath.lstrip("/")
        return os.path.join(self.source, *rest.split("/")) if rest else self.source

    def _dir(self, gpath: str) -> None:
        while gpath != "/" and gpath not in self.entries:
            self.entries[gpath] = ("dir",)
            gpath = posixpath.dirname(gpath)

    def walk(self, path: str, base: str = "/") -> Optional[Tuple[str, int]]:
        """Resolve a guest path inside the source as the VFS does; record each symlink met and
        each directory passed. Returns (canonical path, st_mode) or None if it does not exist."""
        todo = [c for c in (path if path.startswith("/") else base.rstrip("/") + "/" + path).split("/") if c]
        cur = "/"
        links = 0
        while todo:
            comp = todo.pop(0)
            if comp == ".":
                continue
            if comp == "..":
                cur = posixpath.dirname(cur)
                continue
            cand = posixpath.join(cur, comp)
            try:
                st = os.lstat(self.host(cand))
            except OSError:
                return None
            if _st.S_ISLNK(st.st_mode):
                links += 1
                if links > MAX_LINKS:
                    return None
                try:
                    target = os.readlink(self.host(cand))
                except OSError:
                    return None
                self._dir(cur)
                self.entries[cand] = ("link", target)
                todo = [c for c in target.split("/") if c] + todo
                if target.startswith("/"):
                    cur = "/"
                continue
            if todo and not _st.S_ISDIR(st.st_mode):
                return None
            cur = cand
        try:
            mode = os.stat(self.host(cur)).st_mode if cur != "/" else _st.S_IFDIR
        except OSError:
            return None
        return cur, mode

    def add_file(self, path: str, base: str = "/", required: bool = False) -> Optional[str]:
        """Add a regular file (and the symlinks leading to it); returns its canonical path."""
        if any(path == p or path.startswith(p + "/") for p in SYNTHESIZED):
            return None
        found = self.walk(path, base)
        if found is None or not _st.S_ISREG(found[1]):
            if required:
                raise SysrootError(f"{path}: {'not a regular file' if found else 'not found'} in {self.source}",
                                   127 if found is None else 126)
            return None
        canon = found[0]
        self._dir(posixpath.dirname(canon))
        self.entries[canon] = ("file", self.host(canon))
        return canon

    def add_tree(self, path: str) -> None:
        """Add a file, or a directory with everything under it (symlinks kept, not followed)."""
        found = self.walk(path)
        if found is None:
            raise SysrootError(f"--add {path}: not found in {self.source}", 125)
        canon, mode = found
        if not _st.S_ISDIR(mode):
            self.add_file(canon)
            return
        self._dir(canon)
        for dirpath, dirnames, filenames in os.walk(self.host(canon)):
            rel = os.path.relpath(dirpath, self.host(canon))
            gdir = canon if rel == "." else posixpath.join(canon, *rel.split(os.sep))
            for name in sorted(dirnames + filenames):
                g = posixpath.join(gdir, name)
                h = os.path.join(dirpath, name)
                try:
                    st = os.lstat(h)
                except OSError:
                    continue
                if _st.S_ISLNK(st.st_mode):
                    self.entries[g] = ("link", os.readlink(h))
                elif _st.S_ISDIR(st.st_mode):
                    self.entries.setdefault(g, ("dir",))
                elif _st.S_ISREG(st.st_mode):
                    self.entries[g] = ("file", h)

    def closure(self, program: str) -> List[str]:
        """The program, its PT_INTERP and its DT_NEEDED closure (search rules of emutrace.loader.linker)."""
        canon = self.add_file(program, required=True)
        done, out = set(), []
        queue: List[Tuple[str, str]] = [(program, canon)]
        interp_seen = False
        while queue:
            gpath, cpath = queue.pop(0)
            if cpath in done:
                continue
            done.add(cpath)
            try:
                with open(self.host(cpath), "rb") as f:
                    data = f.read()
                elf = parse_elf(gpath, data)
            except (OSError, ElfError) as e:
                if not out:
                    raise SysrootError(f"{program}: {e}", 126) from None
                continue
            out.append(gpath)
            if elf.interp and not interp_seen:
                interp_seen = True
                c = self.add_file(elf.interp)
                if c is None:
                    raise SysrootError(f"{program}: its interpreter {elf.interp} is not in {self.source}", 127)
                queue.append((elf.interp, c))
            for name in elf.needed:
                cands = [name] if "/" in name else [d.rstrip("/") + "/" + name for d in search_paths(gpath, elf)]
                for cand in cands:
                    c = self.add_file(cand)
                    if c is not None:
                        queue.append((cand, c))
                        break
                else:
                    sys.stderr.write(f"emutrace: sysroot: warning: {name} (needed by {gpath}) not found\n")
        return out

    def write(self, out: str) -> Tuple[int, int, int, int]:
        """Write the archive; returns (files, symlinks, directories, bytes of file data)."""
        low = out.lower()
        mode = "w:gz" if low.endswith((".gz", ".tgz")) else "w:xz" if low.endswith((".xz", ".txz")) \
            else "w:bz2" if low.endswith((".bz2", ".tbz2")) else "w"
        nf = nl = nd = size = 0
        tmp = out + ".part"
        try:
            with tarfile.open(tmp, mode, format=tarfile.PAX_FORMAT) as tf:
                for gpath in sorted(self.entries):
                    kind = self.entries[gpath]
                    ti = tarfile.TarInfo(gpath.lstrip("/"))
                    if kind[0] == "link":
                        st = os.lstat(self.host(gpath)) if os.path.lexists(self.host(gpath)) else None
                        ti.type, ti.linkname, ti.mode = tarfile.SYMTYPE, kind[1], 0o777
                        nl += 1
                    elif kind[0] == "dir":
                        st = os.stat(self.host(gpath))
                        ti.type, ti.mode = tarfile.DIRTYPE, st.st_mode & 0o7777
                        nd += 1
                    else:
                        st = os.stat(kind[1])
                        ti.type, ti.mode, ti.size = tarfile.REGTYPE, st.st_mode & 0o7777, st.st_size
                        nf += 1
                        size += st.st_size
                    if st is not None:
                        ti.mtime = int(st.st_mtime)
                        ti.uid, ti.gid = getattr(st, "st_uid", 0), getattr(st, "st_gid", 0)
                    ti.uname = ti.gname = ""
                    if kind[0] == "file":
                        with open(kind[1], "rb") as f:
                            tf.addfile(ti, f)
                    else:
                        tf.addfile(ti)
            os.replace(tmp, out)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return nf, nl, nd, size


def discover(packer: Packer, argv: List[str], timeout: float) -> List[str]:
    """Run the program once under emutrace (sandboxed, output discarded) and add every regular
    file it opened successfully and every program it executed (with their closures)."""
    from emutrace.api import Session          # deferred: only a run loads the emulator (--no-run does not)
    opened: List[Tuple[str, str]] = []
    execs: List[str] = []
    s = Session(argv, root=packer.source, cwd="/", stdin=b"", capture_output=True, trace_calls=False,
                timeout=timeout)

    def base_of(sc, dirfd: int) -> str:
        proc = sc._proc
        if dirfd == AT_FDCWD:
            return proc.cwd
        f = proc.fds.fds.get(dirfd)
        return f.path if f is not None else "/"

    @s.on_syscall_return("/^(open|openat|openat2|execve|execveat)$/")
    def record(sc):
        if sc.name == "open" and sc.result >= 0:
            p = sc.string_arg(0)
            if p:
                opened.append((p, sc._proc.cwd))
        elif sc.name in ("openat", "openat2") and sc.result >= 0:
            p = sc.string_arg(1)
            if p:
                opened.append((p, base_of(sc, _int32(sc.arg(0)))))
        return None

    @s.on_syscall("/^(execve|execveat)$/")
    def record_exec(sc):
        p = sc.string_arg(0 if sc.name == "execve" else 1)
        if p:
            execs.append(p if p.startswith("/") else posixpath.join(sc._proc.cwd, p))
        return None

    try:
        s.run()
    except EmutraceError as e:
        sys.stderr.write(f"emutrace: sysroot: warning: the discovery run stopped: {e}; "
                         f"the archive has what it opened until then\n")
    added = []
    for path, base in opened:
        c = packer.add_file(path, base)
        if c is not None:
            added.append(path)
    for path in execs:
        if packer.walk(path) is not None:
            try:
                packer.closure(path)
            except SysrootError:
                pass
    return added


def _int32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def main(args: List[str]) -> int:
    args = list(args)
    adds: List[str] = []
    source = "/"
    run_it = True
    timeout = 60.0
    pos: List[str] = []
    run_args: List[str] = []
    i = 0
    while i < len(args):
        a = args[i]

        def value():
            nonlocal i
            if "=" in a and a.startswith("--"):
                return a.split("=", 1)[1]
            if i + 1 >= len(args):
                raise SysrootError(f"sysroot: {a} needs a value ({SYSROOT_USAGE})")
            i += 1
            return args[i]
        try:
            if a in ("-h", "--help"):
                print(SYSROOT_HELP)
                return 0
            elif a == "--add" or a.startswith("--add="):
                adds.append(value())
            elif a == "--from" or a.startswith("--from="):
                source = value()
            elif a == "--no-run":
                run_it = False
            elif a == "--timeout" or a.startswith("--timeout="):
                v = value()
                try:
                    timeout = float(v)
                except ValueError:
                    raise SysrootError(f"sysroot: --timeout takes seconds, not {v!r}") from None
            elif a == "--":
                run_args = args[i + 1:]
                break
            elif a.startswith("-") and len(pos) < 2:
                raise SysrootError(f"sysroot: unknown option {a} ({SYSROOT_USAGE})")
            else:
                pos.append(a)
        except SysrootError as e:
            return _fail(str(e), 125)
        i += 1
    if len(pos) != 2:
        return _fail(f"sysroot takes a program and an output file ({SYSROOT_USAGE})", 125)
    program, out = pos
    if not os.path.isdir(source):
        return _fail(f"sysroot: --from {source}: not a directory", 125)
    packer = Packer(source)
    try:
        if "/" not in program:
            program = _which(packer, program)
        elif not program.startswith("/"):
            if packer.source != os.path.abspath("/"):
                return _fail(f"sysroot: {program}: give the program's absolute path inside {source}", 125)
            program = os.path.abspath(program)
        packer.closure(program)
        for p in STARTUP_FILES:
            packer.add_file(p)
        for p in adds:
            packer.add_tree(p if p.startswith("/") or packer.source != os.path.abspath("/") else os.path.abspath(p))
        if run_it:
            discover(packer, [program] + run_args, timeout)
        nf, nl, nd, size = packer.write(out)
    except SysrootError as e:
        return _fail(f"sysroot: {e}", e.status)
    except OSError as e:
        return _fail(f"sysroot: {e.filename + ': ' if e.filename else ''}{e.strerror or e}", 125)
    print(f"{out}: {program} with {nf} files, {nl} symlinks, {nd} directories ({size / 1e6:.1f} MB)")
    return 0


def _which(packer: Packer, name: str) -> str:
    for d in DEFAULT_ENV["PATH"].split(":"):
        cand = d + "/" + name
        found = packer.walk(cand)
        if found is not None and _st.S_ISREG(found[1]) and found[1] & 0o111:
            return cand
    raise SysrootError(f"{name}: not found in the PATH of {packer.source}", 127)
