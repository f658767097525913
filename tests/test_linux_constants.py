"""Each Linux constant is declared once, in emutrace/linux/, with its value and its name.

The kernel, the loader, the session, the decoders and the report import a Linux constant from
there; none writes its value again, and decode/xlat.py's sets name it without a value. The scan
reads the source: an assignment `NAME = <int>` (alone or in a tuple) whose NAME looks like a
Linux constant (O_*, AT_*, SIG*, SEGV_*, CLONE_*, PROT_*, MAP_*...) made in two modules, or made
anywhere for a name emutrace/linux/ declares, is a second declaration.
"""
import ast
import re
from collections import defaultdict

import layers

from emutrace import linux
from emutrace.decode import xlat

ROOT = layers.ROOT
# the prefixes of Linux's constants (and ELF's, which the kernel's binfmt reads)
LINUX_NAME = re.compile(
    r"(O|AT|F|FD|LOCK|SEEK|STATX|S_IF|DT|ST|SPLICE_F|MFD|RENAME|SIG|SIGEV|SA|SI|SEGV|FPE|TRAP|ILL|BUS|SS|CLD|"
    r"CLONE|P|PROT|MAP|MREMAP|MADV|PKEY|AF|SOCK|SOL|SO|MSG|SHUT|IPPROTO|IPC|SHM|SEM|POLL|EPOLL|EFD|TFD|IN|"
    r"GRND|RLIMIT|RLIM|ITIMER|TIMER|FUTEX|PR|ARCH|PTRACE|PT|STB|STT|SHN|SHT|W)_[A-Z0-9_]+"
    r"|SIG[A-Z]+[0-9]*|NSIG|[RWXF]_OK|POLL[A-Z]+|EPOLL[A-Z]+|W(NOHANG|EXITED|STOPPED|CONTINUED|NOWAIT)")
XLAT_PAIR = re.compile(r"\b([A-Z_][A-Z0-9_]+)=(-?(?:0x[0-9a-fA-F]+|0o[0-7]+|\d+))")


def modules():
    for top in ("emutrace", "syscalls", "loader"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if "linux" not in path.relative_to(ROOT).parts:
                yield path


def int_constants(source: str):
    """(name, line) of each `NAME = <int literal>` in a module, tuple assignments included."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        t, v = node.targets[0], node.value
        if isinstance(t, ast.Name):
            pairs = [(t, v)]
        elif isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts):
            pairs = list(zip(t.elts, v.elts))
        else:
            continue
        for n, e in pairs:
            if not isinstance(n, ast.Name):
                continue
            try:
                value = ast.literal_eval(e)
            except ValueError:
                continue
            if isinstance(value, int) and not isinstance(value, bool):
                yield n.id, node.lineno


def second_declarations(sources) -> list:
    """Each Linux-named constant declared outside emutrace/linux/ that is declared there too, or in
    another module as well, as 'file:line: NAME'."""
    where = defaultdict(list)
    for name, source in sources:
        for const, line in int_constants(source):
            if LINUX_NAME.fullmatch(const):
                where[const].append(f"{name}:{line}")
        if name.endswith("xlat.py"):
            for m in XLAT_PAIR.finditer(source):
                if m.group(1) in linux.VALUES:
                    where[m.group(1)].append(f"{name}:{source[:m.start()].count(chr(10)) + 1} (xlat)")
    bad = []
    for const, places in sorted(where.items()):
        if const in linux.VALUES or len(places) > 1:
            bad += [f"{p}: {const}" + (" (declared in emutrace/linux)" if const in linux.VALUES else "")
                    for p in places]
    return bad


def test_no_linux_constant_is_declared_twice():
    sources = [(str(p.relative_to(ROOT)), p.read_text()) for p in modules()]
    bad = second_declarations(sources)
    assert not bad, "declared again outside emutrace/linux/:\n" + "\n".join(bad)


def test_the_check_finds_a_second_declaration():
    planted = [("syscalls/a.py", "O_CLOEXEC = 0o2000000\nFOO_BAR = 1\n"),
               ("syscalls/b.py", "SIGFOO, X = 99, 1\n"),
               ("syscalls/c.py", "SIGFOO = 99\n"),
               ("emutrace/decode/xlat.py", '_F("x", None, "O_NONBLOCK=0x800 FOO_BAZ=1")\n')]
    found = second_declarations(planted)
    assert found == ["syscalls/a.py:1: O_CLOEXEC (declared in emutrace/linux)",
                     "emutrace/decode/xlat.py:1 (xlat): O_NONBLOCK (declared in emutrace/linux)",
                     "syscalls/b.py:1: SIGFOO", "syscalls/c.py:1: SIGFOO"]


def test_the_linux_package_declares_each_name_once_and_imports_nothing():
    seen = {}
    for mod in linux.SUBJECTS:
        source = open(mod.__file__).read()
        tree = ast.parse(source)
        assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))], mod.__name__
        for name, _line in int_constants(source):
            assert name not in seen, f"{name} in {mod.__name__} and {seen[name]}"
            seen[name] = mod.__name__
    assert set(seen) == set(linux.VALUES)


def test_xlat_takes_declared_values_from_linux():
    """decode/xlat.py's sets print the names emutrace.linux declares with its values."""
    assert xlat.format_flags("open_flags", linux.fcntl.O_RDWR | linux.fcntl.O_CLOEXEC) == "O_RDWR|O_CLOEXEC"
    assert xlat.signal_name(linux.signal.SIGSEGV) == "SIGSEGV"
    assert xlat.lookup("at_flags", linux.fcntl.AT_SYMLINK_NOFOLLOW) == "AT_SYMLINK_NOFOLLOW"
    for x in xlat.SETS.values():
        for value, name in x.pairs:
            if name in linux.VALUES:
                assert value == linux.VALUES[name], (x.name, name)
