/* The host process's table of decoded blocks, shared by every engine's InsnCounter: included
 * once, by _insncount.c (after InsnCounterObject and ic_count), so the compiler inlines it as
 * before; a header of its own only to keep each file to one job. */
#ifndef EMUTRACE_SHAREDBLOCKS_H
#define EMUTRACE_SHAREDBLOCKS_H

/* The host process's table of blocks already decoded, shared by every engine (issue 32,
 * docs/processes.md): a new engine (each fork and exec) meets the same blocks of ld.so, the C
 * library and the shell at the same addresses, and decoding each again with capstone was ~10% of
 * a fork+exec. An entry is (address, size, the block's bytes) -> count: a hit needs the same
 * bytes (compared in full, not only hashed), so a count never depends on which engine, program or
 * code version decoded the block first; the counts stay what decoding gives. Bounded: SHARED_BYTES
 * of code bytes and 2^SHARED_BITS slots at most half full (~11 MiB of host memory for the whole
 * run, part of emutrace's stated overhead); once full, blocks are decoded as before. */
#define SHARED_BITS 17
#define SHARED_BITS_FIRST 12
#define SHARED_BYTES (8u << 20)

typedef struct {
    uint64_t key;               /* address | size << 48, + 1 (0: empty) */
    uint64_t hash;              /* of the bytes */
    uint32_t off;               /* the bytes, in shared_code */
    uint32_t n;
} SharedSlot;

static SharedSlot *shared_slots;
static uint8_t *shared_code;
static size_t shared_code_used, shared_used;
static int shared_failed;       /* the host refused the memory once: no sharing */
static int shared_bits;

static int shared_grow(void)
{
    int bits = shared_bits + 1;
    if (bits > SHARED_BITS) return -1;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    SharedSlot *slots = PyMem_RawCalloc((size_t)mask + 1, sizeof(SharedSlot));
    if (slots == NULL) return -1;
    for (uint64_t k = 0; k < ((uint64_t)1 << shared_bits); k++) {
        SharedSlot *s = &shared_slots[k];
        if (s->key == 0) continue;
        uint64_t i = u64t_home(s->key ^ s->hash, bits);
        while (slots[i].key != 0) i = (i + 1) & mask;
        slots[i] = *s;
    }
    PyMem_RawFree(shared_slots);
    shared_slots = slots;
    shared_bits = bits;
    return 0;
}

static uint64_t ic_hash(const uint8_t *p, uint64_t len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);          /* FNV-1a */
    for (uint64_t i = 0; i < len; i++) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

static uint64_t ic_shared_count(InsnCounterObject *c, void *uc, uint64_t address, uint64_t len, uint64_t key)
{
    uint8_t buf[CODE_MAX];
    if (len == 0) return 0;
    if (len > CODE_MAX) len = CODE_MAX;
    if (c->mem_read(uc, address, buf, len) != 0) return 1;
    if (shared_slots == NULL && !shared_failed) {
        shared_slots = PyMem_RawCalloc((size_t)1 << SHARED_BITS_FIRST, sizeof(SharedSlot));
        shared_code = PyMem_RawMalloc(SHARED_BYTES);      /* (pages committed as they are filled) */
        if (shared_slots == NULL || shared_code == NULL) {
            PyMem_RawFree(shared_slots);
            PyMem_RawFree(shared_code);
            shared_slots = NULL;
            shared_code = NULL;
            shared_failed = 1;
        }
        shared_bits = SHARED_BITS_FIRST;
    }
    if (shared_slots == NULL) return ic_count(c, buf, len, address);
    uint64_t hash = ic_hash(buf, len), mask = ((uint64_t)1 << shared_bits) - 1;
    uint64_t i = u64t_home(key ^ hash, shared_bits);
    while (shared_slots[i].key != 0) {
        SharedSlot *s = &shared_slots[i];
        if (s->key == key && s->hash == hash && memcmp(shared_code + s->off, buf, (size_t)len) == 0)
            return s->n;
        i = (i + 1) & mask;
    }
    uint64_t n = ic_count(c, buf, len, address);
    if ((shared_used + 1) * 2 > mask + 1 && shared_grow() == 0) {
        mask = ((uint64_t)1 << shared_bits) - 1;
        i = u64t_home(key ^ hash, shared_bits);
        while (shared_slots[i].key != 0) i = (i + 1) & mask;
    }
    if ((shared_used + 1) * 2 <= mask + 1 && shared_code_used + len <= SHARED_BYTES) {
        memcpy(shared_code + shared_code_used, buf, (size_t)len);
        shared_slots[i].key = key;
        shared_slots[i].hash = hash;
        shared_slots[i].off = (uint32_t)shared_code_used;
        shared_slots[i].n = (uint32_t)n;
        shared_code_used += len;
        shared_used++;
    }
    return n;
}

#endif
