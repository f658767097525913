/* InsnCounter: the count of retired guest instructions on one engine (part of
 * emutrace.machine._native), the work that drives emutrace's virtual clock (docs/time.md).
 *
 * InsnCounter(uc_hook_add, uc_emu_stop, uc_mem_read, engine, hook_type,
 *             cs_open, cs_malloc, cs_disasm_iter, cs_arch, cs_mode[, cs_close, cs_free])
 *
 * (cs_close and cs_free, when given, free the capstone handle and its insn buffer with the
 * counter: see InsnCounter_dealloc.)
 *
 * One UC_HOOK_BLOCK callback in C. Unicorn calls a lone hook of a kind directly from the
 * translated code (no hook list walked), so one executed block costs a call, one probe of an
 * open-addressing table keyed by (address, size) and an add: the block's instruction count is
 * decoded once, at its first execution on the engine, with the capstone library the binding of
 * capstone loaded (function addresses passed in from Python, as Unicorn's).
 *
 * The hook adds a block's instructions when the block starts. Unicorn calls a block hook before
 * the block's exit check, so at any stop the block last entered (start, size, n) ran up to rip:
 * rip inside it means the instructions before rip retired and those from rip on did not (a fault,
 * a code hook that stopped, a count-limited step, a stop requested at the block's start); rip
 * outside it means the block ran to its end (a system call ends its block). exact(rip) says the
 * count so; settle(rip) makes it the count (call it once emulation stopped and before anything
 * moves rip: emulation resumed at rip enters a new block there). A block cannot jump back into
 * itself without entering a new block, so rip == start always means "not run".
 *
 * Each iteration of a rep-prefixed string instruction re-enters its block in QEMU and counts as
 * one instruction, as in QEMU's -icount and Unicorn's count-limited emu_start.
 *
 * stop_at (< 0: off): the block that would take the count past stop_at is not entered; emulation
 * stops at its start (ran_out set), so a run ends exactly at stop_at when a block ends there, and
 * otherwise a count-limited emu_start of the difference finishes it (emutrace/machine/workcount.py).
 * With overshoot set, the stop comes instead at the first block entered once the count has
 * reached stop_at: a run always makes progress (the scheduler's time slice, whose end need not
 * be exact, uses it).
 *
 * skip: up to SKIP_MAX address ranges whose blocks are not counted (emutrace's own guest code,
 * the call-log trampolines: tracing must not change the guest's clock), kept sorted and
 * searched by bisection (an untraced run has none: nothing is searched).
 *
 * answer_tsc(...): RDTSC and RDTSCP answered in C from the same count: tsc_base + total * rate
 * (the virtual clock's monotonic nanoseconds, which the World keeps in tsc_base: docs/time.md),
 * RDTSCP's IA32_TSC_AUX 0 (CPU 0). No Python runs for a read, so the vDSO's clock is native too.
 *
 * Memory: 16 bytes per distinct (address, size), the table at most half full, at most 2^MAX_BITS
 * slots; past that a block is decoded at each execution (slower, still exact). Portable C99 and
 * the Python C API only. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_uchook.h"
#include "_module.h"            /* emutrace_add_type */

typedef int (*ic_emu_stop_fn)(void *uc);
typedef int (*ic_mem_read_fn)(void *uc, uint64_t address, void *bytes, uint64_t size);
typedef int (*ic_cs_open_fn)(int arch, int mode, size_t *handle);
typedef void *(*ic_cs_malloc_fn)(size_t handle);
typedef int (*ic_cs_disasm_iter_fn)(size_t handle, const uint8_t **code, size_t *size, uint64_t *address,
                                    void *insn);

typedef int (*ic_reg_write_fn)(void *uc, int regid, const void *value);
typedef int (*ic_cs_close_fn)(size_t *handle);
typedef void (*ic_cs_free_fn)(void *insn, size_t count);

typedef struct {
    uint64_t key;               /* address | size << 48, + 1 (0: empty) */
    uint64_t n;                 /* the block's instructions */
} IcSlot;

#define IC_INITIAL_BITS 12
#define IC_MAX_BITS 24
#define SKIP_MAX 1024
#define CODE_MAX 8192           /* a TB is shorter than a page (QEMU ends it before) */

typedef struct {
    PyObject_HEAD
    void *uc;
    ic_emu_stop_fn emu_stop;
    ic_mem_read_fn mem_read;
    ic_cs_disasm_iter_fn disasm_iter;
    size_t cs;
    void *insn;                 /* capstone's cs_insn buffer (cs_malloc) */
    IcSlot *slots;
    uint64_t mask;
    int bits;
    Py_ssize_t used;
    uint64_t total;             /* instructions counted, the last entered block in full */
    uint64_t cur_start, cur_size, cur_n;   /* the last entered block (cur_size 0: none) */
    int64_t stop_at;            /* < 0: off */
    int overshoot;              /* stop_at stops at the first block entered once total >= stop_at */
    int ran_out;
    int64_t tsc_base;           /* RDTSC = tsc_base + total * rate */
    int64_t rate;
    ic_reg_write_fn reg_write;
    int reg_rax, reg_rdx, reg_rcx;
    size_t tsc_handles[2];
    int nskip;
    uint64_t skip_lo[SKIP_MAX], skip_hi[SKIP_MAX];     /* sorted by lo, disjoint */
    size_t handle;
    int hooked;
    ic_cs_close_fn cs_close;    /* (0: not passed in, the capstone handle is never closed) */
    ic_cs_free_fn cs_free;
    int cs_opened;
} InsnCounterObject;

static uint64_t ic_home(uint64_t key, int bits)
{
    return (key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits);
}

static IcSlot *ic_probe(IcSlot *slots, uint64_t mask, int bits, uint64_t key)
{
    uint64_t i = ic_home(key, bits);
    while (slots[i].key != 0 && slots[i].key != key) i = (i + 1) & mask;
    return &slots[i];
}

static int ic_grow(InsnCounterObject *c)
{
    int bits = c->bits + 1;
    if (bits > IC_MAX_BITS) return -1;
    uint64_t cap = UINT64_C(1) << bits;
    IcSlot *slots = PyMem_RawCalloc((size_t)cap, sizeof(IcSlot));
    if (slots == NULL) return -1;
    for (uint64_t i = 0; i <= c->mask; i++) {
        if (c->slots[i].key != 0) *ic_probe(slots, cap - 1, bits, c->slots[i].key) = c->slots[i];
    }
    PyMem_RawFree(c->slots);
    c->slots = slots;
    c->mask = cap - 1;
    c->bits = bits;
    return 0;
}

/* Instructions that start in [address, address + len) of the code there (decoded from its
 * start). An undecodable instruction ends the count: QEMU ends its block there too. */
static uint64_t ic_decode(InsnCounterObject *c, void *uc, uint64_t address, uint64_t len)
{
    uint8_t buf[CODE_MAX];
    if (len == 0) return 0;
    if (len > CODE_MAX) len = CODE_MAX;
    if (c->mem_read(uc, address, buf, len) != 0) return 1;
    const uint8_t *code = buf;
    size_t size = (size_t)len;
    uint64_t addr = address, n = 0;
    while (size > 0 && c->disasm_iter(c->cs, &code, &size, &addr, c->insn)) n++;
    if (size > 0) n++;          /* the undecodable one: QEMU translated it (it raised its fault) */
    return n;
}

static uint64_t ic_block_insns(InsnCounterObject *c, void *uc, uint64_t address, uint64_t size)
{
    uint64_t key = (address | (size << 48)) + 1;
    IcSlot *s = ic_probe(c->slots, c->mask, c->bits, key);
    if (s->key == key) return s->n;
    uint64_t n = ic_decode(c, uc, address, size);
    if ((uint64_t)(c->used + 1) * 2 > c->mask + 1) {
        if (ic_grow(c) < 0) return n;            /* full: decoded again next time */
        s = ic_probe(c->slots, c->mask, c->bits, key);
    }
    s->key = key;
    s->n = n;
    c->used++;
    return n;
}

static void ic_on_block(void *uc, uint64_t address, uint32_t size, void *user)
{
    InsnCounterObject *c = user;
    if (c->nskip > 0 && address >= c->skip_lo[0]) {
        int lo = 0, hi = c->nskip;          /* the last range whose lo <= address */
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (c->skip_lo[mid] <= address) lo = mid;
            else hi = mid;
        }
        if (address < c->skip_hi[lo]) {
            c->cur_size = 0;
            return;
        }
    }
    uint64_t n = ic_block_insns(c, uc, address, size);
    if (c->stop_at >= 0 && (c->overshoot ? c->total >= (uint64_t)c->stop_at
                                         : c->total + n > (uint64_t)c->stop_at)) {
        c->stop_at = -1;
        c->ran_out = 1;
        c->cur_size = 0;        /* not entered: rip stays at address */
        c->emu_stop(uc);
        return;
    }
    c->total += n;
    c->cur_start = address;
    c->cur_size = size;
    c->cur_n = n;
}

static void ic_tsc(InsnCounterObject *c, void *uc)
{
    uint64_t tsc = (uint64_t)c->tsc_base + c->total * (uint64_t)c->rate;
    uint64_t lo = tsc & 0xFFFFFFFFu, hi = tsc >> 32;
    c->reg_write(uc, c->reg_rax, &lo);
    c->reg_write(uc, c->reg_rdx, &hi);
}

static int ic_on_rdtsc(void *uc, void *user)
{
    ic_tsc(user, uc);
    return 1;                   /* the instruction's own answer is skipped */
}

static int ic_on_rdtscp(void *uc, void *user)
{
    InsnCounterObject *c = user;
    uint64_t zero = 0;
    ic_tsc(c, uc);
    c->reg_write(uc, c->reg_rcx, &zero);
    return 1;
}

/* the count if emulation stopped with this rip */
static uint64_t ic_exact(InsnCounterObject *c, uint64_t rip)
{
    if (c->cur_size == 0 || rip - c->cur_start >= c->cur_size) return c->total;
    return c->total - c->cur_n + ic_decode(c, c->uc, c->cur_start, rip - c->cur_start);
}

static int InsnCounter_init(InsnCounterObject *self, PyObject *args, PyObject *kwds)
{
    unsigned long long hook_add, emu_stop, mem_read, engine, cs_open, cs_malloc, disasm_iter;
    unsigned long long cs_close = 0, cs_free = 0;
    int hook_type, arch, mode;
    if (self->hooked) {
        PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native.InsnCounter: already registered");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "KKKKiKKKii|KK", &hook_add, &emu_stop, &mem_read, &engine, &hook_type,
                          &cs_open, &cs_malloc, &disasm_iter, &arch, &mode, &cs_close, &cs_free))
        return -1;
    if (!hook_add || !emu_stop || !mem_read || !engine || !cs_open || !cs_malloc || !disasm_iter) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.InsnCounter: a null function or engine");
        return -1;
    }
    self->uc = (void *)(uintptr_t)engine;
    self->emu_stop = (ic_emu_stop_fn)(uintptr_t)emu_stop;
    self->mem_read = (ic_mem_read_fn)(uintptr_t)mem_read;
    self->disasm_iter = (ic_cs_disasm_iter_fn)(uintptr_t)disasm_iter;
    if (((ic_cs_open_fn)(uintptr_t)cs_open)(arch, mode, &self->cs) != 0) {
        PyErr_SetString(PyExc_OSError, "emutrace.machine._native.InsnCounter: cs_open failed");
        return -1;
    }
    self->cs_opened = 1;
    self->cs_close = (ic_cs_close_fn)(uintptr_t)cs_close;
    self->cs_free = (ic_cs_free_fn)(uintptr_t)cs_free;
    self->insn = ((ic_cs_malloc_fn)(uintptr_t)cs_malloc)(self->cs);
    self->slots = PyMem_RawCalloc((size_t)1 << IC_INITIAL_BITS, sizeof(IcSlot));
    if (self->insn == NULL || self->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->bits = IC_INITIAL_BITS;
    self->mask = ((uint64_t)1 << IC_INITIAL_BITS) - 1;
    self->stop_at = -1;
    if (emutrace_register_hook(hook_add, engine, &self->handle, hook_type, (void *)ic_on_block, self) < 0)
        return -1;
    self->hooked = 1;
    return 0;
}

static void InsnCounter_dealloc(InsnCounterObject *self)
{
    /* The capstone handle and its insn buffer go with the counter: ~90 KB an engine (cs_open's
     * x86 tables and cs_malloc's detail buffer), which every fork and exec kept to the end of the
     * run when they were left to the process's exit (tests/test_churn.py). Machine.close drops
     * the counter after uc_close, so no hook can call into it any more. */
    if (self->insn != NULL && self->cs_free != NULL) self->cs_free(self->insn, 1);
    self->insn = NULL;
    if (self->cs_opened && self->cs_close != NULL) self->cs_close(&self->cs);
    self->cs_opened = 0;
    PyMem_RawFree(self->slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *InsnCounter_exact(InsnCounterObject *self, PyObject *arg)
{
    unsigned long long rip = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromUnsignedLongLong(ic_exact(self, rip));
}

static PyObject *InsnCounter_settle(InsnCounterObject *self, PyObject *arg)
{
    unsigned long long rip = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
    self->total = ic_exact(self, rip);
    self->cur_size = 0;
    return PyLong_FromUnsignedLongLong(self->total);
}

static PyObject *InsnCounter_skip(InsnCounterObject *self, PyObject *args)
{
    unsigned long long lo, hi;
    if (!PyArg_ParseTuple(args, "KK", &lo, &hi)) return NULL;
    if (hi <= lo) Py_RETURN_NONE;
    /* merged with the ranges it touches, the result inserted in order */
    uint64_t nlo[SKIP_MAX + 1], nhi[SKIP_MAX + 1];
    int n = 0, placed = 0;
    for (int i = 0; i < self->nskip; i++) {
        uint64_t a = self->skip_lo[i], b = self->skip_hi[i];
        if (b < lo || a > hi) {
            if (!placed && a > hi) {
                nlo[n] = lo; nhi[n] = hi; n++; placed = 1;
            }
            nlo[n] = a; nhi[n] = b; n++;
        } else {
            if (a < lo) lo = a;
            if (b > hi) hi = b;
        }
    }
    if (!placed) { nlo[n] = lo; nhi[n] = hi; n++; }
    if (n > SKIP_MAX) {
        PyErr_SetString(PyExc_OverflowError, "InsnCounter: too many skipped ranges");
        return NULL;
    }
    memcpy(self->skip_lo, nlo, sizeof(uint64_t) * (size_t)n);
    memcpy(self->skip_hi, nhi, sizeof(uint64_t) * (size_t)n);
    self->nskip = n;
    Py_RETURN_NONE;
}

/* answer_tsc(uc_hook_add, uc_reg_write, hook_type, insn_rdtsc, insn_rdtscp, reg_rax, reg_rdx, reg_rcx) */
static PyObject *InsnCounter_answer_tsc(InsnCounterObject *self, PyObject *args)
{
    unsigned long long hook_add, reg_write;
    int hook_type, insns[2];
    if (!PyArg_ParseTuple(args, "KKiiiiii", &hook_add, &reg_write, &hook_type, &insns[0], &insns[1],
                          &self->reg_rax, &self->reg_rdx, &self->reg_rcx))
        return NULL;
    if (self->reg_write != NULL) Py_RETURN_NONE;            /* (once per engine) */
    self->reg_write = (ic_reg_write_fn)(uintptr_t)reg_write;
    if (self->rate == 0) self->rate = 1;
    emutrace_uc_hook_add_fn add = (emutrace_uc_hook_add_fn)(uintptr_t)hook_add;
    void *cbs[2] = {(void *)ic_on_rdtsc, (void *)ic_on_rdtscp};
    for (int i = 0; i < 2; i++) {
        int err = add(self->uc, &self->tsc_handles[i], hook_type, cbs[i], self, (uint64_t)1, (uint64_t)0, insns[i]);
        if (err != 0) return PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
    }
    Py_RETURN_NONE;
}

static PyObject *InsnCounter_get_tsc_base(InsnCounterObject *self, void *closure)
{
    return PyLong_FromLongLong(self->tsc_base);
}

static int InsnCounter_set_tsc_base(InsnCounterObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "tsc_base cannot be deleted");
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->tsc_base = v;
    return 0;
}

static PyObject *InsnCounter_get_rate(InsnCounterObject *self, void *closure)
{
    return PyLong_FromLongLong(self->rate ? self->rate : 1);
}

static int InsnCounter_set_rate(InsnCounterObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "rate cannot be deleted");
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->rate = v;
    return 0;
}

static PyObject *InsnCounter_get_total(InsnCounterObject *self, void *closure)
{
    return PyLong_FromUnsignedLongLong(self->total);
}

static int InsnCounter_set_total(InsnCounterObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "total cannot be deleted");
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLongMask(value);
    if (PyErr_Occurred()) return -1;
    self->total = v;
    self->cur_size = 0;
    return 0;
}

static PyObject *InsnCounter_get_stop_at(InsnCounterObject *self, void *closure)
{
    return PyLong_FromLongLong(self->stop_at);
}

static int InsnCounter_set_stop_at(InsnCounterObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "stop_at cannot be deleted");
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->stop_at = v < 0 ? -1 : v;
    self->ran_out = 0;
    return 0;
}

static PyObject *InsnCounter_get_overshoot(InsnCounterObject *self, void *closure)
{
    return PyBool_FromLong(self->overshoot);
}

static int InsnCounter_set_overshoot(InsnCounterObject *self, PyObject *value, void *closure)
{
    int v = value == NULL ? 0 : PyObject_IsTrue(value);
    if (v < 0) return -1;
    self->overshoot = v;
    return 0;
}

static PyObject *InsnCounter_get_ran_out(InsnCounterObject *self, void *closure)
{
    return PyBool_FromLong(self->ran_out);
}

static PyObject *InsnCounter_get_blocks(InsnCounterObject *self, void *closure)
{
    return PyLong_FromSsize_t(self->used);
}

static PyObject *InsnCounter_get_handle(InsnCounterObject *self, void *closure)
{
    return PyLong_FromSize_t(self->handle);
}

static PyMethodDef InsnCounter_methods[] = {
    {"exact", (PyCFunction)InsnCounter_exact, METH_O,
     "exact(rip) -> the instructions retired if emulation stopped at rip (changes nothing)"},
    {"settle", (PyCFunction)InsnCounter_settle, METH_O,
     "settle(rip) -> exact(rip), made the count: call once emulation stopped at rip"},
    {"skip", (PyCFunction)InsnCounter_skip, METH_VARARGS, "skip(lo, hi): blocks in [lo, hi) are not counted"},
    {"answer_tsc", (PyCFunction)InsnCounter_answer_tsc, METH_VARARGS,
     "answer_tsc(uc_hook_add, uc_reg_write, hook_type, insn_rdtsc, insn_rdtscp, rax, rdx, rcx): "
     "RDTSC/RDTSCP answered in C with tsc_base + total * rate"},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef InsnCounter_getset[] = {
    {"total", (getter)InsnCounter_get_total, (setter)InsnCounter_set_total,
     "instructions counted (the block last entered in full; settle() makes it exact)", NULL},
    {"stop_at", (getter)InsnCounter_get_stop_at, (setter)InsnCounter_set_stop_at,
     "stop before the block that would take total past this (< 0: off); setting it clears ran_out", NULL},
    {"ran_out", (getter)InsnCounter_get_ran_out, NULL, "the last stop was stop_at's", NULL},
    {"overshoot", (getter)InsnCounter_get_overshoot, (setter)InsnCounter_set_overshoot,
     "stop_at stops at the first block entered once total >= stop_at (never before any progress)", NULL},
    {"blocks", (getter)InsnCounter_get_blocks, NULL, "distinct blocks decoded", NULL},
    {"tsc_base", (getter)InsnCounter_get_tsc_base, (setter)InsnCounter_set_tsc_base,
     "RDTSC answers tsc_base + total * rate", NULL},
    {"rate", (getter)InsnCounter_get_rate, (setter)InsnCounter_set_rate, "nanoseconds per instruction", NULL},
    {"handle", (getter)InsnCounter_get_handle, NULL, "the hook's Unicorn handle", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject InsnCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.InsnCounter",
    .tp_basicsize = sizeof(InsnCounterObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "InsnCounter(uc_hook_add, uc_emu_stop, uc_mem_read, engine, hook_type, cs_open, cs_malloc, "
              "cs_disasm_iter, cs_arch, cs_mode[, cs_close, cs_free]): retired guest instructions on one engine",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)InsnCounter_init,
    .tp_dealloc = (destructor)InsnCounter_dealloc,
    .tp_methods = InsnCounter_methods,
    .tp_getset = InsnCounter_getset,
};

int emutrace_register_insncount(PyObject *module)
{
    if (emutrace_add_type(module, "InsnCounter", &InsnCounterType) < 0) return -1;
    return 0;
}
