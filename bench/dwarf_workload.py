"""bench/ workload `dwarf`: what --ftrace -a (arguments and return values from DWARF, issue 38)
costs against today's --ftrace.

- start-up: bins/dwlibc (-O0 -g), whose three libc calls the prototype database lacks, so their
  types come from libc's debug file (libc6-dbg: ~10 MB of DWARF, 4 MB zlib-compressed). Cold:
  `EMUTRACE_CACHE=` (no metadata cache: every run reads and parses), against --ftrace with the
  same cache off; warm: the default cache, filled by the warm-up run.
- start-up, a program with 10 MB of its own DWARF (`dwbig`, generated here: 32 units of 100
  structures of 200 members and 10 functions each, built -g -O0 with every type kept); its main
  calls a function of every unit, so a cold run reads every unit.
- per call: bins/fib (-O0 -g) at two sizes: ((-a − --ftrace) at the large N − the same at the
  small N) / (calls at the large N − calls at the small N), the fixed costs cancelling."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, List, Sequence

NAMES = ("dwarf",)
TOOLS = ("native", "emutrace-ftrace", "emutrace-ftrace-args", "emutrace-ftrace-cold", "emutrace-ftrace-args-cold")
LABELS = {
    "emutrace-ftrace": "emutrace --ftrace",
    "emutrace-ftrace-args": "emutrace --ftrace -a",
    "emutrace-ftrace-cold": "emutrace --ftrace, EMUTRACE_CACHE=",
    "emutrace-ftrace-args-cold": "emutrace --ftrace -a, EMUTRACE_CACHE=",
}
FIB_N, FIB_N_QUICK = (15, 20), (12, 16)


def fib_calls(n: int) -> int:
    """Functions fib(n) calls, itself included: fib's C(n) = 1 + C(n-1) + C(n-2), C(0) = C(1) = 1,
    and one leaf() per fib(0) or fib(1), (C(n) + 1) / 2 of them."""
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, 1 + a + b
    c = b if n else 1
    return c + (c + 1) // 2


def command(tool: str, argv: List[str], trace: Path, clock) -> List[str]:
    cold = ["/usr/bin/env", "EMUTRACE_CACHE="] if tool.endswith("-cold") else []
    args = ["-a"] if "-args" in tool else []
    return cold + [sys.executable, "-m", "emutrace", "--inherit-env", "--clock", str(clock), "--ftrace", *args,
                   "-o", str(trace)] + argv


BIG = (32, 100, 210, 10)          # units, structures per unit, members per structure, functions per unit


def _big_sources(units: int, structs: int, members: int, funcs: int) -> dict:
    """name → C source of the generated program (see the module docstring)."""
    out = {}
    for k in range(units):
        lines = []
        for j in range(structs):
            lines.append(f"enum e{k}_{j} {{ " + ", ".join(f"E{k}_{j}_{v} = {1 << v}" for v in range(12)) + " };")
            lines.append(f"struct s{k}_{j} {{ int a; double c; const char *name; enum e{k}_{j} mode; "
                         f"unsigned short flags[4]; struct s{k}_{j} *next; "
                         + " ".join(f"int m{i};" for i in range(members)) + " };")
        for j in range(funcs):
            t = (j * 7) % structs
            lines.append(f"__attribute__((noinline)) int f{k}_{j}(struct s{k}_{t} *p, int x, enum e{k}_{t} e) "
                         f"{{ return p->m{j} + x + (int)e + p->a; }}")
        lines.append(f"int cu{k}(void) {{ struct s{k}_0 s = {{0}}; int t = 0; "
                     + " ".join(f"t += f{k}_{j}((void *)&s, {j}, E{k}_{(j * 7) % structs}_1);" for j in range(funcs))
                     + " return t; }")
        out[f"cu{k}.c"] = "\n".join(lines) + "\n"
    out["main.c"] = ("#include <stdio.h>\n" + "".join(f"int cu{k}(void);\n" for k in range(units))
                     + "int main(void) { long t = 0; " + " ".join(f"t += cu{k}();" for k in range(units))
                     + ' printf("%ld\\n", t); return 0; }\n')
    return out


def big_program() -> Path:
    """bins/out/dwbig/dwbig, built once per generator (its sources' hash names the build)."""
    srcs = _big_sources(*BIG)
    tag = hashlib.sha256("".join(srcs[n] for n in sorted(srcs)).encode()).hexdigest()[:12]
    d = Path(__file__).resolve().parent.parent / "bins" / "out" / "dwbig"
    exe = d / f"dwbig-{tag}"
    if not exe.exists():
        d.mkdir(parents=True, exist_ok=True)
        for name, text in srcs.items():
            (d / name).write_text(text)
        tmp = d / f".dwbig-{os.getpid()}"
        subprocess.run(["gcc", "-g", "-O0", "-fno-eliminate-unused-debug-types", "-o", str(tmp)]
                       + [str(d / n) for n in sorted(srcs)], check=True)
        os.replace(tmp, exe)
    return exe


def cases(only: Sequence[str], quick: bool, make_case: Callable, build) -> list:
    if "dwarf" not in only:
        return []
    out = [make_case("dwarf", "dwarf: start-up, libc's DWARF (dwlibc)", [str(build("dwlibc", "g"))]),
           make_case("dwarf", "dwarf: start-up, 10 MB of the program's DWARF (dwbig)", [str(big_program())])]
    fib = str(build("fib", "g"))
    for n in (FIB_N_QUICK if quick else FIB_N):
        out.append(make_case("dwarf", f"dwarf: fib({n}) -O0 -g", [fib, str(n)], size=n))
    return out


def render(cases_: list, results, fmt_time: Callable, fmt_cost: Callable) -> List[str]:
    mine = [c for c in cases_ if c.workload == "dwarf"]
    if not mine:
        return []

    def med(c, t):
        r = results.get((c.label, t))
        return r.median if r is not None else None
    L = ["### --ftrace -a: arguments from DWARF against --ftrace", "",
         "| workload | " + " | ".join(LABELS.get(t, t) for t in TOOLS) + " |",
         "|---|" + "---:|" * len(TOOLS)]
    for c in mine:
        L.append(f"| {c.label} | " + " | ".join(fmt_time(med(c, t)) for t in TOOLS) + " |")
    fibs = sorted((c for c in mine if c.size), key=lambda c: c.size)
    if len(fibs) >= 2:
        lo, hi = fibs[0], fibs[-1]
        calls = fib_calls(hi.size) - fib_calls(lo.size)
        parts = [med(hi, "emutrace-ftrace-args"), med(hi, "emutrace-ftrace"), med(lo, "emutrace-ftrace-args"),
                 med(lo, "emutrace-ftrace")]
        if None not in parts and calls > 0:
            per_args = (parts[0] - parts[2]) / calls
            per_plain = (parts[1] - parts[3]) / calls
            L += ["", f"Per traced call: --ftrace {fmt_cost(per_plain)}, --ftrace -a {fmt_cost(per_args)} "
                  f"(fib: one int argument, an int return; {calls:,} calls between the two sizes)."]
    return L + [""]
