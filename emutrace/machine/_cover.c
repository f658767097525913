/* BlockCounter: --coverage's UC_HOOK_BLOCK callback, in C (part of emutrace.machine._native);
 *
 * BlockCounter(uc_hook_add, uc_emu_stop, engine, hook_type, first[, max_bits])
 *
 * Each executed basic block costs one probe of an open-addressing hash table keyed by the
 * block's address and one increment, with no Python and no GIL. Python runs only at a block's
 * first execution on the engine: first(address, size), where emutrace.coverage names the
 * block's module while the module map is still the one the block ran under. drain() hands the
 * counts gathered since the last drain to Python and zeroes them; the addresses stay, so first
 * is called once per block and engine, exactly as the Python block hook (the reference,
 * emutrace/machine/blockcount.py) calls it.
 *
 * Memory: one 16-byte slot per distinct block, the table at most half full, and at most
 * 2^max_bits slots (MAX_BITS, 1 GiB, unless a smaller bound is given: the tests fill one). It grows with the code the program ran, never with how long it ran.
 * A block first seen when the table can neither grow nor take it is not counted; `lost` says how
 * many executions that was, and emutrace.coverage reports it.
 *
 * As SyscallHook in _native.c, the Unicorn functions are the ones the binding loaded (their
 * addresses come from Python; the hook is registered by _uchook.h's emutrace_register_hook). first
 * must not raise (the Machine wraps it so that an exception stops emulation and is kept for
 * emu_start to raise); if it does anyway, emulation stops and the exception is reported as
 * unraisable. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_cover.h"
#include "_u64table.h"
#include "_uchook.h"
#include "_module.h"            /* emutrace_add_type */

typedef int (*cover_emu_stop_fn)(void *uc);

#define INITIAL_BITS 12
#define MAX_BITS 26

typedef struct {
    PyObject_HEAD
    PyObject *first;
    cover_emu_stop_fn emu_stop;
    U64Table table;             /* address + 1 -> executions (_u64table.h) */
    uint64_t lost;              /* executions not counted: the table was full */
    size_t handle;
    int hooked;
} BlockCounterObject;

/* A block's first execution on this engine: Python names it. */
static void first_sight(BlockCounterObject *c, void *uc, uint64_t address, uint32_t size)
{
    if (c->first == NULL) return;                   /* (cleared by the garbage collector) */
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallFunction(c->first, "KI", (unsigned long long)address, (unsigned int)size);
    if (r == NULL) {
        PyErr_WriteUnraisable(c->first);
        c->emu_stop(uc);
    }
    Py_XDECREF(r);
    PyGILState_Release(g);
}

static void on_block(void *uc, uint64_t address, uint32_t size, void *user)
{
    BlockCounterObject *c = user;
    uint64_t key = address + 1;
    U64Slot *s = u64t_probe(&c->table, key);
    if (s->key == key) {
        s->value++;
        return;
    }
    s = u64t_insert(&c->table, key);
    if (s == NULL) {
        c->lost++;
        return;
    }
    s->value = 1;
    first_sight(c, uc, address, size);
}

static int BlockCounter_init(BlockCounterObject *self, PyObject *args, PyObject *kwds)
{
    unsigned long long hook_add, emu_stop, engine;
    int hook_type, max_bits = MAX_BITS;
    PyObject *first;
    if (self->hooked) {
        PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native.BlockCounter: already registered");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "KKKiO|i", &hook_add, &emu_stop, &engine, &hook_type, &first, &max_bits))
        return -1;
    if (max_bits < INITIAL_BITS || max_bits > MAX_BITS) {
        PyErr_Format(PyExc_ValueError, "emutrace.machine._native.BlockCounter: max_bits is %d..%d",
                     INITIAL_BITS, MAX_BITS);
        return -1;
    }
    if (!hook_add || !emu_stop || !engine || !PyCallable_Check(first)) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.BlockCounter: a null function or engine");
        return -1;
    }
    if (u64t_init(&self->table, INITIAL_BITS, max_bits) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->lost = 0;
    Py_INCREF(first);
    Py_XSETREF(self->first, first);
    self->emu_stop = (cover_emu_stop_fn)(uintptr_t)emu_stop;
    if (emutrace_register_hook(hook_add, engine, &self->handle, hook_type, (void *)on_block, self) < 0)
        return -1;
    self->hooked = 1;
    return 0;
}

/* The engine keeps a pointer to this object: the Machine holds it as long as the engine lives
 * (and emutrace.coverage holds it until the counts are drained, which may be after). first may
 * refer back to the Machine: the type takes part in garbage collection so that such a cycle,
 * once nothing else holds it, is freed with its engine. */
static int BlockCounter_traverse(BlockCounterObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->first);
    return 0;
}

static int BlockCounter_clear(BlockCounterObject *self)
{
    Py_CLEAR(self->first);
    return 0;
}

static void BlockCounter_dealloc(BlockCounterObject *self)
{
    PyObject_GC_UnTrack(self);
    BlockCounter_clear(self);
    u64t_free(&self->table);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* drain() -> [(address, executions)]: the blocks executed since the last drain, their counts
 * zeroed. Called between emulation runs (the hook and drain share the table without a lock). */
static PyObject *BlockCounter_drain(BlockCounterObject *self, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    if (out == NULL || self->table.slots == NULL) return out;
    for (uint64_t i = 0; i <= self->table.mask; i++) {
        U64Slot *s = &self->table.slots[i];
        if (s->key == 0 || s->value == 0) continue;
        PyObject *row = Py_BuildValue("(KK)", (unsigned long long)(s->key - 1), (unsigned long long)s->value);
        if (row == NULL || PyList_Append(out, row) < 0) {
            Py_XDECREF(row);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(row);
        s->value = 0;
    }
    return out;
}

static PyObject *BlockCounter_handle(BlockCounterObject *self, void *closure)
{
    return PyLong_FromSize_t(self->handle);
}

static PyObject *BlockCounter_blocks(BlockCounterObject *self, void *closure)
{
    return PyLong_FromSsize_t(self->table.used);
}

static PyObject *BlockCounter_lost(BlockCounterObject *self, void *closure)
{
    return PyLong_FromUnsignedLongLong(self->lost);
}

static PyMethodDef BlockCounter_methods[] = {
    {"drain", (PyCFunction)BlockCounter_drain, METH_NOARGS,
     "drain() -> [(address, executions)]: the counts since the last drain, then zeroed"},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef BlockCounter_getset[] = {
    {"handle", (getter)BlockCounter_handle, NULL, "the hook's Unicorn handle", NULL},
    {"blocks", (getter)BlockCounter_blocks, NULL, "distinct blocks seen", NULL},
    {"lost", (getter)BlockCounter_lost, NULL, "executions not counted (the table was full)", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject BlockCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.BlockCounter",
    .tp_basicsize = sizeof(BlockCounterObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "BlockCounter(uc_hook_add, uc_emu_stop, engine, hook_type, first[, max_bits]): counts executed blocks",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BlockCounter_init,
    .tp_dealloc = (destructor)BlockCounter_dealloc,
    .tp_traverse = (traverseproc)BlockCounter_traverse,
    .tp_clear = (inquiry)BlockCounter_clear,
    .tp_methods = BlockCounter_methods,
    .tp_getset = BlockCounter_getset,
};

int emutrace_cover_init(PyObject *module)
{
    if (emutrace_add_type(module, "BlockCounter", &BlockCounterType) < 0) return -1;
    return 0;
}
