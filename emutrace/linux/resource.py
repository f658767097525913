"""Linux x86-64: resource limits and timers (include/uapi/linux/resource.h, time.h).

Each constant is declared once, here, with its Linux value (never the host's): the kernel, the
decoders (decode/xlat.py names its sets by these names) and the report import it from here.
"""

ITIMER_REAL = 0
RLIM_INFINITY = 0xFFFFFFFFFFFFFFFF
RLIMIT_CPU = 0
RLIMIT_FSIZE = 1
RLIMIT_DATA = 2
RLIMIT_STACK = 3
RLIMIT_CORE = 4
RLIMIT_NPROC = 6
RLIMIT_NOFILE = 7
RLIMIT_AS = 9
TIMER_ABSTIME = 1
