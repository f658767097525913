"""Aligning two jsonl traces: where do two runs first part ways, and which calls changed count?

A trace (`emutrace --format jsonl`, or Session.write_trace) is one JSON object per event, with
the fields of emutrace.events. Two traces are compared as sequences of steps, one per call,
system call, signal and exit, keyed by what happened and not by when or where:

    call     (kind, name)          kind is "call", or "function" for --ftrace
    syscall  ("syscall", name)
    signal   ("signal", name)
    exit     ("exit", "status N" or the signal's name)

ids, pids, addresses, times and return events are ignored (a return is shown beside its call).
With `args=True` the arguments are part of the key too, with pointers masked (hex numbers of
six digits or more in decoded call arguments; raw syscall arguments of 0x100000 and more), so
only values that mean something across builds are compared.

The alignment runs on what is left between the common prefix and the common suffix (so long
identical stretches cost nothing): difflib's (longest matching blocks, no junk heuristic) when
that is small, Myers' shortest edit script when it is large (see _opcodes).
"""
from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

from emutrace.record import field, record

STEP_TYPES = ("call", "syscall", "signal", "exit")
_POINTER = re.compile(r"0x[0-9a-fA-F]{6,}")


class TraceError(ValueError):
    """A file that is not a readable jsonl trace; the message names the file and line."""


@record
class Step:
    key: Tuple[str, ...]
    line: int                       # line number in its file (1-based)
    text: str                       # how the report shows it
    kind: str                       # call | function | syscall | signal | exit
    name: str


@record
class Trace:
    path: str
    steps: List[Step] = field(default_factory=list)
    events: int = 0                 # every event of the file, returns included


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def load(path: str, args: bool = False) -> Trace:
    """Read a jsonl trace; TraceError for anything that is not one."""
    try:
        f = open(path, "r", encoding="utf-8", errors="surrogateescape")
    except OSError as e:
        raise TraceError(f"{path}: {e.strerror or e}") from None
    tr = Trace(path)
    calls: Dict[Tuple[int, int], Step] = {}
    with f:
        try:
            for no, raw in enumerate(f, 1):
                raw = raw.strip()
                if not raw:
                    continue
                try:
                    ev = json.loads(raw)
                except ValueError as e:
                    hint = " (is it a trace made with --format jsonl?)" if tr.events == 0 else ""
                    raise TraceError(f"{path}:{no}: not JSON: {e.msg}{hint}") from None
                if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
                    raise TraceError(f"{path}:{no}: not a trace event (an object with a \"type\")")
                tr.events += 1
                step = _step(ev, no, path, args)
                if step is not None:
                    tr.steps.append(step)
                    if ev["type"] == "call" and "id" in ev:
                        calls[(ev.get("pid", 0), ev["id"])] = step
                elif ev["type"] == "return":
                    c = calls.pop((ev.get("pid", 0), ev.get("id")), None)
                    if c is not None and isinstance(ev.get("ret"), str):
                        if isinstance(ev.get("args"), list):
                            c.text = f"{c.name}({', '.join(map(str, ev['args']))})"
                        c.text += " <unwound>" if ev.get("unwound") else f" = {ev['ret']}"
        except UnicodeDecodeError as e:
            raise TraceError(f"{path}: not text: {e}") from None
        except OSError as e:
            raise TraceError(f"{path}: {e.strerror or e}") from None
    return tr


def _field(ev: dict, name: str, typ, path: str, no: int):
    v = ev.get(name)
    if not isinstance(v, typ):
        raise TraceError(f"{path}:{no}: a {ev['type']} event without a valid \"{name}\"")
    return v


def _step(ev: dict, no: int, path: str, with_args: bool) -> Optional[Step]:
    t = ev["type"]
    if t == "call":
        name = _field(ev, "name", str, path, no)
        kind = ev.get("kind") if isinstance(ev.get("kind"), str) else "call"
        a = ev.get("args") if isinstance(ev.get("args"), list) else []
        key = (kind, name) + ((tuple(_POINTER.sub("0x…", str(x)) for x in a),) if with_args else ())
        return Step(key, no, f"{name}({', '.join(map(str, a))})", kind, name)
    if t == "syscall":
        name = _field(ev, "name", str, path, no)
        line = ev.get("line") if isinstance(ev.get("line"), str) and ev.get("line") else name
        key = ("syscall", name)
        if with_args and isinstance(ev.get("args"), list):       # raw values: big ones are addresses
            key += (tuple("0x…" if isinstance(x, int) and abs(x) >= 0x100000 else str(x) for x in ev["args"]),)
        return Step(key, no, line, "syscall", name)
    if t == "signal":
        name = ev.get("name") if isinstance(ev.get("name"), str) and ev.get("name") else str(ev.get("signo"))
        return Step(("signal", name), no, ev.get("line") or f"--- {name} ---", "signal", name)
    if t == "exit":
        sig = ev.get("signal") or 0
        what = (ev.get("signal_name") or f"signal {sig}") if sig else f"status {ev.get('status', 0)}"
        return Step(("exit", what), no, f"+++ {'killed by ' if sig else 'exited with '}{what} +++", "exit", what)
    return None


@record
class Hunk:
    tag: str                        # replace | delete | insert
    a: Tuple[int, int]              # step index range in A
    b: Tuple[int, int]


@record
class Comparison:
    a: Trace
    b: Trace
    hunks: List[Hunk]
    counts: List[Tuple[str, str, int, int]]     # (kind, name, count in A, count in B) that differ

    @property
    def equal(self) -> bool:
        return not self.hunks


DIFFLIB_MAX = 2_000_000          # len(a) * len(b) up to which difflib aligns the middle
MYERS_MAX_D = 3000              # edits beyond which the middle is reported as one change


def _opcodes(a: Sequence, b: Sequence) -> List[Tuple[str, int, int, int, int]]:
    """Non-equal (tag, i1, i2, j1, j2) ranges aligning a with b.

    difflib's SequenceMatcher (autojunk off) for small inputs; for large ones, where its
    longest-match search is quadratic on traces made of few distinct calls, Myers' O((N+M)·D)
    shortest edit script, which is fast when the traces mostly agree. Past MYERS_MAX_D edits the
    whole range is one replacement (the first divergence is still exact)."""
    if not a and not b:
        return []
    if len(a) * len(b) <= DIFFLIB_MAX:
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        return [op for op in sm.get_opcodes() if op[0] != "equal"]
    blocks = _myers_blocks(a, b, MYERS_MAX_D)
    if blocks is None:
        return [("replace" if a and b else "delete" if a else "insert", 0, len(a), 0, len(b))]
    out, i, j = [], 0, 0
    for bi, bj, size in blocks + [(len(a), len(b), 0)]:
        if bi > i or bj > j:
            out.append(("replace" if bi > i and bj > j else "delete" if bi > i else "insert", i, bi, j, bj))
        i, j = bi + size, bj + size
    return out


def _myers_blocks(a: Sequence, b: Sequence, max_d: int) -> Optional[List[Tuple[int, int, int]]]:
    """Matching blocks (i, j, size) of a shortest edit script, or None past max_d edits."""
    n, m = len(a), len(b)
    off = max_d + 1
    v = [0] * (2 * max_d + 3)
    trace: List[List[int]] = []
    for d in range(max_d + 1):
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]):
                x = v[off + k + 1]
            else:
                x = v[off + k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[off + k] = x
            if x >= n and y >= m:
                trace.append(v[off - d - 1:off + d + 2])
                return _backtrack(trace, n, m)
        trace.append(v[off - d - 1:off + d + 2])    # V[-d-1 .. d+1] after step d
    return None


def _backtrack(trace: List[List[int]], n: int, m: int) -> List[Tuple[int, int, int]]:
    blocks = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        prev = trace[d - 1]                 # V[-(d-1)-1 .. (d-1)+1]; index of k is k + d
        k = x - y
        get = lambda kk: prev[kk + d]
        if k == -d or (k != d and get(k - 1) < get(k + 1)):
            pk = k + 1
            px = get(pk)
            sx, sy = px, px - pk + 1        # a step down (insertion), then the snake
        else:
            pk = k - 1
            px = get(pk)
            sx, sy = px + 1, px - pk        # a step right (deletion), then the snake
        if x > sx:
            blocks.append((sx, sy, x - sx))
        x, y = px, px - pk
    if x > 0:
        blocks.append((0, 0, x))
    blocks.reverse()
    return blocks


def compare(a: Trace, b: Trace) -> Comparison:
    ka = [s.key for s in a.steps]
    kb = [s.key for s in b.steps]
    pre = 0
    while pre < len(ka) and pre < len(kb) and ka[pre] == kb[pre]:
        pre += 1
    suf = 0
    while suf < len(ka) - pre and suf < len(kb) - pre and ka[-1 - suf] == kb[-1 - suf]:
        suf += 1
    hunks = []
    for tag, i1, i2, j1, j2 in _opcodes(ka[pre:len(ka) - suf], kb[pre:len(kb) - suf]):
        hunks.append(Hunk(tag, (pre + i1, pre + i2), (pre + j1, pre + j2)))
    ca = Counter((s.kind, s.name) for s in a.steps if s.kind != "exit")
    cb = Counter((s.kind, s.name) for s in b.steps if s.kind != "exit")
    counts = sorted(((k, n, ca[(k, n)], cb[(k, n)]) for (k, n) in set(ca) | set(cb) if ca[(k, n)] != cb[(k, n)]),
                    key=lambda r: (r[0] != "call" and r[0] != "function", r[0], r[1]))
    return Comparison(a, b, hunks, counts)


def _label(kind: str) -> str:
    return {"call": "call", "function": "func", "syscall": "sys", "signal": "sig", "exit": "exit"}.get(kind, kind)


def _show(mark: str, which: str, step: Step) -> str:
    return f"{mark} {which}:{step.line:<6} {_label(step.kind):<4} {_short(step.text)}"


def format_report(c: Comparison, context: int = 3, all_hunks: bool = False) -> str:
    """The report `emutrace diff` prints (see cmds/diff.py)."""
    a, b = c.a, c.b
    out = []
    if c.equal:
        out.append(f"traces are the same: {len(a.steps)} steps ({a.path}: {a.events} events, "
                   f"{b.path}: {b.events} events)")
        return "\n".join(out) + "\n"
    out.append(f"--- {a.path} ({len(a.steps)} steps)")
    out.append(f"+++ {b.path} ({len(b.steps)} steps)")
    shown = c.hunks if all_hunks else c.hunks[:1]
    for n, h in enumerate(shown):
        i1, i2 = h.a
        j1, j2 = h.b
        where_a = f"{a.path}:{a.steps[i1].line}" if i1 < len(a.steps) else f"end of {a.path}"
        where_b = f"{b.path}:{b.steps[j1].line}" if j1 < len(b.steps) else f"end of {b.path}"
        title = "first divergence" if n == 0 else "divergence"
        out.append(f"{title} at step {i1 + 1} of A ({where_a}), step {j1 + 1} of B ({where_b}):")
        for k in range(max(0, i1 - context), i1):
            out.append(_show(" ", "A", a.steps[k]))
        for k in range(i1, i2):
            out.append(_show("-", "A", a.steps[k]))
        for k in range(j1, j2):
            out.append(_show("+", "B", b.steps[k]))
        for k in range(i2, min(len(a.steps), i2 + context)):
            out.append(_show(" ", "A", a.steps[k]))
    rest = len(c.hunks) - len(shown)
    changed_a = sum(h.a[1] - h.a[0] for h in c.hunks)
    changed_b = sum(h.b[1] - h.b[0] for h in c.hunks)
    out.append(f"{len(c.hunks)} difference{'s' if len(c.hunks) != 1 else ''}: {changed_a} step"
               f"{'s' if changed_a != 1 else ''} only in A, {changed_b} only in B"
               + (f" ({rest} more not shown; --all shows them)" if rest else ""))
    if c.counts:
        out.append("")
        out.append("counts that differ:")
        w = max(8, max(len(n) for _, n, _, _ in c.counts))
        out.append(f"  {'kind':<4}  {'name':<{w}}  {'A':>7}  {'B':>7}  {'B-A':>7}")
        for kind, name, na, nb in c.counts:
            out.append(f"  {_label(kind):<4}  {name:<{w}}  {na:>7}  {nb:>7}  {nb - na:>+7}")
    return "\n".join(out) + "\n"
