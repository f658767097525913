"""System V IPC: shared memory segments, semaphore sets and message queues, shared by every
emulated process of the run (one IPC namespace per run, empty at its start).

Ids follow Linux's scheme (slot index + 32768 * the slot's reuse count), so the first object of
each kind is id 0. A segment's memory is a SharedMemory (emutrace/memory.py) that every shmat
maps, in this process or another; it lives while it is attached, after IPC_RMID too (its key
then reads IPC_PRIVATE and its mode SHM_DEST). Attach counts and SEM_UNDO adjustments are
worked out from the processes themselves: a process that ended has its semaphore adjustments
applied the next time anything looks at the set (waiters included), and its attachments no
longer count. Times are the virtual clock's; the owner is the guest's uid. Permissions are
Linux's (ipcperm.py): the mode bits of the caller's class for each use, owner or creator for
IPC_SET and IPC_RMID, root passing both.
"""
from __future__ import annotations

import struct
from typing import Dict, List, Optional

from emutrace.machine.budget import OutOfMemory
from emutrace.machine.pages import page_up, PAGE
from emutrace.machine.shm import SharedMemory

from emutrace.kernel import errno as E
from emutrace.kernel import ipcinfo, ipcperm
from emutrace.kernel.ipcinfo import MSGMAX, SEMAEM, SEMMSL, SEMOPM, SEMVMX, SHMMAX, SHMMIN
from emutrace.kernel.dispatch import s32, s64
from emutrace.kernel.layouts import TIMESPEC
from emutrace.kernel.wait import Block, Wait
from emutrace.linux.ipc import (IPC_CREAT, IPC_EXCL, IPC_INFO, IPC_NOWAIT, IPC_PRIVATE, IPC_RMID, IPC_SET, IPC_STAT, MSG_COPY,
                                MSG_EXCEPT, MSG_INFO, MSG_NOERROR, MSG_STAT, SEM_UNDO, SHM_EXEC, SHM_INFO, SHM_LOCK, SHM_RDONLY,
                                SHM_REMAP, SHM_RND, SHM_STAT, SHM_UNLOCK)

IPC_64 = 0x100
SHM_STAT_ANY = 15
SHM_DEST, SHM_LOCKED = 0o1000, 0o2000
GETPID, GETVAL, GETALL, GETNCNT, GETZCNT, SETVAL, SETALL, SEM_STAT, SEM_INFO, SEM_STAT_ANY = range(11, 21)
MSG_STAT_ANY = 13
INVALID_ID = 0xFFFFFFFF
RLIMIT_MEMLOCK = 8

IPCMNI = 32768                                    # ids: slot + IPCMNI * the slot's reuse count
# (the limits themselves, and the INFO commands' answers: ipcinfo.py)

PERM = struct.Struct("<iIIIIHHHH4xQQ")            # struct ipc64_perm (48 bytes)
SHMID_DS = struct.Struct("<48sQqqqiiQQQ")         # struct shmid64_ds (112)
SEMID_DS = struct.Struct("<48sqQqQQQQ")           # struct semid64_ds (104)
MSQID_DS = struct.Struct("<48sqqqQQQiiQQ")        # struct msqid64_ds (120)
SEMBUF = struct.Struct("<Hhh")                    # struct sembuf


class IpcObject:
    def __init__(self, ns: "Space", key: int, mode: int, proc):
        # every IPC id of the run counts against the kernel's "kobjects" bound (ENOSPC, as Linux's
        # msgmni/semmni/shmmni)
        self.held = proc.kernel.limits.hold(self, "kobjects")
        self.key, self.mode = key, mode & 0o777
        self.uid = self.cuid = proc.kernel.world.uid
        self.gid = self.cgid = proc.kernel.world.gid
        self.ctime = now(proc)
        self.id = -1
        self.removed = False

    def perm(self) -> bytes:
        key = IPC_PRIVATE if self.removed else self.key
        return PERM.pack(key, self.uid, self.gid, self.cuid, self.cgid, self.mode | self.extra_mode(), 0,
                         self.id // IPCMNI, 0, 0, 0)

    def extra_mode(self) -> int:
        return 0

    def set_perm(self, raw: bytes, proc) -> None:
        _, uid, gid, _, _, mode, *_ = PERM.unpack(raw[:PERM.size])
        if INVALID_ID in (uid, gid):
            raise_errno(E.EINVAL)                 # Linux: uid_valid/gid_valid
        self.uid, self.gid, self.mode = uid, gid, mode & 0o777
        self.ctime = now(proc)

    def check(self, proc, want: int) -> None:
        """EACCES unless the caller's class is granted every bit of want."""
        err = ipcperm.denied(proc, self, want)
        if err:
            raise_errno(err)

    def check_owner(self, proc) -> None:
        """EPERM unless the caller owns or created this object."""
        err = ipcperm.not_owner(proc, self)
        if err:
            raise_errno(err)


class Space:
    """The objects of one kind, by id and by key. Slots are handed out cyclically and the
    sequence number grows when they wrap, as Linux's ipc_idr_alloc does: a fresh run's ids are
    0, 1, 2... and a removed id is not reused at once."""

    def __init__(self, limit: int):
        self.limit = limit
        self.slots: Dict[int, IpcObject] = {}
        self.last_idx = -1
        self.seq = 0

    def add(self, obj: IpcObject) -> int:
        if len(self.slots) >= self.limit:
            raise_errno(E.ENOSPC)
        idx = self.last_idx + 1
        while idx in self.slots or idx >= self.limit:
            idx = 0 if idx >= self.limit else idx + 1
        if idx <= self.last_idx:
            self.seq = (self.seq + 1) % (1 << 16)
        self.last_idx = idx
        self.slots[idx] = obj
        obj.id = self.seq * IPCMNI + idx
        return obj.id

    def by_key(self, key: int) -> Optional[IpcObject]:
        for o in self.slots.values():
            if not o.removed and o.key == key:
                return o
        return None

    def get(self, ident: int) -> IpcObject:
        o = self.slots.get(ident % IPCMNI) if ident >= 0 else None
        if o is None or o.id != ident:
            raise_errno(E.EINVAL)
        return o

    def by_index(self, index: int) -> IpcObject:
        o = self.slots.get(index)
        if o is None:
            raise_errno(E.EINVAL)
        return o

    def drop(self, obj: IpcObject) -> None:
        if self.slots.get(obj.id % IPCMNI) is obj:
            del self.slots[obj.id % IPCMNI]

    def live(self):
        return [self.slots[i] for i in sorted(self.slots)]


class IpcError(Exception):
    def __init__(self, errno: int):
        super().__init__(errno)
        self.errno = errno


def raise_errno(errno: int):
    raise IpcError(errno)


def now(proc) -> int:
    return proc.kernel.world.realtime_ns() // 10**9


class Ipc:
    """The run's IPC namespace."""

    def __init__(self, limits: ipcinfo.IpcLimits):
        self.limits = limits
        self.shm = Space(limits.shmmni)
        self.sem = Space(limits.semmni)
        self.msg = Space(limits.msgmni)

    @staticmethod
    def of(kernel) -> "Ipc":
        ns = kernel.sysv_ipc
        if ns is None:
            ns = kernel.sysv_ipc = Ipc(ipcinfo.limits_of(kernel))
        return ns


def _get(space: Space, proc, key: int, flags: int, make, more_checks=None):
    """The xxxget() protocol: IPC_PRIVATE always makes; a key finds or (IPC_CREAT) makes. An
    object found must pass more_checks (its size) and grant the mode bits in flags."""
    key = s32(key)
    if key != IPC_PRIVATE:
        found = space.by_key(key)
        if found is not None:
            if flags & IPC_CREAT and flags & IPC_EXCL:
                raise_errno(E.EEXIST)
            if more_checks is not None:
                more_checks(found)
            found.check(proc, flags & 0o777)
            return found, False
        if not flags & IPC_CREAT:
            raise_errno(E.ENOENT)
    obj = make()
    space.add(obj)
    return obj, True


def ipc_call(fn):
    """Handlers raise IpcError(errno); Linux returns it as -errno."""
    def run(proc, *args):
        try:
            return fn(proc, *args)
        except IpcError as e:
            return -e.errno
    run.__name__ = fn.__name__
    run.__doc__ = fn.__doc__
    return run


def _cmd(cmd: int) -> int:
    return cmd & ~IPC_64


# ---------------------------------------------------------------- shared memory

class Segment(IpcObject):
    def __init__(self, ns, key, mode, proc, size):
        super().__init__(ns, key, mode, proc)
        self.size = size
        self.memory = SharedMemory()
        self.cpid, self.lpid = proc.pid, 0
        self.atime = self.dtime = 0
        self.locked = False

    def attachments(self, proc) -> int:
        n = 0
        for p in proc.kernel.sched.procs:
            if p.exit is None and p.aspace is not None:
                n += sum(1 for v in p.aspace.shared() if v.shm is self.memory and v.shm_off == 0)
        return n

    def extra_mode(self) -> int:
        return (SHM_DEST if self.removed else 0) | (SHM_LOCKED if self.locked else 0)

    def resident_pages(self) -> int:
        """Pages given host memory so far (an attachment gives its range; nothing is swapped)."""
        held = sum(n for _, n, _, _ in self.memory.extents)
        return min(held, page_up(self.size)) // PAGE


def _segment(proc, ident) -> Segment:
    ns = Ipc.of(proc.kernel)
    seg = ns.shm.get(s32(ident))     # (a removed segment still attached can be used: Linux's extension)
    _reap_segment(proc, seg)
    if ns.shm.slots.get(seg.id % IPCMNI) is not seg:
        raise_errno(E.EINVAL)
    return seg


def _reap_segment(proc, seg: Segment) -> None:
    if seg.removed and seg.attachments(proc) == 0:
        Ipc.of(proc.kernel).shm.drop(seg)


@ipc_call
def sys_shmget(proc, key, size, flags, *_):
    ns = Ipc.of(proc.kernel)
    flags = s32(flags)
    for seg in ns.shm.live():
        _reap_segment(proc, seg)
    if size < SHMMIN or size > SHMMAX:
        if s32(key) == IPC_PRIVATE or flags & IPC_CREAT and ns.shm.by_key(s32(key)) is None:
            raise_errno(E.EINVAL)
    def fits(seg):
        if size > seg.size:
            raise_errno(E.EINVAL)
    seg, _ = _get(ns.shm, proc, key, flags, lambda: Segment(ns, s32(key), flags, proc, size), fits)
    return seg.id


@ipc_call
def sys_shmat(proc, ident, addr, flags, *_):
    seg = _segment(proc, ident)
    flags = s32(flags)
    if addr:
        if addr & (PAGE - 1):
            if not flags & SHM_RND:
                raise_errno(E.EINVAL)
            addr &= ~(PAGE - 1)
        if not flags & SHM_REMAP and not proc.aspace.is_free(addr, addr + page_up(seg.size)):
            raise_errno(E.EINVAL)
    elif flags & SHM_REMAP:
        raise_errno(E.EINVAL)
    seg.check(proc, ipcperm.S_IRUGO | (0 if flags & SHM_RDONLY else ipcperm.S_IWUGO) |
              (ipcperm.S_IXUGO if flags & SHM_EXEC else 0))
    prot = 1 | (0 if flags & SHM_RDONLY else 2) | (4 if flags & SHM_EXEC else 0)
    size = page_up(seg.size)
    start = addr or proc.aspace.find_free(size)
    try:
        proc.aspace.map_shared(start, size, prot, seg.memory, 0, f"/SYSV{seg.key & 0xffffffff:08x} (deleted)", 0)
    except OutOfMemory:
        raise_errno(E.ENOMEM)
    seg.atime, seg.lpid = now(proc), proc.pid
    return start


@ipc_call
def sys_shmdt(proc, addr, *_):
    if addr & (PAGE - 1):
        raise_errno(E.EINVAL)
    ns = Ipc.of(proc.kernel)
    vma = next((v for v in proc.aspace.shared() if v.start == addr and v.shm_off == 0), None)
    seg = next((s for s in ns.shm.live() if vma is not None and s.memory is vma.shm), None)
    if seg is None:
        raise_errno(E.EINVAL)
    # the attachment: every piece of this mapping of the segment from addr on
    for v in sorted((v for v in proc.aspace.shared() if v.shm is seg.memory and v.start >= addr
                     and v.start - addr == v.shm_off), key=lambda v: v.start):
        proc.aspace.unmap(v.start, v.end - v.start)
    seg.dtime, seg.lpid = now(proc), proc.pid
    _reap_segment(proc, seg)
    return 0


@ipc_call
def sys_shmctl(proc, ident, cmd, buf, *_):
    ns = Ipc.of(proc.kernel)
    cmd = _cmd(s32(cmd))
    if cmd in (IPC_INFO, SHM_INFO):
        segs = ns.shm.live()
        pages = sum(page_up(s.size) // PAGE for s in segs)
        resident = sum(s.resident_pages() for s in segs)
        proc.aspace.write(buf, ipcinfo.shm_info(ns.limits, cmd, len(segs), pages, resident))
        return max((s.id % IPCMNI for s in segs), default=0)
    if cmd in (SHM_STAT, SHM_STAT_ANY):
        seg = ns.shm.by_index(s32(ident))
    elif cmd in (IPC_STAT, IPC_SET, IPC_RMID, SHM_LOCK, SHM_UNLOCK):
        seg = _segment(proc, ident)
    else:
        raise_errno(E.EINVAL)
    if cmd in (IPC_STAT, SHM_STAT):
        seg.check(proc, ipcperm.S_IRUGO)
    elif cmd in (IPC_SET, IPC_RMID):
        seg.check_owner(proc)
    elif cmd in (SHM_LOCK, SHM_UNLOCK) and not ipcperm.privileged(proc):
        seg.check_owner(proc)                     # without CAP_IPC_LOCK: the owner, within RLIMIT_MEMLOCK
        if cmd == SHM_LOCK and proc.rlimit(RLIMIT_MEMLOCK) == 0:
            raise_errno(E.EPERM)
    if cmd in (IPC_STAT, SHM_STAT, SHM_STAT_ANY):
        proc.aspace.write(buf, SHMID_DS.pack(seg.perm(), seg.size, seg.atime, seg.dtime, seg.ctime,
                                          seg.cpid, seg.lpid, seg.attachments(proc), 0, 0))
        return seg.id if cmd != IPC_STAT else 0
    if cmd == IPC_SET:
        seg.set_perm(proc.aspace.read(buf, SHMID_DS.size), proc)
        return 0
    if cmd in (SHM_LOCK, SHM_UNLOCK):
        seg.locked = cmd == SHM_LOCK
        return 0
    seg.removed = True                            # IPC_RMID: gone when the last attachment goes
    _reap_segment(proc, seg)
    return 0


# ---------------------------------------------------------------- semaphores

class SemSet(IpcObject):
    def __init__(self, ns, key, mode, proc, n):
        super().__init__(ns, key, mode, proc)
        # Linux's newary: past SEMMNS semaphores in all sets, ENOSPC
        if proc.kernel.limits.room("semaphores") < n:
            raise_errno(E.ENOSPC)
        self.semaphores = proc.kernel.limits.hold(self, "semaphores", n)
        self.values = [0] * n
        self.pids = [0] * n
        self.otime = 0
        self.undo: Dict[object, List[int]] = {}     # process → adjustment per semaphore
        self.waiting: List[tuple] = []              # (thread, ops) of semop calls asleep

    def settle(self) -> None:
        """Apply the SEM_UNDO adjustments of processes that have ended (Linux: at their exit)."""
        for p in [p for p in self.undo if p.exit is not None]:
            for i, adj in enumerate(self.undo.pop(p)):
                self.values[i] = min(max(self.values[i] + adj, 0), SEMVMX)

    def try_ops(self, ops, proc) -> Optional[bool]:
        """Do all of ops atomically: True when done, False when one must wait; raises ERANGE/EAGAIN."""
        vals = list(self.values)
        for num, op, flg in ops:
            if op > 0:
                if vals[num] + op > SEMVMX:
                    raise_errno(E.ERANGE)
                vals[num] += op
            elif op == 0:
                if vals[num]:
                    if flg & IPC_NOWAIT:
                        raise_errno(E.EAGAIN)
                    return False
            else:
                if vals[num] + op < 0:
                    if flg & IPC_NOWAIT:
                        raise_errno(E.EAGAIN)
                    return False
                vals[num] += op
        self.values = vals
        for num, op, flg in ops:
            self.pids[num] = proc.pid
            if flg & SEM_UNDO and op:
                adj = self.undo.setdefault(proc, [0] * len(self.values))
                adj[num] -= op
        self.otime = now(proc)
        return True

    def count_waiters(self, num: int, zero: bool) -> int:
        n = 0
        for t, ops in self.waiting:
            if t.wait is None:
                continue
            for snum, op, _ in ops:
                if snum == num and ((op == 0) if zero else (op < 0)):
                    n += 1
                    break
        return n


def _semset(proc, ident) -> SemSet:
    s = Ipc.of(proc.kernel).sem.get(s32(ident))
    s.settle()
    return s


@ipc_call
def sys_semget(proc, key, nsems, flags, *_):
    ns = Ipc.of(proc.kernel)
    nsems, flags = s32(nsems), s32(flags)
    if nsems < 0 or nsems > SEMMSL:
        raise_errno(E.EINVAL)
    made_new = s32(key) == IPC_PRIVATE or (flags & IPC_CREAT and ns.sem.by_key(s32(key)) is None)
    if made_new and nsems == 0:
        raise_errno(E.EINVAL)
    def fits(s):
        if nsems > len(s.values):
            raise_errno(E.EINVAL)
    s, _ = _get(ns.sem, proc, key, flags, lambda: SemSet(ns, s32(key), flags, proc, nsems), fits)
    return s.id


def _semop(proc, ident, sops, nsops, timeout_ns):
    nsops = s32(nsops) if nsops < 1 << 32 else -1
    if nsops <= 0:
        raise_errno(E.EINVAL)
    if nsops > SEMOPM:
        raise_errno(E.E2BIG)
    raw = proc.aspace.read(sops, SEMBUF.size * nsops)
    ops = [SEMBUF.unpack_from(raw, i * SEMBUF.size) for i in range(nsops)]
    s = _semset(proc, ident)
    if any(num >= len(s.values) for num, _, _ in ops):
        raise_errno(E.EFBIG)
    s.check(proc, ipcperm.S_IWUGO if any(op for _, op, _ in ops) else ipcperm.S_IRUGO)
    if s.try_ops(ops, proc):
        return 0
    sched = proc.kernel.sched
    t = proc.thread
    prev = sched.previous_wait(t)
    deadline = None
    if timeout_ns is not None:
        deadline = prev.deadline if prev is not None and prev.deadline is not None else sched.now() + timeout_ns
        if sched.now() >= deadline:
            raise_errno(E.EAGAIN)
    entry = (t, ops)
    s.waiting = [w for w in s.waiting if w[0].wait is not None and w[0] is not t] + [entry]

    def ready():
        if s.removed:
            wait.result = -E.EIDRM
            return True
        s.settle()
        vals = list(s.values)
        for num, op, _ in ops:
            if op == 0 and vals[num] or op < 0 and vals[num] + op < 0:
                return False
            vals[num] += op
        return True
    wait = Wait("semop", f"semop on semaphore set {s.id}", t, deadline=deadline, ready=ready,
                timeout_result=-E.EAGAIN, restart="nohand")
    raise Block(wait)


@ipc_call
def sys_semop(proc, ident, sops, nsops, *_):
    return _semop(proc, ident, sops, nsops, None)


@ipc_call
def sys_semtimedop(proc, ident, sops, nsops, timeout, *_):
    ns = None
    if timeout:
        ts = TIMESPEC.unpack(proc.aspace.read(timeout, 16))
        if ts["tv_sec"] < 0 or not 0 <= ts["tv_nsec"] < 10**9:
            raise_errno(E.EINVAL)
        ns = ts["tv_sec"] * 10**9 + ts["tv_nsec"]
    return _semop(proc, ident, sops, nsops, ns)


@ipc_call
def sys_semctl(proc, ident, num, cmd, arg, *_):
    ns = Ipc.of(proc.kernel)
    cmd, num = _cmd(s32(cmd)), s32(num)
    if cmd in (IPC_INFO, SEM_INFO):
        live = ns.sem.live()
        used = sum(len(s.values) for s in live)
        proc.aspace.write(arg, ipcinfo.sem_info(ns.limits, cmd, len(live), used))
        return max((s.id % IPCMNI for s in live), default=0)
    s = ns.sem.by_index(s32(ident)) if cmd in (SEM_STAT, SEM_STAT_ANY) else _semset(proc, ident)
    s.settle()
    n = len(s.values)
    # Linux's order: semctl_setval checks the number before permission, semctl_main after
    if cmd == SETVAL and not 0 <= num < n:
        raise_errno(E.EINVAL)
    if cmd in (IPC_SET, IPC_RMID):
        s.check_owner(proc)
    elif cmd in _SEM_NEEDS:
        s.check(proc, _SEM_NEEDS[cmd])
    if cmd in (GETVAL, GETPID, GETNCNT, GETZCNT) and not 0 <= num < n:
        raise_errno(E.EINVAL)
    if cmd == IPC_RMID:
        s.removed = True
        s.semaphores.resize(0)
        ns.sem.drop(s)
        return 0
    if cmd in (IPC_STAT, SEM_STAT, SEM_STAT_ANY):
        proc.aspace.write(arg, SEMID_DS.pack(s.perm(), s.otime, 0, s.ctime, 0, n, 0, 0))
        return s.id if cmd != IPC_STAT else 0
    if cmd == IPC_SET:
        s.set_perm(proc.aspace.read(arg, SEMID_DS.size), proc)
        return 0
    if cmd == GETVAL:
        return s.values[num]
    if cmd == GETPID:
        return s.pids[num]
    if cmd in (GETNCNT, GETZCNT):
        return s.count_waiters(num, cmd == GETZCNT)
    if cmd == GETALL:
        proc.aspace.write(arg, struct.pack(f"<{n}H", *s.values))
        return 0
    if cmd == SETVAL:
        v = s32(arg)
        if not 0 <= v <= SEMVMX:
            raise_errno(E.ERANGE)
        s.values[num] = v
        _clear_undo(s, num)
        s.ctime = now(proc)
        return 0
    if cmd == SETALL:
        vals = struct.unpack(f"<{n}H", proc.aspace.read(arg, 2 * n))
        if any(v > SEMVMX for v in vals):
            raise_errno(E.ERANGE)
        s.values = list(vals)
        for i in range(n):
            _clear_undo(s, i)
        s.ctime = now(proc)
        return 0
    raise_errno(E.EINVAL)


# what each semctl command asks of the caller's class (SEM_STAT_ANY: nothing)
_SEM_NEEDS = {IPC_STAT: ipcperm.S_IRUGO, SEM_STAT: ipcperm.S_IRUGO, GETVAL: ipcperm.S_IRUGO,
              GETPID: ipcperm.S_IRUGO, GETNCNT: ipcperm.S_IRUGO, GETZCNT: ipcperm.S_IRUGO,
              GETALL: ipcperm.S_IRUGO, SETVAL: ipcperm.S_IWUGO, SETALL: ipcperm.S_IWUGO}


def _clear_undo(s: SemSet, num: int) -> None:
    for adj in s.undo.values():                   # Linux: SETVAL/SETALL clear every semadj
        adj[num] = 0


# ---------------------------------------------------------------- message queues

class MsgQueue(IpcObject):
    def __init__(self, ns, key, mode, proc):
        super().__init__(ns, key, mode, proc)
        self.messages: List[tuple] = []           # (mtype, text)
        self.qbytes = Ipc.of(proc.kernel).limits.msgmnb
        self.limits = proc.kernel.limits
        self.text = self.limits.hold(self, "buffers", 0)   # the bytes it holds count with pipe and socket buffers
        self.stime = self.rtime = 0
        self.lspid = self.lrpid = 0

    def cbytes(self) -> int:
        return sum(len(t) for _, t in self.messages)

    def has_room(self, size: int) -> bool:
        """Linux's msg_fits_inqueue, and the kernel's bound on buffered bytes."""
        return self.cbytes() + size <= self.qbytes and len(self.messages) < self.qbytes and \
            self.limits.room("buffers") >= size

    def add(self, mtype: int, text: bytes) -> None:
        self.text.resize(self.text.amount + len(text))
        self.messages.append((mtype, text))

    def take(self, i: int) -> None:
        _, text = self.messages.pop(i)
        self.text.resize(self.text.amount - len(text))


def _queue(proc, ident) -> MsgQueue:
    return Ipc.of(proc.kernel).msg.get(s32(ident))


@ipc_call
def sys_msgget(proc, key, flags, *_):
    ns = Ipc.of(proc.kernel)
    q, _ = _get(ns.msg, proc, key, s32(flags), lambda: MsgQueue(ns, s32(key), s32(flags), proc))
    return q.id


def _wait_queue(proc, q: MsgQueue, what: str, ready):
    def woken() -> bool:
        if q.removed:
            wait.result = -E.EIDRM            # the queue went while we slept
            return True
        return ready()
    wait = Wait("msg", f"{what} on message queue {q.id}", proc.thread, ready=woken, restart="sys")
    raise Block(wait)


@ipc_call
def sys_msgsnd(proc, ident, msgp, size, flags, *_):
    size, flags = s64(size), s32(flags)
    if size < 0 or size > MSGMAX:
        raise_errno(E.EINVAL)
    q = _queue(proc, ident)
    mtype = struct.unpack("<q", proc.aspace.read(msgp, 8))[0]
    if mtype < 1:
        raise_errno(E.EINVAL)
    text = proc.aspace.read(msgp + 8, size)
    q.check(proc, ipcperm.S_IWUGO)

    def room() -> bool:
        return q.has_room(size)
    if not room():
        if flags & IPC_NOWAIT:
            raise_errno(E.EAGAIN)
        _wait_queue(proc, q, "msgsnd", room)
    if q.removed:
        raise_errno(E.EIDRM)
    q.add(mtype, text)
    q.stime, q.lspid = now(proc), proc.pid
    return 0


def _pick(q: MsgQueue, mtype: int, flags: int) -> Optional[int]:
    best = None
    for i, (t, _) in enumerate(q.messages):
        if mtype == 0:
            return i
        if mtype > 0 and (t != mtype if flags & MSG_EXCEPT else t == mtype):
            return i
        if mtype < 0 and t <= -mtype and (best is None or t < q.messages[best][0]):
            best = i
    return best


@ipc_call
def sys_msgrcv(proc, ident, msgp, size, mtype, flags, *_):
    size, mtype, flags = s64(size), s64(mtype), s32(flags)
    if size < 0:
        raise_errno(E.EINVAL)
    if flags & MSG_COPY:
        if not flags & IPC_NOWAIT or flags & MSG_EXCEPT:
            raise_errno(E.EINVAL)
    q = _queue(proc, ident)
    q.check(proc, ipcperm.S_IRUGO)
    if flags & MSG_COPY:
        if not 0 <= mtype < len(q.messages):
            raise_errno(E.ENOMSG)
        i = mtype
    else:
        i = _pick(q, mtype, flags)
    if i is None:
        if flags & IPC_NOWAIT:
            raise_errno(E.ENOMSG)
        _wait_queue(proc, q, "msgrcv", lambda: _pick(q, mtype, flags) is not None)
    if q.removed:
        raise_errno(E.EIDRM)
    t, text = q.messages[i]
    if len(text) > size and not flags & MSG_NOERROR:
        raise_errno(E.E2BIG)
    text = text[:size]
    proc.aspace.write(msgp, struct.pack("<q", t) + text)
    if not flags & MSG_COPY:
        q.take(i)
        q.rtime, q.lrpid = now(proc), proc.pid
    return len(text)


@ipc_call
def sys_msgctl(proc, ident, cmd, buf, *_):
    ns = Ipc.of(proc.kernel)
    cmd = _cmd(s32(cmd))
    if cmd in (IPC_INFO, MSG_INFO):
        live = ns.msg.live()
        proc.aspace.write(buf, ipcinfo.msg_info(ns.limits, cmd, len(live), sum(len(q.messages) for q in live),
                                             sum(q.cbytes() for q in live)))
        return max((q.id % IPCMNI for q in live), default=0)
    q = ns.msg.by_index(s32(ident)) if cmd in (MSG_STAT, MSG_STAT_ANY) else _queue(proc, ident)
    if cmd in (IPC_STAT, MSG_STAT):
        q.check(proc, ipcperm.S_IRUGO)
    elif cmd in (IPC_SET, IPC_RMID):
        q.check_owner(proc)
    if cmd == IPC_RMID:
        q.removed = True
        q.messages = []
        q.text.resize(0)
        ns.msg.drop(q)
        return 0
    if cmd in (IPC_STAT, MSG_STAT, MSG_STAT_ANY):
        proc.aspace.write(buf, MSQID_DS.pack(q.perm(), q.stime, q.rtime, q.ctime, q.cbytes(), len(q.messages),
                                          q.qbytes, q.lspid, q.lrpid, 0, 0))
        return q.id if cmd != IPC_STAT else 0
    if cmd == IPC_SET:
        raw = proc.aspace.read(buf, MSQID_DS.size)
        qbytes = MSQID_DS.unpack(raw)[6]
        if qbytes > ns.limits.msgmnb and not ipcperm.privileged(proc):
            raise_errno(E.EPERM)                  # CAP_SYS_RESOURCE
        q.set_perm(raw, proc)
        q.qbytes = qbytes
        return 0
    raise_errno(E.EINVAL)
