"""Resource limits and usage (strace's resource.c, times.c): rlimit, rusage, tms."""
from __future__ import annotations

from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import MASK64, clock_ticks
from emutrace.decode.strace.fields import TIMEVAL, StructText, decoders


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

STRUCTS = decoders(RLIMIT, TMS, RUSAGE)
