/* One open-addressing hash table of (64-bit key, 64-bit value) slots, written once for the
 * block hooks of emutrace.machine._native: --coverage's BlockCounter (_cover.c: address ->
 * executions) and the clock's InsnCounter (_insncount.c: address and size -> instructions).
 *
 * A key is never 0 (0 marks an empty slot: callers add 1 to an address, which is never
 * 2^64 - 1). The table is kept at most half full and doubles up to 2^max_bits slots; its memory
 * is PyMem_Raw (the hooks run inside emulation, without the GIL). Fibonacci hashing: block
 * addresses share their low bits (alignment) and their high bits (the module), so the index
 * comes from the product's top bits. */
#ifndef EMUTRACE_U64TABLE_H
#define EMUTRACE_U64TABLE_H

#include <Python.h>
#include <stdint.h>

typedef struct {
    uint64_t key;
    uint64_t value;
} U64Slot;

typedef struct {
    U64Slot *slots;
    uint64_t mask;              /* capacity - 1 */
    int bits;                   /* log2(capacity) */
    int max_bits;               /* the table's bound */
    Py_ssize_t used;            /* keys held */
} U64Table;

static inline uint64_t u64t_home(uint64_t key, int bits)
{
    return (key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits);
}

static inline U64Slot *u64t_probe_in(U64Slot *slots, uint64_t mask, int bits, uint64_t key)
{
    uint64_t i = u64t_home(key, bits);
    while (slots[i].key != 0 && slots[i].key != key) i = (i + 1) & mask;
    return &slots[i];
}

/* key's slot: slot->key == key when present, 0 (empty) otherwise */
static inline U64Slot *u64t_probe(U64Table *t, uint64_t key)
{
    return u64t_probe_in(t->slots, t->mask, t->bits, key);
}

/* 0, or -1 (no memory: PyErr_NoMemory set when the GIL is held by the caller) */
static inline int u64t_init(U64Table *t, int bits, int max_bits)
{
    U64Slot *slots = PyMem_RawCalloc((size_t)1 << bits, sizeof(U64Slot));
    if (slots == NULL) return -1;
    PyMem_RawFree(t->slots);
    t->slots = slots;
    t->bits = bits;
    t->max_bits = max_bits;
    t->mask = (UINT64_C(1) << bits) - 1;
    t->used = 0;
    return 0;
}

static inline void u64t_free(U64Table *t)
{
    PyMem_RawFree(t->slots);
    t->slots = NULL;
}

static inline int u64t_grow(U64Table *t)
{
    int bits = t->bits + 1;
    if (bits > t->max_bits) return -1;
    uint64_t cap = UINT64_C(1) << bits;
    U64Slot *slots = PyMem_RawCalloc((size_t)cap, sizeof(U64Slot));
    if (slots == NULL) return -1;
    for (uint64_t i = 0; i <= t->mask; i++) {
        if (t->slots[i].key != 0) *u64t_probe_in(slots, cap - 1, bits, t->slots[i].key) = t->slots[i];
    }
    PyMem_RawFree(t->slots);
    t->slots = slots;
    t->mask = cap - 1;
    t->bits = bits;
    return 0;
}

/* The slot for a key known absent, made key's (value 0), growing the table first if it would
 * pass half full; NULL when it can neither grow nor take it. */
static inline U64Slot *u64t_insert(U64Table *t, uint64_t key)
{
    if ((uint64_t)(t->used + 1) * 2 > t->mask + 1 && u64t_grow(t) < 0) return NULL;
    U64Slot *s = u64t_probe(t, key);
    s->key = key;
    s->value = 0;
    t->used++;
    return s;
}

#endif
