"""bins/ programs in every build variant: byte-identical stdout and the same exit status as native."""
import pytest

from conftest import built, emutrace, native, status_of

VARIANTS = ["pie", "nopie", "znow", "zlazy", "ibt", "fnoplt", "static", "static-pie", "musl-static"]
PROGRAMS = ["strings", "files", "signal", "crash", "cxx", "jmp", "qsort", "protos"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("prog", PROGRAMS)
def test_same_as_native(prog, variant, tmp_path):
    path = built(prog, variant)
    work = tmp_path / "native"
    work.mkdir()
    n = native([path, str(work)], cwd=str(work))
    emu_work = tmp_path / "emu"
    emu_work.mkdir()
    e = emutrace(["--no-trace", path, str(emu_work)], cwd=str(emu_work))
    assert e.stdout.replace(str(emu_work).encode(), b"DIR") == n.stdout.replace(str(work).encode(), b"DIR")
    assert status_of(e) == status_of(n), e.stderr.decode(errors="replace")


def test_crash_dies_by_sigsegv_like_native():
    path = built("crash", "pie")
    e = emutrace(["--no-trace", path])
    assert status_of(e) == 139
    assert e.stdout == b"before crash\n"
    assert b"Traceback" not in e.stderr


def test_demo_runs_with_builtin_linker_and_no_sysroot(tmp_path):
    """The prebuilt demo needs no C library: the builtin linker maps libdemo.so itself, so it runs
    with an empty root that holds only the demo and its library."""
    import shutil
    from conftest import ROOT
    root = tmp_path / "root"
    root.mkdir()
    for f in ("demo", "libdemo.so"):
        shutil.copy2(ROOT / "bins" / "prebuilt" / f, root / f)
    e = emutrace(["--no-trace", "--root", str(root), "--cwd", "/", "/demo"])
    assert e.returncode == 0, e.stderr
    assert b"hello from the demo" in e.stdout and b"counter = 8" in e.stdout
    n = native([str(root / "demo")])
    assert e.stdout == n.stdout


def test_demo_trace_shows_library_calls():
    from conftest import ROOT
    e = emutrace(["-F", str(ROOT / "bins" / "prebuilt" / "libdemo.conf"), built("demo", "pie")])
    assert e.returncode == 0
    err = e.stderr.decode()
    assert 'demo_puts("hello from the demo")' in err
    assert "demo_add(2, 3)" in err and "= 5" in err
    assert "demo_apply(square, 7" in err
    assert "+++ exited (status 0) +++" in err


@pytest.mark.parametrize("loader", ["builtin", "interp"])
def test_demo_under_both_loaders(loader):
    """The builtin linker and the program's own ld.so give the same run."""
    from conftest import ROOT
    demo = str(ROOT / "bins" / "prebuilt" / "demo")
    e = emutrace(["--no-trace", "--loader", loader, demo])
    assert e.returncode == 0 and e.stdout == native([demo]).stdout


def test_forced_builtin_loader():
    """Static programs relocate themselves (nothing to link); a glibc program needs glibc's own
    dynamic linker, so forcing the builtin linker is refused with a clear reason."""
    sp = built("strings", "static-pie")
    e = emutrace(["--no-trace", "--loader", "builtin", sp, "/tmp"])
    assert e.returncode == 0 and b"strings done" in e.stdout
    e = emutrace(["--no-trace", "--loader", "builtin", built("strings", "pie")])
    assert e.returncode == 126 and e.stderr.startswith(b"emutrace: ") and b"use --loader interp" in e.stderr
    assert b"Traceback" not in e.stderr
