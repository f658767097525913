"""Clocks, timers and sleeps (strace's time.c): the time structs, nanosleep's remaining time,
time(2)'s date comment."""
from __future__ import annotations

from emutrace.machine.words import s64
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import date_text, hexval, is_error, pointer, read_u64
from emutrace.decode.strace.fields import TIMESPEC, TIMEVAL, StructText, decoders, flags

TIMEZONE = StructText("timezone", 8, [("tz_minuteswest", 0, "i"), ("tz_dsttime", 4, "i")])
ITIMERVAL = StructText("itimerval", 32, [("it_interval", 0, TIMEVAL), ("it_value", 16, TIMEVAL)])
ITIMERSPEC = StructText("itimerspec", 32, [("it_interval", 0, TIMESPEC), ("it_value", 16, TIMESPEC)])
TIMEX = StructText("timex", 208, [
    ("modes", 0, "I", flags("adjtimex_modes")), ("offset", 8, "q"), ("freq", 16, "q"),
    ("maxerror", 24, "q"), ("esterror", 32, "q"), ("status", 40, "I", flags("adjtimex_status")),
    ("constant", 48, "q"), ("precision", 56, "q"), ("tolerance", 64, "q"), ("time", 72, TIMEVAL),
    ("tick", 88, "q"), ("ppsfreq", 96, "q"), ("jitter", 104, "q"), ("shift", 112, "i"),
    ("stabil", 120, "q"), ("jitcnt", 128, "q"), ("calcnt", 136, "q"), ("errcnt", 144, "q"),
    ("stbcnt", 152, "q"), ("tai", 160, "i")])


def _c_sleep(f, st, mem):
    """nanosleep / clock_nanosleep: the remaining time only when interrupted (ERESTART*)."""
    a = st.a
    if st.name == "clock_nanosleep":
        a.now(_x.format_clockid(st.args[0]))
        a.now(_x.format_flags("timer_flags", st.args[1] & 0xffffffff))
        req, rem = st.args[2], st.args[3]
    else:
        req, rem = st.args[0], st.args[1]
    a.now(f.struct("timespec", mem, req))

    def remaining(ret, m):
        absolute = st.name == "clock_nanosleep" and st.args[1] & 1      # TIMER_ABSTIME: rem unused
        if rem and -ret in (512, 513, 514, 516) and not absolute:
            return f.struct("timespec", m, rem)
        return pointer(rem)
    a.later(remaining)


def _c_time(f, st, mem):
    t = st.args[0]

    def arg(ret, m):
        if t == 0 or is_error(ret):
            return pointer(t)
        v = read_u64(m, t)
        if v is None:
            return hexval(t)
        return f"[{s64(v)} /* {date_text(s64(v), local=f.localtime)} */]"
    st.a.later(arg)
    st.aux = lambda ret, m: date_text(ret, local=f.localtime)


CALLS = {"nanosleep": _c_sleep, "clock_nanosleep": _c_sleep, "time": _c_time}
STRUCTS = decoders(TIMESPEC, TIMEVAL, TIMEZONE, ITIMERVAL, ITIMERSPEC, TIMEX)
