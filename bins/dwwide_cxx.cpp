// C++ classes wider than --ftrace -a shows (16 members, then "..."): the metadata cache keeps
// only those of a class passed in memory, whether or not it has a destructor of its own (then
// it is passed by invisible reference). A warm run must print what a cold run prints.
#include <cstdio>
#include <cstring>

#define M4(p) int p##0; int p##1; int p##2; int p##3;
struct Wide { M4(a) M4(b) M4(c) M4(d) M4(e) };                 // 20 members, trivial
struct Owned { M4(a) M4(b) M4(c) M4(d) M4(e) ~Owned() { a0 = 0; } };   // 20, by reference
struct Holder { Wide w; const char *name; Holder *next; };

__attribute__((noinline)) int by_ptr(Wide *w) { return w->a0 + w->e3; }
__attribute__((noinline)) int by_value(Wide w, int k) { return w.b1 + k; }
__attribute__((noinline)) int owned(Owned o, const Owned &r) { return o.c2 + r.d3; }
__attribute__((noinline)) int held(Holder *h) { return h->w.a1 + (h->next ? 1 : 0); }

int main() {
    Wide w;
    int *p = reinterpret_cast<int *>(&w);
    for (int i = 0; i < 20; i++)
        p[i] = i * 5 - 3;
    Owned o;
    std::memcpy(static_cast<void *>(&o), &w, sizeof w);
    Holder h = { w, "holder", nullptr };
    int r = by_ptr(&w) + by_value(w, 2) + owned(o, o) + held(&h);
    std::printf("%d\n", r);
    return 0;
}
