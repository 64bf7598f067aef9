#include "rtkit/script/source.hpp"

namespace rtkit::script {

std::string_view source_file::line_text(std::uint32_t line) const noexcept {
    std::string_view rest = text;
    for (std::uint32_t n = 1; n < line; ++n) {
        const auto newline = rest.find('\n');
        if (newline == std::string_view::npos) return {};
        rest.remove_prefix(newline + 1);
    }
    rest = rest.substr(0, rest.find('\n'));
    if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
    return rest;
}

}  // namespace rtkit::script
