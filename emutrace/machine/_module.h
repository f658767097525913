/* What every part of emutrace.machine._native uses to put its types in the module (defined in
 * _native.c): PyType_Ready, then the reference the module keeps. */
#ifndef EMUTRACE_MODULE_H
#define EMUTRACE_MODULE_H

#include <Python.h>

int emutrace_add_type(PyObject *m, const char *name, PyTypeObject *type);
int emutrace_add_type_ready(PyObject *m, const char *name, PyTypeObject *type);   /* (type already ready) */

#endif
