/* _printfcap.c's PrintfStore (the texts the hooks rendered, by sequence number) and PrintfLeaf
 * (a printf site's leaf lines for leaf_run). Static functions in a header that only _printfcap.c includes: one translation
 * unit, as before the split. */
#ifndef EMUTRACE_PRINTFSTORE_H
#define EMUTRACE_PRINTFSTORE_H

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

/* NUL-separated texts joined with TXT_SEP into out (NULL: only counted): the bytes that makes */
static size_t join_texts(char *out, const char *p, size_t len, int n)
{
    size_t at = 0, w = 0;
    for (int i = 0; i < n && at <= len; i++) {
        const char *e = memchr(p + at, 0, len - at);
        size_t k = e != NULL ? (size_t)(e - (p + at)) : len - at;
        if (i) {
            if (out != NULL) memcpy(out + w, TXT_SEP, TXT_SEP_LEN);
            w += TXT_SEP_LEN;
        }
        if (out != NULL) memcpy(out + w, p + at, k);
        w += k;
        at += k + 1;
    }
    return w;
}

/* What a leaf line holds between its prefix and its suffix: the texts shown at the call and at
 * the return joined, ")", the padding to the column, RESULT_SEP and the int returned (result_at). */
typedef struct {
    const char *left, *right;           /* NUL-separated texts, or NULL */
    size_t left_len, right_len;
    int nleft, nright;
    size_t left_w, right_w, sep_w;      /* the bytes each side joined makes, and TXT_SEP between */
    size_t pad;
    char num[24];                       /* the int, at num + num_at */
    size_t num_at;
} LineMiddle;

static size_t middle_size(LineMiddle *m, Py_ssize_t prefix_chars, Py_ssize_t column, uint64_t rax)
{
    m->left_w = m->left != NULL ? join_texts(NULL, m->left, m->left_len, m->nleft) : 0;
    m->right_w = m->right != NULL && m->nright > 0 ? join_texts(NULL, m->right, m->right_len, m->nright) : 0;
    m->sep_w = m->left != NULL && m->nleft > 0 && m->right != NULL && m->nright > 0 ? TXT_SEP_LEN : 0;
    Py_ssize_t head = prefix_chars + (Py_ssize_t)(m->left_w + m->sep_w + m->right_w) + TXT_CALL_CLOSE_LEN;
    m->pad = (size_t)result_pad(head, column);
    int32_t r = (int32_t)(uint32_t)rax;               /* (printf's int, as "= %d") */
    char *end = m->num + sizeof m->num;
    char *b = digits_before(end, r < 0 ? 0 - (uint64_t)(int64_t)r : (uint64_t)r, 10);
    if (r < 0) *--b = '-';
    m->num_at = (size_t)(b - m->num);
    return m->left_w + m->sep_w + m->right_w + TXT_CALL_CLOSE_LEN + m->pad + RESULT_SEP_LEN + (sizeof m->num - m->num_at);
}

/* the middle into out (middle_size's bytes); 0, or -1 when a text is not ASCII (never: the
 * renderers write escapes, digits and C's %f) */
static int middle_write(const LineMiddle *m, char *out)
{
    char *o = out;
    if (m->left != NULL) o += join_texts(o, m->left, m->left_len, m->nleft);
    if (m->sep_w) { memcpy(o, TXT_SEP, TXT_SEP_LEN); o += TXT_SEP_LEN; }
    if (m->right_w) o += join_texts(o, m->right, m->right_len, m->nright);
    unsigned char high = 0;
    for (char *c = out; c < o; c++) high |= (unsigned char)*c;
    memcpy(o, TXT_CALL_CLOSE, TXT_CALL_CLOSE_LEN);
    o += TXT_CALL_CLOSE_LEN;
    memset(o, ' ', m->pad);
    o += m->pad;
    memcpy(o, RESULT_SEP, RESULT_SEP_LEN);
    o += RESULT_SEP_LEN;
    memcpy(o, m->num + m->num_at, sizeof m->num - m->num_at);
    return high & 0x80 ? -1 : 0;
}

/* take_line(seq, prefix, rax, suffix, column) -> str: the whole line of a leaf call, as
 * printflog.PrintfSite._line makes it from take_left and take_right (prefix: the display name
 * and "("; the texts are ASCII, so the padding counts prefix characters and text bytes). Made
 * in one string when prefix and suffix are ASCII (always, but for a name that is not). */
static PyObject *store_line(PrintfStoreObject *self, uint64_t seq, PyObject *prefix, uint64_t rax,
                            PyObject *suffix, Py_ssize_t column)
{
    char *lp = NULL, *rp = NULL;
    LineMiddle m;
    memset(&m, 0, sizeof m);
    if (store_grab(self, seq, 0, &lp, &m.left_len, &m.nleft) < 0) { lp = NULL; m.nleft = 0; }
    if (store_grab(self, seq, 1, &rp, &m.right_len, &m.nright) < 0) { rp = NULL; m.nright = 0; }
    m.left = lp;
    m.right = rp;
    Py_ssize_t plen = PyUnicode_GET_LENGTH(prefix), slen = PyUnicode_GET_LENGTH(suffix);
    size_t mid = middle_size(&m, plen, column, rax);
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
    Py_ssize_t column;
    if (!PyArg_ParseTuple(args, "KUKUn", &seq, &prefix, &rax, &suffix, &column)) return NULL;
    return store_line(self, seq, prefix, rax, suffix, column);
}

static PyMethodDef PrintfStore_methods[] = {
    {"take_left", (PyCFunction)PrintfStore_take_left, METH_O, "take_left(seq) -> the texts shown at the call, or None"},
    {"take_right", (PyCFunction)PrintfStore_take_right, METH_O, "take_right(seq) -> the texts shown at the return, or None"},
    {"take_line", (PyCFunction)PrintfStore_take_line, METH_VARARGS,
     "take_line(seq, prefix, rax, suffix, column) -> the line of a leaf call"},
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
 * PrintfLeaf(store, prefix, column): a printf-family site as _native.c's leaf_run sees it. Its
 * leaf calls' lines are take_line's, made in the run of leaf calls that leaf_run renders, so a
 * printf call among other logged calls does not send the run back to Python. */

typedef struct {
    PyObject_HEAD
    PrintfStoreObject *store;
    PyObject *prefix;                   /* the display name and "(" */
    Py_ssize_t column;
} PrintfLeafObject;

static int PrintfLeaf_init(PrintfLeafObject *self, PyObject *args, PyObject *kwds)
{
    PyObject *store, *prefix;
    Py_ssize_t column;
    if (!PyArg_ParseTuple(args, "O!Un", &PrintfStoreType, &store, &prefix, &column)) return -1;
    Py_INCREF(store);
    Py_INCREF(prefix);
    Py_XSETREF(self->store, (PrintfStoreObject *)store);
    Py_XSETREF(self->prefix, prefix);
    self->column = column;
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
    return store_line(self->store, seq, self->prefix, rax, suffix, self->column);
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
    .tp_doc = "PrintfLeaf(store, prefix, column): a printf-family site's leaf lines, for leaf_run",
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
    return store_line(self->store, seq, self->prefix, rax, suffix, self->column);
}


#endif
