"""System V IPC and POSIX message queues (strace's ipc_*.c, mq.c): semaphore operations,
messages, the *ctl commands' structs."""
from __future__ import annotations

from emutrace.machine.words import s32, s64
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import hexval, is_error, pointer, read_bytes, read_u64
from emutrace.decode.strace.fields import StructText, decoders, flags, in_sequence


SEMBUF = StructText("sembuf", 6, [("sem_num", 0, "H"), ("sem_op", 2, "h"),
                                  ("sem_flg", 4, "H", flags("semop_flags"))])


def sembuf(f, mem, addr: int, n: int) -> str:
    """semop's array of operations, at most string_limit of them."""
    if addr == 0:
        return "NULL"
    return f.struct_array(mem, addr, n, SEMBUF)


def msgbuf(f, mem, addr: int, n: int) -> str:
    if addr == 0:
        return "NULL"
    mtype = read_u64(mem, addr)
    if mtype is None:
        return hexval(addr)
    return f"{{mtype={s64(mtype)}, mtext={f.buf(mem, addr + 8, n)}}}"


def _c_semctl(f, st, mem):
    a = st.a
    a.now(str(s32(st.args[0])))
    a.now(str(s32(st.args[1])))
    a.now(_x.format_ipc_cmd("semctl_cmd", st.args[2]))
    _ipc_ds(a, mem, st.args[2], st.args[3], "sem")


def _c_ipcctl(f, st, mem):
    """shmctl/msgctl: the id, the command, and the shmid_ds/msqid_ds of IPC_STAT and IPC_SET."""
    kind = st.name[:3]
    a = st.a
    a.now(str(s32(st.args[0])))
    a.now(_x.format_ipc_cmd(f"{kind}ctl_cmd", st.args[1]))
    _ipc_ds(a, mem, st.args[1], st.args[2], kind)


# IPC_STAT and SHM_STAT/SEM_STAT/MSG_STAT (and _ANY) fill the struct; IPC_SET reads it
_IPC_STAT_CMDS = {"shm": (2, 13, 15), "sem": (2, 18, 20), "msg": (2, 11, 13)}
_IPC_SET = 1

# struct ipc64_perm: IPC_SET sets only the owner and the mode
_PERM_SET_FIELDS = [("uid", 4, "I"), ("gid", 8, "I"), ("mode", 20, "H", lambda mode: "0%o" % mode if mode else "0")]
IPC_PERM = StructText("ipc64_perm", 48, _PERM_SET_FIELDS + [("key", 0, "I"), ("cuid", 12, "I"), ("cgid", 16, "I")])
IPC_PERM_SET = StructText("ipc64_perm", 48, _PERM_SET_FIELDS)

# shmid64_ds, semid64_ds, msqid64_ds: what IPC_STAT fills, as strace prints it (not in memory order)
_IPC_DS = {
    "shm": StructText("shmid64_ds", 112, [
        ("shm_perm", 0, IPC_PERM), ("shm_segsz", 48, "Q"), ("shm_cpid", 80, "i"), ("shm_lpid", 84, "i"),
        ("shm_nattch", 88, "Q"), ("shm_atime", 56, "q"), ("shm_dtime", 64, "q"), ("shm_ctime", 72, "q")]),
    "sem": StructText("semid64_ds", 104, [
        ("sem_perm", 0, IPC_PERM), ("sem_otime", 48, "q"), ("sem_ctime", 64, "q"), ("sem_nsems", 80, "Q")]),
    "msg": StructText("msqid64_ds", 120, [
        ("msg_perm", 0, IPC_PERM), ("msg_stime", 48, "q"), ("msg_rtime", 56, "q"), ("msg_ctime", 64, "q"),
        ("msg_qnum", 80, "Q"), ("msg_qbytes", 88, "Q"), ("msg_lspid", 96, "i"), ("msg_lrpid", 100, "i")]),
}
# ... and what IPC_SET reads
_IPC_DS_SET = {
    "shm": StructText("shmid64_ds", 112, [("shm_perm", 0, IPC_PERM_SET)]),
    "sem": StructText("semid64_ds", 104, [("sem_perm", 0, IPC_PERM_SET)]),
    "msg": StructText("msqid64_ds", 120, [("msg_perm", 0, IPC_PERM_SET), ("msg_qbytes", 88, "Q")]),
}
# IPC_INFO and SHM_INFO/SEM_INFO/MSG_INFO fill struct shminfo64 / shm_info / seminfo / msginfo
_IPC_INFO = {
    "shm": {3: StructText("shminfo64", 40, in_sequence(("shmmax", "shmmin", "shmmni", "shmseg", "shmall"), "Q", 8)),
            14: StructText("shm_info", 56, [("used_ids", 0, "i")] + in_sequence(
                ("shm_tot", "shm_rss", "shm_swp", "swap_attempts", "swap_successes"), "Q", 8, start=8))},
    "sem": dict.fromkeys((3, 19), StructText("seminfo", 40, in_sequence(
        ("semmap", "semmni", "semmns", "semmnu", "semmsl", "semopm", "semume", "semusz", "semvmx", "semaem"),
        "i", 4))),
    "msg": dict.fromkeys((3, 12), StructText("msginfo", 30, in_sequence(
        ("msgpool", "msgmap", "msgmax", "msgmnb", "msgmni", "msgssz", "msgtql"), "i", 4) + [("msgseg", 28, "H")])),
}


def _ipc_ds(a, mem, cmd: int, addr: int, kind: str) -> None:
    """The struct argument of semctl/shmctl/msgctl: read at entry for IPC_SET, at exit for the
    commands that fill it, an address for the others (as strace prints them)."""
    cmd &= 0xff
    if cmd == _IPC_SET:
        b = read_bytes(mem, addr, _IPC_DS_SET[kind].size)
        a.now(_IPC_DS_SET[kind].text(b) if b is not None else pointer(addr))
        return
    shape = _IPC_INFO[kind].get(cmd) or (_IPC_DS[kind] if cmd in _IPC_STAT_CMDS[kind] else None)
    if shape is None:
        a.now(pointer(addr))
        return

    def filled(ret, m):
        b = None if is_error(ret) else read_bytes(m, addr, shape.size)
        return shape.text(b) if b is not None else pointer(addr)
    a.later(filled)


def _c_mq_open(f, st, mem):
    name, flags, mode, attr = st.args[:4]
    a = st.a
    a.now(f.path(mem, name))                       # (strace's printpath: no -s cut)
    a.now(_x.format_flags("open_flags", flags & 0xffffffff))
    if flags & 0x40:                               # O_CREAT
        a.now(_x.octal(mode & 0xffff))
        data = read_bytes(mem, attr, MQ_ATTR_OPEN.size) if attr else None
        a.now(MQ_ATTR_OPEN.text(data) if data is not None else pointer(attr))


MQ_ATTR = StructText("mq_attr", 64, [
    ("mq_flags", 0, "q", lambda v: _x.format_flags("open_mode_flags", v & 0x800) if v else "0"),
    ("mq_maxmsg", 8, "q"), ("mq_msgsize", 16, "q"), ("mq_curmsgs", 24, "q")])
# mq_open's: strace does not decode its mq_flags (printmqattr(..., false): the flags in hex)
MQ_ATTR_OPEN = StructText("mq_attr", 64, [
    ("mq_flags", 0, "Q", hexval), ("mq_maxmsg", 8, "q"), ("mq_msgsize", 16, "q"), ("mq_curmsgs", 24, "q")])


CALLS = {"semctl": _c_semctl, "shmctl": _c_ipcctl, "msgctl": _c_ipcctl, "mq_open": _c_mq_open}
STRUCTS = decoders(MQ_ATTR)
AT_ENTRY = {
    "ipc_key": lambda f, st, mem, v, param, n: _x.format_ipc_key(v),
    "sembuf": lambda f, st, mem, v, param, n: sembuf(f, mem, v, n & 0xffffffff),     # (nsops is an unsigned int)
    "msgbuf_in": lambda f, st, mem, v, param, n: msgbuf(f, mem, v, n),
}
AT_EXIT = {"msgbuf_out": lambda f, m, v, param, n, base, ret: msgbuf(f, m, v, n)}
