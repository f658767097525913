/* emutrace.machine._native's instruction counter (_insncount.c), compiled into the same
 * extension. _native.c's module initialisation calls emutrace_insncount_init. */
#ifndef EMUTRACE_INSNCOUNT_H
#define EMUTRACE_INSNCOUNT_H

#include <Python.h>

/* Adds the InsnCounter type to the module: 0, or -1 with an exception set. */
int emutrace_insncount_init(PyObject *module);

#endif
