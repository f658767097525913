/* Positions: the debugger's (emutrace/gdb/positions.py), included by _insncount.c (it reads the
 * InsnCounter's fields; one job: the run's position and the stops at chosen positions).
 *
 * Positions(callback): the run's position, one object for every engine of the run (only one runs
 * at a time), counted by the engines' InsnCounters: InsnCounter.watch(positions, ...) makes an
 * engine count toward it. The position before an instruction is the engine's retired count before
 * it (emutrace's own code, in skipped ranges, does not move it) plus wbase, set when this engine
 * took over from the last one that counted (ic_watch_switch, at the first count after a switch).
 *
 * When the position before an instruction reaches stop_at, or interrupt is set (from any thread:
 * gdb's Ctrl-C), callback(address) runs there, inside a hook, without stopping the engine (so a
 * debugger's stop leaves the scheduler's slices as they were). stop_at is disarmed first (the
 * callback arms the next one); interrupt is cleared. A truthy result (or an exception, reported
 * as unraisable) says the callback stopped the engine: nothing more is done in that hook.
 *
 * Where a stop can fall is instrumented, and nothing else (docs/gdb.md):
 * - blocks are counted as on an untraced run, in batches; the batch holds as many blocks as
 *   cannot reach a stop (ic_watch_period: no block holds more than IC_BLOCK_MAX instructions), so
 *   a stop check runs at the entry of every block that could (ic_watch_enter);
 * - a stop at a block's first instruction runs in the block hook;
 * - a stop inside a block: the *fine mode* of that block (ic_fine_on): a code hook (ic_on_insn)
 *   bounded to the block's range, the block's translation dropped and rip written to its start,
 *   so Unicorn enters it again, translated with the hook; the hook goes (ic_fine_off) at the
 *   next stop check at a block where no stop falls. Set from a hook inside a block (gdb steps
 *   from a breakpoint), a stop in the rest of the block does the same from that instruction
 *   (ic_fine_here);
 * - watchpoints: fine_all (a code hook everywhere) while any is set on the engine, since the
 *   stop after a store falls after an instruction no one can name in advance.
 * The pure path's twin: workcount.PyPositions (a Python hook on every instruction); both stop at
 * the same positions. */

#define IC_BLOCK_MAX 512        /* QEMU's TCG_MAX_INSNS: no translated block holds more */
#define IC_NEVER (~0ULL)

typedef struct PositionsObject {
    PyObject_HEAD
    PyObject *callback;
    unsigned long long stop_at;
    volatile int interrupt;
    InsnCounterObject *engine;  /* (borrowed) the counter that counted last; its dealloc clears it */
    uint64_t count;             /* the position where engine went (with no engine) */
    uint64_t here;              /* callback running: the position before its instruction */
    int in_hook;
    int at_block;               /* callback running in a block hook, before the block's first instruction */
} PositionsObject;

/* the position after the blocks e counted (e settled, or the block last entered in full) */
static uint64_t ic_watch_total(InsnCounterObject *e)
{
    ic_sync(e);
    return e->wbase + e->total;
}

/* c runs now (its first count since another engine ran): the run's position goes on from there.
 * c->total is still its count before this run (emu_start settled it; ic_sync calls this first). */
static void ic_watch_switch(InsnCounterObject *c)
{
    PositionsObject *p = c->watch;
    if (p->engine == c) return;
    uint64_t now = p->engine != NULL ? ic_watch_total(p->engine) : p->count;
    c->wbase = now - c->total;
    p->engine = c;
}

/* blocks that can be entered before the next stop check: none of them reaches a stop */
static uint32_t ic_watch_period(InsnCounterObject *c)
{
    PositionsObject *p = c->watch;
    if (p->interrupt) return 1;
    uint64_t d = IC_NEVER, here = c->wbase + c->total;
    if (p->stop_at != IC_NEVER && c->fine_all_handle == 0) d = p->stop_at > here ? p->stop_at - here : 0;
    if (c->stop_at >= 0) {      /* the counter's own stop: exact (run_to) or overshoot (a slice) */
        uint64_t s = (uint64_t)c->stop_at, e = s > c->total ? s - c->total : 0;
        if (c->overshoot && e > 0) e -= 1;
        if (e < d) d = e;
    }
    if (d / IC_BLOCK_MAX >= CHECK_PERIOD - 1) return CHECK_PERIOD;
    return 1 + (uint32_t)(d / IC_BLOCK_MAX);
}

/* the counter's or the positions' stop_at moved: the next check comes soon enough for it */
static void ic_rearm(InsnCounterObject *c)
{
    if (c->watch == NULL) {
        if (ic_period(c) == 1) c->end = c->pos + 1;
        return;
    }
    ic_sync(c);
    uint64_t *e = c->pos + ic_watch_period(c);
    if (e < c->end) c->end = e;
}

/* callback(address) at position here; 1 when it stopped the engine */
static int ic_positions_call(PositionsObject *p, uint64_t here, uint64_t address)
{
    PyGILState_STATE g = PyGILState_Ensure();
    p->interrupt = 0;
    if (here >= p->stop_at) p->stop_at = IC_NEVER;
    p->in_hook = 1;
    p->here = here;
    PyObject *r = PyObject_CallFunction(p->callback, "K", (unsigned long long)address);
    p->in_hook = 0;
    int stopped = 1;
    if (r == NULL) PyErr_WriteUnraisable(p->callback);
    else stopped = PyObject_IsTrue(r) > 0;
    Py_XDECREF(r);
    PyGILState_Release(g);
    return stopped;
}

static void ic_fine_off(InsnCounterObject *c)
{
    if (c->fine_handle == 0) return;
    c->w.hook_del(c->uc, c->fine_handle);
    c->fine_handle = 0;
    c->w.ctl(c->uc, c->w.remove_cache, c->fine_lo, c->fine_hi + 1);   /* (translated again without it) */
}

/* the per-instruction hook on [lo, hi]; 0 when Unicorn refused it */
static int ic_fine_hook(InsnCounterObject *c, uint64_t lo, uint64_t hi);

/* Fine mode for the block at address, entered now (in its block hook): it is entered again, with
 * the hook. 1 when it will be (the caller does not count this entry). */
static int ic_fine_on(InsnCounterObject *c, void *uc, uint64_t address, uint32_t size)
{
    if (!ic_fine_hook(c, address, address + size - 1)) return 0;
    c->w.ctl(uc, c->w.remove_cache, address, address + (uint64_t)size);
    uint64_t rip = address;
    c->w.reg_write(uc, c->w.rip, &rip);     /* (Unicorn leaves the block before its first instruction) */
    return 1;
}

static void ic_on_insn(void *uc, uint64_t address, uint32_t size, void *user);

static int ic_fine_hook(InsnCounterObject *c, uint64_t lo, uint64_t hi)
{
    ic_fine_off(c);
    size_t h = 0;
    if (c->w.hook_add(c->uc, &h, c->w.code_type, (void *)ic_on_insn, c, lo, hi) != 0) return 0;
    c->fine_handle = h;
    c->fine_lo = lo;
    c->fine_hi = hi;
    return 1;
}

/* A stop check at the entry of the block [address, address + size) of n instructions (not yet
 * counted). 1: not entered now (fine mode enters it again). */
static int ic_watch_enter(InsnCounterObject *c, void *uc, uint64_t address, uint32_t size, uint64_t n)
{
    PositionsObject *p = c->watch;
    if (c->fine_all_handle != 0) return 0;          /* (ic_on_every_insn serves every stop) */
    uint64_t here = c->wbase + c->total;
    if (p->interrupt || here >= p->stop_at) {
        p->at_block = 1;
        int stopped = ic_positions_call(p, here, address);
        p->at_block = 0;
        if (stopped) return 0;
        /* The block is entered again: gdb may have set breakpoints or a watchpoint in it while
         * it was stopped, and Unicorn runs the translation it entered whatever was dropped. */
        if (p->stop_at > here && p->stop_at < here + n && c->fine_all_handle == 0)
            return ic_fine_on(c, uc, address, size);
        uint64_t rip = address;
        c->w.reg_write(uc, c->w.rip, &rip);
        return 1;
    }
    int inside = p->stop_at > here && p->stop_at < here + n;
    int covered = c->fine_handle != 0 && c->fine_lo <= address && address + size - 1 <= c->fine_hi;
    if (covered && inside) return 0;
    int overlaps = c->fine_handle != 0 && address <= c->fine_hi && address + size - 1 >= c->fine_lo;
    ic_fine_off(c);
    if (inside) return ic_fine_on(c, uc, address, size);
    if (overlaps) {
        /* (a block translated with the hook, running now, keeps calling it however it was
         * dropped and deleted: Unicorn 2.1.4 leaves it only when rip moves) */
        uint64_t rip = address;
        c->w.reg_write(uc, c->w.rip, &rip);
        return 1;
    }
    return 0;
}

/* From a hook inside the block last entered, at rip (not run yet): a stop in the rest of the
 * block gets fine mode from rip on (the count settled to rip, which Unicorn enters anew). */
static void ic_fine_here(InsnCounterObject *c)
{
    PositionsObject *p = c->watch;
    if (c->fine_all_handle != 0 || p->stop_at == IC_NEVER || p->in_hook) return;
    ic_sync(c);
    if (c->cur_size == 0) return;
    uint64_t rip = 0;
    c->w.reg_read(c->uc, c->w.rip, &rip);
    if (rip - c->cur_start >= c->cur_size) return;
    uint64_t before = c->wbase + ic_exact(c, rip);
    if (p->stop_at <= before || p->stop_at >= c->wbase + c->total) return;
    if (c->fine_handle != 0 && c->fine_lo <= c->cur_start && c->cur_start + c->cur_size - 1 <= c->fine_hi)
        return;                 /* (translated with the hook already) */
    uint64_t lo = c->cur_start, hi = c->cur_start + c->cur_size - 1;
    if (!ic_fine_hook(c, lo, hi)) return;
    c->w.ctl(c->uc, c->w.remove_cache, lo, hi + 1);
    c->total = before - c->wbase;       /* (settled: the block entered at rip counts afresh) */
    c->cur_size = 0;
    c->w.reg_write(c->uc, c->w.rip, &rip);
}

/* the per-instruction hook everywhere (fine_all) */
static void ic_on_every_insn(void *uc, uint64_t address, uint32_t size, void *user)
{
    InsnCounterObject *c = user;
    PositionsObject *p = c->watch;
    ic_sync(c);
    uint64_t before = c->total;
    if (c->cur_size != 0 && address - c->cur_start < c->cur_size) before = c->total - c->cur_n + c->k++;
    uint64_t here = c->wbase + before;
    if (here >= p->stop_at || p->interrupt) ic_positions_call(p, here, address);
}

/* the per-instruction hook of one block (fine mode); fine_all's serves while it is on */
static void ic_on_insn(void *uc, uint64_t address, uint32_t size, void *user)
{
    InsnCounterObject *c = user;
    if (c->fine_all_handle == 0) ic_on_every_insn(uc, address, size, user);
}

/* c goes (its engine closed): the run's position stays where it went */
static void ic_watch_release(InsnCounterObject *c)
{
    PositionsObject *p = c->watch;
    if (p == NULL) return;
    if (p->engine == c) {
        /* (no ic_sync: the engine may be closed already, and emu_start's settle counted the
         * batch when it stopped) */
        p->count = c->wbase + c->total;
        p->engine = NULL;
    }
    c->watch = NULL;
    Py_DECREF(p);
}

static int Positions_init(PositionsObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *cb;
    if (!PyArg_ParseTuple(args, "O", &cb)) return -1;
    if (!PyCallable_Check(cb)) {
        PyErr_SetString(PyExc_TypeError, "Positions: the callback must be callable");
        return -1;
    }
    Py_INCREF(cb);
    Py_XSETREF(self->callback, cb);
    self->stop_at = IC_NEVER;
    return 0;
}

static void Positions_dealloc(PositionsObject *self)
{
    Py_CLEAR(self->callback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* the position after the last instruction started: in callback, before its instruction; else
 * from the running engine's rip (after a system call's instruction in its hooks; where the
 * engine stopped outside them) */
static PyObject *Positions_get_count(PositionsObject *self, void *closure)
{
    if (self->in_hook) return PyLong_FromUnsignedLongLong(self->here);
    InsnCounterObject *e = self->engine;
    if (e == NULL) return PyLong_FromUnsignedLongLong(self->count);
    uint64_t rip = 0;
    e->w.reg_read(e->uc, e->w.rip, &rip);
    return PyLong_FromUnsignedLongLong(e->wbase + ic_exact(e, rip));
}

static PyObject *Positions_get_stop_at(PositionsObject *self, void *closure)
{
    return PyLong_FromUnsignedLongLong(self->stop_at);
}

static int Positions_set_stop_at(PositionsObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "stop_at cannot be deleted");
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLongMask(value);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    self->stop_at = v;
    if (self->engine != NULL) {
        ic_fine_here(self->engine);
        ic_rearm(self->engine);
    }
    return 0;
}

static PyObject *Positions_get_interrupt(PositionsObject *self, void *closure)
{
    return PyBool_FromLong(self->interrupt);
}

static int Positions_set_interrupt(PositionsObject *self, PyObject *value, void *closure)
{
    int t = value == NULL ? 0 : PyObject_IsTrue(value);
    if (t < 0) return -1;
    self->interrupt = t;        /* (another thread: seen at the next stop check, <= CHECK_PERIOD blocks) */
    return 0;
}

static InsnCounterObject *positions_counter(PositionsObject *self, PyObject *counter);

/* the arguments (counter, address or position) of the methods below; NULL with an exception */
static InsnCounterObject *positions_args(PositionsObject *self, PyObject *args, unsigned long long *value)
{
    PyObject *counter;
    if (!PyArg_ParseTuple(args, "OK", &counter, value)) return NULL;
    return positions_counter(self, counter);
}

/* before(counter, rip) -> the position before the instruction at rip, inside a hook of counter's
 * engine (a breakpoint's, a watchpoint's) */
static PyObject *Positions_before(PositionsObject *self, PyObject *args)
{
    unsigned long long rip;
    InsnCounterObject *c = positions_args(self, args, &rip);
    if (c == NULL) return NULL;
    ic_sync(c);
    return PyLong_FromUnsignedLongLong(c->wbase + ic_exact(c, rip));
}

/* fire_due(counter, rip) -> whether callback ran: a stop due at the instruction at rip runs now,
 * from a hook that Unicorn calls before the fine mode's (a breakpoint at the same address) */
static PyObject *Positions_fire_due(PositionsObject *self, PyObject *args)
{
    unsigned long long rip;
    InsnCounterObject *c = positions_args(self, args, &rip);
    if (c == NULL) return NULL;
    ic_sync(c);
    uint64_t here = c->wbase + ic_exact(c, rip);
    if (self->in_hook || !(here >= self->stop_at || self->interrupt)) Py_RETURN_FALSE;
    if (!ic_positions_call(self, here, rip)) ic_fine_here(c);    /* (a step from here: the rest of the block) */
    Py_RETURN_TRUE;
}

/* stop_soon(counter, position): stop_at without fine mode; checked from the next block */
static PyObject *Positions_stop_soon(PositionsObject *self, PyObject *args)
{
    unsigned long long at;
    InsnCounterObject *c = positions_args(self, args, &at);
    if (c == NULL) return NULL;
    self->stop_at = at;
    c->end = c->pos + 1;
    Py_RETURN_NONE;
}

/* fine_all(counter, on): the per-instruction hook everywhere on counter's engine (watchpoints) */
static PyObject *Positions_fine_all(PositionsObject *self, PyObject *args)
{
    PyObject *counter;
    int on;
    if (!PyArg_ParseTuple(args, "Op", &counter, &on)) return NULL;
    InsnCounterObject *c = positions_counter(self, counter);
    if (c == NULL) return NULL;
    if (on == (c->fine_all_handle != 0)) Py_RETURN_NONE;
    ic_sync(c);
    if (on) {
        size_t h = 0;
        int err = c->w.hook_add(c->uc, &h, c->w.code_type, (void *)ic_on_every_insn, c, (uint64_t)1, (uint64_t)0);
        if (err != 0) return PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
        c->fine_all_handle = h;
    } else {
        c->w.hook_del(c->uc, c->fine_all_handle);
        c->fine_all_handle = 0;
        ic_rearm(c);
    }
    /* The caller drops every translation, and Unicorn then enters a new block at rip: the count
     * is settled there (from a hook inside a block; a block hook's callback has not run its
     * block yet, which ic_watch_enter enters again itself). */
    if (!self->at_block) {
        uint64_t rip = 0;
        c->w.reg_read(c->uc, c->w.rip, &rip);
        c->total = ic_exact(c, rip);
        c->cur_size = 0;
        c->w.reg_write(c->uc, c->w.rip, &rip);
    }
    Py_RETURN_NONE;             /* (the caller drops every translation: Machine.count_every_insn) */
}

static PyMethodDef Positions_methods[] = {
    {"before", (PyCFunction)Positions_before, METH_VARARGS,
     "before(counter, rip) -> the position before the instruction at rip (inside a hook of counter's engine)"},
    {"fire_due", (PyCFunction)Positions_fire_due, METH_VARARGS,
     "fire_due(counter, rip) -> callback ran: a stop due at the instruction at rip runs now"},
    {"stop_soon", (PyCFunction)Positions_stop_soon, METH_VARARGS,
     "stop_soon(counter, position): stop_at, checked from the next block entered (no fine mode)"},
    {"fine_all", (PyCFunction)Positions_fine_all, METH_VARARGS,
     "fine_all(counter, on): the per-instruction hook on every instruction of counter's engine"},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef Positions_getset[] = {
    {"count", (getter)Positions_get_count, NULL,
     "the position after the last instruction started (before its instruction, in callback)", NULL},
    {"stop_at", (getter)Positions_get_stop_at, (setter)Positions_set_stop_at,
     "the position at which callback runs (2^64-1: never)", NULL},
    {"interrupt", (getter)Positions_get_interrupt, (setter)Positions_set_interrupt,
     "callback before the next instruction", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject PositionsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.Positions",
    .tp_basicsize = sizeof(PositionsObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Positions(callback): the run's position, counted by the InsnCounters that watch it",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Positions_init,
    .tp_dealloc = (destructor)Positions_dealloc,
    .tp_methods = Positions_methods,
    .tp_getset = Positions_getset,
};

static PyTypeObject InsnCounterType;

static InsnCounterObject *positions_counter(PositionsObject *self, PyObject *counter)
{
    if (!PyObject_TypeCheck(counter, &InsnCounterType) || ((InsnCounterObject *)counter)->watch != self) {
        PyErr_SetString(PyExc_ValueError, "Positions: not a counter that watches these positions");
        return NULL;
    }
    return (InsnCounterObject *)counter;
}

/* watch(positions, uc_hook_add, code_hook_type, uc_hook_del, uc_ctl, uc_reg_read, uc_reg_write,
 *       reg_rip, ctl_remove_cache): this engine counts toward positions */
static PyObject *InsnCounter_watch(InsnCounterObject *self, PyObject *args)
{
    PyObject *p;
    unsigned long long hook_add, hook_del, ctl, reg_read, reg_write;
    IcWatchFns w;
    if (!PyArg_ParseTuple(args, "O!KiKKKKii", &PositionsType, &p, &hook_add, &w.code_type, &hook_del, &ctl,
                          &reg_read, &reg_write, &w.rip, &w.remove_cache))
        return NULL;
    if (self->watch != NULL || !self->hooked || !hook_add || !hook_del || !ctl || !reg_read || !reg_write) {
        PyErr_SetString(PyExc_RuntimeError, "InsnCounter.watch: watching already, not counting, or a null function");
        return NULL;
    }
    w.hook_add = (emutrace_uc_hook_add_fn)(uintptr_t)hook_add;
    w.hook_del = (ic_hook_del_fn)(uintptr_t)hook_del;
    w.ctl = (ic_ctl_fn)(uintptr_t)ctl;
    w.reg_read = (ic_reg_read_fn)(uintptr_t)reg_read;
    w.reg_write = (ic_reg_write_fn)(uintptr_t)reg_write;
    ic_sync(self);
    self->w = w;
    Py_INCREF(p);
    self->watch = (PositionsObject *)p;
    self->end = self->pos + 1;      /* (checked from the next block: ic_watch_period) */
    Py_RETURN_NONE;
}
