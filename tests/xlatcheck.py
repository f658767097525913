"""Shared by test_xlat_sets_files.py and test_xlat_sets_system.py: one flag/enum set against the
lines strace printed for its values (6.1, or 7.2 where issue 39's snapshot added flags)."""
from emutrace.decode import xlat
from emutrace.decode.xlat import SETS

IPC_CMD_SETS = ("shmctl_cmd", "semctl_cmd", "msgctl_cmd")       # (printed with their IPC_64 bit)


def check_set(set_name: str, cases) -> None:
    """cases: [(value, what strace printed)]."""
    x = SETS[set_name]
    for value, expected in cases:
        got = xlat.format_ipc_cmd(set_name, value) if set_name in IPC_CMD_SETS else x.format(value)
        assert got == expected, (set_name, hex(value))
