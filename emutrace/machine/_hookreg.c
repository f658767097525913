/* Every hook a compiled object adds to an engine, known by handle (emutrace/machine/enginehooks.py).
 *
 * The compiled hooks (InsnCounter, SyscallHook, TlbFill, BlockCounter, PrintfHooks, Positions'
 * watch, the RDTSC answers) call uc_hook_add themselves, through an address Python gives them. That
 * address is this file's recording_hook_add: it calls the binding's uc_hook_add and files the new
 * handle under its engine, so that the engine's registry can delete every hook of a process and give
 * the engine back in its just-made state (a leftover hook would run a dead process's system calls
 * or report its events in the next process on that engine). Without it no one place knew an
 * engine's hooks: the compiled objects kept their handles to themselves.
 *
 * hook_registry(uc_hook_add, UC_HOOK_INSN, UC_HOOK_TCG_OPCODE) -> address of recording_hook_add
 * engine_hooks(engine) -> [handle, ...]      the recorded hooks of one engine
 * forget_hook(engine, handle) -> bool        one hook deleted by its owner
 * forget_engine(engine) -> [handle, ...]     every recorded hook of engine, no longer recorded
 * hook_deleter(uc_hook_del) -> address of recording_hook_del, for compiled objects that delete
 *                              hooks they added (the debugger's fine mode adds and deletes one per
 *                              stop inside a block: unrecorded, each would stay filed as a stale
 *                              handle that a reset would delete a second time)
 *
 * The table holds a few entries per live engine (a dozen on a traced process), so it is a plain
 * array searched linearly: hooks are added and deleted at a process's start and end, never per
 * event. The GIL serialises every call (all of them come from Python or from hooks Python runs). */
#include <Python.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "_uchook.h"

typedef struct {
    void *engine;
    size_t handle;
    int type;                   /* (hook_ranges: which hooks Unicorn instruments translations for) */
    uint64_t begin, end;
} HookEntry;

static emutrace_uc_hook_add_fn real_add;
static int insn_flag, opcode_flag;      /* Unicorn's UC_HOOK_INSN and UC_HOOK_TCG_OPCODE (from Python) */
static HookEntry *entries;
static size_t n_entries, cap_entries;

static int record(void *engine, size_t handle, int type, uint64_t begin, uint64_t end)
{
    if (n_entries == cap_entries) {
        size_t cap = cap_entries ? 2 * cap_entries : 64;
        HookEntry *grown = realloc(entries, cap * sizeof *grown);
        if (grown == NULL) return -1;
        entries = grown;
        cap_entries = cap;
    }
    entries[n_entries].engine = engine;
    entries[n_entries].handle = handle;
    entries[n_entries].type = type;
    entries[n_entries].begin = begin;
    entries[n_entries].end = end;
    n_entries++;
    return 0;
}

/* uc_hook_add's own signature: the extras of an instruction hook (its id) and of an opcode hook
 * (opcode, flags) are passed on as Unicorn reads them (uc.c: va_arg int). */
static int recording_hook_add(void *uc, size_t *hh, int type, void *callback, void *user_data,
                              uint64_t begin, uint64_t end, ...)
{
    int err;
    va_list ap;
    va_start(ap, end);
    if (type & insn_flag) {
        int insn = va_arg(ap, int);
        err = real_add(uc, hh, type, callback, user_data, begin, end, insn);
    } else if (type & opcode_flag) {
        int op = va_arg(ap, int);
        int flags = va_arg(ap, int);
        err = real_add(uc, hh, type, callback, user_data, begin, end, op, flags);
    } else {
        err = real_add(uc, hh, type, callback, user_data, begin, end);
    }
    va_end(ap);
    /* (a hook that cannot be recorded would survive a reset: refuse it rather) */
    if (err == 0 && record(uc, *hh, type, begin, end) < 0) return 1;     /* UC_ERR_NOMEM */
    return err;
}

typedef int (*uc_hook_del_fn)(void *uc, size_t hh);
static uc_hook_del_fn real_del;

static void unrecord(void *engine, size_t handle)
{
    for (size_t i = n_entries; i-- > 0;) {
        if (entries[i].engine == engine && entries[i].handle == handle) {
            entries[i] = entries[--n_entries];
            return;
        }
    }
}

static int recording_hook_del(void *uc, size_t hh)
{
    int err = real_del(uc, hh);
    if (err == 0) unrecord(uc, hh);
    return err;
}

static PyObject *hook_deleter(PyObject *self, PyObject *arg)
{
    unsigned long long del = PyLong_AsUnsignedLongLong(arg);
    if (del == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    if (!del) {
        PyErr_SetString(PyExc_ValueError, "hook_deleter: no uc_hook_del");
        return NULL;
    }
    real_del = (uc_hook_del_fn)(uintptr_t)del;
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)recording_hook_del);
}

static PyObject *hook_registry(PyObject *self, PyObject *args)
{
    unsigned long long add;
    if (!PyArg_ParseTuple(args, "Kii", &add, &insn_flag, &opcode_flag)) return NULL;
    if (!add) {
        PyErr_SetString(PyExc_ValueError, "hook_registry: no uc_hook_add");
        return NULL;
    }
    real_add = (emutrace_uc_hook_add_fn)(uintptr_t)add;
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)recording_hook_add);
}

static PyObject *handles_of(void *engine, int remove)
{
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    size_t kept = 0;
    for (size_t i = 0; i < n_entries; i++) {
        if (entries[i].engine == engine) {
            PyObject *h = PyLong_FromSize_t(entries[i].handle);
            if (h == NULL || PyList_Append(out, h) < 0) {
                Py_XDECREF(h);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(h);
            if (remove) continue;
        }
        entries[kept++] = entries[i];
    }
    n_entries = kept;
    return out;
}

static PyObject *engine_hooks(PyObject *self, PyObject *arg)
{
    void *engine = PyLong_AsVoidPtr(arg);
    if (engine == NULL && PyErr_Occurred()) return NULL;
    return handles_of(engine, 0);
}

static PyObject *forget_engine(PyObject *self, PyObject *arg)
{
    void *engine = PyLong_AsVoidPtr(arg);
    if (engine == NULL && PyErr_Occurred()) return NULL;
    return handles_of(engine, 1);
}

/* hook_ranges(engine, type_mask) -> [(handle, begin, end), ...]: the recorded hooks of engine whose
 * type has a bit of type_mask (the code and block hooks, which Unicorn compiles into the
 * translations made while they exist: a reused engine's kept translations must not run where a
 * new one covers, emutrace/machine/reuse.py) */
static PyObject *hook_ranges(PyObject *self, PyObject *args)
{
    unsigned long long engine;
    int mask;
    if (!PyArg_ParseTuple(args, "Ki", &engine, &mask)) return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (size_t i = 0; i < n_entries; i++) {
        if (entries[i].engine != (void *)(uintptr_t)engine || !(entries[i].type & mask)) continue;
        PyObject *t = Py_BuildValue("nKK", (Py_ssize_t)entries[i].handle,
                                    (unsigned long long)entries[i].begin, (unsigned long long)entries[i].end);
        if (t == NULL || PyList_Append(out, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(t);
    }
    return out;
}

static PyObject *forget_hook(PyObject *self, PyObject *args)
{
    unsigned long long engine, handle;
    if (!PyArg_ParseTuple(args, "KK", &engine, &handle)) return NULL;
    size_t before = n_entries;
    unrecord((void *)(uintptr_t)engine, (size_t)handle);
    if (n_entries < before) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static PyMethodDef methods[] = {
    {"hook_registry", hook_registry, METH_VARARGS,
     "hook_registry(uc_hook_add, UC_HOOK_INSN, UC_HOOK_TCG_OPCODE) -> the address of a uc_hook_add that records"},
    {"engine_hooks", engine_hooks, METH_O, "engine_hooks(engine) -> the handles recorded for engine"},
    {"forget_engine", forget_engine, METH_O, "forget_engine(engine) -> the handles recorded for engine, now forgotten"},
    {"hook_deleter", hook_deleter, METH_O, "hook_deleter(uc_hook_del) -> the address of a uc_hook_del that unrecords"},
    {"hook_ranges", hook_ranges, METH_VARARGS,
     "hook_ranges(engine, type_mask) -> [(handle, begin, end)] of the recorded hooks of those types"},
    {"forget_hook", forget_hook, METH_VARARGS, "forget_hook(engine, handle) -> whether it was recorded"},
    {NULL, NULL, 0, NULL}
};

int emutrace_register_hookreg(PyObject *m)
{
    return PyModule_AddFunctions(m, methods);
}
