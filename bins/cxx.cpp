// cxx: C++ runtime features: std::string, std::vector, std::sort, std::map,
// iostream, exceptions thrown across frames and from inside libstdc++,
// and a virtual call.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct Shape {
    virtual ~Shape() {}
    virtual std::string name() const = 0;
    virtual int area() const = 0;
};

struct Rect : Shape {
    int w, h;
    Rect(int w_, int h_) : w(w_), h(h_) {}
    std::string name() const override { return "rect"; }
    int area() const override { return w * h; }
};

struct Square : Rect {
    explicit Square(int s) : Rect(s, s) {}
    std::string name() const override { return "square"; }
};

struct Tracker {                 // destructor runs during unwinding
    const char *tag;
    explicit Tracker(const char *t) : tag(t) {}
    ~Tracker() { std::cout << "unwind " << tag << "\n"; }
};

__attribute__((noinline)) static int level3(int x)
{
    Tracker t("level3");
    if (x > 2)
        throw std::runtime_error("too deep: " + std::to_string(x));
    return x;
}

__attribute__((noinline)) static int level2(int x)
{
    Tracker t("level2");
    return level3(x + 1) + 1;
}

__attribute__((noinline)) static int level1(int x)
{
    Tracker t("level1");
    return level2(x + 1) + 1;
}

int main()
{
    std::vector<std::string> words = {"pear", "apple", "fig", "banana", "cherry"};
    std::sort(words.begin(), words.end());
    std::cout << "sorted:";
    for (const auto &w : words)
        std::cout << " " << w;
    std::cout << "\n";

    std::map<std::string, int> lengths;
    for (const auto &w : words)
        lengths[w] = (int)w.size();
    for (const auto &kv : lengths)
        std::cout << kv.first << "=" << kv.second << "\n";

    std::string s = "Hello";
    s += ", C++";
    std::cout << s << " (" << s.size() << " chars)\n";

    try {
        level1(1);
        std::cout << "no exception?\n";
    } catch (const std::runtime_error &e) {
        std::cout << "caught runtime_error: " << e.what() << "\n";
    }

    try {
        int v = std::stoi("x");
        std::cout << "stoi gave " << v << "\n";
    } catch (const std::invalid_argument &e) {
        std::cout << "caught invalid_argument from stoi\n";
    }

    try {
        std::vector<int> v(3, 7);
        std::cout << v.at(99) << "\n";
    } catch (const std::out_of_range &e) {
        std::cout << "caught out_of_range from vector::at\n";
    }

    std::vector<std::unique_ptr<Shape>> shapes;
    shapes.emplace_back(new Rect(2, 3));
    shapes.emplace_back(new Square(4));
    for (const auto &sh : shapes)
        std::cout << sh->name() << " area " << sh->area() << "\n";

    std::cout << "cxx done" << std::endl;
    return 0;
}
