// The documents say what the suites do: conformance/README.md lists every
// case of every suite, and the example plugin's README states the summary
// its conformance command prints (tests/package runs that command and
// compares; this checks the count it states against the suite).
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "rtkit/conformance/conformance.hpp"

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    REQUIRE_MESSAGE(in, "cannot read " << path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The case names in the README's tables: rows that start with | `KIND.NAME` |.
/// (By hand: GCC 12 warns falsely inside std::regex under the sanitizers.)
std::set<std::string> listed_cases(const std::string& readme, const std::string& kind) {
    std::set<std::string> names;
    const std::string start = "| `" + kind + ".";
    std::istringstream lines(readme);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(start, 0) != 0) continue;
        const auto end = line.find('`', 3);
        if (end != std::string::npos) names.insert(line.substr(3, end - 3));
    }
    return names;
}

}  // namespace

TEST_CASE("conformance/README.md lists exactly the cases each suite runs") {
    const std::string readme = read_text(RTKIT_SOURCE_DIR "/conformance/README.md");
    for (const std::string kind : {"reactor", "timer", "lanes"}) {
        INFO("suite: " << kind);
        const auto cases = rtkit::conformance::case_names(kind);
        REQUIRE_FALSE(cases.empty());
        const std::set<std::string> run(cases.begin(), cases.end());
        const std::set<std::string> listed = listed_cases(readme, kind);
        for (const std::string& name : run)
            CHECK_MESSAGE(listed.count(name) == 1,
                          "the suite runs " << name << ", which the README does not list");
        for (const std::string& name : listed)
            CHECK_MESSAGE(run.count(name) == 1,
                          "the README lists " << name << ", which the suite does not run");
    }
}

TEST_CASE("the example plugin's README states as many cases as the reactor suite has") {
    const std::string readme =
        read_text(RTKIT_SOURCE_DIR "/examples/third_party_reactor/README.md");
    // "rtctl conformance build/rtkit_reactor_poll.so   # N passed, 0 failed, M skipped"
    const auto command = readme.find("bin/rtctl conformance ");
    REQUIRE_MESSAGE(command != std::string::npos, "the README shows no rtctl conformance command");
    const std::string line = readme.substr(command, readme.find('\n', command) - command);
    const auto comment = line.find('#');
    unsigned passed = 0, failed = 1, skipped = 0;
    REQUIRE_MESSAGE((comment != std::string::npos &&
                     std::sscanf(line.c_str() + comment, "# %u passed, %u failed, %u skipped",
                                 &passed, &failed, &skipped) == 3),
                    "the README's conformance command states no summary: " << line);
    CHECK(failed == 0);
    const std::size_t stated = passed + skipped;
    CHECK(stated == rtkit::conformance::case_names("reactor").size());
}
