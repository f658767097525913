// C++ arguments for --ftrace -a (issue 38): std::string, std::vector, `this` with its class.
#include <cstdio>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline, noclone))

struct Counter {
    int count;
    std::string label;
    NOINLINE int bump(int by) { count += by; return count; }
};

NOINLINE size_t greet(const std::string &who) { return who.size() + 7; }
NOINLINE size_t byval(std::string s) { return s.size(); }
NOINLINE std::string shout(const std::string &s) { return s + "!"; }
NOINLINE long total(const std::vector<int> &v) { long t = 0; for (int x : v) t += x; return t; }
NOINLINE int twice(int x) { return 2 * x; }

int main()
{
    std::string w = "world";
    std::vector<int> v = {1, 2, 3, 4, 5};
    Counter c{10, "clicks"};
    long t = greet(w) + byval("by value") + shout("hey").size() + total(v) + twice(21) + c.bump(5);
    std::printf("%ld\n", t);
    return 0;
}
