"""stat, lstat, fstat, newfstatat, statx, statfs, fstatfs: Linux's structures packed from the VFS's
StatInfo, with a host file's identity and times made the guest's."""
from __future__ import annotations

from emutrace.kernel.dispatch import s32
from emutrace.kernel.fs import resolve_at
from emutrace.linux.fcntl import AT_FDCWD, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH
from emutrace.kernel.layouts import STAT, STATFS, STATX
from emutrace.kernel.limits import PAGE
from emutrace.kernel.vfs import Node, StatInfo
from emutrace.linux.fcntl import STATX_BASIC_STATS, STATX_MNT_ID, ST_RDONLY, ST_RELATIME, ST_VALID



def pack_stat(st: StatInfo) -> bytes:
    return STAT.pack(
        st_dev=st.dev, st_ino=st.ino, st_nlink=st.nlink, st_mode=st.mode, st_uid=st.uid, st_gid=st.gid,
        st_rdev=st.rdev, st_size=st.size, st_blksize=st.blksize, st_blocks=st.blocks,
        st_atime=st.atime_ns // 10**9, st_atime_nsec=st.atime_ns % 10**9,
        st_mtime=st.mtime_ns // 10**9, st_mtime_nsec=st.mtime_ns % 10**9,
        st_ctime=st.ctime_ns // 10**9, st_ctime_nsec=st.ctime_ns % 10**9)


def _major(dev):
    return ((dev >> 8) & 0xFFF) | ((dev >> 32) & ~0xFFF & 0xFFFFFFFF)


def _minor(dev):
    return (dev & 0xFF) | ((dev >> 12) & ~0xFF & 0xFFFFFFFF)


def pack_statx(st: StatInfo) -> bytes:
    return STATX.pack(
        stx_mask=STATX_BASIC_STATS | STATX_MNT_ID, stx_mnt_id=st.dev & 0xFFFF, stx_blksize=st.blksize, stx_nlink=st.nlink, stx_uid=st.uid, stx_gid=st.gid,
        stx_mode=st.mode & 0xFFFF, stx_ino=st.ino, stx_size=st.size, stx_blocks=st.blocks,
        stx_atime_sec=st.atime_ns // 10**9, stx_atime_nsec=st.atime_ns % 10**9,
        stx_ctime_sec=st.ctime_ns // 10**9, stx_ctime_nsec=st.ctime_ns % 10**9,
        stx_mtime_sec=st.mtime_ns // 10**9, stx_mtime_nsec=st.mtime_ns % 10**9,
        stx_rdev_major=_major(st.rdev), stx_rdev_minor=_minor(st.rdev),
        stx_dev_major=_major(st.dev), stx_dev_minor=_minor(st.dev))


def shown(proc, st: StatInfo) -> StatInfo:
    """A stat about to reach the guest: a host file's gets its guest inode and device numbers
    (hosttree.HostIds), and its times are never later than the clock (World.shown)."""
    proc.kernel.world.shown(max(st.atime_ns, st.mtime_ns, st.ctime_ns))
    return proc.kernel.vfs.host_ids.shown(st)


def sys_stat(proc, path, buf, *_):
    _, node = resolve_at(proc, AT_FDCWD, path)
    proc.aspace.write(buf, pack_stat(shown(proc, node.stat)))
    return 0


def sys_lstat(proc, path, buf, *_):
    _, node = resolve_at(proc, AT_FDCWD, path, follow=False)
    proc.aspace.write(buf, pack_stat(shown(proc, node.stat)))
    return 0


def sys_fstat(proc, fd, buf, *_):
    proc.aspace.write(buf, pack_stat(shown(proc, proc.fds.get(s32(fd)).stat())))
    return 0


def _stat_at(proc, dirfd, path, flags) -> StatInfo:
    if flags & AT_EMPTY_PATH and proc.aspace.read(path, 1) == b"\0":
        if s32(dirfd) == AT_FDCWD:
            return proc.kernel.vfs.lookup(proc.cwd).stat
        return proc.fds.get(s32(dirfd)).stat()
    _, node = resolve_at(proc, dirfd, path, follow=not flags & AT_SYMLINK_NOFOLLOW)
    return node.stat


def sys_newfstatat(proc, dirfd, path, buf, flags, *_):
    proc.aspace.write(buf, pack_stat(shown(proc, _stat_at(proc, dirfd, path, flags))))
    return 0


def sys_statx(proc, dirfd, path, flags, mask, buf, *_):
    proc.aspace.write(buf, pack_statx(shown(proc, _stat_at(proc, dirfd, path, flags))))
    return 0




def _statfs_bytes(proc, node) -> bytes:
    """What the guest's writes may still use: the overlay's quota (--max-disk, the inode bound) is
    the size of every file system it writes to; /proc and /dev are pseudo file systems; a --rw
    grant's host file system is reported with fixed numbers, never the host's own."""
    if node.synth is not None:
        return STATFS.pack(f_type=0x9FA0, f_bsize=4096, f_namelen=255, f_frsize=4096, f_flags=ST_VALID)
    if node.writable_host:
        return STATFS.pack(f_type=0xEF53, f_bsize=4096, f_blocks=1 << 20, f_bfree=1 << 19, f_bavail=1 << 19,
                           f_files=1 << 16, f_ffree=1 << 15, f_namelen=255, f_frsize=4096, f_flags=ST_VALID)
    limits = proc.kernel.limits
    blocks, free = limits.max["disk"] // PAGE, limits.room("disk") // PAGE
    magic = 0x01021994 if node.ov is not None else 0xEF53      # tmpfs for overlay-only files
    return STATFS.pack(f_type=magic, f_bsize=PAGE, f_blocks=blocks, f_bfree=free, f_bavail=free,
                       f_files=limits.max["inodes"], f_ffree=limits.room("inodes"), f_namelen=255,
                       f_frsize=PAGE, f_flags=ST_VALID | ST_RELATIME)


def sys_statfs(proc, path, buf, *_):
    _, node = resolve_at(proc, AT_FDCWD, path)
    proc.aspace.write(buf, _statfs_bytes(proc, node))
    return 0


def sys_fstatfs(proc, fd, buf, *_):
    f = proc.fds.get(s32(fd))
    proc.aspace.write(buf, _statfs_bytes(proc, f.node or Node("/", f.stat())))
    return 0
