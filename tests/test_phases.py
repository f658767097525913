"""The session's one registry of hook phases (emutrace/machine/phases.py): the kernel and the
loader fire typed phases; nothing is registered by setting a slot on the Kernel."""
import pytest

from emutrace.machine.phases import PHASES, Hooks


def test_fire_calls_in_order_and_counts():
    h, seen = Hooks(), []
    h.on("fork", lambda p, c: seen.append(("a", p, c)))
    h.on("fork", lambda p, c: seen.append(("b", p, c)))
    assert h.fire("fork", 1, 2) == 2
    assert seen == [("a", 1, 2), ("b", 1, 2)]
    assert h.fire("exec", 1, None) == 0 and not h.wants("exec") and h.wants("fork")


def test_off_removes_and_unknown_phase_raises():
    h = Hooks()
    fn = h.on("mmap", lambda *a: None)
    h.off("mmap", fn)
    assert not h.wants("mmap")
    with pytest.raises(ValueError, match="no hook phase 'forkk'"):
        h.on("forkk", print)
    with pytest.raises(ValueError):
        h.fire("nothing")


def test_kernel_has_no_callback_slots():
    """The four callbacks that used to be slots set on the Kernel from above are phases now."""
    from emutrace.kernel.kernel import Kernel
    src = __import__("inspect").getsource(Kernel.__init__)
    for slot in ("on_new_machine", "on_mmap", "on_exec", "on_fork"):
        assert f"self.{slot}" not in src
    assert {"new_machine", "mmap", "exec", "fork"} <= set(PHASES)


def test_session_registers_on_its_own_registry():
    from emutrace.session import Run
    s = Run(["/bin/true"])
    assert s.kernel.hooks is s.hooks and all(s.hooks.wants(p) for p in ("new_machine", "mmap", "exec", "fork"))
