/* InsnCounter: the count of retired guest instructions on one engine (part of
 * emutrace.machine._native), the work that drives emutrace's virtual clock (docs/time.md).
 *
 * InsnCounter(uc_hook_add, uc_emu_stop, uc_mem_read, engine, hook_type,
 *             cs_open, cs_malloc, cs_disasm_iter, cs_arch, cs_mode[, cs_close, cs_free])
 *
 * (cs_close and cs_free, when given, free the capstone handle and its insn buffer with the
 * counter: see InsnCounter_dealloc.)
 *
 * One UC_HOOK_BLOCK callback in C. Unicorn calls a lone hook of a kind directly from the
 * translated code (no hook list walked), so one executed block costs a call, one probe of an
 * open-addressing table keyed by (address, size) and an add: the block's instruction count is
 * decoded once, at its first execution on the engine, with the capstone library the binding of
 * capstone loaded (function addresses passed in from Python, as Unicorn's).
 *
 * The hook adds a block's instructions when the block starts. Unicorn calls a block hook before
 * the block's exit check, so at any stop the block last entered (start, size, n) ran up to rip:
 * rip inside it means the instructions before rip retired and those from rip on did not (a fault,
 * a code hook that stopped, a count-limited step, a stop requested at the block's start); rip
 * outside it means the block ran to its end (a system call ends its block). exact(rip) says the
 * count so; settle(rip) makes it the count (call it once emulation stopped and before anything
 * moves rip: emulation resumed at rip enters a new block there). A block cannot jump back into
 * itself without entering a new block, so rip == start always means "not run".
 *
 * Each iteration of a rep-prefixed string instruction re-enters its block in QEMU and counts as
 * one instruction, as in QEMU's -icount and Unicorn's count-limited emu_start.
 *
 * stop_at (< 0: off): the block that would take the count past stop_at is not entered; emulation
 * stops at its start (ran_out set), so a run ends exactly at stop_at when a block ends there, and
 * otherwise a count-limited emu_start of the difference finishes it (emutrace/machine/workcount.py).
 * With overshoot set, the stop comes instead at the first block entered once the count has
 * reached stop_at: a run always makes progress (the scheduler's time slice, whose end need not
 * be exact, uses it).
 *
 * skip: up to SKIP_MAX address ranges whose blocks are not counted (emutrace's own guest code,
 * the call-log trampolines: tracing must not change the guest's clock), kept sorted and
 * searched by bisection (an untraced run has none: nothing is searched).
 *
 * answer_tsc(...): RDTSC and RDTSCP answered in C from the same count: tsc_base + total * rate
 * (the virtual clock's monotonic nanoseconds, which the World keeps in tsc_base: docs/time.md),
 * RDTSCP's IA32_TSC_AUX 0 (CPU 0). No Python runs for a read, so the vDSO's clock is native too.
 *
 * Memory: 16 bytes per distinct (address, size), the table at most half full, at most 2^MAX_BITS
 * slots; past that a block is decoded at each execution (slower, still exact). Portable C99 and
 * the Python C API only. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_u64table.h"
#include "_uchook.h"
#include "_module.h"            /* emutrace_add_type */

typedef int (*ic_emu_stop_fn)(void *uc);
typedef int (*ic_mem_read_fn)(void *uc, uint64_t address, void *bytes, uint64_t size);
typedef int (*ic_cs_open_fn)(int arch, int mode, size_t *handle);
typedef void *(*ic_cs_malloc_fn)(size_t handle);
typedef int (*ic_cs_disasm_iter_fn)(size_t handle, const uint8_t **code, size_t *size, uint64_t *address,
                                    void *insn);

typedef int (*ic_reg_write_fn)(void *uc, int regid, const void *value);
typedef int (*ic_reg_read_fn)(void *uc, int regid, void *value);
typedef int (*ic_hook_del_fn)(void *uc, size_t hh);
typedef int (*ic_ctl_fn)(void *uc, int control, ...);
/* what a watching counter calls on its engine (watch(): _positions.h) */
typedef struct {
    emutrace_uc_hook_add_fn hook_add;
    ic_hook_del_fn hook_del;
    ic_ctl_fn ctl;
    ic_reg_read_fn reg_read;
    ic_reg_write_fn reg_write;
    int code_type, rip, remove_cache;
} IcWatchFns;
typedef int (*ic_cs_close_fn)(size_t *handle);
typedef void (*ic_cs_free_fn)(void *insn, size_t count);

#if defined(__GNUC__) || defined(__clang__)
#define IC_LIKELY(x) __builtin_expect(!!(x), 1)
#define IC_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define IC_LIKELY(x) (x)
#define IC_NOINLINE __declspec(noinline)
#else
#define IC_LIKELY(x) (x)
#define IC_NOINLINE
#endif

#define IC_INITIAL_BITS 12
#define IC_MAX_BITS 24
/* The front cache: direct-mapped, by address, in front of the table. A program's hot blocks fit
 * in it, so an executed block costs one load from a line that stays in the CPU's cache instead
 * of a probe of the whole table (most of the counter's cost on real programs: docs/time.md). */
#define FRONT_BITS 11
/* Blocks entered are counted in batches (ic_sync): the callback only stores the block into the
 * batch, and stop_at is tested at every CHECK_PERIOD-th block entered (at every block while an
 * exact stop is asked for). Measured on xz (docs/time.md): a lookup at each block's entry costs
 * ~15% of an untraced run (the lookup's cache line is gone, evicted by the guest's own memory
 * traffic, at nearly every block); the same lookups done one after another in a batch stay in
 * the cache. */
#define CHECK_PERIOD 1024          /* (the batch holds as many) */

typedef struct {
    uint64_t entry;             /* address | size << 48 (0 with n 0: empty, and right for it) */
    uint64_t n;
} IcFront;

/* an entry's address, canonical (bit 47 extended) */
static inline uint64_t ic_address(uint64_t entry)
{
    return (uint64_t)((int64_t)(entry << 16) >> 16);
}

#define SKIP_MAX 1024
#define CODE_MAX 8192           /* a TB is shorter than a page (QEMU ends it before) */

typedef struct {
    PyObject_HEAD
    void *uc;
    ic_emu_stop_fn emu_stop;
    ic_mem_read_fn mem_read;
    ic_cs_disasm_iter_fn disasm_iter;
    size_t cs;
    void *insn;                 /* capstone's cs_insn buffer (cs_malloc) */
    U64Table table;             /* (address | size << 48) + 1 -> instructions (_u64table.h) */
    uint64_t total;             /* instructions counted, the last entered block in full */
    uint64_t cur_start, cur_size, cur_n;   /* the last entered block (cur_size 0: none) */
    int64_t stop_at;            /* < 0: off */
    int overshoot;              /* stop_at stops at the first block entered once total >= stop_at */
    int ran_out;
    int64_t tsc_base;           /* RDTSC = tsc_base + total * rate */
    int64_t rate;
    ic_reg_write_fn reg_write;
    int reg_rax, reg_rdx, reg_rcx;
    size_t tsc_handles[2];
    int nskip;
    uint64_t skip_lo[SKIP_MAX], skip_hi[SKIP_MAX];     /* sorted by lo, disjoint */
    size_t handle;
    int hooked;
    ic_cs_close_fn cs_close;    /* (0: not passed in, the capstone handle is never closed) */
    ic_cs_free_fn cs_free;
    int cs_opened;
    struct PositionsObject *watch;      /* (a reference) the run's positions, or NULL */
    uint64_t wbase;             /* watch: the run's position = wbase + this engine's count */
    uint64_t k;                 /* watch: instructions of the block last entered seen so far */
    IcWatchFns w;               /* watch: the engine calls the debugger's fine mode needs */
    size_t fine_handle;         /* watch: the per-instruction hook on [fine_lo, fine_hi] (0: none) */
    uint64_t fine_lo, fine_hi;
    size_t fine_all_handle;     /* watch: the per-instruction hook everywhere (0: none) */
    uint64_t *pos;              /* the next free entry of batch */
    uint64_t *done;             /* batch[..done) counted already (by a reader's ic_sync) */
    uint64_t *end;              /* the block stored at end - 1 is a stop check (ic_period) */
    size_t sync_handle;
    uint64_t batch[CHECK_PERIOD];      /* blocks entered, not yet counted: address | size << 48 */
    IcFront front[1 << FRONT_BITS];
} InsnCounterObject;

/* Instructions that start in the `len` bytes at `code` (the code at `address`), decoded from
 * its start. An undecodable instruction ends the count: QEMU ends its block there too. */
static uint64_t ic_count(InsnCounterObject *c, const uint8_t *code, uint64_t len, uint64_t address)
{
    size_t size = (size_t)len;
    uint64_t addr = address, n = 0;
    while (size > 0 && c->disasm_iter(c->cs, &code, &size, &addr, c->insn)) n++;
    if (size > 0) n++;          /* the undecodable one: QEMU translated it (it raised its fault) */
    return n;
}

/* Instructions that start in [address, address + len) of the code there. */
static uint64_t ic_decode(InsnCounterObject *c, void *uc, uint64_t address, uint64_t len)
{
    uint8_t buf[CODE_MAX];
    if (len == 0) return 0;
    if (len > CODE_MAX) len = CODE_MAX;
    if (c->mem_read(uc, address, buf, len) != 0) return 1;
    return ic_count(c, buf, len, address);
}

#include "_sharedblocks.h"     /* ic_shared_count: blocks decoded once for the whole run */

/* the debugger's positions (_positions.h) */
static void ic_watch_switch(InsnCounterObject *c);
static uint32_t ic_watch_period(InsnCounterObject *c);
static int ic_watch_enter(InsnCounterObject *c, void *uc, uint64_t address, uint32_t size, uint64_t n);

static IC_NOINLINE uint64_t ic_lookup_slow(InsnCounterObject *c, void *uc, uint64_t entry, IcFront *f)
{
    uint64_t key = entry + 1;
    U64Slot *s = u64t_probe(&c->table, key);
    uint64_t n;
    if (s->key == key) {
        n = s->value;
    } else {
        n = ic_shared_count(c, uc, ic_address(entry), entry >> 48, key);
        s = u64t_insert(&c->table, key);
        if (s != NULL) s->value = n;            /* (full: decoded again when it leaves the front) */
    }
    f->entry = entry;
    f->n = n;
    return n;
}

/* a block's instructions; entry: its address | size << 48 */
static inline uint64_t ic_lookup(InsnCounterObject *c, void *uc, uint64_t entry)
{
    IcFront *f = &c->front[(entry ^ (entry >> FRONT_BITS)) & ((1u << FRONT_BITS) - 1)];
    if (IC_LIKELY(f->entry == entry)) return f->n;
    return ic_lookup_slow(c, uc, entry, f);
}

static int ic_in_skip(InsnCounterObject *c, uint64_t address)
{
    if (c->nskip == 0 || address < c->skip_lo[0]) return 0;
    int lo = 0, hi = c->nskip;          /* the last range whose lo <= address */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (c->skip_lo[mid] <= address) lo = mid;
        else hi = mid;
    }
    return address < c->skip_hi[lo];
}

/* A block entered: counted (check 0), or, at a stop check, not entered when stop_at says so */
static void ic_enter(InsnCounterObject *c, void *uc, uint64_t entry, int check)
{
    uint64_t address = ic_address(entry);
    uint32_t size = (uint32_t)(entry >> 48);
    c->k = 0;
    if (c->nskip > 0 && ic_in_skip(c, address)) {
        c->cur_size = 0;
        return;
    }
    uint64_t n = ic_lookup(c, uc, entry);
    if (check && c->stop_at >= 0 && (c->overshoot ? c->total >= (uint64_t)c->stop_at
                                                  : c->total + n > (uint64_t)c->stop_at)) {
        c->stop_at = -1;
        c->ran_out = 1;
        c->cur_size = 0;        /* not entered: rip stays at address */
        c->emu_stop(uc);
        return;
    }
    if (check && c->watch != NULL && ic_watch_enter(c, uc, address, size, n)) {
        c->cur_size = 0;        /* entered again, with the per-instruction hook: counted then */
        return;
    }
    c->total += n;
    c->cur_start = address;
    c->cur_size = size;
    c->cur_n = n;
}

/* blocks between stop checks: 1 while an exact stop is asked for (run_to), else CHECK_PERIOD
 * (the scheduler's slices, whose end need not be exact: overshoot); while the debugger watches,
 * as many as cannot reach a stop (ic_watch_period) */
static uint32_t ic_period(InsnCounterObject *c)
{
    if (c->watch != NULL) return ic_watch_period(c);
    return c->stop_at >= 0 && !c->overshoot ? 1 : CHECK_PERIOD;
}

/* Counts the blocks of the batch not counted yet: before anything reads the count. A block
 * entered again right after itself (a loop of one block) costs no lookup. The batch itself is
 * emptied only at a stop check, so readers never move the checks. */
static void ic_sync(InsnCounterObject *c)
{
    uint64_t *end = c->pos, *e = c->done;
    if (c->watch != NULL) ic_watch_switch(c);
    if (e == end) return;
    c->done = end;
    if (c->nskip > 0) {
        for (; e < end; e++) ic_enter(c, c->uc, *e, 0);
        return;
    }
    uint64_t prev = *e, n = ic_lookup(c, c->uc, prev), total = c->total + n;
    for (e++; e < end; e++) {
        if (*e != prev) {
            prev = *e;
            n = ic_lookup(c, c->uc, prev);
        }
        total += n;
    }
    c->total = total;
    c->k = 0;
    c->cur_start = ic_address(prev);
    c->cur_size = prev >> 48;
    c->cur_n = n;
}

/* the stop check at the last block stored: the batch before it counted, then that block entered
 * or not; the batch starts again */
static IC_NOINLINE void ic_on_block_slow(InsnCounterObject *c, void *uc)
{
    uint64_t *last = c->pos - 1;
    uint64_t entry = *last;
    c->pos = last;
    ic_sync(c);
    c->pos = c->done = c->batch;
    c->end = c->batch + ic_period(c);
    ic_enter(c, uc, entry, 1);
    if (c->watch != NULL) c->end = c->batch + ic_period(c);     /* (from the count after it) */
}

/* The callback Unicorn calls from translated code at each block: the block is stored in the
 * batch; the slow path runs when a stop check is due (the batch is then full, or an exact stop
 * is asked for). Every block entered counts toward the check (a skipped one too), so stops fall
 * at the same blocks on the pure path (workcount.PyInsnCounter), whoever reads the count. */
static void ic_on_block(void *uc, uint64_t address, uint32_t size, void *user)
{
    InsnCounterObject *c = user;
    uint64_t *p = c->pos;
    *p++ = address | ((uint64_t)size << 48);
    c->pos = p;
    if (IC_LIKELY(p != c->end)) return;
    ic_on_block_slow(c, uc);
}

/* at each syscall instruction, before the kernel's hook (registered after it): the batch is
 * counted while the code its blocks ran is still mapped as it was (munmap, mprotect, exec) */
/* bench/ only (EMUTRACE_BENCH_NO_COUNTER=empty): a block hook that does nothing, so that the
 * bench can tell Unicorn's own cost of calling a block hook (the pc stored, the call from translated
 * code) from the counter's (docs/time.md) */
static void ic_on_block_empty(void *uc, uint64_t address, uint32_t size, void *user)
{
}

static void ic_on_syscall(void *uc, void *user)
{
    ic_sync(user);
}



static void ic_tsc(InsnCounterObject *c, void *uc)
{
    ic_sync(c);
    uint64_t tsc = (uint64_t)c->tsc_base + c->total * (uint64_t)c->rate;
    uint64_t lo = tsc & 0xFFFFFFFFu, hi = tsc >> 32;
    c->reg_write(uc, c->reg_rax, &lo);
    c->reg_write(uc, c->reg_rdx, &hi);
}

static int ic_on_rdtsc(void *uc, void *user)
{
    ic_tsc(user, uc);
    return 1;                   /* the instruction's own answer is skipped */
}

static int ic_on_rdtscp(void *uc, void *user)
{
    InsnCounterObject *c = user;
    uint64_t zero = 0;
    ic_tsc(c, uc);
    c->reg_write(uc, c->reg_rcx, &zero);
    return 1;
}

/* the count if emulation stopped with this rip */
static uint64_t ic_exact(InsnCounterObject *c, uint64_t rip)
{
    ic_sync(c);
    if (c->cur_size == 0 || rip - c->cur_start >= c->cur_size) return c->total;
    return c->total - c->cur_n + ic_decode(c, c->uc, c->cur_start, rip - c->cur_start);
}

#include "_positions.h"     /* Positions, ic_on_insn, watch(): the debugger's */

static int InsnCounter_init(InsnCounterObject *self, PyObject *args, PyObject *kwds)
{
    unsigned long long hook_add, emu_stop, mem_read, engine, cs_open, cs_malloc, disasm_iter;
    unsigned long long cs_close = 0, cs_free = 0;
    int hook_type, arch, mode, hook = 1;   /* 0: not hooked, 2: an empty hook (bench/) */
    if (self->hooked) {
        PyErr_SetString(PyExc_RuntimeError, "emutrace.machine._native.InsnCounter: already registered");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "KKKKiKKKii|KKi", &hook_add, &emu_stop, &mem_read, &engine, &hook_type,
                          &cs_open, &cs_malloc, &disasm_iter, &arch, &mode, &cs_close, &cs_free, &hook))
        return -1;
    if (!hook_add || !emu_stop || !mem_read || !engine || !cs_open || !cs_malloc || !disasm_iter) {
        PyErr_SetString(PyExc_ValueError, "emutrace.machine._native.InsnCounter: a null function or engine");
        return -1;
    }
    self->uc = (void *)(uintptr_t)engine;
    self->emu_stop = (ic_emu_stop_fn)(uintptr_t)emu_stop;
    self->mem_read = (ic_mem_read_fn)(uintptr_t)mem_read;
    self->disasm_iter = (ic_cs_disasm_iter_fn)(uintptr_t)disasm_iter;
    if (((ic_cs_open_fn)(uintptr_t)cs_open)(arch, mode, &self->cs) != 0) {
        PyErr_SetString(PyExc_OSError, "emutrace.machine._native.InsnCounter: cs_open failed");
        return -1;
    }
    self->cs_opened = 1;
    self->cs_close = (ic_cs_close_fn)(uintptr_t)cs_close;
    self->cs_free = (ic_cs_free_fn)(uintptr_t)cs_free;
    self->insn = ((ic_cs_malloc_fn)(uintptr_t)cs_malloc)(self->cs);
    if (self->insn == NULL || u64t_init(&self->table, IC_INITIAL_BITS, IC_MAX_BITS) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->stop_at = -1;
    self->pos = self->done = self->batch;
    self->end = self->batch + CHECK_PERIOD;
    if (!hook) return 0;        /* (bench/: the engine's cost without the counter; nothing counts) */
    if (emutrace_register_hook(hook_add, engine, &self->handle, hook_type,
                               hook == 2 ? (void *)ic_on_block_empty : (void *)ic_on_block, self) < 0)
        return -1;
    self->hooked = hook == 1;
    return 0;
}

static void InsnCounter_dealloc(InsnCounterObject *self)
{
    /* The capstone handle and its insn buffer go with the counter: ~90 KB an engine (cs_open's
     * x86 tables and cs_malloc's detail buffer), which every fork and exec kept to the end of the
     * run when they were left to the process's exit (tests/test_churn.py). Machine.close drops
     * the counter after uc_close, so no hook can call into it any more. */
    if (self->insn != NULL && self->cs_free != NULL) self->cs_free(self->insn, 1);
    self->insn = NULL;
    if (self->cs_opened && self->cs_close != NULL) self->cs_close(&self->cs);
    self->cs_opened = 0;
    u64t_free(&self->table);
    ic_watch_release(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *InsnCounter_exact(InsnCounterObject *self, PyObject *arg)
{
    unsigned long long rip = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromUnsignedLongLong(ic_exact(self, rip));
}

static PyObject *InsnCounter_settle(InsnCounterObject *self, PyObject *arg)
{
    unsigned long long rip = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
    self->total = ic_exact(self, rip);
    self->cur_size = 0;
    if (self->watch != NULL) self->end = self->pos + 1;     /* (a switch of engine: checked at once) */
    return PyLong_FromUnsignedLongLong(self->total);
}

static PyObject *InsnCounter_skip(InsnCounterObject *self, PyObject *args)
{
    unsigned long long lo, hi;
    if (!PyArg_ParseTuple(args, "KK", &lo, &hi)) return NULL;
    if (hi <= lo) Py_RETURN_NONE;
    /* merged with the ranges it touches, the result inserted in order */
    uint64_t nlo[SKIP_MAX + 1], nhi[SKIP_MAX + 1];
    int n = 0, placed = 0;
    for (int i = 0; i < self->nskip; i++) {
        uint64_t a = self->skip_lo[i], b = self->skip_hi[i];
        if (b < lo || a > hi) {
            if (!placed && a > hi) {
                nlo[n] = lo; nhi[n] = hi; n++; placed = 1;
            }
            nlo[n] = a; nhi[n] = b; n++;
        } else {
            if (a < lo) lo = a;
            if (b > hi) hi = b;
        }
    }
    if (!placed) { nlo[n] = lo; nhi[n] = hi; n++; }
    if (n > SKIP_MAX) {
        PyErr_SetString(PyExc_OverflowError, "InsnCounter: too many skipped ranges");
        return NULL;
    }
    memcpy(self->skip_lo, nlo, sizeof(uint64_t) * (size_t)n);
    memcpy(self->skip_hi, nhi, sizeof(uint64_t) * (size_t)n);
    ic_sync(self);              /* (the blocks entered before count as they were) */
    self->nskip = n;
    Py_RETURN_NONE;
}

/* answer_tsc(uc_hook_add, uc_reg_write, hook_type, insn_rdtsc, insn_rdtscp, reg_rax, reg_rdx, reg_rcx) */
static PyObject *InsnCounter_answer_tsc(InsnCounterObject *self, PyObject *args)
{
    unsigned long long hook_add, reg_write;
    int hook_type, insns[2];
    if (!PyArg_ParseTuple(args, "KKiiiiii", &hook_add, &reg_write, &hook_type, &insns[0], &insns[1],
                          &self->reg_rax, &self->reg_rdx, &self->reg_rcx))
        return NULL;
    if (self->reg_write != NULL) Py_RETURN_NONE;            /* (once per engine) */
    self->reg_write = (ic_reg_write_fn)(uintptr_t)reg_write;
    if (self->rate == 0) self->rate = 1;
    emutrace_uc_hook_add_fn add = (emutrace_uc_hook_add_fn)(uintptr_t)hook_add;
    void *cbs[2] = {(void *)ic_on_rdtsc, (void *)ic_on_rdtscp};
    for (int i = 0; i < 2; i++) {
        int err = add(self->uc, &self->tsc_handles[i], hook_type, cbs[i], self, (uint64_t)1, (uint64_t)0, insns[i]);
        if (err != 0) return PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
    }
    Py_RETURN_NONE;
}

/* sync_at_syscall(uc_hook_add, hook_type, insn_syscall): ic_on_syscall, once per engine */
static PyObject *InsnCounter_sync_at_syscall(InsnCounterObject *self, PyObject *args)
{
    unsigned long long hook_add;
    int hook_type, insn;
    if (!PyArg_ParseTuple(args, "Kii", &hook_add, &hook_type, &insn)) return NULL;
    if (self->sync_handle != 0 || !self->hooked) Py_RETURN_NONE;
    emutrace_uc_hook_add_fn add = (emutrace_uc_hook_add_fn)(uintptr_t)hook_add;
    int err = add(self->uc, &self->sync_handle, hook_type, (void *)ic_on_syscall, self, (uint64_t)1, (uint64_t)0, insn);
    if (err != 0) return PyErr_Format(PyExc_OSError, "uc_hook_add failed (Unicorn error %d)", err);
    Py_RETURN_NONE;
}

static PyObject *InsnCounter_get_tsc_base(InsnCounterObject *self, void *closure)
{
    return PyLong_FromLongLong(self->tsc_base);
}

static int InsnCounter_set_tsc_base(InsnCounterObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "tsc_base cannot be deleted");
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->tsc_base = v;
    return 0;
}

static PyObject *InsnCounter_get_rate(InsnCounterObject *self, void *closure)
{
    return PyLong_FromLongLong(self->rate ? self->rate : 1);
}

static int InsnCounter_set_rate(InsnCounterObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "rate cannot be deleted");
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->rate = v;
    return 0;
}

static PyObject *InsnCounter_get_total(InsnCounterObject *self, void *closure)
{
    ic_sync(self);
    return PyLong_FromUnsignedLongLong(self->total);
}

static int InsnCounter_set_total(InsnCounterObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "total cannot be deleted");
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLongMask(value);
    if (PyErr_Occurred()) return -1;
    ic_sync(self);
    self->total = v;
    self->cur_size = 0;
    return 0;
}

static PyObject *InsnCounter_get_stop_at(InsnCounterObject *self, void *closure)
{
    return PyLong_FromLongLong(self->stop_at);
}

static int InsnCounter_set_stop_at(InsnCounterObject *self, PyObject *value, void *closure)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "stop_at cannot be deleted");
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    self->stop_at = v < 0 ? -1 : v;
    ic_rearm(self);             /* (an exact stop: checked from the next block) */
    self->ran_out = 0;
    return 0;
}

static PyObject *InsnCounter_get_overshoot(InsnCounterObject *self, void *closure)
{
    return PyBool_FromLong(self->overshoot);
}

static int InsnCounter_set_overshoot(InsnCounterObject *self, PyObject *value, void *closure)
{
    int v = value == NULL ? 0 : PyObject_IsTrue(value);
    if (v < 0) return -1;
    self->overshoot = v;
    ic_rearm(self);
    return 0;
}

static PyObject *InsnCounter_get_ran_out(InsnCounterObject *self, void *closure)
{
    return PyBool_FromLong(self->ran_out);
}

static PyObject *InsnCounter_get_blocks(InsnCounterObject *self, void *closure)
{
    ic_sync(self);
    return PyLong_FromSsize_t(self->table.used);
}

static PyObject *InsnCounter_get_handle(InsnCounterObject *self, void *closure)
{
    return PyLong_FromSize_t(self->handle);
}

/* forget(lo, hi): the engine's counts of the blocks that overlap [lo, hi) are dropped, the batch
 * counted first (its blocks ran the code that was there). Called where Unicorn drops the
 * translations of a range (emutrace's ctl_remove_cache, a page written and then executed): a block
 * translated again from other bytes at the same address and size is then counted from its own
 * bytes (through the shared table, which compares them), not with the count of the old ones. */
static int ic_overlaps(uint64_t entry, uint64_t lo, uint64_t hi)
{
    uint64_t address = ic_address(entry), size = entry >> 48;
    return address < hi && address + (size ? size : 1) > lo;
}

static PyObject *InsnCounter_forget(InsnCounterObject *self, PyObject *args)
{
    unsigned long long lo, hi;
    if (!PyArg_ParseTuple(args, "KK", &lo, &hi)) return NULL;
    if (lo >= hi) Py_RETURN_NONE;
    ic_sync(self);
    for (size_t i = 0; i < (size_t)1 << FRONT_BITS; i++) {
        if (self->front[i].entry != 0 && ic_overlaps(self->front[i].entry, lo, hi)) {
            self->front[i].entry = 0;
            self->front[i].n = 0;
        }
    }
    U64Table *t = &self->table;
    U64Slot *old = t->slots;
    U64Slot *slots = PyMem_RawCalloc((size_t)t->mask + 1, sizeof(U64Slot));
    if (slots == NULL) return PyErr_NoMemory();
    Py_ssize_t used = 0;
    for (uint64_t i = 0; i <= t->mask; i++) {
        if (old[i].key == 0 || ic_overlaps(old[i].key - 1, lo, hi)) continue;
        *u64t_probe_in(slots, t->mask, t->bits, old[i].key) = old[i];
        used++;
    }
    t->slots = slots;
    t->used = used;
    PyMem_RawFree(old);
    Py_RETURN_NONE;
}

static PyObject *InsnCounter_shared(PyObject *self, PyObject *unused)
{
    (void)self; (void)unused;
    return Py_BuildValue("nn", (Py_ssize_t)shared_used, (Py_ssize_t)shared_code_used);
}

/* unwatch(): the engine is about to close; the debugger's positions keep its position */
static PyObject *InsnCounter_unwatch(InsnCounterObject *self, PyObject *unused)
{
    (void)unused;
    ic_sync(self);
    ic_watch_release(self);
    Py_RETURN_NONE;
}

/* renew(): the counter of a reused engine (emutrace/machine/reuse.py) starts as a new one would, its
 * block hook and its system-call sync kept (deleting a block hook drops every translation it
 * instrumented: the reuse is of those). Every count of the engine's table is dropped (the next
 * process's blocks are counted from their own bytes, through the shared table), the total, the
 * stop, the skipped ranges, the clock's base and the debugger's watch are reset, and the RDTSC
 * answers let go (the caller deletes their hooks through the engine's registry: the next process
 * may have its RDTSC answered in Python). keep -> (handle, sync handle): the hooks to keep. */
static PyObject *InsnCounter_renew(InsnCounterObject *self, PyObject *unused)
{
    (void)unused;
    ic_sync(self);
    ic_watch_release(self);
    memset(self->front, 0, sizeof self->front);
    memset(self->table.slots, 0, ((size_t)self->table.mask + 1) * sizeof(U64Slot));
    self->table.used = 0;
    self->total = 0;
    self->cur_start = self->cur_size = self->cur_n = 0;
    self->stop_at = -1;
    self->overshoot = 0;
    self->ran_out = 0;
    self->tsc_base = 0;
    self->rate = 0;
    self->reg_write = NULL;
    self->tsc_handles[0] = self->tsc_handles[1] = 0;
    self->nskip = 0;
    self->pos = self->done = self->batch;
    self->end = self->batch + CHECK_PERIOD;
    Py_RETURN_NONE;
}

static PyObject *InsnCounter_get_keep(InsnCounterObject *self, void *closure)
{
    return Py_BuildValue("nn", (Py_ssize_t)self->handle, (Py_ssize_t)self->sync_handle);
}

static PyMethodDef InsnCounter_methods[] = {
    {"renew", (PyCFunction)InsnCounter_renew, METH_NOARGS,
     "renew(): a reused engine's counter starts over (its block hook and syscall sync kept)"},
    {"shared", (PyCFunction)InsnCounter_shared, METH_NOARGS | METH_STATIC,
     "shared() -> (blocks, code bytes) in the host process's table of decoded blocks"},
    {"exact", (PyCFunction)InsnCounter_exact, METH_O,
     "exact(rip) -> the instructions retired if emulation stopped at rip (changes nothing)"},
    {"settle", (PyCFunction)InsnCounter_settle, METH_O,
     "settle(rip) -> exact(rip), made the count: call once emulation stopped at rip"},
    {"skip", (PyCFunction)InsnCounter_skip, METH_VARARGS, "skip(lo, hi): blocks in [lo, hi) are not counted"},
    {"forget", (PyCFunction)InsnCounter_forget, METH_VARARGS,
     "forget(lo, hi): the engine's counts of blocks overlapping [lo, hi) dropped (their code changed)"},
    {"watch", (PyCFunction)InsnCounter_watch, METH_VARARGS,
     "watch(positions, uc_hook_add, code_hook_type, uc_hook_del, uc_ctl, uc_reg_read, uc_reg_write, reg_rip, "
     "ctl_remove_cache): this engine counts toward the run's positions (_positions.h)"},
    {"unwatch", (PyCFunction)InsnCounter_unwatch, METH_NOARGS,
     "unwatch(): no longer counted toward the run's positions (before the engine closes)"},
    {"sync_at_syscall", (PyCFunction)InsnCounter_sync_at_syscall, METH_VARARGS,
     "sync_at_syscall(uc_hook_add, hook_type, insn_syscall): the batch counted at each syscall instruction"},
    {"answer_tsc", (PyCFunction)InsnCounter_answer_tsc, METH_VARARGS,
     "answer_tsc(uc_hook_add, uc_reg_write, hook_type, insn_rdtsc, insn_rdtscp, rax, rdx, rcx): "
     "RDTSC/RDTSCP answered in C with tsc_base + total * rate"},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef InsnCounter_getset[] = {
    {"total", (getter)InsnCounter_get_total, (setter)InsnCounter_set_total,
     "instructions counted (the block last entered in full; settle() makes it exact)", NULL},
    {"stop_at", (getter)InsnCounter_get_stop_at, (setter)InsnCounter_set_stop_at,
     "stop before the block that would take total past this (< 0: off); setting it clears ran_out", NULL},
    {"ran_out", (getter)InsnCounter_get_ran_out, NULL, "the last stop was stop_at's", NULL},
    {"overshoot", (getter)InsnCounter_get_overshoot, (setter)InsnCounter_set_overshoot,
     "stop_at stops at the first block entered once total >= stop_at (never before any progress)", NULL},
    {"blocks", (getter)InsnCounter_get_blocks, NULL, "distinct blocks decoded", NULL},
    {"tsc_base", (getter)InsnCounter_get_tsc_base, (setter)InsnCounter_set_tsc_base,
     "RDTSC answers tsc_base + total * rate", NULL},
    {"rate", (getter)InsnCounter_get_rate, (setter)InsnCounter_set_rate, "nanoseconds per instruction", NULL},
    {"handle", (getter)InsnCounter_get_handle, NULL, "the hook's Unicorn handle", NULL},
    {"keep", (getter)InsnCounter_get_keep, NULL, "(block hook, syscall sync hook): kept by renew", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject InsnCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emutrace.machine._native.InsnCounter",
    .tp_basicsize = sizeof(InsnCounterObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "InsnCounter(uc_hook_add, uc_emu_stop, uc_mem_read, engine, hook_type, cs_open, cs_malloc, "
              "cs_disasm_iter, cs_arch, cs_mode[, cs_close, cs_free]): retired guest instructions on one engine",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)InsnCounter_init,
    .tp_dealloc = (destructor)InsnCounter_dealloc,
    .tp_methods = InsnCounter_methods,
    .tp_getset = InsnCounter_getset,
};

int emutrace_register_insncount(PyObject *module)
{
    if (emutrace_add_type(module, "Positions", &PositionsType) < 0) return -1;
    if (emutrace_add_type(module, "InsnCounter", &InsnCounterType) < 0) return -1;
    return 0;
}
