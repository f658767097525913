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
#include "_poscount.h"         /* PosCounter (the gdb server's positions), in _poscount.c */

/* The record layout, the op kinds and the struct tokens shared with Python, and ABI_VERSION:
 * generated from emutrace/machine/abi.py (see there). */
#include "_abi.h"

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

/* ------------------------------------------------------------------------------------------
 * output buffer
 *
 * A growing byte buffer. A renderer asks it once for room for the most bytes its piece can take
 * (buf_room: a number's digits, a string's escapes at 4 bytes a byte), writes through the cursor
 * it gets with no check per byte (the put_* writers below), and hands the cursor back
 * (buf_done). Every put_* writer documents the most bytes it writes. */

typedef struct {
    char *p;
    Py_ssize_t len, cap;
    char local[1024];
} Buf;

static void buf_init(Buf *b) { b->p = b->local; b->len = 0; b->cap = (Py_ssize_t)sizeof b->local; }

static void buf_free(Buf *b) { if (b->p != b->local) PyMem_Free(b->p); }

/* buf_room's slow half: a block of at least len + more bytes (doubling; a block already on the
 * heap is realloc'd, so a long run's growth mostly extends in place instead of copying) */
static int buf_grow(Buf *b, Py_ssize_t more)
{
    if (more < 0 || b->len > PY_SSIZE_T_MAX - more) { PyErr_NoMemory(); return -1; }
    Py_ssize_t cap = b->cap;
    while (cap < b->len + more) {
        if (cap > PY_SSIZE_T_MAX / 2) { PyErr_NoMemory(); return -1; }
        cap *= 2;
    }
    char *p;
    if (b->p == b->local) {
        p = PyMem_Malloc((size_t)cap);
        if (p != NULL) memcpy(p, b->p, (size_t)b->len);
    } else {
        p = PyMem_Realloc(b->p, (size_t)cap);
    }
    if (p == NULL) { PyErr_NoMemory(); return -1; }
    b->p = p;
    b->cap = cap;
    return 0;
}

/* Room for `more` bytes at the buffer's end: where to write them, or NULL (MemoryError set). */
static inline char *buf_room(Buf *b, Py_ssize_t more)
{
    if ((size_t)more > (size_t)(b->cap - b->len) && buf_grow(b, more) < 0) return NULL;
    return b->p + b->len;
}

/* The bytes written through buf_room's cursor, up to o, are the buffer's. */
static inline void buf_done(Buf *b, char *o) { b->len = o - b->p; }

static inline int buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    char *o = buf_room(b, n);
    if (o == NULL) return -1;
    memcpy(o, s, (size_t)n);
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

/* ------------------------------------------------------------------------------------------
 * writers at a cursor: each returns the end of what it wrote, at most its _MAX bytes */

#define UDEC_MAX 20             /* 18446744073709551615 */
#define SDEC_MAX 20             /* -9223372036854775808 */
#define HEX_MAX 18              /* 0xffffffffffffffff */
#define ESC_MAX 4               /* one byte's escape: \ooo */
#define ESCW_MAX 10             /* one wide character's: \Uxxxxxxxx */

static const char HEXDIGITS[] = "0123456789abcdef";
/* "00".."99": two decimal digits per division */
static const char DIGIT_PAIRS[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* str(v) */
static char *put_udec(char *o, uint64_t v)
{
    int n = 1;                  /* v's digits: count them, then write them from the last */
    for (uint64_t p = 10; n < 20 && v >= p; p *= 10) n++;
    char *end = o + n, *q = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, DIGIT_PAIRS + 2 * r, 2);
    }
    if (v >= 10) memcpy(q - 2, DIGIT_PAIRS + 2 * v, 2);
    else q[-1] = (char)('0' + v);
    return end;
}

static char *put_sdec(char *o, int64_t v)
{
    if (v >= 0) return put_udec(o, (uint64_t)v);
    *o++ = '-';
    return put_udec(o, (uint64_t)0 - (uint64_t)v);
}

/* "00".."ff": a byte's two hex digits (filled by PyInit__native) */
static char HEX_PAIRS[512];

static void init_hex_pairs(void)
{
    for (int i = 0; i < 256; i++) {
        HEX_PAIRS[2 * i] = HEXDIGITS[i >> 4];
        HEX_PAIRS[2 * i + 1] = HEXDIGITS[i & 15];
    }
}

/* v's hex digits (1 for 0), by halving */
static int hex_digits(uint64_t v)
{
    int n = 1;
    if (v >> 32) { n += 8; v >>= 32; }
    if (v >> 16) { n += 4; v >>= 16; }
    if (v >> 8) { n += 2; v >>= 8; }
    if (v >> 4) n += 1;
    return n;
}

/* "0x%x": written from the last digit, a byte at a time */
static char *put_hex(char *o, uint64_t v)
{
    o[0] = '0';
    o[1] = 'x';
    char *end = o + 2 + hex_digits(v), *q = end;
    for (; v >= 16; v >>= 8) {
        q -= 2;
        memcpy(q, HEX_PAIRS + 2 * (v & 255), 2);
    }
    if (q > o + 2) q[-1] = HEXDIGITS[v];        /* (an odd count: the first digit alone) */
    return end;
}

/* a fixed number of hex digits (\u%04x, \U%08x) */
static char *put_hexn(char *o, uint32_t v, int digits)
{
    for (int i = digits - 1; i >= 0; i--) { o[i] = HEXDIGITS[v & 15]; v >>= 4; }
    return o + digits;
}

/* a byte shown as itself: printable ASCII but the backslash */
static inline int plain_byte(unsigned c) { return c - 32u < 95u && c != 92u; }

/* ltrace's escaping of one byte (values.py _esc_char) */
static char *put_esc(char *o, unsigned c)
{
    static const char named[14] = {'0', 0, 0, 0, 0, 0, 0, 'a', 'b', 't', 'n', 'v', 'f', 'r'};
    if (plain_byte(c)) {
        *o = (char)c;
        return o + 1;
    }
    o[0] = '\\';
    if (c == 92 || (c < 14 && named[c])) {
        o[1] = c == 92 ? '\\' : named[c];
        return o + 2;
    }
    o[1] = (char)('0' + ((c >> 6) & 3));
    o[2] = (char)('0' + ((c >> 3) & 7));
    o[3] = (char)('0' + (c & 7));
    return o + 4;
}

/* 1 when none of the 8 bytes at s needs an escape (all plain_byte), without a test per byte:
 * the classic word-at-a-time tests for a byte below 32, above 126 and equal to 92, each exact
 * about whether some byte matches (a borrow or carry only comes from a byte that matches). */
static inline int plain_word(const unsigned char *s)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    uint64_t x;
    memcpy(&x, s, 8);
    uint64_t below = (x - 32 * ones) & ~x;                  /* a byte < 32 (of those < 128) */
    uint64_t above = (x + ones) | x;                        /* a byte > 126 */
    uint64_t bs = x ^ (92 * ones);
    uint64_t backslash = (bs - ones) & ~bs;                 /* a byte == 92 */
    return ((below | above | backslash) & highs) == 0;
}

/* n bytes escaped (values.py escape_bytes): at most ESC_MAX * n bytes. Runs of 8 plain bytes
 * are copied whole. */
static char *put_escape(char *o, const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; n - i >= 8; i += 8) {
        if (plain_word(s + i)) {
            memcpy(o, s + i, 8);
            o += 8;
        } else {
            for (int k = 0; k < 8; k++) o = put_esc(o, s[i + k]);
        }
    }
    for (; i < n; i++) o = put_esc(o, s[i]);
    return o;
}

/* values.py _esc_wchar: at most ESCW_MAX bytes */
static char *put_escw(char *o, uint32_t c)
{
    if (c < 256) return put_esc(o, c);
    o[0] = '\\';
    o[1] = c <= 0xFFFF ? 'u' : 'U';
    return put_hexn(o + 2, c, c <= 0xFFFF ? 4 : 8);
}

/* ------------------------------------------------------------------------------------------
 * the writers on the buffer: room, then the cursor writer */

static int buf_udec(Buf *b, uint64_t v)
{
    char *o = buf_room(b, UDEC_MAX);
    if (o == NULL) return -1;
    buf_done(b, put_udec(o, v));
    return 0;
}

static int buf_sdec(Buf *b, int64_t v)
{
    char *o = buf_room(b, SDEC_MAX);
    if (o == NULL) return -1;
    buf_done(b, put_sdec(o, v));
    return 0;
}

/* "0x%x" (OP_FLAGS' remainder, OP_STRUCT's hex fields) */
static int buf_hex(Buf *b, uint64_t v)
{
    char *o = buf_room(b, HEX_MAX);
    if (o == NULL) return -1;
    buf_done(b, put_hex(o, v));
    return 0;
}

/* v's octal digits ("%o"; a 64-bit value has at most 22) */
static int buf_oct(Buf *b, uint64_t v)
{
    char t[24];
    int i = (int)sizeof t;
    do { t[--i] = (char)('0' + (v & 7)); v >>= 3; } while (v);
    return buf_put(b, t + i, (Py_ssize_t)sizeof t - i);
}

static int buf_escape(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    char *o = buf_room(b, n <= PY_SSIZE_T_MAX / ESC_MAX ? ESC_MAX * n : -1);
    if (o == NULL) return -1;
    buf_done(b, put_escape(o, s, n));
    return 0;
}

/* `open` + a wide or single character's escape + `'` (open: "'" or "L'") */
static int buf_quoted_char(Buf *b, const char *open, Py_ssize_t open_len, uint32_t c)
{
    char *o = buf_room(b, open_len + ESCW_MAX + 1);
    if (o == NULL) return -1;
    memcpy(o, open, (size_t)open_len);
    o = put_escw(o + open_len, c);
    *o++ = '\'';
    buf_done(b, o);
    return 0;
}

/* A string's shown bytes between double quotes, "..." after them when it was cut (ellipsis). */
static int buf_quoted(Buf *b, const unsigned char *s, Py_ssize_t shown, int ellipsis)
{
    char *o = buf_room(b, shown <= (PY_SSIZE_T_MAX - 5) / ESC_MAX ? ESC_MAX * shown + 5 : -1);
    if (o == NULL) return -1;
    *o++ = '"';
    o = put_escape(o, s, shown);
    memcpy(o, "\"...", 4);
    buf_done(b, o + (ellipsis ? 4 : 1));
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * records: little-endian words (no alignment assumed; read byte by byte where the host's byte
 * order is not known to be little-endian) */

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint64_t rd64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint32_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
#else
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
#endif

/* Strings up to their zero character. Both show the first m characters or those before the
 * first zero among them, and end with "..." when there was none and m is the string limit: m
 * is how many the renderer may read (each caller's min(limit, what was copied)), which is the
 * Python renderers' min(length, limit) with "..." when length >= limit (a NUL or zero found in
 * the one character after them would change neither). The wide one escapes the characters as it
 * reads them, one pass, asking the buffer for room a chunk at a time. */
#define STRING_CHUNK 256

/* C string bytes at s between double quotes (memchr finds the NUL, faster than a test per byte
 * for the short strings most calls show) */
static int buf_cstring(Buf *b, const unsigned char *s, Py_ssize_t m, Py_ssize_t limit)
{
    const unsigned char *nul = memchr(s, 0, (size_t)m);
    return buf_quoted(b, s, nul ? nul - s : m, nul == NULL && m == limit);
}

/* wide characters (4 bytes each, little-endian) at a between L" and " */
static int buf_wstring(Buf *b, const unsigned char *a, Py_ssize_t m, Py_ssize_t limit)
{
    char *o = buf_room(b, 2);
    if (o == NULL) return -1;
    memcpy(o, "L\"", 2);
    buf_done(b, o + 2);
    Py_ssize_t k = 0;
    int cut = 1;                    /* no zero among the m characters */
    while (k < m && cut) {
        Py_ssize_t end = m - k > STRING_CHUNK ? k + STRING_CHUNK : m;
        o = buf_room(b, ESCW_MAX * (end - k) + 4);
        if (o == NULL) return -1;
        for (; k < end; k++) {
            uint32_t c = rd32(a + 4 * k);
            if (plain_byte(c)) *o++ = (char)c;                  /* (32..126 but 92: ASCII) */
            else if (c == 0) { cut = 0; break; }
            else o = put_escw(o, c);
        }
        buf_done(b, o);
    }
    o = buf_room(b, 4);
    if (o == NULL) return -1;
    memcpy(o, "\"...", 4);
    buf_done(b, o + (cut && m == limit ? 4 : 1));
    return 0;
}

/* A wide string from 4 * (limit + 1) copied bytes at a (values.py's wstring render): up to its
 * zero character, at most limit characters shown. */
static int render_wstr(Buf *b, const unsigned char *a, Py_ssize_t limit, uint64_t v)
{
    if (!v) return buf_put(b, "nil", 3);
    return buf_wstring(b, a, limit, limit);
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
    /* (k <= limit + 1 <= 2^26 + 1) */
    Py_ssize_t k = (Py_ssize_t)ret_chars(rax, op->mask, op->limit), limit = op->limit;
    /* (C strings: MemView.cstring(v, k), up to a NUL among k + 1 bytes, else the first k) */
    if (op->kind == OP_RETWSTR) return buf_wstring(b, out, k < limit ? k : limit, limit);
    return buf_cstring(b, out, k < limit ? k : limit, limit);
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
    return buf_cstring(b, a, (Py_ssize_t)(n < limit ? n : limit), (Py_ssize_t)limit);
}

/* The operations on a word alone, the most common ones: rendered by put_word, at most WORD_MAX
 * bytes, with no call to render_op's switch over every kind. */
#define WORD_MAX 20             /* UDEC_MAX, SDEC_MAX, HEX_MAX, "false" */

static inline int word_kind(int kind) { return kind <= OP_ADDR || kind == OP_BOOL; }

static char *put_word(char *o, const Op *op, uint64_t v)
{
    switch (op->kind) {
    case OP_UNSIGNED:
        return put_udec(o, v & op->mask);
    case OP_SIGNED: {               /* the low `size` bytes as a signed integer */
        if (op->size >= 8) return put_sdec(o, (int64_t)v);
        int bits = op->size * 8;
        uint64_t u = v & ((UINT64_C(1) << bits) - 1);
        if (u >> (bits - 1)) return put_sdec(o, -(int64_t)((UINT64_C(1) << bits) - u));
        return put_udec(o, u);
    }
    case OP_HEX:
        v &= op->mask;
        /* fall through */
    case OP_ADDR:
        if (v) return put_hex(o, v);
        *o = '0';
        return o + 1;
    case OP_GUESS: {
        int64_t i = (int64_t)v;
        return i < -10000 || i > 10000 ? put_hex(o, v) : put_sdec(o, i);
    }
    default:                        /* OP_BOOL */
        if (v & op->mask) {
            memcpy(o, "true", 4);
            return o + 4;
        }
        memcpy(o, "false", 5);
        return o + 5;
    }
}

static inline int buf_word(Buf *b, const Op *op, uint64_t v)
{
    char *o = buf_room(b, WORD_MAX);
    if (o == NULL) return -1;
    buf_done(b, put_word(o, op, v));
    return 0;
}

/* ltrace's flags lens, as renderops.flags_text: the names of the flags set in u, in declaration
 * order, joined by "|", then what no name covered in hex; with no name set, the name of a flag
 * that is 0 with mask 0 (PROT_NONE) when u is 0, else u in hex ("0" for 0). A name of a field
 * (NAME=VAL:MASK, O_RDONLY=0:3) matches when u's field equals VAL and no earlier name took a bit
 * of it; a single flag (mask == value) when all its bits are still left. */
static int render_flags(Buf *b, const Op *op, uint64_t u)
{
    uint64_t rest = u;
    int named = 0;
    for (Py_ssize_t i = 0; i < op->nnames; i++) {
        const EnumName *f = &op->names[i];
        int hit;
        if (f->fmask != f->value) {
            hit = (u & f->fmask) == f->value && (rest & f->fmask) == (u & f->fmask);
            if (hit) rest &= ~f->fmask;
        } else {
            hit = f->value && (rest & f->value) == f->value;
            if (hit) rest &= ~f->value;
        }
        if (hit) {
            if (named++ && buf_put(b, "|", 1) < 0) return -1;
            if (buf_put(b, f->name, f->len) < 0) return -1;
        }
    }
    rest &= op->mask;
    if (!named) {
        if (u == 0)
            for (Py_ssize_t i = 0; i < op->nnames; i++)
                if (op->names[i].value == 0 && op->names[i].fmask == 0)
                    return buf_put(b, op->names[i].name, op->names[i].len);
        return u ? buf_hex(b, u) : buf_put(b, "0", 1);
    }
    if (rest && (buf_put(b, "|", 1) < 0 || buf_hex(b, rest) < 0)) return -1;
    return 0;
}

/* A structure of integers as values.py _fmt_flat shows it: "{ " + the items joined by ", " +
 * " }", an item a field (_fmt_integer's "u", "i", "x", "o" of its bytes) or a nested structure.
 * `a`: its `size` bytes; parse_struct checked every field lies inside them and the braces. */
static int render_struct(Buf *b, const Op *op, const unsigned char *a)
{
    unsigned char first[STRUCT_DEPTH_MAX + 1];
    int depth = 0;
    first[0] = 1;
    for (Py_ssize_t i = 0; i < op->ntoks; i++) {
        const StructTok *t = &op->toks[i];
        if (t->kind == TOK_CLOSE) {
            depth--;
            if (buf_put(b, " }", 2) < 0) return -1;
            continue;
        }
        if (!first[depth] && buf_put(b, ", ", 2) < 0) return -1;
        first[depth] = 0;
        if (t->kind == TOK_OPEN) {
            first[++depth] = 1;
            if (buf_put(b, "{ ", 2) < 0) return -1;
            continue;
        }
        uint64_t u = 0;
        for (int k = t->size - 1; k >= 0; k--) u = (u << 8) | a[t->off + k];
        int bits = 8 * t->size;
        int rc;
        switch (t->kind) {
        case TOK_SIGNED:
            if (bits < 64 && (u >> (bits - 1)) & 1) rc = buf_sdec(b, (int64_t)(u | ~((UINT64_C(1) << bits) - 1)));
            else rc = bits == 64 ? buf_sdec(b, (int64_t)u) : buf_udec(b, u);
            break;
        case TOK_HEX:
            rc = u ? buf_hex(b, u) : buf_put(b, "0", 1);
            break;
        case TOK_OCT:
            rc = buf_put(b, "0", 1) < 0 ? -1 : buf_oct(b, u);
            break;
        default:
            rc = buf_udec(b, u);
        }
        if (rc < 0) return -1;
    }
    return 0;
}

static int render_op(Buf *b, const Op *op, const uint64_t *w, const unsigned char *rec, uint64_t v,
                     uint64_t rax, const unsigned char *out)
{
    switch (op->kind) {
    case OP_CHAR:
        return buf_quoted_char(b, "'", 1, (uint32_t)(v & 0xFF));
    case OP_WCHAR:
        return buf_quoted_char(b, "L'", 2, (uint32_t)(v & op->mask));
    case OP_UNSIGNED:
    case OP_SIGNED:
    case OP_HEX:
    case OP_GUESS:
    case OP_ADDR:
    case OP_BOOL:
        return buf_word(b, op, v);
    case OP_ENUM: {
        uint64_t u = v & op->mask;
        for (Py_ssize_t i = 0; i < op->nnames; i++)
            if (op->names[i].value == u) return buf_put(b, op->names[i].name, op->names[i].len);
        Op plain = *op;
        plain.kind = op->fallback;
        return render_op(b, &plain, w, rec, v, rax, out);
    }
    case OP_FLAGS:
        return render_flags(b, op, v & op->mask);
    case OP_OCT:
        return buf_put(b, "0", 1) < 0 ? -1 : buf_oct(b, v & op->mask);
    case OP_CSTR: {                 /* values.py string_from */
        if (!v) return buf_put(b, "nil", 3);
        const unsigned char *a = rec + op->area;
        return buf_cstring(b, a, op->limit, op->limit);
    }
    case OP_BUF: {                  /* values.py bounded_from, every byte copied */
        if (!v) return buf_put(b, "nil", 3);
        uint64_t n = w[op->lenword - 1];
        uint64_t limit = (uint64_t)op->limit;
        return buf_quoted(b, rec + op->area, (Py_ssize_t)(n < limit ? n : limit), n >= limit);
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
    case OP_STRUCT:                 /* the generic interpreter's pointer to it, every byte copied */
        if (!v) return buf_put(b, "nil", 3);
        return render_struct(b, op, op->area ? rec + op->area : out);
    }
    PyErr_SetString(PyExc_SystemError, "emutrace.machine._native: unknown operation");
    return -1;
}

/* A returned C string from the bytes the return copied (values.py `string` reading guestlog's
 * _Captured: the text up to the NUL, or the first ret_cap bytes when there is none). */
static int render_ret_string(Buf *b, Py_ssize_t limit, Py_ssize_t ret_cap, const unsigned char *area, uint64_t rax)
{
    if (!rax) return buf_put(b, "nil", 3);
    return buf_cstring(b, area, ret_cap < limit ? ret_cap : limit, limit);
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
    for (int i = 0; i < MAX_ARGS; i++) w[i] = rd64(rec + REC_ARGS + 8 * i);
    Py_ssize_t start = b->len;
    char *o = buf_room(b, prefix_room(s->prefix_len));
    if (o == NULL) return -1;
    for (Py_ssize_t k = 0; k < s->prefix_len; k += 16) memcpy(o + k, s->prefix + k, 16);
    buf_done(b, o + s->prefix_len);
    for (int i = 0; i < s->nargs; i++) {
        const Op *op = &s->args[i];
        uint64_t v = w[op->word - 1];
        if (i && buf_put(b, ", ", 2) < 0) return -1;
        if (word_kind(op->kind)) {
            if (buf_word(b, op, v) < 0) return -1;
        } else if (i == s->in) {
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
    if (pad < 0) pad = 0;
    /* ") ", the padding, "= ": the spaces 16 at a time (room for the last 16's excess) */
    o = buf_room(b, pad + 20);
    if (o == NULL) return -1;
    memcpy(o, ") ", 2);
    for (Py_ssize_t k = 0; k < pad; k += 16) memcpy(o + 2 + k, "                ", 16);
    memcpy(o + 2 + pad, "= ", 2);
    buf_done(b, o + pad + 4);
    if (s->has_ret && s->ret.kind == OP_CSTR) {
        if (render_ret_string(b, s->ret.limit, s->ret_cap, ret_area, rax) < 0) return -1;
    } else if (s->has_ret && s->ret.kind == OP_WSTR) {
        if (render_wstr(b, ret_area, s->ret.limit, rax) < 0) return -1;    /* (ret_cap >= 4 * (limit + 1)) */
    } else if (s->has_ret && word_kind(s->ret.kind)) {
        if (buf_word(b, &s->ret, rax) < 0) return -1;
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

int emutrace_register_tlbfill(PyObject *m);        /* _tlbfill.c: the TLB fill hook */
int emutrace_register_guestmem(PyObject *m);       /* _guestmem.c: raw guest memory access */
int emutrace_register_printfcap(PyObject *m);      /* _printfcap.c: printf-family calls' hooks */
int emutrace_register_strace(PyObject *m);         /* _strace.c: strace rows rendered in C */
int emutrace_register_insncount(PyObject *m);      /* _insncount.c: retired instructions (docs/time.md) */

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
    if (emutrace_cover_init(m) < 0) { Py_DECREF(m); return NULL; }
    if (emutrace_poscount_init(m) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
