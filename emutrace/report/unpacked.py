"""The report's unpacked code: each region the program wrote and then executed (found by the
machine's code watch, emutrace/machine/codewatch.py, on the `code_unpacked` phase), with the
process, the code that wrote it (address and module), when it first ran on the virtual clock,
its size and sha256. Its bytes are kept for --dump-dropped and YARA.

Two patterns read differently. A packer or loader writes a payload once and runs it: regions of
pattern `unpack`, the finding `unpacked-code`. A JIT compiler (node's V8, a regex or query
compiler) writes and rewrites code all the time: once a process rewrites code it has already run
in REWRITES_JIT regions or more (a region's `rounds` > 1: its pages were written, run, written
and run again), or rewrites one page more than the watch's rounds, or makes more than JIT_REGIONS
regions, all its regions are of pattern `jit`, and the finding is `jit-code` (low), not a false
`unpacked-code`. Node running any script shows it (V8 copies its builtins, then patches the code
it compiles)."""
from __future__ import annotations

from typing import Dict, List, Optional

from emutrace.loader.modules import module_at
from emutrace.machine.codewatch import UNSEEN

MAX_REGIONS = 256               # regions listed (the rest are counted)
MAX_KEPT = 64 << 20             # bytes of regions kept for dumps and YARA, over the whole run
JIT_REGIONS = 16                # regions of one process past which it is a JIT
REWRITES_JIT = 2                # regions rewritten after they ran that make a process a JIT


class Unpacked:
    def __init__(self, collector):
        self.c = collector
        self.regions: List[dict] = []
        self.data: List[Optional[bytes]] = []        # bytes of each region (None: not kept)
        self.jit_pages: Dict[int, int] = {}          # pid -> code pages rewritten past the watch's rounds
        self.dropped = 0
        self.kept = 0

    def install(self, hooks) -> None:
        hooks.on("code_unpacked", self.on_region)

    def _proc(self, aspace):
        procs = [p for p in self.c.processes if getattr(p, "aspace", None) is aspace]
        return procs[-1] if procs else None

    def on_region(self, aspace, r: dict) -> None:
        proc = self._proc(aspace)
        if proc is None:
            return
        if "jit_page" in r:
            self.jit_pages[proc.pid] = self.jit_pages.get(proc.pid, 0) + 1
            return
        if len(self.regions) >= MAX_REGIONS:
            self.dropped += 1
            return
        writer = r.get("writer")
        if writer == UNSEEN:            # (read before written: the store was not seen, codewatch.py)
            writer, module = None, "[not seen]"
        else:
            m = module_at(proc.modules, writer) if writer is not None else None
            module = m.path if m is not None else ("[system call]" if writer is None else "[anonymous]")
        eid = self.c.event(proc, "memory", "code-unpacked", address=r["address"], size=r["size"],
                           sha256=r["sha256"], writer=writer, writer_module=module)
        self.regions.append({"pid": proc.pid, "address": r["address"], "size": r["size"], "sha256": r["sha256"],
                             "writer": writer, "writer_module": module, "entry": r.get("entry"),
                             "mapping": r.get("mapping"), "rounds": r.get("rounds", 1),
                             "time_ns": self.c.world.elapsed_ns, "pattern": "unpack", "event": eid})
        data = r.get("data")
        if data is not None and self.kept + len(data) > MAX_KEPT:
            data = None                 # (listed and hashed, but not dumped or scanned)
        self.kept += len(data) if data is not None else 0
        self.data.append(data)

    def finish(self) -> None:
        """Name each region's pattern and mark the findings (before findings.derive)."""
        per_pid: Dict[int, int] = {}
        rewrites: Dict[int, int] = {}
        for u in self.regions:
            per_pid[u["pid"]] = per_pid.get(u["pid"], 0) + 1
            if u["rounds"] > 1:
                rewrites[u["pid"]] = rewrites.get(u["pid"], 0) + 1
        jit = ({pid for pid, n in per_pid.items() if n > JIT_REGIONS} | set(self.jit_pages)
               | {pid for pid, n in rewrites.items() if n >= REWRITES_JIT})
        for u in self.regions:
            u["pattern"] = "jit" if u["pid"] in jit else "unpack"
            if u["pattern"] == "unpack":
                self.c.mark("unpacked", u["event"], address=u["address"], size=u["size"], sha256=u["sha256"],
                            writer=u["writer"], writer_module=u["writer_module"])
        for pid in sorted(jit):
            first = next((u for u in self.regions if u["pid"] == pid), None)
            if first is not None:
                self.c.mark("jit", first["event"], pid=pid, regions=per_pid.get(pid, 0),
                            rewritten_pages=self.jit_pages.get(pid, 0))
        self.c.marks.setdefault("unpacked", [])

    def covers(self, address: int, size: int) -> bool:
        """A region lies inside [address, address + size): the permission guess is replaced."""
        return any(address <= u["address"] < address + size for u in self.regions)
