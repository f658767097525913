/* PosCounter: an exact count of the guest instructions a run executes, for the gdb server's
 * positions (emutrace/gdb/), in C (part of emutrace.machine._native).
 *
 * PosCounter(callback)
 *   .attach(uc_hook_add, engine) -> handle   hook one more engine (every engine of the run shares
 *                                             one count: only one engine runs at a time)
 *   .count                                    instructions started so far (read/write)
 *   .stop_at                                  when count reaches it, callback(address) runs
 *                                             before that instruction (2^64-1: never)
 *   .interrupt                                set (from any thread: Ctrl-C) to have callback run
 *                                             before the next instruction; cleared by the call
 *
 * A UC_HOOK_CODE callback over every address: one increment and one compare per instruction,
 * no Python until a stop is due. The callback runs inside the hook (the engine is not stopped:
 * a debugger stop then leaves the scheduler's slices as they were, so a replay of the run
 * interleaves threads exactly as the run did). It must not raise (emutrace/gdb wraps it); if it
 * does, the exception is reported as unraisable. The pure path's reference is
 * emutrace/gdb/positions.py's PyPosCounter. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "_poscount.h"
#include "_uchook.h"
#include "_module.h"            /* emutrace_add_type */

typedef struct {
    PyObject_HEAD
    PyObject *callback;
    unsigned long long count;
    unsigned long long stop_at;
    volatile int interrupt;
} PosCounterObject;

static void on_insn(void *uc, uint64_t address, uint32_t size, void *user)
{
    PosCounterObject *c = user;
    if (c->count >= c->stop_at || c->interrupt) {
        PyGILState_STATE g = PyGILState_Ensure();
        c->interrupt = 0;
        if (c->count >= c->stop_at) c->stop_at = ~0ULL;    /* the callback arms the next one */
        PyObject *r = PyObject_CallFunction(c->callback, "K", (unsigned long long)address);
        if (r == NULL) PyErr_WriteUnraisable(c->callback);
        Py_XDECREF(r);
        PyGILState_Release(g);
    }
    c->count++;
}

static int PosCounter_init(PosCounterObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *cb;
    if (!PyArg_ParseTuple(args, "O", &cb)) return -1;
    if (!PyCallable_Check(cb)) {
        PyErr_SetString(PyExc_TypeError, "PosCounter: the callback must be callable");
        return -1;
    }
    Py_INCREF(cb);
    Py_XSETREF(self->callback, cb);
    self->count = 0;
    self->stop_at = ~0ULL;
    self->interrupt = 0;
    return 0;
}

static PyObject *PosCounter_attach(PosCounterObject *self, PyObject *args)
{
    unsigned long long hook_add, engine;
    size_t handle = 0;
    if (!PyArg_ParseTuple(args, "KK", &hook_add, &engine)) return NULL;
    if (!hook_add || !engine) {
        PyErr_SetString(PyExc_ValueError, "PosCounter.attach: a null function or engine");
        return NULL;
    }
    /* UC_HOOK_CODE is 4 in every Unicorn 2 release */
    if (emutrace_register_hook(hook_add, engine, &handle, 4, (void *)on_insn, self) < 0) return NULL;
    return PyLong_FromSize_t(handle);
}

static void PosCounter_dealloc(PosCounterObject *self)
{
    Py_CLEAR(self->callback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *get_count(PosCounterObject *self, void *c) { return PyLong_FromUnsignedLongLong(self->count); }
static PyObject *get_stop_at(PosCounterObject *self, void *c) { return PyLong_FromUnsignedLongLong(self->stop_at); }
static PyObject *get_interrupt(PosCounterObject *self, void *c) { return PyBool_FromLong(self->interrupt); }

static int set_u64(PyObject *value, unsigned long long *out)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "cannot be deleted");
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLongMask(value);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

static int set_count(PosCounterObject *self, PyObject *v, void *c) { return set_u64(v, &self->count); }
static int set_stop_at(PosCounterObject *self, PyObject *v, void *c) { return set_u64(v, &self->stop_at); }
static int set_interrupt(PosCounterObject *self, PyObject *v, void *c)
{
    int t = v == NULL ? 0 : PyObject_IsTrue(v);
    if (t < 0) return -1;
    self->interrupt = t;
    return 0;
}

static PyGetSetDef PosCounter_getset[] = {
    {"count", (getter)get_count, (setter)set_count, "instructions started so far", NULL},
    {"stop_at", (getter)get_stop_at, (setter)set_stop_at, "the count at which callback runs", NULL},
    {"interrupt", (getter)get_interrupt, (setter)set_interrupt, "callback before the next instruction", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef PosCounter_methods[] = {
    {"attach", (PyCFunction)PosCounter_attach, METH_VARARGS, "attach(uc_hook_add, engine) -> hook handle"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject PosCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.PosCounter",
    .tp_basicsize = sizeof(PosCounterObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "PosCounter(callback): counts the instructions of every attached engine",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PosCounter_init,
    .tp_dealloc = (destructor)PosCounter_dealloc,
    .tp_methods = PosCounter_methods,
    .tp_getset = PosCounter_getset,
};

int emutrace_poscount_init(PyObject *module)
{
    if (emutrace_add_type(module, "PosCounter", &PosCounterType) < 0) return -1;
    return 0;
}
