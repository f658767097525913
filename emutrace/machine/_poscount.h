/* emutrace.machine._native's instruction counter (_poscount.c), compiled into the same
 * extension. _native.c's module initialisation calls emutrace_poscount_init. */
#ifndef EMUTRACE_POSCOUNT_H
#define EMUTRACE_POSCOUNT_H

#include <Python.h>

/* Adds the PosCounter type to the module: 0, or -1 with an exception set. */
int emutrace_poscount_init(PyObject *module);

#endif
