"""State belongs to whoever owns it: the modules above the kernel and the machine (the loader, the
session, the tracer, the face) never stash attributes on a kernel or machine object, nor the
kernel on a machine object, and never probe one for an attribute (getattr/hasattr by name): its
class declares what it holds.

The check reads the source: an assignment `x.attr = ...` (or setattr/getattr/hasattr with a
literal name) whose object is named as one of those objects are everywhere in emutrace (`proc`,
`child`, `m`, `machine`, `kernel`, `aspace`, `proc.machine`, `self.kernel`...) must name an
attribute the object's class declares: assigned in one of its methods or defined in its body.
"""
import ast
from pathlib import Path

import layers

ROOT = layers.ROOT

# the lower layers' classes, by the names their objects go by in the modules above them
CLASSES = {
    "Process": ("syscalls/task.py", ("proc", "child", "parent", "process", "first")),
    "Thread": ("syscalls/task.py", ("thread",)),
    "Kernel": ("syscalls/kernel.py", ("kernel",)),
    "Machine": ("emutrace/machine/cpu.py", ("m", "cm", "pm", "machine")),
    "AddressSpace": (("emutrace/machine/memory.py", "emutrace/machine/guestaccess.py"), ("aspace",)),
}
MACHINE_CLASSES = ("Machine", "AddressSpace")
# the modules above the kernel and the machine: emutrace/ less its machine layer
UPPER_SKIP = ("machine",)


def declared(paths, cls_name: str) -> set:
    """Names a class declares: set on `self` in any of its methods, or bound in its body (methods,
    properties, class attributes), and those of its bases defined in the same files."""
    classes = {}
    for path in (paths if isinstance(paths, tuple) else (paths,)):
        tree = ast.parse(path.read_text())
        classes.update({n.name: n for n in tree.body if isinstance(n, ast.ClassDef)})
    names, todo = set(), [cls_name]
    while todo:
        node = classes.get(todo.pop())
        if node is None:
            continue
        todo += [b.id for b in node.bases if isinstance(b, ast.Name)]
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(item.name)
            elif isinstance(item, ast.Assign):
                names |= {t.id for t in item.targets if isinstance(t, ast.Name)}
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                names.add(item.target.id)
        for sub in ast.walk(node):
            targets = []
            if isinstance(sub, ast.Assign):
                targets = sub.targets
            elif isinstance(sub, (ast.AugAssign, ast.AnnAssign)):
                targets = [sub.target]
            for t in targets:
                for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
                        names.add(e.attr)
    return names


def _owner_of(expr, by_name: dict):
    """The lower class an expression names an object of (by its last name), or None."""
    if isinstance(expr, ast.Name):
        return by_name.get(expr.id)
    if isinstance(expr, ast.Attribute):
        return by_name.get(expr.attr)
    return None


def _set_attributes(node) -> list:
    """The attribute expressions an assignment statement sets (`x.a = `, `x.a, y.b = `, `x.a += `)."""
    targets = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    return [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(e, ast.Attribute)]


def violations(source: str, filename: str, decls: dict, by_name: dict) -> list:
    """Each stashed or probed attribute in one module's source, as 'file:line: text'."""
    out = []
    for node in ast.walk(ast.parse(source)):
        for e in _set_attributes(node):
            cls = _owner_of(e.value, by_name)
            if cls is not None and e.attr not in decls[cls]:
                out.append(f"{filename}:{node.lineno}: sets {ast.unparse(e)} ({cls} declares no {e.attr})")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            fn = node.func.id
            cls = _owner_of(node.args[0], by_name)
            if cls is None:
                continue
            if fn in ("setattr", "delattr"):
                out.append(f"{filename}:{node.lineno}: {fn}({ast.unparse(node.args[0])}, ...) on a {cls}")
            elif fn in ("getattr", "hasattr") and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                name = node.args[1].value
                what = "probes for" if name not in decls[cls] else "probes declared"
                out.append(f"{filename}:{node.lineno}: {fn}({ast.unparse(node.args[0])}, {name!r}) {what} {name}")
    return out


def _tables():
    decls = {cls: declared(tuple(ROOT / p for p in path) if isinstance(path, tuple) else ROOT / path, cls)
             for cls, (path, _names) in CLASSES.items()}
    by_name = {name: cls for cls, (_path, names) in CLASSES.items() for name in names}
    return decls, by_name


def upper_modules():
    """(path, the classes whose objects it must not stash on): emutrace/ above the machine and
    loader/ (above the kernel) for all of them; the kernel's syscalls/ for the machine's."""
    for path in sorted((ROOT / "emutrace").rglob("*.py")):
        if path.relative_to(ROOT / "emutrace").parts[0] not in UPPER_SKIP:
            yield path, tuple(CLASSES)
    for path in sorted((ROOT / "loader").rglob("*.py")):
        yield path, tuple(CLASSES)
    for path in sorted((ROOT / "syscalls").rglob("*.py")):
        yield path, MACHINE_CLASSES


def test_declarations_are_found():
    decls, _ = _tables()
    assert {"machine", "aspace", "traced", "stop_requested", "modules"} <= decls["Process"]
    assert {"observer", "intercept", "current", "sched", "syscall"} <= decls["Kernel"]
    assert {"uc", "own_code", "add_own_code", "hook_code", "read_fast"} <= decls["Machine"]


def test_no_module_above_the_kernel_stashes_or_probes_attributes_on_its_objects():
    decls, by_name = _tables()
    bad = []
    for path, classes in upper_modules():
        names = {name: cls for name, cls in by_name.items() if cls in classes}
        bad += violations(path.read_text(), str(path.relative_to(ROOT)), decls, names)
    assert not bad, "\n".join(bad)


def test_the_check_finds_a_stash_and_a_probe():
    """The check can fail: a tracer state attribute put on a process, one on an engine, a probe."""
    decls, by_name = _tables()
    planted = (
        "def attach(self, proc):\n"
        "    proc._lt_hooked_modules = set()\n"
        "    m = proc.machine\n"
        "    m._lt_armed = True\n"
        "    proc.machine._lt_ranges, x = [], 1\n"
        "    setattr(proc, 'x', 1)\n"
        "    if getattr(self.kernel, 'sleep', None):\n"
        "        pass\n"
        "    proc.stop_requested = True\n"        # declared by Process: fine
    )
    found = violations(planted, "planted.py", decls, by_name)
    assert [f.split(":")[1] for f in found] == ["2", "4", "5", "6", "7"]


def kernel_sets(source: str, filename: str) -> list:
    """Each assignment to an attribute of a Kernel object (`kernel.x = ...`, `session.kernel.x
    = ...`, `proc.kernel.x += ...`), declared by Kernel or not, and each setattr on one."""
    out = []
    for node in ast.walk(ast.parse(source)):
        for e in _set_attributes(node):
            if _owner_of(e.value, {"kernel": "Kernel"}) == "Kernel":
                out.append(f"{filename}:{node.lineno}: sets {ast.unparse(e)}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr")
                and node.args and _owner_of(node.args[0], {"kernel": "Kernel"}) == "Kernel"):
            out.append(f"{filename}:{node.lineno}: {node.func.id}({ast.unparse(node.args[0])}, ...)")
    return out


def test_no_module_above_the_kernel_sets_an_attribute_on_the_kernel():
    """The layers above give the kernel what it needs when they make it (Kernel's arguments), at
    the run's start (begin_run) and through the session's hooks (serve, chain, on); the kernel
    sets its own state. Not even an attribute Kernel declares is set from above."""
    bad = []
    for path, classes in upper_modules():
        if "Kernel" in classes:
            bad += kernel_sets(path.read_text(), str(path.relative_to(ROOT)))
    assert not bad, "\n".join(bad)


def test_the_kernel_check_finds_a_set_slot():
    planted = ("def wire(session, tracer, kernel):\n"
               "    session.kernel.observer = tracer.syscalls\n"
               "    kernel.max_mem += 1\n"
               "    setattr(self.kernel, 'follow', True)\n"
               "    session.hooks.serve('observer', tracer.syscalls)\n"   # the registry: fine
               "    kernel.vfs.root = '/'\n")                             # the kernel's own object's: not this check's
    assert [f.split(":")[1] for f in kernel_sets(planted, "planted.py")] == ["2", "3", "4"]


def assignments_on(source: str, filename: str, by_name: dict) -> list:
    """Every attribute assigned on an object of by_name's classes in one module's source, declared
    or not, as 'file:line: text'."""
    out = []
    for node in ast.walk(ast.parse(source)):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if isinstance(e, ast.Attribute) and _owner_of(e.value, by_name) is not None:
                    out.append(f"{filename}:{node.lineno}: sets {ast.unparse(e)}")
    return out


def test_no_layer_above_the_machine_sets_any_attribute_on_a_machine():
    """A Machine's state is the machine layer's own: the kernel, the loader, the session and the
    tracer call its methods (hold, add_own_code...) and register on the session's hooks
    (machine/phases.py: guest_log_flush, thread_switch, guest_code_fault), never assign to it,
    even an attribute its class declares (as the guest log's five slots once were)."""
    _, by_name = _tables()
    machine_names = {name: cls for name, cls in by_name.items() if cls == "Machine"}
    bad = []
    for path, _classes in upper_modules():
        bad += assignments_on(path.read_text(), str(path.relative_to(ROOT)), machine_names)
    assert not bad, "\n".join(bad)


def test_the_machine_check_finds_a_declared_slot_set_from_above():
    _, by_name = _tables()
    machine_names = {name: cls for name, cls in by_name.items() if cls == "Machine"}
    planted = ("def attach_machine(self, proc):\n"
               "    m = self.m = proc.machine\n"
               "    m.loaded = None\n"
               "    proc.machine.own_code = []\n"
               "    self.m.x = 1\n")            # (self.m: named m, a Machine's name)
    found = assignments_on(planted, "planted.py", machine_names)
    assert [f.split(":")[1] for f in found] == ["3", "4", "5"]


# Every object below the face's session takes what it needs when it is made (the World, the
# session's Hooks, the Kernel, the VFS, a notify function, options), never the session: a
# `.session` read or slot anywhere in emutrace/, loader/ or syscalls/ fails here. The debugger
# too is given the hooks, kernel, processes and outputs of the run it attaches to
# (`attach_run`), so no module is exempt; a module that must hold a session is named here, so
# that nothing joins it unseen.
SESSION_HOLDERS: tuple = ()


def session_reads(source: str, filename: str) -> list:
    """Each `x.session` in one module's source (read or assigned), as 'file:line: text'."""
    return [f"{filename}:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and node.attr == "session"]


def _found(paths, check) -> str:
    """check(source, filename)'s findings over the modules `paths`, one a line."""
    return "\n".join(f for path in paths for f in check(path.read_text(), str(path.relative_to(ROOT))))


def session_free_modules() -> list:
    """The modules that must hold no session: emutrace/ (less SESSION_HOLDERS), loader/, syscalls/."""
    holders = [ROOT / name for name in SESSION_HOLDERS]
    return [p for top in ("emutrace", "loader", "syscalls") for p in sorted((ROOT / top).rglob("*.py"))
            if not any(h == p or h in p.parents for h in holders)]


def test_no_object_below_the_face_holds_or_reads_a_session():
    """The tracer, the call tracers, the guest log, the report's collector, the backtracer, the
    coverage recorder and the status line hold what they use, not the session."""
    paths = session_free_modules()
    assert {"tracer.py", "collector.py", "backtrace.py", "coverage.py", "statusline.py", "libcalls.py"} <= \
        {p.name for p in paths}
    bad = _found(paths, session_reads)
    assert not bad, bad


def intercept_slots(source: str, filename: str) -> list:
    """Each hand-made intercept chain: an assignment to an `intercept` or `call_intercept`
    attribute, or a call given the one before as `inner=` or `nxt=`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        for e in _set_attributes(node):
            if e.attr in ("intercept", "call_intercept") and not (isinstance(e.value, ast.Name) and e.value.id == "self"):
                out.append(f"{filename}:{node.lineno}: sets {ast.unparse(e)}")
        if isinstance(node, ast.Call):
            out += [f"{filename}:{node.lineno}: chains by hand: {k.arg}={ast.unparse(k.value)}"
                    for k in node.keywords if k.arg in ("inner", "nxt")]
    return out


def test_intercepts_are_chained_by_the_registry_only():
    """The kernel's and the call tracer's intercepts are chained roles of the session's Hooks
    (machine/phases.py): no module sets one on a tracer or wraps the one installed before it."""
    bad = _found([p for p in sorted((ROOT / "emutrace").rglob("*.py")) if p.name != "phases.py"], intercept_slots)
    assert not bad, bad


def test_the_session_and_intercept_checks_can_fail():
    planted = ("class T:\n"
               "    def __init__(self, session):\n"
               "        self.session = session\n"
               "    def now(self):\n"
               "        return self.tracer.session.world.elapsed_ns\n")
    assert [f.split(":")[1] for f in session_reads(planted, "planted.py")] == ["3", "5"]
    planted = ("lt.intercept = CallWatch(c, lt.intercept)\n"
               "ci = CallInjector(tampers, inner=lt.intercept)\n"
               "session.hooks.chain('call_intercept', ci)\n")
    assert [f.split(":")[1] for f in intercept_slots(planted, "planted.py")] == ["1", "2"]


def test_call_intercepts_chain_outermost_first():
    from emutrace.machine.phases import Hooks
    seen = []

    class Link:
        def __init__(self, name, takes):
            self.name, self.takes = name, takes

        def wants(self, proc, site):
            return self.name == site

        def enter(self, proc, frame, regs):
            seen.append(("enter", self.name))
            return self.takes

        def leave(self, proc, frame, regs):
            seen.append(("leave", self.name))

    hooks = Hooks()
    assert hooks.call_intercept is None
    inner, outer = Link("inner", False), Link("outer", False)
    hooks.chain("call_intercept", inner)
    assert hooks.call_intercept is inner
    hooks.chain("call_intercept", outer)
    chain = hooks.call_intercept
    assert chain.wants(None, "inner") and chain.wants(None, "outer") and not chain.wants(None, "x")
    assert chain.enter(None, None, None) is False
    chain.leave(None, None, None)
    assert seen == [("enter", "outer"), ("enter", "inner"), ("leave", "outer"), ("leave", "inner")]
    seen.clear()
    outer.takes = True
    assert hooks.call_intercept.enter(None, None, None) is True
    assert seen == [("enter", "outer")]
    hooks.unchain("call_intercept", outer)
    assert hooks.call_intercept is inner
