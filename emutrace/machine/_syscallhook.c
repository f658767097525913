/* The compiled `syscall` instruction hook (SyscallHook), part of emutrace.machine._native. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "_module.h"            /* emutrace_add_type */

/* ------------------------------------------------------------------------------------------
 * SyscallHook(uc_hook_add, uc_reg_read_batch, uc_reg_write, uc_emu_stop, engine, hook_type, insn,
 *             reg_ids, fn, on_error)
 *
 * The `syscall` instruction's hook, registered with uc_hook_add as a C function: it reads the
 * system call's registers in one uc_reg_read_batch, calls fn(*registers) and writes what fn returns
 * into rax (reg_ids[0]) with uc_reg_write; fn returns None when rax must stay as it is (the thread
 * blocked, or execve/rt_sigreturn set the registers themselves). No ctypes callback, no ctypes
 * register read or write and no Python wrapper frame per system call. The Unicorn functions are
 * the ones the binding loaded (their addresses come from Python): no Unicorn headers, no second
 * copy of Unicorn. uc_hook_add is variadic (the instruction's id follows `end`): it is called
 * through a variadic prototype, which every ABI (Apple arm64's included) passes correctly.
 * When fn raises, on_error(exception) keeps it for emu_start to raise and emulation stops (as the
 * Machine's Python hooks do); an exception from on_error itself is reported as unraisable.
 * A call whose answer the owner remembered here (answer_with, remember: see below) is answered
 * without fn. */

typedef int (*uc_hook_add_fn)(void *uc, size_t *hh, int type, void *callback, void *user_data,
                              uint64_t begin, uint64_t end, ...);
typedef int (*uc_reg_read_batch_fn)(void *uc, int *regs, void **vals, int count);
typedef int (*uc_reg_write_fn)(void *uc, int regid, const void *value);
typedef int (*uc_emu_stop_fn)(void *uc);

#define SC_REGS 7
#define ANSWER_NRS 512          /* the numbers an answer may be remembered for: 0..511 */

/* Remembered answers. The owner of the hook (the kernel) names the numbers whose answer depends
 * on nothing a system call of another number cannot change (allow), and after it answered one of
 * them in Python it may hand the hook that very answer (remember). The hook then answers that
 * number itself, with the same value and the same tick of the owner's clock (clock: the object
 * and the names of its counter and its step), until a call of a number not allowed reaches fn or
 * the owner says forget. So the C side never computes an answer: it repeats the Python one. */
typedef struct {
    PyObject_HEAD
    PyObject *fn;
    PyObject *on_error;
    uc_reg_read_batch_fn read_batch;
    uc_reg_write_fn reg_write;
    uc_emu_stop_fn emu_stop;
    int ids[SC_REGS];
    size_t handle;
    int hooked;
    unsigned char allowed[ANSWER_NRS];
    unsigned char known[ANSWER_NRS];
    uint64_t answer[ANSWER_NRS];
    int nknown;                 /* how many numbers are known (0: the fast test fails at once) */
    unsigned long long answered;        /* calls answered here, for tests and --version-like checks */
    PyObject *clock, *counter, *step;   /* clock.counter += clock.step at each answer */
    /* the Python int last passed for each register, and its value: a register that holds the
     * same value at the next call (a read loop's buffer, the words a call does not use) passes
     * the same object again (ints are immutable) instead of a new one made and freed */
    PyObject *last[SC_REGS];
    uint64_t last_val[SC_REGS];
} SyscallHookObject;

static void forget_all(SyscallHookObject *h)
{
    if (h->nknown) {
        memset(h->known, 0, sizeof h->known);
        h->nknown = 0;
    }
}

/* clock.counter += clock.step: what Kernel.on_syscall does first at every call */
static int tick_clock(SyscallHookObject *h)
{
    PyObject *now = PyObject_GetAttr(h->clock, h->counter);
    if (now == NULL) return -1;
    PyObject *step = PyObject_GetAttr(h->clock, h->step);
    if (step == NULL) { Py_DECREF(now); return -1; }
    PyObject *later = PyNumber_Add(now, step);
    Py_DECREF(now);
    Py_DECREF(step);
    if (later == NULL) return -1;
    int err = PyObject_SetAttr(h->clock, h->counter, later);
    Py_DECREF(later);
    return err;
}

/* fn raised (or the registers could not be read or written): on_error gets the exception. */
static void syscall_failed(SyscallHookObject *h, void *uc)
{
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);                  /* (PyErr_GetRaisedException is 3.12's) */
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc != NULL && tb != NULL) PyException_SetTraceback(exc, tb);
    PyObject *r = exc != NULL ? PyObject_CallOneArg(h->on_error, exc) : NULL;
    if (r == NULL) PyErr_WriteUnraisable(h->on_error);
    Py_XDECREF(r);
    Py_XDECREF(type);
    Py_XDECREF(exc);
    Py_XDECREF(tb);
    h->emu_stop(uc);
}

static void on_syscall(void *uc, void *user)
{
    SyscallHookObject *h = user;
    PyGILState_STATE g = PyGILState_Ensure();
    if (h->fn == NULL || h->on_error == NULL) {         /* cleared by the collector: stop */
        h->emu_stop(uc);
        PyGILState_Release(g);
        return;
    }
    uint64_t vals[SC_REGS] = {0};
    void *ptrs[SC_REGS];
    for (int i = 0; i < SC_REGS; i++) ptrs[i] = &vals[i];
    PyObject *r = NULL;
    if (h->read_batch(uc, h->ids, ptrs, SC_REGS) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native: uc_reg_read_batch failed");
        goto fail;
    }
    uint64_t nr = vals[0];
    if (h->nknown && nr < ANSWER_NRS && h->known[nr]) {        /* a remembered answer */
        if (tick_clock(h) < 0) goto fail;
        if (h->reg_write(uc, h->ids[0], &h->answer[nr]) != 0) {
            PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native: uc_reg_write failed");
            goto fail;
        }
        h->answered++;
        PyGILState_Release(g);
        return;
    }
    if (nr >= ANSWER_NRS || !h->allowed[nr]) forget_all(h);     /* this call may change them */
    /* argv[0] is room for fn's self (fn is a bound method: Kernel.on_syscall), which
     * PY_VECTORCALL_ARGUMENTS_OFFSET lets the call put there instead of copying the arguments
     * into a new array (one malloc and free per call for eight of them) */
    PyObject *argv[SC_REGS + 1] = {NULL};
    for (int i = 0; i < SC_REGS; i++) {
        if (h->last[i] == NULL || h->last_val[i] != vals[i]) {
            PyObject *v = PyLong_FromUnsignedLongLong(vals[i]);
            if (v == NULL) break;
            Py_XSETREF(h->last[i], v);
            h->last_val[i] = vals[i];
        }
        Py_INCREF(h->last[i]);
        argv[i + 1] = h->last[i];
    }
    /* fn(rax, rdi, ...) by vectorcall: no tuple made (nor one unpacked in fn) per call */
    if (argv[SC_REGS] != NULL)
        r = PyObject_Vectorcall(h->fn, argv + 1, SC_REGS | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    for (int i = 1; i <= SC_REGS; i++) Py_XDECREF(argv[i]);
    if (r == NULL) goto fail;
    if (r != Py_None) {
        /* the result, as the guest's rax: negative errnos and large addresses alike, mod 2^64 */
        uint64_t rax = PyLong_AsUnsignedLongLongMask(r);
        if (rax == (uint64_t)-1 && PyErr_Occurred()) goto fail;
        if (h->reg_write(uc, h->ids[0], &rax) != 0) {
            PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native: uc_reg_write failed");
            goto fail;
        }
    }
    Py_DECREF(r);
    PyGILState_Release(g);
    return;
fail:
    Py_XDECREF(r);
    syscall_failed(h, uc);
    PyGILState_Release(g);
}

static int SyscallHook_init(SyscallHookObject *self, PyObject *args, PyObject *kwds)
{
    unsigned long long hook_add, read_batch, reg_write, emu_stop, engine;
    int hook_type, insn;
    PyObject *ids, *fn, *on_error;
    if (self->hooked) {
        PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native.SyscallHook: already registered");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "KKKKKiiOOO", &hook_add, &read_batch, &reg_write, &emu_stop, &engine,
                          &hook_type, &insn, &ids, &fn, &on_error))
        return -1;
    if (!hook_add || !read_batch || !reg_write || !emu_stop || !engine || !PyCallable_Check(fn)
        || !PyCallable_Check(on_error)) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.SyscallHook: a null function or engine");
        return -1;
    }
    PyObject *seq = PySequence_Fast(ids, "reg_ids must be a sequence");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != SC_REGS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.SyscallHook: seven register ids");
        return -1;
    }
    for (int i = 0; i < SC_REGS; i++) {
        long id = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (id == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        self->ids[i] = (int)id;
    }
    Py_DECREF(seq);
    Py_INCREF(fn);
    Py_XSETREF(self->fn, fn);
    Py_INCREF(on_error);
    Py_XSETREF(self->on_error, on_error);
    self->read_batch = (uc_reg_read_batch_fn)(uintptr_t)read_batch;
    self->reg_write = (uc_reg_write_fn)(uintptr_t)reg_write;
    self->emu_stop = (uc_emu_stop_fn)(uintptr_t)emu_stop;
    uc_hook_add_fn add = (uc_hook_add_fn)(uintptr_t)hook_add;
    int err = add((void *)(uintptr_t)engine, &self->handle, hook_type, (void *)on_syscall, self,
                  (uint64_t)1, (uint64_t)0, insn);
    if (err != 0) {
        PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
        return -1;
    }
    self->hooked = 1;
    return 0;
}

/* The engine keeps a pointer to this object: the Machine holds it as long as the engine lives.
 * fn and on_error usually lead back to the Machine (on_error holds its engine, whose binding holds
 * the Machine's own hooks), so the collector must see through this object: a cycle it cannot
 * traverse kept every engine that ever had this hook, with its guest memory, until the end. */
static int SyscallHook_traverse(SyscallHookObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fn);
    Py_VISIT(self->on_error);
    Py_VISIT(self->clock);
    Py_VISIT(self->counter);
    Py_VISIT(self->step);
    return 0;
}

static int SyscallHook_clear(SyscallHookObject *self)
{
    Py_CLEAR(self->fn);
    Py_CLEAR(self->on_error);
    Py_CLEAR(self->clock);
    Py_CLEAR(self->counter);
    Py_CLEAR(self->step);
    for (int i = 0; i < SC_REGS; i++) Py_CLEAR(self->last[i]);
    forget_all(self);
    return 0;
}

static void SyscallHook_dealloc(SyscallHookObject *self)
{
    PyObject_GC_UnTrack(self);
    SyscallHook_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* answer_with(clock, counter, step, numbers): the clock a remembered answer ticks, and the numbers
 * whose answers may be remembered (every other number forgets them all) */
static PyObject *SyscallHook_answer_with(SyscallHookObject *self, PyObject *args)
{
    PyObject *clock, *counter, *step, *numbers;
    if (!PyArg_ParseTuple(args, "OUUO", &clock, &counter, &step, &numbers)) return NULL;
    PyObject *it = PyObject_GetIter(numbers);
    if (it == NULL) return NULL;
    unsigned char allowed[ANSWER_NRS] = {0};
    PyObject *item;
    while ((item = PyIter_Next(it)) != NULL) {
        long nr = PyLong_AsLong(item);
        Py_DECREF(item);
        if (nr == -1 && PyErr_Occurred()) break;
        if (nr < 0 || nr >= ANSWER_NRS) {
            PyErr_Format(PyExc_ValueError, "answer_with: %ld is not a number below %d", nr, ANSWER_NRS);
            break;
        }
        allowed[nr] = 1;
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return NULL;
    forget_all(self);
    memcpy(self->allowed, allowed, sizeof allowed);
    Py_INCREF(clock);
    Py_XSETREF(self->clock, clock);
    Py_INCREF(counter);
    Py_XSETREF(self->counter, counter);
    Py_INCREF(step);
    Py_XSETREF(self->step, step);
    Py_RETURN_NONE;
}

/* remember(nr, value): the answer Python just gave to nr, given again here until forgotten */
static PyObject *SyscallHook_remember(SyscallHookObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "remember(nr, value)");
        return NULL;
    }
    Py_ssize_t nr = PyLong_AsSsize_t(args[0]);
    if (nr == -1 && PyErr_Occurred()) return NULL;
    uint64_t value = PyLong_AsUnsignedLongLongMask(args[1]);
    if (value == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    if (nr < 0 || nr >= ANSWER_NRS || !self->allowed[nr] || self->clock == NULL) {
        PyErr_Format(PyExc_ValueError, "remember: %zd is not a number answer_with allowed", nr);
        return NULL;
    }
    if (!self->known[nr]) {
        self->known[nr] = 1;
        self->nknown++;
    }
    self->answer[nr] = value;
    Py_RETURN_NONE;
}

static PyObject *SyscallHook_forget(SyscallHookObject *self, PyObject *unused)
{
    forget_all(self);
    Py_RETURN_NONE;
}

static PyMethodDef SyscallHook_methods[] = {
    {"answer_with", (PyCFunction)SyscallHook_answer_with, METH_VARARGS,
     "answer_with(clock, counter, step, numbers): the numbers whose answers may be remembered"},
    {"remember", (PyCFunction)(void (*)(void))SyscallHook_remember, METH_FASTCALL,
     "remember(nr, value): answer nr with value here until forgotten"},
    {"forget", (PyCFunction)SyscallHook_forget, METH_NOARGS, "forget every remembered answer"},
    {NULL, NULL, 0, NULL}
};

static PyObject *SyscallHook_answered(SyscallHookObject *self, void *closure)
{
    return PyLong_FromUnsignedLongLong(self->answered);
}

static PyObject *SyscallHook_known(SyscallHookObject *self, void *closure)
{
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
    for (int nr = 0; nr < ANSWER_NRS; nr++) {
        if (!self->known[nr]) continue;
        PyObject *k = PyLong_FromLong(nr), *v = PyLong_FromUnsignedLongLong(self->answer[nr]);
        if (k == NULL || v == NULL || PyDict_SetItem(out, k, v) < 0) {
            Py_XDECREF(k);
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(k);
        Py_DECREF(v);
    }
    return out;
}

static PyObject *SyscallHook_handle(SyscallHookObject *self, void *closure)
{
    return PyLong_FromSize_t(self->handle);
}

static PyGetSetDef SyscallHook_getset[] = {
    {"handle", (getter)SyscallHook_handle, NULL, "the hook's Unicorn handle", NULL},
    {"answered", (getter)SyscallHook_answered, NULL, "calls answered from remembered answers", NULL},
    {"known", (getter)SyscallHook_known, NULL, "the remembered answers: {nr: value}", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject SyscallHookType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.SyscallHook",
    .tp_basicsize = sizeof(SyscallHookObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "SyscallHook(uc_hook_add, uc_reg_read_batch, uc_reg_write, uc_emu_stop, engine, hook_type, insn, reg_ids, fn, on_error)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)SyscallHook_init,
    .tp_dealloc = (destructor)SyscallHook_dealloc,
    .tp_traverse = (traverseproc)SyscallHook_traverse,
    .tp_clear = (inquiry)SyscallHook_clear,
    .tp_getset = SyscallHook_getset,
    .tp_methods = SyscallHook_methods,
};


/* the module's SyscallHook type (PyInit__native calls this) */
int emutrace_register_syscallhook(PyObject *m)
{
    if (emutrace_add_type(m, "SyscallHook", &SyscallHookType) < 0) return -1;
    return 0;
}
