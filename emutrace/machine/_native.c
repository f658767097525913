/* emutrace.machine._native: the compiled event path.
 *
 * Two jobs. It takes the `syscall` instruction's hook (SyscallHook, below). And it renders the
 * guest call log's leaf calls (a call record followed directly by its return
 * record, see emutrace/guestlog.py) into finished ltrace lines, a run of them per call from
 * Python. Each call site is described once by a Site: its display name and, per shown argument
 * and for the return value, one operation (an integer rendering, a C string, a length-bounded
 * buffer, a wide string): a render operation of emutrace/renderops.py, whose kinds marked
 * `native` are exactly the op_kind values below (OP_<KIND>; tests/test_native_render.py checks).
 * A printf-family site is a PrintfLeaf (_printfcap.c): its line is made from the texts its C hooks
 * left in the PrintfStore. A record the C code cannot render (an unknown site, a pair that is not
 * a leaf, anything out of the buffer) stops the run; Python renders it, so both paths print the
 * same bytes.
 *
 * Portable C99 and the Python C API only: no operating-system headers. Every read is bounded by
 * the record buffer Python passes in; every write goes through a growing output buffer.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_cover.h"             /* BlockCounter (--coverage), in _cover.c */

/* Bumped whenever the Python side's expectations change (emutrace/machine/native.py checks it). */
#define ABI_VERSION 12

#define RET_TAG UINT64_C(0xFFFFFFFFFFFFFFFF)
#define HEAD 72                 /* call record: tag, rdi..r9, slot, return address */
#define RET_SIZE 48             /* return record: tag, slot, return address, rax, captured, outn */
/* the return record's "captured" word's flags for a string shown at the return besides the output
 * argument (mbstowcs's source): its copy follows the output copy (guestlog.IN_CSTR, IN_WSTR) */
#define IN_CSTR 16
#define IN_WSTR 32
/* a printf-family call record (emutrace/printflog.py): the head and the sequence number of the
 * texts the hooks rendered into the PrintfStore */
#define PRINTF_RECORD (HEAD + 8)

/* _printfcap.c: the PrintfLeaf type, whose leaf lines leaf_run makes from the PrintfStore */
int emutrace_is_printf_leaf(PyObject *o);
PyObject *emutrace_printf_leaf_line(PyObject *leaf, uint64_t seq, uint64_t rax, PyObject *suffix);

enum op_kind {
    OP_UNSIGNED = 1,            /* str(w & mask) */
    OP_SIGNED = 2,              /* the low `size` bytes as a signed integer */
    OP_HEX = 3,                 /* "0x%x" % (w & mask), "0" for zero */
    OP_GUESS = 4,               /* ltrace's guess for a 64-bit word: decimal near zero, else hex */
    OP_ADDR = 5,                /* a pointer: "0x%x", "0" for NULL */
    OP_CSTR = 6,                /* a C string copied at the call (its area: limit + 2 bytes, of
                                   which the renderer reads limit + 1) */
    OP_BUF = 7,                 /* a buffer whose length is another argument word */
    OP_WSTR = 8,                /* a wide string copied at the call (4 * (limit + 1) bytes) */
    OP_CHAR = 9,                /* a char: its escape between single quotes */
    OP_BOOL = 10,               /* "false" when w & mask is 0, else "true" */
    OP_ENUM = 11,               /* the first name whose value & mask is w & mask, else `fallback` */
    OP_WCHAR = 12,              /* a wchar_t: its escape between L' and ' */
    OP_RETSTR = 13,             /* an output C string of at most the returned value's characters */
    OP_RETWSTR = 14,            /* ... a wide one: both copied by the return (the "output copy") */
    OP_BITVEC = 15,             /* a pointer to a `size`-byte set of bits, copied at the call or
                                   (area 0) by the return */
    OP_INTSTRUCT = 16,          /* a returned structure of integers in rax and rdx (the return's
                                   output copy holds rdx) */
    OP_STRN = 17,               /* a C string of at most the length word's characters (ltrace's
                                   stringN), copied at the call as a C string (limit + 2 bytes) */
    OP_MAX = 17
};

/* how many bytes a string bounded by the returned value may show: min(rax & mask, limit + 1)
 * characters (values.py _ret_length) */
static uint64_t ret_chars(uint64_t rax, uint64_t mask, Py_ssize_t limit)
{
    uint64_t n = rax & mask, cap = (uint64_t)limit + 1;
    return n < cap ? n : cap;
}

typedef struct {
    uint64_t value;             /* masked to the type's size */
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
    Py_ssize_t nnames;          /* OP_ENUM: its names (owned by the Site) */
    EnumName *names;
    int nfields;                /* OP_INTSTRUCT: its fields, in the 16 bytes of rax and rdx */
    struct { unsigned char off, size, is_signed; } fields[16];
} Op;

#define MAX_ARGS 6

typedef struct {
    PyObject_HEAD
    char *prefix;               /* display name + "(" in UTF-8 */
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
static uint64_t out_bytes(const Op *op, uint64_t rax)
{
    if (op->kind == OP_BITVEC) return (uint64_t)op->size;
    uint64_t k = ret_chars(rax, op->mask, op->limit);
    return op->kind == OP_RETWSTR ? 4 * k : k + 1;
}

/* ------------------------------------------------------------------------------------------
 * output buffer */

typedef struct {
    char *p;
    Py_ssize_t len, cap;
    char local[1024];
} Buf;

static void buf_init(Buf *b) { b->p = b->local; b->len = 0; b->cap = (Py_ssize_t)sizeof b->local; }

static void buf_free(Buf *b) { if (b->p != b->local) PyMem_Free(b->p); }

static int buf_reserve(Buf *b, Py_ssize_t more)
{
    if (more < 0 || b->len > PY_SSIZE_T_MAX - more) { PyErr_NoMemory(); return -1; }
    if (b->len + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap;
    while (cap < b->len + more) {
        if (cap > PY_SSIZE_T_MAX / 2) { PyErr_NoMemory(); return -1; }
        cap *= 2;
    }
    char *p = PyMem_Malloc((size_t)cap);
    if (p == NULL) { PyErr_NoMemory(); return -1; }
    memcpy(p, b->p, (size_t)b->len);
    buf_free(b);
    b->p = p;
    b->cap = cap;
    return 0;
}

static int buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    if (buf_reserve(b, n) < 0) return -1;
    memcpy(b->p + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

static int buf_str(Buf *b, const char *s) { return buf_put(b, s, (Py_ssize_t)strlen(s)); }

/* The buffer as a str: ascii says it is (then a copy, not a decoding) */
static PyObject *buf_text(const Buf *b, int ascii)
{
    if (!ascii) return PyUnicode_DecodeUTF8(b->p, b->len, "strict");
    PyObject *out = PyUnicode_New(b->len, 127);
    if (out) memcpy(PyUnicode_1BYTE_DATA(out), b->p, (size_t)b->len);
    return out;
}

static const char HEXDIGITS[] = "0123456789abcdef";

static int buf_udec(Buf *b, uint64_t v)
{
    char t[24];
    int i = (int)sizeof t;
    do { t[--i] = (char)('0' + v % 10); v /= 10; } while (v);
    return buf_put(b, t + i, (Py_ssize_t)sizeof t - i);
}

static int buf_sdec(Buf *b, int64_t v)
{
    if (v < 0) {
        if (buf_put(b, "-", 1) < 0) return -1;
        return buf_udec(b, (uint64_t)0 - (uint64_t)v);
    }
    return buf_udec(b, (uint64_t)v);
}

/* "0x%x" */
static int buf_hex(Buf *b, uint64_t v)
{
    char t[20];
    int i = (int)sizeof t;
    do { t[--i] = HEXDIGITS[v & 15]; v >>= 4; } while (v);
    t[--i] = 'x';
    t[--i] = '0';
    return buf_put(b, t + i, (Py_ssize_t)sizeof t - i);
}

/* a fixed number of hex digits (\u%04x, \U%08x) */
static int buf_hexn(Buf *b, uint64_t v, int digits)
{
    char t[16];
    for (int i = digits - 1; i >= 0; i--) { t[i] = HEXDIGITS[v & 15]; v >>= 4; }
    return buf_put(b, t, digits);
}

/* ltrace's escaping of one byte (values.py _esc_char) */
static int buf_esc(Buf *b, unsigned c)
{
    static const char *const named[14] = {
        "\\0", 0, 0, 0, 0, 0, 0, "\\a", "\\b", "\\t", "\\n", "\\v", "\\f", "\\r"};
    if (c < 14 && named[c]) return buf_put(b, named[c], 2);
    if (c == 92) return buf_put(b, "\\\\", 2);
    if (c >= 32 && c < 127) {
        char ch = (char)c;
        return buf_put(b, &ch, 1);
    }
    char t[4] = {'\\', (char)('0' + ((c >> 6) & 3)), (char)('0' + ((c >> 3) & 7)), (char)('0' + (c & 7))};
    return buf_put(b, t, 4);
}

static int buf_escape(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    if (buf_reserve(b, n) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned c = s[i];
        if (c >= 32 && c < 127 && c != 92) {        /* the common case, in place */
            if (b->len == b->cap && buf_reserve(b, 1) < 0) return -1;
            b->p[b->len++] = (char)c;
        } else if (buf_esc(b, c) < 0) {
            return -1;
        }
    }
    return 0;
}

/* values.py _esc_wchar */
static int buf_escw(Buf *b, uint32_t c)
{
    if (c < 256) return buf_esc(b, c);
    if (c <= 0xFFFF) return buf_put(b, "\\u", 2) < 0 ? -1 : buf_hexn(b, c, 4);
    return buf_put(b, "\\U", 2) < 0 ? -1 : buf_hexn(b, c, 8);
}

/* ------------------------------------------------------------------------------------------
 * records: little-endian words, read byte by byte (no alignment or host byte-order assumed) */

static uint64_t rd64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* One operation on the call record at rec (size bytes, validated against the Site); w: its six
 * argument words. */
/* A wide string from 4 * (limit + 1) copied bytes at a (values.py's wstring render): up to its
 * zero character, at most limit characters shown. */
static int render_wstr(Buf *b, const unsigned char *a, Py_ssize_t limit, uint64_t v)
{
    if (!v) return buf_put(b, "nil", 3);
    Py_ssize_t cap = limit + 1, n = 0;
    while (n < cap && rd32(a + 4 * n) != 0) n++;
    Py_ssize_t shown = n < limit ? n : limit;
    if (buf_put(b, "L\"", 2) < 0) return -1;
    for (Py_ssize_t k = 0; k < shown; k++)
        if (buf_escw(b, rd32(a + 4 * k)) < 0) return -1;
    return n >= limit ? buf_put(b, "\"...", 4) : buf_put(b, "\"", 1);
}

/* ltrace's bitvec lens over n bytes (values.py bitvec_text): ranges of set bits, or of clear ones
 * after "~" when more than half are set. */
static int render_bitvec(Buf *b, const unsigned char *a, Py_ssize_t n)
{
    Py_ssize_t bits = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) bits += (a[i] >> k) & 1;
    unsigned neg = bits > n * 4 ? 0xFF : 0;
    if (neg && buf_put(b, "~", 1) < 0) return -1;
    if (buf_put(b, "<", 1) < 0) return -1;
    Py_ssize_t low = -1, bitno = 0;
    int first = 1;
    for (Py_ssize_t i = 0; i <= n; i++) {
        for (int k = 0; k < 8; k++, bitno++) {
            int set = i < n && (((a[i] ^ neg) >> k) & 1);
            if (set) {
                if (low < 0) low = bitno;
            } else if (low >= 0) {
                if (!first && buf_put(b, ",", 1) < 0) return -1;
                first = 0;
                if (buf_udec(b, (uint64_t)low) < 0) return -1;
                if (low != bitno - 1 && (buf_put(b, "-", 1) < 0 || buf_udec(b, (uint64_t)(bitno - 1)) < 0)) return -1;
                low = -1;
            }
            if (i == n) break;          /* (one step past the end closes an open range) */
        }
    }
    return buf_put(b, ">", 1);
}

/* An output string bounded by the returned value, from the `out` bytes the return copied
 * (renderops.py string_to_retval / wstring_to_retval, every byte readable). */
static int render_retstr(Buf *b, const Op *op, uint64_t v, uint64_t rax, const unsigned char *out)
{
    if (!v) return buf_put(b, "nil", 3);
    uint64_t k = ret_chars(rax, op->mask, op->limit), limit = (uint64_t)op->limit, n = 0;
    if (op->kind == OP_RETWSTR) {
        while (n < k && rd32(out + 4 * n) != 0) n++;
        uint64_t shown = n < limit ? n : limit;
        if (buf_put(b, "L\"", 2) < 0) return -1;
        for (uint64_t c = 0; c < shown; c++)
            if (buf_escw(b, rd32(out + 4 * c)) < 0) return -1;
    } else {
        /* MemView.cstring(v, k): up to a NUL among k + 1 bytes, else the first k */
        const unsigned char *nul = memchr(out, 0, (size_t)k + 1);
        n = nul ? (uint64_t)(nul - out) : k;
        uint64_t shown = n < limit ? n : limit;
        if (buf_put(b, "\"", 1) < 0 || buf_escape(b, out, (Py_ssize_t)shown) < 0) return -1;
    }
    return n >= limit ? buf_put(b, "\"...", 4) : buf_put(b, "\"", 1);
}

/* A C string of at most n characters (ltrace's stringN) from its copy at the call, `a`: the bytes
 * from v up to its NUL or limit + 2 of them, every one copied (leaf_run runs only where no copy
 * faulted). MemView.cstring(v, k), k = min(n, limit + 1), reads up to a NUL among k + 1 bytes,
 * all inside the copy: the string's length is the NUL's place or k. */
static int render_strn(Buf *b, const Op *op, uint64_t v, uint64_t n, const unsigned char *a)
{
    if (!v) return buf_put(b, "nil", 3);
    uint64_t limit = (uint64_t)op->limit;
    n &= op->mask;
    uint64_t k = n < limit + 1 ? n : limit + 1;
    const unsigned char *nul = memchr(a, 0, (size_t)k + 1);
    uint64_t len = nul ? (uint64_t)(nul - a) : k;
    uint64_t shown = len < limit ? len : limit;
    if (buf_put(b, "\"", 1) < 0 || buf_escape(b, a, (Py_ssize_t)shown) < 0) return -1;
    return len >= limit ? buf_put(b, "\"...", 4) : buf_put(b, "\"", 1);
}

static int render_op(Buf *b, const Op *op, const uint64_t *w, const unsigned char *rec, uint64_t v,
                     uint64_t rax, const unsigned char *out)
{
    switch (op->kind) {
    case OP_CHAR:
        if (buf_put(b, "'", 1) < 0 || buf_esc(b, (unsigned)(v & 0xFF)) < 0) return -1;
        return buf_put(b, "'", 1);
    case OP_WCHAR:
        if (buf_put(b, "L'", 2) < 0 || buf_escw(b, (uint32_t)(v & op->mask)) < 0) return -1;
        return buf_put(b, "'", 1);
    case OP_BOOL:
        return (v & op->mask) ? buf_put(b, "true", 4) : buf_put(b, "false", 5);
    case OP_ENUM: {
        uint64_t u = v & op->mask;
        for (Py_ssize_t i = 0; i < op->nnames; i++)
            if (op->names[i].value == u) return buf_put(b, op->names[i].name, op->names[i].len);
        Op plain = *op;
        plain.kind = op->fallback;
        return render_op(b, &plain, w, rec, v, rax, out);
    }
    case OP_UNSIGNED:
        return buf_udec(b, v & op->mask);
    case OP_SIGNED: {
        if (op->size >= 8) return buf_sdec(b, (int64_t)v);
        uint64_t u = v & ((UINT64_C(1) << (op->size * 8)) - 1);
        uint64_t top = UINT64_C(1) << (op->size * 8 - 1);
        if (u & top) return buf_sdec(b, -(int64_t)((UINT64_C(1) << (op->size * 8)) - u));
        return buf_udec(b, u);
    }
    case OP_HEX:
        v &= op->mask;
        return v ? buf_hex(b, v) : buf_put(b, "0", 1);
    case OP_GUESS: {
        int64_t i = (int64_t)v;
        if (i < -10000 || i > 10000) return buf_hex(b, v);
        return buf_sdec(b, i);
    }
    case OP_ADDR:
        return v ? buf_hex(b, v) : buf_put(b, "0", 1);
    case OP_CSTR: {                 /* values.py string_from */
        if (!v) return buf_put(b, "nil", 3);
        const unsigned char *a = rec + op->area;
        Py_ssize_t cap = op->limit + 1, limit = op->limit;
        const unsigned char *nul = memchr(a, 0, (size_t)cap);
        Py_ssize_t n = nul ? nul - a : -1;
        if (buf_put(b, "\"", 1) < 0) return -1;
        if (n < 0 || n >= limit) {
            if (buf_escape(b, a, limit) < 0) return -1;
            return buf_put(b, "\"...", 4);
        }
        if (buf_escape(b, a, n) < 0) return -1;
        return buf_put(b, "\"", 1);
    }
    case OP_BUF: {                  /* values.py bounded_from, every byte copied */
        if (!v) return buf_put(b, "nil", 3);
        uint64_t n = w[op->lenword - 1];
        uint64_t limit = (uint64_t)op->limit;
        Py_ssize_t shown = (Py_ssize_t)(n < limit ? n : limit);
        if (buf_put(b, "\"", 1) < 0 || buf_escape(b, rec + op->area, shown) < 0) return -1;
        return n >= limit ? buf_put(b, "\"...", 4) : buf_put(b, "\"", 1);
    }
    case OP_WSTR:                   /* values.py wstring_from */
        return render_wstr(b, rec + op->area, op->limit, v);
    case OP_STRN:                   /* renderops.py string_n_from, every byte copied */
        return render_strn(b, op, v, w[op->lenword - 1], rec + op->area);
    case OP_RETSTR:
    case OP_RETWSTR:
        return render_retstr(b, op, v, rax, out);
    case OP_INTSTRUCT: {            /* renderops.py int_struct */
        if (out == NULL) break;
        unsigned char bytes[16];
        for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)(v >> (8 * i));
        memcpy(bytes + 8, out, 8);
        if (buf_put(b, "{ ", 2) < 0) return -1;
        for (int f = 0; f < op->nfields; f++) {
            uint64_t u = 0;
            int size = op->fields[f].size;
            for (int i = size - 1; i >= 0; i--) u = (u << 8) | bytes[op->fields[f].off + i];
            if (f && buf_put(b, ", ", 2) < 0) return -1;
            if (op->fields[f].is_signed && size < 8 && (u >> (8 * size - 1)) & 1)
                u |= ~UINT64_C(0) << (8 * size);              /* sign-extended */
            if ((op->fields[f].is_signed ? buf_sdec(b, (int64_t)u) : buf_udec(b, u)) < 0) return -1;
        }
        return buf_put(b, " }", 2);
    }
    case OP_BITVEC:                 /* renderops.py bitvec_at, every byte copied */
        if (!v) return buf_put(b, "nil", 3);
        return render_bitvec(b, op->area ? rec + op->area : out, op->size);
    }
    PyErr_SetString(PyExc_SystemError, "emutrace.machine._native: unknown operation");
    return -1;
}

/* A returned C string from the bytes the return copied (values.py `string` reading guestlog's
 * _Captured: the text up to the NUL, or the first ret_cap bytes when there is none). */
static int render_ret_string(Buf *b, Py_ssize_t limit, Py_ssize_t ret_cap, const unsigned char *area, uint64_t rax)
{
    if (!rax) return buf_put(b, "nil", 3);
    Py_ssize_t cap = limit + 1;
    const unsigned char *nul = memchr(area, 0, (size_t)ret_cap);
    Py_ssize_t n = nul ? nul - area : (ret_cap < cap ? ret_cap : cap);
    if (buf_put(b, "\"", 1) < 0) return -1;
    if (n >= limit) {
        if (buf_escape(b, area, limit) < 0) return -1;
        return buf_put(b, "\"...", 4);
    }
    if (buf_escape(b, area, n) < 0) return -1;
    return buf_put(b, "\"", 1);
}

/* Where the string shown at the return lies after the return record: past the output copy,
 * 8-byte aligned as the return trampoline writes it. */
static Py_ssize_t in_offset(const SiteObject *s, uint64_t rax)
{
    return s->out >= 0 ? (Py_ssize_t)((out_bytes(&s->args[s->out], rax) + 7) & ~(uint64_t)7) : 0;
}

/* The bytes the return copies after the output copy: the string shown at the return, its
 * area_size (guestlog.area_size), or none. */
static Py_ssize_t in_area(const SiteObject *s)
{
    return s->out_captured & (IN_CSTR | IN_WSTR) ? (s->ret_cap + 14) & ~(Py_ssize_t)7 : 0;
}

/* The line of the leaf call whose record starts at rec, its return value rax (and the returned
 * string's bytes at ret_area, for a site that returns one; or the output argument's, for a site
 * with an `out` op, followed by the string shown at the return's for a site with an `in` op). */
/* The leaf line of site s, appended to b; *ascii is cleared when it is not ASCII */
static int render_line(Buf *b, SiteObject *s, const unsigned char *rec, uint64_t rax, const unsigned char *ret_area,
                       const char *suffix, Py_ssize_t suffix_len, int suffix_ascii, int *ascii)
{
    uint64_t w[MAX_ARGS];
    for (int i = 0; i < MAX_ARGS; i++) w[i] = rd64(rec + 8 + 8 * i);
    Py_ssize_t start = b->len;
    if (buf_put(b, s->prefix, s->prefix_len) < 0) return -1;
    for (int i = 0; i < s->nargs; i++) {
        const Op *op = &s->args[i];
        uint64_t v = w[op->word - 1];
        if (i && buf_put(b, ", ", 2) < 0) return -1;
        if (i == s->in) {
            /* the C string copied at the return, after the output copy: as guestlog's _Captured
             * reads it, as a returned one */
            const unsigned char *in = ret_area + in_offset(s, rax);
            if (render_ret_string(b, op->limit, s->ret_cap, in, v) < 0) return -1;
        } else if (render_op(b, op, w, rec, v, rax, ret_area) < 0) {
            return -1;
        }
    }
    Py_ssize_t chars = s->prefix_chars + (b->len - start - s->prefix_len);   /* arguments are ASCII */
    Py_ssize_t pad = s->align_pad - chars;
    if (buf_put(b, ") ", 2) < 0) return -1;
    if (pad > 0) {
        if (buf_reserve(b, pad) < 0) return -1;
        memset(b->p + b->len, ' ', (size_t)pad);
        b->len += pad;
    }
    if (buf_put(b, "= ", 2) < 0) return -1;
    if (s->has_ret && s->ret.kind == OP_CSTR) {
        if (render_ret_string(b, s->ret.limit, s->ret_cap, ret_area, rax) < 0) return -1;
    } else if (s->has_ret && s->ret.kind == OP_WSTR) {
        if (render_wstr(b, ret_area, s->ret.limit, rax) < 0) return -1;    /* (ret_cap >= 4 * (limit + 1)) */
    } else if (s->has_ret) {
        if (render_op(b, &s->ret, w, rec, rax, rax, ret_area) < 0) return -1;
    } else if (buf_str(b, "<void>") < 0) {
        return -1;
    }
    if (buf_put(b, suffix, suffix_len) < 0) return -1;
    if (!(s->ascii && suffix_ascii)) *ascii = 0;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Site */

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
    if (is_ret && (kind == OP_RETSTR || kind == OP_RETWSTR || kind == OP_BITVEC)) goto bad;
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
    if (kind == OP_ENUM) {
        if (fallback != OP_SIGNED && fallback != OP_UNSIGNED && fallback != OP_CHAR) goto bad;
        if (names == NULL || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) > 4096) goto bad;
        op->fallback = (int)fallback;
        Py_ssize_t n = PyTuple_GET_SIZE(names);
        op->names = PyMem_Calloc((size_t)(n ? n : 1), sizeof(EnumName));
        if (op->names == NULL) { PyErr_NoMemory(); return -1; }
        op->nnames = n;
        for (Py_ssize_t i = 0; i < n; i++) {
            unsigned long long value;
            PyObject *name;
            Py_ssize_t len;
            if (!PyArg_ParseTuple(PyTuple_GET_ITEM(names, i), "KU", &value, &name)) return -1;
            const char *u8 = PyUnicode_AsUTF8AndSize(name, &len);
            if (u8 == NULL) return -1;
            if (!PyUnicode_IS_ASCII(name)) goto bad;        /* (the padding counts ASCII bytes) */
            op->names[i].name = PyMem_Malloc((size_t)len + 1);
            if (op->names[i].name == NULL) { PyErr_NoMemory(); return -1; }
            memcpy(op->names[i].name, u8, (size_t)len + 1);
            op->names[i].len = len;
            op->names[i].value = value & mask;
        }
    }
    if (kind == OP_RETSTR || kind == OP_RETWSTR) {
        /* read from the return's output copy, which leaf_run checks is out_bytes long */
        if (limit < 1 || limit > (1 << 26) || area != 0 || mask == 0) goto bad;
    } else if (kind == OP_BITVEC) {
        if (op->size < 1 || op->size > 4096 || area < 0 || (area && (area < HEAD || area > size - op->size)))
            goto bad;
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
    free_ops(self);                 /* (__init__ called again) */
    self->nargs = 0;
    self->has_ret = 0;
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(prefix, &n);
    if (p == NULL) return -1;
    char *copy = PyMem_Malloc((size_t)n + 1);
    if (copy == NULL) { PyErr_NoMemory(); return -1; }
    memcpy(copy, p, (size_t)n + 1);
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
        if (op->kind == OP_RETSTR || op->kind == OP_RETWSTR || (op->kind == OP_BITVEC && op->area == 0)) {
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
    Buf b;
    buf_init(&b);
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
            if (PRINTF_RECORD + RET_SIZE > n - off - 8) break;
            const unsigned char *rec = d + off, *r = rec + PRINTF_RECORD;
            uint64_t slot = rd64(rec + 56), ret = rd64(rec + 64);
            if (rd64(r) != RET_TAG || rd64(r + 8) != slot || rd64(r + 16) != ret || rd64(r + 32) != 0 ||
                rd64(r + 40) != 0 || (!no_top && top <= slot))
                break;
            PyObject *line = emutrace_printf_leaf_line(so, rd64(rec + HEAD), rd64(r + 24), suffix);
            if (line == NULL) goto done;
            Py_ssize_t ln;
            const char *u = PyUnicode_AsUTF8AndSize(line, &ln);
            if (u != NULL && !PyUnicode_IS_ASCII(line)) ascii = 0;
            int err = u == NULL ? -1 : buf_put(&b, u, ln);
            Py_DECREF(line);
            if (err < 0) goto done;
            count++;
            off += PRINTF_RECORD + RET_SIZE;
            continue;
        }
        SiteObject *s = (SiteObject *)so;
        int ret_string = s->has_ret && (s->ret.kind == OP_CSTR || s->ret.kind == OP_WSTR);
        /* the return record's "captured" word: guestlog's RET_CSTR (1) or RET_WSTR (2) */
        uint64_t captured = !ret_string ? 0 : s->ret.kind == OP_WSTR ? 2 : 1;
        if (s->pair_end > n - off - 8) break;
        const unsigned char *rec = d + off, *r = rec + s->size;
        uint64_t slot = rd64(rec + 56), ret = rd64(rec + 64);
        /* (a returned structure's rdx: 8 bytes) */
        int pair = s->has_ret && s->ret.kind == OP_INTSTRUCT;
        if (s->out >= 0 || pair) captured = s->out_captured;
        /* a leaf: its own return record next; nothing copied at the return but a returned
         * string, which is there exactly when the site returns one, or the output argument,
         * exactly as many bytes as the site's copy makes */
        uint64_t rax = rd64(r + 24), outn = rd64(r + 40);
        if (rd64(r) != RET_TAG || rd64(r + 8) != slot || rd64(r + 16) != ret || rd64(r + 32) != captured ||
            outn != (s->out >= 0 ? out_bytes(&s->args[s->out], rax) : pair ? 8 : 0))
            break;
        if (!no_top && top <= slot) break;
        Py_ssize_t end = ret_string ? s->pair_end_cap : s->pair_end;
        if (end > n - off - 8 || outn > (uint64_t)(n - off - 8 - end)) break;
        end += (Py_ssize_t)((outn + 7) & ~(uint64_t)7);     /* (the copy's area, as guestlog's decode) */
        if (end > n - off - 8) break;
        end += in_area(s);                                  /* (and the string copied after it) */
        if (end > n - off - 8) break;
        if (render_line(&b, s, rec, rax, r + RET_SIZE, sfx, sn, sa, &ascii) < 0) goto done;
        count++;
        off += end;
    }
    if (count) {
        /* the run's lines as one str: one object per run instead of one per line */
        PyObject *text = buf_text(&b, ascii);
        if (text == NULL) goto done;
        int err = PyList_Append(lines, text);
        Py_DECREF(text);
        if (err < 0) goto done;
    }
    result = Py_BuildValue("(nn)", off, count);
done:
    buf_free(&b);
    PyBuffer_Release(&data);
    return result;
}

/* ------------------------------------------------------------------------------------------
 * SyscallHook(uc_hook_add, uc_reg_read_batch, uc_reg_write, uc_emu_stop, engine, hook_type, insn,
 *             reg_ids, fn, on_error)
 *
 * The `syscall` instruction's hook, registered with uc_hook_add as a C function: it reads the
 * system call's registers in one uc_reg_read_batch, calls fn(*registers) and writes what fn returns
 * into rax (reg_ids[0]) with uc_reg_write; fn returns None when rax must stay as it is (the thread
 * blocked, or execve/rt_sigreturn set the registers themselves). No ctypes callback, no ctypes
 * register read or write and no Python wrapper frame per system call. The Unicorn functions are
 * the ones the binding loaded (their addresses come from Python): no Unicorn headers, no second
 * copy of Unicorn. uc_hook_add is variadic (the instruction's id follows `end`): it is called
 * through a variadic prototype, which every ABI (Apple arm64's included) passes correctly.
 * When fn raises, on_error(exception) keeps it for emu_start to raise and emulation stops (as the
 * Machine's Python hooks do); an exception from on_error itself is reported as unraisable.
 * A call whose answer the owner remembered here (answer_with, remember: see below) is answered
 * without fn. */

typedef int (*uc_hook_add_fn)(void *uc, size_t *hh, int type, void *callback, void *user_data,
                              uint64_t begin, uint64_t end, ...);
typedef int (*uc_reg_read_batch_fn)(void *uc, int *regs, void **vals, int count);
typedef int (*uc_reg_write_fn)(void *uc, int regid, const void *value);
typedef int (*uc_emu_stop_fn)(void *uc);

#define SC_REGS 7
#define ANSWER_NRS 512          /* the numbers an answer may be remembered for: 0..511 */

/* Remembered answers. The owner of the hook (the kernel) names the numbers whose answer depends
 * on nothing a system call of another number cannot change (allow), and after it answered one of
 * them in Python it may hand the hook that very answer (remember). The hook then answers that
 * number itself, with the same value and the same tick of the owner's clock (clock: the object
 * and the names of its counter and its step), until a call of a number not allowed reaches fn or
 * the owner says forget. So the C side never computes an answer: it repeats the Python one. */
typedef struct {
    PyObject_HEAD
    PyObject *fn;
    PyObject *on_error;
    uc_reg_read_batch_fn read_batch;
    uc_reg_write_fn reg_write;
    uc_emu_stop_fn emu_stop;
    int ids[SC_REGS];
    size_t handle;
    int hooked;
    unsigned char allowed[ANSWER_NRS];
    unsigned char known[ANSWER_NRS];
    uint64_t answer[ANSWER_NRS];
    int nknown;                 /* how many numbers are known (0: the fast test fails at once) */
    unsigned long long answered;        /* calls answered here, for tests and --version-like checks */
    PyObject *clock, *counter, *step;   /* clock.counter += clock.step at each answer */
    /* the Python int last passed for each register, and its value: a register that holds the
     * same value at the next call (a read loop's buffer, the words a call does not use) passes
     * the same object again (ints are immutable) instead of a new one made and freed */
    PyObject *last[SC_REGS];
    uint64_t last_val[SC_REGS];
} SyscallHookObject;

static void forget_all(SyscallHookObject *h)
{
    if (h->nknown) {
        memset(h->known, 0, sizeof h->known);
        h->nknown = 0;
    }
}

/* clock.counter += clock.step: what Kernel.on_syscall does first at every call */
static int tick_clock(SyscallHookObject *h)
{
    PyObject *now = PyObject_GetAttr(h->clock, h->counter);
    if (now == NULL) return -1;
    PyObject *step = PyObject_GetAttr(h->clock, h->step);
    if (step == NULL) { Py_DECREF(now); return -1; }
    PyObject *later = PyNumber_Add(now, step);
    Py_DECREF(now);
    Py_DECREF(step);
    if (later == NULL) return -1;
    int err = PyObject_SetAttr(h->clock, h->counter, later);
    Py_DECREF(later);
    return err;
}

/* fn raised (or the registers could not be read or written): on_error gets the exception. */
static void syscall_failed(SyscallHookObject *h, void *uc)
{
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);                  /* (PyErr_GetRaisedException is 3.12's) */
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc != NULL && tb != NULL) PyException_SetTraceback(exc, tb);
    PyObject *r = exc != NULL ? PyObject_CallOneArg(h->on_error, exc) : NULL;
    if (r == NULL) PyErr_WriteUnraisable(h->on_error);
    Py_XDECREF(r);
    Py_XDECREF(type);
    Py_XDECREF(exc);
    Py_XDECREF(tb);
    h->emu_stop(uc);
}

static void on_syscall(void *uc, void *user)
{
    SyscallHookObject *h = user;
    PyGILState_STATE g = PyGILState_Ensure();
    if (h->fn == NULL || h->on_error == NULL) {         /* cleared by the collector: stop */
        h->emu_stop(uc);
        PyGILState_Release(g);
        return;
    }
    uint64_t vals[SC_REGS] = {0};
    void *ptrs[SC_REGS];
    for (int i = 0; i < SC_REGS; i++) ptrs[i] = &vals[i];
    PyObject *r = NULL;
    if (h->read_batch(uc, h->ids, ptrs, SC_REGS) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native: uc_reg_read_batch failed");
        goto fail;
    }
    uint64_t nr = vals[0];
    if (h->nknown && nr < ANSWER_NRS && h->known[nr]) {        /* a remembered answer */
        if (tick_clock(h) < 0) goto fail;
        if (h->reg_write(uc, h->ids[0], &h->answer[nr]) != 0) {
            PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native: uc_reg_write failed");
            goto fail;
        }
        h->answered++;
        PyGILState_Release(g);
        return;
    }
    if (nr >= ANSWER_NRS || !h->allowed[nr]) forget_all(h);     /* this call may change them */
    /* argv[0] is room for fn's self (fn is a bound method: Kernel.on_syscall), which
     * PY_VECTORCALL_ARGUMENTS_OFFSET lets the call put there instead of copying the arguments
     * into a new array (one malloc and free per call for eight of them) */
    PyObject *argv[SC_REGS + 1] = {NULL};
    for (int i = 0; i < SC_REGS; i++) {
        if (h->last[i] == NULL || h->last_val[i] != vals[i]) {
            PyObject *v = PyLong_FromUnsignedLongLong(vals[i]);
            if (v == NULL) break;
            Py_XSETREF(h->last[i], v);
            h->last_val[i] = vals[i];
        }
        Py_INCREF(h->last[i]);
        argv[i + 1] = h->last[i];
    }
    /* fn(rax, rdi, ...) by vectorcall: no tuple made (nor one unpacked in fn) per call */
    if (argv[SC_REGS] != NULL)
        r = PyObject_Vectorcall(h->fn, argv + 1, SC_REGS | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    for (int i = 1; i <= SC_REGS; i++) Py_XDECREF(argv[i]);
    if (r == NULL) goto fail;
    if (r != Py_None) {
        /* the result, as the guest's rax: negative errnos and large addresses alike, mod 2^64 */
        uint64_t rax = PyLong_AsUnsignedLongLongMask(r);
        if (rax == (uint64_t)-1 && PyErr_Occurred()) goto fail;
        if (h->reg_write(uc, h->ids[0], &rax) != 0) {
            PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native: uc_reg_write failed");
            goto fail;
        }
    }
    Py_DECREF(r);
    PyGILState_Release(g);
    return;
fail:
    Py_XDECREF(r);
    syscall_failed(h, uc);
    PyGILState_Release(g);
}

static int SyscallHook_init(SyscallHookObject *self, PyObject *args, PyObject *kwds)
{
    unsigned long long hook_add, read_batch, reg_write, emu_stop, engine;
    int hook_type, insn;
    PyObject *ids, *fn, *on_error;
    if (self->hooked) {
        PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native.SyscallHook: already registered");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "KKKKKiiOOO", &hook_add, &read_batch, &reg_write, &emu_stop, &engine,
                          &hook_type, &insn, &ids, &fn, &on_error))
        return -1;
    if (!hook_add || !read_batch || !reg_write || !emu_stop || !engine || !PyCallable_Check(fn)
        || !PyCallable_Check(on_error)) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.SyscallHook: a null function or engine");
        return -1;
    }
    PyObject *seq = PySequence_Fast(ids, "reg_ids must be a sequence");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != SC_REGS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.SyscallHook: seven register ids");
        return -1;
    }
    for (int i = 0; i < SC_REGS; i++) {
        long id = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (id == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        self->ids[i] = (int)id;
    }
    Py_DECREF(seq);
    Py_INCREF(fn);
    Py_XSETREF(self->fn, fn);
    Py_INCREF(on_error);
    Py_XSETREF(self->on_error, on_error);
    self->read_batch = (uc_reg_read_batch_fn)(uintptr_t)read_batch;
    self->reg_write = (uc_reg_write_fn)(uintptr_t)reg_write;
    self->emu_stop = (uc_emu_stop_fn)(uintptr_t)emu_stop;
    uc_hook_add_fn add = (uc_hook_add_fn)(uintptr_t)hook_add;
    int err = add((void *)(uintptr_t)engine, &self->handle, hook_type, (void *)on_syscall, self,
                  (uint64_t)1, (uint64_t)0, insn);
    if (err != 0) {
        PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
        return -1;
    }
    self->hooked = 1;
    return 0;
}

/* The engine keeps a pointer to this object: the Machine holds it as long as the engine lives.
 * fn and on_error usually lead back to the Machine (on_error holds its engine, whose binding holds
 * the Machine's own hooks), so the collector must see through this object: a cycle it cannot
 * traverse kept every engine that ever had this hook, with its guest memory, until the end. */
static int SyscallHook_traverse(SyscallHookObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fn);
    Py_VISIT(self->on_error);
    Py_VISIT(self->clock);
    Py_VISIT(self->counter);
    Py_VISIT(self->step);
    return 0;
}

static int SyscallHook_clear(SyscallHookObject *self)
{
    Py_CLEAR(self->fn);
    Py_CLEAR(self->on_error);
    Py_CLEAR(self->clock);
    Py_CLEAR(self->counter);
    Py_CLEAR(self->step);
    for (int i = 0; i < SC_REGS; i++) Py_CLEAR(self->last[i]);
    forget_all(self);
    return 0;
}

static void SyscallHook_dealloc(SyscallHookObject *self)
{
    PyObject_GC_UnTrack(self);
    SyscallHook_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* answer_with(clock, counter, step, numbers): the clock a remembered answer ticks, and the numbers
 * whose answers may be remembered (every other number forgets them all) */
static PyObject *SyscallHook_answer_with(SyscallHookObject *self, PyObject *args)
{
    PyObject *clock, *counter, *step, *numbers;
    if (!PyArg_ParseTuple(args, "OUUO", &clock, &counter, &step, &numbers)) return NULL;
    PyObject *it = PyObject_GetIter(numbers);
    if (it == NULL) return NULL;
    unsigned char allowed[ANSWER_NRS] = {0};
    PyObject *item;
    while ((item = PyIter_Next(it)) != NULL) {
        long nr = PyLong_AsLong(item);
        Py_DECREF(item);
        if (nr == -1 && PyErr_Occurred()) break;
        if (nr < 0 || nr >= ANSWER_NRS) {
            PyErr_Format(PyExc_ValueError, "answer_with: %ld is not a number below %d", nr, ANSWER_NRS);
            break;
        }
        allowed[nr] = 1;
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return NULL;
    forget_all(self);
    memcpy(self->allowed, allowed, sizeof allowed);
    Py_INCREF(clock);
    Py_XSETREF(self->clock, clock);
    Py_INCREF(counter);
    Py_XSETREF(self->counter, counter);
    Py_INCREF(step);
    Py_XSETREF(self->step, step);
    Py_RETURN_NONE;
}

/* remember(nr, value): the answer Python just gave to nr, given again here until forgotten */
static PyObject *SyscallHook_remember(SyscallHookObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "remember(nr, value)");
        return NULL;
    }
    Py_ssize_t nr = PyLong_AsSsize_t(args[0]);
    if (nr == -1 && PyErr_Occurred()) return NULL;
    uint64_t value = PyLong_AsUnsignedLongLongMask(args[1]);
    if (value == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    if (nr < 0 || nr >= ANSWER_NRS || !self->allowed[nr] || self->clock == NULL) {
        PyErr_Format(PyExc_ValueError, "remember: %zd is not a number answer_with allowed", nr);
        return NULL;
    }
    if (!self->known[nr]) {
        self->known[nr] = 1;
        self->nknown++;
    }
    self->answer[nr] = value;
    Py_RETURN_NONE;
}

static PyObject *SyscallHook_forget(SyscallHookObject *self, PyObject *unused)
{
    forget_all(self);
    Py_RETURN_NONE;
}

static PyMethodDef SyscallHook_methods[] = {
    {"answer_with", (PyCFunction)SyscallHook_answer_with, METH_VARARGS,
     "answer_with(clock, counter, step, numbers): the numbers whose answers may be remembered"},
    {"remember", (PyCFunction)(void (*)(void))SyscallHook_remember, METH_FASTCALL,
     "remember(nr, value): answer nr with value here until forgotten"},
    {"forget", (PyCFunction)SyscallHook_forget, METH_NOARGS, "forget every remembered answer"},
    {NULL, NULL, 0, NULL}
};

static PyObject *SyscallHook_answered(SyscallHookObject *self, void *closure)
{
    return PyLong_FromUnsignedLongLong(self->answered);
}

static PyObject *SyscallHook_known(SyscallHookObject *self, void *closure)
{
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
    for (int nr = 0; nr < ANSWER_NRS; nr++) {
        if (!self->known[nr]) continue;
        PyObject *k = PyLong_FromLong(nr), *v = PyLong_FromUnsignedLongLong(self->answer[nr]);
        if (k == NULL || v == NULL || PyDict_SetItem(out, k, v) < 0) {
            Py_XDECREF(k);
            Py_XDECREF(v);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(k);
        Py_DECREF(v);
    }
    return out;
}

static PyObject *SyscallHook_handle(SyscallHookObject *self, void *closure)
{
    return PyLong_FromSize_t(self->handle);
}

static PyGetSetDef SyscallHook_getset[] = {
    {"handle", (getter)SyscallHook_handle, NULL, "the hook's Unicorn handle", NULL},
    {"answered", (getter)SyscallHook_answered, NULL, "calls answered from remembered answers", NULL},
    {"known", (getter)SyscallHook_known, NULL, "the remembered answers: {nr: value}", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject SyscallHookType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.SyscallHook",
    .tp_basicsize = sizeof(SyscallHookObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "SyscallHook(uc_hook_add, uc_reg_read_batch, uc_reg_write, uc_emu_stop, engine, hook_type, insn, reg_ids, fn, on_error)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)SyscallHook_init,
    .tp_dealloc = (destructor)SyscallHook_dealloc,
    .tp_traverse = (traverseproc)SyscallHook_traverse,
    .tp_clear = (inquiry)SyscallHook_clear,
    .tp_getset = SyscallHook_getset,
    .tp_methods = SyscallHook_methods,
};

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
    for (k = 0; k + 4 <= data.len; k += 4)
        if (buf_escw(&b, rd32(p + k)) < 0) break;
    if (k + 4 > data.len) out = PyUnicode_DecodeASCII(b.p, b.len, "strict");
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

int emutrace_register_tlbfill(PyObject *m);        /* _tlbfill.c: the TLB fill hook */
int emutrace_register_guestmem(PyObject *m);       /* _guestmem.c: raw guest memory access */
int emutrace_register_printfcap(PyObject *m);      /* _printfcap.c: printf-family calls' hooks */
int emutrace_register_strace(PyObject *m);         /* _strace.c: strace rows rendered in C */

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&SiteType) < 0 || PyType_Ready(&SyscallHookType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&SiteType);
    if (PyModule_AddObject(m, "Site", (PyObject *)&SiteType) < 0) { Py_DECREF(&SiteType); Py_DECREF(m); return NULL; }
    Py_INCREF(&SyscallHookType);
    if (PyModule_AddObject(m, "SyscallHook", (PyObject *)&SyscallHookType) < 0) {
        Py_DECREF(&SyscallHookType);
        Py_DECREF(m);
        return NULL;
    }
    if (emutrace_register_tlbfill(m) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_register_guestmem(m) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_register_printfcap(m) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_register_strace(m) < 0) { Py_DECREF(m); return NULL; }
    struct { const char *name; long value; } consts[] = {
        {"ABI_VERSION", ABI_VERSION}, {"OP_UNSIGNED", OP_UNSIGNED}, {"OP_SIGNED", OP_SIGNED},
        {"OP_HEX", OP_HEX}, {"OP_GUESS", OP_GUESS}, {"OP_ADDR", OP_ADDR}, {"OP_CSTR", OP_CSTR},
        {"OP_BUF", OP_BUF}, {"OP_WSTR", OP_WSTR}, {"OP_CHAR", OP_CHAR}, {"OP_BOOL", OP_BOOL},
        {"OP_ENUM", OP_ENUM}, {"OP_WCHAR", OP_WCHAR}, {"OP_RETSTR", OP_RETSTR}, {"OP_RETWSTR", OP_RETWSTR},
        {"OP_BITVEC", OP_BITVEC}, {"OP_INTSTRUCT", OP_INTSTRUCT}, {"OP_STRN", OP_STRN},
    };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++) {
        if (PyModule_AddIntConstant(m, consts[i].name, consts[i].value) < 0) { Py_DECREF(m); return NULL; }
    }
    if (emutrace_cover_init(m) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
