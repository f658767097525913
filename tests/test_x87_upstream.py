"""musl's strtod/strtof/strtold round some subnormals differently under emutrace: the cause is
Unicorn, not emutrace's FPU state. Unicorn 2.1 (QEMU 5.0's x86 helpers) computes FPREM and FPREM1
through host doubles, so a long double with more than 53 significant bits loses its low bits;
musl's fmodl is an FPREM loop and its decimal-to-binary conversion rounds subnormals with fmodl.
Hardware and qemu-user 7.2 give the right remainder. These are known upstream failures."""
import pytest

from conftest import built, emutrace, native

UNICORN_FPREM = "Unicorn 2.1 computes x87 FPREM/FPREM1 through host doubles (docs/limits.md)"


def _lines(run):
    return run.stdout.decode().splitlines()


@pytest.mark.xfail(strict=True, reason=UNICORN_FPREM)
def test_fprem_keeps_all_64_significand_bits():
    prog = built("fprem", "pie")
    assert _lines(emutrace(["--no-trace", prog]))[:2] == _lines(native([prog]))[:2] == \
        ["fprem(2^64-1, 2048) = 2047.0", "fprem1(2^64-1, 2048) = -1.0"]


@pytest.mark.xfail(strict=True, reason=UNICORN_FPREM)
def test_musl_strtod_rounds_the_largest_subnormal_like_native():
    prog = built("fprem", "musl-static")
    assert _lines(emutrace(["--no-trace", prog]))[2] == _lines(native([prog]))[2]


def test_glibc_strtod_rounds_the_largest_subnormal_like_native():
    """glibc converts with integer arithmetic: only musl's FPREM path is hit."""
    prog = built("fprem", "pie")
    assert _lines(emutrace(["--no-trace", prog]))[2] == _lines(native([prog]))[2] == \
        'strtod("2.2250738585072011e-308") = 0x0.fffffffffffffp-1022'
