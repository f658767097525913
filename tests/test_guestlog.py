"""Library calls logged by guest code (emutrace.guestlog) against the hooked path.

The guest log is the default; `--hook-returns` is the hooked path it replaces. Both must print
the same trace byte for byte (single-threaded programs: with threads, the extra instructions
of the trampolines move preemption points, so interleavings may differ), the program must
behave as natively (page-edge strings, thread cancellation through a logged call, backtrace,
siglongjmp, C++ exceptions), and the calls must really be logged in guest code.
"""
from __future__ import annotations

import re

import pytest

from conftest import built, emutrace, native, status_of
from emutrace.machine.x86enc import ARG_REGS, Asm, JAE, R10, R11, RAX, RSP

C_VARIANTS = ["pie", "nopie", "znow", "zlazy", "ibt", "fnoplt"]


def _trace(tmp_path, name, args, extra=()):
    out = tmp_path / name
    r = emutrace([*extra, "-o", str(out), *args])
    return r, out.read_text(errors="replace")


def _both(tmp_path, args, extra=()):
    a, ta = _trace(tmp_path, "log.txt", args, extra)
    b, tb = _trace(tmp_path, "hooked.txt", args, ("--hook-returns", *extra))
    assert status_of(a) == status_of(b)
    assert a.stdout == b.stdout
    return ta, tb


# GLOB_DAT slots of functions (a destructor handed to __cxa_atexit or __cxa_throw) point at a
# trampoline in one mode and at a jump stub in the other: the program sees either address as
# that function's
_REDIRECTED = re.compile(r"^(__cxa_atexit|__cxa_throw)\(.*$", re.M)


def _mask_redirected(text):
    return _REDIRECTED.sub(lambda mo: re.sub(r"0x[0-9a-f]+", "F", mo.group(0)), text)


@pytest.mark.parametrize("variant", C_VARIANTS)
@pytest.mark.parametrize("prog", ["strings", "files", "signal", "jmp", "qsort", "protos", "calllog", "cxx"])
def test_same_trace_as_hooked_path(tmp_path, prog, variant):
    if prog == "cxx" and variant not in ("pie", "nopie", "znow", "ibt"):
        pytest.skip("C++ is built in fewer variants")
    exe = built(prog, variant)
    args = [exe, str(tmp_path)] if prog == "files" else [exe]
    ta, tb = _both(tmp_path, args)
    if prog == "cxx":
        ta, tb = _mask_redirected(ta), _mask_redirected(tb)
    assert ta == tb


@pytest.mark.parametrize("variant", C_VARIANTS)
def test_calllog_behaves_as_natively(variant):
    exe = built("calllog", variant)
    n = native([exe])
    e = emutrace(["-o", "/dev/null", exe])
    assert e.stderr == b""
    assert e.stdout == n.stdout
    assert status_of(e) == status_of(n) == 0
    assert b"cleanup ran: sleeper" in n.stdout and b"joined: canceled" in n.stdout


def test_page_edge_string_shown_as_pointer_buffer_as_readable(tmp_path):
    _, t = _trace(tmp_path, "t.txt", [built("calllog")])
    assert re.search(r'^strncmp\(0x[0-9a-f]+, "abc", 3\) += 0$', t, re.M)
    assert re.search(r'^memcmp\("abc", "abd", 3\) += -1$', t, re.M)


def test_options_that_shape_lines_agree(tmp_path):
    exe = built("strings")
    for extra in (["-T", "-tt", "-i", "-n", "2"], ["-c"], ["--format", "jsonl"], ["-S"], ["-s", "4"],
                  ["-e", "strlen+malloc"]):
        ta, tb = _both(tmp_path, [exe], extra)
        assert ta == tb, extra


@pytest.mark.slow
@pytest.mark.parametrize("cmd", [["/usr/bin/sort", "LINES"], ["/bin/ls", "-l", "/usr"],
                                 ["/usr/bin/python3", "-c", "print(sorted('guest log'))"],
                                 ["/bin/bash", "-c", "while read -r l; do :; done < LINES"]])
def test_real_programs_same_trace(tmp_path, cmd):
    lines = tmp_path / "lines.txt"
    lines.write_text("".join(f"{(i * 7919) % 1000:04d} line\n" for i in range(500)))
    args = [str(lines) if a == "LINES" else a for a in cmd]
    if not all(__import__("os").path.exists(a) for a in args if a.startswith("/")):
        pytest.skip("program not installed")
    ta, tb = _both(tmp_path, args)
    # the host's own stdio (each run gets a new pipe from the test) is not the program's doing
    host_stdio = re.compile(r"^(fstat64|fstat|newfstatat)\([0-2],.*$", re.M)
    assert host_stdio.sub("", ta) == host_stdio.sub("", tb)
    assert len(ta.splitlines()) > 50


def guest_log_of(session, m):
    """Engine m's GuestLog: the library-call tracer keeps it, and registered its phases on the
    session's hooks (the machine holds no slot for it)."""
    tracer = session.hooks.listeners("guest_log_flush")[0].__self__
    return tracer.guest_log_of(m)


def _run_in_process(args):
    """Run the command line's tracing in this process; returns the Session and its Result."""
    from emutrace.options import parse
    from emutrace.session import Run
    from emutrace.tracer import build_observers
    cfg = parse(args)
    session = Run(cfg.argv, world=cfg.world, options=cfg.options, program=cfg.program)
    sinks = build_observers(session, cfg)
    session.start()
    result = session.run()
    for s in sinks:
        s.close()
    return session, result


def _fast_sites(run):
    session, _ = run
    return {fs.site.name: fs for fs in session.observers[-1].libcalls.fast_sites[1:]}


def test_calls_are_logged_in_guest_code(tmp_path):
    """The PLT entries are patched, their Python hooks removed, and the trace is unchanged."""
    out = tmp_path / "t.txt"
    session, result = _run_in_process(["-o", str(out), built("callloop"), "300"])
    assert result.status == 0
    proc = session.processes[0]
    gl = guest_log_of(session, proc.machine)
    assert gl is not None and len(gl.patched) >= 4
    m = proc.machine
    for entry in gl.patched:
        assert m.read(entry, 1) == b"\xe9"                          # jmp rel32 to a trampoline
        assert entry not in session.observers[-1].libcalls.entry_hooks(m)
    text = out.read_text()
    assert text.count('strlen("hello, callloop")') == 300
    assert text.count("free(") == 300


def test_output_arguments_are_logged_too(tmp_path):
    """stat's struct and pipe's int[2] are copied by the return trampoline: logged in guest
    code, and shown as the hooked path shows them (test_same_trace_as_hooked_path)."""
    out = tmp_path / "t.txt"
    work = tmp_path / "w"
    work.mkdir()
    for prog, args in (("files", [str(work)]), ("protos", [])):
        fast = _fast_sites(_run_in_process(["-o", str(out), built(prog), *args]))
        for name in (("stat", "fstat", "lstat") if prog == "files" else ("pipe",)):
            assert fast[name].out is not None, name
    assert re.search(r"^pipe\(\[ \d+, \d+ \]\) += 0$", out.read_text(), re.M)


def test_returned_strings_are_logged_too(tmp_path):
    """strchr, strrchr and strstr return C strings: the return trampoline copies them."""
    out = tmp_path / "t.txt"
    fast = _fast_sites(_run_in_process(["-o", str(out), built("strings")]))
    for name in ("strchr", "strrchr", "strstr"):
        assert fast[name].ret_string, name
    text = out.read_text()
    assert re.search(r'^strchr\("the quick brown fox.*", \'o\'\) += "own fox', text, re.M), text
    assert re.search(r'^strstr\(".*", "cat"\) += nil$', text, re.M)


def test_ring_overflow_and_deep_shadow_stack(tmp_path):
    """More records than one ring holds between two system calls, and calls nested deeper than
    the first shadow stack (calllog recurses 200 deep through strlen; callloop makes 40,000
    calls with no system call between them)."""
    ta, tb = _both(tmp_path, [built("callloop"), "10000"])
    assert ta == tb and ta.count("strcpy(") == 10000


def test_more_open_calls_than_the_shadow_stack_holds(tmp_path):
    """3,000 calls of raise() left by siglongjmp out of the signal's handler, at one stack depth:
    their shadow entries stay until a return above them, so the pushes run past the shadow
    stack's end, fault in its guard page, the stack is grown (twice) and the trampoline starts
    over; the lines are the hooked path's."""
    from emutrace.guestlog import SHADOW_ENTRY, SHADOW_SIZE
    out = tmp_path / "t.txt"
    session, result = _run_in_process(["-o", str(out), built("jmp"), "3000"])
    assert result.status == 0
    fast = _fast_sites((session, result))
    assert "raise" in fast
    gl = guest_log_of(session, session.processes[0].machine)
    assert SHADOW_SIZE // SHADOW_ENTRY < 3000 and max(tl.shadow_size for tl in gl.threads.values()) >= 4 * SHADOW_SIZE
    ta, tb = _both(tmp_path, [built("jmp"), "3000"])
    assert ta == tb == out.read_text() and ta.count("raise(") == 3000
    assert 'printf("left %d raises\\n", 3000)' in ta


def test_forked_child_keeps_logging(tmp_path):
    ta, tb = _both(tmp_path, [built("forkwait")], ["-f"])
    assert ta == tb
    assert re.search(r"^\[pid 1001\] ", ta, re.M)


def test_threads_traced_deterministically(tmp_path):
    exe = built("threads")
    _, t1 = _trace(tmp_path, "a.txt", [exe], ["-f"])
    _, t2 = _trace(tmp_path, "b.txt", [exe], ["-f"])
    assert t1 == t2
    assert sorted(re.findall(r"^\[pid (\d+)\]", t1, re.M)) == sorted(re.findall(r"^\[pid (\d+)\]", t1, re.M))
    assert len(set(re.findall(r"^\[pid (\d+)\]", t1, re.M))) >= 3


# -- calls held back at a system call (GuestLog.flush) --------------------------------------

def _held_syscalls(monkeypatch):
    """The list that will hold the number of each system call whose flush leaves the ring
    undecoded (GuestLog._may_hold said yes), from now until monkeypatch is undone."""
    from emutrace import guestlog
    held = []
    may_hold = guestlog.GuestLog._may_hold

    def counting(self, proc, nr):
        got = may_hold(self, proc, nr)
        if got:
            held.append(nr)
        return got
    monkeypatch.setattr(guestlog.GuestLog, "_may_hold", counting)
    return held


def _holding(monkeypatch, tmp_path, name, args, hold):
    """The trace of an in-process run, and the numbers of the system calls whose flushes left the
    ring undecoded; hold=False: every flush decodes everything (the behaviour before held
    records, the reference)."""
    from emutrace import guestlog
    if not hold:
        monkeypatch.setattr(guestlog.ring, "QUIET_SYSCALLS", frozenset())
        monkeypatch.setattr(guestlog.ring, "QUIET_WRITES", frozenset())
    held = _held_syscalls(monkeypatch)
    out = tmp_path / name
    _, result = _run_in_process(["-o", str(out), *args])
    monkeypatch.undo()
    assert result.status == 0
    return out.read_bytes(), held


def _walked_dir(tmp_path):
    """A directory for heldcall's walk: files, a symbolic link and a subdirectory."""
    d = tmp_path / "walked"
    (d / "sub").mkdir(parents=True)
    for name in ("a", "b", "c"):
        (d / name).write_text(name)
    (d / "link").symlink_to("a")
    return str(d)


# what heldcall's walk makes while a logged library call is open (glibc on x86-64): openat,
# close, newfstatat (stat, lstat, fstatat), access, fcntl, getdents64, readlink, lgetxattr,
# getpid, getuid, umask (getcwd, whose returned string the guest log does not copy, takes the
# hooked path, which flushes by itself)
WALK_SYSCALLS = {257, 3, 262, 21, 72, 217, 89, 192, 39, 102, 95}


# (options, does a flush hold calls back): only plain text without durations may; -S prints
# each system call between a call and its return, -T shows the time spent, -tt the call's time
@pytest.mark.parametrize("options,holds", [
    ([], True), (["-S"], False), (["-T"], False), (["-tt"], False), (["-r"], False), (["-c"], False),
    (["--format", "jsonl"], False), (["-f"], False)])
@pytest.mark.parametrize("thread", [False, True])
def test_held_calls_print_as_decoded_at_once(monkeypatch, tmp_path, options, holds, thread):
    """heldcall's read loop (read, lseek, isatty: each library call open at its system call),
    its walk over a directory (opendir, readdir, stat, lstat, access, open, fcntl, close,
    readlink, lgetxattr, write, getcwd...), a signal handler's calls while sigprocmask is open,
    and with a thread, calls of two threads interleaved while one is open: the same bytes
    whether flushes at quiet system calls leave the ring undecoded or not."""
    args = [*options, built("heldcall"), "thread" if thread else "-", _walked_dir(tmp_path)]
    got, held = _holding(monkeypatch, tmp_path, "held.txt", args, True)
    want, none = _holding(monkeypatch, tmp_path, "ref.txt", args, False)
    assert none == []
    assert got == want
    if holds:
        assert held.count(0) >= 20 and held.count(8) >= 20 and held.count(16) >= 20    # read, lseek, isatty
        assert WALK_SYSCALLS <= set(held), WALK_SYSCALLS - set(held)
        assert held.count(262) >= 5         # a stat of each of the walk's five entries, at least
        assert held.count(1) >= 4           # its writes: the trace has a file of its own (-o)
        assert b"sigprocmask(SIG_UNBLOCK, <9> <unfinished ...>\n--- SIGUSR1" in got
        assert re.search(rb'^readlink\(.*, "a", 4096\) += 1$', got, re.M)      # the link
    else:
        assert held == []


def test_writes_hold_calls_only_when_the_trace_has_its_own_file(monkeypatch, tmp_path, capfd):
    """A trace on stderr, which the program shares: a write(2) flushes the ring before it, as it
    always did, so the call's line is not held back behind the text the write puts there; the
    other quiet system calls still hold."""
    held = _held_syscalls(monkeypatch)
    _, result = _run_in_process([built("heldcall"), "-", _walked_dir(tmp_path)])
    assert result.status == 0
    assert 1 not in held and 262 in held and 0 in held
    assert "write(" in capfd.readouterr().err


def test_held_calls_same_in_every_mode(tmp_path):
    """Compiled path, pure path and the hooked returns print heldcall's trace alike."""
    exe = built("heldcall")
    walked = _walked_dir(tmp_path)
    ta, tb = _both(tmp_path, [exe, "-", walked])
    pure = emutrace(["-o", str(tmp_path / "pure.txt"), exe, "-", walked], env={"EMUTRACE_PURE": "1"})
    assert status_of(pure) == 0
    assert ta == tb == (tmp_path / "pure.txt").read_text(errors="replace")
    assert re.search(r"^<\.\.\. sigprocmask resumed> , nil\) += 0$", ta, re.M)


# -- the assembler of the guest code ---------------------------------------------------------

def test_assembler_encodings():
    capstone = pytest.importorskip("capstone")
    a = Asm(0x1000)
    a.push(RAX)
    a.movabs(R11, 0x1122334455667788)
    a.load(RAX, R11, 8)
    a.cmp_reg_mem(RAX, R11, 16)
    a.jcc(JAE, "out")
    for i, r in enumerate(ARG_REGS):
        a.store(RAX, 8 * i, r)
    a.lea(R10, RSP, 24)
    a.store(RSP, 16, R10)
    a.jmp_mem(R11, 112)
    a.label("out")
    a.jmp_reg(R11)
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    text = [f"{i.mnemonic} {i.op_str}".strip() for i in md.disasm(a.link(), 0x1000)]
    assert text[:5] == ["push rax", "movabs r11, 0x1122334455667788", "mov rax, qword ptr [r11 + 8]",
                        "cmp rax, qword ptr [r11 + 0x10]", f"jae {a.addr('out'):#x}"]
    assert text[5:11] == [f"mov qword ptr [rax + {o}], {r}" if o else f"mov qword ptr [rax], {r}"
                          for o, r in zip(["", "8", "0x10", "0x18", "0x20", "0x28"],
                                          ["rdi", "rsi", "rdx", "rcx", "r8", "r9"])]
    assert text[11:] == ["lea r10, [rsp + 0x18]", "mov qword ptr [rsp + 0x10], r10",
                         "jmp qword ptr [r11 + 0x70]", "jmp r11"]


def _run_copy(src_bytes, where, length=None, cap=33):
    """Run guestlog's string copy in a bare engine: src_bytes placed at `where` (an offset in a
    mapped page followed by an unmapped one); returns (bytes copied, faulted)."""
    from unicorn import Uc, UcError, UC_ARCH_X86, UC_MODE_64
    from unicorn import x86_const as X
    from emutrace.guestlog import GuestLog, area_size
    from emutrace.machine.x86enc import RDI, RSI
    code, ctrl, rec, data = 0x10000, 0x20000, 0x30000, 0x40000
    gl = GuestLog.__new__(GuestLog)
    gl.ctrl, gl.loads = ctrl, {}
    a = Asm(code)
    gl._copy(a, RDI, None if length is None else RSI, 72, cap, "t")
    a.raw(b"\xf4")                                            # hlt: the end
    uc = Uc(UC_ARCH_X86, UC_MODE_64)
    for base in (code, ctrl, rec, data):
        uc.mem_map(base, 0x1000)
    uc.mem_write(code, a.link())
    uc.mem_write(rec, b"\xee" * 0x1000)
    uc.mem_write(data, b"\xaa" * 0x1000)
    uc.mem_write(data + where, src_bytes)
    regs = {X.UC_X86_REG_RAX: rec, X.UC_X86_REG_R11: ctrl, X.UC_X86_REG_RDI: data + where,
            X.UC_X86_REG_RSI: length or 0, X.UC_X86_REG_RCX: 0x1111, X.UC_X86_REG_RDX: 0x2222}
    for r, v in regs.items():
        uc.reg_write(r, v)
    faulted = False
    pc = code
    while True:
        try:
            uc.emu_start(pc, 0, count=100000)
        except UcError:
            rip = uc.reg_read(X.UC_X86_REG_RIP)
            assert rip in gl.loads                            # only the copy's loads may fault
            faulted, pc = True, gl.loads[rip][0]
            got = uc.reg_read(X.UC_X86_REG_R10)
            continue
        break
    assert uc.reg_read(X.UC_X86_REG_RCX) == 0x1111 and uc.reg_read(X.UC_X86_REG_RDX) == 0x2222
    assert uc.reg_read(X.UC_X86_REG_R11) == ctrl and uc.reg_read(X.UC_X86_REG_RAX) == rec
    area = bytes(uc.mem_read(rec + 72, area_size(cap)))
    assert bytes(uc.mem_read(rec + 72 + area_size(cap), 8)) == b"\xee" * 8   # nothing past the area
    if faulted:
        return area[:got], True
    if length is not None:
        return area[:min(length, cap)], False
    return area[:cap], False


@pytest.mark.parametrize("where", [0, 1, 3, 7, 8, 100, 0x1000 - 64])
@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 40])
def test_guest_string_copy(where, n):
    text = bytes(range(1, n + 1)).replace(b"\0", b"x")
    got, faulted = _run_copy(text + b"\0", where)
    assert not faulted
    nul = got.find(b"\0")
    assert got[:nul] == text[:33] if nul >= 0 else got == text[:33]
    buf, faulted = _run_copy(text + b"\0", where, length=n)
    assert not faulted and buf == text[:33]


@pytest.mark.parametrize("n", [1, 5, 8, 13])
def test_guest_string_copy_at_the_end_of_a_page(n):
    """A string without NUL running to an unmapped page: the copy faults where a byte-wise copy
    would, with the bytes before it; a NUL before the page end never faults."""
    text = b"z" * n
    got, faulted = _run_copy(text, 0x1000 - n)
    assert faulted and got == text
    got, faulted = _run_copy(text[:-1] + b"\0", 0x1000 - n)
    assert not faulted and got.split(b"\0")[0] == text[:-1]
    buf, faulted = _run_copy(text, 0x1000 - n, length=n)
    assert not faulted and buf == text


@pytest.mark.parametrize("limit", [0, 1, 5, 32])
def test_renderers_from_captured_bytes_match_live_memory(limit):
    """The call log renders string arguments from the bytes copied at the call: the same text as
    the renderers reading live memory."""
    from emutrace.protos import parse_conf
    from emutrace.values import CallFormatter
    from test_values import FakeMem
    db = parse_conf("int f(string, string(array(char, arg3)*), ulong);", "t.conf")
    fmt = CallFormatter(string_limit=limit)
    plan = fmt.plan(db.get("f"))
    (_, sop), (_, bop), _ = plan.left_items
    mem = FakeMem()
    for text in [b"", b"a", b"abcde", b"x" * limit, b"y" * (limit + 1), b"z" * 40, b"t\tq\"\xff\n"]:
        p = mem.s(text)
        area = text[:limit + 1] + b"\0" if len(text) <= limit else text[:limit + 1]
        assert sop.from_bytes(p, area) == sop.word(p, mem)
        for n in (0, 1, len(text), limit, limit + 1, 100):
            if n > len(text) + 1:
                continue
            raw = (text + b"\0")[:min(n, limit + 1)]
            assert bop.from_bytes(p, raw, n) == bop.word(p, mem, n), (text, n)
    assert sop.from_bytes(0, None) == sop.word(0, mem) == "nil"
    assert sop.from_bytes(0xdead0000, None) == sop.word(0xdead0000, mem)


def test_leaf_lines_compiled_per_site_match_the_general_path():
    """A leaf call's line comes from one function compiled per site (renderers inlined, lines of
    word-only sites kept): the same text as the renderers assembled one by one, for repeated and
    for changing values; `quick` makes it from the record pair itself, and refuses a pair that
    is not a leaf call whose return captured nothing, or that sits below an open frame."""
    import random
    import struct
    from emutrace.guestlog import (HEAD, RET_TAG, _leaf_renderer, _left_renderer, area_size,
                                   capture_plan)
    from emutrace.protos import parse_conf
    from emutrace.values import LEAF_COLUMN, CallFormatter
    db = parse_conf("int f(string, string(array(char, arg3)*), ulong);\n"
                    "addr malloc(ulong);\nvoid free(addr);\nint g(int, hex(uint), long);\n"
                    "ulong h();\nlong s(string, addr, string);\nvoid v();\n", "t.conf")
    fmt = CallFormatter(string_limit=8)
    rng = random.Random(5)
    for name in ("f", "malloc", "free", "g", "h", "s", "v"):
        plan = fmt.plan(db.get(name))
        caps = capture_plan(plan)
        off, strings = HEAD, []
        for i, cap, j in caps:
            strings.append((i, off, cap, j))
            off += area_size(cap)
        leaf, quick = _leaf_renderer(name, plan, tuple(strings), off)
        _, quick_nocap = _leaf_renderer(name, plan, tuple(strings), off, "\n", captures=False)
        left = _left_renderer(plan, tuple(strings))
        values = [rng.choice([0, 1, 5, 7, 8, 9, 64, 0xFFFFFFFF, 1 << 63, rng.getrandbits(64)]) for _ in range(40)]
        for k in range(200):
            slot, ret_addr = 0x7ffd0000 - 16 * (k % 5), 0x401000 + k % 3
            w = (7, *[values[(k * 7 + a) % len(values)] if k % 3 else values[a] for a in range(6)], slot, ret_addr)
            data = bytearray(struct.pack("<9Q", *w)) + bytes(off - HEAD)
            for _i, a_off, cap, _j in strings:
                text = bytes(rng.choice(b"ab\t\"\x01") for _ in range(rng.randrange(12))) + b"\0"
                data[a_off:a_off + len(text[:cap])] = text[:cap]
            rax = values[k % len(values)]
            want = name + "(" + ", ".join(left(w, bytes(data), 0))
            pad = LEAF_COLUMN - 1 - len(want)        # (the rule spelled out: ") ", spaces, "= ")
            r = plan.ret.word(rax, None) if plan.ret is not None else None
            want += (") " + " " * pad if pad > 0 else ") ") + "= " + ("<void>" if r is None else r) + "\n"
            assert leaf(w, bytes(data), 0, rax, "\n") == want, (name, w, rax)
            pair = bytes(data) + struct.pack("<7Q", RET_TAG, slot, ret_addr, rax, 0, 0, 3)
            out = []
            assert quick(pair, 0, 1 << 64, "\n", out.append) == 3 and out == [want]
            assert quick(pair, 0, slot + 8, "\n", out.append) == 3 and out == [want, want]
            assert quick(pair, 0, slot, "\n", out.append) is None           # a frame open at the slot
            assert quick_nocap(pair, 0, 1 << 64, "\n", out.append) == 3 and out.pop() == want
            for bad in ((RET_TAG, slot + 8, ret_addr, rax, 0, 0), (RET_TAG, slot, ret_addr + 1, rax, 0, 0),
                        (RET_TAG, slot, ret_addr, rax, 1, 0), (RET_TAG, slot, ret_addr, rax, 0, 16),
                        (7, slot, ret_addr, rax, 0, 0)):
                assert quick(bytes(data) + struct.pack("<7Q", *bad, 3), 0, 1 << 64, "\n", out.append) is None, bad
            assert len(out) == 2
