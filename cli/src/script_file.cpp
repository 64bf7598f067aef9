#include "script_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace rtctl {

std::shared_ptr<const rtkit::script::source_file> read_script(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        std::cerr << "rtctl: error: cannot read script '" << path.string()
                  << "': it is a directory\n";
        return nullptr;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "rtctl: error: cannot read script '" << path.string()
                  << "': " << std::strerror(errno) << '\n';
        return nullptr;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return std::make_shared<const rtkit::script::source_file>(
        rtkit::script::source_file{path.string(), text.str()});
}

}  // namespace rtctl
