/* emutrace.machine._native: the compiled event path.
 *
 * Its own job: rendering the guest call log's leaf calls (a call record followed directly by its
 * return record, see emutrace/guestlog/) into finished ltrace lines, a run of them per call from
 * Python. Each call site is described once by a Site: its display name and, per shown argument
 * and for the return value, one operation (an integer rendering, a C string, a length-bounded
 * buffer, a wide string): a render operation of emutrace/renderops.py, of the kinds
 * emutrace/machine/abi.py numbers (OP_<KIND> in the generated _abi.h), rendered by _oprender.h.
 * A printf-family site is a PrintfLeaf (_printfcap.c): its line is made from the texts its C hooks
 * left in the PrintfStore. A record the C code cannot render (an unknown site, a pair that is not
 * a leaf, anything out of the buffer) stops the run; Python renders it, so both paths print the
 * same bytes.
 *
 * The module's other parts register themselves at PyInit__native: the `syscall` instruction's
 * hook (_syscallhook.c), the TLB fill, guest memory, printf capture, strace rows, counters.
 *
 * Portable C99 and the Python C API only: no operating-system headers. Every read is bounded by
 * the record buffer Python passes in; every write goes through a growing output buffer.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_cover.h"             /* BlockCounter (--coverage), in _cover.c */

/* The record layout, the op kinds and the struct tokens shared with Python, and ABI_VERSION:
 * generated from emutrace/machine/abi.py (see there). */
#include "_abi.h"
#include "_module.h"            /* emutrace_add_type */

/* _printfcap.c: the PrintfLeaf type, whose leaf lines leaf_run makes from the PrintfStore */
int emutrace_is_printf_leaf(PyObject *o);
PyObject *emutrace_printf_leaf_line(PyObject *leaf, uint64_t seq, uint64_t rax, PyObject *suffix);


#define STRUCT_DEPTH_MAX 32

typedef struct {
    unsigned char kind, size;   /* TOK_*; a field's bytes (1, 2, 4, 8) */
    uint16_t off;               /* a field's offset in the structure */
} StructTok;

/* how many bytes a string bounded by the returned value may show: min(rax & mask, limit + 1)
 * characters (values.py _ret_length) */
static uint64_t ret_chars(uint64_t rax, uint64_t mask, Py_ssize_t limit)
{
    uint64_t n = rax & mask, cap = (uint64_t)limit + 1;
    return n < cap ? n : cap;
}

typedef struct {
    uint64_t value;             /* masked to the type's size */
    uint64_t fmask;             /* OP_FLAGS: the field's mask (== value for a single flag) */
    char *name;
    Py_ssize_t len;
} EnumName;

typedef struct {
    int kind;
    int word;                   /* 1..6: rdi..r9 (the record's words after its tag) */
    int lenword;                /* OP_BUF, OP_STRN: the length's word, 1..6 */
    uint64_t mask;              /* OP_UNSIGNED, OP_HEX; OP_RETSTR/RETWSTR: the returned value's;
                                   OP_STRN: the length word's */
    int size;                   /* OP_SIGNED, OP_BITVEC: bytes */
    Py_ssize_t area;            /* OP_CSTR/BUF/WSTR/STRN/BITVEC: the capture's offset in the call record
                                   (OP_BITVEC: 0 for the return's output copy) */
    Py_ssize_t limit;           /* string ops: the string limit (-s) */
    int fallback;               /* OP_ENUM: how a value with no name renders (OP_SIGNED, ...) */
    Py_ssize_t nnames;          /* OP_ENUM, OP_FLAGS: its names (owned by the Site) */
    EnumName *names;
    Py_ssize_t ntoks;           /* OP_STRUCT: its layout (owned by the Site) */
    StructTok *toks;
    int nfields;                /* OP_INTSTRUCT: its fields, in the 16 bytes of rax and rdx */
    struct { unsigned char off, size, is_signed; } fields[16];
} Op;

#define MAX_ARGS 6

/* the bytes a Site's prefix is kept in: its own rounded up to whole 16-byte chunks */
static Py_ssize_t prefix_room(Py_ssize_t n) { return (n + 16) & ~(Py_ssize_t)15; }

typedef struct {
    PyObject_HEAD
    char *prefix;               /* display name + "(" in UTF-8 (prefix_room(prefix_len) bytes) */
    Py_ssize_t prefix_len;      /* its bytes */
    Py_ssize_t prefix_chars;    /* its characters (the padding counts characters) */
    int ascii;
    int nargs;
    Op args[MAX_ARGS];
    int has_ret;
    Op ret;
    Py_ssize_t size;            /* the call record's size (head + capture areas) */
    Py_ssize_t pair_end;        /* size + RET_SIZE */
    Py_ssize_t align_pad;       /* the column the ") " padding reaches, as in guestlog */
    Py_ssize_t ret_cap;         /* a returned C string (ret OP_CSTR): the bytes the return copies */
    Py_ssize_t pair_end_cap;    /* ... and the pair's end with them */
    int out;                    /* the op reading the return's output copy (-1: none) */
    int in;                     /* the op reading the C string copied at the return besides it
                                   (OP_CSTR with area 0; -1: none), ret_cap bytes of it */
    uint64_t out_captured;      /* ... and the return record's "captured" word that comes with it */
} SiteObject;

/* The bytes the return copies for the site's output argument (guestlog's return trampoline): a
 * set of bits whole; a string bounded by the returned value: its characters (4 bytes each
 * for a wide one), and for a C string the byte after them, which the NUL search reads too. */
static int is_block(const Op *op)
{
    return op->kind == OP_BITVEC || op->kind == OP_STRUCT;
}

static uint64_t out_bytes(const Op *op, uint64_t rax)
{
    if (is_block(op)) return (uint64_t)op->size;
    uint64_t k = ret_chars(rax, op->mask, op->limit);
    return op->kind == OP_RETWSTR ? 4 * k : k + 1;
}

#include "_textbuf.h"           /* Buf, the put_* and buf_* writers, rd64/rd32 */
#include "_oprender.h"          /* render_op, render_line: the ops' renderers */


/* ------------------------------------------------------------------------------------------
 * Site */

/* An OP_STRUCT's layout from ((kind, offset, size), ...): braces balanced, the outer pair first
 * and last, at most STRUCT_DEPTH_MAX deep, every field inside the op's `size` bytes. */
static int parse_struct(Op *op, PyObject *names)
{
    if (names == NULL || !PyTuple_Check(names)) goto bad;
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    if (n < 2 || n > STRUCT_TOKENS_MAX) goto bad;
    op->toks = PyMem_Calloc((size_t)n, sizeof(StructTok));
    if (op->toks == NULL) { PyErr_NoMemory(); return -1; }
    op->ntoks = n;
    int depth = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int kind, off, fsize;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(names, i), "iii", &kind, &off, &fsize)) return -1;
        if (kind < TOK_OPEN || kind > TOK_OCT) goto bad;
        if (kind == TOK_OPEN) {
            if (++depth > STRUCT_DEPTH_MAX || (i > 0 && depth == 1)) goto bad;    /* (one outer pair) */
        } else if (kind == TOK_CLOSE) {
            if (--depth < 0 || (depth == 0 && i != n - 1)) goto bad;
        } else {
            if (depth < 1 || (fsize != 1 && fsize != 2 && fsize != 4 && fsize != 8) || off < 0
                    || off + fsize > op->size)
                goto bad;
        }
        op->toks[i] = (StructTok){(unsigned char)kind, (unsigned char)fsize, (uint16_t)off};
    }
    if (depth != 0 || op->toks[0].kind != TOK_OPEN) goto bad;
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: a structure layout out of range");
    return -1;
}

static int parse_op(PyObject *t, Op *op, Py_ssize_t size, int is_ret)
{
    long long kind, word, lenword, size_or_mask_hi, area, limit, fallback = 0;
    unsigned long long mask;
    PyObject *names = NULL;
    /* (kind, word, lenword, mask, size, area, limit[, names, fallback]) */
    if (!PyArg_ParseTuple(t, "LLLKLLL|OL", &kind, &word, &lenword, &mask, &size_or_mask_hi, &area, &limit,
                          &names, &fallback))
        return -1;
    if (kind < 1 || kind > OP_MAX) goto bad;
    if (!is_ret && (word < 1 || word > MAX_ARGS)) goto bad;
    int capture = kind == OP_CSTR || kind == OP_BUF || kind == OP_WSTR || kind == OP_STRN;
    /* a word, or a returned C or wide string; a bounded string only in the call record */
    if ((is_ret || area == 0) && (kind == OP_BUF || kind == OP_STRN)) goto bad;
    if (is_ret && (kind == OP_RETSTR || kind == OP_RETWSTR || kind == OP_BITVEC || kind == OP_STRUCT)) goto bad;
    if (!is_ret && kind == OP_INTSTRUCT) goto bad;
    if (kind == OP_INTSTRUCT) {
        /* (offset, size, signed) per field, inside rax:rdx */
        if (names == NULL || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) < 1 || PyTuple_GET_SIZE(names) > 16)
            goto bad;
        op->kind = (int)kind;
        op->nfields = (int)PyTuple_GET_SIZE(names);
        for (int i = 0; i < op->nfields; i++) {
            int off, fsize, is_signed;
            if (!PyArg_ParseTuple(PyTuple_GET_ITEM(names, i), "iip", &off, &fsize, &is_signed)) return -1;
            if (off < 0 || (fsize != 1 && fsize != 2 && fsize != 4 && fsize != 8) || off + fsize > 16) goto bad;
            op->fields[i].off = (unsigned char)off;
            op->fields[i].size = (unsigned char)fsize;
            op->fields[i].is_signed = (unsigned char)is_signed;
        }
        return 0;
    }
    op->kind = (int)kind;
    op->word = (int)word;
    op->lenword = (int)lenword;
    op->mask = mask;
    op->size = (int)size_or_mask_hi;
    op->area = (Py_ssize_t)area;
    op->limit = (Py_ssize_t)limit;
    if ((kind == OP_SIGNED || (kind == OP_ENUM && fallback == OP_SIGNED)) && (op->size < 1 || op->size > 8))
        goto bad;
    if (kind == OP_ENUM || kind == OP_FLAGS) {
        /* OP_ENUM: ((value, name), ...) and the fallback; OP_FLAGS: ((value, mask, name), ...) */
        int flags = kind == OP_FLAGS;
        if (!flags && fallback != OP_SIGNED && fallback != OP_UNSIGNED && fallback != OP_CHAR) goto bad;
        if (names == NULL || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) > 4096) goto bad;
        op->fallback = (int)fallback;
        Py_ssize_t n = PyTuple_GET_SIZE(names);
        op->names = PyMem_Calloc((size_t)(n ? n : 1), sizeof(EnumName));
        if (op->names == NULL) { PyErr_NoMemory(); return -1; }
        op->nnames = n;
        for (Py_ssize_t i = 0; i < n; i++) {
            unsigned long long value, fmask = 0;
            PyObject *name;
            Py_ssize_t len;
            PyObject *item = PyTuple_GET_ITEM(names, i);
            if (flags ? !PyArg_ParseTuple(item, "KKU", &value, &fmask, &name)
                      : !PyArg_ParseTuple(item, "KU", &value, &name))
                return -1;
            const char *u8 = PyUnicode_AsUTF8AndSize(name, &len);
            if (u8 == NULL) return -1;
            if (!PyUnicode_IS_ASCII(name)) goto bad;        /* (the padding counts ASCII bytes) */
            op->names[i].name = PyMem_Malloc((size_t)len + 1);
            if (op->names[i].name == NULL) { PyErr_NoMemory(); return -1; }
            memcpy(op->names[i].name, u8, (size_t)len + 1);
            op->names[i].len = len;
            /* (a flag's value and mask stay whole: one with bits beyond the type never matches) */
            op->names[i].value = flags ? value : value & mask;
            op->names[i].fmask = fmask;
        }
    }
    if (kind == OP_RETSTR || kind == OP_RETWSTR) {
        /* read from the return's output copy, which leaf_run checks is out_bytes long */
        if (limit < 1 || limit > (1 << 26) || area != 0 || mask == 0) goto bad;
    } else if (kind == OP_BITVEC || kind == OP_STRUCT) {
        if (op->size < 1 || op->size > 4096 || area < 0 || (area && (area < HEAD || area > size - op->size)))
            goto bad;
        if (kind == OP_STRUCT && parse_struct(op, names) < 0) return -1;
    } else if ((is_ret && capture) || (capture && kind != OP_BUF && area == 0)) {
        /* a returned string, or one shown at the return besides the output argument (area 0:
         * the return copies it; Site_init checks the copy's size) */
        if (limit < 1 || limit > (1 << 26)) goto bad;
    } else if (capture) {
        /* the capture must lie inside the call record: the renderer reads nothing else */
        Py_ssize_t need;
        if (limit < 1 || limit > (1 << 26) || area < HEAD) goto bad;
        if (kind == OP_CSTR) need = limit + 1;
        else if (kind == OP_BUF) need = limit;
        else if (kind == OP_STRN) need = limit + 2;
        else need = 4 * (limit + 1);
        if (area > size || need > size - area) goto bad;
        if ((kind == OP_BUF || kind == OP_STRN) && (lenword < 1 || lenword > MAX_ARGS)) goto bad;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: an operation out of range");
    return -1;
}

static void free_op(Op *op)
{
    for (Py_ssize_t i = 0; i < op->nnames; i++) PyMem_Free(op->names[i].name);
    PyMem_Free(op->names);
    op->names = NULL;
    op->nnames = 0;
    PyMem_Free(op->toks);
    op->toks = NULL;
    op->ntoks = 0;
}

static void free_ops(SiteObject *self)
{
    for (int i = 0; i < MAX_ARGS; i++) free_op(&self->args[i]);
    free_op(&self->ret);
}

static int Site_init(SiteObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *prefix, *ops, *ret;
    Py_ssize_t size, align_pad, ret_cap = 0;
    unsigned long long out_captured = 0;
    static char *kw[] = {"prefix", "ops", "ret", "size", "align_pad", "ret_cap", "out_captured", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UOOnn|nK", kw, &prefix, &ops, &ret, &size, &align_pad,
                                     &ret_cap, &out_captured))
        return -1;
    if (size < HEAD || size > (1 << 28) || (size & 7)) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: bad record size");
        return -1;
    }
    if (align_pad < 0 || align_pad > (1 << 20)) {      /* (the column: no overflow in its sums) */
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: bad align_pad");
        return -1;
    }
    free_ops(self);                 /* (__init__ called again) */
    self->nargs = 0;
    self->has_ret = 0;
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(prefix, &n);
    if (p == NULL) return -1;
    /* (zeros after it up to a multiple of 16 bytes: render_line copies it 16 bytes at a time) */
    char *copy = PyMem_Calloc((size_t)prefix_room(n), 1);
    if (copy == NULL) { PyErr_NoMemory(); return -1; }
    memcpy(copy, p, (size_t)n);
    PyMem_Free(self->prefix);
    self->prefix = copy;
    self->prefix_len = n;
    self->prefix_chars = PyUnicode_GET_LENGTH(prefix);
    self->ascii = PyUnicode_IS_ASCII(prefix);
    PyObject *seq = PySequence_Fast(ops, "ops must be a sequence");
    if (seq == NULL) return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    if (k > MAX_ARGS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: more than six arguments");
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        if (parse_op(PySequence_Fast_GET_ITEM(seq, i), &self->args[i], size, 0) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    self->nargs = (int)k;
    /* at most one op reads the return's output copy */
    self->out = -1;
    for (int i = 0; i < self->nargs; i++) {
        const Op *op = &self->args[i];
        if (op->kind == OP_RETSTR || op->kind == OP_RETWSTR || (is_block(op) && op->area == 0)) {
            if (self->out >= 0) {
                PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: two output copies");
                return -1;
            }
            self->out = i;
        }
    }
    self->out_captured = out_captured;
    /* and at most one the C string copied at the return after it: what the return record's
     * "captured" word says it copies, ret_cap bytes. (Only a C string, and only beside an output
     * copy that is no C string: guestlog's _Captured finds a C string by its exact address and
     * reads a wide one for any address it covers, so an output argument at the same address
     * would read that copy in Python; such sites keep the Python renderers.) */
    self->in = -1;
    for (int i = 0; i < self->nargs; i++) {
        const Op *op = &self->args[i];
        if ((op->kind == OP_CSTR || op->kind == OP_WSTR) && op->area == 0) {
            if (self->in >= 0 || self->out < 0 || op->kind != OP_CSTR || self->args[self->out].kind == OP_RETSTR ||
                (out_captured & (IN_CSTR | IN_WSTR)) != IN_CSTR || ret_cap < 1 || ret_cap > (1 << 26)) {
                PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: a string copied at the return "
                                "needs an output copy, its flag and ret_cap");
                return -1;
            }
            self->in = i;
        }
    }
    if (self->in < 0 && (out_captured & (IN_CSTR | IN_WSTR))) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: a string copied at the return but not shown");
        return -1;
    }
    self->has_ret = ret != Py_None;
    if (self->has_ret && parse_op(ret, &self->ret, size, 1) < 0) return -1;
    if (self->has_ret && self->ret.kind == OP_INTSTRUCT && (self->out >= 0 || out_captured == 0)) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: a returned structure needs out_captured");
        return -1;
    }
    if (self->out >= 0 && self->has_ret && (self->ret.kind == OP_CSTR || self->ret.kind == OP_WSTR)) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: an output copy and a returned string");
        return -1;
    }
    if (self->has_ret && self->ret.kind == OP_CSTR && (ret_cap < 1 || ret_cap > (1 << 26))) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: a returned string needs ret_cap");
        return -1;
    }
    /* a returned wide string: the return copies ret_cap bytes, of which the renderer reads
     * 4 * (limit + 1) */
    if (self->has_ret && self->ret.kind == OP_WSTR && (ret_cap < 4 * (self->ret.limit + 1) || ret_cap > (1 << 28))) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.Site: a returned wide string needs ret_cap");
        return -1;
    }
    self->size = size;
    self->pair_end = size + RET_SIZE;
    self->align_pad = align_pad;
    self->ret_cap = ret_cap;
    self->pair_end_cap = self->pair_end + ((ret_cap + 14) & ~(Py_ssize_t)7);   /* guestlog.area_size */
    return 0;
}

static void Site_dealloc(SiteObject *self)
{
    free_ops(self);
    PyMem_Free(self->prefix);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int get_suffix(PyObject *suffix, const char **s, Py_ssize_t *n, int *ascii)
{
    if (!PyUnicode_Check(suffix)) { PyErr_SetString(PyExc_TypeError, "suffix must be str"); return -1; }
    *s = PyUnicode_AsUTF8AndSize(suffix, n);
    *ascii = PyUnicode_IS_ASCII(suffix);
    return *s ? 0 : -1;
}

/* Site.line(data, off, rax, suffix[, ret_area]): the leaf line of the call record at data[off:]
 * (tests and the fuzzer compare it with the Python renderers). */
static PyObject *Site_line(SiteObject *self, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t off;
    unsigned long long rax;
    PyObject *suffix;
    Py_buffer area = {0};
    if (!PyArg_ParseTuple(args, "y*nKU|y*", &data, &off, &rax, &suffix, &area)) return NULL;
    PyObject *out = NULL;
    const char *sfx;
    Py_ssize_t sn;
    int sa;
    if (get_suffix(suffix, &sfx, &sn, &sa) < 0) goto done;
    if (off < 0 || off > data.len || self->size > data.len - off) {
        PyErr_SetString(PyExc_IndexError, "record out of the buffer");
        goto done;
    }
    if (self->has_ret && (self->ret.kind == OP_CSTR || self->ret.kind == OP_WSTR) &&
        (area.obj == NULL || area.len < self->ret_cap)) {
        PyErr_SetString(PyExc_IndexError, "a returned string needs ret_cap bytes");
        goto done;
    }
    if ((self->out >= 0 && (area.obj == NULL || (uint64_t)area.len < out_bytes(&self->args[self->out], rax))) ||
        (self->in >= 0 && area.len < in_offset(self, rax) + self->ret_cap) ||
        (self->has_ret && self->ret.kind == OP_INTSTRUCT && (area.obj == NULL || area.len < 8))) {
        PyErr_SetString(PyExc_IndexError, "an output argument needs the bytes the return copies");
        goto done;
    }
    Buf b;
    buf_init(&b);
    int ascii = 1;
    if (render_line(&b, self, (const unsigned char *)data.buf + off, rax, area.buf, sfx, sn, sa, &ascii) == 0)
        out = buf_text(&b, ascii);
    buf_free(&b);
done:
    PyBuffer_Release(&data);
    if (area.obj) PyBuffer_Release(&area);
    return out;
}

static PyMethodDef Site_methods[] = {
    {"line", (PyCFunction)Site_line, METH_VARARGS, "line(data, off, rax, suffix) -> str"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject SiteType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.Site",
    .tp_basicsize = sizeof(SiteObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Site(prefix, ops, ret, size, align_pad): how a logged call site's leaf lines render",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Site_init,
    .tp_dealloc = (destructor)Site_dealloc,
    .tp_methods = Site_methods,
};

/* leaf_run's output buffer, kept from call to call so that its capacity, the longest run's so
 * far, is allocated once instead of grown by doubling in every run. Calls hold the GIL; one made
 * while another is under way (a finalizer run by an allocation inside it) gets a buffer of its
 * own, `own`. */
static Buf run_buf;
static int run_buf_busy;

#define RUN_BUF_KEEP (1 << 22)  /* a buffer grown past this is not kept */

static Buf *run_buffer_take(Buf *own)
{
    if (run_buf_busy) {
        buf_init(own);
        return own;
    }
    run_buf_busy = 1;
    if (run_buf.p == NULL) buf_init(&run_buf);
    run_buf.len = 0;
    return &run_buf;
}

static void run_buffer_give(Buf *b, Buf *own)
{
    if (b == own) {
        buf_free(own);
        return;
    }
    if (run_buf.cap > RUN_BUF_KEEP) {
        buf_free(&run_buf);
        buf_init(&run_buf);
    }
    run_buf_busy = 0;
}

/* ------------------------------------------------------------------------------------------
 * leaf_run(data, off, top, sites, suffix, lines) -> (off, count)
 *
 * Renders the line of each leaf call from data[off:] on (a call record of a site in `sites`,
 * indexed by tag, that is a Site or a PrintfLeaf; its return record right after it, with the
 * same slot and return address and nothing captured; the slot below `top`, the innermost open
 * frame, or top None: no frame open), appends them to `lines` as one str (none when there are
 * none: one object per run, not per line, is a tenth of a traced call's cost), and returns the
 * offset of the first record it did not render and how many lines it rendered. As guestlog's
 * quick path, it needs the next record's tag to be in the buffer too. */
static PyObject *leaf_run(PyObject *mod, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t off;
    PyObject *top_obj, *sites, *suffix, *lines;
    if (!PyArg_ParseTuple(args, "y*nOO!UO!", &data, &off, &top_obj, &PyList_Type, &sites, &suffix,
                          &PyList_Type, &lines))
        return NULL;
    PyObject *result = NULL;
    const char *sfx;
    Py_ssize_t sn, count = 0;
    int sa, ascii = 1;
    Buf own, *b = run_buffer_take(&own);
    uint64_t top = RET_TAG;
    int no_top = top_obj == Py_None;
    if (!no_top) {
        top = PyLong_AsUnsignedLongLong(top_obj);
        if (top == (uint64_t)-1 && PyErr_Occurred()) goto done;
    }
    if (get_suffix(suffix, &sfx, &sn, &sa) < 0) goto done;
    const unsigned char *d = data.buf;
    Py_ssize_t n = data.len;
    if (off < 0) off = n;
    while (off <= n - 8) {
        uint64_t tag = rd64(d + off);
        if (tag == RET_TAG || tag >= (uint64_t)PyList_GET_SIZE(sites)) break;
        PyObject *so = PyList_GET_ITEM(sites, (Py_ssize_t)tag);
        if (Py_TYPE(so) != &SiteType) {
            if (!emutrace_is_printf_leaf(so)) break;
            /* a printf-family leaf call (printflog.PrintfSite._quick): its return record next,
             * nothing copied; the line from the texts its hooks left in the store */
            if (PRINTF_RECORD + RET_SIZE > n - off) break;
            const unsigned char *rec = d + off, *r = rec + PRINTF_RECORD;
            uint64_t slot = rd64(rec + REC_SLOT), ret = rd64(rec + REC_RET);
            if (rd64(r) != RET_TAG || rd64(r + RET_SLOT) != slot || rd64(r + RET_ADDR) != ret || rd64(r + RET_CAPTURED) != 0 ||
                rd64(r + RET_OUTN) != 0 || (!no_top && top <= slot))
                break;
            PyObject *line = emutrace_printf_leaf_line(so, rd64(rec + HEAD), rd64(r + RET_RAX), suffix);
            if (line == NULL) goto done;
            Py_ssize_t ln;
            const char *u = PyUnicode_AsUTF8AndSize(line, &ln);
            if (u != NULL && !PyUnicode_IS_ASCII(line)) ascii = 0;
            int err = u == NULL ? -1 : buf_put(b, u, ln);
            Py_DECREF(line);
            if (err < 0) goto done;
            count++;
            off += PRINTF_RECORD + RET_SIZE;
            continue;
        }
        SiteObject *s = (SiteObject *)so;
        int ret_string = s->has_ret && (s->ret.kind == OP_CSTR || s->ret.kind == OP_WSTR);
        /* the return record's "captured" word */
        uint64_t captured = !ret_string ? 0 : s->ret.kind == OP_WSTR ? RET_WSTR : RET_CSTR;
        if (s->pair_end > n - off) break;
        const unsigned char *rec = d + off, *r = rec + s->size;
        uint64_t slot = rd64(rec + REC_SLOT), ret = rd64(rec + REC_RET);
        /* (a returned structure's rdx: 8 bytes) */
        int pair = s->has_ret && s->ret.kind == OP_INTSTRUCT;
        if (s->out >= 0 || pair) captured = s->out_captured;
        /* a leaf: its own return record next; nothing copied at the return but a returned
         * string, which is there exactly when the site returns one, or the output argument,
         * exactly as many bytes as the site's copy makes */
        uint64_t rax = rd64(r + RET_RAX), outn = rd64(r + RET_OUTN);
        if (rd64(r) != RET_TAG || rd64(r + RET_SLOT) != slot || rd64(r + RET_ADDR) != ret || rd64(r + RET_CAPTURED) != captured ||
            outn != (s->out >= 0 ? out_bytes(&s->args[s->out], rax) : pair ? 8 : 0))
            break;
        if (!no_top && top <= slot) break;
        Py_ssize_t end = ret_string ? s->pair_end_cap : s->pair_end;
        if (end > n - off || outn > (uint64_t)(n - off - end)) break;
        end += (Py_ssize_t)((outn + 7) & ~(uint64_t)7);     /* (the copy's area, as guestlog's decode) */
        if (end > n - off) break;
        end += in_area(s);                                  /* (and the string copied after it) */
        if (end > n - off) break;
        if (render_line(b, s, rec, rax, r + RET_SIZE, sfx, sn, sa, &ascii) < 0) goto done;
        count++;
        off += end;
    }
    if (count) {
        /* the run's lines as one str: one object per run instead of one per line */
        PyObject *text = buf_text(b, ascii);
        if (text == NULL) goto done;
        int err = PyList_Append(lines, text);
        Py_DECREF(text);
        if (err < 0) goto done;
    }
    result = Py_BuildValue("(nn)", off, count);
done:
    run_buffer_give(b, &own);
    PyBuffer_Release(&data);
    return result;
}

/* escape(bytes) -> str: values.escape_bytes */
static PyObject *escape(PyObject *mod, PyObject *arg)
{
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0) return NULL;
    Buf b;
    buf_init(&b);
    PyObject *out = NULL;
    if (buf_escape(&b, data.buf, data.len) == 0) out = PyUnicode_DecodeASCII(b.p, b.len, "strict");
    buf_free(&b);
    PyBuffer_Release(&data);
    return out;
}

/* escape_wide(bytes) -> str: values.escape_wide (each whole 4-byte little-endian character) */
static PyObject *escape_wide(PyObject *mod, PyObject *arg)
{
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0) return NULL;
    Buf b;
    buf_init(&b);
    PyObject *out = NULL;
    const unsigned char *p = data.buf;
    Py_ssize_t k;
    char *o = buf_room(&b, data.len / 4 * ESCW_MAX);
    if (o != NULL) {
        for (k = 0; k + 4 <= data.len; k += 4) o = put_escw(o, rd32(p + k));
        buf_done(&b, o);
        out = PyUnicode_DecodeASCII(b.p, b.len, "strict");
    }
    buf_free(&b);
    PyBuffer_Release(&data);
    return out;
}

static PyMethodDef module_methods[] = {
    {"leaf_run", leaf_run, METH_VARARGS, "leaf_run(data, off, top, sites, suffix, lines) -> (off, count)"},
    {"escape", escape, METH_O, "escape(bytes) -> str: ltrace's escaping of string contents"},
    {"escape_wide", escape_wide, METH_O, "escape_wide(bytes) -> str: the same for wchar_t strings"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "emutrace.machine._native", "emutrace's compiled event path", -1, module_methods,
    NULL, NULL, NULL, NULL
};

int emutrace_register_syscallhook(PyObject *m);    /* _syscallhook.c: the syscall instruction's hook */
int emutrace_register_tlbfill(PyObject *m);        /* _tlbfill.c: the TLB fill hook */
int emutrace_register_guestmem(PyObject *m);       /* _guestmem.c: raw guest memory access */
int emutrace_register_printfcap(PyObject *m);      /* _printfcap.c: printf-family calls' hooks */
int emutrace_register_strace(PyObject *m);         /* _strace.c: strace rows rendered in C */
int emutrace_register_insncount(PyObject *m);      /* _insncount.c: retired instructions (docs/time.md) */

/* _module.h: a type added to the module (ready first, with emutrace_add_type) */
int emutrace_add_type_ready(PyObject *m, const char *name, PyTypeObject *type)
{
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

int emutrace_add_type(PyObject *m, const char *name, PyTypeObject *type)
{
    return PyType_Ready(type) < 0 ? -1 : emutrace_add_type_ready(m, name, type);
}

#ifndef SOURCE_DIGEST          /* (setup.py defines it: emutrace/machine/sourcedigest.py) */
#define SOURCE_DIGEST ""
#endif

PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (emutrace_add_type(m, "Site", &SiteType) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_register_syscallhook(m) < 0) { Py_DECREF(m); return NULL; }
    init_hex_pairs();
    if (emutrace_register_tlbfill(m) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_register_guestmem(m) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_register_printfcap(m) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_register_strace(m) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_register_insncount(m) < 0) { Py_DECREF(m); return NULL; }
    struct { const char *name; long value; } consts[] = { ABI_CONSTS };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++) {
        if (PyModule_AddIntConstant(m, consts[i].name, consts[i].value) < 0) { Py_DECREF(m); return NULL; }
    }
    if (PyModule_AddStringConstant(m, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_cover_init(m) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
