"""Unit tests of the Linux ABI written in code, the CPU model and the World."""
import errno as host_errno

from emutrace.machine.cpu import cpuid
from emutrace.kernel.world import World
from emutrace.kernel import errno as E
from emutrace.kernel.layouts import KSIGACTION, RT_SIGFRAME_SIZE, SIGINFO, STAT, STATX, UCONTEXT, UTSNAME


def test_errno_values_are_linux_and_host_errors_map_by_name():
    assert (E.ENOENT, E.EACCES, E.EAGAIN, E.ENOSYS, E.ENOTSUP, E.ENODATA, E.ELOOP) == (2, 13, 11, 38, 95, 61, 40)
    assert E.MESSAGE[E.ENOENT] == "No such file or directory"
    assert E.from_host(OSError(host_errno.ENOENT, "x")) == 2
    assert E.from_host(OSError(host_errno.ELOOP, "x")) == 40
    assert E.from_host(OSError(99999, "x")) == E.EIO


def test_struct_layouts_match_the_kernel():
    assert STAT.size == 144 and STAT.offset("st_mode") == 24 and STAT.offset("st_mtime") == 88
    assert STATX.size == 256 and STATX.offset("stx_mode") == 28 and STATX.offset("stx_mtime_sec") == 112
    assert KSIGACTION.size == 32 and UTSNAME.size == 390 and SIGINFO.size == 128
    assert UCONTEXT.offset("rip") == 168 and UCONTEXT.offset("uc_sigmask") == 296
    assert RT_SIGFRAME_SIZE == 440
    packed = STAT.pack(st_size=5, st_mode=0o100644)
    assert STAT.unpack(packed)["st_size"] == 5


def test_cpuid_is_fixed_and_advertises_no_avx():
    vendor = cpuid(0, 0)
    assert vendor[1:] == (0x756E6547, 0x6C65746E, 0x49656E69)           # GenuineIntel
    ecx = cpuid(1, 0)[2]
    assert not ecx & (1 << 28) and not ecx & (1 << 27) and not ecx & (1 << 1)   # AVX, OSXSAVE, PCLMUL
    assert ecx & (1 << 20) and ecx & (1 << 23)                            # SSE4.2, POPCNT
    assert cpuid(7, 0)[1] & (1 << 5) == 0                                 # no AVX2
    assert cpuid(4, 0)[0] & 0x1F == 1 and cpuid(4, 4)[0] & 0x1F == 0      # cache leaves end


def test_world_clock_and_random():
    w = World(seed=3)
    t0 = w.realtime_ns()
    w.tick()
    assert w.realtime_ns() - t0 == 1000
    assert w.clock_ns(1) < w.clock_ns(0)
    r1 = w.random_bytes(40)
    assert World(seed=3).random_bytes(40) == r1 != World(seed=4).random_bytes(40)


def test_fpu_starts_as_linux(tmp_path):
    """printf("%Lf") and strtold need the x87 control word Linux sets (0x037F)."""
    from conftest import emutrace
    e = emutrace(["--no-trace", "/usr/bin/python3", "-c", "import decimal; print(decimal.Decimal(1)/decimal.Decimal(7))"])
    assert e.stdout == b"0.1428571428571428571428571429\n"
    e = emutrace(["--no-trace", "/usr/bin/printf", "%.20Lf\\n", "3.14159265358979323846"])
    assert e.stdout == b"3.14159265358979323851\n"


def test_metadata_cache_is_kept_under_its_limit_dropping_the_least_recently_used(tmp_path, monkeypatch):
    import os
    from emutrace.machine import cache
    d = tmp_path / "c"
    monkeypatch.setenv("EMUTRACE_CACHE", str(d))
    for k in range(8):
        assert cache.cached("t", f"k{k}", lambda k=k: bytes(1000) + bytes([k])) == bytes(1000) + bytes([k])
        os.utime(d / f"t-k{k}.pickle", ns=(10**18 + k * 10**9,) * 2)     # written in order
    assert cache.cached("t", "k0", lambda: b"remade") == bytes(1000) + b"\0"   # a hit: k0 used now
    size = sum(p.stat().st_size for p in d.iterdir())
    cache.prune(str(d), limit=size // 2)
    left = sorted(p.name for p in d.iterdir())
    assert "t-k0.pickle" in left and "t-k1.pickle" not in left and "t-k7.pickle" in left
    assert sum(p.stat().st_size for p in d.iterdir()) <= size // 2 * 3 // 4
    monkeypatch.setenv("EMUTRACE_CACHE", "")                                 # off
    assert cache.cache_dir() is None and cache.cached("t", "k7", lambda: b"made") == b"made"
