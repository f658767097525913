/* _native.c's text buffer and writers: a growing byte buffer, numbers and ltrace's escapes written
 * into it, and little-endian record words. Static functions in a header that only _native.c
 * includes: one translation unit, so the compiler inlines them into the renderers as before. */
#ifndef EMUTRACE_TEXTBUF_H
#define EMUTRACE_TEXTBUF_H

#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "_abi.h"               /* the texts (TXT_*) and escape letters: from emutrace/machine/abi.py */

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

/* one of abi.TEXTS: buf_txt(b, NIL) writes TXT_NIL */
#define buf_txt(b, NAME) buf_put((b), TXT_##NAME, TXT_##NAME##_LEN)

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
#define ESCW_MAX (2 + WIDE_ESC_LONG)     /* one wide character's: \Uxxxxxxxx */

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

/* a byte shown as itself: printable ASCII but the one printable byte ltrace escapes */
static inline int plain_byte(unsigned c) { return c - 32u < 95u && c != LTRACE_ESC_PRINTABLE; }

/* ltrace's escaping of one byte (abi.LTRACE_ESCAPES' letter after a backslash, else \OOO) */
static char *put_esc(char *o, unsigned c)
{
    static const char letter[256] = LTRACE_ESC_LETTERS;
    if (plain_byte(c)) {
        *o = (char)c;
        return o + 1;
    }
    o[0] = '\\';
    if (c < 256 && letter[c]) {
        o[1] = letter[c];
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
    uint64_t bs = x ^ (LTRACE_ESC_PRINTABLE * ones);
    uint64_t backslash = (bs - ones) & ~bs;                 /* a byte == LTRACE_ESC_PRINTABLE */
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

/* escapes.esc_wchar: at most ESCW_MAX bytes (\u and WIDE_ESC_SHORT hex digits when they hold
 * c, else \U and WIDE_ESC_LONG) */
static char *put_escw(char *o, uint32_t c)
{
    if (c < 256) return put_esc(o, c);
    int shorter = (uint64_t)c < (UINT64_C(1) << (4 * WIDE_ESC_SHORT));
    o[0] = '\\';
    o[1] = shorter ? 'u' : 'U';
    return put_hexn(o + 2, c, shorter ? WIDE_ESC_SHORT : WIDE_ESC_LONG);
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

/* `open` + a wide or single character's escape + `'` (open: "'" or "L'") */
static int buf_quoted_char(Buf *b, const char *open, Py_ssize_t open_len, uint32_t c)
{
    char *o = buf_room(b, open_len + ESCW_MAX + TXT_CHAR_QUOTE_LEN);
    if (o == NULL) return -1;
    memcpy(o, open, (size_t)open_len);
    o = put_escw(o + open_len, c);
    memcpy(o, TXT_CHAR_QUOTE, TXT_CHAR_QUOTE_LEN);
    buf_done(b, o + TXT_CHAR_QUOTE_LEN);
    return 0;
}

/* A string's shown bytes between double quotes, "..." after them when it was cut (ellipsis). */
static int buf_quoted(Buf *b, const unsigned char *s, Py_ssize_t shown, int ellipsis)
{
    enum { MARKS = 2 * TXT_QUOTE_LEN + TXT_ELLIPSIS_LEN };
    char *o = buf_room(b, shown <= (PY_SSIZE_T_MAX - MARKS) / ESC_MAX ? ESC_MAX * shown + MARKS : -1);
    if (o == NULL) return -1;
    memcpy(o, TXT_QUOTE, TXT_QUOTE_LEN);
    o = put_escape(o + TXT_QUOTE_LEN, s, shown);
    memcpy(o, TXT_QUOTE TXT_ELLIPSIS, TXT_QUOTE_LEN + TXT_ELLIPSIS_LEN);
    buf_done(b, o + TXT_QUOTE_LEN + (ellipsis ? TXT_ELLIPSIS_LEN : 0));
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


#endif
