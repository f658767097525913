"""Linux x86-64: System V IPC (include/uapi/linux/ipc.h, shm.h, sem.h, msg.h).

Each constant is declared once, here, with its Linux value (never the host's): the kernel, the
decoders (decode/xlat.py names its sets by these names) and the report import it from here.
"""

IPC_PRIVATE = 0
IPC_RMID = 0
IPC_SET = 1
IPC_STAT = 2
IPC_INFO = 3
IPC_CREAT = 0o1000
IPC_EXCL = 0o2000
IPC_NOWAIT = 0o4000
MSG_STAT = 11
MSG_INFO = 12
MSG_NOERROR = 0o10000
MSG_EXCEPT = 0o20000
MSG_COPY = 0o40000
SEM_INFO = 19
SEM_UNDO = 0x1000
SHM_LOCK = 11
SHM_UNLOCK = 12
SHM_STAT = 13
SHM_INFO = 14
SHM_RDONLY = 0o10000
SHM_RND = 0o20000
SHM_REMAP = 0o40000
SHM_EXEC = 0o100000
