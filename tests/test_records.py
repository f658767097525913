"""emutrace.record (the cheap dataclass) and the cached ELF model built from it."""
import pickle
from typing import ClassVar, List, Optional

import pytest
from conftest import system_program

from emutrace.record import FrozenInstanceError, asdict, field, fields, record, replace


@record
class Point:
    x: int
    y: int = 0
    tags: List[str] = field(default_factory=list)
    note: Optional[str] = field(default=None, repr=False, compare=False)
    kind: ClassVar[str] = "point"            # not a field


@record(frozen=True)
class Key:
    name: str
    version: Optional[str] = None


@record(eq=False)
class Node:
    value: int


@record
class Checked:
    lo: int
    hi: int
    width: int = field(default=0)

    def __post_init__(self):
        self.width = self.hi - self.lo


def test_init_defaults_and_factories():
    p = Point(1)
    assert (p.x, p.y, p.tags, p.note) == (1, 0, [], None)
    q = Point(2, y=3, tags=["a"])
    assert q.tags == ["a"] and Point(1).tags is not p.tags      # a new list per instance
    assert [f.name for f in fields(Point)] == ["x", "y", "tags", "note"]
    assert Point.kind == "point" and Point.y == 0
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Point(1, 2, [], None, 5)


def test_init_is_compiled_at_the_first_instance():
    """A record class's __init__ is compiled when the first instance is made (a run uses only
    some of the classes it imports), then replaces the stand-in; a subclass that is not a record
    and calls it through super() gets the same fields."""
    @record
    class Late:
        a: int
        b: str = "b"
        c: List[int] = field(default_factory=list)

    class Child(Late):
        def __init__(self, a):
            super().__init__(a, c=[a])

    stand_in = Late.__dict__["__init__"]
    child = Child(3)                       # (the first call comes through the subclass)
    assert (child.a, child.b, child.c) == (3, "b", [3])
    assert Late.__dict__["__init__"] is not stand_in
    assert Late(1) == Late(1, "b", []) and Late(a=2, b="x").b == "x"
    with pytest.raises(TypeError):
        Late()
    assert stand_in(Late.__new__(Late), 5, "y") is None      # a kept reference still works


def test_repr_eq_and_hash_follow_dataclasses():
    assert repr(Point(1, 2)) == "Point(x=1, y=2, tags=[])"          # note: repr=False
    assert Point(1, 2, note="a") == Point(1, 2, note="b")           # note: compare=False
    assert Point(1, 2) != Point(1, 3) and Point(1) != (1, 0, [], None)
    with pytest.raises(TypeError):
        hash(Point(1))                                              # mutable and == : unhashable
    assert hash(Key("a")) == hash(Key("a")) and {Key("a"): 1}[Key("a")] == 1
    a, b = Node(1), Node(1)
    assert a != b and a == a and len({a, b}) == 2                   # eq=False: identity


def test_frozen_records_refuse_assignment():
    k = Key("a")
    with pytest.raises(FrozenInstanceError):
        k.name = "b"
    with pytest.raises(AttributeError):
        del k.version
    assert replace(k, version="v1") == Key("a", "v1") and k.version is None


def test_post_init_and_field_order_errors():
    assert Checked(2, 10).width == 8
    with pytest.raises(TypeError):
        @record
        class Bad:
            a: int = 0
            b: int
    with pytest.raises(ValueError):
        @record
        class Shared:
            items: list = []


def test_asdict_copies_containers_and_nested_records():
    @record
    class Outer:
        p: Point
        keys: List[Key]
    o = Outer(Point(1, tags=["t"]), [Key("k")])
    d = asdict(o)
    assert d == {"p": {"x": 1, "y": 0, "tags": ["t"], "note": None},
                 "keys": [{"name": "k", "version": None}]}
    d["p"]["tags"].append("u")
    assert o.p.tags == ["t"]


def test_records_pickle_round_trip():
    for v in (Point(1, 2, ["a"]), Key("a", "v"), Checked(1, 4)):
        assert pickle.loads(pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)) == v
    k = pickle.loads(pickle.dumps(Key("a")))
    with pytest.raises(FrozenInstanceError):
        k.name = "b"


def test_elf_model_survives_the_cache_with_tuple_records(tmp_path, monkeypatch):
    """Symbols, relocations, sections and segments are tuples that unpickle in C; a model read
    back from the on-disk cache equals the parsed one, under whatever path it is read."""
    import shutil
    from emutrace.loader import elf as E
    monkeypatch.setenv("EMUTRACE_CACHE", str(tmp_path / "cache"))
    src = system_program("true")
    data = open(src, "rb").read()
    parsed = E.parse_elf(src, data)
    E._MEMO.clear()
    first = E.read_elf(src, data)                   # parsed and written to the cache
    E._MEMO.clear()
    again = E.read_elf("/elsewhere/true", data)     # read back from it
    assert len(list((tmp_path / "cache").iterdir())) == 1
    assert again.path == "/elsewhere/true" and first.path == src
    for name in ("segments", "sections", "dynsyms", "symtab", "relocs", "plt_relocs"):
        assert getattr(again, name) == getattr(parsed, name), name
    sym = next(s for s in again.dynsyms if s.name)
    assert type(sym) is E.Symbol and sym.defined == (sym.shndx != E.SHN_UNDEF)
    assert sym._replace(size=1).size == 1 and sym.name == sym[0]


def test_large_tables_come_from_the_cache_when_first_used(tmp_path, monkeypatch):
    """A warm read of a model does not make its large tables (node's 185,000 symbols took 0.8 s
    of every run, --no-trace runs too, which never read them; libjvm's 100,000 relocations
    0.37 s): they come back packed, are unpacked on first use, and read as the parsed lists."""
    import shutil
    from emutrace.loader import elf as E
    monkeypatch.setenv("EMUTRACE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(E, "PACKED_TABLE_MIN", 1)             # (/bin/true's tables are small)
    src = system_program("true")
    data = open(src, "rb").read()
    parsed = E.parse_elf(src, data)
    assert type(parsed.dynsyms) is list and len(parsed.dynsyms) > 1 and parsed.relocs
    E._MEMO.clear()
    E.read_elf(src, data)                                     # parsed and written to the cache
    E._MEMO.clear()
    again = E.read_elf(src, data)                             # read back from it
    syms = again.dynsyms
    assert isinstance(syms, E.PackedTable) and syms._list is None
    assert len(syms) == len(parsed.dynsyms) and syms
    assert syms._list is None                                 # (length and truth unpack nothing)
    assert syms[1] == parsed.dynsyms[1] and list(syms) == parsed.dynsyms
    assert syms == parsed.dynsyms and parsed.dynsyms == syms and not syms != parsed.dynsyms
    assert next(reversed(syms)) == parsed.dynsyms[-1] and parsed.dynsyms[1] in syms
    assert isinstance(again.relocs, E.PackedTable)
    assert again.plt_relocs + again.relocs == parsed.plt_relocs + parsed.relocs
    assert again.relocs + [] == parsed.relocs == [] + again.relocs


def test_elf_models_of_host_files_are_keyed_by_version_not_contents(tmp_path, monkeypatch):
    """A host file read with its version (inode, size, mtime, ctime) is never hashed; a file
    rewritten in place has a new version and is parsed again."""
    import shutil
    from emutrace.loader import elf as E
    from emutrace.kernel.hosttree import DirTree
    monkeypatch.setenv("EMUTRACE_CACHE", str(tmp_path / "cache"))
    hashed = []
    real = E.blake2b                                            # (the loader's name for the digest)
    monkeypatch.setattr(E, "blake2b", lambda data, **kw: (hashed.append(len(data)), real(data, **kw))[1])
    lib = tmp_path / "libx.so"
    shutil.copy(system_program("true"), lib)
    tree = DirTree("/")
    E._MEMO.clear()
    data, version = tree.read_versioned(str(lib))
    first = E.read_elf("/lib/libx.so", data, version)
    assert version is not None and max(hashed) < 1000          # the version was hashed, not 30 KB
    again = E.read_elf("/lib/libx.so", *tree.read_versioned(str(lib)))
    assert again is first                                      # memoized by version
    other = system_program("sh")
    lib.write_bytes(open(other, "rb").read())                  # rewritten in place
    data2, version2 = tree.read_versioned(str(lib))
    assert version2 != version
    E._MEMO.clear()
    second = E.read_elf("/lib/libx.so", data2, version2)
    assert second.dynsyms == E.parse_elf(other, data2).dynsyms != first.dynsyms
    E._MEMO.clear()
    assert E.read_elf("/lib/libx.so", data, version).dynsyms == first.dynsyms   # from the disk cache


def test_memoized_gives_the_model_of_a_version_read_before_without_reading(tmp_path, monkeypatch):
    """session._on_mmap asks memoized first: the loader read libc (2 MB) before ld.so maps it."""
    import shutil
    from emutrace.loader import elf as E
    from emutrace.kernel.hosttree import DirTree
    monkeypatch.setenv("EMUTRACE_CACHE", str(tmp_path / "cache"))
    tree = DirTree("/")
    E._MEMO.clear()
    lib = system_program("true")
    data, version = tree.read_versioned(lib)
    assert E.memoized("/lib/x", version) is None               # nothing made yet
    model = E.read_elf("/lib/x", data, version)
    assert E.memoized("/lib/x", version) is model
    assert E.memoized("/lib/other", version) is None           # (the caller's path is part of the key)
    assert E.memoized("/lib/x", None) is None                  # no version: the caller reads and hashes


def test_record_inits_are_compiled_once_across_runs(tmp_path, monkeypatch):
    """emutrace.codecache: a source compiled in one run is read back in the next (here:
    the module's memory emptied, as a new process has it); a changed source compiles afresh; a
    corrupt file or no cache directory only means compiling."""
    from emutrace import codecache as C
    monkeypatch.setenv("EMUTRACE_CACHE", str(tmp_path / "cache"))
    compiles = []
    monkeypatch.setattr(C, "_compile", lambda *a: (compiles.append(a[0]), compile(*a))[1])
    monkeypatch.setattr(C, "_codes", None)
    src = "def __init__(self, a):\n  self.a = a\n"

    def init_of(code):
        ns = {}
        exec(code, {}, ns)
        return ns["__init__"]

    init_of(C.compiled(src))
    assert compiles == [src]
    monkeypatch.setattr(C, "_codes", None)                      # the next run
    obj = type("O", (), {})()
    init_of(C.compiled(src))(obj, 5)
    assert obj.a == 5 and compiles == [src]                     # read back, not compiled
    changed = src.replace("self.a = a", "self.a = a + 1")
    init_of(C.compiled(changed))
    assert compiles == [src, changed]
    (tmp_path / "cache" / C._FILE).write_bytes(b"\x00 not marshal")
    monkeypatch.setattr(C, "_codes", None)
    init_of(C.compiled(src))(obj, 6)
    assert obj.a == 6 and compiles == [src, changed, src]
    monkeypatch.setenv("EMUTRACE_CACHE", "")                    # no cache directory
    monkeypatch.setattr(C, "_codes", None)
    init_of(C.compiled(src))
    assert compiles[-1] == src and len(compiles) == 4
