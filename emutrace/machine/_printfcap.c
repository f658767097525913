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
#define MAX_CONVERSIONS 4096            /* CallFormatter._fetch's bound */
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

/* ------------------------------------------------------------------------------------------
 * text buffer (PyMem_Raw: used without the GIL) */

typedef struct { char *p; size_t len, cap; int failed; } Text;

/* room for n more bytes (and a NUL) at t->p + t->len: 1, or 0 when the buffer failed */
static int text_reserve(Text *t, size_t n)
{
    if (t->failed) return 0;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1) cap *= 2;
        char *p = PyMem_RawRealloc(t->p, cap);
        if (p == NULL) { t->failed = 1; return 0; }
        t->p = p;
        t->cap = cap;
    }
    return 1;
}

static void text_put(Text *t, const char *s, size_t n)
{
    if (!text_reserve(t, n)) return;
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

static void text_str(Text *t, const char *s) { text_put(t, s, strlen(s)); }

/* the digits of u in base 8, 10 or 16 (lowercase), written backwards ending at `end`: their start */
static char *digits_before(char *end, uint64_t u, unsigned base)
{
    do {
        *--end = "0123456789abcdef"[u % base];
        u /= base;
    } while (u != 0);
    return end;
}

/* ltrace's escapes of n bytes (escapes.esc_char each): printable ASCII as it is, but for the
 * backslash; \\0 \\a \\b \\t \\n \\v \\f \\r; anything else as three octal digits. At most 4
 * bytes out per byte in, reserved at once. */
static void put_esc_bytes(Text *t, const unsigned char *s, size_t n)
{
    static const char named[14] = {'0', 0, 0, 0, 0, 0, 0, 'a', 'b', 't', 'n', 'v', 'f', 'r'};
    if (!text_reserve(t, 4 * n)) return;
    char *o = t->p + t->len;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = s[k];
        if (c >= 32 && c < 127 && c != 92) { *o++ = (char)c; continue; }
        *o++ = '\\';
        if (c == 92) *o++ = '\\';
        else if (c < 14 && named[c] != 0) *o++ = named[c];
        else { *o++ = (char)('0' + (c >> 6)); *o++ = (char)('0' + ((c >> 3) & 7)); *o++ = (char)('0' + (c & 7)); }
    }
    t->len = (size_t)(o - t->p);
}

/* ------------------------------------------------------------------------------------------
 * the store: texts by sequence number, for Python's decoder */

typedef struct {
    uint64_t seq;                       /* 0: empty */
    char *left, *right;                 /* NUL-separated texts, with their counts */
    size_t left_len, right_len;
    int nleft, nright;                  /* -1: none (yet) */
} StoreSlot;

/* A call's texts are taken when the ring holding its records is read: its left-hand side within
 * a ring's worth of records, far fewer than STORE_SLOTS. Its right-hand side is rendered when it
 * returns, which may be any number of calls later (a thread blocked in printf while others print):
 * when its slot went to a later call by then, the text waits among the orphans. */
typedef struct {
    uint64_t seq;
    char *text;
    size_t len;
    int n;
} Orphan;

typedef struct {
    PyObject_HEAD
    StoreSlot *slots;
    uint64_t next;
    Orphan orphans[MAX_ORPHANS];
    int norphans;
} PrintfStoreObject;

static void slot_clear(StoreSlot *s)
{
    PyMem_RawFree(s->left);
    PyMem_RawFree(s->right);
    memset(s, 0, sizeof *s);
    s->nleft = s->nright = -1;
}

static int PrintfStore_init(PrintfStoreObject *self, PyObject *args, PyObject *kwds)
{
    if (!PyArg_ParseTuple(args, "")) return -1;
    if (self->slots == NULL) {
        self->slots = PyMem_RawCalloc(STORE_SLOTS, sizeof *self->slots);
        if (self->slots == NULL) { PyErr_NoMemory(); return -1; }
        for (int i = 0; i < STORE_SLOTS; i++) self->slots[i].nleft = self->slots[i].nright = -1;
    }
    self->next = 1;
    return 0;
}

static void PrintfStore_dealloc(PrintfStoreObject *self)
{
    for (int i = 0; i < self->norphans; i++) PyMem_RawFree(self->orphans[i].text);
    if (self->slots != NULL) {
        for (int i = 0; i < STORE_SLOTS; i++) slot_clear(&self->slots[i]);
        PyMem_RawFree(self->slots);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* a new slot for a call (an old call's texts never taken are dropped) */
static StoreSlot *store_new(PrintfStoreObject *st, uint64_t *seq)
{
    *seq = st->next++;
    StoreSlot *s = &st->slots[*seq & (STORE_SLOTS - 1)];
    slot_clear(s);
    s->seq = *seq;
    return s;
}

static StoreSlot *store_find(PrintfStoreObject *st, uint64_t seq)
{
    StoreSlot *s = &st->slots[seq & (STORE_SLOTS - 1)];
    return s->seq == seq && seq != 0 ? s : NULL;
}

static PyObject *texts_list(const char *p, size_t len, int n)
{
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        const char *e = memchr(p + at, 0, len - at);
        size_t k = e != NULL ? (size_t)(e - (p + at)) : len - at;
        PyObject *s = PyUnicode_DecodeASCII(p + at, (Py_ssize_t)k, "strict");
        if (s == NULL) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, s);
        at += k + 1;
    }
    return out;
}

/* the right-hand side of call `seq`, rendered at its return: in its slot, or an orphan */
static void store_right(PrintfStoreObject *st, uint64_t seq, char *text, size_t len, int n)
{
    StoreSlot *s = store_find(st, seq);
    if (s != NULL) {
        PyMem_RawFree(s->right);
        s->right = text;
        s->right_len = len;
        s->nright = n;
        return;
    }
    if (st->norphans == MAX_ORPHANS) {          /* (the oldest: a call never decoded) */
        PyMem_RawFree(st->orphans[0].text);
        memmove(&st->orphans[0], &st->orphans[1], (MAX_ORPHANS - 1) * sizeof st->orphans[0]);
        st->norphans--;
    }
    st->orphans[st->norphans++] = (Orphan){seq, text, len, n};
}

/* The texts of call `seq` (right: rendered at its return; an orphan, or in its slot), handed over
 * to the caller (*p: PyMem_Raw, NULL for none; *n: their count); 0, or -1 when there are none. */
static int store_grab(PrintfStoreObject *self, uint64_t seq, int right, char **p, size_t *len, int *n)
{
    if (right) {
        for (int i = 0; i < self->norphans; i++) {
            Orphan *o = &self->orphans[i];
            if (o->seq != seq) continue;
            *p = o->text;
            *len = o->len;
            *n = o->n;
            memmove(o, o + 1, (size_t)(self->norphans - i - 1) * sizeof *o);
            self->norphans--;
            return 0;
        }
    }
    StoreSlot *s = store_find(self, seq);
    if (s == NULL || (right ? s->nright : s->nleft) < 0) return -1;
    if (right) { *p = s->right; *len = s->right_len; *n = s->nright; s->right = NULL; s->nright = -1; }
    else { *p = s->left; *len = s->left_len; *n = s->nleft; s->left = NULL; s->nleft = -1; }
    return 0;
}

/* take_left(seq) / take_right(seq) -> [str] or None (not rendered, or no longer kept) */
static PyObject *store_take(PrintfStoreObject *self, PyObject *arg, int right)
{
    uint64_t seq = PyLong_AsUnsignedLongLongMask(arg);
    if (seq == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    char *p = NULL;
    size_t len = 0;
    int n = 0;
    if (store_grab(self, seq, right, &p, &len, &n) < 0) Py_RETURN_NONE;
    PyObject *out = texts_list(p, len, n);
    PyMem_RawFree(p);
    return out;
}

static PyObject *PrintfStore_take_left(PrintfStoreObject *self, PyObject *arg) { return store_take(self, arg, 0); }
static PyObject *PrintfStore_take_right(PrintfStoreObject *self, PyObject *arg) { return store_take(self, arg, 1); }

/* NUL-separated texts joined with ", " into out (NULL: only counted): the bytes that makes */
static size_t join_texts(char *out, const char *p, size_t len, int n)
{
    size_t at = 0, w = 0;
    for (int i = 0; i < n && at <= len; i++) {
        const char *e = memchr(p + at, 0, len - at);
        size_t k = e != NULL ? (size_t)(e - (p + at)) : len - at;
        if (i) {
            if (out != NULL) memcpy(out + w, ", ", 2);
            w += 2;
        }
        if (out != NULL) memcpy(out + w, p + at, k);
        w += k;
        at += k + 1;
    }
    return w;
}

/* What a leaf line holds between its prefix and its suffix: the texts shown at the call and at
 * the return joined, ") ", the padding, "= " and the int returned. */
typedef struct {
    const char *left, *right;           /* NUL-separated texts, or NULL */
    size_t left_len, right_len;
    int nleft, nright;
    size_t left_w, right_w, sep_w;      /* the bytes each side joined makes, and ", " between */
    size_t pad;
    char num[24];                       /* "= " and the int, at num + num_at */
    size_t num_at;
} LineMiddle;

static size_t middle_size(LineMiddle *m, Py_ssize_t prefix_chars, Py_ssize_t align_pad, uint64_t rax)
{
    m->left_w = m->left != NULL ? join_texts(NULL, m->left, m->left_len, m->nleft) : 0;
    m->right_w = m->right != NULL && m->nright > 0 ? join_texts(NULL, m->right, m->right_len, m->nright) : 0;
    m->sep_w = m->left != NULL && m->nleft > 0 && m->right != NULL && m->nright > 0 ? 2 : 0;
    Py_ssize_t pad = align_pad - (prefix_chars + (Py_ssize_t)(m->left_w + m->sep_w + m->right_w));
    m->pad = pad > 0 ? (size_t)pad : 0;
    int32_t r = (int32_t)(uint32_t)rax;               /* (printf's int, as "= %d") */
    char *end = m->num + sizeof m->num;
    char *b = digits_before(end, r < 0 ? 0 - (uint64_t)(int64_t)r : (uint64_t)r, 10);
    if (r < 0) *--b = '-';
    *--b = ' ';
    *--b = '=';
    m->num_at = (size_t)(b - m->num);
    return m->left_w + m->sep_w + m->right_w + 2 + m->pad + (sizeof m->num - m->num_at);
}

/* the middle into out (middle_size's bytes); 0, or -1 when a text is not ASCII (never: the
 * renderers write escapes, digits and C's %f) */
static int middle_write(const LineMiddle *m, char *out)
{
    char *o = out;
    if (m->left != NULL) o += join_texts(o, m->left, m->left_len, m->nleft);
    if (m->sep_w) { memcpy(o, ", ", 2); o += 2; }
    if (m->right_w) o += join_texts(o, m->right, m->right_len, m->nright);
    unsigned char high = 0;
    for (char *c = out; c < o; c++) high |= (unsigned char)*c;
    memcpy(o, ") ", 2);
    o += 2;
    memset(o, ' ', m->pad);
    o += m->pad;
    memcpy(o, m->num + m->num_at, sizeof m->num - m->num_at);
    return high & 0x80 ? -1 : 0;
}

/* take_line(seq, prefix, rax, suffix, align_pad) -> str: the whole line of a leaf call, as
 * printflog.PrintfSite._line makes it from take_left and take_right (prefix: the display name
 * and "("; the texts are ASCII, so the padding counts prefix characters and text bytes). Made
 * in one string when prefix and suffix are ASCII (always, but for a name that is not). */
static PyObject *store_line(PrintfStoreObject *self, uint64_t seq, PyObject *prefix, uint64_t rax,
                            PyObject *suffix, Py_ssize_t align_pad)
{
    char *lp = NULL, *rp = NULL;
    LineMiddle m;
    memset(&m, 0, sizeof m);
    if (store_grab(self, seq, 0, &lp, &m.left_len, &m.nleft) < 0) { lp = NULL; m.nleft = 0; }
    if (store_grab(self, seq, 1, &rp, &m.right_len, &m.nright) < 0) { rp = NULL; m.nright = 0; }
    m.left = lp;
    m.right = rp;
    Py_ssize_t plen = PyUnicode_GET_LENGTH(prefix), slen = PyUnicode_GET_LENGTH(suffix);
    size_t mid = middle_size(&m, plen, align_pad, rax);
    int ascii = PyUnicode_IS_ASCII(prefix) && PyUnicode_IS_ASCII(suffix);
    PyObject *line = PyUnicode_New((Py_ssize_t)mid + (ascii ? plen + slen : 0), 127);
    if (line != NULL) {
        char *o = (char *)PyUnicode_1BYTE_DATA(line);
        if (ascii) memcpy(o, PyUnicode_1BYTE_DATA(prefix), (size_t)plen);
        if (middle_write(&m, o + (ascii ? plen : 0)) < 0) {
            Py_CLEAR(line);
            PyErr_SetString(PyExc_ValueError, "a printf hook's text is not ASCII");
        } else if (ascii) {
            memcpy(o + plen + mid, PyUnicode_1BYTE_DATA(suffix), (size_t)slen);
        }
    }
    PyMem_RawFree(lp);
    PyMem_RawFree(rp);
    if (line == NULL || ascii) return line;
    PyObject *head = PyUnicode_Concat(prefix, line);
    Py_DECREF(line);
    if (head == NULL) return NULL;
    line = PyUnicode_Concat(head, suffix);
    Py_DECREF(head);
    return line;
}

static PyObject *PrintfStore_take_line(PrintfStoreObject *self, PyObject *args)
{
    unsigned long long seq, rax;
    PyObject *prefix, *suffix;
    Py_ssize_t align_pad;
    if (!PyArg_ParseTuple(args, "KUKUn", &seq, &prefix, &rax, &suffix, &align_pad)) return NULL;
    return store_line(self, seq, prefix, rax, suffix, align_pad);
}

static PyMethodDef PrintfStore_methods[] = {
    {"take_left", (PyCFunction)PrintfStore_take_left, METH_O, "take_left(seq) -> the texts shown at the call, or None"},
    {"take_right", (PyCFunction)PrintfStore_take_right, METH_O, "take_right(seq) -> the texts shown at the return, or None"},
    {"take_line", (PyCFunction)PrintfStore_take_line, METH_VARARGS,
     "take_line(seq, prefix, rax, suffix, align_pad) -> the line of a leaf call"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject PrintfStoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.PrintfStore",
    .tp_basicsize = sizeof(PrintfStoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "PrintfStore(): the texts the printf hooks rendered, by sequence number",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PrintfStore_init,
    .tp_dealloc = (destructor)PrintfStore_dealloc,
    .tp_methods = PrintfStore_methods,
};

/* ------------------------------------------------------------------------------------------
 * PrintfLeaf(store, prefix, align_pad): a printf-family site as _native.c's leaf_run sees it. Its
 * leaf calls' lines are take_line's, made in the run of leaf calls that leaf_run renders, so a
 * printf call among other logged calls does not send the run back to Python. */

typedef struct {
    PyObject_HEAD
    PrintfStoreObject *store;
    PyObject *prefix;                   /* the display name and "(" */
    Py_ssize_t align_pad;
} PrintfLeafObject;

static int PrintfLeaf_init(PrintfLeafObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *store, *prefix;
    Py_ssize_t align_pad;
    if (!PyArg_ParseTuple(args, "O!Un", &PrintfStoreType, &store, &prefix, &align_pad)) return -1;
    Py_INCREF(store);
    Py_INCREF(prefix);
    Py_XSETREF(self->store, (PrintfStoreObject *)store);
    Py_XSETREF(self->prefix, prefix);
    self->align_pad = align_pad;
    return 0;
}

static void PrintfLeaf_dealloc(PrintfLeafObject *self)
{
    Py_XDECREF(self->store);
    Py_XDECREF(self->prefix);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* line(seq, rax, suffix) -> str: the leaf line of call `seq` (what leaf_run appends) */
static PyObject *PrintfLeaf_line(PrintfLeafObject *self, PyObject *args)
{
    unsigned long long seq, rax;
    PyObject *suffix;
    if (!PyArg_ParseTuple(args, "KKU", &seq, &rax, &suffix)) return NULL;
    if (self->store == NULL) { PyErr_SetString(PyExc_ValueError, "PrintfLeaf not initialised"); return NULL; }
    return store_line(self->store, seq, self->prefix, rax, suffix, self->align_pad);
}

static PyMethodDef PrintfLeaf_methods[] = {
    {"line", (PyCFunction)PrintfLeaf_line, METH_VARARGS, "line(seq, rax, suffix) -> the line of a leaf call"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject PrintfLeafType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.PrintfLeaf",
    .tp_basicsize = sizeof(PrintfLeafObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "PrintfLeaf(store, prefix, align_pad): a printf-family site's leaf lines, for leaf_run",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)PrintfLeaf_init,
    .tp_dealloc = (destructor)PrintfLeaf_dealloc,
    .tp_methods = PrintfLeaf_methods,
};

int emutrace_is_printf_leaf(PyObject *o)
{
    return Py_TYPE(o) == &PrintfLeafType && ((PrintfLeafObject *)o)->store != NULL;
}

/* leaf_run's line of a PrintfLeaf's leaf call (the caller checked emutrace_is_printf_leaf) */
PyObject *emutrace_printf_leaf_line(PyObject *o, uint64_t seq, uint64_t rax, PyObject *suffix)
{
    PrintfLeafObject *self = (PrintfLeafObject *)o;
    return store_line(self->store, seq, self->prefix, rax, suffix, self->align_pad);
}

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

/* ------------------------------------------------------------------------------------------
 * rendering (values.CallFormatter for a printf pack's types) */

/* an integer as C's "0x%llx" ("0" for 0), "0%llo", "%lld" or "%llu" of its low `size` bytes */
static void put_integer(Text *t, uint64_t u, int size, int kind)
{
    char tmp[32];
    char *end = tmp + sizeof tmp, *b;
    if (size < 8) u &= ((uint64_t)1 << (8 * size)) - 1;
    switch (kind) {
    case K_HEX: case K_ADDR:
        if (u == 0) { text_put(t, "0", 1); return; }
        b = digits_before(end, u, 16);
        *--b = 'x';
        *--b = '0';
        break;
    case K_OCT:
        b = digits_before(end, u, 8);
        *--b = '0';
        break;
    case K_SIGNED: {
        int negative = size < 8 ? (int)((u >> (8 * size - 1)) & 1) : (int)(u >> 63);
        /* the magnitude: 2^(8 size) - u for a negative one (2^63 for INT64_MIN, as unsigned) */
        uint64_t mag = !negative ? u : size < 8 ? ((uint64_t)1 << (8 * size)) - u : 0 - u;
        b = digits_before(end, mag, 10);
        if (negative) *--b = '-';
        break;
    }
    default:
        b = digits_before(end, u, 10);
    }
    text_put(t, b, (size_t)(end - b));
}

static void put_double(Text *t, uint64_t bits)
{
    double x;
    memcpy(&x, &bits, 8);
    if (isnan(x)) { text_str(t, bits >> 63 ? "-nan" : "nan"); return; }
    if (isinf(x)) { text_str(t, x < 0 ? "-inf" : "inf"); return; }
    char tmp[400];
    int n = snprintf(tmp, sizeof tmp, "%f", x);
    if (n > 0 && (size_t)n < sizeof tmp) text_put(t, tmp, (size_t)n);
    else t->failed = 1;
}

/* the escapes of the n guest bytes at addr, which cstr_len found readable, read in place */
static void put_guest_esc(PrintfHooksObject *h, Text *t, uint64_t addr, uint64_t n)
{
    while (n > 0) {
        uint64_t avail;
        const unsigned char *p = host_at(h, addr, 1, &avail);
        if (p == NULL) { t->failed = 1; return; }       /* (cannot happen: checked by cstr_len) */
        uint64_t k = avail < n ? avail : n;
        put_esc_bytes(t, p, (size_t)k);
        addr += k;
        n -= k;
    }
}

/* _fmt_pointer + _fmt_array for a char string of Zero(lim) length, string_limit L */
static void put_string(PrintfHooksObject *h, Text *t, uint64_t ptr, int has_lim, uint64_t lim)
{
    if (ptr == 0) { text_str(t, "nil"); return; }
    uint64_t L = h->string_limit, cap = L + 1;
    if (has_lim && lim < cap) cap = lim;
    uint64_t n = 0;
    if (cstr_len(h, ptr, cap + 1, &n) < 0) {
        if (cap != 0) { put_integer(t, ptr, 8, K_ADDR); return; }
        n = 0;                          /* (nothing to read: an empty string) */
    }
    if (n > cap) n = cap;
    uint64_t shown = n < L ? n : L;
    text_put(t, "\"", 1);
    put_guest_esc(h, t, ptr, shown);
    text_put(t, "\"", 1);
    if (n >= L) text_put(t, "...", 3);
}

static void put_item(PrintfHooksObject *h, Text *t, const Item *it)
{
    if (!it->ok) { text_put(t, "?", 1); return; }
    switch (it->kind) {
    case K_CHAR: {
        unsigned char c = (unsigned char)(it->value & 0xFF);
        text_put(t, "'", 1);
        put_esc_bytes(t, &c, 1);
        text_put(t, "'", 1);
        return;
    }
    case K_DOUBLE: put_double(t, it->value); return;
    case K_STR: put_string(h, t, it->value, it->has_lim, it->lim); return;
    default: put_integer(t, it->value, it->size, it->kind);
    }
}

/* items [lo, hi) as NUL-separated texts (PyMem_Raw), or NULL */
static char *render_items(PrintfHooksObject *h, const Item *items, int lo, int hi, size_t *len)
{
    Text t = {0};
    text_put(&t, "", 0);
    for (int i = lo; i < hi; i++) {
        put_item(h, &t, &items[i]);
        text_put(&t, "\0", 1);
    }
    if (t.failed || t.p == NULL) { PyMem_RawFree(t.p); return NULL; }
    *len = t.len;
    return t.p;
}

/* ------------------------------------------------------------------------------------------
 * fetching (values._RegFetcher, values._VaListFetcher) */

typedef struct {
    PrintfHooksObject *h;
    uint64_t gpr[6], xmm[8], rsp;
    int gp, fp, stack;
    int xmm_state;                  /* 0: not read yet (most formats have no float), 1: read, -1: failed */
    /* va_list */
    int va, va_ok, over_past;       /* over_past: the overflow area's pointer passed 2^64 */
    uint64_t gp_off, fp_off, over, save;
} Fetch;

static int fetch_word(Fetch *f, uint64_t addr, uint64_t *out)
{
    unsigned char b[8];
    if (read_mem(f->h, addr, b, 8) < 0) return 0;
    memcpy(out, b, 8);                  /* (x86-64: little-endian, as the guest) */
    return 1;
}

static int stack_word(Fetch *f, uint64_t *out)
{
    /* Regs.int_arg(6 + k): the word at rsp + 8 * (k + 1) (Python's integers do not wrap) */
    uint64_t k = (uint64_t)f->stack++ + 1;
    if (k > (UINT64_MAX - f->rsp) / 8) return 0;
    return fetch_word(f, f->rsp + 8 * k, out);
}

static int va_word(Fetch *f, uint64_t base, uint64_t off, uint64_t *out)
{
    if (base + off < base) return 0;
    return fetch_word(f, base + off, out);
}

/* the next word of the overflow area (Python's pointer goes on past 2^64, where nothing reads) */
static int va_over(Fetch *f, uint64_t *out)
{
    int ok = !f->over_past && va_word(f, f->over, 0, out);
    f->over += 8;
    if (f->over < 8) f->over_past = 1;
    return ok;
}

static int next_int(Fetch *f, uint64_t *out)
{
    if (f->va) {
        if (!f->va_ok) return 0;
        if (f->gp_off < 48) { int ok = va_word(f, f->save, f->gp_off, out); f->gp_off += 8; return ok; }
        return va_over(f, out);
    }
    if (f->gp < 6) { *out = f->gpr[f->gp++]; return 1; }
    return stack_word(f, out);
}

/* the low quadwords of xmm0-7, read when the first float argument is taken from them */
static int read_xmm(Fetch *f)
{
    PrintfHooksObject *h = f->h;
    uint64_t xmm[2];
    for (int i = 0; i < 8; i++) {
        if (h->reg_read(h->uc, h->regs[8 + i], xmm) != 0) return -1;
        f->xmm[i] = xmm[0];
    }
    return 0;
}

static int next_float(Fetch *f, uint64_t *out)
{
    if (f->va) {
        if (!f->va_ok) return 0;
        if (f->fp_off < 176) { int ok = va_word(f, f->save, f->fp_off, out); f->fp_off += 16; return ok; }
        return va_over(f, out);
    }
    if (f->fp < 8) {
        if (f->xmm_state == 0) f->xmm_state = read_xmm(f) == 0 ? 1 : -1;
        if (f->xmm_state < 0) { f->fp++; return 0; }
        *out = f->xmm[f->fp++];
        return 1;
    }
    return stack_word(f, out);
}

/* ------------------------------------------------------------------------------------------
 * the format (values._PrintfPack, one conversion at a time) */

typedef struct {
    const unsigned char *s;
    size_t n, pos;
    int percent, future;
    uint64_t future_len;
} Pack;

/* the next conversion's item kind/size (and string bound) into *it; 0 at the format's end */
static int pack_next(Pack *p, Item *it)
{
    static const uint8_t int_size[5] = {1, 2, 4, 8, 8};
    int hlf = 0, lng = 0;
    int ndigits = 0;
    uint64_t len = 0;                   /* int(len_buf) mod 2^64 (up to 24 digits) */
    memset(it, 0, sizeof *it);
    while (p->pos < p->n) {
        unsigned char c = p->s[p->pos];
        if (!p->percent) {
            if (c == '%') p->percent = 1;
            p->pos++;
            continue;
        }
        p->pos++;
        if (strchr("# -+I'", c) != NULL && c != 0) continue;
        int idx = 2 + lng - hlf;
        switch (c) {
        case '*':
            p->future = 1;
            it->kind = K_SIGNED;        /* _form("int", ...): its size from h and l */
            it->size = int_size[idx];
            if (idx == 0) it->kind = K_CHAR;
            if (idx == 4) it->kind = K_UNSIGNED;
            return 1;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
            if (ndigits < 24) { len = len * 10 + (uint64_t)(c - '0'); ndigits++; }
            continue;
        case 'h': hlf = hlf < 2 ? hlf + 1 : 2; continue;
        case 'l': lng = lng < 2 ? lng + 1 : 2; continue;
        case 'q': case 'j': lng = 2; continue;
        case 'L': case 't': case 'Z': case 'z': lng = 1; continue;
        case 'd': case 'i':
            p->percent = 0;
            it->size = int_size[idx];
            it->kind = idx == 0 ? K_CHAR : idx == 4 ? K_UNSIGNED : K_SIGNED;
            return 1;
        case 'o': case 'x': case 'X': case 'u':
            p->percent = 0;
            it->size = int_size[idx];
            /* _UINTS: char, ushort, uint, ulong, ulong; a char without a lens is a char */
            it->kind = c == 'o' ? K_OCT : c == 'u' ? (idx == 0 ? K_CHAR : K_UNSIGNED) : K_HEX;
            return 1;
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
            p->percent = 0;
            it->kind = K_DOUBLE;
            it->size = 8;
            return 1;
        case 'c': case 'C':
            p->percent = 0;
            it->kind = K_CHAR;
            it->size = 1;
            return 1;
        case 's': case 'S':
            p->percent = 0;
            it->kind = K_STR;
            it->size = 8;
            if (p->future) {
                it->has_lim = 1;
                it->lim = p->future_len;
                p->future = 0;
            } else if (ndigits) {
                it->has_lim = 1;
                it->lim = len;
            }
            return 1;
        case 'p': case 'n':
            p->percent = 0;
            it->kind = K_ADDR;
            it->size = 8;
            return 1;
        case 'm': case '%':
            p->percent = 0;
            hlf = lng = 0;
            continue;
        default:
            continue;                   /* anything else: the same conversion goes on */
        }
    }
    return 0;
}

/* _val_long of a fetched value, as the pending length of a string after '*' */
static void pack_stop(Pack *p, const Item *it)
{
    if (p->future && it->ok)
        p->future_len = it->size < 8 ? it->value & (((uint64_t)1 << (8 * it->size)) - 1) : it->value;
}

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
        for (int k = 0; k < MAX_CONVERSIONS; k++) {
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
    Py_INCREF(&PrintfStoreType);
    if (PyModule_AddObject(m, "PrintfStore", (PyObject *)&PrintfStoreType) < 0) {
        Py_DECREF(&PrintfStoreType);
        return -1;
    }
    Py_INCREF(&PrintfHooksType);
    if (PyModule_AddObject(m, "PrintfHooks", (PyObject *)&PrintfHooksType) < 0) {
        Py_DECREF(&PrintfHooksType);
        return -1;
    }
    Py_INCREF(&PrintfLeafType);
    if (PyModule_AddObject(m, "PrintfLeaf", (PyObject *)&PrintfLeafType) < 0) {
        Py_DECREF(&PrintfLeafType);
        return -1;
    }
    return 0;
}
