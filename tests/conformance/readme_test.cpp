// The documents say what the suites do: conformance/README.md lists every
// case of every suite with the text `rtctl conformance --list` prints for it
// (the suites' own), rtkit/reactor.hpp names a case for every rule it states,
// and the example plugin's README states the summary its conformance command
// prints (tests/package runs that command and compares; this checks the count
// it states against the suite).
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rtkit/conformance/conformance.hpp"

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    REQUIRE_MESSAGE(in, "cannot read " << path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The cases in the README's tables, by name, with what each checks: rows
/// that look like | `KIND.NAME` | TEXT |.
/// (By hand: GCC 12 warns falsely inside std::regex under the sanitizers.)
std::map<std::string, std::string> listed_cases(const std::string& readme,
                                                const std::string& kind) {
    std::map<std::string, std::string> cases;
    const std::string start = "| `" + kind + ".";
    std::istringstream lines(readme);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(start, 0) != 0) continue;
        const auto end = line.find('`', 3);
        const auto text = line.find("| ", end);
        if (end == std::string::npos || text == std::string::npos || line.size() < text + 4)
            continue;
        cases[line.substr(3, end - 3)] = line.substr(text + 2, line.size() - text - 4);
    }
    return cases;
}

}  // namespace

TEST_CASE("conformance/README.md lists exactly the cases each suite runs - as --list says them") {
    const std::string readme = read_text(RTKIT_SOURCE_DIR "/conformance/README.md");
    for (const std::string kind : {"reactor", "timer", "lanes"}) {
        INFO("suite: " << kind);
        const auto cases = rtkit::conformance::cases_of(kind);
        REQUIRE_FALSE(cases.empty());
        const auto listed = listed_cases(readme, kind);
        std::set<std::string> run;
        for (const auto& c : cases) {
            run.insert(c.name);
            const auto row = listed.find(c.name);
            CHECK_MESSAGE(row != listed.end(),
                          "the suite runs " << c.name << ", which the README does not list");
            if (row != listed.end()) CHECK(row->second == c.checks);
        }
        for (const auto& [name, text] : listed)
            CHECK_MESSAGE(run.count(name) == 1,
                          "the README lists " << name << ", which the suite does not run");
    }
}

TEST_CASE("every rule rtkit/reactor.hpp states names a reactor case that exists") {
    const std::string header = read_text(RTKIT_SOURCE_DIR "/kernel/include/rtkit/reactor.hpp");
    const auto names = rtkit::conformance::case_names("reactor");
    const std::set<std::string> cases(names.begin(), names.end());
    // A rule ends with "(case reactor.NAME)" or "(cases reactor.A, reactor.B)",
    // which may run over a comment line break.
    std::string text;
    std::istringstream lines(header);
    for (std::string line; std::getline(lines, line);)
        text += (line.rfind("/// ", 0) == 0 ? line.substr(4) : line) + " ";
    std::size_t named = 0;
    for (std::size_t at = text.find("(case"); at != std::string::npos;
         at = text.find("(case", at + 1)) {
        std::istringstream list(text.substr(at, text.find(')', at) - at));
        std::string word;
        list >> word;  // "(case" or "(cases"
        while (list >> word) {
            if (word.back() == ',') word.pop_back();
            ++named;
            CHECK_MESSAGE(cases.count(word) == 1,
                          "rtkit/reactor.hpp names " << word << ", which the suite does not run");
        }
    }
    CHECK(named >= 15);
    // "Rules, each checked by a case": every bullet of that list names one.
    const auto rules = header.find("/// Rules, each checked by a case");
    REQUIRE(rules != std::string::npos);
    std::istringstream rule_lines(header.substr(rules, header.find("\n///\n", rules) - rules));
    std::vector<std::string> bullets;
    for (std::string line; std::getline(rule_lines, line);) {
        if (line.rfind("/// - ", 0) == 0)
            bullets.push_back(line);
        else if (!bullets.empty())
            bullets.back() += line;
    }
    CHECK(bullets.size() >= 4);
    for (const std::string& bullet : bullets)
        CHECK_MESSAGE(bullet.find("(case") != std::string::npos,
                      "a rule names no case: " << bullet);
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

#ifdef RTKIT_TEST_RTCTL
TEST_CASE("rtctl conformance --list prints every case with what it checks - no file needed") {
    const std::string out_file = std::filesystem::temp_directory_path() / "rtkit-conformance-list";
    REQUIRE(std::system(
                (std::string(RTKIT_TEST_RTCTL) + " conformance --list > " + out_file).c_str()) ==
            0);
    const std::string listed = read_text(out_file);
    std::filesystem::remove(out_file);
    for (const std::string kind : {"reactor", "timer", "lanes"})
        for (const auto& c : rtkit::conformance::cases_of(kind))
            CHECK_MESSAGE(
                listed.find("  " + c.name + "\n      " + c.checks + "\n") != std::string::npos,
                c.name);
    // Without a file or --list there is nothing to do: bad input.
    CHECK(WEXITSTATUS(std::system(
              (std::string(RTKIT_TEST_RTCTL) + " conformance > /dev/null 2>&1").c_str())) == 2);
}
#endif
