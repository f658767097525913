"""Resource limits and usage (strace's resource.c, times.c): rlimit, rusage, tms."""
from __future__ import annotations

from emutrace.decode.strace.common import MASK64, clock_ticks
from emutrace.decode.strace.fields import TIMEVAL, StructText, decoders


def _rlim(v: int) -> str:
    if v == MASK64:
        return "RLIM64_INFINITY"
    if v > 1024 and v % 1024 == 0:
        return f"{v // 1024}*1024"
    return str(v)


RLIMIT = StructText("rlimit", 16, [("rlim_cur", 0, "Q", _rlim), ("rlim_max", 8, "Q", _rlim)])
TMS = StructText("tms", 32, [("tms_utime", 0, "q", clock_ticks), ("tms_stime", 8, "q", clock_ticks),
                             ("tms_cutime", 16, "q", clock_ticks), ("tms_cstime", 24, "q", clock_ticks)])
RUSAGE = StructText("rusage", 144, [("ru_utime", 0, TIMEVAL), ("ru_stime", 16, TIMEVAL)], more=True)
_RUSAGE_LONGS = ("ru_maxrss ru_ixrss ru_idrss ru_isrss ru_minflt ru_majflt ru_nswap ru_inblock "
                 "ru_oublock ru_msgsnd ru_msgrcv ru_nsignals ru_nvcsw ru_nivcsw").split()
RUSAGE_FULL = StructText("rusage", 144, [("ru_utime", 0, TIMEVAL), ("ru_stime", 16, TIMEVAL)]
                         + [(name, 32 + 8 * k, "q") for k, name in enumerate(_RUSAGE_LONGS)])


def _d_rusage(f, b, mem):
    """Both times, then '...' (strace -v: every field)."""
    return (RUSAGE_FULL if f.verbose else RUSAGE).text(b)


STRUCTS = {**decoders(RLIMIT, TMS), "rusage": (RUSAGE.size, _d_rusage)}
