#include "rtkit/config/config_error.hpp"

namespace rtkit::config {
namespace {

std::string join_formatted(const std::vector<config_diagnostic>& diagnostics) {
    std::string text;
    for (const auto& d : diagnostics) {
        if (!text.empty()) text += '\n';
        text += d.format();
    }
    return text;
}

}  // namespace

std::string config_diagnostic::format() const {
    // Line 0 means the problem is the source as a whole (it cannot be read).
    if (line == 0) return source + ": error: " + message;
    return source + ':' + std::to_string(line) + ':' + std::to_string(column) +
           ": error: " + message;
}

config_error::config_error(std::vector<config_diagnostic> diagnostics)
    : std::runtime_error(join_formatted(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace rtkit::config
