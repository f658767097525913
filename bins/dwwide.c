/* Structures wider than what --ftrace -a shows (16 members, then "..."): the members after the
   16th are not read from DWARF (docs/dwarf.md). The trace must be the same as if they were:
   a structure of 40 members by pointer and by value, one of exactly 16 and one of 17, a union
   over 16 bytes, bitfields around the 16th member, a wide structure nested in another, and a
   small one passed in registers. */
#include <stdio.h>
#include <string.h>

#define M4(p) int p##0; int p##1; int p##2; int p##3;
struct wide { M4(a) M4(b) M4(c) M4(d) M4(e) M4(f) M4(g) M4(h) M4(i) M4(j) };        /* 40 */
struct sixteen { M4(a) M4(b) M4(c) M4(d) };
struct seventeen { M4(a) M4(b) M4(c) M4(d) char last; };
struct bits { M4(a) M4(b) M4(c) short s; unsigned f1 : 3; signed f2 : 5; unsigned f3 : 9; double d; };
union wideu { long l[4]; double d; char name[24]; struct sixteen s; };
struct outer { const char *tag; struct wide w; struct seventeen *next; };
struct pair { int x; float y; };

__attribute__((noinline)) int by_ptr(struct wide *w) { return w->a0 + w->j3; }
__attribute__((noinline)) int by_value(struct wide w, int k) { return w.b1 + k; }
__attribute__((noinline)) int exact(struct sixteen *s, struct seventeen *t) { return s->d3 + t->last; }
__attribute__((noinline)) int bitty(struct bits b) { return b.f2 + b.s; }
__attribute__((noinline)) long un(union wideu u, union wideu *p) { return u.l[0] + p->l[1]; }
__attribute__((noinline)) int nest(struct outer *o) { return o->w.c2 + (o->next ? o->next->last : 0); }
__attribute__((noinline)) struct wide make(int k) { struct wide w; memset(&w, 0, sizeof w); w.a0 = k; w.j3 = -k; return w; }
__attribute__((noinline)) struct pair small(struct pair p) { p.x += 1; return p; }

int main(void) {
    struct wide w;
    int *p = (int *)&w;
    for (int i = 0; i < 40; i++)
        p[i] = i * 3 - 7;
    struct sixteen s;
    struct seventeen t;
    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    s.a1 = 11; t.d3 = 12; t.last = 'z';
    struct bits b;
    memset(&b, 0, sizeof b);
    b.c3 = 9; b.s = -2; b.f1 = 5; b.f2 = -3; b.f3 = 300; b.d = 2.5;
    union wideu u;
    memset(&u, 0, sizeof u);
    u.l[0] = 7; u.l[1] = 8;
    struct outer o = { "outer", w, &t };
    struct pair pr = { 1, 2.5f };
    long r = by_ptr(&w) + by_value(w, 3) + exact(&s, &t) + bitty(b) + un(u, &u) + nest(&o) + make(4).a0;
    pr = small(pr);
    printf("%ld %d\n", r, pr.x);
    return 0;
}
