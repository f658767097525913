"""The x87/SSE state (Machine.fp_state/set_fp_state, one batched call each way) crosses a signal
handler and a fork as on Linux: the rounding mode a handler changes comes back at sigreturn, a
forked child keeps its parent's, and long-double results print as natively. Compiled and pure
event paths."""
import shutil
import subprocess

import pytest

from conftest import emutrace

SRC = r"""
#include <fenv.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile double sink;
static void handler(int s) {
    (void)s;
    fesetround(FE_UPWARD);
    double x = 1.0;
    for (int i = 0; i < 10; i++) x = x * 3.1 + 0.7;
    sink = x + (double)(1.0L / 3);
}
int main(void) {
    signal(SIGUSR1, handler);
    fesetround(FE_TOWARDZERO);
    volatile long double a = 2.0L / 3.0L, b = 7.0L / 9.0L;
    volatile double v = 1.0 / 3.0;
    raise(SIGUSR1);
    printf("after signal: %.20Lf %.17g %d\n", a * b, v * 3.0, fegetround() == FE_TOWARDZERO);
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        printf("child: %.20Lf %.17g %d\n", a / b, v * 2.0, fegetround() == FE_TOWARDZERO);
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    printf("parent: %.20Lf %d\n", a + b, fegetround() == FE_TOWARDZERO);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
@pytest.mark.parametrize("pure", [False, True])
def test_fp_state_across_signal_and_fork_like_native(tmp_path, pure):
    (tmp_path / "fp.c").write_text(SRC)
    exe = tmp_path / "fp"
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(tmp_path / "fp.c"), "-lm"], check=True)
    native = subprocess.run([str(exe)], capture_output=True, check=True).stdout
    assert native.count(b" 1\n") == 3
    r = emutrace(["--no-trace", str(exe)], env={"EMUTRACE_PURE": "1"} if pure else None)
    assert r.returncode == 0, r.stderr
    assert r.stdout == native
