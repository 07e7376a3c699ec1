// access_log_stats.cpp — summarize an nginx/Apache "combined" access log.
//
//   g++ -std=c++20 -O2 -o access_log_stats access_log_stats.cpp
//   ./access_log_stats /var/log/nginx/access.log --top 5
//
// Prints request counts per status class, the busiest paths and the p50/p95/p99
// response sizes. Lines that do not match the format are counted and skipped.

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// 203.0.113.9 - - [22/Nov/2026:14:05:59 +0900] "GET /api/items?id=42 HTTP/1.1" 200 5123 "-" "curl/8.5.0"
const std::regex kLine(R"re(^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d{3}) (\d+|-))re");

struct Stats {
    std::uint64_t total = 0;
    std::uint64_t malformed = 0;
    std::map<int, std::uint64_t> by_class;  // 2 -> 2xx, 4 -> 4xx ...
    std::unordered_map<std::string, std::uint64_t> by_path;
    std::vector<std::uint64_t> sizes;
};

std::string strip_query(const std::string& target) {
    const auto q = target.find('?');
    return q == std::string::npos ? target : target.substr(0, q);
}

std::uint64_t percentile(std::vector<std::uint64_t>& v, double p) {
    if (v.empty()) return 0;
    const auto idx = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(idx), v.end());
    return v[idx];
}

}  // namespace

int main(int argc, char* argv[]) {
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " LOGFILE [--top N]\n";
        return 2;
    }
    std::size_t top = 10;
    for (int i = 2; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "--top") top = std::stoul(argv[i + 1]);
    }

    std::ifstream in(argv[1]);
    if (!in) {
        std::cerr << "cannot open " << argv[1] << '\n';
        return 1;
    }

    Stats s;
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        ++s.total;
        if (!std::regex_search(line, m, kLine)) {
            ++s.malformed;
            continue;
        }
        const int status = std::stoi(m[5].str());
        ++s.by_class[status / 100];
        ++s.by_path[strip_query(m[4].str())];
        if (m[6] != "-") s.sizes.push_back(std::stoull(m[6].str()));
    }

    std::cout << "requests: " << s.total << " (malformed: " << s.malformed << ")\n";
    for (const auto& [cls, n] : s.by_class) std::cout << "  " << cls << "xx: " << n << '\n';

    std::vector<std::pair<std::string, std::uint64_t>> paths(s.by_path.begin(), s.by_path.end());
    std::sort(paths.begin(), paths.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    std::cout << "top paths:\n";
    for (std::size_t i = 0; i < std::min(top, paths.size()); ++i) {
        std::cout << "  " << paths[i].second << '\t' << paths[i].first << '\n';
    }

    std::cout << "bytes p50=" << percentile(s.sizes, 0.50) << " p95=" << percentile(s.sizes, 0.95)
              << " p99=" << percentile(s.sizes, 0.99) << '\n';
    return 0;
}
