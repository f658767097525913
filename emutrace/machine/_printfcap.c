/* emutrace.machine._native.PrintfStore / PrintfHooks: printf-family calls rendered by C hooks.
 *
 * Guest code cannot parse a format string, so a logged printf-family call (emutrace/printflog.py)
 * gets a trampoline with one instruction that carries a C code hook (PrintfHooks.add_site), after
 * the call record's head (the argument registers and the return slot, which the hook reads there
 * rather than through uc_reg_read). The hook runs with the call's registers: it reads the format
 * as emutrace.values' _PrintfPack does (ltrace 0.7.3's printf.c), fetches each conversion's value
 * from the argument words, the xmm registers, the stack or the va_list, renders the arguments shown at the call (those before
 * the prototype's first `+` output argument) into text, and writes a sequence number into the
 * call record, after its head, where the trampoline publishes it with the record. The arguments
 * after the split (all of sprintf's and snprintf's) are shown as memory is at the return: the hook
 * keeps their values, and a second hook, on the printf sites' own entry of the guest log's return
 * trampoline (PrintfHooks.add_return: one instruction before the shared entry, falling through
 * into it; no other site returns there), renders them when that call returns. Python's decoder takes
 * the texts by sequence number (PrintfStore.take_left / take_right, or take_line: a leaf call's
 * whole line), so no Python frame runs per hook. The rendering is CallFormatter's (_fmt_prim, _fmt_pointer, _fmt_array, _fmt_integer,
 * _c_float) for the types a printf pack produces; tests/test_printflog.py compares the bytes with
 * the hooked path (EMUTRACE_PURE=1, --hook-returns).
 *
 * Guest memory is read as emutrace reads it (AddressSpace.read: a VMA with PROT_READ, else
 * unreadable): the hooks keep a copy of the mappings, taken from Python (the `vmas` callable,
 * under the GIL) whenever the TLB fill's permission cache says they changed (its generation,
 * _tlbfill.c), each mapping cut into ranges by the host memory under it (emutrace owns guest
 * memory: the Backings and SharedMemory extents Unicorn maps with mem_map_ptr, so the host
 * bytes are the guest's). They read only what that copy says is readable, straight from the
 * host memory it names (no uc_mem_read, which walks Unicorn's address space per call); a range
 * with no host memory under it reads as unreadable. The copy cannot outlive the host memory
 * it names: host memory goes (a Backing closed, a SharedMemory freed) only with the mappings
 * over it, which changes the generation, and the copy is refreshed before every read. Nothing is
 * written past a buffer: every text goes through a growing buffer, every capture is bounded.
 *
 * Portable C99 and the Python C API only. The hooks run inside emulation without the GIL: they
 * use PyMem_Raw only, and take the GIL just to refresh the copy of the mappings. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <math.h>

int emutrace_tlbfill_generation(PyObject *obj, unsigned long long *gen);     /* _tlbfill.c */

typedef int (*uc_hook_add_fn)(void *uc, size_t *hh, int type, void *callback, void *user_data,
                              uint64_t begin, uint64_t end, ...);
typedef int (*uc_reg_read_fn)(void *uc, int regid, void *value);
typedef int (*uc_mem_read_fn)(void *uc, uint64_t address, void *bytes, uint64_t size);
typedef int (*uc_mem_write_fn)(void *uc, uint64_t address, const void *bytes, uint64_t size);

#define UC_HOOK_CODE 4
/* the guest log's record layout and FORMAT_READ_LIMIT: from emutrace/machine/abi.py */
#include "_abi.h"
#include "_module.h"            /* emutrace_add_type_ready */
#define MAX_FIXED 8
#define STORE_SLOTS 4096                /* texts kept for the decoder (a power of two) */
#define MAX_PENDING 256                 /* calls whose right-hand side waits for their return */
#define MAX_ORPHANS 1024                /* right-hand sides of calls whose slot was reused */
#define VMA_RECENT 4                    /* ranges of the copy of the mappings found last, kept */

/* what an item (a fixed argument or a conversion) is rendered as */
enum item_kind {
    K_SIGNED = 1,       /* decimal, the low `size` bytes signed */
    K_UNSIGNED,         /* decimal, unsigned */
    K_HEX,              /* "0x%x", "0" for zero */
    K_OCT,              /* "0%o" */
    K_CHAR,             /* 'c' with ltrace's escapes */
    K_DOUBLE,           /* C's %f (nan, -nan, inf, -inf) */
    K_ADDR,             /* a pointer: "0x%x", "0" for NULL */
    K_STR,              /* a C string: "nil", its text (cut at the limit and at `lim`), or its address */
};

/* how a fixed argument's string length is bounded (its Zero(...) expression) */
enum lim_kind { LIM_NONE = 0, LIM_CONST = 1, LIM_ARG = 2 };

typedef struct {
    uint8_t kind, size, ok, has_lim;
    uint64_t value;
    uint64_t lim;                       /* K_STR with has_lim: the length bound */
} Item;

typedef struct {
    uint8_t kind, size, lim_kind;
    uint64_t lim;                       /* LIM_CONST: the bound; LIM_ARG: the argument (0-based) */
} Fixed;

#include "_printftext.h"        /* Text: a growing buffer without the GIL, and its writers */
#include "_printfstore.h"       /* PrintfStore and PrintfLeaf */

/* ------------------------------------------------------------------------------------------
 * the hooks of one engine */

/* [start, end) of one mapping with its permissions, and where its bytes are in this process
 * (host 0: no host memory there, read as unreadable) */
typedef struct { uint64_t start, end, prot, host; } Vma;

struct PrintfHooksObject;

typedef struct {
    struct PrintfHooksObject *hooks;
    int vformat;                        /* arguments from the va_list after the format */
    int nfixed, fmt_index, split;
    Fixed fixed[MAX_FIXED];
    size_t handle;
} HookSite;

typedef struct {
    uint64_t seq, slot, shadow;         /* the call, its return slot, its shadow entry */
    int split, nitems;
    Item *items;
} Pending;

typedef struct PrintfHooksObject {
    PyObject_HEAD
    void *uc;
    uc_hook_add_fn hook_add;
    uc_reg_read_fn reg_read;
    uc_mem_read_fn mem_read;
    uc_mem_write_fn mem_write;
    PyObject *store;                    /* PrintfStore */
    PyObject *perms;                    /* the TLB fill's cache: its generation */
    PyObject *vmas_fn;                  /* () -> bytes: (start, end, prot, host) u64 quads, sorted */
    PyObject *owner;                    /* the binding's engine: kept alive */
    int regs[16];                       /* rax rdi rsi rdx rcx r8 r9 rsp xmm0..xmm7 */
    uint64_t ctrl;                      /* the guest log's control page */
    uint64_t string_limit;
    unsigned long long gen;
    int have_vmas;
    Vma *vmas;
    size_t nvmas;
    size_t recent[VMA_RECENT];          /* ranges found last (index + 1; 0: none): a call's
                                         * reads keep to a few (stack, rodata, our pages) */
    unsigned recent_next;
    HookSite **sites;
    size_t nsites;
    size_t ret_handle;
    int ret_hooked;
    Pending pending[MAX_PENDING];       /* the first npending in use, in no order */
    int npending;
    unsigned long long calls, returns;  /* hooks run (tests) */
    unsigned long long refreshes;       /* copies of the mappings taken (tests) */
} PrintfHooksObject;

/* The copy of the mappings, fresh (the GIL taken to ask Python when they changed). 0, or -1
 * when it could not be had: every read then fails (shown as unreadable, never outside). */
static int refresh_vmas(PrintfHooksObject *h)
{
    unsigned long long gen;
    if (emutrace_tlbfill_generation(h->perms, &gen) < 0) return -1;
    if (h->have_vmas && gen == h->gen) return 0;
    PyGILState_STATE g = PyGILState_Ensure();
    int ok = -1;
    h->refreshes++;
    PyObject *r = PyObject_CallNoArgs(h->vmas_fn);
    if (r != NULL && PyBytes_Check(r) && PyBytes_GET_SIZE(r) % sizeof(Vma) == 0) {
        size_t n = (size_t)PyBytes_GET_SIZE(r) / sizeof(Vma);
        Vma *v = PyMem_RawMalloc(n ? n * sizeof *v : 1);
        if (v != NULL) {
            memcpy(v, PyBytes_AS_STRING(r), n * sizeof *v);
            PyMem_RawFree(h->vmas);
            h->vmas = v;
            h->nvmas = n;
            memset(h->recent, 0, sizeof h->recent);
            h->gen = gen;
            h->have_vmas = 1;
            ok = 0;
        }
    }
    if (r == NULL) PyErr_WriteUnraisable(h->vmas_fn);
    Py_XDECREF(r);
    PyGILState_Release(g);
    return ok;
}

/* the range of the copy of the mappings holding addr, or NULL (an index kept in `recent` is
 * checked against nvmas: a failed refresh sets that to 0 and leaves them) */
static const Vma *find_vma(PrintfHooksObject *h, uint64_t addr)
{
    for (int i = 0; i < VMA_RECENT; i++) {
        size_t k = h->recent[i];
        if (k != 0 && k <= h->nvmas && h->vmas[k - 1].start <= addr && addr < h->vmas[k - 1].end)
            return &h->vmas[k - 1];
    }
    size_t lo = 0, hi = h->nvmas;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (h->vmas[mid].end <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (lo < h->nvmas && h->vmas[lo].start <= addr && addr < h->vmas[lo].end) {
        h->recent[h->recent_next++ % VMA_RECENT] = lo + 1;
        return &h->vmas[lo];
    }
    return NULL;
}

/* The host address of guest byte `addr` and how many bytes from it lie in the same range
 * (*avail), when the range has host memory and the permissions `want` (PROT_ bits); else NULL. */
static const unsigned char *host_at(PrintfHooksObject *h, uint64_t addr, uint64_t want, uint64_t *avail)
{
    const Vma *v = find_vma(h, addr);
    if (v == NULL || v->host == 0 || (v->prot & want) != want) return NULL;
    *avail = v->end - addr;
    return (const unsigned char *)(uintptr_t)(v->host + (addr - v->start));
}

/* AddressSpace.read: all n bytes at addr when every byte lies in a readable mapping (0), else -1 */
static int read_mem(PrintfHooksObject *h, uint64_t addr, void *out, uint64_t n)
{
    if (addr + n < addr) return -1;                 /* (past 2^64: nothing is mapped there) */
    unsigned char *o = out;
    while (n > 0) {
        uint64_t avail;
        const unsigned char *p = host_at(h, addr, 1, &avail);
        if (p == NULL) return -1;
        uint64_t k = avail < n ? avail : n;
        memcpy(o, p, (size_t)k);
        o += k;
        addr += k;
        n -= k;
    }
    return 0;
}

/* AddressSpace.read_cstr(addr, want): the bytes before the first NUL, at most `want` of them,
 * into *out (PyMem_Raw, *len); -1 when a byte before that end is unreadable */
static int read_cstr(PrintfHooksObject *h, uint64_t addr, uint64_t want, char **out, size_t *len)
{
    Text t = {0};
    while (t.len < want) {
        uint64_t n;
        const unsigned char *p = host_at(h, addr, 1, &n);
        if (p == NULL) { PyMem_RawFree(t.p); return -1; }
        if (n > want - t.len) n = want - t.len;
        const unsigned char *nul = memchr(p, 0, (size_t)n);
        if (nul != NULL) { text_put(&t, (const char *)p, (size_t)(nul - p)); break; }
        text_put(&t, (const char *)p, (size_t)n);
        addr += n;
    }
    if (t.failed) { PyMem_RawFree(t.p); return -1; }
    *out = t.p;
    *len = t.len;
    return 0;
}

/* The length of the C string at addr (AddressSpace.read_cstr(addr, want) without the copy): the
 * bytes before its NUL, at most `want`, into *len; -1 when a byte before that end is unreadable */
static int cstr_len(PrintfHooksObject *h, uint64_t addr, uint64_t want, uint64_t *len)
{
    uint64_t got = 0;
    while (got < want) {
        uint64_t n;
        const unsigned char *p = host_at(h, addr, 1, &n);
        if (p == NULL) return -1;
        if (n > want - got) n = want - got;
        const unsigned char *nul = memchr(p, 0, (size_t)n);
        if (nul != NULL) { got += (uint64_t)(nul - p); break; }
        got += n;
        addr += n;
    }
    *len = got;
    return 0;
}

/* A word of emutrace's own pages (the control page, the shadow stack): from the host memory
 * the copy of the mappings names, or through uc_mem_read when it names none (no copy could be
 * had), as before the copy existed. 0, or -1. */
static int read_own(PrintfHooksObject *h, uint64_t addr, uint64_t *out)
{
    unsigned char b[8];
    if (read_mem(h, addr, b, 8) < 0 && h->mem_read(h->uc, addr, b, 8) != 0) return -1;
    memcpy(out, b, 8);
    return 0;
}

/* The call record's sequence number: into host memory where the copy of the mappings says the
 * 8 bytes are writable, else through uc_mem_write (which writes only Unicorn's mappings). */
static void write_own(PrintfHooksObject *h, uint64_t addr, uint64_t value)
{
    uint64_t avail;
    unsigned char *p = (unsigned char *)host_at(h, addr, 3, &avail);
    if (p != NULL && avail >= 8) memcpy(p, &value, 8);
    else h->mem_write(h->uc, addr, &value, 8);
}

#include "_printfitems.h"       /* a pack's items: fetched and rendered */

/* ------------------------------------------------------------------------------------------
 * the hooks */

typedef struct { Item *p; int n, cap; } Items;

static Item *items_add(Items *v)
{
    if (v->n == v->cap) {
        int cap = v->cap ? v->cap * 2 : 16;
        Item *p = PyMem_RawRealloc(v->p, (size_t)cap * sizeof *p);
        if (p == NULL) return NULL;
        v->p = p;
        v->cap = cap;
    }
    Item *it = &v->p[v->n++];
    memset(it, 0, sizeof *it);
    return it;
}

/* rax (the record), the argument registers and rsp (xmm0-7 wait for a float: read_xmm) */
/* The format at addr (AddressSpace.read_cstr(addr, FORMAT_READ_LIMIT + 1)): *at its bytes, in
 * place in host memory when they lie in one range of the copy of the mappings (the hook parses
 * them before anything can change them), else in a copy (*copy, PyMem_Raw); *len their count.
 * -1 when a byte before its end is unreadable. */
static int format_at(PrintfHooksObject *h, uint64_t addr, const unsigned char **at, char **copy, size_t *len)
{
    uint64_t n, avail;
    if (cstr_len(h, addr, FORMAT_READ_LIMIT + 1, &n) < 0) return -1;
    const unsigned char *p = host_at(h, addr, 1, &avail);
    if (p != NULL && n <= avail) {
        *at = p;
        *len = (size_t)n;
        return 0;
    }
    if (read_cstr(h, addr, FORMAT_READ_LIMIT + 1, copy, len) < 0) return -1;
    *at = (const unsigned char *)*copy;
    return 0;
}

/* The record (rax), the argument words and rsp (the return slot) from the call record's head,
 * which the trampoline wrote before the hook's instruction (cheaper than 8 uc_reg_read calls);
 * -1 when the copy of the mappings cannot read it (read_regs then asks the registers) */
static int read_head(PrintfHooksObject *h, Fetch *f, uint64_t *rax)
{
    unsigned char head[HEAD];
    if (read_own(h, h->ctrl + RPTR, rax) < 0 || read_mem(h, *rax, head, HEAD) < 0) return -1;
    memcpy(f->gpr, head + REC_ARGS, sizeof f->gpr);
    memcpy(&f->rsp, head + REC_SLOT, 8);
    return 0;
}

static int read_regs(PrintfHooksObject *h, Fetch *f, uint64_t *rax)
{
    if (h->reg_read(h->uc, h->regs[0], rax) != 0) return -1;
    for (int i = 0; i < 6; i++)
        if (h->reg_read(h->uc, h->regs[1 + i], &f->gpr[i]) != 0) return -1;
    if (h->reg_read(h->uc, h->regs[7], &f->rsp) != 0) return -1;
    return 0;
}

/* the pending call at index i goes (the last one takes its place: hooks scan only those in use) */
static void drop_pending(PrintfHooksObject *h, int i)
{
    PyMem_RawFree(h->pending[i].items);
    h->pending[i] = h->pending[--h->npending];
    memset(&h->pending[h->npending], 0, sizeof h->pending[0]);
}

static void on_call(void *uc, uint64_t address, uint32_t size, void *user)
{
    HookSite *site = user;
    PrintfHooksObject *h = site->hooks;
    PrintfStoreObject *st = (PrintfStoreObject *)h->store;
    Fetch f;
    memset(&f, 0, sizeof f);
    f.h = h;
    uint64_t rax;
    h->calls++;
    if (refresh_vmas(h) < 0) h->nvmas = 0;      /* (nothing readable rather than a stale copy) */
    if (read_head(h, &f, &rax) < 0 && read_regs(h, &f, &rax) < 0) return;
    Items v = {0};
    int failed = 0;
    /* the fixed arguments: words (they all are integer-class) */
    for (int i = 0; i < site->nfixed; i++) {
        Item *it = items_add(&v);
        if (it == NULL) { failed = 1; break; }
        it->kind = site->fixed[i].kind;
        it->size = site->fixed[i].size;
        it->ok = (uint8_t)next_int(&f, &it->value);
    }
    for (int i = 0; !failed && i < site->nfixed; i++) {
        const Fixed *fx = &site->fixed[i];
        if (fx->lim_kind == LIM_CONST) { v.p[i].has_lim = 1; v.p[i].lim = fx->lim; }
        else if (fx->lim_kind == LIM_ARG && fx->lim < (uint64_t)site->nfixed && v.p[fx->lim].ok) {
            /* _val_long: an argument narrower than 8 bytes is zero-extended */
            const Item *a = &v.p[fx->lim];
            v.p[i].has_lim = 1;
            v.p[i].lim = a->size < 8 ? a->value & (((uint64_t)1 << (8 * a->size)) - 1) : a->value;
        }
    }
    if (!failed && site->fmt_index < site->nfixed) {
        const Item *fi = &v.p[site->fmt_index];
        char *fmt = NULL;               /* a copy, when the format spans ranges */
        const unsigned char *fmt_at = NULL;
        size_t flen = 0;
        if (fi->ok && fi->value != 0 && format_at(h, fi->value, &fmt_at, &fmt, &flen) == 0) {
            if (flen > FORMAT_READ_LIMIT) flen = FORMAT_READ_LIMIT;
        } else {
            flen = 0;
        }
        if (site->vformat) {
            f.va = 1;
            int vi = site->fmt_index + 1;
            unsigned char raw[24];
            if (vi < site->nfixed && v.p[vi].ok && v.p[vi].value != 0 && read_mem(h, v.p[vi].value, raw, 24) == 0) {
                uint32_t g32, f32;
                memcpy(&g32, raw, 4);
                memcpy(&f32, raw + 4, 4);
                memcpy(&f.over, raw + 8, 8);
                memcpy(&f.save, raw + 16, 8);
                f.gp_off = g32;
                f.fp_off = f32;
                f.va_ok = 1;
            }
        }
        Pack p = {fmt_at != NULL ? fmt_at : (const unsigned char *)"", flen, 0, 0, 0, 0};
        for (int k = 0; k < PRINTF_CONVERSIONS_MAX; k++) {
            Item next;
            if (!pack_next(&p, &next)) break;
            Item *it = items_add(&v);
            if (it == NULL) { failed = 1; break; }
            *it = next;
            it->ok = (uint8_t)(it->kind == K_DOUBLE ? next_float(&f, &it->value) : next_int(&f, &it->value));
            pack_stop(&p, it);
        }
        PyMem_RawFree(fmt);
    }
    uint64_t seq = 0;
    if (!failed) {
        StoreSlot *s = store_new(st, &seq);
        int split = site->split < v.n ? site->split : v.n;
        if (split == 0) {
            s->nleft = 0;               /* (nothing shown at the call: no text to allocate) */
        } else {
            s->left = render_items(h, v.p, 0, split, &s->left_len);
            if (s->left != NULL) s->nleft = split;
        }
        if (split < v.n) {
            /* the rest is shown as memory is at the return: kept until then, one entry per
             * shadow stack entry (a call left by longjmp leaves its entry to the next one) */
            uint64_t shadow = 0;
            if (read_own(h, h->ctrl + SHTOP, &shadow) < 0) shadow = 0;
            for (int i = 0; i < h->npending; ) {
                if (h->pending[i].shadow == shadow) drop_pending(h, i);
                else i++;
            }
            if (h->npending < MAX_PENDING) {
                Pending *free_one = &h->pending[h->npending++];
                free_one->seq = seq;
                free_one->slot = f.rsp;
                free_one->shadow = shadow;
                free_one->split = split;
                free_one->nitems = v.n;
                free_one->items = v.p;
                v.p = NULL;
            }
        } else {
            s->nright = 0;
            s->right = NULL;
        }
    }
    PyMem_RawFree(v.p);
    /* the sequence number after the record's head: 0 when nothing was rendered */
    write_own(h, rax + HEAD, seq);
}

static void on_return(void *uc, uint64_t address, uint32_t size, void *user)
{
    PrintfHooksObject *h = user;
    PrintfStoreObject *st = (PrintfStoreObject *)h->store;
    uint64_t rsp, top = 0;
    h->returns++;
    if (h->npending == 0) return;
    if (h->reg_read(uc, h->regs[7], &rsp) != 0) return;
    if (refresh_vmas(h) < 0) h->nvmas = 0;      /* (before any read: see read_own) */
    if (read_own(h, h->ctrl + SHTOP, &top) < 0) return;
    /* the call returning: its shadow entry still holds its slot; of several (calls left by
     * longjmp whose entries a later call at the same slot took), the deepest, the one the
     * return trampoline pops */
    int found = -1;
    for (int i = 0; i < h->npending; i++) {
        const Pending *pd = &h->pending[i];
        if (pd->slot != rsp - 8 || pd->shadow >= top) continue;
        if (found >= 0 && pd->shadow <= h->pending[found].shadow) continue;
        uint64_t slot = 0;
        if (read_own(h, pd->shadow, &slot) < 0 || slot != pd->slot) continue;
        found = i;
    }
    if (found < 0) return;
    const Pending *pd = &h->pending[found];
    size_t len = 0;
    char *text = render_items(h, pd->items, pd->split, pd->nitems, &len);
    if (text != NULL) store_right(st, pd->seq, text, len, pd->nitems - pd->split);
    drop_pending(h, found);
}

/* ------------------------------------------------------------------------------------------
 * Python's side */

static int PrintfHooks_init(PrintfHooksObject *self, PyObject *args, PyObject *kwds)
{
    unsigned long long hook_add, reg_read, mem_read, mem_write, engine, ctrl, limit;
    PyObject *owner, *store, *perms, *vmas_fn, *regs;
    if (!PyArg_ParseTuple(args, "KKKKKOOOOOKK", &hook_add, &reg_read, &mem_read, &mem_write, &engine,
                          &owner, &store, &perms, &vmas_fn, &regs, &ctrl, &limit))
        return -1;
    if (!hook_add || !reg_read || !mem_read || !mem_write || !engine || !PyCallable_Check(vmas_fn)
            || !PyObject_TypeCheck(store, &PrintfStoreType)) {
        PyErr_SetString(PyExc_ValueError, "PrintfHooks: a null function or engine, or no PrintfStore");
        return -1;
    }
    unsigned long long gen;
    if (emutrace_tlbfill_generation(perms, &gen) < 0) {
        PyErr_SetString(PyExc_TypeError, "PrintfHooks: the permission cache is no TlbFill");
        return -1;
    }
    if (!PyTuple_Check(regs) || PyTuple_GET_SIZE(regs) != 16) {
        PyErr_SetString(PyExc_ValueError, "PrintfHooks: 16 register ids (rax rdi rsi rdx rcx r8 r9 rsp xmm0-7)");
        return -1;
    }
    for (int i = 0; i < 16; i++) {
        long id = PyLong_AsLong(PyTuple_GET_ITEM(regs, i));
        if (id == -1 && PyErr_Occurred()) return -1;
        self->regs[i] = (int)id;
    }
    if (limit > (1u << 20)) { PyErr_SetString(PyExc_ValueError, "PrintfHooks: string limit too large"); return -1; }
    self->uc = (void *)(uintptr_t)engine;
    self->hook_add = (uc_hook_add_fn)(uintptr_t)hook_add;
    self->reg_read = (uc_reg_read_fn)(uintptr_t)reg_read;
    self->mem_read = (uc_mem_read_fn)(uintptr_t)mem_read;
    self->mem_write = (uc_mem_write_fn)(uintptr_t)mem_write;
    Py_INCREF(owner); Py_XSETREF(self->owner, owner);
    Py_INCREF(store); Py_XSETREF(self->store, store);
    Py_INCREF(perms); Py_XSETREF(self->perms, perms);
    Py_INCREF(vmas_fn); Py_XSETREF(self->vmas_fn, vmas_fn);
    self->ctrl = ctrl;
    self->string_limit = limit;
    self->have_vmas = 0;
    return 0;
}

/* add_site(address, vformat, fmt_index, split, fixed): a call hook on the trampoline's
 * instruction at `address`; fixed: ((kind, size, lim_kind, lim), ...) of the prototype's
 * arguments */
static PyObject *PrintfHooks_add_site(PrintfHooksObject *self, PyObject *args)
{
    unsigned long long addr;
    int vformat, fmt_index, split;
    PyObject *fixed;
    if (!PyArg_ParseTuple(args, "KiiiO!", &addr, &vformat, &fmt_index, &split, &PyTuple_Type, &fixed)) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(fixed);
    if (n > MAX_FIXED || fmt_index < 0 || fmt_index >= n || split < 0 || (vformat && fmt_index + 1 >= n)) {
        PyErr_SetString(PyExc_ValueError, "add_site: a prototype the printf hooks do not take");
        return NULL;
    }
    HookSite *s = PyMem_RawCalloc(1, sizeof *s);
    if (s == NULL) return PyErr_NoMemory();
    s->hooks = self;
    s->vformat = vformat;
    s->nfixed = (int)n;
    s->fmt_index = fmt_index;
    s->split = split;
    for (Py_ssize_t i = 0; i < n; i++) {
        int kind, size, lim_kind;
        unsigned long long lim;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(fixed, i), "iiiK", &kind, &size, &lim_kind, &lim)) {
            PyMem_RawFree(s);
            return NULL;
        }
        if (kind < K_SIGNED || kind > K_STR || (size != 1 && size != 2 && size != 4 && size != 8)) {
            PyMem_RawFree(s);
            PyErr_SetString(PyExc_ValueError, "add_site: an unknown argument kind");
            return NULL;
        }
        s->fixed[i] = (Fixed){(uint8_t)kind, (uint8_t)size, (uint8_t)lim_kind, lim};
    }
    HookSite **sites = PyMem_RawRealloc(self->sites, (self->nsites + 1) * sizeof *sites);
    if (sites == NULL) { PyMem_RawFree(s); return PyErr_NoMemory(); }
    self->sites = sites;
    int err = self->hook_add(self->uc, &s->handle, UC_HOOK_CODE, (void *)on_call, s, (uint64_t)addr, (uint64_t)addr);
    if (err != 0) {
        PyMem_RawFree(s);
        return PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
    }
    self->sites[self->nsites++] = s;
    Py_RETURN_NONE;
}

/* add_return(address): the return hook on the printf sites' entry of the return trampoline */
static PyObject *PrintfHooks_add_return(PrintfHooksObject *self, PyObject *arg)
{
    uint64_t addr = PyLong_AsUnsignedLongLongMask(arg);
    if (addr == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    if (self->ret_hooked) Py_RETURN_NONE;
    int err = self->hook_add(self->uc, &self->ret_handle, UC_HOOK_CODE, (void *)on_return, self, addr, addr);
    if (err != 0) return PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
    self->ret_hooked = 1;
    Py_RETURN_NONE;
}

static PyObject *PrintfHooks_counts(PrintfHooksObject *self, void *closure)
{
    return Py_BuildValue("(KKK)", self->calls, self->returns, self->refreshes);
}

static int PrintfHooks_traverse(PrintfHooksObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->owner);
    Py_VISIT(self->store);
    Py_VISIT(self->perms);
    Py_VISIT(self->vmas_fn);
    return 0;
}

/* The engine's hooks point at this object's memory and are never removed: the engine runs only
 * while its Machine is reachable, which holds this object (through its guest log); and this
 * object holds the engine, so the two go together (as _tlbfill.c's hook and its cache). Removing
 * the hooks here could reach an engine its binding already closed in the same collection. */
static int PrintfHooks_clear(PrintfHooksObject *self)
{
    for (size_t i = 0; i < self->nsites; i++) PyMem_RawFree(self->sites[i]);
    PyMem_RawFree(self->sites);
    self->sites = NULL;
    self->nsites = 0;
    self->ret_hooked = 0;
    while (self->npending > 0) drop_pending(self, self->npending - 1);
    PyMem_RawFree(self->vmas);
    self->vmas = NULL;
    self->nvmas = 0;
    self->have_vmas = 0;
    Py_CLEAR(self->owner);
    Py_CLEAR(self->store);
    Py_CLEAR(self->perms);
    Py_CLEAR(self->vmas_fn);
    return 0;
}

static void PrintfHooks_dealloc(PrintfHooksObject *self)
{
    PyObject_GC_UnTrack(self);
    PrintfHooks_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef PrintfHooks_methods[] = {
    {"add_site", (PyCFunction)PrintfHooks_add_site, METH_VARARGS,
     "add_site(address, vformat, fmt_index, split, fixed): a printf call hook"},
    {"add_return", (PyCFunction)PrintfHooks_add_return, METH_O, "add_return(address): the return hook"},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef PrintfHooks_getset[] = {
    {"counts", (getter)PrintfHooks_counts, NULL, "(call hooks run, return hooks run, copies of the mappings taken)", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject PrintfHooksType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.PrintfHooks",
    .tp_basicsize = sizeof(PrintfHooksObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "PrintfHooks(uc_hook_add, uc_reg_read, uc_mem_read, uc_mem_write, engine, owner, "
              "store, perms, vmas, regs, ctrl, string_limit)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PrintfHooks_init,
    .tp_dealloc = (destructor)PrintfHooks_dealloc,
    .tp_traverse = (traverseproc)PrintfHooks_traverse,
    .tp_clear = (inquiry)PrintfHooks_clear,
    .tp_methods = PrintfHooks_methods,
    .tp_getset = PrintfHooks_getset,
};

int emutrace_register_printfcap(PyObject *m)
{
    if (PyType_Ready(&PrintfStoreType) < 0 || PyType_Ready(&PrintfHooksType) < 0 ||
        PyType_Ready(&PrintfLeafType) < 0)
        return -1;
    struct { const char *name; long value; } consts[] = {
        {"PF_SIGNED", K_SIGNED}, {"PF_UNSIGNED", K_UNSIGNED}, {"PF_HEX", K_HEX}, {"PF_OCT", K_OCT},
        {"PF_CHAR", K_CHAR}, {"PF_DOUBLE", K_DOUBLE}, {"PF_ADDR", K_ADDR}, {"PF_STR", K_STR},
        {"PF_LIM_NONE", LIM_NONE}, {"PF_LIM_CONST", LIM_CONST}, {"PF_LIM_ARG", LIM_ARG},
    };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
        if (PyModule_AddIntConstant(m, consts[i].name, consts[i].value) < 0) return -1;
    if (emutrace_add_type_ready(m, "PrintfStore", &PrintfStoreType) < 0) return -1;
    if (emutrace_add_type_ready(m, "PrintfHooks", &PrintfHooksType) < 0) return -1;
    if (emutrace_add_type_ready(m, "PrintfLeaf", &PrintfLeafType) < 0) return -1;
    return 0;
}
