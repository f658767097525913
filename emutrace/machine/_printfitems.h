/* _printfcap.c's items: a printf pack's conversions fetched from registers, the stack or a
 * va_list, and rendered. Static functions in a header that only _printfcap.c includes: one translation
 * unit, as before the split. */
#ifndef EMUTRACE_PRINTFITEMS_H
#define EMUTRACE_PRINTFITEMS_H

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
        b = digits_before(end, u, 8) - TXT_OCT_LEN;
        memcpy(b, TXT_OCT, TXT_OCT_LEN);
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
    if (ptr == 0) { text_put(t, TXT_NIL, TXT_NIL_LEN); return; }
    uint64_t L = h->string_limit, cap = L + 1;
    if (has_lim && lim < cap) cap = lim;
    uint64_t n = 0;
    if (cstr_len(h, ptr, cap + 1, &n) < 0) {
        if (cap != 0) { put_integer(t, ptr, 8, K_ADDR); return; }
        n = 0;                          /* (nothing to read: an empty string) */
    }
    if (n > cap) n = cap;
    uint64_t shown = n < L ? n : L;
    text_put(t, TXT_QUOTE, TXT_QUOTE_LEN);
    put_guest_esc(h, t, ptr, shown);
    text_put(t, TXT_QUOTE, TXT_QUOTE_LEN);
    if (n >= L) text_put(t, TXT_ELLIPSIS, TXT_ELLIPSIS_LEN);
}

static void put_item(PrintfHooksObject *h, Text *t, const Item *it)
{
    if (!it->ok) { text_put(t, "?", 1); return; }
    switch (it->kind) {
    case K_CHAR: {
        unsigned char c = (unsigned char)(it->value & 0xFF);
        text_put(t, TXT_CHAR_QUOTE, TXT_CHAR_QUOTE_LEN);
        put_esc_bytes(t, &c, 1);
        text_put(t, TXT_CHAR_QUOTE, TXT_CHAR_QUOTE_LEN);
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


#endif
