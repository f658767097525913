/* Registering a C callback with Unicorn, for the native hooks of emutrace.machine._native
 * (_cover.c's block counter, _tlbfill.c's TLB fill).
 *
 * emutrace does not link libunicorn: uc_hook_add is the function the unicorn binding loaded, its
 * address passed in from Python, and the engine is the binding's handle. uc_hook_add is variadic
 * (an instruction hook's id follows `end`), so it is called through a variadic prototype. */
#ifndef EMUTRACE_UCHOOK_H
#define EMUTRACE_UCHOOK_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*emutrace_uc_hook_add_fn)(void *uc, size_t *hh, int type, void *callback, void *user_data,
                                       uint64_t begin, uint64_t end, ...);

/* Hooks callback (with user_data) of hook_type over every address (begin 1 > end 0, Unicorn's
 * "everywhere") on engine, through the uc_hook_add at address hook_add; the hook's handle goes
 * to *handle. 0, or -1 with OSError set. */
static inline int emutrace_register_hook(unsigned long long hook_add, unsigned long long engine,
                                         size_t *handle, int hook_type, void *callback, void *user_data)
{
    emutrace_uc_hook_add_fn add = (emutrace_uc_hook_add_fn)(uintptr_t)hook_add;
    int err = add((void *)(uintptr_t)engine, handle, hook_type, callback, user_data,
                  (uint64_t)1, (uint64_t)0);
    if (err != 0) {
        PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
        return -1;
    }
    return 0;
}

#endif
