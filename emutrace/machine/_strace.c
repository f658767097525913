/* emutrace.machine._native.StraceRow: a row of the strace formatter's compiled rows in C; and
 * MappedReader, the memory view's read (traceview.TraceMem) in C.
 *
 * decode/strace/formatter.py compiles each row of the syscall table into Python functions
 * begin(args, mem) -> (entry text, kept) and finish(entry text, kept, ret, mem) -> (head, result
 * text); those are the reference. A row whose argument kinds are all plain (numbers, descriptors
 * without -y, input and output buffers) is also given to this type, which renders the same bytes
 * without a Python frame per kind: the numbers, strace's string quoting with the -s limit, the
 * head `name(...)`, a plain result. Its `kept` tuple is laid out as the Python row's (the words the
 * exit reads, then the texts rendered at entry but printed at exit), so either half may be
 * followed by the other's.
 *
 * Anything out of the ordinary goes to the Python functions it was made with: arguments that are
 * not a tuple of six ints, a result that is not an int, a read that returns something other than
 * bytes. A result that is not a plain number calls ret_text(ret) (the Python formatter). Guest
 * memory is read through mem.read(addr, size), as in Python (None or an exception: unreadable).
 *
 * Portable C99 and the Python C API only. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "_abi.h"              /* STRACE_COLUMN, result_pad, strace's texts, kinds and escapes: from emutrace/machine/abi.py */
#include "_module.h"            /* emutrace_add_type */

/* argument kinds: enum strace_row_kind (SK_INT...) of _abi.h, abi.STRACE_ROW_KINDS */

typedef struct {
    int kind;
    int arg;        /* the argument word printed */
    int count;      /* the argument word that is its length (buffers), or -1 */
    int kept_arg;   /* at exit: where arg is in kept (SK_BUF_OUT), or the kept text's index */
    int kept_count; /* at exit: where count is in kept, or -1 */
} Op;

typedef struct {
    PyObject_HEAD
    PyObject *name;         /* str: "read(" */
    Op *entry;              /* printed at entry */
    Py_ssize_t n_entry;
    Op *late;               /* printed at exit: SK_BUF_OUT rendered then, the others at entry */
    Py_ssize_t n_late;
    int *kept_words;        /* the argument words at the head of kept */
    Py_ssize_t n_words;
    Py_ssize_t n_kept;      /* n_words + the texts rendered at entry for the exit */
    uint64_t limit;         /* the string limit (-s) */
    int plain;              /* a result in [0, 2**31) prints as a number */
    PyObject *ret_text;     /* ret_text(ret) -> str: any other result */
    PyObject *py_begin, *py_finish;    /* the Python row: the reference, for unusual input */
    PyObject *read_name;    /* "read" */
} RowObject;

/* ------------------------------------------------------------------ a growing text */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
    char small[256];
} Text;

static void text_init(Text *t) { t->p = t->small; t->len = 0; t->cap = sizeof t->small; }
static void text_free(Text *t) { if (t->p != t->small) PyMem_Free(t->p); }

static int text_room(Text *t, Py_ssize_t more)
{
    if (t->len + more <= t->cap) return 0;
    Py_ssize_t cap = t->cap;
    while (cap < t->len + more) cap *= 2;
    char *p = PyMem_Malloc(cap);
    if (p == NULL) { PyErr_NoMemory(); return -1; }
    memcpy(p, t->p, t->len);
    if (t->p != t->small) PyMem_Free(t->p);
    t->p = p;
    t->cap = cap;
    return 0;
}

static int text_add(Text *t, const char *s, Py_ssize_t n)
{
    if (text_room(t, n) < 0) return -1;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    return 0;
}


static int text_u64(Text *t, uint64_t v)
{
    char b[24];
    int n = 0;
    do { b[sizeof b - 1 - n++] = (char)('0' + v % 10); v /= 10; } while (v);
    return text_add(t, b + sizeof b - n, n);
}

static int text_s64(Text *t, int64_t v)
{
    if (v < 0 && text_add(t, STR_MINUS, STR_MINUS_LEN) < 0) return -1;
    return text_u64(t, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

/* '%#x' % v, and '0' for 0 (hexval) */
static int text_hex(Text *t, uint64_t v)
{
    if (v == 0) return text_add(t, STR_ZERO, STR_ZERO_LEN);
    char b[24];
    int n = 0;
    while (v) { b[sizeof b - 1 - n++] = "0123456789abcdef"[v & 15]; v >>= 4; }
    n += STR_HEX_LEN;
    memcpy(b + sizeof b - n, STR_HEX, STR_HEX_LEN);
    return text_add(t, b + sizeof b - n, n);
}

/* An int's value as 64 bits: the common values (below 2**63) through PyLong_AsLongLongAndOverflow,
 * the fast conversion (3.11's PyLong_AsUnsignedLongLong goes through a byte array). mask: any int,
 * its low 64 bits (Python's `v & 0xffffffffffffffff`); else 0 for a negative one or one of 2**64
 * and above. An error is cleared and answered 0. */
static int as_u64(PyObject *x, uint64_t *v, int mask)
{
    int overflow;
    long long s = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (s == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    if (!overflow) {
        if (s < 0 && !mask) return 0;
        *v = (uint64_t)s;
        return 1;
    }
    if (overflow < 0 && !mask) return 0;
    *v = mask ? PyLong_AsUnsignedLongLongMask(x) : PyLong_AsUnsignedLongLong(x);
    if (*v == (uint64_t)-1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    return 1;
}

/* strace's string_quote (common.py's quote_string with its defaults): each byte's text from the
 * tables abi.py generates (its escape letter, itself, or octal), the longer octal one when an
 * octal digit follows */
static int text_quoted(Text *t, const unsigned char *s, Py_ssize_t n)
{
    static const char *const text[256] = STRACE_BYTE_TEXTS;
    static const char *const before_digit[256] = STRACE_BYTE_TEXTS_BEFORE_DIGIT;
    if (text_room(t, (Py_ssize_t)(STRACE_OCTAL_LONG + 1) * n + 2 * STR_QUOTE_LEN) < 0) return -1;
    char *o = t->p + t->len;
    memcpy(o, STR_QUOTE, STR_QUOTE_LEN);
    o += STR_QUOTE_LEN;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned c = s[i];
        const char *e = text[c];
        if (e[1] == 0) {                /* (most bytes: one character) */
            *o++ = e[0];
            continue;
        }
        if (before_digit[c] != NULL && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7') e = before_digit[c];
        while (*e) *o++ = *e++;
    }
    memcpy(o, STR_QUOTE, STR_QUOTE_LEN);
    o += STR_QUOTE_LEN;
    t->len = o - t->p;
    return 0;
}

/* mem.read(addr, size): 1 and the bytes' buffer in *view, 0 when unreadable (None, short, an
 * Exception), -1 on an error to pass on; 2 when the answer is not bytes (the caller falls back) */
static int guest_read(RowObject *self, PyObject *mem, uint64_t addr, uint64_t size, PyObject **out)
{
    PyObject *a = PyLong_FromUnsignedLongLong(addr), *n = PyLong_FromUnsignedLongLong(size);
    PyObject *got = NULL;
    if (a != NULL && n != NULL) {
        PyObject *args[3] = {mem, a, n};
        got = PyObject_VectorcallMethod(self->read_name, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    }
    Py_XDECREF(a);
    Py_XDECREF(n);
    if (got == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_Exception)) return -1;
        PyErr_Clear();                              /* (the Python row: except Exception) */
        return 0;
    }
    if (got == Py_None) { Py_DECREF(got); return 0; }
    if (!PyBytes_CheckExact(got)) { Py_DECREF(got); return 2; }
    if ((uint64_t)PyBytes_GET_SIZE(got) < size) { Py_DECREF(got); return 0; }
    *out = got;
    return 1;
}

/* f.buf(mem, addr, length) (an input buffer at entry): 1 done, 2 fall back, -1 error */
static int render_buf_in(RowObject *self, Text *t, PyObject *mem, uint64_t addr, uint64_t length)
{
    if (addr == 0) return text_add(t, STR_NULL, STR_NULL_LEN) < 0 ? -1 : 1;
    uint64_t n = length < self->limit ? length : self->limit;
    if (n == 0) {
        if (text_quoted(t, NULL, 0) < 0) return -1;
    } else {
        PyObject *data = NULL;
        int r = guest_read(self, mem, addr, n, &data);
        if (r != 1) {
            if (r == 0) return text_hex(t, addr) < 0 ? -1 : 1;
            return r;
        }
        r = text_quoted(t, (const unsigned char *)PyBytes_AS_STRING(data), (Py_ssize_t)n);
        Py_DECREF(data);
        if (r < 0) return -1;
    }
    if (length > n && text_add(t, STR_ELLIPSIS, STR_ELLIPSIS_LEN) < 0) return -1;
    return 1;
}

/* the buffer a call wrote (buf_out: at most `count` bytes of the result, -s of them shown) */
static int render_buf_out(RowObject *self, Text *t, PyObject *mem, uint64_t addr, int has_count,
                          uint64_t count, int64_t ret)
{
    if ((ret >= -STRACE_ERRNO_MAX && ret < 0) || addr == 0)
        return (addr == 0 ? text_add(t, STR_NULL, STR_NULL_LEN) : text_hex(t, addr)) < 0 ? -1 : 1;
    uint64_t k;
    if (ret < 0) k = 0;
    else k = has_count && count < (uint64_t)ret ? count : (uint64_t)ret;
    uint64_t j = k < self->limit ? k : self->limit;
    if (j == 0) {
        if (text_quoted(t, NULL, 0) < 0 || (k > 0 && text_add(t, STR_ELLIPSIS, STR_ELLIPSIS_LEN) < 0)) return -1;
        return 1;
    }
    PyObject *data = NULL;
    int r = guest_read(self, mem, addr, j, &data);
    if (r != 1) {
        if (r == 0) return text_hex(t, addr) < 0 ? -1 : 1;
        return r;
    }
    r = text_quoted(t, (const unsigned char *)PyBytes_AS_STRING(data), (Py_ssize_t)j);
    Py_DECREF(data);
    if (r < 0) return -1;
    if (k > j && text_add(t, STR_ELLIPSIS, STR_ELLIPSIS_LEN) < 0) return -1;
    return 1;
}

/* an argument rendered at entry: 1 done, 2 fall back, -1 error */
static int render_entry(RowObject *self, Text *t, const Op *op, const uint64_t *w, PyObject *mem)
{
    uint64_t v = w[op->arg];
    uint32_t lo = (uint32_t)v;
    int r;
    switch (op->kind) {
    case SK_INT: case SK_FD: r = text_s64(t, (int32_t)lo); break;
    case SK_UINT: r = text_u64(t, lo); break;
    case SK_LONG: r = text_s64(t, (int64_t)v); break;
    case SK_ULONG: r = text_u64(t, v); break;
    case SK_HEX: r = text_hex(t, v); break;
    case SK_HEX32: r = text_hex(t, lo); break;
    case SK_PTR: r = v ? text_hex(t, v) : text_add(t, STR_NULL, STR_NULL_LEN); break;
    case SK_UID: r = lo == 0xffffffffu ? text_add(t, STR_ID_UNCHANGED, STR_ID_UNCHANGED_LEN) : text_u64(t, lo); break;
    case SK_BUF_IN: return render_buf_in(self, t, mem, v, w[op->count]);
    default: return 2;
    }
    return r < 0 ? -1 : 1;
}

static PyObject *ascii_str(const Text *t) { return PyUnicode_DecodeASCII(t->p, t->len, "strict"); }

/* the six words of args, masked to 64 bits: 0 when args is not a tuple of six ints */
static int words_of(PyObject *args, uint64_t *w)
{
    if (!PyTuple_CheckExact(args) || PyTuple_GET_SIZE(args) != 6) return 0;
    for (int i = 0; i < 6; i++) {
        PyObject *x = PyTuple_GET_ITEM(args, i);
        if (!PyLong_CheckExact(x) || !as_u64(x, &w[i], 1)) return 0;
    }
    return 1;
}

/* begin(args, mem) -> (entry text, kept or None) */
static PyObject *Row_begin(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "begin(args, mem)");
        return NULL;
    }
    uint64_t w[6];
    if (!words_of(args[0], w)) return PyObject_Vectorcall(self->py_begin, args, 2, NULL);
    PyObject *mem = args[1], *entry = NULL, *kept = NULL, *out = NULL;
    Text t;
    text_init(&t);
    for (Py_ssize_t i = 0; i < self->n_entry; i++) {
        if (i && text_add(&t, STR_SEP, STR_SEP_LEN) < 0) goto fail;
        int r = render_entry(self, &t, &self->entry[i], w, mem);
        if (r < 0) goto fail;
        if (r == 2) goto fallback;
    }
    if (self->n_entry && self->n_late && text_add(&t, STR_SEP, STR_SEP_LEN) < 0) goto fail;
    entry = ascii_str(&t);
    if (entry == NULL) goto fail;
    if (self->n_late) {
        kept = PyTuple_New(self->n_kept);
        if (kept == NULL) goto fail;
        for (Py_ssize_t i = 0; i < self->n_words; i++) {
            PyObject *x = PyLong_FromUnsignedLongLong(w[self->kept_words[i]]);
            if (x == NULL) goto fail;
            PyTuple_SET_ITEM(kept, i, x);
        }
        for (Py_ssize_t i = 0; i < self->n_late; i++) {
            const Op *op = &self->late[i];
            if (op->kind == SK_BUF_OUT) continue;
            t.len = 0;
            int r = render_entry(self, &t, op, w, mem);
            if (r < 0) goto fail;
            if (r == 2) goto fallback;
            PyObject *x = ascii_str(&t);
            if (x == NULL) goto fail;
            PyTuple_SET_ITEM(kept, op->kept_arg, x);
        }
    } else {
        Py_INCREF(Py_None);
        kept = Py_None;
    }
    out = PyTuple_Pack(2, entry, kept);
fail:
    Py_XDECREF(entry);
    Py_XDECREF(kept);
    text_free(&t);
    return out;
fallback:
    Py_XDECREF(entry);
    Py_XDECREF(kept);
    text_free(&t);
    return PyObject_Vectorcall(self->py_begin, args, 2, NULL);
}

static int kept_word(PyObject *kept, int at, uint64_t *v)
{
    PyObject *x = PyTuple_GET_ITEM(kept, at);
    return PyLong_CheckExact(x) && as_u64(x, v, 1);
}

/* finish(entry text, kept, ret, mem) -> (head, result text) */
/* The head `name(...)` of finish(entry, kept, ret, mem) into t, ret in *ret: 0 done, 1 when the
 * Python row must render it (unusual input), -1 on an error */
static int finish_head(RowObject *self, PyObject *const *args, Text *t, int64_t *ret)
{
    PyObject *entry = args[0], *kept = args[1], *mem = args[3];
    if (!PyUnicode_CheckExact(entry) || !PyUnicode_IS_ASCII(entry) || !PyLong_CheckExact(args[2])
        || (self->n_late && (!PyTuple_CheckExact(kept) || PyTuple_GET_SIZE(kept) != self->n_kept)))
        return 1;
    uint64_t r64;
    if (!as_u64(args[2], &r64, 1)) return 1;
    *ret = (int64_t)r64;
    Py_ssize_t nlen;
    const char *name = PyUnicode_AsUTF8AndSize(self->name, &nlen);
    if (name == NULL || text_add(t, name, nlen) < 0
        || text_add(t, (const char *)PyUnicode_DATA(entry), PyUnicode_GET_LENGTH(entry)) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < self->n_late; i++) {
        const Op *op = &self->late[i];
        if (i && text_add(t, STR_SEP, STR_SEP_LEN) < 0) return -1;
        if (op->kind == SK_BUF_OUT) {
            uint64_t addr, count = 0;
            if (!kept_word(kept, op->kept_arg, &addr) || (op->kept_count >= 0 && !kept_word(kept, op->kept_count, &count)))
                return 1;
            int r = render_buf_out(self, t, mem, addr, op->kept_count >= 0, count, *ret);
            if (r != 1) return r < 0 ? -1 : 1;
        } else {
            PyObject *x = PyTuple_GET_ITEM(kept, op->kept_arg);
            if (!PyUnicode_CheckExact(x) || !PyUnicode_IS_ASCII(x)) return 1;
            if (text_add(t, (const char *)PyUnicode_DATA(x), PyUnicode_GET_LENGTH(x)) < 0) return -1;
        }
    }
    return text_add(t, STR_CALL_CLOSE, STR_CALL_CLOSE_LEN) < 0 ? -1 : 0;
}

static int check_args(Py_ssize_t nargs, const char *usage)
{
    if (nargs == 4) return 0;
    PyErr_SetString(PyExc_TypeError, usage);
    return -1;
}

static PyObject *Row_finish(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_args(nargs, "finish(entry, kept, ret, mem)") < 0) return NULL;
    int64_t ret = 0;
    PyObject *head = NULL, *text = NULL, *out = NULL;
    Text t;
    text_init(&t);
    int r = finish_head(self, args, &t, &ret);
    if (r == 1) {
        text_free(&t);
        return PyObject_Vectorcall(self->py_finish, args, 4, NULL);
    }
    if (r < 0) goto done;
    head = ascii_str(&t);
    if (head == NULL) goto done;
    if (self->plain && ret >= 0 && ret < STRACE_PLAIN_MAX) {
        t.len = 0;
        if (text_u64(&t, (uint64_t)ret) == 0) text = ascii_str(&t);
    } else {
        PyObject *rv = PyLong_FromLongLong(ret);
        if (rv != NULL) text = PyObject_CallOneArg(self->ret_text, rv);
        Py_XDECREF(rv);
    }
    if (text == NULL) goto done;
    out = PyTuple_Pack(2, head, text);
done:
    Py_XDECREF(head);
    Py_XDECREF(text);
    text_free(&t);
    return out;
}

/* line(entry, kept, ret, mem): the whole line of a call whose result is a plain number, as
 * StraceText writes it (the head padded to STRACE_COLUMN columns, " = ", the number, a newline); None for
 * any other result or unusual input (finish then renders it) */
static PyObject *Row_line(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_args(nargs, "line(entry, kept, ret, mem)") < 0) return NULL;
    int64_t ret;
    if (!self->plain || !PyLong_CheckExact(args[2])) Py_RETURN_NONE;
    int overflow;
    ret = PyLong_AsLongLongAndOverflow(args[2], &overflow);
    if (ret == -1 && PyErr_Occurred()) return NULL;
    if (overflow || ret < 0 || ret >= STRACE_PLAIN_MAX) Py_RETURN_NONE;
    PyObject *out = NULL;
    Text t;
    text_init(&t);
    int r = finish_head(self, args, &t, &ret);
    if (r == 0) {
        Py_ssize_t pad = result_pad(t.len, STRACE_COLUMN);
        if (text_room(&t, pad) == 0) {
            memset(t.p + t.len, ' ', (size_t)pad);
            t.len += pad;
            if (text_add(&t, RESULT_SEP, RESULT_SEP_LEN) == 0 && text_u64(&t, (uint64_t)ret) == 0 && text_add(&t, "\n", 1) == 0)
                out = ascii_str(&t);
        }
    } else if (r == 1) {
        out = Py_None;
        Py_INCREF(out);
    }
    text_free(&t);
    return out;
}

/* ops: a sequence of (kind, arg, count, kept_arg, kept_count) */
static int ops_of(PyObject *seq, Op **out, Py_ssize_t *n)
{
    PyObject *fast = PySequence_Fast(seq, "StraceRow: ops must be a sequence");
    if (fast == NULL) return -1;
    *n = PySequence_Fast_GET_SIZE(fast);
    *out = PyMem_Calloc(*n ? *n : 1, sizeof(Op));
    if (*out == NULL) { Py_DECREF(fast); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < *n; i++) {
        Op *op = &(*out)[i];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "iiiii;StraceRow: an op is (kind, arg, count, kept_arg, kept_count)",
                              &op->kind, &op->arg, &op->count, &op->kept_arg, &op->kept_count)) {
            Py_DECREF(fast);
            return -1;
        }
        if (op->kind < 0 || op->kind >= SK_COUNT || op->arg < 0 || op->arg > 5 || op->count < -1 || op->count > 5
            || ((op->kind == SK_BUF_IN) && op->count < 0)) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "StraceRow: an op out of range");
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static int Row_init(RowObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *name, *entry, *late, *words, *ret_text, *py_begin, *py_finish;
    unsigned long long limit;
    int plain;
    if (!PyArg_ParseTuple(args, "UOOOKpOOO", &name, &entry, &late, &words, &limit, &plain, &ret_text,
                          &py_begin, &py_finish))
        return -1;
    if (self->entry != NULL) {
        PyErr_SetString(PyExc_TypeError, "StraceRow: already made");
        return -1;
    }
    if (ops_of(entry, &self->entry, &self->n_entry) < 0 || ops_of(late, &self->late, &self->n_late) < 0) return -1;
    PyObject *wf = PySequence_Fast(words, "StraceRow: words must be a sequence");
    if (wf == NULL) return -1;
    self->n_words = PySequence_Fast_GET_SIZE(wf);
    self->kept_words = PyMem_Calloc(self->n_words ? self->n_words : 1, sizeof(int));
    if (self->kept_words == NULL) { Py_DECREF(wf); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < self->n_words; i++) {
        long k = PyLong_AsLong(PySequence_Fast_GET_ITEM(wf, i));
        if (k < 0 || k > 5) {
            Py_DECREF(wf);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "StraceRow: a word out of range");
            return -1;
        }
        self->kept_words[i] = (int)k;
    }
    Py_DECREF(wf);
    self->n_kept = self->n_words;
    for (Py_ssize_t i = 0; i < self->n_late; i++) {
        const Op *op = &self->late[i];
        if (op->kind == SK_BUF_OUT) continue;
        self->n_kept++;
    }
    /* every kept index in range: finish reads kept by these */
    for (Py_ssize_t i = 0; i < self->n_late; i++) {
        const Op *op = &self->late[i];
        int bad = op->kind == SK_BUF_OUT
            ? op->kept_arg < 0 || op->kept_arg >= self->n_words || op->kept_count >= self->n_words
            : op->kept_arg < self->n_words || op->kept_arg >= self->n_kept;
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "StraceRow: a kept index out of range");
            return -1;
        }
    }
    for (Py_ssize_t i = 0; i < self->n_entry; i++) {
        if (self->entry[i].kind == SK_BUF_OUT) {
            PyErr_SetString(PyExc_ValueError, "StraceRow: an output buffer printed at entry");
            return -1;
        }
    }
    self->limit = limit;
    self->plain = plain;
    Py_INCREF(name); Py_XSETREF(self->name, name);
    Py_INCREF(ret_text); Py_XSETREF(self->ret_text, ret_text);
    Py_INCREF(py_begin); Py_XSETREF(self->py_begin, py_begin);
    Py_INCREF(py_finish); Py_XSETREF(self->py_finish, py_finish);
    PyObject *rn = PyUnicode_InternFromString("read");
    if (rn == NULL) return -1;
    Py_XSETREF(self->read_name, rn);
    return 0;
}

static int Row_traverse(RowObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->ret_text);
    Py_VISIT(self->py_begin);
    Py_VISIT(self->py_finish);
    return 0;
}

static int Row_clear(RowObject *self)
{
    Py_CLEAR(self->ret_text);
    Py_CLEAR(self->py_begin);
    Py_CLEAR(self->py_finish);
    return 0;
}

static void Row_dealloc(RowObject *self)
{
    PyObject_GC_UnTrack(self);
    Row_clear(self);
    Py_CLEAR(self->name);
    Py_CLEAR(self->read_name);
    PyMem_Free(self->entry);
    PyMem_Free(self->late);
    PyMem_Free(self->kept_words);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* begin, finish and line of a row made (Row_init ran and succeeded); a RuntimeError otherwise */
static int row_made(const RowObject *self)
{
    if (self->ret_text != NULL && self->name != NULL) return 1;
    PyErr_SetString(PyExc_RuntimeError, "StraceRow: not made");
    return 0;
}

static PyObject *Row_call_begin(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return row_made(self) ? Row_begin(self, args, nargs) : NULL;
}

static PyObject *Row_call_finish(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return row_made(self) ? Row_finish(self, args, nargs) : NULL;
}

static PyObject *Row_call_line(RowObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return row_made(self) ? Row_line(self, args, nargs) : NULL;
}

static PyMethodDef Row_methods[] = {
    {"begin", (PyCFunction)(void (*)(void))Row_call_begin, METH_FASTCALL,
     "begin(args, mem) -> (entry text, kept or None)"},
    {"finish", (PyCFunction)(void (*)(void))Row_call_finish, METH_FASTCALL,
     "finish(entry text, kept, ret, mem) -> (head, result text)"},
    {"line", (PyCFunction)(void (*)(void))Row_call_line, METH_FASTCALL,
     "line(entry text, kept, ret, mem) -> the written line of a plain numeric result, or None"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject RowType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.StraceRow",
    .tp_basicsize = sizeof(RowObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "StraceRow(name, entry_ops, late_ops, kept_words, string_limit, plain, ret_text, py_begin, py_finish)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Row_init,
    .tp_dealloc = (destructor)Row_dealloc,
    .tp_traverse = (traverseproc)Row_traverse,
    .tp_clear = (inquiry)Row_clear,
    .tp_methods = Row_methods,
};

/* ------------------------------------------------------------------ MappedReader
 * MappedReader(aspace, raw_read, prot_read).read(addr, size): traceview.TraceMem.read without its
 * frame: bytes within one readable mapping (AddressSpace's _starts and vmas, read at each call:
 * the address space replaces them) through raw_read, anything else through aspace.peek, which
 * answers as the Python code does. */
typedef struct {
    PyObject_HEAD
    PyObject *aspace, *raw_read, *peek;
    long prot_read;
} ReaderObject;

static PyObject *s_starts, *s_vmas, *s_start, *s_end, *s_prot;

static int u64_attr(PyObject *o, PyObject *name, uint64_t *v)
{
    PyObject *x = PyObject_GetAttr(o, name);
    if (x == NULL) { PyErr_Clear(); return 0; }
    int ok = PyLong_Check(x) && as_u64(x, v, 0);
    Py_DECREF(x);
    return ok;
}

/* 1 when [addr, addr + size) lies within one readable mapping */
static int readable(ReaderObject *self, uint64_t addr, uint64_t size)
{
    PyObject *starts = PyObject_GetAttr(self->aspace, s_starts);
    if (starts == NULL) { PyErr_Clear(); return 0; }
    PyObject *vmas = PyObject_GetAttr(self->aspace, s_vmas);
    if (vmas == NULL) { PyErr_Clear(); Py_DECREF(starts); return 0; }
    int ok = 0;
    if (PyList_CheckExact(starts) && PyList_CheckExact(vmas)) {
        Py_ssize_t lo = 0, hi = PyList_GET_SIZE(starts);      /* bisect_right(starts, addr) */
        while (lo < hi) {
            Py_ssize_t mid = lo + (hi - lo) / 2;
            PyObject *x = PyList_GET_ITEM(starts, mid);
            uint64_t s;
            if (!PyLong_Check(x) || !as_u64(x, &s, 0)) { lo = -1; break; }
            if (addr < s) hi = mid; else lo = mid + 1;
        }
        Py_ssize_t i = lo - 1;
        if (lo > 0 && i < PyList_GET_SIZE(vmas)) {
            PyObject *v = PyList_GET_ITEM(vmas, i);
            Py_INCREF(v);
            uint64_t start, end, prot;
            ok = u64_attr(v, s_start, &start) && u64_attr(v, s_end, &end) && u64_attr(v, s_prot, &prot)
                && start <= addr && addr <= end && size <= end - addr && (prot & (uint64_t)self->prot_read);
            Py_DECREF(v);
        }
    }
    Py_DECREF(starts);
    Py_DECREF(vmas);
    return ok;
}

static PyObject *Reader_read(ReaderObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (self->aspace == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "MappedReader: not made");
        return NULL;
    }
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "read(addr, size)");
        return NULL;
    }
    if (PyLong_CheckExact(args[0]) && PyLong_CheckExact(args[1])) {
        int overflow;
        long long size = PyLong_AsLongLongAndOverflow(args[1], &overflow);
        if (size == -1 && PyErr_Occurred()) PyErr_Clear();
        else if (!overflow && size > 0 && size <= 4096) {
            uint64_t addr;                      /* (negative or too big: not mapped) */
            if (as_u64(args[0], &addr, 0) && readable(self, addr, (uint64_t)size))
                return PyObject_Vectorcall(self->raw_read, args, 2, NULL);
        }
    }
    return PyObject_Vectorcall(self->peek, args, 2, NULL);
}

static int Reader_init(ReaderObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *aspace, *raw_read;
    long prot_read;
    if (!PyArg_ParseTuple(args, "OOl", &aspace, &raw_read, &prot_read)) return -1;
    PyObject *peek = PyObject_GetAttrString(aspace, "peek");
    if (peek == NULL) return -1;
    Py_INCREF(aspace); Py_XSETREF(self->aspace, aspace);
    Py_INCREF(raw_read); Py_XSETREF(self->raw_read, raw_read);
    Py_XSETREF(self->peek, peek);
    self->prot_read = prot_read;
    return 0;
}

static int Reader_traverse(ReaderObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->aspace);
    Py_VISIT(self->raw_read);
    Py_VISIT(self->peek);
    return 0;
}

static int Reader_clear(ReaderObject *self)
{
    Py_CLEAR(self->aspace);
    Py_CLEAR(self->raw_read);
    Py_CLEAR(self->peek);
    return 0;
}

static void Reader_dealloc(ReaderObject *self)
{
    PyObject_GC_UnTrack(self);
    Reader_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Reader_methods[] = {
    {"read", (PyCFunction)(void (*)(void))Reader_read, METH_FASTCALL,
     "read(addr, size) -> bytes or None: traceview.TraceMem.read"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.MappedReader",
    .tp_basicsize = sizeof(ReaderObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "MappedReader(aspace, raw_read, prot_read)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Reader_init,
    .tp_dealloc = (destructor)Reader_dealloc,
    .tp_traverse = (traverseproc)Reader_traverse,
    .tp_clear = (inquiry)Reader_clear,
    .tp_methods = Reader_methods,
};

/* quote(bytes) -> str: text_quoted alone, for the tests that hold it to common.quote_string */
static PyObject *strace_quote(PyObject *mod, PyObject *arg)
{
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "strace_quote(bytes)");
        return NULL;
    }
    Text t;
    text_init(&t);
    PyObject *out = NULL;
    if (text_quoted(&t, (const unsigned char *)PyBytes_AS_STRING(arg), PyBytes_GET_SIZE(arg)) == 0) out = ascii_str(&t);
    text_free(&t);
    return out;
}

static PyMethodDef strace_functions[] = {
    {"strace_quote", strace_quote, METH_O, "strace_quote(bytes) -> str: strace's quoting of a string"},
    {NULL, NULL, 0, NULL}
};

int emutrace_register_strace(PyObject *m)
{
    if ((s_starts = PyUnicode_InternFromString("_starts")) == NULL || (s_vmas = PyUnicode_InternFromString("vmas")) == NULL
        || (s_start = PyUnicode_InternFromString("start")) == NULL || (s_end = PyUnicode_InternFromString("end")) == NULL
        || (s_prot = PyUnicode_InternFromString("prot")) == NULL)
        return -1;
    if (emutrace_add_type(m, "MappedReader", &ReaderType) < 0) return -1;
    if (emutrace_add_type(m, "StraceRow", &RowType) < 0) return -1;
    if (PyModule_AddFunctions(m, strace_functions) < 0) return -1;
    return 0;
}
