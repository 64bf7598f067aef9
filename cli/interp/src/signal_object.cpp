#include "signal_object.hpp"

#include <signal.h>

#include <array>
#include <string_view>
#include <utility>

#include "operands.hpp"

namespace rtkit::interp {
namespace {

/// The signals a script may name: those a service reacts to. Faults
/// (SIGSEGV, ...) and SIGKILL / SIGSTOP cannot be awaited at all.
constexpr std::array<std::pair<std::string_view, int>, 10> known_signals{{
    {"SIGHUP", SIGHUP},
    {"SIGINT", SIGINT},
    {"SIGQUIT", SIGQUIT},
    {"SIGTERM", SIGTERM},
    {"SIGUSR1", SIGUSR1},
    {"SIGUSR2", SIGUSR2},
    {"SIGALRM", SIGALRM},
    {"SIGCHLD", SIGCHLD},
    {"SIGPIPE", SIGPIPE},
    {"SIGWINCH", SIGWINCH},
}};

int signal_number(const std::string& name, script::source_pos where) {
    for (const auto& [known, number] : known_signals)
        if (known == name) return number;
    std::string names;
    for (const auto& known : known_signals)
        names += (names.empty() ? "" : ", ") + std::string(known.first);
    fail(where, "signal: '" + name + "' is not a signal a script can wait for (" + names + ")");
}

std::string_view signal_name(int number) {
    for (const auto& [name, known] : known_signals)
        if (known == number) return name;
    return "?";
}

}  // namespace

std::shared_ptr<signal_object> signal_object::listen(const std::vector<std::string>& names,
                                                     script::source_pos where) {
    std::vector<int> numbers;
    std::string shown;
    for (const std::string& name : names) {
        numbers.push_back(signal_number(name, where));
        shown += (shown.empty() ? "" : ", ") + name;
    }
    return std::make_shared<signal_object>(rtkit::signal_stream(std::span<const int>(numbers)),
                                           std::move(shown));
}

rtkit::task<script::value> signal_object::next() {
    auto turn = co_await waiting_.lock();
    const int number = co_await stream_.next();
    co_return std::string(signal_name(number));
}

}  // namespace rtkit::interp
