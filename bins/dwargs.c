/* Arguments and return values for --ftrace -a (issue 38): every kind of C type, compared with
 * uftrace record -a (built -pg -g) and with gdb's `info args` (built -O2 -g). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum color { RED, GREEN = 5, BLUE };
enum mode { M_READ = 1, M_WRITE = 2, M_EXEC = 4 };
struct point { int x, y; };
struct named { int id; double weight; const char *name; };
struct big { long a, b, c, d; char tag[8]; };
struct node { int v; struct node *next; };
union num { int i; float f; };
typedef int (*binop)(int, int);

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE int add(int a, int b) { return a + b; }
NOINLINE int mul(int a, int b) { return a * b; }
NOINLINE long sizes(signed char c, unsigned char uc, short s, unsigned short us, unsigned u,
                    long l, unsigned long ul, long long ll) { return c + uc + s + us + u + l + (long)ul + ll; }
NOINLINE char upper(char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }
NOINLINE bool is_even(int n) { return n % 2 == 0; }
NOINLINE size_t slen(const char *s) { return strlen(s); }
NOINLINE const char *pick(int i) { return i ? "yes" : "no"; }
NOINLINE enum color next_color(enum color c) { return c == BLUE ? RED : c == RED ? GREEN : BLUE; }
NOINLINE int open_mode(enum mode m) { return (int)m; }
NOINLINE float halve(float f) { return f / 2; }
NOINLINE double scale(double d, int k) { return d * k; }
NOINLINE long double ldmul(long double x, long double y) { return x * y; }
NOINLINE int apply(binop f, int a, int b) { return f(a, b); }
NOINLINE int manhattan(struct point p) { return (p.x < 0 ? -p.x : p.x) + (p.y < 0 ? -p.y : p.y); }
NOINLINE struct point mkpoint(int x, int y) { struct point p = {x, y}; return p; }
NOINLINE double weigh(const struct named *n) { return n->weight * n->id; }
NOINLINE long bigsum(struct big b) { return b.a + b.b + b.c + b.d + b.tag[0]; }
NOINLINE struct big mkbig(long a) { struct big b = {a, a + 1, a + 2, a + 3, "big"}; return b; }
NOINLINE int listlen(const struct node *n) { int k = 0; for (; n; n = n->next) k++; return k; }
NOINLINE int numint(union num u) { return u.i; }
NOINLINE int sumarr(const int a[4]) { return a[0] + a[1] + a[2] + a[3]; }
NOINLINE void getxy(struct point *out, int *count) { out->x = 3; out->y = 4; *count = 2; }
NOINLINE int many(int a, int b, int c, int d, int e, int f, int g, int h) { return a + b + c + d + e + f + g + h; }
NOINLINE double mixed(int a, double b, int c, float d) { return a + b + c + d; }
NOINLINE void nothing(void) { }

int main(void)
{
    long t = 0;
    struct named n = {7, 1.5, "seven"};
    struct node c = {3, NULL}, b = {2, &c}, a = {1, &b};
    int arr[4] = {1, 2, 3, 4};
    union num u = {.i = 42};
    struct point p;
    int cnt = 0;
    t += add(1, 2);
    t += sizes(-1, 200, -300, 60000, 4000000000u, -5, 6, -7);
    t += upper('q');
    t += is_even(10);
    t += slen("hello world");
    t += strlen(pick(1));
    t += next_color(GREEN);
    t += open_mode(M_READ | M_WRITE);
    t += (long)halve(3.0f);
    t += (long)scale(2.5, 4);
    t += (long)ldmul(1.5L, 4.0L);
    t += apply(mul, 6, 7);
    t += manhattan((struct point){-3, 4});
    p = mkpoint(5, 6);
    t += p.x;
    t += (long)weigh(&n);
    t += bigsum(mkbig(10));
    t += listlen(&a);
    t += numint(u);
    t += sumarr(arr);
    getxy(&p, &cnt);
    t += many(1, 2, 3, 4, 5, 6, 7, 8);
    t += (long)mixed(1, 2.5, 3, 4.5f);
    nothing();
    printf("%ld %d %d\n", t, p.x, cnt);
    return 0;
}
