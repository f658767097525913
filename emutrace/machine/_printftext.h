/* _printfcap.c's text buffer and writers. Static functions in a header that only _printfcap.c includes: one translation
 * unit, as before the split. */
#ifndef EMUTRACE_PRINTFTEXT_H
#define EMUTRACE_PRINTFTEXT_H

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
    static const char letter[256] = LTRACE_ESC_LETTERS;       /* (from abi.py, via _abi.h) */
    if (!text_reserve(t, 4 * n)) return;
    char *o = t->p + t->len;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = s[k];
        if (c >= 32 && c < 127 && !letter[c]) { *o++ = (char)c; continue; }
        *o++ = '\\';
        if (letter[c]) *o++ = letter[c];
        else { *o++ = (char)('0' + (c >> 6)); *o++ = (char)('0' + ((c >> 3) & 7)); *o++ = (char)('0' + (c & 7)); }
    }
    t->len = (size_t)(o - t->p);
}


#endif
