"""emutrace.protos: the ltrace.conf parser and the built-in prototype database."""

import os
import shutil
import subprocess

import pytest

from emutrace.protos import (Array, ArgRef, ConfError, Const, EltRef, Pointer, Prim, Prototype, Struct,
                             Zero, builtin_conf_files, default_prototype, load_prototypes, parse_conf)


@pytest.fixture(scope="module")
def db():
    return load_prototypes()


# ---------------------------------------------------------------------------
# parser: good input

def test_basic_prototypes():
    got = parse_conf("""
; a comment
# another comment

int kill(int,int);
ulong strlen(string);
void free(addr);
addr memcpy(addr,string(array(char, arg3)*),ulong);   ; trailing comment
long read(int, +string[retval], ulong);
int fprintf(file,format);
string0 weird();
  double   spaced ( double , float )  ;
""", "t.conf")
    assert set(got) == {"kill", "strlen", "free", "memcpy", "read", "fprintf", "weird", "spaced"}
    k = got["kill"]
    assert isinstance(k, Prototype) and k.name == "kill"
    assert k.ret == Prim("int") and k.params == [Prim("int"), Prim("int")]
    assert not k.variadic and k.split is None
    s = got["strlen"].params[0]
    assert isinstance(s, Pointer) and s.lens == "string"
    assert isinstance(s.target, Array) and s.target.elem == Prim("char") and s.target.length == Zero(None)
    f = got["free"]
    assert f.ret.is_void() and isinstance(f.params[0], Pointer) and f.params[0].target.is_void()
    m = got["memcpy"].params[1]
    assert m.lens == "string" and m.target.length == ArgRef(3)
    r = got["read"]
    assert r.split == 1 and r.out_start == 1
    assert r.params[1].target.length == Zero(ArgRef(0))
    fp = got["fprintf"]
    assert fp.variadic and fp.pack.kind == "printf" and fp.pack.fmt_index == 1
    assert got["weird"].ret.target.length == Zero(ArgRef(0))
    assert got["spaced"].params == [Prim("double"), Prim("float")]


def test_lenses_enums_typedefs():
    got = parse_conf("""
typedef signum = enum(SIGHUP=1, SIGINT=2);
typedef sigset_t = bitvec(ulong);
typedef pair = struct(int, string);
int a(hex(int), oct(uint), octal, bool(int), hide(long), guess(long), bitvec(uint));
int b(enum(A, B=5, C), enum[short](X=1,Y), signum, sigset_t*, +pair*);
array(int, 3)* c(array(int, elt1)*, struct(ulong, array(int, elt1)));
int d(itn, llong, ullong, bool, funcptr, wchar, wstring, wstring[arg1]);
""", "t.conf")
    a = got["a"].params
    assert [t.lens for t in a] == ["hex", "oct", "oct", "bool", "hide", "guess", "bitvec"]
    assert a[2] == Prim("int").with_lens("oct")
    b = got["b"].params
    assert b[0].enum == [("A", 0), ("B", 5), ("C", 6)] and b[0].kind == "int"
    assert b[1].kind == "short" and b[1].enum == [("X", 1), ("Y", 2)]
    assert b[2].enum == [("SIGHUP", 1), ("SIGINT", 2)]
    assert isinstance(b[3], Pointer) and b[3].target.lens == "bitvec"
    assert got["b"].split == 4 and isinstance(b[4].target, Struct) and b[4].target.name == "pair"
    c = got["c"]
    assert isinstance(c.ret, Pointer) and c.ret.target.length == Const(3)
    assert c.params[1].fields[1].length == EltRef(1)
    d = got["d"].params
    assert d[0] == Prim("int") and d[1] == Prim("long") and d[2] == Prim("ulong")
    assert d[3].lens == "bool" and d[4].lens == "funcptr" and d[5] == Prim("wchar")
    assert d[6].wide and d[7].target.length == Zero(ArgRef(1))


def test_struct_layout_and_forward():
    got = parse_conf("""
typedef S = struct(char, int, char, double, short);
typedef L = struct;
typedef L = struct(int, L*);
void f(S, L*);
""", "t.conf")
    s = got["f"].params[0]
    assert s.layout() == ([0, 4, 8, 16, 24], 32, 8)
    lst = got["f"].params[1].target
    assert lst.fields[1].target is lst          # recursive


def test_extensions():
    got = parse_conf("""
typedef oflags = flags(O_RDONLY=0:3, O_WRONLY=1:3, O_CREAT=0100, O_BIG=1<<20, O_TWO=0x1|0x2);
int open(string, oflags, cond(arg2, 0x400040, oct(uint)));
int my_printf(string, ...);
int sscanf(string, sformat);
int vprintf(vformat, addr);
int vsscanf(string, vsformat, addr);
""", "x.conf")
    o = got["open"].params
    assert o[1].flags == [("O_RDONLY", 0, 3), ("O_WRONLY", 1, 3), ("O_CREAT", 0o100, 0o100),
                          ("O_BIG", 1 << 20, 1 << 20), ("O_TWO", 3, 3)]
    assert o[2].lens == "cond" and o[2].cond == (2, 0x400040) and o[2].inner_lens == "oct"
    assert got["my_printf"].variadic and got["my_printf"].pack is None
    assert got["sscanf"].pack.kind == "scanf"
    assert got["vprintf"].pack.kind == "vprintf"
    assert got["vsscanf"].pack.kind == "vscanf"


def test_void_params_like_ltrace():
    got = parse_conf("int f(void);\nint g(int, void, int);\n", "v.conf")
    assert got["f"].params == []
    assert [t.lens for t in got["g"].params] == [None, "hide", None]


def test_typedefs_shared_between_files(tmp_path):
    a = tmp_path / "a.conf"
    a.write_text("typedef myint = hex(int);\nint one(myint);\n")
    b = tmp_path / "b.conf"
    b.write_text("int two(myint);\nint one(int);\ntypedef myint = int;\nint three(myint);\n")
    db = load_prototypes([str(a), str(b)], builtin=False)
    assert db.get("one").params == [Prim("int")]            # later file wins
    assert db.get("two").params[0].lens == "hex"
    assert db.get("three").params[0] == Prim("int")         # a later file may redefine a typedef
    assert db.get("missing") is None and "two" in db and len(db) == 3


def test_builtin_then_extra_files(tmp_path):
    extra = tmp_path / "my.conf"
    extra.write_text("int strlen(addr);\nint my_func(string, int);\n")
    db = load_prototypes(extra_files=[str(extra)])
    assert db.get("strlen").params[0] == Pointer(Prim("void"))
    assert db.get("my_func") is not None
    assert db.get("strcmp") is not None
    assert db.get("strlen@GLIBC_2.2.5") is not None


def test_default_prototype():
    p = default_prototype("whatever")
    assert p.name == "whatever" and len(p.params) == 4
    assert all(t == Prim("long", "guess") for t in p.params + [p.ret])


# ---------------------------------------------------------------------------
# parser: bad input

@pytest.mark.parametrize("text,line,msg", [
    ("int f(int);\nint g(bogus);\n", 2, "unknown type"),
    ("int f(int\n", 1, "missing ')'"),
    ("\n\nint f(int) junk;\n", 3, "syntax error"),
    ("typedef x = int;\ntypedef x = long;\n", 2, "Redefinition of typedef 'x'"),
    ("int f(string[foo]);\n", 1, "Unknown length specifier"),
    ("int f(format, format);\n", 1, "only one 'format'"),
    ("typedef t = format;\n", 1, "unexpected context"),
    ("int f(enum[string](A));\n", 1, "integral type required"),
    ("int f(enum(A=));\n", 1, "bad number"),
    ("int f(hex int);\n", 1, ""),
    ("int (int);\n", 1, "function name"),
    ("int f(..., int);\n", 1, "last parameter"),
    ("int f(array(int, -1)*);\n", 1, ""),
    ("int f(cond(3, 1, int));\n", 1, "cond()"),
    ("int f(vformat);\n", 1, "va_list"),
    (";ok\nint f(flags(A));\n", 2, "expected '='"),
])
def test_bad_input(text, line, msg):
    with pytest.raises(ConfError) as ei:
        parse_conf(text, "bad.conf")
    e = ei.value
    assert e.filename == "bad.conf" and e.lineno == line
    assert str(e).startswith("bad.conf:%d: " % line)
    assert msg in str(e)


def test_bad_file_reports_path(tmp_path):
    p = tmp_path / "broken.conf"
    p.write_text("int ok(int);\n\nint broken(int;\n")
    with pytest.raises(ConfError) as ei:
        load_prototypes([str(p)])
    assert str(ei.value).startswith("%s:3: " % p)


# ---------------------------------------------------------------------------
# the built-in database

def test_builtin_files_parse():
    names = [os.path.basename(f) for f in builtin_conf_files()]
    assert names[0] == "libc.conf" and "libm.conf" in names and "compat-ltrace.conf" not in names
    for f in builtin_conf_files() + [os.path.join(os.path.dirname(builtin_conf_files()[0]), "compat-ltrace.conf")]:
        with open(f) as fh:
            parse_conf(fh.read(), f)


REQUIRED = """
strlen strcmp strncmp strcpy strncpy strcat strchr strrchr strstr strdup strndup memcpy memmove memset memcmp
memchr strtok strtok_r strerror strspn strcspn strpbrk strcasecmp strncasecmp stpcpy strnlen
printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf dprintf asprintf puts fputs fputc putc
putchar fgets fgetc getc getchar ungetc fopen fdopen freopen fclose fflush fread fwrite fseek ftell rewind
fileno setvbuf setbuf feof ferror clearerr perror remove rename tmpfile popen pclose getline getdelim
scanf fscanf sscanf __isoc99_scanf __isoc99_fscanf __isoc99_sscanf vsscanf
malloc calloc realloc free reallocarray posix_memalign aligned_alloc strtol strtoul strtoll strtoull strtod
strtof atoi atol atoll atof qsort bsearch getenv setenv unsetenv putenv exit _exit _Exit atexit abort abs labs
rand srand random srandom system realpath mkstemp mkdtemp
read write open openat close lseek pread pwrite dup dup2 pipe pipe2 fork vfork execve execvp execl getpid
getppid getuid geteuid getgid getegid access unlink rmdir chdir fchdir getcwd isatty sleep usleep alarm
sysconf readlink symlink link chown fsync ftruncate truncate gethostname getopt getopt_long getopt_long_only
fcntl creat stat fstat lstat fstatat statx chmod fchmod umask mkdir mkfifo
opendir fdopendir readdir closedir rewinddir dirfd scandir
time clock_gettime gettimeofday localtime localtime_r gmtime gmtime_r mktime strftime nanosleep ctime
setlocale localeconv nl_langinfo
isalpha isdigit isspace isupper islower isalnum isprint ispunct isxdigit tolower toupper __ctype_b_loc
__ctype_tolower_loc __ctype_toupper_loc
pthread_create pthread_join pthread_mutex_lock pthread_mutex_unlock pthread_mutex_init pthread_cond_wait
pthread_cond_signal pthread_self pthread_once pthread_key_create pthread_getspecific pthread_setspecific
socket bind connect listen accept send recv sendto recvfrom setsockopt getsockopt shutdown socketpair
signal sigaction raise kill sigemptyset sigaddset sigprocmask sigfillset
setjmp _setjmp longjmp siglongjmp __sigsetjmp
__errno_location
wcslen mbrtowc wcrtomb mbstowcs wcstombs btowc wctob iswprint towlower
__libc_start_main __cxa_atexit __cxa_finalize __stack_chk_fail _IO_putc _IO_getc __assert_fail
__printf_chk __fprintf_chk __sprintf_chk __snprintf_chk __vfprintf_chk __vprintf_chk __vsnprintf_chk
__vsprintf_chk __memcpy_chk __memmove_chk __memset_chk __strcpy_chk __stpcpy_chk __strcat_chk __strncpy_chk
__fgets_chk __read_chk __fread_chk __realpath_chk __explicit_bzero_chk __longjmp_chk __fdelt_chk __open_2
mmap munmap mprotect
sqrt sin cos pow floor ceil
_Znwm _ZdlPv __cxa_throw __cxa_allocate_exception
"""


def test_required_coverage(db):
    missing = [n for n in REQUIRED.split() if n not in db]
    assert not missing, missing


def test_size(db):
    assert len(db) > 1000


LTRACE_CONFS = ["/usr/share/ltrace/libc.so.conf", "/etc/ltrace.conf"]


@pytest.mark.parametrize("path", LTRACE_CONFS)
def test_covers_ltrace_conf(db, path):
    """Everything the installed ltrace's own prototype file knows is known
    here (its syscall entries SYS_* aside: those are syscalls)."""
    if not os.path.exists(path):
        pytest.skip("%s not present" % path)
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        theirs = parse_conf(text, path)
    except ConfError as e:  # a newer ltrace's syntax we do not parse: fall back to names
        pytest.skip("cannot parse %s: %s" % (path, e))
    missing = sorted(n for n in theirs if not n.startswith("SYS_") and n not in db)
    assert not missing, missing


def test_same_prototypes_as_ltrace_in_compat_mode():
    """With ltrace_compat=True, every function of /etc/ltrace.conf has exactly
    ltrace's types, so emutrace prints the same text."""
    path = "/etc/ltrace.conf"
    if not os.path.exists(path):
        pytest.skip("no /etc/ltrace.conf")
    with open(path) as f:
        theirs = parse_conf(f.read(), path)
    cdb = load_prototypes(ltrace_compat=True)
    differ = [n for n, p in theirs.items() if not n.startswith("SYS_") and repr(cdb.get(n)) != repr(p)]
    assert not differ, differ
    # and without compat, only the documented extensions differ
    plain = load_prototypes()
    differ = sorted(n for n, p in theirs.items() if not n.startswith("SYS_") and repr(plain.get(n)) != repr(p))
    assert differ == ["atexit", "bsearch", "open", "open64", "pipe", "qsort", "signal", "sigprocmask"]


# Imports that are data, not functions (no prototype makes sense); they never
# reach a PLT call.  __gmon_start__ and the _ITM_ ones are weak hooks (they
# are in the database anyway).
NOT_FUNCTIONS = {"stdin", "stdout", "stderr", "environ", "__environ", "optind", "optarg", "opterr",
                 "optopt", "program_invocation_name", "program_invocation_short_name", "__progname",
                 "__progname_full", "timezone", "daylight", "tzname", "signgam", "h_errno", "_res",
                 "obstack_alloc_failed_handler", "__libc_single_threaded"}


@pytest.mark.parametrize("binary", ["/usr/bin/ls", "/usr/bin/sort", "/usr/bin/wc"])
def test_covers_real_binary_imports(db, binary):
    if shutil.which("nm") is None or not os.path.exists(binary):
        pytest.skip("nm or %s missing" % binary)
    out = subprocess.run(["nm", "-D", "--undefined-only", binary], capture_output=True, text=True).stdout
    names = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
    missing = sorted(n for n in names if n not in db and n not in NOT_FUNCTIONS)
    assert not missing, missing


def test_selected_prototypes(db):
    assert repr(db.get("strlen")) == "Prototype(ulong strlen(string(array(char, Zero(limit=None))*)))"
    op = db.get("open")
    assert op.params[1].lens == "flags" and op.params[2].lens == "cond"
    assert db.get("printf").pack.kind == "printf"
    assert db.get("__isoc99_sscanf").pack.kind == "scanf"
    assert db.get("__vfprintf_chk").pack.kind == "vprintf"
    assert db.get("stat").split == 1
    assert db.get("qsort").params[3].lens == "funcptr"
    assert db.get("setlocale").params[0].enum[6] == ("LC_ALL", 6)
    assert db.get("kill").params[1].enum[1] == ("SIGINT", 2)
    assert db.get("umask").ret.lens == "oct"
