// bench/progs/cxxwork.cpp: a C++17 program of the usual shape: strings built and compared,
// a std::map and an unordered_map filled, a vector sorted, an exception caught, iostream out.
#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

static int checked(int v)
{
    if (v % 997 == 0)
        throw std::runtime_error("multiple of 997: " + std::to_string(v));
    return v;
}

int main()
{
    std::vector<std::string> words;
    std::map<std::string, int> counts;
    std::unordered_map<int, std::string> names;
    int caught = 0;
    for (int i = 0; i < 20000; i++) {
        std::ostringstream s;
        s << "w" << (i * 7919) % 5003;
        words.push_back(s.str());
        counts[words.back()]++;
        try {
            names[checked(i)] = words.back();
        } catch (const std::exception &) {
            caught++;
        }
    }
    std::sort(words.begin(), words.end());
    auto last = std::unique(words.begin(), words.end());
    std::cout << "distinct " << (last - words.begin()) << " keys " << counts.size() << " names "
              << names.size() << " caught " << caught << " first " << words.front() << "\n";
    return 0;
}
