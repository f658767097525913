/* GuestMemory: raw guest memory reads and writes for Python, without ctypes.
 *
 * GuestMemory(uc_mem_read, uc_mem_write, engine, owner, error, read_code, write_code) is made once
 * per engine (emutrace/machine/cpu.py); it holds `owner` (the binding's engine object), so that the
 * engine lives as long as anything holds these functions, as it did with the bound methods; read(addr, size) -> bytes and write(addr, data) call the
 * libunicorn the binding loaded, through the addresses of its functions, as SyscallHook does.
 * They check no permissions: emutrace's own (memory.py's VMAs) are checked by the callers, as
 * for the ctypes calls they replace. A ctypes call with its argument objects costs ~2-3 µs; most
 * system calls read or write guest memory once or twice, so this was a large part of each.
 * A failed access raises error(read_code) or error(write_code) (unicorn's UcError), as before.
 *
 * Unicorn 2.1 declares both sizes uint64_t. Portable C99 and the Python C API only. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include "_module.h"            /* emutrace_add_type */

typedef int (*uc_mem_read_fn)(void *uc, uint64_t address, void *bytes, uint64_t size);
typedef int (*uc_mem_write_fn)(void *uc, uint64_t address, const void *bytes, uint64_t size);

typedef struct {
    PyObject_HEAD
    void *uc;
    uc_mem_read_fn mem_read;
    uc_mem_write_fn mem_write;
    PyObject *owner;            /* the binding's Uc object: keeps the engine alive */
    PyObject *error;            /* UcError */
    long read_code, write_code; /* UC_ERR_READ_UNMAPPED, UC_ERR_WRITE_UNMAPPED */
} GuestMemoryObject;

static PyObject *raise_error(GuestMemoryObject *self, long code)
{
    PyObject *e = PyObject_CallFunction(self->error, "l", code);
    if (e != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
    }
    return NULL;
}

static int GuestMemory_init(GuestMemoryObject *self, PyObject *args, PyObject *kwds)
{
    unsigned long long rd, wr, engine;
    PyObject *owner, *error;
    long read_code, write_code;
    if (!PyArg_ParseTuple(args, "KKKOOll", &rd, &wr, &engine, &owner, &error, &read_code, &write_code))
        return -1;
    if (!rd || !wr || !engine || !PyCallable_Check(error)) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.GuestMemory: a null function or engine");
        return -1;
    }
    self->uc = (void *)(uintptr_t)engine;
    self->mem_read = (uc_mem_read_fn)(uintptr_t)rd;
    self->mem_write = (uc_mem_write_fn)(uintptr_t)wr;
    Py_INCREF(owner);
    Py_XSETREF(self->owner, owner);
    Py_INCREF(error);
    Py_XSETREF(self->error, error);
    self->read_code = read_code;
    self->write_code = write_code;
    return 0;
}

/* The owner usually refers back to the Machine that holds this object (the binding keeps the
 * Machine's own hooks), so the collector must see through it: a cycle it cannot traverse would
 * keep every engine, with its guest memory, until the process ends. */
static int GuestMemory_traverse(GuestMemoryObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->owner);
    Py_VISIT(self->error);
    return 0;
}

static int GuestMemory_clear(GuestMemoryObject *self)
{
    Py_CLEAR(self->owner);
    Py_CLEAR(self->error);
    return 0;
}

static void GuestMemory_dealloc(GuestMemoryObject *self)
{
    PyObject_GC_UnTrack(self);
    GuestMemory_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int engine_gone(GuestMemoryObject *self)
{
    if (self->owner != NULL) return 0;
    PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native.GuestMemory: the engine is gone");
    return 1;
}

/* read(addr, size) -> bytes: Machine.read_fast */
static PyObject *GuestMemory_read(GuestMemoryObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (engine_gone(self)) return NULL;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "read(addr, size)");
        return NULL;
    }
    uint64_t addr = PyLong_AsUnsignedLongLongMask(args[0]);
    if (addr == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    Py_ssize_t size = PyLong_AsSsize_t(args[1]);
    if (size == -1 && PyErr_Occurred()) return NULL;
    if (size < 0) return raise_error(self, self->read_code);
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL) return NULL;
    if (size > 0 && self->mem_read(self->uc, addr, PyBytes_AS_STRING(out), (uint64_t)size) != 0) {
        Py_DECREF(out);
        return raise_error(self, self->read_code);
    }
    return out;
}

/* write(addr, data) -> None: Machine.write (data: bytes, bytearray, memoryview, or what bytes()
 * takes) */
static PyObject *GuestMemory_write(GuestMemoryObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (engine_gone(self)) return NULL;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "write(addr, data)");
        return NULL;
    }
    uint64_t addr = PyLong_AsUnsignedLongLongMask(args[0]);
    if (addr == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    PyObject *owned = NULL, *data = args[1];
    if (!PyObject_CheckBuffer(data)) {
        owned = data = PyBytes_FromObject(data);
        if (data == NULL) return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        Py_XDECREF(owned);
        return NULL;
    }
    int err = view.len > 0 ? self->mem_write(self->uc, addr, view.buf, (uint64_t)view.len) : 0;
    PyBuffer_Release(&view);
    Py_XDECREF(owned);
    if (err != 0) return raise_error(self, self->write_code);
    Py_RETURN_NONE;
}

static PyMethodDef GuestMemory_methods[] = {
    {"read", (PyCFunction)(void (*)(void))GuestMemory_read, METH_FASTCALL,
     "read(addr, size) -> bytes: raw guest memory, no permission check"},
    {"write", (PyCFunction)(void (*)(void))GuestMemory_write, METH_FASTCALL,
     "write(addr, data): raw guest memory, no permission check"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject GuestMemoryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.GuestMemory",
    .tp_basicsize = sizeof(GuestMemoryObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "GuestMemory(uc_mem_read, uc_mem_write, engine, owner, error, read_code, write_code)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)GuestMemory_init,
    .tp_dealloc = (destructor)GuestMemory_dealloc,
    .tp_traverse = (traverseproc)GuestMemory_traverse,
    .tp_clear = (inquiry)GuestMemory_clear,
    .tp_methods = GuestMemory_methods,
};

int emutrace_register_guestmem(PyObject *m)
{
    if (emutrace_add_type(m, "GuestMemory", &GuestMemoryType) < 0) return -1;
    return 0;
}
