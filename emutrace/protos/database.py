"""The prototype database: the built-in .conf files in their order, then the user's (-F), parsed
once and kept in the metadata cache, unpickled one prototype at a time as a run asks for them."""
from __future__ import annotations

import os
import pickle
from typing import Dict, Iterable, List, Optional

from emutrace.machine.cache import cached, key_of
from emutrace.protos.parser import parse_conf
from emutrace.protos.types import Prototype, Type

_HERE = os.path.dirname(os.path.abspath(__file__))
_ORDER = ["libc.conf", "libm.conf", "libstdcxx.conf"]
_COMPAT = "compat-ltrace.conf"


def builtin_conf_files() -> List[str]:
    names = [n for n in sorted(os.listdir(_HERE)) if n.endswith(".conf") and n != _COMPAT]
    ordered = [n for n in _ORDER if n in names] + [n for n in names if n not in _ORDER]
    return [os.path.join(_HERE, n) for n in ordered]


class PrototypeDB:
    """name -> Prototype, plus the typedefs seen while loading.

    Pickled (the on-disk cache) one prototype per entry, and unpickled one by one as they are
    asked for: a run needs a few hundred of the ~1600, and unpickling them all took longer than
    everything else at start-up but the interpreter."""

    def __init__(self):
        self.protos: Dict[str, Prototype] = {}
        self._typedefs: Optional[Dict[str, Type]] = {}
        self._typedefs_blob: Optional[bytes] = None
        self._packed: Dict[str, bytes] = {}
        self.files: List[str] = []

    @property
    def typedefs(self) -> Dict[str, Type]:
        if self._typedefs is None:
            self._typedefs = pickle.loads(self._typedefs_blob)
            self._typedefs_blob = None
        return self._typedefs

    def __getstate__(self):
        packed = dict(self._packed)
        for name, p in self.protos.items():
            packed[name] = pickle.dumps(p, pickle.HIGHEST_PROTOCOL)
        return {"packed": packed, "typedefs": pickle.dumps(self.typedefs, pickle.HIGHEST_PROTOCOL),
                "files": self.files}

    def __setstate__(self, state):
        self.protos = {}
        self._packed = state["packed"]
        self._typedefs, self._typedefs_blob = None, state["typedefs"]
        self.files = state["files"]

    def _lookup(self, name: str) -> Optional[Prototype]:
        p = self.protos.get(name)
        if p is None:
            blob = self._packed.pop(name, None)
            if blob is not None:
                p = self.protos[name] = pickle.loads(blob)
        return p

    def load_text(self, text: str, filename: str) -> Dict[str, Prototype]:
        got = parse_conf(text, filename, self.typedefs)
        for name in got:
            self._packed.pop(name, None)
        self.protos.update(got)
        self.files.append(filename)
        return got

    def get(self, name: str) -> Optional[Prototype]:
        p = self.protos.get(name)
        if p is None:
            p = self._lookup(name)
            if p is None and "@" in name:
                p = self._lookup(name.split("@", 1)[0])
        return p

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __getitem__(self, name: str) -> Prototype:
        p = self.get(name)
        if p is None:
            raise KeyError(name)
        return p

    def __len__(self) -> int:
        return len(self.protos) + len(self._packed)

    def __iter__(self):
        return iter(list(self.protos) + list(self._packed))

    def names(self) -> List[str]:
        return sorted(list(self.protos) + list(self._packed))


def load_prototypes(extra_files: Optional[Iterable[str]] = None, builtin: bool = True,
                    ltrace_compat: bool = False) -> PrototypeDB:
    """The built-in prototypes (unless ``builtin`` is False: ltrace's ``-F``
    without the defaults is then ``load_prototypes(files, builtin=False)``),
    then ``extra_files`` in order; later definitions win."""
    files = (builtin_conf_files() if builtin else []) + \
        ([os.path.join(_HERE, _COMPAT)] if builtin and ltrace_compat else []) + list(extra_files or ())
    texts = []
    for path in files:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            texts.append((path, f.read()))

    def parse_all() -> PrototypeDB:
        db = PrototypeDB()
        for path, text in texts:
            db.load_text(text, path)
        return db

    # parsing ~1600 prototypes costs ~0.2 s: a warm run loads them parsed, keyed by the texts
    key = key_of([t.encode() for _, t in texts] + [p.encode() for p, _ in texts] + [b"packed-db"])
    return cached("protos", key, parse_all)
