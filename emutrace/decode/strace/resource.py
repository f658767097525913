"""Resource limits and usage (strace's resource.c, times.c): rlimit, rusage, tms."""
from __future__ import annotations

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import MASK64, clock_ticks
from emutrace.decode.strace.fields import TIMEVAL, StructText, decoders, in_sequence


def _rlim(v: int) -> str:
    """strace's print_rlim64_t: RLIM64_INFINITY, 8*1024, or the number; -X raw the number alone,
    -X verbose the number and the name in a comment."""
    if v == MASK64:
        text = "RLIM64_INFINITY"
    elif v > 1024 and v % 1024 == 0:
        text = f"{v // 1024}*1024"
    else:
        return str(v)
    style = _x.STYLE.xlat
    if style == "abbrev":
        return text
    return str(v) if style == "raw" else f"{v} /* {text} */"


RLIMIT = StructText("rlimit", 16, [("rlim_cur", 0, "Q", _rlim), ("rlim_max", 8, "Q", _rlim)])
TMS = StructText("tms", 32, [("tms_utime", 0, "q", clock_ticks), ("tms_stime", 8, "q", clock_ticks),
                             ("tms_cutime", 16, "q", clock_ticks), ("tms_cstime", 24, "q", clock_ticks)])
RUSAGE = StructText("rusage", 144, [("ru_utime", 0, TIMEVAL), ("ru_stime", 16, TIMEVAL)], more=True)
RUSAGE_FULL = StructText("rusage", 144, [("ru_utime", 0, TIMEVAL), ("ru_stime", 16, TIMEVAL)] + in_sequence(
    ("ru_maxrss", "ru_ixrss", "ru_idrss", "ru_isrss", "ru_minflt", "ru_majflt", "ru_nswap", "ru_inblock",
     "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw", "ru_nivcsw"), "Q", 8, 32))   # (PRINT_FIELD_U)


def _d_rusage(f, b, mem):
    """The times alone, then '...'; every field under -v (strace's printrusage)."""
    return (RUSAGE_FULL if f.verbose else RUSAGE).text(b)


STRUCTS = {**decoders(RLIMIT, TMS), "rusage": (144, _d_rusage)}
