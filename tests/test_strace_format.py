"""decode/strace/: every line below was printed by strace 6.1 (Debian 12).

How the references were made: a static test program executed raw syscalls whose pointer arguments
point into a data blob at a fixed address, under `strace -e inject=all:retval=N` (or error=E), so
the kernel never ran them while strace decoded arguments and results from that memory exactly as
for a real call. The memory each case needs is listed with it; the formatter reads it through
FakeMem, the same interface the emulator gives it (read / cstring). Other lines come from real
programs traced with `strace -f`, `-y`, `-s 5` and `-c`.
"""
import struct
import time

import pytest

from emutrace.decode import strace
from emutrace.kernel import table
from emutrace.decode.strace import (SyscallFormatter, format_exited, format_killed, format_signal,
                             format_summary, quote_string)


class FakeMem:
    """Guest memory: {address: bytes or hex string}; anything else is unmapped."""

    def __init__(self, regions=None):
        self.regions = []
        for addr, data in (regions or {}).items():
            if isinstance(data, str):
                data = bytes.fromhex(data)
            self.regions.append((addr, bytes(data)))

    def _find(self, addr, size):
        for base, data in self.regions:
            if base <= addr and addr + size <= base + len(data):
                return data[addr - base:addr - base + size]
        return None

    def read(self, addr, size):
        return self._find(addr, size)

    def cstring(self, addr, limit):
        for base, data in self.regions:
            if base <= addr < base + len(data):
                chunk = data[addr - base:addr - base + limit]
                nul = chunk.find(b"\0")
                return (chunk, False) if nul < 0 else (chunk[:nul], True)
        return None


@pytest.fixture(autouse=True)
def other_time_zone(monkeypatch):
    """strace prints dates in its local time (the references were made with TZ=UTC); emutrace
    prints UTC whatever the host's zone, so run everything under another zone."""
    monkeypatch.setenv("TZ", "America/New_York")
    if hasattr(time, "tzset"):
        time.tzset()
    yield
    monkeypatch.undo()
    if hasattr(time, "tzset"):
        time.tzset()


def fmt_line(name, args, ret, mem, **kw):
    kw.setdefault("align", 40)
    f = SyscallFormatter(**kw)
    return f.format(table.BY_NAME[name], list(args) + [0] * (6 - len(args)), ret, mem)


# (label, syscall, args, return value, memory, strace 6.1's line with the " (INJECTED)" dropped)
REFERENCE = [
    ('write_hello', 'write', (1, 0x10001000, 6), 6, {0x10001000: '68656c6c6f0a'},
     'write(1, "hello\\n", 6)                  = 6'),
    ('write_escapes', 'write', (1, 0x10001010, 52), 52, {0x10001010: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'},
     'write(1, "\\0\\1\\2\\3\\4\\5\\6\\7\\10\\t\\n\\v\\f\\r\\16\\17\\20\\21\\22\\23\\24\\25\\26\\27\\30\\31\\32\\33\\34\\35\\36\\37"..., 52) = 52'),
    ('write_escapes2', 'write', (1, 0x10001050, 23), 23, {0x10001050: '003100321b5b306d0961620d0b0c07087a7a7a7a7a0000'},
     'write(1, "\\0001\\0002\\33[0m\\tab\\r\\v\\f\\7\\10zzzzz\\0\\0", 23) = 23'),
    ('write_long', 'write', (1, 0x10001070, 100), 100, {0x10001070: '4141414141414141414141414141414141414141414141414141414141414141'},
     'write(1, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"..., 100) = 100'),
    ('write_32', 'write', (1, 0x10001070, 32), 32, {0x10001070: '4141414141414141414141414141414141414141414141414141414141414141'},
     'write(1, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 32) = 32'),
    ('write_33', 'write', (1, 0x10001070, 33), 33, {0x10001070: '4141414141414141414141414141414141414141414141414141414141414141'},
     'write(1, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"..., 33) = 33'),
    ('write_0', 'write', (1, 0x10001070), 0, {},
     'write(1, "", 0)                         = 0'),
    ('write_null', 'write', (1, 0, 5), -14, {},
     'write(1, NULL, 5)                       = -1 EFAULT (Bad address)'),
    ('read_hello', 'read', (0, 0x10001000, 4096), 6, {0x10001000: '68656c6c6f0a'},
     'read(0, "hello\\n", 4096)                = 6'),
    ('read_err', 'read', (0, 0x10001000, 4096), -11, {},
     'read(0, 0x10001000, 4096)               = -1 EAGAIN (Resource temporarily unavailable)'),
    ('read_0', 'read', (0, 0x10001000, 4096), 0, {},
     'read(0, "", 4096)                       = 0'),
    ('read_trunc_ret', 'read', (0, 0x10001070, 4096), 50, {0x10001070: '4141414141414141414141414141414141414141414141414141414141414141'},
     'read(0, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"..., 4096) = 50'),
    ('write_utf8', 'write', (1, 0x100010e0, 13), 13, {0x100010e0: '68c3a96c6c6f2077c3b6726c64'},
     'write(1, "h\\303\\251llo w\\303\\266rld", 13) = 13'),
    ('pread64', 'pread64', (3, 0x10001000, 4096, 1024), 6, {0x10001000: '68656c6c6f0a'},
     'pread64(3, "hello\\n", 4096, 1024)       = 6'),
    ('pwrite64', 'pwrite64', (3, 0x10001000, 6, 0x10000000000), 6, {0x10001000: '68656c6c6f0a'},
     'pwrite64(3, "hello\\n", 6, 1099511627776) = 6'),
    ('openat', 'openat', (0xffffffffffffff9c, 0x100010ed, 0x80000), 3, {0x100010ed: '2f6574632f70617373776400'},
     'openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3'),
    ('openat_creat', 'openat', (0xffffffffffffff9c, 0x100010ed, 577, 420), 3, {0x100010ed: '2f6574632f70617373776400'},
     'openat(AT_FDCWD, "/etc/passwd", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3'),
    ('openat_err', 'openat', (0xffffffffffffff9c, 0x100010ed), -2, {0x100010ed: '2f6574632f70617373776400'},
     'openat(AT_FDCWD, "/etc/passwd", O_RDONLY) = -1 ENOENT (No such file or directory)'),
    ('openat_long', 'openat', (0xffffffffffffff9c, 0x100010f9), -2, {0x100010f9: '2f787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787800'},
     'openat(AT_FDCWD, "/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", O_RDONLY) = -1 ENOENT (No such file or directory)'),
    ('openat_weird', 'openat', (0xffffffffffffff9c, 0x100011c3), -2, {0x100011c3: '2f746d702f6122625c630a640100'},
     'openat(AT_FDCWD, "/tmp/a\\"b\\\\c\\nd\\1", O_RDONLY) = -1 ENOENT (No such file or directory)'),
    ('open', 'open', (0x100010ed, 0x80041, 384), 4, {0x100010ed: '2f6574632f70617373776400'},
     'open("/etc/passwd", O_WRONLY|O_CREAT|O_CLOEXEC, 0600) = 4'),
    ('stat_path', 'stat', (0x100010ed,), -2, {0x100010ed: '2f6574632f70617373776400'},
     'stat("/etc/passwd", NULL)               = -1 ENOENT (No such file or directory)'),
    ('access', 'access', (0x100010ed, 4), -2, {0x100010ed: '2f6574632f70617373776400'},
     'access("/etc/passwd", R_OK)             = -1 ENOENT (No such file or directory)'),
    ('unlinkat', 'unlinkat', (0xffffffffffffff9c, 0x100010ed, 512), 0, {0x100010ed: '2f6574632f70617373776400'},
     'unlinkat(AT_FDCWD, "/etc/passwd", AT_REMOVEDIR) = 0'),
    ('readlink', 'readlink', (0x100010ed, 0x100011e0, 4096), 11, {0x100010ed: '2f6574632f70617373776400', 0x100011e0: '2f7573722f62696e2f6c73'},
     'readlink("/etc/passwd", "/usr/bin/ls", 4096) = 11'),
    ('getcwd', 'getcwd', (0x100011f0, 4096), 11, {0x100011f0: '2f686f6d652f75736572'},
     'getcwd("/home/user", 4096)              = 11'),
    ('getcwd_err', 'getcwd', (0x10001200, 4), -34, {},
     'getcwd(0x10001200, 4)                   = -1 ERANGE (Numerical result out of range)'),
    ('chdir', 'chdir', (0x100010ed,), 0, {0x100010ed: '2f6574632f70617373776400'},
     'chdir("/etc/passwd")                    = 0'),
    ('rename', 'rename', (0x100010ed, 0x100011c3), 0, {0x100010ed: '2f6574632f70617373776400', 0x100011c3: '2f746d702f6122625c630a640100'},
     'rename("/etc/passwd", "/tmp/a\\"b\\\\c\\nd\\1") = 0'),
    ('mkdir', 'mkdir', (0x100010ed, 493), 0, {0x100010ed: '2f6574632f70617373776400'},
     'mkdir("/etc/passwd", 0755)              = 0'),
    ('symlinkat', 'symlinkat', (0x100010ed, 0xffffffffffffff9c, 0x100011c3), 0, {0x100010ed: '2f6574632f70617373776400', 0x100011c3: '2f746d702f6122625c630a640100'},
     'symlinkat("/etc/passwd", AT_FDCWD, "/tmp/a\\"b\\\\c\\nd\\1") = 0'),
    ('fchmodat', 'fchmodat', (0xffffffffffffff9c, 0x100010ed, 2541), 0, {0x100010ed: '2f6574632f70617373776400'},
     'fchmodat(AT_FDCWD, "/etc/passwd", 04755) = 0'),
    ('fchownat', 'fchownat', (0xffffffffffffff9c, 0x100010ed, 1000, 0xffffffff, 256), 0, {0x100010ed: '2f6574632f70617373776400'},
     'fchownat(AT_FDCWD, "/etc/passwd", 1000, -1, AT_SYMLINK_NOFOLLOW) = 0'),
    ('faccessat2', 'faccessat2', (0xffffffffffffff9c, 0x100010ed, 7, 512), 0, {0x100010ed: '2f6574632f70617373776400'},
     'faccessat2(AT_FDCWD, "/etc/passwd", R_OK|W_OK|X_OK, AT_EACCESS) = 0'),
    ('truncate', 'truncate', (0x100010ed, 1234), 0, {0x100010ed: '2f6574632f70617373776400'},
     'truncate("/etc/passwd", 1234)           = 0'),
    ('umask', 'umask', (18,), 18, {},
     'umask(022)                              = 022'),
    ('mknod', 'mknod', (0x100010ed, 0x2190, 0x8801), 0, {0x100010ed: '2f6574632f70617373776400'},
     'mknod("/etc/passwd", S_IFCHR|0620, makedev(0x88, 0x1)) = 0'),
    ('mknod_reg', 'mknod', (0x100010ed, 0x8180, 0x8801), 0, {0x100010ed: '2f6574632f70617373776400'},
     'mknod("/etc/passwd", S_IFREG|0600)      = 0'),
    ('mknodat', 'mknodat', (0xffffffffffffff9c, 0x100010ed, 0x6180, 2051), 0, {0x100010ed: '2f6574632f70617373776400'},
     'mknodat(AT_FDCWD, "/etc/passwd", S_IFBLK|0600, makedev(0x8, 0x3)) = 0'),
    ('statfs', 'statfs', (0x100010ed, 0x10001210), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001210: '53ef0000000000000010000000000000e803000000000000f4010000000000009001000000000000640000000000000032000000000000000100000002000000ff00000000000000001000000000000020100000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statfs("/etc/passwd", {f_type=EXT2_SUPER_MAGIC, f_bsize=4096, f_blocks=1000, f_bfree=500, f_bavail=400, f_files=100, f_ffree=50, f_fsid={val=[0x1, 0x2]}, f_namelen=255, f_frsize=4096, f_flags=ST_VALID|ST_RELATIME}) = 0'),
    ('fstat_reg', 'fstat', (3, 0x10001290), 0, {0x10001290: '0308000000000000d2040000000000000100000000000000a48100000000000000000000000000000000000000000000e00b0000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'fstat(3, {st_mode=S_IFREG|0644, st_size=3040, ...}) = 0'),
    ('fstat_dir', 'fstat', (3, 0x10001320), 0, {0x10001320: '0308000000000000d2040000000000000100000000000000ed410000000000000000000000000000000000000000000000100000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'fstat(3, {st_mode=S_IFDIR|0755, st_size=4096, ...}) = 0'),
    ('fstat_chr', 'fstat', (1, 0x100013b0), 0, {0x100013b0: '0308000000000000d204000000000000010000000000000090210000000000000000000000000000018800000000000000000000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'fstat(1, {st_mode=S_IFCHR|0620, st_rdev=makedev(0x88, 0x1), ...}) = 0'),
    ('fstat_blk', 'fstat', (1, 0x10001440), 0, {0x10001440: '0308000000000000d2040000000000000100000000000000b0610000000000000000000000000000030800000000000000000000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'fstat(1, {st_mode=S_IFBLK|0660, st_rdev=makedev(0x8, 0x3), ...}) = 0'),
    ('fstat_suid', 'fstat', (1, 0x10001560), 0, {0x10001560: '0308000000000000d2040000000000000100000000000000ed89000000000000000000000000000000000000000000000a000000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'fstat(1, {st_mode=S_IFREG|S_ISUID|0755, st_size=10, ...}) = 0'),
    ('fstat_err', 'fstat', (99, 0x10001290), -9, {},
     'fstat(99, 0x10001290)                   = -1 EBADF (Bad file descriptor)'),
    ('fstat_null', 'fstat', (3,), -14, {},
     'fstat(3, NULL)                          = -1 EFAULT (Bad address)'),
    ('stat_reg', 'stat', (0x100010ed, 0x10001290), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001290: '0308000000000000d2040000000000000100000000000000a48100000000000000000000000000000000000000000000e00b0000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'stat("/etc/passwd", {st_mode=S_IFREG|0644, st_size=3040, ...}) = 0'),
    ('lstat_lnk', 'lstat', (0x100010ed, 0x100014d0), 0, {0x100010ed: '2f6574632f70617373776400', 0x100014d0: '0308000000000000d2040000000000000100000000000000ffa10000000000000000000000000000000000000000000007000000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'lstat("/etc/passwd", {st_mode=S_IFLNK|0777, st_size=7, ...}) = 0'),
    ('newfstatat', 'newfstatat', (0xffffffffffffff9c, 0x100010ed, 0x10001290), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001290: '0308000000000000d2040000000000000100000000000000a48100000000000000000000000000000000000000000000e00b0000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'newfstatat(AT_FDCWD, "/etc/passwd", {st_mode=S_IFREG|0644, st_size=3040, ...}, 0) = 0'),
    ('newfstatat_empty', 'newfstatat', (3, 0x100015f0, 0x10001290, 4096), 0, {0x10001290: '0308000000000000d2040000000000000100000000000000a48100000000000000000000000000000000000000000000e00b0000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000', 0x100015f0: '00'},
     'newfstatat(3, "", {st_mode=S_IFREG|0644, st_size=3040, ...}, AT_EMPTY_PATH) = 0'),
    ('newfstatat_nofollow', 'newfstatat', (0xffffffffffffff9c, 0x100010ed, 0x100014d0, 256), 0, {0x100010ed: '2f6574632f70617373776400', 0x100014d0: '0308000000000000d2040000000000000100000000000000ffa10000000000000000000000000000000000000000000007000000000000000010000000000000080000000000000000f15365000000007b00000000000000805abb6400000000050000000000000000c4226400000000ffc99a3b00000000000000000000000000000000000000000000000000000000'},
     'newfstatat(AT_FDCWD, "/etc/passwd", {st_mode=S_IFLNK|0777, st_size=7, ...}, AT_SYMLINK_NOFOLLOW) = 0'),
    ('newfstatat_err', 'newfstatat', (0xffffffffffffff9c, 0x100010ed, 0x10001290), -2, {0x100010ed: '2f6574632f70617373776400'},
     'newfstatat(AT_FDCWD, "/etc/passwd", 0x10001290, 0) = -1 ENOENT (No such file or directory)'),
    ('statx', 'statx', (0xffffffffffffff9c, 0x100010ed, 0, 2047, 0x10001600), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001600: 'ff07000000100000000000000000000001000000e8030000e8030000a4810000d204000000000000e00b0000000000000800000000000000703020000000000000f15365000000007b0000000000000000105e5f00000000c80100000000000000c42264000000001503000000000000805abb64000000000100000000000000000000000000000008000000030000001d000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "/etc/passwd", AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS, {stx_mask=STATX_BASIC_STATS, stx_attributes=0, stx_mode=S_IFREG|0644, stx_size=3040, ...}) = 0'),
    ('statx_empty', 'statx', (3, 0x10001700, 4096, 4095, 0x10001600), 0, {0x10001600: 'ff07000000100000000000000000000001000000e8030000e8030000a4810000d204000000000000e00b0000000000000800000000000000703020000000000000f15365000000007b0000000000000000105e5f00000000c80100000000000000c42264000000001503000000000000805abb64000000000100000000000000000000000000000008000000030000001d00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(3, "", AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH, STATX_ALL, {stx_mask=STATX_BASIC_STATS, stx_attributes=0, stx_mode=S_IFREG|0644, stx_size=3040, ...}) = 0'),
    ('statx_dir', 'statx', (0xffffffffffffff9c, 0x100010ed, 256, 2047, 0x10001710), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001710: 'ff0f000000100000200000000000000001000000e8030000e8030000ed410000d204000000000000e00b0000000000000800000000000000703020000000000000f15365000000007b0000000000000000105e5f00000000c80100000000000000c42264000000001503000000000000805abb64000000000100000000000000000000000000000008000000030000001d000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "/etc/passwd", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, {stx_mask=STATX_ALL, stx_attributes=STATX_ATTR_APPEND, stx_mode=S_IFDIR|0755, stx_size=3040, ...}) = 0'),
    ('statx_err', 'statx', (0xffffffffffffff9c, 0x100010ed, 0, 2047, 0x10001600), -2, {0x100010ed: '2f6574632f70617373776400'},
     'statx(AT_FDCWD, "/etc/passwd", AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS, 0x10001600) = -1 ENOENT (No such file or directory)'),
    ('clock_gettime', 'clock_gettime', (1, 0x10001810), 0, {0x10001810: '3930000000000000f235772800000000'},
     'clock_gettime(CLOCK_MONOTONIC, {tv_sec=12345, tv_nsec=678901234}) = 0'),
    ('clock_gettime_rt', 'clock_gettime', (0, 0x10001840), 0, {0x10001840: '00f1536500000000ffc99a3b00000000'},
     'clock_gettime(CLOCK_REALTIME, {tv_sec=1700000000, tv_nsec=999999999}) = 0'),
    ('clock_gettime_bad', 'clock_gettime', (0, 0x10001850), 0, {0x10001850: '050000000000000000ca9a3b00000000'},
     'clock_gettime(CLOCK_REALTIME, {tv_sec=5, tv_nsec=1000000000}) = 0'),
    ('clock_gettime_neg', 'clock_gettime', (0, 0x10001830), 0, {0x10001830: 'ffffffffffffffffffffffffffffffff'},
     'clock_gettime(CLOCK_REALTIME, {tv_sec=-1, tv_nsec=18446744073709551615}) = 0'),
    ('clock_getres', 'clock_getres', (1, 0x10001860), 0, {0x10001860: '00000000000000000100000000000000'},
     'clock_getres(CLOCK_MONOTONIC, {tv_sec=0, tv_nsec=1}) = 0'),
    ('nanosleep', 'nanosleep', (0x10001870,), 0, {0x10001870: '01000000000000000065cd1d00000000'},
     'nanosleep({tv_sec=1, tv_nsec=500000000}, NULL) = 0'),
    ('nanosleep_intr', 'nanosleep', (0x10001880, 0x10001810), -4, {0x10001880: '01000000000000000065cd1d00000000'},
     'nanosleep({tv_sec=1, tv_nsec=500000000}, 0x10001810) = -1 EINTR (Interrupted system call)'),
    ('clock_nanosleep', 'clock_nanosleep', (1, 1, 0x10001840), 0, {0x10001840: '00f1536500000000ffc99a3b00000000'},
     'clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, {tv_sec=1700000000, tv_nsec=999999999}, NULL) = 0'),
    ('clock_nanosleep_rem', 'clock_nanosleep', (1, 0, 0x10001810, 0x10001820), 0, {0x10001810: '3930000000000000f235772800000000'},
     'clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=12345, tv_nsec=678901234}, 0x10001820) = 0'),
    ('gettimeofday', 'gettimeofday', (0x10001890,), 0, {0x10001890: '00f153650000000040e2010000000000'},
     'gettimeofday({tv_sec=1700000000, tv_usec=123456}, NULL) = 0'),
    ('gettimeofday_tz', 'gettimeofday', (0x10001890, 0x100018a0), 0, {0x10001890: '00f153650000000040e2010000000000c4ffffff00000000'},
     'gettimeofday({tv_sec=1700000000, tv_usec=123456}, {tz_minuteswest=-60, tz_dsttime=0}) = 0'),
    ('time_null', 'time', (), 0x6553f100, {},
     'time(NULL)                              = 1700000000 (2023-11-14T22:13:20+0000)'),
    ('time_ptr', 'time', (0x100018b0,), 0x6553f100, {0x100018b0: '00f1536500000000'},
     'time([1700000000 /* 2023-11-14T22:13:20+0000 */]) = 1700000000 (2023-11-14T22:13:20+0000)'),
    ('setitimer', 'setitimer', (0, 0x100018c0), 0, {0x100018c0: '000000000000000000000000000000000100000000000000f401000000000000'},
     'setitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=1, tv_usec=500}}, NULL) = 0'),
    ('setitimer_old', 'setitimer', (0, 0x100018c0, 0x100018e0), 0, {0x100018c0: '000000000000000000000000000000000100000000000000f4010000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'setitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=1, tv_usec=500}}, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=0, tv_usec=0}}) = 0'),
    ('getitimer', 'getitimer', (0, 0x100018c0), 0, {0x100018c0: '000000000000000000000000000000000100000000000000f401000000000000'},
     'getitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=1, tv_usec=500}}) = 0'),
    ('timerfd_settime', 'timerfd_settime', (3, 1, 0x10001900), 0, {0x10001900: '000000000000000000000000000000000100000000000000f401000000000000'},
     'timerfd_settime(3, TFD_TIMER_ABSTIME, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=1, tv_nsec=500}}, NULL) = 0'),
    ('timerfd_gettime', 'timerfd_gettime', (3, 0x10001900), 0, {0x10001900: '000000000000000000000000000000000100000000000000f401000000000000'},
     'timerfd_gettime(3, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=1, tv_nsec=500}}) = 0'),
    ('timer_settime', 'timer_settime', (0, 0, 0x10001900, 0x10001900), 0, {0x10001900: '000000000000000000000000000000000100000000000000f401000000000000'},
     'timer_settime(0, 0, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=1, tv_nsec=500}}, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=1, tv_nsec=500}}) = 0'),
    ('timer_create', 'timer_create', (1, 0, 0x10001920), 0, {0x10001920: '00000000'},
     'timer_create(CLOCK_MONOTONIC, NULL, [0]) = 0'),
    ('timer_create_ev', 'timer_create', (1, 0x10001930, 0x10001980), 0, {0x10001930: '34120000000000000a00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000', 0x10001980: '00000000'},
     'timer_create(CLOCK_MONOTONIC, {sigev_value={sival_int=4660, sival_ptr=0x1234}, sigev_signo=SIGUSR1, sigev_notify=SIGEV_SIGNAL}, [0]) = 0'),
    ('times', 'times', (0x10001990,), 0x12d687, {0x10001990: '0100000000000000020000000000000003000000000000000400000000000000'},
     'times({tms_utime=1 /* 0.01 s */, tms_stime=2 /* 0.02 s */, tms_cutime=3 /* 0.03 s */, tms_cstime=4 /* 0.04 s */}) = 1234567'),
    ('getrusage', 'getrusage', (0, 0x100019b0), 0, {0x100019b0: '0000000000000000d20400000000000000000000000000002e160000000000000010000000000000050000000000000006000000000000000700000000000000080000000000000009000000000000000a000000000000000b000000000000000c000000000000000d000000000000000e000000000000000f0000000000000010000000000000001100000000000000'},
     'getrusage(RUSAGE_SELF, {ru_utime={tv_sec=0, tv_usec=1234}, ru_stime={tv_sec=0, tv_usec=5678}, ...}) = 0'),
    ('wait4_ru', 'wait4', (0xffffffffffffffff, 0, 0, 0x100019b0), 123, {0x100019b0: '0000000000000000d20400000000000000000000000000002e160000000000000010000000000000050000000000000006000000000000000700000000000000080000000000000009000000000000000a000000000000000b000000000000000c000000000000000d000000000000000e000000000000000f0000000000000010000000000000001100000000000000'},
     'wait4(-1, NULL, 0, {ru_utime={tv_sec=0, tv_usec=1234}, ru_stime={tv_sec=0, tv_usec=5678}, ...}) = 123'),
    ('utimensat_now', 'utimensat', (0xffffffffffffff9c, 0x100010ed, 0x10001a40), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001a40: '0000000000000000ffffff3f000000000000000000000000feffff3f00000000'},
     'utimensat(AT_FDCWD, "/etc/passwd", [UTIME_NOW, UTIME_OMIT], 0) = 0'),
    ('utimensat_ts', 'utimensat', (0xffffffffffffff9c, 0x100010ed, 0x10001a60, 256), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001a60: '00f1536500000000050000000000000001000000000000000200000000000000'},
     'utimensat(AT_FDCWD, "/etc/passwd", [{tv_sec=1700000000, tv_nsec=5} /* 2023-11-14T22:13:20.000000005+0000 */, {tv_sec=1, tv_nsec=2} /* 1970-01-01T00:00:01.000000002+0000 */], AT_SYMLINK_NOFOLLOW) = 0'),
    ('utimensat_null', 'utimensat', (3,), 0, {},
     'utimensat(3, NULL, NULL, 0)             = 0'),
    ('utimes', 'utimes', (0x100010ed, 0x10001a80), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001a80: '00f1536500000000050000000000000001000000000000000200000000000000'},
     'utimes("/etc/passwd", [{tv_sec=1700000000, tv_usec=5} /* 2023-11-14T22:13:20.000005+0000 */, {tv_sec=1, tv_usec=2} /* 1970-01-01T00:00:01.000002+0000 */]) = 0'),
    ('utime', 'utime', (0x100010ed, 0x10001aa0), 0, {0x100010ed: '2f6574632f70617373776400', 0x10001aa0: '00f15365000000000500000000000000'},
     'utime("/etc/passwd", {actime=1700000000 /* 2023-11-14T22:13:20+0000 */, modtime=5 /* 1970-01-01T00:00:05+0000 */}) = 0'),
    ('sched_rr_get_interval', 'sched_rr_get_interval', (0, 0x10001810), 0, {0x10001810: '3930000000000000f235772800000000'},
     'sched_rr_get_interval(0, {tv_sec=12345, tv_nsec=678901234}) = 0'),
    ('rt_sigaction', 'rt_sigaction', (2, 0x10001ab0, 0, 8), 0, {0x10001ab0: '0010400000000000040000140000000000100000007f00000000000000000000'},
     'rt_sigaction(SIGINT, {sa_handler=0x401000, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART|SA_SIGINFO, sa_restorer=0x7f0000001000}, NULL, 8) = 0'),
    ('rt_sigaction_old', 'rt_sigaction', (2, 0x10001ab0, 0x10001ad0, 8), 0, {0x10001ab0: '0010400000000000040000140000000000100000007f000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigaction(SIGINT, {sa_handler=0x401000, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART|SA_SIGINFO, sa_restorer=0x7f0000001000}, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0'),
    ('rt_sigaction_ign', 'rt_sigaction', (13, 0x10001af0, 0, 8), 0, {0x10001af0: '0100000000000000000000040000000000100000007f00000240000000000000'},
     'rt_sigaction(SIGPIPE, {sa_handler=SIG_IGN, sa_mask=[INT TERM], sa_flags=SA_RESTORER, sa_restorer=0x7f0000001000}, NULL, 8) = 0'),
    ('rt_sigaction_mask', 'rt_sigaction', (17, 0x10001b10, 0, 8), 0, {0x10001b10: '0010400000000000030000cc0000000000100000007f0000fffefbffffffffff'},
     'rt_sigaction(SIGCHLD, {sa_handler=0x401000, sa_mask=~[KILL STOP], sa_flags=SA_RESTORER|SA_ONSTACK|SA_NODEFER|SA_RESETHAND|SA_NOCLDSTOP|SA_NOCLDWAIT, sa_restorer=0x7f0000001000}, NULL, 8) = 0'),
    ('rt_sigaction_getold', 'rt_sigaction', (11, 0, 0x10001ab0, 8), 0, {0x10001ab0: '0010400000000000040000140000000000100000007f00000000000000000000'},
     'rt_sigaction(SIGSEGV, NULL, {sa_handler=0x401000, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART|SA_SIGINFO, sa_restorer=0x7f0000001000}, 8) = 0'),
    ('rt_sigaction_err', 'rt_sigaction', (9, 0x10001ab0, 0x10001ad0, 8), -22, {0x10001ab0: '0010400000000000040000140000000000100000007f00000000000000000000'},
     'rt_sigaction(SIGKILL, {sa_handler=0x401000, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART|SA_SIGINFO, sa_restorer=0x7f0000001000}, 0x10001ad0, 8) = -1 EINVAL (Invalid argument)'),
    ('rt_sigaction_rt', 'rt_sigaction', (34, 0x10001ad0, 0, 8), 0, {0x10001ad0: '0000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigaction(SIGRT_2, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, NULL, 8) = 0'),
    ('rt_sigaction_err_handler', 'rt_sigaction', (10, 0x10001b30, 0, 8), 0, {0x10001b30: 'ffffffffffffffff100000000000000000000000000000000000000000000000'},
     'rt_sigaction(SIGUSR1, {sa_handler=SIG_ERR, sa_mask=[], sa_flags=0x10 /* SA_??? */}, NULL, 8) = 0'),
    ('sigprocmask_empty', 'rt_sigprocmask', (0, 0x10001b50, 0, 8), 0, {0x10001b50: '0000000000000000'},
     'rt_sigprocmask(SIG_BLOCK, [], NULL, 8)  = 0'),
    ('sigprocmask_int', 'rt_sigprocmask', (0, 0x10001b60, 0, 8), 0, {0x10001b60: '0200000000000000'},
     'rt_sigprocmask(SIG_BLOCK, [INT], NULL, 8) = 0'),
    ('sigprocmask_int_term', 'rt_sigprocmask', (0, 0x10001b70, 0, 8), 0, {0x10001b70: '0240000000000000'},
     'rt_sigprocmask(SIG_BLOCK, [INT TERM], NULL, 8) = 0'),
    ('sigprocmask_rt', 'rt_sigprocmask', (0, 0x10001b80, 0, 8), 0, {0x10001b80: '0000008001000000'},
     'rt_sigprocmask(SIG_BLOCK, [RTMIN RT_1], NULL, 8) = 0'),
    ('sigprocmask_all', 'rt_sigprocmask', (0, 0x10001b90, 0, 8), 0, {0x10001b90: 'ffffffffffffffff'},
     'rt_sigprocmask(SIG_BLOCK, ~[], NULL, 8) = 0'),
    ('sigprocmask_most', 'rt_sigprocmask', (0, 0x10001ba0, 0, 8), 0, {0x10001ba0: 'ffffff7ffeffffff'},
     'rt_sigprocmask(SIG_BLOCK, ~[RTMIN RT_1], NULL, 8) = 0'),
    ('sigprocmask_half', 'rt_sigprocmask', (0, 0x10001bb0, 0, 8), 0, {0x10001bb0: 'ffffffff00000000'},
     'rt_sigprocmask(SIG_BLOCK, [HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS RTMIN], NULL, 8) = 0'),
    ('sigprocmask_half_hi', 'rt_sigprocmask', (0, 0x10001bc0, 0, 8), 0, {0x10001bc0: '00000000ffffffff'},
     'rt_sigprocmask(SIG_BLOCK, [RT_1 RT_2 RT_3 RT_4 RT_5 RT_6 RT_7 RT_8 RT_9 RT_10 RT_11 RT_12 RT_13 RT_14 RT_15 RT_16 RT_17 RT_18 RT_19 RT_20 RT_21 RT_22 RT_23 RT_24 RT_25 RT_26 RT_27 RT_28 RT_29 RT_30 RT_31 RT_32], NULL, 8) = 0'),
    ('sigprocmask_half_plus', 'rt_sigprocmask', (0, 0x10001bd0, 0, 8), 0, {0x10001bd0: 'ffffffff01000000'},
     'rt_sigprocmask(SIG_BLOCK, [HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS RTMIN RT_1], NULL, 8) = 0'),
    ('sigprocmask_half_minus', 'rt_sigprocmask', (0, 0x10001be0, 0, 8), 0, {0x10001be0: 'ffffff7f00000000'},
     'rt_sigprocmask(SIG_BLOCK, [HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS], NULL, 8) = 0'),
    ('sigprocmask_killstop', 'rt_sigprocmask', (0, 0x10001bf0, 0, 8), 0, {0x10001bf0: '0001040000000000'},
     'rt_sigprocmask(SIG_BLOCK, [KILL STOP], NULL, 8) = 0'),
    ('sigprocmask_allbutkillstop', 'rt_sigprocmask', (0, 0x10001c00, 0, 8), 0, {0x10001c00: 'fffefbffffffffff'},
     'rt_sigprocmask(SIG_BLOCK, ~[KILL STOP], NULL, 8) = 0'),
    ('sigprocmask_old', 'rt_sigprocmask', (2, 0x10001c20, 0x10001c10, 8), 0, {0x10001c10: '0002000000000000', 0x10001c20: '0000000000000000'},
     'rt_sigprocmask(SIG_SETMASK, [], [USR1], 8) = 0'),
    ('sigprocmask_old_err', 'rt_sigprocmask', (2, 0x10001c30, 0x10001c10, 8), -22, {0x10001c30: '0000000000000000'},
     'rt_sigprocmask(SIG_SETMASK, [], 0x10001c10, 8) = -1 EINVAL (Invalid argument)'),
    ('sigprocmask_null', 'rt_sigprocmask', (1, 0, 0x10001c10, 8), 0, {0x10001c10: '0002000000000000'},
     'rt_sigprocmask(SIG_UNBLOCK, NULL, [USR1], 8) = 0'),
    ('sigprocmask_size4', 'rt_sigprocmask', (0, 0x10001c40, 0, 4), 0, {},
     'rt_sigprocmask(SIG_BLOCK, 0x10001c40, NULL, 4) = 0'),
    ('sigprocmask_size16', 'rt_sigprocmask', (0, 0x10001c50, 0, 16), 0, {},
     'rt_sigprocmask(SIG_BLOCK, 0x10001c50, NULL, 16) = 0'),
    ('sigprocmask_size7', 'rt_sigprocmask', (0, 0x10001c60, 0, 7), -22, {},
     'rt_sigprocmask(SIG_BLOCK, 0x10001c60, NULL, 7) = -1 EINVAL (Invalid argument)'),
    ('rt_sigpending', 'rt_sigpending', (0x10001c70, 8), 0, {0x10001c70: '0200000000000000'},
     'rt_sigpending([INT], 8)                 = 0'),
    ('rt_sigsuspend', 'rt_sigsuspend', (0x10001c80, 8), -4, {0x10001c80: '0000000000000000'},
     'rt_sigsuspend([], 8)                    = -1 EINTR (Interrupted system call)'),
    ('kill', 'kill', (1234, 15), 0, {},
     'kill(1234, SIGTERM)                     = 0'),
    ('kill0', 'kill', (), 0, {},
     'kill(0, 0)                              = 0'),
    ('tgkill', 'tgkill', (1234, 1235, 6), 0, {},
     'tgkill(1234, 1235, SIGABRT)             = 0'),
    ('tkill', 'tkill', (1234, 34), 0, {},
     'tkill(1234, SIGRT_2)                    = 0'),
    ('sigaltstack', 'sigaltstack', (0x10001c90,), 0, {0x10001c90: '00000100007f000000000000000000000020000000000000'},
     'sigaltstack({ss_sp=0x7f0000010000, ss_flags=0, ss_size=8192}, NULL) = 0'),
    ('sigaltstack_old', 'sigaltstack', (0, 0x10001cb0), 0, {0x10001cb0: '000000000000000002000000000000000000000000000000'},
     'sigaltstack(NULL, {ss_sp=NULL, ss_flags=SS_DISABLE, ss_size=0}) = 0'),
    ('sigaltstack_onstack', 'sigaltstack', (0, 0x10001cd0), 0, {0x10001cd0: '00000100007f000001000000000000000020000000000000'},
     'sigaltstack(NULL, {ss_sp=0x7f0000010000, ss_flags=SS_ONSTACK, ss_size=8192}) = 0'),
    ('rt_sigtimedwait', 'rt_sigtimedwait', (0x10001cf0, 0, 0x10001810, 8), 10, {0x10001810: '3930000000000000f235772800000000', 0x10001cf0: '0002000000000000'},
     'rt_sigtimedwait([USR1], NULL, {tv_sec=12345, tv_nsec=678901234}, 8) = 10 (SIGUSR1)'),
    ('rt_sigtimedwait_si', 'rt_sigtimedwait', (0x10001d00, 0x10001d10, 0, 8), 10, {0x10001d00: '0002000000000000', 0x10001d10: '0a000000000000000000000000000000d2040000e80300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigtimedwait([USR1], {si_signo=SIGUSR1, si_code=SI_USER, si_pid=1234, si_uid=1000}, NULL, 8) = 10 (SIGUSR1)'),
    ('signalfd4', 'signalfd4', (0xffffffffffffffff, 0x10001d90, 8, 0x80800), 3, {0x10001d90: '0000010000000000'},
     'signalfd4(-1, [CHLD], 8, SFD_CLOEXEC|SFD_NONBLOCK) = 3'),
    ('mmap_anon', 'mmap', (0, 0x2000, 3, 34, 0xffffffffffffffff), 0x7f0000000000, {},
     'mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000'),
    ('mmap_file', 'mmap', (0x7f0000001000, 0x14d000, 5, 2066, 3, 0x28000), 0x7f0000001000, {},
     'mmap(0x7f0000001000, 1363968, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE, 3, 0x28000) = 0x7f0000001000'),
    ('mmap_err', 'mmap', (0, 0x2000, 3, 34, 0xffffffffffffffff), -12, {},
     'mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = -1 ENOMEM (Cannot allocate memory)'),
    ('mmap_huge', 'mmap', (0, 0x200000, 3, 0x54040022, 0xffffffffffffffff), 0x7f0000000000, {},
     'mmap(NULL, 2097152, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_SHIFT, -1, 0) = 0x7f0000000000'),
    ('mmap_shared_validate', 'mmap', (0, 4096, 1, 0x80003, 3), 0x7f0000000000, {},
     'mmap(NULL, 4096, PROT_READ, MAP_SHARED_VALIDATE|MAP_SYNC, 3, 0) = 0x7f0000000000'),
    ('mprotect', 'mprotect', (0x7f0000001000, 4096), 0, {},
     'mprotect(0x7f0000001000, 4096, PROT_NONE) = 0'),
    ('munmap', 'munmap', (0x7f0000001000, 4096), 0, {},
     'munmap(0x7f0000001000, 4096)            = 0'),
    ('brk_null', 'brk', (), 0x555555559000, {},
     'brk(NULL)                               = 0x555555559000'),
    ('brk', 'brk', (0x55555557a000,), 0x55555557a000, {},
     'brk(0x55555557a000)                     = 0x55555557a000'),
    ('mremap', 'mremap', (0x7f0000001000, 4096, 0x2000, 1), 0x7f0000002000, {},
     'mremap(0x7f0000001000, 4096, 8192, MREMAP_MAYMOVE) = 0x7f0000002000'),
    ('mremap_fixed', 'mremap', (0x7f0000001000, 4096, 0x2000, 3, 0x7f0000009000), 0x7f0000009000, {},
     'mremap(0x7f0000001000, 4096, 8192, MREMAP_MAYMOVE|MREMAP_FIXED, 0x7f0000009000) = 0x7f0000009000'),
    ('madvise', 'madvise', (0x7f0000001000, 4096, 4), 0, {},
     'madvise(0x7f0000001000, 4096, MADV_DONTNEED) = 0'),
    ('msync', 'msync', (0x7f0000001000, 4096, 4), 0, {},
     'msync(0x7f0000001000, 4096, MS_SYNC)    = 0'),
    ('mlock', 'mlock', (0x7f0000001000, 4096), 0, {},
     'mlock(0x7f0000001000, 4096)             = 0'),
    ('mincore', 'mincore', (0x7f0000001000, 0x2000, 0x10001da0), 0, {0x10001da0: '0100'},
     'mincore(0x7f0000001000, 8192, [1, 0])   = 0'),
    ('shmget', 'shmget', (0, 4096, 896), 5, {},
     'shmget(IPC_PRIVATE, 4096, IPC_CREAT|0600) = 5'),
    ('shmat', 'shmat', (5,), 0x7f0000005000, {},
     'shmat(5, NULL, 0)                       = 0x7f0000005000'),
    ('shmdt', 'shmdt', (0x7f0000005000,), 0, {},
     'shmdt(0x7f0000005000)                   = 0'),
    ('shmctl', 'shmctl', (5,), 0, {},
     'shmctl(5, IPC_RMID, NULL)               = 0'),
    ('semget', 'semget', (0x1234, 1, 950), 3, {},
     'semget(0x1234, 1, IPC_CREAT|0666)       = 3'),
    ('msgget', 'msgget', (0, 1920), 3, {},
     'msgget(IPC_PRIVATE, IPC_CREAT|IPC_EXCL|0600) = 3'),
    ('semop', 'semop', (3, 0x10001db0, 2), 0, {0x10001db0: '0000010000100100ffff0008'},
     'semop(3, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}, {sem_num=1, sem_op=-1, sem_flg=IPC_NOWAIT}], 2) = 0'),
    ('msgsnd', 'msgsnd', (3, 0x10001dc0, 5, 2048), 0, {0x10001dc0: '010000000000000068656c6c6f'},
     'msgsnd(3, {mtype=1, mtext="hello"}, 5, IPC_NOWAIT) = 0'),
    ('msgrcv', 'msgrcv', (3, 0x10001dd0, 64), 5, {0x10001dd0: '010000000000000068656c6c6f6c73002d6c002f746d7000dd1d001000000000e01d001000000000'},
     'msgrcv(3, {mtype=1, mtext="hellols\\0-l\\0/tmp\\0\\335\\35\\0\\20\\0\\0\\0\\0\\340\\35\\0\\20\\0\\0\\0\\0"...}, 64, 0, 0) = 5'),
    ('semctl', 'semctl', (3, 0, 16, 1), 0, {},
     'semctl(3, 0, SETVAL, 0x1)               = 0'),
    ('execve', 'execve', (0x10001e38, 0x10001de8, 0x10001e20), 0, {0x10001ddd: '6c73002d6c002f746d7000dd1d001000000000e01d001000000000e31d0010000000000000000000000000', 0x10001e20: '081e001000000000131e00100000000000000000000000002f62696e2f6c7300'},
     'execve("/bin/ls", ["ls", "-l", "/tmp"], 0x10001e20 /* 2 vars */) = 0'),
    ('execve_err', 'execve', (0x10001e40, 0x10001de8, 0x10001e20), -2, {0x10001ddd: '6c73002d6c002f746d7000dd1d001000000000e01d001000000000e31d0010000000000000000000000000', 0x10001e20: '081e001000000000131e0010000000000000000000000000', 0x10001e40: '2f62696e2f6e6f706500'},
     'execve("/bin/nope", ["ls", "-l", "/tmp"], 0x10001e20 /* 2 vars */) = -1 ENOENT (No such file or directory)'),
    ('execve_noenv', 'execve', (0x10001e4a, 0x10001de8), -2, {0x10001ddd: '6c73002d6c002f746d7000dd1d001000000000e01d001000000000e31d0010000000000000000000000000', 0x10001e4a: '2f62696e2f6c7300'},
     'execve("/bin/ls", ["ls", "-l", "/tmp"], NULL) = -1 ENOENT (No such file or directory)'),
    ('execve_emptyargv', 'execve', (0x10001e52, 0x10001e60, 0x10001e68), -2, {0x10001e52: '2f62696e2f6c7300', 0x10001e60: '00000000000000000000000000000000'},
     'execve("/bin/ls", [], 0x10001e68 /* 0 vars */) = -1 ENOENT (No such file or directory)'),
    ('execve_manyargs', 'execve', (0x10002050, 0x10001f08, 0x10001e20), -2, {0x10001e20: '081e001000000000131e0010000000000000000000000000', 0x10001e70: '61300061310061320061330061340061350061360061370061380061390061313000613131006131320061313300613134006131350061313600613137006131380061313900613230006132310061323200613233006132340061323500613236006132370061323800613239006133300061333100', 0x10001f08: '701e001000000000731e001000000000761e001000000000791e0010000000007c1e0010000000007f1e001000000000821e001000000000851e001000000000881e0010000000008b1e0010000000008e1e001000000000921e001000000000961e0010000000009a1e0010000000009e1e001000000000a21e001000000000a61e001000000000aa1e001000000000ae1e001000000000b21e001000000000b61e001000000000ba1e001000000000be1e001000000000c21e001000000000c61e001000000000ca1e001000000000ce1e001000000000d21e001000000000d61e001000000000da1e001000000000de1e001000000000e21e001000000000e61e001000000000', 0x10002050: '2f62696e2f6563686f00'},
     'execve("/bin/echo", ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12", "a13", "a14", "a15", "a16", "a17", "a18", "a19", "a20", "a21", "a22", "a23", "a24", "a25", "a26", "a27", "a28", "a29", "a30", "a31", ...], 0x10001e20 /* 2 vars */) = -1 ENOENT (No such file or directory)'),
    ('execveat', 'execveat', (0xffffffffffffff9c, 0x1000205a, 0x10001de8, 0x10001e20), -2, {0x10001ddd: '6c73002d6c002f746d7000dd1d001000000000e01d001000000000e31d0010000000000000000000000000', 0x10001e20: '081e001000000000131e0010000000000000000000000000', 0x1000205a: '2f62696e2f6c7300'},
     'execveat(AT_FDCWD, "/bin/ls", ["ls", "-l", "/tmp"], 0x10001e20 /* 2 vars */, 0) = -1 ENOENT (No such file or directory)'),
    ('execve_longarg', 'execve', (0x100020a8, 0x10002098, 0x10001e20), -2, {0x10001e20: '081e001000000000131e0010000000000000000000000000', 0x10002062: '787878787878787878787878787878787878787878787878787878787878787878', 0x10002098: '622000100000000000000000000000002f62696e2f6c7300'},
     'execve("/bin/ls", ["xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...], 0x10001e20 /* 2 vars */) = -1 ENOENT (No such file or directory)'),
    ('wait4_status_0', 'wait4', (0xffffffffffffffff, 0x100020b0), 1234, {0x100020b0: '00000000'},
     'wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 1234'),
    ('wait4_status_1', 'wait4', (0xffffffffffffffff, 0x100020c0), 1234, {0x100020c0: '00010000'},
     'wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 1}], 0, NULL) = 1234'),
    ('wait4_status_2', 'wait4', (0xffffffffffffffff, 0x100020d0), 1234, {0x100020d0: '09000000'},
     'wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}], 0, NULL) = 1234'),
    ('wait4_status_3', 'wait4', (0xffffffffffffffff, 0x100020e0), 1234, {0x100020e0: '8b000000'},
     'wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}], 0, NULL) = 1234'),
    ('wait4_status_4', 'wait4', (0xffffffffffffffff, 0x100020f0), 1234, {0x100020f0: '7f130000'},
     'wait4(-1, [{WIFSTOPPED(s) && WSTOPSIG(s) == SIGSTOP}], 0, NULL) = 1234'),
    ('wait4_status_5', 'wait4', (0xffffffffffffffff, 0x10002100), 1234, {0x10002100: 'ffff0000'},
     'wait4(-1, [{WIFCONTINUED(s)}], 0, NULL) = 1234'),
    ('wait4_status_6', 'wait4', (0xffffffffffffffff, 0x10002110), 1234, {0x10002110: '7f050000'},
     'wait4(-1, [{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTRAP}], 0, NULL) = 1234'),
    ('wait4_status_7', 'wait4', (0xffffffffffffffff, 0x10002120), 1234, {0x10002120: '7f010500'},
     'wait4(-1, [{WIFSTOPPED(s) && WSTOPSIG(s) == SIGHUP}|PTRACE_EVENT_VFORK_DONE<<16], 0, NULL) = 1234'),
    ('wait4_status_8', 'wait4', (0xffffffffffffffff, 0x10002130), 1234, {0x10002130: '86000000'},
     'wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGABRT && WCOREDUMP(s)}], 0, NULL) = 1234'),
    ('wait4_status_9', 'wait4', (0xffffffffffffffff, 0x10002140), 1234, {0x10002140: '00020000'},
     'wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 2}], 0, NULL) = 1234'),
    ('wait4_null', 'wait4', (1234, 0, 1), 0, {},
     'wait4(1234, NULL, WNOHANG, NULL)        = 0'),
    ('wait4_opts', 'wait4', (0xffffffffffffffff, 0x10002150, 0x40000001), -10, {},
     'wait4(-1, 0x10002150, WNOHANG|__WALL, NULL) = -1 ECHILD (No child processes)'),
    ('waitid', 'waitid', (1, 1234, 0x10002160, 4), 0, {0x10002160: '11000000000000000100000000000000d2040000e80300000000000001000000000000000200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'waitid(P_PID, 1234, {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1234, si_uid=1000, si_status=0, si_utime=8589934592 /* 85899345.92 s */, si_stime=0}, WEXITED, NULL) = 0'),
    ('clone_thread', 'clone', (0x3d0f00, 0x7f0000100000, 0x7f0000200000, 0x7f0000200000, 0x7f0000300000), 1235, {},
     'clone(child_stack=0x7f0000100000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tid=0x7f0000200000, tls=0x7f0000300000, child_tidptr=0x7f0000200000) = 1235'),
    ('clone_fork', 'clone', (0x1200011, 0, 0, 0x7f0000200000), 1235, {},
     'clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0000200000) = 1235'),
    ('clone_vfork', 'clone', (0x4111, 0x7f0000100000), 1235, {},
     'clone(child_stack=0x7f0000100000, flags=CLONE_VM|CLONE_VFORK|SIGCHLD) = 1235'),
    ('clone_plain', 'clone', (17,), 1235, {},
     'clone(child_stack=NULL, flags=SIGCHLD)  = 1235'),
    ('clone3', 'clone3', (0x100021e0, 88), 1236, {0x100021e0: '000f3d0000000000000000000000000000002000007f000000002000007f0000000000000000000000001000007f0000000001000000000000003000007f0000000000000000000000000000000000000000000000000000'},
     'clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f0000200000, parent_tid=0x7f0000200000, exit_signal=0, stack=0x7f0000100000, stack_size=0x10000, tls=0x7f0000300000} => {parent_tid=0x7f0000200000}, 88) = 1236'),
    ('clone3_64', 'clone3', (0x100021e0, 64), 1236, {0x100021e0: '000f3d0000000000000000000000000000002000007f000000002000007f0000000000000000000000001000007f0000000001000000000000003000007f0000'},
     'clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f0000200000, parent_tid=0x7f0000200000, exit_signal=0, stack=0x7f0000100000, stack_size=0x10000, tls=0x7f0000300000} => {parent_tid=0x7f0000200000}, 64) = 1236'),
    ('clone3_fork', 'clone3', (0x10002220, 88), 1237, {0x10002220: '0000000000000000000000000000000000000000000000000000000000000000110000000000000000000000000000000000000000000000000000000000000010002000007f000000000000000000001800000000000000'},
     'clone3({flags=0, exit_signal=SIGCHLD, stack=NULL, stack_size=0, set_tid=0x7f0000200010, set_tid_size=0, cgroup=24}, 88) = 1237'),
    ('getpid', 'getpid', (), 1234, {},
     'getpid()                                = 1234'),
    ('set_tid_address', 'set_tid_address', (0x7f0000200000,), 1234, {},
     'set_tid_address(0x7f0000200000)         = 1234'),
    ('set_robust_list', 'set_robust_list', (0x7f0000200010, 24), 0, {},
     'set_robust_list(0x7f0000200010, 24)     = 0'),
    ('get_robust_list', 'get_robust_list', (0, 0x10002260, 0x10002270), 0, {0x10002260: '10002000007f0000', 0x10002270: '1800000000000000'},
     'get_robust_list(0, [0x7f0000200010], [24]) = 0'),
    ('arch_prctl_set', 'arch_prctl', (0x1002, 0x7f0000300000), 0, {},
     'arch_prctl(ARCH_SET_FS, 0x7f0000300000) = 0'),
    ('arch_prctl_get', 'arch_prctl', (0x1003, 0x10002280), 0, {0x10002280: '00003000007f0000'},
     'arch_prctl(ARCH_GET_FS, [0x7f0000300000]) = 0'),
    ('arch_prctl_cpuid', 'arch_prctl', (0x1011,), 1, {},
     'arch_prctl(ARCH_GET_CPUID)              = 1'),
    ('arch_prctl_bad', 'arch_prctl', (0x3001, 0x7ffe0000), -22, {},
     'arch_prctl(0x3001 /* ARCH_??? */, 0x7ffe0000) = -1 EINVAL (Invalid argument)'),
    ('rseq', 'rseq', (0x7f0000300fe0, 32, 0, 0x53053053), 0, {},
     'rseq(0x7f0000300fe0, 0x20, 0, 0x53053053) = 0'),
    ('prlimit64', 'prlimit64', (0, 3, 0, 0x10002290), 0, {0x10002290: '0000800000000000ffffffffffffffff'},
     'prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0'),
    ('prlimit64_set', 'prlimit64', (1234, 7, 0x100022a0, 0x100022b0), 0, {0x100022a0: '0004000000000000001000000000000000040000000000000000100000000000'},
     'prlimit64(1234, RLIMIT_NOFILE, {rlim_cur=1024, rlim_max=4*1024}, {rlim_cur=1024, rlim_max=1024*1024}) = 0'),
    ('prlimit64_odd', 'prlimit64', (0, 7, 0x100022c0), 0, {0x100022c0: 'e8030000000000000104000000000000'},
     'prlimit64(0, RLIMIT_NOFILE, {rlim_cur=1000, rlim_max=1025}, NULL) = 0'),
    ('getrlimit', 'getrlimit', (3, 0x100022d0), 0, {0x100022d0: '0000800000000000ffffffffffffffff'},
     'getrlimit(RLIMIT_STACK, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0'),
    ('setrlimit', 'setrlimit', (4, 0x100022e0), 0, {0x100022e0: '00000000000000000000000000000000'},
     'setrlimit(RLIMIT_CORE, {rlim_cur=0, rlim_max=0}) = 0'),
    ('uname', 'uname', (0x100022f0,), 0, {0x100022f0: '4c696e75780000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000006d79686f73740000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000362e312e302d31332d616d643634000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000233120534d5020505245454d50545f44594e414d49432044656269616e20362e312e35352d312028323032332d30392d32392900000000000000000000000000007838365f36340000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000286e6f6e65290000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'uname({sysname="Linux", nodename="myhost", ...}) = 0'),
    ('sysinfo', 'sysinfo', (0x10002480,), 0, {0x10002480: 'd204000000000000e803000000000000d007000000000000b80b0000000000000000000004000000000000000200000000000040000000000000000000000000000000000100000000000000010000002c01000000000000000000000000000000000000000000000100000000000000'},
     'sysinfo({uptime=1234, loads=[1000, 2000, 3000], totalram=17179869184, freeram=8589934592, sharedram=1073741824, bufferram=0, totalswap=4294967296, freeswap=4294967296, procs=300, totalhigh=0, freehigh=0, mem_unit=1}) = 0'),
    ('getresuid', 'getresuid', (0x100024f0, 0x10002500, 0x10002510), 0, {0x100024f0: 'e8030000', 0x10002500: 'e9030000', 0x10002510: 'ea030000'},
     'getresuid([1000], [1001], [1002])       = 0'),
    ('getgroups', 'getgroups', (3, 0x10002520), 3, {0x10002520: '04000000180000001b000000'},
     'getgroups(3, [4, 24, 27])               = 3'),
    ('getgroups0', 'getgroups', (), 3, {},
     'getgroups(0, NULL)                      = 3'),
    ('setgroups', 'setgroups', (2, 0x10002530), 0, {0x10002530: '0000000001000000'},
     'setgroups(2, [0, 1])                    = 0'),
    ('setresuid', 'setresuid', (0xffffffff, 1000, 0xffffffff), 0, {},
     'setresuid(-1, 1000, -1)                 = 0'),
    ('capget', 'capget', (0x10002540, 0x10002550), 0, {0x10002540: '2205082000000000', 0x10002550: 'ffffff3fffffff3f00000000ff010000ff01000000000000'},
     'capget({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=1<<CAP_CHOWN|1<<CAP_DAC_OVERRIDE|1<<CAP_DAC_READ_SEARCH|1<<CAP_FOWNER|1<<CAP_FSETID|1<<CAP_KILL|1<<CAP_SETGID|1<<CAP_SETUID|1<<CAP_SETPCAP|1<<CAP_LINUX_IMMUTABLE|1<<CAP_NET_BIND_SERVICE|1<<CAP_NET_BROADCAST|1<<CAP_NET_ADMIN|1<<CAP_NET_RAW|1<<CAP_IPC_LOCK|1<<CAP_IPC_OWNER|1<<CAP_SYS_MODULE|1<<CAP_SYS_RAWIO|1<<CAP_SYS_CHROOT|1<<CAP_SYS_PTRACE|1<<CAP_SYS_PACCT|1<<CAP_SYS_ADMIN|1<<CAP_SYS_BOOT|1<<CAP_SYS_NICE|1<<CAP_SYS_RESOURCE|1<<CAP_SYS_TIME|1<<CAP_SYS_TTY_CONFIG|1<<CAP_MKNOD|1<<CAP_LEASE|1<<CAP_AUDIT_WRITE|1<<CAP_MAC_OVERRIDE|1<<CAP_MAC_ADMIN|1<<CAP_SYSLOG|1<<CAP_WAKE_ALARM|1<<CAP_BLOCK_SUSPEND|1<<CAP_AUDIT_READ|1<<CAP_PERFMON|1<<CAP_BPF|1<<CAP_CHECKPOINT_RESTORE, permitted=1<<CAP_CHOWN|1<<CAP_DAC_OVERRIDE|1<<CAP_DAC_READ_SEARCH|1<<CAP_FOWNER|1<<CAP_FSETID|1<<CAP_KILL|1<<CAP_SETGID|1<<CAP_SETUID|1<<CAP_SETPCAP|1<<CAP_LINUX_IMMUTABLE|1<<CAP_NET_BIND_SERVICE|1<<CAP_NET_BROADCAST|1<<CAP_NET_ADMIN|1<<CAP_NET_RAW|1<<CAP_IPC_LOCK|1<<CAP_IPC_OWNER|1<<CAP_SYS_MODULE|1<<CAP_SYS_RAWIO|1<<CAP_SYS_CHROOT|1<<CAP_SYS_PTRACE|1<<CAP_SYS_PACCT|1<<CAP_SYS_ADMIN|1<<CAP_SYS_BOOT|1<<CAP_SYS_NICE|1<<CAP_SYS_RESOURCE|1<<CAP_SYS_TIME|1<<CAP_SYS_TTY_CONFIG|1<<CAP_MKNOD|1<<CAP_LEASE|1<<CAP_AUDIT_WRITE|1<<CAP_MAC_OVERRIDE|1<<CAP_MAC_ADMIN|1<<CAP_SYSLOG|1<<CAP_WAKE_ALARM|1<<CAP_BLOCK_SUSPEND|1<<CAP_AUDIT_READ|1<<CAP_PERFMON|1<<CAP_BPF|1<<CAP_CHECKPOINT_RESTORE, inheritable=0}) = 0'),
    ('prctl_set_name', 'prctl', (15, 0x10002568), 0, {0x10002568: '776f726b657200'},
     'prctl(PR_SET_NAME, "worker")            = 0'),
    ('prctl_get_name', 'prctl', (16, 0x10002570), 0, {0x10002570: '6261736800'},
     'prctl(PR_GET_NAME, "bash")              = 0'),
    ('prctl_pdeathsig', 'prctl', (1, 9), 0, {},
     'prctl(PR_SET_PDEATHSIG, SIGKILL)        = 0'),
    ('prctl_no_new_privs', 'prctl', (38, 1), 0, {},
     'prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  = 0'),
    ('prctl_get_dumpable', 'prctl', (3,), 1, {},
     'prctl(PR_GET_DUMPABLE)                  = 1 (SUID_DUMP_USER)'),
    ('prctl_capbset_read', 'prctl', (23, 21), 1, {},
     'prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN)   = 1'),
    ('prctl_set_vma', 'prctl', (0x53564d41, 0, 0x7f0000001000, 4096, 0x10002580), 0, {0x10002580: '616e6f6e00'},
     'prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, 0x7f0000001000, 4096, "anon") = 0'),
    ('prctl_unknown', 'prctl', (99, 1, 2, 3, 4), -22, {},
     'prctl(0x63 /* PR_??? */, 0x1, 0x2, 0x3, 0x4) = -1 EINVAL (Invalid argument)'),
    ('prctl_seccomp', 'prctl', (22, 2, 0x7ffd0000), 0, {},
     'prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, 0x7ffd0000) = 0'),
    ('personality_q', 'personality', (0xffffffff,), 0, {},
     'personality(0xffffffff)                 = 0 (PER_LINUX)'),
    ('personality_set', 'personality', (0x40000,), 0, {},
     'personality(PER_LINUX|ADDR_NO_RANDOMIZE) = 0 (PER_LINUX)'),
    ('personality_ret', 'personality', (0xffffffff,), 0x40000, {},
     'personality(0xffffffff)                 = 0x40000 (PER_LINUX|ADDR_NO_RANDOMIZE)'),
    ('sched_getaffinity', 'sched_getaffinity', (0, 128, 0x10002590), 8, {0x10002590: '0f00000000000000'},
     'sched_getaffinity(0, 128, [0 1 2 3])    = 8'),
    ('sched_setaffinity', 'sched_setaffinity', (0, 8, 0x10002610), 0, {0x10002610: '0500000000000000'},
     'sched_setaffinity(0, 8, [0 2])          = 0'),
    ('sched_getscheduler', 'sched_getscheduler', (), 0, {},
     'sched_getscheduler(0)                   = 0 (SCHED_OTHER)'),
    ('sched_getscheduler1', 'sched_getscheduler', (), 1, {},
     'sched_getscheduler(0)                   = 1 (SCHED_FIFO)'),
    ('sched_getparam', 'sched_getparam', (0, 0x10002620), 0, {0x10002620: '00000000'},
     'sched_getparam(0, [0])                  = 0'),
    ('sched_setscheduler', 'sched_setscheduler', (0, 1, 0x10002630), 0, {0x10002630: '0a000000'},
     'sched_setscheduler(0, SCHED_FIFO, [10]) = 0'),
    ('getpriority', 'getpriority', (), 20, {},
     'getpriority(PRIO_PROCESS, 0)            = 20'),
    ('getrandom', 'getrandom', (0x10002640, 16, 1), 16, {0x10002640: '000102030405060708090a0b0c0d0e0f'},
     'getrandom("\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0a\\x0b\\x0c\\x0d\\x0e\\x0f", 16, GRND_NONBLOCK) = 16'),
    ('getcpu', 'getcpu', (0x10002650, 0x10002660), 0, {0x10002650: '03000000', 0x10002660: '00000000'},
     'getcpu([3], [0], NULL)                  = 0'),
    ('ptrace_traceme', 'ptrace', (), 0, {},
     'ptrace(PTRACE_TRACEME)                  = 0'),
    ('ptrace_peek', 'ptrace', (2, 1234, 0x401000, 0x10002670), 0, {0x10002670: 'efbeadde00000000'},
     'ptrace(PTRACE_PEEKDATA, 1234, 0x401000, [0xdeadbeef]) = 0'),
    ('ptrace_cont', 'ptrace', (7, 1234, 0, 9), 0, {},
     'ptrace(PTRACE_CONT, 1234, NULL, SIGKILL) = 0'),
    ('syslog', 'syslog', (10,), 1024, {},
     'syslog(10 /* SYSLOG_ACTION_SIZE_BUFFER */) = 1024'),
    ('syslog_read', 'syslog', (3, 0x10002680, 3), 3, {0x10002680: '616263'},
     'syslog(3 /* SYSLOG_ACTION_READ_ALL */, "abc", 3) = 3'),
    ('getitimer0', 'getitimer', (0, 0x10002690), 0, {0x10002690: '0000000000000000000000000000000000000000000000000000000000000000'},
     'getitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=0, tv_usec=0}}) = 0'),
    ('alarm', 'alarm', (5,), 0, {},
     'alarm(5)                                = 0'),
    ('adjtimex', 'adjtimex', (0x100026b0,), 0, {0x100026b0: '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'adjtimex({modes=0, offset=0, freq=0, maxerror=0, esterror=0, status=0, constant=0, precision=0, tolerance=0, time={tv_sec=0, tv_usec=0}, tick=0, ppsfreq=0, jitter=0, shift=0, stabil=0, jitcnt=0, calcnt=0, errcnt=0, stbcnt=0, tai=0}) = 0 (TIME_OK)'),
    ('setuid', 'setuid', (0xffffffff,), 0, {},
     'setuid(-1)                              = 0'),
    ('futex_wake', 'futex', (0x7f0000400000, 129, 1), 0, {},
     'futex(0x7f0000400000, FUTEX_WAKE_PRIVATE, 1) = 0'),
    ('futex_wait', 'futex', (0x7f0000400000, 128, 2), -11, {},
     'futex(0x7f0000400000, FUTEX_WAIT_PRIVATE, 2, NULL) = -1 EAGAIN (Resource temporarily unavailable)'),
    ('futex_wait_ts', 'futex', (0x7f0000400000, 128, 2, 0x10001810), -110, {0x10001810: '3930000000000000f235772800000000'},
     'futex(0x7f0000400000, FUTEX_WAIT_PRIVATE, 2, {tv_sec=12345, tv_nsec=678901234}) = -1 ETIMEDOUT (Connection timed out)'),
    ('futex_wait_bitset', 'futex', (0x7f0000400000, 393, 0, 0x10001840, 0, 0xffffffff), -110, {0x10001840: '00f1536500000000ffc99a3b00000000'},
     'futex(0x7f0000400000, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, {tv_sec=1700000000, tv_nsec=999999999}, FUTEX_BITSET_MATCH_ANY) = -1 ETIMEDOUT (Connection timed out)'),
    ('futex_wait_bitset_null', 'futex', (0x7f0000400000, 393, 0, 0, 0, 0xffffffff), -11, {},
     'futex(0x7f0000400000, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, NULL, FUTEX_BITSET_MATCH_ANY) = -1 EAGAIN (Resource temporarily unavailable)'),
    ('futex_wake_bitset', 'futex', (0x7f0000400000, 138, 1, 0, 0, 0xffffffff), 1, {},
     'futex(0x7f0000400000, FUTEX_WAKE_BITSET_PRIVATE, 1, FUTEX_BITSET_MATCH_ANY) = 1'),
    ('futex_cmp_requeue', 'futex', (0x7f0000400000, 132, 1, 0x7fffffff, 0x7f0000400010, 2), 1, {},
     'futex(0x7f0000400000, FUTEX_CMP_REQUEUE_PRIVATE, 1, 2147483647, 0x7f0000400010, 2) = 1'),
    ('futex_requeue', 'futex', (0x7f0000400000, 131, 1, 2, 0x7f0000400010), 1, {},
     'futex(0x7f0000400000, FUTEX_REQUEUE_PRIVATE, 1, 2, 0x7f0000400010) = 1'),
    ('futex_wake_op', 'futex', (0x7f0000400000, 133, 1, 1, 0x7f0000400010, 0x4000001), 1, {},
     'futex(0x7f0000400000, FUTEX_WAKE_OP_PRIVATE, 1, 1, 0x7f0000400010, FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1) = 1'),
    ('futex_lock_pi', 'futex', (0x7f0000400000, 134), 0, {},
     'futex(0x7f0000400000, FUTEX_LOCK_PI_PRIVATE, NULL) = 0'),
    ('futex_unlock_pi', 'futex', (0x7f0000400000, 135), 0, {},
     'futex(0x7f0000400000, FUTEX_UNLOCK_PI_PRIVATE) = 0'),
    ('futex_wait_realtime', 'futex', (0x7f0000400000, 256, 0, 0x10001810), 0, {0x10001810: '3930000000000000f235772800000000'},
     'futex(0x7f0000400000, FUTEX_WAIT|FUTEX_CLOCK_REALTIME, 0, {tv_sec=12345, tv_nsec=678901234}) = 0'),
    ('futex_fd', 'futex', (0x7f0000400000, 2, 3), 0, {},
     'futex(0x7f0000400000, FUTEX_FD, 3)      = 0'),
    ('futex_bad', 'futex', (0x7f0000400000, 14, 3, 4, 5, 6), 0, {},
     'futex(0x7f0000400000, 0xe /* FUTEX_??? */, 3, 0x4, 0x5, 0x6) = 0'),
    ('futex_trylock_pi', 'futex', (0x7f0000400000, 136), 0, {},
     'futex(0x7f0000400000, FUTEX_TRYLOCK_PI_PRIVATE) = 0'),
    ('futex_wait_requeue_pi', 'futex', (0x7f0000400000, 139, 1, 0x10001810, 0x7f0000400010), 0, {0x10001810: '3930000000000000f235772800000000'},
     'futex(0x7f0000400000, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 1, {tv_sec=12345, tv_nsec=678901234}, 0x7f0000400010) = 0'),
    ('futex_cmp_requeue_pi', 'futex', (0x7f0000400000, 140, 1, 1, 0x7f0000400010, 5), 0, {},
     'futex(0x7f0000400000, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1, 0x7f0000400010, 5) = 0'),
    ('futex_lock_pi2', 'futex', (0x7f0000400000, 141, 0, 0x10001810), 0, {0x10001810: '3930000000000000f235772800000000'},
     'futex(0x7f0000400000, FUTEX_LOCK_PI2_PRIVATE, {tv_sec=12345, tv_nsec=678901234}) = 0'),
    ('close', 'close', (3,), 0, {},
     'close(3)                                = 0'),
    ('close_err', 'close', (99,), -9, {},
     'close(99)                               = -1 EBADF (Bad file descriptor)'),
    ('dup', 'dup', (1,), 3, {},
     'dup(1)                                  = 3'),
    ('dup2', 'dup2', (3, 1), 1, {},
     'dup2(3, 1)                              = 1'),
    ('dup3', 'dup3', (3, 1, 0x80000), 1, {},
     'dup3(3, 1, O_CLOEXEC)                   = 1'),
    ('pipe', 'pipe', (0x10002780,), 0, {0x10002780: '0300000004000000'},
     'pipe([3, 4])                            = 0'),
    ('pipe2', 'pipe2', (0x10002790, 0x80800), 0, {0x10002790: '0300000004000000'},
     'pipe2([3, 4], O_NONBLOCK|O_CLOEXEC)     = 0'),
    ('pipe2_err', 'pipe2', (0x100027a0, 0x80000), -24, {},
     'pipe2(0x100027a0, O_CLOEXEC)            = -1 EMFILE (Too many open files)'),
    ('lseek', 'lseek', (3, 0, 2), 3040, {},
     'lseek(3, 0, SEEK_END)                   = 3040'),
    ('lseek_neg', 'lseek', (3, 0xfffffffffffffffb, 1), 3035, {},
     'lseek(3, -5, SEEK_CUR)                  = 3035'),
    ('fcntl_getfl', 'fcntl', (3, 3), 0x8002, {},
     'fcntl(3, F_GETFL)                       = 0x8002 (flags O_RDWR|O_LARGEFILE)'),
    ('fcntl_getfl0', 'fcntl', (3, 3), 0, {},
     'fcntl(3, F_GETFL)                       = 0 (flags O_RDONLY)'),
    ('fcntl_getfd', 'fcntl', (3, 1), 1, {},
     'fcntl(3, F_GETFD)                       = 0x1 (flags FD_CLOEXEC)'),
    ('fcntl_getfd0', 'fcntl', (3, 1), 0, {},
     'fcntl(3, F_GETFD)                       = 0'),
    ('fcntl_setfd', 'fcntl', (3, 2, 1), 0, {},
     'fcntl(3, F_SETFD, FD_CLOEXEC)           = 0'),
    ('fcntl_setfl', 'fcntl', (3, 4, 2050), 0, {},
     'fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK)    = 0'),
    ('fcntl_dupfd', 'fcntl', (3, 0, 10), 10, {},
     'fcntl(3, F_DUPFD, 10)                   = 10'),
    ('fcntl_dupfd_cloexec', 'fcntl', (3, 1030, 3), 4, {},
     'fcntl(3, F_DUPFD_CLOEXEC, 3)            = 4'),
    ('fcntl_setlk', 'fcntl', (3, 6, 0x100027b0), 0, {0x100027b0: '0100000000000000000000006400000000000000000000000000000000000000'},
     'fcntl(3, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=429496729600, l_len=0}) = 0'),
    ('fcntl_getlk', 'fcntl', (3, 5, 0x100027d0), 0, {0x100027d0: '0200000000000000000000000000000000000000d20400000000000000000000'},
     'fcntl(3, F_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=5299989643264, l_pid=0}) = 0'),
    ('fcntl_ofd_setlkw', 'fcntl', (3, 38, 0x100027f0), 0, {0x100027f0: '0100000000000000000000006400000000000000000000000000000000000000'},
     'fcntl(3, F_OFD_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=429496729600, l_len=0}) = 0'),
    ('fcntl_getown', 'fcntl', (3, 9), 0, {},
     'fcntl(3, F_GETOWN)                      = 0'),
    ('fcntl_setown', 'fcntl', (3, 8, 1234), 0, {},
     'fcntl(3, F_SETOWN, 1234)                = 0'),
    ('fcntl_setsig', 'fcntl', (3, 10, 10), 0, {},
     'fcntl(3, F_SETSIG, SIGUSR1)             = 0'),
    ('fcntl_getsig', 'fcntl', (3, 11), 0, {},
     'fcntl(3, F_GETSIG)                      = 0'),
    ('fcntl_setlease', 'fcntl', (3, 1024, 1), 0, {},
     'fcntl(3, F_SETLEASE, F_WRLCK)           = 0'),
    ('fcntl_getlease', 'fcntl', (3, 1025), 0, {},
     'fcntl(3, F_GETLEASE)                    = 0 (F_RDLCK)'),
    ('fcntl_notify', 'fcntl', (3, 1026, 0x80000005), 0, {},
     'fcntl(3, F_NOTIFY, DN_ACCESS|DN_CREATE|DN_MULTISHOT) = 0'),
    ('fcntl_setpipe', 'fcntl', (3, 1031, 0x10000), 0x10000, {},
     'fcntl(3, F_SETPIPE_SZ, 65536)           = 65536'),
    ('fcntl_getpipe', 'fcntl', (3, 1032), 0x10000, {},
     'fcntl(3, F_GETPIPE_SZ)                  = 65536'),
    ('fcntl_addseals', 'fcntl', (3, 1033, 15), 0, {},
     'fcntl(3, F_ADD_SEALS, F_SEAL_SEAL|F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_WRITE) = 0'),
    ('fcntl_getseals', 'fcntl', (3, 1034), 5, {},
     'fcntl(3, F_GET_SEALS)                   = 0x5 (seals F_SEAL_SEAL|F_SEAL_GROW)'),
    ('fcntl_unknown', 'fcntl', (3, 99, 5), -22, {},
     'fcntl(3, 0x63 /* F_??? */, 0x5)         = -1 EINVAL (Invalid argument)'),
    ('flock', 'flock', (3, 6), 0, {},
     'flock(3, LOCK_EX|LOCK_NB)               = 0'),
    ('ftruncate', 'ftruncate', (3, 0x100000), 0, {},
     'ftruncate(3, 1048576)                   = 0'),
    ('fchdir', 'fchdir', (3,), 0, {},
     'fchdir(3)                               = 0'),
    ('fchmod', 'fchmod', (3, 384), 0, {},
     'fchmod(3, 0600)                         = 0'),
    ('fchown', 'fchown', (3, 0, 0xffffffff), 0, {},
     'fchown(3, 0, -1)                        = 0'),
    ('fsync', 'fsync', (3,), 0, {},
     'fsync(3)                                = 0'),
    ('fallocate', 'fallocate', (3, 3, 0, 4096), 0, {},
     'fallocate(3, FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE, 0, 4096) = 0'),
    ('fadvise64', 'fadvise64', (3, 0, 0, 2), 0, {},
     'fadvise64(3, 0, 0, POSIX_FADV_SEQUENTIAL) = 0'),
    ('readahead', 'readahead', (3, 0, 4096), 0, {},
     'readahead(3, 0, 4096)                   = 0'),
    ('sendfile', 'sendfile', (1, 3, 0, 1024), 1024, {},
     'sendfile(1, 3, NULL, 1024)              = 1024'),
    ('sendfile_off', 'sendfile', (1, 3, 0x10002810, 1024), 1024, {0x10002810: '0a00000000000000'},
     'sendfile(1, 3, [10] => [10], 1024)      = 1024'),
    ('splice', 'splice', (3, 0, 4, 0x10002820, 4096, 1), 4096, {0x10002820: '0500000000000000'},
     'splice(3, NULL, 4, [5], 4096, SPLICE_F_MOVE) = 4096'),
    ('copy_file_range', 'copy_file_range', (3, 0x10002830, 4, 0x10002840, 4096), 4096, {0x10002830: '0000000000000000', 0x10002840: '6400000000000000'},
     'copy_file_range(3, [0], 4, [100], 4096, 0) = 4096'),
    ('tee', 'tee', (3, 4, 4096, 2), 4096, {},
     'tee(3, 4, 4096, SPLICE_F_NONBLOCK)      = 4096'),
    ('eventfd2', 'eventfd2', (0, 0x80000), 3, {},
     'eventfd2(0, EFD_CLOEXEC)                = 3'),
    ('epoll_create1', 'epoll_create1', (0x80000,), 3, {},
     'epoll_create1(EPOLL_CLOEXEC)            = 3'),
    ('epoll_ctl', 'epoll_ctl', (3, 1, 4, 0x10002850), 0, {0x10002850: '050000803412000000000000'},
     'epoll_ctl(3, EPOLL_CTL_ADD, 4, {events=EPOLLIN|EPOLLOUT|EPOLLET, data=0x1234}) = 0'),
    ('epoll_ctl_del', 'epoll_ctl', (3, 2, 4), 0, {},
     'epoll_ctl(3, EPOLL_CTL_DEL, 4, NULL)    = 0'),
    ('epoll_ctl_fd', 'epoll_ctl', (3, 1, 4, 0x10002860), 0, {0x10002860: '192000000400000000000000'},
     'epoll_ctl(3, EPOLL_CTL_ADD, 4, {events=EPOLLIN|EPOLLERR|EPOLLHUP|EPOLLRDHUP, data=0x4}) = 0'),
    ('epoll_wait', 'epoll_wait', (3, 0x10002870, 10, 0xffffffffffffffff), 2, {0x10002870: '0100000004000000010000000c0000000500000000000000'},
     'epoll_wait(3, [{events=EPOLLIN, data=0x100000004}, {events=EPOLLOUT|EPOLLERR, data=0x5}], 10, -1) = 2'),
    ('epoll_wait0', 'epoll_wait', (3, 0x10002890, 10), 0, {},
     'epoll_wait(3, [], 10, 0)                = 0'),
    ('epoll_pwait', 'epoll_pwait', (3, 0x100028a0, 10, 0xffffffffffffffff, 0, 8), 1, {0x100028a0: '010000000400000000000000'},
     'epoll_pwait(3, [{events=EPOLLIN, data=0x4}], 10, -1, NULL, 8) = 1'),
    ('epoll_pwait_mask', 'epoll_pwait', (3, 0x100028b0, 10, 0xffffffffffffffff, 0x100028c0, 8), 1, {0x100028b0: '010000000400000000000000', 0x100028c0: '0200000000000000'},
     'epoll_pwait(3, [{events=EPOLLIN, data=0x4}], 10, -1, [INT], 8) = 1'),
    ('inotify_add_watch', 'inotify_add_watch', (3, 0x100010ed, 770), 1, {0x100010ed: '2f6574632f70617373776400'},
     'inotify_add_watch(3, "/etc/passwd", IN_MODIFY|IN_CREATE|IN_DELETE) = 1'),
    ('memfd_create', 'memfd_create', (0x100028c8, 3), 3, {0x100028c8: '73686d00'},
     'memfd_create("shm", MFD_CLOEXEC|MFD_ALLOW_SEALING) = 3'),
    ('close_range', 'close_range', (3, 0xffffffff), 0, {},
     'close_range(3, 4294967295, 0)           = 0'),
    ('close_range2', 'close_range', (3, 0xffffffff, 4), 0, {},
     'close_range(3, 4294967295, CLOSE_RANGE_CLOEXEC) = 0'),
    ('timerfd_create', 'timerfd_create', (1, 0x80800), 3, {},
     'timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC|TFD_NONBLOCK) = 3'),
    ('signalfd', 'signalfd', (0xffffffffffffffff, 0x100028d0, 8), 3, {0x100028d0: '0000010000000000'},
     'signalfd(-1, [CHLD], 8)                 = 3'),
    ('pidfd_open', 'pidfd_open', (1234,), 3, {},
     'pidfd_open(1234, 0)                     = 3'),
    ('openat2', 'openat2', (0xffffffffffffff9c, 0x100010ed, 0x100028e0, 24), 3, {0x100010ed: '2f6574632f70617373776400', 0x100028e0: '000008000000000000000000000000000800000000000000'},
     'openat2(AT_FDCWD, "/etc/passwd", {flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_BENEATH}, 24) = 3'),
    ('ioctl_tcgets', 'ioctl', (0, 0x5401, 0x10002900), 0, {0x10002900: '0005000005000000bf0000003b8a000000031c7f150400010011131a00120f1716000000'},
     'ioctl(0, TCGETS, {c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE, ...}) = 0'),
    ('ioctl_tcgets_err', 'ioctl', (1, 0x5401, 0x10002930), -25, {},
     'ioctl(1, TCGETS, 0x10002930)            = -1 ENOTTY (Inappropriate ioctl for device)'),
    ('ioctl_tcsets', 'ioctl', (0, 0x5402, 0x10002970), 0, {0x10002970: '0005000005000000bf0000003b8a000000031c7f150400010011131a00120f1716000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE, ...}) = 0'),
    ('ioctl_tcsetsw', 'ioctl', (0, 0x5403, 0x100029a0), 0, {0x100029a0: '0000000000000000bf000000000000000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_STOP or TCSETSW, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B38400|CS8|CREAD, c_lflag=, ...}) = 0'),
    ('ioctl_tcsetsf', 'ioctl', (0, 0x5404, 0x100029d0), 0, {0x100029d0: '0005000005000000bf0000003b8a00000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_CONTINUE or TCSETSF, {c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE, ...}) = 0'),
    ('ioctl_winsz', 'ioctl', (1, 0x5413, 0x10002a00), 0, {0x10002a00: '1800500000000000'},
     'ioctl(1, TIOCGWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0'),
    ('ioctl_swinsz', 'ioctl', (1, 0x5414, 0x10002a10), 0, {0x10002a10: '3200840001000200'},
     'ioctl(1, TIOCSWINSZ, {ws_row=50, ws_col=132, ws_xpixel=1, ws_ypixel=2}) = 0'),
    ('ioctl_pgrp', 'ioctl', (0, 0x540f, 0x10002a20), 0, {0x10002a20: 'd2040000'},
     'ioctl(0, TIOCGPGRP, [1234])             = 0'),
    ('ioctl_spgrp', 'ioctl', (0, 0x5410, 0x10002a30), 0, {0x10002a30: 'd2040000'},
     'ioctl(0, TIOCSPGRP, [1234])             = 0'),
    ('ioctl_fionread', 'ioctl', (3, 0x541b, 0x10002a40), 0, {0x10002a40: '2a000000'},
     'ioctl(3, FIONREAD, [42])                = 0'),
    ('ioctl_fionbio', 'ioctl', (3, 0x5421, 0x10002a50), 0, {0x10002a50: '01000000'},
     'ioctl(3, FIONBIO, [1])                  = 0'),
    ('ioctl_fioclex', 'ioctl', (3, 0x5451), 0, {},
     'ioctl(3, FIOCLEX)                       = 0'),
    ('ioctl_fionclex', 'ioctl', (3, 0x5450), 0, {},
     'ioctl(3, FIONCLEX)                      = 0'),
    ('ioctl_tiocsctty', 'ioctl', (0, 0x540e), 0, {},
     'ioctl(0, TIOCSCTTY, 0)                  = 0'),
    ('ioctl_tiocgptn', 'ioctl', (3, 0x80045430, 0x10002a60), 0, {0x10002a60: '05000000'},
     'ioctl(3, TIOCGPTN, [5])                 = 0'),
    ('ioctl_tiocsptlck', 'ioctl', (3, 0x40045431, 0x10002a70), 0, {0x10002a70: '00000000'},
     'ioctl(3, TIOCSPTLCK, [0])               = 0'),
    ('ioctl_tcflsh', 'ioctl', (0, 0x540b, 2), 0, {},
     'ioctl(0, TCFLSH, TCIOFLUSH)             = 0'),
    ('ioctl_tcxonc', 'ioctl', (0, 0x540a, 1), 0, {},
     'ioctl(0, TCXONC, TCOON)                 = 0'),
    ('ioctl_tcsbrk', 'ioctl', (0, 0x5409, 1), 0, {},
     'ioctl(0, TCSBRK, 1)                     = 0'),
    ('ioctl_unknown', 'ioctl', (3, 0xc0186201, 0x7ffd0000), -25, {},
     'ioctl(3, _IOC(_IOC_READ|_IOC_WRITE, 0x62, 0x1, 0x18), 0x7ffd0000) = -1 ENOTTY (Inappropriate ioctl for device)'),
    ('ioctl_unknown2', 'ioctl', (3, 0x1234, 16), -25, {},
     'ioctl(3, _IOC(_IOC_NONE, 0x12, 0x34, 0), 0x10) = -1 ENOTTY (Inappropriate ioctl for device)'),
    ('ioctl_unknown3', 'ioctl', (3, 0x80087601, 0x7ffd0000), -25, {},
     'ioctl(3, FS_IOC_GETVERSION, 0x7ffd0000) = -1 ENOTTY (Inappropriate ioctl for device)'),
    ('ioctl_tiocoutq', 'ioctl', (1, 0x5411, 0x10002a80), 0, {0x10002a80: '00000000'},
     'ioctl(1, TIOCOUTQ, [0])                 = 0'),
    ('ioctl_tiocgsid', 'ioctl', (1, 0x5429, 0x10002a90), 0, {0x10002a90: '64000000'},
     'ioctl(1, TIOCGSID, [100])               = 0'),
    ('ioctl_tiocnotty', 'ioctl', (1, 0x5422), 0, {},
     'ioctl(1, TIOCNOTTY)                     = 0'),
    ('ioctl_tiocsti', 'ioctl', (1, 0x5412, 0x10002aa0), 0, {0x10002aa0: '78'},
     'ioctl(1, TIOCSTI, "x")                  = 0'),
    ('ioctl_fs_getflags', 'ioctl', (3, 0x80086601, 0x10002ab0), 0, {0x10002ab0: '00000800'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_EXTENT_FL]) = 0'),
    ('ioctl_ficlone', 'ioctl', (3, 0x40049409, 4), 0, {},
     'ioctl(3, BTRFS_IOC_CLONE or FICLONE, 4) = 0'),
    ('ioctl_blkgetsize64', 'ioctl', (3, 0x80081272, 0x10002ac0), 0, {0x10002ac0: '0000004000000000'},
     'ioctl(3, BLKGETSIZE64, [1073741824])    = 0'),
    ('ioctl_siocgifconf', 'ioctl', (3, 0x8912, 0x10002ad0), -22, {0x10002ad0: '00000000000000000000000000000000'},
     'ioctl(3, SIOCGIFCONF, {ifc_len=0, ifc_buf=NULL}) = -1 EINVAL (Invalid argument)'),
    ('ioctl_fioasync', 'ioctl', (3, 0x5452, 0x10002ae0), 0, {0x10002ae0: '01000000'},
     'ioctl(3, FIOASYNC, [1])                 = 0'),
    ('ioctl_tiocmget', 'ioctl', (3, 0x5415, 0x10002af0), 0, {0x10002af0: '06000000'},
     'ioctl(3, TIOCMGET, [TIOCM_DTR|TIOCM_RTS]) = 0'),
    ('ioctl_tiocgpgrp_err', 'ioctl', (3, 0x540f, 0x10002b00), -25, {},
     'ioctl(3, TIOCGPGRP, 0x10002b00)         = -1 ENOTTY (Inappropriate ioctl for device)'),
    ('ioctl_tcgets2', 'ioctl', (0, 0x802c542a, 0x10002b10), 0, {0x10002b10: '000000000000000000000000000000000000000000000000000000000000000000000000'},
     'ioctl(0, TCGETS2, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B0|CS5|, c_lflag=, ...}) = 0'),
    ('ioctl_tiocexcl', 'ioctl', (0, 0x540c), 0, {},
     'ioctl(0, TIOCEXCL)                      = 0'),
    ('poll', 'poll', (0x10002b40, 3, 1000), 0, {0x10002b40: '03000000010000000400000004000000ffffffff01000000'},
     'poll([{fd=3, events=POLLIN}, {fd=4, events=POLLOUT}, {fd=-1}], 3, 1000) = 0 (Timeout)'),
    ('poll_ready', 'poll', (0x10002b60, 3, 0xffffffffffffffff), 3, {0x10002b60: '030000000100010004000000040004000500000003003000'},
     'poll([{fd=3, events=POLLIN}, {fd=4, events=POLLOUT}, {fd=5, events=POLLIN|POLLPRI}], 3, -1) = 3 ([{fd=3, revents=POLLIN}, {fd=4, revents=POLLOUT}, {fd=5, revents=POLLHUP|POLLNVAL}])'),
    ('poll_err', 'poll', (0x10002b40, 3, 0xffffffffffffffff), -4, {0x10002b40: '03000000010000000400000004000000ffffffff01000000'},
     'poll([{fd=3, events=POLLIN}, {fd=4, events=POLLOUT}, {fd=-1}], 3, -1) = -1 EINTR (Interrupted system call)'),
    ('ppoll', 'ppoll', (0x10002b60, 3, 0x10001810, 0x10002b80, 8), 3, {0x10001810: '3930000000000000f235772800000000', 0x10002b60: '030000000100010004000000040004000500000003003000', 0x10002b80: '0200000000000000'},
     'ppoll([{fd=3, events=POLLIN}, {fd=4, events=POLLOUT}, {fd=5, events=POLLIN|POLLPRI}], 3, {tv_sec=12345, tv_nsec=678901234}, [INT], 8) = 3 ([{fd=3, revents=POLLIN}, {fd=4, revents=POLLOUT}, {fd=5, revents=POLLHUP|POLLNVAL}], left {tv_sec=12345, tv_nsec=678901234})'),
    ('ppoll_null', 'ppoll', (0x10002b60, 3, 0, 0, 8), 3, {0x10002b60: '030000000100010004000000040004000500000003003000'},
     'ppoll([{fd=3, events=POLLIN}, {fd=4, events=POLLOUT}, {fd=5, events=POLLIN|POLLPRI}], 3, NULL, NULL, 8) = 3 ([{fd=3, revents=POLLIN}, {fd=4, revents=POLLOUT}, {fd=5, revents=POLLHUP|POLLNVAL}])'),
    ('select', 'select', (6, 0x10002b90, 0x10002c10, 0, 0x10002c90), 2, {0x10002b90: '2800000000000000', 0x10002c10: '1000000000000000', 0x10002c90: '0100000000000000f401000000000000'},
     'select(6, [3 5], [4], NULL, {tv_sec=1, tv_usec=500}) = 2 (in [3 5], left {tv_sec=1, tv_usec=500})'),
    ('select_to', 'select', (6, 0x10002b90, 0, 0, 0x10002ca0), 0, {0x10002b90: '2800000000000000', 0x10002ca0: '0100000000000000f401000000000000'},
     'select(6, [3 5], NULL, NULL, {tv_sec=1, tv_usec=500}) = 0 (Timeout)'),
    ('select_null', 'select', (0, 0, 0, 0, 0x10002cb0), 0, {0x10002cb0: '0000000000000000f401000000000000'},
     'select(0, NULL, NULL, NULL, {tv_sec=0, tv_usec=500}) = 0 (Timeout)'),
    ('pselect6', 'pselect6', (6, 0x10002b90, 0x10002c10, 0, 0x10001810, 0x10002cd0), 2, {0x10001810: '3930000000000000f235772800000000', 0x10002b90: '2800000000000000', 0x10002c10: '1000000000000000', 0x10002cc0: '0000000000000000', 0x10002cd0: 'c02c0010000000000800000000000000'},
     'pselect6(6, [3 5], [4], NULL, {tv_sec=12345, tv_nsec=678901234}, {sigmask=[], sigsetsize=8}) = 2 (in [3 5], left {tv_sec=12345, tv_nsec=678901234})'),
    ('pselect6_null', 'pselect6', (6, 0x10002b90), 1, {0x10002b90: '2800000000000000'},
     'pselect6(6, [3 5], NULL, NULL, NULL, NULL) = 1 (in [3])'),
    ('writev', 'writev', (1, 0x10002ce0, 2), 46, {0x10001000: '68656c6c6f0a', 0x10001070: '4141414141414141414141414141414141414141414141414141414141414141', 0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'writev(1, [{iov_base="hello\\n", iov_len=6}, {iov_base="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"..., iov_len=40}], 2) = 46'),
    ('readv', 'readv', (0, 0x10002ce0, 2), 10, {0x10001000: '68656c6c6f0a', 0x10001070: '41414141', 0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'readv(0, [{iov_base="hello\\n", iov_len=6}, {iov_base="AAAA", iov_len=40}], 2) = 10'),
    ('readv0', 'readv', (0, 0x10002ce0, 2), 0, {0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'readv(0, [{iov_base="", iov_len=6}, {iov_base="", iov_len=40}], 2) = 0'),
    ('writev_err', 'writev', (1, 0x10002ce0, 2), -32, {0x10001000: '68656c6c6f0a', 0x10001070: '4141414141414141414141414141414141414141414141414141414141414141', 0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'writev(1, [{iov_base="hello\\n", iov_len=6}, {iov_base="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"..., iov_len=40}], 2) = -1 EPIPE (Broken pipe)'),
    ('pwritev', 'pwritev', (1, 0x10002ce0, 2, 100), 46, {0x10001000: '68656c6c6f0a', 0x10001070: '4141414141414141414141414141414141414141414141414141414141414141', 0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'pwritev(1, [{iov_base="hello\\n", iov_len=6}, {iov_base="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"..., iov_len=40}], 2, 100) = 46'),
    ('preadv2', 'preadv2', (0, 0x10002ce0, 2, 5, 0, 1), 6, {0x10001000: '68656c6c6f0a', 0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'preadv2(0, [{iov_base="hello\\n", iov_len=6}, {iov_base="", iov_len=40}], 2, 5, RWF_HIPRI) = 6'),
    ('preadv2_noff', 'preadv2', (0, 0x10002ce0, 2, 0xffffffffffffffff), 6, {0x10001000: '68656c6c6f0a', 0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'preadv2(0, [{iov_base="hello\\n", iov_len=6}, {iov_base="", iov_len=40}], 2, -1, 0) = 6'),
    ('process_vm_readv', 'process_vm_readv', (1234, 0x10002ce0, 2, 0x10002ce0, 2), 46, {0x10001000: '68656c6c6f0a', 0x10001070: '4141414141414141414141414141414141414141414141414141414141414141', 0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'process_vm_readv(1234, [{iov_base="hello\\n", iov_len=6}, {iov_base="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"..., iov_len=40}], 2, [{iov_base=0x10001000, iov_len=6}, {iov_base=0x10001070, iov_len=40}], 2, 0) = 46'),
    ('vmsplice', 'vmsplice', (3, 0x10002ce0, 2, 2), 46, {0x10001000: '68656c6c6f0a', 0x10001070: '4141414141414141414141414141414141414141414141414141414141414141', 0x10002ce0: '0010001000000000060000000000000070100010000000002800000000000000'},
     'vmsplice(3, [{iov_base="hello\\n", iov_len=6}, {iov_base="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"..., iov_len=40}], 2, SPLICE_F_NONBLOCK) = 46'),
    ('writev_many', 'writev', (1, 0x10002d00, 40), 40, {0x10001000: '68', 0x10002d00: '0010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000001000100000000001000000000000000010001000000000010000000000000000100010000000000100000000000000'},
     'writev(1, [{iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, {iov_base="h", iov_len=1}, ...], 40) = 40'),
    ('getdents64', 'getdents64', (3, 0x10002f80, 0x8000), 104, {0x10002f80: '020000000000000001000000000000001800042e00000000010000000000000002000000000000001800042e2e0000000c00000000000000030000000000000020000866696c652e74787400000000000d00000000000000ffffffffffffff7f18000a6c696e6b00'},
     'getdents64(3, 0x10002f80 /* 4 entries */, 32768) = 104'),
    ('getdents64_0', 'getdents64', (3, 0x10002f80, 0x8000), 0, {},
     'getdents64(3, 0x10002f80 /* 0 entries */, 32768) = 0'),
    ('getdents64_err', 'getdents64', (3, 0x10002f80, 0x8000), -9, {},
     'getdents64(3, 0x10002f80, 32768)        = -1 EBADF (Bad file descriptor)'),
    ('getdents', 'getdents', (3, 0x10002ff0, 0x8000), 56, {0x10002ff0: '0200000000000000010000000000000018002e00000000040c000000000000000300000000000000200066696c652e747874000000000008'},
     'getdents(3, 0x10002ff0 /* 2 entries */, 32768) = 56'),
    ('socket', 'socket', (2, 0x80001, 6), 3, {},
     'socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP) = 3'),
    ('socket_unix', 'socket', (1, 0x80805), 3, {},
     'socket(AF_UNIX, SOCK_SEQPACKET|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 3'),
    ('socket_inet6_udp', 'socket', (10, 2), 3, {},
     'socket(AF_INET6, SOCK_DGRAM, IPPROTO_IP) = 3'),
    ('socket_netlink', 'socket', (16, 0x80003), 3, {},
     'socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = 3'),
    ('socket_packet', 'socket', (17, 3, 768), 3, {},
     'socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)) = 3'),
    ('connect_in', 'connect', (3, 0x10003040, 16), -111, {0x10003040: '020000507f0000010000000000000000'},
     'connect(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 ECONNREFUSED (Connection refused)'),
    ('connect_in6', 'connect', (3, 0x10003050, 28), 0, {0x10003050: '0a0001bb000000000000000000000000000000000000000100000000'},
     'connect(3, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0'),
    ('connect_in6b', 'connect', (3, 0x10003070, 28), 0, {0x10003070: '0a0000350001234520010db800000000000000000000000103000000'},
     'connect(3, {sa_family=AF_INET6, sin6_port=htons(53), sin6_flowinfo=htonl(74565), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=3}, 28) = 0'),
    ('connect_un', 'connect', (3, 0x10003090, 30), 0, {0x10003090: '01002f72756e2f646275732f73797374656d5f6275735f736f636b657400'},
     'connect(3, {sa_family=AF_UNIX, sun_path="/run/dbus/system_bus_socket"}, 30) = 0'),
    ('connect_un_abs', 'connect', (3, 0x100030b0, 11), 0, {0x100030b0: '0100006162737472616374'},
     'connect(3, {sa_family=AF_UNIX, sun_path=@"abstract"}, 11) = 0'),
    ('connect_un_short', 'connect', (3, 0x10003090, 110), -2, {0x10003090: '01002f72756e2f646275732f73797374656d5f6275735f736f636b6574000000010000616273747261637400000000000000000000000000000000000000000010000000d20400000100000000000000100000000000000000000000000000001000000000000000000000000000'},
     'connect(3, {sa_family=AF_UNIX, sun_path="/run/dbus/system_bus_socket"}, 110) = -1 ENOENT (No such file or directory)'),
    ('connect_unspec', 'connect', (3, 0x100030c0, 16), 0, {0x100030c0: '00000000000000000000000000000000'},
     'connect(3, {sa_family=AF_UNSPEC, sa_data="\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0"}, 16) = 0'),
    ('bind_nl', 'bind', (3, 0x100030d0, 12), 0, {0x100030d0: '10000000d204000001000000'},
     'bind(3, {sa_family=AF_NETLINK, nl_pid=1234, nl_groups=0x000001}, 12) = 0'),
    ('bind_in', 'bind', (3, 0x10003040, 16), 0, {0x10003040: '020000507f0000010000000000000000'},
     'bind(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, 16) = 0'),
    ('connect_bad_len', 'connect', (3, 0x10003040, 4), -22, {0x10003040: '02000050'},
     'connect(3, {sa_family=AF_INET, sa_data="\\0P"}, 4) = -1 EINVAL (Invalid argument)'),
    ('listen', 'listen', (3, 128), 0, {},
     'listen(3, 128)                          = 0'),
    ('accept', 'accept', (3, 0x10003040, 0x100030e0), 4, {0x10003040: '020000507f0000010000000000000000', 0x100030e0: '10000000'},
     'accept(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, [16]) = 4'),
    ('accept_null', 'accept', (3,), 4, {},
     'accept(3, NULL, NULL)                   = 4'),
    ('accept4', 'accept4', (3, 0x10003040, 0x100030f0, 0x80000), 4, {0x10003040: '020000507f0000010000000000000000', 0x100030f0: '10000000'},
     'accept4(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, [16], SOCK_CLOEXEC) = 4'),
    ('getsockname', 'getsockname', (3, 0x10003040, 0x10003100), 0, {0x10003040: '020000507f0000010000000000000000', 0x10003100: '10000000'},
     'getsockname(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, [16]) = 0'),
    ('getsockname_un', 'getsockname', (3, 0x10003090, 0x10003110), 0, {0x10003090: '01002f72756e2f646275732f73797374656d5f6275735f736f636b657400', 0x10003110: '1e000000'},
     'getsockname(3, {sa_family=AF_UNIX, sun_path="/run/dbus/system_bus_socket"}, [30]) = 0'),
    ('getpeername_err', 'getpeername', (3, 0x10003040, 0x10003120), -107, {0x10003120: '80000000'},
     'getpeername(3, 0x10003040, [128])       = -1 ENOTCONN (Transport endpoint is not connected)'),
    ('sendto', 'sendto', (3, 0x10001000, 6, 0x4000, 0x10003040, 16), 6, {0x10001000: '68656c6c6f0a', 0x10003040: '020000507f0000010000000000000000'},
     'sendto(3, "hello\\n", 6, MSG_NOSIGNAL, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, 16) = 6'),
    ('sendto_null', 'sendto', (3, 0x10001000, 6), 6, {0x10001000: '68656c6c6f0a'},
     'sendto(3, "hello\\n", 6, 0, NULL, 0)     = 6'),
    ('recvfrom', 'recvfrom', (3, 0x10001000, 4096, 0, 0x10003040, 0x10003130), 6, {0x10001000: '68656c6c6f0a', 0x10003040: '020000507f0000010000000000000000', 0x10003130: '10000000'},
     'recvfrom(3, "hello\\n", 4096, 0, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, [16]) = 6'),
    ('recvfrom_null', 'recvfrom', (3, 0x10001000, 4096, 64), 6, {0x10001000: '68656c6c6f0a'},
     'recvfrom(3, "hello\\n", 4096, MSG_DONTWAIT, NULL, NULL) = 6'),
    ('shutdown', 'shutdown', (3, 2), 0, {},
     'shutdown(3, SHUT_RDWR)                  = 0'),
    ('socketpair', 'socketpair', (1, 1, 0, 0x10003140), 0, {0x10003140: '0300000004000000'},
     'socketpair(AF_UNIX, SOCK_STREAM, 0, [3, 4]) = 0'),
    ('setsockopt_int', 'setsockopt', (3, 1, 2, 0x10003150, 4), 0, {0x10003150: '01000000'},
     'setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0'),
    ('setsockopt_tcp', 'setsockopt', (3, 6, 1, 0x10003160, 4), 0, {0x10003160: '01000000'},
     'setsockopt(3, SOL_TCP, TCP_NODELAY, [1], 4) = 0'),
    ('setsockopt_linger', 'setsockopt', (3, 1, 13, 0x10003170, 8), 0, {0x10003170: '0100000005000000'},
     'setsockopt(3, SOL_SOCKET, SO_LINGER, {l_onoff=1, l_linger=5}, 8) = 0'),
    ('getsockopt_err', 'getsockopt', (3, 1, 4, 0x10003180, 0x10003190), 0, {0x10003180: '00000000', 0x10003190: '04000000'},
     'getsockopt(3, SOL_SOCKET, SO_ERROR, [0], [4]) = 0'),
    ('getsockopt_type', 'getsockopt', (3, 1, 3, 0x100031a0, 0x100031b0), 0, {0x100031a0: '01000000', 0x100031b0: '04000000'},
     'getsockopt(3, SOL_SOCKET, SO_TYPE, [1], [4]) = 0'),
    ('getsockopt_rcvbuf', 'getsockopt', (3, 1, 8, 0x100031c0, 0x100031d0), 0, {0x100031c0: '00000200', 0x100031d0: '04000000'},
     'getsockopt(3, SOL_SOCKET, SO_RCVBUF, [131072], [4]) = 0'),
    ('getsockopt_peercred', 'getsockopt', (3, 1, 17, 0x100031e0, 0x100031f0), 0, {0x100031e0: 'd2040000e8030000e8030000', 0x100031f0: '0c000000'},
     'getsockopt(3, SOL_SOCKET, SO_PEERCRED, {pid=1234, uid=1000, gid=1000}, [12]) = 0'),
    ('sendmsg', 'sendmsg', (3, 0x10003210), 6, {0x10001000: '68656c6c6f0a', 0x10003040: '020000507f0000010000000000000000', 0x10003200: '001000100000000006000000000000004030001000000000100000000000000000320010000000000100000000000000000000000000000000000000000000000000000000000000'},
     'sendmsg(3, {msg_name={sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, msg_namelen=16, msg_iov=[{iov_base="hello\\n", iov_len=6}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 6'),
    ('recvmsg', 'recvmsg', (3, 0x10003210), 6, {0x10001000: '68656c6c6f0a', 0x10003040: '020000507f0000010000000000000000', 0x10003200: '001000100000000006000000000000004030001000000000100000000000000000320010000000000100000000000000000000000000000000000000000000000000000000000000'},
     'recvmsg(3, {msg_name={sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, msg_namelen=16, msg_iov=[{iov_base="hello\\n", iov_len=6}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 6'),
    ('recvmsg_flags', 'recvmsg', (3, 0x10003250, 64), 6, {0x10001000: '68656c6c6f0a', 0x10003200: '00100010000000000600000000000000', 0x10003250: '0000000000000000000000000000000000320010000000000100000000000000000000000000000000000000000000002000000000000000'},
     'recvmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="hello\\n", iov_len=6}], msg_iovlen=1, msg_controllen=0, msg_flags=MSG_TRUNC}, MSG_DONTWAIT) = 6'),
    ('sendmsg_rights', 'sendmsg', (3, 0x100032b0), 6, {0x10001000: '68656c6c6f0a', 0x10003200: '00100010000000000600000000000000', 0x10003290: '140000000000000001000000010000000500000000000000', 0x100032b0: '0000000000000000000000000000000000320010000000000100000000000000903200100000000018000000000000000000000000000000'},
     'sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="hello\\n", iov_len=6}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5]}], msg_controllen=24, msg_flags=0}, 0) = 6'),
    ('recvmsg_err', 'recvmsg', (3, 0x10003210), -11, {0x10003218: '10000000'},
     'recvmsg(3, {msg_namelen=16}, 0)         = -1 EAGAIN (Resource temporarily unavailable)'),
    ('sendto_netlink', 'sendto', (3, 0x100032f0, 20), 20, {0x100032f0: '1400000012000103010000000000000002000000'},
     'sendto(3, "\\24\\0\\0\\0\\22\\0\\1\\3\\1\\0\\0\\0\\0\\0\\0\\0\\2\\0\\0\\0", 20, 0, NULL, 0) = 20'),
    ('err_512', 'read', (0, 0x10001000, 2), -512, {},
     'read(0, 0x10001000, 2)                  = ? ERESTARTSYS (To be restarted if SA_RESTART is set)'),
    ('err_513', 'read', (0, 0x10001000, 2), -513, {},
     'read(0, 0x10001000, 2)                  = ? ERESTARTNOINTR (To be restarted)'),
    ('err_514', 'read', (0, 0x10001000, 2), -514, {},
     'read(0, 0x10001000, 2)                  = ? ERESTARTNOHAND (To be restarted if no handler)'),
    ('err_516', 'read', (0, 0x10001000, 2), -516, {},
     'read(0, 0x10001000, 2)                  = ? ERESTART_RESTARTBLOCK (Interrupted by signal)'),
    ('err_133', 'read', (0, 0x10001000, 2), -133, {},
     'read(0, 0x10001000, 2)                  = -1 EHWPOISON (Memory page has hardware error)'),
    ('err_300', 'read', (0, 0x10001000, 2), -300, {},
     'read(0, 0x10001000, 2)                  = -1 (errno 300)'),
    ('err_4095', 'read', (0, 0x10001000, 2), -4095, {},
     'read(0, 0x10001000, 2)                  = -1 (errno 4095)'),
    ('err_1', 'read', (0, 0x10001000, 2), -1, {},
     'read(0, 0x10001000, 2)                  = -1 EPERM (Operation not permitted)'),
    ('err_38', 'read', (0, 0x10001000, 2), -38, {},
     'read(0, 0x10001000, 2)                  = -1 ENOSYS (Function not implemented)'),
    ('statxmask_7ff', 'statx', (0xffffffffffffff9c, 0x10005b00, 0, 2047, 0x10005b10), 0, {0x10005b00: '7800', 0x10005b10: 'ff070000000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS, {stx_mask=STATX_BASIC_STATS, stx_attributes=0, stx_mode=S_IFCHR|0620, stx_size=0, ...}) = 0'),
    ('statxmask_fff', 'statx', (0xffffffffffffff9c, 0x10005c10, 0, 4095, 0x10005c20), 0, {0x10005c10: '7800', 0x10005c20: 'ff0f0000000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, STATX_ALL, {stx_mask=STATX_ALL, stx_attributes=0, stx_mode=S_IFCHR|0620, stx_size=0, ...}) = 0'),
    ('statxmask_1fff', 'statx', (0xffffffffffffff9c, 0x10005d20, 0, 0x1fff, 0x10005d30), 0, {0x10005d20: '7800', 0x10005d30: 'ff1f0000000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, STATX_ALL|STATX_MNT_ID, {stx_mask=STATX_ALL|STATX_MNT_ID, stx_attributes=0, stx_mode=S_IFCHR|0620, stx_size=0, ...}) = 0'),
    ('statxmask_3fff', 'statx', (0xffffffffffffff9c, 0x10005e30, 0, 0x3fff, 0x10005e40), 0, {0x10005e30: '7800', 0x10005e40: 'ff3f0000000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, STATX_ALL|STATX_MNT_ID|STATX_DIOALIGN, {stx_mask=STATX_ALL|STATX_MNT_ID|STATX_DIOALIGN, stx_attributes=0, stx_mode=S_IFCHR|0620, stx_size=0, ...}) = 0'),
    ('statxmask_7fe', 'statx', (0xffffffffffffff9c, 0x10005f40, 0, 2046, 0x10005f50), 0, {0x10005f40: '7800', 0x10005f50: 'fe070000000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, STATX_MODE|STATX_NLINK|STATX_UID|STATX_GID|STATX_ATIME|STATX_MTIME|STATX_CTIME|STATX_INO|STATX_SIZE|STATX_BLOCKS, {stx_mask=STATX_MODE|STATX_NLINK|STATX_UID|STATX_GID|STATX_ATIME|STATX_MTIME|STATX_CTIME|STATX_INO|STATX_SIZE|STATX_BLOCKS, stx_attributes=0, stx_mode=S_IFCHR|0620, stx_size=0, ...}) = 0'),
    ('statxmask_17ff', 'statx', (0xffffffffffffff9c, 0x10006050, 0, 0x17ff, 0x10006060), 0, {0x10006050: '7800', 0x10006060: 'ff170000000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS|STATX_MNT_ID, {stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_attributes=0, stx_mode=S_IFCHR|0620, stx_size=0, ...}) = 0'),
    ('statxmask_800', 'statx', (0xffffffffffffff9c, 0x10006160, 0, 2048, 0x10006170), 0, {0x10006160: '7800', 0x10006170: '00080000000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, STATX_BTIME, {stx_mask=STATX_BTIME, stx_attributes=0, ...}) = 0'),
    ('statxmask_80000000', 'statx', (0xffffffffffffff9c, 0x10006270, 0, 0x80000000, 0x10006280), 0, {0x10006270: '7800', 0x10006280: '00000080000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, 0x80000000 /* STATX_??? */, {stx_mask=0x80000000 /* STATX_??? */, stx_attributes=0, ...}) = 0'),
    ('statxmask_8000007f', 'statx', (0xffffffffffffff9c, 0x10006380, 0, 0x8000007f, 0x10006390), 0, {0x10006380: '7800', 0x10006390: '7f000080000000000000000000000000000000000000000000000000902100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'statx(AT_FDCWD, "x", AT_STATX_SYNC_AS_STAT, STATX_TYPE|STATX_MODE|STATX_NLINK|STATX_UID|STATX_GID|STATX_ATIME|STATX_MTIME|0x80000000, {stx_mask=STATX_TYPE|STATX_MODE|STATX_NLINK|STATX_UID|STATX_GID|STATX_ATIME|STATX_MTIME|0x80000000, stx_attributes=0, stx_mode=S_IFCHR|0620, ...}) = 0'),
    ('si_user', 'rt_sigqueueinfo', (1234, 15, 0x10007c90), 0, {0x10007c90: '0f000000000000000000000000000000d2040000e80300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGTERM, {si_signo=SIGTERM, si_code=SI_USER, si_pid=1234, si_uid=1000}) = 0'),
    ('si_kernel', 'rt_sigqueueinfo', (1234, 2, 0x10007d10), 0, {0x10007d10: '0200000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGINT, {si_signo=SIGINT, si_code=SI_KERNEL}) = 0'),
    ('si_tkill', 'rt_sigqueueinfo', (1234, 6, 0x10007d90), 0, {0x10007d90: '0600000000000000faffffff00000000d2040000e80300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGABRT, {si_signo=SIGABRT, si_code=SI_TKILL, si_pid=1234, si_uid=1000}) = 0'),
    ('si_queue', 'rt_sigqueueinfo', (1234, 10, 0x10007e10), 0, {0x10007e10: '0a00000000000000ffffffff00000000d2040000e80300000500000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=1234, si_uid=1000, si_int=5, si_ptr=0x5}) = 0'),
    ('si_timer', 'rt_sigqueueinfo', (1234, 14, 0x10007e90), 0, {0x10007e90: '0e00000000000000feffffff0000000001000000020000003412000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGALRM, {si_signo=SIGALRM, si_code=SI_TIMER, si_timerid=0x1, si_overrun=2, si_int=4660, si_ptr=0x1234}) = 0'),
    ('si_segv_map', 'rt_sigqueueinfo', (1234, 11, 0x10007f10), 0, {0x10007f10: '0b00000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGSEGV, {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL}) = 0'),
    ('si_segv_acc', 'rt_sigqueueinfo', (1234, 11, 0x10007f90), 0, {0x10007f90: '0b00000000000000020000000000000000104000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGSEGV, {si_signo=SIGSEGV, si_code=SEGV_ACCERR, si_addr=0x401000}) = 0'),
    ('si_segv_kernel', 'rt_sigqueueinfo', (1234, 11, 0x10008010), 0, {0x10008010: '0b00000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGSEGV, {si_signo=SIGSEGV, si_code=SI_KERNEL, si_addr=NULL}) = 0'),
    ('si_bus', 'rt_sigqueueinfo', (1234, 7, 0x10008090), 0, {0x10008090: '0700000000000000020000000000000000100000007f00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGBUS, {si_signo=SIGBUS, si_code=BUS_ADRERR, si_addr=0x7f0000001000}) = 0'),
    ('si_ill', 'rt_sigqueueinfo', (1234, 4, 0x10008110), 0, {0x10008110: '0400000000000000020000000000000000104000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGILL, {si_signo=SIGILL, si_code=ILL_ILLOPN, si_addr=0x401000}) = 0'),
    ('si_fpe', 'rt_sigqueueinfo', (1234, 8, 0x10008190), 0, {0x10008190: '0800000000000000010000000000000000104000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGFPE, {si_signo=SIGFPE, si_code=FPE_INTDIV, si_addr=0x401000}) = 0'),
    ('si_trap', 'rt_sigqueueinfo', (1234, 5, 0x10008210), 0, {0x10008210: '0500000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGTRAP, {si_signo=SIGTRAP, si_code=TRAP_BRKPT, si_addr=NULL}) = 0'),
    ('si_trap_kernel', 'rt_sigqueueinfo', (1234, 5, 0x10008290), 0, {0x10008290: '0500000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGTRAP, {si_signo=SIGTRAP, si_code=SI_KERNEL, si_addr=NULL}) = 0'),
    ('si_chld_exit', 'rt_sigqueueinfo', (1234, 17, 0x10008310), 0, {0x10008310: '11000000000000000100000000000000d2040000e80300000000000000000000050000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGCHLD, {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1234, si_uid=1000, si_status=0, si_utime=5 /* 0.05 s */, si_stime=0}) = 0'),
    ('si_chld_killed', 'rt_sigqueueinfo', (1234, 17, 0x10008390), 0, {0x10008390: '11000000000000000200000000000000d2040000e80300000900000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGCHLD, {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=1234, si_uid=1000, si_status=SIGKILL, si_utime=0, si_stime=0}) = 0'),
    ('si_chld_dumped', 'rt_sigqueueinfo', (1234, 17, 0x10008410), 0, {0x10008410: '11000000000000000300000000000000d2040000e80300000b00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGCHLD, {si_signo=SIGCHLD, si_code=CLD_DUMPED, si_pid=1234, si_uid=1000, si_status=SIGSEGV, si_utime=0, si_stime=0}) = 0'),
    ('si_chld_stopped', 'rt_sigqueueinfo', (1234, 17, 0x10008490), 0, {0x10008490: '11000000000000000500000000000000d2040000e80300001300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGCHLD, {si_signo=SIGCHLD, si_code=CLD_STOPPED, si_pid=1234, si_uid=1000, si_status=SIGSTOP, si_utime=0, si_stime=0}) = 0'),
    ('si_chld_cont', 'rt_sigqueueinfo', (1234, 17, 0x10008510), 0, {0x10008510: '11000000000000000600000000000000d2040000e80300001200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGCHLD, {si_signo=SIGCHLD, si_code=CLD_CONTINUED, si_pid=1234, si_uid=1000, si_status=SIGCONT, si_utime=0, si_stime=0}) = 0'),
    ('si_poll_in', 'rt_sigqueueinfo', (1234, 29, 0x10008590), 0, {0x10008590: '1d00000000000000010000000000000000010000000000000300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGIO, {si_signo=SIGIO, si_code=POLL_IN, si_band=256, si_fd=3}) = 0'),
    ('si_sys', 'rt_sigqueueinfo', (1234, 31, 0x10008610), 0, {0x10008610: '1f0000000000000001000000000000000010400000000000270000003e0000c0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGSYS, {si_signo=SIGSYS, si_code=SYS_SECCOMP, si_call_addr=0x401000, si_syscall=__NR_getpid, si_arch=AUDIT_ARCH_X86_64}) = 0'),
    ('si_errno', 'rt_sigqueueinfo', (1234, 11, 0x10008690), 0, {0x10008690: '0b00000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGSEGV, {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL}) = 0'),
    ('si_unknown_code', 'rt_sigqueueinfo', (1234, 11, 0x10008710), 0, {0x10008710: '0b00000000000000630000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGSEGV, {si_signo=SIGSEGV, si_code=0x63, si_addr=0x10}) = 0'),
    ('si_alrm_kernel', 'rt_sigqueueinfo', (1234, 14, 0x10008790), 0, {0x10008790: '0e00000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGALRM, {si_signo=SIGALRM, si_code=SI_KERNEL}) = 0'),
    ('si_int_user0', 'rt_sigqueueinfo', (1234, 2, 0x10008810), 0, {0x10008810: '0200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGINT, {si_signo=SIGINT, si_code=SI_USER, si_pid=0, si_uid=0}) = 0'),
    ('si_sigio', 'rt_sigqueueinfo', (1234, 29, 0x10008890), 0, {0x10008890: '1d00000000000000fbffffff0000000001000000020000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGIO, {si_signo=SIGIO, si_code=SI_SIGIO, si_band=8589934593, si_fd=0}) = 0'),
    ('si_mesgq', 'rt_sigqueueinfo', (1234, 10, 0x10008910), 0, {0x10008910: '0a00000000000000fdffffff0000000001000000020000000700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_MESGQ, si_pid=1, si_uid=2, si_int=7, si_ptr=0x7}) = 0'),
    ('si_rt', 'rt_sigqueueinfo', (1234, 34, 0x10008990), 0, {0x10008990: '2200000000000000ffffffff0000000001000000020000000700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGRT_2, {si_signo=SIGRT_2, si_code=SI_QUEUE, si_pid=1, si_uid=2, si_int=7, si_ptr=0x7}) = 0'),
    ('si_errno', 'rt_sigqueueinfo', (1234, 11, 0x10008a10), 0, {0x10008a10: '0b0000000d000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'rt_sigqueueinfo(1234, SIGSEGV, {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_errno=EACCES, si_addr=NULL}) = 0'),
    ('clone3_fork', 'clone3', (0x10008aa0, 88), 1237, {0x10008aa0: '00000000000000000000000000000000000000000000000000000000000000001100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'clone3({flags=0, exit_signal=SIGCHLD, stack=NULL, stack_size=0}, 88) = 1237'),
    ('clone3_thread_rd', 'clone3', (0x10008b00, 88), 1237, {0x10008a90: '00000000', 0x10008b00: '000f3d00000000000000000000000000908a001000000000908a001000000000000000000000000000001000007f0000000001000000000000003000007f0000000000000000000000000000000000000000000000000000'},
     'clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x10008a90, parent_tid=0x10008a90, exit_signal=0, stack=0x7f0000100000, stack_size=0x10000, tls=0x7f0000300000} => {parent_tid=[0]}, 88) = 1237'),
    ('clone3_pidfd', 'clone3', (0x10008b70, 88), 1237, {0x10008b60: '05000000', 0x10008b70: '0010000000000000608b001000000000000000000000000000000000000000001100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'clone3({flags=CLONE_PIDFD, pidfd=0x10008b60, exit_signal=SIGCHLD, stack=NULL, stack_size=0} => {pidfd=[5]}, 88) = 1237'),
    ('clone3_settid', 'clone3', (0x10008be0, 88), 1237, {0x10008bd0: '05000000', 0x10008be0: '00000000000000000000000000000000000000000000000000000000000000001100000000000000000000000000000000000000000000000000000000000000d08b00100000000001000000000000000000000000000000'},
     'clone3({flags=0, exit_signal=SIGCHLD, stack=NULL, stack_size=0, set_tid=[5], set_tid_size=1}, 88) = 1237'),
    ('clone3_cgroup', 'clone3', (0x10008c40, 88), 1237, {0x10008c40: '00000000020000000000000000000000000000000000000000000000000000001100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000300000000000000'},
     'clone3({flags=CLONE_INTO_CGROUP, exit_signal=SIGCHLD, stack=NULL, stack_size=0, cgroup=3}, 88) = 1237'),
    ('clone3_err', 'clone3', (0x10008ca0, 88), -38, {0x10008ca0: '00000000000000000000000000000000000000000000000000000000000000001100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'clone3({flags=0, exit_signal=SIGCHLD, stack=NULL, stack_size=0}, 88) = -1 ENOSYS (Function not implemented)'),
    ('clone3_small', 'clone3', (0x10008d00, 40), -22, {},
     'clone3(0x10008d00, 40)                  = -1 EINVAL (Invalid argument)'),
    ('clone_parent_settid', 'clone', (0x100011, 0, 0x10008a90), 1235, {0x10008a90: '00000000'},
     'clone(child_stack=NULL, flags=CLONE_PARENT_SETTID|SIGCHLD, parent_tid=[0]) = 1235'),
    ('clone_pidfd', 'clone', (0x1011, 0, 0x10008a90), 1235, {0x10008a90: '00000000'},
     'clone(child_stack=NULL, flags=CLONE_PIDFD|SIGCHLD, parent_tid=[0]) = 1235'),
    ('clone_settls_only', 'clone', (0x80011, 0x7f0000100000, 0, 0, 0x7f0000300000), 1235, {},
     'clone(child_stack=0x7f0000100000, flags=CLONE_SETTLS|SIGCHLD, tls=0x7f0000300000) = 1235'),
    ('clone_err', 'clone', (273,), -11, {},
     'clone(child_stack=NULL, flags=CLONE_VM|SIGCHLD) = -1 EAGAIN (Resource temporarily unavailable)'),
    ('clone_newns', 'clone', (0x10020011,), 1235, {},
     'clone(child_stack=NULL, flags=CLONE_NEWNS|CLONE_NEWUSER|SIGCHLD) = 1235'),
    ('clone_sig0', 'clone', (256,), 1235, {},
     'clone(child_stack=NULL, flags=CLONE_VM) = 1235'),
    ('clone_sig_unknown', 'clone', (355,), 1235, {},
     'clone(child_stack=NULL, flags=CLONE_VM|99) = 1235'),
    ('settimeofday_neg', 'settimeofday', (0x10008d60,), 0, {0x10008d60: 'fbfffffffffffffff9ffffffffffffff'},
     'settimeofday({tv_sec=-5, tv_usec=18446744073709551609}, NULL) = 0'),
    ('settimeofday_big', 'settimeofday', (0x10008d70,), 0, {0x10008d70: '050000000000000080841e0000000000'},
     'settimeofday({tv_sec=5, tv_usec=2000000}, NULL) = 0'),
    ('time_err', 'time', (), -14, {},
     'time(NULL)                              = -1 EFAULT (Bad address)'),
    ('mmap_zero_ret', 'mmap', (0, 4096, 3, 50, 0xffffffffffffffff), 0, {},
     'mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0'),
    ('brk_err', 'brk', (4096,), -12, {},
     'brk(0x1000)                             = -1 ENOMEM (Cannot allocate memory)'),
    ('lseek_big', 'lseek', (3, 0, 2), 0x7fffffffffffffff, {},
     'lseek(3, 0, SEEK_END)                   = 9223372036854775807'),
    ('shmat_err', 'shmat', (5,), -22, {},
     'shmat(5, NULL, 0)                       = -1 EINVAL (Invalid argument)'),
    ('sched_yield', 'sched_yield', (), 0, {},
     'sched_yield()                           = 0'),
    ('set_tid_null', 'set_tid_address', (), 1, {},
     'set_tid_address(0)                      = 1'),
    ('personality_err', 'personality', (0x1234,), -22, {},
     'personality(0x34 /* PER_??? */|0x1200)  = -1 EINVAL (Invalid argument)'),
    ('sigtimedwait_err', 'rt_sigtimedwait', (0x10008d80, 0, 0, 8), -11, {0x10008d80: '0200000000000000'},
     'rt_sigtimedwait([INT], NULL, NULL, 8)   = -1 EAGAIN (Resource temporarily unavailable)'),
    ('poll_neg_timeout', 'poll', (0, 0, 0xffffffffffffffff), 0, {},
     'poll(NULL, 0, -1)                       = 0 (Timeout)'),
    ('sched_getscheduler_rf', 'sched_getscheduler', (), 0x40000000, {},
     'sched_getscheduler(0)                   = 1073741824'),
    ('adjtimex_err', 'adjtimex', (), -14, {},
     'adjtimex(NULL)                          = -1 EFAULT (Bad address)'),
    ('adjtimex_5', 'adjtimex', (0x10008d90,), 5, {0x10008d90: '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000'},
     'adjtimex({modes=0, offset=0, freq=0, maxerror=0, esterror=0, status=0, constant=0, precision=0, tolerance=0, time={tv_sec=0, tv_usec=0}, tick=0, ppsfreq=0, jitter=0, shift=0, stabil=0, jitcnt=0, calcnt=0, errcnt=0, stbcnt=0, tai=0}) = 5 (TIME_ERROR)'),
    ('fcntl_getfl_nb', 'fcntl', (3, 3), 2050, {},
     'fcntl(3, F_GETFL)                       = 0x802 (flags O_RDWR|O_NONBLOCK)'),
    ('fcntl_getfl_wr', 'fcntl', (3, 3), 1025, {},
     'fcntl(3, F_GETFL)                       = 0x401 (flags O_WRONLY|O_APPEND)'),
    ('prctl_get_name_err', 'prctl', (16, 0x10008e60), -22, {},
     'prctl(PR_GET_NAME, 0x10008e60)          = -1 EINVAL (Invalid argument)'),
    ('prctl_getdumpable2', 'prctl', (3,), 2, {},
     'prctl(PR_GET_DUMPABLE)                  = 2 (SUID_DUMP_ROOT)'),
    ('prctl_getdumpable0', 'prctl', (3,), 0, {},
     'prctl(PR_GET_DUMPABLE)                  = 0 (SUID_DUMP_DISABLE)'),
    ('prctl_set_dumpable', 'prctl', (4,), 0, {},
     'prctl(PR_SET_DUMPABLE, SUID_DUMP_DISABLE) = 0'),
    ('prctl_set_child_subreaper', 'prctl', (36, 1), 0, {},
     'prctl(PR_SET_CHILD_SUBREAPER, 1)        = 0'),
    ('prctl_get_pdeathsig', 'prctl', (2, 0x10008e70), 0, {0x10008e70: '09000000'},
     'prctl(PR_GET_PDEATHSIG, [SIGKILL])      = 0'),
    ('prctl_set_keepcaps', 'prctl', (8, 1), 0, {},
     'prctl(PR_SET_KEEPCAPS, 1)               = 0'),
    ('prctl_set_timerslack', 'prctl', (29, 0xc350), 0, {},
     'prctl(PR_SET_TIMERSLACK, 50000)         = 0'),
    ('prctl_get_seccomp', 'prctl', (21,), 0, {},
     'prctl(PR_GET_SECCOMP)                   = 0'),
    ('prctl_set_mm', 'prctl', (35, 8, 4096), 0, {},
     'prctl(PR_SET_MM, PR_SET_MM_ARG_START, 0x1000, 0, 0) = 0'),
    ('prctl_set_ptracer', 'prctl', (0x59616d61, 1234), 0, {},
     'prctl(PR_SET_PTRACER, 1234)             = 0'),
    ('prctl_set_ptracer_any', 'prctl', (0x59616d61, 0xffffffffffffffff), 0, {},
     'prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) = 0'),
    ('prctl_cap_ambient', 'prctl', (47, 4), 0, {},
     'prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) = 0'),
    ('prctl_set_thp', 'prctl', (41, 1), 0, {},
     'prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)   = 0'),
    ('prctl_get_tid_address', 'prctl', (40, 0x10008e80), 0, {0x10008e80: '00100000007f0000'},
     'prctl(PR_GET_TID_ADDRESS, [0x7f0000001000]) = 0'),
    ('prctl_set_securebits', 'prctl', (28, 47), 0, {},
     'prctl(PR_SET_SECUREBITS, SECBIT_NOROOT|SECBIT_NOROOT_LOCKED|SECBIT_NO_SETUID_FIXUP|SECBIT_NO_SETUID_FIXUP_LOCKED|SECBIT_KEEP_CAPS_LOCKED) = 0'),
    ('prctl_get_securebits', 'prctl', (27,), 47, {},
     'prctl(PR_GET_SECUREBITS)                = 0x2f (SECBIT_NOROOT|SECBIT_NOROOT_LOCKED|SECBIT_NO_SETUID_FIXUP|SECBIT_NO_SETUID_FIXUP_LOCKED|SECBIT_KEEP_CAPS_LOCKED)'),
    ('prctl_set_unalign', 'prctl', (6, 1), 0, {},
     'prctl(PR_SET_UNALIGN, PR_UNALIGN_NOPRINT) = 0'),
    ('prctl_set_name_long', 'prctl', (15, 0x10008e88), 0, {0x10008e88: '61616161616161616161616161616161'},
     'prctl(PR_SET_NAME, "aaaaaaaaaaaaaaa"...) = 0'),
    ('arch_prctl_set_gs', 'arch_prctl', (0x1001,), 0, {},
     'arch_prctl(ARCH_SET_GS, 0)              = 0'),
    ('arch_prctl_get_gs', 'arch_prctl', (0x1004, 0x10008ec0), 0, {0x10008ec0: '0000000000000000'},
     'arch_prctl(ARCH_GET_GS, [NULL])         = 0'),
    ('arch_prctl_get_err', 'arch_prctl', (0x1003, 16), -14, {},
     'arch_prctl(ARCH_GET_FS, 0x10)           = -1 EFAULT (Bad address)'),
    ('arch_prctl_setcpuid', 'arch_prctl', (0x1012, 1), 0, {},
     'arch_prctl(ARCH_SET_CPUID, 0x1)         = 0'),
    ('arch_prctl_xcomp', 'arch_prctl', (0x1022, 0x10008ed0), 0, {0x10008ed0: 'e702000000000000'},
     'arch_prctl(ARCH_GET_XCOMP_PERM, [0x2e7 /* XFEATURE_MASK_FPSSE|XFEATURE_MASK_YMM|XFEATURE_MASK_AVX512|XFEATURE_MASK_PKRU */]) = 0'),
    ('arch_prctl_req_xcomp', 'arch_prctl', (0x1023, 18), 0, {},
     'arch_prctl(ARCH_REQ_XCOMP_PERM, 0x12 /* XFEATURE_XTILE_DATA */) = 0'),
    ('arch_prctl_vdso', 'arch_prctl', (0x2003, 0x7f0000000000), 0, {},
     'arch_prctl(ARCH_MAP_VDSO_64, 0x7f0000000000) = 0'),
    ('termall_0', 'ioctl', (0, 0x5402, 0x10001000), 0, {0x10001000: 'ffffffff0000000000000000000000000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=IGNBRK|BRKINT|IGNPAR|PARMRK|INPCK|ISTRIP|INLCR|IGNCR|ICRNL|IUCLC|IXON|IXANY|IXOFF|IMAXBEL|IUTF8|0xffff8000, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B0|CS5|, c_lflag=, ...}) = 0'),
    ('termall2_0', 'ioctl', (0, 0x5402, 0x10001030), 0, {0x10001030: 'ffff07000000000000000000000000000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=IGNBRK|BRKINT|IGNPAR|PARMRK|INPCK|ISTRIP|INLCR|IGNCR|ICRNL|IUCLC|IXON|IXANY|IXOFF|IMAXBEL|IUTF8|0x78000, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B0|CS5|, c_lflag=, ...}) = 0'),
    ('termall_1', 'ioctl', (0, 0x5402, 0x10001060), 0, {0x10001060: '00000000ffffffff00000000000000000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL1|CR3|XTABS|BS1|VT1|FF1|OPOST|OLCUC|ONLCR|OCRNL|ONOCR|ONLRET|OFILL|OFDEL|0xffff0000, c_cflag=B0|CS5|, c_lflag=, ...}) = 0'),
    ('termall2_1', 'ioctl', (0, 0x5402, 0x10001090), 0, {0x10001090: '00000000ff00ff7f00000000000000000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|OLCUC|ONLCR|OCRNL|ONOCR|ONLRET|OFILL|OFDEL|0x7fff0000, c_cflag=B0|CS5|, c_lflag=, ...}) = 0'),
    ('termall_2', 'ioctl', (0, 0x5402, 0x100010c0), 0, {0x100010c0: '0000000000000000ffffffff000000000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B4000000|B4000000<<IBSHIFT|CS8|CSTOPB|CREAD|PARENB|PARODD|HUPCL|CLOCAL|CMSPAR|CRTSCTS|0x2ff0e000, c_lflag=, ...}) = 0'),
    ('termall2_2', 'ioctl', (0, 0x5402, 0x100010f0), 0, {0x100010f0: '0000000000000000ffff0700000000000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B4000000|B300<<IBSHIFT|CS8|CSTOPB|CREAD|PARENB|PARODD|HUPCL|CLOCAL|0xe000, c_lflag=, ...}) = 0'),
    ('termall_3', 'ioctl', (0, 0x5402, 0x10001120), 0, {0x10001120: '000000000000000000000000ffffffff0000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B0|CS5|, c_lflag=ISIG|ICANON|XCASE|ECHO|ECHOE|ECHOK|ECHONL|NOFLSH|IEXTEN|ECHOCTL|ECHOPRT|ECHOKE|FLUSHO|PENDIN|TOSTOP|EXTPROC|0xfffe2000, ...}) = 0'),
    ('termall2_3', 'ioctl', (0, 0x5402, 0x10001150), 0, {0x10001150: '000000000000000000000000ffff07000000000000000000000000000000000000000000'},
     'ioctl(0, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B0|CS5|, c_lflag=ISIG|ICANON|XCASE|ECHO|ECHOE|ECHOK|ECHONL|NOFLSH|IEXTEN|ECHOCTL|ECHOPRT|ECHOKE|FLUSHO|PENDIN|TOSTOP|EXTPROC|0x62000, ...}) = 0'),
    ('fsflag_0', 'ioctl', (3, 0x80086601, 0x10001180), 0, {0x10001180: '01000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_SECRM_FL]) = 0'),
    ('fsflag_1', 'ioctl', (3, 0x80086601, 0x10001190), 0, {0x10001190: '02000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_UNRM_FL]) = 0'),
    ('fsflag_2', 'ioctl', (3, 0x80086601, 0x100011a0), 0, {0x100011a0: '04000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_COMPR_FL]) = 0'),
    ('fsflag_3', 'ioctl', (3, 0x80086601, 0x100011b0), 0, {0x100011b0: '08000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_SYNC_FL]) = 0'),
    ('fsflag_4', 'ioctl', (3, 0x80086601, 0x100011c0), 0, {0x100011c0: '10000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_IMMUTABLE_FL]) = 0'),
    ('fsflag_5', 'ioctl', (3, 0x80086601, 0x100011d0), 0, {0x100011d0: '20000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_APPEND_FL]) = 0'),
    ('fsflag_6', 'ioctl', (3, 0x80086601, 0x100011e0), 0, {0x100011e0: '40000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_NODUMP_FL]) = 0'),
    ('fsflag_7', 'ioctl', (3, 0x80086601, 0x100011f0), 0, {0x100011f0: '80000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_NOATIME_FL]) = 0'),
    ('fsflag_8', 'ioctl', (3, 0x80086601, 0x10001200), 0, {0x10001200: '00010000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_DIRTY_FL]) = 0'),
    ('fsflag_9', 'ioctl', (3, 0x80086601, 0x10001210), 0, {0x10001210: '00020000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_COMPRBLK_FL]) = 0'),
    ('fsflag_10', 'ioctl', (3, 0x80086601, 0x10001220), 0, {0x10001220: '00040000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_NOCOMP_FL]) = 0'),
    ('fsflag_11', 'ioctl', (3, 0x80086601, 0x10001230), 0, {0x10001230: '00080000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_ENCRYPT_FL]) = 0'),
    ('fsflag_12', 'ioctl', (3, 0x80086601, 0x10001240), 0, {0x10001240: '00100000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_INDEX_FL]) = 0'),
    ('fsflag_13', 'ioctl', (3, 0x80086601, 0x10001250), 0, {0x10001250: '00200000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_IMAGIC_FL]) = 0'),
    ('fsflag_14', 'ioctl', (3, 0x80086601, 0x10001260), 0, {0x10001260: '00400000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_JOURNAL_DATA_FL]) = 0'),
    ('fsflag_15', 'ioctl', (3, 0x80086601, 0x10001270), 0, {0x10001270: '00800000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_NOTAIL_FL]) = 0'),
    ('fsflag_16', 'ioctl', (3, 0x80086601, 0x10001280), 0, {0x10001280: '00000100'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_DIRSYNC_FL]) = 0'),
    ('fsflag_17', 'ioctl', (3, 0x80086601, 0x10001290), 0, {0x10001290: '00000200'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_TOPDIR_FL]) = 0'),
    ('fsflag_18', 'ioctl', (3, 0x80086601, 0x100012a0), 0, {0x100012a0: '00000400'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_HUGE_FILE_FL]) = 0'),
    ('fsflag_19', 'ioctl', (3, 0x80086601, 0x100012b0), 0, {0x100012b0: '00000800'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_EXTENT_FL]) = 0'),
    ('fsflag_20', 'ioctl', (3, 0x80086601, 0x100012c0), 0, {0x100012c0: '00001000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_VERITY_FL]) = 0'),
    ('fsflag_21', 'ioctl', (3, 0x80086601, 0x100012d0), 0, {0x100012d0: '00002000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_EA_INODE_FL]) = 0'),
    ('fsflag_22', 'ioctl', (3, 0x80086601, 0x100012e0), 0, {0x100012e0: '00004000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_EOFBLOCKS_FL]) = 0'),
    ('fsflag_23', 'ioctl', (3, 0x80086601, 0x100012f0), 0, {0x100012f0: '00008000'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_NOCOW_FL]) = 0'),
    ('fsflag_24', 'ioctl', (3, 0x80086601, 0x10001300), 0, {0x10001300: '00000001'},
     'ioctl(3, FS_IOC_GETFLAGS, [0x1000000 /* FS_???_FL */]) = 0'),
    ('fsflag_25', 'ioctl', (3, 0x80086601, 0x10001310), 0, {0x10001310: '00000002'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_DAX_FL])  = 0'),
    ('fsflag_26', 'ioctl', (3, 0x80086601, 0x10001320), 0, {0x10001320: '00000004'},
     'ioctl(3, FS_IOC_GETFLAGS, [0x4000000 /* FS_???_FL */]) = 0'),
    ('fsflag_27', 'ioctl', (3, 0x80086601, 0x10001330), 0, {0x10001330: '00000008'},
     'ioctl(3, FS_IOC_GETFLAGS, [0x8000000 /* FS_???_FL */]) = 0'),
    ('fsflag_28', 'ioctl', (3, 0x80086601, 0x10001340), 0, {0x10001340: '00000010'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_INLINE_DATA_FL]) = 0'),
    ('fsflag_29', 'ioctl', (3, 0x80086601, 0x10001350), 0, {0x10001350: '00000020'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_PROJINHERIT_FL]) = 0'),
    ('fsflag_30', 'ioctl', (3, 0x80086601, 0x10001360), 0, {0x10001360: '00000040'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_CASEFOLD_FL]) = 0'),
    ('fsflag_31', 'ioctl', (3, 0x80086601, 0x10001370), 0, {0x10001370: '00000080'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_RESERVED_FL]) = 0'),
    ('fsflag_all', 'ioctl', (3, 0x80086601, 0x10001380), 0, {0x10001380: 'ffffffff'},
     'ioctl(3, FS_IOC_GETFLAGS, [FS_SECRM_FL|FS_UNRM_FL|FS_COMPR_FL|FS_SYNC_FL|FS_IMMUTABLE_FL|FS_APPEND_FL|FS_NODUMP_FL|FS_NOATIME_FL|FS_DIRTY_FL|FS_COMPRBLK_FL|FS_NOCOMP_FL|FS_ENCRYPT_FL|FS_INDEX_FL|FS_IMAGIC_FL|FS_JOURNAL_DATA_FL|FS_NOTAIL_FL|FS_DIRSYNC_FL|FS_TOPDIR_FL|FS_HUGE_FILE_FL|FS_EXTENT_FL|FS_VERITY_FL|FS_EA_INODE_FL|FS_EOFBLOCKS_FL|FS_NOCOW_FL|FS_DAX_FL|FS_INLINE_DATA_FL|FS_PROJINHERIT_FL|FS_CASEFOLD_FL|FS_RESERVED_FL|0xd000000]) = 0'),
    ('fsflag_0', 'ioctl', (3, 0x80086601, 0x10001390), 0, {0x10001390: '00000000'},
     'ioctl(3, FS_IOC_GETFLAGS, [0])          = 0'),
    ('wait4_ret0', 'wait4', (0xffffffffffffffff, 0x10001000, 1), 0, {},
     'wait4(-1, 0x10001000, WNOHANG, NULL)    = 0'),
    ('fcntl_getsig', 'fcntl', (3, 11), 10, {},
     'fcntl(3, F_GETSIG)                      = 10 (SIGUSR1)'),
    ('fcntl_getfd2', 'fcntl', (3, 1), 3, {},
     'fcntl(3, F_GETFD)                       = 0x3 (flags FD_CLOEXEC|0x2)'),
    ('fcntl_getseals0', 'fcntl', (3, 1034), 0, {},
     'fcntl(3, F_GET_SEALS)                   = 0'),
    ('fcntl_getlease2', 'fcntl', (3, 1025), 2, {},
     'fcntl(3, F_GETLEASE)                    = 0x2 (F_UNLCK)'),
]


@pytest.mark.parametrize("label,name,args,ret,regions,expected", REFERENCE,
                         ids=[c[0] for c in REFERENCE])
def test_reference(label, name, args, ret, regions, expected):
    assert fmt_line(name, args, ret, FakeMem(regions)) == expected


# Every syscall with all six arguments 0 (then 1), failing with ENOSYS, nothing readable: the
# number of arguments strace prints and how it prints zero / small values of each kind.
UNIFORM = [
    ('read', 0, 'read(0, NULL, 0)'),
    ('write', 0, 'write(0, NULL, 0)'),
    ('open', 0, 'open(NULL, O_RDONLY)'),
    ('close', 0, 'close(0)'),
    ('stat', 0, 'stat(NULL, NULL)'),
    ('fstat', 0, 'fstat(0, NULL)'),
    ('lstat', 0, 'lstat(NULL, NULL)'),
    ('poll', 0, 'poll(NULL, 0, 0)'),
    ('lseek', 0, 'lseek(0, 0, SEEK_SET)'),
    ('mmap', 0, 'mmap(NULL, 0, PROT_NONE, MAP_FILE, 0, 0)'),
    ('mprotect', 0, 'mprotect(NULL, 0, PROT_NONE)'),
    ('munmap', 0, 'munmap(NULL, 0)'),
    ('brk', 0, 'brk(NULL)'),
    ('rt_sigaction', 0, 'rt_sigaction(0, NULL, NULL, 0)'),
    ('rt_sigprocmask', 0, 'rt_sigprocmask(SIG_BLOCK, NULL, NULL, 0)'),
    ('ioctl', 0, 'ioctl(0, _IOC(_IOC_NONE, 0, 0, 0), 0)'),
    ('pread64', 0, 'pread64(0, NULL, 0, 0)'),
    ('pwrite64', 0, 'pwrite64(0, NULL, 0, 0)'),
    ('readv', 0, 'readv(0, NULL, 0)'),
    ('writev', 0, 'writev(0, NULL, 0)'),
    ('access', 0, 'access(NULL, F_OK)'),
    ('pipe', 0, 'pipe(NULL)'),
    ('select', 0, 'select(0, NULL, NULL, NULL, NULL)'),
    ('sched_yield', 0, 'sched_yield()'),
    ('mremap', 0, 'mremap(NULL, 0, 0, 0)'),
    ('msync', 0, 'msync(NULL, 0, 0)'),
    ('mincore', 0, 'mincore(NULL, 0, NULL)'),
    ('madvise', 0, 'madvise(NULL, 0, MADV_NORMAL)'),
    ('shmget', 0, 'shmget(IPC_PRIVATE, 0, 000)'),
    ('shmat', 0, 'shmat(0, NULL, 0)'),
    ('shmctl', 0, 'shmctl(0, IPC_RMID, NULL)'),
    ('dup', 0, 'dup(0)'),
    ('dup2', 0, 'dup2(0, 0)'),
    ('pause', 0, 'pause()'),
    ('nanosleep', 0, 'nanosleep(NULL, NULL)'),
    ('getitimer', 0, 'getitimer(ITIMER_REAL, NULL)'),
    ('alarm', 0, 'alarm(0)'),
    ('setitimer', 0, 'setitimer(ITIMER_REAL, NULL, NULL)'),
    ('sendfile', 0, 'sendfile(0, 0, NULL, 0)'),
    ('socket', 0, 'socket(AF_UNSPEC, 0, 0)'),
    ('connect', 0, 'connect(0, NULL, 0)'),
    ('accept', 0, 'accept(0, NULL, NULL)'),
    ('sendto', 0, 'sendto(0, NULL, 0, 0, NULL, 0)'),
    ('recvfrom', 0, 'recvfrom(0, NULL, 0, 0, NULL, NULL)'),
    ('sendmsg', 0, 'sendmsg(0, NULL, 0)'),
    ('recvmsg', 0, 'recvmsg(0, NULL, 0)'),
    ('shutdown', 0, 'shutdown(0, SHUT_RD)'),
    ('bind', 0, 'bind(0, NULL, 0)'),
    ('listen', 0, 'listen(0, 0)'),
    ('getsockname', 0, 'getsockname(0, NULL, NULL)'),
    ('getpeername', 0, 'getpeername(0, NULL, NULL)'),
    ('socketpair', 0, 'socketpair(AF_UNSPEC, 0, 0, NULL)'),
    ('setsockopt', 0, 'setsockopt(0, SOL_IP, 0 /* IP_??? */, NULL, 0)'),
    ('getsockopt', 0, 'getsockopt(0, SOL_IP, 0 /* IP_??? */, NULL, NULL)'),
    ('clone', 0, 'clone(child_stack=NULL, flags=0)'),
    ('fork', 0, 'fork()'),
    ('vfork', 0, 'vfork()'),
    ('execve', 0, 'execve(NULL, NULL, NULL)'),
    ('wait4', 0, 'wait4(0, NULL, 0, NULL)'),
    ('kill', 0, 'kill(0, 0)'),
    ('uname', 0, 'uname(NULL)'),
    ('semget', 0, 'semget(IPC_PRIVATE, 0, 000)'),
    ('semop', 0, 'semop(0, NULL, 0)'),
    ('semctl', 0, 'semctl(0, 0, IPC_RMID, NULL)'),
    ('shmdt', 0, 'shmdt(NULL)'),
    ('msgget', 0, 'msgget(IPC_PRIVATE, 000)'),
    ('msgsnd', 0, 'msgsnd(0, NULL, 0, 0)'),
    ('msgrcv', 0, 'msgrcv(0, NULL, 0, 0, 0)'),
    ('msgctl', 0, 'msgctl(0, IPC_RMID, NULL)'),
    ('fcntl', 0, 'fcntl(0, F_DUPFD, 0)'),
    ('flock', 0, 'flock(0, 0)'),
    ('fsync', 0, 'fsync(0)'),
    ('fdatasync', 0, 'fdatasync(0)'),
    ('truncate', 0, 'truncate(NULL, 0)'),
    ('ftruncate', 0, 'ftruncate(0, 0)'),
    ('getdents', 0, 'getdents(0, NULL, 0)'),
    ('getcwd', 0, 'getcwd(NULL, 0)'),
    ('chdir', 0, 'chdir(NULL)'),
    ('fchdir', 0, 'fchdir(0)'),
    ('rename', 0, 'rename(NULL, NULL)'),
    ('mkdir', 0, 'mkdir(NULL, 000)'),
    ('rmdir', 0, 'rmdir(NULL)'),
    ('creat', 0, 'creat(NULL, 000)'),
    ('link', 0, 'link(NULL, NULL)'),
    ('unlink', 0, 'unlink(NULL)'),
    ('symlink', 0, 'symlink(NULL, NULL)'),
    ('readlink', 0, 'readlink(NULL, NULL, 0)'),
    ('chmod', 0, 'chmod(NULL, 000)'),
    ('fchmod', 0, 'fchmod(0, 000)'),
    ('chown', 0, 'chown(NULL, 0, 0)'),
    ('fchown', 0, 'fchown(0, 0, 0)'),
    ('lchown', 0, 'lchown(NULL, 0, 0)'),
    ('gettimeofday', 0, 'gettimeofday(NULL, NULL)'),
    ('getrlimit', 0, 'getrlimit(RLIMIT_CPU, NULL)'),
    ('getrusage', 0, 'getrusage(RUSAGE_SELF, NULL)'),
    ('sysinfo', 0, 'sysinfo(NULL)'),
    ('times', 0, 'times(NULL)'),
    ('ptrace', 0, 'ptrace(PTRACE_TRACEME)'),
    ('syslog', 0, 'syslog(0 /* SYSLOG_ACTION_CLOSE */)'),
    ('setuid', 0, 'setuid(0)'),
    ('setgid', 0, 'setgid(0)'),
    ('setpgid', 0, 'setpgid(0, 0)'),
    ('setsid', 0, 'setsid()'),
    ('setreuid', 0, 'setreuid(0, 0)'),
    ('setregid', 0, 'setregid(0, 0)'),
    ('getgroups', 0, 'getgroups(0, NULL)'),
    ('setgroups', 0, 'setgroups(0, NULL)'),
    ('setresuid', 0, 'setresuid(0, 0, 0)'),
    ('getresuid', 0, 'getresuid(NULL, NULL, NULL)'),
    ('setresgid', 0, 'setresgid(0, 0, 0)'),
    ('getresgid', 0, 'getresgid(NULL, NULL, NULL)'),
    ('getpgid', 0, 'getpgid(0)'),
    ('getsid', 0, 'getsid(0)'),
    ('capget', 0, 'capget(NULL, NULL)'),
    ('capset', 0, 'capset(NULL, NULL)'),
    ('rt_sigpending', 0, 'rt_sigpending(NULL, 0)'),
    ('rt_sigtimedwait', 0, 'rt_sigtimedwait(NULL, NULL, NULL, 0)'),
    ('rt_sigqueueinfo', 0, 'rt_sigqueueinfo(0, 0, NULL)'),
    ('rt_sigsuspend', 0, 'rt_sigsuspend(NULL, 0)'),
    ('sigaltstack', 0, 'sigaltstack(NULL, NULL)'),
    ('utime', 0, 'utime(NULL, NULL)'),
    ('mknod', 0, 'mknod(NULL, 000)'),
    ('uselib', 0, 'uselib(NULL)'),
    ('personality', 0, 'personality(PER_LINUX)'),
    ('ustat', 0, 'ustat(makedev(0, 0), NULL)'),
    ('statfs', 0, 'statfs(NULL, NULL)'),
    ('fstatfs', 0, 'fstatfs(0, NULL)'),
    ('sysfs', 0, 'sysfs(0, 0, 0)'),
    ('getpriority', 0, 'getpriority(PRIO_PROCESS, 0)'),
    ('setpriority', 0, 'setpriority(PRIO_PROCESS, 0, 0)'),
    ('sched_setparam', 0, 'sched_setparam(0, NULL)'),
    ('sched_getparam', 0, 'sched_getparam(0, NULL)'),
    ('sched_setscheduler', 0, 'sched_setscheduler(0, SCHED_OTHER, NULL)'),
    ('sched_getscheduler', 0, 'sched_getscheduler(0)'),
    ('sched_get_priority_max', 0, 'sched_get_priority_max(SCHED_OTHER)'),
    ('sched_get_priority_min', 0, 'sched_get_priority_min(SCHED_OTHER)'),
    ('sched_rr_get_interval', 0, 'sched_rr_get_interval(0, NULL)'),
    ('mlock', 0, 'mlock(NULL, 0)'),
    ('munlock', 0, 'munlock(NULL, 0)'),
    ('mlockall', 0, 'mlockall(0)'),
    ('munlockall', 0, 'munlockall()'),
    ('vhangup', 0, 'vhangup()'),
    ('modify_ldt', 0, 'modify_ldt(0, NULL, 0)'),
    ('pivot_root', 0, 'pivot_root(NULL, NULL)'),
    ('_sysctl', 0, '_sysctl(NULL)'),
    ('prctl', 0, 'prctl(0 /* PR_??? */, 0, 0, 0, 0)'),
    ('arch_prctl', 0, 'arch_prctl(0 /* ARCH_??? */, 0)'),
    ('adjtimex', 0, 'adjtimex(NULL)'),
    ('setrlimit', 0, 'setrlimit(RLIMIT_CPU, NULL)'),
    ('chroot', 0, 'chroot(NULL)'),
    ('sync', 0, 'sync()'),
    ('acct', 0, 'acct(NULL)'),
    ('settimeofday', 0, 'settimeofday(NULL, NULL)'),
    ('mount', 0, 'mount(NULL, NULL, NULL, 0, NULL)'),
    ('umount2', 0, 'umount2(NULL, 0)'),
    ('swapon', 0, 'swapon(NULL, 0)'),
    ('swapoff', 0, 'swapoff(NULL)'),
    ('reboot', 0, 'reboot(0 /* LINUX_REBOOT_MAGIC_??? */, 0 /* LINUX_REBOOT_MAGIC_??? */, LINUX_REBOOT_CMD_CAD_OFF)'),
    ('sethostname', 0, 'sethostname(NULL, 0)'),
    ('setdomainname', 0, 'setdomainname(NULL, 0)'),
    ('iopl', 0, 'iopl(0)'),
    ('ioperm', 0, 'ioperm(0, 0, 0)'),
    ('create_module', 0, 'create_module(0, 0)'),
    ('init_module', 0, 'init_module(NULL, 0, NULL)'),
    ('delete_module', 0, 'delete_module(NULL, 0)'),
    ('get_kernel_syms', 0, 'get_kernel_syms(0)'),
    ('query_module', 0, 'query_module(0, 0, 0, 0, 0)'),
    ('quotactl', 0, 'quotactl(QCMD(0 /* Q_??? */, USRQUOTA), NULL, 0, NULL)'),
    ('nfsservctl', 0, 'nfsservctl(0, 0, 0)'),
    ('getpmsg', 0, 'getpmsg(0, 0, 0, 0, 0)'),
    ('putpmsg', 0, 'putpmsg(0, 0, 0, 0, 0)'),
    ('afs_syscall', 0, 'afs_syscall(0, 0, 0, 0, 0)'),
    ('tuxcall', 0, 'tuxcall(0, 0, 0)'),
    ('security', 0, 'security(0, 0, 0)'),
    ('readahead', 0, 'readahead(0, 0, 0)'),
    ('setxattr', 0, 'setxattr(NULL, NULL, NULL, 0, 0)'),
    ('lsetxattr', 0, 'lsetxattr(NULL, NULL, NULL, 0, 0)'),
    ('fsetxattr', 0, 'fsetxattr(0, NULL, NULL, 0, 0)'),
    ('getxattr', 0, 'getxattr(NULL, NULL, NULL, 0)'),
    ('lgetxattr', 0, 'lgetxattr(NULL, NULL, NULL, 0)'),
    ('fgetxattr', 0, 'fgetxattr(0, NULL, NULL, 0)'),
    ('listxattr', 0, 'listxattr(NULL, NULL, 0)'),
    ('llistxattr', 0, 'llistxattr(NULL, NULL, 0)'),
    ('flistxattr', 0, 'flistxattr(0, NULL, 0)'),
    ('removexattr', 0, 'removexattr(NULL, NULL)'),
    ('lremovexattr', 0, 'lremovexattr(NULL, NULL)'),
    ('fremovexattr', 0, 'fremovexattr(0, NULL)'),
    ('tkill', 0, 'tkill(0, 0)'),
    ('time', 0, 'time(NULL)'),
    ('futex', 0, 'futex(NULL, FUTEX_WAIT, 0, NULL)'),
    ('sched_setaffinity', 0, 'sched_setaffinity(0, 0, NULL)'),
    ('sched_getaffinity', 0, 'sched_getaffinity(0, 0, NULL)'),
    ('set_thread_area', 0, 'set_thread_area(NULL)'),
    ('io_setup', 0, 'io_setup(0, NULL)'),
    ('io_destroy', 0, 'io_destroy(NULL)'),
    ('io_getevents', 0, 'io_getevents(NULL, 0, 0, NULL, NULL)'),
    ('io_submit', 0, 'io_submit(NULL, 0, NULL)'),
    ('io_cancel', 0, 'io_cancel(NULL, NULL, NULL)'),
    ('get_thread_area', 0, 'get_thread_area(NULL)'),
    ('lookup_dcookie', 0, 'lookup_dcookie(0, NULL, 0)'),
    ('epoll_create', 0, 'epoll_create(0)'),
    ('epoll_ctl_old', 0, 'epoll_ctl_old(0, 0, 0, 0)'),
    ('epoll_wait_old', 0, 'epoll_wait_old(0, 0, 0, 0)'),
    ('remap_file_pages', 0, 'remap_file_pages(NULL, 0, PROT_NONE, 0, MAP_FILE)'),
    ('getdents64', 0, 'getdents64(0, NULL, 0)'),
    ('set_tid_address', 0, 'set_tid_address(0)'),
    ('semtimedop', 0, 'semtimedop(0, NULL, 0, NULL)'),
    ('fadvise64', 0, 'fadvise64(0, 0, 0, POSIX_FADV_NORMAL)'),
    ('timer_create', 0, 'timer_create(CLOCK_REALTIME, NULL, NULL)'),
    ('timer_settime', 0, 'timer_settime(0, 0, NULL, NULL)'),
    ('timer_gettime', 0, 'timer_gettime(0, NULL)'),
    ('timer_getoverrun', 0, 'timer_getoverrun(0)'),
    ('timer_delete', 0, 'timer_delete(0)'),
    ('clock_settime', 0, 'clock_settime(CLOCK_REALTIME, NULL)'),
    ('clock_gettime', 0, 'clock_gettime(CLOCK_REALTIME, NULL)'),
    ('clock_getres', 0, 'clock_getres(CLOCK_REALTIME, NULL)'),
    ('clock_nanosleep', 0, 'clock_nanosleep(CLOCK_REALTIME, 0, NULL, NULL)'),
    ('epoll_wait', 0, 'epoll_wait(0, NULL, 0, 0)'),
    ('epoll_ctl', 0, 'epoll_ctl(0, 0 /* EPOLL_CTL_??? */, 0, NULL)'),
    ('tgkill', 0, 'tgkill(0, 0, 0)'),
    ('utimes', 0, 'utimes(NULL, NULL)'),
    ('vserver', 0, 'vserver(0, 0, 0, 0, 0)'),
    ('mbind', 0, 'mbind(NULL, 0, MPOL_DEFAULT, NULL, 0, 0)'),
    ('set_mempolicy', 0, 'set_mempolicy(MPOL_DEFAULT, NULL, 0)'),
    ('get_mempolicy', 0, 'get_mempolicy(NULL, NULL, 0, NULL, 0)'),
    ('mq_open', 0, 'mq_open(NULL, O_RDONLY)'),
    ('mq_unlink', 0, 'mq_unlink(NULL)'),
    ('mq_timedsend', 0, 'mq_timedsend(0, NULL, 0, 0, NULL)'),
    ('mq_timedreceive', 0, 'mq_timedreceive(0, NULL, 0, NULL, NULL)'),
    ('mq_notify', 0, 'mq_notify(0, NULL)'),
    ('mq_getsetattr', 0, 'mq_getsetattr(0, NULL, NULL)'),
    ('kexec_load', 0, 'kexec_load(NULL, 0, NULL, KEXEC_ARCH_DEFAULT)'),
    ('waitid', 0, 'waitid(P_ALL, 0, NULL, 0, NULL)'),
    ('add_key', 0, 'add_key(NULL, NULL, NULL, 0, 0)'),
    ('request_key', 0, 'request_key(NULL, NULL, NULL, 0)'),
    ('keyctl', 0, 'keyctl(KEYCTL_GET_KEYRING_ID, 0, 0)'),
    ('ioprio_set', 0, 'ioprio_set(0 /* IOPRIO_WHO_??? */, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0))'),
    ('ioprio_get', 0, 'ioprio_get(0 /* IOPRIO_WHO_??? */, 0)'),
    ('inotify_init', 0, 'inotify_init()'),
    ('inotify_add_watch', 0, 'inotify_add_watch(0, NULL, 0)'),
    ('inotify_rm_watch', 0, 'inotify_rm_watch(0, 0)'),
    ('migrate_pages', 0, 'migrate_pages(0, 0, NULL, NULL)'),
    ('openat', 0, 'openat(0, NULL, O_RDONLY)'),
    ('mkdirat', 0, 'mkdirat(0, NULL, 000)'),
    ('mknodat', 0, 'mknodat(0, NULL, 000)'),
    ('fchownat', 0, 'fchownat(0, NULL, 0, 0, 0)'),
    ('futimesat', 0, 'futimesat(0, NULL, NULL)'),
    ('newfstatat', 0, 'newfstatat(0, NULL, NULL, 0)'),
    ('unlinkat', 0, 'unlinkat(0, NULL, 0)'),
    ('renameat', 0, 'renameat(0, NULL, 0, NULL)'),
    ('linkat', 0, 'linkat(0, NULL, 0, NULL, 0)'),
    ('symlinkat', 0, 'symlinkat(NULL, 0, NULL)'),
    ('readlinkat', 0, 'readlinkat(0, NULL, NULL, 0)'),
    ('fchmodat', 0, 'fchmodat(0, NULL, 000)'),
    ('faccessat', 0, 'faccessat(0, NULL, F_OK)'),
    ('pselect6', 0, 'pselect6(0, NULL, NULL, NULL, NULL, NULL)'),
    ('ppoll', 0, 'ppoll(NULL, 0, NULL, NULL, 0)'),
    ('unshare', 0, 'unshare(0)'),
    ('set_robust_list', 0, 'set_robust_list(NULL, 0)'),
    ('get_robust_list', 0, 'get_robust_list(0, NULL, NULL)'),
    ('splice', 0, 'splice(0, NULL, 0, NULL, 0, 0)'),
    ('tee', 0, 'tee(0, 0, 0, 0)'),
    ('sync_file_range', 0, 'sync_file_range(0, 0, 0, 0)'),
    ('vmsplice', 0, 'vmsplice(0, NULL, 0, 0)'),
    ('move_pages', 0, 'move_pages(0, 0, NULL, NULL, NULL, 0)'),
    ('utimensat', 0, 'utimensat(0, NULL, NULL, 0)'),
    ('epoll_pwait', 0, 'epoll_pwait(0, NULL, 0, 0, NULL, 0)'),
    ('signalfd', 0, 'signalfd(0, NULL, 0)'),
    ('timerfd_create', 0, 'timerfd_create(CLOCK_REALTIME, 0)'),
    ('eventfd', 0, 'eventfd(0)'),
    ('fallocate', 0, 'fallocate(0, 0, 0, 0)'),
    ('timerfd_settime', 0, 'timerfd_settime(0, 0, NULL, NULL)'),
    ('timerfd_gettime', 0, 'timerfd_gettime(0, NULL)'),
    ('accept4', 0, 'accept4(0, NULL, NULL, 0)'),
    ('signalfd4', 0, 'signalfd4(0, NULL, 0, 0)'),
    ('eventfd2', 0, 'eventfd2(0, 0)'),
    ('epoll_create1', 0, 'epoll_create1(0)'),
    ('dup3', 0, 'dup3(0, 0, 0)'),
    ('pipe2', 0, 'pipe2(NULL, 0)'),
    ('inotify_init1', 0, 'inotify_init1(0)'),
    ('preadv', 0, 'preadv(0, NULL, 0, 0)'),
    ('pwritev', 0, 'pwritev(0, NULL, 0, 0)'),
    ('rt_tgsigqueueinfo', 0, 'rt_tgsigqueueinfo(0, 0, 0, NULL)'),
    ('perf_event_open', 0, 'perf_event_open(NULL, 0, 0, 0, 0)'),
    ('recvmmsg', 0, 'recvmmsg(0, NULL, 0, 0, NULL)'),
    ('fanotify_init', 0, 'fanotify_init(FAN_CLASS_NOTIF, O_RDONLY)'),
    ('fanotify_mark', 0, 'fanotify_mark(0, 0, 0, 0, NULL)'),
    ('prlimit64', 0, 'prlimit64(0, RLIMIT_CPU, NULL, NULL)'),
    ('name_to_handle_at', 0, 'name_to_handle_at(0, NULL, NULL, NULL, 0)'),
    ('open_by_handle_at', 0, 'open_by_handle_at(0, NULL, O_RDONLY)'),
    ('clock_adjtime', 0, 'clock_adjtime(CLOCK_REALTIME, NULL)'),
    ('syncfs', 0, 'syncfs(0)'),
    ('sendmmsg', 0, 'sendmmsg(0, NULL, 0, 0)'),
    ('setns', 0, 'setns(0, 0)'),
    ('getcpu', 0, 'getcpu(NULL, NULL, NULL)'),
    ('process_vm_readv', 0, 'process_vm_readv(0, NULL, 0, NULL, 0, 0)'),
    ('process_vm_writev', 0, 'process_vm_writev(0, NULL, 0, NULL, 0, 0)'),
    ('kcmp', 0, 'kcmp(0, 0, KCMP_FILE, 0, 0)'),
    ('finit_module', 0, 'finit_module(0, NULL, 0)'),
    ('sched_setattr', 0, 'sched_setattr(0, NULL, 0)'),
    ('sched_getattr', 0, 'sched_getattr(0, NULL, 0, 0)'),
    ('renameat2', 0, 'renameat2(0, NULL, 0, NULL, 0)'),
    ('seccomp', 0, 'seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL)'),
    ('getrandom', 0, 'getrandom(NULL, 0, 0)'),
    ('memfd_create', 0, 'memfd_create(NULL, 0)'),
    ('kexec_file_load', 0, 'kexec_file_load(0, 0, 0, NULL, 0)'),
    ('bpf', 0, 'bpf(BPF_MAP_CREATE, NULL, 0)'),
    ('execveat', 0, 'execveat(0, NULL, NULL, NULL, 0)'),
    ('userfaultfd', 0, 'userfaultfd(0)'),
    ('membarrier', 0, 'membarrier(MEMBARRIER_CMD_QUERY, 0)'),
    ('mlock2', 0, 'mlock2(NULL, 0, 0)'),
    ('copy_file_range', 0, 'copy_file_range(0, NULL, 0, NULL, 0, 0)'),
    ('preadv2', 0, 'preadv2(0, NULL, 0, 0, 0)'),
    ('pwritev2', 0, 'pwritev2(0, NULL, 0, 0, 0)'),
    ('pkey_mprotect', 0, 'pkey_mprotect(NULL, 0, PROT_NONE, 0)'),
    ('pkey_alloc', 0, 'pkey_alloc(0, 0)'),
    ('pkey_free', 0, 'pkey_free(0)'),
    ('statx', 0, 'statx(0, NULL, AT_STATX_SYNC_AS_STAT, 0, NULL)'),
    ('io_pgetevents', 0, 'io_pgetevents(NULL, 0, 0, NULL, NULL, NULL)'),
    ('rseq', 0, 'rseq(0, 0, 0, 0)'),
    ('pidfd_send_signal', 0, 'pidfd_send_signal(0, 0, NULL, 0)'),
    ('io_uring_setup', 0, 'io_uring_setup(0, NULL)'),
    ('io_uring_enter', 0, 'io_uring_enter(0, 0, 0, 0, NULL, 0)'),
    ('io_uring_register', 0, 'io_uring_register(0, IORING_REGISTER_BUFFERS, NULL, 0)'),
    ('open_tree', 0, 'open_tree(0, NULL, 0)'),
    ('move_mount', 0, 'move_mount(0, NULL, 0, NULL, 0)'),
    ('fsopen', 0, 'fsopen(NULL, 0)'),
    ('fsconfig', 0, 'fsconfig(0, FSCONFIG_SET_FLAG, NULL, NULL, 0)'),
    ('fsmount', 0, 'fsmount(0, 0, 0)'),
    ('fspick', 0, 'fspick(0, NULL, 0)'),
    ('pidfd_open', 0, 'pidfd_open(0, 0)'),
    ('clone3', 0, 'clone3(NULL, 0)'),
    ('close_range', 0, 'close_range(0, 0, 0)'),
    ('openat2', 0, 'openat2(0, NULL, NULL, 0)'),
    ('pidfd_getfd', 0, 'pidfd_getfd(0, 0, 0)'),
    ('faccessat2', 0, 'faccessat2(0, NULL, F_OK, 0)'),
    ('process_madvise', 0, 'process_madvise(0, NULL, 0, MADV_NORMAL, 0)'),
    ('epoll_pwait2', 0, 'epoll_pwait2(0, NULL, 0, NULL, NULL, 0)'),
    ('mount_setattr', 0, 'mount_setattr(0, NULL, 0, NULL, 0)'),
    ('quotactl_fd', 0, 'quotactl_fd(0, QCMD(0 /* Q_??? */, USRQUOTA), 0, NULL)'),
    ('landlock_create_ruleset', 0, 'landlock_create_ruleset(NULL, 0, 0)'),
    ('landlock_add_rule', 0, 'landlock_add_rule(0, 0 /* LANDLOCK_RULE_??? */, NULL, 0)'),
    ('landlock_restrict_self', 0, 'landlock_restrict_self(0, 0)'),
    ('memfd_secret', 0, 'memfd_secret(0)'),
    ('process_mrelease', 0, 'process_mrelease(0, 0)'),
    ('futex_waitv', 0, 'futex_waitv(NULL, 0, 0, NULL, CLOCK_REALTIME)'),
    ('set_mempolicy_home_node', 0, 'set_mempolicy_home_node(NULL, 0, 0, 0)'),
    ('read', 1, 'read(1, 0x1, 1)'),
    ('write', 1, 'write(1, 0x1, 1)'),
    ('open', 1, 'open(0x1, O_WRONLY)'),
    ('close', 1, 'close(1)'),
    ('stat', 1, 'stat(0x1, 0x1)'),
    ('fstat', 1, 'fstat(1, 0x1)'),
    ('lstat', 1, 'lstat(0x1, 0x1)'),
    ('poll', 1, 'poll(0x1, 1, 1)'),
    ('lseek', 1, 'lseek(1, 1, SEEK_CUR)'),
    ('mmap', 1, 'mmap(0x1, 1, PROT_READ, MAP_SHARED, 1, 0x1)'),
    ('mprotect', 1, 'mprotect(0x1, 1, PROT_READ)'),
    ('munmap', 1, 'munmap(0x1, 1)'),
    ('brk', 1, 'brk(0x1)'),
    ('rt_sigaction', 1, 'rt_sigaction(SIGHUP, 0x1, 0x1, 1)'),
    ('rt_sigprocmask', 1, 'rt_sigprocmask(SIG_UNBLOCK, 0x1, 0x1, 1)'),
    ('ioctl', 1, 'ioctl(1, FIBMAP, 0x1)'),
    ('pread64', 1, 'pread64(1, 0x1, 1, 1)'),
    ('pwrite64', 1, 'pwrite64(1, 0x1, 1, 1)'),
    ('readv', 1, 'readv(1, 0x1, 1)'),
    ('writev', 1, 'writev(1, 0x1, 1)'),
    ('access', 1, 'access(0x1, X_OK)'),
    ('pipe', 1, 'pipe(0x1)'),
    ('select', 1, 'select(1, 0x1, 0x1, 0x1, 0x1)'),
    ('sched_yield', 1, 'sched_yield()'),
    ('mremap', 1, 'mremap(0x1, 1, 1, MREMAP_MAYMOVE)'),
    ('msync', 1, 'msync(0x1, 1, MS_ASYNC)'),
    ('mincore', 1, 'mincore(0x1, 1, 0x1)'),
    ('madvise', 1, 'madvise(0x1, 1, MADV_RANDOM)'),
    ('shmget', 1, 'shmget(0x1, 1, 001)'),
    ('shmat', 1, 'shmat(1, 0x1, 0x1 /* SHM_??? */)'),
    ('shmctl', 1, 'shmctl(1, IPC_SET, 0x1)'),
    ('dup', 1, 'dup(1)'),
    ('dup2', 1, 'dup2(1, 1)'),
    ('pause', 1, 'pause()'),
    ('nanosleep', 1, 'nanosleep(0x1, 0x1)'),
    ('getitimer', 1, 'getitimer(ITIMER_VIRTUAL, 0x1)'),
    ('alarm', 1, 'alarm(1)'),
    ('setitimer', 1, 'setitimer(ITIMER_VIRTUAL, 0x1, 0x1)'),
    ('sendfile', 1, 'sendfile(1, 1, 0x1, 1)'),
    ('socket', 1, 'socket(AF_UNIX, SOCK_STREAM, 1)'),
    ('connect', 1, 'connect(1, 0x1, 1)'),
    ('accept', 1, 'accept(1, 0x1, 0x1)'),
    ('sendto', 1, 'sendto(1, 0x1, 1, MSG_OOB, 0x1, 1)'),
    ('recvfrom', 1, 'recvfrom(1, 0x1, 1, MSG_OOB, 0x1, 0x1)'),
    ('sendmsg', 1, 'sendmsg(1, 0x1, MSG_OOB)'),
    ('recvmsg', 1, 'recvmsg(1, 0x1, MSG_OOB)'),
    ('shutdown', 1, 'shutdown(1, SHUT_WR)'),
    ('bind', 1, 'bind(1, 0x1, 1)'),
    ('listen', 1, 'listen(1, 1)'),
    ('getsockname', 1, 'getsockname(1, 0x1, 0x1)'),
    ('getpeername', 1, 'getpeername(1, 0x1, 0x1)'),
    ('socketpair', 1, 'socketpair(AF_UNIX, SOCK_STREAM, 1, 0x1)'),
    ('setsockopt', 1, 'setsockopt(1, SOL_SOCKET, SO_DEBUG, 0x1, 1)'),
    ('getsockopt', 1, 'getsockopt(1, SOL_SOCKET, SO_DEBUG, 0x1, 0x1)'),
    ('clone', 1, 'clone(child_stack=0x1, flags=SIGHUP)'),
    ('fork', 1, 'fork()'),
    ('vfork', 1, 'vfork()'),
    ('execve', 1, 'execve(0x1, 0x1, 0x1)'),
    ('wait4', 1, 'wait4(1, 0x1, WNOHANG, 0x1)'),
    ('kill', 1, 'kill(1, SIGHUP)'),
    ('uname', 1, 'uname(0x1)'),
    ('semget', 1, 'semget(0x1, 1, 001)'),
    ('semop', 1, 'semop(1, 0x1, 1)'),
    ('semctl', 1, 'semctl(1, 1, IPC_SET, 0x1)'),
    ('shmdt', 1, 'shmdt(0x1)'),
    ('msgget', 1, 'msgget(0x1, 001)'),
    ('msgsnd', 1, 'msgsnd(1, 0x1, 1, 0x1 /* MSG_??? */)'),
    ('msgrcv', 1, 'msgrcv(1, 0x1, 1, 1, 0x1 /* MSG_??? */)'),
    ('msgctl', 1, 'msgctl(1, IPC_SET, 0x1)'),
    ('fcntl', 1, 'fcntl(1, F_GETFD)'),
    ('flock', 1, 'flock(1, LOCK_SH)'),
    ('fsync', 1, 'fsync(1)'),
    ('fdatasync', 1, 'fdatasync(1)'),
    ('truncate', 1, 'truncate(0x1, 1)'),
    ('ftruncate', 1, 'ftruncate(1, 1)'),
    ('getdents', 1, 'getdents(1, 0x1, 1)'),
    ('getcwd', 1, 'getcwd(0x1, 1)'),
    ('chdir', 1, 'chdir(0x1)'),
    ('fchdir', 1, 'fchdir(1)'),
    ('rename', 1, 'rename(0x1, 0x1)'),
    ('mkdir', 1, 'mkdir(0x1, 001)'),
    ('rmdir', 1, 'rmdir(0x1)'),
    ('creat', 1, 'creat(0x1, 001)'),
    ('link', 1, 'link(0x1, 0x1)'),
    ('unlink', 1, 'unlink(0x1)'),
    ('symlink', 1, 'symlink(0x1, 0x1)'),
    ('readlink', 1, 'readlink(0x1, 0x1, 1)'),
    ('chmod', 1, 'chmod(0x1, 001)'),
    ('fchmod', 1, 'fchmod(1, 001)'),
    ('chown', 1, 'chown(0x1, 1, 1)'),
    ('fchown', 1, 'fchown(1, 1, 1)'),
    ('lchown', 1, 'lchown(0x1, 1, 1)'),
    ('gettimeofday', 1, 'gettimeofday(0x1, 0x1)'),
    ('getrlimit', 1, 'getrlimit(RLIMIT_FSIZE, 0x1)'),
    ('getrusage', 1, 'getrusage(RUSAGE_THREAD, 0x1)'),
    ('sysinfo', 1, 'sysinfo(0x1)'),
    ('times', 1, 'times(0x1)'),
    ('ptrace', 1, 'ptrace(PTRACE_PEEKTEXT, 1, 0x1, 0x1)'),
    ('syslog', 1, 'syslog(1 /* SYSLOG_ACTION_OPEN */)'),
    ('setuid', 1, 'setuid(1)'),
    ('setgid', 1, 'setgid(1)'),
    ('setpgid', 1, 'setpgid(1, 1)'),
    ('setsid', 1, 'setsid()'),
    ('setreuid', 1, 'setreuid(1, 1)'),
    ('setregid', 1, 'setregid(1, 1)'),
    ('getgroups', 1, 'getgroups(1, 0x1)'),
    ('setgroups', 1, 'setgroups(1, 0x1)'),
    ('setresuid', 1, 'setresuid(1, 1, 1)'),
    ('getresuid', 1, 'getresuid(0x1, 0x1, 0x1)'),
    ('setresgid', 1, 'setresgid(1, 1, 1)'),
    ('getresgid', 1, 'getresgid(0x1, 0x1, 0x1)'),
    ('getpgid', 1, 'getpgid(1)'),
    ('getsid', 1, 'getsid(1)'),
    ('capget', 1, 'capget(0x1, 0x1)'),
    ('capset', 1, 'capset(0x1, 0x1)'),
    ('rt_sigpending', 1, 'rt_sigpending(0x1, 1)'),
    ('rt_sigtimedwait', 1, 'rt_sigtimedwait(0x1, 0x1, 0x1, 1)'),
    ('rt_sigqueueinfo', 1, 'rt_sigqueueinfo(1, SIGHUP, 0x1)'),
    ('rt_sigsuspend', 1, 'rt_sigsuspend(0x1, 1)'),
    ('sigaltstack', 1, 'sigaltstack(0x1, 0x1)'),
    ('utime', 1, 'utime(0x1, 0x1)'),
    ('mknod', 1, 'mknod(0x1, 001)'),
    ('uselib', 1, 'uselib(0x1)'),
    ('personality', 1, 'personality(0x1 /* PER_??? */)'),
    ('ustat', 1, 'ustat(makedev(0, 0x1), 0x1)'),
    ('statfs', 1, 'statfs(0x1, 0x1)'),
    ('fstatfs', 1, 'fstatfs(1, 0x1)'),
    ('sysfs', 1, 'sysfs(0x1, 0x1, 0x1)'),
    ('getpriority', 1, 'getpriority(PRIO_PGRP, 1)'),
    ('setpriority', 1, 'setpriority(PRIO_PGRP, 1, 1)'),
    ('sched_setparam', 1, 'sched_setparam(1, 0x1)'),
    ('sched_getparam', 1, 'sched_getparam(1, 0x1)'),
    ('sched_setscheduler', 1, 'sched_setscheduler(1, SCHED_FIFO, 0x1)'),
    ('sched_getscheduler', 1, 'sched_getscheduler(1)'),
    ('sched_get_priority_max', 1, 'sched_get_priority_max(SCHED_FIFO)'),
    ('sched_get_priority_min', 1, 'sched_get_priority_min(SCHED_FIFO)'),
    ('sched_rr_get_interval', 1, 'sched_rr_get_interval(1, 0x1)'),
    ('mlock', 1, 'mlock(0x1, 1)'),
    ('munlock', 1, 'munlock(0x1, 1)'),
    ('mlockall', 1, 'mlockall(MCL_CURRENT)'),
    ('munlockall', 1, 'munlockall()'),
    ('vhangup', 1, 'vhangup()'),
    ('modify_ldt', 1, 'modify_ldt(1, 0x1, 1)'),
    ('pivot_root', 1, 'pivot_root(0x1, 0x1)'),
    ('_sysctl', 1, '_sysctl(0x1)'),
    ('prctl', 1, 'prctl(PR_SET_PDEATHSIG, SIGHUP)'),
    ('arch_prctl', 1, 'arch_prctl(0x1 /* ARCH_??? */, 0x1)'),
    ('adjtimex', 1, 'adjtimex(0x1)'),
    ('setrlimit', 1, 'setrlimit(RLIMIT_FSIZE, 0x1)'),
    ('chroot', 1, 'chroot(0x1)'),
    ('sync', 1, 'sync()'),
    ('acct', 1, 'acct(0x1)'),
    ('settimeofday', 1, 'settimeofday(0x1, 0x1)'),
    ('mount', 1, 'mount(0x1, 0x1, 0x1, MS_RDONLY, 0x1)'),
    ('umount2', 1, 'umount2(0x1, MNT_FORCE)'),
    ('swapon', 1, 'swapon(0x1, 1)'),
    ('swapoff', 1, 'swapoff(0x1)'),
    ('reboot', 1, 'reboot(0x1 /* LINUX_REBOOT_MAGIC_??? */, 0x1 /* LINUX_REBOOT_MAGIC_??? */, 0x1 /* LINUX_REBOOT_CMD_??? */)'),
    ('sethostname', 1, 'sethostname(0x1, 1)'),
    ('setdomainname', 1, 'setdomainname(0x1, 1)'),
    ('iopl', 1, 'iopl(1)'),
    ('ioperm', 1, 'ioperm(0x1, 0x1, 1)'),
    ('create_module', 1, 'create_module(0x1, 0x1)'),
    ('init_module', 1, 'init_module(0x1, 1, 0x1)'),
    ('delete_module', 1, 'delete_module(0x1, 0x1 /* O_??? */)'),
    ('get_kernel_syms', 1, 'get_kernel_syms(0x1)'),
    ('query_module', 1, 'query_module(0x1, 0x1, 0x1, 0x1, 0x1)'),
    ('quotactl', 1, 'quotactl(QCMD(0 /* Q_??? */, GRPQUOTA), 0x1, 1, 0x1)'),
    ('nfsservctl', 1, 'nfsservctl(0x1, 0x1, 0x1)'),
    ('getpmsg', 1, 'getpmsg(0x1, 0x1, 0x1, 0x1, 0x1)'),
    ('putpmsg', 1, 'putpmsg(0x1, 0x1, 0x1, 0x1, 0x1)'),
    ('afs_syscall', 1, 'afs_syscall(0x1, 0x1, 0x1, 0x1, 0x1)'),
    ('tuxcall', 1, 'tuxcall(0x1, 0x1, 0x1)'),
    ('security', 1, 'security(0x1, 0x1, 0x1)'),
    ('readahead', 1, 'readahead(1, 1, 1)'),
    ('setxattr', 1, 'setxattr(0x1, 0x1, 0x1, 1, XATTR_CREATE)'),
    ('lsetxattr', 1, 'lsetxattr(0x1, 0x1, 0x1, 1, XATTR_CREATE)'),
    ('fsetxattr', 1, 'fsetxattr(1, 0x1, 0x1, 1, XATTR_CREATE)'),
    ('getxattr', 1, 'getxattr(0x1, 0x1, 0x1, 1)'),
    ('lgetxattr', 1, 'lgetxattr(0x1, 0x1, 0x1, 1)'),
    ('fgetxattr', 1, 'fgetxattr(1, 0x1, 0x1, 1)'),
    ('listxattr', 1, 'listxattr(0x1, 0x1, 1)'),
    ('llistxattr', 1, 'llistxattr(0x1, 0x1, 1)'),
    ('flistxattr', 1, 'flistxattr(1, 0x1, 1)'),
    ('removexattr', 1, 'removexattr(0x1, 0x1)'),
    ('lremovexattr', 1, 'lremovexattr(0x1, 0x1)'),
    ('fremovexattr', 1, 'fremovexattr(1, 0x1)'),
    ('tkill', 1, 'tkill(1, SIGHUP)'),
    ('time', 1, 'time(0x1)'),
    ('futex', 1, 'futex(0x1, FUTEX_WAKE, 1)'),
    ('sched_setaffinity', 1, 'sched_setaffinity(1, 1, 0x1)'),
    ('sched_getaffinity', 1, 'sched_getaffinity(1, 1, 0x1)'),
    ('set_thread_area', 1, 'set_thread_area(0x1)'),
    ('io_setup', 1, 'io_setup(1, 0x1)'),
    ('io_destroy', 1, 'io_destroy(0x1)'),
    ('io_getevents', 1, 'io_getevents(0x1, 1, 1, 0x1, 0x1)'),
    ('io_submit', 1, 'io_submit(0x1, 1, 0x1)'),
    ('io_cancel', 1, 'io_cancel(0x1, 0x1, 0x1)'),
    ('get_thread_area', 1, 'get_thread_area(0x1)'),
    ('lookup_dcookie', 1, 'lookup_dcookie(1, 0x1, 1)'),
    ('epoll_create', 1, 'epoll_create(1)'),
    ('epoll_ctl_old', 1, 'epoll_ctl_old(0x1, 0x1, 0x1, 0x1)'),
    ('epoll_wait_old', 1, 'epoll_wait_old(0x1, 0x1, 0x1, 0x1)'),
    ('remap_file_pages', 1, 'remap_file_pages(0x1, 1, PROT_READ, 1, MAP_SHARED)'),
    ('getdents64', 1, 'getdents64(1, 0x1, 1)'),
    ('set_tid_address', 1, 'set_tid_address(0x1)'),
    ('semtimedop', 1, 'semtimedop(1, 0x1, 1, 0x1)'),
    ('fadvise64', 1, 'fadvise64(1, 1, 1, POSIX_FADV_RANDOM)'),
    ('timer_create', 1, 'timer_create(CLOCK_MONOTONIC, 0x1, 0x1)'),
    ('timer_settime', 1, 'timer_settime(1, TIMER_ABSTIME, 0x1, 0x1)'),
    ('timer_gettime', 1, 'timer_gettime(1, 0x1)'),
    ('timer_getoverrun', 1, 'timer_getoverrun(1)'),
    ('timer_delete', 1, 'timer_delete(1)'),
    ('clock_settime', 1, 'clock_settime(CLOCK_MONOTONIC, 0x1)'),
    ('clock_gettime', 1, 'clock_gettime(CLOCK_MONOTONIC, 0x1)'),
    ('clock_getres', 1, 'clock_getres(CLOCK_MONOTONIC, 0x1)'),
    ('clock_nanosleep', 1, 'clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, 0x1, 0x1)'),
    ('epoll_wait', 1, 'epoll_wait(1, 0x1, 1, 1)'),
    ('epoll_ctl', 1, 'epoll_ctl(1, EPOLL_CTL_ADD, 1, 0x1)'),
    ('tgkill', 1, 'tgkill(1, 1, SIGHUP)'),
    ('utimes', 1, 'utimes(0x1, 0x1)'),
    ('vserver', 1, 'vserver(0x1, 0x1, 0x1, 0x1, 0x1)'),
    ('mbind', 1, 'mbind(0x1, 1, MPOL_PREFERRED, 0x1, 1, MPOL_MF_STRICT)'),
    ('set_mempolicy', 1, 'set_mempolicy(MPOL_PREFERRED, 0x1, 1)'),
    ('get_mempolicy', 1, 'get_mempolicy(0x1, 0x1, 1, 0x1, MPOL_F_NODE)'),
    ('mq_open', 1, 'mq_open(0x1, O_WRONLY)'),
    ('mq_unlink', 1, 'mq_unlink(0x1)'),
    ('mq_timedsend', 1, 'mq_timedsend(1, 0x1, 1, 1, 0x1)'),
    ('mq_timedreceive', 1, 'mq_timedreceive(1, 0x1, 1, 0x1, 0x1)'),
    ('mq_notify', 1, 'mq_notify(1, 0x1)'),
    ('mq_getsetattr', 1, 'mq_getsetattr(1, 0x1, 0x1)'),
    ('kexec_load', 1, 'kexec_load(0x1, 1, 0x1, KEXEC_ARCH_DEFAULT|KEXEC_ON_CRASH)'),
    ('waitid', 1, 'waitid(P_PID, 1, 0x1, WNOHANG, 0x1)'),
    ('add_key', 1, 'add_key(0x1, 0x1, 0x1, 1, 1)'),
    ('request_key', 1, 'request_key(0x1, 0x1, 0x1, 1)'),
    ('keyctl', 1, 'keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0x1)'),
    ('ioprio_set', 1, 'ioprio_set(IOPRIO_WHO_PROCESS, 1, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 1))'),
    ('ioprio_get', 1, 'ioprio_get(IOPRIO_WHO_PROCESS, 1)'),
    ('inotify_init', 1, 'inotify_init()'),
    ('inotify_add_watch', 1, 'inotify_add_watch(1, 0x1, IN_ACCESS)'),
    ('inotify_rm_watch', 1, 'inotify_rm_watch(1, 1)'),
    ('migrate_pages', 1, 'migrate_pages(1, 1, 0x1, 0x1)'),
    ('openat', 1, 'openat(1, 0x1, O_WRONLY)'),
    ('mkdirat', 1, 'mkdirat(1, 0x1, 001)'),
    ('mknodat', 1, 'mknodat(1, 0x1, 001)'),
    ('fchownat', 1, 'fchownat(1, 0x1, 1, 1, 0x1 /* AT_??? */)'),
    ('futimesat', 1, 'futimesat(1, 0x1, 0x1)'),
    ('newfstatat', 1, 'newfstatat(1, 0x1, 0x1, 0x1 /* AT_??? */)'),
    ('unlinkat', 1, 'unlinkat(1, 0x1, 0x1 /* AT_??? */)'),
    ('renameat', 1, 'renameat(1, 0x1, 1, 0x1)'),
    ('linkat', 1, 'linkat(1, 0x1, 1, 0x1, 0x1 /* AT_??? */)'),
    ('symlinkat', 1, 'symlinkat(0x1, 1, 0x1)'),
    ('readlinkat', 1, 'readlinkat(1, 0x1, 0x1, 1)'),
    ('fchmodat', 1, 'fchmodat(1, 0x1, 001)'),
    ('faccessat', 1, 'faccessat(1, 0x1, X_OK)'),
    ('pselect6', 1, 'pselect6(1, 0x1, 0x1, 0x1, 0x1, 0x1)'),
    ('ppoll', 1, 'ppoll(0x1, 1, 0x1, 0x1, 1)'),
    ('unshare', 1, 'unshare(0x1 /* CLONE_??? */)'),
    ('set_robust_list', 1, 'set_robust_list(0x1, 1)'),
    ('get_robust_list', 1, 'get_robust_list(1, 0x1, 0x1)'),
    ('splice', 1, 'splice(1, 0x1, 1, 0x1, 1, SPLICE_F_MOVE)'),
    ('tee', 1, 'tee(1, 1, 1, SPLICE_F_MOVE)'),
    ('sync_file_range', 1, 'sync_file_range(1, 1, 1, SYNC_FILE_RANGE_WAIT_BEFORE)'),
    ('vmsplice', 1, 'vmsplice(1, 0x1, 1, SPLICE_F_MOVE)'),
    ('move_pages', 1, 'move_pages(1, 1, 0x1, 0x1, 0x1, 0x1 /* MPOL_??? */)'),
    ('utimensat', 1, 'utimensat(1, 0x1, 0x1, 0x1 /* AT_??? */)'),
    ('epoll_pwait', 1, 'epoll_pwait(1, 0x1, 1, 1, 0x1, 1)'),
    ('signalfd', 1, 'signalfd(1, 0x1, 1)'),
    ('timerfd_create', 1, 'timerfd_create(CLOCK_MONOTONIC, TFD_TIMER_ABSTIME)'),
    ('eventfd', 1, 'eventfd(1)'),
    ('fallocate', 1, 'fallocate(1, FALLOC_FL_KEEP_SIZE, 1, 1)'),
    ('timerfd_settime', 1, 'timerfd_settime(1, TFD_TIMER_ABSTIME, 0x1, 0x1)'),
    ('timerfd_gettime', 1, 'timerfd_gettime(1, 0x1)'),
    ('accept4', 1, 'accept4(1, 0x1, 0x1, 0x1 /* SOCK_??? */)'),
    ('signalfd4', 1, 'signalfd4(1, 0x1, 1, 0x1 /* SFD_??? */)'),
    ('eventfd2', 1, 'eventfd2(1, EFD_SEMAPHORE)'),
    ('epoll_create1', 1, 'epoll_create1(0x1 /* EPOLL_??? */)'),
    ('dup3', 1, 'dup3(1, 1, 0x1 /* O_??? */)'),
    ('pipe2', 1, 'pipe2(0x1, 0x1 /* O_??? */)'),
    ('inotify_init1', 1, 'inotify_init1(0x1 /* IN_??? */)'),
    ('preadv', 1, 'preadv(1, 0x1, 1, 1)'),
    ('pwritev', 1, 'pwritev(1, 0x1, 1, 1)'),
    ('rt_tgsigqueueinfo', 1, 'rt_tgsigqueueinfo(1, 1, SIGHUP, 0x1)'),
    ('perf_event_open', 1, 'perf_event_open(0x1, 1, 1, 1, PERF_FLAG_FD_NO_GROUP)'),
    ('recvmmsg', 1, 'recvmmsg(1, 0x1, 1, MSG_OOB, 0x1)'),
    ('fanotify_init', 1, 'fanotify_init(FAN_CLASS_NOTIF|FAN_CLOEXEC, O_WRONLY)'),
    ('fanotify_mark', 1, 'fanotify_mark(1, FAN_MARK_ADD, FAN_ACCESS, 1, 0x1)'),
    ('prlimit64', 1, 'prlimit64(1, RLIMIT_FSIZE, 0x1, 0x1)'),
    ('name_to_handle_at', 1, 'name_to_handle_at(1, 0x1, 0x1, 0x1, 0x1 /* AT_??? */)'),
    ('open_by_handle_at', 1, 'open_by_handle_at(1, 0x1, O_WRONLY)'),
    ('clock_adjtime', 1, 'clock_adjtime(CLOCK_MONOTONIC, 0x1)'),
    ('syncfs', 1, 'syncfs(1)'),
    ('sendmmsg', 1, 'sendmmsg(1, 0x1, 1, MSG_OOB)'),
    ('setns', 1, 'setns(1, 0x1 /* CLONE_NEW??? */)'),
    ('getcpu', 1, 'getcpu(0x1, 0x1, 0x1)'),
    ('process_vm_readv', 1, 'process_vm_readv(1, 0x1, 1, 0x1, 1, 1)'),
    ('process_vm_writev', 1, 'process_vm_writev(1, 0x1, 1, 0x1, 1, 1)'),
    ('kcmp', 1, 'kcmp(1, 1, KCMP_VM)'),
    ('finit_module', 1, 'finit_module(1, 0x1, MODULE_INIT_IGNORE_MODVERSIONS)'),
    ('sched_setattr', 1, 'sched_setattr(1, 0x1, 1)'),
    ('sched_getattr', 1, 'sched_getattr(1, 0x1, 1, 1)'),
    ('renameat2', 1, 'renameat2(1, 0x1, 1, 0x1, RENAME_NOREPLACE)'),
    ('seccomp', 1, 'seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, 0x1)'),
    ('getrandom', 1, 'getrandom(0x1, 1, GRND_NONBLOCK)'),
    ('memfd_create', 1, 'memfd_create(0x1, MFD_CLOEXEC)'),
    ('kexec_file_load', 1, 'kexec_file_load(1, 1, 1, 0x1, KEXEC_FILE_UNLOAD)'),
    ('bpf', 1, 'bpf(BPF_MAP_LOOKUP_ELEM, 0x1, 1)'),
    ('execveat', 1, 'execveat(1, 0x1, 0x1, 0x1, 0x1 /* AT_??? */)'),
    ('userfaultfd', 1, 'userfaultfd(UFFD_USER_MODE_ONLY)'),
    ('membarrier', 1, 'membarrier(MEMBARRIER_CMD_GLOBAL, MEMBARRIER_CMD_FLAG_CPU, 1)'),
    ('mlock2', 1, 'mlock2(0x1, 1, MLOCK_ONFAULT)'),
    ('copy_file_range', 1, 'copy_file_range(1, 0x1, 1, 0x1, 1, 1)'),
    ('preadv2', 1, 'preadv2(1, 0x1, 1, 1, RWF_HIPRI)'),
    ('pwritev2', 1, 'pwritev2(1, 0x1, 1, 1, RWF_HIPRI)'),
    ('pkey_mprotect', 1, 'pkey_mprotect(0x1, 1, PROT_READ, 1)'),
    ('pkey_alloc', 1, 'pkey_alloc(0x1, PKEY_DISABLE_ACCESS)'),
    ('pkey_free', 1, 'pkey_free(1)'),
    ('statx', 1, 'statx(1, 0x1, AT_STATX_SYNC_AS_STAT|0x1, STATX_TYPE, 0x1)'),
    ('io_pgetevents', 1, 'io_pgetevents(0x1, 1, 1, 0x1, 0x1, 0x1)'),
    ('rseq', 1, 'rseq(0x1, 0x1, 0x1, 0x1)'),
    ('pidfd_send_signal', 1, 'pidfd_send_signal(1, SIGHUP, 0x1, 0x1)'),
    ('io_uring_setup', 1, 'io_uring_setup(1, 0x1)'),
    ('io_uring_enter', 1, 'io_uring_enter(1, 1, 1, IORING_ENTER_GETEVENTS, 0x1, 1)'),
    ('io_uring_register', 1, 'io_uring_register(1, IORING_UNREGISTER_BUFFERS, 0x1, 1)'),
    ('open_tree', 1, 'open_tree(1, 0x1, OPEN_TREE_CLONE)'),
    ('move_mount', 1, 'move_mount(1, 0x1, 1, 0x1, MOVE_MOUNT_F_SYMLINKS)'),
    ('fsopen', 1, 'fsopen(0x1, FSOPEN_CLOEXEC)'),
    ('fsconfig', 1, 'fsconfig(1, FSCONFIG_SET_STRING, 0x1, 0x1, 1)'),
    ('fsmount', 1, 'fsmount(1, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY)'),
    ('fspick', 1, 'fspick(1, 0x1, FSPICK_CLOEXEC)'),
    ('pidfd_open', 1, 'pidfd_open(1, 0x1 /* PIDFD_??? */)'),
    ('clone3', 1, 'clone3(0x1, 1)'),
    ('close_range', 1, 'close_range(1, 1, 0x1 /* CLOSE_RANGE_??? */)'),
    ('openat2', 1, 'openat2(1, 0x1, 0x1, 1)'),
    ('pidfd_getfd', 1, 'pidfd_getfd(1, 1, 0x1)'),
    ('faccessat2', 1, 'faccessat2(1, 0x1, X_OK, 0x1 /* AT_??? */)'),
    ('process_madvise', 1, 'process_madvise(1, 0x1, 1, MADV_RANDOM, 0x1)'),
    ('epoll_pwait2', 1, 'epoll_pwait2(1, 0x1, 1, 0x1, 0x1, 1)'),
    ('mount_setattr', 1, 'mount_setattr(1, 0x1, 0x1 /* AT_??? */, 0x1, 1)'),
    ('quotactl_fd', 1, 'quotactl_fd(1, QCMD(0 /* Q_??? */, GRPQUOTA), 1, 0x1)'),
    ('landlock_create_ruleset', 1, 'landlock_create_ruleset(0x1, 1, LANDLOCK_CREATE_RULESET_VERSION)'),
    # (the suite's ABI, Linux 6.19, names flag 1; strace 6.1 printed 0x1)
    ('landlock_add_rule', 1, 'landlock_add_rule(1, LANDLOCK_RULE_PATH_BENEATH, 0x1, LANDLOCK_ADD_RULE_QUIET)'),
    ('landlock_restrict_self', 1, 'landlock_restrict_self(1, 0x1)'),
    ('memfd_secret', 1, 'memfd_secret(0x1)'),
    ('process_mrelease', 1, 'process_mrelease(1, 0x1)'),
    ('futex_waitv', 1, 'futex_waitv(0x1, 1, 0x1, 0x1, CLOCK_MONOTONIC)'),
    ('set_mempolicy_home_node', 1, 'set_mempolicy_home_node(0x1, 1, 1, 0x1)'),
]


@pytest.mark.parametrize("name,value,expected", UNIFORM, ids=[f"{c[0]}-{c[1]}" for c in UNIFORM])
def test_uniform_arguments(name, value, expected):
    got = SyscallFormatter().format(table.BY_NAME[name], [value] * 6, -38, FakeMem())
    assert got == expected + " = -1 ENOSYS (Function not implemented)"


def test_every_syscall_is_covered_by_uniform():
    covered = {c[0] for c in UNIFORM}
    missing = {row.name for row in table.ROWS if row.nr <= 450} - covered
    assert missing <= {"rt_sigreturn", "restart_syscall", "exit", "exit_group"} | strace.NEVER_FAILS


# ---------------------------------------------------------------------------------------------
# real programs: strace -f of a threaded program (unfinished / resumed, pid prefix columns)

def test_unfinished_and_resumed_read():
    f = SyscallFormatter(align=40)
    buf = 0x7fedd47fb000
    st = f.enter(table.BY_NAME["read"], [3, buf, 8, 0, 0, 0], FakeMem())
    assert "21587 " + f.unfinished(st) == "21587 read(3,  <unfinished ...>"
    mem = FakeMem({buf: b"abc"})
    assert "21587 " + f.resumed(st, 3, mem, col=6) == "21587 <... read resumed>\"abc\", 8)       = 3"


def test_unfinished_sigprocmask():
    f = SyscallFormatter(align=40)
    set_ = 0x7ffd00001000
    st = f.enter(table.BY_NAME["rt_sigprocmask"], [2, set_, 0, 8, 0, 0], FakeMem({set_: bytes(8)}))
    assert f.unfinished(st) == "rt_sigprocmask(SIG_SETMASK, [],  <unfinished ...>"
    assert "21586 " + f.resumed(st, 0, FakeMem(), col=6) == \
        "21586 <... rt_sigprocmask resumed>NULL, 8) = 0"


def test_unfinished_clone():
    f = SyscallFormatter(align=40)
    st = f.enter(table.BY_NAME["clone"], [0x1200011, 0, 0, 0x7fedd47fda10, 0, 0], FakeMem())
    assert f.unfinished(st) == \
        "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>"
    assert f.resumed(st, 21588, FakeMem()) == \
        "<... clone resumed>, child_tidptr=0x7fedd47fda10) = 21588"
    assert f.exit(st, 21589, FakeMem()) == ("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|"
                                            "CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fedd47fda10) = 21589")


def test_unfinished_all_entry_arguments():
    f = SyscallFormatter(align=40)
    st = f.enter(table.BY_NAME["rseq"], [0x7fedd47fcfe0, 0x20, 0, 0x53053053, 0, 0], FakeMem())
    assert f.unfinished(st) == "rseq(0x7fedd47fcfe0, 0x20, 0, 0x53053053 <unfinished ...>"
    assert "21587 " + f.resumed(st, 0, FakeMem(), col=6) == \
        "21587 <... rseq resumed>)               = 0"
    st = f.enter(table.BY_NAME["futex"], [0x7fedd47fc990, 0x109, 21587, 0, 0, 0xffffffff], FakeMem())
    assert f.unfinished(st) == ("futex(0x7fedd47fc990, FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, 21587, "
                                "NULL, FUTEX_BITSET_MATCH_ANY <unfinished ...>")
    assert "21586 " + f.resumed(st, 0, FakeMem(), col=6) == \
        "21586 <... futex resumed>)              = 0"


def test_unfinished_exit_group_and_no_return():
    f = SyscallFormatter(align=40)
    st = f.enter(table.BY_NAME["exit_group"], [3, 0, 0, 0, 0, 0], FakeMem())
    assert f.unfinished(st) == "exit_group(3 <unfinished ...>"
    assert "21588 " + f.no_return(st, col=6, resumed=True) == \
        "21588 <... exit_group resumed>)         = ?"
    assert f.no_return(st) == "exit_group(3)                           = ?"
    assert "21587 " + f.no_return(f.enter(table.BY_NAME["exit"], [0] * 6, FakeMem()), col=6) == \
        "21587 exit(0)                           = ?"
    assert SyscallFormatter().no_return(st) == "exit_group(3) = ?"


def test_unfinished_wait4():
    f = SyscallFormatter(align=40)
    status = 0x7ffd2000
    st = f.enter(table.BY_NAME["wait4"], [21588, status, 0, 0, 0, 0], FakeMem())
    assert f.unfinished(st) == "wait4(21588,  <unfinished ...>"
    mem = FakeMem({status: struct.pack("<i", 3 << 8)})
    assert f.resumed(st, 21588, mem) == \
        "<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 21588"
    mem = FakeMem({status: struct.pack("<i", 15)})
    assert f.resumed(st, 21589, mem) == \
        "<... wait4 resumed>[{WIFSIGNALED(s) && WTERMSIG(s) == SIGTERM}], 0, NULL) = 21589"


def test_unfinished_clock_nanosleep():
    f = SyscallFormatter(align=40)
    req = 0x7ffd3000
    mem = FakeMem({req: struct.pack("<qq", 0, 100000000)})
    st = f.enter(table.BY_NAME["clock_nanosleep"], [0, 0, req, 0, 0, 0], mem)
    assert f.unfinished(st) == \
        "clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=100000000},  <unfinished ...>"
    assert "21586 " + f.resumed(st, 0, mem, col=6) == "21586 <... clock_nanosleep resumed>NULL) = 0"


def test_clone3_thread():
    f = SyscallFormatter(align=40)
    ca, tid = 0x7ffd4000, 0x7fedd47fc990
    args = struct.pack("<11Q", 0x3d0f00, 0, tid, tid, 0, 0x7fedd3ffc000, 0x7fff80, 0x7fedd47fc6c0,
                       0, 0, 0)
    st = f.enter(table.BY_NAME["clone3"], [ca, 88, 0, 0, 0, 0], FakeMem({ca: args}))
    head = ("clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
            "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7fedd47fc990, "
            "parent_tid=0x7fedd47fc990, exit_signal=0, stack=0x7fedd3ffc000, stack_size=0x7fff80, "
            "tls=0x7fedd47fc6c0}")
    assert f.unfinished(st) == head + " <unfinished ...>"
    mem = FakeMem({ca: args, tid: struct.pack("<i", 21587)})
    assert f.exit(st, 21587, mem) == head + " => {parent_tid=[21587]}, 88) = 21587"


def test_signal_lines_from_real_trace():
    assert format_signal({"si_signo": 17, "si_code": 1, "si_errno": 0, "si_pid": 21588, "si_uid": 0,
                          "si_status": 3, "si_utime": 0, "si_stime": 0}) == \
        ("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=21588, si_uid=0, si_status=3, "
         "si_utime=0, si_stime=0} ---")
    assert format_signal({"si_signo": 17, "si_code": 2, "si_pid": 21589, "si_uid": 0,
                          "si_status": 15, "si_utime": 0, "si_stime": 0}) == \
        ("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=21589, si_uid=0, "
         "si_status=SIGTERM, si_utime=0, si_stime=0} ---")
    assert format_signal({"si_signo": 15, "si_code": 0, "si_pid": 21589, "si_uid": 0}) == \
        "--- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=21589, si_uid=0} ---"
    assert format_signal({"si_signo": 11, "si_code": 1, "si_addr": 0}) == \
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---"


def test_signal_from_layout_dict_and_bytes():
    from emutrace.kernel.layouts import SIGINFO
    raw = SIGINFO.pack(si_signo=11, si_code=2, si_addr=0x401000)
    assert format_signal(SIGINFO.unpack(raw)) == \
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_ACCERR, si_addr=0x401000} ---"
    assert format_signal(raw) == \
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_ACCERR, si_addr=0x401000} ---"
    raw = SIGINFO.pack(si_signo=6, si_code=-6, si_pid=77, si_uid=1000)
    assert format_signal(SIGINFO.unpack(raw)) == \
        "--- SIGABRT {si_signo=SIGABRT, si_code=SI_TKILL, si_pid=77, si_uid=1000} ---"
    raw = SIGINFO.pack(si_signo=2, si_code=0x80)
    assert format_signal(SIGINFO.unpack(raw)) == "--- SIGINT {si_signo=SIGINT, si_code=SI_KERNEL} ---"


def test_exit_lines():
    assert format_exited(0) == "+++ exited with 0 +++"
    assert format_exited(3) == "+++ exited with 3 +++"
    assert format_killed(15) == "+++ killed by SIGTERM +++"
    assert format_killed(11, core=True) == "+++ killed by SIGSEGV (core dumped) +++"


# ---------------------------------------------------------------------------------------------
# strace -y (fd paths) and -s (string limit), from real traces of cat

def _paths(fd):
    return {3: "/etc/hostname", -100: "/tmp/ref/real", 1: "/dev/null"}.get(fd)


def test_fd_paths():
    f = SyscallFormatter(align=40, fd_paths=True, fd_path=_paths)
    path = 0x7ffd5000
    mem = FakeMem({path: b"/etc/hostname\0"})
    st = f.enter(table.BY_NAME["openat"], [-100 & (2**64 - 1), path, 0, 0, 0, 0], mem)
    assert f.exit(st, 3, mem) == 'openat(AT_FDCWD</tmp/ref/real>, "/etc/hostname", O_RDONLY) = 3</etc/hostname>'
    st = f.enter(table.BY_NAME["close"], [3, 0, 0, 0, 0, 0], mem)
    assert f.exit(st, 0, mem) == "close(3</etc/hostname>)                 = 0"
    buf = 0x7ffd6000
    st = f.enter(table.BY_NAME["read"], [3, buf, 131072, 0, 0, 0], mem)
    assert f.exit(st, 3, FakeMem({buf: b"vm\n"})) == 'read(3</etc/hostname>, "vm\\n", 131072)  = 3'
    assert f.exit(f.enter(table.BY_NAME["close"], [1, 0, 0, 0, 0, 0], mem), 0, mem) == \
        "close(1</dev/null>)                     = 0"
    assert f.exit(f.enter(table.BY_NAME["close"], [9, 0, 0, 0, 0, 0], mem), 0, mem) == \
        "close(9)                                = 0"


def test_fd_path_escaping():
    f = SyscallFormatter(align=40, fd_paths=True, fd_path=lambda fd: '/tmp/ref/real/we<i>rd/f"x')
    st_buf, path = 0x7ffd7000, 0x7ffd8000
    stat = struct.pack("<QQQIII", 0x803, 1, 1, 0o100644, 0, 0).ljust(48, b"\0") + \
        struct.pack("<q", 3).ljust(96, b"\0")
    mem = FakeMem({st_buf: stat, path: b"\0"})
    st = f.enter(table.BY_NAME["newfstatat"], [3, path, st_buf, 0x1000, 0, 0], mem)
    assert f.exit(st, 0, mem) == ('newfstatat(3</tmp/ref/real/we\\74i\\76rd/f\\"x>, "", '
                                  '{st_mode=S_IFREG|0644, st_size=3, ...}, AT_EMPTY_PATH) = 0')


def test_string_limit():
    f = SyscallFormatter(string_limit=5, align=40)
    buf = 0x7ffd9000
    st = f.enter(table.BY_NAME["read"], [3, buf, 832, 0, 0, 0], FakeMem())
    mem = FakeMem({buf: b"\x7fELF\x02\x01\x01\x00"})
    assert f.exit(st, 832, mem) == 'read(3, "\\177ELF\\2"..., 832)            = 832'
    st = f.enter(table.BY_NAME["read"], [3, buf, 4096, 0, 0, 0], FakeMem())
    mem = FakeMem({buf: b"# Locale name alias data base.\n"})
    assert f.exit(st, 2996, mem) == 'read(3, "# Loc"..., 4096)               = 2996'
    assert f.exit(st, 0, mem) == 'read(3, "", 4096)                       = 0'


def test_paths_ignore_string_limit():
    f = SyscallFormatter(string_limit=5)
    path = 0x7ffda000
    mem = FakeMem({path: b"/etc/ld.so.cache\0"})
    st = f.enter(table.BY_NAME["openat"], [-100, path, 0x80000, 0, 0, 0], mem)
    assert f.exit(st, 3, mem) == 'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3'


def test_string_limit_on_arrays():
    f = SyscallFormatter(string_limit=2)
    argv, a, b, c = 0x7ffdb000, 0x7ffdc000, 0x7ffdc010, 0x7ffdc020
    mem = FakeMem({argv: struct.pack("<4Q", a, b, c, 0), a: b"ls\0", b: b"-l\0", c: b"/tmp\0",
                   0x7ffdd000: b"/bin/ls\0", 0x7ffde000: struct.pack("<Q", 0)})
    st = f.enter(table.BY_NAME["execve"], [0x7ffdd000, argv, 0x7ffde000, 0, 0, 0], mem)
    assert f.exit(st, 0, mem) == 'execve("/bin/ls", ["ls", "-l", ...], 0x7ffde000 /* 0 vars */) = 0'


# ---------------------------------------------------------------------------------------------
# lines of `strace ls -l` rebuilt from memory

def test_ls_execve():
    argv, envp = 0x7ffcdd244360, 0x7ffcdd244388
    strings = {0x7ffcdd245000 + 0x40 * i: s + b"\0" for i, s in
               enumerate([b"ls", b"-l", b"/etc/hostname", b"/nonexistent"])}
    env = {0x7ffcdd246000 + 0x20 * i: b"X=%d\0" % i for i in range(35)}
    regions = dict(strings)
    regions.update(env)
    regions[argv] = struct.pack("<5Q", *sorted(strings), 0)
    regions[envp] = struct.pack("<36Q", *sorted(env), 0)
    regions[0x55d0] = b"/usr/bin/ls\0"
    assert fmt_line("execve", [0x55d0, argv, envp], 0, FakeMem(regions)) == \
        ('execve("/usr/bin/ls", ["ls", "-l", "/etc/hostname", "/nonexistent"], '
         '0x7ffcdd244388 /* 35 vars */) = 0')


def test_ls_misc_lines():
    mem = FakeMem({0x7ffc3c2cf000: b"/sys/fs/selinux\0",
                   0x7ffc3c2ce000: bytes.fromhex("112853 9a50d1f0fb".replace(" ", "")),
                   0x7ffc3c2cd000: struct.pack("<QQ", 8192 * 1024, 2 ** 64 - 1)})
    assert fmt_line("statfs", [0x7ffc3c2cf000, 0x7ffc3c2cead0], -2, mem) == \
        'statfs("/sys/fs/selinux", 0x7ffc3c2cead0) = -1 ENOENT (No such file or directory)'
    assert fmt_line("getrandom", [0x7ffc3c2ce000, 8, 1], 8, mem) == \
        'getrandom("\\x11\\x28\\x53\\x9a\\x50\\xd1\\xf0\\xfb", 8, GRND_NONBLOCK) = 8'
    assert fmt_line("prlimit64", [0, 3, 0, 0x7ffc3c2cd000], 0, mem) == \
        "prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0"
    assert fmt_line("brk", [0], 0x55c0d6e48000, mem) == \
        "brk(NULL)                               = 0x55c0d6e48000"
    assert fmt_line("mmap", [0, 8192, 3, 0x22, -1 & (2**64 - 1), 0], 0x7ffb40382000, mem) == \
        "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7ffb40382000"
    assert fmt_line("arch_prctl", [0x1002, 0x7ffb400cc800], 0, mem) == \
        "arch_prctl(ARCH_SET_FS, 0x7ffb400cc800) = 0"
    assert fmt_line("set_tid_address", [0x7ffb400ccad0], 21751, mem) == \
        "set_tid_address(0x7ffb400ccad0)         = 21751"
    assert fmt_line("futex", [0x7ffb4033da4c, 0x81, 2147483647], 0, mem) == \
        "futex(0x7ffb4033da4c, FUTEX_WAKE_PRIVATE, 2147483647) = 0"


# ---------------------------------------------------------------------------------------------
# strace -c

SUMMARY = """\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 36.61    0.000547           2       205       205 getxattr
 27.38    0.000409           2       139           statx
 25.57    0.000382           2       139       139 lgetxattr
  3.08    0.000046           1        34           close
  2.07    0.000031           0        47        19 openat
  1.61    0.000024           0        37           newfstatat
  1.27    0.000019           4         4           readlink
  0.87    0.000013           0        16           read
  0.54    0.000008           2         3           write
  0.54    0.000008           1         6           lseek
  0.27    0.000004           2         2           getdents64
  0.20    0.000003           1         2         2 ioctl
  0.00    0.000000           0        30           mmap
  0.00    0.000000           0         5           mprotect
  0.00    0.000000           0         1           munmap
  0.00    0.000000           0         3           brk
  0.00    0.000000           0         2           pread64
  0.00    0.000000           0         2         2 access
  0.00    0.000000           0         4           socket
  0.00    0.000000           0         4         4 connect
  0.00    0.000000           0         1           execve
  0.00    0.000000           0         2         2 statfs
  0.00    0.000000           0         1           arch_prctl
  0.00    0.000000           0         1           futex
  0.00    0.000000           0         1           set_tid_address
  0.00    0.000000           0         1           set_robust_list
  0.00    0.000000           0         1           prlimit64
  0.00    0.000000           0         1           getrandom
  0.00    0.000000           0         1           rseq
------ ----------- ----------- --------- --------- ----------------
100.00    0.001494           2       695       373 total
"""


def _summary_rows(text):
    rows = []
    for line in text.splitlines()[2:-2]:
        p = line.split()
        if len(p) == 6:
            rows.append((p[5], int(p[3]), int(p[4]), float(p[1])))
        else:
            rows.append((p[4], int(p[3]), 0, float(p[1])))
    return rows


def test_summary_matches_strace_c():
    rows = _summary_rows(SUMMARY)
    assert format_summary(rows) == SUMMARY
    assert format_summary(list(reversed(rows))) == SUMMARY     # sorted by time, ties by number


def test_summary_small():
    text = format_summary([("write", 1, 0, 0.000010), ("read", 2, 1, 0.000030)])
    assert text.splitlines() == [
        "% time     seconds  usecs/call     calls    errors syscall",
        "------ ----------- ----------- --------- --------- ----------------",
        " 75.00    0.000030          15         2         1 read",
        " 25.00    0.000010          10         1           write",
        "------ ----------- ----------- --------- --------- ----------------",
        "100.00    0.000040          13         3         1 total",
    ]


# ---------------------------------------------------------------------------------------------
# smaller rules

def test_quote_string():
    assert quote_string(b"hello\n") == '"hello\\n"'
    assert quote_string(b'a"b\\c') == '"a\\"b\\\\c"'
    assert quote_string(b"\x00\x01\x1b\x7f\x80\xff") == '"\\0\\1\\33\\177\\200\\377"'
    assert quote_string(b"\x001\x002\x1b[") == '"\\0001\\0002\\33["'
    assert quote_string(b"\x008") == '"\\08"'                # 8 is not an octal digit
    assert quote_string(b"\t\r\v\f\a\b") == '"\\t\\r\\v\\f\\7\\10"'
    assert quote_string(b"\x00\x0f", force_hex=True) == '"\\x00\\x0f"'
    assert quote_string(b"a<b>", quotes=False, extra_escape="<>") == "a\\74b\\76"
    assert quote_string("héllo".encode()) == '"h\\303\\251llo"'


@pytest.mark.parametrize("ret,kind,expected", [
    (-2, "int", "-1 ENOENT (No such file or directory)"),
    (-512, "int", "? ERESTARTSYS (To be restarted if SA_RESTART is set)"),
    (-513, "int", "? ERESTARTNOINTR (To be restarted)"),
    (-514, "int", "? ERESTARTNOHAND (To be restarted if no handler)"),
    (-516, "int", "? ERESTART_RESTARTBLOCK (Interrupted by signal)"),
    (-133, "int", "-1 EHWPOISON (Memory page has hardware error)"),
    (-300, "int", "-1 (errno 300)"),
    (-4095, "int", "-1 (errno 4095)"),
    (-4096, "int", "-4096"),
    (0x7f0000000000, "ptr", "0x7f0000000000"),
    (0, "hex", "0"),
    (18, "octal", "022"),
    (10, "signo", "10 (SIGUSR1)"),
    (0, "enum:sched_policies", "0 (SCHED_OTHER)"),
    (0x40000000, "enum:sched_policies", "1073741824"),
    (0x40000, "personality", "0x40000 (PER_LINUX|ADDR_NO_RANDOMIZE)"),
    (2 ** 64 - 2, "int", "-1 ENOENT (No such file or directory)"),   # unsigned register value
])
def test_return_values(ret, kind, expected):
    assert strace.format_return(ret, kind) == expected


def test_dates_are_utc_unless_asked():
    f = SyscallFormatter()
    assert f.format(table.BY_NAME["time"], [0] * 6, 1700000000, FakeMem()) == \
        "time(NULL) = 1700000000 (2023-11-14T22:13:20+0000)"
    if hasattr(time, "tzset"):
        f = SyscallFormatter(localtime=True)
        assert f.format(table.BY_NAME["time"], [0] * 6, 1700000000, FakeMem()) == \
            "time(NULL) = 1700000000 (2023-11-14T17:13:20-0500)"


def test_never_fails_calls():
    assert SyscallFormatter().format(table.BY_NAME["getpid"], [0] * 6, -5, FakeMem()) == "getpid() = -5"


def test_rt_sigreturn_reads_the_frame():
    f = SyscallFormatter()
    sp = 0x7ffde0000
    mem = FakeMem({sp: bytes(296) + struct.pack("<Q", (1 << 1) | (1 << 14))})
    st = f.enter(table.BY_NAME["rt_sigreturn"], [0] * 6, mem, sp=sp)
    assert f.exit(st, 0, mem) == "rt_sigreturn({mask=[INT TERM]}) = 0"
    st = f.enter(table.BY_NAME["rt_sigreturn"], [0] * 6, mem)
    assert f.exit(st, 0, mem) == "rt_sigreturn() = 0"


def test_restart_syscall_names_the_previous_call():
    f = SyscallFormatter(align=40)
    req = 0x7ffdf000
    mem = FakeMem({req: struct.pack("<qq", 10, 0)})
    st = f.enter(table.BY_NAME["nanosleep"], [req, req, 0, 0, 0, 0], mem, tid=7)
    assert f.exit(st, -516, mem) == ("nanosleep({tv_sec=10, tv_nsec=0}, {tv_sec=10, tv_nsec=0}) "
                                     "= ? ERESTART_RESTARTBLOCK (Interrupted by signal)")
    st = f.enter(table.BY_NAME["restart_syscall"], [0] * 6, mem, tid=7)
    assert f.exit(st, 0, mem) == \
        "restart_syscall(<... resuming interrupted nanosleep ...>) = 0"


def test_nanosleep_remaining_only_when_interrupted():
    req = 0x7ffdf000
    mem = FakeMem({req: struct.pack("<qq", 1, 500000000)})
    assert fmt_line("nanosleep", [req, req], -4, mem, align=0) == \
        "nanosleep({tv_sec=1, tv_nsec=500000000}, 0x7ffdf000) = -1 EINTR (Interrupted system call)"


def test_poll_revents_have_no_comment():
    fds = 0x7ffe0000
    mem = FakeMem({fds: struct.pack("<iHH", 3, 0x800, 0x800)})
    assert fmt_line("poll", [fds, 1, 0], 1, mem) == \
        "poll([{fd=3, events=0x800 /* POLL??? */}], 1, 0) = 1 ([{fd=3, revents=0x800}])"


def test_alignment():
    f = SyscallFormatter(align=40)
    st = f.enter(table.BY_NAME["close"], [3] + [0] * 5, FakeMem())
    assert f.exit(st, 0, FakeMem()) == "close(3)" + " " * 32 + "= 0"
    assert f.exit(st, 0, FakeMem(), col=6) == "close(3)" + " " * 26 + "= 0"
    assert f.exit(st, 0, FakeMem(), col=40) == "close(3) = 0"
    assert SyscallFormatter().exit(st, 0, FakeMem()) == "close(3) = 0"


def test_unreadable_memory_prints_addresses():
    f = SyscallFormatter()
    assert f.format(table.BY_NAME["openat"], [-100, 0x1234, 0, 0, 0, 0], -14, FakeMem()) == \
        "openat(AT_FDCWD, 0x1234, O_RDONLY) = -1 EFAULT (Bad address)"
    assert f.format(table.BY_NAME["fstat"], [3, 0x1234, 0, 0, 0, 0], 0, FakeMem()) == \
        "fstat(3, 0x1234) = 0"
    assert f.format(table.BY_NAME["write"], [1, 0x1234, 5, 0, 0, 0], 5, FakeMem()) == \
        "write(1, 0x1234, 5) = 5"


def test_newer_syscalls_have_names():
    f = SyscallFormatter()
    assert f.format(table.BY_NAME["mseal"], [0x7f0000000000, 4096, 0, 0, 0, 0], 0, FakeMem()) == \
        "mseal(0x7f0000000000, 4096, 0) = 0"
    path = 0x7ffe1000
    mem = FakeMem({path: b"/tmp/x\0"})
    assert f.format(table.BY_NAME["fchmodat2"], [-100, path, 0o644, 0x100, 0, 0], 0, mem) == \
        'fchmodat2(AT_FDCWD, "/tmp/x", 0644, AT_SYMLINK_NOFOLLOW) = 0'


def test_struct_decoders_exist():
    for name in ("stat", "statx", "statfs", "timespec", "timeval", "sigaction", "utsname",
                 "rlimit", "sysinfo", "siginfo", "rusage", "tms", "itimerval", "itimerspec",
                 "msghdr", "termios", "winsize", "epoll_event", "stack_t", "clone_args", "timex"):
        assert name in strace.STRUCT_DECODERS, name


def test_random_input_never_raises():
    import random
    rnd = random.Random(1)
    data = bytes(rnd.randrange(256) for _ in range(4096))
    mem = FakeMem({0x10000: data})
    for limit in (0, 5, 32):
        f = SyscallFormatter(string_limit=limit, fd_paths=True, fd_path=lambda fd: "/x",
                             align=40)
        for row in table.ROWS:
            for _ in range(3):
                args = [rnd.choice([0, 1, 3, 2 ** 64 - 1, 0x10000 + rnd.randrange(4096),
                                    rnd.getrandbits(64)]) for _ in range(6)]
                ret = rnd.choice([0, 3, 100, -2, -512, 2 ** 40])
                st = f.enter(row, args, mem, tid=1)
                f.unfinished(st)
                line = f.exit(st, ret, mem)
                f.resumed(st, ret, mem)
                assert line.startswith(row.name + "(")


def test_quote_string_plain_text_shortcut_matches_the_byte_loop():
    """Text with nothing to escape skips the tables; the result is strace's rule applied byte by
    byte (the loop below). An extra_escape of NUL changes nothing for any data: NUL is octal
    anyway."""
    import random
    from emutrace.decode.strace import quote_string

    def by_byte(data, extra=""):
        escapes = {ord('"'): '\\"', ord("\\"): "\\\\", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}
        out = []
        for i, c in enumerate(data):
            if chr(c) not in extra and c in escapes:
                out.append(escapes[c])
            elif chr(c) not in extra and 0x20 <= c < 0x7f:
                out.append(chr(c))
            elif i + 1 < len(data) and 0x30 <= data[i + 1] <= 0x37:
                out.append("\\%03o" % c)
            else:
                out.append("\\%o" % c)
        return "".join(out)

    rng = random.Random(7)
    alphabets = [bytes(range(0x20, 0x7f)), b"ab\"\\ \t\n\x7f\x80\xff01234567<>", bytes(range(1, 256))]
    for k in range(3000):
        alphabet = alphabets[k % 3]
        data = bytes(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        for quotes in (True, False):
            assert quote_string(data, quotes=quotes) == quote_string(data, quotes=quotes, extra_escape="\0"), data
        assert quote_string(data, quotes=False) == by_byte(data), data
        assert quote_string(data, quotes=False, extra_escape="<>") == by_byte(data, "<>"), data
    assert quote_string(b'say "hi"\\') == '"say \\"hi\\"\\\\"'
