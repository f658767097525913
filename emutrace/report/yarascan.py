"""--yara RULES: YARA rules run over what the report saw: the sample itself, every dropped file,
every region of unpacked code, and the first process's memory at exit (its own image and its
writable mappings, as the strings are taken). Matches go into the report (`yara`) with where
they matched.

The binding is yara-x (VirusTotal's maintained rewrite of YARA in Rust; `pip install
'emutrace[yara]'`): an abi3 wheel for every platform emutrace runs on, with no C library to
build against, where yara-python needs libyara and a compiler. Rules are compiled before the
run starts, so a rule file that does not compile costs no run."""
from __future__ import annotations

import os
from typing import List, Optional

from emutrace.errors import EmutraceError

USAGE_STATUS = 125
RULE_SUFFIXES = (".yar", ".yara")
MAX_MEMORY = 64 << 20           # bytes of process memory scanned at exit
MAX_STRINGS = 16                # matched strings listed per match


def _missing() -> EmutraceError:
    return EmutraceError("--yara needs the yara-x package: pip install 'emutrace[yara]' (or pip install yara-x)",
                         USAGE_STATUS)


class Yara:
    """Compiled rules and the matches found so far."""

    def __init__(self, path: str):
        try:
            import yara_x       # deferred: only --yara needs it, and it is an optional extra
        except ImportError:
            raise _missing() from None
        self.yara_x = yara_x
        self.path = path
        files = _rule_files(path)
        compiler = yara_x.Compiler()
        for f in files:
            try:
                with open(f, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                compiler.new_namespace(os.path.splitext(os.path.basename(f))[0])
                compiler.add_source(text)
            except yara_x.CompileError as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else "does not compile"
                raise EmutraceError(f"--yara: {f}: {first}", USAGE_STATUS) from None
            except OSError as e:
                raise EmutraceError(f"--yara: {f}: {e.strerror}", USAGE_STATUS) from None
        self.rules = compiler.build()
        self.matches: List[dict] = []
        self.scanned = 0

    def scan(self, data: Optional[bytes], where: str, name: str, sha256: Optional[str] = None) -> None:
        if data is None:
            return
        self.scanned += 1
        scanner = self.yara_x.Scanner(self.rules)
        try:
            results = scanner.scan(data)
        except self.yara_x.ScanError as e:
            self.matches.append({"rule": "", "namespace": "", "where": where, "name": name, "sha256": sha256,
                                 "strings": [], "error": str(e)})
            return
        for rule in results.matching_rules:
            hits = [{"identifier": p.identifier, "offset": m.offset, "length": m.length}
                    for p in rule.patterns for m in p.matches][:MAX_STRINGS]
            self.matches.append({"rule": rule.identifier, "namespace": rule.namespace, "where": where,
                                 "name": name, "sha256": sha256, "strings": hits})

    def scan_memory(self, proc) -> None:
        """The process's own image and its anonymous mappings (heap, stack, what it mapped and
        unpacked), not the libraries' files, each mapping one object, at most MAX_MEMORY bytes."""
        aspace = proc.aspace
        if aspace is None:
            return
        budget = MAX_MEMORY
        for v in list(aspace.vmas):
            library = v.name and not v.name.startswith("[") and v.name != proc.exe
            if not v.prot & 1 or v.shm is not None or library:
                continue
            size = min(v.end - v.start, budget)
            if size <= 0:
                break
            data = aspace.peek(v.start, size)
            budget -= size
            if data and data.count(0) != len(data):
                self.scan(data, "memory", f"pid {proc.pid} {v.start:#x}-{v.start + size:#x} {v.name or '[anonymous]'}")

    def result(self) -> dict:
        return {"rules": self.path, "scanned": self.scanned, "matches": self.matches}


def _rule_files(path: str) -> List[str]:
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.lower().endswith(RULE_SUFFIXES))
        if not files:
            raise EmutraceError(f"--yara: {path}: no .yar or .yara file in it", USAGE_STATUS)
        return files
    if not os.path.exists(path):
        raise EmutraceError(f"--yara: {path}: no such file or folder", USAGE_STATUS)
    return [path]
