/* emutrace.machine._native.TlbFill: Unicorn's TLB fill hook as a C function.
 *
 * Unicorn (in its virtual TLB mode) asks for the permissions of every page it misses in its TLB.
 * emutrace answers from its own mappings (emutrace/machine/tlb.py), and remembers each answer in
 * a page -> permissions cache that the AddressSpace empties where mappings change. This object IS
 * that cache (it behaves as the dict tlb.py and memory.py use: get, pop, clear, item assignment),
 * and its hook answers a miss from the cache without entering Python: no GIL, no frame, a hash
 * probe. A page not in the cache, an access the cached permissions do not allow, or any miss while
 * `bypass` is set (emutrace's own lookups, tlb.host_lookups) goes to the Python fill, the
 * reference, which decides, reports refusals and fills the cache. So both paths give Unicorn the
 * same answers: the C code only repeats answers Python gave.
 *
 * Portable C99 and the Python C API only. Single-threaded by construction: the cache is read by
 * the hook while Unicorn runs (the binding released the GIL) and written by Python only inside
 * hooks of the same engine or between runs, on the thread that runs the engine. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_uchook.h"
#include "_module.h"            /* emutrace_add_type */

#define PAGE_MASK (~(uint64_t)0xFFF)
#define MIN_CAP 1024                    /* slots; a power of two */

/* uc_mem_type of a fill -> the permission it needs (UC_PROT_READ/WRITE/EXEC); Unicorn 2.1's
 * values, as tlb.py's _ACCESS (any other access needs read, as there) */
#define UC_MEM_READ 16
#define UC_MEM_WRITE 17
#define UC_MEM_FETCH 18
#define UC_PROT_READ 1
#define UC_PROT_WRITE 2
#define UC_PROT_EXEC 4

typedef struct {
    uint64_t paddr;
    uint32_t perms;
} TlbEntry;

typedef int (*uc_ctl_fn)(void *uc, int control, ...);     /* Unicorn's uc_ctl */

typedef struct {
    PyObject_HEAD
    uint64_t *keys;                     /* page | 1 (a page address is 4 KiB-aligned), 0 = empty */
    uint8_t *vals;
    Py_ssize_t cap, count;
    int bits;
    int bypass;                         /* set: every fill asks Python (tlb.host_lookups) */
    PyObject *fill;                     /* fill(page address, access, entry address) -> bool */
    size_t handle;
    int hooked;
    unsigned long long hits, misses;    /* answered here / by Python (tests and profiles) */
    /* Growing Unicorn's TLB (see on_fill): after every `grow_every` fills (0: never) the hook
     * flushes the TLB through uc_ctl(engine, flush_code), so that QEMU's dynamic sizing, which
     * runs only at a flush, can double a TLB that keeps missing. */
    uc_ctl_fn ctl;
    int flush_code;
    unsigned long long grow_every, since, grown;
    unsigned long long generation;      /* bumped whenever pages are forgotten: the mappings changed */
} TlbFillObject;

static inline Py_ssize_t slot_of(const TlbFillObject *t, uint64_t key)
{
    return (Py_ssize_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - t->bits));
}

static Py_ssize_t find_slot(const TlbFillObject *t, uint64_t key)
{
    Py_ssize_t mask = t->cap - 1, i = slot_of(t, key);
    while (t->keys[i] != 0) {
        if (t->keys[i] == key) return i;
        i = (i + 1) & mask;
    }
    return -1 - i;                      /* not there: -1 - the empty slot where it would go */
}

static int alloc_table(TlbFillObject *t, Py_ssize_t cap)
{
    uint64_t *keys = PyMem_Calloc((size_t)cap, sizeof *keys);
    uint8_t *vals = PyMem_Calloc((size_t)cap, 1);
    if (keys == NULL || vals == NULL) {
        PyMem_Free(keys);
        PyMem_Free(vals);
        PyErr_NoMemory();
        return -1;
    }
    t->keys = keys;
    t->vals = vals;
    t->cap = cap;
    t->bits = 0;
    while (((Py_ssize_t)1 << t->bits) < cap) t->bits++;
    return 0;
}

static int grow(TlbFillObject *t)
{
    uint64_t *okeys = t->keys;
    uint8_t *ovals = t->vals;
    Py_ssize_t ocap = t->cap;
    if (ocap > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(uint64_t)) { PyErr_NoMemory(); return -1; }
    if (alloc_table(t, ocap * 2) < 0) { t->keys = okeys; t->vals = ovals; t->cap = ocap; return -1; }
    for (Py_ssize_t i = 0; i < ocap; i++)
        if (okeys[i] != 0) {
            Py_ssize_t j = -1 - find_slot(t, okeys[i]);
            t->keys[j] = okeys[i];
            t->vals[j] = ovals[i];
        }
    PyMem_Free(okeys);
    PyMem_Free(ovals);
    return 0;
}

static int put(TlbFillObject *t, uint64_t key, uint8_t perms)
{
    Py_ssize_t i = find_slot(t, key);
    if (i >= 0) { t->vals[i] = perms; return 0; }
    if (2 * (t->count + 1) > t->cap) {          /* at most half full: probes stay short */
        if (grow(t) < 0) return -1;
        i = find_slot(t, key);
    }
    i = -1 - i;
    t->keys[i] = key;
    t->vals[i] = perms;
    t->count++;
    return 0;
}

/* Linear probing's deletion without tombstones: later entries of the run move back into the
 * hole when their home slot allows. */
static int del(TlbFillObject *t, uint64_t key)
{
    Py_ssize_t i = find_slot(t, key);
    if (i < 0) return 0;
    Py_ssize_t mask = t->cap - 1, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (t->keys[j] == 0) break;
        Py_ssize_t home = slot_of(t, t->keys[j]);
        /* move j back to i unless its home lies cyclically in (i, j] */
        if ((i <= j) ? (i < home && home <= j) : (i < home || home <= j)) continue;
        t->keys[i] = t->keys[j];
        t->vals[i] = t->vals[j];
        i = j;
    }
    t->keys[i] = 0;
    t->vals[i] = 0;
    t->count--;
    return 1;
}

static void clear_table(TlbFillObject *t)
{
    if (t->count == 0) return;
    memset(t->keys, 0, (size_t)t->cap * sizeof *t->keys);
    t->count = 0;
}

/* ------------------------------------------------------------------------------------------
 * the hook */

static _Bool on_fill(void *uc, uint64_t vaddr, int access, TlbEntry *entry, void *user)
{
    TlbFillObject *t = user;
    uint64_t page = vaddr & PAGE_MASK;
    uint32_t need = access == UC_MEM_WRITE ? UC_PROT_WRITE : access == UC_MEM_FETCH ? UC_PROT_EXEC : UC_PROT_READ;
    if (t->grow_every && ++t->since >= t->grow_every) {
        /* QEMU resizes a TLB only when it is flushed (tlb_mmu_resize_locked), so one that is
         * never flushed keeps its first 256 entries however much the program touches: a program
         * whose working set is larger (xz, a JIT's heap) misses on most pages, and each miss
         * costs Unicorn's restoring the CPU state and this hook. Flushing here, inside a fill, is
         * what QEMU's own fills may do: every caller of tlb_fill reloads the entry after it. */
        t->since = 0;
        t->grown++;
        t->ctl(uc, t->flush_code);
    }
    if (!t->bypass) {
        Py_ssize_t i = find_slot(t, page | 1);
        if (i >= 0 && (t->vals[i] & need)) {
            entry->paddr = page;
            entry->perms = t->vals[i];
            t->hits++;
            return 1;
        }
    }
    t->misses++;
    if (t->fill == NULL) return 0;      /* (cleared by the collector: its engine is going) */
    PyGILState_STATE g = PyGILState_Ensure();
    int ok = 0;
    PyObject *r = PyObject_CallFunction(t->fill, "KiK", (unsigned long long)page, access,
                                        (unsigned long long)(uintptr_t)entry);
    if (r == NULL) {
        PyErr_WriteUnraisable(t->fill);     /* as a ctypes callback's exception: the access fails */
    } else {
        ok = PyObject_IsTrue(r) == 1;
        Py_DECREF(r);
        if (PyErr_Occurred()) PyErr_WriteUnraisable(t->fill);
    }
    PyGILState_Release(g);
    return ok;
}

/* ------------------------------------------------------------------------------------------
 * TlbFill(uc_hook_add, engine, hook_type, fill): registers the hook on the engine */

static int TlbFill_init(TlbFillObject *self, PyObject *args, PyObject *kwds)
{
    unsigned long long hook_add, engine;
    int hook_type;
    PyObject *fill;
    if (self->hooked) {
        PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native.TlbFill: already registered");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "KKiO", &hook_add, &engine, &hook_type, &fill)) return -1;
    if (!hook_add || !engine || !PyCallable_Check(fill)) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.TlbFill: a null function or engine");
        return -1;
    }
    if (self->keys == NULL && alloc_table(self, MIN_CAP) < 0) return -1;
    Py_INCREF(fill);
    Py_XSETREF(self->fill, fill);
    if (emutrace_register_hook(hook_add, engine, &self->handle, hook_type, (void *)on_fill, self) < 0)
        return -1;
    self->hooked = 1;
    return 0;
}

/* The collector must see `fill`: it is a closure over the AddressSpace, which holds this object
 * (a cycle that, untraversed, kept every exited process's address space and engine alive). */
static int TlbFill_traverse(TlbFillObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fill);
    return 0;
}

static int TlbFill_clear_refs(TlbFillObject *self)
{
    Py_CLEAR(self->fill);
    return 0;
}

/* The engine keeps a pointer to this object: the AddressSpace holds it as long as the engine lives. */
static void TlbFill_dealloc(TlbFillObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->fill);
    PyMem_Free(self->keys);
    PyMem_Free(self->vals);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int key_of(PyObject *o, uint64_t *key)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *key = ((uint64_t)v & PAGE_MASK) | 1;
    return 0;
}

static PyObject *TlbFill_get(TlbFillObject *self, PyObject *const *args, Py_ssize_t n)
{
    if (n < 1 || n > 2) { PyErr_SetString(PyExc_TypeError, "get(page[, default])"); return NULL; }
    uint64_t key;
    if (key_of(args[0], &key) < 0) return NULL;
    Py_ssize_t i = find_slot(self, key);
    if (i >= 0) return PyLong_FromLong(self->vals[i]);
    PyObject *d = n > 1 ? args[1] : Py_None;
    Py_INCREF(d);
    return d;
}

static PyObject *TlbFill_pop(TlbFillObject *self, PyObject *const *args, Py_ssize_t n)
{
    if (n < 1 || n > 2) { PyErr_SetString(PyExc_TypeError, "pop(page[, default])"); return NULL; }
    uint64_t key;
    if (key_of(args[0], &key) < 0) return NULL;
    self->generation++;
    Py_ssize_t i = find_slot(self, key);
    if (i >= 0) {
        long v = self->vals[i];
        del(self, key);
        return PyLong_FromLong(v);
    }
    if (n < 2) { PyErr_SetObject(PyExc_KeyError, args[0]); return NULL; }
    Py_INCREF(args[1]);
    return args[1];
}

static PyObject *TlbFill_clear(TlbFillObject *self, PyObject *unused)
{
    self->generation++;
    clear_table(self);
    Py_RETURN_NONE;
}

/* forget(start, end): the pages of [start, end) leave the cache, the others stay. A range of
 * fewer pages than the cache holds is deleted page by page; a larger one by one pass over the
 * table that keeps the rest (reinserted into a fresh table: linear probing has no tombstones). */
static PyObject *TlbFill_forget(TlbFillObject *self, PyObject *const *args, Py_ssize_t n)
{
    unsigned long long start, end;
    if (n != 2) { PyErr_SetString(PyExc_TypeError, "forget(start, end)"); return NULL; }
    start = PyLong_AsUnsignedLongLong(args[0]);
    if (start == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    end = PyLong_AsUnsignedLongLong(args[1]);
    if (end == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError) || PyObject_RichCompareBool(args[1], args[0], Py_LT) != 0)
            return NULL;
        PyErr_Clear();                  /* an end past 2^64: the rest of the address space */
        end = (unsigned long long)-1;
    }
    uint64_t lo = (uint64_t)start & PAGE_MASK, hi = (uint64_t)end;
    self->generation++;
    if (lo >= hi || self->count == 0) Py_RETURN_NONE;
    uint64_t pages = ((hi - lo) >> 12) + (((hi - lo) & 0xFFF) != 0);
    if (pages < (uint64_t)self->count) {
        for (uint64_t k = 0; k < pages; k++)        /* (counted: the last page may end at 2^64) */
            del(self, (lo + (k << 12)) | 1);
        Py_RETURN_NONE;
    }
    uint64_t *okeys = self->keys;
    uint8_t *ovals = self->vals;
    Py_ssize_t ocap = self->cap;
    if (alloc_table(self, ocap) < 0) { self->keys = okeys; self->vals = ovals; self->cap = ocap; return NULL; }
    self->count = 0;
    for (Py_ssize_t i = 0; i < ocap; i++) {
        uint64_t page = okeys[i] & PAGE_MASK;
        if (okeys[i] != 0 && (page < lo || page >= hi)) {
            Py_ssize_t j = -1 - find_slot(self, okeys[i]);
            self->keys[j] = okeys[i];
            self->vals[j] = ovals[i];
            self->count++;
        }
    }
    PyMem_Free(okeys);
    PyMem_Free(ovals);
    Py_RETURN_NONE;
}

static Py_ssize_t TlbFill_len(TlbFillObject *self) { return self->count; }

static PyObject *TlbFill_subscript(TlbFillObject *self, PyObject *k)
{
    uint64_t key;
    if (key_of(k, &key) < 0) return NULL;
    Py_ssize_t i = find_slot(self, key);
    if (i < 0) { PyErr_SetObject(PyExc_KeyError, k); return NULL; }
    return PyLong_FromLong(self->vals[i]);
}

static int TlbFill_ass_subscript(TlbFillObject *self, PyObject *k, PyObject *v)
{
    uint64_t key;
    if (key_of(k, &key) < 0) return -1;
    if (v == NULL) {
        self->generation++;
        if (!del(self, key)) { PyErr_SetObject(PyExc_KeyError, k); return -1; }
        return 0;
    }
    long perms = PyLong_AsLong(v);
    if (perms == -1 && PyErr_Occurred()) return -1;
    if (perms < 0 || perms > 7) {
        PyErr_SetString(PyExc_ValueError, "TlbFill: permissions are UC_PROT_* bits (0..7)");
        return -1;
    }
    return put(self, key, (uint8_t)perms);
}

static int TlbFill_contains(TlbFillObject *self, PyObject *k)
{
    uint64_t key;
    if (key_of(k, &key) < 0) return -1;
    return find_slot(self, key) >= 0;
}

static PyObject *TlbFill_get_bypass(TlbFillObject *self, void *c) { return PyBool_FromLong(self->bypass); }

static int TlbFill_set_bypass(TlbFillObject *self, PyObject *v, void *c)
{
    int b = v == NULL ? 0 : PyObject_IsTrue(v);
    if (b < 0) return -1;
    self->bypass = b;
    return 0;
}

static PyObject *TlbFill_counts(TlbFillObject *self, void *c)
{
    return Py_BuildValue("KK", self->hits, self->misses);
}

static PyObject *TlbFill_handle(TlbFillObject *self, void *c) { return PyLong_FromSize_t(self->handle); }

static PyObject *TlbFill_grown(TlbFillObject *self, void *c) { return PyLong_FromUnsignedLongLong(self->grown); }

/* grow_tlb(uc_ctl, flush_code, every): flush the engine's TLB after every `every` fills (0: never)
 * by calling the uc_ctl at that address with the control code of a TLB flush. */
static PyObject *TlbFill_grow_tlb(TlbFillObject *self, PyObject *args)
{
    unsigned long long ctl, every;
    int code;
    if (!PyArg_ParseTuple(args, "KiK", &ctl, &code, &every)) return NULL;
    if (every && !ctl) {
        PyErr_SetString(PyExc_ValueError, "grow_tlb: a null uc_ctl");
        return NULL;
    }
    self->ctl = (uc_ctl_fn)(uintptr_t)ctl;
    self->flush_code = code;
    self->grow_every = every;
    self->since = 0;
    Py_RETURN_NONE;
}

static PyMethodDef TlbFill_methods[] = {
    {"get", (PyCFunction)(void (*)(void))TlbFill_get, METH_FASTCALL, "get(page[, default]): the cached permissions"},
    {"pop", (PyCFunction)(void (*)(void))TlbFill_pop, METH_FASTCALL, "pop(page[, default]): forget a page"},
    {"clear", (PyCFunction)TlbFill_clear, METH_NOARGS, "forget every page"},
    {"grow_tlb", (PyCFunction)TlbFill_grow_tlb, METH_VARARGS,
     "grow_tlb(uc_ctl, flush_code, every): flush Unicorn's TLB after every `every` fills (0: never)"},
    {"forget", (PyCFunction)(void (*)(void))TlbFill_forget, METH_FASTCALL, "forget(start, end): forget the pages of [start, end)"},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef TlbFill_getset[] = {
    {"bypass", (getter)TlbFill_get_bypass, (setter)TlbFill_set_bypass,
     "when true, every fill asks Python (emutrace's own lookups)", NULL},
    {"counts", (getter)TlbFill_counts, NULL, "(fills answered here, fills answered by Python)", NULL},
    {"handle", (getter)TlbFill_handle, NULL, "the hook's Unicorn handle", NULL},
    {"grown", (getter)TlbFill_grown, NULL, "the TLB flushes made to let it grow", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyMappingMethods TlbFill_mapping = {
    (lenfunc)TlbFill_len, (binaryfunc)TlbFill_subscript, (objobjargproc)TlbFill_ass_subscript
};

static PySequenceMethods TlbFill_sequence = {
    .sq_contains = (objobjproc)TlbFill_contains,
};

static PyTypeObject TlbFillType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.TlbFill",
    .tp_basicsize = sizeof(TlbFillObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)TlbFill_traverse,
    .tp_clear = (inquiry)TlbFill_clear_refs,
    .tp_doc = "TlbFill(uc_hook_add, engine, hook_type, fill): the TLB fill hook and its page cache",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)TlbFill_init,
    .tp_dealloc = (destructor)TlbFill_dealloc,
    .tp_methods = TlbFill_methods,
    .tp_getset = TlbFill_getset,
    .tp_as_mapping = &TlbFill_mapping,
    .tp_as_sequence = &TlbFill_sequence,
};

/* The cache's generation (_printfcap.c: guest memory readers that keep a copy of the mappings
 * take a new one when it changed); 0 and *gen set, or -1 when `obj` is no TlbFill. */
int emutrace_tlbfill_generation(PyObject *obj, unsigned long long *gen)
{
    if (!PyObject_TypeCheck(obj, &TlbFillType)) return -1;
    *gen = ((TlbFillObject *)obj)->generation;
    return 0;
}

int emutrace_register_tlbfill(PyObject *m)
{
    if (emutrace_add_type(m, "TlbFill", &TlbFillType) < 0) return -1;
    return 0;
}
