"""Linux x86-64: futex operations and the robust-list bits (include/uapi/linux/futex.h).

Each constant is declared once, here, with its Linux value (never the host's): the kernel, the
decoders (decode/xlat.py names its sets by these names) and the report import it from here.
"""

FUTEX_WAIT = 0
FUTEX_WAKE = 1
FUTEX_FD = 2
FUTEX_REQUEUE = 3
FUTEX_CMP_REQUEUE = 4
FUTEX_WAKE_OP = 5
FUTEX_PRIVATE_FLAG = 128
FUTEX_CLOCK_REALTIME = 256
FUTEX_TID_MASK = 0x3FFFFFFF
FUTEX_OWNER_DIED = 0x40000000
FUTEX_WAITERS = 0x80000000
