/* emutrace.machine._interrupt: stop the engine that is running when SIGINT, SIGTERM or SIGHUP
 * arrives (emutrace/machine/interrupt.py explains why this is C).
 *
 * Python's own handler only sets a flag that the interpreter looks at between bytecodes, and
 * while Unicorn runs a translated loop no bytecode runs. This handler calls uc_emu_stop on the
 * engine inside uc_emu_start (uc_emu_stop only sets flags: safe in a signal handler; QEMU's own
 * signal-driven exits work the same way), then calls the handler it replaced (Python's), so the
 * Python-level handler runs as soon as emu_start returns. It is a module of its own, not part of
 * emutrace.machine._native, because EMUTRACE_PURE=1 must not load the compiled event path, while
 * an interrupt must work on both paths. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

typedef int (*uc_stop_fn)(void *uc);

static uc_stop_fn emu_stop;
static void *volatile running;                 /* the engine inside uc_emu_start, or NULL */
static volatile sig_atomic_t caught;           /* the last signal caught, 0: none */
#define NSIG_SAVED 65
static struct sigaction previous[NSIG_SAVED];  /* the handlers replaced (Python's) */

static void on_signal(int sig)
{
    int saved = errno;
    void *uc = running;
    caught = sig;
    if (uc != NULL && emu_stop != NULL)
        emu_stop(uc);
    if (sig > 0 && sig < NSIG_SAVED) {
        struct sigaction *p = &previous[sig];
        if (!(p->sa_flags & SA_SIGINFO) && p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN)
            p->sa_handler(sig);
    }
    errno = saved;
}

/* arm(uc_emu_stop_address, signals): catch these signals from now on (after Python's handlers
 * for them were installed with signal.signal, which this one then calls). */
static PyObject *arm(PyObject *self, PyObject *args)
{
    unsigned long long stop;
    PyObject *sigs;
    if (!PyArg_ParseTuple(args, "KO", &stop, &sigs))
        return NULL;
    PyObject *seq = PySequence_Fast(sigs, "signals must be a sequence");
    if (seq == NULL)
        return NULL;
    emu_stop = (uc_stop_fn)(uintptr_t)stop;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long sig = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (sig <= 0 || sig >= NSIG_SAVED) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "bad signal number");
            return NULL;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_ONSTACK;
        if (sigaction((int)sig, &sa, &previous[sig]) != 0) {
            Py_DECREF(seq);
            return PyErr_SetFromErrno(PyExc_OSError);
        }
    }
    Py_DECREF(seq);
    Py_RETURN_NONE;
}

/* enter(handle) -> the engine that was running before (0: none); leave(previous) restores it. */
static PyObject *enter(PyObject *self, PyObject *arg)
{
    void *before = running;
    running = PyLong_AsVoidPtr(arg);
    if (PyErr_Occurred())
        return NULL;
    return PyLong_FromVoidPtr(before);
}

static PyObject *leave(PyObject *self, PyObject *arg)
{
    void *before = PyLong_AsVoidPtr(arg);
    if (PyErr_Occurred())
        return NULL;
    running = before;
    Py_RETURN_NONE;
}

/* caught() -> the signal caught since the last call (0: none), and forgets it. */
static PyObject *take_caught(PyObject *self, PyObject *unused)
{
    int sig = caught;
    caught = 0;
    return PyLong_FromLong(sig);
}

static PyMethodDef methods[] = {
    {"arm", arm, METH_VARARGS, "arm(uc_emu_stop_address, signals): stop the running engine on these signals"},
    {"enter", enter, METH_O, "enter(uc_handle) -> previous: this engine runs now"},
    {"leave", leave, METH_O, "leave(previous): the engine that ran before runs again (0: none)"},
    {"caught", take_caught, METH_NOARGS, "caught() -> the last signal caught (0: none), forgotten"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_interrupt", NULL, -1, methods};

PyMODINIT_FUNC PyInit__interrupt(void)
{
    return PyModule_Create(&module);
}
