/* emutrace.machine._native's block counter (_cover.c), compiled into the same extension.
 * _native.c's module initialisation calls emutrace_cover_init once the module exists. */
#ifndef EMUTRACE_COVER_H
#define EMUTRACE_COVER_H

#include <Python.h>

/* Adds the BlockCounter type to the module: 0, or -1 with an exception set. */
int emutrace_cover_init(PyObject *module);

#endif
