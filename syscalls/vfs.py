"""The virtual file system the guest sees: a read-only root (a host directory, or a tar archive
read in place: syscalls.tarfs), an in-memory overlay, granted host directories, and synthesized
/proc and /dev. Root and granted files are reached only through a tree (DirTree, TarTree).

Paths are resolved component by component inside the root, as under chroot: `..` stops at the
root, absolute symlinks restart at the root, and nothing (symlinks, /proc/self/root, dirfds)
can name a host path outside it. The guest's writes go to the overlay unless a `--rw` grant
covers the path; the host never sees them. Every error is a Linux errno (VfsError.errno).
"""
from __future__ import annotations

import os
import stat as _st
from typing import Callable, Dict, List, Optional, Tuple

from emutrace.machine.record import field, record

from . import errno as E
# all of them: handlers take the file types from the VFS, whose nodes carry them
from .statinfo import (DT_BLK, DT_CHR, DT_DIR, DT_FIFO, DT_LNK, DT_OF_MODE, DT_REG, DT_SOCK,  # noqa: F401
                       DT_UNKNOWN, S_IFBLK, S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFREG, S_IFSOCK,
                       StatInfo)

MAX_SYMLINKS = 40
OVERLAY_DEV = 0x2D
SYNTH_DEV = 0x05


class VfsError(Exception):
    def __init__(self, errno: int, msg: str = ""):
        super().__init__(msg or E.NAME.get(errno, str(errno)))
        self.errno = errno


def stat_from_host(st: os.stat_result) -> StatInfo:
    """A Linux stat of a host file. The access time is reported as the modification time: the
    host's atime changes whenever anything (this run included) reads the file, so it would make
    runs differ, and it tells the guest about host activity it has no business seeing."""
    blocks = getattr(st, "st_blocks", None)
    if blocks is None:
        blocks = (st.st_size + 511) // 512
    mode = st.st_mode
    if os.name == "nt":           # Windows only reports file vs directory
        mode = (S_IFDIR | 0o755) if _st.S_ISDIR(mode) else (S_IFREG | 0o644)
    return StatInfo(mode=mode, size=st.st_size, ino=st.st_ino & 0xFFFFFFFFFFFFFFFF,
                    dev=getattr(st, "st_dev", 0) & 0xFFFFFFFFFFFFFFFF, nlink=st.st_nlink,
                    uid=getattr(st, "st_uid", 0), gid=getattr(st, "st_gid", 0),
                    rdev=getattr(st, "st_rdev", 0) or 0, blksize=getattr(st, "st_blksize", 4096) or 4096,
                    blocks=blocks, atime_ns=st.st_mtime_ns, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns)


def host_error(exc: OSError) -> VfsError:
    return VfsError(E.from_host(exc), str(exc))


# ---------------------------------------------------------------- host trees

class DirTree:
    """Files under a host directory: the default root and every --rw grant.

    A tree answers lstat/stat/readlink/listdir/open for its own `host` strings (here: host paths;
    a TarTree uses `archive!/member`). Every other module reaches root files only through the
    node's tree, so the root can be something other than a host directory. Errors are OSError."""

    def __init__(self, top: str):
        self.top = os.path.abspath(top)

    def join(self, path: str) -> str:
        """The host string of a guest path (absolute, already resolved) inside this tree."""
        rest = path.lstrip("/")
        return os.path.join(self.top, *rest.split("/")) if rest else self.top

    def lstat(self, host: str) -> StatInfo:
        return stat_from_host(os.lstat(host))

    def stat(self, host: str) -> StatInfo:
        return stat_from_host(os.stat(host))

    def readlink(self, host: str) -> str:
        return os.readlink(host)

    def listdir(self, host: str) -> List[Tuple[str, int, int]]:
        """(name, d_type, d_ino) of each entry in the host's own order. On a Linux host the raw
        getdents64 stream is read, so '.' and '..' keep their places and d_type is the
        filesystem's, exactly as a native run sees them; elsewhere scandir (no '.' and '..')."""
        raw = _host_getdents(host)
        if raw is not None:
            return raw
        out = []
        with os.scandir(host) as it:
            for de in it:
                try:
                    mode = de.stat(follow_symlinks=False).st_mode
                except OSError:
                    mode = 0
                out.append((de.name, DT_OF_MODE.get(mode & S_IFMT, DT_UNKNOWN), de.inode()))
        return out

    def open(self, host: str):
        """A binary file object (seek, read, close) for reading."""
        return open(host, "rb", buffering=0)

    def fstat(self, f, node) -> StatInfo:
        return stat_from_host(os.fstat(f.fileno()))

    def read(self, host: str) -> bytes:
        with self.open(host) as f:
            return f.read()

    def version(self, f, host: str) -> tuple:
        """The version (host_version) of the open file f, at `host`."""
        return host_version(host, os.fstat(f.fileno()))

    def read_versioned(self, host: str):
        """(contents, version): the version is the open file's, taken before reading, so a file
        replaced meanwhile is not filed under the new one's version."""
        with self.open(host) as f:
            version = self.version(f, host)
            return f.read(), version


def host_version(host: str, st) -> tuple:
    """What names one version of a host file: where it is, which inode, its size and its
    modification and change times (the change time moves with every write, rename or chmod, and
    cannot be set back). What caches of parsed files are keyed by, so nothing hashes contents.
    (On Windows st_ctime is the creation time: a file rewritten in place at the same size with
    its modification time set back would look unchanged there.)"""
    return (host, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


_GETDENTS64 = {"x86_64": 217, "amd64": 217, "aarch64": 61, "arm64": 61}


def _host_getdents(host: str):
    """The host directory's raw getdents64 records (Linux hosts only), or None to fall back."""
    import platform
    import struct
    import sys
    nr = _GETDENTS64.get(platform.machine().lower())
    if not sys.platform.startswith("linux") or nr is None:
        return None
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    fd = os.open(host, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        buf = ctypes.create_string_buffer(1 << 16)
        out = []
        while True:
            n = libc.syscall(nr, fd, buf, len(buf))
            if n < 0:
                return None
            if n == 0:
                return out
            data = buf.raw[:n]
            off = 0
            while off < n:
                ino, _doff, reclen, dtype = struct.unpack_from("<QqHB", data, off)
                name = data[off + 19:off + reclen].split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
                out.append((name, dtype, ino))
                off += reclen
    finally:
        os.close(fd)


def open_tree(root: str):
    """The tree for --root: a host directory, or a tar archive (read in place)."""
    if os.path.isdir(root):
        return DirTree(root)
    from .tarfs import TarTree      # deferred: tarfile, gzip, lzma and bz2 cost start-up time
    return TarTree(root)


# ---------------------------------------------------------------- nodes

@record
class OvNode:
    """A file, directory or symlink that exists only in the overlay."""
    stat: StatInfo
    data: bytearray = field(default_factory=bytearray)    # file contents
    target: str = ""                                       # symlink target


@record
class SynthNode:
    """A synthesized /proc or /dev entry."""
    mode: int
    content: Optional[Callable[[], bytes]] = None          # regular files
    target: Optional[Callable[[], str]] = None             # symlinks
    children: Optional[Callable[[], List[Tuple[str, int]]]] = None   # directories: (name, DT_*)
    device: str = ""                                       # character devices: null zero urandom


@record
class Node:
    """What a resolved path names."""
    path: str                       # guest absolute path
    stat: StatInfo
    host: Optional[str] = None      # host path for root/granted files (in `tree`'s terms)
    writable_host: bool = False     # inside a --rw grant
    ov: Optional[OvNode] = None
    synth: Optional[SynthNode] = None
    tree: Optional[object] = None   # the DirTree / TarTree holding `host`

    @property
    def is_dir(self) -> bool:
        return self.stat.type == S_IFDIR

    @property
    def is_link(self) -> bool:
        return self.stat.type == S_IFLNK


def stable_ino(path: str) -> int:
    """An inode number for a synthesized entry that is the same in every run (Python's hash() is not)."""
    import zlib
    return zlib.crc32(path.encode("utf-8", "surrogateescape"))


def _split(path: str) -> List[str]:
    return [c for c in path.split("/") if c]


def _join(parent: str, name: str) -> str:
    return parent.rstrip("/") + "/" + name if parent != "/" else "/" + name


def _parent(path: str) -> str:
    if path == "/":
        return "/"
    head = path.rsplit("/", 1)[0]
    return head or "/"


class Vfs:
    def __init__(self, root: str = "/", rw: Tuple[Tuple[str, str], ...] = (), clock_ns=None,
                 uid: int = 0, gid: int = 0):
        self.root = os.path.abspath(root)
        self.tree = open_tree(self.root)     # OSError if it is neither a directory nor a tar archive
        # (guest prefix, host dir) grants, longest prefix first
        self.rw = sorted(((g.rstrip("/") or "/", os.path.abspath(h)) for h, g in rw),
                         key=lambda t: -len(t[0]))
        self._grant_tree = DirTree("/")
        self.overlay: Dict[str, OvNode] = {}
        self.whiteouts: set = set()
        self.synth: Dict[str, SynthNode] = {}
        self.synth_dirs: List[Tuple[str, Callable[[str], Optional[SynthNode]]]] = []
        self.tmpfs: List[str] = []          # overlay-only directories, even inside a synthesized tree
        self.clock_ns = clock_ns or (lambda: 0)
        self.uid, self.gid = uid, gid
        self._next_ino = 0x100000
        self.reads: List[str] = []          # host paths opened for reading (for audits and tests)

    # -- synthesized trees -------------------------------------------------
    def add_synth(self, path: str, node: SynthNode) -> None:
        self.synth[path] = node

    def add_synth_tree(self, prefix: str, resolver: Callable[[str], Optional[SynthNode]]) -> None:
        """Every path under `prefix` (and prefix itself) is answered by resolver(rest)."""
        self.synth_dirs.append((prefix, resolver))

    def add_tmpfs(self, path: str, mode: int = 0o1777) -> None:
        """A writable, initially empty directory at `path` (e.g. /dev/shm inside the synthesized
        /dev) whose whole content lives in the overlay: nothing under it is looked up on the host."""
        now = self.clock_ns()
        st = StatInfo(mode=S_IFDIR | (mode & 0o7777), ino=(stable_ino(path) & 0xFFFFFF) | 0x1000000,
                      dev=OVERLAY_DEV, nlink=2, uid=self.uid, gid=self.gid, atime_ns=now, mtime_ns=now,
                      ctime_ns=now)
        self.overlay[path] = OvNode(st)
        self.tmpfs.append(path)

    def _in_tmpfs(self, path: str) -> bool:
        return any(path == t or path.startswith(t + "/") for t in self.tmpfs)

    def _synth_node(self, path: str) -> Optional[SynthNode]:
        n = self.synth.get(path)
        if n is not None:
            return n
        for prefix, resolver in self.synth_dirs:
            if path == prefix or path.startswith(prefix + "/"):
                return resolver(path[len(prefix):].lstrip("/"))
        return None

    def _synth_owned(self, path: str) -> bool:
        if self.tmpfs and self._in_tmpfs(path):
            return False
        for prefix, _ in self.synth_dirs:
            if path == prefix or path.startswith(prefix + "/"):
                return True
        return False

    def new_ino(self) -> int:
        self._next_ino += 1
        return self._next_ino

    # -- host mapping --------------------------------------------------------
    def host_path(self, path: str) -> Tuple[str, bool]:
        """(host path, writable) for a guest path that lives on the host."""
        for gprefix, hdir in self.rw:
            if path == gprefix or path.startswith(gprefix.rstrip("/") + "/"):
                rest = path[len(gprefix):].lstrip("/")
                return (os.path.join(hdir, *rest.split("/")) if rest else hdir), True
        return self.tree.join(path), False

    def tree_of(self, writable: bool):
        return self._grant_tree if writable else self.tree

    def read_host(self, node: Node) -> bytes:
        """The whole content of a root or granted file (OSError on failure)."""
        return (node.tree or self.tree_of(node.writable_host)).read(node.host)

    def read_host_versioned(self, node: Node):
        """(content, version or None) of a root or granted file: see DirTree.read_versioned."""
        return (node.tree or self.tree_of(node.writable_host)).read_versioned(node.host)

    def _lnode(self, path: str) -> Optional[Node]:
        """The node at an already-resolved parent + name, without following a final symlink."""
        ov = self.overlay.get(path)
        if ov is not None:
            return Node(path, ov.stat, ov=ov)
        if path in self.whiteouts or (self.tmpfs and self._in_tmpfs(path)):
            return None
        sn = self._synth_node(path)
        if sn is not None:
            return Node(path, self._synth_stat(path, sn), synth=sn)
        if self._synth_owned(path):
            return None
        host, writable = self.host_path(path)
        tree = self.tree_of(writable)
        try:
            st = tree.lstat(host)
        except OSError:
            return None
        return Node(path, st, host=host, writable_host=writable, tree=tree)

    def _synth_stat(self, path: str, sn: SynthNode) -> StatInfo:
        size = 0
        return StatInfo(mode=sn.mode, size=size, ino=(stable_ino(path) & 0xFFFFFF) | 0x1000000, dev=SYNTH_DEV,
                        blksize=1024 if sn.mode & S_IFMT == S_IFREG else 4096,      # as procfs reports
                        nlink=2 if sn.mode & S_IFMT == S_IFDIR else 1, uid=self.uid, gid=self.gid,
                        rdev=0x103 if sn.device else 0, mtime_ns=self.clock_ns(), atime_ns=self.clock_ns(),
                        ctime_ns=self.clock_ns())

    def readlink_node(self, node: Node) -> str:
        if node.ov is not None:
            return node.ov.target
        if node.synth is not None:
            return node.synth.target() if node.synth.target else ""
        try:
            return (node.tree or self.tree_of(node.writable_host)).readlink(node.host)
        except OSError as e:
            raise host_error(e) from None

    # -- resolution ----------------------------------------------------------
    def resolve(self, path: str, base: str = "/", follow: bool = True, must_exist: bool = True) -> Tuple[str, Optional[Node]]:
        """Resolve a guest path (relative to `base`) inside the root.

        Returns (canonical guest path, node or None if the last component does not exist and
        must_exist is False). Raises VfsError(ENOENT/ENOTDIR/ELOOP/ENAMETOOLONG)."""
        if not path:
            raise VfsError(E.ENOENT)
        if len(path) >= 4096:
            raise VfsError(E.ENAMETOOLONG)
        todo = _split(path)
        cur = "/" if path.startswith("/") else (base or "/")
        links = 0
        node: Optional[Node] = self._lnode(cur) if cur != "/" else self._root_node()
        trailing_slash = path.endswith("/")
        while todo:
            comp = todo.pop(0)
            if len(comp) > 255:
                raise VfsError(E.ENAMETOOLONG)
            if node is not None and not node.is_dir:
                raise VfsError(E.ENOTDIR)
            if comp == ".":
                continue
            if comp == "..":
                cur = _parent(cur)
                node = self._lnode(cur) if cur != "/" else self._root_node()
                continue
            cand = _join(cur, comp)
            nxt = self._lnode(cand)
            last = not todo
            if nxt is None:
                if last and not must_exist:
                    return cand, None
                raise VfsError(E.ENOENT)
            if nxt.is_link and (not last or follow or trailing_slash):
                links += 1
                if links > MAX_SYMLINKS:
                    raise VfsError(E.ELOOP)
                target = self.readlink_node(nxt)
                if not target:
                    raise VfsError(E.ENOENT)
                todo = _split(target) + todo
                if target.startswith("/"):
                    cur = "/"
                    node = self._root_node()
                continue
            cur, node = cand, nxt
        if trailing_slash and node is not None and not node.is_dir:
            raise VfsError(E.ENOTDIR)
        return cur, node

    def _root_node(self) -> Node:
        host, writable = self.host_path("/")
        ov = self.overlay.get("/")
        if ov is not None:
            return Node("/", ov.stat, ov=ov)
        tree = self.tree_of(writable)
        try:
            st = tree.stat(host)
        except OSError:
            st = StatInfo(mode=S_IFDIR | 0o755)
        return Node("/", st, host=host, writable_host=writable, tree=tree)

    def lookup(self, path: str, base: str = "/", follow: bool = True) -> Node:
        _, node = self.resolve(path, base, follow)
        return node

    # -- directory listing -----------------------------------------------------
    def listdir(self, node: Node) -> List[Tuple[str, int, int]]:
        """(name, d_type, d_ino) of a directory, '.' and '..' first."""
        if not node.is_dir:
            raise VfsError(E.ENOTDIR)
        entries: Dict[str, Tuple[int, int]] = {}
        if node.synth is not None and node.synth.children:
            for name, dtype in node.synth.children():
                entries[name] = (dtype, (stable_ino(_join(node.path, name)) & 0xFFFFFF) | 0x1000000)
        elif node.host is not None and node.ov is None:
            try:
                for name, dtype, ino in (node.tree or self.tree_of(node.writable_host)).listdir(node.host):
                    entries[name] = (dtype, ino)
            except OSError as e:
                raise host_error(e) from None
        prefix = node.path.rstrip("/") + "/"
        for p, ov in self.overlay.items():
            if p.startswith(prefix) and "/" not in p[len(prefix):] and p != node.path:
                entries[p[len(prefix):]] = (DT_OF_MODE.get(ov.stat.type, DT_UNKNOWN), ov.stat.ino)
        for p in self.whiteouts:
            if p.startswith(prefix) and "/" not in p[len(prefix):]:
                entries.pop(p[len(prefix):], None)
        for name, (dtype, ino) in list(self._synth_children(node.path).items()):
            entries.setdefault(name, (dtype, ino))
        parent = self._lnode(_parent(node.path)) if node.path != "/" else node
        dots = {".": (DT_DIR, node.stat.ino), "..": (DT_DIR, parent.stat.ino if parent else node.stat.ino)}
        if "." in entries and ".." in entries:
            entries.update(dots)            # the host's order, with the guest's own inode numbers
            return [(n, t, i) for n, (t, i) in entries.items()]
        return [(n, t, i) for n, (t, i) in dots.items()] + [(n, t, i) for n, (t, i) in entries.items()]

    def _synth_children(self, path: str) -> Dict[str, Tuple[int, int]]:
        """Synthesized entries that live directly in a real directory (e.g. /proc, /dev/null)."""
        out = {}
        prefix = path.rstrip("/") + "/"
        names = list(self.synth) + [p for p, _ in self.synth_dirs]
        for p in names:
            if p.startswith(prefix) and "/" not in p[len(prefix):]:
                sn = self._synth_node(p)
                if sn is not None:
                    out[p[len(prefix):]] = (DT_OF_MODE.get(sn.mode & S_IFMT, DT_UNKNOWN), (stable_ino(p) & 0xFFFFFF) | 0x1000000)
        return out

    # -- overlay writes ----------------------------------------------------------
    def _new_stat(self, mode: int) -> StatInfo:
        now = self.clock_ns()
        return StatInfo(mode=mode, ino=self.new_ino(), dev=OVERLAY_DEV, nlink=2 if mode & S_IFMT == S_IFDIR else 1,
                        uid=self.uid, gid=self.gid, atime_ns=now, mtime_ns=now, ctime_ns=now)

    def _parent_dir(self, path: str) -> Node:
        parent = self._lnode(_parent(path)) if _parent(path) != "/" else self._root_node()
        if parent is None:
            raise VfsError(E.ENOENT)
        if not parent.is_dir:
            raise VfsError(E.ENOTDIR)
        if parent.synth is not None or self._synth_owned(path):
            raise VfsError(E.EACCES)
        return parent

    def create_file(self, path: str, mode: int) -> Node:
        parent = self._parent_dir(path)
        if parent.writable_host:
            host, _ = self.host_path(path)
            try:
                fd = os.open(host, os.O_CREAT | os.O_WRONLY | getattr(os, "O_BINARY", 0), mode & 0o7777)
                os.close(fd)
            except OSError as e:
                raise host_error(e) from None
            return self._lnode(path)
        ov = OvNode(self._new_stat(S_IFREG | (mode & 0o7777)))
        self.overlay[path] = ov
        self.whiteouts.discard(path)
        return Node(path, ov.stat, ov=ov)

    def copy_up(self, node: Node) -> Node:
        """Give a root file an overlay copy so the guest can write it."""
        if node.ov is not None or node.writable_host or node.synth is not None:
            return node
        data = bytearray()
        if node.stat.type == S_IFREG:
            try:
                data = bytearray(self.read_host(node))
            except OSError as e:
                raise host_error(e) from None
        st = StatInfo(**{**node.stat.__dict__})
        st.dev = OVERLAY_DEV
        ov = OvNode(st, data, target=self.readlink_node(node) if node.is_link else "")
        self.overlay[node.path] = ov
        return Node(node.path, ov.stat, ov=ov)

    def mkdir(self, path: str, mode: int) -> None:
        if self._lnode(path) is not None:
            raise VfsError(E.EEXIST)
        parent = self._parent_dir(path)
        if parent.writable_host:
            try:
                os.mkdir(self.host_path(path)[0], mode & 0o7777)
            except OSError as e:
                raise host_error(e) from None
            return
        self.overlay[path] = OvNode(self._new_stat(S_IFDIR | (mode & 0o7777)))
        self.whiteouts.discard(path)

    def symlink(self, target: str, path: str) -> None:
        if self._lnode(path) is not None:
            raise VfsError(E.EEXIST)
        parent = self._parent_dir(path)
        if parent.writable_host:
            try:
                os.symlink(target, self.host_path(path)[0])
            except OSError as e:
                raise host_error(e) from None
            return
        st = self._new_stat(S_IFLNK | 0o777)
        st.size = len(target.encode())
        self.overlay[path] = OvNode(st, target=target)
        self.whiteouts.discard(path)

    def remove(self, node: Node, is_dir: bool) -> None:
        if is_dir and not node.is_dir:
            raise VfsError(E.ENOTDIR)
        if not is_dir and node.is_dir:
            raise VfsError(E.EISDIR)
        if node.synth is not None or self._synth_owned(node.path):
            raise VfsError(E.EACCES)
        if is_dir and len(self.listdir(node)) > 2:
            raise VfsError(E.ENOTEMPTY)
        if node.writable_host:
            try:
                (os.rmdir if is_dir else os.unlink)(node.host)
            except OSError as e:
                raise host_error(e) from None
            return
        self._parent_dir(node.path)
        self.overlay.pop(node.path, None)
        if node.host is not None:
            self.whiteouts.add(node.path)

    def rename(self, src: Node, dst_path: str) -> None:
        dst = self._lnode(dst_path)
        self._parent_dir(dst_path)
        if src.writable_host and (dst is None or dst.writable_host) and self.host_path(dst_path)[1]:
            try:
                os.replace(src.host, self.host_path(dst_path)[0])
            except OSError as e:
                raise host_error(e) from None
            return
        if src.is_dir and src.ov is None:
            raise VfsError(E.EXDEV)       # a root directory would need a deep copy: let mv fall back
        if dst is not None:
            if dst.is_dir and not src.is_dir:
                raise VfsError(E.EISDIR)
            if dst.is_dir and len(self.listdir(dst)) > 2:
                raise VfsError(E.ENOTEMPTY)
        self.copy_up(src)                 # the overlay holds what moves
        ov = self.overlay.pop(src.path)
        if src.host is not None:
            self.whiteouts.add(src.path)
        if dst is not None and dst.writable_host:
            raise VfsError(E.EXDEV)
        self.overlay[dst_path] = ov
        self.whiteouts.discard(dst_path)
        # children of an overlay directory move with it
        prefix = src.path.rstrip("/") + "/"
        for p in [p for p in self.overlay if p.startswith(prefix)]:
            self.overlay[dst_path.rstrip("/") + "/" + p[len(prefix):]] = self.overlay.pop(p)

    def link(self, src: Node, dst_path: str) -> None:
        if self._lnode(dst_path) is not None:
            raise VfsError(E.EEXIST)
        if src.is_dir:
            raise VfsError(E.EPERM)
        parent = self._parent_dir(dst_path)
        if src.writable_host and parent.writable_host:
            try:
                os.link(src.host, self.host_path(dst_path)[0])
            except OSError as e:
                raise host_error(e) from None
            return
        up = self.copy_up(src)
        up.stat.nlink += 1
        self.overlay[dst_path] = up.ov
        self.whiteouts.discard(dst_path)

    def writable(self, node: Node) -> Node:
        """The node to write through: the overlay copy, or the host file in a grant."""
        if node.synth is not None:
            return node
        return self.copy_up(node)
