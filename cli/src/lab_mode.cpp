#include "lab_mode.hpp"

#include "rtkit/script/lexer.hpp"

namespace rtctl {

std::vector<std::string> lab_overrides(std::uint64_t seed) {
    return {"runtime.flavor=\"current_thread\"", "runtime.workers=1", "runtime.clock=\"virtual\"",
            "lanes.plugin=\"lab\"", "lanes.lab.seed=" + std::to_string(seed)};
}

std::optional<rtkit::script::script_error> first_lab_refusal(
    const rtkit::script::source_file& script) {
    // These are reserved words, so a token scan finds every use: every socket
    // a script opens starts at `listen` or `connect` (accept and read need one).
    for (const rtkit::script::token& t : rtkit::script::tokenize(script)) {
        if (t.kind != rtkit::script::token_kind::keyword) continue;
        std::string why;
        if (t.text == "listen" || t.text == "connect")
            why = "opens a socket, whose timing is the operating system's, not the seed's";
        else if (t.text == "spin")
            why =
                "holds the worker while time passes, and a lab run's time moves only while "
                "every task waits (write sleep)";
        if (!why.empty())
            return rtkit::script::script_error(
                rtkit::script::error_kind::syntax, t.where,
                "a lab run refuses '" + t.text + "': it " + why + "; run it without --lab");
    }
    return std::nullopt;
}

}  // namespace rtctl
