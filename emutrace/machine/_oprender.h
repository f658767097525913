/* _native.c's renderers of the render ops (emutrace/renderops.py's kinds that machine/abi.py
 * numbers): each op of a site's record, and a leaf call's whole line. Static functions in a header
 * that only _native.c includes, after the Op and SiteObject types and _textbuf.h: one translation
 * unit, so the compiler inlines them into leaf_run as before. */
#ifndef EMUTRACE_OPRENDER_H
#define EMUTRACE_OPRENDER_H

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
    if (buf_txt(b, WIDE_OPEN) < 0) return -1;
    char *o;
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
    o = buf_room(b, TXT_QUOTE_LEN + TXT_ELLIPSIS_LEN);
    if (o == NULL) return -1;
    memcpy(o, TXT_QUOTE TXT_ELLIPSIS, TXT_QUOTE_LEN + TXT_ELLIPSIS_LEN);
    buf_done(b, o + TXT_QUOTE_LEN + (cut && m == limit ? TXT_ELLIPSIS_LEN : 0));
    return 0;
}

/* A wide string from 4 * (limit + 1) copied bytes at a (values.py's wstring render): up to its
 * zero character, at most limit characters shown. */
static int render_wstr(Buf *b, const unsigned char *a, Py_ssize_t limit, uint64_t v)
{
    if (!v) return buf_txt(b, NIL);
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
    if (neg && buf_txt(b, BITS_NOT) < 0) return -1;
    if (buf_txt(b, BITS_OPEN) < 0) return -1;
    Py_ssize_t low = -1, bitno = 0;
    int first = 1;
    for (Py_ssize_t i = 0; i <= n; i++) {
        for (int k = 0; k < 8; k++, bitno++) {
            int set = i < n && (((a[i] ^ neg) >> k) & 1);
            if (set) {
                if (low < 0) low = bitno;
            } else if (low >= 0) {
                if (!first && buf_txt(b, BITS_SEP) < 0) return -1;
                first = 0;
                if (buf_udec(b, (uint64_t)low) < 0) return -1;
                if (low != bitno - 1 && (buf_txt(b, BITS_RANGE) < 0 || buf_udec(b, (uint64_t)(bitno - 1)) < 0)) return -1;
                low = -1;
            }
            if (i == n) break;          /* (one step past the end closes an open range) */
        }
    }
    return buf_txt(b, BITS_CLOSE);
}

/* An output string bounded by the returned value, from the `out` bytes the return copied
 * (renderops.py string_to_retval / wstring_to_retval, every byte readable). */
static int render_retstr(Buf *b, const Op *op, uint64_t v, uint64_t rax, const unsigned char *out)
{
    if (!v) return buf_txt(b, NIL);
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
    if (!v) return buf_txt(b, NIL);
    uint64_t limit = (uint64_t)op->limit;
    n &= op->mask;
    return buf_cstring(b, a, (Py_ssize_t)(n < limit ? n : limit), (Py_ssize_t)limit);
}

/* The operations on a word alone, the most common ones: rendered by put_word, at most WORD_MAX
 * bytes, with no call to render_op's switch over every kind. */
#define WORD_MAX 20             /* UDEC_MAX, SDEC_MAX, HEX_MAX, TXT_FALSE */

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
        return i < -GUESS_DECIMAL_MAX || i > GUESS_DECIMAL_MAX ? put_hex(o, v) : put_sdec(o, i);
    }
    default:                        /* OP_BOOL */
        if (v & op->mask) {
            memcpy(o, TXT_TRUE, TXT_TRUE_LEN);
            return o + TXT_TRUE_LEN;
        }
        memcpy(o, TXT_FALSE, TXT_FALSE_LEN);
        return o + TXT_FALSE_LEN;
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
            if (named++ && buf_txt(b, FLAG_SEP) < 0) return -1;
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
    if (rest && (buf_txt(b, FLAG_SEP) < 0 || buf_hex(b, rest) < 0)) return -1;
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
            if (buf_txt(b, STRUCT_CLOSE) < 0) return -1;
            continue;
        }
        if (!first[depth] && buf_txt(b, SEP) < 0) return -1;
        first[depth] = 0;
        if (t->kind == TOK_OPEN) {
            first[++depth] = 1;
            if (buf_txt(b, STRUCT_OPEN) < 0) return -1;
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
            rc = buf_txt(b, OCT) < 0 ? -1 : buf_oct(b, u);
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
        return buf_quoted_char(b, TXT_CHAR_QUOTE, TXT_CHAR_QUOTE_LEN, (uint32_t)(v & 0xFF));
    case OP_WCHAR:
        return buf_quoted_char(b, TXT_WCHAR_OPEN, TXT_WCHAR_OPEN_LEN, (uint32_t)(v & op->mask));
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
        return buf_txt(b, OCT) < 0 ? -1 : buf_oct(b, v & op->mask);
    case OP_CSTR: {                 /* values.py string_from */
        if (!v) return buf_txt(b, NIL);
        const unsigned char *a = rec + op->area;
        return buf_cstring(b, a, op->limit, op->limit);
    }
    case OP_BUF: {                  /* values.py bounded_from, every byte copied */
        if (!v) return buf_txt(b, NIL);
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
        if (buf_txt(b, STRUCT_OPEN) < 0) return -1;
        for (int f = 0; f < op->nfields; f++) {
            uint64_t u = 0;
            int size = op->fields[f].size;
            for (int i = size - 1; i >= 0; i--) u = (u << 8) | bytes[op->fields[f].off + i];
            if (f && buf_txt(b, SEP) < 0) return -1;
            if (op->fields[f].is_signed && size < 8 && (u >> (8 * size - 1)) & 1)
                u |= ~UINT64_C(0) << (8 * size);              /* sign-extended */
            if ((op->fields[f].is_signed ? buf_sdec(b, (int64_t)u) : buf_udec(b, u)) < 0) return -1;
        }
        return buf_txt(b, STRUCT_CLOSE);
    }
    case OP_BITVEC:                 /* renderops.py bitvec_at, every byte copied */
        if (!v) return buf_txt(b, NIL);
        return render_bitvec(b, op->area ? rec + op->area : out, op->size);
    case OP_STRUCT:                 /* the generic interpreter's pointer to it, every byte copied */
        if (!v) return buf_txt(b, NIL);
        return render_struct(b, op, op->area ? rec + op->area : out);
    }
    PyErr_SetString(PyExc_SystemError, "emutrace.machine._native: unknown operation");
    return -1;
}

/* A returned C string from the bytes the return copied (values.py `string` reading guestlog's
 * _Captured: the text up to the NUL, or the first ret_cap bytes when there is none). */
static int render_ret_string(Buf *b, Py_ssize_t limit, Py_ssize_t ret_cap, const unsigned char *area, uint64_t rax)
{
    if (!rax) return buf_txt(b, NIL);
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
        if (i && buf_txt(b, SEP) < 0) return -1;
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
    /* the head (arguments are ASCII) and its ")" */
    Py_ssize_t chars = s->prefix_chars + (b->len - start - s->prefix_len) + TXT_CALL_CLOSE_LEN;
    Py_ssize_t pad = result_pad(chars, s->column);
    /* ")", the padding, RESULT_SEP: the spaces 16 at a time (room for the last 16's excess) */
    o = buf_room(b, TXT_CALL_CLOSE_LEN + pad + 16 + RESULT_SEP_LEN);
    if (o == NULL) return -1;
    memcpy(o, TXT_CALL_CLOSE, TXT_CALL_CLOSE_LEN);
    o += TXT_CALL_CLOSE_LEN;
    for (Py_ssize_t k = 0; k < pad; k += 16) memcpy(o + k, "                ", 16);
    memcpy(o + pad, RESULT_SEP, RESULT_SEP_LEN);
    buf_done(b, o + pad + RESULT_SEP_LEN);
    if (s->has_ret && s->ret.kind == OP_CSTR) {
        if (render_ret_string(b, s->ret.limit, s->ret_cap, ret_area, rax) < 0) return -1;
    } else if (s->has_ret && s->ret.kind == OP_WSTR) {
        if (render_wstr(b, ret_area, s->ret.limit, rax) < 0) return -1;    /* (ret_cap >= 4 * (limit + 1)) */
    } else if (s->has_ret && word_kind(s->ret.kind)) {
        if (buf_word(b, &s->ret, rax) < 0) return -1;
    } else if (s->has_ret) {
        if (render_op(b, &s->ret, w, rec, rax, rax, ret_area) < 0) return -1;
    } else if (buf_txt(b, VOID) < 0) {
        return -1;
    }
    if (buf_put(b, suffix, suffix_len) < 0) return -1;
    if (!(s->ascii && suffix_ascii)) *ascii = 0;
    return 0;
}

#endif
