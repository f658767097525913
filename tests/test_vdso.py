"""emutrace's vDSO (emutrace/loader/vdso.py, docs/time.md): glibc (dynamic and static) and musl
find it through AT_SYSINFO_EHDR and read the work-driven clock in guest code, with no system
call; --no-vdso makes them system calls again; a guest that unmaps or hides it gets SIGSEGV at
its next use, as on Linux."""
import pytest

from conftest import built, emutrace, native, status_of

VARIANTS = ["pie", "static", "musl-static"]
CLOCK_CALLS = ("clock_gettime(", "gettimeofday(", "time(", "getcpu(")


def _clock_lines(trace: str):
    return [l for l in trace.splitlines() if l.startswith(CLOCK_CALLS)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_clock_is_read_without_system_calls(variant, tmp_path):
    exe = built("vdso", variant)
    out = tmp_path / "trace"
    r = emutrace(["--strace", "-o", str(out), exe, "clock"])
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode()
    assert "vdso mapped" in text
    # 100,000 rounds of a loop of 6 instructions: 600,000 ns at 1 ns per instruction, plus the
    # vDSO's own few instructions
    loop = int(text.split("loop ")[1].split()[0])
    assert 600_000 <= loop < 600_100
    assert "wall agrees 1" in text and "monotonic never behind 1" in text
    assert "res 1\n" in text and "cpu 0 node 0" in text
    assert _clock_lines(out.read_text()) == [] or variant == "musl-static"
    if variant == "musl-static":           # (musl reads getcpu through the system call)
        assert all(l.startswith("getcpu(") for l in _clock_lines(out.read_text()))


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_no_vdso_makes_them_system_calls_with_the_same_clock(variant, tmp_path):
    exe = built("vdso", variant)
    out = tmp_path / "trace"
    r = emutrace(["--no-vdso", "--strace", "-o", str(out), exe, "clock"])
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode()
    assert "vdso absent" in text and "wall agrees 1" in text
    loop = int(text.split("loop ")[1].split()[0])
    assert 600_000 <= loop < 603_000                # (+ one system call's modelled 1 µs)
    assert any(l.startswith("clock_gettime(CLOCK_MONOTONIC") for l in _clock_lines(out.read_text()))


@pytest.mark.parametrize("variant", ["pie", "musl-static"])
def test_a_loop_that_only_reads_the_clock_sees_it_advance(variant):
    r = emutrace(["--no-trace", built("vdso", variant), "spin"], timeout=600)
    assert r.returncode == 0 and r.stdout == b"spun many times\n", r.stderr


@pytest.mark.parametrize("how", ["unmap", "protect"])
def test_a_vdso_taken_away_faults_at_its_next_use(how):
    exe = built("vdso", "pie")
    assert status_of(native([exe, how])) == 139
    r = emutrace(["--strace", exe, how])
    assert status_of(r) == 139
    assert b"+++ killed by SIGSEGV +++" in r.stderr and b"Traceback" not in r.stderr


def test_ltrace_style_tracing_still_shows_the_calls():
    r = emutrace([built("vdso", "pie"), "clock"])
    calls = [l for l in r.stderr.decode().splitlines() if l.startswith("clock_gettime(")]
    assert len(calls) >= 4


def test_two_runs_are_byte_identical(tmp_path):
    exe = built("vdso", "pie")
    outs = []
    for i in range(2):
        r = emutrace(["--format", "jsonl", "-S", "-o", str(tmp_path / f"t{i}"), exe, "clock"])
        outs.append((r.stdout, (tmp_path / f"t{i}").read_bytes()))
    assert outs[0] == outs[1]
